/* SPDX-License-Identifier: Apache-2.0 */
/* validate.c - predict every row of an accuracy set and score it (DESIGN section 6).
 *
 * Rows name a model preset or give GPT-style dimensions (dimensions next to a preset
 * override it), a system preset or a system JSON path relative to the CSV, and the
 * plan. Empty cells mean "default". Two optional columns beyond the schema are read when
 * present: `attention` (fused|unfused) and `dp_overlap` (0|1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "augur/augur.h"
#include "augur/progress.h"
#include "validate_infer.h"
#include "validate_internal.h"
#include "core/suggest.h"
#include "model/layer_graph.h"

#define MAX_KDBS 8

struct kdb_cache {
    char gpu[MAX_KDBS][32];
    struct aug_kdb *kdb[MAX_KDBS];
    int n;
};

static const struct aug_kdb *cached_kdb(struct kdb_cache *c, const char *root, const char *gpu,
                                        int *st) {
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->gpu[i], gpu) == 0)
            return c->kdb[i];
    if (c->n == MAX_KDBS)
        return NULL;
    struct aug_kdb *k = NULL;
    /* an absent table is an empty kdb; one that cannot be read or parsed stops the run
     * (falling back silently would score the defaults under the curves' name) */
    if ((*st = aug_kdb_open_predict(root, gpu, &k)) != AUG_OK)
        return NULL;
    snprintf(c->gpu[c->n], sizeof c->gpu[c->n], "%s", gpu);
    c->kdb[c->n++] = k;
    return k;
}

static void close_cache(struct kdb_cache *c) {
    for (int i = 0; i < c->n; i++)
        aug_kdb_close(c->kdb[i]);
}

static int push_row(struct aug_validate_report *r, size_t *cap, const struct aug_validate_row *row) {
    if (r->n_rows == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct aug_validate_row *nr = realloc(r->rows, nc * sizeof *nr);
        if (!nr)
            return aug_errorf(AUG_ENOMEM, "out of memory");
        r->rows = nr;
        *cap = nc;
    }
    r->rows[r->n_rows++] = *row;
    return AUG_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* MAPE, mean signed error and max per group of rows (keys set when group_by was given). */
static int aggregate_groups(struct aug_validate_report *r) {
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct aug_validate_row *row = &r->rows[i];
        if (row->skipped || !row->group[0])
            continue;
        struct aug_validate_group *g = NULL;
        for (size_t k = 0; k < r->n_groups; k++)
            if (strcmp(r->groups[k].key, row->group) == 0)
                g = &r->groups[k];
        if (!g) {
            struct aug_validate_group *ng = realloc(r->groups, (r->n_groups + 1) * sizeof *ng);
            if (!ng)
                return aug_errorf(AUG_ENOMEM, "out of memory");
            r->groups = ng;
            g = &r->groups[r->n_groups++];
            memset(g, 0, sizeof *g);
            snprintf(g->key, sizeof g->key, "%s", row->group);
        }
        g->mape_pct += fabs(row->error_pct); /* sums for now */
        g->mean_error_pct += row->error_pct;
        g->max_abs_error_pct = fmax(g->max_abs_error_pct, fabs(row->error_pct));
        g->rows++;
    }
    for (size_t k = 0; k < r->n_groups; k++) {
        r->groups[k].mape_pct /= r->groups[k].rows;
        r->groups[k].mean_error_pct /= r->groups[k].rows;
    }
    return AUG_OK;
}

#define MAX_GROUP_COLS 8

/* The columns of opt->group_by in `t`: a named error for an unknown or empty name. */
static int group_columns(const struct aug_csv *t, const char *path, const char *spec, int *cols,
                         int *n) {
    *n = 0;
    if (!spec)
        return AUG_OK;
    const char *p = spec;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char name[64];
        if (len == 0 || len >= sizeof name)
            return aug_errorf(AUG_EUSAGE, "--group-by '%s': empty or overlong column name", spec);
        if (*n == MAX_GROUP_COLS)
            return aug_errorf(AUG_EUSAGE, "--group-by '%s': at most %d columns", spec,
                              MAX_GROUP_COLS);
        memcpy(name, p, len);
        name[len] = '\0';
        int c = aug_csv_col(t, name);
        if (c < 0)
            return aug_errorf(AUG_EUSAGE, "--group-by: %s has no column '%s'", path, name);
        cols[(*n)++] = c;
        if (!e)
            return AUG_OK;
        p = e + 1;
    }
}

