/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_opts.h - the parsed options of `augur sweep`, the input loading every mode shares
 * (sweep_inputs.c) and the runners of its modes (sweep_train_cli.c, sweep_infer_cli.c,
 * sweep_scaling_cli.c). */
#ifndef AUG_SWEEP_OPTS_H
#define AUG_SWEEP_OPTS_H

#include "augur/augur.h"
#include "augur/infer.h"
#include "augur/scaling.h"
#include "augur/sweep.h"
#include "cli.h"

struct aug_sweep_opts {
    const char *mode;
    const char *model, *system, *kdb, *output, *plot, *scale, *generation;
    enum aug_format fmt;
    int roofline, top, threads, no_prune, progress; /* progress: 1 on, 0 auto, -1 off */
    struct aug_plan base;          /* train: gpus, global batch, seq, dtype, attention */
    struct aug_sweep_space space;  /* train: pins and bounds (infer uses tp, pp, ep, max_*) */
    int have_gpus, have_gb;
    int train_only;                /* a train-only option was given */
    /* infer */
    struct aug_infer_plan ibase;
    long max_batch;
    double min_throughput;
    int infer_only;                /* an infer-only option was given */
    double slo_ttft, slo_tpot;     /* p99 targets in s (0: none): the SLO sweep */
    const char *engine;
    long num_requests, seed;
    /* scaling */
    const char *along, *factors, *systems, *generations;
    double improve;
};

/* Load the preset and derive the what-if system from --scale / --generation. Returns 0,
 * or an exit code after printing the error. */
/* The model, the preset, the scaling, the what-if system and its (rescaled) kdb of the
 * options: exit code or 0. */
struct aug_model;
struct aug_kdb;
int aug_sweep_cli_inputs(const struct aug_sweep_opts *o, struct aug_model *model,
                         struct aug_system *preset, struct aug_scale *sc, struct aug_system *sys,
                         struct aug_kdb **kdb);
int aug_sweep_cli_whatif(const char *kdb_root, const char *system, const char *scale_spec,
                         const char *gen_spec, struct aug_system *preset, struct aug_scale *sc,
                         struct aug_system *sys);

/* Default thread count for this process (0 = every core; under an MPI launcher the cores
 * shared by the node's ranks). */
int aug_sweep_cli_threads(const struct aug_sweep_opts *o, int size);

int aug_sweep_run_train(struct aug_sweep_opts *o, int rank, int size);
int aug_sweep_run_infer(const struct aug_sweep_opts *o, int rank, int size);
/* --slo-ttft-p99 / --slo-tpot-p99: plans ranked by their highest rate within the targets. */
int aug_sweep_run_slo(const struct aug_sweep_opts *o);
int aug_sweep_run_scaling(const struct aug_sweep_opts *o);

#endif
