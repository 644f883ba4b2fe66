/* SPDX-License-Identifier: Apache-2.0 */
/* train_check.h - a training prediction is finite or an error naming its input. */
#ifndef AUG_TRAIN_CHECK_H
#define AUG_TRAIN_CHECK_H

#include "augur/train.h"

/* AUG_OK, or AUG_EDATA naming the model, system and plan and the first non-finite field. */
int aug_train_check_finite(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_plan *p, const struct aug_train_result *r);

#endif
