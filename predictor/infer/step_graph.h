/* SPDX-License-Identifier: Apache-2.0 */
/* step_graph.h - what one forward step of a serving replica runs (not public): the
 * request mix of the step, the per-GPU shapes of a plan, and the op list the graph builders
 * fill (infer_graph.c for transformers, infer_matmulfree.c for MatMul-free LMs). */
#ifndef AUG_INFER_STEP_GRAPH_H
#define AUG_INFER_STEP_GRAPH_H

#include <math.h>

#include "augur/infer.h"
#include "augur/op.h"

/* What one forward step of one replica processes: sequences that decode one token over
 * the cache they already hold, and sequences whose prompt (or a chunk of it) runs now. */
struct aug_infer_step {
    double decode_seqs;  /* sequences generating one token */
    double decode_ctx;   /* tokens already cached for each of them */
    double prefill_seqs; /* sequences prefilling this step */
    double prefill_len;  /* new prompt tokens per prefilling sequence */
    double prefill_ctx;  /* tokens cached before this chunk (chunked prefill) */
    double sample_seqs;  /* sequences that emit a token (rows of the LM head) */
};

/* What a second of an op counts as. */
enum aug_icat {
    AUG_ICAT_GEMM,
    AUG_ICAT_ATTENTION,
    AUG_ICAT_MEMORY,
    AUG_ICAT_HEAD,
    AUG_ICAT_TP,
    AUG_ICAT_COUNT
};

struct aug_infer_gop {
    struct aug_op op;
    enum aug_icat cat;
    int defaults_only; /* time with the documented defaults: no calibrated curve measures it */
    int stream;        /* a streaming read timed at AUG_INFER_STREAM_EFF of HBM bandwidth */
    double core_eff;   /* > 0: computed on CUDA cores at this share of the FP32 peak */
    int stage;         /* head ops: 0 first pipeline stage (embedding), 1 last (LM head) */
};

#define AUG_INFER_MAX_LAYER_OPS 32
#define AUG_INFER_MAX_HEAD_OPS 12

struct aug_infer_graph {
    struct aug_infer_gop layer[AUG_INFER_MAX_LAYER_OPS];
    int n_layer;
    int decode_attn; /* index of the decode attention op in `layer` (-1: none) */
    struct aug_infer_gop head[AUG_INFER_MAX_HEAD_OPS];
    int n_head;
};

/* Per-GPU shapes of a plan. */
struct aug_infer_dims {
    double t, h, d, a_t, kv_t, f, V, E, k, L;
    double e;            /* activation bytes (16-bit, or 4 for fp32) */
    double wb;           /* bytes per linear weight (with int4 group scales) */
    double kvb;          /* bytes per KV element */
    double ep;
    enum aug_dtype cdt;  /* compute dtype of GEMMs */
    enum aug_dtype adt;  /* dtype of attention and of the LM head (16-bit for 8/4-bit compute) */
    int tp_ranks, tp_domain;
    /* attention shape (model/mla.c for latent attention): the columns of the fused Q/K/V
     * projection GEMM per GPU (for MLA the down and up projections' weights over h), the
     * inner width of the output projection, KV elements per cached token per layer on one
     * GPU (MLA: kv_lora_rank + qk_rope_head_dim, the latent every TP rank keeps whole),
     * forward FLOPs per query head per cached key (4 d; MLA decodes in the weight-absorbed
     * form of DeepSeek-V2 sec. 2.1.2: 2 (r_kv + d_r) for q.k and 2 r_kv for p.v), and the
     * sliding window with the share of the layers that use it (win_chunked: they attend
     * within fixed chunks of win tokens, Llama 4) */
    double qkv_cols, out_k, kv_layer, flops_per_key, win, win_share;
    int win_chunked;
    /* per-head widths a prefill's attention contracts over: q.k and p.v (d both, MLA's
     * qk_nope + qk_rope and v_head_dim, 192 and 128 for DeepSeek-V3) */
    double d_qk, d_v;
    double moe_share; /* of the layers with an MoE FFN (the rest dense, FFN dense_f) */
    double adp;       /* attention data-parallel degree (plan attn_dp: tp, else 1) */
    double dense_f;
    int mla;
};

/* Cached tokens a layer holds on average for a context of ctx tokens: the windowed layers
 * at most their window (a chunked layer its current chunk, at most as many: the bound the
 * memory plans for). */
static inline double aug_infer_resident(const struct aug_infer_dims *x, double ctx) {
    if (!(x->win > 0) || x->win >= ctx)
        return ctx;
    return (1.0 - x->win_share) * ctx + x->win_share * x->win;
}

/* Cached tokens a decoding query at context ctx reads per layer on average: the window's,
 * or on chunked layers those of its own chunk, ((ctx - 1) mod win) + 1 (a batch's mean
 * context stands for its requests'). */
static inline double aug_infer_attended(const struct aug_infer_dims *x, double ctx) {
    if (!(x->win > 0) || x->win >= ctx)
        return ctx;
    double local = x->win_chunked ? fmod(ctx - 1.0, x->win) + 1.0 : x->win;
    return (1.0 - x->win_share) * ctx + x->win_share * local;
}

void aug_infer_dims(const struct aug_model *m, const struct aug_system *s,
                    const struct aug_infer_plan *p, struct aug_infer_dims *x);

/* Achieved share of HBM bandwidth of kernels that stream hundreds of MiB (flash-decoding
 * over the KV cache): the A100 calibrated elementwise curve moves 1,795 GB/s of 2,039 (0.88)
 * for 36 MB to 1.6 GB (Vidur's profiles, kernels-db/a100-80g); the default for short
 * memory-bound kernels (0.70, efficiency.c) undercounts such streams. */
#define AUG_INFER_STREAM_EFF 0.85

/* Share of the FP32 (CUDA-core) peak that a per-query-head decode kernel reaches: every
 * cached element a thread block reads is converted to fp32 before its multiply-add, and the
 * CUDA C++ Programming Guide (Arithmetic Instructions, throughput table, compute
 * capability 8.x and 9.0) lists 16 conversions per clock per SM against 128 fp32 FMAs: one
 * conversion per FMA (2 FLOPs) caps the kernel at 1/8 of the FP32 peak; 16-bit elements
 * are converted two per instruction (half2), 1/4. The query heads of a GQA group run in
 * adjacent thread blocks, so the group's reads of one KV head are served by L2 and HBM sees
 * them once. */
#define AUG_INFER_CORE_EFF_8BIT 0.125
#define AUG_INFER_CORE_EFF_16BIT 0.25

/* Bytes per weight of a storage dtype: int4 carries one 16-bit scale per group of 128
 * weights (AWQ, Lin et al. 2024; GPTQ, Frantar et al. 2023), 8-bit formats per-channel or
 * per-tensor scales (negligible). */
double aug_infer_weight_bytes(enum aug_dtype wdt);

/* Layers on the most loaded pipeline stage: ceil(layers / pp). */
long aug_infer_stage_layers(const struct aug_model *m, const struct aug_infer_plan *p);

#endif
