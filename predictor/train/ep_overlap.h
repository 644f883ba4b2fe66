/* SPDX-License-Identifier: Apache-2.0 */
/* ep_overlap.h - Megatron-Core's expert-parallel all-to-all overlap (plan moe_overlap batch,
 * --overlap-moe-expert-parallel-comm): in the steady 1F1B phase each layer's forward of one
 * micro-batch runs merged with a layer's backward of another, the all-to-alls of one on a
 * communication stream beside the compute of the other (ep_overlap.c). */
#ifndef AUG_EP_OVERLAP_H
#define AUG_EP_OVERLAP_H

#include "model/layer_graph.h"

/* Seconds of one average layer's sub-modules (enum aug_ep_node), forward and backward. */
struct aug_ep_nodes {
    double f[AUG_EP_NODE_COUNT];
    double b[AUG_EP_NODE_COUNT];
};

/* Seconds of one merged layer (a forward and a backward pass of one layer each) in the
 * steady state of the schedule, with compute slowed by `slowdown` while an all-to-all
 * shares the SMs (the comm_slowdown of the plan, as overlap.h). Never below the busier
 * stream, never above the serial sum of the sub-modules. */
double aug_ep_overlap_layer_s(const struct aug_ep_nodes *n, double slowdown);

/* The share of a pipeline rank's layer passes that run merged: all but the warm-up
 * forwards and the cool-down backwards of the schedule (Megatron-Core
 * pipeline_parallel/schedules.py: one each without pipelining, the interleaved schedule's
 * warm-up (pp - r - 1) 2 + (v - 1) pp chunks on rank r, averaged over the ranks). */
double aug_ep_overlap_steady_share(long microbatches, long pp, long interleave);

#endif
