/* SPDX-License-Identifier: Apache-2.0 */
/* step_time.h - the shared inference context (not public): the op-time contexts of a
 * prediction, the timing of one step on a pipeline stage, the prefill pass; every serving
 * mode (static_batch.c, serving.c) is built on it (step_time.c). */
#ifndef AUG_INFER_STEP_TIME_H
#define AUG_INFER_STEP_TIME_H

#include "step_graph.h"

/* The op-time contexts of a prediction: with curves, and defaults only. */
struct aug_infer_ctx {
    struct aug_system sys;  /* the system with the plan's launch gap */
    struct aug_op_ctx with_curves, defaults;
    double step_overhead_s;
};
void aug_infer_ctx_init(struct aug_infer_ctx *c, const struct aug_system *s,
                        const struct aug_infer_plan *p, const struct aug_infer_options *opt);

/* Seconds (and what they are made of) of a list of ops. */
struct aug_infer_acc {
    double cat[AUG_ICAT_COUNT];
    double src[AUG_SOURCE_COUNT];
    double total;
    double flops, bytes;
};

void aug_infer_acc_add(struct aug_infer_acc *dst, const struct aug_infer_acc *a, double k);

/* Time one op (with curves unless it is defaults_only). */
int aug_infer_time_op(const struct aug_infer_ctx *c, const struct aug_infer_gop *g,
                      struct aug_op_time *t);

/* Time ops [first, first + n) of `ops`, each `mult` times, into acc (skipping `skip`). */
int aug_infer_time_ops(const struct aug_infer_ctx *c, const struct aug_infer_gop *ops, int first,
                       int n, int skip, double mult, struct aug_infer_acc *acc);

/* One forward step of one replica on its slowest pipeline stage: layer ops times the
 * stage's layers plus the heavier end (embedding or LM head). */
int aug_infer_stage_time(const struct aug_infer_ctx *c, const struct aug_model *m,
                         const struct aug_infer_plan *p, const struct aug_infer_graph *g,
                         int skip_decode_attn, struct aug_infer_acc *acc);

/* Breakdown of `busy` copies of a stage step (categories from acc). */
void aug_infer_add_busy(struct aug_infer_breakdown *b, const struct aug_infer_acc *a, double busy);

/* Time to first token: the prefill pass of the prompt, filled into out->prefill_s and
 * out->prefill, its time added to src by source. Shared by every architecture (the graph
 * builder picks the layer kind). */
int aug_infer_prefill(const struct aug_infer_ctx *c, const struct aug_model *m,
                      const struct aug_system *s, const struct aug_infer_plan *p,
                      struct aug_infer_result *out, double src[AUG_SOURCE_COUNT]);

/* Time of the activations of `tokens` crossing one pipeline boundary (0 when pp = 1). */
int aug_infer_pp_send(const struct aug_infer_ctx *c, const struct aug_model *m,
                      const struct aug_infer_plan *p, double tokens, double *t,
                      enum aug_source *src);

#endif
