/* SPDX-License-Identifier: Apache-2.0 */
/* atomic_write.h - files that are either wholly written or not changed at all, and an
 * advisory lock on a folder.
 *
 * aug_atomic_open() writes into "<path>.tmp.<pid>" beside the target (created with O_EXCL,
 * so never through a planted link); aug_atomic_commit() flushes, fsyncs, closes and renames
 * it over the target, or removes it and reports why. A reader never sees a half-written
 * file, and an old file survives a failed or killed run. Temporaries left by killed runs
 * are removed by the next aug_atomic_open() of the same target (their pid is gone).
 *
 * A target that exists and is not a regular file (/dev/stdout, /dev/full, a pipe) is
 * written in place: renaming over a device is never right, and its write errors are
 * still reported by the commit. "-" is not special here; callers map it to stdout. */
#ifndef AUG_CORE_ATOMIC_WRITE_H
#define AUG_CORE_ATOMIC_WRITE_H

#include <stdio.h>

struct aug_atomic {
    FILE *fp;   /* write here */
    char *path; /* the target */
    char *tmp;  /* the temporary, NULL when writing in place */
};

/* Open `path` for an atomic rewrite. AUG_OK, or AUG_EIO/AUG_ENOMEM with a message naming
 * the file; on failure `a` holds nothing to release. */
int aug_atomic_open(struct aug_atomic *a, const char *path);
/* Finish: AUG_OK when every byte reached the disk and the rename succeeded; otherwise
 * AUG_EIO "cannot write '<path>': <why>" and the old file is untouched. Frees `a`. */
int aug_atomic_commit(struct aug_atomic *a);
/* Give up: remove the temporary, keep the old file. Frees `a`. Safe on a zeroed struct. */
void aug_atomic_abort(struct aug_atomic *a);

/* Remove "<path>.tmp.<pid>" files whose process no longer exists. Returns how many. */
int aug_atomic_clean_stale(const char *path);

/* Exclusive advisory lock (flock) on folder `dir`, waiting for a holder to finish; the
 * descriptor (>= 0) is released with aug_dir_unlock() or at exit. -1 with a message on
 * failure. */
int aug_dir_lock(const char *dir);
void aug_dir_unlock(int fd);

#endif
