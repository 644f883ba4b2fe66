/* SPDX-License-Identifier: Apache-2.0 */
/* validate.h - scoring predictions against measured runs.
 *
 * An accuracy set is a CSV in the schema of DESIGN section 6 (training columns; the
 * inference schema is recognized by its columns). Every row is predicted and compared on
 * its metric; rows augur cannot predict are skipped with a reason and left out of the
 * aggregates. vTrain's ground_truth_single.csv (1,440 measured iterations on 8x A100) is
 * read by an importer and scored the same way. */
#ifndef AUG_VALIDATE_H
#define AUG_VALIDATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aug_validate_row {
    char id[96];
    char source[160];
    char metric[32];
    long line;
    double measured;
    double predicted;
    double error_pct;     /* (predicted - measured) / measured * 100 */
    int skipped;
    char reason[200];
    double provenance_calibrated; /* share of the row's predicted time from curves */
    char group[160];              /* the row's cells of the group-by columns, " / " between */
};

struct aug_validate_source {
    char source[160];
    int rows;
    double mape_pct;
    double max_abs_error_pct;
};

/* Rows that share the cells of the group-by columns (aug_validate_options.group_by). */
struct aug_validate_group {
    char key[160];
    int rows;
    double mape_pct;
    double mean_error_pct; /* signed: > 0 predicts too high */
    double max_abs_error_pct;
};

struct aug_validate_report {
    struct aug_validate_row *rows;
    size_t n_rows;
    size_t predicted_rows;
    double mape_pct;
    double max_abs_error_pct;
    double median_abs_error_pct;
    struct aug_validate_source *sources;
    size_t n_sources;
    struct aug_validate_group *groups; /* in order of first appearance; none without group_by */
    size_t n_groups;
};

struct aug_host_cost;

struct aug_validate_options {
    const char *kdb_root; /* NULL: default kernels-db */
    int fallback_only;    /* 1: ignore calibrated curves (to measure what calibration buys) */
    const struct aug_host_cost *host; /* training rows: these host issue costs instead of
                                         each row's framework profile (fitting), or NULL */
    const char *group_by; /* NULL, or comma-separated columns of the set (at most 8): the
                             report adds MAPE, mean error and max per distinct cells */
    double zero3_serial_rate; /* training rows: this share for serial ZeRO-3 gathers
                                 (fitting); 0: the fitted one */
};

enum aug_validate_input { AUG_VALIDATE_AUTO, AUG_VALIDATE_ACCURACY, AUG_VALIDATE_VTRAIN,
                           AUG_VALIDATE_INFERENCE };

/* Predict and score every row of `path`. Bad rows (non-numbers, missing required cells)
 * fail with file and line; unpredictable rows are skipped. */
int aug_validate_file(const char *path, enum aug_validate_input kind,
                      const struct aug_validate_options *opt, struct aug_validate_report **out);
/* Read and check every row of `path` as aug_validate_file does (cells, model, system,
 * plan resolution, request lists) without predicting any: rows that would be skipped carry
 * their reason; the others have predicted and error_pct 0, and the aggregates are 0. A
 * quick lint of an accuracy set, and what the row fuzzer drives. */
int aug_validate_file_check(const char *path, enum aug_validate_input kind,
                            const struct aug_validate_options *opt,
                            struct aug_validate_report **out);
void aug_validate_report_free(struct aug_validate_report *r);

/* A baseline: the rows of a report saved earlier with `augur validate FILE --format json`
 * (without --summary), matched to a new run's rows by id. Tracking a set's error row by
 * row shows what its MAPE hides: one row growing while others shrink. */
struct aug_validate_baseline_row {
    char id[96];
    double error_pct;     /* NAN: the baseline skipped the row */
};

struct aug_validate_baseline {
    struct aug_validate_baseline_row *rows; /* in the file's order: predicted, then skipped */
    size_t n_rows;
    double mape_pct;
};

/* Read a saved report. AUG_EDATA names the file and the field (malformed JSON, another
 * schema_version, a report written with --summary, a row without a finite error_pct, an id
 * given twice). */
int aug_validate_baseline_load(const char *path, struct aug_validate_baseline **out);
void aug_validate_baseline_free(struct aug_validate_baseline *b);

enum aug_validate_change {
    AUG_CHANGE_KEPT,          /* predicted in both */
    AUG_CHANGE_NEW,           /* not in the baseline */
    AUG_CHANGE_GONE,          /* in the baseline, not in this run */
    AUG_CHANGE_NOW_SKIPPED,   /* predicted in the baseline, skipped now */
    AUG_CHANGE_NOW_PREDICTED, /* skipped in the baseline, predicted now */
    AUG_CHANGE_SKIPPED        /* skipped in both */
};

struct aug_validate_shift {
    char id[96];
    enum aug_validate_change change;
    double error_before_pct; /* NAN where the baseline has no prediction */
    double error_pct;        /* NAN where this run has none */
    double shift_pct;        /* |error| now - |error| before, in points (> 0: worse); NAN
                                unless the row is predicted in both */
};

struct aug_validate_comparison {
    struct aug_validate_shift *shifts; /* this run's rows in order, then the gone ones */
    size_t n_shifts;
    size_t kept;               /* rows predicted in both */
    double mape_before_pct;    /* the baseline's MAPE, over its own rows */
    double mape_pct;           /* this run's MAPE, over its own rows */
    double kept_mape_before_pct, kept_mape_pct; /* both over the kept rows only */
    double max_shift_pct;      /* the largest shift of a kept row (0 when none grew) */
    char max_shift_id[96];
    size_t now_skipped;
};

/* Match r's rows to b's by id. AUG_EDATA when r holds an id twice (ids must be unique to
 * be compared). */
int aug_validate_compare(const struct aug_validate_report *r, const struct aug_validate_baseline *b,
                         struct aug_validate_comparison *out);
void aug_validate_comparison_free(struct aug_validate_comparison *c);

#ifdef __cplusplus
}
#endif
#endif
