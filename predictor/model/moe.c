/* SPDX-License-Identifier: Apache-2.0 */
/* moe.c - token routing statistics of a mixture-of-experts layer (formulas in moe.h). */
#include "augur/moe.h"

#include <math.h>
#include <stdlib.h>
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

/* C(avail, k) / C(pool, k): the chance that k distinct draws from `pool` items all fall
 * among `avail` of them. */
static double all_among(double avail, double pool, double k) {
    if (avail < k)
        return 0.0;
    double q = 1.0;
    for (double i = 0; i < k; i++)
        q *= (avail - i) / (pool - i);
    return q;
}

/* C(n, r) as a double (0 outside 0 <= r <= n). */
static double choose(double n, double r) {
    if (r < 0 || r > n)
        return 0.0;
    double c = 1.0;
    for (double i = 0; i < r; i++)
        c = c * (n - i) / (i + 1.0);
    return c;
}

/* Domains overlapping more groups than this are counted as if routing were not grouped
 * (the table below grows with them; no published model comes near). */
#define MAX_OVERLAP_GROUPS 64

double aug_moe_domains_hit(const struct aug_model *m, long domains) {
    if (m->arch != AUG_ARCH_MOE || m->moe_experts < 1 || m->moe_topk < 1 || domains < 1)
        return 0.0;
    if (domains == 1)
        return 1.0;
    long E = m->moe_experts, n = domains;
    double k = (double)(m->moe_topk < E ? m->moe_topk : E);
    long G = m->moe_groups, g = m->moe_topk_groups;
    int grouped = G > 1 && g > 0 && g < G && E % G == 0 && E % n == 0 &&
                  (double)(E / G * g) >= k;
    double ungrouped = (double)n * (1.0 - all_among((double)E - (double)E / (double)n,
                                                    (double)E, k));
    if (!grouped) /* every domain alike: missed when all k fall among the other experts */
        return ungrouped;
    long per_group = E / G, per_domain = E / n;
    double pool = (double)(per_group * g), subsets = choose((double)G, (double)g), hit = 0.0;
    for (long d = 0; d < n; d++) {
        /* the groups overlapping domain d: group j holds o_j of its experts */
        long lo = d * per_domain, hi = lo + per_domain, first = lo / per_group;
        long last = (hi - 1) / per_group, q = last - first + 1;
        if (q > MAX_OVERLAP_GROUPS)
            return ungrouped;
        /* tab[c][a]: subsets of c of these groups that put a of d's experts in the pool */
        long cap = per_domain + 1;
        double *tab = calloc((size_t)(q + 1) * (size_t)cap, sizeof *tab);
        if (!tab)
            return ungrouped;
        tab[0] = 1.0;
        for (long j = first; j <= last; j++) {
            long s0 = j * per_group > lo ? j * per_group : lo;
            long s1 = (j + 1) * per_group < hi ? (j + 1) * per_group : hi;
            long o = s1 - s0;
            for (long c = q - 1; c >= 0; c--) /* taking group j: one group, o experts more */
                for (long a = per_domain - o; a >= 0; a--)
                    tab[(c + 1) * cap + a + o] += tab[c * cap + a];
        }
        /* the other g - c groups come from the G - q that miss d */
        for (long c = 0; c <= q && c <= g; c++)
            for (long a = 0; a <= per_domain; a++) {
                double cnt = tab[c * cap + a];
                if (cnt > 0)
                    hit += cnt * choose((double)(G - q), (double)(g - c)) / subsets *
                           (1.0 - all_among(pool - (double)a, pool, k));
            }
        free(tab);
    }
    return hit;
}
