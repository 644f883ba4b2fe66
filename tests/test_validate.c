/* SPDX-License-Identifier: Apache-2.0 */
/* test_validate.c - scoring of accuracy sets: every row's error against a prediction made
 * here directly, MAPE / median / max and the per-source aggregates computed by hand,
 * skipped rows with their reasons, the vTrain importer on a small file in its format,
 * and bad rows that must fail with file and line. */
#include "aug_test.h"

#include <unistd.h>

#include "augur/augur.h"

static char dir[64];

static const char *write_file(const char *name, const char *text) {
    static char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/aug_validate_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    static const char *const names[] = {"acc.csv", "vt.csv", "bad.csv", "unit.csv", "check.csv",
                                        "base.json"};
    char path[160];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    return rmdir(dir);
}

/* Step time of a GPT-style model the way the validator builds it (fallback only). */
static double predict_gpt(long layers, long hidden, long heads, long gpus, long tp, long pp,
                          long mb, long gb, long seq, enum aug_recompute rc, int vtrain) {
    struct aug_model m;
    struct aug_system s;
    struct aug_plan p;
    aug_model_init(&m);
    snprintf(m.name, sizeof m.name, "t");
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = heads;
    m.vocab = 50257;
    if (vtrain) /* the importer sizes learned positions to the run's sequence */
        m.max_seq = seq;
    assert_int_equal(aug_model_finish(&m, "test"), AUG_OK);
    assert_int_equal(aug_system_load(NULL, "dgx-a100-80g", &s), AUG_OK);
    aug_plan_init(&p);
    p.gpus = gpus;
    p.tp = tp;
    p.pp = pp;
    p.micro_batch = mb;
    p.global_batch = gb;
    p.seq = seq;
    p.recompute = rc;
    p.dtype = AUG_DTYPE_FP16;
    p.uneven_pp = 1;
    if (vtrain) { /* Megatron-DeepSpeed of vTrain: unfused attention, no gradient buckets,
                     and that framework's host issue cost per kernel */
        p.flash_attention = 0;
        p.dp_overlap = 0;
        aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &p,
                            AUG_FWSET_ATTENTION | AUG_FWSET_DP_OVERLAP | AUG_FWSET_SHARDING, NULL, 0);
    }
    assert_int_equal(aug_plan_resolve(&p, &m, &s), AUG_OK);
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result r;
    assert_int_equal(aug_train_predict(&m, &s, &p, &o, &r), AUG_OK);
    return r.step_time_s;
}

static const char header[] =
    "id,source,source_locator,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,vocab,mlp,"
    "seq_len,moe_experts,moe_topk,system,gpu,num_gpus,tp,pp,dp,cp,ep,sp,interleave,microbatch,"
    "global_batch,recompute,zero_stage,dtype,metric,value,unit,notes\n";

/* acc.csv: four rows whose errors are +25% (r1), -20% (r2), +10% (r3, a tokens/s row) and
 * one the planner refuses (r4: 8 GPUs over tp 3), predicted with fallbacks only. */
static const char *write_scored_set(void) {
    double t1 = predict_gpt(24, 2048, 16, 8, 2, 1, 2, 64, 1024, AUG_RECOMPUTE_FULL, 0);
    double t2 = predict_gpt(12, 1024, 16, 4, 1, 2, 4, 32, 1024, AUG_RECOMPUTE_NONE, 0);
    /* measured values chosen so the errors are +25%, -20% and +10% */
    char csv[4096];
    snprintf(csv, sizeof csv,
             "%s"
             "r1,A,t,,,24,2048,16,,,,gelu,1024,,,dgx-a100-80g,,8,2,1,,,,0,,2,64,full,0,fp16,"
             "step_time_s,%.17g,s,\n"
             "r2,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,%.17g,s,\n"
             "r3,B,t,,,24,2048,16,,,,gelu,1024,,,dgx-a100-80g,,8,2,1,,,,0,,2,64,full,0,fp16,"
             "tokens_per_s,%.17g,tokens/s,\n"
             "r4,B,t,,,24,2048,16,,,,gelu,1024,,,dgx-a100-80g,,8,3,1,,,,0,,2,64,full,0,fp16,"
             "step_time_s,1.0,s,\n",
             header, t1 / 1.25, t2 / 0.8, 64.0 * 1024.0 / t1 / 1.10);
    return write_file("acc.csv", csv);
}

