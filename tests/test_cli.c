/* SPDX-License-Identifier: Apache-2.0 */
/* test_cli.c - the `augur` front-end as users and scripts see it (DESIGN section 3): exit
 * codes (0 ok, 1 failure, 2 usage), one-line "augur: ..." messages naming the problem, the
 * JSON keys scripts rely on, CSV output, and `augur validate` on an accuracy set written
 * here. Runs $AUGUR_BIN as a subprocess; skipped when it is not set. */
#include "aug_cli_run.h"

#include <jansson.h>

#include "augur/augur.h"

static int group_setup(void **state) {
    (void)state;
    return aug_cli_run_setup("aug_cli_test_");
}

static const char *const fixtures[] = {"bad.json", "acc.csv",  "badrow.csv", "out.json",
                                       "rc.json",  "z3.json",  "ce.json",    "base.json",
                                       "half.json", "serve.csv"};

static int group_teardown(void **state) {
    (void)state;
    aug_cli_run_teardown(fixtures, sizeof fixtures / sizeof *fixtures);
    return 0;
}

static const char *fixture(const char *name, const char *text) {
    static char path[192];
    snprintf(path, sizeof path, "%s/%s", tmp_root, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A failure (exit 1) is one line on stderr: "augur: what". */
static void err_one_line_prefix(void) {
    if (strncmp(err_buf, "augur: ", 7) != 0)
        fail_msg("stderr does not start with 'augur: ': %s", err_buf);
    const char *nl = strchr(err_buf, '\n');
    if (!nl || nl[1] != '\0')
        fail_msg("stderr is not exactly one line: %s", err_buf);
}

static void test_help_and_unknown_command(void **state) {
    (void)state;
    expect_exit(RUN("--help"), 0);
    out_has("usage: augur");
    out_has("train");
    out_has("validate");
    expect_exit(RUN("bogus"), 2);
    err_has("augur: 'bogus' is not an augur command");
    expect_exit(run_argv((char *const[]){NULL}), 2); /* no command at all */
    expect_exit(RUN("train", "--help"), 0);
    out_has("--global-batch");
    expect_exit(RUN("--version"), 0);
    out_has(AUG_VERSION_STRING);
}

static void test_train_usage_errors(void **state) {
    (void)state;
    expect_exit(RUN("train", "--system", "dgx-h100", "--gpus", "8", "--micro-batch", "1",
                    "--global-batch", "8"), 2);
    err_has("--model");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "eight",
                    "--micro-batch", "1", "--global-batch", "8"), 2);
    err_has("--gpus");
    err_has("eight");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--frobnicate"), 2);
    err_has("--frobnicate");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--format", "xml"), 2);
    err_has("xml");
    /* fp8 scaling: an unknown recipe, and a plan that is not fp8 */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--dtype", "fp8",
                    "--fp8-scaling", "tensorwise"), 2);
    err_has("tensorwise");
    err_has("delayed or current");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--fp8-scaling", "current"), 2);
    err_has("--fp8-scaling needs --dtype fp8 (not bf16)");
    expect_exit(RUN("sweep", "train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus",
                    "8", "--global-batch", "8", "--fp8-scaling", "current"), 2);
    err_has("--fp8-scaling current needs --dtype fp8 (not bf16)");
    /* fp8 parameters: on or off, and only for an fp8 plan */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--fp8-params", "on"), 2);
    err_has("--fp8-params on needs --dtype fp8 (not bf16)");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--dtype", "fp8",
                    "--fp8-params", "yes"), 2);
    err_has("--fp8-params: use on or off, not 'yes'");
    expect_exit(RUN("sweep", "train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus",
                    "8", "--global-batch", "8", "--fp8-params", "on"), 2);
    err_has("--fp8-params on needs --dtype fp8 (not bf16)");
    expect_exit(RUN("sweep", "train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus",
                    "8", "--global-batch", "8", "--dtype", "fp8", "--fp8-params", "yes"), 2);
    err_has("--fp8-params: use on or off, not 'yes'");
    /* the plan line and JSON say which weights an fp8 plan keeps; megatron-core's recipes
     * keep fp8 parameters unless told otherwise */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--dtype", "fp8", "--framework",
                    "megatron-core"), 0);
    out_has("fp8 (delayed scaling, fp8 parameters)");
    out_has("fp8-params on");
    out_has("weights: the layers' in fp8");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--dtype", "fp8", "--framework",
                    "megatron-core", "--fp8-params", "off", "--format", "json"), 0);
    out_has("\"fp8_params\": false");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--format", "json"), 0);
    out_has("\"fp8_params\": null");
}

static void test_unknown_preset(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "gpt3-175x", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8"), 1);
    err_one_line_prefix();
    err_has("gpt3-175x");
    err_has("did you mean");
    err_has("gpt3-175b");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h10", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8"), 1);
    err_has("did you mean");
    err_has("dgx-h100");
}

static void test_malformed_model_json(void **state) {
    (void)state;
    const char *path = fixture("bad.json", "{\n  \"name\": \"broken\",\n  \"layers\": 2,,\n"
                                           "  \"hidden\": 64\n}\n");
    expect_exit(RUN("train", "--model", (char *)path, "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8"), 1);
    err_one_line_prefix();
    /* "<file>:<line>:<column>: malformed JSON": the stray comma is on line 3 */
    char want[256];
    snprintf(want, sizeof want, "%s:3:", path);
    err_has(want);
    const char *p = strstr(err_buf, want);
    int col = 0;
    assert_int_equal(sscanf(p + strlen(want), "%d:", &col), 1);
    assert_true(col >= 14 && col <= 16); /* at the second comma of `  "layers": 2,,` */
}

static void test_degree_and_batch_errors(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--pp", "2", "--dp", "2", "--micro-batch", "1", "--global-batch",
                    "8"), 2);
    err_has("2*2*2*1 = 8");
    err_has("16");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "2", "--global-batch", "12"), 2);
    err_has("--global-batch 12");
    err_has("2*8 = 16");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "6",
                    "--tp", "3", "--micro-batch", "1", "--global-batch", "8"), 2);
    err_has("heads 32");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "24",
                    "--pp", "3", "--micro-batch", "1", "--global-batch", "8"), 2);
    err_has("layers 32");
}

