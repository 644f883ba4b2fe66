/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_validate.c - `augur validate FILE.csv`: predict every measured run of an accuracy
 * set (or of vTrain's ground-truth file) and report per-row error, MAPE, max error and
 * error by source; --max-mape turns the MAPE into a pass/fail bar for CI; --check reads and
 * resolves every row without predicting (a quick lint of a set). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "augur/augur.h"
#include "cli.h"
#include "commands.h"
#include "validate_explain_cli.h"

static void help(void) {
    printf("usage: augur validate FILE.csv [--max-mape PCT] [--import accuracy|vtrain] [--kdb DIR]\n"
           "                      [--fallback-only] [--summary] [--format table|json|csv]\n"
           "                      [--output FILE] [--check] [--group-by COL[,COL...]]\n"
           "                      [--baseline REPORT.json [--max-shift PTS]]\n"
           "       augur validate FILE.csv --explain ID [--ops] [--kdb DIR] [--fallback-only]\n"
           "                      [--format table|json|csv] [--output FILE]\n\n"
           "Predicts every row of an accuracy set (schemas in benchmarks/accuracy/README.md;\n"
           "sets in benchmarks/accuracy/) or of vTrain's ground_truth_single.csv (detected by its\n"
           "columns), and reports each row's error, the MAPE, the largest error and the MAPE\n"
           "by source. Rows augur cannot predict are listed as skipped with the reason; rows\n"
           "whose plan needs more memory per GPU than the GPU has, as augur's memory model\n"
           "counts it, are listed apart: the run measured held its GPU's memory, so the row\n"
           "misses a setting the run had (recomputation, sequence parallelism, sharding) or\n"
           "the count is high.\n"
           "--max-mape PCT exits 1 when the MAPE exceeds PCT. --fallback-only ignores\n"
           "calibrated curves, to measure what calibration buys. --summary omits the rows.\n"
           "--check reads every row (cells, model, system, plan, request lists) and lists the\n"
           "rows that would be skipped, without predicting any: a quick check of a new set.\n"
           "--group-by COL[,COL...] adds the MAPE, mean signed error and largest error of the\n"
           "rows sharing their cells of these columns of the set (up to 8; e.g. system,dtype\n"
           "or input_len,output_len), in the table and as by_group in JSON.\n"
           "--baseline REPORT.json compares each row, by id, with a report saved earlier by\n"
           "`augur validate FILE --format json` (without --summary): how far its |error|\n"
           "moved, rows new, gone, now skipped or now predicted, and the MAPE of the rows\n"
           "predicted in both. --max-shift PTS exits 1 when a row's |error| grew by more than\n"
           "PTS percentage points, a row the baseline predicted is now skipped, or a row\n"
           "whose plan fit in the baseline needs more than its GPU's memory now: a per-row\n"
           "bar for CI beside --max-mape.\n"
           "--explain ID predicts only the row of that id (vTrain rows: vtrain_line<N>) and\n"
           "prints its prediction in full, as `augur train` or `augur infer` print the row's\n"
           "plan: breakdown, provenance, the framework's host costs; --ops adds every op.\n");
}

enum { OPT_MAX = 256, OPT_IMPORT, OPT_KDB, OPT_FALLBACK, OPT_SUMMARY, OPT_FORMAT, OPT_OUTPUT,
       OPT_CHECK, OPT_GROUP, OPT_BASELINE, OPT_MAX_SHIFT, OPT_EXPLAIN, OPT_OPS, OPT_HELP };
static const struct option options[] = {
    {"max-mape", required_argument, 0, OPT_MAX}, {"import", required_argument, 0, OPT_IMPORT},
    {"kdb", required_argument, 0, OPT_KDB},      {"fallback-only", no_argument, 0, OPT_FALLBACK},
    {"summary", no_argument, 0, OPT_SUMMARY},    {"format", required_argument, 0, OPT_FORMAT},
    {"output", required_argument, 0, OPT_OUTPUT}, {"check", no_argument, 0, OPT_CHECK},
    {"group-by", required_argument, 0, OPT_GROUP}, {"baseline", required_argument, 0, OPT_BASELINE},
    {"max-shift", required_argument, 0, OPT_MAX_SHIFT}, {"explain", required_argument, 0, OPT_EXPLAIN},
    {"ops", no_argument, 0, OPT_OPS},              {"help", no_argument, 0, OPT_HELP},
    {0, 0, 0, 0},
};

static json_t *report_json(const struct aug_validate_report *r, int rows) {
    json_t *o = json_object(), *arr = json_array(), *skipped = json_array(), *by = json_object();
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct aug_validate_row *row = &r->rows[i];
        if (row->skipped) {
            json_array_append_new(skipped, json_pack("{s:s,s:s}", "id", row->id, "reason", row->reason));
            continue;
        }
        if (rows) {
            json_t *o_row = json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:f}", "id", row->id, "source",
                                      row->source, "metric", row->metric, "measured",
                                      row->measured, "predicted", row->predicted, "error_pct",
                                      row->error_pct, "calibrated_share",
                                      row->provenance_calibrated);
            int known = row->memory_capacity_gib > 0;
            json_object_set_new(o_row, "memory_gib",
                                known ? json_real(row->memory_gib) : json_null());
            json_object_set_new(o_row, "memory_capacity_gib",
                                known ? json_real(row->memory_capacity_gib) : json_null());
            json_object_set_new(o_row, "fits_in_memory",
                                known ? json_boolean(!aug_validate_over_memory(row))
                                      : json_null());
            json_array_append_new(arr, o_row);
        }
    }
    for (size_t k = 0; k < r->n_sources; k++)
        json_object_set_new(by, r->sources[k].source,
                            json_pack("{s:i,s:f,s:f}", "rows", r->sources[k].rows, "mape_pct",
                                      r->sources[k].mape_pct, "max_abs_error_pct",
                                      r->sources[k].max_abs_error_pct));
    json_object_set_new(o, "rows", arr);
    json_object_set_new(o, "mape_pct", json_real(r->mape_pct));
    json_object_set_new(o, "max_abs_error_pct", json_real(r->max_abs_error_pct));
    json_object_set_new(o, "median_abs_error_pct", json_real(r->median_abs_error_pct));
    json_object_set_new(o, "by_source", by);
    if (r->n_groups) {
        json_t *groups = json_array();
        for (size_t k = 0; k < r->n_groups; k++)
            json_array_append_new(groups, json_pack("{s:s,s:i,s:f,s:f,s:f}", "key", r->groups[k].key,
                                                    "rows", r->groups[k].rows, "mape_pct",
                                                    r->groups[k].mape_pct, "mean_error_pct",
                                                    r->groups[k].mean_error_pct,
                                                    "max_abs_error_pct",
                                                    r->groups[k].max_abs_error_pct));
        json_object_set_new(o, "by_group", groups);
    }
    json_object_set_new(o, "predicted_rows", json_integer((json_int_t)r->predicted_rows));
    json_object_set_new(o, "over_memory_rows", json_integer((json_int_t)r->over_memory_rows));
    json_object_set_new(o, "skipped", skipped);
    return o;
}

