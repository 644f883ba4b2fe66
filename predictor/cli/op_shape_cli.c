/* SPDX-License-Identifier: Apache-2.0 */
/* op_shape_cli.c - see op_shape_cli.h. */
#include "op_shape_cli.h"

static json_t *num_or_null(double v, int set) { return set ? json_real(v) : json_null(); }

void aug_cli_op_shape_json(json_t *o, const struct aug_op_shape *s) {
    int gemm = s->batch > 0; /* aug_op_shape_of sets batch >= 1 on GEMMs only */
    json_object_set_new(o, "dtype", s->dtype[0] ? json_string(s->dtype) : json_null());
    json_object_set_new(o, "m", num_or_null(s->m, gemm));
    json_object_set_new(o, "n", num_or_null(s->n, gemm));
    json_object_set_new(o, "k", num_or_null(s->k, gemm));
    json_object_set_new(o, "batch", num_or_null(s->batch, gemm));
}

void aug_cli_op_shape_csv_head(struct aug_csv_writer *w) {
    static const char *const head[] = {"dtype", "m", "n", "k", "batch"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        aug_csv_write_str(w, head[i]);
}

void aug_cli_op_shape_csv(struct aug_csv_writer *w, const struct aug_op_shape *s) {
    aug_csv_write_str(w, s->dtype);
    const double v[] = {s->m, s->n, s->k, s->batch};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        if (s->batch > 0)
            aug_csv_write_num(w, v[i]);
        else
            aug_csv_write_empty(w);
    }
}
