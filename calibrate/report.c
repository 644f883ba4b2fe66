/* SPDX-License-Identifier: Apache-2.0 */
/* report.c - fit-quality table and plots of measured points against fitted curves for
 * `augur calibrate --report DIR`. Plots are gnuplot scripts run with posix_spawnp (its
 * output goes to a log file, never to our stdout); without gnuplot the scripts and data
 * are still written and the note says how to render them. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "augur/csvio.h"
#include "core/atomic_write.h"
#include "augur/dtype.h"
#include "augur/status.h"

extern char **environ;

void aug_report_group_stem(const struct aug_fit_group *g, char *buf, size_t cap)
{
    char tmp[160];
    int n = snprintf(tmp, sizeof tmp, "%s_%s_%s", aug_family_name(g->family), g->op,
                     aug_dtype_name(g->dtype));
    if (g->family == AUG_FAMILY_COLLECTIVE && n > 0 && (size_t)n < sizeof tmp)
        n += snprintf(tmp + n, sizeof tmp - (size_t)n, "_r%d_%s", g->ranks, g->link);
    if (g->family == AUG_FAMILY_ATTENTION && n > 0 && (size_t)n < sizeof tmp)
        snprintf(tmp + n, sizeof tmp - (size_t)n, "_d%g", g->head_dim);
    size_t j = 0;
    for (size_t i = 0; tmp[i] && j + 1 < cap; i++) {
        char c = tmp[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
        buf[j++] = ok ? c : '_';
    }
    if (cap > 0)
        buf[j] = '\0';
}

double aug_report_predict_us(const struct aug_fit_result *r, const struct aug_fit_group *g,
                             const struct aug_sample *x, const struct aug_gpu *gpu)
{
    if (g->n_curves < 1)
        return NAN;
    struct aug_curve_point pt;
    double t, e;
    aug_fit_sample_point(x, gpu, &pt, &t, &e);
    const struct aug_curve *c = &r->curves[g->first_curve];
    for (int i = 0; i < g->n_curves; i++) {
        c = &r->curves[g->first_curve + i];
        if (pt.x <= c->x_max)
            break;
    }
    const struct aug_curve_form *f = aug_curve_form_find(c->form);
    if (!f)
        return NAN;
    double peak = gpu ? gpu->peak_tflops[x->dtype] : 0;
    return aug_curve_time_us(c, f, &pt, peak);
}

static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char dir[4096];
    while (*path) {
        size_t l = strcspn(path, ":");
        if (l > 0 && l < sizeof dir - 16) {
            memcpy(dir, path, l);
            snprintf(dir + l, sizeof dir - l, "/gnuplot");
            if (access(dir, X_OK) == 0)
                return 1;
        }
        path += l;
        if (*path == ':')
            path++;
    }
    return 0;
}

static int run_gnuplot(const char *script, const char *log)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int write_quality(const char *path, const struct aug_fit_result *r)
{
    struct aug_csv_writer *w = NULL;
    int rc = aug_csv_writer_open(path, 1, &w);
    if (rc != AUG_OK)
        return rc;
    static const char *const cols[] = {
        "family", "op", "dtype", "ranks", "link", "head_dim", "form", "pieces", "n_points",
        "n_dropped_eff_above_1", "rel_rmse", "max_rel_err", "median_abs_err", "cv_rel_err",
        "verdict", "candidates", "note"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        aug_csv_write_str(w, cols[i]);
    aug_csv_end_row(w);
    for (size_t i = 0; i < r->n_groups; i++) {
        const struct aug_fit_group *g = &r->groups[i];
        aug_csv_write_str(w, aug_family_name(g->family));
        aug_csv_write_str(w, g->op);
        aug_csv_write_str(w, aug_dtype_name(g->dtype));
        aug_csv_write_int(w, g->ranks);
        aug_csv_write_str(w, g->link);
        aug_csv_write_num(w, g->head_dim);
        aug_csv_write_str(w, g->form);
        aug_csv_write_int(w, g->n_curves);
        aug_csv_write_int(w, g->n_idx);
        aug_csv_write_int(w, g->n_dropped);
        aug_csv_write_num(w, g->rel_rmse);
        aug_csv_write_num(w, g->max_rel_err);
        aug_csv_write_num(w, g->median_abs_err);
        aug_csv_write_num(w, g->cv_rel_err);
        aug_csv_write_str(w, aug_fit_verdict_name(g->verdict));
        char cand[256] = "";
        size_t used = 0;
        for (int c = 0; c < g->n_cand && used < sizeof cand; c++)
            used += (size_t)snprintf(cand + used, sizeof cand - used, "%s%s=%.4g",
                                     c ? " " : "", g->cand[c].form,
                                     g->cand[c].ok ? g->cand[c].cv_rel_err : NAN);
        aug_csv_write_str(w, cand);
        aug_csv_write_str(w, g->note);
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w);
}

static int write_group(const char *dir, const char *stem, const struct aug_samples *s,
                       const struct aug_fit_result *r, const struct aug_fit_group *g,
                       const struct aug_gpu *gpu)
{
    size_t cap = strlen(dir) + strlen(stem) + 16;
    char *path = malloc(cap);
    if (!path)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    snprintf(path, cap, "%s/%s.csv", dir, stem);
    struct aug_csv_writer *w = NULL;
    int rc = aug_csv_writer_open(path, 1, &w);
    if (rc != AUG_OK) {
        free(path);
        return rc;
    }
    aug_csv_write_str(w, "x");
    aug_csv_write_str(w, "time_us_measured");
    aug_csv_write_str(w, "time_us_fitted");
    aug_csv_end_row(w);
    for (int i = 0; i < g->n_idx; i++) { /* idx is sorted by size feature */
        const struct aug_sample *x = &s->v[g->idx[i]];
        struct aug_curve_point pt;
        double t, e;
        aug_fit_sample_point(x, gpu, &pt, &t, &e);
        aug_csv_write_num(w, pt.x);
        aug_csv_write_num(w, x->time_us);
        aug_csv_write_num(w, aug_report_predict_us(r, g, x, gpu));
        aug_csv_end_row(w);
    }
    rc = aug_csv_writer_commit(w);
    if (rc == AUG_OK) {
        snprintf(path, cap, "%s/%s.gp", dir, stem);
        struct aug_atomic gp;
        rc = aug_atomic_open(&gp, path);
        if (rc == AUG_OK) {
            FILE *fp = gp.fp;
            const char *xl = g->family == AUG_FAMILY_GEMM ? "FLOPs (2mnk)"
                             : g->family == AUG_FAMILY_ATTENTION ? "sequence length (keys)"
                                                                  : "size (bytes)";
            int one_d = g->family == AUG_FAMILY_MEMORY || g->family == AUG_FAMILY_COLLECTIVE;
            fprintf(fp,
                    "set terminal svg size 900,600 dynamic\n"
                    "set output '%s/%s.svg'\n"
                    "set datafile separator ','\n"
                    "set logscale xy\n"
                    "set key top left\n"
                    "set grid\n"
                    "set title \"%s  (%s, cv %.1f%%, %s)\" noenhanced\n"
                    "set xlabel '%s'\n"
                    "set ylabel 'time (us)'\n"
                    "plot '%s/%s.csv' skip 1 using 1:2 with points pt 7 ps 0.4 title 'measured', \\\n"
                    "     '%s/%s.csv' skip 1 using 1:3 with %s title 'fitted'\n",
                    dir, stem, stem, g->form, 100 * g->cv_rel_err, aug_fit_verdict_name(g->verdict), xl,
                    dir, stem, dir, stem, one_d ? "lines lw 2" : "points pt 6 ps 0.4");
            rc = aug_atomic_commit(&gp);
        }
    }
    free(path);
    return rc;
}