static void test_rows_and_aggregates(void **state) {
    (void)state;
    const char *path = write_scored_set();
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_int_equal(r->n_rows, 4);
    assert_int_equal(r->predicted_rows, 3);
    assert_rel(r->rows[0].error_pct, 25.0, 1e-9);
    assert_rel(r->rows[1].error_pct, -20.0, 1e-9);
    assert_rel(r->rows[2].error_pct, 10.0, 1e-9);
    /* r4: 8 GPUs over tp 3 cannot be planned: skipped, with the reason, out of the MAPE */
    assert_true(r->rows[3].skipped);
    assert_non_null(strstr(r->rows[3].reason, "tp*pp*cp"));
    assert_rel(r->mape_pct, (25.0 + 20.0 + 10.0) / 3.0, 1e-9);
    assert_rel(r->median_abs_error_pct, 20.0, 1e-9);
    assert_rel(r->max_abs_error_pct, 25.0, 1e-9);
    assert_int_equal(r->n_sources, 2);
    assert_string_equal(r->sources[0].source, "A");
    assert_int_equal(r->sources[0].rows, 2);
    assert_rel(r->sources[0].mape_pct, 22.5, 1e-9);
    assert_rel(r->sources[0].max_abs_error_pct, 25.0, 1e-9);
    assert_string_equal(r->sources[1].source, "B");
    assert_int_equal(r->sources[1].rows, 1);
    assert_rel(r->sources[1].mape_pct, 10.0, 1e-9);
    assert_int_equal(r->n_groups, 0);
    aug_validate_report_free(r);
    /* grouped by metric: step_time_s holds r1 (+25%) and r2 (-20%), r4 being skipped:
     * MAPE (25 + 20) / 2 = 22.5%, mean signed (25 - 20) / 2 = +2.5%, max 25%;
     * tokens_per_s holds r3 alone: 10%, +10%, 10%. Two columns join with " / ". */
    opt.group_by = "metric";
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_int_equal(r->n_groups, 2);
    assert_string_equal(r->groups[0].key, "step_time_s");
    assert_int_equal(r->groups[0].rows, 2);
    assert_rel(r->groups[0].mape_pct, 22.5, 1e-9);
    assert_rel(r->groups[0].mean_error_pct, 2.5, 1e-9);
    assert_rel(r->groups[0].max_abs_error_pct, 25.0, 1e-9);
    assert_string_equal(r->groups[1].key, "tokens_per_s");
    assert_rel(r->groups[1].mean_error_pct, 10.0, 1e-9);
    aug_validate_report_free(r);
    opt.group_by = "source,metric";
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_int_equal(r->n_groups, 2);
    assert_string_equal(r->groups[0].key, "A / step_time_s");
    assert_string_equal(r->groups[1].key, "B / tokens_per_s");
    aug_validate_report_free(r);
    /* a column the set does not have, and an empty name: named usage errors */
    opt.group_by = "metric,nope";
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "no column 'nope'"));
    opt.group_by = "metric,";
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EUSAGE);
}

/* A row whose plan cannot fit is predicted and scored, and flagged. r1 of the scored set
 * (1.3B-class, 8 GPUs) fits the A100's 80 GiB. big: a GPT-3 175B shape (96 layers, h 12288)
 * on 8 GPUs at tp 8 without ZeRO holds 12 l h^2 / 8 = 21.74e9 parameters per GPU, and
 * mixed-precision Adam keeps 16 bytes of each (Rajbhandari et al. 2020, sec. 3.1): 347.9 GB
 * = 324.0 GiB of model states alone, four times the GPU. */
static void test_plan_over_memory_flagged(void **state) {
    (void)state;
    const char *path = write_scored_set();
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("big,C,t,,,96,12288,96,,,,gelu,2048,,,dgx-a100-80g,,8,8,1,,,,0,,1,8,none,0,fp16,"
          "step_time_s,10.0,s,\n", f);
    fclose(f);
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_int_equal(r->n_rows, 5);
    assert_int_equal(r->predicted_rows, 4);
    assert_rel(r->rows[0].memory_capacity_gib, 80.0, 1e-12);
    assert_true(r->rows[0].memory_gib > 0 && r->rows[0].memory_gib < 80.0);
    assert_false(aug_validate_over_memory(&r->rows[0]));
    const struct aug_validate_row *big = &r->rows[4];
    assert_false(big->skipped);
    double states_gib = 16.0 * 12.0 * 96 * 12288.0 * 12288.0 / 8.0 / (1024.0 * 1024 * 1024);
    assert_in_range((long)states_gib, 323, 324);
    assert_true(big->memory_gib > states_gib);
    assert_true(aug_validate_over_memory(big));
    /* r4 (skipped, never predicted) is not counted */
    assert_false(aug_validate_over_memory(&r->rows[3]));
    assert_int_equal(r->over_memory_rows, 1);
    /* the flag is not an error: the MAPE keeps the row */
    assert_rel(r->mape_pct,
               (25.0 + 20.0 + 10.0 + fabs(r->rows[4].error_pct)) / 4.0, 1e-9);
    /* against a baseline that had big fitting: big is now over memory; r1 fits now as it
     * did; r2 (no field: an older report) and r3 (null) are unknown, so never counted */
    const char *bpath = write_file(
        "base.json",
        "{\"schema_version\": 1, \"mape_pct\": 10, \"predicted_rows\": 4, \"rows\": [\n"
        " {\"id\": \"r1\", \"error_pct\": 25, \"fits_in_memory\": true},\n"
        " {\"id\": \"r2\", \"error_pct\": -20},\n"
        " {\"id\": \"r3\", \"error_pct\": 10, \"fits_in_memory\": null},\n"
        " {\"id\": \"big\", \"error_pct\": 5, \"fits_in_memory\": true}],\n"
        " \"skipped\": [{\"id\": \"r4\", \"reason\": \"no plan\"}]}\n");
    struct aug_validate_baseline *b = NULL;
    assert_int_equal(aug_validate_baseline_load(bpath, &b), AUG_OK);
    assert_int_equal(b->rows[0].fits_in_memory, 1);
    assert_int_equal(b->rows[1].fits_in_memory, -1);
    assert_int_equal(b->rows[2].fits_in_memory, -1);
    struct aug_validate_comparison c;
    assert_int_equal(aug_validate_compare(r, b, &c), AUG_OK);
    assert_int_equal(c.now_over_memory, 1);
    assert_string_equal(c.shifts[4].id, "big");
    assert_true(c.shifts[4].now_over_memory);
    for (int i = 0; i < 4; i++)
        assert_false(c.shifts[i].now_over_memory);
    aug_validate_comparison_free(&c);
    aug_validate_baseline_free(b);
    /* a value that is neither a boolean nor null is refused, naming the row */
    bpath = write_file("base.json",
                       "{\"schema_version\": 1, \"mape_pct\": 1, \"predicted_rows\": 1, "
                       "\"rows\": [{\"id\": \"r1\", \"error_pct\": 1, "
                       "\"fits_in_memory\": \"yes\"}], \"skipped\": []}");
    assert_int_equal(aug_validate_baseline_load(bpath, &b), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "rows[0]"));
    assert_non_null(strstr(aug_last_error(), "fits_in_memory"));
    aug_validate_report_free(r);
}

