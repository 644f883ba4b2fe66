/* SPDX-License-Identifier: Apache-2.0 */
/* infer_check.h - a serving prediction is finite or an error naming its input. */
#ifndef AUG_INFER_CHECK_H
#define AUG_INFER_CHECK_H

#include "augur/infer.h"

/* AUG_OK, or AUG_EDATA naming the model, system and plan and the first non-finite field. */
int aug_infer_check_finite(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_infer_result *r);

#endif
