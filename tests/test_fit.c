/* SPDX-License-Identifier: Apache-2.0 */
/* test_fit.c - fitting: known coefficients recovered from noisy synthetic data for every
 * form, cross-validation close to the noise level, piecewise splits, rank-deficient
 * groups, efficiency-above-1 points, and the keep / refuse / force decision. */
#include "aug_test.h"

#include "augur/status.h"
#include "fit.h"

static double noise(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffff) / 32767.5 - 1.0;
}

static struct aug_gpu test_gpu(void)
{
    struct aug_gpu g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "test");
    g.sm_count = 108;
    g.peak_tflops[AUG_DTYPE_FP16] = 312;
    g.peak_tflops[AUG_DTYPE_BF16] = 312;
    g.hbm_gbps = 2039;
    return g;
}

static void linear_recovery(void **state)
{
    (void)state;
    enum { N = 120 };
    struct aug_curve_point pt[N];
    double y[N], p[8] = {0};
    unsigned s = 11;
    for (int i = 0; i < N; i++) {
        pt[i] = aug_curve_size_point(pow(10, 3 + 5.0 * i / (N - 1)));
        y[i] = (8 + 2e-4 * pt[i].x) * (1 + 0.02 * noise(&s)); /* 2% noise */
    }
    const struct aug_curve_form *f = aug_curve_form_find("linear");
    struct aug_fit_stats st;
    assert_int_equal(aug_fit_form(f, pt, y, N, p, &st), AUG_OK);
    assert_rel(p[0], 8, 0.02);
    assert_rel(p[1], 2e-4, 0.02);
    assert_true(st.rel_rmse < 0.015 && st.rel_rmse > 0.005); /* uniform +-2%: rms 1.15% */
    double cv;
    assert_int_equal(aug_fit_cv(f, pt, y, N, (double[8]){0}, 5, &cv), AUG_OK);
    assert_true(cv >= st.rel_rmse * 0.99 && cv < 0.02);
}

static void rank_deficient_group(void **state)
{
    (void)state;
    /* one distinct size: the slope cannot be told from the latency; a constant remains */
    struct aug_curve_point pt[5];
    double y[5] = {10, 11, 9, 10.5, 9.5}, p[8] = {0};
    for (int i = 0; i < 5; i++)
        pt[i] = aug_curve_size_point(4096);
    struct aug_fit_stats st;
    assert_int_equal(aug_fit_form(aug_curve_form_find("linear"), pt, y, 5, p, &st), AUG_OK);
    assert_near(p[1], 0, 0);
    assert_true(p[0] > 9.5 && p[0] < 10.5);
    /* a non-positive target is refused with a name */
    y[2] = 0;
    assert_int_equal(aug_fit_form(aug_curve_form_find("linear"), pt, y, 5, p, &st), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "point 3"));
}

static void gemm_sat_recovery(void **state)
{
    (void)state;
    enum { N = 300 };
    struct aug_curve_point pt[N];
    double y[N];
    double truth[8] = {0.82, 10.3, 0.9, 108, 128, 128};
    const struct aug_curve_form *f = aug_curve_form_find("gemm_sat");
    unsigned s = 5;
    for (int i = 0; i < N; i++) {
        double m = 16 << (i % 9), n = 512 * (1 + i % 7), k = 256 * (1 + (i / 7) % 16);
        pt[i] = aug_curve_gemm_point(m, n, k, 2);
        y[i] = f->eval(truth, &pt[i]) * (1 + 0.01 * noise(&s));
    }
    double p[8] = {0, 0, 0, 108, 128, 128};
    struct aug_fit_stats st;
    assert_int_equal(aug_fit_form(f, pt, y, N, p, &st), AUG_OK);
    assert_rel(p[0], 0.82, 0.03);
    assert_near(p[1], 10.3, 0.05);
    assert_rel(p[2], 0.9, 0.05);
    assert_near(st.rel_rmse, 0.0058, 0.003);
    assert_near(p[3], 108, 0); /* fixed parameters untouched */
}

static void gemm_roof_recovery(void **state)
{
    (void)state;
    enum { N = 400 };
    struct aug_curve_point pt[N];
    double y[N];
    double truth[8] = {6, 4.5e-9, 5e-10, 6e-7, 0, 108, 128, 312};
    const struct aug_curve_form *f = aug_curve_form_find("gemm_roof");
    unsigned s = 9;
    for (int i = 0; i < N; i++) {
        double m = 1 << (i % 13), n = 1024 * (1 + i % 5), k = 1024 * (1 + (i / 5) % 8);
        pt[i] = aug_curve_gemm_point(m, n, k, 2);
        y[i] = f->eval(truth, &pt[i]) * (1 + 0.01 * noise(&s));
    }
    double p[8] = {0, 0, 0, 0, 0, 108, 128, 312};
    struct aug_fit_stats st;
    assert_int_equal(aug_fit_form(f, pt, y, N, p, &st), AUG_OK);
    assert_rel(p[0], 6, 0.05);
    assert_rel(p[1] + p[2], 5e-9, 0.05); /* W is ~1 for most shapes: the two mix */
    assert_rel(p[3], 6e-7, 0.03);
    assert_true(st.median_abs_err < 0.01);
}

