/* SPDX-License-Identifier: Apache-2.0 */
/* validate_infer.c - rows of an accuracy set in the DESIGN section 6 inference schema:
 * `id, source, source_locator, model, params_b, layers, hidden, heads, kv_heads,
 * ffn_hidden, vocab, mlp, system, gpu, num_gpus, tp, pp, ep, batch, input_len, output_len,
 * dtype, weight_dtype, kv_dtype, framework, metric, value, unit, notes`.
 *
 * `model` is a preset (dimension cells next to it override it) or empty, and the
 * dimensions describe a GPT-style model (`mlp` gelu or swiglu; swiglu also selects the
 * Llama block: RMSNorm, rotary positions, no biases); such a model's context is taken to
 * reach the row's input + output length. Metrics: ttft_s, tpot_s, e2e_latency_s (s),
 * throughput_tokens_per_s (output tokens/s over all GPUs), and
 * throughput_tokens_per_s_per_gpu. Optional columns beyond the schema, read when present:
 * `mode` (static|continuous|disaggregated), `concurrency`, `request_rate`, `chunk_tokens`,
 * `step_overhead_us`, `launch_us`, `workspace_gib`, `attention` (fused|unfused), `decode_attention`
 * (grouped|per_head: see struct aug_infer_plan). Every row is predicted
 * here; a row the model cannot predict is skipped with the reason.
 *
 * Serving scenarios as benchmarks run them (augur/serving.h): a row with an empty `batch`
 * is an offline run (the engine's scheduler chose the batch), and the optional column
 * `scenario` (static, continuous, disaggregated, offline, server) names the scenario
 * explicitly. Offline and server rows read, when present: `engine` (trtllm|trtllm-trt|vllm|
 * sglang; else from `framework`: vLLM, SGLang, "TensorRT engine" for trtllm-trt, default
 * trtllm), `num_requests`
 * (default 1000), `kv_fraction`, `max_batch`, `max_num_tokens`, `request_rate` (server,
 * requests/s, required unless the requests file has arrival_s), `percentile` (mean, 50, 90
 * or 99: which statistic of a latency metric; default mean), `input_len_dist` and
 * `output_len_dist` (augur infer's distributions; default fixed at input_len and
 * output_len), `requests_file` (a request CSV, relative to the set's folder) and `seed`
 * (default 1). Metrics: throughput_tokens_per_s (output tokens/s over the run) and its per-GPU
 * form, total_tokens_per_s, requests_per_s, and ttft_s, tpot_s, e2e_latency_s at the
 * row's percentile. An empty kv_dtype takes the engine's default (augur/serving.h), which
 * for FP8 weights depends on the model's FP8 checkpoint recipe (a model given by dimensions
 * takes it from the preset of its architecture: validate_row.c). */
#include "validate_infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <ctype.h>

#include "augur/infer.h"
#include "augur/serving.h"

enum imetric { M_TTFT, M_TPOT, M_E2E, M_TPUT, M_TPUT_GPU, M_TOTAL, M_RPS, M_COUNT };

static const struct {
    const char *name;
    const char *units[3];
} metrics[M_COUNT] = {
    [M_TTFT] = {"ttft_s", {"s", "seconds", NULL}},
    [M_TPOT] = {"tpot_s", {"s", "seconds", NULL}},
    [M_E2E] = {"e2e_latency_s", {"s", "seconds", NULL}},
    [M_TPUT] = {"throughput_tokens_per_s", {"tokens/s", NULL, NULL}},
    [M_TPUT_GPU] = {"throughput_tokens_per_s_per_gpu", {"tokens/s/GPU", "tokens/s per GPU", NULL}},
    [M_TOTAL] = {"total_tokens_per_s", {"tokens/s", NULL, NULL}},
    [M_RPS] = {"requests_per_s", {"requests/s", NULL, NULL}},
};

enum scenario { SC_STATIC, SC_OFFLINE, SC_SERVER };

static int opt_double(const struct aug_csv *t, size_t i, const char *col, double *out) {
    int st = aug_csv_get_double(t, i, col, AUG_CSV_NONNEG, out);
    return st == AUG_ENOTFOUND ? AUG_OK : st;
}

static int read_dtype(const struct aug_csv *t, size_t i, const char *col, enum aug_dtype *out) {
    const char *v = aug_vrow_cell(t, i, col);
    if (v[0] && aug_dtype_from_name(v, out) != AUG_OK)
        return aug_csv_cell_error(t, i, col, "unknown dtype '%s'", v);
    return AUG_OK;
}

