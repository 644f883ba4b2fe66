/* SPDX-License-Identifier: Apache-2.0 */
/* infer_matmulfree.h - serving MatMul-free LMs (infer_matmulfree.c): the hooks the serving
 * model calls when a model's arch is AUG_ARCH_MATMULFREE: TP check, step graph and
 * memory (static batching of these models: static_matmulfree.c). */
#ifndef AUG_INFER_MATMULFREE_H
#define AUG_INFER_MATMULFREE_H

#include "step_graph.h"

/* TP splits channels (no heads): hidden and FFN sizes must divide by tp. */
int aug_infer_mmf_check_tp(const struct aug_model *m, long tp, const char *what);

/* The ops of one layer and of the two ends for one step of one replica: no attention, a
 * recurrent state update per sequence instead (g->decode_attn stays -1). */
void aug_infer_mmf_graph(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_step *st,
                         struct aug_infer_graph *g);

/* Memory per GPU: 2-bit ternary weights, 16-bit embedding and norms, a constant-size
 * recurrent state per sequence (reported as the KV cache: it takes its place). */
void aug_infer_mmf_memory_at(const struct aug_model *m, const struct aug_system *s,
                             const struct aug_infer_plan *p, double seqs, double prefill_tokens,
                             struct aug_infer_memory *out);

/* Bytes of recurrent state of one sequence over the whole model (fp32 state). */
double aug_infer_mmf_state_bytes_per_seq(const struct aug_model *m);


#endif
