/* SPDX-License-Identifier: Apache-2.0 */
/* kdb.c - the kernels database of one GPU: loading <root>/<gpu>/curves.csv and the four
 * lookups the predictor calls for every op.
 *
 * Loading validates every row (known family and form, parameter count, ranks, link) and
 * precomputes what the lookups need (form pointer, collective enum, link, attention
 * direction and mask, element size) so a lookup is a short scan over small integer arrays:
 * no allocation, no formatting, no parsing. Lookup policy (kernels-db/README.md):
 * - dtype: the exact dtype first, then its peer with the same tensor-core rate
 *   (fp16 <-> bf16); memory-bound ops then take any dtype (their time depends on bytes);
 * - pieces: the row whose [x_min, x_max] holds the size; in a gap between rows the row
 *   above (held at its t(x_min)); beyond the last row the last row (linear
 *   extrapolation); below the first row the first row (held at t(x_min), see curve.h);
 * - collectives: exact collective, group size and link; any dtype (the first found);
 * - a missing op, dtype, group size or link misses (returns 0): the caller decides the
 *   fallback. */
#include "augur/kdb.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "augur/csvio.h"
#include "augur/curve.h"
#include "augur/data.h"
#include "augur/status.h"
#include "hw/kdb_build.h"

static const char *const family_names[AUG_FAMILY_COUNT] = {"gemm", "attention", "memory",
                                                          "collective"};
_Static_assert(sizeof family_names / sizeof family_names[0] == AUG_FAMILY_COUNT,
               "family_names out of sync with enum aug_family");

const char *aug_family_name(enum aug_family f)
{
    if ((int)f < 0 || f >= AUG_FAMILY_COUNT)
        return "?";
    return family_names[f];
}

int aug_family_from_name(const char *name, enum aug_family *out)
{
    for (int i = 0; name && i < AUG_FAMILY_COUNT; i++) {
        if (strcmp(family_names[i], name) == 0) {
            *out = (enum aug_family)i;
            return AUG_OK;
        }
    }
    return AUG_ENOTFOUND;
}

/* What a lookup needs about one curve, computed at load time. */
struct kdb_entry {
    const struct aug_curve_form *form;
    int coll;      /* enum aug_coll, -1 when not a collective */
    int link;      /* 0 nvlink, 1 network, -1 none */
    struct aug_attn_kind attn; /* attention: the kernel kind the op names */
    double elt_bytes;
};

struct aug_kdb {
    char gpu[64];
    char origin[192]; /* "" for the GPU's own table; else where its curves came from */
    int n;
    struct aug_curve *curves;
    struct kdb_entry *entry;
    int n_fam[AUG_FAMILY_COUNT];
    int *fam[AUG_FAMILY_COUNT]; /* curve indices per family, in file order */
    unsigned char has_coll[AUG_COLL_COUNT][2]; /* any curve for collective x link */
};

const char *aug_kdb_gpu(const struct aug_kdb *kdb)
{
    return kdb ? kdb->gpu : "";
}

int aug_kdb_curve_count(const struct aug_kdb *kdb)
{
    return kdb ? kdb->n : 0;
}

const struct aug_curve *aug_kdb_curve_at(const struct aug_kdb *kdb, int i)
{
    if (!kdb || i < 0 || i >= kdb->n)
        return NULL;
    return &kdb->curves[i];
}

const char *aug_kdb_origin(const struct aug_kdb *kdb)
{
    return kdb ? kdb->origin : "";
}

void aug_kdb_close(struct aug_kdb *kdb)
{
    if (!kdb)
        return;
    for (int f = 0; f < AUG_FAMILY_COUNT; f++)
        free(kdb->fam[f]);
    free(kdb->curves);
    free(kdb->entry);
    free(kdb);
}

static int copy_cell(const struct aug_csv *t, size_t r, const char *col, char *dst, size_t cap,
                     int required)
{
    const char *s = aug_csv_cell(t, r, aug_csv_col(t, col));
    if (required && !*s)
        return aug_csv_cell_error(t, r, col, "missing value");
    if (strlen(s) >= cap)
        return aug_csv_cell_error(t, r, col, "longer than %zu characters", cap - 1);
    memcpy(dst, s, strlen(s) + 1);
    return AUG_OK;
}

