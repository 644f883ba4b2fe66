/* SPDX-License-Identifier: Apache-2.0 */
/* validate_internal.h - readers that turn one row of an input format into a prediction
 * case (one file per format: validate_accuracy.c, validate_vtrain.c). */
#ifndef AUG_VALIDATE_INTERNAL_H
#define AUG_VALIDATE_INTERNAL_H

#include "augur/augur.h"

enum aug_metric {
    AUG_METRIC_STEP_TIME,
    AUG_METRIC_TOKENS,
    AUG_METRIC_TOKENS_PER_GPU,
    AUG_METRIC_MFU,
    AUG_METRIC_MEMORY,
    AUG_METRIC_COUNT
};

struct aug_validate_case {
    struct aug_model model;
    struct aug_system system;
    struct aug_plan plan;
    enum aug_metric metric;
    int framework;            /* enum aug_framework_id of the run (0: none) */
    unsigned fw_set;          /* AUG_FWSET_* plan fields the row gives explicitly */
};

struct aug_validate_reader {
    const struct aug_csv *t;
    char dir[512];            /* folder of the CSV (system JSON paths are relative to it) */
    const char *kdb_root;
    struct aug_system system; /* cached system (vTrain: one for all rows) */
    char system_key[1100];
    int have_system;
    int check_only;           /* read and resolve every row, predict none (--check) */
    struct aug_validate_explained *explain; /* non-NULL: the one row read is described here */
    /* Fill row (id, source, metric, measured) and the case. AUG_EUNSUPPORTED: skip the
     * row with aug_last_error() as the reason; other errors abort with file and line. */
    int (*read)(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                struct aug_validate_case *vc);
    void (*close)(struct aug_validate_reader *rd);
};

/* Shared row readers (validate_row.c). Errors name file, line and column. */
const char *aug_vrow_cell(const struct aug_csv *t, size_t i, const char *col);
/* An optional integer: an empty cell or absent column leaves *out and is AUG_OK. */
int aug_vrow_long(const struct aug_csv *t, size_t i, const char *col, int flags, long *out);

/* Check row i's `unit` cell (empty passes) against the n spellings of metric's units; a
 * remark in parentheses after the unit, as in "s/iteration (elapsed time per iteration)",
 * is a comment. AUG_EDATA names the file, line and column otherwise. */
int aug_vrow_unit(const struct aug_csv *t, size_t i, const char *metric,
                  const char *const *units, int n);
/* The row's model: a preset, GPT-style dimensions, or a preset with overrides. */
int aug_vrow_model(const struct aug_csv *t, size_t i, struct aug_model *m);
/* The optional `attention` column (fused|unfused). */
int aug_vrow_attention(const struct aug_csv *t, size_t i, int *flash_attention);
/* The optional `framework` column (a profile name of augur/framework.h; empty: none)
 * and which of the plan columns it may fill the row leaves empty. */
int aug_vrow_framework(const struct aug_csv *t, size_t i, struct aug_validate_case *vc);
/* The row's system (cached in rd while rows name the same one). */
int aug_vrow_system(struct aug_validate_reader *rd, size_t i, struct aug_system *s);

/* The id a vTrain row gets (its CSV line). */
void aug_validate_vtrain_id(long line, char *buf, size_t n);

int aug_validate_accuracy_open(const struct aug_csv *t, const char *path, const char *kdb_root,
                               struct aug_validate_reader *rd);
int aug_validate_vtrain_open(const struct aug_csv *t, const char *kdb_root,
                             struct aug_validate_reader *rd);

#endif
