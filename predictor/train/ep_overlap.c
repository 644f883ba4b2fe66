/* SPDX-License-Identifier: Apache-2.0 */
/* ep_overlap.c - the merged layer of Megatron-Core's EP all-to-all overlap.
 *
 * Megatron-Core (megatron/core/models/common/model_chunk_schedule_plan.py,
 * TransformerLayerSchedulePlan.run, 2025-2026; the chunk pairing of DeepSeek-V3's DualPipe,
 * arXiv 2412.19437 sec. 3.2.1 and fig. 4) issues one layer's backward (b) and another
 * micro-batch's forward (f) in this order, all-to-alls on a communication stream, the rest
 * on the compute stream, each waiting for what it consumes:
 *
 *   comm:    combine_b               dispatch_f  dispatch_b            combine_f
 *   compute:          pre_f   mlp_b            mlp_dw     mlp_f    pre_b
 *
 *   combine_b after the previous merged layer's pre_b (the gradient flows down);
 *   pre_f after the previous layer's combine_f (the activation flows up);
 *   mlp_b after combine_b, dispatch_f after pre_f, dispatch_b after mlp_b,
 *   mlp_f after dispatch_f, combine_f after mlp_f, pre_b after dispatch_b.
 *
 * "pre" is the compute before the dispatch (attention, pre-MLP norm, shared experts,
 * router, permutation) and its backward; "mlp" the routed experts; "mlp_dw" their weight
 * gradients, delayed past the dispatch's mirror (--delay-wgrad-compute). Streams run in
 * issue order. The steady period is the growth of the schedule from the second to the
 * last of a few identical merged layers; while both streams are busy the compute runs
 * slower by the plan's comm_slowdown s (the all-to-all's kernels take SMs), charged as
 * overlap x s / (1 + s) like overlap.h's pair. */
#include "train/ep_overlap.h"

#include <math.h>

/* merged layers simulated: the first one starts on idle streams, the rest are steady */
#define LAYERS 4

struct span {
    double t0, t1;
};

static struct span run(double *stream, double ready, double d) {
    struct span s;
    s.t0 = fmax(*stream, ready);
    s.t1 = s.t0 + (d > 0 ? d : 0.0);
    *stream = s.t1;
    return s;
}

static double both_busy(const struct span *comm, int nc, const struct span *comp, int np) {
    double t = 0.0;
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < np; j++) {
            double a = fmax(comm[i].t0, comp[j].t0), b = fmin(comm[i].t1, comp[j].t1);
            if (b > a)
                t += b - a;
        }
    return t;
}

double aug_ep_overlap_layer_s(const struct aug_ep_nodes *n, double slowdown) {
    const double *f = n->f, *b = n->b;
    double serial = 0.0;
    for (int k = 0; k < AUG_EP_NODE_COUNT; k++)
        serial += fmax(f[k], 0.0) + fmax(b[k], 0.0);
    if (!(serial > 0))
        return 0.0;
    double s = slowdown > 0 ? slowdown : 0.0;
    double comm = 0.0, comp = 0.0;  /* when each stream is free */
    double pre_b_end = 0.0, comb_f_end = 0.0;
    double end[LAYERS], busy[LAYERS];
    for (int l = 0; l < LAYERS; l++) {
        struct span c[4], p[5];
        c[0] = run(&comm, pre_b_end, b[AUG_EP_NODE_COMBINE]);
        p[0] = run(&comp, comb_f_end, f[AUG_EP_NODE_PRE]);
        p[1] = run(&comp, c[0].t1, b[AUG_EP_NODE_MLP]);
        c[1] = run(&comm, p[0].t1, f[AUG_EP_NODE_DISPATCH]);
        p[2] = run(&comp, 0.0, b[AUG_EP_NODE_MLP_DW]);
        c[2] = run(&comm, p[1].t1, b[AUG_EP_NODE_DISPATCH]);
        p[3] = run(&comp, c[1].t1, f[AUG_EP_NODE_MLP]);
        c[3] = run(&comm, p[3].t1, f[AUG_EP_NODE_COMBINE]);
        p[4] = run(&comp, c[2].t1, b[AUG_EP_NODE_PRE]);
        pre_b_end = p[4].t1;
        comb_f_end = c[3].t1;
        end[l] = fmax(comm, comp);
        busy[l] = both_busy(c, 4, p, 5);
    }
    double period = (end[LAYERS - 1] - end[0]) / (LAYERS - 1);
    double overlap = 0.0;
    for (int l = 1; l < LAYERS; l++)
        overlap += busy[l] / (LAYERS - 1);
    double t = period + overlap * s / (1.0 + s);
    /* never above running the sub-modules one after the other */
    return t < serial ? t : serial;
}

double aug_ep_overlap_steady_share(long microbatches, long pp, long interleave) {
    if (microbatches < 1)
        return 0.0;
    double v = interleave > 1 ? (double)interleave : 1.0, p = pp > 1 ? (double)pp : 1.0;
    double total = (double)microbatches * v;
    double warm = p <= 1.0  ? 1.0
                  : v > 1.0 ? (p - 1.0) + (v - 1.0) * p
                            : (p - 1.0) / 2.0;
    double share = (total - warm) / total;
    return share > 0 ? share : 0.0;
}
