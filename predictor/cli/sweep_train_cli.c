/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_train_cli.c - `augur sweep train`: every training plan for a GPU count, split over
 * threads and MPI ranks, gathered, and written as a table, JSON or CSV (with the plot of
 * the front when asked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "augur/sweep.h"
#include "cli.h"
#include "sweep_cli.h"
#include "sweep_mpi.h"
#include "sweep_opts.h"

static int write_plot_train(const char *path, const struct aug_sweep_view *v,
                            const struct aug_sweep_result *r) {
    double *buf = malloc((size_t)(2 * (r->n_pareto + r->n_top) + 4) * sizeof *buf);
    if (!buf)
        return 1;
    double *fx = buf, *fy = fx + r->n_pareto, *tx = fy + r->n_pareto, *ty = tx + r->n_top;
    for (int i = 0; i < r->n_pareto; i++) {
        fx[i] = r->pareto[i].result.memory.total_gib;
        fy[i] = r->pareto[i].result.step_time_s;
    }
    for (int i = 0; i < r->n_top; i++) {
        tx[i] = r->top[i].result.memory.total_gib;
        ty[i] = r->top[i].result.step_time_s;
    }
    char title[256];
    snprintf(title, sizeof title, "%s on %ld x %s (%s): step time vs memory per GPU",
             v->model->name, v->train->base.gpus, v->system->gpu.name, v->system->name);
    int rc = aug_sweep_cli_plot(path, title, "step time (s)", fx, fy, r->n_pareto, tx, ty, r->n_top);
    free(buf);
    return rc;
}

static int emit_train(const struct aug_sweep_opts *o, const struct aug_sweep_view *v,
                      const struct aug_sweep_result *r) {
    FILE *f = aug_cli_open_output(o->output);
    if (!f)
        return 1;
    int bad = 0;
    if (o->fmt == AUG_FORMAT_TABLE) {
        aug_sweep_cli_train_table(f, v, r);
    } else if (o->fmt == AUG_FORMAT_JSON) {
        json_t *j = aug_sweep_cli_train_json(v, r);
        bad = aug_cli_write(f, AUG_FORMAT_JSON, j) != 0;
        json_decref(j);
    } else {
        bad = aug_sweep_cli_train_csv(f, v, r) != 0;
    }
    if (bad) {
        aug_cli_discard_output(f);
        return 1;
    }
    if (aug_cli_close_output(f, o->output) != 0)
        return 1;
    if (o->plot && write_plot_train(o->plot, v, r) != 0)
        return 1;
    return 0;
}

int aug_sweep_run_train(struct aug_sweep_opts *o, int rank, int size) {
    if (!o->have_gb)
        return aug_cli_usage("sweep", "--global-batch is required");
    if (o->infer_only)
        return aug_cli_usage("sweep", "--batch, --input-len, --output-len, --min-throughput, "
                                      "--max-batch and the storage dtypes belong to 'augur sweep infer'");
    struct aug_model model;
    struct aug_system preset, sys;
    struct aug_scale sc;
    struct aug_kdb *kdb = NULL;
    int st, rc = aug_sweep_cli_inputs(o, &model, &preset, &sc, &sys, &kdb);
    if (rc)
        return rc;

    struct aug_sweep_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.model = &model;
    cfg.system = &sys;
    cfg.base = o->base;
    cfg.space = o->space;
    cfg.options.kdb = kdb;
    cfg.options.pure_roofline = o->roofline;
    cfg.top_k = o->top;
    cfg.threads = aug_sweep_cli_threads(o, size);
    cfg.no_prune = o->no_prune;
    cfg.part = rank;
    cfg.n_parts = size;
    struct aug_sweep_progress prog;
    aug_sweep_progress_start(&prog, rank == 0 ? o->progress : -1);
    if (rank == 0 && o->progress >= 0) {
        cfg.progress = aug_sweep_progress_cb;
        cfg.progress_user = &prog;
    }
    if ((st = aug_sweep_check(&cfg)) != AUG_OK) {
        aug_kdb_close(kdb);
        return st == AUG_EUSAGE ? aug_cli_usage("sweep", "%s", aug_last_error())
                                : aug_cli_fail(st, NULL);
    }
    struct aug_sweep_result r;
    memset(&r, 0, sizeof r);
    st = aug_sweep_train(&cfg, &r);
    aug_sweep_progress_end(&prog);
    if (st != AUG_OK)
        fprintf(stderr, "augur: %s\n", aug_last_error());
    int all = aug_sweep_mpi_status(st);
    if (all == AUG_OK)
        all = aug_sweep_mpi_status(aug_sweep_mpi_gather(&r, cfg.top_k));
    rc = all == AUG_OK ? 0 : aug_exit_code(all);
    if (all == AUG_OK && rank == 0) {
        struct aug_sweep_view v = {&model, &sys, &preset, &sc, kdb, o->roofline, size, o->top, &cfg, NULL};
        rc = emit_train(o, &v, &r);
    }
    aug_sweep_result_free(&r);
    aug_kdb_close(kdb);
    return rc;
}
