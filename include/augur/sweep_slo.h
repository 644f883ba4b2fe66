/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_slo.h - the serving plans of a GPU count ranked by the highest request rate each
 * sustains within p99 TTFT and TPOT targets (`augur sweep infer --slo-ttft-p99 X
 * --slo-tpot-p99 Y`): TP (dividing the heads, inside the NVLink domain), PP (at most the
 * layers), EP (MoE: dividing TP and the experts) and replicas (the rest of the GPUs); each
 * plan's rate comes from aug_serve_max_rate (augur/serving.h). */
#ifndef AUG_SWEEP_SLO_H
#define AUG_SWEEP_SLO_H

#include "augur/serving.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_sweep_slo_config {
    const struct aug_model *model;
    const struct aug_system *system;
    struct aug_infer_plan base;   /* gpus, dtypes, floors */
    long tp, pp, ep;              /* pinned; 0 = open */
    long max_tp, max_pp;          /* 0: the NVLink domain; 8 */
    struct aug_serve_config serve;
    struct aug_serve_slo slo;
    struct aug_infer_options options;
};

struct aug_sweep_slo_entry {
    struct aug_infer_plan plan;
    struct aug_serve_slo_result result;
};

struct aug_sweep_slo_result {
    struct aug_sweep_slo_entry *plans; /* highest rate first (ties: enumeration order) */
    int n;
    int skipped;                        /* plans whose weights leave no KV cache */
};

int aug_sweep_slo(const struct aug_sweep_slo_config *cfg, struct aug_sweep_slo_result *out);
void aug_sweep_slo_result_free(struct aug_sweep_slo_result *r);

#ifdef __cplusplus
}
#endif
#endif
