/* SPDX-License-Identifier: Apache-2.0 */
/* serving.c - serving modes beyond one static batch.
 *
 * Continuous (in-flight) batching, steady state (Orca, Yu et al. OSDI 2022; vLLM, Kwon et
 * al. SOSP 2023; Sarathi-Serve, Agrawal et al. OSDI 2024): a replica holds N requests in
 * their decode phase; each step every one of them emits a token, and as each request
 * decodes for output_len - 1 steps, N / (output_len - 1) new requests arrive per step and
 * their prompts (I tokens each) ride in the same step (mixed prefill and decode tokens; with
 * a chunk budget C the prompt is split into chunks of C tokens over ceil(I / C) steps).
 * The mean step therefore runs N + N I / (O - 1) tokens through the GEMMs and N decode
 * attentions over the mean context I + O/2 plus the prompts' attention. Then
 *   TPOT = t_step,  TTFT = ceil(I / C) t_first (C = I without chunking), where t_first is a
 *   step that carries the N decodes and one chunk of the request's own prompt,
 *   output tokens/s = N O / (O - 1) / t_step per replica.
 * For an offered request rate lambda the concurrency follows from Little's law,
 * N = lambda (O - 1) t_step(N), solved by bisection; a rate that needs more requests than
 * fit in memory saturates the replica (reported; latency would grow without bound). The
 * estimate has no queueing variance: it is the mean of a loaded, stable system.
 * Paged KV memory holds the mean cached length I + O/2 per request.
 *
 * Disaggregation (Splitwise, Patel et al. ISCA 2024; DistServe, Zhong et al. OSDI 2024):
 * prompts run on a prefill pool, tokens on a decode pool, each with its own GPUs and TP.
 * The prompt's KV cache (I * kv_bytes_per_token per request) moves from the prefill ranks
 * to the decode ranks in parallel over min(tp_prefill, tp_decode) pairs per stage, on
 * NVLink when both pools fit in one NVLink domain and on the network otherwise (or as
 * asked). Splitwise sends each layer's cache as soon as it is computed, so only what
 * outlasts the prefill, and at least the last layer's share, is exposed. The pools work on
 * consecutive batches at once: throughput = batch * O / max(prefill cycle, decode cycle). */
#include <math.h>
#include <string.h>

#include "augur/status.h"
#include "augur/units.h"
#include "infer_graph.h"
#include "infer_memory.h"
#include "serving.h"
#include "static_batch.h"
#include "step_time.h"

struct cstep {
    double t;                 /* one step, with the framework floor */
    struct aug_infer_acc acc; /* the stage step it is made of */
    double busy, rounds;      /* pipeline micro-batches and slots */
    double send;
    enum aug_source send_src;
};

/* One mixed step of a replica: `n` decode-resident requests at the mean context and
 * `chunks` prompt chunks (of C tokens after a mean cached prefix of (I - C) / 2), of which
 * `finishing` complete their prompt and emit a first token. */
static int mixed_step(const struct aug_infer_ctx *c, const struct aug_model *m,
                      const struct aug_system *s, const struct aug_infer_plan *p, double n,
                      double chunks, double finishing, struct cstep *out) {
    double I = (double)p->input_len, O = (double)p->output_len, pp = (double)p->pp;
    double chunk = p->chunk_tokens > 0 ? fmin((double)p->chunk_tokens, I) : I;
    double seqs = n + finishing;
    double mb = fmax(1.0, fmin(ceil(seqs), pp)); /* pipeline micro-batches */
    struct aug_infer_step st;
    memset(&st, 0, sizeof st);
    st.decode_seqs = n / mb;
    st.decode_ctx = I + floor(O / 2.0) - 1.0;
    st.prefill_seqs = chunks / mb;
    st.prefill_len = chunk;
    st.prefill_ctx = (I - chunk) / 2.0;
    st.sample_seqs = (n + finishing) / mb;
    struct aug_infer_graph g;
    aug_infer_graph_build(m, s, p, &st, &g);
    int rc = aug_infer_stage_time(c, m, p, &g, 0, &out->acc);
    if (rc != AUG_OK)
        return rc;
    double tokens = st.decode_seqs + st.prefill_seqs * st.prefill_len;
    if ((rc = aug_infer_pp_send(c, m, p, tokens, &out->send, &out->send_src)) != AUG_OK)
        return rc;
    out->busy = mb;
    out->rounds = fmax(mb, pp);
    out->t = out->rounds * (out->acc.total + out->send) + c->step_overhead_s;
    return AUG_OK;
}

/* Arrivals per step that keep `n` requests decoding (all of them when there is no decode). */
static double arrivals_for(const struct aug_infer_plan *p, double n) {
    return p->output_len > 1 ? n / (double)(p->output_len - 1) : n;
}

/* The steady step at concurrency n: n decoding (none when output_len is 1) plus arrivals. */
static int step_at(const struct aug_infer_ctx *c, const struct aug_model *m,
                   const struct aug_system *s, const struct aug_infer_plan *p, double n,
                   struct cstep *out) {
    double I = (double)p->input_len, a = arrivals_for(p, n);
    double chunk = p->chunk_tokens > 0 ? fmin((double)p->chunk_tokens, I) : I;
    return mixed_step(c, m, s, p, p->output_len > 1 ? n : 0.0, a * I / chunk, a, out);
}

