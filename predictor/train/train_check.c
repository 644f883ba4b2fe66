/* SPDX-License-Identifier: Apache-2.0 */
/* train_check.c - every number of a training prediction is finite (train_check.h): a
 * bandwidth of 1e-300 or a curve that overflows gives an error, never "inf" in a table
 * or a JSON key that jansson silently drops. */
#include "train/train_check.h"

#include <stdio.h>

#include "core/finite.h"

_Static_assert(sizeof(struct aug_train_breakdown) == 12 * sizeof(double),
               "breakdown_names out of sync with struct aug_train_breakdown");
_Static_assert(sizeof(struct aug_train_memory) == 6 * sizeof(double),
               "memory_names out of sync with struct aug_train_memory");

int aug_train_check_finite(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_plan *p, const struct aug_train_result *r) {
    static const char *const breakdown_names[] = {
        "breakdown.compute_s", "breakdown.attention_s", "breakdown.recompute_s",
        "breakdown.embedding_s", "breakdown.tp_comm_s", "breakdown.cp_comm_s",
        "breakdown.ep_comm_s", "breakdown.pp_comm_s", "breakdown.dp_comm_s",
        "breakdown.pipeline_bubble_s", "breakdown.optimizer_s", "breakdown.overhead_s"};
    static const char *const memory_names[] = {
        "memory.weights_gib", "memory.gradients_gib", "memory.optimizer_gib",
        "memory.activations_gib", "memory.workspace_gib", "memory.total_gib"};
    const struct aug_finite_field f[] = {
        {"step_time_s", r->step_time_s},
        {"tokens_per_s", r->tokens_per_s},
        {"model_flops", r->model_flops},
        {"hardware_flops", r->hardware_flops},
        {"mfu", r->mfu},
        {"hfu", r->hfu},
        {"params", r->params},
        {"bubble_fraction", r->bubble_fraction},
        {"memory_capacity_gib", r->memory_capacity_gib},
        {"provenance.calibrated", r->provenance.calibrated},
        {"provenance.fallback", r->provenance.fallback},
        {"provenance.roofline", r->provenance.roofline},
    };
    char ctx[256];
    snprintf(ctx, sizeof ctx, "training %.64s on %.64s (tp %ld pp %ld dp %ld cp %ld ep %ld, "
             "micro-batch %ld)", m->name, s->name, p->tp, p->pp, p->dp, p->cp, p->ep,
             p->micro_batch);
    int st = aug_finite_check(ctx, f, sizeof f / sizeof *f);
    if (st == 0)
        st = aug_finite_check_array(ctx, breakdown_names, &r->breakdown.compute_s, 12);
    if (st == 0)
        st = aug_finite_check_array(ctx, memory_names, &r->memory.weights_gib, 6);
    return st;
}
