/* SPDX-License-Identifier: Apache-2.0 */
/* stats.c - median, minimum and maximum of repetition times (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int aug_prof_stats_compute(const double *time_us, int n, struct aug_prof_stats *out) {
    if (n < 1)
        return aug_errorf(AUG_EDATA, "no repetition was timed");
    for (int i = 0; i < n; i++)
        if (!isfinite(time_us[i]) || !(time_us[i] > 0.0))
            return aug_errorf(AUG_EDATA, "repetition %d has time %g us (not finite and positive)",
                              i + 1, time_us[i]);
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return aug_errorf(AUG_ENOMEM, "out of memory sorting %d times", n);
    memcpy(s, time_us, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    out->n = n;
    out->min_us = s[0];
    out->max_us = s[n - 1];
    out->median_us = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return AUG_OK;
}
