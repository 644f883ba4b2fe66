/* SPDX-License-Identifier: Apache-2.0 */
/* test_infer_cli.c - `augur infer` and `augur validate` on inference rows as scripts see
 * them (DESIGN section 3): exit codes (0 ok, 1 failure, 2 usage), one-line "augur: ..."
 * messages that name the problem, the infer JSON keys, the --ops bound analysis in JSON and
 * CSV, and an inference accuracy set scored row by row. Runs $AUGUR_BIN as a subprocess;
 * skipped when it is not set. */
#include "aug_cli_run.h"

#include <jansson.h>

#include "augur/csvio.h"
#include "augur/status.h"

static char csv_path[160];

static int group_setup(void **state) {
    (void)state;
    if (aug_cli_run_setup("aug_infer_cli_") != 0)
        return -1;
    snprintf(csv_path, sizeof csv_path, "%s/inference.csv", tmp_root);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    static const char *const files[] = {"inference.csv"};
    aug_cli_run_teardown(files, 1);
    return 0;
}

#define BASE "infer", "--model", "llama2-7b", "--system", "dgx-h100"

static void test_usage_errors_exit_2(void **state) {
    (void)state;
    expect_exit(RUN("infer", "--help"), 0);
    out_has("--input-len");
    out_has("--decode-attention");
    expect_exit(RUN(BASE, "--batch", "0", "--input-len", "128", "--output-len", "16"), 2);
    err_has("--batch");
    expect_exit(RUN(BASE, "--batch", "4", "--input-len", "128", "--output-len", "0"), 2);
    err_has("--output-len");
    expect_exit(RUN(BASE, "--input-len", "128", "--output-len", "16"), 2);
    err_has("--batch is required");
    expect_exit(RUN(BASE, "--batch", "4", "--input-len", "4000", "--output-len", "200"), 2);
    err_has("maximum context");
    expect_exit(RUN(BASE, "--batch", "4", "--input-len", "128", "--output-len", "16", "--tp", "3"), 2);
    err_has("heads 32 are not divisible by tp 3");
    expect_exit(RUN(BASE, "--batch", "4", "--input-len", "128", "--output-len", "16", "--mode",
                    "bursty"), 2);
    err_has("unknown serving mode 'bursty'");
    expect_exit(RUN(BASE, "--batch", "4", "--input-len", "128", "--output-len", "16", "--dtype",
                    "fp6"), 2);
    err_has("unknown dtype 'fp6'");
}

static void test_failures_exit_1(void **state) {
    (void)state;
    /* quantization the GPU cannot run: a one-line "augur: ..." naming GPU and dtype */
    expect_exit(RUN("infer", "--model", "llama2-7b", "--system", "dgx-a100-80g", "--batch", "4",
                    "--input-len", "128", "--output-len", "16", "--dtype", "fp8"), 1);
    err_has("augur: ");
    err_has("no fp8 tensor-core path");
    const char *nl = strchr(err_buf, '\n');
    assert_true(nl && nl[1] == '\0');
    expect_exit(RUN("infer", "--model", "no-such-model", "--system", "dgx-h100", "--batch", "4",
                    "--input-len", "128", "--output-len", "16"), 1);
    err_has("no-such-model");
}

static double num(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (!v || !json_is_number(v))
        fail_msg("JSON key '%s' missing or not a number", key);
    return json_number_value(v);
}

static void test_json_keys(void **state) {
    (void)state;
    expect_exit(RUN(BASE, "--gpus", "2", "--tp", "2", "--batch", "16", "--input-len", "512",
                    "--output-len", "64", "--dtype", "fp8", "--format", "json"), 0);
    json_error_t e;
    json_t *o = json_loads(out_buf, 0, &e);
    if (!o)
        fail_msg("JSON: %s at line %d", e.text, e.line);
    double ttft = num(o, "ttft_s"), tpot = num(o, "tpot_s"), e2e = num(o, "e2e_latency_s");
    assert_true(ttft > 0 && tpot > 0);
    assert_rel(e2e, ttft + 63.0 * tpot, 1e-9);
    assert_rel(num(o, "throughput_tokens_per_s"), 16.0 * 64.0 / e2e, 1e-9);
    assert_true(num(o, "memory_gib_per_gpu") > 0);
    assert_true(num(o, "max_batch") > 16);
    assert_true(json_is_true(json_object_get(o, "fits_in_memory")));
    json_t *bd = json_object_get(o, "breakdown_s"), *pv = json_object_get(o, "provenance");
    assert_non_null(json_object_get(bd, "prefill"));
    assert_non_null(json_object_get(bd, "decode"));
    assert_true(num(json_object_get(bd, "decode"), "tp_comm") > 0);
    assert_near(num(pv, "calibrated") + num(pv, "fallback") + num(pv, "roofline"), 1.0, 1e-9);
    json_decref(o);

    /* the table says where numbers come from */
    expect_exit(RUN(BASE, "--batch", "1", "--input-len", "128", "--output-len", "8"), 0);
    out_has("share of predicted time by source");
    out_has("floors: kernel launch");
    out_has("TTFT");
    out_has("max batch");
}