static json_t *parse_stdout(void) {
    json_error_t e;
    json_t *o = json_loads(out_buf, 0, &e);
    if (!o)
        fail_msg("stdout is not JSON (%d:%d %s):\n%.2000s", e.line, e.column, e.text, out_buf);
    return o;
}

static double num(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("key '%s' is missing or not a number", key);
    return json_number_value(v);
}

/* The plan `augur train --model MODEL --system dgx-h100 --gpus G --tp T [--sp]
 * --micro-batch B --global-batch N [--seq L]` builds, resolved through the library (seq 0:
 * the model's). */
static void library_plan(const char *model, long gpus, long tp, int sp, long mb, long gb,
                         long seq, struct aug_model *m, struct aug_system *s,
                         struct aug_plan *p) {
    assert_int_equal(aug_model_load(NULL, model, m), AUG_OK);
    assert_int_equal(aug_system_load(NULL, "dgx-h100", s), AUG_OK);
    aug_plan_init(p);
    p->gpus = gpus;
    p->tp = tp;
    p->sp = sp;
    p->micro_batch = mb;
    p->global_batch = gb;
    p->seq = seq;
    assert_int_equal(aug_plan_resolve(p, m, s), AUG_OK);
}

static void test_train_json(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--format", "json"),
                0);
    json_t *o = parse_stdout();
    static const char *const keys[] = {"step_time_s", "tokens_per_s", "mfu", "hfu",
                                       "memory_gib_per_gpu", "fits_in_memory", "breakdown_s",
                                       "memory_gib", "provenance"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!json_object_get(o, keys[i]))
            fail_msg("JSON lacks key '%s'", keys[i]);
    assert_true(json_is_boolean(json_object_get(o, "fits_in_memory")));
    double step = num(o, "step_time_s");
    assert_true(step > 0);
    assert_rel(num(o, "tokens_per_s"), 64.0 * 4096.0 / step, 1e-8);
    json_t *pv = json_object_get(o, "provenance");
    assert_rel(num(pv, "calibrated") + num(pv, "fallback") + num(pv, "roofline"), 1.0, 1e-8);
    json_t *bd = json_object_get(o, "breakdown_s");
    assert_true(json_is_object(bd));
    double sum = 0;
    const char *k;
    json_t *v;
    json_object_foreach(bd, k, v) {
        assert_true(json_is_number(v));
        sum += json_number_value(v);
    }
    assert_rel(sum, step, 1e-8);
    assert_true(json_object_get(bd, "compute") && json_object_get(bd, "pipeline_bubble") &&
                json_object_get(bd, "optimizer") && json_object_get(bd, "dp_comm"));
    json_t *mem = json_object_get(o, "memory_gib");
    double msum = 0;
    json_object_foreach(mem, k, v) msum += json_number_value(v);
    assert_rel(msum, num(o, "memory_gib_per_gpu"), 1e-8);
    assert_true(json_object_get(mem, "weights") && json_object_get(mem, "activations"));

    /* the same prediction through the library, with the same default kernels-db */
    struct aug_model m;
    struct aug_system s;
    struct aug_plan p;
    library_plan("llama2-7b", 16, 2, 0, 1, 64, 0, &m, &s, &p);
    struct aug_kdb *kdb = NULL;
    assert_int_equal(aug_kdb_open(NULL, s.gpu.id, &kdb), AUG_OK);
    struct aug_train_options opt = {kdb, 0, NULL, 0.0};
    struct aug_train_result r;
    assert_int_equal(aug_train_predict(&m, &s, &p, &opt, &r), AUG_OK);
    aug_kdb_close(kdb);
    assert_rel(step, r.step_time_s, 1e-9);
    assert_rel(num(o, "mfu"), r.mfu, 1e-9);
    assert_rel(num(o, "memory_gib_per_gpu"), r.memory.total_gib, 1e-9);
    assert_int_equal(json_is_true(json_object_get(o, "fits_in_memory")), r.fits_in_memory);
    json_decref(o);
}

/* --framework applies the profile's defaults where no option sets them, says so, and
 * an explicit option wins; an unknown name is a usage error. */
static void test_train_framework(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--framework",
                    "megatron-core", "--attention", "unfused", "--format", "json"),
                0);
    json_t *o = parse_stdout();
    json_t *plan = json_object_get(o, "plan");
    assert_true(json_is_true(json_object_get(plan, "sp")));
    assert_int_equal(json_integer_value(json_object_get(plan, "zero")), 1);
    assert_string_equal(json_string_value(json_object_get(plan, "main_grads")), "fp32");
    assert_string_equal(json_string_value(json_object_get(plan, "attention")), "unfused");
    assert_string_equal(json_string_value(json_object_get(plan, "framework")), "megatron-core");
    const char *applied =
        json_string_value(json_object_get(json_object_get(o, "framework"), "defaults_applied"));
    assert_non_null(applied);
    assert_non_null(strstr(applied, "sp on"));
    assert_null(strstr(applied, "attention")); /* given on the command line */
    json_decref(o);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--framework",
                    "megatron-core"),
                0);
    out_has("# framework megatron-core set: sp on");
    out_has("# host issue per kernel: gemm 113.7");
    /* GB200's Grace host issues each kernel 1.9 times slower: 113.7 x 1.9 = 216.0 us */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "gb200-nvl72", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--framework",
                    "megatron-core"),
                0);
    out_has("# host issue per kernel: gemm 216.0, attention 216.0, memory 38.0, collective "
            "43.5 us");
    out_has("x 1.90 for the host CPU of system gb200-nvl72 (its host_issue_scale)");
    /* the same costs in the JSON output, with their scale and source */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "gb200-nvl72", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--framework",
                    "megatron-core", "--format", "json"),
                0);
    json_t *g = parse_stdout();
    json_t *fw = json_object_get(g, "framework");
    json_t *us = json_object_get(fw, "host_issue_us");
    assert_rel(json_real_value(json_object_get(us, "gemm")), 113.7 * 1.9, 1e-9);
    assert_rel(json_real_value(json_object_get(us, "memory")), 20.0 * 1.9, 1e-9);
    assert_rel(json_real_value(json_object_get(fw, "host_issue_scale")), 1.9, 0);
    assert_non_null(strstr(json_string_value(json_object_get(fw, "host_issue_source")), "vTrain"));
    json_decref(g);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--micro-batch", "1", "--global-batch", "64", "--framework", "jax"),
                2);
    err_has("unknown framework 'jax'");
    /* the asynchronous TP all-reduce: the profile's, a given one kept, a bad value refused */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--framework",
                    "megatron-deepspeed"),
                0);
    out_has("async TP all-reduce on");
    out_has("tp-async-allreduce on");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--framework",
                    "megatron-deepspeed", "--tp-async-allreduce", "off", "--format", "json"),
                0);
    o = parse_stdout();
    assert_true(json_is_false(json_object_get(json_object_get(o, "plan"), "tp_async_allreduce")));
    json_decref(o);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--micro-batch", "1", "--global-batch", "64", "--tp-async-allreduce", "yes"),
                2);
    err_has("--tp-async-allreduce: use on or off, not 'yes'");
}