int aug_infer_continuous(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                         struct aug_infer_result *out) {
    struct aug_infer_ctx c;
    aug_infer_ctx_init(&c, s, p, opt);
    double dp = (double)p->dp, I = (double)p->input_len, O = (double)p->output_len;
    double n_max = (double)aug_infer_max_batch(m, s, p) / dp;
    double n = (double)(p->concurrency > 0 ? p->concurrency : p->batch) / dp;
    struct cstep cs;
    int st;
    out->serving.saturated = 0;
    if (p->request_rate > 0) {
        /* Little's law: n = lambda (O - 1) t_step(n), or n = lambda t_step(n) without decode */
        double lam = p->request_rate / dp, life = O > 1 ? O - 1.0 : 1.0;
        double hi = n_max > 0 ? n_max : 1.0, lo = 0.0;
        if ((st = step_at(&c, m, s, p, hi, &cs)) != AUG_OK)
            return st;
        if (lam * life * cs.t >= hi) {
            n = hi;
            out->serving.saturated = 1;
        } else {
            for (int it = 0; it < 100 && hi - lo > 1e-6 * fmax(1.0, hi); it++) {
                double mid = 0.5 * (lo + hi);
                if ((st = step_at(&c, m, s, p, mid, &cs)) != AUG_OK)
                    return st;
                if (mid - lam * life * cs.t > 0)
                    hi = mid;
                else
                    lo = mid;
            }
            n = hi;
        }
    }
    double a = arrivals_for(p, n);
    if ((st = step_at(&c, m, s, p, n, &cs)) != AUG_OK)
        return st;
    /* a request's first token: the steps that carry its prompt, one chunk each, beside
     * the decodes in flight */
    double chunks = p->chunk_tokens > 0 ? ceil(I / fmin((double)p->chunk_tokens, I)) : 1.0;
    struct cstep cf;
    if ((st = mixed_step(&c, m, s, p, O > 1 ? n : 0.0, 1.0, 1.0, &cf)) != AUG_OK)
        return st;
    double decode_steps = O - 1.0;
    out->ttft_s = chunks * cf.t;
    out->tpot_s = O > 1 ? cs.t : 0.0;
    out->tpot_last_s = out->tpot_s;
    out->prefill_s = out->ttft_s;
    out->decode_s = decode_steps * out->tpot_s;
    out->decode_steps = (long)decode_steps;
    out->e2e_latency_s = out->ttft_s + out->decode_s;
    double emitted = O > 1 ? n + a : a; /* decode tokens plus the prompts' first tokens */
    out->throughput_tokens_per_s = dp * emitted / cs.t;
    out->total_tokens_per_s = dp * (emitted + a * I) / cs.t;
    out->decode_step_bytes = cs.acc.bytes;
    double *dst[2][8] = {
        {&out->prefill.gemm_s, &out->prefill.attention_s, &out->prefill.memory_s,
         &out->prefill.lm_head_s, &out->prefill.tp_comm_s, &out->prefill.pp_comm_s,
         &out->prefill.bubble_s, &out->prefill.overhead_s},
        {&out->decode.gemm_s, &out->decode.attention_s, &out->decode.memory_s,
         &out->decode.lm_head_s, &out->decode.tp_comm_s, &out->decode.pp_comm_s,
         &out->decode.bubble_s, &out->decode.overhead_s}};
    const struct cstep *steps[2] = {&cf, &cs};
    double times[2] = {chunks, decode_steps};
    for (int ph = 0; ph < 2; ph++) {
        const struct cstep *x = steps[ph];
        double v[8] = {x->busy * x->acc.cat[AUG_ICAT_GEMM], x->busy * x->acc.cat[AUG_ICAT_ATTENTION],
                       x->busy * x->acc.cat[AUG_ICAT_MEMORY], x->busy * x->acc.cat[AUG_ICAT_HEAD],
                       x->busy * x->acc.cat[AUG_ICAT_TP], x->rounds * x->send,
                       (x->rounds - x->busy) * x->acc.total, c.step_overhead_s};
        for (int k = 0; k < 8; k++)
            *dst[ph][k] = times[ph] * v[k];
    }
    double src[AUG_SOURCE_COUNT];
    for (int i = 0; i < AUG_SOURCE_COUNT; i++)
        src[i] = cs.rounds * cs.acc.src[i];
    src[cs.send_src] += cs.rounds * cs.send;
    src[AUG_SOURCE_FALLBACK] += c.step_overhead_s;
    double sum = src[0] + src[1] + src[2];
    if (sum > 0) {
        out->provenance.calibrated = src[AUG_SOURCE_CURVE] / sum;
        out->provenance.fallback = src[AUG_SOURCE_FALLBACK] / sum;
        out->provenance.roofline = src[AUG_SOURCE_ROOFLINE] / sum;
    }
    out->serving.request_rate = dp * a / cs.t;
    out->serving.concurrency = dp * n;
    out->serving.step_s = cs.t;
    out->serving.prefill_tokens_per_step = dp * a * I;
    out->serving.decode_tokens_per_step = O > 1 ? dp * n : 0.0;

    out->params = aug_model_params(m);
    out->kv_bytes_per_token = aug_infer_kv_bytes_per_token(m, p->kv_dtype);
    double kv = I + O / 2.0, pf = n + (p->chunk_tokens > 0 ? (double)p->chunk_tokens : I);
    aug_infer_memory_at(m, s, p, n, kv, pf, &out->memory);
    out->weight_bytes_per_gpu = out->memory.weights_gib * AUG_GIB;
    out->memory_capacity_gib = s->gpu.hbm_gib;
    out->fits_in_memory = out->memory.total_gib <= s->gpu.hbm_gib;
    out->max_batch = (long)(n_max * dp);
    return AUG_OK;
}

