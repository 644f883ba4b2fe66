/* SPDX-License-Identifier: Apache-2.0 */
/* serving.h - serving modes beyond a static batch (serving.c). */
#ifndef AUG_INFER_SERVING_H
#define AUG_INFER_SERVING_H

#include "augur/infer.h"

/* Steady-state continuous batching and disaggregation (serving.c). */
int aug_infer_continuous(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                         struct aug_infer_result *out);
int aug_infer_disaggregated(const struct aug_model *m, const struct aug_system *s,
                            const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                            struct aug_infer_result *out);

#endif
