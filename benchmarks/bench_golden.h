/* SPDX-License-Identifier: Apache-2.0 */
/* bench_golden.h - golden-section search for the one-dimensional fits of the benchmarks
 * (bench_host_dispatch_fit.c, bench_zero3_fit.c): the minimum of a unimodal f on [lo, hi],
 * narrowed until the bracket is shorter than tol, returned as the bracket's middle. */
#ifndef AUG_BENCH_GOLDEN_H
#define AUG_BENCH_GOLDEN_H

#include <math.h>

static double golden_min(double lo, double hi, double tol, double (*f)(double x, void *arg),
                         void *arg) {
    const double phi = 0.5 * (sqrt(5.0) - 1.0);
    double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
    double fa = f(a, arg), fb = f(b, arg);
    while (hi - lo > tol) {
        if (fa <= fb) {
            hi = b;
            b = a;
            fb = fa;
            a = hi - phi * (hi - lo);
            fa = f(a, arg);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + phi * (hi - lo);
            fb = f(b, arg);
        }
    }
    return 0.5 * (lo + hi);
}

#endif
