/* SPDX-License-Identifier: Apache-2.0 */
/* graph_build.h - what the layer-graph builders share (layer_graph.c for transformers and
 * MoE, matmulfree.c for MatMul-free LMs): the per-GPU shapes of a micro-batch and the
 * helpers that append ops, their backward mirrors and TP collectives. */
#ifndef AUG_GRAPH_BUILD_H
#define AUG_GRAPH_BUILD_H

#include "layer_graph.h"

/* Bytes of one activation element: 16-bit for bf16/fp16/fp8 training (fp8 GEMMs keep
 * bf16 activations between kernels), 4 for fp32/tf32. */
double aug_train_act_bytes(const struct aug_plan *p);
/* Does the model use dropout (GPT-style models trained with Megatron do; Llama-style
 * recipes do not)? */
int aug_model_has_dropout(const struct aug_model *m);

/* Shapes of one micro-batch on one GPU. */
struct aug_dims {
    double b;        /* sequences */
    double s;        /* tokens per sequence on this rank (seq / cp) */
    double skv;      /* keys per sequence (seq) */
    double T;        /* tokens on this rank: b s */
    double Tsp;      /* tokens a TP rank holds outside the TP regions (T / t with SP) */
    double t;        /* tensor parallelism */
    double h, d, a_t, kv_t, f, V;
    double e;        /* activation bytes */
    enum aug_dtype dt;
    int tp_ranks, tp_domain, sp, dropout;
};

void aug_dims_init(const struct aug_model *m, const struct aug_plan *p, const struct aug_system *s,
                   struct aug_dims *x);

/* Append op to a list as a member of overlap group `group` (0: none) of kind `ovl` with
 * `steps` steps (ignored beyond AUG_GRAPH_MAX_OPS; the builders stay well under). Inline:
 * sweeps build millions of graphs. */
static inline void aug_gb_add_ovl(struct aug_graph_op *arr, int *n, const struct aug_op *op,
                                  enum aug_cat cat, int group, enum aug_ovl_kind ovl, int steps) {
    if (*n >= AUG_GRAPH_MAX_OPS)
        return;
    struct aug_graph_op *o = &arr[(*n)++];
    o->op = *op;
    o->cat = cat;
    o->rc = 0;
    o->ep_node = AUG_EP_NODE_PRE;
    o->group = group;
    o->ovl = ovl;
    o->ovl_n = steps;
    o->same_as = -1;
    o->host_sync = 0;
}

/* Append op to a list; `rc` names the recompute modules it belongs to (enum
 * aug_rc_module bits, 0: none). */
static inline void aug_gb_add_p(struct aug_graph_op *arr, int *n, const struct aug_op *op,
                                enum aug_cat cat, unsigned rc) {
    aug_gb_add_ovl(arr, n, op, cat, 0, AUG_OVL_NONE, 0);
    if (*n > 0 && *n <= AUG_GRAPH_MAX_OPS)
        arr[*n - 1].rc = rc;
}
static inline void aug_gb_add(struct aug_graph_op *arr, int *n, struct aug_op op,
                              enum aug_cat cat, unsigned rc) {
    aug_gb_add_p(arr, n, &op, cat, rc);
}

/* Add recompute modules `rc` to ops [from, to) of a list. */
static inline void aug_gb_tag(struct aug_graph_op *arr, int from, int to, unsigned rc) {
    for (int i = from < 0 ? 0 : from; i < to && i < AUG_GRAPH_MAX_OPS; i++)
        arr[i].rc |= rc;
}

/* Put ops [from, to) of a list in EP-overlap sub-module `node`. */
static inline void aug_gb_node(struct aug_graph_op *arr, int from, int to, enum aug_ep_node node) {
    for (int i = from < 0 ? 0 : from; i < to && i < AUG_GRAPH_MAX_OPS; i++)
        arr[i].ep_node = node;
}

/* Append op, which is identical to op `first` of the same list (its time is reused). */
static inline void aug_gb_add_same(struct aug_graph_op *arr, int *n, int first, enum aug_cat cat) {
    if (first < 0 || first >= *n || *n >= AUG_GRAPH_MAX_OPS)
        return;
    aug_gb_add_p(arr, n, &arr[first].op, cat, arr[first].rc);
    arr[*n - 1].same_as = first;
}

/* A memory-bound op of the micro-batch's activation dtype. */
static inline struct aug_op aug_gb_act(const char *name, const char *kind, const struct aug_dims *x,
                                       double bytes, double flops) {
    return aug_op_memory(name, kind, x->dt, bytes, flops);
}

/* The dtype of the GEMMs an fp8 recipe leaves in 16-bit: Transformer Engine's fp8_autocast
 * reaches only TE modules, and Megatron-Core builds the output layer (gpt_model.py,
 * tensor_parallel.ColumnParallelLinear) and the MoE router (router.py, a plain
 * torch linear) from its own layers (Megatron-Core 0.12). */
static inline enum aug_dtype aug_gb_non_te_dtype(const struct aug_dims *x) {
    return x->dt == AUG_DTYPE_FP8 ? AUG_DTYPE_BF16 : x->dt;
}

/* Transformer Engine's fp8 recipe on the graph: the casts of the operands of the fp8 GEMMs
 * in g->fwd from fwd_from on (one op appended to each list) and the split accumulator of
 * every fp8 GEMM in g->bwd (graph_build.c). */
void aug_gb_fp8_recipe(struct aug_graph *g, int fwd_from, enum aug_fp8_scaling scaling);

/* A TP collective of the T x h activations (skipped when tp = 1); returns its index or -1. */
int aug_gb_tp_coll(struct aug_graph_op *arr, int *n, const char *name, enum aug_coll c,
                   const struct aug_dims *x, enum aug_cat cat);

/* Backward of a GEMM: data gradient and weight gradient (or the gradient of the second
 * activation operand when `weights` is 0); returns the index of the data gradient. */
int aug_gb_gemm_bwd(struct aug_graph *g, const struct aug_op *f, const char *dname,
                    const char *wname, enum aug_cat cat, int weights);
/* Backward of a memory-bound op: twice its bytes and FLOPs. */
void aug_gb_mem_bwd(struct aug_graph *g, const struct aug_op *f, const char *name,
                    enum aug_cat cat);

/* The indices of an MLP's GEMMs in the lists (for overlap pairing). */
struct aug_mlp_idx {
    int up, down;          /* forward GEMMs */
    int down_dgrad, up_dgrad;
};

/* An MLP (or a group of `groups` experts, `expert` naming their ops expert_*) on `tokens`
 * rows with `f_local` inner columns: up (gate and up when gated), activation, down; and
 * its backward mirror. */
void aug_gb_mlp(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g,
                double tokens, double f_local, double groups, int expert, struct aug_mlp_idx *ix);
void aug_gb_mlp_bwd(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g,
                    double tokens, double f_local, double groups, int expert,
                    struct aug_mlp_idx *ix);

/* Put op `i` of list `arr` and op `j` (a collective) into a new overlap group. */
void aug_gb_pair(struct aug_graph *g, struct aug_graph_op *arr, int i, int j,
                 enum aug_ovl_kind ovl, int steps);

#endif
