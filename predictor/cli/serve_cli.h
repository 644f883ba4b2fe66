/* SPDX-License-Identifier: Apache-2.0 */
/* serve_cli.h - an offline or server simulation as JSON and as a human table. */
#ifndef AUG_SERVE_CLI_H
#define AUG_SERVE_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "augur/augur.h"
#include "augur/serving.h"

/* What the command line asked for, for the record. */
struct aug_serve_run_info {
    const char *requests_source; /* the file, or "generated" */
    const char *input_spec, *output_spec;
    unsigned long long seed;
    const char *kv_dtype_why;    /* NULL: --kv-dtype */
    int max_batch_given, max_tokens_given, kv_fraction_given, arrivals_from_file;
    double step_overhead_us;
};

/* The per-step host overhead a simulation runs with, for the record: the plan's, else the
 * engine's floor for this model, else the default; 0 under --roofline. */
double aug_cli_serve_step_overhead_us(const struct aug_serve_config *cfg, const struct aug_model *m,
                                      const struct aug_infer_plan *p, int roofline);
json_t *aug_cli_serve_json(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_serve_run_info *info,
                           const struct aug_serve_result *r);
void aug_cli_serve_table(FILE *f, const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_serve_run_info *info,
                         const struct aug_serve_result *r);

#endif
