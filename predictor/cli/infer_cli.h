/* SPDX-License-Identifier: Apache-2.0 */
/* infer_cli.h - a serving prediction as JSON (the DESIGN section 3 infer keys), as a human
 * table that says where every number came from, and the per-op bound analysis. */
#ifndef AUG_INFER_CLI_H
#define AUG_INFER_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "augur/augur.h"
#include "augur/infer.h"
#include "cli.h"

json_t *aug_cli_infer_json(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_infer_result *r,
                           const struct aug_kdb *kdb, int roofline);
void aug_cli_infer_table(FILE *f, const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_result *r,
                         const struct aug_kdb *kdb, int roofline);

/* The result (and, with want_ops, the bound analysis) in the chosen format: the table, one
 * CSV row per op with ops, else the JSON keys (CSV: flattened), with `key`: `extra` added
 * to the JSON when key is not NULL (the reference is stolen). 0 on success. */
int aug_cli_infer_emit(FILE *f, enum aug_format fmt, const struct aug_model *m,
                       const struct aug_system *s, const struct aug_infer_plan *p,
                       const struct aug_infer_result *r, const struct aug_kdb *kdb, int roofline,
                       const struct aug_infer_op_report *ops, int n_ops, int want_ops,
                       const char *key, json_t *extra);
/* Rows enough for the bound analysis of every serving graph (aug_infer_ops). */
#define AUG_CLI_INFER_OPS_MAX 96
/* The bound analysis: a JSON array, a table, or CSV rows. */
json_t *aug_cli_infer_ops_json(const struct aug_infer_op_report *ops, int n);
void aug_cli_infer_ops_table(FILE *f, const struct aug_system *s,
                             const struct aug_infer_op_report *ops, int n);
int aug_cli_infer_ops_csv(FILE *f, const struct aug_infer_op_report *ops, int n);

#endif
