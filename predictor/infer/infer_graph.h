/* SPDX-License-Identifier: Apache-2.0 */
/* infer_graph.h - the op graph of one serving step (infer_graph.c). */
#ifndef AUG_INFER_GRAPH_H
#define AUG_INFER_GRAPH_H

#include "step_graph.h"

/* The ops of one layer and of the model's two ends for one step of one replica. */
void aug_infer_graph_build(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_infer_step *st,
                           struct aug_infer_graph *g);

/* The flash-decoding op of `seqs` sequences attending over `ctx` tokens each. */
struct aug_op aug_infer_decode_attention(const struct aug_infer_dims *x, const struct aug_system *s,
                                         double seqs, double ctx);

#endif
