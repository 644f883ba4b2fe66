/* SPDX-License-Identifier: Apache-2.0 */
/* moe.c - token routing statistics of a mixture-of-experts layer (formulas in moe.h). */
#include "augur/moe.h"

#include <math.h>
#include <string.h>

void aug_moe_routing(const struct aug_model *m, const struct aug_plan *p, double elem_bytes,
                     struct aug_moe_routing *out) {
    memset(out, 0, sizeof *out);
    if (m->arch != AUG_ARCH_MOE || m->moe_experts < 1 || m->moe_topk < 1)
        return;
    double E = (double)m->moe_experts, k = (double)m->moe_topk;
    double ep = (double)(p->ep > 0 ? p->ep : 1), etp = (double)aug_plan_etp(p);
    double tp = (double)(p->tp > 0 ? p->tp : 1), cp = (double)(p->cp > 0 ? p->cp : 1);
    double T = (double)p->micro_batch * (double)p->seq / cp;
    double El = E / ep;
    double f = p->moe_imbalance >= 1 ? p->moe_imbalance : 1.0;
    if (f > E)
        f = E;
    out->tokens_per_rank = T / tp;
    out->local_experts = El;
    out->mean_tokens_per_expert = ep * etp * (T / tp) * k / E;
    out->imbalance = f;
    double rest = E > 1 ? (E - f) / (E - 1.0) : 1.0; /* load of every other expert */
    out->busiest_rank_factor = (f + (El - 1.0) * rest) / El;
    double c = p->moe_capacity_factor;
    if (c > 0) {
        out->dropless = 0;
        out->capacity = c * out->mean_tokens_per_expert;
        out->tokens_per_expert = out->capacity;
        out->dropped_fraction = (fmax(0.0, f - c) + (E - 1.0) * fmax(0.0, rest - c)) / E;
        out->dispatch_tokens = out->tokens_per_rank * k * c;
    } else {
        out->dropless = 1;
        out->tokens_per_expert = out->mean_tokens_per_expert * out->busiest_rank_factor;
        out->dispatch_tokens = out->tokens_per_rank * k * out->busiest_rank_factor;
    }
    out->dispatch_bytes = out->dispatch_tokens * (double)m->hidden * elem_bytes;
}
