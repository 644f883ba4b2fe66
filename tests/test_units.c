/* SPDX-License-Identifier: Apache-2.0 */
/* test_units.c - strict number and size parsing behind every option and CSV cell:
 * what is accepted (suffixes K M G T in powers of 1000, Ki Mi Gi Ti in powers of 1024,
 * an optional B, integral floats for integers) and what must be refused (garbage,
 * trailing text, NaN/inf, negatives, overflow), with the offending field named. */
#include "aug_test.h"

#include "augur/status.h"
#include "augur/units.h"

static void assert_error_has(const char *needle) {
    const char *msg = aug_last_error();
    if (!strstr(msg, needle))
        fail_msg("error message '%s' lacks '%s'", msg, needle);
}

static double size_ok(const char *s) {
    double v = -1;
    int st = aug_parse_size(s, "--bytes", &v);
    if (st != AUG_OK)
        fail_msg("aug_parse_size('%s') failed: %s", s, aug_last_error());
    return v;
}

static void size_bad(const char *s) {
    double v = 12345;
    int st = aug_parse_size(s, "--bytes", &v);
    if (st != AUG_EDATA)
        fail_msg("aug_parse_size('%s') returned %d (value %g), expected AUG_EDATA", s, st, v);
    assert_near(v, 12345, 0); /* untouched on error */
    assert_error_has("--bytes");
}

static void test_constants(void **state) {
    (void)state;
    assert_near(AUG_GIB, 1073741824.0, 0);
    assert_near(AUG_MIB, 1048576.0, 0);
    assert_near(AUG_GB, 1e9, 0);
    assert_near(AUG_TERA, 1e12, 0);
}

static void test_size_suffixes(void **state) {
    (void)state;
    assert_near(size_ok("512"), 512, 0);
    assert_near(size_ok("0"), 0, 0);
    assert_near(size_ok("1K"), 1000, 0);
    assert_near(size_ok("4KB"), 4000, 0);
    assert_near(size_ok("1Ki"), 1024, 0);
    assert_near(size_ok("64Mi"), 67108864, 0);
    assert_near(size_ok("64MiB"), 67108864, 0);
    assert_near(size_ok("1.5G"), 1.5e9, 0);
    assert_near(size_ok("2GiB"), 2147483648.0, 0);
    assert_near(size_ok("3T"), 3e12, 0);
    assert_near(size_ok("1Ti"), 1099511627776.0, 0);
    assert_near(size_ok("0.5Ki"), 512, 0);
    assert_near(size_ok("1e3"), 1000, 0);
    assert_near(size_ok("1e3Mi"), 1000.0 * 1048576.0, 0);
}

static void test_size_garbage(void **state) {
    (void)state;
    size_bad("");
    size_bad("abc");
    size_bad("K");
    size_bad("12X");     /* unknown suffix */
    size_bad("64Mix");   /* trailing text */
    size_bad("64MiBs");
    size_bad("1 Mi");    /* no blank between number and suffix */
    size_bad("nan");
    size_bad("inf");
    assert_int_equal(aug_parse_size(NULL, "--bytes", &(double){0}), AUG_EDATA);
}

static void test_size_negative(void **state) {
    (void)state;
    size_bad("-1");
    assert_error_has("negative");
    size_bad("-1K");
    size_bad("-0.5Gi");
}

static void test_size_overflow(void **state) {
    (void)state;
    size_bad("1e400");   /* strtod overflow */
    size_bad("1e400Ki");
}

/* A finite number times its suffix can overflow to infinity: "1e300T" is 1e312 bytes,
 * beyond a double, and must be refused like "1e400" rather than returned as inf. */
static void test_size_overflow_after_suffix(void **state) {
    (void)state;
    double v = 7;
    int st = aug_parse_size("1e300T", "--bytes", &v);
    if (st == AUG_OK)
        fail_msg("aug_parse_size(\"1e300T\") accepted, value %g (not finite)", v);
    assert_int_equal(st, AUG_EDATA);
    assert_error_has("--bytes");
}

