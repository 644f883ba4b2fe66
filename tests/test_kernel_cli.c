/* SPDX-License-Identifier: Apache-2.0 */
/* test_kernel_cli.c - `augur kernel` with the kernel model v2 as a script sees it: the
 * --timing option, the `extrapolated` flag and its note, the structural model's plan, and
 * usage errors. Runs $AUGUR_BIN as a subprocess; skipped when it is not set. */
#include "aug_cli_run.h"

#include <jansson.h>

static int group_setup(void **state) {
    (void)state;
    return aug_cli_run_setup("aug_kcli_test_");
}

static int group_teardown(void **state) {
    (void)state;
    aug_cli_run_teardown(NULL, 0);
    return 0;
}

static json_t *json_out(void) {
    json_error_t e;
    json_t *o = json_loads(out_buf, 0, &e);
    if (!o)
        fail_msg("not JSON (%s): %s", e.text, out_buf);
    return o;
}

/* An 8 GB elementwise kernel on H100 is far beyond the seeded curve (measured to 201 MB):
 * flagged, and no faster than 8e9 B at 3350 GB/s. The host view adds torch.add's 10 us
 * in front (the kernel, > 17 us, shows). */
static void test_timing_and_extrapolation(void **state) {
    (void)state;
    expect_exit(RUN("kernel", "memory", "--gpu", "h100-80g", "--bytes", "8G", "--format",
                    "json"), 0);
    json_t *o = json_out();
    assert_true(json_is_true(json_object_get(o, "extrapolated")));
    double t = json_real_value(json_object_get(o, "time_s"));
    assert_true(t >= 8e9 / 3350e9);
    assert_string_equal(json_string_value(json_object_get(o, "timing")), "kernel");
    json_decref(o);
    expect_exit(RUN("kernel", "memory", "--gpu", "h100-80g", "--bytes", "8G", "--timing",
                    "host", "--format", "json"), 0);
    o = json_out();
    assert_rel(json_real_value(json_object_get(o, "time_s")), t + 10e-6, 1e-9);
    assert_rel(json_real_value(json_object_get(o, "kernel_time_s")), t, 1e-12);
    json_decref(o);
    expect_exit(RUN("kernel", "memory", "--gpu", "h100-80g", "--bytes", "8G"), 0);
    out_has("extrapolated");
    out_has("note:");
    expect_exit(RUN("kernel", "memory", "--gpu", "h100-80g", "--bytes", "8G", "--timing",
                    "wall"), 2);
    err_has("--timing");
}

/* A GPU with a spec row and no kernels-db folder (L4) is timed by the structural model in
 * every dtype it has: fp8 8192^3 on L4's 58 SMs picks 256 x 128 tiles, 2048 tiles; L4 is
 * sm_89, so the stream-K hybrid runs 35 full waves and spreads the other 18 tiles over
 * the 58 SMs: 35 + 18/58 = 35.3103 waves (data-parallel: ceil(2048 / 58) = 36). */
static void test_unprofiled_gpu_plan(void **state) {
    (void)state;
    expect_exit(RUN("kernel", "gemm", "--gpu", "l4-24g", "--m", "8192", "--n", "8192", "--k",
                    "8192", "--dtype", "fp8", "--format", "json"), 0);
    json_t *o = json_out();
    assert_string_equal(json_string_value(json_object_get(o, "source")), "fallback");
    assert_string_equal(json_string_value(json_object_get(o, "model_tile")), "256x128x64");
    assert_rel(json_real_value(json_object_get(o, "model_waves")), 35 + 18.0 / 58, 1e-9);
    assert_rel(json_real_value(json_object_get(o, "model_last_wave")), 18.0 / 58, 1e-9);
    assert_true(json_is_true(json_object_get(o, "model_stream_k")));
    /* fp8 main loops run at the whole ceiling (no sweep to fit a sustained share) */
    assert_rel(json_real_value(json_object_get(o, "model_mainloop_tflops")),
               json_real_value(json_object_get(o, "model_ceiling_tflops")), 1e-12);
    json_decref(o);
}

/* H200 has no table of its own: its bf16 GEMM comes from the H100 curve, rescaled, and the
 * output says so; H100's own curve carries no origin. */
