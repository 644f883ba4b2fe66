/* SPDX-License-Identifier: Apache-2.0 */
/* lsq.c - weighted, column-scaled linear least squares with LAPACKE_dgelsd (the SVD
 * driver: robust to rank deficiency, gives the minimum-norm solution and the singular
 * values from which we report rank and condition number). The only LAPACKE user. */
#include "lsq.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

int aug_lsq_solve(int rows, int cols, const double *a, const double *b, const double *w,
                  double *x, struct aug_lsq_info *info)
{
    struct aug_lsq_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (rows < 1 || cols < 1 || cols > AUG_LSQ_MAX_COLS || !a || !b || !x)
        return aug_errorf(AUG_EUSAGE, "least squares: bad dimensions %d x %d", rows, cols);
    if ((double)rows * (double)cols > 1e9)
        return aug_errorf(AUG_EUSAGE, "least squares: %d x %d is too large", rows, cols);
    for (long i = 0; i < (long)rows * cols; i++)
        if (!isfinite(a[i]))
            return aug_errorf(AUG_EDATA, "least squares: non-finite matrix entry at row %ld",
                              i / cols + 1);
    for (int i = 0; i < rows; i++) {
        if (!isfinite(b[i]) || (w && (!isfinite(w[i]) || w[i] < 0)))
            return aug_errorf(AUG_EDATA, "least squares: non-finite value or weight at row %d",
                              i + 1);
    }
    int ldb_rows = rows > cols ? rows : cols;
    double *aw = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    double *bw = calloc((size_t)ldb_rows, sizeof(double));
    double *s = malloc(sizeof(double) * (size_t)(rows < cols ? rows : cols));
    double scale[AUG_LSQ_MAX_COLS];
    if (!aw || !bw || !s) {
        free(aw);
        free(bw);
        free(s);
        return aug_errorf(AUG_ENOMEM, "least squares: out of memory");
    }
    for (int i = 0; i < rows; i++) {
        double wi = w ? w[i] : 1.0;
        for (int j = 0; j < cols; j++)
            aw[(size_t)i * cols + j] = wi * a[(size_t)i * cols + j];
        bw[i] = wi * b[i];
    }
    for (int j = 0; j < cols; j++) {
        double nrm = 0;
        for (int i = 0; i < rows; i++)
            nrm = hypot(nrm, aw[(size_t)i * cols + j]);
        scale[j] = nrm > 0 ? 1.0 / nrm : 0.0; /* a zero column stays zero: x_j = 0 */
        for (int i = 0; i < rows; i++)
            aw[(size_t)i * cols + j] *= scale[j];
    }
    /* keep copies: dgelsd overwrites both, and a near-singular system is solved again */
    double *a0 = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    double *b0 = malloc(sizeof(double) * (size_t)ldb_rows);
    if (!a0 || !b0) {
        free(aw);
        free(bw);
        free(s);
        free(a0);
        free(b0);
        return aug_errorf(AUG_ENOMEM, "least squares: out of memory");
    }
    memcpy(a0, aw, sizeof(double) * (size_t)rows * (size_t)cols);
    memcpy(b0, bw, sizeof(double) * (size_t)ldb_rows);
    lapack_int rank = 0;
    lapack_int rc = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, rows, cols, 1, aw, cols, bw, 1, s, -1.0,
                                   &rank);
    int nsv = rows < cols ? rows : cols;
    if (rc == 0 && nsv > 1 && !(s[nsv - 1] > AUG_LSQ_RCOND_DEFICIENT * s[0])) {
        /* rounding-level singular values make the rcond = -1 answer meaningless: truncate
         * them and return the minimum-norm solution of the well-determined part */
        memcpy(aw, a0, sizeof(double) * (size_t)rows * (size_t)cols);
        memcpy(bw, b0, sizeof(double) * (size_t)ldb_rows);
        double cond_s = s[nsv - 1] > 0 ? s[0] / s[nsv - 1] : INFINITY;
        rc = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, rows, cols, 1, aw, cols, bw, 1, s,
                            AUG_LSQ_RCOND_DEFICIENT, &rank);
        s[nsv - 1] = isfinite(cond_s) ? s[0] / cond_s : 0; /* report the true condition */
    }
    free(a0);
    free(b0);
    int st = AUG_OK;
    if (rc != 0) {
        st = aug_errorf(rc > 0 ? AUG_EFIT : AUG_EUSAGE,
                        "least squares: dgelsd failed (info %d)", (int)rc);
    } else {
        int ns = rows < cols ? rows : cols;
        for (int j = 0; j < cols; j++)
            x[j] = bw[j] * scale[j];
        info->rank = (int)rank;
        info->cond = s[ns - 1] > 0 ? s[0] / s[ns - 1] : INFINITY;
        if (ns < cols)
            info->cond = INFINITY; /* fewer rows than unknowns */
        double rss = 0;
        for (int i = 0; i < rows; i++) {
            double r = -b[i];
            for (int j = 0; j < cols; j++)
                r += a[(size_t)i * cols + j] * x[j];
            r *= w ? w[i] : 1.0;
            rss += r * r;
        }
        info->rss = rss;
    }
    free(aw);
    free(bw);
    free(s);
    return st;
}
