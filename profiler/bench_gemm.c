/* SPDX-License-Identifier: Apache-2.0 */
/* bench_gemm.c - GEMM sweep points: C[m x n] = A[m x k] * B[k x n] for fp32, tf32, bf16,
 * fp16 and fp8 (fp8 only where the GPU has fp8 tensor cores, sm_89 and later). fp8 is
 * measured twice per shape: op "gemm" with fast accumulation, as Transformer Engine runs
 * its forward GEMMs, and op "gemm_split_acc" with the split accumulator of its data- and
 * weight-gradient GEMMs (gpu_gemm.c); calibration fits each its own curve.
 *
 * m is the token dimension of a linear layer, so the skinny shapes of decoding are m = 1 to
 * 256 against the (n, k) of real layers. The quick grid has square sizes, decode shapes and
 * prefill shapes of a 4096-wide model (whose m = n = k = 4096 doubles as the middle square);
 * the full grid is the whole cross product of m in 1..16384 and n, k in 256..16384 (powers
 * of two). --shapes FILE replaces the grid with the GEMMs a file lists (shapes.h), such as
 * those of one prediction's `--ops` listing. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "augur/kdb.h"
#include "augur/status.h"

static int push_op(struct aug_prof_points *out, const char *op, enum aug_dtype dt, long m,
                   long n, long k) {
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_GEMM, op, dt);
    p.m = m;
    p.n = n;
    p.k = k;
    return aug_prof_points_push(out, &p);
}

static int push(struct aug_prof_points *out, enum aug_dtype dt, long m, long n, long k) {
    int rc = push_op(out, AUG_GEMM_OP, dt, m, n, k);
    if (rc == AUG_OK && dt == AUG_DTYPE_FP8)
        rc = push_op(out, AUG_GEMM_SPLIT_ACC_OP, dt, m, n, k);
    return rc;
}

static int grid_dtype(enum aug_prof_preset preset, enum aug_dtype dt,
                      struct aug_prof_points *out) {
    int rc = AUG_OK;
    if (preset == AUG_PROF_PRESET_QUICK) {
        static const long square[] = {256, 512, 1024, 2048, 8192, 16384}; /* 4096: below */
        static const long decode_m[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
        static const long prefill_m[] = {1024, 4096, 16384};
        static const long nk[][2] = {{4096, 4096}, {16384, 4096}, {4096, 16384}};
        for (size_t i = 0; rc == AUG_OK && i < sizeof square / sizeof square[0]; i++)
            rc = push(out, dt, square[i], square[i], square[i]);
        for (size_t j = 0; rc == AUG_OK && j < sizeof nk / sizeof nk[0]; j++) {
            for (size_t i = 0; rc == AUG_OK && i < sizeof decode_m / sizeof decode_m[0]; i++)
                rc = push(out, dt, decode_m[i], nk[j][0], nk[j][1]);
            for (size_t i = 0; rc == AUG_OK && i < sizeof prefill_m / sizeof prefill_m[0]; i++)
                rc = push(out, dt, prefill_m[i], nk[j][0], nk[j][1]);
        }
        return rc;
    }
    long ms[16], nks[8];
    int n_m = aug_prof_pow2_range(1, 16384, 2, ms, 16);
    int n_nk = aug_prof_pow2_range(256, 16384, 2, nks, 8);
    for (int a = 0; rc == AUG_OK && a < n_m; a++)
        for (int b = 0; rc == AUG_OK && b < n_nk; b++)
            for (int c = 0; rc == AUG_OK && c < n_nk; c++)
                rc = push(out, dt, ms[a], nks[b], nks[c]);
    return rc;
}

/* --shapes: each listed GEMM in its own dtype when the list names one (and the sweep
 * measures that dtype), else in every dtype of the sweep. */
static int listed(const struct aug_prof_gemm_shapes *s, unsigned dtypes,
                  struct aug_prof_points *out) {
    int rc = AUG_OK;
    for (size_t i = 0; rc == AUG_OK && i < s->n; i++)
        for (int d = 0; rc == AUG_OK && d < AUG_DTYPE_COUNT; d++)
            if ((dtypes & AUG_PROF_DTYPE_BIT(d)) && (s->v[i].dtype < 0 || s->v[i].dtype == d))
                rc = push(out, (enum aug_dtype)d, s->v[i].m, s->v[i].n, s->v[i].k);
    return rc;
}

static int grid(const struct aug_prof_grid_cfg *cfg, unsigned dtypes,
                struct aug_prof_points *out) {
    if (cfg->gemm_shapes)
        return listed(cfg->gemm_shapes, dtypes, out);
    for (int d = 0; d < AUG_DTYPE_COUNT; d++) {
        if (!(dtypes & AUG_PROF_DTYPE_BIT(d)))
            continue;
        int rc = grid_dtype(cfg->preset, (enum aug_dtype)d, out);
        if (rc != AUG_OK)
            return rc;
    }
    return AUG_OK;
}

static double estimate_us(const struct aug_prof_point *p) {
    /* efficiency falls for small and skinny problems; the estimate only needs the order */
    double f = aug_prof_point_flops(p);
    double eff = f > 1e11 ? 0.7 : f > 1e9 ? 0.4 : 0.1;
    return aug_prof_reference_us(f, p->dtype, eff, aug_prof_point_bytes(p), 0.6);
}

static int supported(const struct aug_prof_point *p, const struct aug_prof_device *dev,
                     char *why, size_t cap) {
    int cc = dev->cc_major * 10 + dev->cc_minor;
    if (strcmp(p->op, AUG_GEMM_SPLIT_ACC_OP) == 0 && p->dtype != AUG_DTYPE_FP8) {
        snprintf(why, cap, "the split accumulator is an fp8 GEMM mode (this point: %s)",
                 aug_dtype_name(p->dtype));
        return 0;
    }
    if (p->dtype == AUG_DTYPE_FP8 && cc < 89) {
        snprintf(why, cap, "fp8 GEMM needs compute capability 8.9 or later (this GPU: %d.%d)",
                 dev->cc_major, dev->cc_minor);
        return 0;
    }
    if ((p->dtype == AUG_DTYPE_BF16 || p->dtype == AUG_DTYPE_TF32) && cc < 80) {
        snprintf(why, cap, "%s GEMM needs compute capability 8.0 or later (this GPU: %d.%d)",
                 aug_dtype_name(p->dtype), dev->cc_major, dev->cc_minor);
        return 0;
    }
    return 1;
}

const struct aug_prof_bench aug_prof_bench_gemm = {
    .family = AUG_FAMILY_GEMM,
    .name = "gemm",
    .default_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP32) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_TF32) |
                      AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP16) |
                      AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP8),
    .allowed_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP32) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_TF32) |
                      AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP16) |
                      AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP8),
    .grid = grid,
    .estimate_us = estimate_us,
    .supported = supported,
    .setup_s = 0.5,
    .per_point_s = 0.02,
};