/* --check reads the same rows and finds the same unplannable one (8 GPUs over tp 3:
 * 8 is not a multiple of tp*pp*cp = 3) without predicting: predictions stay 0 and the
 * aggregates empty; a bad cell still fails with its line. */
static void test_check_reads_without_predicting(void **state) {
    (void)state;
    char csv[2048];
    snprintf(csv, sizeof csv,
             "%s"
             "r1,A,t,,,24,2048,16,,,,gelu,1024,,,dgx-a100-80g,,8,2,1,,,,0,,2,64,full,0,fp16,"
             "step_time_s,2.0,s,\n"
             "r4,B,t,,,24,2048,16,,,,gelu,1024,,,dgx-a100-80g,,8,3,1,,,,0,,2,64,full,0,fp16,"
             "step_time_s,1.0,s,\n",
             header);
    const char *path = write_file("check.csv", csv);
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file_check(path, AUG_VALIDATE_AUTO, NULL, &r), AUG_OK);
    assert_int_equal(r->n_rows, 2);
    assert_false(r->rows[0].skipped);
    assert_true(r->rows[0].predicted == 0.0 && r->rows[0].error_pct == 0.0);
    assert_true(r->rows[1].skipped);
    assert_non_null(strstr(r->rows[1].reason, "tp*pp*cp"));
    assert_int_equal(r->predicted_rows, 0);
    assert_true(r->mape_pct == 0.0);
    aug_validate_report_free(r);
    snprintf(csv, sizeof csv,
             "%s"
             "r1,A,t,,,24,2048,16,,,,gelu,1024,,,dgx-a100-80g,,8,2,1,,,,0,,2,64,full,0,fp16,"
             "step_time_s,fast,s,\n",
             header);
    path = write_file("check.csv", csv);
    assert_int_equal(aug_validate_file_check(path, AUG_VALIDATE_AUTO, NULL, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "check.csv:2"));
}

static void test_vtrain_importer(void **state) {
    (void)state;
    double t = predict_gpt(12, 1024, 16, 2, 1, 2, 8, 16, 1024, AUG_RECOMPUTE_FULL, 1);
    char csv[1024];
    /* the real file starts with a UTF-8 byte-order mark and a header beginning with '#' */
    snprintf(csv, sizeof csv,
             "\xEF\xBB\xBF# GPUs,global batch,micro batch,hidden size,attention heads,# layers,"
             "sequence length,tensor parallelism,data parallelism,pipeline parallelism,"
             "iteration time (ms)\n2,16,8,1024,16,12,1024,1,1,2,%.17g\n",
             t * 1e3 / 1.5);
    const char *path = write_file("vt.csv", csv);
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_int_equal(r->predicted_rows, 1);
    assert_string_equal(r->rows[0].id, "vtrain_line2");
    assert_string_equal(r->rows[0].metric, "step_time_s");
    /* fp16, full recomputation, unfused attention, no gradient buckets: the case above */
    assert_rel(r->rows[0].error_pct, 50.0, 1e-9);
    aug_validate_report_free(r);
    /* the same row explained by its line id: the framework the importer applies */
    struct aug_validate_explained e;
    assert_int_equal(aug_validate_explain(path, AUG_VALIDATE_AUTO, &opt, "vtrain_line2", &e), AUG_OK);
    assert_int_equal(e.kind, AUG_VCASE_TRAIN);
    assert_int_equal(e.framework, AUG_FW_MEGATRON_DEEPSPEED);
    assert_rel(e.row.error_pct, 50.0, 1e-9);
    assert_rel(e.row.predicted, t, 1e-12);
    /* a row whose degrees do not multiply to the GPU count is an error with its line */
    write_file("vt.csv", "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,"
                         "sequence length,tensor parallelism,data parallelism,pipeline parallelism,"
                         "iteration time (ms)\n4,16,8,1024,16,12,1024,1,1,2,100\n");
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "vt.csv:2"));
}

/* The optional main_grads column reaches the plan: a ZeRO-3 row (dp 4, no other
 * parallelism) whose gradients are reduce-scattered in fp32 moves twice the bytes of the
 * fp16 one, so its prediction is the one aug_train makes with main_grads fp32 (error 0
 * against that value) and the same row without the column is faster (negative error). */
/* The plan of the 4-GPU rows of the column tests (12 x 2048 GPT, seq 1024, fp16, pure
 * data parallelism of one sequence per GPU), as the validator builds it. */
static void small_row_plan(struct aug_plan *p) {
    aug_plan_init(p);
    p->gpus = 4;
    p->micro_batch = 1;
    p->global_batch = 4;
    p->seq = 1024;
    p->dtype = AUG_DTYPE_FP16;
    p->uneven_pp = 1;
}

/* Step time of that row's model under plan p (fallback only), its layers attending to a
 * sliding window of `window` keys or, chunked, within chunks of that size (0: all). */
static double predict_small_row_local(struct aug_plan *p, long window, int chunked) {
    struct aug_model m;
    struct aug_system s;
    aug_model_init(&m);
    snprintf(m.name, sizeof m.name, "t");
    m.layers = 12;
    m.hidden = 2048;
    m.heads = 16;
    m.kv_heads = 16;
    m.vocab = 50257;
    m.sliding_window = window;
    m.attn_chunked = chunked;
    assert_int_equal(aug_model_finish(&m, "test"), AUG_OK);
    assert_int_equal(aug_system_load(NULL, "dgx-a100-80g", &s), AUG_OK);
    assert_int_equal(aug_plan_resolve(p, &m, &s), AUG_OK);
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result r;
    assert_int_equal(aug_train_predict(&m, &s, p, &o, &r), AUG_OK);
    return r.step_time_s;
}

