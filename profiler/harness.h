/* SPDX-License-Identifier: Apache-2.0 */
/* harness.h - the sweep driver: for each selected family, generate the points, skip those
 * already in the output file, measure the rest through a backend, write rows.
 *
 * It owns the policies the issue of a GPU sweep needs and that are tested without a GPU:
 * resume, skipping a point that fails (never writing a number for it), stopping when the
 * device is lost, periodic atomic saves, progress and estimated time on stderr, and the
 * dry run that lists points and their estimated duration without touching a device. */
#ifndef AUG_PROF_HARNESS_H
#define AUG_PROF_HARNESS_H

#include <signal.h>
#include <stdio.h>

#include "backend.h"
#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AUG_PROF_FAMILY_BIT(f) (1u << (unsigned)(f))

struct aug_prof_sweep_cfg {
    unsigned families;          /* AUG_PROF_FAMILY_BIT mask; 0: every family */
    struct aug_prof_grid_cfg grid;
    struct aug_prof_run_cfg run;
    const char *output_dir;     /* NULL: kernels-db/<gpu-id>/raw under the current folder */
    const char *gpu_id;         /* NULL: derived from the device name */
    long limit;                 /* measure at most this many points per family; 0: all */
    int save_every;             /* save after this many new rows (and at least every 60 s) */
    const char *tool;           /* "augur-profile 0.1.0" */
    const char *command;        /* the command line, for provenance */
    volatile sig_atomic_t *stop;/* set asynchronously (SIGINT): finish the point, save, stop */
    FILE *log;                  /* progress and messages (stderr); NULL: silent */
};

struct aug_prof_sweep_report {
    long planned;               /* points of the selected grids */
    long present;               /* already in the output files (resumed) */
    long measured;              /* new rows written */
    long failed;                /* points skipped after an error */
    long unsupported;           /* points this device cannot run */
    int families_failed;        /* families that could not run at all */
    int device_lost;            /* a fatal device error stopped the sweep */
    int interrupted;            /* *stop was set */
    char out_dir[1024];         /* where the files went */
};

/* Run the sweep. Returns AUG_ENODEV when the backend finds no usable device, AUG_EUSAGE
 * for a bad configuration (an unsafe output folder for a synthetic backend, a bad GPU id),
 * AUG_EIO when a file cannot be written, AUG_OK otherwise; the report says what happened
 * to every point. */
int aug_prof_sweep_run(const struct aug_prof_backend *be, const struct aug_prof_sweep_cfg *cfg,
                       struct aug_prof_sweep_report *rep);

/* List the points cfg would measure, one per line, with the estimated time of each on the
 * reference GPU, then the estimated total, to `out`. Points already present in the
 * output files are marked and not counted. Never touches a device; `be` (may be NULL)
 * only says which families are built. *total_s receives the estimate. */
int aug_prof_sweep_dry_run(const struct aug_prof_backend *be, const struct aug_prof_sweep_cfg *cfg,
                           FILE *out, double *total_s);

/* Expected seconds to measure point p with cfg (warm-up + repetitions + per-point cost). */
double aug_prof_point_estimate_s(const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg);

/* "kernels-db/<gpu-id>/raw" or cfg->output_dir; <dir>/<family>.csv. */
int aug_prof_output_path(const char *dir, enum aug_family f, char *buf, size_t cap);

/* 1 when any component of `path` (or of its resolved form, when it exists) is
 * "kernels-db": synthetic backends must never write there. */
int aug_prof_path_in_kdb(const char *path);

#ifdef __cplusplus
}
#endif
#endif