int aug_infer_disaggregated(const struct aug_model *m, const struct aug_system *s,
                            const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                            struct aug_infer_result *out) {
    struct aug_infer_plan pp = *p, dp = *p;
    pp.mode = dp.mode = AUG_SERVE_STATIC;
    pp.tp = p->prefill_tp;
    pp.gpus = p->prefill_gpus;
    pp.dp = p->prefill_gpus / (p->prefill_tp * p->pp);
    pp.output_len = 1;
    dp.tp = p->decode_tp;
    dp.gpus = p->decode_gpus;
    dp.dp = p->decode_gpus / (p->decode_tp * p->pp);
    struct aug_infer_result rp, rd;
    int st;
    memset(&rp, 0, sizeof rp);
    memset(&rd, 0, sizeof rd);
    if ((st = aug_infer_static(m, s, &pp, opt, &rp)) != AUG_OK ||
        (st = aug_infer_static(m, s, &dp, opt, &rd)) != AUG_OK)
        return st;

    /* ---- KV transfer from the prefill ranks to the decode ranks ---- */
    struct aug_infer_ctx c;
    aug_infer_ctx_init(&c, s, p, opt);
    double I = (double)p->input_len, O = (double)p->output_len;
    double kvpt = aug_infer_kv_bytes_per_token(m, p->kv_dtype);
    double seqs = (double)p->batch / (double)pp.dp;
    double pairs = (double)(p->prefill_tp < p->decode_tp ? p->prefill_tp : p->decode_tp) *
                   (double)p->pp;
    long domain = s->nvlink_domain > 0 ? s->nvlink_domain : s->gpus_per_node;
    int link = p->kv_link >= 0 ? p->kv_link
                               : (p->prefill_gpus + p->decode_gpus <= domain ? AUG_LINK_NVLINK
                                                                              : AUG_LINK_NETWORK);
    struct aug_op xfer = aug_op_collective("kv_transfer", AUG_COLL_SEND_RECV,
                                           seqs * I * kvpt / pairs, 2,
                                           link == AUG_LINK_NVLINK ? 2 : 1);
    struct aug_op_time xt;
    if ((st = aug_op_time(&c.with_curves, &xfer, &xt)) != AUG_OK)
        return st;
    double compute = rp.prefill_s - rp.prefill.overhead_s;
    double exposed = fmax(xt.time_s - compute, xt.time_s / (double)m->layers);

    *out = rd;
    out->prefill = rp.prefill;
    out->prefill_s = rp.prefill_s;
    out->ttft_s = rp.prefill_s + exposed;
    out->e2e_latency_s = out->ttft_s + rd.decode_s;
    double cycle = fmax(rp.prefill_s + exposed, rd.decode_s);
    out->throughput_tokens_per_s = (double)p->batch * O / cycle;
    out->total_tokens_per_s = (double)p->batch * (I + O) / cycle;
    double tp = rp.prefill_s, td = rd.decode_s;
    double wsum = tp + td + exposed;
    if (wsum > 0) {
        out->provenance.calibrated =
            (rp.provenance.calibrated * tp + rd.provenance.calibrated * td +
             (xt.source == AUG_SOURCE_CURVE ? exposed : 0.0)) / wsum;
        out->provenance.roofline =
            (rp.provenance.roofline * tp + rd.provenance.roofline * td +
             (xt.source == AUG_SOURCE_ROOFLINE ? exposed : 0.0)) / wsum;
        out->provenance.fallback = 1.0 - out->provenance.calibrated - out->provenance.roofline;
    }
    out->fits_in_memory = rp.fits_in_memory && rd.fits_in_memory;
    out->max_batch = rp.max_batch < rd.max_batch ? rp.max_batch : rd.max_batch;
    out->serving.kv_transfer_s = exposed;
    out->serving.kv_transfer_bytes = I * kvpt;
    out->serving.prefill_gpus = p->prefill_gpus;
    out->serving.decode_gpus = p->decode_gpus;
    out->serving.prefill_tp = p->prefill_tp;
    out->serving.decode_tp = p->decode_tp;
    out->serving.kv_link = aug_link_name((enum aug_link)link);
    return AUG_OK;
}