static double predict_small_row(struct aug_plan *p) { return predict_small_row_local(p, 0, 0); }

static double predict_zero3(enum aug_main_grads g) {
    struct aug_plan p;
    small_row_plan(&p);
    p.zero = 3;
    p.main_grads = g;
    return predict_small_row(&p);
}

/* The two rows of the set at `path`, both measuring `measured`, validated with fallback
 * defaults only: both predicted, as t_first and t_second, the second's error against the
 * measured value following. */
static void expect_two_rows(const char *path, double measured, double t_first, double t_second) {
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_int_equal(r->predicted_rows, 2);
    assert_rel(r->rows[0].predicted, t_first, 1e-12);
    assert_rel(r->rows[1].predicted, t_second, 1e-12);
    assert_rel(r->rows[1].error_pct, 100.0 * (t_second / measured - 1.0), 1e-9);
    aug_validate_report_free(r);
}

/* One optional plan column of the accuracy schema, on the small row: a first row whose
 * cell holds `value` predicts t_set (error 0 against that value), a second that leaves it
 * empty predicts t_default (its error against t_set follows), and a row holding `bad`
 * (with recompute cell `bad_recompute`) is refused naming the column and the line. */
static void check_plan_column(const char *col, const char *recompute, int zero,
                              const char *value, double t_set, double t_default,
                              const char *bad_recompute, const char *bad) {
    char csv[2048];
    snprintf(csv, sizeof csv,
             "%.*s,%s\n"
             "a,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,%s,%d,fp16,"
             "step_time_s,%.17g,s,,\"%s\"\n"
             "b,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,%s,%d,fp16,"
             "step_time_s,%.17g,s,,\n",
             (int)strlen(header) - 1, header, col, recompute, zero, t_set, value, recompute,
             zero, t_set);
    const char *path = write_file("acc.csv", csv);
    expect_two_rows(path, t_set, t_set, t_default);
    snprintf(csv, sizeof csv,
             "%.*s,%s\n"
             "c,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,%s,%d,fp16,"
             "step_time_s,1.0,s,,%s\n",
             (int)strlen(header) - 1, header, col, bad_recompute, zero, bad);
    write_file("acc.csv", csv);
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "acc.csv:2"));
    char named[64];
    snprintf(named, sizeof named, "column '%s'", col);
    assert_non_null(strstr(aug_last_error(), named));
}

static void test_main_grads_column(void **state) {
    (void)state;
    double t32 = predict_zero3(AUG_GRADS_FP32), t16 = predict_zero3(AUG_GRADS_DTYPE);
    assert_true(t32 > t16);
    /* a gradient mode augur does not know is refused */
    check_plan_column("main_grads", "none", 3, "fp32", t32, t16, "none", "fp64");
}

/* The cross_entropy column: Megatron's unfused loss (52 B per fp16 logit) on the 50,257-word
 * vocabulary is slower than the default fused one (32 B); an unknown kernel is refused. */
static double predict_loss(enum aug_cross_entropy ce) {
    struct aug_plan p;
    small_row_plan(&p);
    p.cross_entropy = ce;
    return predict_small_row(&p);
}

static void test_cross_entropy_column(void **state) {
    (void)state;
    double tu = predict_loss(AUG_CE_UNFUSED), tf = predict_loss(AUG_CE_FUSED);
    assert_true(tu > tf);
    check_plan_column("cross_entropy", "none", 0, "unfused", tu, tf, "none", "liger");
}

/* Rows of the small model on 4 GPUs with degrees `tp_pp` ("tp,pp") and extra columns
 * `cols` holding `cells` (comma-separated, as many as the columns): the CSV text of rows
 * named by `ids` (one character each), every row predicting value `v`. */
static const char *extra_rows(const char *cols, const char *tp_pp, const char *const *cells,
                              const char *ids, double v) {
    static char csv[4096];
    int n = snprintf(csv, sizeof csv, "%.*s,%s\n", (int)strlen(header) - 1, header, cols);
    for (int i = 0; ids[i]; i++)
        n += snprintf(csv + n, sizeof csv - (size_t)n,
                      "%c,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,%s,,,,0,,1,4,none,0,"
                      "fp16,step_time_s,%.17g,s,,%s\n",
                      ids[i], tp_pp, v, cells[i]);
    return write_file("acc.csv", csv);
}

/* One row with `cells` in the columns `cols`, validated: the status, the report in *r. */
static int validate_one(const char *cols, const char *tp_pp, const char *cells,
                        struct aug_validate_report **r) {
    const char *one[] = {cells};
    const char *path = extra_rows(cols, tp_pp, one, "c", 1.0);
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    *r = NULL;
    return aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, r);
}

/* Two rows, the first with the columns set, the second with them empty: each predicts what
 * its plan does (t_set, t_default). */
static void check_extra_columns(const char *cols, const char *tp_pp, const char *set,
                                const char *empty, double t_set, double t_default) {
    const char *cells[] = {set, empty};
    expect_two_rows(extra_rows(cols, tp_pp, cells, "ab", t_set), t_set, t_set, t_default);
}

/* A 0|1 column holding 2 is refused, naming the file's line and the column. */
static void check_flag_refused(const char *col, const char *tp_pp) {
    struct aug_validate_report *r;
    assert_int_equal(validate_one(col, tp_pp, "2", &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "acc.csv:2"));
    char named[64];
    snprintf(named, sizeof named, "column '%s'", col);
    assert_non_null(strstr(aug_last_error(), named));
}

/* A 0|1 column `col` on the small row at degrees `tp_pp`, whose plan `p` holds the flag in
 * `*flag`: with 1 the row predicts what the plan with the flag does, faster than the row
 * without the column (the plan without it); 2 is refused naming the column. */
