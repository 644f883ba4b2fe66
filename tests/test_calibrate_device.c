/* SPDX-License-Identifier: Apache-2.0 */
/* test_calibrate_device.c - `augur calibrate --import nccl-tests` reads the GPU model from
 * the log's Rank lines and refuses to write it into another GPU's kernels-db folder unless
 * --force; the matching GPU is accepted. */
#include "aug_cli_run.h"

static char log_path[160];

static int setup(void **state) {
    (void)state;
    if (aug_cli_run_setup("augcald") != 0)
        return -1;
    snprintf(log_path, sizeof log_path, "%s/all_reduce_perf.log", tmp_root);
    FILE *f = fopen(log_path, "w");
    if (!f)
        return -1;
    /* 8 A100 on one node; bus bandwidth rising with size as NVLink rings do */
    fputs("# nThread 1 nGpus 8 minBytes 1048576 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n", f);
    for (int r = 0; r < 8; r++)
        fprintf(f, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x%02x] NVIDIA A100-SXM4-80GB\n",
                r, 100, "dgx1", r, 7 + r);
    fputs("#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
          "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n", f);
    double t = 40.0;
    for (long b = 1048576; b <= 268435456L; b *= 2) {
        t = 20.0 + (double)b * 1.75 / 230e3; /* 20 us + bytes x 2(n-1)/n at 230 GB/s, in us */
        fprintf(f, "%12ld  %12ld  %8s  %6s  %6d  %7.1f  %6.2f  %6.2f  %6d  %7.1f  %6.2f  %6.2f  %6d\n",
                b, b / 4, "float", "sum", -1, t, 1.0, 1.0, 0, t * 1.01, 1.0, 1.0, 0);
    }
    fclose(f);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    static const char *const files[] = {"all_reduce_perf.log", "curves.csv"};
    aug_cli_run_teardown(files, 2);
    return 0;
}

static void refuses_other_gpu(void **state) {
    (void)state;
    if (!bin)
        skip();
    char out[200];
    snprintf(out, sizeof out, "%s/curves.csv", tmp_root);
    expect_exit(RUN("calibrate", "--gpu", "h100-80g", "--import", "nccl-tests", log_path,
                    "--output", out), 1);
    err_has("measured on a 'NVIDIA A100-SXM4-80GB', which is not GPU 'h100-80g' (H100 SXM5 80GB)");
    err_has("--force");
    expect_exit(RUN("calibrate", "--gpu", "a100-40g", "--import", "nccl-tests", log_path,
                    "--output", out), 1);
    err_has("which is not GPU 'a100-40g'");
    /* the right GPU, and another one when forced */
    expect_exit(RUN("calibrate", "--gpu", "a100-80g", "--import", "nccl-tests", log_path,
                    "--output", "-"), 0);
    out_has("all_reduce"); /* the fitted curve, printed to stdout */
    expect_exit(RUN("calibrate", "--gpu", "h100-80g", "--import", "nccl-tests", log_path,
                    "--output", out, "--force"), 0);
    err_has("imported into 'h100-80g' as --force asks");
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(refuses_other_gpu)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