/* --check: how many rows would be scored, and why the others would not. */
static size_t count_skipped(const struct aug_validate_report *r) {
    size_t n = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        n += r->rows[i].skipped != 0;
    return n;
}

static json_t *check_json(const struct aug_validate_report *r) {
    json_t *o = json_object(), *skipped = json_array();
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].skipped)
            json_array_append_new(skipped, json_pack("{s:s,s:I,s:s}", "id", r->rows[i].id, "line",
                                                     (json_int_t)r->rows[i].line, "reason",
                                                     r->rows[i].reason));
    json_object_set_new(o, "rows_read", json_integer((json_int_t)r->n_rows));
    json_object_set_new(o, "scorable_rows", json_integer((json_int_t)(r->n_rows - count_skipped(r))));
    json_object_set_new(o, "skipped", skipped);
    return o;
}

static void check_table(FILE *f, const struct aug_validate_report *r, const char *path) {
    size_t skipped = count_skipped(r);
    fprintf(f, "# augur validate --check %s (rows read and resolved, none predicted)\n", path);
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].skipped)
            fprintf(f, "  line %-6ld %-38.38s %s\n", r->rows[i].line, r->rows[i].id,
                    r->rows[i].reason);
    fprintf(f, "rows %zu: %zu would be scored, %zu skipped\n", r->n_rows, r->n_rows - skipped,
            skipped);
}

