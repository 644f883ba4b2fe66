/* SPDX-License-Identifier: Apache-2.0 */
/* infer_memory.h - memory per GPU of a serving replica (infer_memory.c); the largest batch
 * and the KV bytes per token are public (augur/infer.h). */
#ifndef AUG_INFER_MEMORY_H
#define AUG_INFER_MEMORY_H

#include "step_graph.h"


/* Memory with `kv_tokens` cached per sequence and `prefill_tokens` in the largest step. */
void aug_infer_memory_at(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, double seqs, double kv_tokens,
                         double prefill_tokens, struct aug_infer_memory *out);

#endif