/* The row's scenario: the `scenario` column, else offline when `batch` is empty. */
static int read_scenario(const struct aug_csv *t, size_t i, enum scenario *sc) {
    const char *v = aug_vrow_cell(t, i, "scenario");
    const char *batch = aug_vrow_cell(t, i, "batch");
    *sc = batch[0] ? SC_STATIC : SC_OFFLINE;
    if (!v[0])
        return AUG_OK;
    if (strcasecmp(v, "offline") == 0)
        *sc = SC_OFFLINE;
    else if (strcasecmp(v, "server") == 0)
        *sc = SC_SERVER;
    else if (strcasecmp(v, "static") == 0 || strcasecmp(v, "continuous") == 0 ||
             strcasecmp(v, "disaggregated") == 0)
        *sc = SC_STATIC;
    else
        return aug_csv_cell_error(t, i, "scenario", "'%s' is not static, continuous, "
                                  "disaggregated, offline or server", v);
    if (*sc == SC_STATIC && !batch[0])
        return aug_csv_cell_error(t, i, "batch", "empty: a %s row needs its batch (an empty batch "
                                  "is an offline run)", v);
    return AUG_OK;
}

static int read_plan(const struct aug_csv *t, size_t i, struct aug_infer_plan *p) {
    int st;
    aug_infer_plan_init(p);
    if ((st = aug_csv_get_long(t, i, "num_gpus", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &p->gpus)) ||
        (st = aug_vrow_long(t, i, "tp", AUG_CSV_POSITIVE, &p->tp)) ||
        (st = aug_vrow_long(t, i, "pp", AUG_CSV_POSITIVE, &p->pp)) ||
        (st = aug_vrow_long(t, i, "ep", AUG_CSV_POSITIVE, &p->ep)) ||
        (st = aug_vrow_long(t, i, "batch", AUG_CSV_POSITIVE, &p->batch)) ||
        (st = aug_csv_get_long(t, i, "input_len", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE,
                               &p->input_len)) ||
        (st = aug_csv_get_long(t, i, "output_len", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE,
                               &p->output_len)) ||
        (st = read_dtype(t, i, "dtype", &p->dtype)) ||
        (st = read_dtype(t, i, "weight_dtype", &p->weight_dtype)) ||
        (st = read_dtype(t, i, "kv_dtype", &p->kv_dtype)) ||
        (st = aug_vrow_long(t, i, "concurrency", AUG_CSV_POSITIVE, &p->concurrency)) ||
        (st = aug_vrow_long(t, i, "chunk_tokens", AUG_CSV_POSITIVE, &p->chunk_tokens)) ||
        (st = opt_double(t, i, "request_rate", &p->request_rate)) ||
        (st = opt_double(t, i, "step_overhead_us", &p->step_overhead_us)) ||
        (st = opt_double(t, i, "launch_us", &p->launch_us)) ||
        (st = opt_double(t, i, "workspace_gib", &p->workspace_gib)))
        return st;
    const char *mode = aug_vrow_cell(t, i, "mode");
    const char *sc = aug_vrow_cell(t, i, "scenario");
    if (!mode[0] && (strcasecmp(sc, "continuous") == 0 || strcasecmp(sc, "disaggregated") == 0))
        mode = sc;
    if (mode[0] && aug_serve_mode_from_name(mode, &p->mode) != AUG_OK)
        return aug_csv_cell_error(t, i, "mode", "'%s' is not static, continuous or disaggregated",
                                  mode);
    long adp = 0;
    if ((st = aug_vrow_long(t, i, "attn_dp", AUG_CSV_NONNEG, &adp)) != AUG_OK)
        return st;
    if (adp > 1)
        return aug_csv_cell_error(t, i, "attn_dp", "%ld is not 0 or 1", adp);
    p->attn_dp = (int)adp;
    const char *dk = aug_vrow_cell(t, i, "decode_attention");
    if (dk[0]) {
        if (strcasecmp(dk, "per_head") == 0 || strcasecmp(dk, "per-head") == 0)
            p->decode_per_head = 1;
        else if (strcasecmp(dk, "grouped") == 0)
            p->decode_per_head = 0;
        else
            return aug_csv_cell_error(t, i, "decode_attention", "'%s' is not grouped or per_head", dk);
    }
    return aug_vrow_attention(t, i, &p->flash_attention);
}

