/* SPDX-License-Identifier: Apache-2.0 */
/* curves_out.h - writing kernels-db curves.csv (atomically) and merging a new fit into
 * the curves already there. */
#ifndef AUG_CAL_CURVES_OUT_H
#define AUG_CAL_CURVES_OUT_H

#include <stddef.h>

#include "augur/kdb.h"

/* Called before each data row is written; a non-zero return abandons the write (the
 * temporary file is removed and the previous file stays as it was). Tests use it to
 * simulate a writer that dies half-way. */
typedef int (*aug_curves_row_hook)(size_t row, void *user);

/* Write curves to `path` ("-": stdout) with '#' comment lines first: columns family, op,
 * dtype, ranks, link, form, p0..p7, x_min, x_max, n_points, rel_rmse, max_rel_err,
 * cv_rel_err, source. Rows are written in the order given. */
int aug_curves_write(const char *path, const struct aug_curve *c, size_t n,
                     const char *const *comments, size_t n_comments, aug_curves_row_hook hook,
                     void *user);

/* Same group (family, op, dtype, ranks, link; attention also head dimension p3)? */
int aug_curves_same_group(const struct aug_curve *a, const struct aug_curve *b);

/* Sort rows by family, op, dtype, ranks, link, x_min (stable output for diffs). */
void aug_curves_sort(struct aug_curve *c, size_t n);

#endif
