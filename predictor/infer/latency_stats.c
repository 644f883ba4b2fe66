/* SPDX-License-Identifier: Apache-2.0 */
/* latency_stats.c - mean and percentiles of latency samples (augur/serving.h). Percentiles
 * interpolate linearly between the closest ranks, index q/100 * (n - 1): numpy's default
 * `linear` method, which vLLM's benchmark_serving reports (np.percentile). */
#include <stdlib.h>
#include <string.h>

#include "latency_stats.h"

double aug_percentile_sorted(const double *sorted, long n, double q) {
    if (n <= 0)
        return 0.0;
    if (q <= 0)
        return sorted[0];
    if (q >= 100)
        return sorted[n - 1];
    double pos = q / 100.0 * (double)(n - 1);
    long lo = (long)pos;
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = pos - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void aug_latency_stats_fill(double *v, long n, struct aug_latency_stats *out) {
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += v[i];
    out->mean = sum / (double)n;
    out->p50 = aug_percentile_sorted(v, n, 50.0);
    out->p90 = aug_percentile_sorted(v, n, 90.0);
    out->p99 = aug_percentile_sorted(v, n, 99.0);
    out->max = v[n - 1];
}

struct wpair {
    double v, w;
};

static int cmp_pair(const void *a, const void *b) {
    double x = ((const struct wpair *)a)->v, y = ((const struct wpair *)b)->v;
    return (x > y) - (x < y);
}

void aug_latency_stats_weighted(double *v, double *w, long n, struct aug_latency_stats *out) {
    memset(out, 0, sizeof *out);
    struct wpair *pr = n > 0 ? malloc((size_t)n * sizeof *pr) : NULL;
    if (!pr)
        return;
    double total = 0.0, sum = 0.0;
    long k = 0;
    for (long i = 0; i < n; i++)
        if (w[i] > 0) {
            pr[k].v = v[i];
            pr[k].w = w[i];
            total += w[i];
            sum += v[i] * w[i];
            k++;
        }
    if (k == 0 || !(total > 0)) {
        free(pr);
        return;
    }
    qsort(pr, (size_t)k, sizeof *pr, cmp_pair);
    static const double qs[3] = {50.0, 90.0, 99.0};
    double *dst[3] = {&out->p50, &out->p90, &out->p99};
    for (int j = 0; j < 3; j++) {
        double target = qs[j] / 100.0 * total, cum = 0.0;
        *dst[j] = pr[k - 1].v;
        for (long i = 0; i < k; i++) {
            cum += pr[i].w;
            if (cum >= target) {
                *dst[j] = pr[i].v;
                break;
            }
        }
    }
    out->mean = sum / total;
    out->max = pr[k - 1].v;
    out->n = (long)total;
    for (long i = 0; i < k; i++) {
        v[i] = pr[i].v;
        w[i] = pr[i].w;
    }
    free(pr);
}
