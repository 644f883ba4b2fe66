/* SPDX-License-Identifier: Apache-2.0 */
/* fit.c - turning samples into curves (fit.h): per-form fitting (weighted dgelsd for
 * linear forms, Levenberg-Marquardt for saturating efficiencies), k-fold cross-
 * validation, piecewise splitting of time curves in log size, grouping of samples, the
 * efficiency-above-1 check and the keep / refuse decision. */
#include "fit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/dtype.h"
#include "augur/progress.h"
#include "augur/status.h"
#include "augur/op.h"
#include "hw/gemm_model.h"
#include "hw/host_time.h"
#include "lsq.h"

/* held-out error ratio within which a physical form beats a purely fitted one */
#define PHYSICAL_PREFERENCE 1.15

void aug_fit_opts_default(struct aug_fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->folds = AUG_FIT_DEFAULT_FOLDS;
    o->max_cv_rel_err = AUG_FIT_DEFAULT_MAX_CV;
    o->piece_tol = AUG_FIT_DEFAULT_PIECE_TOL;
    o->max_pieces = AUG_FIT_DEFAULT_MAX_PIECES;
    o->min_piece_points = AUG_FIT_DEFAULT_MIN_PIECE;
}

const char *aug_fit_verdict_name(enum aug_fit_verdict v)
{
    static const char *const names[] = {"kept", "forced", "refused", "failed"};
    return (int)v >= 0 && v <= AUG_FIT_FAILED ? names[v] : "?";
}

int aug_fit_group_written(const struct aug_fit_group *g)
{
    return g->verdict == AUG_FIT_KEPT || g->verdict == AUG_FIT_FORCED;
}

double aug_fit_rel_err(const struct aug_curve_form *f, double y_pred, double y_meas)
{
    if (f->output == AUG_CURVE_TIME)
        return y_pred / y_meas - 1.0;
    return y_meas / y_pred - 1.0;
}

