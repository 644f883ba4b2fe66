/* SPDX-License-Identifier: Apache-2.0 */
/* bench_sweep.c - speed of the design-space sweep: plans per second on one core, and the
 * time to search the whole training-plan space of a 1T-parameter model (megatron-1t) on
 * 16,384 H100 (global batch 8,192 x 2,048 tokens), on one core and on every core. Each case
 * runs with the GPU's calibrated kernels-db curves and with the documented defaults only,
 * with the exact pruning (the default) and with every fitting plan timed (--no-prune), so
 * the per-prediction cost shows too. Figures and commands: benchmarks/SWEEP.md.
 * Run: ./build/benchmarks/bench_sweep [repeats] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "augur/augur.h"
#include "augur/sweep.h"

struct bench_case {
    const char *model, *system;
    long gpus, global_batch, seq; /* seq 0: the model's maximum */
    int uneven_pp; /* Llama 3 405B's 126 layers split evenly only 1, 2, 3, 6, 7, ... ways */
};

static const struct bench_case cases[] = {
    {"megatron-1t", "dgx-h100", 16384, 8192, 0, 0},
    {"gpt3-175b", "dgx-a100-80g", 1024, 1536, 0, 0},
    {"llama3-405b", "dgx-h100", 16384, 2048, 8192, 1}, /* Llama 3 pre-training: 8K context */
    {"mixtral-8x22b", "dgx-h100", 1024, 1024, 0, 0},
};

/* Best of `repeats` runs (the machine's noise only ever adds time). */
static int run(const struct bench_case *bc, const struct aug_model *m, const struct aug_system *s,
               const struct aug_kdb *kdb, int threads, int no_prune, int repeats) {
    struct aug_sweep_config c;
    memset(&c, 0, sizeof c);
    c.model = m;
    c.system = s;
    aug_plan_init(&c.base);
    c.base.gpus = bc->gpus;
    c.base.global_batch = bc->global_batch;
    c.base.seq = bc->seq;
    aug_sweep_space_init(&c.space);
    c.space.uneven_pp = bc->uneven_pp;
    c.options.kdb = kdb;
    c.top_k = 10;
    c.threads = threads;
    c.no_prune = no_prune;
    double best = 1e30;
    struct aug_sweep_result r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < repeats; i++) {
        aug_sweep_result_free(&r);
        if (aug_sweep_train(&c, &r) != AUG_OK) {
            fprintf(stderr, "bench_sweep: %s\n", aug_last_error());
            return 1;
        }
        if (r.elapsed_s < best)
            best = r.elapsed_s;
    }
    printf("%-14s %-13s %6ld%s %7s %-8s %2d  %9llu %8llu %8llu  %8.4f  %10.0f  %9.0f  %9.4f\n",
           bc->model, bc->system, bc->gpus, bc->uneven_pp ? "u" : " ", kdb ? "curves" : "default", no_prune ? "all" : "pruned",
           r.threads, (unsigned long long)r.plans_evaluated, (unsigned long long)r.plans_valid,
           (unsigned long long)r.plans_timed, best,
           (double)r.plans_evaluated / best / (double)r.threads,
           (double)r.plans_timed / best / (double)r.threads,
           r.n_top ? r.top[0].result.step_time_s : 0.0);
    aug_sweep_result_free(&r);
    return 0;
}

int main(int argc, char **argv) {
    int repeats = argc > 1 ? atoi(argv[1]) : 3;
    if (repeats < 1)
        repeats = 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("# augur sweep train: whole plan space, best of %d runs; plans/s/core = plans evaluated "
           "(every valid plan) per second per thread; timed/s/core = full predictions per second "
           "per thread; u = uneven pipeline splits allowed; %ld cores online\n", repeats, cores);
    printf("%-14s %-13s %6s  %7s %-8s %2s  %9s %8s %8s  %8s  %10s  %9s  %9s\n", "model", "system",
           "gpus", "effic.", "timing", "th", "evaluated", "fit", "timed", "time_s",
           "plans/s/core", "timed/s/c", "best_s");
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases && !rc; i++) {
        const struct bench_case *bc = &cases[i];
        struct aug_model m;
        struct aug_system s;
        if (aug_model_load(NULL, bc->model, &m) != AUG_OK ||
            aug_system_load(NULL, bc->system, &s) != AUG_OK) {
            fprintf(stderr, "bench_sweep: %s\n", aug_last_error());
            return 1;
        }
        struct aug_kdb *kdb = NULL;
        if (aug_kdb_open(NULL, s.gpu.id, &kdb) != AUG_OK || aug_kdb_curve_count(kdb) == 0) {
            aug_kdb_close(kdb);
            kdb = NULL;
        }
        for (int k = 0; k < 2 && !rc; k++) {
            const struct aug_kdb *use = k ? kdb : NULL;
            if (k && !kdb)
                continue;
            rc = run(bc, &m, &s, use, 1, 0, repeats);
            if (!rc)
                rc = run(bc, &m, &s, use, 1, 1, repeats);
            if (!rc && i == 0 && cores > 1)
                rc = run(bc, &m, &s, use, (int)cores, 0, repeats);
        }
        aug_kdb_close(kdb);
    }
    return rc;
}