static void test_train_output_file(void **state) {
    (void)state;
    char path[192];
    snprintf(path, sizeof path, "%s/out.json", tmp_root);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--format", "json", "--output",
                    path), 0);
    assert_int_equal(out_buf[0], '\0'); /* nothing on stdout */
    json_error_t e;
    json_t *o = json_load_file(path, 0, &e);
    assert_non_null(o);
    assert_true(num(o, "step_time_s") > 0);
    json_decref(o);
}

/* --recompute-modules: implies selective, prints the modules on the plan line and in
 * JSON, and a plan written as JSON reads back with them (--plan). */
static void test_train_recompute_modules(void **state) {
    (void)state;
    char path[192];
    snprintf(path, sizeof path, "%s/rc.json", tmp_root);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--recompute-modules",
                    "mlp,layernorm", "--format", "json", "--output", path), 0);
    json_error_t e;
    json_t *o = json_load_file(path, 0, &e);
    assert_non_null(o);
    json_t *plan = json_object_get(o, "plan");
    assert_string_equal(json_string_value(json_object_get(plan, "recompute")), "selective");
    assert_string_equal(json_string_value(json_object_get(plan, "recompute_modules")),
                        "layernorm,mlp");
    json_decref(o);
    expect_exit(RUN("train", "--plan", path), 0);
    out_has("recompute selective (layernorm,mlp)");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--recompute", "full",
                    "--recompute-modules", "mlp"), 2);
    err_has("--recompute-modules needs --recompute selective");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--recompute-modules",
                    "mla_up_proj"), 2);
    err_has("no multi-head latent attention");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--pp", "4", "--micro-batch", "1", "--global-batch", "8",
                    "--recompute-layers", "3"), 0);
    out_has("recompute full (first 3 layers of each chunk)");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--recompute-layers", "2",
                    "--recompute-modules", "mlp"), 2);
    err_has("exclude each other");
}

/* DeepSpeed's 2021 ZeRO-3: the profile turns the serial gathers on and says so, the plan
 * JSON carries them through --plan, --zero3-gather prefetch turns them off (a faster step),
 * a wrong value and a plan it cannot model are refused. */
/* DeepSpeed's BF16_Optimizer: the megatron-deepspeed profile all-reduces ZeRO-1's fp32
 * gradients in bf16 and says so (table and plan JSON); a given reduce-scatter wins; a wrong
 * value is refused. */
static void test_train_grad_reduce(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--micro-batch", "1", "--global-batch", "64", "--zero", "1", "--main-grads",
                    "fp32", "--framework", "megatron-deepspeed"),
                0);
    out_has("grad-reduce all-reduce (BF16_Optimizer)");
    out_has("ZeRO-1 gradients all-reduced (BF16_Optimizer)");
    /* a GPU whose GEMM share was fitted on published runs says so */
    expect_exit(RUN("train", "--model", "llama3-8b", "--system", "gb200-nvl72", "--gpus", "8",
                    "--micro-batch", "2", "--global-batch", "128", "--seq", "8192"),
                0);
    out_has("GEMM main loops at gemm_scale 0.75 of their rate elsewhere, fitted on published "
            "training runs");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--micro-batch", "1", "--global-batch", "64", "--zero", "1", "--main-grads",
                    "fp32", "--framework", "megatron-deepspeed", "--grad-reduce",
                    "reduce-scatter", "--format", "json"),
                0);
    json_t *o = parse_stdout();
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(o, "plan"), "grad_reduce")),
        "reduce-scatter");
    json_decref(o);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--micro-batch", "1", "--global-batch", "64", "--zero", "1",
                    "--grad-reduce", "allreduce"),
                2);
    err_has("--grad-reduce: unknown gradient reduction 'allreduce' (use reduce-scatter or "
            "all-reduce)");
}

static void test_train_zero3_gather(void **state) {
    (void)state;
    char path[192];
    snprintf(path, sizeof path, "%s/z3.json", tmp_root);
    expect_exit(RUN("train", "--model", "gpt3-175b", "--system", "dgx-a100-80g", "--gpus", "384",
                    "--micro-batch", "4", "--global-batch", "1536", "--recompute", "full",
                    "--dtype", "fp16", "--framework", "deepspeed-zero-2021"),
                0);
    out_has("zero 3, zero3-gather serial");
    out_has("ZeRO-3 gathers serial (tensor by tensor after the compute)");
    expect_exit(RUN("train", "--model", "gpt3-175b", "--system", "dgx-a100-80g", "--gpus", "384",
                    "--micro-batch", "4", "--global-batch", "1536", "--recompute", "full",
                    "--dtype", "fp16", "--framework", "deepspeed-zero-2021", "--format", "json",
                    "--output", path),
                0);
    json_error_t e;
    json_t *o = json_load_file(path, 0, &e);
    assert_non_null(o);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(o, "plan"), "zero3_gather")), "serial");
    double t_serial = json_real_value(json_object_get(o, "step_time_s"));
    json_decref(o);
    expect_exit(RUN("train", "--plan", path, "--format", "json", "--output", path), 0);
    o = json_load_file(path, 0, &e);
    assert_non_null(o);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(o, "plan"), "zero3_gather")), "serial");
    assert_true(json_real_value(json_object_get(o, "step_time_s")) == t_serial);
    json_decref(o);
    expect_exit(RUN("train", "--model", "gpt3-175b", "--system", "dgx-a100-80g", "--gpus", "384",
                    "--micro-batch", "4", "--global-batch", "1536", "--recompute", "full",
                    "--dtype", "fp16", "--framework", "deepspeed-zero-2021", "--zero3-gather",
                    "prefetch", "--format", "json", "--output", path),
                0);
    o = json_load_file(path, 0, &e);
    assert_non_null(o);
    assert_true(json_real_value(json_object_get(o, "step_time_s")) < t_serial);
    json_decref(o);
    expect_exit(RUN("train", "--model", "gpt3-175b", "--system", "dgx-a100-80g", "--gpus", "384",
                    "--micro-batch", "4", "--global-batch", "1536", "--zero", "3",
                    "--zero3-gather", "async"),
                2);
    err_has("--zero3-gather: unknown ZeRO-3 gather 'async' (use prefetch or serial)");
    expect_exit(RUN("train", "--model", "gpt3-175b", "--system", "dgx-a100-80g", "--gpus", "384",
                    "--pp", "2", "--micro-batch", "4", "--global-batch", "1536", "--zero", "3",
                    "--zero3-gather", "serial"),
                2);
    err_has("DeepSpeed's ZeRO-3 runs without pipeline parallelism");
}

