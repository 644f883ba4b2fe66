/* SPDX-License-Identifier: Apache-2.0 */
/* fit.h - fitting curve forms to samples: grouping, weighted least squares for linear
 * forms (with non-negative coefficients and piecewise splits in log size), Levenberg-
 * Marquardt in log space for the saturating efficiency forms, k-fold cross-validation,
 * and the keep / refuse decision.
 *
 * Errors are relative errors of predicted time: e_i = t_pred / t_meas - 1 (for efficiency
 * forms t_pred / t_meas = eff_meas / eff_pred). rel_rmse = sqrt(mean e_i^2) over the
 * fitted points, max_rel_err = max |e_i|, cv_rel_err = sqrt(mean e_i^2) over held-out
 * points of k deterministic folds (points sorted by size feature, fold = rank mod k, so
 * every fold spans the whole range). A group whose cv_rel_err exceeds the threshold is
 * refused unless forced. */
#ifndef AUG_CAL_FIT_H
#define AUG_CAL_FIT_H

#include <stddef.h>

#include "augur/curve.h"
#include "augur/kdb.h"
#include "augur/system.h"
#include "samples.h"

#define AUG_FIT_DEFAULT_FOLDS 5
#define AUG_FIT_DEFAULT_MAX_CV 0.25   /* refuse curves above 25% cross-validated error */
#define AUG_FIT_DEFAULT_PIECE_TOL 0.03 /* split linear groups while rel_rmse > 3% */
#define AUG_FIT_DEFAULT_MAX_PIECES 8
#define AUG_FIT_DEFAULT_MIN_PIECE 8   /* points per piece at least */
#define AUG_FIT_IRLS_ITERS 6          /* reweighting passes of the linear forms */
#define AUG_FIT_IRLS_FLOOR 0.005      /* relative error below which weights stop growing */

struct aug_fit_opts {
    int folds;
    double max_cv_rel_err;
    int force;
    double piece_tol;
    int max_pieces;
    int min_piece_points;
    const struct aug_gpu *gpu; /* peaks and SM count; NULL: efficiency forms unavailable */
    int adaptive_tiles;        /* 1: the GEMMs were timed with cuBLAS 13 or later, whose
                                  Hopper kernels size their tiles to the shape: gemm_tile
                                  curves of sm_90 take kernel family 6 (hw/gemm_model.c) */
    const char *source;        /* `source` of every curve (NULL: from the samples) */
};

void aug_fit_opts_default(struct aug_fit_opts *o);

/* Quality of one fitted parameter set on a set of points. */
struct aug_fit_stats {
    int n;
    double rel_rmse, max_rel_err, median_abs_err;
    int rank;     /* rank of the last linear solve (linear forms) or LM step */
    double cond;  /* its condition number */
    int iters;    /* LM iterations (0 for linear forms) */
};

/* Relative time error of one prediction against its measurement (see above). */
double aug_fit_rel_err(const struct aug_curve_form *f, double y_pred, double y_meas);

/* Fit form f to n points: y[i] is time in us (time forms) or efficiency (efficiency
 * forms). p holds the fixed parameters on entry (p[n_fit..n_params)) and all of them on
 * return. Linear forms: weighted dgelsd with weights 1/y, reweighted toward the least
 * absolute relative error (AUG_FIT_IRLS_ITERS passes), non-negative coefficients
 * (negative ones are dropped and the rest refitted), a rank-deficient basis loses its
 * last columns. Non-linear: Levenberg-Marquardt on log residuals, steps by dgelsd, then
 * three passes reweighted toward the least absolute log error. */
int aug_fit_form(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                 const double *y, int n, double *p, struct aug_fit_stats *st);

/* The fixed parameters of form f for curves of `dtype` (and `head_dim`, attention) on
 * `gpu`: SMs, tile edges, peaks, L2 and the kernel family (with `adaptive_tiles`, as
 * aug_fit_opts), as calibration sets them before a fit (p zeroed first; the fitted ones
 * keep their starting values). 0 when the form cannot be used for this GPU and dtype. */
int aug_fit_fixed_params(const struct aug_curve_form *f, enum aug_dtype dtype, double head_dim,
                         const struct aug_gpu *gpu, int adaptive_tiles, double *p);

/* Errors of parameters p on the points (median_abs_err too). */
void aug_fit_eval(const struct aug_curve_form *f, const double *p,
                  const struct aug_curve_point *pt, const double *y, int n,
                  struct aug_fit_stats *st);

/* k-fold cross-validated relative RMS error; k is reduced to n when n < k; n < 3 gives
 * the in-sample error. */
int aug_fit_cv(const struct aug_curve_form *f, const struct aug_curve_point *pt,
               const double *y, int n, const double *p_fixed, int folds, double *cv_rel_err);

/* The point and targets of one sample: time in us and, when the GPU's peak is known and
 * the family has FLOPs, the efficiency against that peak (else NaN). */
void aug_fit_sample_point(const struct aug_sample *x, const struct aug_gpu *gpu,
                          struct aug_curve_point *pt, double *t_us, double *eff);

enum aug_fit_verdict { AUG_FIT_KEPT, AUG_FIT_FORCED, AUG_FIT_REFUSED, AUG_FIT_FAILED };
const char *aug_fit_verdict_name(enum aug_fit_verdict v);

struct aug_fit_candidate {
    char form[24];
    double rel_rmse, cv_rel_err;
    int ok;
};

struct aug_fit_group {
    enum aug_family family;
    char op[32];          /* curve op (attention: "<op>" or "<op>_causal") */
    enum aug_dtype dtype;
    int ranks;
    char link[16];
    double head_dim;      /* attention only */
    size_t *idx;          /* samples used (indices into the sample set) */
    int n_idx;
    int n_dropped;        /* samples excluded (efficiency above 1) */
    char form[24];        /* chosen form */
    int first_curve, n_curves;
    double rel_rmse, max_rel_err, cv_rel_err, median_abs_err;
    enum aug_fit_verdict verdict;
    char note[256];
    int n_cand;
    struct aug_fit_candidate cand[4];
};

struct aug_fit_result {
    struct aug_fit_group *groups;
    size_t n_groups;
    struct aug_curve *curves; /* every fitted curve; the group's verdict says if it is kept */
    size_t n_curves;
    char **warnings;
    size_t n_warnings;
};

/* Group the samples (family, op, dtype, ranks, link; attention also causality and head
 * dimension) and fit every group. Returns AUG_OK even when groups are refused (see their
 * verdicts); errors only for bad options or memory. */
int aug_fit_samples(const struct aug_samples *s, const struct aug_fit_opts *o,
                    struct aug_fit_result *out);
void aug_fit_result_free(struct aug_fit_result *r);

/* Is the group's curve set to be written (kept or forced)? */
int aug_fit_group_written(const struct aug_fit_group *g);

#endif
