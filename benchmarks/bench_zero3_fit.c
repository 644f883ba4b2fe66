/* SPDX-License-Identifier: Apache-2.0 */
/* bench_zero3_fit.c - fits the one constant of DeepSpeed's 2021 ZeRO-3 model
 * (AUG_ZERO3_SERIAL_RATE, predictor/train/zero3_serial.h: the share of the collective
 * model's rate its tensor-by-tensor gathers reach) on the training rows it applies to,
 * and reports it held out.
 *
 *   build/benchmarks/bench_zero3_fit [training.csv]
 *
 * The rows are those of the set whose prediction depends on the constant (the rows with
 * framework deepspeed-zero-2021 or zero3_gather serial: in benchmarks/accuracy/training.csv
 * Narayanan et al. SC21 Table 2's six ZeRO-3 runs). Reported: each row predicted from a
 * fit on the others (leave one out), each model (grouped by the params_b column) predicted
 * from a fit on the other models, and the fit on all of them, which zero3_serial.h keeps.
 * Fits are golden-section searches of the MAPE over the rate in [0.05, 1]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "bench_golden.h"

#define MAX_ROWS 64

static const char *path;
static size_t n_fit;                  /* rows the constant moves */
static size_t fit_row[MAX_ROWS];      /* their index in the report */
static char fit_group[MAX_ROWS][160]; /* their params_b cell */

static struct aug_validate_report *run(double rate) {
    struct aug_validate_options opt = {NULL, 0, NULL, "params_b", rate};
    struct aug_validate_report *r = NULL;
    if (aug_validate_file(path, AUG_VALIDATE_ACCURACY, &opt, &r) != AUG_OK) {
        fprintf(stderr, "bench_zero3_fit: %s\n", aug_last_error());
        exit(1);
    }
    return r;
}

/* MAPE over the fitted rows with `in` = 1 inside `skip_group`/`skip_row`, 0 outside. */
static double mape(double rate, long skip_row, const char *skip_group, int in) {
    struct aug_validate_report *r = run(rate);
    double sum = 0.0;
    int n = 0;
    for (size_t i = 0; i < n_fit; i++) {
        int hit = (long)i == skip_row || (skip_group && strcmp(fit_group[i], skip_group) == 0);
        if (hit != in)
            continue;
        sum += fabs(r->rows[fit_row[i]].error_pct);
        n++;
    }
    aug_validate_report_free(r);
    return n ? sum / n : INFINITY;
}

/* The training MAPE at a rate, with a row or a model left out, for golden_min. */
struct leave_out {
    long row;
    const char *group;
};

static double train_mape(double rate, void *arg) {
    const struct leave_out *l = arg;
    return mape(rate, l->row, l->group, 0);
}

static double fit(long skip_row, const char *skip_group) {
    struct leave_out l = {skip_row, skip_group};
    return golden_min(0.05, 1.0, 1e-3, train_mape, &l);
}

int main(int argc, char **argv) {
    path = argc > 1 ? argv[1] : "benchmarks/accuracy/training.csv";
    /* the rows the constant moves: predicted differently at two rates */
    struct aug_validate_report *lo = run(0.2), *hi = run(0.8);
    for (size_t i = 0; i < lo->n_rows && n_fit < MAX_ROWS; i++) {
        if (lo->rows[i].skipped || lo->rows[i].predicted == hi->rows[i].predicted)
            continue;
        fit_row[n_fit] = i;
        snprintf(fit_group[n_fit], sizeof fit_group[n_fit], "%s", lo->rows[i].group);
        n_fit++;
    }
    if (n_fit < 2) {
        fprintf(stderr, "bench_zero3_fit: %s has %zu rows with serial ZeRO-3 gathers; need 2\n",
                path, n_fit);
        return 1;
    }
    printf("# serial ZeRO-3 gather rate fitted on the %zu rows of %s it applies to\n", n_fit,
           path);
    printf("%-40s %8s %10s %12s\n", "row held out", "rate", "error%", "train_MAPE%");
    double held = 0.0;
    for (size_t i = 0; i < n_fit; i++) {
        double rate = fit((long)i, NULL);
        struct aug_validate_report *r = run(rate);
        double e = r->rows[fit_row[i]].error_pct;
        held += fabs(e);
        printf("%-40s %8.3f %+10.1f %12.2f\n", r->rows[fit_row[i]].id, rate, e,
               mape(rate, (long)i, NULL, 0));
        aug_validate_report_free(r);
    }
    printf("leave-one-out MAPE: %.2f%%\n", held / (double)n_fit);
    printf("%-40s %8s %12s %12s\n", "model held out (params_b)", "rate", "heldout_MAPE%",
           "train_MAPE%");
    for (size_t i = 0; i < n_fit; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(fit_group[j], fit_group[i]) == 0;
        if (seen)
            continue;
        double rate = fit(-1, fit_group[i]);
        printf("%-40s %8.3f %12.2f %12.2f\n", fit_group[i], rate, mape(rate, -1, fit_group[i], 1),
               mape(rate, -1, fit_group[i], 0));
    }
    double rate = fit(-1, NULL);
    printf("fit on all %zu rows (kept in zero3_serial.h): rate %.3f, MAPE %.2f%%\n", n_fit, rate,
           mape(rate, -1, NULL, 0));
    aug_validate_report_free(lo);
    aug_validate_report_free(hi);
    return 0;
}
