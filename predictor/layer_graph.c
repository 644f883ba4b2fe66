/* layer_graph.c - every kernel of a transformer layer, forward and backward, with exact
 * FLOPs and bytes (Narayanan et al. SC21 sec. 5.1 / appendix; Korthikanti et al. 2022
 * sec. 4 for the TP and SP collectives).
 *
 * Forward, per layer: norm, [SP all-gather], QKV GEMM, rotary, attention core (fused
 * FlashAttention, or QK^T + softmax + dropout + AV), output GEMM, TP all-reduce (or SP
 * reduce-scatter), dropout + residual add, norm, [SP all-gather], MLP up (gate+up for
 * SwiGLU), activation, MLP down, TP all-reduce / reduce-scatter, dropout + residual.
 * Backward: every GEMM becomes a data-gradient and a weight-gradient GEMM of the same
 * FLOPs; memory-bound kernels move about twice their forward bytes; FlashAttention's
 * backward does 5 matmuls to the forward's 2 (it recomputes the scores: Dao 2023);
 * TP collectives mirror the forward (all-reduce <-> identity, all-gather <->
 * reduce-scatter). MoE layers (top-k routing, expert parallelism) swap the MLP for a
 * router, an all-to-all dispatch, grouped expert GEMMs and an all-to-all combine. */
#include "layer_graph.h"

#include <string.h>

#include "train_internal.h"

struct dims {
    double b, s, skv, T, Tsp, t, h, d, a_t, kv_t, f, e, V;
    enum aug_dtype dt;
    int tp_ranks, tp_domain, sp, dropout;
};

static void dims_init(const struct aug_model *m, const struct aug_plan *p,
                      const struct aug_system *s, struct dims *x) {
    x->b = (double)p->micro_batch;
    x->s = (double)(p->seq / p->cp);
    x->skv = (double)p->seq;
    x->T = x->b * x->s;
    x->t = (double)p->tp;
    x->sp = p->sp && p->tp > 1;
    x->Tsp = x->sp ? x->T / x->t : x->T;
    x->h = (double)m->hidden;
    x->d = (double)m->head_dim;
    x->a_t = (double)m->heads / x->t;
    x->kv_t = m->kv_heads >= p->tp ? (double)m->kv_heads / x->t : 1.0;
    x->f = (double)m->ffn_hidden;
    x->e = aug_train_act_bytes(p);
    x->V = (double)m->vocab;
    x->dt = p->dtype;
    x->tp_ranks = (int)p->tp;
    x->tp_domain = aug_ranks_per_domain(s, p->tp, 1);
    x->dropout = aug_model_has_dropout(m);
}

static void add(struct aug_graph_op *arr, int *n, struct aug_op op, enum aug_cat cat, int sel) {
    if (*n >= AUG_GRAPH_MAX_OPS)
        return; /* the builders below stay well under the bound */
    arr[*n].op = op;
    arr[*n].cat = cat;
    arr[*n].selective = sel;
    (*n)++;
}

static struct aug_op act_op(const char *name, const char *kind, const struct dims *x, double bytes,
                            double flops) {
    return aug_op_memory(name, kind, x->dt, bytes, flops);
}

static void tp_coll(struct aug_graph_op *arr, int *n, const char *name, enum aug_coll c,
                    const struct dims *x, enum aug_cat cat) {
    if (x->tp_ranks <= 1)
        return;
    add(arr, n, aug_op_collective(name, c, x->T * x->h * x->e, x->tp_ranks, x->tp_domain), cat, 0);
}

/* Backward of a GEMM: data gradient (m x k from m x n times n x k) and weight gradient
 * (k x n with inner dimension m). */
