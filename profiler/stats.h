/* SPDX-License-Identifier: Apache-2.0 */
/* stats.h - summary statistics of the repetitions of one measured point.
 *
 * The raw CSV keeps the median (robust to a stray slow repetition: clock ramp, a context
 * switch of the driver thread) together with min and max, so calibrate can see spread. */
#ifndef AUG_PROF_STATS_H
#define AUG_PROF_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

struct aug_prof_stats {
    double median_us, min_us, max_us;
    int n;
};

/* Median (mean of the two middle values for even n), minimum and maximum of the n times.
 * AUG_EDATA (with a message) when n < 1 or any time is not finite and positive: a
 * backend that returns such a time measured nothing, and no number is better than a
 * wrong one. AUG_ENOMEM when the scratch copy cannot be allocated. */
int aug_prof_stats_compute(const double *time_us, int n, struct aug_prof_stats *out);

#ifdef __cplusplus
}
#endif
#endif