/* Physical bounds of one row (kernels-db/README.md, "Validation on load"). Sizes and times
 * beyond these are unit slips or broken fits, not GPUs:
 * - x_max <= 1e18 (an exabyte, or 1e18 FLOPs: 20 minutes of a B200 in one kernel);
 * - linear: latency p0 in [0, 1e6] us, p1 >= 0 and, when > 0, an implied bandwidth
 *   1 / p1 <= 1e15 B/s (1 PB/s: 100x any HBM or L2 of today);
 * - every time form non-decreasing over its piece: t(x_min) <= t(x_max);
 * - gemm_roof / gemm_time: non-negative coefficients, SMs and tile >= 1, a positive peak,
 *   and compute coefficients that never imply more than that peak;
 * - efficiency forms: e_max in (0, 1.5] (a fitted ceiling a little above 1 is clamped at
 *   lookup), steepness > 0. */
static int check_bounds(const struct aug_csv *t, size_t r, const struct aug_curve *c,
                        const struct aug_curve_form *f)
{
    if (c->x_max > 1e18)
        return aug_csv_cell_error(t, r, "x_max", "%g is beyond any real kernel (max 1e18)",
                                  c->x_max);
    for (int i = 0; i < c->n_params; i++) {
        char col[16];
        snprintf(col, sizeof col, "p%d", i);
        if (!isfinite(c->p[i]))
            return aug_csv_cell_error(t, r, col, "not a finite number");
    }
    if (strcmp(f->name, "linear") == 0) {
        if (c->p[0] < 0 || c->p[0] > 1e6)
            return aug_csv_cell_error(t, r, "p0", "latency %g us is outside [0, 1e6]", c->p[0]);
        if (c->p[1] < 0)
            return aug_csv_cell_error(t, r, "p1", "%g us per byte is negative: time would fall "
                                      "with size", c->p[1]);
        if (c->p[1] > 0 && 1e6 / c->p[1] > 1e15)
            return aug_csv_cell_error(t, r, "p1", "%g us per byte implies %g B/s, above any "
                                      "memory or link (max 1e15)", c->p[1], 1e6 / c->p[1]);
    }
    if (strcmp(f->name, "gemm_roof") == 0 || strcmp(f->name, "gemm_time") == 0) {
        int roof = f->name[5] == 'r';
        int n_fit = f->n_fit;
        for (int i = 0; i < n_fit; i++) {
            char col[16];
            snprintf(col, sizeof col, "p%d", i);
            if (c->p[i] < 0)
                return aug_csv_cell_error(t, r, col, "%g is negative", c->p[i]);
        }
        double sms = roof ? c->p[5] : c->p[3], tile = roof ? c->p[6] : c->p[4];
        double peak = c->p[c->n_params - 1];
        if (!(sms >= 1) || !(tile >= 1))
            return aug_csv_cell_error(t, r, roof ? "p5" : "p3", "SM count and tile must be "
                                      ">= 1");
        if (!(peak > 0) || peak > 1e6)
            return aug_csv_cell_error(t, r, roof ? "p7" : "p6", "peak %g TFLOP/s is outside "
                                      "(0, 1e6]", peak);
        /* us per FLOP at full waves: never below 1 / peak */
        double us_per_flop = roof ? c->p[1] + c->p[2] : c->p[1];
        if (us_per_flop < 1e-6 / peak * (1 - 1e-9))
            return aug_csv_cell_error(t, r, "p1", "compute terms imply %g TFLOP/s, above the "
                                      "peak %g", us_per_flop > 0 ? 1e-6 / us_per_flop : INFINITY,
                                      peak);
    }
    if (strcmp(f->name, "gemm_tile") == 0) {
        if (!(c->p[0] >= 0) || c->p[0] > 1e4)
            return aug_csv_cell_error(t, r, "p0", "overhead %g us is outside [0, 1e4]", c->p[0]);
        if (!(c->p[7] > 0) || c->p[7] > 1e6)
            return aug_csv_cell_error(t, r, "p7", "peak %g TFLOP/s is outside (0, 1e6]",
                                      c->p[7]);
        if (!(c->p[1] > 0) || c->p[1] > c->p[7] * (1 + 1e-9))
            return aug_csv_cell_error(t, r, "p1", "rate %g TFLOP/s is outside (0, peak %g]",
                                      c->p[1], c->p[7]);
        if (!(c->p[2] >= 1) || c->p[2] > 1e5)
            return aug_csv_cell_error(t, r, "p2", "HBM bandwidth %g GB/s is outside [1, 1e5]",
                                      c->p[2]);
        if (!(c->p[3] >= 1) || !(c->p[4] >= 0) || !(c->p[5] >= 1))
            return aug_csv_cell_error(t, r, "p3", "SMs, L2 size and L2 bandwidth must be "
                                      "positive");
        if (!(c->p[6] >= 0 && c->p[6] <= 6 && c->p[6] == floor(c->p[6])))
            return aug_csv_cell_error(t, r, "p6", "kernel family %g is not 0 (tensor cores), "
                                      "1 (SIMT), 2 (tensor cores with stream-K), 3 (SIMT, "
                                      "sm_70/75 batched tiles), 4 (SIMT, sm_80+ batched "
                                      "tiles), 5 (stream-K, one CTA per SM: sm_90) or 6 "
                                      "(sm_90 tiles sized to the shape: cuBLAS 13)",
                                      c->p[6]);
    }
    if (f->output == AUG_CURVE_EFF) {
        if (!(c->p[0] > 0) || c->p[0] > 1.5)
            return aug_csv_cell_error(t, r, "p0", "efficiency ceiling %g is outside (0, 1.5]",
                                      c->p[0]);
        if (!(c->p[2] > 0))
            return aug_csv_cell_error(t, r, "p2", "steepness %g must be positive", c->p[2]);
    }
    if (f->output == AUG_CURVE_TIME && f->eval && c->family != AUG_FAMILY_GEMM) {
        struct aug_curve_point lo = aug_curve_size_point(c->x_min);
        struct aug_curve_point hi = aug_curve_size_point(c->x_max);
        double tlo = f->eval(c->p, &lo), thi = f->eval(c->p, &hi);
        if (!(thi >= tlo * (1 - 1e-9)))
            return aug_csv_cell_error(t, r, "x_max", "time falls from %g us at x_min to %g us "
                                      "at x_max: not monotone", tlo, thi);
    }
    return AUG_OK;
}