/* ---- whole groups through aug_fit_samples ---- */

static void add(struct aug_samples *s, enum aug_family fam, const char *op, double size,
                double t, int ranks, int rpn)
{
    struct aug_sample x = aug_sample_blank();
    x.family = fam;
    snprintf(x.op, sizeof x.op, "%s", op);
    x.dtype = AUG_DTYPE_FP16;
    x.size_bytes = size;
    x.ranks = ranks;
    x.ranks_per_node = rpn;
    x.time_us = t;
    snprintf(x.timing, sizeof x.timing, "cupti_kernel");
    x.file = aug_samples_file(s, "synthetic");
    x.line = (long)s->n + 2;
    x.source = aug_samples_source(s, "synthetic");
    assert_int_equal(aug_samples_add(s, &x), AUG_OK);
}

static void groups_pieces_verdicts(void **state)
{
    (void)state;
    struct aug_samples s;
    aug_samples_init(&s);
    unsigned sd = 3;
    /* two protocols: 10 us + 1 us/KB below 1 MB, 200 us + 0.1 us/KB above */
    for (int i = 0; i < 200; i++) {
        double b = pow(10, 3 + 5.0 * i / 199);
        double t = b < 1e6 ? 10 + b * 1e-3 : 200 + b * 1e-4;
        add(&s, AUG_FAMILY_COLLECTIVE, "all_reduce", b, t * (1 + 0.005 * noise(&sd)), 8, 8);
    }
    /* the same on two nodes: another group (link network) */
    for (int i = 0; i < 50; i++)
        add(&s, AUG_FAMILY_COLLECTIVE, "allreduce", 1e4 * (i + 1), 50 + 1e-3 * 1e4 * (i + 1), 16, 8);
    /* pure noise: refused */
    for (int i = 0; i < 60; i++)
        add(&s, AUG_FAMILY_MEMORY, "softmax", 1e4 * (i + 1), 10 * (1 + 0.9 * noise(&sd)), 0, 0);
    struct aug_fit_opts o;
    aug_fit_opts_default(&o);
    struct aug_fit_result r;
    assert_int_equal(aug_fit_samples(&s, &o, &r), AUG_OK);
    assert_int_equal((int)r.n_groups, 3);
    const struct aug_fit_group *g = &r.groups[0];
    assert_string_equal(g->op, "all_reduce");
    assert_string_equal(g->link, "nvlink");
    assert_int_equal(g->verdict, AUG_FIT_KEPT);
    assert_true(g->n_curves >= 2);
    assert_near(g->cv_rel_err, 0.003, 0.01);
    /* the piece holding 100 KB recovers 10 us + 1e-3 us/B */
    int found = 0;
    for (int i = 0; i < g->n_curves; i++) {
        const struct aug_curve *c = &r.curves[g->first_curve + i];
        if (c->x_min <= 1e5 && c->x_max >= 1e5) {
            assert_rel(c->p[1], 1e-3, 0.03);
            found = 1;
        }
    }
    assert_true(found);
    assert_string_equal(r.groups[1].link, "network");
    assert_int_equal(r.groups[1].ranks, 16);
    assert_int_equal(r.groups[2].verdict, AUG_FIT_REFUSED);
    assert_true(r.groups[2].cv_rel_err > 0.25);
    aug_fit_result_free(&r);
    o.force = 1;
    assert_int_equal(aug_fit_samples(&s, &o, &r), AUG_OK);
    assert_int_equal(r.groups[2].verdict, AUG_FIT_FORCED);
    assert_true(aug_fit_group_written(&r.groups[2]));
    aug_fit_result_free(&r);
    aug_samples_free(&s);
}

