/* SPDX-License-Identifier: Apache-2.0 */
/* train_trace.h - what one prediction leaves behind for the per-op report of
 * `augur train --ops` (train_ops.c): the op lists it timed, each op's device seconds in
 * one micro-batch (an overlapped collective: the part of its group's time it exposes) and
 * how often each list runs in an iteration on the slowest pipeline stage. */
#ifndef AUG_TRAIN_TRACE_H
#define AUG_TRAIN_TRACE_H

#include "augur/train.h"
#include "model/layer_graph.h"

/* What the timing of one op list found, op by op. */
struct aug_list_times {
    double sec[AUG_GRAPH_MAX_OPS];  /* device seconds in one run of the list (count x one
                                       execution; an overlapped collective: its share of
                                       what its group exposes; 0: left out) */
    double once[AUG_GRAPH_MAX_OPS]; /* one execution alone */
    enum aug_source src[AUG_GRAPH_MAX_OPS];
};

struct aug_train_trace {
    struct aug_graph layer, first, last;
    struct aug_list_times fwd, bwd, rec, first_fwd, first_bwd, last_fwd, last_bwd;
    unsigned recomputed;    /* recompute modules (enum aug_rc_module bits) whose forward ops
                               run again; ~0u: the whole forward (full recomputation); 0:
                               none */
    double layers;          /* transformer layers on the slowest stage */
    int with_first;         /* it runs the embedding (the first stage's extra work) */
    int with_last;          /* it runs the final norm, head and loss */
    double host_s;          /* per micro-batch: GPU idle while the host issues kernels */
    double ep_hidden_s;     /* per micro-batch: EP all-to-all time hidden by Megatron-Core's
                               merged forward/backward schedule (ep_overlap.h) */
};

/* aug_train_predict, recording the trace. */
int aug_train_predict_traced(const struct aug_model *m, const struct aug_system *s,
                             const struct aug_plan *p, const struct aug_train_options *opt,
                             struct aug_train_result *out, struct aug_train_trace *tr);

#endif