/* torch.bmm-shaped SGEMM on A100 (--batch 64 of 64 x 64 x 64, fp32): cuBLAS's one batched
 * tile on sm_80, 128 x 128, no k split; 64 tiles on 108 SMs leave each busy SM one CTA of
 * its two, half a wave: 2.5 + 0.5 x 2 x 128 x 128 x 64 / (16.575e12 / 216) = 16.164 us of
 * model time (test_kernel_model derives the same) */
static void test_batched_sgemm_plan(void **state) {
    (void)state;
    expect_exit(RUN("kernel", "gemm", "--gpu", "a100-80g", "--m", "64", "--n", "64", "--k",
                    "64", "--batch", "64", "--dtype", "fp32", "--format", "json"), 0);
    json_t *o = json_out();
    assert_string_equal(json_string_value(json_object_get(o, "model_tile")), "128x128x8");
    assert_rel(json_real_value(json_object_get(o, "model_split_k")), 1, 0);
    assert_rel(json_real_value(json_object_get(o, "model_last_wave")), 0.5, 1e-12);
    assert_rel(json_real_value(json_object_get(o, "model_time_s")), 16.164e-6, 1e-4);
    json_decref(o);
}

static void test_transferred_curve_origin(void **state) {
    (void)state;
    expect_exit(RUN("kernel", "gemm", "--gpu", "h200-141g", "--m", "4096", "--n", "4096",
                    "--k", "4096", "--dtype", "bf16", "--format", "json"), 0);
    json_t *o = json_out();
    assert_string_equal(json_string_value(json_object_get(o, "source")), "curve");
    const char *orig = json_string_value(json_object_get(o, "curve_origin"));
    assert_non_null(orig);
    assert_non_null(strstr(orig, "kernels-db/h100-80g"));
    json_decref(o);
    expect_exit(RUN("kernel", "gemm", "--gpu", "h100-80g", "--m", "4096", "--n", "4096",
                    "--k", "4096", "--dtype", "bf16", "--format", "json"), 0);
    o = json_out();
    assert_null(json_object_get(o, "curve_origin"));
    /* a bf16 main loop runs at 0.89 of H100's best-shape 792.1 TFLOP/s = 704.969 */
    assert_rel(json_real_value(json_object_get(o, "model_ceiling_tflops")), 792.1, 1e-9);
    assert_rel(json_real_value(json_object_get(o, "model_mainloop_tflops")), 704.969, 1e-9);
    json_decref(o);
}

/* B200 has no GEMM sweep: its main loop runs at 0.89 x the gemm_scale 0.75 fitted on
 * published runs of its 1745 TFLOP/s best-shape rate (1164.8 TFLOP/s), and the output
 * names that share and where it comes from; H100 shows none. */
static void test_gemm_scale_shown(void **state) {
    (void)state;
    expect_exit(RUN("kernel", "gemm", "--gpu", "b200-180g", "--m", "8192", "--n", "8192", "--k",
                    "8192", "--format", "json"), 0);
    json_t *o = json_out();
    assert_rel(json_real_value(json_object_get(o, "model_ceiling_tflops")), 1745.0, 1e-12);
    assert_rel(json_real_value(json_object_get(o, "model_mainloop_tflops")), 0.89 * 0.75 * 1745.0,
               1e-12);
    assert_rel(json_real_value(json_object_get(o, "model_gemm_scale")), 0.75, 1e-12);
    assert_non_null(strstr(json_string_value(json_object_get(o, "model_gemm_scale_origin")),
                           "fitted on published training runs"));
    json_decref(o);
    expect_exit(RUN("kernel", "gemm", "--gpu", "h100-80g", "--m", "8192", "--n", "8192", "--k",
                    "8192", "--format", "json"), 0);
    o = json_out();
    assert_null(json_object_get(o, "model_gemm_scale"));
    json_decref(o);
}

/* The same causal 16k attention forward on H100 with FlashAttention-2 takes 1 / 0.5882 of
 * the cuDNN kernel's main loop (test_kernel_model.c derives the factor); on A100 alike. */