static void test_train_cross_entropy(void **state) {
    (void)state;
    /* the loss kernels: the plan JSON carries them through --plan; the unfused passes
     * (52 B per bf16 logit against 32) make the step slower; a wrong name is refused */
    char path[192];
    snprintf(path, sizeof path, "%s/ce.json", tmp_root);
    expect_exit(RUN("train", "--model", "llama3-8b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--cross-entropy", "unfused",
                    "--format", "json", "--output", path), 0);
    json_error_t e;
    json_t *o = json_load_file(path, 0, &e);
    assert_non_null(o);
    json_t *plan = json_object_get(o, "plan");
    assert_string_equal(json_string_value(json_object_get(plan, "cross_entropy")), "unfused");
    double t_unfused = json_real_value(json_object_get(o, "step_time_s"));
    json_decref(o);
    expect_exit(RUN("train", "--plan", path, "--format", "json", "--output", path), 0);
    o = json_load_file(path, 0, &e);
    assert_non_null(o);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(o, "plan"), "cross_entropy")),
        "unfused");
    json_decref(o);
    expect_exit(RUN("train", "--model", "llama3-8b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--format", "json", "--output",
                    path), 0);
    o = json_load_file(path, 0, &e);
    assert_non_null(o);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(o, "plan"), "cross_entropy")), "fused");
    assert_true(json_real_value(json_object_get(o, "step_time_s")) < t_unfused);
    json_decref(o);
    expect_exit(RUN("train", "--model", "llama3-8b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--cross-entropy", "liger"), 2);
    err_has("--cross-entropy");
}

static void test_train_csv(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--format", "csv"), 0);
    struct aug_csv *t = NULL;
    if (aug_csv_load_mem("stdout", out_buf, strlen(out_buf), &t) != AUG_OK)
        fail_msg("CSV output does not load: %s\n%s", aug_last_error(), out_buf);
    assert_int_equal(aug_csv_rows(t), 1);
    assert_true(aug_csv_cols(t) > 20);
    assert_true(aug_csv_col(t, "step_time_s") >= 0);
    assert_true(aug_csv_col(t, "provenance.calibrated") >= 0);
    assert_true(aug_csv_col(t, "breakdown_s.compute") >= 0);
    double step = 0;
    assert_int_equal(aug_csv_get_double(t, 0, "step_time_s", AUG_CSV_POSITIVE, &step), AUG_OK);
    /* every header has a cell */
    for (size_t c = 0; c < aug_csv_cols(t); c++)
        assert_true(aug_csv_header(t, c)[0] != '\0');
    aug_csv_free(t);
    /* the same number as the JSON output, to its 6 printed digits */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--format", "json"), 0);
    json_t *o = parse_stdout();
    assert_rel(step, num(o, "step_time_s"), 1e-5);
    json_decref(o);
}

/* Megatron-Core's first/last pipeline-stage layer counts: the table says the split, the
 * JSON plan carries it, a split the ranks cannot take is refused */
static void test_train_first_last_layers(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--tp", "2", "--pp", "4", "--micro-batch", "1", "--global-batch", "16",
                    "--pp-first-layers", "6", "--pp-last-layers", "10"), 0);
    out_has("# pipeline split: 6 layers on the first rank, 10 on the last, 8 on each of the "
            "other 2");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--tp", "2", "--pp", "4", "--micro-batch", "1", "--global-batch", "16",
                    "--pp-first-layers", "6", "--pp-last-layers", "10", "--format", "json"), 0);
    json_t *o = parse_stdout();
    json_t *plan = json_object_get(o, "plan");
    assert_int_equal(json_integer_value(json_object_get(plan, "pp_first_layers")), 6);
    assert_int_equal(json_integer_value(json_object_get(plan, "pp_last_layers")), 10);
    json_decref(o);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--tp", "2", "--pp", "4", "--micro-batch", "1", "--global-batch", "16",
                    "--pp-first-layers", "5", "--pp-last-layers", "10"), 2);
    err_has("the 17 layers left by the first/last pipeline stages do not split evenly over "
            "the other 2 ranks");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "16", "--pp-first-layers", "0"), 2);
    err_has("--pp-first-layers");
}

/* --moe-dispatcher: the plan says which, in the table and in the JSON; the flex
 * dispatcher's refusals are usage errors; DeepEP's deduplicated network copies make the
 * cross-node EP all-to-alls of DeepSeek-V3 (EP 64 over 8 nodes) cheaper than NCCL's. */
