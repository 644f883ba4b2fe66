/* SPDX-License-Identifier: Apache-2.0 */
/* model_flops.c - model FLOPs of a forward pass (the numerator of MFU), from the shapes:
 * attention projections and core, dense and MoE FFNs, the LM head and the MTP modules;
 * and the same count on the tokens a plan actually processes. */
#include "model/layer_graph.h"

#include "augur/moe.h"
#include "model/mla.h"

/* Forward FLOPs of the attention of one layer for one sequence: projections (2 x their
 * weights per token) and the core without causal savings, 4 s k a d with k = s keys per
 * query, or min(s, window) on windowed layers; MLA's core is 2 s k a (d_qk + d_v). */
static double attn_flops(const struct aug_model *m, double seq, int windowed) {
    double h = (double)m->hidden, a = (double)m->heads, d = (double)m->head_dim;
    double keys = seq;
    if (windowed && m->sliding_window > 0 && (double)m->sliding_window < seq)
        keys = (double)m->sliding_window;
    if (m->attention == AUG_ATTN_MLA)
        return seq * aug_mla_proj_flops_per_token(m) +
               2.0 * seq * keys * a *
                   (double)(m->qk_nope_head_dim + m->qk_rope_head_dim + m->v_head_dim);
    double q = a * d, kv = (double)m->kv_heads * d;
    return 2.0 * seq * h * (q + 2.0 * kv) + 2.0 * seq * q * h + 4.0 * seq * keys * q;
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
static double layers_fwd_flops(const struct aug_model *m, double seq, double keep) {
    double h = (double)m->hidden, f = (double)m->ffn_hidden, L = (double)m->layers;
    if (m->arch == AUG_ARCH_MATMULFREE)
        return L * 2.0 * seq * (4.0 * h * h + 3.0 * h * f);
    double nw = (double)aug_model_window_layers(m), nm = (double)aug_model_moe_layers(m);
    double t = (L - nw) * attn_flops(m, seq, 0) + nw * attn_flops(m, seq, 1);
    t += (L - nm) * mlp_flops(m, seq, (double)aug_model_dense_ffn(m));
    if (m->arch == AUG_ARCH_MOE)
        t += nm * moe_flops(m, seq, keep);
    return t;
}

/* DeepSeek-V3 sec. 2.2: each MTP module projects [h; emb] (2h -> h), runs one layer (MoE
 * in V3) and the shared output head. */
static double mtp_fwd_flops(const struct aug_model *m, double seq, double keep) {
    if (m->mtp_layers <= 0 || m->arch == AUG_ARCH_MATMULFREE)
        return 0.0;
    double h = (double)m->hidden;
    double ffn = m->arch == AUG_ARCH_MOE ? moe_flops(m, seq, keep)
                                         : mlp_flops(m, seq, (double)aug_model_dense_ffn(m));
    return (double)m->mtp_layers * (2.0 * seq * 2.0 * h * h + attn_flops(m, seq, 0) + ffn +
                                    2.0 * seq * h * (double)m->vocab);
}

double aug_layer_fwd_flops_per_seq(const struct aug_model *m, double seq) {
    return layers_fwd_flops(m, seq, 1.0) / (double)(m->layers > 0 ? m->layers : 1);
}

double aug_model_fwd_flops_per_seq(const struct aug_model *m, double seq) {
    return layers_fwd_flops(m, seq, 1.0) + mtp_fwd_flops(m, seq, 1.0) +
           2.0 * seq * (double)m->hidden * (double)m->vocab;
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
    double keep = kept(m, p);
    return layers_fwd_flops(m, seq, keep) + mtp_fwd_flops(m, seq, keep) +
           2.0 * seq * (double)m->hidden * (double)m->vocab;
}

double aug_layers_fwd_flops_processed(const struct aug_model *m, const struct aug_plan *p,
                                      double seq) {
    return layers_fwd_flops(m, seq, kept(m, p));
}