static void gemm_bwd(struct aug_graph *g, const struct aug_op *f, const char *dname,
                     const char *wname, enum aug_cat cat, int weights) {
    add(g->bwd, &g->n_bwd, aug_op_gemm(dname, f->dtype, f->m, f->k, f->n, f->batch), cat, 0);
    if (weights)
        add(g->bwd, &g->n_bwd, aug_op_gemm(wname, f->dtype, f->k, f->n, f->m, f->batch), cat, 0);
    else /* batched activation-activation GEMMs need gradients of both inputs */
        add(g->bwd, &g->n_bwd, aug_op_gemm(wname, f->dtype, f->n, f->k, f->m, f->batch), cat, 0);
}

static void mem_bwd(struct aug_graph *g, const struct aug_op *f, const char *name, enum aug_cat cat) {
    add(g->bwd, &g->n_bwd, aug_op_memory(name, f->mem_op, f->dtype, 2.0 * f->bytes, 2.0 * f->flops),
        cat, 0);
}

static void attention(const struct aug_model *m, const struct aug_plan *p, const struct dims *x,
                      struct aug_graph *g) {
    double bh = x->b * x->a_t;
    if (p->flash_attention) {
        /* causal: only key blocks at or before the query are visited: (s+1)/(2s) of the
         * square when queries and keys are the same tokens; ~1/2 under context parallelism */
        double causal = p->cp > 1 ? 0.5 : (x->s + 1.0) / (2.0 * x->s);
        struct aug_op fa;
        memset(&fa, 0, sizeof fa);
        fa.name = "attn_fwd";
        fa.kind = AUG_OP_ATTENTION;
        /* fp8 recipes (Transformer Engine) keep attention in bf16 */
        fa.dtype = x->dt == AUG_DTYPE_FP8 ? AUG_DTYPE_BF16 : x->dt;
        fa.count = 1;
        fa.batch_heads = bh;
        fa.seq_q = x->s;
        fa.seq_kv = x->skv;
        fa.head_dim = x->d;
        fa.causal = 1;
        fa.flops = 4.0 * bh * x->s * x->skv * x->d * causal;
        /* Q and O per query head, K and V per KV head, fp32 log-sum-exp */
        fa.bytes = x->e * (2.0 * x->T * x->a_t * x->d + 2.0 * x->b * x->skv * x->kv_t * x->d) +
                   4.0 * bh * x->s;
        add(g->fwd, &g->n_fwd, fa, AUG_CAT_ATTENTION, 0);
        struct aug_op fb = fa;
        fb.name = "attn_bwd";
        fb.backward = 1;
        fb.flops = 2.5 * fa.flops;
        fb.bytes = 2.0 * fa.bytes + x->e * x->T * x->a_t * x->d;
        add(g->bwd, &g->n_bwd, fb, AUG_CAT_ATTENTION, 0);
        return;
    }
    (void)m;
    enum aug_dtype adt = x->dt == AUG_DTYPE_FP8 ? AUG_DTYPE_BF16 : x->dt;
    struct aug_op qk = aug_op_gemm("attn_qk", adt, x->s, x->skv, x->d, bh);
    double scores = bh * x->s * x->skv;
    struct aug_op sm = act_op("attn_softmax", "softmax", x, 2.0 * scores * x->e, 5.0 * scores);
    struct aug_op av = aug_op_gemm("attn_av", adt, x->s, x->d, x->skv, bh);
    add(g->fwd, &g->n_fwd, qk, AUG_CAT_ATTENTION, 1);
    add(g->fwd, &g->n_fwd, sm, AUG_CAT_ATTENTION, 1);
    struct aug_op dr = act_op("attn_dropout", "elementwise", x, scores * (2.0 * x->e + 1.0), scores);
    if (x->dropout)
        add(g->fwd, &g->n_fwd, dr, AUG_CAT_ATTENTION, 1);
    add(g->fwd, &g->n_fwd, av, AUG_CAT_ATTENTION, 1);
    gemm_bwd(g, &av, "attn_av_dgrad_p", "attn_av_dgrad_v", AUG_CAT_ATTENTION, 0);
    if (x->dropout)
        mem_bwd(g, &dr, "attn_dropout_bwd", AUG_CAT_ATTENTION);
    mem_bwd(g, &sm, "attn_softmax_bwd", AUG_CAT_ATTENTION);
    gemm_bwd(g, &qk, "attn_qk_dgrad_q", "attn_qk_dgrad_k", AUG_CAT_ATTENTION, 0);
}

