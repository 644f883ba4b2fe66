/* SPDX-License-Identifier: Apache-2.0 */
/* memory_options.c - what a training plan that does not fit would need per GPU after one
 * memory-saving change of the plan, and after all of them together (augur/train.h).
 *
 * The changes are the options `augur train` takes, each applied alone to the plan as
 * given and checked with aug_plan_resolve(); the memory is aug_train_memory()'s count,
 * nothing is timed. Candidates, in the order of the output:
 * - sequence parallelism when TP > 1 (Korthikanti et al. 2022: the activations TP kept
 *   whole split over t);
 * - each higher ZeRO stage when the dense weights are replicated on more than one rank
 *   (Rajbhandari et al. 2020: optimizer states, then gradients, then weights sharded);
 * - selective, then full recomputation (of every layer, where --recompute-layers had
 *   limited it to the first N of each chunk);
 * - one sequence per micro-batch, when the global batch still splits over DP;
 * - fp8 weights for an fp8 plan that keeps 16-bit ones (Megatron-Core --fp8-param-gather);
 * - all of those together, when more than one applies.
 * A change is listed only when the plan's other settings accept it and it saves memory. */
#include <stdio.h>
#include <string.h>

#include "augur/plan.h"
#include "augur/status.h"
#include "augur/train.h"

/* Appends `change` applied as `p` when the plan's other settings accept it and it needs
 * less than `now` GiB (a change that saves nothing, such as selective recomputation beside
 * FlashAttention, which keeps no scores, is not offered). */
static void add(const struct aug_model *m, const struct aug_system *s, const struct aug_plan *p,
                double now, const char *change, struct aug_train_memory_option *out, int cap,
                int *n) {
    if (*n >= cap)
        return;
    struct aug_plan q = *p;
    if (aug_plan_resolve(&q, m, s) != AUG_OK) {
        aug_clear_error();
        return;
    }
    struct aug_train_memory mem;
    aug_train_memory(m, s, &q, &mem);
    if (!(mem.total_gib < now))
        return;
    struct aug_train_memory_option *o = &out[(*n)++];
    memset(o, 0, sizeof *o);
    snprintf(o->change, sizeof o->change, "%s", change);
    o->total_gib = mem.total_gib;
    o->fits = mem.total_gib <= s->gpu.hbm_gib;
}

int aug_train_memory_options(const struct aug_model *m, const struct aug_system *s,
                             const struct aug_plan *plan, struct aug_train_memory_option *out,
                             int cap) {
    if (!m || !s || !plan || !out || cap < 1)
        return 0;
    struct aug_train_memory cur;
    aug_train_memory(m, s, plan, &cur);
    double now = cur.total_gib;
    int n = 0, applicable = 0;
    struct aug_plan all = *plan, q;
    if (plan->tp > 1 && !plan->sp) {
        q = *plan;
        q.sp = 1;
        all.sp = 1;
        add(m, s, &q, now, "--sp", out, cap, &n);
        applicable++;
    }
    if (plan->fsdp == AUG_FSDP_NONE && plan->dp * plan->cp > 1) {
        for (int z = plan->zero + 1; z <= 3; z++) {
            char c[24];
            q = *plan;
            q.zero = z;
            snprintf(c, sizeof c, "--zero %d", z);
            add(m, s, &q, now, c, out, cap, &n);
        }
        if (plan->zero < 3) {
            all.zero = 3;
            applicable++;
        }
    }
    if (plan->recompute == AUG_RECOMPUTE_NONE) {
        q = *plan;
        q.recompute = AUG_RECOMPUTE_SELECTIVE;
        add(m, s, &q, now, "--recompute selective", out, cap, &n);
    }
    if (plan->recompute != AUG_RECOMPUTE_FULL || plan->recompute_layers > 0) {
        q = *plan;
        q.recompute = AUG_RECOMPUTE_FULL;
        q.recompute_layers = 0;
        all.recompute = AUG_RECOMPUTE_FULL;
        all.recompute_layers = 0;
        /* with --recompute-layers set, every layer is that option left out */
        add(m, s, &q, now,
            plan->recompute == AUG_RECOMPUTE_FULL ? "no --recompute-layers" : "--recompute full",
            out, cap, &n);
        applicable++;
    }
    if (plan->micro_batch > 1) {
        q = *plan;
        q.micro_batch = 1;
        all.micro_batch = 1;
        add(m, s, &q, now, "--micro-batch 1", out, cap, &n);
        applicable++;
    }
    if (plan->dtype == AUG_DTYPE_FP8 && !plan->fp8_params) {
        q = *plan;
        q.fp8_params = 1;
        all.fp8_params = 1;
        add(m, s, &q, now, "--fp8-params on", out, cap, &n);
        applicable++;
    }
    if (n > 1 && applicable > 1)
        add(m, s, &all, now, "all of the above", out, cap, &n);
    return n;
}
