/* SPDX-License-Identifier: Apache-2.0 */
/* test_correlate.c - GPU time per measured call from CUPTI-style records (correlate.c):
 * every kernel of one external range is summed per device, the slowest device wins,
 * records may arrive in any order, and missing or untimed kernels are errors. */
#include "../aug_test.h"

#include "augur/status.h"
#include "correlate.h"

static struct aug_prof_corr *make(void) {
    struct aug_prof_corr *c = NULL;
    assert_int_equal(aug_prof_corr_new(&c), AUG_OK);
    return c;
}

/* A split-K GEMM: the main kernel (10 us) and its reduction (2.5 us) in one call. */
static void sums_kernels_of_one_call(void **state) {
    (void)state;
    struct aug_prof_corr *c = make();
    assert_int_equal(aug_prof_corr_add_external(c, 100, 7), AUG_OK);
    assert_int_equal(aug_prof_corr_add_external(c, 101, 7), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 100, 0, 1000000, 1010000, NULL), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 101, 0, 1010500, 1013000, NULL), AUG_OK);
    /* a warm-up kernel outside any range and a kernel of another call */
    assert_int_equal(aug_prof_corr_add_kernel(c, 99, 0, 900000, 990000, NULL), AUG_OK);
    assert_int_equal(aug_prof_corr_add_external(c, 102, 8), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 102, 0, 1020000, 1024000, NULL), AUG_OK);
    double t = 0;
    int n = 0;
    assert_int_equal(aug_prof_corr_time_us(c, 7, &t, &n), AUG_OK);
    assert_near(t, 12.5, 1e-9); /* 10 us + 2.5 us; the 0.5 us gap is not kernel time */
    assert_int_equal(n, 2);
    assert_int_equal(aug_prof_corr_time_us(c, 8, &t, &n), AUG_OK);
    assert_near(t, 4.0, 1e-9);
    assert_int_equal(n, 1);
    assert_int_equal(aug_prof_corr_kernel_count(c), 4);
    aug_prof_corr_free(c);
}

/* An NCCL all-reduce on 4 GPUs: per device 30, 34, 31, 29 us (device 1 in two kernels of
 * 20 and 14 us): the call takes the slowest device's 34 us, not the 124 us sum. */
static void slowest_device_of_a_collective(void **state) {
    (void)state;
    struct aug_prof_corr *c = make();
    const uint64_t base = 5000000;
    /* kernel records first: the external records arrive later, as from another buffer */
    assert_int_equal(aug_prof_corr_add_kernel(c, 11, 0, base, base + 30000, NULL), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 12, 1, base, base + 20000, NULL), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 13, 1, base + 20000, base + 34000, NULL), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 14, 2, base + 1000, base + 32000, NULL), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 15, 3, base + 2000, base + 31000, NULL), AUG_OK);
    for (uint32_t corr = 11; corr <= 15; corr++)
        assert_int_equal(aug_prof_corr_add_external(c, corr, 42), AUG_OK);
    double t = 0;
    int n = 0;
    assert_int_equal(aug_prof_corr_time_us(c, 42, &t, &n), AUG_OK);
    assert_near(t, 34.0, 1e-9);
    assert_int_equal(n, 5);
    aug_prof_corr_free(c);
}

static void missing_and_untimed(void **state) {
    (void)state;
    struct aug_prof_corr *c = make();
    double t = -1;
    /* no kernel carries id 3 */
    assert_int_equal(aug_prof_corr_add_external(c, 1, 3), AUG_OK);
    assert_int_equal(aug_prof_corr_time_us(c, 3, &t, NULL), AUG_ENOTFOUND);
    assert_near(t, -1, 0);
    /* a kernel CUPTI could not time (start = end = 0) poisons its call */
    assert_int_equal(aug_prof_corr_add_external(c, 2, 4), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 2, 0, 0, 0, NULL), AUG_EDATA);
    assert_int_equal(aug_prof_corr_add_kernel(c, 1, 0, 100, 50, NULL), AUG_EDATA); /* end < start */
    assert_int_equal(aug_prof_corr_time_us(c, 4, &t, NULL), AUG_EDATA);
    assert_int_equal(aug_prof_corr_time_us(c, 3, &t, NULL), AUG_EDATA);
    /* reset forgets everything */
    aug_prof_corr_reset(c);
    assert_int_equal(aug_prof_corr_kernel_count(c), 0);
    assert_int_equal(aug_prof_corr_time_us(c, 4, &t, NULL), AUG_ENOTFOUND);
    aug_prof_corr_free(c);
}

