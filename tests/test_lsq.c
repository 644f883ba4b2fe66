/* SPDX-License-Identifier: Apache-2.0 */
/* test_lsq.c - weighted least squares through dgelsd: exact and noisy recovery, column
 * scaling of badly scaled features, rank deficiency and input validation. */
#include "aug_test.h"

#include "augur/status.h"
#include "lsq.h"

/* Deterministic noise in [-1, 1] (LCG). */
static double noise(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffff) / 32767.5 - 1.0;
}

static void exact_line(void **state)
{
    (void)state;
    double a[10 * 2], b[10], x[2];
    for (int i = 0; i < 10; i++) {
        a[2 * i] = 1;
        a[2 * i + 1] = i;
        b[i] = 3 + 2 * i; /* y = 3 + 2 x */
    }
    struct aug_lsq_info info;
    assert_int_equal(aug_lsq_solve(10, 2, a, b, NULL, x, &info), AUG_OK);
    assert_near(x[0], 3, 1e-10);
    assert_near(x[1], 2, 1e-10);
    assert_int_equal(info.rank, 2);
    assert_near(info.rss, 0, 1e-18);
    assert_true(info.cond > 1 && isfinite(info.cond));
}

static void noisy_relative_weights(void **state)
{
    (void)state;
    /* t = 5 us + 1e-6 us/byte over 1 KB .. 1 GB, 1% multiplicative noise, 1/t weights */
    enum { N = 200 };
    double a[N * 2], b[N], w[N], x[2];
    unsigned s = 7;
    for (int i = 0; i < N; i++) {
        double bytes = pow(10, 3 + 6.0 * i / (N - 1));
        a[2 * i] = 1;
        a[2 * i + 1] = bytes;
        b[i] = (5 + 1e-6 * bytes) * (1 + 0.01 * noise(&s));
        w[i] = 1 / b[i];
    }
    assert_int_equal(aug_lsq_solve(N, 2, a, b, w, x, NULL), AUG_OK);
    assert_rel(x[0], 5, 0.01);
    assert_rel(x[1], 1e-6, 0.01);
}

static void scaled_columns(void **state)
{
    (void)state;
    /* features 1 and 1e12 * u: without column scaling the small one is lost */
    enum { N = 50 };
    double a[N * 3], b[N], x[3];
    for (int i = 0; i < N; i++) {
        double u = 1 + i;
        a[3 * i] = 1;
        a[3 * i + 1] = 1e12 * u;
        a[3 * i + 2] = 1e-9 * u * u;
        b[i] = 2 + 3e-12 * (1e12 * u) + 4e9 * (1e-9 * u * u);
    }
    struct aug_lsq_info info;
    assert_int_equal(aug_lsq_solve(N, 3, a, b, NULL, x, &info), AUG_OK);
    assert_int_equal(info.rank, 3);
    assert_rel(x[0], 2, 1e-8);
    assert_rel(x[1], 3e-12, 1e-8);
    assert_rel(x[2], 4e9, 1e-8);
}

static void rank_deficient(void **state)
{
    (void)state;
    /* two identical columns: rank 1, minimum-norm answer splits the weight evenly */
    double a[6 * 2], b[6], x[2];
    for (int i = 0; i < 6; i++) {
        a[2 * i] = a[2 * i + 1] = i + 1;
        b[i] = 4 * (i + 1);
    }
    struct aug_lsq_info info;
    assert_int_equal(aug_lsq_solve(6, 2, a, b, NULL, x, &info), AUG_OK);
    /* rcond -1 (machine epsilon) may keep a rounding-level second singular value; the
     * condition number shows the deficiency either way */
    assert_true(info.rank == 1 || info.cond > 1e12);
    assert_near(x[0], 2, 1e-6);
    assert_near(x[1], 2, 1e-6);
    /* a zero column stays zero */
    for (int i = 0; i < 6; i++)
        a[2 * i + 1] = 0;
    assert_int_equal(aug_lsq_solve(6, 2, a, b, NULL, x, &info), AUG_OK);
    assert_near(x[0], 4, 1e-9);
    assert_near(x[1], 0, 0);
    /* fewer rows than unknowns */
    double a2[2] = {1, 1}, b2[1] = {2}, x2[2];
    assert_int_equal(aug_lsq_solve(1, 2, a2, b2, NULL, x2, &info), AUG_OK);
    assert_near(x2[0], 1, 1e-12);
    assert_near(x2[1], 1, 1e-12);
    assert_int_equal(info.rank, 1);
}

static void bad_input(void **state)
{
    (void)state;
    double a[4] = {1, 2, 3, 4}, b[2] = {1, 2}, x[2], w[2] = {1, -1};
    assert_int_equal(aug_lsq_solve(0, 2, a, b, NULL, x, NULL), AUG_EUSAGE);
    assert_int_equal(aug_lsq_solve(2, 0, a, b, NULL, x, NULL), AUG_EUSAGE);
    assert_int_equal(aug_lsq_solve(2, AUG_LSQ_MAX_COLS + 1, a, b, NULL, x, NULL), AUG_EUSAGE);
    assert_int_equal(aug_lsq_solve(2, 2, a, b, w, x, NULL), AUG_EDATA);
    a[1] = NAN;
    assert_int_equal(aug_lsq_solve(2, 2, a, b, NULL, x, NULL), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "row 1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_line),     cmocka_unit_test(noisy_relative_weights),
        cmocka_unit_test(scaled_columns), cmocka_unit_test(rank_deficient),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