static int parse_row(const struct aug_csv *t, size_t r, struct aug_curve *c, struct kdb_entry *e)
{
    char buf[32];
    int rc;
    memset(c, 0, sizeof *c);
    memset(e, 0, sizeof *e);
    e->coll = -1;
    e->link = -1;
    if ((rc = copy_cell(t, r, "family", buf, sizeof buf, 1)) != AUG_OK)
        return rc;
    if (aug_family_from_name(buf, &c->family) != AUG_OK)
        return aug_csv_cell_error(t, r, "family", "unknown family '%s'", buf);
    if ((rc = copy_cell(t, r, "op", c->op, sizeof c->op, 1)) != AUG_OK)
        return rc;
    if ((rc = copy_cell(t, r, "dtype", buf, sizeof buf, 1)) != AUG_OK)
        return rc;
    if (aug_dtype_from_name(buf, &c->dtype) != AUG_OK)
        return aug_csv_cell_error(t, r, "dtype", "unknown dtype '%s'", buf);
    e->elt_bytes = aug_dtype_bytes(c->dtype);
    long ranks = 0;
    rc = aug_csv_get_long(t, r, "ranks", AUG_CSV_NONNEG, &ranks);
    if (rc != AUG_OK && rc != AUG_ENOTFOUND)
        return rc;
    c->ranks = (int)ranks;
    if ((rc = copy_cell(t, r, "link", c->link, sizeof c->link, 0)) != AUG_OK)
        return rc;
    if ((rc = copy_cell(t, r, "form", c->form, sizeof c->form, 1)) != AUG_OK)
        return rc;
    e->form = aug_curve_form_find(c->form);
    if (!e->form)
        return aug_csv_cell_error(t, r, "form", "unknown curve form '%s'", c->form);
    int fam_ok = e->form->family == c->family ||
                 (e->form->family == AUG_FAMILY_MEMORY && c->family == AUG_FAMILY_COLLECTIVE);
    if (!fam_ok)
        return aug_csv_cell_error(t, r, "form", "form '%s' does not apply to family '%s'",
                                  c->form, aug_family_name(c->family));
    c->n_params = e->form->n_params;
    for (int i = 0; i < AUG_CURVE_MAX_PARAMS; i++) {
        char col[8];
        snprintf(col, sizeof col, "p%d", i);
        if (i < c->n_params) {
            if ((rc = aug_csv_get_double(t, r, col, AUG_CSV_REQUIRED, &c->p[i])) != AUG_OK)
                return rc;
        } else if (*aug_csv_cell(t, r, aug_csv_col(t, col))) {
            return aug_csv_cell_error(t, r, col, "form '%s' has only %d parameters", c->form,
                                      c->n_params);
        }
    }
    if ((rc = aug_csv_get_double(t, r, "x_min", AUG_CSV_REQUIRED | AUG_CSV_NONNEG, &c->x_min)))
        return rc;
    if ((rc = aug_csv_get_double(t, r, "x_max", AUG_CSV_REQUIRED | AUG_CSV_NONNEG, &c->x_max)))
        return rc;
    if (c->x_max < c->x_min)
        return aug_csv_cell_error(t, r, "x_max", "below x_min");
    long np = 0;
    rc = aug_csv_get_long(t, r, "n_points", AUG_CSV_NONNEG, &np);
    if (rc != AUG_OK && rc != AUG_ENOTFOUND)
        return rc;
    c->n_points = (int)np;
    c->rel_rmse = c->max_rel_err = c->cv_rel_err = -1;
    rc = aug_csv_get_double(t, r, "rel_rmse", AUG_CSV_NONNEG, &c->rel_rmse);
    if (rc == AUG_OK || rc == AUG_ENOTFOUND)
        rc = aug_csv_get_double(t, r, "max_rel_err", AUG_CSV_NONNEG, &c->max_rel_err);
    if (rc == AUG_OK || rc == AUG_ENOTFOUND)
        rc = aug_csv_get_double(t, r, "cv_rel_err", AUG_CSV_NONNEG, &c->cv_rel_err);
    if (rc != AUG_OK && rc != AUG_ENOTFOUND)
        return rc;
    const char *src = aug_csv_cell(t, r, aug_csv_col(t, "source"));
    snprintf(c->source, sizeof c->source, "%s", src);

    if ((rc = check_bounds(t, r, c, e->form)) != AUG_OK)
        return rc;
    if (c->family == AUG_FAMILY_COLLECTIVE) {
        enum aug_coll coll;
        if (aug_coll_from_name(c->op, &coll) != AUG_OK)
            return aug_csv_cell_error(t, r, "op", "unknown collective '%s'", c->op);
        e->coll = (int)coll;
        if (strcmp(c->link, "nvlink") == 0)
            e->link = 0;
        else if (strcmp(c->link, "network") == 0)
            e->link = 1;
        else
            return aug_csv_cell_error(t, r, "link", "'%s' is not nvlink or network", c->link);
        if (c->ranks < 1)
            return aug_csv_cell_error(t, r, "ranks", "a collective needs ranks >= 1");
    }
    if (c->family == AUG_FAMILY_ATTENTION)
        aug_attn_kind_of(c->op, &e->attn);
    return AUG_OK;
}