static void mlp_dense(const struct aug_model *m, const struct dims *x, struct aug_graph *g,
                      double tokens, double f_local, double groups, const char *tag) {
    int gated = m->mlp == AUG_MLP_SWIGLU;
    struct aug_op up = aug_op_gemm(tag[0] == 'e' ? "expert_up" : "mlp_up", x->dt, tokens,
                                   (gated ? 2.0 : 1.0) * f_local, x->h, groups);
    double inner = tokens * f_local * groups;
    struct aug_op act = act_op(tag[0] == 'e' ? "expert_act" : "mlp_act", "activation", x,
                               inner * x->e * (gated ? 3.0 : 2.0), inner * (gated ? 8.0 : 10.0));
    struct aug_op down = aug_op_gemm(tag[0] == 'e' ? "expert_down" : "mlp_down", x->dt, tokens, x->h,
                                     f_local, groups);
    add(g->fwd, &g->n_fwd, up, AUG_CAT_COMPUTE, 0);
    add(g->fwd, &g->n_fwd, act, AUG_CAT_COMPUTE, 0);
    add(g->fwd, &g->n_fwd, down, AUG_CAT_COMPUTE, 0);
}

static void mlp_dense_bwd(const struct aug_model *m, const struct dims *x, struct aug_graph *g,
                          double tokens, double f_local, double groups, int expert) {
    int gated = m->mlp == AUG_MLP_SWIGLU;
    struct aug_op up = aug_op_gemm("", x->dt, tokens, (gated ? 2.0 : 1.0) * f_local, x->h, groups);
    double inner = tokens * f_local * groups;
    struct aug_op act = act_op("", "activation", x, inner * x->e * (gated ? 3.0 : 2.0),
                               inner * (gated ? 8.0 : 10.0));
    struct aug_op down = aug_op_gemm("", x->dt, tokens, x->h, f_local, groups);
    gemm_bwd(g, &down, expert ? "expert_down_dgrad" : "mlp_down_dgrad",
             expert ? "expert_down_wgrad" : "mlp_down_wgrad", AUG_CAT_COMPUTE, 1);
    mem_bwd(g, &act, expert ? "expert_act_bwd" : "mlp_act_bwd", AUG_CAT_COMPUTE);
    gemm_bwd(g, &up, expert ? "expert_up_dgrad" : "mlp_up_dgrad",
             expert ? "expert_up_wgrad" : "mlp_up_wgrad", AUG_CAT_COMPUTE, 1);
}

/* MoE FFN: router, dispatch all-to-all over EP, grouped expert GEMMs over the local
 * experts (each sees T*topk/E tokens per source rank, times EP sources, padded by the
 * capacity factor), combine all-to-all; shared experts run densely beside them. */
static void moe(const struct aug_model *m, const struct aug_plan *p, const struct aug_system *s,
                const struct dims *x, struct aug_graph *g) {
    double E = (double)m->moe_experts, k = (double)m->moe_topk, ep = (double)p->ep;
    double cf = m->moe_capacity_factor > 0 ? m->moe_capacity_factor : 1.0;
    struct aug_op router = aug_op_gemm("router", x->dt, x->T, E, x->h, 1);
    add(g->fwd, &g->n_fwd, router, AUG_CAT_COMPUTE, 0);
    double local_experts = E / ep;
    double tokens_per_expert = x->T * k * cf / E * ep;
    double a2a = x->T * k * cf * x->h * x->e; /* per-rank send buffer */
    int ep_domain = aug_ranks_per_domain(s, p->ep, p->tp);
    if (p->ep > 1)
        add(g->fwd, &g->n_fwd, aug_op_collective("moe_dispatch", AUG_COLL_ALL_TO_ALL, a2a, (int)p->ep,
                                                 ep_domain), AUG_CAT_EP, 0);
    mlp_dense(m, x, g, tokens_per_expert, x->f / x->t, local_experts, "expert");
    if (p->ep > 1)
        add(g->fwd, &g->n_fwd, aug_op_collective("moe_combine", AUG_COLL_ALL_TO_ALL, a2a, (int)p->ep,
                                                 ep_domain), AUG_CAT_EP, 0);
    if (m->moe_shared_experts > 0)
        mlp_dense(m, x, g, x->T, x->f * (double)m->moe_shared_experts / x->t, 1, "mlp");
}