static void check_flag_column(const char *col, const char *tp_pp, struct aug_plan *p,
                              int *flag) {
    *flag = 0;
    double t_off = predict_small_row(p);
    *flag = 1;
    double t_on = predict_small_row(p);
    assert_true(t_on < t_off);
    check_extra_columns(col, tp_pp, "1", "", t_on, t_off);
    check_flag_refused(col, tp_pp);
}

/* The tp_async_allreduce column on a TP 4 row without SP: 1 hides the input-gradient
 * all-reduces behind the weight gradients. */
static void test_tp_async_allreduce_column(void **state) {
    (void)state;
    struct aug_plan p;
    small_row_plan(&p);
    p.tp = 4;
    check_flag_column("tp_async_allreduce", "4,1", &p, &p.tp_async_allreduce);
}

/* The cuda_graphs column: 1 replays the layers as CUDA graphs, so the host issues no kernel
 * and the small row (short kernels behind a 20 us issue each) runs faster. */
static void test_cuda_graphs_column(void **state) {
    (void)state;
    struct aug_plan p;
    small_row_plan(&p);
    check_flag_column("cuda_graphs", "1,1", &p, &p.cuda_graphs);
}

/* The attn_chunked column beside sliding_window: 1 makes the row's 256-token local layers
 * chunks, whose causal pairs (4 x 256 x 257 / 2 per 1,024 tokens) are fewer than a
 * sliding window's, so the row runs faster than with 0; 2 is refused naming the column. */
static void test_attn_chunked_column(void **state) {
    (void)state;
    struct aug_plan p;
    small_row_plan(&p);
    double t_chunk = predict_small_row_local(&p, 256, 1);
    small_row_plan(&p);
    double t_window = predict_small_row_local(&p, 256, 0);
    assert_true(t_chunk < t_window);
    check_extra_columns("sliding_window,attn_chunked", "1,1", "256,1", "256,0", t_chunk,
                        t_window);
    struct aug_validate_report *r;
    assert_int_equal(validate_one("sliding_window,attn_chunked", "1,1", "256,2", &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "column 'attn_chunked'"));
}

/* The zero3_gather and grad_reduce columns under a DeepSpeed profile: a given cell wins
 * over the profile (serial ZeRO-3 under deepspeed-zero, whose own default prefetches; a
 * reduce-scatter where megatron-deepspeed's BF16_Optimizer would all-reduce), each row
 * predicting what its plan does; a wrong name names the column. */
static void test_zero3_gather_and_grad_reduce_columns(void **state) {
    (void)state;
    struct aug_plan p;
    small_row_plan(&p);
    p.zero = 3;
    p.framework = AUG_FW_DEEPSPEED_ZERO;
    aug_framework_apply(AUG_FW_DEEPSPEED_ZERO, &p, AUG_FWSET_SHARDING, NULL, 0);
    double t_prefetch = predict_small_row(&p);
    p.zero3_gather = AUG_ZERO3_SERIAL;
    double t_serial = predict_small_row(&p);
    assert_true(t_serial > t_prefetch);
    char csv[2048];
    const char *cols = "framework,zero3_gather";
    snprintf(csv, sizeof csv,
             "%.*s,%s\n"
             "a,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,none,3,fp16,"
             "step_time_s,1,s,,deepspeed-zero,serial\n"
             "b,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,none,3,fp16,"
             "step_time_s,1,s,,deepspeed-zero,\n",
             (int)strlen(header) - 1, header, cols);
    expect_two_rows(write_file("acc.csv", csv), 1.0, t_serial, t_prefetch);
    /* bf16 with fp32 gradients at ZeRO-1 under megatron-deepspeed: all-reduce unless the
     * row says reduce-scatter */
    small_row_plan(&p);
    p.dtype = AUG_DTYPE_BF16;
    p.zero = 1;
    p.main_grads = AUG_GRADS_FP32;
    p.framework = AUG_FW_MEGATRON_DEEPSPEED;
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &p,
                        AUG_FWSET_SHARDING | AUG_FWSET_GRADS | AUG_FWSET_GRAD_REDUCE, NULL, 0);
    double t_rs = predict_small_row(&p);
    p.grad_reduce = AUG_GRAD_ALL_REDUCE;
    double t_ar = predict_small_row(&p);
    assert_true(t_ar > t_rs);
    snprintf(csv, sizeof csv,
             "%.*s,framework,main_grads,grad_reduce\n"
             "a,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,none,1,bf16,"
             "step_time_s,1,s,,megatron-deepspeed,fp32,\n"
             "b,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,none,1,bf16,"
             "step_time_s,1,s,,megatron-deepspeed,fp32,reduce-scatter\n",
             (int)strlen(header) - 1, header);
    expect_two_rows(write_file("acc.csv", csv), 1.0, t_ar, t_rs);
    struct aug_validate_report *r;
    assert_int_equal(validate_one("grad_reduce", "1,1", "allreduce", &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "column 'grad_reduce'"));
    assert_int_equal(validate_one("zero3_gather", "1,1", "sync", &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "column 'zero3_gather'"));
}

/* The pp_first_layers / pp_last_layers columns: a PP 2 row of the 12-layer model with 4 and
 * 8 layers predicts what the plan with them does (slower than the even 6 and 6: the last
 * rank carries 8 layers and the head); a split that does not add up skips the row. */
static void test_first_last_layers_columns(void **state) {
    (void)state;
    struct aug_plan p;
    small_row_plan(&p);
    p.pp = 2;
    double t_even = predict_small_row(&p);
    p.pp_first_layers = 4;
    p.pp_last_layers = 8;
    double t_split = predict_small_row(&p);
    assert_true(t_split > t_even);
    check_extra_columns("pp_first_layers,pp_last_layers", "1,2", "4,8", ",", t_split, t_even);
    struct aug_validate_report *r;
    assert_int_equal(validate_one("pp_first_layers,pp_last_layers", "1,2", "4,7", &r), AUG_OK);
    assert_int_equal(r->predicted_rows, 0);
    assert_int_equal(r->n_rows, 1);
    assert_true(r->rows[0].skipped);
    assert_non_null(strstr(r->rows[0].reason, "do not add up to the model's 12 layers"));
    aug_validate_report_free(r);
}

