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

static void help(void) {
    printf("usage: augur validate FILE.csv [--max-mape PCT] [--import accuracy|vtrain] [--kdb DIR]\n"
           "                      [--fallback-only] [--summary] [--format table|json|csv]\n"
           "                      [--output FILE] [--check] [--group-by COL[,COL...]]\n\n"
           "Predicts every row of an accuracy set (schemas in benchmarks/accuracy/README.md;\n"
           "sets in benchmarks/accuracy/) or of vTrain's ground_truth_single.csv (detected by its\n"
           "columns), and reports each row's error, the MAPE, the largest error and the MAPE\n"
           "by source. Rows augur cannot predict are listed as skipped with the reason.\n"
           "--max-mape PCT exits 1 when the MAPE exceeds PCT. --fallback-only ignores\n"
           "calibrated curves, to measure what calibration buys. --summary omits the rows.\n"
           "--check reads every row (cells, model, system, plan, request lists) and lists the\n"
           "rows that would be skipped, without predicting any: a quick check of a new set.\n"
           "--group-by COL[,COL...] adds the MAPE, mean signed error and largest error of the\n"
           "rows sharing their cells of these columns of the set (up to 8; e.g. system,dtype\n"
           "or input_len,output_len), in the table and as by_group in JSON.\n");
}

enum { OPT_MAX = 256, OPT_IMPORT, OPT_KDB, OPT_FALLBACK, OPT_SUMMARY, OPT_FORMAT, OPT_OUTPUT,
       OPT_CHECK, OPT_GROUP, OPT_HELP };
static const struct option options[] = {
    {"max-mape", required_argument, 0, OPT_MAX}, {"import", required_argument, 0, OPT_IMPORT},
    {"kdb", required_argument, 0, OPT_KDB},      {"fallback-only", no_argument, 0, OPT_FALLBACK},
    {"summary", no_argument, 0, OPT_SUMMARY},    {"format", required_argument, 0, OPT_FORMAT},
    {"output", required_argument, 0, OPT_OUTPUT}, {"check", no_argument, 0, OPT_CHECK},
    {"group-by", required_argument, 0, OPT_GROUP}, {"help", no_argument, 0, OPT_HELP},
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
        if (rows)
            json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:f}", "id", row->id,
                                                 "source", row->source, "metric", row->metric,
                                                 "measured", row->measured, "predicted",
                                                 row->predicted, "error_pct", row->error_pct,
                                                 "calibrated_share", row->provenance_calibrated));
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
    size_t skipped = r->n_rows - r->predicted_rows;
    if (skipped) {
        fprintf(f, "skipped %zu row(s):\n", skipped);
        for (size_t i = 0; i < r->n_rows; i++)
            if (r->rows[i].skipped)
                fprintf(f, "  %-38.38s %s\n", r->rows[i].id, r->rows[i].reason);
    }
    fprintf(f, "by source:\n");
    for (size_t k = 0; k < r->n_sources; k++)
        fprintf(f, "  %-60.60s rows %4d  MAPE %6.1f%%  max %6.1f%%\n", r->sources[k].source,
                r->sources[k].rows, r->sources[k].mape_pct, r->sources[k].max_abs_error_pct);
    if (r->n_groups)
        fprintf(f, "by group:\n");
    for (size_t k = 0; k < r->n_groups; k++)
        fprintf(f, "  rows %4d  MAPE %6.1f%%  mean %+6.1f%%  max %6.1f%%  %s\n", r->groups[k].rows,
                r->groups[k].mape_pct, r->groups[k].mean_error_pct, r->groups[k].max_abs_error_pct,
                r->groups[k].key);
    fprintf(f, "rows predicted %zu of %zu: MAPE %.2f%%, median |error| %.2f%%, max |error| %.2f%%\n",
            r->predicted_rows, r->n_rows, r->mape_pct, r->median_abs_error_pct, r->max_abs_error_pct);
}

int aug_cmd_validate(int argc, char **argv) {
    const char *cmd = "validate", *output = NULL;
    double max_mape = -1;
    enum aug_validate_input kind = AUG_VALIDATE_AUTO;
    enum aug_format fmt = AUG_FORMAT_TABLE;
    struct aug_validate_options opt = {NULL, 0, NULL, NULL, 0.0};
    int summary = 0, check = 0, rc, c;
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
        case 'h':
        case OPT_HELP: help(); return 0;
        case ':': return aug_cli_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return aug_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return aug_cli_usage(cmd, optind >= argc ? "an accuracy CSV file is required"
                                                 : "exactly one CSV file is expected");
    if (check && max_mape >= 0)
        return aug_cli_usage(cmd, "--check predicts nothing: it cannot take --max-mape");
    const char *path = argv[optind];
    struct aug_validate_report *r = NULL;
    int st = check ? aug_validate_file_check(path, kind, &opt, &r)
                   : aug_validate_file(path, kind, &opt, &r);
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);
    FILE *f = aug_cli_open_output(output);
    if (!f) {
        aug_validate_report_free(r);
        return 1;
    }
    int out_rc = 0;
    if (fmt == AUG_FORMAT_TABLE) {
        if (check)
            check_table(f, r, path);
        else
            report_table(f, r, !summary, path);
    } else if (fmt == AUG_FORMAT_JSON) {
        json_t *o = check ? check_json(r) : report_json(r, !summary);
        out_rc = aug_cli_write(f, fmt, o);
        json_decref(o);
    } else {
        struct aug_csv_writer *w;
        if (aug_csv_writer_fp(f, &w) == AUG_OK) {
            const char *head[] = {"id", "source", "metric", "measured", "predicted", "error_pct",
                                  "skipped", "reason"};
            for (size_t k = 0; k < 8; k++)
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
                aug_csv_write_int(w, row->skipped);
                aug_csv_write_str(w, row->reason);
                aug_csv_end_row(w);
            }
            out_rc = aug_csv_writer_commit(w) == AUG_OK ? 0 : 1;
        }
    }
    double mape = r->mape_pct;
    size_t predicted = r->predicted_rows;
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
    return 0;
}
