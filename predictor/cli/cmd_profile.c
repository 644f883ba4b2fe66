/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_profile.c - `augur profile ...`: hand over to augur-profile.
 *
 * The profiler needs CUDA, cuBLAS, CUPTI and NCCL, so it is a separate binary that exists
 * only in CUDA builds; the front-end just finds it and execs it with the same arguments,
 * so its exit codes (77 when no GPU is usable) reach the caller unchanged. */
#include "cmd_profile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AUG_PROFILE_BINARY_DIR
#define AUG_PROFILE_BINARY_DIR ""
#endif

#define PROFILER "augur-profile"

/* <dir of the running executable>/augur-profile */
static int beside_self(char *buf, size_t cap) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    int w = snprintf(buf, cap, "%s/" PROFILER, self);
    return w > 0 && (size_t)w < cap && access(buf, X_OK) == 0;
}

static int in_build_tree(char *buf, size_t cap) {
    if (!AUG_PROFILE_BINARY_DIR[0])
        return 0;
    int w = snprintf(buf, cap, "%s/" PROFILER, AUG_PROFILE_BINARY_DIR);
    return w > 0 && (size_t)w < cap && access(buf, X_OK) == 0;
}

/* first PATH entry holding an executable augur-profile */
static int on_path(char *buf, size_t cap) {
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    while (*path) {
        size_t len = strcspn(path, ":");
        int w = snprintf(buf, cap, "%.*s/" PROFILER, (int)(len ? len : 1), len ? path : ".");
        if (w > 0 && (size_t)w < cap && access(buf, X_OK) == 0)
            return 1;
        path += len;
        if (*path == ':')
            path++;
    }
    return 0;
}

int aug_cmd_profile(int argc, char **argv) {
    char exe[PATH_MAX + 32];
    if (!beside_self(exe, sizeof exe) && !in_build_tree(exe, sizeof exe) &&
        !on_path(exe, sizeof exe)) {
        fprintf(stderr,
                "augur: profile: " PROFILER " is not built.\n"
                "It needs the CUDA toolkit with cuBLAS, CUPTI and NCCL: install them, then\n"
                "reconfigure and build, e.g.\n"
                "  cmake -S . -B build -DAUG_PROFILER=ON && cmake --build build\n"
                "(" PROFILER " is looked for next to augur, in the build tree and on PATH)\n");
        return 1;
    }
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "augur: profile: out of memory\n");
        return 1;
    }
    args[0] = exe;
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    args[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    execv(exe, args);
    fprintf(stderr, "augur: profile: cannot run '%s': %s\n", exe, strerror(errno));
    free(args);
    return 1;
}
