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

#include "augur/infer.h"
#include "augur/model.h"
#include "augur/plan.h"
#include "augur/serving.h"
#include "augur/system.h"

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
    /* Memory per GPU the row's plan needs as augur predicts it, and the GPU's capacity (both
     * 0 where the row's kind does not report it: serving runs size their batch to memory).
     * The run measured fit its GPU, so a plan above the capacity misses something the run
     * did (recomputation, sequence parallelism, sharding), or the memory count is high. */
    double memory_gib;
    double memory_capacity_gib;
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
    size_t over_memory_rows; /* predicted rows whose plan does not fit (aug_validate_over_memory) */
};

/* 1 when the row was predicted and its plan needs more memory per GPU than the GPU has. */
int aug_validate_over_memory(const struct aug_validate_row *row);

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

/* One row's prediction case and result as aug_validate_file predicts it, for printing that
 * prediction in full (`augur validate --explain ID`: the train or infer command's own
 * output) without predicting it again. */
enum aug_validate_case_kind { AUG_VCASE_TRAIN, AUG_VCASE_INFER, AUG_VCASE_SERVE };

struct aug_validate_explained {
    struct aug_validate_row row;          /* id, metric, line, measured, predicted, error; or
                                             skipped with its reason */
    enum aug_validate_case_kind kind;
    struct aug_model model;
    struct aug_system system;
    struct aug_plan plan;                 /* TRAIN: resolved, the row's framework applied */
    int framework;                        /* TRAIN: enum aug_framework_id (0: none) */
    struct aug_infer_plan infer_plan;     /* INFER, SERVE: resolved */
    struct aug_serve_config serve;        /* SERVE */
    struct aug_train_result train_result; /* TRAIN: the row's prediction */
    struct aug_infer_result infer_result; /* INFER: the row's prediction */
    struct aug_serve_result serve_result; /* SERVE: the row's simulation */
    int server;                           /* SERVE: 1 server scenario, 0 offline */
    char requests_source[200];            /* SERVE: the requests file, or "generated" */
    char input_spec[64], output_spec[64]; /* SERVE: length distributions of generated requests */
    unsigned long long seed;              /* SERVE: of generated lengths and arrivals */
    char kv_dtype_why[160];               /* SERVE: why the KV cache dtype, when the row leaves
                                             it to the engine; "" otherwise */
    int max_batch_given, max_tokens_given, kv_fraction_given; /* SERVE: cells the row gives */
};

/* Read and predict only the row of `path` whose id is `id` (vTrain rows: vtrain_line<N>, the
 * CSV line) and describe its case and result. AUG_ENOTFOUND names the closest ids when none
 * matches. A row augur skips is AUG_OK with row.skipped and the reason, its case filled as
 * far as it was read. Nothing to free. */
int aug_validate_explain(const char *path, enum aug_validate_input kind,
                         const struct aug_validate_options *opt, const char *id,
                         struct aug_validate_explained *out);

/* A baseline: the rows of a report saved earlier with `augur validate FILE --format json`
 * (without --summary), matched to a new run's rows by id. Tracking a set's error row by
 * row shows what its MAPE hides: one row growing while others shrink. */
struct aug_validate_baseline_row {
    char id[96];
    double error_pct;     /* NAN: the baseline skipped the row */
    int fits_in_memory;   /* 1 or 0 as the baseline saved it; -1 where it did not */
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
    int now_over_memory;     /* 1: the baseline had the plan fitting, this run counts it above
                                the GPU's memory (aug_validate_over_memory) */
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
    size_t now_over_memory;    /* kept rows the baseline had fitting that no longer fit */
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
