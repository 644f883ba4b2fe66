/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_cli.h - output of `augur sweep`: table, JSON (DESIGN section 3 keys), CSV, the
 * gnuplot plot of the front, the "why the best plan wins" comparison, the progress bar. */
#ifndef AUG_SWEEP_CLI_H
#define AUG_SWEEP_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "augur/augur.h"
#include "augur/infer.h"
#include "augur/scaling.h"
#include "augur/sweep.h"

/* What the outputs describe besides the result itself. */
struct aug_sweep_view {
    const struct aug_model *model;
    const struct aug_system *system; /* the system swept (the what-if one when scaled) */
    const struct aug_system *preset; /* the system it came from */
    const struct aug_scale *scale;
    const struct aug_kdb *kdb;
    int roofline;
    int ranks;                       /* MPI processes */
    int top_k;
    const struct aug_sweep_config *train;       /* train mode */
    const struct aug_sweep_infer_config *infer; /* infer mode */
};

/* Where efficiencies came from, and for a what-if system that they carried over. */
void aug_sweep_cli_calibration(const struct aug_sweep_view *v, char *buf, size_t n);

json_t *aug_sweep_cli_train_json(const struct aug_sweep_view *v, const struct aug_sweep_result *r);
void aug_sweep_cli_train_table(FILE *f, const struct aug_sweep_view *v,
                               const struct aug_sweep_result *r);
int aug_sweep_cli_train_csv(FILE *f, const struct aug_sweep_view *v, const struct aug_sweep_result *r);

json_t *aug_sweep_cli_infer_json(const struct aug_sweep_view *v,
                                 const struct aug_sweep_infer_result *r);
void aug_sweep_cli_infer_table(FILE *f, const struct aug_sweep_view *v,
                               const struct aug_sweep_infer_result *r);
int aug_sweep_cli_infer_csv(FILE *f, const struct aug_sweep_view *v,
                            const struct aug_sweep_infer_result *r);

/* `s` reduced to characters that are inert in a single-quoted gnuplot string (others
 * become '?'), cut to fit `cap`. */
void aug_sweep_cli_plot_text(char *dst, size_t cap, const char *s);

/* Plot points (x = memory GiB per GPU, y = seconds) with gnuplot into FILE.svg / .png.
 * Returns 0 when written, 1 when it could not be (a message says why). */
int aug_sweep_cli_plot(const char *path, const char *title, const char *ylabel,
                       const double *front_x, const double *front_y, int n_front,
                       const double *top_x, const double *top_y, int n_top);

/* Progress bar on stderr (from 0.5 s on, when stderr is a terminal or forced). */
struct aug_sweep_progress {
    double t0;
    int force;   /* 1: always, 0: when stderr is a terminal, -1: never */
    int shown;
};
void aug_sweep_progress_start(struct aug_sweep_progress *p, int force);
void aug_sweep_progress_cb(uint64_t done, uint64_t total, void *user);
void aug_sweep_progress_end(struct aug_sweep_progress *p);

#endif
