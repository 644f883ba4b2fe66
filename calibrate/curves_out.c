/* SPDX-License-Identifier: Apache-2.0 */
/* curves_out.c - curves.csv output: one row per curve (piece), atomic through csvio, in a
 * stable order so that regenerated tables diff cleanly. */
#include "curves_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/csvio.h"
#include "augur/dtype.h"
#include "augur/status.h"

int aug_curves_same_group(const struct aug_curve *a, const struct aug_curve *b)
{
    if (a->family != b->family || a->dtype != b->dtype || a->ranks != b->ranks ||
        strcmp(a->op, b->op) != 0 || strcmp(a->link, b->link) != 0)
        return 0;
    if (a->family == AUG_FAMILY_ATTENTION && a->p[3] != b->p[3])
        return 0;
    return 1;
}

static int cmp_curve(const void *pa, const void *pb)
{
    const struct aug_curve *a = pa, *b = pb;
    if (a->family != b->family)
        return (int)a->family - (int)b->family;
    int c = strcmp(a->op, b->op);
    if (c)
        return c;
    if (a->dtype != b->dtype)
        return (int)a->dtype - (int)b->dtype;
    if (a->ranks != b->ranks)
        return a->ranks - b->ranks;
    c = strcmp(a->link, b->link);
    if (c)
        return c;
    if (a->family == AUG_FAMILY_ATTENTION && a->p[3] != b->p[3])
        return a->p[3] < b->p[3] ? -1 : 1;
    if (a->x_min != b->x_min)
        return a->x_min < b->x_min ? -1 : 1;
    return 0;
}

void aug_curves_sort(struct aug_curve *c, size_t n)
{
    if (n > 1)
        qsort(c, n, sizeof *c, cmp_curve);
}

int aug_curves_write(const char *path, const struct aug_curve *c, size_t n,
                     const char *const *comments, size_t n_comments, aug_curves_row_hook hook,
                     void *user)
{
    struct aug_csv_writer *w = NULL;
    int rc = aug_csv_writer_open(path, 1, &w);
    if (rc != AUG_OK)
        return rc;
    for (size_t i = 0; i < n_comments; i++)
        aug_csv_write_comment(w, "%s", comments[i]);
    static const char *const head[] = {"family", "op", "dtype", "ranks", "link", "form"};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        aug_csv_write_str(w, head[i]);
    for (int i = 0; i < AUG_CURVE_MAX_PARAMS; i++) {
        char col[8];
        snprintf(col, sizeof col, "p%d", i);
        aug_csv_write_str(w, col);
    }
    static const char *const tail[] = {"x_min", "x_max", "n_points", "rel_rmse",
                                       "max_rel_err", "cv_rel_err", "source"};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        aug_csv_write_str(w, tail[i]);
    aug_csv_end_row(w);
    for (size_t r = 0; r < n; r++) {
        if (hook && hook(r, user) != 0) {
            aug_csv_writer_abort(w);
            return aug_errorf(AUG_EIO, "%s: write abandoned at row %zu; the previous file is "
                              "unchanged", path, r + 1);
        }
        const struct aug_curve *x = &c[r];
        aug_csv_write_str(w, aug_family_name(x->family));
        aug_csv_write_str(w, x->op);
        aug_csv_write_str(w, aug_dtype_name(x->dtype));
        aug_csv_write_int(w, x->ranks);
        aug_csv_write_str(w, x->link);
        aug_csv_write_str(w, x->form);
        for (int i = 0; i < AUG_CURVE_MAX_PARAMS; i++) {
            if (i < x->n_params)
                aug_csv_write_num(w, x->p[i]);
            else
                aug_csv_write_empty(w);
        }
        aug_csv_write_num(w, x->x_min);
        aug_csv_write_num(w, x->x_max);
        aug_csv_write_int(w, x->n_points);
        aug_csv_write_num(w, x->rel_rmse);
        aug_csv_write_num(w, x->max_rel_err);
        aug_csv_write_num(w, x->cv_rel_err);
        aug_csv_write_str(w, x->source);
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w);
}
