/* SPDX-License-Identifier: Apache-2.0 */
/* test_output_schemas.c - the JSON every command prints validates against its schema in
 * predictor/schemas/ (schema_version, every required key, types, signs); CSV columns do not depend on
 * the kind of model; `augur train --plan` reproduces a plan that `augur sweep train`
 * printed. The validator is tests/json_schema_subset.h (no Debian C package validates
 * JSON Schema); its own cases come first so that a validator that accepts everything
 * fails here. */
#include "aug_cli_run.h"

#include <jansson.h>

#include "augur/plan.h"
#include "augur/status.h"
#include "json_schema_subset.h"

static int setup(void **state) {
    (void)state;
    return aug_cli_run_setup("augsch");
}

static int teardown(void **state) {
    (void)state;
    static const char *const files[] = {"sweep.json"};
    aug_cli_run_teardown(files, 1);
    return 0;
}

static json_t *parse(const char *text) {
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (!j)
        fail_msg("not JSON: %s (line %d)", e.text, e.line);
    return j;
}

static void validator_catches(void **state) {
    (void)state;
    json_t *s = parse("{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{"
                      "\"a\":{\"type\":\"number\",\"minimum\":0},"
                      "\"b\":{\"type\":[\"string\",\"null\"]},"
                      "\"c\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
                      "\"v\":{\"const\":1}}}");
    char err[512];
    const char *good[] = {"{\"a\":3,\"b\":null,\"c\":[1,2],\"v\":1}", "{\"a\":0.5,\"b\":\"x\"}"};
    const char *bad[][2] = {{"{\"b\":\"x\"}", "required key 'a'"},
                            {"{\"a\":\"3\"}", "$.a: expected type"},
                            {"{\"a\":-1}", "$.a: -1 is below the minimum 0"},
                            {"{\"a\":1,\"b\":2}", "$.b: expected type"},
                            {"{\"a\":1,\"c\":[1,2.5]}", "$.c[1]: expected type"},
                            {"{\"a\":1,\"v\":2}", "$.v: not the constant"},
                            {"[1]", "$: expected type"}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        json_t *v = parse(good[i]);
        if (aug_js_validate(s, v, "$", err, sizeof err))
            fail_msg("%s rejected: %s", good[i], err);
        json_decref(v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *v = json_loads(bad[i][0], JSON_DECODE_ANY, NULL);
        assert_non_null(v);
        if (!aug_js_validate(s, v, "$", err, sizeof err))
            fail_msg("%s accepted", bad[i][0]);
        if (!strstr(err, bad[i][1]))
            fail_msg("%s: '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
        json_decref(v);
    }
    json_decref(s);
    /* a map: every key's value against additionalProperties */
    s = parse("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}}");
    json_t *m = parse("{\"x\":1,\"y\":\"2\"}");
    assert_int_equal(aug_js_validate(s, m, "$", err, sizeof err), 1);
    assert_non_null(strstr(err, "$.y: expected type"));
    json_decref(m);
    json_decref(s);
    /* a keyword outside the subset is an error, not silently skipped */
    s = parse("{\"type\":\"object\",\"patternProperties\":{}}");
    json_t *v = parse("{}");
    assert_int_equal(aug_js_validate(s, v, "$", err, sizeof err), 1);
    assert_non_null(strstr(err, "patternProperties"));
    json_decref(s);
    json_decref(v);
}

/* Validate stdout of the last command against predictor/schemas/<name>.schema.json. */
static void stdout_matches(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/predictor/schemas/%s.schema.json", AUG_TEST_SOURCE_DIR, name);
    json_error_t e;
    json_t *s = json_load_file(path, 0, &e);
    if (!s)
        fail_msg("%s: %s", path, e.text);
    json_t *v = parse(out_buf);
    char err[512];
    if (aug_js_validate(s, v, "$", err, sizeof err))
        fail_msg("%s output does not match %s: %s", name, path, err);
    json_decref(v);
    json_decref(s);
}

static void outputs_match_schemas(void **state) {
    (void)state;
    if (!bin)
        skip();
    static char m0[] = "llama2-7b", m1[] = "mixtral-8x7b", m2[] = "matmulfree-1.3b";
    char *const models[] = {m0, m1, m2};
    for (int i = 0; i < 3; i++) {
        expect_exit(RUN("train", "--model", models[i], "--system", "dgx-h100", "--gpus", "8",
                        "--micro-batch", "1", "--global-batch", "64", "--format", "json"), 0);
        stdout_matches("train");
        expect_exit(RUN("infer", "--model", models[i], "--system", "dgx-h100", "--tp", "4",
                        "--batch", "8", "--input-len", "1024", "--output-len", "128",
                        "--format", "json"), 0);
        stdout_matches("infer");
    }
    expect_exit(RUN("infer", "--model", "llama2-70b", "--system", "dgx-h100", "--tp", "4",
                    "--batch", "16", "--input-len", "2048", "--output-len", "256", "--mode",
                    "disaggregated", "--format", "json"), 0);
    stdout_matches("infer");
    expect_exit(RUN("infer", "--model", "llama2-70b", "--system", "dgx-h100", "--tp", "4",
                    "--batch", "16", "--input-len", "2048", "--output-len", "256", "--mode",
                    "continuous", "--ops", "--weight-dtype", "fp8", "--format", "json"), 0);
    stdout_matches("infer");
    expect_exit(RUN("train", "--model", "mixtral-8x7b", "--system", "dgx-h100", "--gpus", "64",
                    "--tp", "2", "--pp", "2", "--interleave", "2", "--ep", "8", "--sp",
                    "--moe-overlap", "batch", "--micro-batch", "1", "--global-batch", "64",
                    "--ops", "--format", "json"), 0);
    stdout_matches("train");
    expect_exit(RUN("sweep", "train", "--model", "mixtral-8x7b", "--system", "dgx-h100", "--gpus",
                    "32", "--global-batch", "128", "--top", "3", "--format", "json"), 0);
    stdout_matches("sweep-train");
    expect_exit(RUN("sweep", "infer", "--model", "llama2-70b", "--system", "dgx-h100", "--gpus",
                    "8", "--input-len", "1024", "--output-len", "128", "--top", "3", "--format",
                    "json"), 0);
    stdout_matches("sweep-infer");
    expect_exit(RUN("kernel", "gemm", "--gpu", "a100-80g", "--m", "4096", "--n", "12288", "--k",
                    "4096", "--dtype", "fp16", "--format", "json"), 0);
    stdout_matches("kernel");
    expect_exit(RUN("kernel", "collective", "--gpu", "h100-80g", "--collective", "all_reduce",
                    "--bytes", "64Mi", "--ranks", "8", "--format", "json"), 0);
    stdout_matches("kernel");
    expect_exit(RUN("kernel", "attention", "--gpu", "h100-80g", "--batch", "4", "--heads", "32",
                    "--seq", "4096", "--head-dim", "128", "--causal", "--format", "json"), 0);
    stdout_matches("kernel");
    expect_exit(RUN("kernel", "memory", "--gpu", "a100-80g", "--bytes", "256Mi", "--format",
                    "json"), 0);
    stdout_matches("kernel");
    expect_exit(RUN("validate", AUG_TEST_SOURCE_DIR "/benchmarks/accuracy/training.csv",
                    "--format", "json"), 0);
    stdout_matches("validate");
    expect_exit(RUN("validate", AUG_TEST_SOURCE_DIR "/benchmarks/accuracy/training_moe.csv",
                    "--baseline", AUG_TEST_SOURCE_DIR "/benchmarks/accuracy/baseline/training.json",
                    "--summary", "--format", "json"), 0);
    stdout_matches("validate"); /* the baseline object, with new and gone rows */
    /* one row explained: the output of the command that predicts its plan */
    expect_exit(RUN("validate", AUG_TEST_SOURCE_DIR "/benchmarks/accuracy/training_moe.csv",
                    "--explain", "dgxc250505_deepseekv3_h100_bf16_512gpu", "--ops", "--format",
                    "json"), 0);
    stdout_matches("train");
    expect_exit(RUN("validate", AUG_TEST_SOURCE_DIR "/benchmarks/accuracy/inference.csv",
                    "--explain", "trtllm061_h100_fp8_gpt-j6b_bs1024_tp1_128_128", "--format",
                    "json"), 0);
    stdout_matches("infer");
    expect_exit(RUN("validate", AUG_TEST_SOURCE_DIR "/benchmarks/accuracy/training.csv",
                    "--check", "--format", "json"), 0);
    stdout_matches("validate-check");
}

/* The header line of the last command's CSV. */
static void first_line(char *buf, size_t n) {
    size_t l = strcspn(out_buf, "\n");
    if (l >= n)
        l = n - 1;
    memcpy(buf, out_buf, l);
    buf[l] = '\0';
}

static void csv_columns_same_for_every_model_kind(void **state) {
    (void)state;
    if (!bin)
        skip();
    static char m0[] = "llama2-7b", m1[] = "mixtral-8x7b", m2[] = "matmulfree-1.3b";
    char *const models[] = {m0, m1, m2};
    static char head[3][8192];
    for (int i = 0; i < 3; i++) {
        expect_exit(RUN("train", "--model", models[i], "--system", "dgx-h100", "--gpus", "8",
                        "--micro-batch", "1", "--global-batch", "64", "--format", "csv"), 0);
        first_line(head[i], sizeof head[i]);
    }
    assert_string_equal(head[0], head[1]);
    assert_string_equal(head[0], head[2]);
    assert_non_null(strstr(head[0], "schema_version,model,"));
    assert_non_null(strstr(head[0], ",moe.routing,"));
    for (int i = 0; i < 3; i++) {
        expect_exit(RUN("infer", "--model", models[i], "--system", "dgx-h100", "--tp", "4",
                        "--batch", "8", "--input-len", "1024", "--output-len", "128", "--format",
                        "csv"), 0);
        first_line(head[i], sizeof head[i]);
    }
    assert_string_equal(head[0], head[1]);
    assert_string_equal(head[0], head[2]);
}

static double number_at(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("no number '%s'", key);
    return json_number_value(v);
}

static void train_reruns_a_sweep_plan(void **state) {
    (void)state;
    if (!bin)
        skip();
    char sweep[160], arg[200];
    snprintf(sweep, sizeof sweep, "%s/sweep.json", tmp_root);
    expect_exit(RUN("sweep", "train", "--model", "mixtral-8x7b", "--system", "dgx-h100", "--gpus",
                    "32", "--global-batch", "128", "--top", "3", "--format", "json", "--output",
                    sweep), 0);
    json_error_t e;
    json_t *sw = json_load_file(sweep, 0, &e);
    assert_non_null(sw);
    json_t *top = json_object_get(sw, "top");
    assert_int_equal((int)json_array_size(top), 3);
    for (int i = 0; i < 3; i++) {
        snprintf(arg, sizeof arg, "%s#%d", sweep, i);
        expect_exit(RUN("train", "--plan", arg, "--format", "json"), 0);
        out_has("\"schema_version\": 1");
        json_t *tr = parse(out_buf);
        /* the same plan predicted again gives the sweep's time to the printed digits */
        assert_rel(number_at(tr, "step_time_s"), number_at(json_array_get(top, (size_t)i),
                                                           "step_time_s"), 1e-9);
        json_t *p0 = json_object_get(json_array_get(top, (size_t)i), "plan");
        json_t *p1 = json_object_get(tr, "plan");
        if (!json_equal(p0, p1))
            fail_msg("plan %d differs after the round trip", i);
        json_decref(tr);
    }
    json_decref(sw);
    /* options after the file override it; a plan number past the list is refused */
    snprintf(arg, sizeof arg, "%s#0", sweep);
    expect_exit(RUN("train", "--plan", arg, "--global-batch", "256", "--format", "json"), 0);
    json_t *tr = parse(out_buf);
    assert_int_equal((int)json_integer_value(json_object_get(json_object_get(tr, "plan"),
                                                             "global_batch")), 256);
    json_decref(tr);
    snprintf(arg, sizeof arg, "%s#3", sweep);
    expect_exit(RUN("train", "--plan", arg), 1);
    err_has("plan #3 asked for, the sweep's \"top\" list has 3");
}

static void plan_json_errors(void **state) {
    (void)state;
    struct aug_plan p;
    char m[64], s[64];
    aug_plan_init(&p);
    const char *typo = "{\"model\":\"x\",\"plan\":{\"tp\":2,\"pipline\":4}}";
    assert_int_equal(aug_plan_from_json("p.json", typo, 0, &p, m, sizeof m, s, sizeof s),
                     AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "p.json.plan: unknown plan field 'pipline'"));
    const char *neg = "{\"plan\":{\"tp\":0}}";
    assert_int_equal(aug_plan_from_json("p.json", neg, 0, &p, m, sizeof m, s, sizeof s),
                     AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "'tp': 0 is outside 1.."));
    const char *ok = "{\"model\":\"llama2-7b\",\"system\":\"dgx-h100\",\"plan\":{\"gpus\":16,"
                     "\"tp\":2,\"pp\":2,\"recompute\":\"selective\",\"etp\":2,\"attention\":\"unfused\"}}";
    assert_int_equal(aug_plan_from_json("p.json", ok, 0, &p, m, sizeof m, s, sizeof s), AUG_OK);
    assert_string_equal(m, "llama2-7b");
    assert_string_equal(s, "dgx-h100");
    assert_int_equal(p.gpus, 16);
    assert_int_equal(p.recompute, AUG_RECOMPUTE_SELECTIVE);
    assert_int_equal(p.etp, 0); /* etp printed equal to tp is the default */
    assert_int_equal(p.flash_attention, 0);
    assert_int_equal(aug_plan_from_json("p.json", ok, 1, &p, m, sizeof m, s, sizeof s),
                     AUG_EDATA);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validator_catches),
        cmocka_unit_test(outputs_match_schemas),
        cmocka_unit_test(csv_columns_same_for_every_model_kind),
        cmocka_unit_test(train_reruns_a_sweep_plan),
        cmocka_unit_test(plan_json_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
