/* SPDX-License-Identifier: Apache-2.0 */
/* validate_infer.h - the reader of accuracy sets in the DESIGN section 6 inference schema
 * (recognized by their input_len column). */
#ifndef AUG_VALIDATE_INFER_H
#define AUG_VALIDATE_INFER_H

#include "validate_internal.h"

/* Open a reader over `t` (read from `path`). Its read() parses a row, predicts it with the
 * serving model (calibrated curves from opt->kdb_root unless opt->fallback_only) and fills
 * the row's predicted value and error itself: the caller does not score the case. */
int aug_validate_infer_open(const struct aug_csv *t, const char *path,
                            const struct aug_validate_options *opt, struct aug_validate_reader *rd);

#endif
