/* SPDX-License-Identifier: Apache-2.0 */
/* bench_memory.c - memory-bound kernel sweep points: copy, elementwise (z = x + y, the
 * residual add), RMSNorm, LayerNorm and row softmax, over the bytes they move.
 *
 * size_bytes is the HBM traffic of one call, reads plus writes: copy 2 x buffer,
 * elementwise 3 x buffer, norms and softmax 2 x rows x cols x element (the norm weights
 * are negligible). Row kernels also record rows (m) and columns (n). */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "augur/status.h"

static int push_flat(struct aug_prof_points *out, const char *op, enum aug_dtype dt,
                     double moved) {
    double e = aug_dtype_bytes(dt);
    double streams = strcmp(op, "copy") == 0 ? 2.0 : 3.0;
    double elts = moved / (streams * e);
    if (elts < 1)
        return AUG_OK;
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_MEMORY, op, dt);
    p.size_bytes = (double)(long long)elts * streams * e;
    return aug_prof_points_push(out, &p);
}

static int push_rows(struct aug_prof_points *out, const char *op, enum aug_dtype dt,
                     double moved, long cols) {
    double e = aug_dtype_bytes(dt);
    long rows = (long)(moved / (2.0 * (double)cols * e));
    if (rows < 1)
        return AUG_OK;
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_MEMORY, op, dt);
    p.m = rows;
    p.n = cols;
    p.size_bytes = 2.0 * (double)rows * (double)cols * e;
    return aug_prof_points_push(out, &p);
}

static int grid(const struct aug_prof_grid_cfg *cfg, unsigned dtypes,
                struct aug_prof_points *out) {
    static const char *const flat_ops[] = {"copy", "elementwise"};
    static const char *const row_ops[] = {"rmsnorm", "layernorm", "softmax"};
    static const long quick_cols[] = {4096};
    static const long full_cols[] = {1024, 4096, 8192};
    int full = cfg->preset == AUG_PROF_PRESET_FULL;
    long sizes[24];
    int n_size = aug_prof_pow2_range(1L << 20, 1L << 32, full ? 2 : 4, sizes, 24);
    const long *cols = full ? full_cols : quick_cols;
    size_t n_cols = full ? 3 : 1;
    int rc = AUG_OK;
    for (int d = 0; d < AUG_DTYPE_COUNT; d++) {
        if (!(dtypes & AUG_PROF_DTYPE_BIT(d)))
            continue;
        enum aug_dtype dt = (enum aug_dtype)d;
        for (size_t o = 0; rc == AUG_OK && o < 2; o++)
            for (int s = 0; rc == AUG_OK && s < n_size; s++)
                rc = push_flat(out, flat_ops[o], dt, (double)sizes[s]);
        for (size_t o = 0; rc == AUG_OK && o < 3; o++)
            for (size_t c = 0; rc == AUG_OK && c < n_cols; c++)
                for (int s = 0; rc == AUG_OK && s < n_size; s++)
                    rc = push_rows(out, row_ops[o], dt, (double)sizes[s], cols[c]);
    }
    return rc;
}

static double estimate_us(const struct aug_prof_point *p) {
    return aug_prof_reference_us(0.0, p->dtype, 1.0, p->size_bytes, 0.8);
}

static int supported(const struct aug_prof_point *p, const struct aug_prof_device *dev,
                     char *why, size_t cap) {
    if (p->dtype == AUG_DTYPE_BF16 && dev->cc_major < 8) {
        snprintf(why, cap, "bf16 kernels need compute capability 8.0 or later (this GPU: %d.%d)",
                 dev->cc_major, dev->cc_minor);
        return 0;
    }
    return 1;
}

const struct aug_prof_bench aug_prof_bench_memory = {
    .family = AUG_FAMILY_MEMORY,
    .name = "memory",
    .default_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP32),
    .allowed_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP16) |
                      AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP32),
    .grid = grid,
    .estimate_us = estimate_us,
    .supported = supported,
    .setup_s = 0.2,
    .per_point_s = 0.02,
};
