/* SPDX-License-Identifier: Apache-2.0 */
/* moe_layer.h - the MoE FFN of a layer graph (moe_layer.c): router, permutation, expert
 * all-to-alls, expert-TP collectives, grouped expert GEMMs, shared experts, and what hides
 * the all-to-alls (plan moe_overlap). */
#ifndef AUG_MOE_LAYER_H
#define AUG_MOE_LAYER_H

#include "model/graph_build.h"

/* Forward ops of one MoE FFN for one micro-batch on one GPU, appended to g->fwd. */
void aug_moe_layer_fwd(const struct aug_model *m, const struct aug_plan *p,
                       const struct aug_system *s, const struct aug_dims *x, struct aug_graph *g);
/* Their backward, appended to g->bwd; returns the index of the shared experts' first data
 * gradient (their up projection's), -1 without shared experts. */
int aug_moe_layer_bwd(const struct aug_model *m, const struct aug_plan *p,
                       const struct aug_system *s, const struct aug_dims *x, struct aug_graph *g);

#endif
