/* model_params.c - exact parameter counts from a model's shapes.
 *
 * Per layer (h hidden, a heads, g KV heads, d head dim, f FFN size):
 *   attention  Q h*a*d + K,V 2*h*g*d + O a*d*h          (+ biases a*d + 2g*d + h)
 *   MLP        GELU 2*h*f (+ f + h biases); SwiGLU 3*h*f (gate, up, down)
 *   MoE        experts * MLP + shared experts * MLP + router h*E
 *   MatMul-free (Zhu et al. 2024, arXiv 2406.02528, sec. 3): MLGRU W_f, W_c, W_g, W_o
 *              4*h*h ternary + GLU channel mixer 3*h*f; the reference modules (mmfreelm
 *              HGRNBitBlock) add an RMSNorm weight to every BitLinear (i, f, g, o and gate
 *              of h, down of f), g_norm (h), the two block norms (2h) and one MLGRU lower
 *              bound per layer (h): 9h + f; the BitLinear LM head adds its norm (h)
 *   norms      LayerNorm 2 per layer * 2h; RMSNorm 2 per layer * h
 * Embeddings: V*h input (+ max_seq*h learned positions) and V*h LM head when untied,
 * plus the final norm. */
#include "augur/model.h"

static double norm_params(const struct aug_model *m) {
    return m->norm == AUG_NORM_LAYERNORM ? 2.0 * (double)m->hidden : (double)m->hidden;
}

static double mlp_params(const struct aug_model *m, double f) {
    double h = (double)m->hidden;
    if (m->mlp == AUG_MLP_SWIGLU)
        return 3.0 * h * f;
    return 2.0 * h * f + (m->linear_bias ? f + h : 0.0);
}

static double attention_params(const struct aug_model *m) {
    double h = (double)m->hidden, d = (double)m->head_dim;
    double qd = (double)m->heads * d, kvd = (double)m->kv_heads * d;
    double p = h * qd + 2.0 * h * kvd + qd * h;
    if (m->linear_bias)
        p += qd + 2.0 * kvd + h;
    return p;
}

static double ffn_params(const struct aug_model *m, int active_only) {
    double f = (double)m->ffn_hidden;
    if (m->arch != AUG_ARCH_MOE)
        return mlp_params(m, f);
    double experts = active_only ? (double)m->moe_topk : (double)m->moe_experts;
    return (experts + (double)m->moe_shared_experts) * mlp_params(m, f) +
           (double)m->hidden * (double)m->moe_experts;
}

static double layer_params(const struct aug_model *m, int active_only) {
    double h = (double)m->hidden;
    if (m->arch == AUG_ARCH_MATMULFREE) {
        double f = (double)m->ffn_hidden;
        return 4.0 * h * h + 3.0 * h * f + 9.0 * h + f;
    }
    return attention_params(m) + ffn_params(m, active_only) + 2.0 * norm_params(m);
}

double aug_model_layer_params(const struct aug_model *m) { return layer_params(m, 0); }

double aug_model_embedding_params(const struct aug_model *m) {
    double h = (double)m->hidden, v = (double)m->vocab;
    double p = v * h + norm_params(m);
    if (m->pos == AUG_POS_LEARNED)
        p += (double)m->max_seq * h;
    if (!m->tied_embeddings)
        p += v * h + (m->arch == AUG_ARCH_MATMULFREE ? h : 0.0); /* BitLinear head's norm */
    return p;
}

double aug_model_params(const struct aug_model *m) {
    return (double)m->layers * layer_params(m, 0) + aug_model_embedding_params(m);
}

double aug_model_active_params(const struct aug_model *m) {
    return (double)m->layers * layer_params(m, 1) + aug_model_embedding_params(m);
}
