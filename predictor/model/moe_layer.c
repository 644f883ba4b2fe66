/* SPDX-License-Identifier: Apache-2.0 */
/* moe_layer.c - the MoE FFN of a transformer layer as Megatron-Core's all-to-all token
 * dispatcher runs it (moe.h for the routing arithmetic): router GEMM, fp32 softmax and
 * top-k, permutation of the tokens into expert order (memory-bound, by bytes), the
 * all-to-all dispatch over EP (inside NVLink domains or across nodes, collective.c), an
 * expert-TP all-gather, the experts as grouped GEMMs whose rows are the tokens routed to
 * each local expert on the busiest rank (small-M efficiency from the GEMM model, load
 * imbalance and capacity padding from moe.h), the mirror reduce-scatter and combine, the
 * un-permutation with the weighted sum of the k outputs, and shared experts as a dense TP
 * MLP beside them. Dropless routing makes the host wait for the token counts before the
 * dispatch (a host sync on the op, run by train.c's host timeline). The plan's moe_overlap hides the all-to-alls behind the shared expert
 * (Megatron-Core moe_shared_expert_overlap), or behind another micro-batch's layer
 * (Megatron-Core's EP all-to-all overlap: the ops carry the sub-module they run in,
 * enum aug_ep_node, and train/ep_overlap.c schedules them). */
#include "model/moe_layer.h"

#include "augur/moe.h"
#include "hw/topology.h"

/* The EP all-to-all of `size` bytes per rank; with DeepEP (share > 0) the share of its
 * off-domain copies the network carries (aug_coll_deepep_time). */
static struct aug_op a2a_op(const char *name, double size, int ranks, int per_domain,
                            double share) {
    struct aug_op op = aug_op_collective(name, AUG_COLL_ALL_TO_ALL, size, ranks, per_domain);
    op.deepep_net_share = share;
    return op;
}

/* DeepEP sends a token once to each domain holding one of its k experts: the domains it
 * hits over k is the share of the all-to-all's off-domain copies left on the network.
 * 0 for NCCL's all-to-all. */
static double deepep_share(const struct aug_model *m, const struct aug_plan *p, int ep, int epd) {
    if (p->moe_dispatcher != AUG_MOE_DISPATCH_DEEPEP || ep < 2 || m->moe_topk < 1)
        return 0.0;
    long domains = epd > 0 ? (ep + epd - 1) / epd : ep;
    double share = aug_moe_domains_hit(m, domains) / (double)m->moe_topk;
    return share > 1.0 ? 1.0 : share > 0 ? share : 1.0 / (double)m->moe_topk;
}

/* Ranks of the EP group that share an NVLink domain: EP peers sit next to the expert-TP
 * ranks (Megatron's default order), or, with ep_outer, outside expert data parallelism. */
static int ep_domain(const struct aug_plan *p, const struct aug_system *s) {
    long etp = aug_plan_etp(p);
    long stride = p->ep_outer ? etp * aug_plan_edp(p) : etp;
    return aug_ranks_per_domain(s, p->ep, stride);
}

