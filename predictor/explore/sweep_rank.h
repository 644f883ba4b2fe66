/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_rank.h - the two orders every sweep keeps (not public): the top K by time and the
 * Pareto front of time against memory, on records of any layout that start with their
 * uint64_t enumeration index and hold a time and a memory double at known offsets.
 *
 * Equal times rank the smaller memory first, then the lower index; the front uses this
 * dominance: b dominates a when it needs no
 * more memory and no more time, and is strictly better in one or has the lower index. So
 * the top list and the front of a set do not depend on the order records arrive in. */
#ifndef AUG_SWEEP_RANK_H
#define AUG_SWEEP_RANK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct aug_rank_keys {
    size_t size;     /* bytes per record */
    size_t off_time; /* offset of the time (double, smaller is better) */
    size_t off_mem;  /* offset of the memory (double, smaller is better) */
};

/* memcpy that accepts an empty (possibly NULL) source. */
static inline void aug_rank_copy(void *dst, const void *src, size_t bytes) {
    if (bytes)
        memcpy(dst, src, bytes);
}

static inline uint64_t aug_rank_index(const void *r) { return *(const uint64_t *)r; }
static inline double aug_rank_time(const struct aug_rank_keys *k, const void *r) {
    return *(const double *)((const char *)r + k->off_time);
}
static inline double aug_rank_mem(const struct aug_rank_keys *k, const void *r) {
    return *(const double *)((const char *)r + k->off_mem);
}

/* (time, memory, index) order: < 0, 0, > 0. */
int aug_rank_cmp_time(const struct aug_rank_keys *k, const void *a, const void *b);

/* Does b dominate a? */
int aug_rank_dominates(const struct aug_rank_keys *k, const void *b, const void *a);

/* Keep the cap best records of a list sorted by (time, memory, index). */
void aug_rank_top_insert(const struct aug_rank_keys *k, void *top, int *n, int cap, const void *e);

/* Insert into a front sorted by memory (grown by doubling; AUG_ENOMEM on failure). */
int aug_rank_front_insert(const struct aug_rank_keys *k, void **front, int *n, int *cap,
                          const void *e);

/* Is some record of the front no larger than mem and faster than time? */
int aug_rank_front_beats(const struct aug_rank_keys *k, const void *front, int n, double mem,
                         double time);

/* In place: the best cap records of a set by (time, memory, index), duplicates of one index
 * dropped; and the exact front of a set, memory ascending. Return the new count, or -1
 * when scratch memory could not be had. */
int aug_rank_top_of(const struct aug_rank_keys *k, void *recs, int n, int cap);
int aug_rank_front_of(const struct aug_rank_keys *k, void *recs, int n);

/* Merge n records into a result's top list (at most top_k) and front, both owned heap
 * arrays that are replaced. AUG_OK, AUG_EUSAGE or AUG_ENOMEM (the result left as it was). */
int aug_rank_merge(const struct aug_rank_keys *k, void **top, int *n_top, void **front,
                   int *n_front, int top_k, const void *e, int n);

#endif