/* Width of the source labels of "by source": 60 characters, or as many as it takes to
 * tell apart two sources that share their first 60 (releases of one page, say). */
static int source_label_width(const struct aug_validate_report *r) {
    size_t w = 60;
    for (size_t a = 0; a < r->n_sources; a++)
        for (size_t b = a + 1; b < r->n_sources; b++) {
            const char *x = r->sources[a].source, *y = r->sources[b].source;
            size_t n = 0;
            while (x[n] && x[n] == y[n])
                n++;
            if (x[n] != y[n] && n + 1 > w)
                w = n + 1;
        }
    return w < sizeof r->sources[0].source ? (int)w : (int)sizeof r->sources[0].source - 1;
}

static void report_table(FILE *f, const struct aug_validate_report *r, int rows, const char *path) {
    fprintf(f, "# augur validate %s\n", path);
    fprintf(f, "# predicted: hybrid op model (calibrated curves where kernels-db has them, else "
               "documented defaults); measured: the published value of each row\n");
    if (rows) {
        fprintf(f, "%-40s %-20s %14s %14s %9s %6s\n", "id", "metric", "measured", "predicted",
                "error%", "calib");
        for (size_t i = 0; i < r->n_rows; i++) {
            const struct aug_validate_row *row = &r->rows[i];
            if (row->skipped)
                continue;
            fprintf(f, "%-40.40s %-20s %14.6g %14.6g %+8.1f%% %5.0f%%\n", row->id, row->metric,
                    row->measured, row->predicted, row->error_pct, 100.0 * row->provenance_calibrated);
        }
    }
    if (r->over_memory_rows) {
        fprintf(f, "plans above their GPU's memory as augur counts it, %zu row(s) (the run "
                   "measured fit: a setting it had is missing from the row, or the count is "
                   "high; --explain ID lists the options that would fit):\n",
                r->over_memory_rows);
        for (size_t i = 0; i < r->n_rows; i++)
            if (aug_validate_over_memory(&r->rows[i]))
                fprintf(f, "  %-38.38s needs %.2f GiB per GPU of %.2f GiB\n", r->rows[i].id,
                        r->rows[i].memory_gib, r->rows[i].memory_capacity_gib);
    }
    size_t skipped = r->n_rows - r->predicted_rows;
    if (skipped) {
        fprintf(f, "skipped %zu row(s):\n", skipped);
        for (size_t i = 0; i < r->n_rows; i++)
            if (r->rows[i].skipped)
                fprintf(f, "  %-38.38s %s\n", r->rows[i].id, r->rows[i].reason);
    }
    fprintf(f, "by source:\n");
    int w = source_label_width(r);
    for (size_t k = 0; k < r->n_sources; k++)
        fprintf(f, "  %-*.*s rows %4d  MAPE %6.1f%%  max %6.1f%%\n", w, w, r->sources[k].source,
                r->sources[k].rows, r->sources[k].mape_pct, r->sources[k].max_abs_error_pct);
    if (r->n_groups)
        fprintf(f, "by group:\n");
    for (size_t k = 0; k < r->n_groups; k++)
        fprintf(f, "  rows %4d  MAPE %6.1f%%  mean %+6.1f%%  max %6.1f%%  %s\n", r->groups[k].rows,
                r->groups[k].mape_pct, r->groups[k].mean_error_pct, r->groups[k].max_abs_error_pct,
                r->groups[k].key);
    if (r->predicted_rows == 0) { /* a MAPE over no rows would read as a perfect score */
        fprintf(f, "rows predicted 0 of %zu: no MAPE, no row was predicted\n", r->n_rows);
        return;
    }
    fprintf(f, "rows predicted %zu of %zu: MAPE %.2f%%, median |error| %.2f%%, max |error| %.2f%%\n",
            r->predicted_rows, r->n_rows, r->mape_pct, r->median_abs_error_pct, r->max_abs_error_pct);
}