static void moe_bwd(const struct aug_model *m, const struct aug_plan *p, const struct aug_system *s,
                    const struct dims *x, struct aug_graph *g) {
    double E = (double)m->moe_experts, k = (double)m->moe_topk, ep = (double)p->ep;
    double cf = m->moe_capacity_factor > 0 ? m->moe_capacity_factor : 1.0;
    double a2a = x->T * k * cf * x->h * x->e;
    int ep_domain = aug_ranks_per_domain(s, p->ep, p->tp);
    if (m->moe_shared_experts > 0)
        mlp_dense_bwd(m, x, g, x->T, x->f * (double)m->moe_shared_experts / x->t, 1, 0);
    if (p->ep > 1)
        add(g->bwd, &g->n_bwd, aug_op_collective("moe_combine_bwd", AUG_COLL_ALL_TO_ALL, a2a,
                                                 (int)p->ep, ep_domain), AUG_CAT_EP, 0);
    mlp_dense_bwd(m, x, g, x->T * k * cf / E * ep, x->f / x->t, E / ep, 1);
    if (p->ep > 1)
        add(g->bwd, &g->n_bwd, aug_op_collective("moe_dispatch_bwd", AUG_COLL_ALL_TO_ALL, a2a,
                                                 (int)p->ep, ep_domain), AUG_CAT_EP, 0);
    struct aug_op router = aug_op_gemm("", x->dt, x->T, E, x->h, 1);
    gemm_bwd(g, &router, "router_dgrad", "router_wgrad", AUG_CAT_COMPUTE, 1);
}

