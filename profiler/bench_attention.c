/* SPDX-License-Identifier: Apache-2.0 */
/* bench_attention.c - attention forward sweep points. The op names the kernel kind, so
 * that `augur calibrate` fits each kind to its own curve and the predictor looks each up
 * by kind (kernels-db/README.md, "Attention op names"; predictor/hw/attention_kind.c):
 *   fused_fwd         prefill / training forward of a fused kernel (tiled, online softmax,
 *                     never writes the seq_q x seq_kv scores to memory);
 *   fused_decode_fwd  the same kernel for decoding: one query row per sequence against its
 *                     KV cache (bound by reading the cache, not by the tensor cores);
 *   unfused_fwd       cuBLAS batched GEMM for Q K^T, a softmax kernel, cuBLAS for P V.
 * Tensors are [batch, heads, seq, head_dim]. Prefill points keep batch * seq_q at 16384
 * tokens and the model width at 4096 (heads = 4096 / head_dim); decode points have one
 * query against a long KV cache. A causal mask aligns the queries to the end of the keys
 * (the FlashAttention-2 convention, also the FLOPs convention of include/augur/curve.h). */
#include "bench.h"

#include <stdio.h>

#include "augur/status.h"

#define TOKENS 16384L
#define WIDTH 4096L

static int push(struct aug_prof_points *out, const char *op, enum aug_dtype dt, long batch,
                long heads, long seq_q, long seq_kv, long head_dim, int causal) {
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_ATTENTION, op, dt);
    p.batch = batch;
    p.heads = heads;
    p.seq_q = seq_q;
    p.seq_kv = seq_kv;
    p.head_dim = head_dim;
    p.causal = causal;
    return aug_prof_points_push(out, &p);
}

static int grid(const struct aug_prof_grid_cfg *cfg, unsigned dtypes,
                struct aug_prof_points *out) {
    static const char *const ops[] = {"fused_fwd", "unfused_fwd"};
    static const long dims[] = {64, 128};
    int full = cfg->preset == AUG_PROF_PRESET_FULL;
    long seqs[16], kvs[16];
    int n_seq = full ? aug_prof_pow2_range(128, 16384, 2, seqs, 16)
                     : aug_prof_pow2_range(256, 16384, 2, seqs, 16);
    /* decode: the cache length is the whole shape of a point, so even the quick sweep
     * takes every power of two (these calls are short) */
    int n_kv = aug_prof_pow2_range(512, 32768, 2, kvs, 16);
    int rc = AUG_OK;
    for (int d = 0; d < AUG_DTYPE_COUNT; d++) {
        if (!(dtypes & AUG_PROF_DTYPE_BIT(d)))
            continue;
        enum aug_dtype dt = (enum aug_dtype)d;
        for (size_t o = 0; rc == AUG_OK && o < 2; o++)
            for (size_t h = 0; rc == AUG_OK && h < 2; h++)
                for (int causal = 0; rc == AUG_OK && causal <= 1; causal++)
                    for (int s = 0; rc == AUG_OK && s < n_seq; s++) {
                        long batch = TOKENS / seqs[s] > 0 ? TOKENS / seqs[s] : 1;
                        long heads = WIDTH / dims[h];
                        rc = push(out, ops[o], dt, batch, heads, seqs[s], seqs[s], dims[h],
                                  causal);
                        if (rc == AUG_OK && full && batch > 1) /* one sequence alone */
                            rc = push(out, ops[o], dt, 1, heads, seqs[s], seqs[s], dims[h],
                                      causal);
                    }
        /* decoding: one new token per sequence against its KV cache (fused kernel only:
         * the unfused path is what the fused kernel replaces, and decode shapes are where
         * it matters least) */
        static const long decode_batch[] = {1, 16, 64};
        int n_b = full ? 3 : 1;
        for (size_t h = 0; rc == AUG_OK && h < 2; h++)
            for (int b = 0; rc == AUG_OK && b < n_b; b++)
                for (int s = 0; rc == AUG_OK && s < n_kv; s++)
                    rc = push(out, AUG_PROF_ATTN_DECODE_OP, dt, full ? decode_batch[b] : 16,
                              WIDTH / dims[h], 1, kvs[s], dims[h], 0);
    }
    return rc;
}

static double estimate_us(const struct aug_prof_point *p) {
    double f = aug_prof_point_flops(p);
    /* our fused kernel reaches a fraction of the tensor peak; the unfused path is bound by
     * the scores traffic at long sequences */
    double eff = p->op[0] == 'f' ? 0.25 : 0.35;
    return aug_prof_reference_us(f, p->dtype, eff, aug_prof_point_bytes(p), 0.6) +
           (p->op[0] == 'u' ? 15.0 : 0.0);
}

static int supported(const struct aug_prof_point *p, const struct aug_prof_device *dev,
                     char *why, size_t cap) {
    if (dev->cc_major < 8) {
        snprintf(why, cap, "the attention kernels need compute capability 8.0 or later "
                 "(this GPU: %d.%d)", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->head_dim != 64 && p->head_dim != 128) {
        snprintf(why, cap, "head dimension %ld is not built (64 or 128)", p->head_dim);
        return 0;
    }
    return 1;
}

const struct aug_prof_bench aug_prof_bench_attention = {
    .family = AUG_FAMILY_ATTENTION,
    .name = "attention",
    .default_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16),
    .allowed_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP16),
    .grid = grid,
    .estimate_us = estimate_us,
    .supported = supported,
    .setup_s = 1.0,
    .per_point_s = 0.03,
};
