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
};

struct aug_validate_reader {
    const struct aug_csv *t;
    char dir[512];            /* folder of the CSV (system JSON paths are relative to it) */
    const char *kdb_root;
    struct aug_system system; /* cached system (vTrain: one for all rows) */
    char system_key[1100];
    int have_system;
    /* Fill row (id, source, metric, measured) and the case. AUG_EUNSUPPORTED: skip the
     * row with aug_last_error() as the reason; other errors abort with file and line. */
    int (*read)(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                struct aug_validate_case *vc);
    void (*close)(struct aug_validate_reader *rd);
};

int aug_validate_accuracy_open(const struct aug_csv *t, const char *path, const char *kdb_root,
                               struct aug_validate_reader *rd);
int aug_validate_vtrain_open(const struct aug_csv *t, const char *kdb_root,
                             struct aug_validate_reader *rd);

#endif