/* Pieces of one time curve (same family, op, dtype, ranks, link): the next piece may start
 * a little below where the previous one ends (NCCL switching protocol or algorithm at a
 * size does that), but not below a quarter of it: such a table is broken. */
static int check_pieces(const struct aug_csv *t, const struct aug_kdb *k)
{
    for (int i = 0; i < k->n; i++) {
        const struct aug_curve *c = &k->curves[i];
        const struct aug_curve_form *f = k->entry[i].form;
        if (f->output != AUG_CURVE_TIME || c->family == AUG_FAMILY_GEMM)
            continue;
        int prev = -1;
        for (int j = 0; j < k->n; j++) {
            const struct aug_curve *q = &k->curves[j];
            if (j == i || q->family != c->family || q->dtype != c->dtype ||
                q->ranks != c->ranks || strcmp(q->op, c->op) || strcmp(q->link, c->link) ||
                k->entry[j].form->output != AUG_CURVE_TIME || q->x_max > c->x_min)
                continue;
            if (prev < 0 || q->x_max > k->curves[prev].x_max)
                prev = j;
        }
        if (prev < 0)
            continue;
        const struct aug_curve *q = &k->curves[prev];
        struct aug_curve_point a = aug_curve_size_point(q->x_max);
        struct aug_curve_point b = aug_curve_size_point(c->x_min);
        double ta = k->entry[prev].form->eval(q->p, &a), tb = f->eval(c->p, &b);
        if (tb < 0.25 * ta)
            return aug_csv_cell_error(t, (size_t)i, "x_min", "time drops from %g us (end of "
                                      "the piece on line %ld) to %g us: not monotone", ta,
                                      aug_csv_line(t, (size_t)prev), tb);
    }
    return AUG_OK;
}