static void test_attention_kernel_option(void **state) {
    (void)state;
    double t[2];
    static char cudnn[] = "cudnn", fa2[] = "fa2";
    char *k[] = {cudnn, fa2};
    for (int i = 0; i < 2; i++) {
        expect_exit(RUN("kernel", "attention", "--gpu", "h100-80g", "--batch", "1", "--heads",
                        "16", "--seq", "16384", "--head-dim", "128", "--causal",
                        "--attention-kernel", k[i], "--format", "json"), 0);
        json_t *o = json_out();
        assert_string_equal(json_string_value(json_object_get(o, "attention_kernel")), k[i]);
        t[i] = json_real_value(json_object_get(o, "time_s"));
        json_decref(o);
    }
    assert_true(t[1] / t[0] > 1.67 && t[1] / t[0] < 1.73);
    /* a head of 80 runs FA2's kernel for 96 (static_switch.h) and cuDNN's for 80; on A100
     * the softmax step is e = 16.0067 columns (test_kernel_model.c), so the rate against
     * 128's is 80 / 96.0067 x 144.0067 / 128 = 0.937478 and 96 / 112.0067 x 1.125052 =
     * 0.964273 */
    for (int i = 0; i < 2; i++) {
        expect_exit(RUN("kernel", "attention", "--gpu", "a100-80g", "--batch", "8", "--heads",
                        "32", "--seq", "2048", "--head-dim", "80", "--causal",
                        "--attention-kernel", k[i], "--format", "json"), 0);
        json_t *o = json_out();
        assert_near(json_real_value(json_object_get(o, "model_head_dim")), i ? 96 : 80, 0);
        assert_near(json_real_value(json_object_get(o, "model_head_dim_rate")),
                    i ? 0.964273 : 0.937478, 2e-6);
        json_decref(o);
    }
    expect_exit(RUN("kernel", "attention", "--gpu", "a100-80g", "--batch", "8", "--heads", "32",
                    "--seq", "2048", "--head-dim", "80", "--attention-kernel", "fa2", "--roofline",
                    "--format", "json"), 0);
    json_t *r = json_out();
    assert_null(json_object_get(r, "model_head_dim")); /* no main loop in a roofline */
    assert_null(json_object_get(r, "model_head_dim_rate"));
    json_decref(r);
    expect_exit(RUN("kernel", "attention", "--gpu", "a100-80g", "--batch", "1", "--heads", "16",
                    "--seq", "16384", "--head-dim", "128", "--attention-kernel", "xformers"), 2);
    err_has("--attention-kernel");
}

/* --window 1024 on a causal A100 forward of 32 heads x 4096 tokens, head dim 128: the
 * queries see 1024 x 1025 / 2 + 3072 x 1024 = 3,670,528 pairs per head instead of
 * 4096 x 4097 / 2 = 8,390,656 (4 x 128 FLOPs each), and the kernel visits 504 key blocks
 * per head instead of 1056 (test_kernel_model.c test_attention_window). A window needs
 * --causal; one as long as the keys is none. */
static void test_window_option(void **state) {
    (void)state;
    double t[2], fl[2];
    for (int i = 0; i < 2; i++) {
        expect_exit(RUN("kernel", "attention", "--gpu", "a100-80g", "--batch", "1", "--heads",
                        "32", "--seq", "4096", "--head-dim", "128", "--causal", "--window",
                        i ? "1024" : "4096", "--format", "json"), 0);
        json_t *o = json_out();
        t[i] = json_real_value(json_object_get(o, "time_s"));
        fl[i] = json_real_value(json_object_get(o, "flops"));
        assert_true(i ? json_real_value(json_object_get(o, "window")) == 1024
                      : json_object_get(o, "window") == NULL);
        json_decref(o);
    }
    assert_rel(fl[0], 4.0 * 32 * 128 * 8390656.0, 1e-9); /* JSON keeps 12 digits */
    assert_rel(fl[1], 4.0 * 32 * 128 * 3670528.0, 1e-9);
    assert_true(t[1] / t[0] > 0.45 && t[1] / t[0] < 0.50); /* 504 / 1056 = 0.477 */
    expect_exit(RUN("kernel", "attention", "--gpu", "a100-80g", "--heads", "32", "--seq",
                    "4096", "--head-dim", "128", "--window", "1024"), 2);
    err_has("--window needs --causal");
    /* --chunked: 4 chunks of 1024 x 1025 / 2 = 2,099,200 pairs, 288 key blocks per head */
    expect_exit(RUN("kernel", "attention", "--gpu", "a100-80g", "--batch", "1", "--heads", "32",
                    "--seq", "4096", "--head-dim", "128", "--causal", "--window", "1024",
                    "--chunked", "--format", "json"), 0);
    json_t *o = json_out();
    assert_rel(json_real_value(json_object_get(o, "flops")), 4.0 * 32 * 128 * 2099200.0, 1e-9);
    assert_true(json_is_true(json_object_get(o, "chunked")));
    assert_rel(json_real_value(json_object_get(o, "time_s")) / t[0], 288.0 / 1056, 0.03);
    json_decref(o);
    expect_exit(RUN("kernel", "attention", "--gpu", "a100-80g", "--heads", "32", "--seq",
                    "4096", "--head-dim", "128", "--causal", "--chunked"), 2);
    err_has("--chunked needs --window");
}