static void test_train_moe_dispatcher(void **state) {
    (void)state;
    char *const base[] = {"train", "--model", "deepseek-v3", "--system", "dgx-h100", "--gpus",
                          "512", "--pp", "8", "--ep", "64", "--etp", "1", "--micro-batch", "1",
                          "--global-batch", "512", "--uneven-pp", "--format", "json"};
    double t[2];
    for (int i = 0; i < 2; i++) {
        char *argv[24];
        int n = 0;
        for (size_t k = 0; k < sizeof base / sizeof *base; k++)
            argv[n++] = base[k];
        argv[n++] = "--moe-dispatcher";
        argv[n++] = i ? "deepep" : "alltoall";
        argv[n] = NULL;
        expect_exit(run_argv(argv), 0);
        json_t *o = parse_stdout();
        assert_string_equal(json_string_value(json_object_get(json_object_get(o, "plan"),
                                                              "moe_dispatcher")),
                            i ? "deepep" : "alltoall");
        t[i] = num(json_object_get(o, "breakdown_s"), "ep_comm");
        json_decref(o);
    }
    assert_true(t[1] < 0.6 * t[0]);
    expect_exit(RUN("train", "--model", "deepseek-v3", "--system", "dgx-h100", "--gpus", "512",
                    "--pp", "8", "--ep", "64", "--etp", "1", "--micro-batch", "1",
                    "--global-batch", "512", "--uneven-pp", "--moe-dispatcher", "deepep"), 0);
    out_has("deepep dispatcher");
    expect_exit(RUN("train", "--model", "deepseek-v3", "--system", "dgx-h100", "--gpus", "512",
                    "--pp", "8", "--ep", "64", "--etp", "1", "--micro-batch", "1",
                    "--global-batch", "512", "--uneven-pp", "--moe-dispatcher", "deepep",
                    "--moe-capacity-factor", "1.0"), 2);
    err_has("cannot pad experts to a capacity");
    expect_exit(RUN("train", "--model", "deepseek-v3", "--system", "dgx-h100", "--gpus", "512",
                    "--pp", "8", "--ep", "64", "--micro-batch", "1", "--global-batch", "512",
                    "--moe-dispatcher", "nccl"), 2);
    err_has("unknown MoE dispatcher 'nccl'");
}

/* --ops: the table ends with its own check (the slowest stage's rows add up to the step),
 * CSV has one row per op whose step seconds add up to the JSON step time */
static void test_train_ops(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--pp", "2", "--micro-batch", "1", "--global-batch", "16",
                    "--ops"), 0);
    out_has("ops (per GPU;");
    out_has("qkv_wgrad");
    out_has("pipeline_bubble");
    out_has("sum of the slowest stage's rows");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--pp", "2", "--micro-batch", "1", "--global-batch", "16",
                    "--ops", "--format", "csv"), 0);
    struct aug_csv *t = NULL;
    if (aug_csv_load_mem("stdout", out_buf, strlen(out_buf), &t) != AUG_OK)
        fail_msg("CSV output does not load: %s\n%s", aug_last_error(), out_buf);
    assert_true(aug_csv_rows(t) > 40);
    double sum = 0.0;
    for (size_t i = 0; i < aug_csv_rows(t); i++) {
        double v = 0.0, on = 0.0;
        assert_int_equal(aug_csv_get_double(t, i, "step_s", 0, &v), AUG_OK);
        assert_int_equal(aug_csv_get_double(t, i, "on_slowest_stage", 0, &on), AUG_OK);
        sum += on > 0 ? v : 0.0;
    }
    aug_csv_free(t);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--pp", "2", "--micro-batch", "1", "--global-batch", "16",
                    "--format", "json"), 0);
    json_t *o = parse_stdout();
    assert_rel(sum, num(o, "step_time_s"), 1e-5);
    json_decref(o);
}

/* The CSV row of `list` and `op` in out_buf (an --ops listing), or fail. */
static size_t ops_row(struct aug_csv *t, const char *list, const char *op) {
    int cl = aug_csv_col(t, "list"), co = aug_csv_col(t, "op");
    for (size_t i = 0; i < aug_csv_rows(t); i++)
        if (!strcmp(aug_csv_cell(t, i, cl), list) && !strcmp(aug_csv_cell(t, i, co), op))
            return i;
    fail_msg("no %s row '%s' in the --ops CSV", list, op);
    return 0;
}

/* --ops carries what augur-profile --shapes measures again: each op's dtype and a GEMM's
 * m, n, k and batch. Llama-2-7B at TP 2, one sequence of 4096 tokens: the QKV GEMM is
 * 4096 x (3 x 4096 / 2 = 6144) x 4096, its weight gradient 4096 x 6144 over k = 4096
 * tokens' transposes (n and k as the data-gradient GEMM swaps them); the MLP's fused
 * gate and up projection 4096 x (2 x 11008 / 2 = 11008) x 4096. Attention has no GEMM
 * shape, a schedule row no dtype. Mixtral-8x7B at EP 4 holds 8 / 4 = 2 experts per GPU:
 * its expert GEMMs are batches of 2, each 2 x 14336 = 28672 wide. */
static void test_train_ops_shapes(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--pp", "2", "--micro-batch", "1", "--global-batch", "16",
                    "--seq", "4096", "--ops", "--format", "csv"), 0);
    struct aug_csv *t = NULL;
    if (aug_csv_load_mem("stdout", out_buf, strlen(out_buf), &t) != AUG_OK)
        fail_msg("CSV output does not load: %s", aug_last_error());
    size_t r = ops_row(t, "fwd", "qkv");
    assert_string_equal(aug_csv_cell(t, r, aug_csv_col(t, "dtype")), "bf16");
    double m = 0, n = 0, k = 0, b = 0;
    assert_int_equal(aug_csv_get_double(t, r, "m", AUG_CSV_REQUIRED, &m), AUG_OK);
    assert_int_equal(aug_csv_get_double(t, r, "n", AUG_CSV_REQUIRED, &n), AUG_OK);
    assert_int_equal(aug_csv_get_double(t, r, "k", AUG_CSV_REQUIRED, &k), AUG_OK);
    assert_int_equal(aug_csv_get_double(t, r, "batch", AUG_CSV_REQUIRED, &b), AUG_OK);
    assert_true(m == 4096 && n == 6144 && k == 4096 && b == 1);
    r = ops_row(t, "bwd", "qkv_dgrad");
    assert_int_equal(aug_csv_get_double(t, r, "n", AUG_CSV_REQUIRED, &n), AUG_OK);
    assert_int_equal(aug_csv_get_double(t, r, "k", AUG_CSV_REQUIRED, &k), AUG_OK);
    assert_true(n == 4096 && k == 6144);
    r = ops_row(t, "fwd", "mlp_up");
    assert_int_equal(aug_csv_get_double(t, r, "n", AUG_CSV_REQUIRED, &n), AUG_OK);
    assert_true(n == 11008);
    r = ops_row(t, "fwd", "attn_fwd");
    assert_string_equal(aug_csv_cell(t, r, aug_csv_col(t, "dtype")), "bf16");
    assert_string_equal(aug_csv_cell(t, r, aug_csv_col(t, "m")), "");
    r = ops_row(t, "iteration", "optimizer");
    assert_string_equal(aug_csv_cell(t, r, aug_csv_col(t, "dtype")), "");
    aug_csv_free(t);
    expect_exit(RUN("train", "--model", "mixtral-8x7b", "--system", "dgx-h100", "--gpus", "8",
                    "--ep", "4", "--micro-batch", "1", "--global-batch", "8", "--seq", "4096",
                    "--ops", "--format", "json"), 0);
    json_t *o = parse_stdout(), *ops = json_object_get(o, "ops"), *op;
    size_t i;
    int seen = 0;
    json_array_foreach(ops, i, op) {
        if (strcmp(json_string_value(json_object_get(op, "op")), "expert_up"))
            continue;
        seen = 1;
        assert_true(num(op, "batch") == 2 && num(op, "n") == 28672 && num(op, "k") == 4096);
    }
    assert_true(seen);
    json_decref(o);
}

