/* SPDX-License-Identifier: Apache-2.0 */
/* op_shape_cli.h - the dtype and GEMM-shape columns of an `--ops` listing (struct
 * aug_op_shape), written the same way by `augur train` and `augur infer`, so that
 * `augur-profile --shapes FILE` can measure the GEMMs of a prediction on a real GPU. */
#ifndef AUG_OP_SHAPE_CLI_H
#define AUG_OP_SHAPE_CLI_H

#include <jansson.h>

#include "augur/csvio.h"
#include "augur/op.h"

/* Adds "dtype", "m", "n", "k" and "batch" to `o`: the shape keys are null for an op that
 * is not a GEMM, the dtype null for a row with none (a schedule term). */
void aug_cli_op_shape_json(json_t *o, const struct aug_op_shape *s);
/* The five header cells, then one row's cells (empty where the JSON has null). */
void aug_cli_op_shape_csv_head(struct aug_csv_writer *w);
void aug_cli_op_shape_csv(struct aug_csv_writer *w, const struct aug_op_shape *s);

#endif
