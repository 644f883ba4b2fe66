/* SPDX-License-Identifier: Apache-2.0 */
/* static_matmulfree.c - static batching of a MatMul-free LM (infer_matmulfree.c for its
 * step graph and memory): the shared prefill pass, then output_len - 1 identical decode
 * steps, since the recurrent state does not grow with the context. */
#include <math.h>

#include "augur/status.h"
#include "augur/units.h"
#include "infer_matmulfree.h"
#include "infer_memory.h"
#include "static_batch.h"
#include "step_time.h"

int aug_infer_mmf_static(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                         struct aug_infer_result *out) {
    struct aug_infer_ctx c;
    aug_infer_ctx_init(&c, s, p, opt);
    double I = (double)p->input_len, O = (double)p->output_len, pp = (double)p->pp;
    double b = (double)p->batch / (double)(p->dp > 0 ? p->dp : 1);
    double src[AUG_SOURCE_COUNT] = {0};
    struct aug_infer_graph g;
    enum aug_source ssrc;
    int st;

    /* prefill: the shared fill-and-drain pass (the graph builder dispatches here) */
    if ((st = aug_infer_prefill(&c, m, s, p, out, src)) != AUG_OK)
        return st;

    /* decode: output_len - 1 identical steps */
    double steps = O - 1.0;
    double mdc = fmin(b, pp), mbd = ceil(b / mdc), rounds = fmax(mdc, pp);
    struct aug_infer_step dst = {mbd, I, 0, 0, 0, mbd};
    aug_infer_mmf_graph(m, s, p, &dst, &g);
    struct aug_infer_acc dc;
    double dsend;
    if ((st = aug_infer_stage_time(&c, m, p, &g, 0, &dc)) != AUG_OK ||
        (st = aug_infer_pp_send(&c, m, p, mbd, &dsend, &ssrc)) != AUG_OK)
        return st;
    out->decode_step_bytes = dc.bytes;
    out->decode_steps = (long)steps;
    if (steps > 0) {
        double step = rounds * (dc.total + dsend) + c.step_overhead_s;
        out->decode_s = steps * step;
        aug_infer_add_busy(&out->decode, &dc, steps * mdc);
        out->decode.bubble_s = (rounds - mdc) * steps * dc.total;
        out->decode.pp_comm_s = rounds * steps * dsend;
        out->decode.overhead_s = steps * c.step_overhead_s;
        for (int i = 0; i < AUG_SOURCE_COUNT; i++)
            src[i] += rounds * steps * dc.src[i];
        src[ssrc] += rounds * steps * dsend;
        src[AUG_SOURCE_FALLBACK] += steps * c.step_overhead_s;
        out->tpot_s = out->tpot_last_s = step;
    }
    out->ttft_s = out->prefill_s;
    out->e2e_latency_s = out->prefill_s + out->decode_s;
    out->throughput_tokens_per_s = (double)p->batch * O / out->e2e_latency_s;
    out->total_tokens_per_s = (double)p->batch * (I + O) / out->e2e_latency_s;
    double sum = src[0] + src[1] + src[2];
    if (sum > 0) {
        out->provenance.calibrated = src[AUG_SOURCE_CURVE] / sum;
        out->provenance.fallback = src[AUG_SOURCE_FALLBACK] / sum;
        out->provenance.roofline = src[AUG_SOURCE_ROOFLINE] / sum;
    }
    out->mode = p->mode;
    out->params = aug_model_params(m);
    out->kv_bytes_per_token = 0.0; /* no KV cache: a constant state per sequence */
    aug_infer_memory(m, s, p, &out->memory);
    out->weight_bytes_per_gpu = out->memory.weights_gib * AUG_GIB;
    out->memory_capacity_gib = s->gpu.hbm_gib;
    out->fits_in_memory = out->memory.total_gib <= s->gpu.hbm_gib;
    out->max_batch = aug_infer_max_batch(m, s, p);
    return AUG_OK;
}