int aug_kdb_open(const char *root, const char *gpu_id, struct aug_kdb **out)
{
    *out = NULL;
    if (!gpu_id || !*gpu_id || strchr(gpu_id, '/'))
        return aug_errorf(AUG_EUSAGE, "kdb: bad GPU id '%s'", gpu_id ? gpu_id : "");
    if (!root)
        root = aug_kdb_dir();
    struct aug_kdb *k = calloc(1, sizeof *k);
    if (!k)
        return aug_errorf(AUG_ENOMEM, "kdb: out of memory");
    snprintf(k->gpu, sizeof k->gpu, "%s", gpu_id);
    size_t plen = strlen(root) + strlen(gpu_id) + 32;
    char *path = malloc(plen);
    if (!path) {
        free(k);
        return aug_errorf(AUG_ENOMEM, "kdb: out of memory");
    }
    snprintf(path, plen, "%s/%s/curves.csv", root, gpu_id);
    FILE *probe = fopen(path, "r");
    struct stat lst;
    /* unreadable (permissions, a dangling link, I/O) is not absent: never fall back silently */
    if (!probe && (errno != ENOENT || lstat(path, &lst) == 0)) {
        int rc = aug_errorf(AUG_EIO, "cannot read '%s': %s", path, strerror(errno));
        free(path);
        free(k);
        return rc;
    }
    if (!probe) { /* no curves for this GPU: a valid, empty kdb */
        free(path);
        *out = k;
        return AUG_OK;
    }
    fclose(probe);
    struct aug_csv *t = NULL;
    int rc = aug_csv_load(path, &t);
    free(path);
    if (rc != AUG_OK) {
        free(k);
        return rc;
    }
    static const char *const need[] = {"family", "op", "dtype", "form", "x_min", "x_max"};
    if ((rc = aug_csv_need_cols(t, need, sizeof need / sizeof need[0], "")) != AUG_OK)
        goto fail;
    size_t rows = aug_csv_rows(t);
    k->curves = calloc(rows ? rows : 1, sizeof *k->curves);
    k->entry = calloc(rows ? rows : 1, sizeof *k->entry);
    for (int f = 0; f < AUG_FAMILY_COUNT; f++)
        k->fam[f] = calloc(rows ? rows : 1, sizeof(int));
    if (!k->curves || !k->entry || !k->fam[0] || !k->fam[1] || !k->fam[2] || !k->fam[3]) {
        rc = aug_errorf(AUG_ENOMEM, "kdb: out of memory");
        goto fail;
    }
    for (size_t r = 0; r < rows; r++) {
        if ((rc = parse_row(t, r, &k->curves[r], &k->entry[r])) != AUG_OK)
            goto fail;
        enum aug_family f = k->curves[r].family;
        k->fam[f][k->n_fam[f]++] = (int)r;
        if (f == AUG_FAMILY_COLLECTIVE && k->entry[r].coll >= 0 && k->entry[r].link >= 0)
            k->has_coll[k->entry[r].coll][k->entry[r].link] = 1;
        k->n++;
    }
    if ((rc = check_pieces(t, k)) != AUG_OK)
        goto fail;
    aug_csv_free(t);
    *out = k;
    return AUG_OK;
fail:
    aug_csv_free(t);
    aug_kdb_close(k);
    return rc;
}

/* ---- a kdb built in memory (kdb_transfer.c) ---- */

int aug_kdb_new(const char *gpu_id, const char *origin, struct aug_kdb **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return aug_errorf(AUG_ENOMEM, "kdb: out of memory");
    snprintf((*out)->gpu, sizeof (*out)->gpu, "%s", gpu_id ? gpu_id : "");
    snprintf((*out)->origin, sizeof (*out)->origin, "%s", origin ? origin : "");
    return AUG_OK;
}

int aug_kdb_add_curve(struct aug_kdb *k, const struct aug_curve *c)
{
    const struct aug_curve_form *form = aug_curve_form_find(c->form);
    if (!form || form->family != c->family || c->family == AUG_FAMILY_COLLECTIVE ||
        c->n_params != form->n_params)
        return aug_errorf(AUG_EUSAGE, "kdb: curve '%s' (form '%s') cannot be added", c->op,
                          c->form);
    size_t n = (size_t)k->n + 1;
    struct aug_curve *nc = realloc(k->curves, n * sizeof *nc);
    if (!nc)
        return aug_errorf(AUG_ENOMEM, "kdb: out of memory");
    k->curves = nc;
    struct kdb_entry *ne = realloc(k->entry, n * sizeof *ne);
    if (!ne)
        return aug_errorf(AUG_ENOMEM, "kdb: out of memory");
    k->entry = ne;
    int *nf = realloc(k->fam[c->family], ((size_t)k->n_fam[c->family] + 1) * sizeof *nf);
    if (!nf)
        return aug_errorf(AUG_ENOMEM, "kdb: out of memory");
    k->fam[c->family] = nf;
    struct kdb_entry *e = &k->entry[k->n];
    memset(e, 0, sizeof *e);
    e->form = form;
    e->coll = -1;
    e->link = -1;
    e->elt_bytes = aug_dtype_bytes(c->dtype);
    if (c->family == AUG_FAMILY_ATTENTION)
        aug_attn_kind_of(c->op, &e->attn);
    k->curves[k->n] = *c;
    k->fam[c->family][k->n_fam[c->family]++] = k->n;
    k->n++;
    return AUG_OK;
}