/* DeepSeek-V3's latent attention on H800 with FlashAttention-3 (--head-dim 192 --head-dim-v
 * 128, 128 heads, 4096 causal tokens): 4096 x 4097 / 2 = 8,390,656 pairs per head, each
 * 2 x 192 FLOPs for q.k and 2 x 128 for p.v: 128 x 8,390,656 x 640 = 687,362,539,520 FLOPs;
 * Q and K 192 wide, V and O 128, 2 B each: 2 x 4096 x 128 x 640 = 671,088,640 B. FA3 has
 * kernels for both widths, so the main loop runs on their mean, 160; a plain --head-dim 160
 * has the same FLOPs and bytes but pads to FA3's 192 kernel: 160 / 192 of its time. */
static void test_head_dim_v_option(void **state) {
    (void)state;
    double t[2];
    for (int i = 0; i < 2; i++) {
        if (i)
            expect_exit(RUN("kernel", "attention", "--gpu", "h800-80g", "--batch", "1",
                            "--heads", "128", "--seq", "4096", "--head-dim", "160", "--causal",
                            "--attention-kernel", "fa3", "--format", "json"), 0);
        else
            expect_exit(RUN("kernel", "attention", "--gpu", "h800-80g", "--batch", "1",
                            "--heads", "128", "--seq", "4096", "--head-dim", "192",
                            "--head-dim-v", "128", "--causal", "--attention-kernel", "fa3",
                            "--format", "json"), 0);
        json_t *o = json_out();
        assert_rel(json_real_value(json_object_get(o, "flops")), 687362539520.0, 1e-9);
        assert_rel(json_real_value(json_object_get(o, "bytes")), 671088640.0, 1e-9);
        assert_near(json_real_value(json_object_get(o, "model_head_dim")), i ? 192 : 160, 0);
        t[i] = json_real_value(json_object_get(o, "time_s"));
        json_decref(o);
    }
    assert_rel(t[0] / t[1], 160.0 / 192.0, 0.01);
    /* a value width equal to the q.k width is no MLA head */
    expect_exit(RUN("kernel", "attention", "--gpu", "h800-80g", "--batch", "1", "--heads",
                    "128", "--seq", "4096", "--head-dim", "160", "--head-dim-v", "160",
                    "--causal", "--attention-kernel", "fa3", "--format", "json"), 0);
    json_t *o = json_out();
    assert_rel(json_real_value(json_object_get(o, "time_s")), t[1], 1e-9);
    json_decref(o);
    expect_exit(RUN("kernel", "attention", "--gpu", "h800-80g", "--batch", "1", "--heads",
                    "128", "--seq", "4096", "--head-dim", "192", "--head-dim-v", "-1"), 2);
    err_has("--head-dim-v");
}

/* --kv-heads: a decode step of 16 sequences over 8192 cached tokens, 64 query heads of 128
 * in bf16, reads Q and writes O (2 x 64 x 1 rows) and reads K and V once per KV head
 * (2 x kv x 8192 rows): 2 B x 16 x 128 x (128 + 2 kv 8192) = 537,395,200 bytes with 8 KV
 * heads and 4,295,491,584 without grouping. Both are memory-bound with 1,024 CTAs (no
 * split-KV on 132 SMs), so the times differ by the extra bytes over H100's achievable HBM
 * bandwidth, 0.9 x 3350 GB/s. Heads must split into equal groups. */