static const char acc_header[] =
    "id,source,model,system,num_gpus,tp,pp,microbatch,global_batch,seq_len,metric,value,unit\n";

/* MLA's 192-wide q.k heads on Blackwell: Transformer Engine trains them with a fused
 * kernel only since TE 2.5 with cuDNN 9.11, and the plan says so; Hopper (cuDNN trains d
 * up to 256 there since 9.5) and an unfused plan get no note. */
static void test_train_mla_blackwell_note(void **state) {
    (void)state;
    const char *note = "needs Transformer Engine >= 2.5 with cuDNN >= 9.11";
    expect_exit(RUN("train", "--model", "deepseek-v3", "--system", "gb200-nvl72", "--gpus", "128",
                    "--tp", "2", "--pp", "4", "--ep", "32", "--etp", "1", "--micro-batch", "1",
                    "--global-batch", "1024", "--pp-first-layers", "15", "--pp-last-layers",
                    "14"), 0);
    out_has(note);
    expect_exit(RUN("train", "--model", "deepseek-v3", "--system", "gb200-nvl72", "--gpus", "128",
                    "--tp", "2", "--pp", "4", "--ep", "32", "--etp", "1", "--micro-batch", "1",
                    "--global-batch", "1024", "--pp-first-layers", "15", "--pp-last-layers",
                    "14", "--attention", "unfused"), 0);
    assert_null(strstr(out_buf, note));
    expect_exit(RUN("train", "--model", "deepseek-v3", "--system", "dgx-h100", "--gpus", "512",
                    "--tp", "2", "--pp", "8", "--ep", "64", "--etp", "1", "--micro-batch", "1",
                    "--global-batch", "4096", "--uneven-pp"), 0);
    assert_null(strstr(out_buf, note));
}

/* A GPT-OSS plan (attention sinks) says that the published GPT-OSS-120B runs were slower
 * than augur predicts; a model without sinks gets no such note. */
static void test_train_gptoss_note(void **state) {
    (void)state;
    const char *note = "GPT-OSS-120B runs took 1.57-1.75x the step augur predicts";
    expect_exit(RUN("train", "--model", "gpt-oss-120b", "--system", "dgx-h100", "--gpus", "64",
                    "--pp", "4", "--ep", "8", "--micro-batch", "1", "--global-batch", "1280",
                    "--seq", "4096"), 0);
    out_has(note);
    expect_exit(RUN("train", "--model", "mixtral-8x7b", "--system", "dgx-h100", "--gpus", "64",
                    "--pp", "4", "--ep", "8", "--micro-batch", "1", "--global-batch", "1280",
                    "--seq", "4096"), 0);
    assert_null(strstr(out_buf, note));
}

/* A plan that does not fit lists what each memory-saving option would need (the table's
 * lines and the JSON's "memory_options", the same numbers as the library's); a plan that
 * fits has an empty list, so that CSV output keeps its columns. */
static void test_train_memory_options(void **state) {
    (void)state;
    expect_exit(RUN("train", "--model", "llama3-70b", "--system", "dgx-h100", "--gpus", "64",
                    "--tp", "8", "--micro-batch", "4", "--global-batch", "256", "--seq", "8192"),
                0);
    out_has("DOES NOT FIT");
    out_has("memory per GPU after one change");
    out_has("--recompute full");
    out_has("all of the above");
    expect_exit(RUN("train", "--model", "llama3-70b", "--system", "dgx-h100", "--gpus", "64",
                    "--tp", "8", "--micro-batch", "4", "--global-batch", "256", "--seq", "8192",
                    "--format", "json"),
                0);
    json_t *o = parse_stdout();
    json_t *a = json_object_get(o, "memory_options");
    assert_true(json_is_array(a) && json_array_size(a) >= 2);
    json_t *sp = json_array_get(a, 0);
    assert_string_equal(json_string_value(json_object_get(sp, "change")), "--sp");
    assert_true(num(sp, "memory_gib") < num(o, "memory_gib_per_gpu"));
    /* the library's count for the same plan with SP */
    struct aug_model m;
    struct aug_system s;
    struct aug_plan p;
    library_plan("llama3-70b", 64, 8, 1, 4, 256, 8192, &m, &s, &p);
    struct aug_train_memory mem;
    aug_train_memory(&m, &s, &p, &mem);
    assert_rel(num(sp, "memory_gib"), mem.total_gib, 1e-9);
    json_t *last = json_array_get(a, json_array_size(a) - 1);
    assert_string_equal(json_string_value(json_object_get(last, "change")), "all of the above");
    assert_true(json_is_true(json_object_get(last, "fits")));
    json_decref(o);
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-h100", "--gpus", "16",
                    "--tp", "2", "--micro-batch", "1", "--global-batch", "64", "--format",
                    "json"),
                0);
    o = parse_stdout();
    assert_true(json_is_true(json_object_get(o, "fits_in_memory")));
    a = json_object_get(o, "memory_options");
    assert_true(json_is_array(a) && json_array_size(a) == 0);
    json_decref(o);
}

/* Two sources that share their first 60 characters (two releases of one page) keep
 * apart in "by source": the labels run to the first character that differs. */