void aug_moe_layer_fwd(const struct aug_model *m, const struct aug_plan *p,
                       const struct aug_system *s, const struct aug_dims *x,
                       struct aug_graph *g) {
    struct aug_moe_routing r;
    aug_moe_routing(m, p, x->e, &r);
    double E = (double)m->moe_experts, k = (double)m->moe_topk;
    int ep = (int)p->ep, etp = (int)aug_plan_etp(p);
    int epd = ep_domain(p, s), etpd = aug_ranks_per_domain(s, etp, 1);
    double share = deepep_share(m, p, ep, epd);
    double tok = r.tokens_per_rank, disp = r.dispatch_tokens;
    aug_gb_add(g->fwd, &g->n_fwd,
               aug_op_gemm("router", aug_gb_non_te_dtype(x), x->Tsp, E, x->h, 1),
               AUG_CAT_COMPUTE, 0);
    /* fp32 logits softmax and top-k selection */
    aug_gb_add(g->fwd, &g->n_fwd,
               aug_gb_act("router_topk", "softmax", x, x->Tsp * E * 8.0 + x->Tsp * k * 12.0,
                      5.0 * x->Tsp * E), AUG_CAT_COMPUTE, 0);
    aug_gb_add(g->fwd, &g->n_fwd, aug_gb_act("moe_permute", "copy", x, (tok + disp) * x->h * x->e, 0),
               AUG_CAT_COMPUTE, 0);
    int i_disp = -1, i_comb = -1;
    if (ep > 1) {
        aug_gb_add(g->fwd, &g->n_fwd, a2a_op("moe_dispatch", r.dispatch_bytes, ep, epd, share),
                   AUG_CAT_EP, 0);
        i_disp = g->n_fwd - 1;
    }
    if (etp > 1)
        aug_gb_add(g->fwd, &g->n_fwd,
                   aug_op_collective("moe_etp_all_gather", AUG_COLL_ALL_GATHER,
                                     (double)etp * r.dispatch_bytes, etp, etpd), AUG_CAT_EP, 0);
    if (i_disp >= 0)
        aug_gb_node(g->fwd, i_disp, g->n_fwd, AUG_EP_NODE_DISPATCH);
    struct aug_mlp_idx ix;
    int e0 = g->n_fwd;
    aug_gb_mlp(m, x, g, r.tokens_per_expert, x->f / (double)etp, r.local_experts, 1, &ix);
    /* Without capacity padding the token counts per expert are data: the host copies them
     * from the GPU and waits (Megatron-Core 0.12 MoEAlltoAllTokenDispatcher:
     * _maybe_dtoh_and_synchronize at "before_ep_alltoall" with EP or TP, else
     * "before_finish", ahead of the grouped GEMMs), so the host has no lead left when it
     * issues the dispatch. Capacity padding makes the splits static: no sync. DeepEP, always
     * dropless, waits the same way: its CPU spins on the received counts the notify kernel
     * writes to host memory (deepseek-ai/DeepEP csrc/deep_ep.cpp, Buffer::internode_dispatch);
     * the backward reuses the forward's layout and does not wait. */
    if (r.dropless && e0 < g->n_fwd)
        g->fwd[i_disp >= 0 ? i_disp : e0].host_sync = 1;
    aug_gb_node(g->fwd, e0, g->n_fwd, AUG_EP_NODE_MLP);
    aug_gb_tag(g->fwd, ix.up + 1, ix.up + 2, AUG_RC_MOE_ACT); /* expert_act */
    int c0 = g->n_fwd;
    if (etp > 1)
        aug_gb_add(g->fwd, &g->n_fwd,
                   aug_op_collective("moe_etp_reduce_scatter", AUG_COLL_REDUCE_SCATTER,
                                     (double)etp * r.dispatch_bytes, etp, etpd), AUG_CAT_EP, 0);
    if (ep > 1) {
        aug_gb_add(g->fwd, &g->n_fwd, a2a_op("moe_combine", r.dispatch_bytes, ep, epd, share),
                   AUG_CAT_EP, 0);
        i_comb = g->n_fwd - 1;
    }
    aug_gb_add(g->fwd, &g->n_fwd,
               aug_gb_act("moe_unpermute", "copy", x, (tok + disp) * x->h * x->e, disp * x->h),
               AUG_CAT_COMPUTE, 0);
    if (i_comb >= 0)
        aug_gb_node(g->fwd, c0, g->n_fwd, AUG_EP_NODE_COMBINE);
    if (m->moe_shared_experts > 0) {
        int n_shared = g->n_fwd;
        aug_gb_mlp(m, x, g, x->T, x->f * (double)m->moe_shared_experts / x->t, 1, 0, &ix);
        aug_gb_tag(g->fwd, n_shared, g->n_fwd, AUG_RC_SHARED_EXPERTS);
        if (p->moe_overlap == AUG_MOE_OVERLAP_SHARED && i_disp >= 0) {
            /* Megatron-Core moe_shared_expert_overlap: fc1 beside the dispatch, fc2 beside
             * the combine */
            aug_gb_pair(g, g->fwd, ix.up, i_disp, AUG_OVL_PAIR, 1);
            g->fwd[ix.up + 1].group = g->fwd[ix.up].group;
            g->fwd[ix.up + 1].ovl = AUG_OVL_PAIR;
            aug_gb_pair(g, g->fwd, ix.down, i_comb, AUG_OVL_PAIR, 1);
        }
    }
}

