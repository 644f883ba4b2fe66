/* SPDX-License-Identifier: Apache-2.0 */
/* zero3_serial.c - the gathers and reduce-scatters of DeepSpeed's 2021 ZeRO-3, tensor by
 * tensor and not overlapped (zero3_serial.h). */
#include "train/zero3_serial.h"

#include <math.h>

#include "augur/status.h"

/* All-gathers of a tensor of `elements` per micro-batch (`gathers` of them) and its
 * gradient's reduce-scatter, at `rate` of the collective model. */
static int tensor_s(const struct aug_op_ctx *ctx, double elements, double gathers, long ranks,
                    int per_domain, double wbytes, double gbytes, double rate, double *t,
                    enum aug_source *src) {
    struct aug_op ag = aug_op_collective("zero3_gather", AUG_COLL_ALL_GATHER, elements * wbytes,
                                         (int)ranks, per_domain);
    struct aug_op rs = aug_op_collective("zero3_reduce_scatter", AUG_COLL_REDUCE_SCATTER,
                                         elements * gbytes, (int)ranks, per_domain);
    struct aug_op_time ta, tr;
    int st;
    if ((st = aug_op_time(ctx, &ag, &ta)) != AUG_OK || (st = aug_op_time(ctx, &rs, &tr)) != AUG_OK)
        return st;
    *src = ta.source;
    *t = (gathers * ta.time_s + tr.time_s) / rate;
    return AUG_OK;
}

int aug_zero3_serial_s(const struct aug_op_ctx *ctx, const struct aug_model *m,
                       const struct aug_plan *p, const struct aug_graph *layer, double layers,
                       double recompute_share, long ranks, int per_domain, double wbytes,
                       double gbytes, double rate, double *seconds, enum aug_source *src) {
    *seconds = 0.0;
    *src = AUG_SOURCE_FALLBACK;
    if (ranks <= 1)
        return AUG_OK;
    if (!(rate > 0))
        rate = AUG_ZERO3_SERIAL_RATE;
    int st;
    double t;
    /* a layer's weights: its forward GEMMs with a weight operand (the attention core's
     * batched GEMMs multiply activations), k x n elements each on this rank */
    double layer_s = 0.0;
    for (int i = 0; i < layer->n_fwd; i++) {
        const struct aug_op *op = &layer->fwd[i].op;
        double elements = op->n * op->k;
        if (op->kind != AUG_OP_GEMM || op->batch != 1.0 || layer->fwd[i].cat == AUG_CAT_ATTENTION ||
            elements < AUG_ZERO3_PERSIST_ELEMENTS)
            continue;
        if ((st = tensor_s(ctx, elements, 2.0 + recompute_share, ranks, per_domain, wbytes,
                           gbytes, rate, &t, src)) != AUG_OK)
            return st;
        layer_s += op->count * t;
    }
    /* the vocab-parallel embedding, gathered for its lookup and for its gradient, the
     * output head when it has weights of its own, and learned position embeddings */
    double table = (double)m->vocab / (double)p->tp * (double)m->hidden;
    double positions = m->pos == AUG_POS_LEARNED ? (double)m->max_seq * (double)m->hidden : 0.0;
    double ends_s = 0.0;
    if (table >= AUG_ZERO3_PERSIST_ELEMENTS) {
        if ((st = tensor_s(ctx, table, 2.0, ranks, per_domain, wbytes, gbytes, rate, &t, src)) !=
            AUG_OK)
            return st;
        ends_s = m->tied_embeddings ? t : 2.0 * t;
    }
    if (positions >= AUG_ZERO3_PERSIST_ELEMENTS) {
        if ((st = tensor_s(ctx, positions, 2.0, ranks, per_domain, wbytes, gbytes, rate, &t,
                           src)) != AUG_OK)
            return st;
        ends_s += t;
    }
    *seconds = layers * layer_s + ends_s;
    return isfinite(*seconds) ? AUG_OK
                              : aug_errorf(AUG_EDATA, "ZeRO-3 serial gathers: non-finite time");
}
