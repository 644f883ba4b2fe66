/* SPDX-License-Identifier: Apache-2.0 */
/* latency_stats.h - weighted percentiles (latency_stats.c); the plain ones are public
 * (augur/serving.h). */
#ifndef AUG_INFER_LATENCY_STATS_H
#define AUG_INFER_LATENCY_STATS_H

#include "augur/serving.h"

/* Mean and percentiles of `n` values each standing for `w[i]` samples (inter-token latency:
 * a step's duration once per decode token it emits). Sorts both arrays together; the
 * percentile is the value at which the cumulative weight first reaches q/100 of the total
 * (nearest rank). */
void aug_latency_stats_weighted(double *v, double *w, long n, struct aug_latency_stats *out);

#endif
