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
 * `step_overhead_us`, `launch_us`, `attention` (fused|unfused), `decode_attention`
 * (grouped|per_head: see struct aug_infer_plan). Every row is predicted
 * here; a row the model cannot predict is skipped with the reason. */
#include "validate_infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "augur/infer.h"

enum imetric { M_TTFT, M_TPOT, M_E2E, M_TPUT, M_TPUT_GPU, M_COUNT };

static const struct {
    const char *name;
    const char *units[3];
} metrics[M_COUNT] = {
    [M_TTFT] = {"ttft_s", {"s", "seconds", NULL}},
    [M_TPOT] = {"tpot_s", {"s", "seconds", NULL}},
    [M_E2E] = {"e2e_latency_s", {"s", "seconds", NULL}},
    [M_TPUT] = {"throughput_tokens_per_s", {"tokens/s", NULL, NULL}},
    [M_TPUT_GPU] = {"throughput_tokens_per_s_per_gpu", {"tokens/s/GPU", "tokens/s per GPU", NULL}},
};

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

static int read_plan(const struct aug_csv *t, size_t i, struct aug_infer_plan *p) {
    int st;
    aug_infer_plan_init(p);
    if ((st = aug_csv_get_long(t, i, "num_gpus", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &p->gpus)) ||
        (st = aug_vrow_long(t, i, "tp", AUG_CSV_POSITIVE, &p->tp)) ||
        (st = aug_vrow_long(t, i, "pp", AUG_CSV_POSITIVE, &p->pp)) ||
        (st = aug_vrow_long(t, i, "ep", AUG_CSV_POSITIVE, &p->ep)) ||
        (st = aug_csv_get_long(t, i, "batch", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &p->batch)) ||
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
        (st = opt_double(t, i, "launch_us", &p->launch_us)))
        return st;
    const char *mode = aug_vrow_cell(t, i, "mode");
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
                                  "throughput_tokens_per_s_per_gpu)", metric);
    const char *unit = aug_vrow_cell(t, i, "unit");
    if (unit[0]) {
        int ok = 0;
        for (int u = 0; u < 3 && metrics[k].units[u]; u++)
            ok |= strcmp(unit, metrics[k].units[u]) == 0;
        if (!ok)
            return aug_csv_cell_error(t, i, "unit", "'%s' is not a unit of %s", unit, metric);
    }
    struct aug_model model;
    struct aug_system sys;
    struct aug_infer_plan plan;
    if ((st = aug_vrow_model(t, i, &model)) != AUG_OK || (st = read_plan(t, i, &plan)) != AUG_OK ||
        (st = aug_vrow_system(rd, i, &sys)) != AUG_OK)
        return st;
    /* a model described by its dimensions served the row's whole context */
    if (!aug_vrow_cell(t, i, "model")[0] && plan.input_len < (1L << 40) && plan.output_len < (1L << 40) &&
        plan.input_len + plan.output_len > model.max_seq)
        model.max_seq = plan.input_len + plan.output_len;
    /* a plan or prediction the model refuses skips the row; its message is the reason */
    if ((st = aug_infer_plan_resolve(&plan, &model, &sys)) != AUG_OK)
        return AUG_EUNSUPPORTED;
    struct aug_kdb *kdb = NULL;
    /* an absent table is an empty kdb; one that cannot be read stops the run */
    if (!fallback_only && (st = aug_kdb_open(rd->kdb_root, sys.gpu.id, &kdb)) != AUG_OK)
        return st;
    struct aug_infer_options opt = {kdb, 0};
    struct aug_infer_result res;
    st = aug_infer_predict(&model, &sys, &plan, &opt, &res);
    aug_kdb_close(kdb);
    if (st != AUG_OK)
        return AUG_EUNSUPPORTED;
    row->predicted = metric_value((enum imetric)k, &res, &plan);
    if (!(row->predicted > 0) || !isfinite(row->predicted))
        return aug_errorf(AUG_EUNSUPPORTED, "%s is not defined for this row (output length %ld)",
                          metric, plan.output_len);
    row->provenance_calibrated = res.provenance.calibrated;
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
    static const char *const required[] = {"id",    "metric",    "value",     "system",
                                           "num_gpus", "batch", "input_len", "output_len"};
    for (size_t k = 0; k < sizeof required / sizeof *required; k++)
        if (aug_csv_col(t, required[k]) < 0)
            return aug_errorf(AUG_EDATA, "%s: missing column '%s' (inference accuracy sets use the "
                                         "schema of DESIGN section 6)", aug_csv_name(t), required[k]);
    return AUG_OK;
}