static void test_ops_bound_analysis(void **state) {
    (void)state;
    expect_exit(RUN(BASE, "--batch", "1", "--input-len", "2048", "--output-len", "64", "--ops",
                    "--format", "json"), 0);
    json_error_t e;
    json_t *o = json_loads(out_buf, 0, &e);
    if (!o)
        fail_msg("JSON: %s", e.text);
    json_t *ops = json_object_get(o, "ops");
    assert_true(json_is_array(ops) && json_array_size(ops) > 20);
    size_t i;
    json_t *op;
    int decode_qkv = 0, prefill_qkv = 0;
    json_array_foreach(ops, i, op) {
        const char *name = json_string_value(json_object_get(op, "op"));
        const char *phase = json_string_value(json_object_get(op, "phase"));
        const char *bound = json_string_value(json_object_get(op, "bound"));
        if (strcmp(name, "qkv") == 0 && strcmp(phase, "decode") == 0) {
            decode_qkv = 1;
            assert_string_equal(bound, "memory");
        }
        if (strcmp(name, "qkv") == 0 && strcmp(phase, "prefill") == 0) {
            prefill_qkv = 1;
            assert_string_equal(bound, "compute");
            assert_true(num(op, "intensity_flop_per_byte") > num(op, "ridge_flop_per_byte"));
        }
    }
    assert_true(decode_qkv && prefill_qkv);
    json_decref(o);
    expect_exit(RUN(BASE, "--batch", "1", "--input-len", "2048", "--output-len", "64", "--ops",
                    "--format", "csv"), 0);
    assert_true(strncmp(out_buf, "phase,op,kind,count,flops,bytes", 31) == 0);
    /* the shape columns: the prefill QKV GEMM of one 2048-token prompt on one GPU is
     * 2048 x (3 x 4096) x 4096 */
    struct aug_csv *t = NULL;
    if (aug_csv_load_mem("stdout", out_buf, strlen(out_buf), &t) != AUG_OK)
        fail_msg("CSV output does not load: %s", aug_last_error());
    int found = 0;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        if (strcmp(aug_csv_cell(t, r, aug_csv_col(t, "phase")), "prefill") ||
            strcmp(aug_csv_cell(t, r, aug_csv_col(t, "op")), "qkv"))
            continue;
        double m = 0, n = 0, k = 0;
        assert_int_equal(aug_csv_get_double(t, r, "m", AUG_CSV_REQUIRED, &m), AUG_OK);
        assert_int_equal(aug_csv_get_double(t, r, "n", AUG_CSV_REQUIRED, &n), AUG_OK);
        assert_int_equal(aug_csv_get_double(t, r, "k", AUG_CSV_REQUIRED, &k), AUG_OK);
        assert_true(m == 2048 && n == 12288 && k == 4096);
        assert_string_equal(aug_csv_cell(t, r, aug_csv_col(t, "dtype")), "bf16");
        found = 1;
    }
    assert_true(found);
    aug_csv_free(t);
    expect_exit(RUN(BASE, "--batch", "1", "--input-len", "256", "--output-len", "16", "--ops"), 0);
    out_has("bound analysis");
}

static void test_modes(void **state) {
    (void)state;
    expect_exit(RUN(BASE, "--gpus", "2", "--batch", "32", "--input-len", "512", "--output-len",
                    "128", "--mode", "continuous", "--request-rate", "3", "--format", "json"), 0);
    out_has("\"serving\"");
    out_has("\"request_rate\"");
    expect_exit(RUN(BASE, "--gpus", "16", "--tp", "8", "--batch", "8", "--input-len", "512",
                    "--output-len", "64", "--mode", "disaggregated", "--format", "json"), 0);
    out_has("\"kv_transfer_s\"");
    out_has("\"kv_link\": \"network\"");
}

/* An inference accuracy set: two good rows (one per-GPU metric) and one the GPU cannot
 * run (skipped with its reason); a bad value is an error that names file and line. */