/* ---- lookups ---- */

/* 0 exact dtype, 1 tensor-core peer (fp16 <-> bf16), 2 any other. */
static int dtype_level(enum aug_dtype have, enum aug_dtype want)
{
    if (have == want)
        return 0;
    if ((have == AUG_DTYPE_FP16 && want == AUG_DTYPE_BF16) ||
        (have == AUG_DTYPE_BF16 && want == AUG_DTYPE_FP16))
        return 1;
    return 2;
}

/* Among the candidate pieces (indices into kdb->curves), the one covering x. */
struct piece_pick {
    int inside, highest, next_above;
};

static void pick_reset(struct piece_pick *p)
{
    p->inside = p->highest = p->next_above = -1;
}

static void pick_add(struct piece_pick *p, const struct aug_kdb *kdb, int i, double x)
{
    const struct aug_curve *c = &kdb->curves[i];
    if (p->inside < 0 && x >= c->x_min && x <= c->x_max)
        p->inside = i;
    if (p->highest < 0 || c->x_max > kdb->curves[p->highest].x_max)
        p->highest = i;
    if (c->x_min > x && (p->next_above < 0 || c->x_min < kdb->curves[p->next_above].x_min))
        p->next_above = i;
}

static int pick_result(const struct piece_pick *p, const struct aug_kdb *kdb, double x)
{
    if (p->inside >= 0)
        return p->inside;
    if (p->highest >= 0 && x > kdb->curves[p->highest].x_max)
        return p->highest;
    return p->next_above;
}

/* First curve of `fam` matching op (NULL: any), a backward/causal filter for attention,
 * and dtype at the best level <= max_level; returns the chosen piece for x. */
static int find_curve(const struct aug_kdb *kdb, enum aug_family fam, const char *op,
                      int attn_bwd, int attn_causal, enum aug_dtype dt, int max_level,
                      double x)
{
    for (int level = 0; level <= max_level; level++) {
        struct piece_pick pk;
        pick_reset(&pk);
        int first = -1;
        for (int j = 0; j < kdb->n_fam[fam]; j++) {
            int i = kdb->fam[fam][j];
            const struct aug_curve *c = &kdb->curves[i];
            if (dtype_level(c->dtype, dt) != level)
                continue;
            if (op && strcmp(c->op, op) != 0)
                continue;
            if (fam == AUG_FAMILY_ATTENTION && (kdb->entry[i].attn.backward != attn_bwd ||
                                                kdb->entry[i].attn.causal != attn_causal))
                continue;
            if (first < 0)
                first = i;
            /* pieces of one curve share op and dtype with the first match */
            if (c->dtype != kdb->curves[first].dtype || strcmp(c->op, kdb->curves[first].op))
                continue;
            pick_add(&pk, kdb, i, x);
        }
        if (first >= 0)
            return pick_result(&pk, kdb, x);
    }
    return -1;
}

const char *aug_gemm_curve_op(const char *op)
{
    return op && strcmp(op, AUG_GEMM_SPLIT_ACC_OP) == 0 ? AUG_GEMM_SPLIT_ACC_OP : AUG_GEMM_OP;
}

int aug_kdb_gemm_eff(const struct aug_kdb *kdb, enum aug_dtype dt, double m, double n, double k,
                     double *eff)
{
    return aug_kdb_gemm_op_eff(kdb, AUG_GEMM_OP, dt, m, n, k, eff);
}

int aug_kdb_gemm_op_eff(const struct aug_kdb *kdb, const char *op, enum aug_dtype dt, double m,
                        double n, double k, double *eff)
{
    return aug_kdb_gemm_batched_op_eff(kdb, op, dt, 1, m, n, k, eff);
}