/* --baseline: the row-by-row comparison with a saved report, in each format. */
static const char *change_name(enum aug_validate_change c) {
    switch (c) {
    case AUG_CHANGE_KEPT: return "kept";
    case AUG_CHANGE_NEW: return "new";
    case AUG_CHANGE_GONE: return "gone";
    case AUG_CHANGE_NOW_SKIPPED: return "now_skipped";
    case AUG_CHANGE_NOW_PREDICTED: return "now_predicted";
    default: return "skipped";
    }
}

/* moves of |error| below this many points are counted in the table, not listed */
#define SHIFT_LISTED 0.05

static int cmp_shift_desc(const void *a, const void *b) {
    double x = (*(const struct aug_validate_shift *const *)a)->shift_pct;
    double y = (*(const struct aug_validate_shift *const *)b)->shift_pct;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void baseline_table(FILE *f, const struct aug_validate_comparison *c, const char *base) {
    fprintf(f, "against baseline %s:\n", base);
    fprintf(f, "  MAPE %.2f%% -> %.2f%%; over the %zu row(s) predicted in both %.2f%% -> %.2f%%\n",
            c->mape_before_pct, c->mape_pct, c->kept, c->kept_mape_before_pct, c->kept_mape_pct);
    const struct aug_validate_shift **moved = malloc((c->n_shifts ? c->n_shifts : 1) * sizeof *moved);
    size_t n = 0, still = 0;
    for (size_t i = 0; moved && i < c->n_shifts; i++) {
        if (c->shifts[i].change != AUG_CHANGE_KEPT)
            continue;
        if (fabs(c->shifts[i].shift_pct) >= SHIFT_LISTED)
            moved[n++] = &c->shifts[i];
        else
            still++;
    }
    if (moved) {
        qsort(moved, n, sizeof *moved, cmp_shift_desc);
        if (n)
            fprintf(f, "  %-40s %9s %9s %14s\n", "moved (largest growth first)", "before", "now",
                    "|error| shift");
        for (size_t i = 0; i < n; i++)
            fprintf(f, "  %-40.40s %+8.1f%% %+8.1f%% %+8.2f points\n", moved[i]->id,
                    moved[i]->error_before_pct, moved[i]->error_pct, moved[i]->shift_pct);
        free(moved);
    }
    fprintf(f, "  %zu row(s) moved by less than %.2f points\n", still, SHIFT_LISTED);
    static const enum aug_validate_change listed[] = {AUG_CHANGE_NOW_SKIPPED, AUG_CHANGE_NOW_PREDICTED,
                                                     AUG_CHANGE_NEW, AUG_CHANGE_GONE};
    static const char *const label[] = {"now skipped", "now predicted", "new", "gone"};
    for (size_t k = 0; k < sizeof listed / sizeof *listed; k++)
        for (size_t i = 0; i < c->n_shifts; i++)
            if (c->shifts[i].change == listed[k])
                fprintf(f, "  %-14s %s\n", label[k], c->shifts[i].id);
    for (size_t i = 0; i < c->n_shifts; i++)
        if (c->shifts[i].now_over_memory)
            fprintf(f, "  %-14s %s (fit in the baseline)\n", "now over memory", c->shifts[i].id);
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *baseline_json(const struct aug_validate_comparison *c, const char *base) {
    json_t *rows = json_array(), *o = json_object();
    for (size_t i = 0; i < c->n_shifts; i++) {
        const struct aug_validate_shift *s = &c->shifts[i];
        json_t *r = json_object();
        json_object_set_new(r, "id", aug_cli_json_text(s->id));
        json_object_set_new(r, "change", json_string(change_name(s->change)));
        json_object_set_new(r, "error_pct_before", num_or_null(s->error_before_pct));
        json_object_set_new(r, "error_pct", num_or_null(s->error_pct));
        json_object_set_new(r, "shift_pct", num_or_null(s->shift_pct));
        json_object_set_new(r, "now_over_memory", json_boolean(s->now_over_memory));
        json_array_append_new(rows, r);
    }
    json_object_set_new(o, "file", aug_cli_json_text(base));
    json_object_set_new(o, "mape_pct_before", json_real(c->mape_before_pct));
    json_object_set_new(o, "mape_pct", json_real(c->mape_pct));
    json_object_set_new(o, "kept_rows", json_integer((json_int_t)c->kept));
    json_object_set_new(o, "kept_mape_pct_before", json_real(c->kept_mape_before_pct));
    json_object_set_new(o, "kept_mape_pct", json_real(c->kept_mape_pct));
    json_object_set_new(o, "max_shift_pct", json_real(c->max_shift_pct));
    json_object_set_new(o, "max_shift_id", aug_cli_json_text(c->max_shift_id));
    json_object_set_new(o, "now_skipped", json_integer((json_int_t)c->now_skipped));
    json_object_set_new(o, "now_over_memory", json_integer((json_int_t)c->now_over_memory));
    json_object_set_new(o, "rows", rows);
    return o;
}

/* The comparison's entry for row id (this run's rows come first, in order). */
static const struct aug_validate_shift *shift_of(const struct aug_validate_comparison *c, size_t i) {
    return c && i < c->n_shifts ? &c->shifts[i] : NULL;
}

/* --explain ID: the one row's prediction in full. */
static int explain_row(const char *path, enum aug_validate_input kind,
                       const struct aug_validate_options *opt, const char *id,
                       enum aug_format fmt, const char *output, int want_ops) {
    struct aug_validate_explained e;
    int st = aug_validate_explain(path, kind, opt, id, &e);
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);
    FILE *f = aug_cli_open_output(output);
    if (!f)
        return 1;
    st = aug_cli_validate_explain(f, fmt, path, &e, opt->kdb_root, opt->fallback_only, want_ops);
    if (st != AUG_OK) {
        aug_cli_discard_output(f);
        return aug_cli_fail(st, NULL);
    }
    return aug_cli_close_output(f, output) != 0 ? 1 : 0;
}

int aug_cmd_validate(int argc, char **argv) {
    const char *cmd = "validate", *output = NULL, *baseline = NULL, *explain = NULL;
    double max_mape = -1, max_shift = -1;
    enum aug_validate_input kind = AUG_VALIDATE_AUTO;
    enum aug_format fmt = AUG_FORMAT_TABLE;
    struct aug_validate_options opt = {NULL, 0, NULL, NULL, 0.0};
    int summary = 0, check = 0, want_ops = 0, rc, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (c) {
        case OPT_MAX:
            if ((rc = aug_cli_double(cmd, "--max-mape", optarg, &max_mape))) return rc;
            if (max_mape < 0 || max_mape > 1e4)
                return aug_cli_usage(cmd, "--max-mape must be a percentage in [0, 10000]");
            break;
        case OPT_IMPORT:
            if (strcmp(optarg, "vtrain") == 0) kind = AUG_VALIDATE_VTRAIN;
            else if (strcmp(optarg, "accuracy") == 0) kind = AUG_VALIDATE_ACCURACY;
            else return aug_cli_usage(cmd, "--import: unknown format '%s' (use accuracy or vtrain)", optarg);
            break;
        case OPT_KDB: opt.kdb_root = optarg; break;
        case OPT_FALLBACK: opt.fallback_only = 1; break;
        case OPT_SUMMARY: summary = 1; break;
        case OPT_FORMAT: if ((rc = aug_cli_format(cmd, optarg, &fmt))) return rc; break;
        case OPT_OUTPUT: output = optarg; break;
        case OPT_CHECK: check = 1; break;
        case OPT_GROUP: opt.group_by = optarg; break;
        case OPT_BASELINE: baseline = optarg; break;
        case OPT_EXPLAIN: explain = optarg; break;
        case OPT_OPS: want_ops = 1; break;
        case OPT_MAX_SHIFT:
            if ((rc = aug_cli_double(cmd, "--max-shift", optarg, &max_shift))) return rc;
            if (max_shift < 0 || max_shift > 1e4)
                return aug_cli_usage(cmd, "--max-shift must be percentage points in [0, 10000]");
            break;
        case 'h':
        case OPT_HELP: help(); return 0;
        case ':': return aug_cli_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return aug_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return aug_cli_usage(cmd, optind >= argc ? "an accuracy CSV file is required"
                                                 : "exactly one CSV file is expected");
    if (check && (max_mape >= 0 || baseline))
        return aug_cli_usage(cmd, "--check predicts nothing: it cannot take --max-mape or --baseline");
    if (max_shift >= 0 && !baseline)
        return aug_cli_usage(cmd, "--max-shift needs --baseline REPORT.json to measure shifts from");
    const char *path = argv[optind];
    if (want_ops && !explain)
        return aug_cli_usage(cmd, "--ops lists the ops of one row: it needs --explain ID");
    if (explain) {
        if (check || baseline || max_mape >= 0 || max_shift >= 0 || opt.group_by || summary)
            return aug_cli_usage(cmd, "--explain predicts one row: it takes none of --check, "
                                      "--baseline, --max-mape, --max-shift, --group-by, --summary");
        return explain_row(path, kind, &opt, explain, fmt, output, want_ops);
    }
    struct aug_validate_baseline *base = NULL;
    int st = baseline ? aug_validate_baseline_load(baseline, &base) : AUG_OK;
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);
    struct aug_validate_report *r = NULL;
    st = check ? aug_validate_file_check(path, kind, &opt, &r)
               : aug_validate_file(path, kind, &opt, &r);
    struct aug_validate_comparison cmp;
    memset(&cmp, 0, sizeof cmp);
    if (st == AUG_OK && base)
        st = aug_validate_compare(r, base, &cmp);
    aug_validate_baseline_free(base);
    const struct aug_validate_comparison *cp = baseline ? &cmp : NULL;
    if (st != AUG_OK) {
        aug_validate_report_free(r);
        return aug_cli_fail(st, NULL);
    }
    FILE *f = aug_cli_open_output(output);
    if (!f) {
        aug_validate_comparison_free(&cmp);
        aug_validate_report_free(r);
        return 1;
    }
    int out_rc = 0;
    if (fmt == AUG_FORMAT_TABLE) {
        if (check)
            check_table(f, r, path);
        else
            report_table(f, r, !summary, path);
        if (cp)
            baseline_table(f, cp, baseline);
    } else if (fmt == AUG_FORMAT_JSON) {
        json_t *o = check ? check_json(r) : report_json(r, !summary);
        if (cp)
            json_object_set_new(o, "baseline", baseline_json(cp, baseline));
        out_rc = aug_cli_write(f, fmt, o);
        json_decref(o);
    } else {
        struct aug_csv_writer *w;
        if (aug_csv_writer_fp(f, &w) == AUG_OK) {
            const char *head[] = {"id", "source", "metric", "measured", "predicted", "error_pct",
                                  "memory_gib", "memory_capacity_gib", "skipped", "reason",
                                  "baseline_error_pct", "shift_pct", "change"};
            for (size_t k = 0; k < (cp ? 13u : 10u); k++)
                aug_csv_write_str(w, head[k]);
            aug_csv_end_row(w);
            for (size_t i = 0; i < r->n_rows; i++) {
                const struct aug_validate_row *row = &r->rows[i];
                aug_csv_write_str(w, row->id);
                aug_csv_write_str(w, row->source);
                aug_csv_write_str(w, row->metric);
                aug_csv_write_num(w, row->measured);
                aug_csv_write_num(w, row->skipped || check ? NAN : row->predicted);
                aug_csv_write_num(w, row->skipped || check ? NAN : row->error_pct);
                int known = !row->skipped && !check && row->memory_capacity_gib > 0;
                aug_csv_write_num(w, known ? row->memory_gib : NAN);
                aug_csv_write_num(w, known ? row->memory_capacity_gib : NAN);
                aug_csv_write_int(w, row->skipped);
                aug_csv_write_str(w, row->reason);
                const struct aug_validate_shift *sh = shift_of(cp, i);
                if (sh) {
                    aug_csv_write_num(w, sh->error_before_pct);
                    aug_csv_write_num(w, sh->shift_pct);
                    aug_csv_write_str(w, change_name(sh->change));
                }
                aug_csv_end_row(w);
            }
            /* the baseline's rows this set no longer has */
            for (size_t i = r->n_rows; cp && i < cp->n_shifts; i++) {
                const struct aug_validate_shift *sh = &cp->shifts[i];
                aug_csv_write_str(w, sh->id);
                for (int k = 0; k < 2; k++)
                    aug_csv_write_str(w, "");
                for (int k = 0; k < 5; k++)
                    aug_csv_write_num(w, NAN);
                aug_csv_write_int(w, 0);
                aug_csv_write_str(w, "");
                aug_csv_write_num(w, sh->error_before_pct);
                aug_csv_write_num(w, NAN);
                aug_csv_write_str(w, change_name(sh->change));
                aug_csv_end_row(w);
            }
            out_rc = aug_csv_writer_commit(w) == AUG_OK ? 0 : 1;
        }
    }
    double mape = r->mape_pct;
    size_t predicted = r->predicted_rows;
    double grew = cmp.max_shift_pct;
    size_t now_skipped = cmp.now_skipped, now_over = cmp.now_over_memory;
    char grew_id[sizeof cmp.max_shift_id];
    snprintf(grew_id, sizeof grew_id, "%s", cmp.max_shift_id);
    aug_validate_comparison_free(&cmp);
    aug_validate_report_free(r);
    if (out_rc) {
        aug_cli_discard_output(f);
        return 1;
    }
    if (aug_cli_close_output(f, output) != 0)
        return 1;
    if (max_mape >= 0 && predicted == 0) {
        fprintf(stderr, "augur: %s: no row could be predicted, cannot check --max-mape\n", path);
        return 1;
    }
    if (max_mape >= 0 && !(mape <= max_mape)) { /* a NaN MAPE fails the bar */
        fprintf(stderr, "augur: %s: MAPE %.2f%% exceeds the bar of %.2f%%\n", path, mape, max_mape);
        return 1;
    }
    int shift_rc = 0;
    if (max_shift >= 0 && grew > max_shift) {
        fprintf(stderr, "augur: %s: row '%s': |error| grew by %.2f points over the baseline %s "
                        "(bar %.2f)\n", path, grew_id, grew, baseline, max_shift);
        shift_rc = 1;
    }
    if (max_shift >= 0 && now_skipped) {
        fprintf(stderr, "augur: %s: %zu row(s) the baseline %s predicted are skipped now\n", path,
                now_skipped, baseline);
        shift_rc = 1;
    }
    if (max_shift >= 0 && now_over) {
        fprintf(stderr, "augur: %s: %zu row(s) whose plan fit in the baseline %s need more "
                        "than their GPU's memory now\n", path, now_over, baseline);
        shift_rc = 1;
    }
    return shift_rc;
}