static void test_validate_source_labels(void **state) {
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%s"
             "row-a,\"NVIDIA performance summary page of the framework user guide, container 25.02\","
             "llama2-7b,dgx-h100,8,1,1,1,64,4096,tokens_per_s_per_gpu,3000,tokens/s/GPU\n"
             "row-b,\"NVIDIA performance summary page of the framework user guide, container 25.04\","
             "llama2-7b,dgx-h100,16,2,1,1,64,4096,step_time_s,2.5,s\n",
             acc_header);
    const char *path = fixture("acc_sources.csv", text);
    expect_exit(RUN("validate", (char *)path), 0);
    out_has("  NVIDIA performance summary page of the framework user guide, container 25.02 rows");
    out_has("  NVIDIA performance summary page of the framework user guide, container 25.04 rows");
}

static void test_validate(void **state) {
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%s"
             "row-a,test set,llama2-7b,dgx-h100,8,1,1,1,64,4096,tokens_per_s_per_gpu,3000,tokens/s/GPU\n"
             "row-b,test set,llama2-7b,dgx-h100,16,2,1,1,64,4096,step_time_s,2.5,s\n",
             acc_header);
    const char *path = fixture("acc.csv", text);
    expect_exit(RUN("validate", (char *)path), 0);
    out_has("row-a");
    out_has("row-b");
    out_has("MAPE");
    expect_exit(RUN("validate", (char *)path, "--format", "json"), 0);
    json_t *o = parse_stdout();
    json_t *rows = json_object_get(o, "rows");
    assert_int_equal(json_array_size(rows), 2);
    double sum = 0, mx = 0;
    for (size_t i = 0; i < 2; i++) {
        json_t *r = json_array_get(rows, i);
        double meas = num(r, "measured"), pred = num(r, "predicted"), err = num(r, "error_pct");
        assert_rel(err, (pred - meas) / meas * 100.0, 1e-8);
        assert_true(json_is_string(json_object_get(r, "id")));
        assert_true(json_is_string(json_object_get(r, "metric")));
        sum += fabs(err);
        mx = fmax(mx, fabs(err));
    }
    assert_near(num(json_array_get(rows, 0), "measured"), 3000, 0);
    assert_rel(num(o, "mape_pct"), sum / 2.0, 1e-8);
    assert_rel(num(o, "max_abs_error_pct"), mx, 1e-8);
    assert_true(json_is_object(json_object_get(json_object_get(o, "by_source"), "test set")));
    double mape = num(o, "mape_pct");
    json_decref(o);
    /* the CI bar */
    expect_exit(RUN("validate", (char *)path, "--max-mape", "0"), 1);
    err_has("MAPE");
    char bar[32];
    snprintf(bar, sizeof bar, "%.6f", mape + 1.0);
    expect_exit(RUN("validate", (char *)path, "--max-mape", bar), 0);
    expect_exit(RUN("validate", (char *)path, "--max-mape", "-1"), 2);
    expect_exit(RUN("validate"), 2);

    /* a per-row bar against a saved report: the same run moves nothing; a baseline where
     * row-a's |error| was half of today's shows it grew by |e| / 2 points */
    char base[192];
    snprintf(base, sizeof base, "%s/base.json", tmp_root);
    expect_exit(RUN("validate", (char *)path, "--format", "json", "--output", base), 0);
    expect_exit(RUN("validate", (char *)path, "--baseline", base, "--max-shift", "0"), 0);
    out_has("against baseline");
    out_has("2 row(s) moved by less than 0.05 points");
    expect_exit(RUN("validate", (char *)path, "--format", "json"), 0);
    o = parse_stdout();
    double err_a = num(json_array_get(json_object_get(o, "rows"), 0), "error_pct");
    double err_b = num(json_array_get(json_object_get(o, "rows"), 1), "error_pct");
    json_decref(o);
    char text2[512];
    snprintf(text2, sizeof text2,
             "{\"schema_version\": 1, \"mape_pct\": 1, \"predicted_rows\": 2, \"rows\": "
             "[{\"id\": \"row-a\", \"error_pct\": %.17g}, {\"id\": \"row-b\", \"error_pct\": "
             "%.17g}], \"skipped\": []}",
             err_a / 2.0, err_b);
    char set[192];
    snprintf(set, sizeof set, "%s", path); /* fixture() reuses its buffer */
    path = set;
    const char *half = fixture("half.json", text2);
    char below[32], above[32];
    snprintf(below, sizeof below, "%.6f", fabs(err_a) / 2.0 * 0.99);
    snprintf(above, sizeof above, "%.6f", fabs(err_a) / 2.0 * 1.01);
    expect_exit(RUN("validate", (char *)path, "--baseline", (char *)half, "--max-shift", below), 1);
    err_has("row 'row-a': |error| grew by");
    expect_exit(RUN("validate", (char *)path, "--baseline", (char *)half, "--max-shift", above), 0);
    expect_exit(RUN("validate", (char *)path, "--baseline", (char *)half, "--format", "json"), 0);
    o = parse_stdout();
    json_t *bl = json_object_get(o, "baseline");
    assert_int_equal(json_integer_value(json_object_get(bl, "kept_rows")), 2);
    assert_rel(num(bl, "max_shift_pct"), fabs(err_a) / 2.0, 1e-9);
    assert_string_equal(json_string_value(json_object_get(bl, "max_shift_id")), "row-a");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(bl, "rows"), 0), "change")), "kept");
    json_decref(o);
    expect_exit(RUN("validate", (char *)path, "--max-shift", "1"), 2);
    expect_exit(RUN("validate", (char *)path, "--check", "--baseline", base), 2);
    expect_exit(RUN("validate", (char *)path, "--baseline", (char *)path), 1);
    err_has("malformed JSON");

    /* one row in full: its score, then what `augur train` prints for its plan; JSON carries
     * the row beside the train keys, and the prediction is the row's own */
    expect_exit(RUN("validate", (char *)path, "--explain", "row-b"), 0);
    out_has("--explain row-b (line 3");
    out_has("step_time_s: measured 2.5");
    out_has("time breakdown");
    expect_exit(RUN("validate", (char *)path, "--explain", "row-b", "--format", "json"), 0);
    o = parse_stdout();
    json_t *vr = json_object_get(o, "validate_row");
    assert_string_equal(json_string_value(json_object_get(vr, "id")), "row-b");
    assert_rel(num(vr, "predicted"), num(o, "step_time_s"), 1e-9);
    assert_rel(num(vr, "error_pct"), err_b, 1e-6);
    json_decref(o);
    expect_exit(RUN("validate", (char *)path, "--explain", "row-b", "--ops", "--format", "csv"), 0);
    assert_int_equal(strncmp(out_buf, "list,op,kind,count", 18), 0);
    expect_exit(RUN("validate", (char *)path, "--explain", "row-c"), 1);
    err_has("no row with id 'row-c' (did you mean: row-a, row-b?)");
    expect_exit(RUN("validate", (char *)path, "--ops"), 2);
    expect_exit(RUN("validate", (char *)path, "--explain", "row-b", "--baseline", base), 2);

    /* a row whose plan augur counts above its GPU's memory: --explain lists what each
     * memory-saving option would need (Llama 2 70B unsharded on 8 H100, micro-batch 4 at
     * 4096 tokens), a row that fits none */
    char big[1024];
    snprintf(big, sizeof big, "%sbig,test set,llama2-70b,dgx-h100,8,8,1,4,64,4096,step_time_s,"
                              "9.5,s\n", acc_header);
    const char *bigp = fixture("bigplan.csv", big);
    expect_exit(RUN("validate", (char *)bigp, "--explain", "big"), 0);
    out_has("DOES NOT FIT");
    out_has("memory per GPU after one change");
    out_has("--sp");
    expect_exit(RUN("validate", (char *)bigp, "--explain", "big", "--format", "json"), 0);
    o = parse_stdout();
    assert_true(json_array_size(json_object_get(o, "memory_options")) >= 1);
    json_decref(o);
    expect_exit(RUN("validate", (char *)path, "--explain", "row-b", "--format", "json"), 0);
    o = parse_stdout();
    assert_int_equal(json_array_size(json_object_get(o, "memory_options")), 0);
    json_decref(o);
}

