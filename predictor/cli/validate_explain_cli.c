/* SPDX-License-Identifier: Apache-2.0 */
/* validate_explain_cli.c - `augur validate FILE --explain ID`: one row of an accuracy set,
 * its prediction printed in full with the output of the command that predicts such a plan
 * (`augur train`, `augur infer`, `augur infer --mode offline|server`): breakdown,
 * provenance and, with --ops, every op (the op report times the plan once more). A row far
 * off its measurement can then be read term by term without writing its command line by
 * hand. */
#include "validate_explain_cli.h"

#include <string.h>

#include "cli.h"
#include "infer_cli.h"
#include "serve_cli.h"
#include "train_cli.h"

/* The row's measurement and score, before the prediction's own output. */
static void row_table(FILE *f, const char *path, const struct aug_validate_explained *e) {
    const struct aug_validate_row *r = &e->row;
    fprintf(f, "# augur validate %s --explain %s (line %ld, source: %s)\n", path, r->id, r->line,
            r->source);
    if (r->skipped) {
        fprintf(f, "# skipped: %s\n", r->reason);
        return;
    }
    fprintf(f, "# %s: measured %.6g, predicted %.6g, error %+.1f%%; the row's prediction in full:\n",
            r->metric, r->measured, r->predicted, r->error_pct);
}

static json_t *row_json(const struct aug_validate_explained *e) {
    const struct aug_validate_row *r = &e->row;
    json_t *o = json_object();
    json_object_set_new(o, "id", aug_cli_json_text(r->id));
    json_object_set_new(o, "line", json_integer((json_int_t)r->line));
    json_object_set_new(o, "metric", aug_cli_json_text(r->metric));
    json_object_set_new(o, "measured", json_real(r->measured));
    json_object_set_new(o, "predicted", r->skipped ? json_null() : json_real(r->predicted));
    json_object_set_new(o, "error_pct", r->skipped ? json_null() : json_real(r->error_pct));
    json_object_set_new(o, "skipped", json_boolean(r->skipped));
    json_object_set_new(o, "reason", aug_cli_json_text(r->reason));
    return o;
}

static int train_case(FILE *f, enum aug_format fmt, const struct aug_validate_explained *e,
                      const struct aug_kdb *kdb, int want_ops, json_t *row) {
    struct aug_train_options opt = {kdb, 0, NULL, 0.0};
    struct aug_train_result res = e->train_result;
    static struct aug_train_op_report ops[AUG_TRAIN_OPS_MAX];
    int n_ops = 0;
    int st = want_ops ? aug_train_ops(&e->model, &e->system, &e->plan, &opt, &res, ops,
                                      AUG_TRAIN_OPS_MAX, &n_ops)
                      : AUG_OK;
    if (st != AUG_OK)
        return st;
    /* a row whose plan augur counts above its GPU's memory ran: the options that would
     * make it fit point at the setting the row may be missing */
    struct aug_train_memory_option mopt[AUG_TRAIN_MEMORY_OPTIONS_MAX];
    int n_mopt = res.fits_in_memory ? 0
                                    : aug_train_memory_options(&e->model, &e->system, &e->plan,
                                                               mopt, AUG_TRAIN_MEMORY_OPTIONS_MAX);
    if (fmt == AUG_FORMAT_TABLE) {
        aug_cli_train_table(f, &e->model, &e->system, &e->plan, &res, kdb);
        if (!res.fits_in_memory)
            aug_cli_train_memory_options_table(f, mopt, n_mopt);
        if (want_ops)
            aug_cli_train_ops_table(f, &res, ops, n_ops);
        return AUG_OK;
    }
    if (fmt == AUG_FORMAT_CSV && want_ops)
        return aug_cli_train_ops_csv(f, ops, n_ops) == 0 ? AUG_OK : AUG_EIO;
    json_t *obj = aug_cli_train_json(&e->model, &e->system, &e->plan, &res, kdb);
    json_object_set_new(obj, "framework", aug_cli_train_framework_json(&e->plan, &e->system, ""));
    json_object_set_new(obj, "memory_options", aug_cli_train_memory_options_json(mopt, n_mopt));
    if (want_ops)
        json_object_set_new(obj, "ops", aug_cli_train_ops_json(ops, n_ops));
    json_object_set_new(obj, "validate_row", json_incref(row));
    st = aug_cli_write(f, fmt, obj) == 0 ? AUG_OK : AUG_EIO;
    json_decref(obj);
    return st;
}