void aug_graph_layer(const struct aug_model *m, const struct aug_plan *p,
                     const struct aug_system *s, struct aug_graph *g) {
    struct dims x;
    dims_init(m, p, s, &x);
    g->n_fwd = g->n_bwd = 0;
    double norm_flops = 8.0 * x.Tsp * x.h;
    const char *norm_kind = m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm";
    struct aug_op norm = act_op("norm", norm_kind, &x, 2.0 * x.Tsp * x.h * x.e, norm_flops);
    struct aug_op resid = act_op("residual", "elementwise", &x,
                                 x.Tsp * x.h * (3.0 * x.e + (x.dropout ? 1.0 : 0.0)), 2.0 * x.Tsp * x.h);
    struct aug_op qkv = aug_op_gemm("qkv", x.dt, x.T, (x.a_t + 2.0 * x.kv_t) * x.d, x.h, 1);
    struct aug_op rope = act_op("rope", "rope", &x, 2.0 * x.T * (x.a_t + x.kv_t) * x.d * x.e,
                                6.0 * x.T * (x.a_t + x.kv_t) * x.d);
    struct aug_op proj = aug_op_gemm("attn_out", x.dt, x.T, x.h, x.a_t * x.d, 1);
    int moe_layer = m->arch == AUG_ARCH_MOE;

    /* ---- forward ---- */
    add(g->fwd, &g->n_fwd, norm, AUG_CAT_COMPUTE, 0);
    if (x.sp)
        tp_coll(g->fwd, &g->n_fwd, "sp_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    add(g->fwd, &g->n_fwd, qkv, AUG_CAT_COMPUTE, 0);
    if (m->pos == AUG_POS_ROPE)
        add(g->fwd, &g->n_fwd, rope, AUG_CAT_COMPUTE, 0);
    /* attention adds to both lists: its backward is appended now and reordered below */
    struct aug_graph att;
    att.n_fwd = att.n_bwd = 0;
    attention(m, p, &x, &att);
    for (int i = 0; i < att.n_fwd; i++)
        add(g->fwd, &g->n_fwd, att.fwd[i].op, att.fwd[i].cat, att.fwd[i].selective);
    add(g->fwd, &g->n_fwd, proj, AUG_CAT_COMPUTE, 0);
    tp_coll(g->fwd, &g->n_fwd, x.sp ? "sp_reduce_scatter" : "tp_all_reduce",
            x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
    add(g->fwd, &g->n_fwd, resid, AUG_CAT_COMPUTE, 0);
    add(g->fwd, &g->n_fwd, norm, AUG_CAT_COMPUTE, 0);
    if (x.sp)
        tp_coll(g->fwd, &g->n_fwd, "sp_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    if (moe_layer)
        moe(m, p, s, &x, g);
    else
        mlp_dense(m, &x, g, x.T, x.f / x.t, 1, "mlp");
    tp_coll(g->fwd, &g->n_fwd, x.sp ? "sp_reduce_scatter" : "tp_all_reduce",
            x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
    add(g->fwd, &g->n_fwd, resid, AUG_CAT_COMPUTE, 0);

    /* ---- backward (reverse order) ---- */
    mem_bwd(g, &resid, "residual_bwd", AUG_CAT_COMPUTE);
    if (x.sp)
        tp_coll(g->bwd, &g->n_bwd, "sp_all_gather_bwd", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    if (moe_layer)
        moe_bwd(m, p, s, &x, g);
    else
        mlp_dense_bwd(m, &x, g, x.T, x.f / x.t, 1, 0);
    tp_coll(g->bwd, &g->n_bwd, x.sp ? "sp_reduce_scatter_bwd" : "tp_all_reduce_bwd",
            x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
    mem_bwd(g, &norm, "norm_bwd", AUG_CAT_COMPUTE);
    mem_bwd(g, &resid, "residual_bwd", AUG_CAT_COMPUTE);
    if (x.sp)
        tp_coll(g->bwd, &g->n_bwd, "sp_all_gather_bwd", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    gemm_bwd(g, &proj, "attn_out_dgrad", "attn_out_wgrad", AUG_CAT_COMPUTE, 1);
    for (int i = 0; i < att.n_bwd; i++)
        add(g->bwd, &g->n_bwd, att.bwd[i].op, att.bwd[i].cat, 0);
    if (m->pos == AUG_POS_ROPE)
        mem_bwd(g, &rope, "rope_bwd", AUG_CAT_COMPUTE);
    gemm_bwd(g, &qkv, "qkv_dgrad", "qkv_wgrad", AUG_CAT_COMPUTE, 1);
    tp_coll(g->bwd, &g->n_bwd, x.sp ? "sp_reduce_scatter_bwd" : "tp_all_reduce_bwd",
            x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
    mem_bwd(g, &norm, "norm_bwd", AUG_CAT_COMPUTE);

    /* ---- context parallelism: ring attention passes K and V blocks around the CP ring
     * (cp - 1 steps forward; K, V and their gradients backward) ---- */
    if (p->cp > 1) {
        double kv_block = 2.0 * x.b * x.s * x.kv_t * x.d * x.e;
        int cp_domain = aug_ranks_per_domain(s, p->cp, p->tp);
        /* a ring that leaves the NVLink domain has a network hop on every step */
        struct aug_op f = aug_op_collective("cp_kv_ring", AUG_COLL_SEND_RECV, kv_block, 2,
                                            cp_domain >= p->cp ? 2 : 1);
        f.count = (double)(p->cp - 1);
        add(g->fwd, &g->n_fwd, f, AUG_CAT_CP, 0);
        struct aug_op b = f;
        b.name = "cp_kv_ring_bwd";
        b.size_bytes = b.bytes = 2.0 * kv_block;
        add(g->bwd, &g->n_bwd, b, AUG_CAT_CP, 0);
    }
}

void aug_graph_head(const struct aug_model *m, const struct aug_plan *p,
                    const struct aug_system *s, int last_stage, struct aug_graph *g) {
    struct dims x;
    dims_init(m, p, s, &x);
    g->n_fwd = g->n_bwd = 0;
    if (!last_stage) {
        /* embedding lookup (+ learned positions): read rows, write activations */
        struct aug_op emb = act_op("embedding", "embedding", &x,
                                   x.T * x.h * x.e * (m->pos == AUG_POS_LEARNED ? 3.0 : 2.0), 0.0);
        add(g->fwd, &g->n_fwd, emb, AUG_CAT_EMBEDDING, 0);
        /* vocabulary-parallel embedding: partial rows summed over TP */
        tp_coll(g->fwd, &g->n_fwd, x.sp ? "emb_reduce_scatter" : "emb_all_reduce",
                x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
        mem_bwd(g, &emb, "embedding_bwd", AUG_CAT_EMBEDDING);
        return;
    }
    struct aug_op norm = act_op("final_norm", m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm", &x, 2.0 * x.Tsp * x.h * x.e, 8.0 * x.Tsp * x.h);
    struct aug_op head = aug_op_gemm("lm_head", x.dt, x.T, x.V / x.t, x.h, 1);
    double logits = x.T * x.V / x.t;
    /* cross-entropy in fp32: read logits, max/sum passes, write the logit gradient */
    struct aug_op ce = act_op("cross_entropy", "cross_entropy", &x, logits * (2.0 * x.e + 4.0),
                              5.0 * logits);
    add(g->fwd, &g->n_fwd, norm, AUG_CAT_EMBEDDING, 0);
    if (x.sp)
        tp_coll(g->fwd, &g->n_fwd, "head_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    add(g->fwd, &g->n_fwd, head, AUG_CAT_EMBEDDING, 0);
    add(g->fwd, &g->n_fwd, ce, AUG_CAT_EMBEDDING, 0);
    if (x.tp_ranks > 1) /* vocab-parallel softmax: max, sum and target logit per token */
        add(g->fwd, &g->n_fwd,
            aug_op_collective("ce_all_reduce", AUG_COLL_ALL_REDUCE, 3.0 * x.T * 4.0, x.tp_ranks,
                              x.tp_domain), AUG_CAT_TP, 0);
    struct aug_op ceb = act_op("cross_entropy_bwd", "cross_entropy", &x, logits * (4.0 + x.e), logits);
    add(g->bwd, &g->n_bwd, ceb, AUG_CAT_EMBEDDING, 0);
    gemm_bwd(g, &head, "lm_head_dgrad", "lm_head_wgrad", AUG_CAT_EMBEDDING, 1);
    tp_coll(g->bwd, &g->n_bwd, x.sp ? "head_reduce_scatter_bwd" : "head_all_reduce_bwd",
            x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
    mem_bwd(g, &norm, "final_norm_bwd", AUG_CAT_EMBEDDING);
}

double aug_layer_fwd_flops_per_seq(const struct aug_model *m, double seq) {
    double h = (double)m->hidden, d = (double)m->head_dim;
    double q = (double)m->heads * d, kv = (double)m->kv_heads * d, f = (double)m->ffn_hidden;
    double attn = 2.0 * seq * h * (q + 2.0 * kv) + 2.0 * seq * q * h + 4.0 * seq * seq * q;
    double mlp1 = 2.0 * seq * h * f * (m->mlp == AUG_MLP_SWIGLU ? 3.0 : 2.0);
    double mlp = mlp1;
    if (m->arch == AUG_ARCH_MOE)
        mlp = mlp1 * (double)(m->moe_topk + m->moe_shared_experts) +
              2.0 * seq * h * (double)m->moe_experts;
    return attn + mlp;
}

double aug_model_fwd_flops_per_seq(const struct aug_model *m, double seq) {
    return (double)m->layers * aug_layer_fwd_flops_per_seq(m, seq) +
           2.0 * seq * (double)m->hidden * (double)m->vocab;
}