int aug_report_write(const char *dir, const struct aug_samples *s,
                     const struct aug_fit_result *r, const struct aug_gpu *gpu, char *note,
                     size_t note_cap)
{
    if (note_cap)
        note[0] = '\0';
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return aug_errorf(AUG_EIO, "cannot create report folder '%s': %s", dir, strerror(errno));
    size_t cap = strlen(dir) + 64;
    char *path = malloc(cap);
    if (!path)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    snprintf(path, cap, "%s/fit_quality.csv", dir);
    int rc = write_quality(path, r);
    free(path);
    if (rc != AUG_OK)
        return rc;
    for (size_t i = 0; i < r->n_groups && rc == AUG_OK; i++) {
        if (r->groups[i].n_curves < 1)
            continue;
        char stem[160];
        aug_report_group_stem(&r->groups[i], stem, sizeof stem);
        rc = write_group(dir, stem, s, r, &r->groups[i], gpu);
    }
    if (rc != AUG_OK)
        return rc;
    if (!have_gnuplot()) {
        snprintf(note, note_cap, "gnuplot not found: plots skipped (run 'gnuplot *.gp' in %s)",
                 dir);
        return AUG_OK;
    }
    /* the folder name is written into the gnuplot scripts: a quote, a backquote or a
     * control character (a newline starts a new command, "!" runs a shell) could run
     * commands, so such a name gets no plots */
    for (const char *c = dir; *c; c++)
        if (*c == '\'' || *c == '"' || *c == '`' || (unsigned char)*c < 0x20) {
            snprintf(note, note_cap, "report folder name has quotes or control characters: "
                     "plots skipped");
            return AUG_OK;
        }
    size_t lcap = strlen(dir) + 200;
    char *script = malloc(lcap), *log = malloc(lcap);
    if (!script || !log) {
        free(script);
        free(log);
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    snprintf(log, lcap, "%s/gnuplot.log", dir);
    int failed = 0, plotted = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        if (r->groups[i].n_curves < 1)
            continue;
        char stem[160];
        aug_report_group_stem(&r->groups[i], stem, sizeof stem);
        snprintf(script, lcap, "%s/%s.gp", dir, stem);
        if (run_gnuplot(script, log) != 0)
            failed++;
        else
            plotted++;
    }
    free(script);
    free(log);
    if (failed)
        snprintf(note, note_cap, "gnuplot failed on %d of %d plots (see %s/gnuplot.log)", failed,
                 failed + plotted, dir);
    else
        snprintf(note, note_cap, "%d plots written to %s", plotted, dir);
    return AUG_OK;
}
