/* SPDX-License-Identifier: Apache-2.0 */
/* sweep.h - design-space exploration: every valid parallelization plan of a model on a
 * system for a GPU count and batch, filtered by memory, ranked, with the Pareto front of
 * time against memory per GPU.
 *
 * Training plans are enumerated over TP, CP (and its attention algorithm), PP, DP (derived),
 * EP, micro-batch, interleaving, sequence parallelism, recomputation and ZeRO / FSDP
 * sharding; the other plan fields (expert TP, overlap switches, MoE routing) come from
 * the base plan. A knob is
 * either pinned (one value) or open (every value the rules allow). Plans are enumerated
 * in one fixed order; each gets an index in that order. Equal times rank the plan with less
 * memory first, then the lower index (the front breaks exact ties by index too), so results
 * do not depend on how the space is split over threads or processes. Evaluation is
 * parallel over threads, each with its own result buffer; the per-plan path does not
 * allocate. */
#ifndef AUG_SWEEP_H
#define AUG_SWEEP_H

#include <stdint.h>

#include "augur/infer.h"
#include "augur/kdb.h"
#include "augur/model.h"
#include "augur/plan.h"
#include "augur/system.h"
#include "augur/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest --top the sweep keeps. */
#define AUG_SWEEP_MAX_TOP 1000

/* Which values each training knob may take. 0 (or -1 where noted) leaves a knob open. */
struct aug_sweep_space {
    long tp, pp, dp, cp, ep;       /* pinned degrees; 0 = open */
    long interleave, micro_batch;  /* pinned; 0 = open */
    int sp;                        /* -1 open, 0 off, 1 on */
    int recompute;                 /* -1 open, else enum aug_recompute */
    int zero;                      /* -1 open, else ZeRO stage 0-3 */
    int fsdp;                      /* -1 open (none, and hybrid where it differs), else enum aug_fsdp */
    int cp_algo;                   /* -1 open (with CP > 1: ring, Ulysses where the heads
                                      split, all-gather), else enum aug_cp_algo */
    long max_tp;                   /* 0: the NVLink domain (TP groups never cross it) */
    long max_pp, max_cp, max_ep;   /* 0: no bound beyond the rules */
    long max_interleave, max_micro_batch;
    int uneven_pp;                 /* 1: also pipeline splits that do not divide the layers */
};

/* Everything open, TP within the NVLink domain. */
void aug_sweep_space_init(struct aug_sweep_space *sp);

/* Progress report: work units (groups of plans sharing their degrees and micro-batch)
 * finished so far, of this process's share. Called from the thread that started the
 * sweep, about every 0.1 s, only while worker threads run. */
typedef void (*aug_sweep_progress_fn)(uint64_t done, uint64_t total, void *user);

struct aug_sweep_config {
    const struct aug_model *model;
    const struct aug_system *system;
    /* the fixed inputs: gpus, global_batch, seq (0 = model max), dtype, flash_attention,
     * dp_overlap. Its degrees are ignored: they come from `space`. */
    struct aug_plan base;
    struct aug_sweep_space space;
    struct aug_train_options options;
    int top_k;            /* plans kept, 1 .. AUG_SWEEP_MAX_TOP */
    int threads;          /* 0: every online core */
    int no_prune;         /* 1: time every plan that fits (pruning never changes results) */
    /* share of the space this process evaluates: work items i with i % n_parts == part
     * (n_parts 0 or 1: all of it) */
    int part, n_parts;
    aug_sweep_progress_fn progress;
    void *progress_user;
};

/* One evaluated plan. */
struct aug_sweep_entry {
    uint64_t index;                  /* position in the enumeration order */
    struct aug_plan plan;            /* resolved */
    struct aug_train_result result;
};

struct aug_sweep_result {
    uint64_t plans_evaluated;  /* plans enumerated: every one passes the divisibility and
                                  topology rules (aug_plan_resolve) */
    uint64_t plans_valid;      /* valid plans that fit in memory */
    uint64_t plans_timed;      /* fully predicted (the rest were bounded out, see no_prune) */
    double elapsed_s;
    int threads;
    int n_top;                 /* fastest first (ties: less memory, then lower index) */
    struct aug_sweep_entry *top;
    int n_pareto;              /* memory ascending, time descending */
    struct aug_sweep_entry *pareto;
};

/* Check the inputs (gpus, batch, top_k, threads) with named usage errors. */
int aug_sweep_check(const struct aug_sweep_config *cfg);

/* Run the sweep. out is filled (and must be released with aug_sweep_result_free) on
 * success. AUG_EUSAGE for bad inputs; prediction errors of a plan are returned with the
 * plan named. */
int aug_sweep_train(const struct aug_sweep_config *cfg, struct aug_sweep_result *out);

/* Count the plans of the space without timing any: the valid ones and the ones that fit
 * (either pointer may be NULL). Single-threaded. */
int aug_sweep_count(const struct aug_sweep_config *cfg, uint64_t *valid, uint64_t *fit);

/* Fold entries (a top list or a front from another part of the space) into r, keeping
 * r's top_k fastest and the exact front of the union. Counters are not touched. */
int aug_sweep_merge(struct aug_sweep_result *r, int top_k, const struct aug_sweep_entry *e,
                    int n);

void aug_sweep_result_free(struct aug_sweep_result *r);

/* Is a dominated by b on the (memory, time) plane? (b no larger and no slower, and
 * strictly better in one, or equal in both with a lower index.) */
int aug_sweep_dominates(const struct aug_sweep_entry *b, const struct aug_sweep_entry *a);

/* ---- inference ---------------------------------------------------------------------
 * Serving plans: TP, PP, EP (dividing TP) and replicas (the rest of the GPUs), at a batch
 * (pinned, or open: powers of two up to the largest that fits). Ranked by end-to-end
 * latency among plans whose throughput meets `min_throughput`; the front is latency
 * against memory per GPU. */
struct aug_sweep_infer_config {
    const struct aug_model *model;
    const struct aug_system *system;
    struct aug_infer_plan base;   /* gpus, batch (0 = open), lengths, dtypes, mode */
    long tp, pp, ep;              /* pinned; 0 = open */
    long max_tp;                  /* 0: the NVLink domain */
    long max_pp;
    long max_batch;               /* open batch: upper bound (0: what fits) */
    double min_throughput;        /* output tokens/s over all GPUs; 0 = no target */
    struct aug_infer_options options;
    int top_k;
    int threads;
    int part, n_parts;
    aug_sweep_progress_fn progress;
    void *progress_user;
};

struct aug_sweep_infer_entry {
    uint64_t index;
    struct aug_infer_plan plan;
    struct aug_infer_result result;
};

struct aug_sweep_infer_result {
    uint64_t plans_evaluated, plans_valid, plans_timed;
    uint64_t plans_meeting_target;
    double elapsed_s;
    int threads;
    int n_top;
    struct aug_sweep_infer_entry *top;
    int n_pareto;
    struct aug_sweep_infer_entry *pareto;
};

int aug_sweep_infer(const struct aug_sweep_infer_config *cfg, struct aug_sweep_infer_result *out);
int aug_sweep_infer_merge(struct aug_sweep_infer_result *r, int top_k,
                          const struct aug_sweep_infer_entry *e, int n);
void aug_sweep_infer_result_free(struct aug_sweep_infer_result *r);

#ifdef __cplusplus
}
#endif
#endif
