/* SPDX-License-Identifier: Apache-2.0 */
/* layer_graph.h - the operator graph of one transformer layer (and of the embedding /
 * LM-head ends) for one micro-batch on one GPU under a plan. Fixed-size arrays: building
 * a graph never allocates (sweeps build millions).
 *
 * Ops that overlap carry the same group id: the compute ops of a group run while its one
 * communication op moves data, and the timing (train.c, overlap.h) charges the group
 * max-like time of the two resources instead of their sum. */
#ifndef AUG_LAYER_GRAPH_H
#define AUG_LAYER_GRAPH_H

#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/system.h"

/* What a second of an op counts as in the breakdown. */
enum aug_cat {
    AUG_CAT_COMPUTE,   /* GEMMs and memory-bound kernels */
    AUG_CAT_ATTENTION, /* attention core (and the MatMul-free token mixer's recurrence) */
    AUG_CAT_EMBEDDING, /* embedding, LM head, loss */
    AUG_CAT_TP,        /* tensor-parallel collectives */
    AUG_CAT_CP,        /* context-parallel exchange */
    AUG_CAT_EP,        /* expert-parallel all-to-all (and expert-TP gathers) */
    AUG_CAT_HOST,      /* GPU idle while the framework issues kernels (host-bound) */
    AUG_CAT_COUNT
};

/* How the ops of an overlap group are scheduled (overlap.h). */
enum aug_ovl_kind {
    AUG_OVL_NONE,
    AUG_OVL_RING,  /* n compute steps, n - 1 transfers hidden between them */
    AUG_OVL_TRAIL, /* n compute chunks, each followed by a transfer */
    AUG_OVL_PAIR   /* compute and transfer start together (overlap.h pair) */
};

/* The sub-modules Megatron-Core's EP all-to-all overlap schedules a MoE layer in
 * (megatron/core/models/gpt/fine_grained_callables.py, build_transformer_layer_callables):
 * the compute before the dispatch (attention, pre-MLP norm, shared experts, router,
 * permutation; in the backward the compute after the dispatch's mirror), the dispatch
 * all-to-all, the experts (their weight gradients apart, run after the dispatch's mirror
 * is issued), and the combine all-to-all with the un-permutation; train/ep_overlap.c. */
enum aug_ep_node {
    AUG_EP_NODE_PRE,      /* compute stream; every op outside the MoE FFN too */
    AUG_EP_NODE_DISPATCH, /* communication stream */
    AUG_EP_NODE_MLP,      /* compute stream: the routed experts */
    AUG_EP_NODE_MLP_DW,   /* compute stream: the routed experts' weight gradients */
    AUG_EP_NODE_COMBINE,  /* communication stream (the un-permutation runs there too) */
    AUG_EP_NODE_COUNT
};

struct aug_graph_op {
    struct aug_op op;
    enum aug_cat cat;
    enum aug_ep_node ep_node; /* its sub-module in the EP all-to-all overlap (default PRE) */
    unsigned rc;       /* the recompute modules it belongs to (enum aug_rc_module bits):
                          selective recomputation repeats it when the plan names one */
    int group;         /* overlap group (0: none) */
    enum aug_ovl_kind ovl;
    int ovl_n;         /* steps or chunks of the group */
    int same_as;       /* index of an identical earlier op of the list (its time is reused), -1 */
    int host_sync;     /* 1: the host waits for the GPU before it issues this op */
};

#define AUG_GRAPH_MAX_OPS 80

struct aug_graph {
    struct aug_graph_op fwd[AUG_GRAPH_MAX_OPS];
    int n_fwd;
    struct aug_graph_op bwd[AUG_GRAPH_MAX_OPS];
    int n_bwd;
    int n_groups;      /* group ids handed out so far (both lists) */
};

/* One layer (dense, MoE or MatMul-free) on one GPU for one micro-batch. */
void aug_graph_layer(const struct aug_model *m, const struct aug_plan *p,
                     const struct aug_system *s, struct aug_graph *g);

/* The first stage's extra work (embedding) and the last stage's (final norm, LM head,
 * cross-entropy). */
void aug_graph_head(const struct aug_model *m, const struct aug_plan *p,
                    const struct aug_system *s, int last_stage, struct aug_graph *g);

/* All three at once (one shape derivation): what a training prediction times. */
void aug_graph_all(const struct aug_model *m, const struct aug_plan *p, const struct aug_system *s,
                   struct aug_graph *layer, struct aug_graph *first, struct aug_graph *last);

/* Forward matmul FLOPs of one sequence through the whole model (model_flops.c), counting
 * the attention core on the causal (query, key) pairs (windowed layers: the window's), the
 * MTP modules included. MatMul-free layers count their ternary projections as the GEMMs of
 * the same shapes. */
double aug_model_fwd_flops_per_seq(const struct aug_model *m, double seq);
/* The mean layer's part of it (full recomputation repeats layers times this). */
double aug_layer_fwd_flops_per_seq(const struct aug_model *m, double seq);
/* The same count on the tokens a plan actually processes: routed-expert work dropped by
 * the plan's capacity factor (moe.h) is not counted, so MFU stays a fraction of peak. */
double aug_model_fwd_flops_processed(const struct aug_model *m, const struct aug_plan *p,
                                     double seq);
/* The same with every query against every key (full s^2 attention): the convention of
 * published MFUs (Narayanan et al. 2021 eq. 3, PaLM app. B, Megatron-LM training.py), for
 * comparing with them only; it exceeds the work done at long context. */
double aug_model_fwd_flops_full_attention(const struct aug_model *m, const struct aug_plan *p,
                                          double seq);
/* Its transformer layers only (what full recomputation repeats). */
double aug_layers_fwd_flops_processed(const struct aug_model *m, const struct aug_plan *p,
                                      double seq);
/* The attention cores of all layers for one sequence (what selective recomputation
 * repeats), causal pairs as above. */
double aug_attn_core_fwd_flops_per_seq(const struct aug_model *m, double seq);

#endif
