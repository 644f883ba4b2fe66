/* SPDX-License-Identifier: Apache-2.0 */
/* static_batch.c - static batching of one replica (the TensorRT-LLM gptSessionBenchmark /
 * FasterTransformer scheme; see infer.c): the prefill pass, then output_len - 1 decode
 * steps over a growing KV cache, summed step by step (sampled beyond
 * AUG_INFER_EXACT_STEPS), with pipeline micro-batches advancing once per max(m, pp) slots. */
#include <math.h>
#include <string.h>

#include "augur/status.h"
#include "augur/units.h"
#include "infer_graph.h"
#include "infer_memory.h"
#include "static_batch.h"
#include "step_time.h"

/* Decode steps summed one by one; beyond this, sampled (see aug_infer_static). */
#define AUG_INFER_EXACT_STEPS 16384.0

static void fill_common(const struct aug_model *m, const struct aug_system *s,
                        const struct aug_infer_plan *p, struct aug_infer_result *out) {
    out->mode = p->mode;
    out->params = aug_model_params(m);
    out->kv_bytes_per_token = aug_infer_kv_bytes_per_token(m, p->kv_dtype);
    aug_infer_memory(m, s, p, &out->memory);
    out->weight_bytes_per_gpu = out->memory.weights_gib * AUG_GIB;
    out->memory_capacity_gib = s->gpu.hbm_gib;
    out->fits_in_memory = out->memory.total_gib <= s->gpu.hbm_gib;
    out->max_batch = aug_infer_max_batch(m, s, p);
}

static void set_provenance(struct aug_infer_result *out, const double *src) {
    double sum = src[0] + src[1] + src[2];
    if (sum > 0) {
        out->provenance.calibrated = src[AUG_SOURCE_CURVE] / sum;
        out->provenance.fallback = src[AUG_SOURCE_FALLBACK] / sum;
        out->provenance.roofline = src[AUG_SOURCE_ROOFLINE] / sum;
    }
}

int aug_infer_static(const struct aug_model *m, const struct aug_system *s,
                     const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                     struct aug_infer_result *out) {
    if (m->arch == AUG_ARCH_MATMULFREE) /* hook: constant-size state, infer_matmulfree.c */
        return aug_infer_mmf_static(m, s, p, opt, out);
    struct aug_infer_ctx c;
    aug_infer_ctx_init(&c, s, p, opt);
    struct aug_infer_dims x;
    aug_infer_dims(m, s, p, &x);
    double I = (double)p->input_len, O = (double)p->output_len, pp = (double)p->pp;
    double b = (double)p->batch / (double)(p->dp > 0 ? p->dp : 1);
    double Ls = (double)aug_infer_stage_layers(m, p);
    double src[AUG_SOURCE_COUNT] = {0};
    struct aug_infer_graph g;
    enum aug_source ssrc;
    int st;

    if ((st = aug_infer_prefill(&c, m, s, p, out, src)) != AUG_OK)
        return st;

    /* ---- decode: output_len - 1 steps; step j attends over input_len + j tokens ---- */
    double steps = O - 1.0;
    double mdc = fmin(b, pp), mbd = ceil(b / mdc), rounds = fmax(mdc, pp);
    struct aug_infer_step dst = {mbd, I, 0, 0, 0, mbd};
    aug_infer_graph_build(m, s, p, &dst, &g);
    struct aug_infer_acc fixed;
    double dsend;
    if ((st = aug_infer_stage_time(&c, m, p, &g, 1, &fixed)) != AUG_OK ||
        (st = aug_infer_pp_send(&c, m, p, mbd, &dsend, &ssrc)) != AUG_OK)
        return st;
    struct aug_infer_gop att = g.layer[g.decode_attn];
    struct aug_op_time at;
    att.op = aug_infer_decode_attention(&x, &c.sys, mbd, I + 1.0);
    if ((st = aug_infer_time_op(&c, &att, &at)) != AUG_OK)
        return st;
    out->decode_step_bytes = fixed.bytes + Ls * att.op.bytes;
    /* step by step up to AUG_INFER_EXACT_STEPS; longer outputs sum the same attention time
     * at that many evenly spaced contexts, each standing for its share of the steps */
    double sum_att = 0.0, att_src[AUG_SOURCE_COUNT] = {0}, att_last = at.time_s;
    double samples = fmin(steps, AUG_INFER_EXACT_STEPS), stride = samples > 0 ? steps / samples : 1.0;
    for (double i = 0.0; i < samples; i += 1.0) {
        double j = samples == steps ? i + 1.0 : 1.0 + floor(i * stride + 0.5 * stride);
        att.op = aug_infer_decode_attention(&x, &c.sys, mbd, I + fmin(j, steps));
        if ((st = aug_infer_time_op(&c, &att, &at)) != AUG_OK)
            return st;
        sum_att += stride * at.time_s;
        att_src[at.source] += stride * at.time_s;
    }
    if (steps > 0) {
        att.op = aug_infer_decode_attention(&x, &c.sys, mbd, I + steps);
        if ((st = aug_infer_time_op(&c, &att, &at)) != AUG_OK)
            return st;
        att_last = at.time_s;
    }
    out->decode_steps = (long)steps;
    if (steps > 0) {
        double busy_fixed = steps * fixed.total, busy_att = Ls * sum_att;
        out->decode_s = rounds * (busy_fixed + busy_att + steps * dsend) + steps * c.step_overhead_s;
        aug_infer_add_busy(&out->decode, &fixed, steps * mdc);
        out->decode.attention_s += mdc * busy_att;
        out->decode.bubble_s = (rounds - mdc) * (busy_fixed + busy_att);
        out->decode.pp_comm_s = rounds * steps * dsend;
        out->decode.overhead_s = steps * c.step_overhead_s;
        for (int i = 0; i < AUG_SOURCE_COUNT; i++)
            src[i] += rounds * (steps * fixed.src[i] + Ls * att_src[i]);
        src[ssrc] += rounds * steps * dsend;
        src[AUG_SOURCE_FALLBACK] += steps * c.step_overhead_s;
        out->tpot_s = out->decode_s / steps;
        out->tpot_last_s = rounds * (fixed.total + Ls * att_last + dsend) + c.step_overhead_s;
    }

    out->ttft_s = out->prefill_s;
    out->e2e_latency_s = out->prefill_s + out->decode_s;
    out->throughput_tokens_per_s = (double)p->batch * O / out->e2e_latency_s;
    out->total_tokens_per_s = (double)p->batch * (I + O) / out->e2e_latency_s;
    set_provenance(out, src);
    fill_common(m, s, p, out);
    return AUG_OK;
}
