/* SPDX-License-Identifier: Apache-2.0 */
/* static_batch.h - static batching of one replica: transformers (static_batch.c) and
 * MatMul-free LMs (static_matmulfree.c). */
#ifndef AUG_INFER_STATIC_BATCH_H
#define AUG_INFER_STATIC_BATCH_H

#include "augur/infer.h"

/* Static batching of one replica (infer.c), also used per pool by disaggregation. */
int aug_infer_static(const struct aug_model *m, const struct aug_system *s,
                     const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                     struct aug_infer_result *out);

/* Static batching of a MatMul-free LM: prefill, then output_len - 1 identical decode
 * steps (the recurrent state does not grow with the context). */
int aug_infer_mmf_static(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                         struct aug_infer_result *out);

#endif
