/* SPDX-License-Identifier: Apache-2.0 */
/* test_fill.c - benchmark input patterns (fill.c): every dtype decodes to finite values in
 * the promised range, the pattern is deterministic and varied, and the hand-made bf16 /
 * fp16 conversions round correctly. */
#include "../aug_test.h"

#include "augur/status.h"
#include "fill.h"

static void conversions(void **state) {
    (void)state;
    /* exact values */
    assert_int_equal(aug_prof_float_to_bf16(1.0f), 0x3f80);
    assert_int_equal(aug_prof_float_to_bf16(-2.0f), 0xc000);
    assert_int_equal(aug_prof_float_to_fp16(1.0f), 0x3c00);
    assert_int_equal(aug_prof_float_to_fp16(-0.5f), 0xb800);
    assert_int_equal(aug_prof_float_to_fp16(65504.0f), 0x7bff); /* largest fp16 */
    /* round to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 in fp16 */
    assert_int_equal(aug_prof_float_to_fp16(1.0f + 0x1p-11f), 0x3c00);
    assert_int_equal(aug_prof_float_to_fp16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    /* bf16 keeps 8 bits of mantissa: 1 + 2^-8 is halfway, ties to even (down) */
    assert_int_equal(aug_prof_float_to_bf16(1.0f + 0x1p-8f), 0x3f80);
    assert_int_equal(aug_prof_float_to_bf16(1.0f + 0x1p-8f + 0x1p-16f), 0x3f81);
    /* decoding */
    uint16_t h = 0x3555; /* fp16 0.333251953125 */
    assert_near(aug_prof_decode(AUG_DTYPE_FP16, &h), 0.333251953125, 0);
    unsigned char e4m3 = 0x38; /* exponent 7 = bias, mantissa 0: 1.0 */
    assert_near(aug_prof_decode(AUG_DTYPE_FP8, &e4m3), 1.0, 0);
    e4m3 = 0xb4; /* sign, exponent 6, mantissa 4: -(1 + 4/8) * 2^-1 = -0.75 */
    assert_near(aug_prof_decode(AUG_DTYPE_FP8, &e4m3), -0.75, 0);
}

static void patterns_are_finite_and_varied(void **state) {
    (void)state;
    const enum aug_dtype dts[] = {AUG_DTYPE_FP32, AUG_DTYPE_TF32, AUG_DTYPE_BF16,
                                  AUG_DTYPE_FP16, AUG_DTYPE_FP8, AUG_DTYPE_INT8};
    unsigned char buf[4096], again[4096];
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        size_t e = aug_prof_elt_bytes(dts[d]);
        assert_true(e == 1 || e == 2 || e == 4);
        assert_int_equal(aug_prof_fill(dts[d], buf, sizeof buf, 42), AUG_OK);
        assert_int_equal(aug_prof_fill(dts[d], again, sizeof again, 42), AUG_OK);
        assert_memory_equal(buf, again, sizeof buf);
        double lim = dts[d] == AUG_DTYPE_INT8 ? 127.0 : 2.0;
        int negative = 0, positive = 0, distinct_first = 0;
        float first = aug_prof_decode(dts[d], buf);
        for (size_t i = 0; i < sizeof buf / e; i++) {
            float v = aug_prof_decode(dts[d], buf + i * e);
            if (!isfinite(v) || fabs(v) > lim)
                fail_msg("%s element %zu is %g", aug_dtype_name(dts[d]), i, (double)v);
            negative += v < 0;
            positive += v > 0;
            distinct_first += v != first;
        }
        /* roughly half of each sign, and not a constant */
        assert_true(negative > (int)(sizeof buf / e) / 4);
        assert_true(positive > (int)(sizeof buf / e) / 4);
        assert_true(distinct_first > (int)(sizeof buf / e) / 2);
    }
    /* another seed gives other data */
    assert_int_equal(aug_prof_fill(AUG_DTYPE_BF16, again, sizeof again, 43), AUG_OK);
    assert_int_equal(aug_prof_fill(AUG_DTYPE_BF16, buf, sizeof buf, 42), AUG_OK);
    assert_true(memcmp(buf, again, sizeof buf) != 0);
}

static void rejects(void **state) {
    (void)state;
    unsigned char buf[8];
    assert_int_equal(aug_prof_fill(AUG_DTYPE_INT4, buf, sizeof buf, 1), AUG_EUNSUPPORTED);
    assert_int_equal(aug_prof_fill(AUG_DTYPE_FP32, buf, 6, 1), AUG_EDATA); /* 1.5 floats */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conversions),
        cmocka_unit_test(patterns_are_finite_and_varied),
        cmocka_unit_test(rejects),
    };
    return cmocka_run_group_tests_name("profiler fill", tests, NULL, NULL);
}
