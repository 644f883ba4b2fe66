/* SPDX-License-Identifier: Apache-2.0 */
/* measure.c - warm-up, repetitions and stopping rule of one point (see measure.h). */
#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

double aug_prof_rel_stdev(const double *v, int n) {
    if (n < 2)
        return 0.0;
    double mean = 0.0, ss = 0.0;
    for (int i = 0; i < n; i++)
        mean += v[i];
    mean /= n;
    for (int i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    return mean > 0 ? sqrt(ss / (n - 1)) / mean : INFINITY;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Warm-up: cfg->warmup calls, then (with warmup_s > 0) timed but discarded batches until
 * warmup_s has passed and two successive batch medians agree. */
static int warm_up(const struct aug_prof_loop_ops *ops, const struct aug_prof_run_cfg *cfg,
                   int flush, double *scratch, int batch, int *calls) {
    double t0 = ops->now_s(ops->arg);
    *calls = 0;
    if (cfg->warmup > 0) {
        int rc = ops->warm(ops->arg, cfg->warmup);
        if (rc != AUG_OK)
            return rc;
        *calls += cfg->warmup;
    }
    if (!(cfg->warmup_s > 0))
        return AUG_OK;
    double prev = -1.0;
    for (;;) {
        int rc = ops->timed(ops->arg, batch, flush, scratch);
        if (rc != AUG_OK)
            return rc;
        *calls += batch;
        double med = median_of(scratch, batch);
        double elapsed = ops->now_s(ops->arg) - t0;
        int stable = prev > 0 && fabs(med - prev) <= AUG_PROF_WARM_TOL * prev;
        if ((elapsed >= cfg->warmup_s && stable) ||
            elapsed >= AUG_PROF_WARM_MAX_FACTOR * cfg->warmup_s)
            return AUG_OK;
        prev = med;
    }
}

int aug_prof_measure_loop(const struct aug_prof_loop_ops *ops, const struct aug_prof_run_cfg *cfg,
                          int flush, struct aug_prof_measure *out) {
    int lo = cfg->reps, hi = cfg->max_reps > cfg->reps ? cfg->max_reps : cfg->reps;
    if (lo < 1)
        return aug_errorf(AUG_EUSAGE, "need at least one timed repetition");
    if (hi > out->cap)
        return aug_errorf(AUG_EUNSUPPORTED, "%d repetitions do not fit %d slots", hi, out->cap);
    out->n = 0;
    out->l2_flush = flush != 0;
    /* warm-up batches are as large as the minimum of timed calls, capped to keep the
     * scratch small (the first `lo` slots of out->time_us serve as scratch) */
    int batch = lo < 3 ? 3 : lo;
    if (batch > out->cap)
        batch = out->cap;
    int rc = warm_up(ops, cfg, flush, out->time_us, batch, &out->warmup_calls);
    if (rc != AUG_OK)
        return rc;
    double t0 = ops->now_s(ops->arg);
    int n = 0, step = lo;
    while (n < hi) {
        int k = n + step > hi ? hi - n : step;
        if ((rc = ops->timed(ops->arg, k, flush, out->time_us + n)) != AUG_OK)
            return rc;
        n += k;
        out->n = n;
        out->noise = aug_prof_rel_stdev(out->time_us, n);
        if (cfg->max_noise > 0 && out->noise <= cfg->max_noise)
            break;
        if (cfg->budget_s > 0 && ops->now_s(ops->arg) - t0 >= cfg->budget_s)
            break;
        /* more samples: add as many again as there are (at least the minimum) */
        step = n > lo ? n : lo;
    }
    for (int i = 0; i < n; i++)
        if (!(isfinite(out->time_us[i]) && out->time_us[i] > 0))
            return aug_errorf(AUG_EDATA, "repetition %d took %g us", i + 1, out->time_us[i]);
    return AUG_OK;
}