static void test_kv_heads_option(void **state) {
    (void)state;
    double t[2], b[2];
    for (int i = 0; i < 2; i++) {
        if (i)
            expect_exit(RUN("kernel", "attention", "--gpu", "h100-80g", "--batch", "16",
                            "--heads", "64", "--seq", "1", "--seq-kv", "8192", "--head-dim",
                            "128", "--format", "json"), 0);
        else
            expect_exit(RUN("kernel", "attention", "--gpu", "h100-80g", "--batch", "16",
                            "--heads", "64", "--kv-heads", "8", "--seq", "1", "--seq-kv",
                            "8192", "--head-dim", "128", "--format", "json"), 0);
        json_t *o = json_out();
        assert_string_equal(json_string_value(json_object_get(o, "bound")), "memory");
        if (i) /* no grouping: no kv_heads line */
            assert_null(json_object_get(o, "kv_heads"));
        else
            assert_near(json_real_value(json_object_get(o, "kv_heads")), 8, 0);
        b[i] = json_real_value(json_object_get(o, "bytes"));
        t[i] = json_real_value(json_object_get(o, "time_s"));
        json_decref(o);
    }
    assert_rel(b[0], 537395200.0, 1e-12);
    assert_rel(b[1], 4295491584.0, 1e-12);
    assert_rel(t[1] - t[0], (b[1] - b[0]) / (0.9 * 3350e9), 1e-6);
    expect_exit(RUN("kernel", "attention", "--gpu", "h100-80g", "--batch", "16", "--heads",
                    "64", "--kv-heads", "7", "--seq", "1", "--seq-kv", "8192", "--head-dim",
                    "128"), 2);
    err_has("--kv-heads 7 must be a whole divisor of --heads 64");
    expect_exit(RUN("kernel", "attention", "--gpu", "h100-80g", "--batch", "16", "--heads",
                    "64", "--kv-heads", "128", "--seq", "1", "--seq-kv", "8192", "--head-dim",
                    "128"), 2);
    err_has("--kv-heads 128");
    expect_exit(RUN("kernel", "attention", "--gpu", "h100-80g", "--batch", "16", "--heads",
                    "64", "--kv-heads", "2.5", "--seq", "1", "--seq-kv", "8192", "--head-dim",
                    "128"), 2);
    err_has("not a whole number");
}

/* --accumulator split on an H100 fp8 8192^3 GEMM: the main loop runs at 1280 / 1.15 =
 * 1113.04 TFLOP/s (the ceiling stays 1280) and the time grows by 0.15 x 858.993 us =
 * 128.849 us (test_kernel_model.c derives it); bf16 and non-GEMM kernels refuse it. */
static void test_accumulator_option(void **state) {
    (void)state;
    double t[2];
    static char fast[] = "fast", split[] = "split";
    char *a[] = {fast, split};
    for (int i = 0; i < 2; i++) {
        expect_exit(RUN("kernel", "gemm", "--gpu", "h100-80g", "--m", "8192", "--n", "8192",
                        "--k", "8192", "--dtype", "fp8", "--accumulator", a[i], "--format",
                        "json"), 0);
        json_t *o = json_out();
        assert_string_equal(json_string_value(json_object_get(o, "accumulator")), a[i]);
        assert_rel(json_real_value(json_object_get(o, "model_ceiling_tflops")), 1280, 1e-9);
        assert_rel(json_real_value(json_object_get(o, "model_mainloop_tflops")),
                   i ? 1280 / 1.15 : 1280, 1e-9);
        t[i] = json_real_value(json_object_get(o, "time_s"));
        json_decref(o);
    }
    assert_rel(t[1] - t[0], 128.849e-6, 1e-5);
    expect_exit(RUN("kernel", "gemm", "--gpu", "h100-80g", "--m", "64", "--n", "64", "--k",
                    "64", "--accumulator", "split"), 2);
    err_has("fp8 GEMMs only");
    expect_exit(RUN("kernel", "memory", "--gpu", "h100-80g", "--bytes", "1M", "--accumulator",
                    "split"), 2);
    err_has("gemm only");
    expect_exit(RUN("kernel", "gemm", "--gpu", "h100-80g", "--m", "64", "--n", "64", "--k",
                    "64", "--dtype", "fp8", "--accumulator", "slow"), 2);
    err_has("not fast or split");
}

int main(void) {

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timing_and_extrapolation),
        cmocka_unit_test(test_unprofiled_gpu_plan),
        cmocka_unit_test(test_batched_sgemm_plan),
        cmocka_unit_test(test_gemm_scale_shown),
        cmocka_unit_test(test_transferred_curve_origin),
        cmocka_unit_test(test_attention_kernel_option),
        cmocka_unit_test(test_window_option),
        cmocka_unit_test(test_head_dim_v_option),
        cmocka_unit_test(test_kv_heads_option),
        cmocka_unit_test(test_accumulator_option),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