int aug_kdb_gemm_batched_op_eff(const struct aug_kdb *kdb, const char *op, enum aug_dtype dt,
                                double batch, double m, double n, double k, double *eff)
{
    if (!kdb || !op || kdb->n_fam[AUG_FAMILY_GEMM] == 0 || !(m > 0) || !(n > 0) || !(k > 0))
        return 0;
    if (!(batch >= 1))
        batch = 1;
    double flops = 2.0 * batch * m * n * k;
    /* the split accumulator is an fp8 kernel of its own: no other dtype's curve stands in */
    int i = find_curve(kdb, AUG_FAMILY_GEMM, op, 0, 0, dt,
                       strcmp(op, AUG_GEMM_SPLIT_ACC_OP) == 0 ? 0 : 1, flops);
    if (i < 0)
        return 0;
    const struct aug_curve *c = &kdb->curves[i];
    const struct kdb_entry *e = &kdb->entry[i];
    struct aug_curve_point pt = aug_curve_gemm_batched_point(batch, m, n, k, e->elt_bytes);
    double v = aug_curve_value(c, e->form, &pt);
    if (e->form->output == AUG_CURVE_TIME) {
        /* time forms carry the peak they were fitted against as their last parameter */
        double peak = c->p[c->n_params - 1];
        if (!(peak > 0))
            return 0;
        v = flops / (v * 1e-6 * peak * 1e12);
        if (v > 1.0)
            v = 1.0;
        if (!(v >= AUG_CURVE_EFF_MIN))
            v = AUG_CURVE_EFF_MIN;
    }
    *eff = v;
    return 1;
}

/* Can the fused-attention lookup use this curve? Only a fused kernel's curve of the same
 * direction, mask and phase: an unfused curve (separate GEMMs and softmax) times other
 * kernels, and a decode curve (a few query rows, bound by reading the KV cache) another
 * regime than prefill. */
static int attention_curve_matches_kind(const struct aug_attn_kind *c, int causal, int backward,
                                        double seq_q)
{
    return !c->unfused && c->backward == (backward != 0) && c->causal == (causal != 0) &&
           c->decode == aug_attn_is_decode(seq_q);
}

int aug_kdb_attention_eff(const struct aug_kdb *kdb, enum aug_dtype dt, int causal,
                          int backward, double batch_heads, double seq_q, double seq_kv,
                          double head_dim, double *eff)
{
    if (!kdb || kdb->n_fam[AUG_FAMILY_ATTENTION] == 0 || !(seq_kv > 0) || !(head_dim > 0))
        return 0;
    /* several head dimensions: the curve measured at the nearest one (log distance) */
    int best = -1;
    double best_d = 0;
    for (int level = 0; level <= 1 && best < 0; level++) {
        for (int j = 0; j < kdb->n_fam[AUG_FAMILY_ATTENTION]; j++) {
            int i = kdb->fam[AUG_FAMILY_ATTENTION][j];
            const struct aug_curve *c = &kdb->curves[i];
            const struct kdb_entry *e = &kdb->entry[i];
            if (dtype_level(c->dtype, dt) != level ||
                !attention_curve_matches_kind(&e->attn, causal, backward, seq_q))
                continue;
            double hd = e->form->n_params >= 4 ? c->p[3] : head_dim;
            double d = hd > head_dim ? hd / head_dim : head_dim / hd;
            if (best < 0 || d < best_d) {
                best = i;
                best_d = d;
            }
        }
    }
    if (best < 0)
        return 0;
    struct aug_curve_point pt =
        aug_curve_attention_point(batch_heads, seq_q, seq_kv, head_dim, causal, backward);
    const struct kdb_entry *e = &kdb->entry[best];
    double v = aug_curve_value(&kdb->curves[best], e->form, &pt);
    if (e->form->output != AUG_CURVE_EFF)
        return 0;
    *eff = v;
    return 1;
}

int aug_kdb_memory_time_us(const struct aug_kdb *kdb, const char *op, enum aug_dtype dt,
                           double bytes, double *time_us)
{
    if (!kdb || !op || kdb->n_fam[AUG_FAMILY_MEMORY] == 0 || !(bytes >= 0))
        return 0;
    int i = find_curve(kdb, AUG_FAMILY_MEMORY, op, 0, 0, dt, 2, bytes);
    if (i < 0)
        return 0;
    struct aug_curve_point pt = aug_curve_size_point(bytes);
    *time_us = aug_curve_value(&kdb->curves[i], kdb->entry[i].form, &pt);
    return 1;
}

