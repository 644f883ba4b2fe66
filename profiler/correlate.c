/* SPDX-License-Identifier: Apache-2.0 */
/* correlate.c - sums kernel records per external correlation range (see correlate.h).
 *
 * Records are appended to two arrays as they arrive; a query maps each kernel's CUDA
 * correlation id to its external id through the external-correlation records and adds
 * its duration to a per-device total. Queries happen once per repetition after a forced
 * flush, with at most a few thousand records per point, so a linear scan is enough and
 * keeps the code obviously correct. */
#include "correlate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

struct ext_rec {
    uint32_t correlation_id;
    uint64_t external_id;
};

struct kern_rec {
    uint32_t correlation_id;
    uint32_t device;
    uint64_t start_ns, end_ns;
    int valid;
    char name[AUG_PROF_KERNEL_NAME_LEN];
};

struct aug_prof_corr {
    struct ext_rec *ext;
    size_t n_ext, cap_ext;
    struct kern_rec *kern;
    size_t n_kern, cap_kern;
};

int aug_prof_corr_new(struct aug_prof_corr **out) {
    struct aug_prof_corr *c = calloc(1, sizeof *c);
    if (!c)
        return aug_errorf(AUG_ENOMEM, "out of memory allocating the record collection");
    *out = c;
    return AUG_OK;
}

void aug_prof_corr_free(struct aug_prof_corr *c) {
    if (!c)
        return;
    free(c->ext);
    free(c->kern);
    free(c);
}

void aug_prof_corr_reset(struct aug_prof_corr *c) {
    c->n_ext = 0;
    c->n_kern = 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t elt) {
    if (n < *cap)
        return AUG_OK;
    size_t nc = *cap ? *cap * 2 : 256;
    void *na = realloc(*arr, nc * elt);
    if (!na)
        return aug_errorf(AUG_ENOMEM, "out of memory storing %zu activity records", n);
    *arr = na;
    *cap = nc;
    return AUG_OK;
}

int aug_prof_corr_add_external(struct aug_prof_corr *c, uint32_t correlation_id,
                               uint64_t external_id) {
    int rc = grow((void **)&c->ext, &c->cap_ext, c->n_ext, sizeof *c->ext);
    if (rc != AUG_OK)
        return rc;
    c->ext[c->n_ext].correlation_id = correlation_id;
    c->ext[c->n_ext].external_id = external_id;
    c->n_ext++;
    return AUG_OK;
}

int aug_prof_corr_add_kernel(struct aug_prof_corr *c, uint32_t correlation_id, uint32_t device,
                             uint64_t start_ns, uint64_t end_ns, const char *name) {
    int rc = grow((void **)&c->kern, &c->cap_kern, c->n_kern, sizeof *c->kern);
    if (rc != AUG_OK)
        return rc;
    struct kern_rec *k = &c->kern[c->n_kern++];
    k->correlation_id = correlation_id;
    k->device = device;
    k->start_ns = start_ns;
    k->end_ns = end_ns;
    k->valid = !(start_ns == 0 && end_ns == 0) && end_ns >= start_ns;
    /* the name ends up in a CSV cell: only symbol characters pass */
    size_t i = 0;
    for (; name && name[i] && i + 1 < sizeof k->name; i++) {
        char ch = name[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '$' || ch == '.';
        k->name[i] = ok ? ch : '?';
    }
    k->name[i] = '\0';
    if (!k->valid)
        return aug_errorf(AUG_EDATA, "kernel record of correlation %u has no valid timestamps "
                          "(start %llu, end %llu)", correlation_id,
                          (unsigned long long)start_ns, (unsigned long long)end_ns);
    return AUG_OK;
}

/* Is CUDA call `corr` inside external range `ext`? */
static int in_range(const struct aug_prof_corr *c, uint32_t corr, uint64_t ext) {
    for (size_t i = 0; i < c->n_ext; i++)
        if (c->ext[i].correlation_id == corr && c->ext[i].external_id == ext)
            return 1;
    return 0;
}

#define MAX_DEVICES 64

int aug_prof_corr_time_us(const struct aug_prof_corr *c, uint64_t external_id, double *time_us,
                          int *n_kernels) {
    uint64_t per_dev_ns[MAX_DEVICES];
    uint32_t dev_id[MAX_DEVICES];
    int n_dev = 0, n = 0;
    for (size_t i = 0; i < c->n_kern; i++) {
        const struct kern_rec *k = &c->kern[i];
        if (!in_range(c, k->correlation_id, external_id))
            continue;
        if (!k->valid)
            return aug_errorf(AUG_EDATA, "a kernel of measured call %llu has no valid timestamps",
                              (unsigned long long)external_id);
        int d = 0;
        while (d < n_dev && dev_id[d] != k->device)
            d++;
        if (d == n_dev) {
            if (n_dev == MAX_DEVICES)
                return aug_errorf(AUG_EDATA, "measured call %llu ran on more than %d devices",
                                  (unsigned long long)external_id, MAX_DEVICES);
            dev_id[n_dev] = k->device;
            per_dev_ns[n_dev++] = 0;
        }
        per_dev_ns[d] += k->end_ns - k->start_ns;
        n++;
    }
    if (n == 0)
        return aug_errorf(AUG_ENOTFOUND, "no kernel record carries measured call %llu",
                          (unsigned long long)external_id);
    uint64_t worst = 0;
    for (int d = 0; d < n_dev; d++)
        if (per_dev_ns[d] > worst)
            worst = per_dev_ns[d];
    *time_us = (double)worst * 1e-3;
    if (n_kernels)
        *n_kernels = n;
    return AUG_OK;
}

int aug_prof_corr_main_kernel(const struct aug_prof_corr *c, uint64_t external_id, char *buf,
                              size_t cap) {
    const struct kern_rec *best = NULL;
    for (size_t i = 0; i < c->n_kern; i++) {
        const struct kern_rec *k = &c->kern[i];
        if (!k->valid || !in_range(c, k->correlation_id, external_id))
            continue;
        if (!best || k->end_ns - k->start_ns > best->end_ns - best->start_ns)
            best = k;
    }
    if (!best)
        return aug_errorf(AUG_ENOTFOUND, "no kernel record carries measured call %llu",
                          (unsigned long long)external_id);
    if (cap > 0)
        snprintf(buf, cap, "%s", best->name);
    return AUG_OK;
}

int aug_prof_corr_kernel_count(const struct aug_prof_corr *c) {
    return (int)c->n_kern;
}