/* The recompute_modules column: a row with "core_attn,mlp" predicts what the plan with
 * those modules predicts (more than core_attn alone); a list on a row without selective
 * recomputation names the column and the line. The same for recompute_layers (the block
 * method of full recomputation). */
static double predict_modules(unsigned mods) {
    struct aug_plan p;
    small_row_plan(&p);
    p.recompute = AUG_RECOMPUTE_SELECTIVE;
    p.recompute_modules = mods;
    return predict_small_row(&p);
}

static void test_recompute_modules_column(void **state) {
    (void)state;
    double t2 = predict_modules(AUG_RC_CORE_ATTN | AUG_RC_MLP), t1 = predict_modules(0);
    assert_true(t2 > t1);
    /* a list on a row without selective recomputation is refused */
    check_plan_column("recompute_modules", "selective", 0, "core_attn,mlp", t2, t1, "full", "mlp");
    /* recompute_layers: the block method on a full-recomputation row */
    struct aug_plan q;
    small_row_plan(&q);
    q.recompute = AUG_RECOMPUTE_FULL;
    q.recompute_layers = 3;
    double t3 = predict_small_row(&q);
    char csv[2048];
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    snprintf(csv, sizeof csv,
             "%.*s,recompute_layers\n"
             "r,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,full,0,fp16,"
             "step_time_s,%.17g,s,,3\n"
             "s,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,none,0,fp16,"
             "step_time_s,1.0,s,,3\n",
             (int)strlen(header) - 1, header, t3);
    const char *path = write_file("acc.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "acc.csv:3"));
    assert_non_null(strstr(aug_last_error(), "column 'recompute_layers'"));
    snprintf(csv, sizeof csv,
             "%.*s,recompute_layers\n"
             "r,A,t,,,12,2048,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,1,,,,0,,1,4,full,0,fp16,"
             "step_time_s,%.17g,s,,3\n",
             (int)strlen(header) - 1, header, t3);
    write_file("acc.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_rel(r->rows[0].predicted, t3, 1e-12);
    aug_validate_report_free(r);
}

/* A run compared with a saved report, row by row by id. The set scores r1 +25%, r2 -20%,
 * r3 +10% and skips r4. The baseline had r1 +20%, r2 -22%, r4 +1%, r9 +3% and skipped r3:
 * r1's |error| grew 25 - 20 = +5 points, r2's shrank 20 - 22 = -2; over the two rows
 * predicted in both the MAPE went (20 + 22) / 2 = 21% -> (25 + 20) / 2 = 22.5%; r3 is now
 * predicted, r4 now skipped, r9 gone; the baseline's own MAPE (15.5) is carried as given. */
static void test_baseline_comparison(void **state) {
    (void)state;
    const char *set = write_scored_set();
    char set_path[160];
    snprintf(set_path, sizeof set_path, "%s", set);
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file(set_path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    const char *path = write_file(
        "base.json",
        "{\"schema_version\": 1, \"mape_pct\": 15.5, \"predicted_rows\": 4,\n"
        " \"rows\": [{\"id\": \"r1\", \"error_pct\": 20.0}, {\"id\": \"r2\", \"error_pct\": -22},\n"
        "          {\"id\": \"r4\", \"error_pct\": 1.0}, {\"id\": \"r9\", \"error_pct\": 3.0}],\n"
        " \"skipped\": [{\"id\": \"r3\", \"reason\": \"no plan\"}]}\n");
    struct aug_validate_baseline *b = NULL;
    assert_int_equal(aug_validate_baseline_load(path, &b), AUG_OK);
    assert_int_equal(b->n_rows, 5);
    assert_true(isnan(b->rows[4].error_pct));
    struct aug_validate_comparison c;
    assert_int_equal(aug_validate_compare(r, b, &c), AUG_OK);
    assert_int_equal(c.n_shifts, 5);
    static const struct {
        const char *id;
        enum aug_validate_change change;
        double before, now, shift; /* NAN: none */
    } want[] = {
        {"r1", AUG_CHANGE_KEPT, 20.0, 25.0, 5.0},
        {"r2", AUG_CHANGE_KEPT, -22.0, -20.0, -2.0},
        {"r3", AUG_CHANGE_NOW_PREDICTED, NAN, 10.0, NAN},
        {"r4", AUG_CHANGE_NOW_SKIPPED, 1.0, NAN, NAN},
        {"r9", AUG_CHANGE_GONE, 3.0, NAN, NAN},
    };
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(c.shifts[i].id, want[i].id);
        assert_int_equal(c.shifts[i].change, want[i].change);
        const double got[3] = {c.shifts[i].error_before_pct, c.shifts[i].error_pct,
                               c.shifts[i].shift_pct};
        const double exp[3] = {want[i].before, want[i].now, want[i].shift};
        for (int k = 0; k < 3; k++) {
            if (isnan(exp[k]))
                assert_true(isnan(got[k]));
            else
                assert_rel(got[k], exp[k], 1e-9);
        }
    }
    assert_int_equal(c.kept, 2);
    assert_rel(c.kept_mape_before_pct, 21.0, 1e-12);
    assert_rel(c.kept_mape_pct, 22.5, 1e-9);
    assert_rel(c.mape_before_pct, 15.5, 1e-12);
    assert_rel(c.mape_pct, (25.0 + 20.0 + 10.0) / 3.0, 1e-9);
    assert_rel(c.max_shift_pct, 5.0, 1e-9);
    assert_string_equal(c.max_shift_id, "r1");
    assert_int_equal(c.now_skipped, 1);
    aug_validate_comparison_free(&c);
    aug_validate_baseline_free(b);

    /* baselines that cannot be one: each refused with the file and what is wrong */
    static const char *const bad[][2] = {
        {"{\"schema_version\": 1, \"mape_pct\": 1, \"predicted_rows\": 2, \"rows\": "
         "[{\"id\": \"a\", \"error_pct\": 1}, {\"id\": \"a\", \"error_pct\": 2}], \"skipped\": []}",
         "row id 'a' appears twice"},
        {"{\"schema_version\": 1, \"mape_pct\": 1, \"predicted_rows\": 3, \"rows\": [], "
         "\"skipped\": []}",
         "--summary"},
        {"{\"schema_version\": 2, \"mape_pct\": 1, \"predicted_rows\": 0, \"rows\": [], "
         "\"skipped\": []}",
         "schema_version 2"},
        {"{\"schema_version\": 1, \"mape_pct\": 1, \"predicted_rows\": 1, \"rows\": "
         "[{\"id\": \"a\", \"error_pct\": \"big\"}], \"skipped\": []}",
         "rows[0]"},
        {"{\"schema_version\": 1, \"mape_pct\": 1, \"predicted_rows\": 1, \"rows\": "
         "[{\"error_pct\": 1}], \"skipped\": []}",
         "'id'"},
        {"{\"schema_version\": 1, \"mape_pct\": 1, \"predicted_rows\": 0, \"rows\": [], "
         "\"skipped\": {}}",
         "must be arrays"},
        {"{\"schema_version\": 1,\n \"rows\": [", "base.json:2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        path = write_file("base.json", bad[i][0]);
        assert_int_equal(aug_validate_baseline_load(path, &b), AUG_EDATA);
        assert_null(b);
        assert_non_null(strstr(aug_last_error(), "base.json"));
        assert_non_null(strstr(aug_last_error(), bad[i][1]));
    }
    aug_validate_report_free(r);

    /* a set that holds an id twice cannot be matched to a baseline */
    char csv[2048];
    snprintf(csv, sizeof csv,
             "%s"
             "d,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,1.0,s,\n"
             "d,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,2.0,s,\n",
             header);
    set = write_file("check.csv", csv);
    assert_int_equal(aug_validate_file(set, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    path = write_file("base.json", "{\"schema_version\": 1, \"mape_pct\": 0, \"predicted_rows\": 0, "
                                   "\"rows\": [], \"skipped\": []}");
    assert_int_equal(aug_validate_baseline_load(path, &b), AUG_OK);
    assert_int_equal(aug_validate_compare(r, b, &c), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "row id 'd' appears twice"));
    assert_null(c.shifts);
    aug_validate_baseline_free(b);
    aug_validate_report_free(r);
}

/* The moe_dispatcher column reaches the plan: DeepSeek-MoE 16B on two DGX H100 with EP 16
 * runs the row's prediction with DeepEP exactly as aug_train does with that dispatcher (0%
 * error against it) and faster than the same row without the column (NCCL all-to-all);
 * a value that names no dispatcher is refused with the file, line and column. */
static void test_moe_dispatcher_column(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    assert_int_equal(aug_model_load(NULL, "deepseek-moe-16b", &m), AUG_OK);
    assert_int_equal(aug_system_load(NULL, "dgx-h100", &s), AUG_OK);
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 16;
    p.ep = 16;
    p.micro_batch = 1;
    p.global_batch = 16;
    p.seq = 4096;
    p.uneven_pp = 1;
    p.moe_dispatcher = AUG_MOE_DISPATCH_DEEPEP;
    assert_int_equal(aug_plan_resolve(&p, &m, &s), AUG_OK);
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result res;
    assert_int_equal(aug_train_predict(&m, &s, &p, &o, &res), AUG_OK);
    char csv[2048];
    snprintf(csv, sizeof csv,
             "%.*s,moe_dispatcher\n"
             "d,A,t,deepseek-moe-16b,,,,,,,,,4096,,,dgx-h100,,16,1,1,,,16,0,,1,16,none,0,bf16,"
             "step_time_s,%.17g,s,,deepep\n"
             "n,A,t,deepseek-moe-16b,,,,,,,,,4096,,,dgx-h100,,16,1,1,,,16,0,,1,16,none,0,bf16,"
             "step_time_s,%.17g,s,,\n",
             (int)strlen(header) - 1, header, res.step_time_s, res.step_time_s);
    const char *path = write_file("acc.csv", csv);
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_rel(r->rows[0].error_pct, 0.0, 1e-9);
    assert_true(r->rows[1].error_pct > 10.0);
    aug_validate_report_free(r);
    snprintf(csv, sizeof csv,
             "%.*s,moe_dispatcher\n"
             "d,A,t,deepseek-moe-16b,,,,,,,,,4096,,,dgx-h100,,16,1,1,,,16,0,,1,16,none,0,bf16,"
             "step_time_s,1.0,s,,nccl\n",
             (int)strlen(header) - 1, header);
    write_file("acc.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "acc.csv:2"));
    assert_non_null(strstr(aug_last_error(), "column 'moe_dispatcher'"));
}

/* One row predicted alone and described (augur validate --explain): the case is what the
 * set's run predicted, so predicting its plan again gives the row's own number; r2's plan
 * is the one written in the set (12 layers of 1024, tp 1, pp 2, micro-batch 4 of 32). */
static void test_explain_one_row(void **state) {
    (void)state;
    const char *path = write_scored_set();
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_explained e;
    assert_int_equal(aug_validate_explain(path, AUG_VALIDATE_AUTO, &opt, "r2", &e), AUG_OK);
    assert_string_equal(e.row.id, "r2");
    assert_int_equal(e.row.line, 3);
    assert_false(e.row.skipped);
    assert_rel(e.row.error_pct, -20.0, 1e-9);
    assert_int_equal(e.kind, AUG_VCASE_TRAIN);
    assert_int_equal(e.model.layers, 12);
    assert_int_equal(e.model.hidden, 1024);
    assert_int_equal(e.plan.tp, 1);
    assert_int_equal(e.plan.pp, 2);
    assert_int_equal(e.plan.dp, 2);
    assert_int_equal(e.plan.micro_batch, 4);
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result res;
    assert_int_equal(aug_train_predict(&e.model, &e.system, &e.plan, &o, &res), AUG_OK);
    assert_rel(res.step_time_s, e.row.predicted, 1e-12);
    assert_true(e.train_result.step_time_s == e.row.predicted); /* the prediction it scored */
    /* a row augur skips is explained by its reason */
    assert_int_equal(aug_validate_explain(path, AUG_VALIDATE_AUTO, &opt, "r4", &e), AUG_OK);
    assert_true(e.row.skipped);
    assert_non_null(strstr(e.row.reason, "tp*pp*cp"));
    /* an id the set lacks names the file and the closest ids; an empty id is a usage error */
    assert_int_equal(aug_validate_explain(path, AUG_VALIDATE_AUTO, &opt, "r7", &e), AUG_ENOTFOUND);
    assert_non_null(strstr(aug_last_error(), "acc.csv: no row with id 'r7'"));
    assert_non_null(strstr(aug_last_error(), "did you mean: r1"));
    assert_int_equal(aug_validate_explain(path, AUG_VALIDATE_AUTO, &opt, "", &e), AUG_EUSAGE);
}

static void test_bad_rows_name_file_and_line(void **state) {
    (void)state;
    struct aug_validate_options opt = {NULL, 1, NULL, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    char csv[2048];
    snprintf(csv, sizeof csv,
             "%sok,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,1.0,s,\nbad,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,"
             "32,none,0,fp16,step_time_s,NaN,s,\n",
             header);
    const char *path = write_file("bad.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "bad.csv:3"));
    assert_non_null(strstr(aug_last_error(), "value"));
    /* a unit that does not belong to the metric */
    snprintf(csv, sizeof csv,
             "%su,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,1.0,ms,\n",
             header);
    path = write_file("unit.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "unit.csv:2"));
    assert_non_null(strstr(aug_last_error(), "unit"));
    /* a remark in parentheses after the unit is a comment; the unit itself still counts */
    snprintf(csv, sizeof csv,
             "%su,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,1.0,s/iteration (elapsed time per iteration),\n",
             header);
    write_file("unit.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_OK);
    assert_int_equal(r->predicted_rows, 1);
    aug_validate_report_free(r);
    snprintf(csv, sizeof csv,
             "%su,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,1.0,ms (per iteration),\n",
             header);
    write_file("unit.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "'ms (per iteration)' is not a unit of step_time_s"));
    /* an unknown system preset */
    snprintf(csv, sizeof csv,
             "%ss,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-z100,,4,1,2,,,,0,,4,32,none,0,fp16,"
             "step_time_s,1.0,s,\n",
             header);
    write_file("unit.csv", csv);
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "column 'system'"));
    /* optional columns with a value augur refuses: an attention kernel it does not know,
     * a pipeline-slot flag other than 0 or 1 */
    static const char *const bad_opt[][3] = {
        {"attention_kernel", "xformers", "column 'attention_kernel'"},
        {"pp_embed_loss_slots", "2", "column 'pp_embed_loss_slots'"},
        {"fp8_scaling", "tensorwise", "column 'fp8_scaling'"},
        /* an fp16 row: the scaling of fp8 operands does not apply */
        {"fp8_scaling", "current", "dtype is fp16, not fp8"},
        {"fp8_params", "2", "column 'fp8_params'"},
        {"fp8_params", "1", "fp8_params': 1 on a row whose dtype is fp16, not fp8"},
        {"param_gather_overlap", "yes", "column 'param_gather_overlap'"},
    };
    for (size_t i = 0; i < sizeof bad_opt / sizeof *bad_opt; i++) {
        snprintf(csv, sizeof csv,
                 "%.*s,%s\nk,A,t,,,12,1024,16,,,,gelu,1024,,,dgx-a100-80g,,4,1,2,,,,0,,4,32,none,"
                 "0,fp16,step_time_s,1.0,s,,%s\n",
                 (int)strlen(header) - 1, header, bad_opt[i][0], bad_opt[i][1]);
        write_file("unit.csv", csv);
        assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r), AUG_EDATA);
        assert_non_null(strstr(aug_last_error(), "unit.csv:2"));
        assert_non_null(strstr(aug_last_error(), bad_opt[i][2]));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_and_aggregates),
        cmocka_unit_test(test_plan_over_memory_flagged),
        cmocka_unit_test(test_check_reads_without_predicting),
        cmocka_unit_test(test_baseline_comparison),
        cmocka_unit_test(test_explain_one_row),
        cmocka_unit_test(test_moe_dispatcher_column),
        cmocka_unit_test(test_vtrain_importer),
        cmocka_unit_test(test_bad_rows_name_file_and_line),
        cmocka_unit_test(test_main_grads_column),
        cmocka_unit_test(test_cross_entropy_column),
        cmocka_unit_test(test_tp_async_allreduce_column),
        cmocka_unit_test(test_cuda_graphs_column),
        cmocka_unit_test(test_attn_chunked_column),
        cmocka_unit_test(test_zero3_gather_and_grad_reduce_columns),
        cmocka_unit_test(test_first_last_layers_columns),
        cmocka_unit_test(test_recompute_modules_column),
    };
    return cmocka_run_group_tests_name("validate", tests, setup, teardown);
}
