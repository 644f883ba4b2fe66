/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_rank.c - top-K and Pareto front of sweep records (see sweep_rank.h). The front is
 * kept sorted by memory; its times then strictly fall (equal memory would mean one record
 * dominates the other), so "the fastest record needing at most m" is the last one at or
 * below m, found by binary search. */
#include "sweep_rank.h"

#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

#define REC(base, k, i) ((char *)(base) + (size_t)(i) * (k)->size)

int aug_rank_cmp_time(const struct aug_rank_keys *k, const void *a, const void *b) {
    double ta = aug_rank_time(k, a), tb = aug_rank_time(k, b);
    if (ta != tb)
        return ta < tb ? -1 : 1;
    double ma = aug_rank_mem(k, a), mb = aug_rank_mem(k, b);
    if (ma != mb)
        return ma < mb ? -1 : 1;
    uint64_t ia = aug_rank_index(a), ib = aug_rank_index(b);
    return ia < ib ? -1 : ia > ib;
}

int aug_rank_dominates(const struct aug_rank_keys *k, const void *b, const void *a) {
    double mb = aug_rank_mem(k, b), ma = aug_rank_mem(k, a);
    double tb = aug_rank_time(k, b), ta = aug_rank_time(k, a);
    if (aug_rank_index(b) == aug_rank_index(a) || mb > ma || tb > ta)
        return 0;
    return mb < ma || tb < ta || aug_rank_index(b) < aug_rank_index(a);
}

void aug_rank_top_insert(const struct aug_rank_keys *k, void *top, int *n, int cap, const void *e) {
    if (*n == cap && aug_rank_cmp_time(k, e, REC(top, k, cap - 1)) >= 0)
        return;
    int i = *n < cap ? (*n)++ : cap - 1;
    while (i > 0 && aug_rank_cmp_time(k, e, REC(top, k, i - 1)) < 0)
        i--;
    int last = *n - 1;
    if (last > i)
        memmove(REC(top, k, i + 1), REC(top, k, i), (size_t)(last - i) * k->size);
    memcpy(REC(top, k, i), e, k->size);
}

/* Records of the front with memory <= m: their count. */
static int upto(const struct aug_rank_keys *k, const void *f, int n, double m) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (aug_rank_mem(k, REC(f, k, mid)) <= m)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int aug_rank_front_beats(const struct aug_rank_keys *k, const void *front, int n, double mem,
                         double time) {
    int i = upto(k, front, n, mem);
    return i > 0 && aug_rank_time(k, REC(front, k, i - 1)) < time;
}

int aug_rank_front_insert(const struct aug_rank_keys *k, void **front, int *n, int *cap,
                          const void *e) {
    void *f = *front;
    double m = aug_rank_mem(k, e);
    int pos = upto(k, f, *n, m);
    if (pos > 0 && aug_rank_dominates(k, REC(f, k, pos - 1), e))
        return AUG_OK;
    int start = pos;
    if (pos > 0 && aug_rank_mem(k, REC(f, k, pos - 1)) == m)
        start = pos - 1; /* same memory and not dominating e: e dominates it */
    int end = start;
    while (end < *n && aug_rank_dominates(k, e, REC(f, k, end)))
        end++;
    int removed = end - start;
    if (removed == 0 && *n == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        void *g = realloc(f, (size_t)nc * k->size);
        if (!g)
            return aug_errorf(AUG_ENOMEM, "sweep: out of memory for the Pareto front");
        *front = f = g;
        *cap = nc;
    }
    if (removed != 1)
        memmove(REC(f, k, start + 1), REC(f, k, end), (size_t)(*n - end) * k->size);
    memcpy(REC(f, k, start), e, k->size);
    *n += 1 - removed;
    return AUG_OK;
}

/* ---- whole-set orders: sort small key records, then permute ---- */

struct key {
    double a, b;
    uint64_t index;
    int pos;
};

static int key_cmp(const void *pa, const void *pb) {
    const struct key *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sort recs by (time, memory, index), or by (memory, time, index) for the front, and keep
 * the first cap distinct records (top) or those faster than all before them (front);
 * returns the count kept or -1. */
static int sort_keep(const struct aug_rank_keys *k, void *recs, int n, int by_mem, int cap) {
    if (n <= 0)
        return 0;
    struct key *keys = malloc((size_t)n * sizeof *keys);
    char *tmp = malloc((size_t)n * k->size);
    if (!keys || !tmp) {
        free(keys);
        free(tmp);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const void *r = REC(recs, k, i);
        keys[i].a = by_mem ? aug_rank_mem(k, r) : aug_rank_time(k, r);
        keys[i].b = by_mem ? aug_rank_time(k, r) : aug_rank_mem(k, r);
        keys[i].index = aug_rank_index(r);
        keys[i].pos = i;
    }
    qsort(keys, (size_t)n, sizeof *keys, key_cmp);
    int m = 0;
    for (int i = 0; i < n && m < cap; i++) {
        const void *r = REC(recs, k, keys[i].pos);
        if (m > 0) {
            const void *prev = tmp + (size_t)(m - 1) * k->size;
            if (by_mem ? !(aug_rank_time(k, r) < aug_rank_time(k, prev))
                       : aug_rank_index(r) == aug_rank_index(prev))
                continue;
        }
        memcpy(tmp + (size_t)m * k->size, r, k->size);
        m++;
    }
    memcpy(recs, tmp, (size_t)m * k->size);
    free(keys);
    free(tmp);
    return m;
}

int aug_rank_top_of(const struct aug_rank_keys *k, void *recs, int n, int cap) {
    return sort_keep(k, recs, n, 0, cap);
}

int aug_rank_front_of(const struct aug_rank_keys *k, void *recs, int n) {
    return sort_keep(k, recs, n, 1, n);
}

int aug_rank_merge(const struct aug_rank_keys *k, void **top, int *n_top, void **front,
                   int *n_front, int top_k, const void *e, int n) {
    if (top_k < 1 || n < 0)
        return aug_errorf(AUG_EUSAGE, "sweep merge: bad top %d or count %d", top_k, n);
    size_t nt = (size_t)*n_top + (size_t)n, nf = (size_t)*n_front + (size_t)n;
    char *t = malloc((nt ? nt : 1) * k->size);
    char *f = malloc((nf ? nf : 1) * k->size);
    if (!t || !f) {
        free(t);
        free(f);
        return aug_errorf(AUG_ENOMEM, "sweep merge: out of memory");
    }
    aug_rank_copy(t, *top, (size_t)*n_top * k->size);
    aug_rank_copy(t + (size_t)*n_top * k->size, e, (size_t)n * k->size);
    aug_rank_copy(f, *front, (size_t)*n_front * k->size);
    aug_rank_copy(f + (size_t)*n_front * k->size, e, (size_t)n * k->size);
    int kt = aug_rank_top_of(k, t, (int)nt, top_k);
    int kf = aug_rank_front_of(k, f, (int)nf);
    if (kt < 0 || kf < 0) {
        free(t);
        free(f);
        return aug_errorf(AUG_ENOMEM, "sweep merge: out of memory");
    }
    free(*top);
    free(*front);
    *top = t;
    *n_top = kt;
    *front = f;
    *n_front = kf;
    return AUG_OK;
}
