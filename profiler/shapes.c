/* SPDX-License-Identifier: Apache-2.0 */
/* shapes.c - GEMM shapes from a CSV file for --shapes (see shapes.h). */
#include "shapes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/csvio.h"
#include "augur/dtype.h"
#include "augur/status.h"

void aug_prof_gemm_shapes_release(struct aug_prof_gemm_shapes *s) {
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* One dimension: a finite number of at least 0, rounded to a whole count (0 when it rounds to
 * nothing), at most AUG_PROF_SHAPE_MAX_DIM. */
static int dim(const struct aug_csv *t, size_t row, const char *col, long *out, int *frac) {
    double v = 0;
    int rc = aug_csv_get_double(t, row, col, AUG_CSV_REQUIRED | AUG_CSV_NONNEG, &v);
    if (rc != AUG_OK)
        return rc;
    if (!isfinite(v) || v > (double)AUG_PROF_SHAPE_MAX_DIM)
        return aug_csv_cell_error(t, row, col, "%g is above %ld, the largest GEMM dimension "
                                  "augur-profile measures", v, AUG_PROF_SHAPE_MAX_DIM);
    double r = floor(v + 0.5);
    *frac |= r != v;
    *out = (long)r;
    return AUG_OK;
}

static int row_dtype(const struct aug_csv *t, size_t row, int col, int *out) {
    const char *c = aug_csv_cell(t, row, col);
    *out = -1;
    if (col < 0 || !c[0])
        return AUG_OK;
    enum aug_dtype d;
    if (aug_dtype_from_name(c, &d) != AUG_OK || d == AUG_DTYPE_INT8 || d == AUG_DTYPE_INT4)
        return aug_csv_cell_error(t, row, "dtype", "'%.32s' is not a GEMM dtype augur-profile "
                                  "measures (fp32, tf32, bf16, fp16, fp8)", c);
    *out = (int)d;
    return AUG_OK;
}

static int cmp_shape(const void *pa, const void *pb) {
    const struct aug_prof_gemm_shape *a = pa, *b = pb;
    if (a->dtype != b->dtype)
        return a->dtype < b->dtype ? -1 : 1;
    if (a->m != b->m)
        return a->m < b->m ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* Sort (dtype, m, n, k) and keep each shape once, counting the repeats. */
static void unique(struct aug_prof_gemm_shapes *s) {
    if (s->n < 2)
        return;
    qsort(s->v, s->n, sizeof *s->v, cmp_shape);
    size_t w = 1;
    for (size_t i = 1; i < s->n; i++) {
        if (cmp_shape(&s->v[i], &s->v[w - 1]) == 0) {
            s->repeated++;
            continue;
        }
        s->v[w++] = s->v[i];
    }
    s->n = w;
}

static int push(struct aug_prof_gemm_shapes *s, const struct aug_prof_gemm_shape *g) {
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 64;
        struct aug_prof_gemm_shape *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return aug_errorf(AUG_ENOMEM, "out of memory reading %s", s->path);
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = *g;
    return AUG_OK;
}

/* One data row: skipped (another kind, a dimension rounding to 0) or added. */
static int read_row(const struct aug_csv *t, size_t r, int c_kind, int c_dtype,
                    struct aug_prof_gemm_shapes *s) {
    if (c_kind >= 0 && strcmp(aug_csv_cell(t, r, c_kind), "gemm") != 0) {
        s->other_kind++;
        return AUG_OK;
    }
    struct aug_prof_gemm_shape g;
    int frac = 0, rc;
    if ((rc = dim(t, r, "m", &g.m, &frac)) != AUG_OK ||
        (rc = dim(t, r, "n", &g.n, &frac)) != AUG_OK ||
        (rc = dim(t, r, "k", &g.k, &frac)) != AUG_OK ||
        (rc = row_dtype(t, r, c_dtype, &g.dtype)) != AUG_OK)
        return rc;
    double batch = 1;
    rc = aug_csv_get_double(t, r, "batch", 0, &batch);
    if (rc != AUG_OK && rc != AUG_ENOTFOUND)
        return rc;
    if (!(batch >= 1) || !isfinite(batch))
        return aug_csv_cell_error(t, r, "batch", "%g is not a GEMM count of 1 or more", batch);
    s->rounded += frac;
    if (g.m < 1 || g.n < 1 || g.k < 1) {
        s->too_small++;
        return AUG_OK;
    }
    s->batched += batch > 1;
    return push(s, &g);
}

int aug_prof_gemm_shapes_load(const char *path, struct aug_prof_gemm_shapes *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path ? path : "");
    struct aug_csv *t = NULL;
    int rc = aug_csv_load(path, &t);
    if (rc != AUG_OK)
        return rc;
    static const char *const need[] = {"m", "n", "k"};
    rc = aug_csv_need_cols(t, need, 3, " (a GEMM shape list, or the CSV of augur train|infer "
                                       "--ops --format csv)");
    int c_kind = aug_csv_col(t, "kind"), c_dtype = aug_csv_col(t, "dtype");
    for (size_t r = 0; rc == AUG_OK && r < aug_csv_rows(t); r++) {
        out->rows++;
        rc = read_row(t, r, c_kind, c_dtype, out);
    }
    aug_csv_free(t);
    if (rc == AUG_OK)
        unique(out);
    if (rc == AUG_OK && out->n > AUG_PROF_SHAPES_MAX)
        rc = aug_errorf(AUG_EDATA, "%s: %zu distinct GEMM shapes, more than the %d one run "
                        "measures", out->path, out->n, AUG_PROF_SHAPES_MAX);
    if (rc == AUG_OK && out->n == 0)
        rc = aug_errorf(AUG_EDATA, "%s: no GEMM shape to measure (%ld rows: %ld of other "
                        "kinds, %ld with a dimension below one)", out->path, out->rows,
                        out->other_kind, out->too_small);
    if (rc != AUG_OK)
        aug_prof_gemm_shapes_release(out);
    return rc;
}

void aug_prof_gemm_shapes_summary(const struct aug_prof_gemm_shapes *s, char *buf, size_t cap) {
    snprintf(buf, cap, "%zu GEMM shapes from %ld rows of %s; skipped: %ld rows of other "
             "kinds, %ld with a dimension below one; %ld repeated; %ld rounded to whole "
             "dimensions; %ld batched, measured as one GEMM of the batch",
             s->n, s->rows, s->path, s->other_kind, s->too_small, s->repeated, s->rounded,
             s->batched);
}
