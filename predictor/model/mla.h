/* SPDX-License-Identifier: Apache-2.0 */
/* mla.h - the projections of multi-head latent attention in a layer graph (mla.c). */
#ifndef AUG_MLA_H
#define AUG_MLA_H

#include "model/graph_build.h"

/* Forward projections before the attention core: q down (or full-rank q), q norm, q up, kv
 * down (with the shared RoPE key), kv norm, kv up; returns the index of the first
 * column-parallel GEMM (the one a TP all-gather overlaps). */
int aug_mla_qkv_fwd(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g);
/* Their backward, appended to g->bwd in reverse order; returns the index of the last data
 * gradient of a column-parallel GEMM (the one a TP reduce-scatter overlaps). */
int aug_mla_qkv_bwd(const struct aug_model *m, const struct aug_dims *x, struct aug_graph *g);
/* The output projection (a/t heads of v_head_dim -> h). */
struct aug_op aug_mla_out(const struct aug_model *m, const struct aug_dims *x);
/* Width of one head of the attention core for timing: q.k over qk_nope + qk_rope and
 * p.v over v_head_dim cost 2 pairs (d_qk + d_v) FLOPs, the same as a head of
 * (d_qk + d_v) / 2 in the 4 pairs d of standard attention. */
double aug_mla_core_head_dim(const struct aug_model *m);
/* Forward FLOPs of the projections per token (2 x their weights). */
double aug_mla_proj_flops_per_token(const struct aug_model *m);

#endif