static double metric_value(enum imetric k, const struct aug_infer_result *r,
                           const struct aug_infer_plan *p) {
    switch (k) {
    case M_TTFT: return r->ttft_s;
    case M_TPOT: return r->tpot_s;
    case M_E2E: return r->e2e_latency_s;
    case M_TPUT: return r->throughput_tokens_per_s;
    default: return r->throughput_tokens_per_s / (double)p->gpus;
    }
}

/* The engine of a row: the `engine` column, else what `framework` names. */
static int read_engine(const struct aug_csv *t, size_t i, enum aug_engine *e) {
    const char *v = aug_vrow_cell(t, i, "engine");
    if (v[0]) {
        if (aug_engine_from_name(v, e) != AUG_OK)
            return aug_csv_cell_error(t, i, "engine", "'%s' is not trtllm, vllm or sglang", v);
        return AUG_OK;
    }
    char low[256];
    const char *fw = aug_vrow_cell(t, i, "framework");
    size_t k = 0;
    for (; fw[k] && k + 1 < sizeof low; k++)
        low[k] = (char)tolower((unsigned char)fw[k]);
    low[k] = '\0';
    *e = strstr(low, "vllm")              ? AUG_ENGINE_VLLM
         : strstr(low, "sglang")          ? AUG_ENGINE_SGLANG
         : strstr(low, "tensorrt engine") ? AUG_ENGINE_TRTLLM_TRT
                                          : AUG_ENGINE_TRTLLM;
    return AUG_OK;
}

/* The request list of an offline or server row. */
static int read_requests(struct aug_validate_reader *rd, size_t i, const struct aug_infer_plan *p,
                         enum scenario sc, struct aug_requests *reqs) {
    const struct aug_csv *t = rd->t;
    long n = 1000, seed = 1;
    double rate = 0.0;
    int st;
    if ((st = aug_vrow_long(t, i, "num_requests", AUG_CSV_POSITIVE, &n)) ||
        (st = aug_vrow_long(t, i, "seed", AUG_CSV_NONNEG, &seed)) ||
        (st = opt_double(t, i, "request_rate", &rate)))
        return st;
    const char *file = aug_vrow_cell(t, i, "requests_file");
    if (file[0]) {
        char path[1200];
        if (file[0] == '/')
            snprintf(path, sizeof path, "%s", file);
        else
            snprintf(path, sizeof path, "%s/%s", rd->dir, file);
        if ((st = aug_requests_load(path, reqs)) != AUG_OK)
            return aug_csv_cell_error(t, i, "requests_file", "%s", aug_last_error());
        if (sc == SC_SERVER && rate > 0 &&
            (st = aug_requests_poisson(reqs, rate, (unsigned long long)seed)) != AUG_OK) {
            aug_requests_free(reqs);
            return aug_csv_cell_error(t, i, "request_rate", "%s", aug_last_error());
        }
        if (sc == SC_SERVER && !reqs->has_arrivals) {
            aug_requests_free(reqs);
            return aug_csv_cell_error(t, i, "request_rate", "a server row needs a positive rate "
                                      "or a requests file with arrival_s");
        }
        return AUG_OK;
    }
    if (sc == SC_SERVER && !(rate > 0))
        return aug_csv_cell_error(t, i, "request_rate", "a server row needs a positive rate of "
                                  "requests/s (got %g)", rate);
    struct aug_len_dist din = {AUG_LEN_FIXED, (double)p->input_len, 0};
    struct aug_len_dist dout = {AUG_LEN_FIXED, (double)p->output_len, 0};
    static const char *const cols[2] = {"input_len_dist", "output_len_dist"};
    struct aug_len_dist *d[2] = {&din, &dout};
    for (int k = 0; k < 2; k++) {
        const char *v = aug_vrow_cell(t, i, cols[k]);
        if (v[0] && aug_len_dist_parse(v, d[k]) != AUG_OK)
            return aug_csv_cell_error(t, i, cols[k], "%s", aug_last_error());
    }
    if ((st = aug_requests_generate(&din, &dout, n, sc == SC_SERVER ? rate : 0.0,
                                    (unsigned long long)seed, reqs)) != AUG_OK)
        return aug_csv_cell_error(t, i, "num_requests", "%s", aug_last_error());
    return AUG_OK;
}

