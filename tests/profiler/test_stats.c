/* SPDX-License-Identifier: Apache-2.0 */
/* test_stats.c - median, min and max of repetition times (stats.c), and the refusal to
 * summarize times that cannot be measurements. */
#include "../aug_test.h"

#include "augur/status.h"
#include "stats.h"

static void odd_and_even_counts(void **state) {
    (void)state;
    struct aug_prof_stats s;
    const double odd[] = {9.0, 1.0, 5.0, 3.0, 7.0};
    assert_int_equal(aug_prof_stats_compute(odd, 5, &s), AUG_OK);
    assert_near(s.median_us, 5.0, 0);
    assert_near(s.min_us, 1.0, 0);
    assert_near(s.max_us, 9.0, 0);
    assert_int_equal(s.n, 5);
    const double even[] = {4.0, 10.0, 2.0, 8.0};
    assert_int_equal(aug_prof_stats_compute(even, 4, &s), AUG_OK);
    assert_near(s.median_us, 6.0, 1e-12); /* (4 + 8) / 2 */
    assert_near(s.min_us, 2.0, 0);
    assert_near(s.max_us, 10.0, 0);
    const double one[] = {12.25};
    assert_int_equal(aug_prof_stats_compute(one, 1, &s), AUG_OK);
    assert_near(s.median_us, 12.25, 0);
    assert_near(s.max_us, 12.25, 0);
}

/* One slow outlier (a clock ramp) moves the mean, not the median. */
static void median_ignores_an_outlier(void **state) {
    (void)state;
    double t[21];
    for (int i = 0; i < 21; i++)
        t[i] = 100.0 + (i % 3);  /* 100, 101, 102 repeated: seven each */
    t[0] = 5000.0;               /* replaces one 100 */
    struct aug_prof_stats s;
    assert_int_equal(aug_prof_stats_compute(t, 21, &s), AUG_OK);
    assert_near(s.median_us, 101.0, 0);
    assert_near(s.min_us, 100.0, 0);
    assert_near(s.max_us, 5000.0, 0);
    /* the input order is left alone */
    assert_near(t[0], 5000.0, 0);
    assert_near(t[1], 101.0, 0);
}

static void refuses_non_measurements(void **state) {
    (void)state;
    struct aug_prof_stats s;
    const double zero[] = {3.0, 0.0, 4.0};
    const double neg[] = {-1.0};
    const double nan_[] = {2.0, NAN};
    const double inf_[] = {INFINITY};
    assert_int_equal(aug_prof_stats_compute(zero, 3, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "repetition 2"));
    assert_int_equal(aug_prof_stats_compute(neg, 1, &s), AUG_EDATA);
    assert_int_equal(aug_prof_stats_compute(nan_, 2, &s), AUG_EDATA);
    assert_int_equal(aug_prof_stats_compute(inf_, 1, &s), AUG_EDATA);
    assert_int_equal(aug_prof_stats_compute(zero, 0, &s), AUG_EDATA);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(odd_and_even_counts),
        cmocka_unit_test(median_ignores_an_outlier),
        cmocka_unit_test(refuses_non_measurements),
    };
    return cmocka_run_group_tests_name("profiler stats", tests, NULL, NULL);
}