/* Value with the same clamps the lookups apply (no range policy: fitting is in range). */
static double predict(const struct aug_curve_form *f, const double *p,
                      const struct aug_curve_point *pt)
{
    double v = f->eval(p, pt);
    if (f->output == AUG_CURVE_EFF) {
        if (!(v >= AUG_CURVE_EFF_MIN))
            v = AUG_CURVE_EFF_MIN;
        if (v > 1.0)
            v = 1.0;
    } else if (!(v > 1e-3)) {
        v = 1e-3;
    }
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void aug_fit_eval(const struct aug_curve_form *f, const double *p,
                  const struct aug_curve_point *pt, const double *y, int n,
                  struct aug_fit_stats *st)
{
    double ss = 0, mx = 0;
    double *abs_e = n > 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
    for (int i = 0; i < n; i++) {
        double e = aug_fit_rel_err(f, predict(f, p, &pt[i]), y[i]);
        ss += e * e;
        if (fabs(e) > mx)
            mx = fabs(e);
        if (abs_e)
            abs_e[i] = fabs(e);
    }
    st->n = n;
    st->rel_rmse = n > 0 ? sqrt(ss / n) : 0;
    st->max_rel_err = mx;
    st->median_abs_err = 0;
    if (abs_e) {
        qsort(abs_e, (size_t)n, sizeof(double), cmp_double);
        st->median_abs_err = n % 2 ? abs_e[n / 2] : 0.5 * (abs_e[n / 2 - 1] + abs_e[n / 2]);
        free(abs_e);
    }
}

/* ---- linear forms ---- */

static int fit_linear_once(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                           const double *y, const double *rw, int n, double *p,
                           struct aug_fit_stats *st);

/* Linear forms: weighted least squares on relative error, then iteratively reweighted
 * (weights 1 / sqrt(max(|e_i|, AUG_FIT_IRLS_FLOOR))) toward the least absolute relative
 * error, which follows the bulk of noisy measurements rather than their outliers.
 * Regime forms also alternate basis (which depends on p) and solve until both settle. */
static int fit_linear(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                      const double *y, int n, double *p, struct aug_fit_stats *st)
{
    double *rw = malloc(sizeof(double) * (size_t)n);
    if (!rw)
        return aug_errorf(AUG_ENOMEM, "fit: out of memory");
    for (int i = 0; i < n; i++)
        rw[i] = 1.0;
    if (f->init)
        f->init(p);
    double prev[AUG_CURVE_MAX_PARAMS];
    int rc = AUG_OK, it;
    int max_it = f->init ? 30 : AUG_FIT_IRLS_ITERS;
    for (it = 0; it < max_it; it++) {
        memcpy(prev, p, sizeof prev);
        double trial[AUG_CURVE_MAX_PARAMS];
        memcpy(trial, p, sizeof trial);
        rc = fit_linear_once(f, pt, y, rw, n, trial, NULL);
        if (rc != AUG_OK)
            break;
        memcpy(p, trial, sizeof trial);
        double change = 0;
        for (int j = 0; j < f->n_fit; j++) {
            double d = fabs(p[j] - prev[j]) / (fabs(prev[j]) + 1e-300);
            if (d > change)
                change = d;
        }
        if (it > 0 && change < 1e-6)
            break;
        if (it + 1 >= AUG_FIT_IRLS_ITERS && !f->init)
            break;
        for (int i = 0; i < n; i++) {
            double e = fabs(aug_fit_rel_err(f, predict(f, p, &pt[i]), y[i]));
            rw[i] = 1.0 / sqrt(e > AUG_FIT_IRLS_FLOOR ? e : AUG_FIT_IRLS_FLOOR);
        }
    }
    free(rw);
    if (rc != AUG_OK)
        return rc;
    if (st) {
        aug_fit_eval(f, p, pt, y, n, st);
        st->iters = it;
    }
    return rc;
}

static int fit_linear_once(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                           const double *y, const double *rw, int n, double *p,
                           struct aug_fit_stats *st)
{
    int nf = f->n_fit;
    int active[AUG_CURVE_MAX_PARAMS];
    int used[AUG_CURVE_MAX_PARAMS] = {0};
    for (int i = 0; i < n; i++) { /* columns that are zero everywhere carry nothing */
        double row[AUG_CURVE_MAX_PARAMS];
        f->basis(p, &pt[i], row);
        for (int j = 0; j < nf; j++)
            used[j] |= row[j] != 0;
    }
    int na = 0;
    for (int j = 0; j < nf; j++)
        if (used[j])
            active[na++] = j;
    double *a = malloc(sizeof(double) * (size_t)n * (size_t)nf);
    double *b = malloc(sizeof(double) * (size_t)n);
    double *w = malloc(sizeof(double) * (size_t)n);
    if (!a || !b || !w) {
        free(a);
        free(b);
        free(w);
        return aug_errorf(AUG_ENOMEM, "fit: out of memory");
    }
    int rc = AUG_OK;
    double x[AUG_CURVE_MAX_PARAMS];
    struct aug_lsq_info info = {0, 0, 0};
    while (na > 0) {
        for (int i = 0; i < n; i++) {
            double row[AUG_CURVE_MAX_PARAMS];
            f->basis(p, &pt[i], row);
            for (int j = 0; j < na; j++)
                a[(size_t)i * na + j] = row[active[j]];
            b[i] = y[i];
            w[i] = rw[i] / y[i]; /* relative error, robust reweighting */
        }
        rc = aug_lsq_solve(n, na, a, b, w, x, &info);
        if (rc != AUG_OK)
            break;
        int drop = -1;
        if (info.rank < na || info.cond > 1e12) {
            drop = na - 1; /* rank-deficient: keep the leading (lower-order) terms */
        } else {
            double most = 0;
            for (int j = 0; j < na; j++)
                if (x[j] < most) {
                    most = x[j];
                    drop = j;
                }
        }
        if (drop < 0)
            break;
        for (int j = drop; j + 1 < na; j++)
            active[j] = active[j + 1];
        na--;
    }
    for (int j = 0; j < nf; j++)
        p[j] = 0;
    for (int j = 0; j < na && rc == AUG_OK; j++)
        p[active[j]] = x[j];
    free(a);
    free(b);
    free(w);
    if (rc != AUG_OK)
        return rc;
    if (na == 0)
        return aug_errorf(AUG_EFIT, "fit: no usable coefficient for form '%s'", f->name);
    if (st) {
        aug_fit_eval(f, p, pt, y, n, st);
        st->rank = info.rank;
        st->cond = info.cond;
        st->iters = 0;
    }
    return AUG_OK;
}

/* ---- non-linear forms: Levenberg-Marquardt on log residuals ---- */

static void clamp_params(const struct aug_curve_form *f, double *p)
{
    if (f->init) { /* forms with their own start (gemm_tile): positive physical parameters */
        for (int j = 0; j < f->n_fit; j++)
            if (!(p[j] > 1e-6))
                p[j] = 1e-6;
        /* gemm_tile's rate p1 runs at most at the peak p7 (its evaluation caps it there, so
         * the fit could drift above it, and the loader refuses such a row) */
        if (strcmp(f->name, "gemm_tile") == 0 && p[7] > 0 && p[1] > p[7])
            p[1] = p[7];
        return;
    }
    /* every saturating form: p0 e_max, p1 log10 of the half point, p2 steepness */
    if (p[0] < 1e-4)
        p[0] = 1e-4;
    if (p[0] > 2.0)
        p[0] = 2.0;
    if (p[1] < -3)
        p[1] = -3;
    if (p[1] > 30)
        p[1] = 30;
    if (p[2] < 0.05)
        p[2] = 0.05;
    if (p[2] > 8)
        p[2] = 8;
}

/* Sum of squared log residuals, each times its weight rw[i] (NULL: 1). */
static double log_cost(const struct aug_curve_form *f, const double *p,
                       const struct aug_curve_point *pt, const double *ly, const double *rw,
                       int n)
{
    double c = 0;
    for (int i = 0; i < n; i++) {
        double r = f->log_grad(p, &pt[i], NULL) - ly[i];
        c += (rw ? rw[i] : 1.0) * r * r;
    }
    return c;
}

/* Levenberg-Marquardt on the log residuals, row i weighted by rw[i] (NULL: 1), at most
 * max_it steps. */
static int lm_run(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                  const double *ly, const double *rw, int n, int max_it, double *p, int *iters,
                  struct aug_lsq_info *last)
{
    int nf = f->n_fit;
    int rows = n + nf;
    double *a = malloc(sizeof(double) * (size_t)rows * (size_t)nf);
    double *b = malloc(sizeof(double) * (size_t)rows);
    if (!a || !b) {
        free(a);
        free(b);
        return aug_errorf(AUG_ENOMEM, "fit: out of memory");
    }
    double lambda = 1e-3;
    double cost = log_cost(f, p, pt, ly, rw, n);
    int it;
    int rc = AUG_OK;
    for (it = 0; it < max_it; it++) {
        double diag[AUG_CURVE_MAX_PARAMS] = {0};
        for (int i = 0; i < n; i++) {
            double g[AUG_CURVE_MAX_PARAMS];
            double r = f->log_grad(p, &pt[i], g) - ly[i];
            double sw = rw ? sqrt(rw[i]) : 1.0;
            for (int j = 0; j < nf; j++) {
                a[(size_t)i * nf + j] = sw * g[j];
                diag[j] += rw ? rw[i] * g[j] * g[j] : g[j] * g[j];
            }
            b[i] = -sw * r;
        }
        double trial[AUG_CURVE_MAX_PARAMS];
        double new_cost = cost;
        int accepted = 0;
        for (int tries = 0; tries < 12 && !accepted; tries++) {
            for (int j = 0; j < nf; j++) {
                for (int c = 0; c < nf; c++)
                    a[(size_t)(n + j) * nf + c] = 0;
                a[(size_t)(n + j) * nf + j] = sqrt(lambda * (diag[j] > 1e-30 ? diag[j] : 1e-30));
                b[n + j] = 0;
            }
            double d[AUG_CURVE_MAX_PARAMS];
            rc = aug_lsq_solve(rows, nf, a, b, NULL, d, last);
            if (rc != AUG_OK)
                goto out;
            memcpy(trial, p, sizeof(double) * (size_t)f->n_params);
            for (int j = 0; j < nf; j++)
                trial[j] += d[j];
            clamp_params(f, trial);
            new_cost = log_cost(f, trial, pt, ly, rw, n);
            if (new_cost < cost) {
                accepted = 1;
                lambda = lambda / 3 > 1e-12 ? lambda / 3 : 1e-12;
            } else {
                lambda *= 4;
            }
        }
        if (!accepted)
            break;
        double gain = cost - new_cost;
        memcpy(p, trial, sizeof(double) * (size_t)f->n_params);
        cost = new_cost;
        if (gain < 1e-12 * (cost + 1e-30))
            break;
    }
out:
    *iters = it;
    free(a);
    free(b);
    return rc;
}

/* From the least-squares fit p, LM_IRLS_PASSES passes reweighted toward the least
 * absolute log error (weights 1 / max(|r_i|, AUG_FIT_IRLS_FLOOR)), as the linear forms
 * are: the fit follows the bulk of noisy measurements (Vidur's sweeps hold points 2-3x
 * off their neighbours) rather than their outliers. Each pass starts at the previous
 * optimum and takes at most LM_IRLS_STEPS steps, which keeps a refit of the seeded tables
 * within about twice its unweighted time. */
#define LM_IRLS_PASSES 3
#define LM_IRLS_STEPS 25
#define LM_STEPS 200
static int lm_irls(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                   const double *ly, int n, double *p, int *iters, struct aug_lsq_info *last)
{
    double *rw = malloc(sizeof(double) * (size_t)n);
    if (!rw)
        return aug_errorf(AUG_ENOMEM, "fit: out of memory");
    int rc = AUG_OK;
    for (int pass = 0; pass < LM_IRLS_PASSES && rc == AUG_OK; pass++) {
        for (int i = 0; i < n; i++) {
            double r = fabs(f->log_grad(p, &pt[i], NULL) - ly[i]);
            rw[i] = 1.0 / (r > AUG_FIT_IRLS_FLOOR ? r : AUG_FIT_IRLS_FLOOR);
        }
        int it = 0;
        rc = lm_run(f, pt, ly, rw, n, LM_IRLS_STEPS, p, &it, last);
        *iters += it;
    }
    free(rw);
    return rc;
}

static int fit_nonlinear(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                         const double *y, int n, double *p, struct aug_fit_stats *st)
{
    if (n < f->n_fit)
        return aug_errorf(AUG_EFIT, "fit: %d points for %d parameters of '%s'", n, f->n_fit,
                          f->name);
    double *ly = malloc(sizeof(double) * (size_t)n);
    double *lx = malloc(sizeof(double) * (size_t)n);
    if (!ly || !lx) {
        free(ly);
        free(lx);
        return aug_errorf(AUG_ENOMEM, "fit: out of memory");
    }
    double ceiling = 0;
    for (int i = 0; i < n; i++) {
        ly[i] = log(y[i]);
        lx[i] = log10(pt[i].x > 0 ? pt[i].x : 1);
        if (f->init)
            continue;
        /* the largest efficiency seen, with the shape factor of the form divided out */
        double unit[AUG_CURVE_MAX_PARAMS];
        memcpy(unit, p, sizeof unit);
        unit[0] = 1;
        unit[1] = -3;
        unit[2] = 8; /* saturated: value = shape factor only */
        double shape = f->eval(unit, &pt[i]);
        double e = shape > 0 ? y[i] / shape : y[i];
        if (e > ceiling)
            ceiling = e;
    }
    qsort(lx, (size_t)n, sizeof(double), cmp_double);
    double best[AUG_CURVE_MAX_PARAMS];
    double best_cost = INFINITY;
    int best_iters = 0;
    struct aug_lsq_info last = {0, 0, 0}, best_info = {0, 0, 0};
    int rc = AUG_OK;
    if (f->init) { /* a physical form: one start from its own initial values */
        f->init(p);
        clamp_params(f, p);
        int iters = 0;
        rc = lm_run(f, pt, ly, NULL, n, LM_STEPS, p, &iters, &last);
        if (rc == AUG_OK)
            rc = lm_irls(f, pt, ly, n, p, &iters, &last);
        if (rc == AUG_OK && st) {
            aug_fit_eval(f, p, pt, y, n, st);
            st->rank = last.rank;
            st->cond = last.cond;
            st->iters = iters;
        }
        goto out;
    }
    static const double q[] = {0.25, 0.5, 0.75};
    static const double steep[] = {0.7, 1.5};
    for (size_t qi = 0; qi < sizeof q / sizeof q[0]; qi++) {
        for (size_t si = 0; si < sizeof steep / sizeof steep[0]; si++) {
            double t[AUG_CURVE_MAX_PARAMS];
            memcpy(t, p, sizeof t);
            t[0] = ceiling * 1.05;
            t[1] = lx[(int)(q[qi] * (n - 1))];
            t[2] = steep[si];
            clamp_params(f, t);
            int iters = 0;
            rc = lm_run(f, pt, ly, NULL, n, LM_STEPS, t, &iters, &last);
            if (rc != AUG_OK)
                goto out;
            double c = log_cost(f, t, pt, ly, NULL, n);
            if (c < best_cost) {
                best_cost = c;
                memcpy(best, t, sizeof best);
                best_iters = iters;
                best_info = last;
            }
        }
    }
    memcpy(p, best, sizeof(double) * (size_t)f->n_params);
    if ((rc = lm_irls(f, pt, ly, n, p, &best_iters, &best_info)) != AUG_OK)
        goto out;
    if (st) {
        aug_fit_eval(f, p, pt, y, n, st);
        st->rank = best_info.rank;
        st->cond = best_info.cond;
        st->iters = best_iters;
    }
out:
    free(ly);
    free(lx);
    return rc;
}

int aug_fit_form(const struct aug_curve_form *f, const struct aug_curve_point *pt,
                 const double *y, int n, double *p, struct aug_fit_stats *st)
{
    if (!f || n < 1 || !pt || !y || !p)
        return aug_errorf(AUG_EUSAGE, "fit: nothing to fit");
    for (int i = 0; i < n; i++)
        if (!(y[i] > 0) || !isfinite(y[i]))
            return aug_errorf(AUG_EDATA, "fit: point %d has target %g (must be positive)",
                              i + 1, y[i]);
    if (f->linear)
        return fit_linear(f, pt, y, n, p, st);
    return fit_nonlinear(f, pt, y, n, p, st);
}

/* ---- cross-validation ---- */

struct order_item {
    double x;
    int i;
};

static int cmp_order(const void *a, const void *b)
{
    const struct order_item *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->i - q->i;
}

int aug_fit_cv(const struct aug_curve_form *f, const struct aug_curve_point *pt,
               const double *y, int n, const double *p_fixed, int folds, double *cv_rel_err)
{
    double p[AUG_CURVE_MAX_PARAMS];
    if (n < 3) {
        struct aug_fit_stats st;
        memcpy(p, p_fixed, sizeof p);
        int rc = aug_fit_form(f, pt, y, n, p, &st);
        *cv_rel_err = rc == AUG_OK ? st.rel_rmse : INFINITY;
        return rc;
    }
    int k = folds < 2 ? 2 : folds;
    if (k > n)
        k = n;
    struct order_item *ord = malloc(sizeof *ord * (size_t)n);
    int *fold = malloc(sizeof(int) * (size_t)n);
    struct aug_curve_point *tp = malloc(sizeof *tp * (size_t)n);
    double *ty = malloc(sizeof(double) * (size_t)n);
    if (!ord || !fold || !tp || !ty) {
        free(ord);
        free(fold);
        free(tp);
        free(ty);
        return aug_errorf(AUG_ENOMEM, "fit: out of memory");
    }
    for (int i = 0; i < n; i++) {
        ord[i].x = pt[i].x;
        ord[i].i = i;
    }
    qsort(ord, (size_t)n, sizeof *ord, cmp_order);
    for (int r = 0; r < n; r++)
        fold[ord[r].i] = r % k;
    double ss = 0;
    int cnt = 0, rc = AUG_OK;
    for (int fo = 0; fo < k && rc == AUG_OK; fo++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (fold[i] != fo) {
                tp[m] = pt[i];
                ty[m] = y[i];
                m++;
            }
        memcpy(p, p_fixed, sizeof p);
        rc = aug_fit_form(f, tp, ty, m, p, NULL);
        if (rc != AUG_OK)
            break;
        for (int i = 0; i < n; i++)
            if (fold[i] == fo) {
                double e = aug_fit_rel_err(f, predict(f, p, &pt[i]), y[i]);
                ss += e * e;
                cnt++;
            }
    }
    *cv_rel_err = cnt > 0 ? sqrt(ss / cnt) : INFINITY;
    free(ord);
    free(fold);
    free(tp);
    free(ty);
    return rc;
}

/* ---- samples to points ---- */

static int is_backward(const char *op)
{
    return strstr(op, "bwd") != NULL || strstr(op, "backward") != NULL;
}

void aug_fit_sample_point(const struct aug_sample *x, const struct aug_gpu *gpu,
                          struct aug_curve_point *pt, double *t_us, double *eff)
{
    double peak = gpu ? gpu->peak_tflops[x->dtype] : 0;
    *t_us = x->time_us;
    *eff = NAN;
    /* host-timed kernels (host_event: CUDA events around one framework call; wall: a
     * synchronised wall clock): the host view is pre + max(kernel, post)
     * (predictor/hw/host_time.c); the kernel time is t - pre, and a time within pre + post
     * hides the kernel: NaN, left out by the caller. cuda_event (events around the launch
     * itself, the profiler without CUPTI) is kernel time. */
    if (x->family != AUG_FAMILY_COLLECTIVE &&
        (strcmp(x->timing, "host_event") == 0 || strcmp(x->timing, "wall") == 0)) {
        struct aug_op op;
        memset(&op, 0, sizeof op);
        op.kind = x->family == AUG_FAMILY_GEMM        ? AUG_OP_GEMM
                  : x->family == AUG_FAMILY_ATTENTION ? AUG_OP_ATTENTION
                                                      : AUG_OP_MEMORY;
        op.mem_op = x->op;
        op.batch = x->batch; /* torch.bmm has its own host overhead */
        double pre, post;
        aug_host_overhead_us(&op, &pre, &post);
        double k = x->time_us - pre;
        *t_us = k > post ? k : NAN;
    }
    switch (x->family) {
    case AUG_FAMILY_GEMM:
        *pt = aug_curve_gemm_batched_point(x->batch > 0 ? x->batch : 1, x->m, x->n, x->k,
                                           aug_dtype_bytes(x->dtype));
        break;
    case AUG_FAMILY_ATTENTION:
        *pt = aug_curve_attention_point(x->batch * x->heads, x->seq_q, x->seq_kv, x->head_dim,
                                        x->causal, is_backward(x->op));
        break;
    default:
        *pt = aug_curve_size_point(x->size_bytes);
        if (x->family == AUG_FAMILY_MEMORY && gpu && gpu->hbm_gbps > 0)
            *eff = x->size_bytes / (*t_us * 1e-6) / (gpu->hbm_gbps * 1e9);
        return;
    }
    if (peak > 0)
        *eff = pt->flops / (*t_us * 1e-6 * peak * 1e12);
}

/* ---- grouping ---- */

struct gkey {
    enum aug_family family;
    char op[32];
    enum aug_dtype dtype;
    int ranks;
    char link[16];
    double head_dim;
};

static void sample_key(const struct aug_sample *x, struct gkey *k)
{
    memset(k, 0, sizeof *k);
    k->family = x->family;
    k->dtype = x->dtype;
    switch (x->family) {
    case AUG_FAMILY_GEMM: /* "gemm", or the fp8 split-accumulator kernel kept apart */
        snprintf(k->op, sizeof k->op, "%s", aug_gemm_curve_op(x->op));
        break;
    case AUG_FAMILY_ATTENTION:
        /* the whole name, kept apart by kind (decode, causal): aug_samples_add refused
         * names whose curve name does not fit, so nothing is truncated into another */
        if (aug_attn_curve_op(x->op, x->seq_q, x->causal, k->op, sizeof k->op) != AUG_OK)
            snprintf(k->op, sizeof k->op, "?");
        k->head_dim = x->head_dim;
        break;
    case AUG_FAMILY_COLLECTIVE:
        snprintf(k->op, sizeof k->op, "%s", x->op);
        k->ranks = x->ranks;
        snprintf(k->link, sizeof k->link, "%s", aug_sample_link(x));
        break;
    default:
        snprintf(k->op, sizeof k->op, "%s", x->op);
        break;
    }
}

static int key_eq(const struct gkey *a, const struct aug_fit_group *g)
{
    return a->family == g->family && a->dtype == g->dtype && a->ranks == g->ranks &&
           a->head_dim == g->head_dim && strcmp(a->op, g->op) == 0 &&
           strcmp(a->link, g->link) == 0;
}

static int add_warning(struct aug_fit_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int add_warning(struct aug_fit_result *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nv = realloc(r->warnings, (r->n_warnings + 1) * sizeof *nv);
    if (!nv)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    r->warnings = nv;
    nv[r->n_warnings] = malloc(strlen(buf) + 1);
    if (!nv[r->n_warnings])
        return aug_errorf(AUG_ENOMEM, "out of memory");
    memcpy(nv[r->n_warnings++], buf, strlen(buf) + 1);
    return AUG_OK;
}

static int push_curve(struct aug_fit_result *r, const struct aug_curve *c)
{
    struct aug_curve *nv = realloc(r->curves, (r->n_curves + 1) * sizeof *nv);
    if (!nv)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    r->curves = nv;
    nv[r->n_curves++] = *c;
    return AUG_OK;
}

/* ---- fitting one group ---- */

struct gdata {
    struct aug_curve_point *pt; /* sorted by x */
    double *t;                  /* time in us */
    double *e;                  /* efficiency (NaN when unknown) */
    int n;
};

static void curve_head(struct aug_curve *c, const struct aug_fit_group *g,
                       const struct aug_curve_form *f, const char *source)
{
    memset(c, 0, sizeof *c);
    c->family = g->family;
    snprintf(c->op, sizeof c->op, "%s", g->op);
    c->dtype = g->dtype;
    c->ranks = g->ranks;
    snprintf(c->link, sizeof c->link, "%s", g->link);
    snprintf(c->form, sizeof c->form, "%s", f->name);
    c->n_params = f->n_params;
    snprintf(c->source, sizeof c->source, "%s", source);
}

int aug_fit_fixed_params(const struct aug_curve_form *f, enum aug_dtype dtype, double head_dim,
                         const struct aug_gpu *gpu, int adaptive_tiles, double *p)
{
    memset(p, 0, sizeof(double) * AUG_CURVE_MAX_PARAMS);
    if (strcmp(f->name, "gemm_roof") == 0) {
        if (!gpu || gpu->sm_count < 1 || !(gpu->peak_tflops[dtype] > 0))
            return 0;
        p[5] = gpu->sm_count;
        p[6] = AUG_CURVE_GEMM_TILE_M;
        p[7] = gpu->peak_tflops[dtype];
        return 1;
    }
    if (strcmp(f->name, "gemm_tile") == 0) {
        if (!gpu || gpu->sm_count < 1 || !(gpu->peak_tflops[dtype] > 0))
            return 0;
        struct aug_gemm_ceiling c;
        if (!aug_gemm_ceiling_of(gpu, dtype, &c))
            return 0;
        p[2] = c.hbm_gbps; /* starting value of the fitted HBM bandwidth */
        p[3] = gpu->sm_count;
        p[4] = gpu->l2_mib;
        p[5] = c.l2_gbps;
        c.adaptive_tiles = adaptive_tiles;
        p[6] = aug_gemm_tile_family(&c); /* hw/curve.c gemm_tile */
        p[7] = gpu->peak_tflops[dtype];
        return 1;
    }
    if (strcmp(f->name, "gemm_sat") == 0 || strcmp(f->name, "gemm_time") == 0) {
        if (!gpu || gpu->sm_count < 1 || !(gpu->peak_tflops[dtype] > 0))
            return 0;
        p[3] = gpu->sm_count;
        p[4] = AUG_CURVE_GEMM_TILE_M;
        p[5] = AUG_CURVE_GEMM_TILE_N;
        if (f->n_params > 6)
            p[6] = gpu->peak_tflops[dtype];
        return 1;
    }
    if (strcmp(f->name, "attn_sat") == 0) {
        if (!gpu || !(gpu->peak_tflops[dtype] > 0))
            return 0;
        p[3] = head_dim;
        return 1;
    }
    return 1;
}

/* Fixed parameters of a form for this group; 0 when the form cannot be used. */
static int fixed_params(const struct aug_curve_form *f, const struct aug_fit_group *g,
                        const struct aug_fit_opts *o, double *p)
{
    return aug_fit_fixed_params(f, g->dtype, g->head_dim, o->gpu, o->adaptive_tiles, p);
}

/* Piecewise linear: split [lo, hi) of the sorted points while the fit is worse than tol. */
struct piece {
    int lo, hi;
};

static double piece_sse(const struct aug_curve_form *f, const struct gdata *d, int lo, int hi,
                        const double *pfix)
{
    double p[AUG_CURVE_MAX_PARAMS];
    struct aug_fit_stats st;
    memcpy(p, pfix, sizeof p);
    if (aug_fit_form(f, d->pt + lo, d->t + lo, hi - lo, p, &st) != AUG_OK)
        return INFINITY;
    return st.rel_rmse * st.rel_rmse * (hi - lo);
}

static int split_pieces(const struct aug_curve_form *f, const struct gdata *d, int lo, int hi,
                        const struct aug_fit_opts *o, const double *pfix, struct piece *out,
                        int *n_out)
{
    double whole = piece_sse(f, d, lo, hi, pfix);
    int n = hi - lo;
    int minp = o->min_piece_points > 2 ? o->min_piece_points : 2;
    if (*n_out + 1 >= o->max_pieces || n < 2 * minp || !(whole > 0) ||
        sqrt(whole / n) <= o->piece_tol) {
        out[(*n_out)++] = (struct piece){lo, hi};
        return AUG_OK;
    }
    /* candidate breaks: distinct sizes, up to 32 tried, evenly spread in log size */
    int best = -1;
    double best_sse = whole;
    double lx0 = log(d->pt[lo + minp].x), lx1 = log(d->pt[hi - minp].x);
    int tried = 0;
    int last = -1;
    for (int c = 1; c <= 31; c++) {
        double target = lx0 + (lx1 - lx0) * c / 32.0;
        int b = lo + minp;
        while (b < hi - minp && log(d->pt[b].x) < target)
            b++;
        while (b < hi - minp && d->pt[b].x == d->pt[b - 1].x)
            b++;
        if (b <= last || b >= hi - minp + 1 || b - lo < minp || hi - b < minp)
            continue;
        if (d->pt[b].x == d->pt[b - 1].x)
            continue;
        last = b;
        tried++;
        double s = piece_sse(f, d, lo, b, pfix) + piece_sse(f, d, b, hi, pfix);
        if (s < best_sse) {
            best_sse = s;
            best = b;
        }
    }
    if (best >= 0) { /* refine around the best coarse break, one point at a time */
        int win = (hi - lo) / 16 + 2;
        int b0 = best - win > lo + minp ? best - win : lo + minp;
        int b1 = best + win < hi - minp ? best + win : hi - minp;
        for (int b = b0; b <= b1; b++) {
            if (b == best || d->pt[b].x == d->pt[b - 1].x)
                continue;
            double s = piece_sse(f, d, lo, b, pfix) + piece_sse(f, d, b, hi, pfix);
            if (s < best_sse) {
                best_sse = s;
                best = b;
            }
        }
    }
    if (best < 0 || best_sse > 0.7 * whole || !tried) {
        out[(*n_out)++] = (struct piece){lo, hi};
        return AUG_OK;
    }
    int rc = split_pieces(f, d, lo, best, o, pfix, out, n_out);
    if (rc != AUG_OK)
        return rc;
    if (*n_out >= o->max_pieces) { /* no room left: the right part stays one piece */
        out[(*n_out)++] = (struct piece){best, hi};
        return AUG_OK;
    }
    return split_pieces(f, d, best, hi, o, pfix, out, n_out);
}

static const char *group_source(const struct aug_samples *s, const struct aug_fit_group *g,
                                char *buf, size_t cap)
{
    if (g->n_idx == 0)
        return "";
    int first = s->v[g->idx[0]].source;
    int others = 0;
    int seen_other = -1;
    for (int i = 1; i < g->n_idx; i++) {
        int src = s->v[g->idx[i]].source;
        if (src != first && src != seen_other) {
            others++;
            seen_other = src;
        }
    }
    const char *txt = first >= 0 && (size_t)first < s->n_sources ? s->sources[first] : "";
    if (others == 0)
        snprintf(buf, cap, "%s", txt);
    else
        snprintf(buf, cap, "%.90s (and other sources)", txt);
    return buf;
}

/* Fit a time form piecewise; pushes the pieces, fills the group's errors. */
static int fit_time_group(const struct aug_curve_form *f, const struct gdata *d,
                          struct aug_fit_group *g, const struct aug_fit_opts *o,
                          const char *source, struct aug_fit_result *r, double *cv_out)
{
    double pfix[AUG_CURVE_MAX_PARAMS];
    fixed_params(f, g, o, pfix);
    int maxp = o->max_pieces > 0 ? o->max_pieces : 1;
    struct piece *pc = calloc((size_t)maxp + 1, sizeof *pc);
    if (!pc)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    int np = 0;
    int rc;
    if (f->n_fit == 2 && f->eval && strcmp(f->name, "linear") == 0)
        rc = split_pieces(f, d, 0, d->n, o, pfix, pc, &np);
    else {
        pc[np++] = (struct piece){0, d->n};
        rc = AUG_OK;
    }
    double ss = 0, ss_cv = 0, mx = 0;
    double *abs_e = malloc(sizeof(double) * (size_t)d->n);
    int cnt = 0;
    g->first_curve = (int)r->n_curves;
    g->n_curves = 0;
    for (int i = 0; i < np && rc == AUG_OK; i++) {
        int lo = pc[i].lo, n = pc[i].hi - pc[i].lo;
        struct aug_curve c;
        struct aug_fit_stats st;
        curve_head(&c, g, f, source);
        memcpy(c.p, pfix, sizeof c.p);
        rc = aug_fit_form(f, d->pt + lo, d->t + lo, n, c.p, &st);
        if (rc != AUG_OK)
            break;
        double cv;
        rc = aug_fit_cv(f, d->pt + lo, d->t + lo, n, pfix, o->folds, &cv);
        if (rc != AUG_OK)
            break;
        c.x_min = d->pt[lo].x;
        c.x_max = d->pt[lo + n - 1].x;
        c.n_points = n;
        c.rel_rmse = st.rel_rmse;
        c.max_rel_err = st.max_rel_err;
        c.cv_rel_err = cv;
        for (int j = 0; j < n && abs_e; j++)
            abs_e[cnt + j] = fabs(aug_fit_rel_err(f, predict(f, c.p, &d->pt[lo + j]), d->t[lo + j]));
        cnt += n;
        ss += st.rel_rmse * st.rel_rmse * n;
        ss_cv += cv * cv * n;
        if (st.max_rel_err > mx)
            mx = st.max_rel_err;
        if ((rc = push_curve(r, &c)) != AUG_OK)
            break;
        g->n_curves++;
    }
    free(pc);
    if (rc == AUG_OK && cnt > 0) {
        g->rel_rmse = sqrt(ss / cnt);
        g->max_rel_err = mx;
        *cv_out = sqrt(ss_cv / cnt);
        if (abs_e) {
            qsort(abs_e, (size_t)cnt, sizeof(double), cmp_double);
            g->median_abs_err = cnt % 2 ? abs_e[cnt / 2]
                                        : 0.5 * (abs_e[cnt / 2 - 1] + abs_e[cnt / 2]);
        }
    }
    free(abs_e);
    return rc;
}

static int fit_eff_group(const struct aug_curve_form *f, const struct gdata *d,
                         struct aug_fit_group *g, const struct aug_fit_opts *o,
                         const char *source, struct aug_fit_result *r, double *cv_out)
{
    double pfix[AUG_CURVE_MAX_PARAMS];
    fixed_params(f, g, o, pfix);
    struct aug_curve c;
    struct aug_fit_stats st;
    curve_head(&c, g, f, source);
    memcpy(c.p, pfix, sizeof c.p);
    const double *y = f->output == AUG_CURVE_EFF ? d->e : d->t;
    int rc = aug_fit_form(f, d->pt, y, d->n, c.p, &st);
    if (rc != AUG_OK)
        return rc;
    double cv;
    if ((rc = aug_fit_cv(f, d->pt, y, d->n, pfix, o->folds, &cv)) != AUG_OK)
        return rc;
    c.x_min = d->pt[0].x;
    c.x_max = d->pt[d->n - 1].x;
    c.n_points = d->n;
    c.rel_rmse = st.rel_rmse;
    c.max_rel_err = st.max_rel_err;
    c.cv_rel_err = cv;
    g->rel_rmse = st.rel_rmse;
    g->max_rel_err = st.max_rel_err;
    g->median_abs_err = st.median_abs_err;
    *cv_out = cv;
    g->first_curve = (int)r->n_curves;
    g->n_curves = 1;
    return push_curve(r, &c);
}

static int fit_group(const struct aug_samples *s, struct aug_fit_group *g,
                     const struct aug_fit_opts *o, struct aug_fit_result *r)
{
    struct gdata d = {0, 0, 0, 0};
    struct order_item *ord = malloc(sizeof *ord * (size_t)g->n_idx);
    d.pt = malloc(sizeof *d.pt * (size_t)g->n_idx);
    d.t = malloc(sizeof(double) * (size_t)g->n_idx);
    d.e = malloc(sizeof(double) * (size_t)g->n_idx);
    struct aug_curve_point *tmp = malloc(sizeof *tmp * (size_t)g->n_idx);
    double *tt = malloc(sizeof(double) * (size_t)g->n_idx);
    double *te = malloc(sizeof(double) * (size_t)g->n_idx);
    int rc = AUG_OK;
    if (!ord || !d.pt || !d.t || !d.e || !tmp || !tt || !te) {
        rc = aug_errorf(AUG_ENOMEM, "out of memory");
        goto out;
    }
    /* points, efficiency check, sort by size feature */
    int n = 0, dropped = 0, hidden = 0;
    for (int i = 0; i < g->n_idx; i++) {
        const struct aug_sample *x = &s->v[g->idx[i]];
        aug_fit_sample_point(x, o->gpu, &tmp[n], &tt[n], &te[n]);
        if (!isfinite(tt[n])) { /* a host-timed kernel hidden by the host overhead */
            hidden++;
            continue;
        }
        if (isfinite(te[n]) && te[n] > 1.0 && x->family == AUG_FAMILY_MEMORY) {
            /* bytes of memory-bound ops are a counting convention (caches can beat it):
             * flag, keep the point */
            if (g->n_dropped == 0)
                add_warning(r, "%s:%ld: memory %s: %.0f GB/s is above the HBM bandwidth (L2 "
                            "hits or a byte convention above the real traffic); point kept",
                            s->files[x->file], x->line, x->op,
                            x->size_bytes / x->time_us * 1e-3);
            g->n_dropped = -1; /* warned once */
        } else if (isfinite(te[n]) && te[n] > 1.0) {
            if (dropped < 3)
                add_warning(r, "%s:%ld: %s %s: efficiency %.3f above 1 (wrong peak or timing); "
                            "point left out", s->files[x->file], x->line,
                            aug_family_name(x->family), x->op, te[n]);
            dropped++;
            continue;
        }
        g->idx[n] = g->idx[i];
        n++;
    }
    if (hidden > 0)
        add_warning(r, "%s %s %s: %d host-timed points within the host overhead (kernel "
                    "hidden) left out; the others fitted as time - %s", aug_family_name(g->family),
                    g->op, aug_dtype_name(g->dtype), hidden, "the fitted per-call overhead");
    if (dropped > 3)
        add_warning(r, "%s %s %s: %d points in all with efficiency above 1 left out",
                    aug_family_name(g->family), g->op, aug_dtype_name(g->dtype), dropped);
    g->n_dropped = dropped;
    g->n_idx = n;
    for (int i = 0; i < n; i++) {
        ord[i].x = tmp[i].x;
        ord[i].i = i;
    }
    qsort(ord, (size_t)n, sizeof *ord, cmp_order);
    size_t *idx2 = malloc(sizeof(size_t) * (size_t)(n ? n : 1));
    if (!idx2) {
        rc = aug_errorf(AUG_ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        d.pt[i] = tmp[ord[i].i];
        d.t[i] = tt[ord[i].i];
        d.e[i] = te[ord[i].i];
        idx2[i] = g->idx[ord[i].i];
    }
    memcpy(g->idx, idx2, sizeof(size_t) * (size_t)n);
    free(idx2);
    d.n = n;

    char srcbuf[128];
    const char *source = o->source ? o->source : group_source(s, g, srcbuf, sizeof srcbuf);
    /* try every form of the family; the lowest cross-validated error wins */
    int best = -1;
    double best_cv = INFINITY, best_score = INFINITY;
    int best_first = 0, best_count = 0;
    struct aug_fit_group best_g = *g;
    for (int fi = 0; fi < aug_curve_form_count(); fi++) {
        const struct aug_curve_form *f = aug_curve_form_at(fi);
        int fam_ok = f->family == g->family ||
                     (f->family == AUG_FAMILY_MEMORY && g->family == AUG_FAMILY_COLLECTIVE);
        if (!fam_ok)
            continue;
        double pfix[AUG_CURVE_MAX_PARAMS];
        if (!fixed_params(f, g, o, pfix) || g->n_cand >= 4)
            continue;
        if (n < 1) {
            break;
        }
        if (f->output == AUG_CURVE_EFF && !isfinite(d.e[0]))
            continue;
        struct aug_fit_candidate *cd = &g->cand[g->n_cand++];
        snprintf(cd->form, sizeof cd->form, "%s", f->name);
        struct aug_fit_group trial = *g;
        size_t before = r->n_curves;
        double cv = INFINITY;
        int frc = f->linear && f->output == AUG_CURVE_TIME && g->family != AUG_FAMILY_GEMM
                      ? fit_time_group(f, &d, &trial, o, source, r, &cv)
                      : fit_eff_group(f, &d, &trial, o, source, r, &cv);
        if (frc == AUG_ENOMEM) {
            rc = frc;
            goto out;
        }
        cd->ok = frc == AUG_OK;
        cd->rel_rmse = trial.rel_rmse;
        cd->cv_rel_err = cv;
        if (frc != AUG_OK) {
            snprintf(g->note, sizeof g->note, "%s: %s", f->name, aug_last_error());
            r->n_curves = before;
            continue;
        }
        /* a form with an init start is a physical model (gemm_tile: monotone in every
         * dimension, steps the right way at tile and wave edges, extrapolates to the
         * achievable ceilings); it is preferred while its held-out error is within 15% of
         * the best purely fitted form's (on Vidur's sweeps, with stream-K in the model,
         * gemm_tile is kept on both GPUs: H100 12.2% against gemm_roof's 11.9%, A100 8.71%
         * against 8.70%; without stream-K it lost, 13.8% and 15.1%) */
        double score = f->init && !f->linear ? cv / PHYSICAL_PREFERENCE : cv;
        if (score < best_score) {
            best_score = score;
            /* drop the previous best's rows: keep only the winner's curves */
            if (best >= 0) {
                size_t keep_from = (size_t)best_first + (size_t)best_count;
                memmove(r->curves + best_first, r->curves + keep_from,
                        (r->n_curves - keep_from) * sizeof *r->curves);
                r->n_curves -= (size_t)best_count;
                trial.first_curve -= best_count;
            }
            best = fi;
            best_cv = cv;
            best_first = trial.first_curve;
            best_count = trial.n_curves;
            best_g = trial;
        } else {
            r->n_curves = before;
        }
    }
    if (best < 0) {
        g->verdict = AUG_FIT_FAILED;
        g->cv_rel_err = INFINITY;
        if (!g->note[0])
            snprintf(g->note, sizeof g->note, "%s",
                     n < 1 ? "no usable points"
                           : "no form applies (efficiency forms need the GPU's peak and SMs)");
        goto out;
    }
    {
        char note[256];
        memcpy(note, g->note, sizeof note);
        int ncand = g->n_cand;
        struct aug_fit_candidate cand[4];
        memcpy(cand, g->cand, sizeof cand);
        *g = best_g;
        memcpy(g->note, note, sizeof note);
        g->n_cand = ncand;
        memcpy(g->cand, cand, sizeof cand);
    }
    snprintf(g->form, sizeof g->form, "%s", aug_curve_form_at(best)->name);
    g->cv_rel_err = best_cv;
    if (best_cv <= o->max_cv_rel_err)
        g->verdict = AUG_FIT_KEPT;
    else if (o->force)
        g->verdict = AUG_FIT_FORCED;
    else
        g->verdict = AUG_FIT_REFUSED;
    if (g->verdict != AUG_FIT_KEPT)
        snprintf(g->note, sizeof g->note, "cross-validated error %.1f%% above %.1f%%%s",
                 100 * best_cv, 100 * o->max_cv_rel_err,
                 g->verdict == AUG_FIT_FORCED ? " (kept: --force)" : "");
out:
    free(ord);
    free(d.pt);
    free(d.t);
    free(d.e);
    free(tmp);
    free(tt);
    free(te);
    return rc;
}

int aug_fit_samples(const struct aug_samples *s, const struct aug_fit_opts *o,
                    struct aug_fit_result *out)
{
    memset(out, 0, sizeof *out);
    if (!s || !o || o->folds < 2 || o->max_pieces < 1)
        return aug_errorf(AUG_EUSAGE, "fit: bad options (folds >= 2, pieces >= 1)");
    /* group: linear search over the (few) groups per sample */
    size_t cap = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct gkey k;
        sample_key(&s->v[i], &k);
        size_t gi;
        for (gi = out->n_groups; gi-- > 0;)
            if (key_eq(&k, &out->groups[gi]))
                break;
        if (gi == (size_t)-1) {
            if (out->n_groups == cap) {
                size_t nc = cap ? cap * 2 : 16;
                struct aug_fit_group *ng = realloc(out->groups, nc * sizeof *ng);
                if (!ng)
                    goto oom;
                out->groups = ng;
                cap = nc;
            }
            gi = out->n_groups++;
            struct aug_fit_group *g = &out->groups[gi];
            memset(g, 0, sizeof *g);
            g->family = k.family;
            memcpy(g->op, k.op, sizeof g->op);
            g->dtype = k.dtype;
            g->ranks = k.ranks;
            memcpy(g->link, k.link, sizeof g->link);
            g->head_dim = k.head_dim;
        }
        struct aug_fit_group *g = &out->groups[gi];
        if ((g->n_idx & (g->n_idx - 1)) == 0) { /* grow at powers of two */
            size_t nc = g->n_idx ? (size_t)g->n_idx * 2 : 1;
            size_t *ni = realloc(g->idx, nc * sizeof *ni);
            if (!ni)
                goto oom;
            g->idx = ni;
        }
        g->idx[g->n_idx++] = i;
    }
    for (size_t gi = 0; gi < out->n_groups; gi++) {
        aug_progress("calibrate: fitting groups", (long)gi, (long)out->n_groups);
        int rc = fit_group(s, &out->groups[gi], o, out);
        if (rc != AUG_OK) {
            aug_fit_result_free(out);
            return rc;
        }
    }
    aug_progress("calibrate: fitting groups", (long)out->n_groups, (long)out->n_groups);
    return AUG_OK;
oom:
    aug_fit_result_free(out);
    return aug_errorf(AUG_ENOMEM, "out of memory");
}

void aug_fit_result_free(struct aug_fit_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_groups; i++)
        free(r->groups[i].idx);
    free(r->groups);
    free(r->curves);
    for (size_t i = 0; i < r->n_warnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}
