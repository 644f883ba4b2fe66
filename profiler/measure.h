/* SPDX-License-Identifier: Apache-2.0 */
/* measure.h - the repetition policy of one point, shared by every backend: warm up by time
 * until the times are stable, then timed calls (each after an L2 flush when the point
 * wants one) until the relative spread is small or the point's time budget is spent.
 *
 * The policy is plain C over three callbacks, so the CUDA timer (gpu_timer.c) and the
 * tests' fake devices run the same rules:
 *   warm     n untimed calls, waited for;
 *   timed    n timed calls, their GPU times out (flushing L2 before each when asked);
 *   now_s    a monotonic clock in seconds.
 * What nvbench does (docs/benchmarks.md, "Stopping criteria"): at least a minimum number
 * of samples, then stop when the relative standard deviation ("noise") is below a limit
 * or a timeout passes. Warm-up: nvbench runs one untimed call; GPUs raise their clocks
 * over tens of milliseconds, so here warm-up lasts at least warmup_s and until two
 * successive batches' medians agree within 2%. */
#ifndef AUG_PROF_MEASURE_H
#define AUG_PROF_MEASURE_H

#include "point.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_prof_loop_ops {
    void *arg;
    int (*warm)(void *arg, int n);
    int (*timed)(void *arg, int n, int flush, double *time_us);
    double (*now_s)(void *arg);
};

/* Agreement of two successive warm-up batch medians that ends the warm-up. */
#define AUG_PROF_WARM_TOL 0.02
/* Warm-up never lasts longer than this multiple of warmup_s (a kernel whose time keeps
 * drifting is then measured as it is, and its noise says so). */
#define AUG_PROF_WARM_MAX_FACTOR 20.0

/* Run the policy of cfg for one point, flushing L2 before every timed call when `flush`.
 * Fills out->time_us[0 .. n) (n <= out->cap), n, l2_flush, warmup_calls and noise.
 * Errors of the callbacks are returned. */
int aug_prof_measure_loop(const struct aug_prof_loop_ops *ops, const struct aug_prof_run_cfg *cfg,
                          int flush, struct aug_prof_measure *out);

/* Relative standard deviation of v[0 .. n) (0 for n < 2). */
double aug_prof_rel_stdev(const double *v, int n);

#ifdef __cplusplus
}
#endif
#endif
