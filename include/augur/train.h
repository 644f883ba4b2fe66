/* SPDX-License-Identifier: Apache-2.0 */
/* train.h - one training iteration of a transformer under a plan: time, memory,
 * MFU/HFU, and where every second came from. */
#ifndef AUG_TRAIN_H
#define AUG_TRAIN_H

#include "augur/kdb.h"
#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds of one iteration by component. The parts add up to step_time_s. */
struct aug_train_breakdown {
    double compute_s;          /* GEMMs and memory-bound ops of forward + backward */
    double attention_s;        /* attention core (fused or unfused) */
    double recompute_s;        /* extra forward work from activation recomputation */
    double embedding_s;        /* embedding, LM head and cross-entropy */
    double tp_comm_s;          /* TP (and SP) collectives on the critical path */
    double cp_comm_s;          /* context-parallel exchange, exposed part */
    double ep_comm_s;          /* expert all-to-all */
    double pp_comm_s;          /* pipeline send/recv, exposed part */
    double dp_comm_s;          /* gradient reduction / ZeRO / FSDP traffic, exposed part */
    double pipeline_bubble_s;  /* idle time of the pipeline fill and drain */
    double optimizer_s;        /* optimizer step */
    double overhead_s;         /* per-iteration framework / launch floor */
};

/* GiB per GPU (the most loaded GPU: the first pipeline stage). */
struct aug_train_memory {
    double weights_gib;
    double gradients_gib;
    double optimizer_gib;
    double activations_gib;
    double workspace_gib;
    double total_gib;
};

/* Shares of predicted time, summing to 1. */
struct aug_provenance {
    double calibrated, fallback, roofline;
};

struct aug_train_result {
    double step_time_s;
    double tokens_per_s;           /* all GPUs */
    double model_flops;            /* per iteration, all GPUs (PaLM-style, no recompute) */
    double hardware_flops;         /* per iteration, all GPUs, with recomputation */
    double mfu, hfu;               /* against the dense peak of the compute dtype */
    double params;                 /* total parameters */
    long microbatches;             /* per pipeline per iteration */
    double bubble_fraction;        /* bubble time / ideal pipeline time */
    int dp_crosses_network, tp_crosses_network;
    struct aug_train_breakdown breakdown;
    struct aug_train_memory memory;
    double memory_capacity_gib;
    int fits_in_memory;
    struct aug_provenance provenance;
};

struct aug_host_cost;

struct aug_train_options {
    const struct aug_kdb *kdb;     /* calibrated curves of the system's GPU, or NULL */
    int pure_roofline;             /* 1: no efficiencies at all (upper bound) */
    const struct aug_host_cost *host; /* host issue costs instead of the plan's framework
                                         profile (fitting), or NULL */
    double zero3_serial_rate;      /* the serial ZeRO-3 gathers' share of the collective
                                      rate instead of the fitted one (fitting); 0: fitted */
};

/* Predict one iteration. `plan` must have been resolved with aug_plan_resolve().
 * Does not allocate. */
int aug_train_predict(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_plan *plan, const struct aug_train_options *opt,
                      struct aug_train_result *out);

/* One row of the per-op report of an iteration (`augur train --ops`). Op rows: every op
 * of the transformer layer's forward, backward and recomputation lists and of the first
 * stage's (embedding) and last stage's (final norm, head, loss) lists, as timed for one
 * micro-batch on one GPU. Schedule rows (kind "schedule"): what the iteration adds
 * outside the op lists: host-bound idle, EP all-to-all hidden by the merged schedule
 * (negative), the pipeline bubble, pipeline sends, data-parallel traffic, the optimizer.
 * The step_s of the rows on the slowest stage (on_slowest_stage) add up to step_time_s. */
struct aug_train_op_report {
    char list[12];          /* "fwd", "bwd", "recompute", "first.fwd", "first.bwd",
                               "last.fwd", "last.bwd" or "iteration" */
    char name[32];
    char kind[12];          /* "gemm", "attention", "memory", "collective", "schedule" */
    double count;           /* executions per iteration on its stage */
    double flops, bytes;    /* one execution (0 for schedule rows) */
    double time_s;          /* one execution, alone on the GPU (schedule rows: step_s) */
    double step_s;          /* seconds it adds to the iteration: count x time, an overlapped
                               collective only by what its overlap group exposes */
    double share;           /* step_s / step_time_s */
    int overlapped;         /* a member of an overlap group (compute beside a collective) */
    int on_slowest_stage;   /* runs on the stage that paces the pipeline */
    char source[12];        /* "curve", "fallback", "roofline" */
    struct aug_op_shape shape; /* its dtype and GEMM shape (schedule rows: all empty) */
};

/* Rows enough for every list of the largest graph (7 lists of at most 80 ops) and the
 * schedule rows. */
#define AUG_TRAIN_OPS_MAX 576

/* Predict one iteration and report it op by op: at most `cap` rows in `ops` (with
 * AUG_TRAIN_OPS_MAX they always fit; fewer: AUG_EUSAGE when they do not), the count in
 * *n. */
int aug_train_ops(const struct aug_model *m, const struct aug_system *s,
                  const struct aug_plan *plan, const struct aug_train_options *opt,
                  struct aug_train_result *out, struct aug_train_op_report *ops, int cap,
                  int *n);

/* Memory per GPU alone (used by the memory filter of sweeps). */
void aug_train_memory(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_plan *plan, struct aug_train_memory *out);

/* Memory per GPU after one memory-saving change of a plan (train/memory_options.c). */
struct aug_train_memory_option {
    char change[32];   /* the `augur train` option(s): "--sp", "--zero 2", "--recompute
                          full", "no --recompute-layers", "--micro-batch 1", "--fp8-params
                          on", "all of the above" */
    double total_gib;  /* memory per GPU with it (the most loaded GPU) */
    int fits;          /* total_gib within the GPU's memory */
};

/* Rows enough for every change aug_train_memory_options() can list. */
#define AUG_TRAIN_MEMORY_OPTIONS_MAX 9

/* The changes that apply to the resolved `plan`, each alone, then all together: at most
 * `cap` rows in `out`; returns their count. A change the plan's other settings refuse, or
 * one that saves no memory, is left out. Nothing is timed. */
int aug_train_memory_options(const struct aug_model *m, const struct aug_system *s,
                             const struct aug_plan *plan, struct aug_train_memory_option *out,
                             int cap);

#ifdef __cplusplus
}
#endif
#endif
