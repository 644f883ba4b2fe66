/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_scaling_cli.c - `augur sweep scaling`: a path of what-if systems (factors along
 * resources, named technology generations, or other presets), the best plan at each point,
 * and which resource bounds it there (the gain of the best plan when that resource alone
 * improves), as a table, JSON or CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_cli.h"
#include "sweep_opts.h"
#include "train_cli.h"

#define MAX_POINTS 64

static const char *const kind_names[] = {"logic", "hbm", "nvlink", "network"};

/* Split a comma list into at most cap items (in buf). */
static int split(const char *list, char *buf, size_t bufsz, char **items, int cap) {
    if (strlen(list) >= bufsz)
        return -1;
    strcpy(buf, list);
    int n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (n == cap)
            return -1;
        items[n++] = tok;
    }
    return n;
}

static void plan_short(const struct aug_plan *p, char *buf, size_t n) {
    char sh[24], rec[160];
    aug_plan_recompute_label(p, rec, sizeof rec);
    if (p->fsdp != AUG_FSDP_NONE)
        snprintf(sh, sizeof sh, "fsdp-%s", aug_fsdp_name(p->fsdp));
    else
        snprintf(sh, sizeof sh, "zero-%d", p->zero);
    snprintf(buf, n, "tp %ld pp %ld dp %ld cp %ld%s%s ep %ld sp %s v %ld mb %ld %s %s", p->tp,
             p->pp, p->dp, p->cp, p->cp > 1 ? " " : "", p->cp > 1 ? aug_cp_algo_name(p->cp_algo) : "",
             p->ep, p->sp ? "on" : "off", p->interleave, p->micro_batch, rec, sh);
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static int emit(const struct aug_sweep_opts *o, const struct aug_model *m,
                const struct aug_scaling_study *st, struct aug_scaling_point *pts, int n,
                const char *path_text) {
    FILE *f = aug_cli_open_output(o->output);
    if (!f)
        return 1;
    double k = st->improve > 1 ? st->improve : 2.0;
    long seq = o->base.seq > 0 ? o->base.seq : m->max_seq;
    /* the calibrated curves each GPU of the path brings */
    char cal[512] = "";
    size_t used = 0;
    for (int i = 0; i < n && !o->roofline; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= strcmp(pts[j].preset.gpu.id, pts[i].preset.gpu.id) == 0;
        struct aug_kdb *kdb = NULL;
        if (seen || aug_kdb_open_predict(o->kdb, pts[i].preset.gpu.id, &kdb) != AUG_OK)
            continue;
        int w = snprintf(cal + used, sizeof cal - used, "%skernels-db/%s: %d curves", used ? ", " : "",
                         pts[i].preset.gpu.id, aug_kdb_curve_count(kdb));
        aug_kdb_close(kdb);
        if (w < 0 || (size_t)w >= sizeof cal - used)
            break;
        used += (size_t)w;
    }
    int bad = 0;
    if (o->fmt == AUG_FORMAT_JSON) {
        json_t *root = json_object(), *arr = json_array();
        json_object_set_new(root, "mode", json_string("scaling"));
        json_object_set_new(root, "model", json_string(m->name));
        json_object_set_new(root, "gpus", json_integer(o->base.gpus));
        json_object_set_new(root, "global_batch", json_integer(o->base.global_batch));
        json_object_set_new(root, "seq", json_integer(seq));
        json_object_set_new(root, "path", json_string(path_text));
        json_object_set_new(root, "improve", json_real(k));
        json_object_set_new(root, "efficiencies",
                            json_string(o->roofline ? "pure roofline"
                                                    : "calibrated efficiencies of each point's GPU "
                                                      "carried over to its what-if system"));
        json_object_set_new(root, "curves", json_string(cal));
        for (int i = 0; i < n; i++) {
            const struct aug_scaling_point *p = &pts[i];
            json_t *e = json_object(), *fac = json_object(), *sens = json_object();
            json_object_set_new(e, "label", json_string(p->label));
            json_object_set_new(e, "system", json_string(p->system.name));
            json_object_set_new(e, "from", json_string(p->preset.name));
            for (int r = 0; r < AUG_RES_COUNT; r++) {
                json_object_set_new(fac, aug_resource_name((enum aug_resource)r), json_real(p->scale.f[r]));
                json_object_set_new(sens, aug_resource_name((enum aug_resource)r),
                                    num_or_null(p->sensitivity[r]));
            }
            json_object_set_new(e, "factors", fac);
            json_object_set_new(e, "found", json_boolean(p->found));
            json_object_set_new(e, "plans_evaluated", json_integer((json_int_t)p->plans_evaluated));
            if (p->found) {
                json_object_set_new(e, "step_time_s", json_real(p->best.result.step_time_s));
                json_object_set_new(e, "tokens_per_s", json_real(p->best.result.tokens_per_s));
                json_object_set_new(e, "speedup", json_real(p->speedup));
                json_object_set_new(e, "best", aug_cli_train_json(m, &p->system, &p->best.plan,
                                                                  &p->best.result, NULL));
            }
            json_object_set_new(e, "bound", json_string(aug_resource_name(p->bound)));
            json_object_set_new(e, "gain_when_improved", sens);
            json_array_append_new(arr, e);
        }
        json_object_set_new(root, "points", arr);
        bad = aug_cli_write(f, AUG_FORMAT_JSON, root) != 0;
        json_decref(root);
    } else if (o->fmt == AUG_FORMAT_CSV) {
        struct aug_csv_writer *w;
        if (aug_csv_writer_fp(f, &w) != AUG_OK) {
            aug_cli_discard_output(f);
            return 1;
        }
        aug_csv_write_str(w, "label");
        aug_csv_write_str(w, "system");
        for (int r = 0; r < AUG_RES_COUNT; r++) {
            char col[48];
            snprintf(col, sizeof col, "factor_%s", aug_resource_name((enum aug_resource)r));
            aug_csv_write_str(w, col);
        }
        const char *cols[] = {"found", "step_time_s", "tokens_per_s", "speedup", "bound"};
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
            aug_csv_write_str(w, cols[i]);
        for (int r = 0; r < AUG_RES_COUNT; r++) {
            char col[48];
            snprintf(col, sizeof col, "gain_%s", aug_resource_name((enum aug_resource)r));
            aug_csv_write_str(w, col);
        }
        aug_csv_write_str(w, "best_plan");
        aug_csv_end_row(w);
        for (int i = 0; i < n; i++) {
            const struct aug_scaling_point *p = &pts[i];
            aug_csv_write_str(w, p->label);
            aug_csv_write_str(w, p->system.name);
            for (int r = 0; r < AUG_RES_COUNT; r++)
                aug_csv_write_num(w, p->scale.f[r]);
            aug_csv_write_int(w, p->found);
            aug_csv_write_num(w, p->found ? p->best.result.step_time_s : NAN);
            aug_csv_write_num(w, p->found ? p->best.result.tokens_per_s : NAN);
            aug_csv_write_num(w, p->found ? p->speedup : NAN);
            aug_csv_write_str(w, aug_resource_name(p->bound));
            for (int r = 0; r < AUG_RES_COUNT; r++)
                aug_csv_write_num(w, isfinite(p->sensitivity[r]) ? p->sensitivity[r] : NAN);
            char plan[256] = "";
            if (p->found)
                plan_short(&p->best.plan, plan, sizeof plan);
            aug_csv_write_str(w, plan);
            aug_csv_end_row(w);
        }
        bad = aug_csv_writer_commit(w) != AUG_OK;
    } else {
        fprintf(f, "# augur sweep scaling: %s on %ld GPUs, global batch %ld x seq %ld; path: %s\n",
                m->name, o->base.gpus, o->base.global_batch, seq, path_text);
        fprintf(f, "# each point: the best plan of a full sweep of its what-if system; gain: the "
                   "speed-up of the best plan when that resource alone improves %gx (bandwidth,\n"
                   "# compute, capacity x%g, latency /%g; a new sweep each); the largest gain names "
                   "the resource that bounds the workload there\n", k, k, k);
        fprintf(f, "# efficiencies: %s\n", o->roofline ? "pure roofline (peak rates)"
                   : "calibrated efficiencies of each point's GPU carried over to its what-if "
                     "system (efficiencies against the scaled peaks, and gpus.csv's achievable "
                     "ceilings scaled with them; memory-bound and collective time curves rescaled "
                     "by the bandwidth and latency factors)");
        if (!o->roofline)
            fprintf(f, "# curves: %s (a GPU without curves uses the documented default "
                       "efficiencies)\n", used ? cal : "none");
        fprintf(f, "\n");
        fprintf(f, "%-26s %10s %8s %-10s", "point", "step_s", "speedup", "bound");
        for (int r = 0; r < AUG_RES_COUNT; r++)
            fprintf(f, " %10s", aug_resource_name((enum aug_resource)r));
        fprintf(f, "  best plan\n");
        for (int i = 0; i < n; i++) {
            const struct aug_scaling_point *p = &pts[i];
            if (!p->found) {
                fprintf(f, "%-26.26s %10s %8s %-10s", p->label, "no fit", "-", aug_resource_name(p->bound));
            } else {
                fprintf(f, "%-26.26s %10.5g %8.3f %-10s", p->label, p->best.result.step_time_s,
                        p->speedup, aug_resource_name(p->bound));
            }
            for (int r = 0; r < AUG_RES_COUNT; r++) {
                if (isfinite(p->sensitivity[r]))
                    fprintf(f, " %10.4f", p->sensitivity[r]);
                else
                    fprintf(f, " %10s", "fits");
            }
            char plan[256] = "-";
            if (p->found)
                plan_short(&p->best.plan, plan, sizeof plan);
            fprintf(f, "  %s\n", plan);
        }
        /* how the bound moves */
        fprintf(f, "\nbound along the path:");
        for (int i = 0; i < n; i++)
            fprintf(f, "%s %s", i ? " ->" : "", aug_resource_name(pts[i].bound));
        fprintf(f, "\n");
    }
    if (bad) {
        aug_cli_discard_output(f);
        return 1;
    }
    if (aug_cli_close_output(f, o->output) != 0)
        return 1;
    return 0;
}

/* Rewrite the generation items as from:to pairs that follow the path (a name alone steps
 * from the generation reached so far). */
static int generation_path(const struct aug_system *preset, char **items, int n,
                           char pairs[][64]) {
    const struct aug_tech *cur[AUG_TECH_KIND_COUNT];
    for (int k = 0; k < AUG_TECH_KIND_COUNT; k++)
        cur[k] = aug_tech_of(preset, (enum aug_tech_kind)k);
    for (int i = 0; i < n; i++) {
        const char *to_name = items[i];
        const char *sep = strchr(items[i], ':');
        if (sep)
            to_name = sep + 1;
        else if ((sep = strstr(items[i], "->")) != NULL)
            to_name = sep + 2;
        const struct aug_tech *to = aug_tech_find(to_name);
        if (!to)
            return aug_cli_usage("sweep", "--generations: unknown technology '%s' (augur sweep "
                                          "generations lists them)", to_name);
        if (sep) {
            snprintf(pairs[i], 64, "%s", items[i]);
        } else {
            if (!cur[to->kind])
                return aug_cli_usage("sweep", "--generations: cannot tell which %s %s is built "
                                              "from; write from:%s", kind_names[to->kind],
                                     preset->name, to->name);
            snprintf(pairs[i], 64, "%s:%s", cur[to->kind]->name, to->name);
        }
        cur[to->kind] = to;
    }
    return 0;
}

int aug_sweep_run_scaling(const struct aug_sweep_opts *o) {
    if (!o->have_gb)
        return aug_cli_usage("sweep", "--global-batch is required (the study sweeps training plans)");
    if (o->infer_only)
        return aug_cli_usage("sweep", "'augur sweep scaling' studies training; --batch, "
                                      "--input-len and the like belong to 'augur sweep infer'");
    if (o->plot)
        return aug_cli_usage("sweep", "--plot draws the front of 'augur sweep train' or 'infer'");
    int paths = (o->systems != NULL) + (o->generations != NULL) + (o->along || o->factors);
    if (paths > 1)
        return aug_cli_usage("sweep", "choose one path: --along/--factors, --systems or --generations");
    struct aug_model model;
    int st = aug_model_load(NULL, o->model, &model);
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);

    static struct aug_scaling_point pts[MAX_POINTS];
    memset(pts, 0, sizeof pts);
    int n = 0, rc;
    char buf[2048], *items[MAX_POINTS], path_text[512];
    struct aug_system preset, sys;
    struct aug_scale sc;
    if (o->systems) {
        int k = split(o->systems, buf, sizeof buf, items, MAX_POINTS);
        if (k <= 0)
            return aug_cli_usage("sweep", "--systems: give 1 to %d comma-separated systems", MAX_POINTS);
        for (int i = 0; i < k; i++, n++) {
            if ((rc = aug_sweep_cli_whatif(o->kdb, items[i], o->scale, o->generation, &pts[i].preset,
                                           &pts[i].scale, &sys)))
                return rc;
            snprintf(pts[i].label, sizeof pts[i].label, "%.90s", items[i]);
        }
        snprintf(path_text, sizeof path_text, "systems %s", o->systems);
    } else {
        if (!o->system)
            return aug_cli_usage("sweep", "--system is required");
        if ((rc = aug_sweep_cli_whatif(o->kdb, o->system, o->scale, o->generation, &preset, &sc, &sys)))
            return rc;
        if (o->generations) {
            int k = split(o->generations, buf, sizeof buf, items, MAX_POINTS - 1);
            if (k <= 0)
                return aug_cli_usage("sweep", "--generations: give 1 to %d comma-separated steps",
                                     MAX_POINTS - 1);
            static char pairs[MAX_POINTS][64];
            if ((rc = generation_path(&preset, items, k, pairs)))
                return rc;
            pts[0].preset = preset;
            pts[0].scale = sc;
            snprintf(pts[0].label, sizeof pts[0].label, "%.60s", preset.name);
            n = 1;
            for (int i = 0; i < k; i++, n++) {
                pts[n].preset = preset;
                pts[n].scale = pts[n - 1].scale;
                if (aug_scale_generation(&preset, pairs[i], &pts[n].scale) != AUG_OK)
                    return aug_cli_usage("sweep", "%s", aug_last_error());
                snprintf(pts[n].label, sizeof pts[n].label, "+%.60s", pairs[i]);
            }
            snprintf(path_text, sizeof path_text, "generations %s from %s", o->generations, preset.name);
        } else {
            const char *along = o->along ? o->along : "compute";
            const char *factors = o->factors ? o->factors : "1,2,4,8,16";
            char abuf[256], *res_items[AUG_RES_COUNT * 2];
            enum aug_resource res[AUG_RES_COUNT * 2];
            int nr = split(along, abuf, sizeof abuf, res_items, AUG_RES_COUNT * 2);
            int all = nr == 1 && strcmp(res_items[0], "all") == 0;
            if (nr <= 0)
                return aug_cli_usage("sweep", "--along: give resources such as compute,hbm_bw");
            for (int i = 0; i < nr && !all; i++)
                if (aug_resource_from_name(res_items[i], &res[i]) != AUG_OK)
                    return aug_cli_usage("sweep", "--along: %s", aug_last_error());
            int k = split(factors, buf, sizeof buf, items, MAX_POINTS);
            if (k <= 0)
                return aug_cli_usage("sweep", "--factors: give 1 to %d comma-separated factors", MAX_POINTS);
            for (int i = 0; i < k; i++, n++) {
                double fac;
                if (aug_parse_double(items[i], "--factors", &fac) != AUG_OK || !(fac > 0) || fac > 1e6)
                    return aug_cli_usage("sweep", "--factors: '%s' is not a factor in (0, 1e6]", items[i]);
                pts[i].preset = preset;
                pts[i].scale = sc;
                if (all) {
                    for (int r = 0; r < AUG_RES_COUNT; r++)
                        if (r != AUG_RES_HBM_CAP)
                            aug_scale_improve(&pts[i].scale, (enum aug_resource)r, fac);
                } else {
                    for (int r = 0; r < nr; r++)
                        aug_scale_improve(&pts[i].scale, res[r], fac);
                }
                snprintf(pts[i].label, sizeof pts[i].label, "%.60s x%.20s", along, items[i]);
            }
            snprintf(path_text, sizeof path_text, "%s x %s from %s", along, factors, preset.name);
        }
    }

    struct aug_scaling_study study;
    memset(&study, 0, sizeof study);
    study.sweep.model = &model;
    study.sweep.base = o->base;
    study.sweep.space = o->space;
    study.sweep.options.pure_roofline = o->roofline;
    study.sweep.top_k = 1;
    study.sweep.threads = o->threads;
    study.sweep.no_prune = o->no_prune;
    study.sweep.system = &pts[0].preset; /* for the checks below */
    study.kdb_root = o->kdb;
    study.kdb_enabled = !o->roofline;
    study.improve = o->improve > 1 ? o->improve : 2.0;
    if ((st = aug_sweep_check(&study.sweep)) != AUG_OK)
        return st == AUG_EUSAGE ? aug_cli_usage("sweep", "%s", aug_last_error()) : aug_cli_fail(st, NULL);
    if ((st = aug_scaling_run(&study, pts, n)) != AUG_OK)
        return aug_cli_fail(st, NULL);
    return emit(o, &model, &study, pts, n, path_text);
}
