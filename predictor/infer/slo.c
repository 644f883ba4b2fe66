/* SPDX-License-Identifier: Apache-2.0 */
/* slo.c - the highest request rate a serving plan sustains within latency targets
 * (augur/serving.h): DistServe's "goodput" question (Zhong et al., OSDI 2024: the highest
 * rate at which a share of requests meets TTFT and TPOT targets), answered with p99 and
 * the MLPerf Server criterion that the system keeps up with its arrivals. The latency
 * percentiles grow with the rate (more requests share each step and queue), so the
 * largest passing rate is found by bisection between 0 and the offline capacity. */
#include <math.h>
#include <string.h>

#include "augur/serving.h"
#include "augur/status.h"

#define AUG_SLO_HALVINGS 12

static int meets(const struct aug_serve_slo *slo, const struct aug_serve_result *r) {
    if (!r->sustainable)
        return 0;
    if (slo->ttft_p99_s > 0 && r->ttft.p99 > slo->ttft_p99_s)
        return 0;
    if (slo->tpot_p99_s > 0 && r->tpot.n > 0 && r->tpot.p99 > slo->tpot_p99_s)
        return 0;
    return 1;
}

int aug_serve_max_rate(const struct aug_model *m, const struct aug_system *s,
                       const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                       const struct aug_serve_config *cfg, const struct aug_serve_slo *slo,
                       struct aug_serve_slo_result *out) {
    memset(out, 0, sizeof *out);
    if (!(slo->ttft_p99_s >= 0) || !(slo->tpot_p99_s >= 0) || !isfinite(slo->ttft_p99_s) ||
        !isfinite(slo->tpot_p99_s))
        return aug_errorf(AUG_EUSAGE, "latency targets must be finite and not negative (TTFT p99 %g "
                                      "s, TPOT p99 %g s)", slo->ttft_p99_s, slo->tpot_p99_s);
    long n = slo->num_requests > 0 ? slo->num_requests : 1000;
    struct aug_requests reqs;
    int st = aug_requests_generate(&slo->input, &slo->output, n, 0.0, slo->seed, &reqs);
    if (st != AUG_OK)
        return st;
    struct aug_serve_result r;
    if ((st = aug_serve_simulate(m, s, p, opt, cfg, &reqs, AUG_SCENARIO_OFFLINE, &r)) != AUG_OK)
        goto done;
    out->capacity_rate = r.requests_per_s;
    double lo = 0.0, hi = out->capacity_rate;
    for (int it = 0; it < AUG_SLO_HALVINGS && hi > 0; it++) {
        double rate = it == 0 ? hi : 0.5 * (lo + hi);
        if ((st = aug_requests_poisson(&reqs, rate, slo->seed)) != AUG_OK ||
            (st = aug_serve_simulate(m, s, p, opt, cfg, &reqs, AUG_SCENARIO_SERVER, &r)) != AUG_OK)
            goto done;
        out->trials++;
        if (meets(slo, &r)) {
            lo = rate;
            out->max_rate = rate;
            out->at_max = r;
            if (it == 0)
                break; /* even the capacity passes */
        } else {
            hi = rate;
        }
    }
done:
    aug_requests_free(&reqs);
    return st;
}
