/* SPDX-License-Identifier: Apache-2.0 */
/* train_ops_cli.c - `augur train --ops`: the iteration op by op (train_ops.c) as a table,
 * JSON array or CSV rows. */
#include <string.h>

#include "augur/csvio.h"
#include "op_shape_cli.h"
#include "train_cli.h"

json_t *aug_cli_train_ops_json(const struct aug_train_op_report *ops, int n) {
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const struct aug_train_op_report *o = &ops[i];
        json_t *row = json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:b,s:b,s:s}", "list",
                                o->list, "op", o->name, "kind", o->kind, "count", o->count,
                                "flops", o->flops, "bytes", o->bytes, "time_s", o->time_s,
                                "step_s", o->step_s, "share", o->share, "overlapped",
                                o->overlapped, "on_slowest_stage", o->on_slowest_stage,
                                "source", o->source);
        aug_cli_op_shape_json(row, &o->shape);
        json_array_append_new(arr, row);
    }
    return arr;
}

void aug_cli_train_ops_table(FILE *f, const struct aug_train_result *r,
                             const struct aug_train_op_report *ops, int n) {
    fprintf(f, "ops (per GPU; count: executions per iteration on its stage; time: one execution "
               "alone; step: seconds added to the iteration, an overlapped collective (o) only "
               "what its overlap group exposes; rows marked '-' run off the slowest stage):\n");
    fprintf(f, "  %-10s %-26s %-10s %9s %11s %11s %12s %11s %6s %-2s %-8s\n", "list", "op", "kind",
            "count", "FLOPs", "bytes", "time", "step", "share", "", "source");
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        const struct aug_train_op_report *o = &ops[i];
        if (o->on_slowest_stage)
            sum += o->step_s;
        fprintf(f, "  %-10s %-26s %-10s %9.0f %11.4g %11.4g %9.2f us %9.4f s %5.1f%% %c%c %-8s\n",
                o->list, o->name, o->kind, o->count, o->flops, o->bytes, o->time_s * 1e6,
                o->step_s, 100.0 * o->share, o->overlapped ? 'o' : ' ',
                o->on_slowest_stage ? ' ' : '-', o->source);
    }
    fprintf(f, "  sum of the slowest stage's rows %.6f s = step time %.6f s\n", sum,
            r->step_time_s);
}

int aug_cli_train_ops_csv(FILE *f, const struct aug_train_op_report *ops, int n) {
    struct aug_csv_writer *w;
    if (aug_csv_writer_fp(f, &w) != AUG_OK)
        return 1;
    static const char *const head[] = {"list", "op", "kind", "count", "flops", "bytes",
                                       "time_s", "step_s", "share", "overlapped",
                                       "on_slowest_stage", "source"};
    for (size_t k = 0; k < sizeof head / sizeof *head; k++)
        aug_csv_write_str(w, head[k]);
    aug_cli_op_shape_csv_head(w);
    aug_csv_end_row(w);
    for (int i = 0; i < n; i++) {
        const struct aug_train_op_report *o = &ops[i];
        aug_csv_write_str(w, o->list);
        aug_csv_write_str(w, o->name);
        aug_csv_write_str(w, o->kind);
        aug_csv_write_num(w, o->count);
        aug_csv_write_num(w, o->flops);
        aug_csv_write_num(w, o->bytes);
        aug_csv_write_num(w, o->time_s);
        aug_csv_write_num(w, o->step_s);
        aug_csv_write_num(w, o->share);
        aug_csv_write_num(w, o->overlapped);
        aug_csv_write_num(w, o->on_slowest_stage);
        aug_csv_write_str(w, o->source);
        aug_cli_op_shape_csv(w, &o->shape);
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w) == AUG_OK ? 0 : 1;
}
