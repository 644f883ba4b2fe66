/* test_gpuid.c - kernels-db GPU ids from CUDA device names (gpuid.c), and id checks. */
#include "../aug_test.h"

#include "augur/status.h"
#include "gpuid.h"

static void expect(const char *name, const char *id) {
    char buf[64];
    assert_int_equal(aug_prof_gpu_id(name, buf, sizeof buf), AUG_OK);
    if (strcmp(buf, id) != 0)
        fail_msg("'%s' -> '%s', expected '%s'", name, buf, id);
}

static void device_names(void **state) {
    (void)state;
    expect("NVIDIA H100 80GB HBM3", "h100-80g");
    expect("NVIDIA A100-SXM4-80GB", "a100-80g");
    expect("NVIDIA A100-SXM4-40GB", "a100-40g");
    expect("NVIDIA A100 80GB PCIe", "a100-pcie-80g");
    expect("NVIDIA H100 PCIe", "h100-pcie");
    expect("NVIDIA H200", "h200");
    expect("NVIDIA B200", "b200");
    expect("NVIDIA GH200 480GB", "gh200-480g");
    expect("Tesla V100-SXM2-32GB", "v100-32g");
    expect("NVIDIA GeForce RTX 4090", "rtx-4090");
    expect("NVIDIA H800", "h800");
}

static void bad_names(void **state) {
    (void)state;
    char buf[8];
    assert_int_equal(aug_prof_gpu_id("NVIDIA", buf, sizeof buf), AUG_EDATA);
    assert_int_equal(aug_prof_gpu_id("NVIDIA A100-SXM4-80GB-with-a-long-tail", buf, sizeof buf),
                     AUG_EDATA); /* does not fit 8 bytes */
    assert_int_equal(aug_prof_gpu_id(NULL, buf, sizeof buf), AUG_EDATA);
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
        cmocka_unit_test(bad_names),
        cmocka_unit_test(id_check),
    };
    return cmocka_run_group_tests_name("profiler gpu ids", tests, NULL, NULL);
}
