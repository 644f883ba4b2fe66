/* SPDX-License-Identifier: Apache-2.0 */
/* lsq.h - weighted linear least squares through LAPACKE dgelsd (calibrate/lsq.c is the
 * only file that includes lapacke.h).
 *
 * Solves min_x sum_i (w_i (a_i . x - b_i))^2 for a dense row-major rows x cols matrix.
 * Columns are scaled to unit 2-norm before the SVD so that features of wildly different
 * magnitude (bytes next to a constant) do not lose the small ones, and the answer is
 * scaled back. rcond = -1 (machine precision) decides the numerical rank first; a system
 * that is singular to within 1e-12 is solved again with that rcond. */
#ifndef AUG_CAL_LSQ_H
#define AUG_CAL_LSQ_H

#define AUG_LSQ_MAX_COLS 64
/* Scaled systems whose smallest singular value is below this fraction of the largest
 * are solved again with this rcond (minimum-norm solution, rank reported below full). */
#define AUG_LSQ_RCOND_DEFICIENT 1e-12

struct aug_lsq_info {
    int rank;        /* numerical rank found by dgelsd */
    double cond;     /* s_max / s_min of the column-scaled matrix (inf when singular) */
    double rss;      /* weighted residual sum of squares at the solution */
};

/* a: rows x cols row-major, b: rows, w: rows weights or NULL (all 1), x: cols out.
 * Dimensions and finiteness are checked before LAPACKE is called (it would print to
 * stdout otherwise): AUG_EUSAGE for bad dimensions, AUG_EDATA for NaN/inf input,
 * AUG_EFIT when the SVD does not converge. A zero column gives x = 0 for it. */
int aug_lsq_solve(int rows, int cols, const double *a, const double *b, const double *w,
                  double *x, struct aug_lsq_info *info);

#endif
