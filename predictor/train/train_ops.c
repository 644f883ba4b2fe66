/* SPDX-License-Identifier: Apache-2.0 */
/* train_ops.c - one training iteration op by op (`augur train --ops`): every op of the
 * lists the prediction timed, with what it costs alone and what it adds to the iteration,
 * then the schedule terms the lists do not hold. The op rows of the slowest stage and the
 * schedule rows add up to the step time (train.h), so the table is the breakdown of the
 * prediction itself, not a second model of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "augur/train.h"
#include "train/train_trace.h"

_Static_assert(7 * AUG_GRAPH_MAX_OPS + 6 <= AUG_TRAIN_OPS_MAX,
               "AUG_TRAIN_OPS_MAX holds every list and the schedule rows");

struct sink {
    struct aug_train_op_report *ops;
    int cap, n;
    double step_s;
};

static struct aug_train_op_report *next_row(struct sink *k, const char *list, const char *name,
                                            const char *kind) {
    if (k->n >= k->cap)
        return NULL;
    struct aug_train_op_report *r = &k->ops[k->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->list, sizeof r->list, "%s", list);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    return r;
}

/* The ops of one list that run `times` per iteration (0: none run on the slowest stage,
 * `own` per iteration on their own stage), those of recompute modules `only` (~0u: all),
 * with what train.c found timing them (`lt`; a hidden collective's seconds may be 0: it
 * is listed all the same). */
static int add_list(struct sink *k, const char *list, const struct aug_graph_op *ops, int n,
                    const struct aug_list_times *lt, double times, double own, unsigned only) {
    for (int i = 0; i < n; i++) {
        if (!(ops[i].op.count > 0) || (only != ~0u && !(ops[i].rc & only)))
            continue;
        struct aug_train_op_report *r =
            next_row(k, list, ops[i].op.name ? ops[i].op.name : "?",
                     aug_op_kind_name(ops[i].op.kind));
        if (!r)
            return aug_errorf(AUG_EUSAGE, "train ops: more than %d rows", k->cap);
        double per_iter = times > 0 ? times : own;
        r->count = ops[i].op.count * per_iter;
        r->flops = ops[i].op.flops;
        r->bytes = ops[i].op.bytes;
        r->time_s = lt->once[i];
        r->step_s = lt->sec[i] * per_iter;
        r->overlapped = ops[i].group > 0;
        r->on_slowest_stage = times > 0;
        snprintf(r->source, sizeof r->source, "%s", aug_source_name(lt->src[i]));
        aug_op_shape_of(&ops[i].op, &r->shape);
    }
    return AUG_OK;
}

/* A schedule term of `source`: "schedule" for the pipeline, data-parallel and optimizer
 * terms of train.c, "host" for the host dispatch model's idle GPU time. */
static int add_schedule(struct sink *k, const char *name, double s, const char *source) {
    if (s == 0.0)
        return AUG_OK;
    struct aug_train_op_report *r = next_row(k, "iteration", name, "schedule");
    if (!r)
        return aug_errorf(AUG_EUSAGE, "train ops: more than %d rows", k->cap);
    r->count = 1;
    r->time_s = r->step_s = s;
    r->on_slowest_stage = 1;
    snprintf(r->source, sizeof r->source, "%s", source);
    return AUG_OK;
}

/* The rows of the iteration `out` whose trace is `tr`. */
static int report(const struct aug_train_result *out, const struct aug_train_trace *tr,
                  struct aug_train_op_report *ops, int cap, int *n) {
    struct sink k = {ops, cap, 0, out->step_time_s};
    double nmb = (double)out->microbatches, layers = tr->layers * nmb;
    int st;
    /* the first and last stage's extra lists run once per micro-batch on their stage */
    const unsigned all = ~0u;
    if ((st = add_list(&k, "fwd", tr->layer.fwd, tr->layer.n_fwd, &tr->fwd, layers, 0,
                       all)) ||
        (tr->recomputed &&
         (st = add_list(&k, "recompute", tr->layer.fwd, tr->layer.n_fwd, &tr->rec, layers,
                        0, tr->recomputed))) ||
        (st = add_list(&k, "bwd", tr->layer.bwd, tr->layer.n_bwd, &tr->bwd, layers, 0,
                       all)) ||
        (st = add_list(&k, "first.fwd", tr->first.fwd, tr->first.n_fwd, &tr->first_fwd,
                       tr->with_first ? nmb : 0, nmb, all)) ||
        (st = add_list(&k, "first.bwd", tr->first.bwd, tr->first.n_bwd, &tr->first_bwd,
                       tr->with_first ? nmb : 0, nmb, all)) ||
        (st = add_list(&k, "last.fwd", tr->last.fwd, tr->last.n_fwd, &tr->last_fwd,
                       tr->with_last ? nmb : 0, nmb, all)) ||
        (st = add_list(&k, "last.bwd", tr->last.bwd, tr->last.n_bwd, &tr->last_bwd,
                       tr->with_last ? nmb : 0, nmb, all)))
        return st;
    const struct aug_train_breakdown *bd = &out->breakdown;
    if ((st = add_schedule(&k, "host_bound", tr->host_s * nmb, "host")) ||
        (st = add_schedule(&k, "ep_a2a_overlap", -tr->ep_hidden_s * nmb, "schedule")) ||
        (st = add_schedule(&k, "pipeline_bubble", bd->pipeline_bubble_s, "schedule")) ||
        (st = add_schedule(&k, "pp_send_recv", bd->pp_comm_s, "schedule")) ||
        (st = add_schedule(&k, "dp_grads_params", bd->dp_comm_s, "schedule")) ||
        (st = add_schedule(&k, "optimizer", bd->optimizer_s, "schedule")))
        return st;
    for (int i = 0; i < k.n; i++)
        ops[i].share = k.step_s > 0 ? ops[i].step_s / k.step_s : 0.0;
    *n = k.n;
    return AUG_OK;
}

int aug_train_ops(const struct aug_model *m, const struct aug_system *s,
                  const struct aug_plan *p, const struct aug_train_options *opt,
                  struct aug_train_result *out, struct aug_train_op_report *ops, int cap,
                  int *n) {
    *n = 0;
    struct aug_train_trace *trp = malloc(sizeof *trp); /* three graphs: off the stack */
    if (!trp)
        return aug_errorf(AUG_ENOMEM, "train ops: out of memory");
    int st = aug_train_predict_traced(m, s, p, opt, out, trp);
    if (st == AUG_OK)
        st = report(out, trp, ops, cap, n);
    free(trp);
    return st;
}