/* The row's statistic of a latency metric: mean, 50, 90 or 99. */
static int pick_stat(const struct aug_csv *t, size_t i, const struct aug_latency_stats *l,
                     double *out) {
    const char *v = aug_vrow_cell(t, i, "percentile");
    if (!v[0] || strcasecmp(v, "mean") == 0)
        *out = l->mean;
    else if (strcmp(v, "50") == 0 || strcasecmp(v, "p50") == 0)
        *out = l->p50;
    else if (strcmp(v, "90") == 0 || strcasecmp(v, "p90") == 0)
        *out = l->p90;
    else if (strcmp(v, "99") == 0 || strcasecmp(v, "p99") == 0)
        *out = l->p99;
    else
        return aug_csv_cell_error(t, i, "percentile", "'%s' is not mean, 50, 90 or 99", v);
    return AUG_OK;
}

/* The case and simulation of an offline or server row for --explain. */
static void describe_serving(struct aug_validate_reader *rd, size_t i, const struct aug_model *model,
                             const struct aug_system *sys, const struct aug_infer_plan *plan,
                             const struct aug_serve_config *cfg, enum scenario sc,
                             const char *kv_why, const struct aug_serve_result *res) {
    const struct aug_csv *t = rd->t;
    struct aug_validate_explained *e = rd->explain;
    e->kind = AUG_VCASE_SERVE;
    e->model = *model;
    e->system = *sys;
    e->infer_plan = *plan;
    e->serve = *cfg;
    e->server = sc == SC_SERVER;
    e->serve_result = *res;
    long seed = 1;
    if (aug_vrow_long(t, i, "seed", AUG_CSV_NONNEG, &seed) != AUG_OK)
        seed = 1; /* read once already: cannot fail here */
    e->seed = (unsigned long long)seed;
    const char *file = aug_vrow_cell(t, i, "requests_file");
    snprintf(e->requests_source, sizeof e->requests_source, "%s", file[0] ? file : "generated");
    const char *din = aug_vrow_cell(t, i, "input_len_dist"), *dout = aug_vrow_cell(t, i, "output_len_dist");
    if (din[0])
        snprintf(e->input_spec, sizeof e->input_spec, "%s", din);
    else
        snprintf(e->input_spec, sizeof e->input_spec, "%ld", plan->input_len);
    if (dout[0])
        snprintf(e->output_spec, sizeof e->output_spec, "%s", dout);
    else
        snprintf(e->output_spec, sizeof e->output_spec, "%ld", plan->output_len);
    snprintf(e->kv_dtype_why, sizeof e->kv_dtype_why, "%s", kv_why ? kv_why : "");
    e->max_batch_given = aug_vrow_cell(t, i, "max_batch")[0] != '\0';
    e->max_tokens_given = aug_vrow_cell(t, i, "max_num_tokens")[0] != '\0';
    e->kv_fraction_given = aug_vrow_cell(t, i, "kv_fraction")[0] != '\0';
}

