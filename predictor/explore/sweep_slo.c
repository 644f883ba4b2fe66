/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_slo.c - serving plans ranked by the highest rate within latency targets
 * (augur/sweep_slo.h). The plan space is small (divisors of the GPU count), so plans run
 * one after another; each costs a bisection of about a dozen server simulations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "augur/sweep_slo.h"

static int tp_ok(const struct aug_sweep_slo_config *c, long tp) {
    const struct aug_model *m = c->model;
    const struct aug_system *s = c->system;
    long domain = s->nvlink_domain > 0 ? s->nvlink_domain : (s->gpus_per_node > 0 ? s->gpus_per_node : 1);
    if (c->tp > 0)
        return tp == c->tp;
    if (tp > (c->max_tp > 0 ? c->max_tp : domain) || m->heads % tp != 0)
        return 0;
    return m->kv_heads % tp == 0 || tp % m->kv_heads == 0;
}

static int cmp_rate(const void *a, const void *b) {
    const struct aug_sweep_slo_entry *x = a, *y = b;
    double rx = x->result.max_rate, ry = y->result.max_rate;
    if (rx != ry)
        return rx > ry ? -1 : 1;
    return 0;
}

int aug_sweep_slo(const struct aug_sweep_slo_config *c, struct aug_sweep_slo_result *out) {
    memset(out, 0, sizeof *out);
    long gpus = c->base.gpus;
    if (gpus < 1)
        return aug_errorf(AUG_EUSAGE, "--gpus is required for a sweep");
    const struct aug_model *m = c->model;
    long max_pp = c->max_pp > 0 ? c->max_pp : 8;
    int cap = 0;
    for (long tp = 1; tp <= gpus; tp++) {
        if (gpus % tp || !tp_ok(c, tp))
            continue;
        for (long pp = 1; pp <= gpus / tp; pp++) {
            if ((gpus / tp) % pp || pp > m->layers || (c->pp > 0 ? pp != c->pp : pp > max_pp))
                continue;
            for (long ep = 1; ep <= tp; ep++) {
                if (c->ep > 0 ? ep != c->ep : (tp % ep != 0))
                    continue;
                if (ep > 1 && (m->arch != AUG_ARCH_MOE || m->moe_experts % ep != 0 || tp % ep != 0))
                    continue;
                struct aug_infer_plan p = c->base;
                p.tp = tp;
                p.pp = pp;
                p.ep = ep;
                p.gpus = gpus;
                p.batch = gpus / (tp * pp);
                p.input_len = (long)ceil(aug_len_dist_mean(&c->slo.input));
                p.output_len = (long)ceil(aug_len_dist_mean(&c->slo.output));
                if (p.input_len < 1)
                    p.input_len = 1;
                if (p.output_len < 1)
                    p.output_len = 1;
                if (aug_infer_plan_resolve(&p, m, c->system) != AUG_OK)
                    continue;
                struct aug_serve_slo_result r;
                int st = aug_serve_max_rate(m, c->system, &p, &c->options, &c->serve, &c->slo, &r);
                if (st == AUG_EUNSUPPORTED || st == AUG_EUSAGE) {
                    out->skipped++;
                    continue;
                }
                if (st != AUG_OK) {
                    aug_sweep_slo_result_free(out);
                    return st;
                }
                if (out->n == cap) {
                    int ncap = cap ? 2 * cap : 16;
                    struct aug_sweep_slo_entry *np = realloc(out->plans, (size_t)ncap * sizeof *np);
                    if (!np) {
                        aug_sweep_slo_result_free(out);
                        return aug_errorf(AUG_ENOMEM, "out of memory for the sweep");
                    }
                    out->plans = np;
                    cap = ncap;
                }
                out->plans[out->n].plan = p;
                out->plans[out->n].result = r;
                out->n++;
            }
        }
    }
    /* stable order among equal rates: qsort is not stable, so sort with the index */
    for (int i = 1; i < out->n; i++) { /* insertion sort: a few dozen plans */
        struct aug_sweep_slo_entry e = out->plans[i];
        int j = i - 1;
        while (j >= 0 && cmp_rate(&out->plans[j], &e) > 0) {
            out->plans[j + 1] = out->plans[j];
            j--;
        }
        out->plans[j + 1] = e;
    }
    return AUG_OK;
}

void aug_sweep_slo_result_free(struct aug_sweep_slo_result *r) {
    if (!r)
        return;
    free(r->plans);
    memset(r, 0, sizeof *r);
}
