/* SPDX-License-Identifier: Apache-2.0 */
/* data.c - locating shipped data (presets/, kernels-db/) and reading whole files.
 *
 * Order: $AUGUR_DATA_DIR (and $AUGUR_KDB); <exe dir>/../share/augur when the running
 * executable sits in an install tree (found through /proc/self/exe, so a moved prefix
 * still works); then, for an executable inside the build tree, the source tree it was
 * built from; for any other (an installed augur, a program linked against an installed
 * libaugur), the data directory of the install prefix chosen at configure time
 * (CMAKE_INSTALL_FULL_DATADIR/augur), falling back to the source tree when that prefix
 * holds none. */
#include "augur/data.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/status.h"

#ifndef AUG_SOURCE_DATA_DIR
#define AUG_SOURCE_DATA_DIR "predictor"
#endif
#ifndef AUG_SOURCE_KDB_DIR
#define AUG_SOURCE_KDB_DIR "kernels-db"
#endif
#ifndef AUG_REL_DATA_DIR
#define AUG_REL_DATA_DIR "share/augur"
#endif
#ifndef AUG_PREFIX_DATA_DIR
#define AUG_PREFIX_DATA_DIR "/usr/local/share/augur"
#endif
#ifndef AUG_BUILD_DIR
#define AUG_BUILD_DIR ""
#endif

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* <exe dir>/../<AUG_REL_DATA_DIR>/<sub> if it exists. */
static int installed_dir(const char *sub, char *buf, size_t n) {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return 0;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    int w = snprintf(buf, n, "%s/../%s/%s", exe, AUG_REL_DATA_DIR, sub);
    return w > 0 && (size_t)w < n && is_dir(buf);
}

/* Is the running executable inside the build tree? */
static int in_build_tree(void) {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    size_t bl = strlen(AUG_BUILD_DIR);
    if (len <= 0 || bl == 0)
        return 0;
    exe[len] = '\0';
    return strncmp(exe, AUG_BUILD_DIR, bl) == 0 && exe[bl] == '/';
}

/* The shipped folder `sub` ("presets", "kernels-db") when no environment variable and no
 * install tree beside the executable says where: source tree or configure-time prefix. */
static const char *fallback_dir(const char *sub, const char *source_dir, char *buf, size_t n) {
    int w = snprintf(buf, n, "%s/%s", AUG_PREFIX_DATA_DIR, sub);
    int prefix_ok = w > 0 && (size_t)w < n && is_dir(buf);
    if (prefix_ok && !in_build_tree()) {
        if (strcmp(sub, "presets") == 0)
            buf[strlen(buf) - strlen("/presets")] = '\0';
        return buf;
    }
    return source_dir;
}

static _Thread_local char data_dir[PATH_MAX + 64];
static _Thread_local char kdb_dir[PATH_MAX + 64];

const char *aug_data_dir(void) {
    const char *env = getenv("AUGUR_DATA_DIR");
    if (env && *env) {
        snprintf(data_dir, sizeof data_dir, "%s", env);
        return data_dir;
    }
    char buf[PATH_MAX + 64];
    if (installed_dir("presets", buf, sizeof buf)) {
        size_t l = strlen(buf) - strlen("/presets");
        buf[l] = '\0';
        snprintf(data_dir, sizeof data_dir, "%s", buf);
        return data_dir;
    }
    return fallback_dir("presets", AUG_SOURCE_DATA_DIR, data_dir, sizeof data_dir);
}

const char *aug_kdb_dir(void) {
    const char *env = getenv("AUGUR_KDB");
    if (env && *env) {
        snprintf(kdb_dir, sizeof kdb_dir, "%s", env);
        return kdb_dir;
    }
    env = getenv("AUGUR_DATA_DIR");
    if (env && *env) {
        snprintf(kdb_dir, sizeof kdb_dir, "%s/kernels-db", env);
        if (is_dir(kdb_dir))
            return kdb_dir;
    }
    if (installed_dir("kernels-db", kdb_dir, sizeof kdb_dir))
        return kdb_dir;
    return fallback_dir("kernels-db", AUG_SOURCE_KDB_DIR, kdb_dir, sizeof kdb_dir);
}

int aug_read_file(const char *path, char **out, long *len) {
    return aug_read_file_max(path, AUG_READ_FILE_MAX, out, len);
}

static int too_large(const char *path, long max_bytes) {
    return aug_errorf(AUG_EDATA, "'%s' is larger than %ld MiB: not an input augur reads", path,
                      max_bytes >> 20);
}

int aug_read_file_max(const char *path, long max_bytes, char **out, long *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return aug_errorf(AUG_EIO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > max_bytes) {
        fclose(f);
        return too_large(path, max_bytes);
    }
    size_t cap = 65536, n = 0, limit = (size_t)max_bytes;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return aug_errorf(AUG_ENOMEM, "out of memory reading '%s'", path);
    }
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) {
            if (ferror(f)) {
                free(buf);
                fclose(f);
                return aug_errorf(AUG_EIO, "cannot read '%s': %s", path, strerror(errno));
            }
            break;
        }
        if (n > limit) { /* a device or pipe that does not end (/dev/zero) */
            free(buf);
            fclose(f);
            return too_large(path, max_bytes);
        }
        cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) {
            free(buf);
            fclose(f);
            return aug_errorf(AUG_ENOMEM, "out of memory reading '%s'", path);
        }
        buf = nb;
    }
    fclose(f);
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = (long)n;
    return AUG_OK;
}
