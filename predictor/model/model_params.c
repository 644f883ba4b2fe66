/* SPDX-License-Identifier: Apache-2.0 */
/* model_params.c - exact parameter counts from a model's shapes, and the layer kinds of
 * models whose layers differ (dense-first MoE, interleaved MoE, sliding windows).
 *
 * Per layer (h hidden, a heads, g KV heads, d head dim, f FFN size):
 *   attention  Q h*a*d + K,V 2*h*g*d + O a*d*h          (+ biases a*d + 2g*d + h)
 *              qk_norm adds 2d, attention sinks a (GPT-OSS)
 *   MLA        (DeepSeek-V2, arXiv 2405.04434, sec. 2.1, eqs. 9-14; DeepseekV2Attention of
 *              the Hugging Face modeling file): W_DQ h*r_q + norm r_q + W_UQ r_q*a*(dn+dr)
 *              (or W_Q h*a*(dn+dr) when q_lora_rank is 0), W_DKV with W_KR h*(r_kv+dr) +
 *              norm r_kv, W_UK and W_UV r_kv*a*(dn+dv), W_O a*dv*h
 *   MLP        GELU 2*h*f (+ f + h biases); SwiGLU 3*h*f (gate, up, down) (+ 2f + h)
 *   MoE        experts * MLP + shared experts * MLP + router h*E (+ E bias with biases)
 *   MatMul-free (Zhu et al. 2024, arXiv 2406.02528, sec. 3): MLGRU W_f, W_c, W_g, W_o
 *              4*h*h ternary + GLU channel mixer 3*h*f; the reference modules (mmfreelm
 *              HGRNBitBlock) add an RMSNorm weight to every BitLinear (i, f, g, o and gate
 *              of h, down of f), g_norm (h), the two block norms (2h) and one MLGRU lower
 *              bound per layer (h): 9h + f; the BitLinear LM head adds its norm (h)
 *   norms      LayerNorm 2 per layer * 2h; RMSNorm 2 per layer * h (one of them in a
 *              parallel block with a shared norm, parallel_block 1)
 * Dense layers of an MoE model use dense_ffn_hidden. Embeddings: V*h input (+ max_seq*h
 * learned positions) and V*h LM head when untied, plus the final norm.
 * Multi-token prediction (DeepSeek-V3, arXiv 2412.19437, sec. 2.2): each module has two
 * RMSNorms (2h), a projection M (2h x h), one transformer layer (an MoE layer in V3) and
 * the output head's own final norm (h); the shared embedding and head are not counted
 * again. */
#include "augur/model.h"

#include "augur/attention.h"

static double norm_params(const struct aug_model *m) {
    return m->norm == AUG_NORM_LAYERNORM ? 2.0 * (double)m->hidden : (double)m->hidden;
}

static double mlp_params(const struct aug_model *m, double f) {
    double h = (double)m->hidden;
    if (m->mlp == AUG_MLP_SWIGLU)
        return 3.0 * h * f + (m->linear_bias ? 2.0 * f + h : 0.0);
    return 2.0 * h * f + (m->linear_bias ? f + h : 0.0);
}

static double attention_params(const struct aug_model *m) {
    double h = (double)m->hidden, a = (double)m->heads;
    double p;
    int bias = m->linear_bias || m->attn_bias;
    if (m->attention == AUG_ATTN_MLA) {
        double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
        double dn = (double)m->qk_nope_head_dim, dr = (double)m->qk_rope_head_dim;
        double dv = (double)m->v_head_dim;
        double q = rq > 0 ? h * rq + rq + rq * a * (dn + dr) : h * a * (dn + dr);
        p = q + h * (rkv + dr) + rkv + rkv * a * (dn + dv) + a * dv * h;
        if (bias)
            p += h;
    } else {
        double d = (double)m->head_dim;
        double qd = a * d, kvd = (double)m->kv_heads * d;
        p = h * qd + 2.0 * h * kvd + qd * h;
        if (bias)
            p += qd + 2.0 * kvd + h;
        if (m->qk_norm)
            p += 2.0 * d;
    }
    if (m->attn_sinks)
        p += a;
    return p;
}

long aug_model_dense_ffn(const struct aug_model *m) {
    return m->dense_ffn_hidden > 0 ? m->dense_ffn_hidden : m->ffn_hidden;
}

int aug_model_layer_is_moe(const struct aug_model *m, long i) {
    if (m->arch != AUG_ARCH_MOE || i < m->moe_dense_layers || i >= m->layers)
        return 0;
    long freq = m->moe_layer_freq > 1 ? m->moe_layer_freq : 1;
    return (i + 1) % freq == 0;
}

int aug_model_layer_is_windowed(const struct aug_model *m, long i) {
    if (m->sliding_window <= 0 || i < 0 || i >= m->layers)
        return 0;
    return m->global_attn_every <= 0 || (i + 1) % m->global_attn_every != 0;
}

/* Closed forms of the counts of the two predicates above: the layers i in [k, L) with
 * (i + 1) % n == 0 number floor(L / n) - floor(k / n). */