static int infer_case(FILE *f, enum aug_format fmt, const struct aug_validate_explained *e,
                      const struct aug_kdb *kdb, int want_ops, json_t *row) {
    struct aug_infer_options opt = {kdb, 0};
    static struct aug_infer_op_report ops[AUG_CLI_INFER_OPS_MAX];
    int n_ops = 0;
    int st = want_ops ? aug_infer_ops(&e->model, &e->system, &e->infer_plan, &opt, ops,
                                      AUG_CLI_INFER_OPS_MAX, &n_ops)
                      : AUG_OK;
    if (st != AUG_OK)
        return st;
    return aug_cli_infer_emit(f, fmt, &e->model, &e->system, &e->infer_plan, &e->infer_result,
                              kdb, 0, ops, n_ops, want_ops, "validate_row", json_incref(row)) == 0
               ? AUG_OK
               : AUG_EIO;
}

static int serve_case(FILE *f, enum aug_format fmt, const struct aug_validate_explained *e,
                      json_t *row) {
    const struct aug_serve_result *res = &e->serve_result;
    int from_file = strcmp(e->requests_source, "generated") != 0;
    struct aug_serve_run_info info = {
        .requests_source = e->requests_source,
        .input_spec = from_file ? "from the file" : e->input_spec,
        .output_spec = from_file ? "from the file" : e->output_spec,
        .seed = e->seed,
        .kv_dtype_why = e->kv_dtype_why[0] ? e->kv_dtype_why : "the row's kv_dtype",
        .max_batch_given = e->max_batch_given,
        .max_tokens_given = e->max_tokens_given,
        .kv_fraction_given = e->kv_fraction_given,
        .arrivals_from_file = e->server && from_file && !(e->infer_plan.request_rate > 0),
        .step_overhead_us = aug_cli_serve_step_overhead_us(&e->serve, &e->model, &e->infer_plan, 0),
    };
    if (fmt == AUG_FORMAT_TABLE) {
        aug_cli_serve_table(f, &e->model, &e->system, &e->infer_plan, &info, res);
        return AUG_OK;
    }
    json_t *obj = aug_cli_serve_json(&e->model, &e->system, &e->infer_plan, &info, res);
    json_object_set_new(obj, "validate_row", json_incref(row));
    int st = aug_cli_write(f, fmt, obj) == 0 ? AUG_OK : AUG_EIO;
    json_decref(obj);
    return st;
}

int aug_cli_validate_explain(FILE *f, enum aug_format fmt, const char *path,
                             const struct aug_validate_explained *e, const char *kdb_root,
                             int fallback_only, int want_ops) {
    json_t *row = row_json(e);
    int st = AUG_OK;
    if (e->row.skipped) { /* nothing was predicted: the reason is the explanation */
        if (fmt == AUG_FORMAT_TABLE)
            row_table(f, path, e);
        else {
            json_t *obj = json_object();
            json_object_set_new(obj, "validate_row", json_incref(row));
            st = aug_cli_write(f, fmt, obj) == 0 ? AUG_OK : AUG_EIO;
            json_decref(obj);
        }
        json_decref(row);
        return st;
    }
    struct aug_kdb *kdb = NULL;
    if (!fallback_only && (st = aug_kdb_open_predict(kdb_root, e->system.gpu.id, &kdb)) != AUG_OK) {
        json_decref(row);
        return st;
    }
    if (fmt == AUG_FORMAT_TABLE)
        row_table(f, path, e);
    if (e->kind == AUG_VCASE_TRAIN)
        st = train_case(f, fmt, e, kdb, want_ops, row);
    else if (e->kind == AUG_VCASE_INFER)
        st = infer_case(f, fmt, e, kdb, want_ops, row);
    else
        st = serve_case(f, fmt, e, row);
    aug_kdb_close(kdb);
    json_decref(row);
    return st;
}
