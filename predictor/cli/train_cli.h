/* SPDX-License-Identifier: Apache-2.0 */
/* train_cli.h - a training prediction as JSON (the DESIGN section 3 keys) and as a
 * human table that says where every number came from. */
#ifndef AUG_TRAIN_CLI_H
#define AUG_TRAIN_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "augur/augur.h"

json_t *aug_cli_train_json(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_plan *p, const struct aug_train_result *r,
                           const struct aug_kdb *kdb);
/* The "framework" object of the JSON output: the profile's name, the defaults it set
 * (`applied`) and the host issue cost per kernel kind it charges on system `s`. */
json_t *aug_cli_train_framework_json(const struct aug_plan *p, const struct aug_system *s,
                                     const char *applied);
void aug_cli_train_table(FILE *f, const struct aug_model *m, const struct aug_system *s,
                         const struct aug_plan *p, const struct aug_train_result *r,
                         const struct aug_kdb *kdb);
/* A MatMul-free prediction next to the same-size Transformer++ under the same plan. */
void aug_cli_train_compare(FILE *f, const struct aug_model *mmf, const struct aug_train_result *r,
                           const struct aug_model *tpp, const struct aug_train_result *t,
                           const struct aug_plan *p);
/* A plan that does not fit: memory per GPU after each memory-saving change
 * (aug_train_memory_options), as JSON and as the lines under the table's memory block. */
json_t *aug_cli_train_memory_options_json(const struct aug_train_memory_option *o, int n);
void aug_cli_train_memory_options_table(FILE *f, const struct aug_train_memory_option *o,
                                        int n);
/* The iteration op by op (--ops; train_ops_cli.c). */
json_t *aug_cli_train_ops_json(const struct aug_train_op_report *ops, int n);
void aug_cli_train_ops_table(FILE *f, const struct aug_train_result *r,
                             const struct aug_train_op_report *ops, int n);
int aug_cli_train_ops_csv(FILE *f, const struct aug_train_op_report *ops, int n);
/* One-line summary of where predicted time came from, e.g.
 * "calibrated 62.0%, fallback 38.0%, roofline 0.0%". */
void aug_cli_provenance_text(const struct aug_provenance *pv, char *buf, size_t n);

#endif
