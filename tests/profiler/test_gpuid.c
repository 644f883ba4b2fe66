/* SPDX-License-Identifier: Apache-2.0 */
/* test_gpuid.c - kernels-db GPU ids from CUDA device names (gpuid.c), and id checks. */
#include "../aug_test.h"

#include "augur/csvio.h"
#include "augur/status.h"
#include "gpuid.h"

static void expect(const char *name, const char *id, int known) {
    char buf[64];
    int k = -1;
    assert_int_equal(aug_prof_gpu_id(name, buf, sizeof buf, &k), AUG_OK);
    if (strcmp(buf, id) != 0)
        fail_msg("'%s' -> '%s', expected '%s'", name, buf, id);
    assert_int_equal(k, known);
}

static void device_names(void **state) {
    (void)state;
    /* GPUs with a gpus.csv row: their row's id */
    expect("NVIDIA H100 80GB HBM3", "h100-80g", 1);
    expect("NVIDIA A100-SXM4-80GB", "a100-80g", 1);
    expect("NVIDIA A100-SXM4-40GB", "a100-40g", 1);
    expect("NVIDIA H200", "h200-141g", 1);
    expect("nvidia h200 ", "h200-141g", 1); /* case and spacing do not matter */
    expect("NVIDIA B200", "b200-180g", 1);
    expect("NVIDIA GB200", "gb200-186g", 1);
    expect("NVIDIA H800", "h800-80g", 1);
    expect("NVIDIA A100 80GB PCIe", "a100-pcie-80g", 1);
    expect("NVIDIA H100 PCIe", "h100-pcie-80g", 1);
    expect("Tesla V100-SXM2-32GB", "v100-sxm2-32g", 1);
    expect("Tesla T4", "t4-16g", 1);
    /* others: a generated id, flagged unknown (the sweep says how to add a row) */
    expect("NVIDIA H200 NVL", "h200-nvl", 0);
    expect("NVIDIA GH200 480GB", "gh200-480g", 0);
    expect("NVIDIA GeForce RTX 4090", "rtx-4090", 0);
}

/* The driver version in the raw CSV's provenance, from /proc/driver/nvidia/version. The
 * open kernel module's line has "for x86_64" between "Module" and the number; the first
 * H200 sweep recorded "driver: for" from it. */
static void driver_versions(void **state) {
    (void)state;
    char buf[32];
    aug_prof_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                            "580.159.04  Release Build  (dvs-builder@U22-I3-AM02-24-3)  "
                            "Thu Oct  2 21:52:48 UTC 2025\n", buf, sizeof buf);
    assert_string_equal(buf, "580.159.04");
    aug_prof_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  "
                            "Sun Jul 27 07:09:14 UTC 2025\n", buf, sizeof buf);
    assert_string_equal(buf, "580.65.06");
    aug_prof_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  "
                            "570.124.06\n", buf, sizeof buf);
    assert_string_equal(buf, "570.124.06");
    /* no number, no "Kernel Module", or a number too long for the buffer: empty */
    aug_prof_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64\n", buf,
                            sizeof buf);
    assert_string_equal(buf, "");
    aug_prof_driver_version("GCC version:  gcc version 12.2.0", buf, sizeof buf);
    assert_string_equal(buf, "");
    aug_prof_driver_version("Kernel Module 580.159.04", buf, 8);
    assert_string_equal(buf, "");
}

/* Every GPU of kernels-db/gpus.csv is reached from some device name of the table: a row
 * added there without its device name here fails this test. */
static void every_row_is_known(void **state) {
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s/kernels-db/gpus.csv", AUG_TEST_SOURCE_DIR);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    int col = aug_csv_col(t, "gpu_id");
    assert_true(col >= 0);
    assert_true(aug_csv_rows(t) >= 7);
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        const char *id = aug_csv_cell(t, r, col);
        int found = 0;
        for (int i = 0; i < aug_prof_gpu_known_count() && !found; i++) {
            char buf[64];
            int known = 0;
            assert_int_equal(aug_prof_gpu_id(aug_prof_gpu_known_name(i), buf, sizeof buf, &known),
                             AUG_OK);
            found = known && strcmp(buf, id) == 0;
        }
        if (!found)
            fail_msg("gpus.csv row '%s' has no device name in profiler/gpuid.c", id);
    }
    aug_csv_free(t);
}

static void bad_names(void **state) {
    (void)state;
    char buf[8];
    assert_int_equal(aug_prof_gpu_id("NVIDIA", buf, sizeof buf, NULL), AUG_EDATA);
    assert_int_equal(aug_prof_gpu_id("NVIDIA A100-SXM4-80GB-with-a-long-tail", buf, sizeof buf, NULL),
                     AUG_EDATA); /* does not fit 8 bytes */
    assert_int_equal(aug_prof_gpu_id(NULL, buf, sizeof buf, NULL), AUG_EDATA);
}

static void id_check(void **state) {
    (void)state;
    assert_int_equal(aug_prof_gpu_id_check("h100-80g"), AUG_OK);
    assert_int_equal(aug_prof_gpu_id_check("gb200.nvl72"), AUG_OK);
    assert_int_equal(aug_prof_gpu_id_check(""), AUG_EUSAGE);
    assert_int_equal(aug_prof_gpu_id_check("../etc"), AUG_EUSAGE);
    assert_int_equal(aug_prof_gpu_id_check("H100"), AUG_EUSAGE);
    assert_int_equal(aug_prof_gpu_id_check("a/b"), AUG_EUSAGE);
    assert_int_equal(aug_prof_gpu_id_check("-x"), AUG_EUSAGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_names),
        cmocka_unit_test(driver_versions),
        cmocka_unit_test(every_row_is_known),
        cmocka_unit_test(bad_names),
        cmocka_unit_test(id_check),
    };
    return cmocka_run_group_tests_name("profiler gpu ids", tests, NULL, NULL);
}