/* An offline or server row: the scheduler simulation (augur/serving.h). */
static int predict_serving(struct aug_validate_reader *rd, size_t i, struct aug_model *model,
                           const struct aug_system *sys, struct aug_infer_plan *plan,
                           enum scenario sc, enum imetric k, int fallback_only,
                           struct aug_validate_row *row) {
    const struct aug_csv *t = rd->t;
    struct aug_serve_config cfg;
    enum aug_engine eng;
    int st = read_engine(t, i, &eng);
    if (st != AUG_OK)
        return st;
    aug_serve_config_init(&cfg, eng);
    double frac = -1.0;
    if ((st = opt_double(t, i, "kv_fraction", &frac)) ||
        (st = opt_double(t, i, "request_overhead_us", &cfg.request_overhead_us)) ||
        (st = aug_vrow_long(t, i, "max_batch", AUG_CSV_POSITIVE, &cfg.max_batch)) ||
        (st = aug_vrow_long(t, i, "max_num_tokens", AUG_CSV_POSITIVE, &cfg.max_num_tokens)))
        return st;
    if (frac >= 0) {
        if (!(frac > 0 && frac <= 1.0))
            return aug_csv_cell_error(t, i, "kv_fraction", "%g is not in (0, 1]", frac);
        cfg.kv_fraction = frac;
    }
    if (plan->input_len < 1 || plan->output_len < 1)
        return aug_csv_cell_error(t, i, "input_len", "an offline or server row needs input_len and "
                                  "output_len (the means when distributions are given)");
    struct aug_requests reqs;
    if ((st = read_requests(rd, i, plan, sc, &reqs)) != AUG_OK)
        return st;
    double tokens = 0.0;
    for (long r = 0; r < reqs.n; r++)
        tokens += (double)reqs.r[r].output_len;
    if (tokens > 2e8) { /* published runs generate up to ~10^8 tokens (30,000 x 2,000) */
        aug_requests_free(&reqs);
        return aug_errorf(AUG_EUNSUPPORTED, "%.3g output tokens: a validation row simulates at most "
                                            "2e8", tokens);
    }
    long max_ctx = 0;
    for (long r = 0; r < reqs.n; r++)
        if (reqs.r[r].input_len + reqs.r[r].output_len > max_ctx)
            max_ctx = reqs.r[r].input_len + reqs.r[r].output_len;
    if (!aug_vrow_cell(t, i, "model")[0] && max_ctx > model->max_seq)
        model->max_seq = max_ctx;
    const char *kv_why = NULL;
    if ((unsigned)plan->kv_dtype >= AUG_DTYPE_COUNT)
        plan->kv_dtype = aug_engine_kv_dtype(eng, plan->dtype, plan->weight_dtype,
                                             model->fp8_recipe, &kv_why);
    long rep = plan->tp * plan->pp;
    plan->batch = plan->gpus % rep == 0 ? plan->gpus / rep : 1;
    if (aug_infer_plan_resolve(plan, model, sys) != AUG_OK) {
        aug_requests_free(&reqs);
        return AUG_EUNSUPPORTED;
    }
    if (rd->check_only) {
        aug_requests_free(&reqs);
        return AUG_OK;
    }
    struct aug_kdb *kdb = NULL;
    if (!fallback_only && aug_kdb_open_predict(rd->kdb_root, sys->gpu.id, &kdb) != AUG_OK)
        kdb = NULL;
    struct aug_infer_options opt = {kdb, 0};
    struct aug_serve_result res;
    st = aug_serve_simulate(model, sys, plan, &opt, &cfg, &reqs,
                            sc == SC_SERVER ? AUG_SCENARIO_SERVER : AUG_SCENARIO_OFFLINE, &res);
    aug_kdb_close(kdb);
    if (rd->explain && st == AUG_OK)
        describe_serving(rd, i, model, sys, plan, &cfg, sc, kv_why, &res);
    aug_requests_free(&reqs);
    if (st != AUG_OK)
        return AUG_EUNSUPPORTED;
    switch (k) {
    case M_TTFT: st = pick_stat(t, i, &res.ttft, &row->predicted); break;
    case M_TPOT: st = pick_stat(t, i, &res.tpot, &row->predicted); break;
    case M_E2E: st = pick_stat(t, i, &res.e2e, &row->predicted); break;
    case M_TPUT: row->predicted = res.output_tokens_per_s; break;
    case M_TPUT_GPU: row->predicted = res.output_tokens_per_s / (double)plan->gpus; break;
    case M_TOTAL: row->predicted = res.total_tokens_per_s; break;
    default: row->predicted = res.requests_per_s; break;
    }
    if (st != AUG_OK)
        return st;
    if (!(row->predicted > 0))
        return aug_errorf(AUG_EUNSUPPORTED, "%s is not defined for this row", row->metric);
    row->provenance_calibrated = res.provenance.calibrated;
    row->error_pct = (row->predicted - row->measured) / row->measured * 100.0;
    return AUG_OK;
}