/* Many repetitions: ids 1..50, two kernels each of (r) and (2r) microseconds. */
static void many_repetitions(void **state) {
    (void)state;
    struct aug_prof_corr *c = make();
    uint64_t clock = 1;
    uint32_t corr = 1000;
    for (uint64_t r = 1; r <= 50; r++)
        for (int kk = 1; kk <= 2; kk++) {
            assert_int_equal(aug_prof_corr_add_external(c, corr, r), AUG_OK);
            uint64_t dur = (uint64_t)kk * r * 1000;
            assert_int_equal(aug_prof_corr_add_kernel(c, corr, 0, clock, clock + dur, NULL), AUG_OK);
            clock += dur + 777;
            corr++;
        }
    for (uint64_t r = 1; r <= 50; r++) {
        double t;
        assert_int_equal(aug_prof_corr_time_us(c, r, &t, NULL), AUG_OK);
        assert_near(t, 3.0 * (double)r, 1e-9);
    }
    aug_prof_corr_free(c);
}

/* The name kept for a call is its longest kernel's: the split-K main loop, not its
 * 2.5 us reduction. Names are cut to the buffer and reduced to symbol characters, since
 * they end up in a CSV cell. */
static void names_the_longest_kernel(void **state) {
    (void)state;
    struct aug_prof_corr *c = make();
    assert_int_equal(aug_prof_corr_add_external(c, 100, 7), AUG_OK);
    assert_int_equal(aug_prof_corr_add_external(c, 101, 7), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 101, 0, 1010500, 1013000,
                                              "splitKreduce_kernel"), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 100, 0, 1000000, 1010000,
                                              "nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_TNT"),
                     AUG_OK);
    char name[AUG_PROF_KERNEL_NAME_LEN];
    assert_int_equal(aug_prof_corr_main_kernel(c, 7, name, sizeof name), AUG_OK);
    assert_string_equal(name, "nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_TNT");
    char small[6];
    assert_int_equal(aug_prof_corr_main_kernel(c, 7, small, sizeof small), AUG_OK);
    assert_string_equal(small, "nvjet");
    /* a hostile name: comma, quote, newline and a 300-byte tail */
    char hostile[320];
    memset(hostile, 'x', sizeof hostile - 1);
    hostile[sizeof hostile - 1] = '\0';
    memcpy(hostile, "a,b\"c\nd", 7);
    assert_int_equal(aug_prof_corr_add_external(c, 102, 8), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 102, 0, 2000000, 2001000, hostile), AUG_OK);
    assert_int_equal(aug_prof_corr_main_kernel(c, 8, name, sizeof name), AUG_OK);
    assert_int_equal(strlen(name), AUG_PROF_KERNEL_NAME_LEN - 1);
    assert_memory_equal(name, "a?b?c?dx", 8);
    /* no name from CUPTI: an empty one; no kernel in the range: not found */
    assert_int_equal(aug_prof_corr_add_external(c, 103, 9), AUG_OK);
    assert_int_equal(aug_prof_corr_add_kernel(c, 103, 0, 3000000, 3001000, NULL), AUG_OK);
    assert_int_equal(aug_prof_corr_main_kernel(c, 9, name, sizeof name), AUG_OK);
    assert_string_equal(name, "");
    assert_int_equal(aug_prof_corr_main_kernel(c, 10, name, sizeof name), AUG_ENOTFOUND);
    aug_prof_corr_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sums_kernels_of_one_call),
        cmocka_unit_test(slowest_device_of_a_collective),
        cmocka_unit_test(missing_and_untimed),
        cmocka_unit_test(many_repetitions),
        cmocka_unit_test(names_the_longest_kernel),
    };
    return cmocka_run_group_tests_name("profiler correlate", tests, NULL, NULL);
}
