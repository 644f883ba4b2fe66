/* SPDX-License-Identifier: Apache-2.0 */
/* mla.c - multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, sec. 2.1, eqs. 9-14)
 * as Megatron-Core's MLASelfAttention runs it in training (core v0.12,
 * transformer/multi_latent_attention.py): the down projections W_DQ (h -> r_q) and
 * W_DKV + W_KR (h -> r_kv + d_r) are replicated on every TP rank and read the full
 * sequence; the up projections W_UQ (r_q -> a (d_n + d_r)) and W_UK, W_UV
 * (r_kv -> a (d_n + d_v)) are column-parallel over heads; the RoPE key is one d_r vector
 * per token broadcast to every head; W_O (a d_v -> h) is row-parallel. RMSNorms sit on
 * the two latents. Without q_lora_rank (DeepSeek-V2-Lite) queries use one full-rank
 * W_Q (h -> a (d_n + d_r)), column-parallel. */
#include "model/mla.h"

double aug_mla_core_head_dim(const struct aug_model *m) {
    return 0.5 * (double)(m->qk_nope_head_dim + m->qk_rope_head_dim + m->v_head_dim);
}

double aug_mla_proj_flops_per_token(const struct aug_model *m) {
    double h = (double)m->hidden, a = (double)m->heads, rq = (double)m->q_lora_rank;
    double rkv = (double)m->kv_lora_rank, dn = (double)m->qk_nope_head_dim;
    double dr = (double)m->qk_rope_head_dim, dv = (double)m->v_head_dim;
    double q = rq > 0 ? h * rq + rq * a * (dn + dr) : h * a * (dn + dr);
    return 2.0 * (q + h * (rkv + dr) + rkv * a * (dn + dv) + a * dv * h);
}

/* One projection GEMM with the names of its gradients. */
struct mla_gemm {
    struct aug_op op;
    const char *dgrad, *wgrad;
    int column; /* column-parallel over heads (1) or replicated on every TP rank (0) */
};

/* The GEMMs in forward order: q_down (optional), q_up (or q), kv_down, kv_up. */
static int mla_gemms(const struct aug_model *m, const struct aug_dims *x, struct mla_gemm *o) {
    double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
    double dqk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
    double dkv = (double)(m->qk_nope_head_dim + m->v_head_dim);
    double dr = (double)m->qk_rope_head_dim;
    int n = 0;
    if (rq > 0) {
        o[n++] = (struct mla_gemm){aug_op_gemm("mla_q_down", x->dt, x->T, rq, x->h, 1),
                                   "mla_q_down_dgrad", "mla_q_down_wgrad", 0};
        o[n++] = (struct mla_gemm){aug_op_gemm("mla_q_up", x->dt, x->T, x->a_t * dqk, rq, 1),
                                   "mla_q_up_dgrad", "mla_q_up_wgrad", 1};
    } else {
        o[n++] = (struct mla_gemm){aug_op_gemm("mla_q", x->dt, x->T, x->a_t * dqk, x->h, 1),
                                   "mla_q_dgrad", "mla_q_wgrad", 1};
    }
    o[n++] = (struct mla_gemm){aug_op_gemm("mla_kv_down", x->dt, x->T, rkv + dr, x->h, 1),
                               "mla_kv_down_dgrad", "mla_kv_down_wgrad", 0};
    o[n++] = (struct mla_gemm){aug_op_gemm("mla_kv_up", x->dt, x->T, x->a_t * dkv, rkv, 1),
                               "mla_kv_up_dgrad", "mla_kv_up_wgrad", 1};
    return n;
}

static struct aug_op latent_norm(const struct aug_model *m, const struct aug_dims *x) {
    double w = (double)(m->q_lora_rank + m->kv_lora_rank);
    return aug_gb_act("mla_latent_norms", "rmsnorm", x, 2.0 * x->T * w * x->e, 4.0 * x->T * w);
}

int aug_mla_qkv_fwd(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g) {
    struct mla_gemm o[4];
    int n = mla_gemms(m, x, o), first_col = -1;
    for (int i = 0; i < n; i++) {
        /* the column-parallel projections are the up projections Megatron-Core's
         * mla_up_proj recomputes (the full-rank W_Q of a model without q_lora_rank too) */
        aug_gb_add(g->fwd, &g->n_fwd, o[i].op, AUG_CAT_COMPUTE,
                   o[i].column ? AUG_RC_MLA_UP_PROJ : 0);
        if (first_col < 0 && o[i].column)
            first_col = g->n_fwd - 1;
    }
    aug_gb_add(g->fwd, &g->n_fwd, latent_norm(m, x), AUG_CAT_COMPUTE, 0);
    return first_col;
}

int aug_mla_qkv_bwd(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g) {
    struct mla_gemm o[4];
    int n = mla_gemms(m, x, o), last = -1;
    struct aug_op nf = latent_norm(m, x);
    aug_gb_mem_bwd(g, &nf, "mla_latent_norms_bwd", AUG_CAT_COMPUTE);
    for (int i = n - 1; i >= 0; i--) {
        int d = aug_gb_gemm_bwd(g, &o[i].op, o[i].dgrad, o[i].wgrad, AUG_CAT_COMPUTE, 1);
        if (o[i].column)
            last = d;
    }
    return last;
}

struct aug_op aug_mla_out(const struct aug_model *m, const struct aug_dims *x) {
    return aug_op_gemm("attn_out", x->dt, x->T, x->h, x->a_t * (double)m->v_head_dim, 1);
}