static int read_row(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                    int fallback_only) {
    const struct aug_csv *t = rd->t;
    snprintf(row->id, sizeof row->id, "%s", aug_vrow_cell(t, i, "id"));
    snprintf(row->source, sizeof row->source, "%s", aug_vrow_cell(t, i, "source"));
    if (!row->id[0])
        return aug_csv_cell_error(t, i, "id", "empty, every row needs an id");
    const char *metric = aug_vrow_cell(t, i, "metric");
    snprintf(row->metric, sizeof row->metric, "%s", metric);
    int st = aug_csv_get_double(t, i, "value", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &row->measured);
    if (st != AUG_OK)
        return st;
    int k;
    for (k = 0; k < M_COUNT; k++)
        if (strcmp(metric, metrics[k].name) == 0)
            break;
    if (k == M_COUNT)
        return aug_csv_cell_error(t, i, "metric", "unknown inference metric '%s' (use ttft_s, tpot_s, "
                                  "e2e_latency_s, throughput_tokens_per_s, "
                                  "throughput_tokens_per_s_per_gpu, total_tokens_per_s, "
                                  "requests_per_s)", metric);
    int ust = aug_vrow_unit(t, i, metric, metrics[k].units, 3);
    if (ust != AUG_OK)
        return ust;
    struct aug_model model;
    struct aug_system sys;
    struct aug_infer_plan plan;
    enum scenario sc;
    if ((st = read_scenario(t, i, &sc)) != AUG_OK || (st = aug_vrow_model(t, i, &model)) != AUG_OK ||
        (st = read_plan(t, i, &plan)) != AUG_OK || (st = aug_vrow_system(rd, i, &sys)) != AUG_OK)
        return st;
    if (sc != SC_STATIC)
        return predict_serving(rd, i, &model, &sys, &plan, sc, (enum imetric)k, fallback_only, row);
    if (k == M_TOTAL || k == M_RPS)
        return aug_csv_cell_error(t, i, "metric", "%s needs an offline or server row", metric);
    /* a model described by its dimensions served the row's whole context */
    if (!aug_vrow_cell(t, i, "model")[0] && plan.input_len < (1L << 40) && plan.output_len < (1L << 40) &&
        plan.input_len + plan.output_len > model.max_seq)
        model.max_seq = plan.input_len + plan.output_len;
    /* a plan or prediction the model refuses skips the row; its message is the reason */
    if ((st = aug_infer_plan_resolve(&plan, &model, &sys)) != AUG_OK)
        return AUG_EUNSUPPORTED;
    if (rd->check_only)
        return AUG_OK;

    struct aug_kdb *kdb = NULL;
    /* an absent table is an empty kdb; one that cannot be read stops the run */
    if (!fallback_only && (st = aug_kdb_open_predict(rd->kdb_root, sys.gpu.id, &kdb)) != AUG_OK)
        return st;
    struct aug_infer_options opt = {kdb, 0};
    struct aug_infer_result res;
    st = aug_infer_predict(&model, &sys, &plan, &opt, &res);
    aug_kdb_close(kdb);
    if (st != AUG_OK)
        return AUG_EUNSUPPORTED;
    if (rd->explain) {
        rd->explain->kind = AUG_VCASE_INFER;
        rd->explain->model = model;
        rd->explain->system = sys;
        rd->explain->infer_plan = plan;
        rd->explain->infer_result = res;
    }
    row->predicted = metric_value((enum imetric)k, &res, &plan);
    if (!(row->predicted > 0) || !isfinite(row->predicted))
        return aug_errorf(AUG_EUNSUPPORTED, "%s is not defined for this row (output length %ld)",
                          metric, plan.output_len);
    row->provenance_calibrated = res.provenance.calibrated;
    row->memory_gib = res.memory.total_gib;
    row->memory_capacity_gib = res.memory_capacity_gib;
    row->error_pct = (row->predicted - row->measured) / row->measured * 100.0;
    return AUG_OK;
}

static int read_with_curves(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                            struct aug_validate_case *vc) {
    (void)vc;
    return read_row(rd, i, row, 0);
}

static int read_fallback(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                         struct aug_validate_case *vc) {
    (void)vc;
    return read_row(rd, i, row, 1);
}

int aug_validate_infer_open(const struct aug_csv *t, const char *path,
                            const struct aug_validate_options *opt, struct aug_validate_reader *rd) {
    memset(rd, 0, sizeof *rd);
    rd->t = t;
    rd->kdb_root = opt ? opt->kdb_root : NULL;
    rd->read = opt && opt->fallback_only ? read_fallback : read_with_curves;
    snprintf(rd->dir, sizeof rd->dir, "%s", path);
    char *slash = strrchr(rd->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(rd->dir, sizeof rd->dir, ".");
    static const char *const required[] = {"id",       "metric",    "value",     "system",
                                           "num_gpus", "input_len", "output_len"};
    for (size_t k = 0; k < sizeof required / sizeof *required; k++)
        if (aug_csv_col(t, required[k]) < 0)
            return aug_errorf(AUG_EDATA, "%s: missing column '%s' (inference accuracy sets use the "
                                         "schema of benchmarks/accuracy/README.md)", aug_csv_name(t), required[k]);
    return AUG_OK;
}