int aug_moe_layer_bwd(const struct aug_model *m, const struct aug_plan *p,
                      const struct aug_system *s, const struct aug_dims *x,
                      struct aug_graph *g) {
    struct aug_moe_routing r;
    aug_moe_routing(m, p, x->e, &r);
    double E = (double)m->moe_experts, k = (double)m->moe_topk;
    int ep = (int)p->ep, etp = (int)aug_plan_etp(p);
    int epd = ep_domain(p, s), etpd = aug_ranks_per_domain(s, etp, 1);
    double share = deepep_share(m, p, ep, epd);
    double tok = r.tokens_per_rank, disp = r.dispatch_tokens;
    struct aug_mlp_idx ix;
    int s0 = g->n_bwd, shared = m->moe_shared_experts > 0, ix_shared_up = -1;
    if (shared) {
        aug_gb_mlp_bwd(m, x, g, x->T, x->f * (double)m->moe_shared_experts / x->t, 1, 0, &ix);
        ix_shared_up = ix.up_dgrad;
    }
    int cb0 = g->n_bwd;
    aug_gb_add(g->bwd, &g->n_bwd,
               aug_gb_act("moe_unpermute_bwd", "copy", x, (tok + disp) * x->h * x->e, disp * x->h),
               AUG_CAT_COMPUTE, 0);
    int ovl = shared && p->moe_overlap == AUG_MOE_OVERLAP_SHARED && ep > 1;
    if (ep > 1) {
        aug_gb_add(g->bwd, &g->n_bwd, a2a_op("moe_combine_bwd", r.dispatch_bytes, ep, epd, share),
                   AUG_CAT_EP, 0);
        if (ovl) { /* the shared fc2 gradients beside the combine's mirror */
            aug_gb_pair(g, g->bwd, s0, g->n_bwd - 1, AUG_OVL_PAIR, 1);
            for (int i = s0 + 1; i <= s0 + 2; i++) {
                g->bwd[i].group = g->bwd[s0].group;
                g->bwd[i].ovl = AUG_OVL_PAIR;
            }
        }
    }
    if (etp > 1)
        aug_gb_add(g->bwd, &g->n_bwd,
                   aug_op_collective("moe_etp_all_gather_bwd", AUG_COLL_ALL_GATHER,
                                     (double)etp * r.dispatch_bytes, etp, etpd), AUG_CAT_EP, 0);
    int eb0 = g->n_bwd;
    if (ep > 1)
        aug_gb_node(g->bwd, cb0, eb0, AUG_EP_NODE_COMBINE);
    aug_gb_mlp_bwd(m, x, g, r.tokens_per_expert, x->f / (double)etp, r.local_experts, 1, &ix);
    if (ep > 1) { /* the weight gradients follow their data gradients (aug_gb_gemm_bwd) */
        aug_gb_node(g->bwd, eb0, g->n_bwd, AUG_EP_NODE_MLP);
        aug_gb_node(g->bwd, ix.down_dgrad + 1, ix.down_dgrad + 2, AUG_EP_NODE_MLP_DW);
        aug_gb_node(g->bwd, ix.up_dgrad + 1, ix.up_dgrad + 2, AUG_EP_NODE_MLP_DW);
    }
    int db0 = g->n_bwd;
    if (etp > 1)
        aug_gb_add(g->bwd, &g->n_bwd,
                   aug_op_collective("moe_etp_reduce_scatter_bwd", AUG_COLL_REDUCE_SCATTER,
                                     (double)etp * r.dispatch_bytes, etp, etpd), AUG_CAT_EP, 0);
    if (ep > 1) {
        aug_gb_add(g->bwd, &g->n_bwd, a2a_op("moe_dispatch_bwd", r.dispatch_bytes, ep, epd, share),
                   AUG_CAT_EP, 0);
        aug_gb_node(g->bwd, db0, g->n_bwd, AUG_EP_NODE_DISPATCH);
        if (ovl) { /* the shared fc1 gradients beside the dispatch's mirror */
            aug_gb_pair(g, g->bwd, s0 + 3, g->n_bwd - 1, AUG_OVL_PAIR, 1);
            g->bwd[s0 + 4].group = g->bwd[s0 + 3].group;
            g->bwd[s0 + 4].ovl = AUG_OVL_PAIR;
        }
    }
    aug_gb_add(g->bwd, &g->n_bwd,
               aug_gb_act("moe_permute_bwd", "copy", x, (tok + disp) * x->h * x->e, disp * x->h),
               AUG_CAT_COMPUTE, 0);
    aug_gb_add(g->bwd, &g->n_bwd,
               aug_gb_act("router_topk_bwd", "softmax", x, x->Tsp * E * 12.0 + x->Tsp * k * 12.0,
                      5.0 * x->Tsp * E), AUG_CAT_COMPUTE, 0);
    struct aug_op router = aug_op_gemm("", aug_gb_non_te_dtype(x), x->Tsp, E, x->h, 1);
    aug_gb_gemm_bwd(g, &router, "router_dgrad", "router_wgrad", AUG_CAT_COMPUTE, 1);
    return shared ? ix_shared_up : -1;
}
