/* SPDX-License-Identifier: Apache-2.0 */
/* train_trace.h - what one prediction leaves behind for the per-op report of
 * `augur train --ops` (train_ops.c): the op lists it timed, each op's device seconds in
 * one micro-batch (an overlapped collective: the part of its group's time it exposes) and
 * how often each list runs in an iteration on the slowest pipeline stage. */
#ifndef AUG_TRAIN_TRACE_H
#define AUG_TRAIN_TRACE_H

#include "augur/train.h"
#include "model/layer_graph.h"

struct aug_train_trace {
    struct aug_graph layer, first, last;
    double fwd_s[AUG_GRAPH_MAX_OPS], bwd_s[AUG_GRAPH_MAX_OPS], rec_s[AUG_GRAPH_MAX_OPS];
    double first_fwd_s[AUG_GRAPH_MAX_OPS], first_bwd_s[AUG_GRAPH_MAX_OPS];
    double last_fwd_s[AUG_GRAPH_MAX_OPS], last_bwd_s[AUG_GRAPH_MAX_OPS];
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
