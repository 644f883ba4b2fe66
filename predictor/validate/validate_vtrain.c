/* SPDX-License-Identifier: Apache-2.0 */
/* validate_vtrain.c - importer for vTrain's ground_truth_single.csv (VIA-Research/vTrain,
 * data/): measured Megatron-DeepSpeed iteration times of GPT models on one 8x A100 node.
 * Columns: "# GPUs, global batch, micro batch, hidden size, attention heads, # layers,
 * sequence length, tensor parallelism, data parallelism, pipeline parallelism,
 * iteration time (ms)". vTrain's run configurations (config/validation/single/) give
 * fp16, 1F1B, activation checkpointing (full recomputation) and no gradient buckets
 * ("use_gradient_bucket": false: the DP all-reduce follows the backward); GPT-2 vocabulary,
 * learned positions and a 4h GELU MLP are the Megatron GPT defaults. */
#include <string.h>

#include "augur/augur.h"
#include "validate_internal.h"

#define VTRAIN_SYSTEM "dgx-a100-80g"

static const char *const cols[] = {"# GPUs",          "global batch",        "micro batch",
                                   "hidden size",     "attention heads",     "# layers",
                                   "sequence length", "tensor parallelism",  "data parallelism",
                                   "pipeline parallelism", "iteration time (ms)"};

void aug_validate_vtrain_id(long line, char *buf, size_t n) {
    snprintf(buf, n, "vtrain_line%ld", line);
}

static int read_row(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                    struct aug_validate_case *vc) {
    const struct aug_csv *t = rd->t;
    long v[10];
    double ms;
    int st;
    for (int k = 0; k < 10; k++)
        if ((st = aug_csv_get_long(t, i, cols[k], AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &v[k])) != AUG_OK)
            return st;
    if ((st = aug_csv_get_double(t, i, cols[10], AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &ms)) != AUG_OK)
        return st;
    aug_validate_vtrain_id(aug_csv_line(t, i), row->id, sizeof row->id);
    snprintf(row->source, sizeof row->source, "vTrain ground_truth_single (8x A100, Megatron-DeepSpeed)");
    snprintf(row->metric, sizeof row->metric, "step_time_s");
    row->measured = ms * 1e-3;
    vc->metric = AUG_METRIC_STEP_TIME;

    struct aug_model *m = &vc->model;
    aug_model_init(m);
    snprintf(m->name, sizeof m->name, "gpt-h%ld-l%ld", v[3], v[5]);
    m->hidden = v[3];
    m->heads = v[4];
    m->layers = v[5];
    m->kv_heads = v[4];
    m->max_seq = v[6];
    m->vocab = 50257;
    if ((st = aug_model_finish(m, aug_csv_name(t))) != AUG_OK)
        return st;

    struct aug_plan *p = &vc->plan;
    aug_plan_init(p);
    p->gpus = v[0];
    p->global_batch = v[1];
    p->micro_batch = v[2];
    p->seq = v[6];
    p->tp = v[7];
    p->dp = v[8];
    p->pp = v[9];
    p->dtype = AUG_DTYPE_FP16;
    p->recompute = AUG_RECOMPUTE_FULL;
    p->flash_attention = 0;
    p->dp_overlap = 0;
    /* the run's own framework: its host dispatch cost (the plan fields above are
     * explicit, so the profile only adds what the configs leave to it) */
    vc->framework = AUG_FW_MEGATRON_DEEPSPEED;
    vc->fw_set = AUG_FWSET_ATTENTION | AUG_FWSET_DP_OVERLAP | AUG_FWSET_SHARDING;
    if (p->tp * p->dp * p->pp != p->gpus)
        return aug_errorf(AUG_EDATA, "%s:%ld: tp*dp*pp = %ld does not equal # GPUs %ld",
                          aug_csv_name(t), aug_csv_line(t, i), p->tp * p->dp * p->pp, p->gpus);
    if (!rd->have_system) {
        if ((st = aug_system_load(rd->kdb_root, VTRAIN_SYSTEM, &rd->system)) != AUG_OK)
            return st;
        rd->have_system = 1;
    }
    vc->system = rd->system;
    return AUG_OK;
}

int aug_validate_vtrain_open(const struct aug_csv *t, const char *kdb_root,
                             struct aug_validate_reader *rd) {
    memset(rd, 0, sizeof *rd);
    rd->t = t;
    rd->kdb_root = kdb_root;
    rd->read = read_row;
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
        if (aug_csv_col(t, cols[k]) < 0)
            return aug_errorf(AUG_EDATA, "%s: missing column '%s' (not a vTrain ground-truth file)",
                              aug_csv_name(t), cols[k]);
    return AUG_OK;
}