/* The row's group key: its cells of the group-by columns, " / " between. */
static void group_key(const struct aug_csv *t, size_t i, const int *cols, int n, char *out,
                      size_t cap) {
    size_t at = 0;
    out[0] = '\0';
    for (int k = 0; k < n && at + 1 < cap; k++) {
        const char *v = aug_csv_cell(t, i, cols[k]);
        int w = snprintf(out + at, cap - at, "%s%s", k ? " / " : "", v && v[0] ? v : "(empty)");
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

int aug_validate_over_memory(const struct aug_validate_row *row) {
    return !row->skipped && row->memory_capacity_gib > 0 &&
           row->memory_gib > row->memory_capacity_gib;
}

/* Aggregate errors overall and per source. */
static int aggregate(struct aug_validate_report *r) {
    double *abs_err = malloc((r->n_rows + 1) * sizeof *abs_err);
    if (!abs_err)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    size_t n = 0;
    double sum = 0, mx = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct aug_validate_row *row = &r->rows[i];
        if (row->skipped)
            continue;
        double e = fabs(row->error_pct);
        abs_err[n++] = e;
        sum += e;
        mx = fmax(mx, e);
        struct aug_validate_source *src = NULL;
        for (size_t k = 0; k < r->n_sources; k++)
            if (strcmp(r->sources[k].source, row->source) == 0)
                src = &r->sources[k];
        if (!src) {
            struct aug_validate_source *ns =
                realloc(r->sources, (r->n_sources + 1) * sizeof *ns);
            if (!ns) {
                free(abs_err);
                return aug_errorf(AUG_ENOMEM, "out of memory");
            }
            r->sources = ns;
            src = &r->sources[r->n_sources++];
            memset(src, 0, sizeof *src);
            snprintf(src->source, sizeof src->source, "%s", row->source);
        }
        src->mape_pct += e; /* sum for now */
        src->max_abs_error_pct = fmax(src->max_abs_error_pct, e);
        src->rows++;
        r->over_memory_rows += (size_t)aug_validate_over_memory(row);
    }
    for (size_t k = 0; k < r->n_sources; k++)
        r->sources[k].mape_pct /= r->sources[k].rows;
    if (aggregate_groups(r) != AUG_OK) {
        free(abs_err);
        return AUG_ENOMEM;
    }
    r->predicted_rows = n;
    r->mape_pct = n ? sum / (double)n : 0.0;
    r->max_abs_error_pct = mx;
    if (n) {
        qsort(abs_err, n, sizeof *abs_err, cmp_double);
        r->median_abs_error_pct = n % 2 ? abs_err[n / 2] : 0.5 * (abs_err[n / 2 - 1] + abs_err[n / 2]);
    }
    free(abs_err);
    return AUG_OK;
}

/* Score one prepared case; with check_only resolve its plan and stop there. With ex, the
 * case as predicted (the plan resolved, the framework applied) is described there. */
static int score(struct aug_validate_row *row, const struct aug_validate_case *vc,
                 struct kdb_cache *cache, const struct aug_validate_options *opt,
                 int check_only, struct aug_validate_explained *ex) {
    int kst = AUG_OK;
    if (check_only) {
        struct aug_plan plan = vc->plan;
        int st = aug_plan_resolve(&plan, &vc->model, &vc->system);
        if (st == AUG_OK && vc->framework != AUG_FW_NONE) {
            aug_framework_apply(vc->framework, &plan, vc->fw_set, NULL, 0);
            st = aug_plan_resolve(&plan, &vc->model, &vc->system);
        }
        if (st != AUG_OK) {
            row->skipped = 1;
            snprintf(row->reason, sizeof row->reason, "%s", aug_last_error());
        }
        return AUG_OK;
    }
    const struct aug_kdb *kdb = opt && opt->fallback_only
                                    ? NULL
                                    : cached_kdb(cache, opt ? opt->kdb_root : NULL,
                                                 vc->system.gpu.id, &kst);
    if (kst != AUG_OK)
        return kst;
    struct aug_train_options to = {kdb, 0, opt ? opt->host : NULL,
                                    opt ? opt->zero3_serial_rate : 0.0};
    struct aug_train_result res;
    struct aug_plan plan = vc->plan;
    int st = aug_plan_resolve(&plan, &vc->model, &vc->system);
    /* the run's framework fills what the row leaves open (it needs the resolved dp) */
    if (st == AUG_OK && vc->framework != AUG_FW_NONE) {
        aug_framework_apply(vc->framework, &plan, vc->fw_set, NULL, 0);
        st = aug_plan_resolve(&plan, &vc->model, &vc->system);
    }
    if (ex) {
        ex->kind = AUG_VCASE_TRAIN;
        ex->model = vc->model;
        ex->system = vc->system;
        ex->plan = plan;
        ex->framework = vc->framework;
    }
    if (st == AUG_OK)
        st = aug_train_predict(&vc->model, &vc->system, &plan, &to, &res);
    if (st == AUG_OK && ex)
        ex->train_result = res;
    if (st != AUG_OK) {
        row->skipped = 1;
        snprintf(row->reason, sizeof row->reason, "%s", aug_last_error());
        return AUG_OK;
    }
    double v = NAN;
    switch (vc->metric) {
    case AUG_METRIC_STEP_TIME: v = res.step_time_s; break;
    case AUG_METRIC_TOKENS: v = res.tokens_per_s; break;
    case AUG_METRIC_TOKENS_PER_GPU: v = res.tokens_per_s / (double)plan.gpus; break;
    case AUG_METRIC_MFU: {
        /* published MFUs count full s^2 attention (model_flops.c): compare in their terms */
        double causal = aug_model_fwd_flops_processed(&vc->model, &plan, (double)plan.seq);
        double full = aug_model_fwd_flops_full_attention(&vc->model, &plan, (double)plan.seq);
        v = causal > 0 ? res.mfu * full / causal : NAN;
        break;
    }
    case AUG_METRIC_MEMORY: v = res.memory.total_gib; break;
    default: break;
    }
    if (!isfinite(v)) { /* never scored: a NaN row would turn the MAPE into NaN */
        row->skipped = 1;
        snprintf(row->reason, sizeof row->reason, "the prediction is not a finite number");
        return AUG_OK;
    }
    row->predicted = v;
    row->provenance_calibrated = res.provenance.calibrated;
    row->memory_gib = res.memory.total_gib;
    row->memory_capacity_gib = res.memory_capacity_gib;
    row->error_pct = (v - row->measured) / row->measured * 100.0;
    return AUG_OK;
}

/* Every row of path (or, with explain_id, only the row of that id, described in ex). */
static int validate_file(const char *path, enum aug_validate_input kind,
                         const struct aug_validate_options *opt, int check_only,
                         const char *explain_id, struct aug_validate_explained *ex,
                         struct aug_validate_report **out) {
    struct aug_csv *t = NULL;
    int st = aug_csv_load_nocomments(path, &t);
    if (st != AUG_OK)
        return st;
    if (kind == AUG_VALIDATE_AUTO)
        kind = aug_csv_col(t, "iteration time (ms)") >= 0 ? AUG_VALIDATE_VTRAIN
               : aug_csv_col(t, "input_len") >= 0         ? AUG_VALIDATE_INFERENCE
                                                          : AUG_VALIDATE_ACCURACY;
    if (kind == AUG_VALIDATE_ACCURACY || kind == AUG_VALIDATE_INFERENCE) {
        /* accuracy sets may carry '#' comment lines: reload with comments stripped */
        aug_csv_free(t);
        if ((st = aug_csv_load(path, &t)) != AUG_OK)
            return st;
    }
    struct aug_validate_report *r = calloc(1, sizeof *r);
    if (!r) {
        aug_csv_free(t);
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    struct kdb_cache cache = {0};
    size_t cap = 0;
    struct aug_validate_reader rd;
    st = kind == AUG_VALIDATE_VTRAIN      ? aug_validate_vtrain_open(t, opt ? opt->kdb_root : NULL, &rd)
         : kind == AUG_VALIDATE_INFERENCE ? aug_validate_infer_open(t, path, opt, &rd)
                                          : aug_validate_accuracy_open(t, path, opt ? opt->kdb_root : NULL,
                                                                       &rd);
    rd.check_only = check_only;
    int gcols[MAX_GROUP_COLS], ngcols = 0;
    if (st == AUG_OK)
        st = group_columns(t, path, opt ? opt->group_by : NULL, gcols, &ngcols);
    struct aug_suggest near;
    aug_suggest_init(&near, explain_id ? explain_id : "");
    int explained = 0;
    for (size_t i = 0; st == AUG_OK && !explained && i < aug_csv_rows(t); i++) {
        if (explain_id) { /* only the row asked for is read and predicted */
            char rid[96];
            if (kind == AUG_VALIDATE_VTRAIN)
                aug_validate_vtrain_id(aug_csv_line(t, i), rid, sizeof rid);
            else
                snprintf(rid, sizeof rid, "%s", aug_vrow_cell(t, i, "id"));
            if (strcmp(rid, explain_id) != 0) {
                aug_suggest_add(&near, rid);
                continue;
            }
            rd.explain = ex;
            explained = 1;
        }
        struct aug_validate_row row;
        struct aug_validate_case vc;
        memset(&vc, 0, sizeof vc);
        memset(&row, 0, sizeof row);
        row.line = aug_csv_line(t, i);
        int rs = rd.read(&rd, i, &row, &vc);
        if (rs == AUG_EUNSUPPORTED) {
            row.skipped = 1;
            snprintf(row.reason, sizeof row.reason, "%s", aug_last_error());
        } else if (rs != AUG_OK) {
            st = rs;
            break;
        } else if (kind != AUG_VALIDATE_INFERENCE) { /* the inference reader scores its rows */
            if ((st = score(&row, &vc, &cache, opt, check_only, rd.explain)) != AUG_OK)
                break;
        }
        if (rd.explain)
            rd.explain->row = row;
        if (ngcols > 0)
            group_key(t, i, gcols, ngcols, row.group, sizeof row.group);
        st = push_row(r, &cap, &row);
        aug_progress("validate: rows", (long)i + 1, (long)aug_csv_rows(t));
    }
    if (rd.close)
        rd.close(&rd);
    close_cache(&cache);
    aug_csv_free(t);
    if (st == AUG_OK && explain_id && !explained) {
        char hint[256];
        st = aug_errorf(AUG_ENOTFOUND, "%s: no row with id '%s'%s", path, explain_id,
                        aug_suggest_format(&near, hint, sizeof hint));
    }
    if (st == AUG_OK && !check_only)
        st = aggregate(r);
    if (st != AUG_OK) {
        aug_validate_report_free(r);
        return st;
    }
    *out = r;
    return AUG_OK;
}

int aug_validate_file(const char *path, enum aug_validate_input kind,
                      const struct aug_validate_options *opt, struct aug_validate_report **out) {
    return validate_file(path, kind, opt, 0, NULL, NULL, out);
}

int aug_validate_file_check(const char *path, enum aug_validate_input kind,
                            const struct aug_validate_options *opt,
                            struct aug_validate_report **out) {
    return validate_file(path, kind, opt, 1, NULL, NULL, out);
}

void aug_validate_report_free(struct aug_validate_report *r) {
    if (!r)
        return;
    free(r->rows);
    free(r->sources);
    free(r->groups);
    free(r);
}

int aug_validate_explain(const char *path, enum aug_validate_input kind,
                         const struct aug_validate_options *opt, const char *id,
                         struct aug_validate_explained *out) {
    memset(out, 0, sizeof *out);
    if (!id || !id[0])
        return aug_errorf(AUG_EUSAGE, "an empty row id cannot be explained");
    struct aug_validate_report *r = NULL;
    int st = validate_file(path, kind, opt, 0, id, out, &r);
    aug_validate_report_free(r);
    return st;
}
