/* SPDX-License-Identifier: Apache-2.0 */
/* atomic_write.c - temp + fsync + rename writes, stale temporary cleanup, folder locks
 * (atomic_write.h). */
#define _DEFAULT_SOURCE /* flock() */
#include "core/atomic_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/status.h"

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Split path into its folder ("." when none) and its last component. */
static int split_path(const char *path, char **dir, const char **base) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        *dir = dup_str(".");
        *base = path;
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        *dir = malloc(n + 1);
        if (*dir) {
            memcpy(*dir, path, n);
            (*dir)[n] = '\0';
        }
        *base = slash + 1;
    }
    return *dir ? 0 : -1;
}

int aug_atomic_clean_stale(const char *path) {
    char *dir;
    const char *base;
    if (split_path(path, &dir, &base) != 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return 0;
    }
    size_t bl = strlen(base);
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp.", 5) != 0)
            continue;
        const char *digits = n + bl + 5;
        char *end = NULL;
        errno = 0;
        long pid = strtol(digits, &end, 10);
        if (end == digits || *end != '\0' || errno || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its writer may still be running */
        size_t cap = strlen(dir) + strlen(n) + 2;
        char *full = malloc(cap);
        if (!full)
            break;
        snprintf(full, cap, "%s/%s", dir, n);
        if (unlink(full) == 0)
            removed++;
        free(full);
    }
    closedir(d);
    free(dir);
    return removed;
}

static void release(struct aug_atomic *a) {
    free(a->path);
    free(a->tmp);
    a->path = a->tmp = NULL;
    a->fp = NULL;
}

int aug_atomic_open(struct aug_atomic *a, const char *path) {
    memset(a, 0, sizeof *a);
    a->path = dup_str(path);
    if (!a->path)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        a->fp = fopen(path, "w"); /* a device or pipe: write in place */
        if (!a->fp) {
            int rc = aug_errorf(AUG_EIO, "cannot write '%s': %s", path, strerror(errno));
            release(a);
            return rc;
        }
        return AUG_OK;
    }
    aug_atomic_clean_stale(path);
    size_t cap = strlen(path) + 32;
    a->tmp = malloc(cap);
    if (!a->tmp) {
        release(a);
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    snprintf(a->tmp, cap, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0666);
    if (fd < 0 && errno == EEXIST && unlink(a->tmp) == 0) /* ours, from an earlier write */
        fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0666);
    if (fd < 0) {
        int rc = aug_errorf(AUG_EIO, "cannot write '%s': %s", a->tmp, strerror(errno));
        release(a);
        return rc;
    }
    a->fp = fdopen(fd, "w");
    if (!a->fp) {
        int rc = aug_errorf(AUG_EIO, "cannot write '%s': %s", a->tmp, strerror(errno));
        close(fd);
        unlink(a->tmp);
        release(a);
        return rc;
    }
    return AUG_OK;
}

int aug_atomic_commit(struct aug_atomic *a) {
    if (!a->fp) {
        release(a);
        return aug_errorf(AUG_EIO, "cannot write: no file open");
    }
    int rc = AUG_OK;
    errno = 0;
    if (fflush(a->fp) != 0 || ferror(a->fp))
        rc = aug_errorf(AUG_EIO, "cannot write '%s': %s", a->path,
                        errno ? strerror(errno) : "write error");
    else if (a->tmp && fsync(fileno(a->fp)) != 0)
        rc = aug_errorf(AUG_EIO, "cannot write '%s': %s", a->path, strerror(errno));
    if (fclose(a->fp) != 0 && rc == AUG_OK)
        rc = aug_errorf(AUG_EIO, "cannot write '%s': %s", a->path, strerror(errno));
    a->fp = NULL;
    if (a->tmp) {
        if (rc == AUG_OK && rename(a->tmp, a->path) != 0)
            rc = aug_errorf(AUG_EIO, "cannot rename '%s' to '%s': %s", a->tmp, a->path,
                            strerror(errno));
        if (rc != AUG_OK)
            unlink(a->tmp);
    }
    release(a);
    return rc;
}

void aug_atomic_abort(struct aug_atomic *a) {
    if (a->fp)
        fclose(a->fp);
    if (a->tmp)
        unlink(a->tmp);
    release(a);
}

int aug_dir_lock(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        aug_errorf(AUG_EIO, "cannot lock '%s': %s", dir, strerror(errno));
        return -1;
    }
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (r != 0) {
        aug_errorf(AUG_EIO, "cannot lock '%s': %s", dir, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

void aug_dir_unlock(int fd) {
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}
