/* SPDX-License-Identifier: Apache-2.0 */
/* model_flops.c - model FLOPs of a forward pass (the numerator of MFU), from the shapes:
 * attention projections and core, dense and MoE FFNs, the LM head and the MTP modules;
 * and the same count on the tokens a plan actually processes.
 *
 * The attention core counts the (query, key) pairs a causal model needs, s (s + 1) / 2 per
 * head, or the windowed count on sliding-window layers: what a causal FlashAttention kernel
 * must do at least (Dao 2023, FlashAttention-2 sec. 4.1 halves the FLOPs of causal runs the
 * same way). Every kernel augur times does at least these FLOPs at no more than peak, so
 * MFU <= HFU <= 1 at any context length. Published MFUs (Megatron-LM training.py
 * num_floating_point_operations, core_r0.12; Narayanan et al. 2021 eq. 3; PaLM app. B)
 * count full s^2 attention instead: aug_model_fwd_flops_full_attention gives that count,
 * which validation uses to compare with them and which exceeds executed work at long
 * context (GPT-3 175B at 2048 tokens: 1.7% of the forward is its core). */
#include "model/layer_graph.h"

#include <math.h>

#include "augur/attention.h"
#include "augur/moe.h"
#include "model/mla.h"

/* Query-key pairs per head of one sequence: causal (windowed or chunked on the local
 * layers) or, with `full`, every query against every key (the window or the chunk still
 * bounds the keys: a chunk of c against all of its c). */
static double core_pairs(const struct aug_model *m, double seq, int windowed, int full) {
    double w = windowed && m->sliding_window > 0 ? (double)m->sliding_window : 0.0;
    if (!(w > 0) || w >= seq)
        return full ? seq * seq : aug_attention_pairs(seq, seq, 0.0);
    if (!full)
        return aug_model_local_pairs(m, seq, seq);
    if (!m->attn_chunked)
        return seq * w;
    double q = floor(seq / w), r = seq - q * w;
    return q * w * w + r * r;
}

/* Forward FLOPs of the attention core of one layer for one sequence: 4 d per pair and head
 * (QK^T and PV); MLA's is 2 (d_qk + d_v) per pair and head. */
static double core_flops(const struct aug_model *m, double seq, int windowed, int full) {
    double a = (double)m->heads, pairs = core_pairs(m, seq, windowed, full);
    if (m->attention == AUG_ATTN_MLA)
        return 2.0 * pairs * a *
               (double)(m->qk_nope_head_dim + m->qk_rope_head_dim + m->v_head_dim);
    return 4.0 * pairs * a * (double)m->head_dim;
}

/* Attention of one layer for one sequence: projections (2 x their weights per token) and
 * the core. */
static double attn_flops(const struct aug_model *m, double seq, int windowed, int full) {
    double h = (double)m->hidden, a = (double)m->heads, d = (double)m->head_dim;
    if (m->attention == AUG_ATTN_MLA)
        return seq * aug_mla_proj_flops_per_token(m) + core_flops(m, seq, windowed, full);
    double q = a * d, kv = (double)m->kv_heads * d;
    return 2.0 * seq * h * (q + 2.0 * kv) + 2.0 * seq * q * h + core_flops(m, seq, windowed, full);
}

static double mlp_flops(const struct aug_model *m, double seq, double f) {
    return 2.0 * seq * (double)m->hidden * f * (m->mlp == AUG_MLP_SWIGLU ? 3.0 : 2.0);
}

/* One MoE layer's FFN: router, shared experts and the routed experts' share `keep` of the
 * top-k assignments (1 - the dropped fraction under a capacity factor). */
static double moe_flops(const struct aug_model *m, double seq, double keep) {
    double f = (double)m->ffn_hidden;
    return mlp_flops(m, seq, f) * ((double)m->moe_topk * keep + (double)m->moe_shared_experts) +
           2.0 * seq * (double)m->hidden * (double)m->moe_experts;
}

/* Sum over the layers (and the MTP modules) for one sequence. */
static double layers_fwd_flops(const struct aug_model *m, double seq, double keep, int full) {
    double h = (double)m->hidden, f = (double)m->ffn_hidden, L = (double)m->layers;
    if (m->arch == AUG_ARCH_MATMULFREE)
        return L * 2.0 * seq * (4.0 * h * h + 3.0 * h * f);
    double nw = (double)aug_model_window_layers(m), nm = (double)aug_model_moe_layers(m);
    double t = (L - nw) * attn_flops(m, seq, 0, full) + nw * attn_flops(m, seq, 1, full);
    t += (L - nm) * mlp_flops(m, seq, (double)aug_model_dense_ffn(m));
    if (m->arch == AUG_ARCH_MOE)
        t += nm * moe_flops(m, seq, keep);
    return t;
}

/* DeepSeek-V3 sec. 2.2: each MTP module projects [h; emb] (2h -> h), runs one layer (MoE
 * in V3) and the shared output head. */
static double mtp_fwd_flops(const struct aug_model *m, double seq, double keep, int full) {
    if (m->mtp_layers <= 0 || m->arch == AUG_ARCH_MATMULFREE)
        return 0.0;
    double h = (double)m->hidden;
    double ffn = m->arch == AUG_ARCH_MOE ? moe_flops(m, seq, keep)
                                         : mlp_flops(m, seq, (double)aug_model_dense_ffn(m));
    return (double)m->mtp_layers * (2.0 * seq * 2.0 * h * h + attn_flops(m, seq, 0, full) + ffn +
                                    2.0 * seq * h * (double)m->vocab);
}

/* Whole model for one sequence: layers, MTP modules and the LM head. */
static double model_fwd_flops(const struct aug_model *m, double seq, double keep, int full) {
    return layers_fwd_flops(m, seq, keep, full) + mtp_fwd_flops(m, seq, keep, full) +
           2.0 * seq * (double)m->hidden * (double)m->vocab;
}

double aug_layer_fwd_flops_per_seq(const struct aug_model *m, double seq) {
    return layers_fwd_flops(m, seq, 1.0, 0) / (double)(m->layers > 0 ? m->layers : 1);
}

double aug_model_fwd_flops_per_seq(const struct aug_model *m, double seq) {
    return model_fwd_flops(m, seq, 1.0, 0);
}

/* Share of the routed top-k work a plan processes (1 - dropped under a capacity factor). */
static double kept(const struct aug_model *m, const struct aug_plan *p) {
    if (m->arch != AUG_ARCH_MOE)
        return 1.0;
    struct aug_moe_routing r;
    aug_moe_routing(m, p, 2.0, &r);
    return r.dropped_fraction < 1.0 ? 1.0 - r.dropped_fraction : 0.0;
}

double aug_model_fwd_flops_processed(const struct aug_model *m, const struct aug_plan *p,
                                     double seq) {
    return model_fwd_flops(m, seq, kept(m, p), 0);
}

double aug_model_fwd_flops_full_attention(const struct aug_model *m, const struct aug_plan *p,
                                          double seq) {
    return model_fwd_flops(m, seq, kept(m, p), 1);
}

double aug_layers_fwd_flops_processed(const struct aug_model *m, const struct aug_plan *p,
                                      double seq) {
    return layers_fwd_flops(m, seq, kept(m, p), 0);
}

double aug_attn_core_fwd_flops_per_seq(const struct aug_model *m, double seq) {
    if (m->arch == AUG_ARCH_MATMULFREE)
        return 0.0;
    double L = (double)m->layers, nw = (double)aug_model_window_layers(m);
    return (L - nw) * core_flops(m, seq, 0, 0) + nw * core_flops(m, seq, 1, 0);
}
