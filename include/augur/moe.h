/* SPDX-License-Identifier: Apache-2.0 */
/* moe.h - token routing of a mixture-of-experts layer under a plan: how many tokens each
 * expert processes on the busiest rank, what the capacity factor pads and drops, and the
 * all-to-all buffers of expert parallelism (GShard, Lepikhin et al. 2020; Switch, Fedus et
 * al. 2021; Megatron-Core MoE token dispatchers).
 *
 * Per micro-batch each rank routes T / tp tokens (T = micro_batch * seq / cp; tensor
 * parallelism splits the tokens before dispatch, as Megatron-Core's all-to-all dispatcher
 * does with sequence parallelism) to top-k of E experts. The ep ranks of an EP group each
 * hold E / ep experts, every expert split over etp ranks that all-gather its tokens, so
 * an expert sees on average n = ep * etp * (T / tp) * k / E tokens.
 * Load imbalance f (>= 1) is the busiest expert's load over that mean (1 + MaxVio of
 * Wang et al. 2024); the other E - 1 experts share the rest evenly, so the busiest EP
 * rank carries L = (f + (E/ep - 1)(E - f)/(E - 1)) / (E/ep) times the mean (L = 1 when
 * one rank holds every expert, L = f with one expert per rank).
 * Dropless routing processes every token: the busiest rank's grouped GEMM sees L n per
 * expert and its all-to-all receives L times the mean. A capacity factor c pads every
 * expert to c n tokens (static shapes) and drops what exceeds it:
 *     dropped = (max(0, f - c) + (E - 1) max(0, (E - f)/(E - 1) - c)) / E. */
#ifndef AUG_MOE_H
#define AUG_MOE_H

#include "augur/model.h"
#include "augur/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_moe_routing {
    int dropless;               /* 1: no capacity (every token processed) */
    double tokens_per_rank;     /* T / tp: tokens one rank routes per micro-batch */
    double local_experts;       /* E / ep */
    double mean_tokens_per_expert; /* n */
    double imbalance;           /* f */
    double busiest_rank_factor; /* L */
    double capacity;            /* tokens per expert buffer (c n); 0 when dropless */
    double tokens_per_expert;   /* rows of each local expert's GEMMs on the busiest rank */
    double dropped_fraction;    /* of the routed token-expert assignments */
    double dispatch_tokens;     /* token copies in one rank's dispatch buffer (T/tp k,
                                   padded to c, or L times the mean on the busiest rank) */
    double dispatch_bytes;      /* that buffer in bytes: the all-to-all size per rank */
};

/* Routing of one MoE layer for one micro-batch on one GPU; `elem_bytes` is the size of
 * one activation element. Zeros for a dense model. */
void aug_moe_routing(const struct aug_model *m, const struct aug_plan *p, double elem_bytes,
                     struct aug_moe_routing *out);

/* Expected number of distinct domains that hold at least one of a token's top-k experts,
 * with the experts in equal contiguous blocks over `domains` domains (E / domains each: EP
 * ranks fill each NVLink domain in order). Without grouped routing the k experts are k
 * distinct experts drawn uniformly; with it (moe_groups G > 1, moe_topk_groups g < G:
 * DeepSeek-V3's node-limited routing, arXiv 2412.19437 sec. 2.1.2 and 3.2.2) the token
 * first takes g of the G contiguous groups, then k experts among theirs, both uniformly as
 * balanced routing does on average. Exact: a domain is missed with probability
 * C(M - a, k) / C(M, k) for a of its experts among the M a token can choose, averaged over
 * the group subsets by counting them. 0 for a dense model or one domain. DeepEP sends a
 * token once to each such domain, so domains_hit / k is the share of NCCL's off-domain
 * copies it puts on the network. */
double aug_moe_domains_hit(const struct aug_model *m, long domains);

#ifdef __cplusplus
}
#endif
#endif