static void efficiency_above_one(void **state)
{
    (void)state;
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_gpu gpu = test_gpu();
    for (int i = 0; i < 40; i++) {
        struct aug_sample x = aug_sample_blank();
        x.family = AUG_FAMILY_GEMM;
        snprintf(x.op, sizeof x.op, "gemm");
        x.dtype = AUG_DTYPE_FP16;
        x.m = 256 * (1 + i % 8);
        x.n = 4096;
        x.k = 1024 * (1 + i / 8);
        double F = 2 * x.m * x.n * x.k;
        x.time_us = 5 + F / (0.7 * 312e12) * 1e6;
        if (i == 7)
            x.time_us = F / (1.3 * 312e12) * 1e6; /* 130% of the peak: impossible */
        snprintf(x.timing, sizeof x.timing, "cuda_event");
        x.file = aug_samples_file(&s, "gemm.csv");
        x.line = i + 2;
        x.source = aug_samples_source(&s, "synthetic");
        assert_int_equal(aug_samples_add(&s, &x), AUG_OK);
    }
    struct aug_fit_opts o;
    aug_fit_opts_default(&o);
    o.gpu = &gpu;
    struct aug_fit_result r;
    assert_int_equal(aug_fit_samples(&s, &o, &r), AUG_OK);
    assert_int_equal(r.groups[0].n_dropped, 1);
    assert_int_equal(r.groups[0].n_idx, 39);
    assert_true(r.n_warnings >= 1);
    assert_non_null(strstr(r.warnings[0], "gemm.csv:9"));
    assert_non_null(strstr(r.warnings[0], "above 1"));
    assert_int_equal(r.groups[0].verdict, AUG_FIT_KEPT);
    assert_true(r.groups[0].cv_rel_err < 0.01);
    aug_fit_result_free(&r);
    /* without the GPU's peak no GEMM form applies */
    o.gpu = NULL;
    assert_int_equal(aug_fit_samples(&s, &o, &r), AUG_OK);
    assert_int_equal(r.groups[0].verdict, AUG_FIT_FAILED);
    aug_fit_result_free(&r);
    aug_samples_free(&s);
}

/* fp8 GEMMs measured with the split accumulator ("gemm_split_acc") get a curve of their own,
 * apart from the fast-accumulation "gemm" points of the same dtype, which other GEMM names
 * ("linear") join. Synthetic: 5 us + 2mnk at 0.8 of a 1000 TFLOP/s fp8 peak for the two
 * fast sets (96 points in one group), at 0.8 / 1.15 for the split one (48 in another). */
static void gemm_split_accumulator_group(void **state)
{
    (void)state;
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_gpu gpu = test_gpu();
    gpu.peak_tflops[AUG_DTYPE_FP8] = 1000;
    static const char *const ops[] = {"gemm", "linear", "gemm_split_acc"};
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 48; i++) {
            struct aug_sample x = aug_sample_blank();
            x.family = AUG_FAMILY_GEMM;
            snprintf(x.op, sizeof x.op, "%s", ops[o]);
            x.dtype = AUG_DTYPE_FP8;
            x.m = 512 * (1 + i % 8);
            x.n = 4096 * (1 + (i / 8) % 2);
            x.k = 1024 * (1 + i / 16);
            double F = 2 * x.m * x.n * x.k;
            x.time_us = 5 + F / (0.8e15 / (o == 2 ? 1.15 : 1.0)) * 1e6;
            snprintf(x.timing, sizeof x.timing, "cupti_kernel");
            x.file = aug_samples_file(&s, "gemm.csv");
            x.line = (long)s.n + 2;
            x.source = aug_samples_source(&s, "synthetic");
            assert_int_equal(aug_samples_add(&s, &x), AUG_OK);
        }
    struct aug_fit_opts o;
    aug_fit_opts_default(&o);
    o.gpu = &gpu;
    struct aug_fit_result r;
    assert_int_equal(aug_fit_samples(&s, &o, &r), AUG_OK);
    assert_int_equal((int)r.n_groups, 2);
    int gi[2] = {-1, -1};
    for (int g = 0; g < 2; g++) {
        assert_int_equal(r.groups[g].family, AUG_FAMILY_GEMM);
        assert_int_equal(r.groups[g].verdict, AUG_FIT_KEPT);
        gi[strcmp(r.groups[g].op, "gemm_split_acc") == 0] = g;
    }
    assert_true(gi[0] >= 0 && gi[1] >= 0);
    assert_string_equal(r.groups[gi[0]].op, "gemm");
    assert_int_equal(r.groups[gi[0]].n_idx, 96);
    assert_int_equal(r.groups[gi[1]].n_idx, 48);
    aug_fit_result_free(&r);
    /* a split-accumulator point of another dtype is refused with its file and line */
    struct aug_sample x = aug_sample_blank();
    x.family = AUG_FAMILY_GEMM;
    snprintf(x.op, sizeof x.op, "gemm_split_acc");
    x.dtype = AUG_DTYPE_BF16;
    x.m = x.n = x.k = 1024;
    x.time_us = 10;
    snprintf(x.timing, sizeof x.timing, "cupti_kernel");
    x.file = aug_samples_file(&s, "gemm.csv");
    x.line = 99;
    x.source = aug_samples_source(&s, "synthetic");
    assert_int_equal(aug_samples_add(&s, &x), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "gemm.csv:99"));
    assert_non_null(strstr(aug_last_error(), "split accumulator"));
    aug_samples_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_recovery),      cmocka_unit_test(rank_deficient_group),
        cmocka_unit_test(gemm_sat_recovery),    cmocka_unit_test(gemm_roof_recovery),
        cmocka_unit_test(groups_pieces_verdicts), cmocka_unit_test(efficiency_above_one),
        cmocka_unit_test(gemm_split_accumulator_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
