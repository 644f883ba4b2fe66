/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_file.h - for targets whose parser reads a path: the input is written to one file in
 * a private folder (on /dev/shm when there is one, so no disk is touched), rewritten in
 * place every execution. Included by one target each. */
#ifndef AUG_FUZZ_FILE_H
#define AUG_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir[256];

/* The private folder, made on first use: <shm or TMPDIR>/augur-fuzz-XXXXXX. */
static inline const char *fuzz_root(void) {
    if (fuzz_dir[0])
        return fuzz_dir;
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : NULL;
    if (!base)
        base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/augur-fuzz-XXXXXX", base);
    if (!mkdtemp(fuzz_dir))
        abort();
    return fuzz_dir;
}

/* Write data to <root>/<rel> (folders in rel must exist) and return its path. */
static inline const char *fuzz_write(const char *rel, const uint8_t *data, size_t size) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_root(), rel);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

/* mkdir <root>/<rel> once. */
static inline void fuzz_mkdir(const char *rel) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_root(), rel);
    if (mkdir(path, 0700) != 0 && access(path, F_OK) != 0)
        abort();
}

#endif