static void test_validate_inference_rows(void **state) {
    (void)state;
    FILE *f = fopen(csv_path, "w");
    assert_non_null(f);
    fputs("id,source,source_locator,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,vocab,"
          "mlp,system,gpu,num_gpus,tp,pp,ep,batch,input_len,output_len,dtype,weight_dtype,kv_dtype,"
          "framework,metric,value,unit,notes\n"
          "a,src,,llama2-7b,,,,,,,,,dgx-h100,,1,1,1,,1,128,1,fp8,,,,ttft_s,0.006,s,\n"
          "b,src,,,6,28,4096,16,16,16384,50400,gelu,dgx-a100-80g,,1,1,1,,32,2048,128,fp16,,,,"
          "throughput_tokens_per_s_per_gpu,545,tokens/s/GPU,\n"
          "c,src,,llama2-7b,,,,,,,,,dgx-a100-80g,,1,1,1,,1,128,1,fp8,,,,ttft_s,0.006,s,\n",
          f);
    fclose(f);
    expect_exit(RUN("validate", csv_path, "--format", "json"), 0);
    json_error_t e;
    json_t *o = json_loads(out_buf, 0, &e);
    if (!o)
        fail_msg("JSON: %s", e.text);
    assert_int_equal(json_array_size(json_object_get(o, "rows")), 2);
    assert_int_equal(json_integer_value(json_object_get(o, "predicted_rows")), 2);
    json_t *sk = json_object_get(o, "skipped");
    assert_int_equal(json_array_size(sk), 1);
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(sk, 0), "reason")), "fp8"));
    assert_true(num(o, "mape_pct") < 50.0);
    json_decref(o);

    f = fopen(csv_path, "a");
    fputs("d,src,,llama2-7b,,,,,,,,,dgx-h100,,1,1,1,,1,abc,1,fp8,,,,ttft_s,0.006,s,\n", f);
    fclose(f);
    expect_exit(RUN("validate", csv_path), 1);
    err_has("inference.csv:5");
    err_has("input_len");
}

/* --mode offline and server: a JSON report with the throughput and latency keys, the
 * engine's KV-cache dtype printed with its reason, the same seed giving the same numbers,
 * and the named usage errors (rate 0, a server without a rate, negative lengths,
 * --requests with lengths, an unknown engine). */
static void test_offline_and_server(void **state) {
    (void)state;
    expect_exit(RUN(BASE, "--mode", "offline", "--input-len", "normal:300,50", "--output-len", "64",
                    "--num-requests", "200", "--seed", "9", "--format", "json"), 0);
    out_has("\"throughput_tokens_per_s\"");
    out_has("\"mode\": \"offline\"");
    out_has("\"kv_dtype_source\"");
    char first[sizeof out_buf];
    snprintf(first, sizeof first, "%s", out_buf);
    expect_exit(RUN(BASE, "--mode", "offline", "--input-len", "normal:300,50", "--output-len", "64",
                    "--num-requests", "200", "--seed", "9", "--format", "json"), 0);
    assert_string_equal(first, out_buf);
    expect_exit(RUN(BASE, "--mode", "offline", "--dtype", "fp8", "--input-len", "128",
                    "--output-len", "16", "--num-requests", "50"), 0);
    out_has("KV cache fp8 (TensorRT-LLM FP8 quantization also quantizes the KV cache)");
    expect_exit(RUN(BASE, "--mode", "server", "--input-len", "128", "--output-len", "16",
                    "--request-rate", "5", "--num-requests", "100"), 0);
    out_has("TTFT");
    out_has("sustainable");
    expect_exit(RUN(BASE, "--mode", "server", "--input-len", "128", "--output-len", "16",
                    "--request-rate", "0"), 2);
    err_has("positive rate");
    expect_exit(RUN(BASE, "--mode", "server", "--input-len", "128", "--output-len", "16"), 2);
    err_has("--request-rate");
    expect_exit(RUN(BASE, "--mode", "offline", "--input-len", "-5", "--output-len", "16"), 2);
    err_has("--input-len");
    expect_exit(RUN(BASE, "--mode", "offline", "--requests", "x.csv", "--input-len", "5"), 2);
    err_has("--requests");
    expect_exit(RUN(BASE, "--mode", "offline", "--input-len", "5", "--output-len", "5", "--engine",
                    "tgi"), 2);
    err_has("unknown engine");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_errors_exit_2),
        cmocka_unit_test(test_offline_and_server),
        cmocka_unit_test(test_failures_exit_1),
        cmocka_unit_test(test_json_keys),
        cmocka_unit_test(test_ops_bound_analysis),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_validate_inference_rows),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
