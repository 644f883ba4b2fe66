/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_sdpa.h - scaled dot-product attention forward as a cuDNN 9 backend operation graph,
 * the graph that cuDNN's fused flash-attention engines recognise.
 *
 * The graph is the one cudnn-frontend 1.x lowers its SDPA node to for the backend API
 * (include/cudnn_frontend/node/scaled_dot_product_flash_attention.h, node/softmax.h
 * CompositeSoftmaxNode, utils/attn_score_modifiers.h, node/diagonal_band_mask.h), written
 * out in C from the backend descriptors of cudnn_graph.h:
 *   S1 = matmul(Q, K^T)                      fp32 compute, virtual fp32 {b, h, s_q, s_kv}
 *   S2 = S1 * scale                          pointwise MUL, scale a by-value fp32 scalar
 *   causal (the diagonal band mask with right bound 0):
 *     r = GEN_INDEX(S2, axis 2), c = GEN_INDEX(S2, axis 3)            int32
 *     bottom-right alignment (s_q != s_kv): r = r + s_kv - s_q     ADD, SUB, int32 scalars
 *     m = CMP_GE(r, c)                                                  boolean
 *     S3 = BINARY_SELECT(S2, -inf, m)        keep S2 where m; -inf is the float lowest
 *                                            before cuDNN 9.10 (get_negative_inf_value)
 *   softmax: M = max-reduce(S3), E = exp(S3 - M), L = sum-reduce(E),
 *            stats = M + log(L) (written for training, virtual otherwise),
 *            P = E / L                       virtual in the I/O type (bmm2's A type)
 *   O = matmul(P, V)
 * The causal convention is the profiler's (bench_attention.c): queries aligned to the end
 * of the keys, which for s_q = s_kv is the top-left mask the frontend's causal_mask builds.
 *
 * Building the tensors and operations needs no GPU; the operation graph, the heuristics
 * (mode A), the engine configs and the execution plan need a cuDNN handle, which needs one. */
#ifndef AUG_PROF_CUDNN_SDPA_H
#define AUG_PROF_CUDNN_SDPA_H

#include "cudnn_loader.h"
#include "sdpa_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_cudnn_sdpa_cfg {
    struct aug_sdpa_shape shape;
    int bf16;    /* 1: bf16 Q, K, V, O; 0: fp16 */
    int causal;  /* 1: causal mask (bottom-right aligned when s_q != s_kv) */
    int stats;   /* 1: write the softmax statistics {b, h, s_q, 1} fp32 (training forward) */
    float scale; /* softmax scale, 1 / sqrt(d) */
};

/* Unique ids of the tensors a caller binds (the variant pack). */
enum { AUG_SDPA_UID_Q = 1, AUG_SDPA_UID_K, AUG_SDPA_UID_V, AUG_SDPA_UID_O, AUG_SDPA_UID_STATS,
       AUG_SDPA_UID_SCALE, AUG_SDPA_UID_NEG_INF, AUG_SDPA_UID_SKV, AUG_SDPA_UID_SQ };

#define AUG_SDPA_MAX_DESC 160
#define AUG_SDPA_MAX_OPS 24

struct aug_cudnn_sdpa {
    const struct aug_cudnn *api;
    struct aug_cudnn_sdpa_cfg cfg;
    /* every descriptor created, released together */
    cudnnBackendDescriptor_t desc[AUG_SDPA_MAX_DESC];
    int n_desc;
    cudnnBackendDescriptor_t ops[AUG_SDPA_MAX_OPS];
    int n_ops;
    cudnnBackendDescriptor_t plan;     /* finalized execution plan (aug_cudnn_sdpa_plan) */
    cudnnBackendDescriptor_t varpack;  /* bound pointers (aug_cudnn_sdpa_bind); not in desc */
    struct aug_sdpa_plan_info info;
    /* the by-value scalars the variant pack points to */
    float scale, neg_inf;
    int32_t s_kv, s_q;
};

/* Create and finalize the tensors and operations of the graph above. 1 on success; 0 with
 * the failing call and cuDNN's status in why (the descriptors made so far are kept for
 * aug_cudnn_sdpa_release). Needs no GPU. */
int aug_cudnn_sdpa_ops(const struct aug_cudnn *api, const struct aug_cudnn_sdpa_cfg *cfg,
                       struct aug_cudnn_sdpa *g, char *why, size_t cap);

/* The operation graph on `handle`, heuristics mode A, and the first engine config whose
 * execution plan finalizes; its engine id, knobs and workspace size go to g->info. 1 on
 * success; 0 with the reason in why (no config, or none finalized: the shape has no
 * engine). */
int aug_cudnn_sdpa_plan(struct aug_cudnn_sdpa *g, cudnnHandle_t handle, char *why, size_t cap);

/* Bind device pointers (stats may be NULL when cfg.stats is 0; workspace of
 * g->info.workspace bytes, NULL when 0). 1 on success, 0 with why. */
int aug_cudnn_sdpa_bind(struct aug_cudnn_sdpa *g, void *q, void *k, void *v, void *o,
                        void *stats, void *workspace, char *why, size_t cap);

/* Enqueue one forward on the handle's stream. 1 on success, 0 with why. */
int aug_cudnn_sdpa_execute(struct aug_cudnn_sdpa *g, cudnnHandle_t handle, char *why,
                           size_t cap);

void aug_cudnn_sdpa_release(struct aug_cudnn_sdpa *g);

#ifdef __cplusplus
}
#endif
#endif