long aug_model_moe_layers(const struct aug_model *m) {
    if (m->arch != AUG_ARCH_MOE || m->layers <= 0)
        return 0;
    long freq = m->moe_layer_freq > 1 ? m->moe_layer_freq : 1;
    long k = m->moe_dense_layers < m->layers ? m->moe_dense_layers : m->layers;
    return m->layers / freq - (k > 0 ? k / freq : 0);
}

double aug_model_local_pairs(const struct aug_model *m, double seq_q, double seq_kv) {
    return aug_attention_local_pairs(seq_q, seq_kv, (double)m->sliding_window, m->attn_chunked);
}

long aug_model_window_layers(const struct aug_model *m) {
    if (m->sliding_window <= 0 || m->layers <= 0)
        return 0;
    if (m->global_attn_every <= 0)
        return m->layers;
    return m->layers - m->layers / m->global_attn_every;
}

static double router_params(const struct aug_model *m) {
    double E = (double)m->moe_experts;
    return (double)m->hidden * E + (m->linear_bias ? E : 0.0);
}

/* FFN of one MoE layer: all experts, or the ones a token uses. */
static double moe_ffn_params(const struct aug_model *m, int active_only) {
    double experts = active_only ? (double)m->moe_topk : (double)m->moe_experts;
    return (experts + (double)m->moe_shared_experts) * mlp_params(m, (double)m->ffn_hidden) +
           router_params(m);
}

int aug_model_block_norms(const struct aug_model *m) {
    return m->parallel_block == 1 ? 1 : 2;
}

/* Sum over all layers (the layers differ in their FFN). */
static double layers_params(const struct aug_model *m, int active_only) {
    double h = (double)m->hidden, L = (double)m->layers;
    if (m->arch == AUG_ARCH_MATMULFREE) {
        double f = (double)m->ffn_hidden;
        return L * (4.0 * h * h + 3.0 * h * f + 9.0 * h + f);
    }
    double nm = (double)aug_model_moe_layers(m);
    double dense_ffn = mlp_params(m, (double)aug_model_dense_ffn(m));
    double moe_ffn = m->arch == AUG_ARCH_MOE ? moe_ffn_params(m, active_only) : 0.0;
    return L * (attention_params(m) + (double)aug_model_block_norms(m) * norm_params(m)) +
           (L - nm) * dense_ffn + nm * moe_ffn;
}

/* The mean over the layers: what per-layer consumers (pipeline stages, FSDP) multiply. */
double aug_model_layer_params(const struct aug_model *m) {
    return layers_params(m, 0) / (double)(m->layers > 0 ? m->layers : 1);
}

double aug_model_routed_expert_params(const struct aug_model *m) {
    if (m->arch != AUG_ARCH_MOE)
        return 0.0;
    return (double)aug_model_moe_layers(m) * (double)m->moe_experts *
           mlp_params(m, (double)m->ffn_hidden);
}

double aug_model_mtp_params(const struct aug_model *m) {
    double h = (double)m->hidden;
    double ffn = m->arch == AUG_ARCH_MOE ? moe_ffn_params(m, 0)
                                         : mlp_params(m, (double)aug_model_dense_ffn(m));
    return 2.0 * h * h + 2.0 * norm_params(m) + attention_params(m) + 2.0 * norm_params(m) + ffn +
           norm_params(m);
}

static double input_embedding(const struct aug_model *m) {
    double h = (double)m->hidden;
    return (double)m->vocab * h + (m->pos == AUG_POS_LEARNED ? (double)m->max_seq * h : 0.0);
}

double aug_model_embedding_params(const struct aug_model *m) {
    double h = (double)m->hidden, v = (double)m->vocab;
    double p = input_embedding(m) + norm_params(m);
    if (!m->tied_embeddings)
        p += v * h + (m->arch == AUG_ARCH_MATMULFREE ? h : 0.0); /* BitLinear head's norm */
    return p;
}

double aug_model_params(const struct aug_model *m) {
    return layers_params(m, 0) + aug_model_embedding_params(m);
}

double aug_model_active_params(const struct aug_model *m) {
    return layers_params(m, 1) + aug_model_embedding_params(m);
}

double aug_model_active_compute_params(const struct aug_model *m) {
    double p = layers_params(m, 1) + aug_model_embedding_params(m) - input_embedding(m);
    if (m->tied_embeddings) /* the tied table is the head's weight: it computes */
        p += (double)m->vocab * (double)m->hidden;
    return p;
}

double aug_model_kv_elems_per_token(const struct aug_model *m, double context) {
    if (m->arch == AUG_ARCH_MATMULFREE)
        return 0.0;
    double per_layer = m->attention == AUG_ATTN_MLA
                           ? (double)(m->kv_lora_rank + m->qk_rope_head_dim)
                           : 2.0 * (double)m->kv_heads * (double)m->head_dim;
    double L = (double)m->layers, w = (double)aug_model_window_layers(m);
    double share = 1.0;
    if (w > 0 && context > 0 && (double)m->sliding_window < context)
        share = (double)m->sliding_window / context;
    return per_layer * ((L - w) + w * share);
}
