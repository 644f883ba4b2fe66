/* SPDX-License-Identifier: Apache-2.0 */
/* overlap.c - the overlap formulas of overlap.h. Every result is capped by the serial
 * time C + M (a schedule can always fall back to running the two one after the other)
 * and is at least max(C, M) (no overlap is faster than its slowest resource). */
#include "overlap.h"

#include <math.h>

static double clampv(double t, double C, double M) {
    double lo = fmax(C, M), hi = C + M;
    return t < lo ? lo : (t > hi ? hi : t);
}

double aug_ovl_pair(double c, double m, double s) {
    if (!(c > 0) || !(m > 0))
        return fmax(c, 0.0) + fmax(m, 0.0);
    if (s < 0)
        s = 0;
    return clampv(fmax(m, c + m * s / (1.0 + s)), c, m);
}

double aug_ovl_ring(double C, double M, int n, double s) {
    if (n <= 1 || !(C > 0) || !(M > 0))
        return fmax(C, 0.0) + fmax(M, 0.0);
    double c = C / (double)n, m = M / (double)(n - 1);
    return clampv((double)(n - 1) * aug_ovl_pair(c, m, s) + c, C, M);
}

double aug_ovl_trail(double C, double M, double n, double s) {
    if (n <= 1 || !(C > 0) || !(M > 0))
        return fmax(C, 0.0) + fmax(M, 0.0);
    double c = C / n, m = M / n;
    return clampv(c + (n - 1.0) * aug_ovl_pair(c, m, s) + m, C, M);
}
