/* SPDX-License-Identifier: Apache-2.0 */
/* graph_build.c - what the layer-graph builders share (layer_graph.c for transformers and
 * MoE, matmulfree.c for MatMul-free LMs): the per-GPU shapes of a micro-batch, the bytes of
 * an activation element, and the helpers that append backward mirrors and TP collectives. */
#include "graph_build.h"

#include "hw/topology.h"

double aug_train_act_bytes(const struct aug_plan *p) {
    return (p->dtype == AUG_DTYPE_FP32 || p->dtype == AUG_DTYPE_TF32) ? 4.0 : 2.0;
}

int aug_model_has_dropout(const struct aug_model *m) { return m->pos == AUG_POS_LEARNED; }

void aug_dims_init(const struct aug_model *m, const struct aug_plan *p, const struct aug_system *s,
                   struct aug_dims *x) {
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

void aug_gb_pair(struct aug_graph *g, struct aug_graph_op *arr, int i, int j,
                 enum aug_ovl_kind ovl, int steps) {
    if (i < 0 || j < 0)
        return;
    int id = ++g->n_groups;
    arr[i].group = arr[j].group = id;
    arr[i].ovl = arr[j].ovl = ovl;
    arr[i].ovl_n = arr[j].ovl_n = steps;
}

int aug_gb_tp_coll(struct aug_graph_op *arr, int *n, const char *name, enum aug_coll c,
                   const struct aug_dims *x, enum aug_cat cat) {
    if (x->tp_ranks <= 1)
        return -1;
    aug_gb_add(arr, n, aug_op_collective(name, c, x->T * x->h * x->e, x->tp_ranks, x->tp_domain),
               cat, 0);
    return *n - 1;
}

int aug_gb_gemm_bwd(struct aug_graph *g, const struct aug_op *f, const char *dname,
                    const char *wname, enum aug_cat cat, int weights) {
    aug_gb_add(g->bwd, &g->n_bwd, aug_op_gemm(dname, f->dtype, f->m, f->k, f->n, f->batch), cat, 0);
    int di = g->n_bwd - 1;
    if (weights)
        aug_gb_add(g->bwd, &g->n_bwd, aug_op_gemm(wname, f->dtype, f->k, f->n, f->m, f->batch), cat, 0);
    else /* batched activation-activation GEMMs need gradients of both inputs */
        aug_gb_add(g->bwd, &g->n_bwd, aug_op_gemm(wname, f->dtype, f->n, f->k, f->m, f->batch), cat, 0);
    return di;
}

void aug_gb_mem_bwd(struct aug_graph *g, const struct aug_op *f, const char *name,
                    enum aug_cat cat) {
    aug_gb_add(g->bwd, &g->n_bwd,
               aug_op_memory(name, f->mem_op, f->dtype, 2.0 * f->bytes, 2.0 * f->flops), cat, 0);
}

void aug_gb_mlp(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g,
                double tokens, double f_local, double groups, int expert,
                struct aug_mlp_idx *ix) {
    int gated = m->mlp == AUG_MLP_SWIGLU;
    struct aug_op up = aug_op_gemm(expert ? "expert_up" : "mlp_up", x->dt, tokens,
                                   (gated ? 2.0 : 1.0) * f_local, x->h, groups);
    double inner = tokens * f_local * groups;
    struct aug_op act = aug_gb_act(expert ? "expert_act" : "mlp_act", "activation", x,
                               inner * x->e * (gated ? 3.0 : 2.0), inner * (gated ? 8.0 : 10.0));
    struct aug_op down = aug_op_gemm(expert ? "expert_down" : "mlp_down", x->dt, tokens, x->h,
                                     f_local, groups);
    aug_gb_add(g->fwd, &g->n_fwd, up, AUG_CAT_COMPUTE, 0);
    ix->up = g->n_fwd - 1;
    aug_gb_add(g->fwd, &g->n_fwd, act, AUG_CAT_COMPUTE, 0);
    aug_gb_add(g->fwd, &g->n_fwd, down, AUG_CAT_COMPUTE, 0);
    ix->down = g->n_fwd - 1;
}

void aug_gb_mlp_bwd(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g,
                    double tokens, double f_local, double groups, int expert,
                    struct aug_mlp_idx *ix) {
    int gated = m->mlp == AUG_MLP_SWIGLU;
    struct aug_op up = aug_op_gemm("", x->dt, tokens, (gated ? 2.0 : 1.0) * f_local, x->h, groups);
    double inner = tokens * f_local * groups;
    struct aug_op act = aug_gb_act("", "activation", x, inner * x->e * (gated ? 3.0 : 2.0),
                               inner * (gated ? 8.0 : 10.0));
    struct aug_op down = aug_op_gemm("", x->dt, tokens, x->h, f_local, groups);
    ix->down_dgrad = aug_gb_gemm_bwd(g, &down, expert ? "expert_down_dgrad" : "mlp_down_dgrad",
                                     expert ? "expert_down_wgrad" : "mlp_down_wgrad",
                                     AUG_CAT_COMPUTE, 1);
    aug_gb_mem_bwd(g, &act, expert ? "expert_act_bwd" : "mlp_act_bwd", AUG_CAT_COMPUTE);
    ix->up_dgrad = aug_gb_gemm_bwd(g, &up, expert ? "expert_up_dgrad" : "mlp_up_dgrad",
                                   expert ? "expert_up_wgrad" : "mlp_up_wgrad", AUG_CAT_COMPUTE, 1);
}

/* Transformer Engine runs an fp8 GEMM on fp8 operands (TE 1.x/2.x,
 * transformer_engine/pytorch/module/linear.py, layernorm_linear.py, grouped_linear.py): the
 * forward casts each GEMM's input activation to fp8 together with its transpose, which the
 * weight-gradient GEMM reads (the fused cast-transpose kernel: 2 bytes read, 1 + 1 written
 * per element), and the backward casts the output gradient the same way for the data- and
 * weight-gradient GEMMs. Weights are cast once per iteration (Megatron-Core passes
 * is_first_microbatch and TE keeps the fp8 copy for the later micro-batches), which is
 * small beside the activations and not charged. Delayed scaling (TE's default recipe) takes
 * its scale from the amax history, so there is no separate amax pass. Current scaling
 * (Float8CurrentScaling) "requires reading the tensor twice": amax first, then the scaled
 * cast (TE docs/features/low_precision_training/fp8_current_scaling/fp8_current_scaling.rst,
 * "Performance analysis"; nvte_compute_amax in common/recipe/current_scaling.cu, TE at
 * d0067d0): one more kernel per cast, 2 bytes read per element. One op per list
 * carries the casts of all the fp8 GEMMs: its count is their executions, its bytes their
 * mean, so launches and bytes both add up.
 * The data- and weight-gradient GEMMs accumulate through the split accumulator, the
 * forward ones with fast accumulation (TE pytorch/module/base.py, _2X_ACC_*; the cost is in
 * hw/gemm_model.c, aug_gemm_split_acc_share). */
void aug_gb_fp8_recipe(struct aug_graph *g, int fwd_from, enum aug_fp8_scaling scaling) {
    for (int i = 0; i < g->n_bwd; i++)
        if (g->bwd[i].op.kind == AUG_OP_GEMM && g->bwd[i].op.dtype == AUG_DTYPE_FP8)
            g->bwd[i].op.split_acc = 1;
    double n = 0, in = 0, out = 0;
    for (int i = fwd_from; i < g->n_fwd; i++) {
        const struct aug_op *o = &g->fwd[i].op;
        if (o->kind != AUG_OP_GEMM || o->dtype != AUG_DTYPE_FP8 || !(o->count > 0))
            continue;
        n += o->count;
        in += o->m * o->k * o->batch * o->count;
        out += o->m * o->n * o->batch * o->count;
    }
    if (!(n > 0))
        return;
    if (scaling == AUG_FP8_CURRENT) {
        struct aug_op a = aug_op_memory("fp8_amax", "elementwise", AUG_DTYPE_BF16, 2.0 * in / n,
                                        in / n);
        a.count = n;
        aug_gb_add(g->fwd, &g->n_fwd, a, AUG_CAT_COMPUTE, 0);
    }
    struct aug_op f = aug_op_memory("fp8_cast_transpose", "elementwise", AUG_DTYPE_BF16,
                                    4.0 * in / n, 2.0 * in / n);
    f.count = n;
    aug_gb_add(g->fwd, &g->n_fwd, f, AUG_CAT_COMPUTE, 0);
    if (scaling == AUG_FP8_CURRENT) {
        struct aug_op a = aug_op_memory("fp8_amax_bwd", "elementwise", AUG_DTYPE_BF16,
                                        2.0 * out / n, out / n);
        a.count = n;
        aug_gb_add(g->bwd, &g->n_bwd, a, AUG_CAT_COMPUTE, 0);
    }
    struct aug_op b = aug_op_memory("fp8_cast_transpose_bwd", "elementwise", AUG_DTYPE_BF16,
                                    4.0 * out / n, 2.0 * out / n);
    b.count = n;
    aug_gb_add(g->bwd, &g->n_bwd, b, AUG_CAT_COMPUTE, 0);
}