static void test_double(void **state) {
    (void)state;
    double v = 0;
    assert_int_equal(aug_parse_double("1.5", "x", &v), AUG_OK);
    assert_near(v, 1.5, 0);
    assert_int_equal(aug_parse_double("-3.25", "x", &v), AUG_OK);
    assert_near(v, -3.25, 0);
    assert_int_equal(aug_parse_double("2.5e-3 ", "x", &v), AUG_OK); /* trailing blanks ok */
    assert_near(v, 2.5e-3, 0);
    assert_int_equal(aug_parse_double("1e308", "x", &v), AUG_OK);
    assert_near(v, 1e308, 0);

    v = 9;
    assert_int_equal(aug_parse_double("1.5x", "--max-mape", &v), AUG_EDATA);
    assert_error_has("--max-mape");
    assert_error_has("'1.5x'");
    assert_near(v, 9, 0);
    assert_int_equal(aug_parse_double("", "--seq", &v), AUG_EDATA);
    assert_error_has("--seq");
    assert_int_equal(aug_parse_double(NULL, "--seq", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("abc", "f", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("nan", "f", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("NaN", "f", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("inf", "f", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("-infinity", "f", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("1e400", "f", &v), AUG_EDATA); /* overflow */
    assert_int_equal(aug_parse_double("-1e400", "f", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("1.5 2", "f", &v), AUG_EDATA);
    assert_int_equal(aug_parse_double("--1", "f", &v), AUG_EDATA);
    assert_near(v, 9, 0);
}

static void test_long(void **state) {
    (void)state;
    long v = 0;
    assert_int_equal(aug_parse_long("42", "--tp", 1, 100, &v), AUG_OK);
    assert_int_equal(v, 42);
    assert_int_equal(aug_parse_long("-7", "n", -10, 10, &v), AUG_OK);
    assert_int_equal(v, -7);
    assert_int_equal(aug_parse_long("8.0", "n", 0, 100, &v), AUG_OK); /* spreadsheet style */
    assert_int_equal(v, 8);
    assert_int_equal(aug_parse_long("1e3", "n", 0, 10000, &v), AUG_OK);
    assert_int_equal(v, 1000);
    assert_int_equal(aug_parse_long("1", "n", 1, 1, &v), AUG_OK); /* inclusive bounds */
    assert_int_equal(aug_parse_long("9223372036854775807", "n", 0, 9223372036854775807L, &v),
                     AUG_OK);
    assert_true(v == 9223372036854775807L);

    v = 5;
    assert_int_equal(aug_parse_long("11", "--pp", 0, 10, &v), AUG_EDATA);
    assert_error_has("--pp");
    assert_error_has("outside");
    assert_int_equal(aug_parse_long("-1", "--pp", 0, 10, &v), AUG_EDATA);
    assert_int_equal(aug_parse_long("0", "--gpus", 1, 10, &v), AUG_EDATA);
    assert_int_equal(aug_parse_long("2.5", "--gpus", 1, 10, &v), AUG_EDATA);
    assert_error_has("--gpus");
    assert_error_has("'2.5'");
    assert_int_equal(aug_parse_long("abc", "n", 0, 10, &v), AUG_EDATA);
    assert_int_equal(aug_parse_long("12abc", "n", 0, 100, &v), AUG_EDATA);
    assert_int_equal(aug_parse_long("", "n", 0, 10, &v), AUG_EDATA);
    assert_int_equal(aug_parse_long(NULL, "n", 0, 10, &v), AUG_EDATA);
    assert_int_equal(aug_parse_long("nan", "n", 0, 10, &v), AUG_EDATA);
    assert_int_equal(aug_parse_long("9223372036854775808", "n", 0, 9223372036854775807L, &v),
                     AUG_EDATA); /* overflow */
    assert_int_equal(aug_parse_long("-9223372036854775809", "n", -9223372036854775807L - 1, 0, &v),
                     AUG_EDATA);
    assert_int_equal(aug_parse_long("1e300", "n", 0, 9223372036854775807L, &v), AUG_EDATA);
    assert_int_equal(v, 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_size_suffixes),
        cmocka_unit_test(test_size_garbage),
        cmocka_unit_test(test_size_negative),
        cmocka_unit_test(test_size_overflow),
        cmocka_unit_test(test_size_overflow_after_suffix),
        cmocka_unit_test(test_double),
        cmocka_unit_test(test_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