/* An offline serving row explained: the simulation `augur infer --mode offline` runs for
 * the row, with the cells the row gives marked as given (max_batch) and the rest left to
 * the engine (max num tokens). */
static void test_validate_explain_serving(void **state) {
    (void)state;
    const char *path = fixture(
        "serve.csv",
        "id,source,model,system,num_gpus,tp,batch,input_len,output_len,dtype,metric,value,unit,"
        "num_requests,max_batch\n"
        "off-1,test set,llama3-8b,dgx-h100,1,1,,512,128,fp16,throughput_tokens_per_s,3000,tokens/s,"
        "40,16\n");
    expect_exit(RUN("validate", (char *)path, "--explain", "off-1"), 0);
    out_has("throughput_tokens_per_s: measured 3000");
    out_has("offline scenario");
    out_has("requests: 40 from generated, input 512, output 128 tokens");
    out_has("max batch 16 (given)");
    out_has("(engine default), chunked prefill");
    expect_exit(RUN("validate", (char *)path, "--explain", "off-1", "--format", "json"), 0);
    json_t *o = parse_stdout();
    json_t *vr = json_object_get(o, "validate_row");
    assert_rel(num(vr, "predicted"), num(o, "throughput_tokens_per_s"), 1e-9);
    json_decref(o);
}

static void test_validate_bad_row(void **state) {
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%s"
             "row-a,test set,llama2-7b,dgx-h100,8,1,1,1,64,4096,step_time_s,2.5,s\n"
             "row-b,test set,llama2-7b,dgx-h100,8,1,1,1,64,4096,step_time_s,fast,s\n",
             acc_header);
    const char *path = fixture("badrow.csv", text);
    expect_exit(RUN("validate", (char *)path), 1);
    err_one_line_prefix();
    char want[256];
    snprintf(want, sizeof want, "%s:3: column 'value'", path);
    err_has(want);
    err_has("fast");
    /* a missing file */
    char missing[192];
    snprintf(missing, sizeof missing, "%s/none.csv", tmp_root);
    expect_exit(RUN("validate", missing), 1);
    err_has("none.csv");
    /* a set with a header and no rows scores nothing: no MAPE printed as 0.00%, and a bar
     * cannot pass on it */
    const char *none = fixture("norows.csv", acc_header);
    expect_exit(RUN("validate", (char *)none, "--summary"), 0);
    out_has("rows predicted 0 of 0: no MAPE, no row was predicted");
    assert_null(strstr(out_buf, "MAPE 0.00%"));
    expect_exit(RUN("validate", (char *)none, "--summary", "--max-mape", "10"), 1);
    err_has("no row could be predicted");
}

static void test_models_and_systems(void **state) {
    (void)state;
    expect_exit(RUN("models"), 0);
    static const char *const models[] = {"gpt3-175b", "megatron-530b", "llama2-7b", "llama3-8b",
                                         "llama3-405b", "mixtral-8x7b", "matmulfree-370m"};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        out_has(models[i]);
    expect_exit(RUN("systems"), 0);
    static const char *const systems[] = {"dgx-a100-40g", "dgx-a100-80g", "dgx-h100", "dgx-h200",
                                          "dgx-b200", "gb200-nvl72"};
    for (size_t i = 0; i < sizeof systems / sizeof *systems; i++)
        out_has(systems[i]);
    out_has("8000 GB/s  host issue x1.90\n"); /* GB200's Grace; x86 DGX lines show none */
    expect_exit(RUN("models", "extra"), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_unknown_command),
        cmocka_unit_test(test_train_usage_errors),
        cmocka_unit_test(test_unknown_preset),
        cmocka_unit_test(test_malformed_model_json),
        cmocka_unit_test(test_degree_and_batch_errors),
        cmocka_unit_test(test_train_json),
        cmocka_unit_test(test_train_framework),
        cmocka_unit_test(test_train_output_file),
        cmocka_unit_test(test_train_recompute_modules),
        cmocka_unit_test(test_train_cross_entropy),
        cmocka_unit_test(test_train_zero3_gather),
        cmocka_unit_test(test_train_grad_reduce),
        cmocka_unit_test(test_train_csv),
        cmocka_unit_test(test_train_ops),
        cmocka_unit_test(test_train_ops_shapes),
        cmocka_unit_test(test_train_first_last_layers),
        cmocka_unit_test(test_train_moe_dispatcher),
        cmocka_unit_test(test_train_mla_blackwell_note),
        cmocka_unit_test(test_train_gptoss_note),
        cmocka_unit_test(test_train_memory_options),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_validate_source_labels),
        cmocka_unit_test(test_validate_bad_row),
        cmocka_unit_test(test_validate_explain_serving),
        cmocka_unit_test(test_models_and_systems),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