int aug_kdb_collective_time_us(const struct aug_kdb *kdb, enum aug_coll c, double size_bytes,
                               int ranks, const char *link, double *time_us)
{
    if (!kdb || kdb->n_fam[AUG_FAMILY_COLLECTIVE] == 0 || !(size_bytes >= 0) || !link)
        return 0;
    int want_link = strcmp(link, "nvlink") == 0 ? 0 : strcmp(link, "network") == 0 ? 1 : -1;
    if (want_link < 0 || (unsigned)c >= AUG_COLL_COUNT || !kdb->has_coll[c][want_link])
        return 0;
    struct piece_pick pk;
    pick_reset(&pk);
    int first = -1;
    for (int j = 0; j < kdb->n_fam[AUG_FAMILY_COLLECTIVE]; j++) {
        int i = kdb->fam[AUG_FAMILY_COLLECTIVE][j];
        const struct kdb_entry *e = &kdb->entry[i];
        const struct aug_curve *cv = &kdb->curves[i];
        if (e->coll != (int)c || cv->ranks != ranks || e->link != want_link)
            continue;
        if (first < 0)
            first = i;
        if (cv->dtype != kdb->curves[first].dtype)
            continue;
        pick_add(&pk, kdb, i, size_bytes);
    }
    if (first < 0)
        return 0;
    int i = pick_result(&pk, kdb, size_bytes);
    if (i < 0)
        return 0;
    struct aug_curve_point pt = aug_curve_size_point(size_bytes);
    *time_us = aug_curve_value(&kdb->curves[i], kdb->entry[i].form, &pt);
    return 1;
}

/* ---- measured ranges (for the `extrapolated` provenance) ---- */

int aug_kdb_curve_range(const struct aug_kdb *kdb, enum aug_family fam, const char *op,
                        enum aug_dtype dt, int backward, int causal, double *x_min,
                        double *x_max)
{
    if (!kdb || (unsigned)fam >= AUG_FAMILY_COUNT || fam == AUG_FAMILY_COLLECTIVE)
        return 0;
    int max_level = fam == AUG_FAMILY_MEMORY ? 2 : 1;
    for (int level = 0; level <= max_level; level++) {
        int first = -1;
        double lo = 0, hi = 0;
        for (int j = 0; j < kdb->n_fam[fam]; j++) {
            int i = kdb->fam[fam][j];
            const struct aug_curve *c = &kdb->curves[i];
            if (dtype_level(c->dtype, dt) != level)
                continue;
            if (op && strcmp(c->op, op) != 0)
                continue;
            if (fam == AUG_FAMILY_ATTENTION && (kdb->entry[i].attn.unfused ||
                                                kdb->entry[i].attn.backward != (backward != 0) ||
                                                kdb->entry[i].attn.causal != (causal != 0)))
                continue;
            if (first < 0) {
                first = i;
                lo = c->x_min;
                hi = c->x_max;
            }
            if (c->dtype != kdb->curves[first].dtype || strcmp(c->op, kdb->curves[first].op))
                continue;
            if (c->x_min < lo)
                lo = c->x_min;
            if (c->x_max > hi)
                hi = c->x_max;
        }
        if (first >= 0) {
            *x_min = lo;
            *x_max = hi;
            return 1;
        }
    }
    return 0;
}

int aug_kdb_collective_range(const struct aug_kdb *kdb, enum aug_coll c, int ranks,
                             const char *link, double *x_min, double *x_max)
{
    if (!kdb || !link || (unsigned)c >= AUG_COLL_COUNT)
        return 0;
    int want_link = strcmp(link, "nvlink") == 0 ? 0 : strcmp(link, "network") == 0 ? 1 : -1;
    int first = -1;
    for (int j = 0; j < kdb->n_fam[AUG_FAMILY_COLLECTIVE]; j++) {
        int i = kdb->fam[AUG_FAMILY_COLLECTIVE][j];
        const struct aug_curve *cv = &kdb->curves[i];
        if (kdb->entry[i].coll != (int)c || cv->ranks != ranks || kdb->entry[i].link != want_link)
            continue;
        if (first < 0) {
            first = i;
            *x_min = cv->x_min;
            *x_max = cv->x_max;
        }
        if (cv->dtype != kdb->curves[first].dtype)
            continue;
        if (cv->x_min < *x_min)
            *x_min = cv->x_min;
        if (cv->x_max > *x_max)
            *x_max = cv->x_max;
    }
    return first >= 0;
}
