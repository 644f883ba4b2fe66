/* SPDX-License-Identifier: Apache-2.0 */
/* infer.c - the serving predictor's entry (augur/infer.h): the plan's checks, the
 * dispatch to a serving mode (static_batch.c, serving.c, static_matmulfree.c), and the
 * Optimus-style bound analysis of every op. The model it implements: prefill (time to first
 * token), decode steps over a growing KV cache (time per output token), end-to-end latency
 * and throughput, memory and the largest batch.
 *
 * Static batching (the TensorRT-LLM gptSessionBenchmark / FasterTransformer scheme): all
 * sequences of a replica prefill together, the first token comes out of the prefill, then
 * output_len - 1 decode steps each read every weight once and the whole KV cache
 * (Pope et al. 2022, "Efficiently Scaling Transformer Inference", sec. 2-3: decode is
 * memory-bound at small batch). Step j attends over input_len + j tokens; the attention
 * time is summed step by step, everything else does not depend on the context.
 *
 * Pipeline parallelism: the batch is cut into m = min(batch, pp) micro-batches. Prefill is
 * one fill-and-drain pass, (m + pp - 1) slots (GPipe, Huang et al. 2019). In decode a
 * micro-batch's next token can enter the first stage only when its previous token has left
 * the last, so every micro-batch advances once per max(m, pp) slots.
 *
 * Op times: aug_op_time() (calibrated curve, else default efficiency) for memory-bound ops
 * and collectives; GEMMs and flash-decoding through gemm_time() and stream_time() (step_time.c),
 * which use the same curves and defaults but charge large weight and KV-cache streams at
 * AUG_INFER_STREAM_EFF of HBM bandwidth.
 *
 * Floors (documented, overridable):
 * - kernel launch: every kernel pays the GPU's launch_us (kernels-db/gpus.csv) unless a
 *   calibrated curve already includes it (--launch-us overrides; CUDA graphs shrink it);
 * - framework step: AUG_INFER_DEFAULT_STEP_OVERHEAD_US per forward step, the host work of a
 *   serving runtime between two steps (scheduling, sampling bookkeeping, the stop check
 *   that synchronizes host and device, input preparation). Vidur (Agrawal et al., MLSys
 *   2024, sec. 4) models the same per-iteration CPU overhead from profiles of the
 *   scheduler, sampler and pre/post-processing; the default, 0.3 ms, is the order of a
 *   C++ runtime (TensorRT-LLM); Python engines such as vLLM before 0.6 spent several ms
 *   (--step-overhead-us overrides). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "augur/status.h"
#include "augur/units.h"
#include "hw/efficiency.h"
#include "infer_graph.h"
#include "infer_matmulfree.h"
#include "infer_memory.h"
#include "serving.h"
#include "static_batch.h"
#include "step_time.h"
#include "model/memory.h"
#include "hw/topology.h"
#include "infer/infer_check.h"

/* Contexts beyond this are not a serving question (2^31 tokens). */
#define AUG_INFER_MAX_CONTEXT 2147483648.0

static const char *const mode_names[] = {"static", "continuous", "disaggregated"};
_Static_assert(sizeof mode_names / sizeof *mode_names == AUG_SERVE_COUNT, "mode names");

const char *aug_serve_mode_name(enum aug_serve_mode m) {
    return (unsigned)m < AUG_SERVE_COUNT ? mode_names[m] : "?";
}

int aug_serve_mode_from_name(const char *name, enum aug_serve_mode *out) {
    for (int i = 0; name && i < AUG_SERVE_COUNT; i++)
        if (strcasecmp(name, mode_names[i]) == 0) {
            *out = (enum aug_serve_mode)i;
            return AUG_OK;
        }
    if (name && (strcasecmp(name, "disagg") == 0 || strcasecmp(name, "splitwise") == 0)) {
        *out = AUG_SERVE_DISAGGREGATED;
        return AUG_OK;
    }
    if (name && (strcasecmp(name, "inflight") == 0 || strcasecmp(name, "in-flight") == 0)) {
        *out = AUG_SERVE_CONTINUOUS;
        return AUG_OK;
    }
    return aug_errorf(AUG_EUSAGE, "unknown serving mode '%s' (use static, continuous or "
                                  "disaggregated)", name ? name : "");
}

void aug_infer_plan_init(struct aug_infer_plan *p) {
    memset(p, 0, sizeof *p);
    p->tp = p->pp = p->ep = 1;
    p->batch = 1;
    p->dtype = AUG_DTYPE_BF16;
    p->weight_dtype = p->kv_dtype = AUG_DTYPE_COUNT;
    p->flash_attention = 1;
    p->launch_us = -1.0;
    p->step_overhead_us = -1.0;
    p->workspace_gib = -1.0;
    p->mode = AUG_SERVE_STATIC;
    p->kv_link = -1;
}

static int check_tp(const struct aug_model *m, long tp, const char *what) {
    if (m->arch == AUG_ARCH_MATMULFREE) /* hook: no heads, TP splits channels */
        return aug_infer_mmf_check_tp(m, tp, what);
    if (m->heads % tp != 0)
        return aug_errorf(AUG_EUSAGE, "heads %ld are not divisible by %s %ld", m->heads, what, tp);
    if (m->kv_heads % tp != 0 && tp % m->kv_heads != 0)
        return aug_errorf(AUG_EUSAGE, "KV heads %ld and %s %ld: neither divides the other",
                          m->kv_heads, what, tp);
    return AUG_OK;
}

/* A pool of `gpus` GPUs made of replicas of tp * pp GPUs that share `batch`. */
static int check_pool(const struct aug_infer_plan *p, long gpus, long tp, const char *what,
                      long *dp) {
    long rep = tp * p->pp;
    if (gpus % rep != 0)
        return aug_errorf(AUG_EUSAGE, "%s GPUs %ld are not divisible by tp*pp = %ld*%ld = %ld", what,
                          gpus, tp, p->pp, rep);
    *dp = gpus / rep;
    if (p->batch % *dp != 0)
        return aug_errorf(AUG_EUSAGE, "batch %ld is not divisible by the %ld %s replicas "
                                      "(gpus / (tp*pp))", p->batch, *dp, what);
    return AUG_OK;
}

static int check_dtypes(const struct aug_infer_plan *p, const struct aug_system *s) {
    const struct aug_gpu *g = &s->gpu;
    if (!(g->peak_tflops[p->dtype] > 0))
        return aug_errorf(AUG_EUNSUPPORTED,
                          "%s (%s) has no %s tensor-core path: compute dtype %s cannot run there "
                          "(weight-only quantization keeps 16-bit compute: --weight-dtype %s)",
                          g->name, g->id, aug_dtype_name(p->dtype), aug_dtype_name(p->dtype),
                          aug_dtype_name(p->dtype));
    if (!(g->peak_tflops[AUG_DTYPE_BF16] > 0 || g->peak_tflops[AUG_DTYPE_FP16] > 0) &&
        p->dtype != AUG_DTYPE_FP32)
        return aug_errorf(AUG_EUNSUPPORTED, "%s has no 16-bit tensor path for attention", g->name);
    static const char *const what[] = {"weight", "KV-cache"};
    enum aug_dtype st[2] = {p->weight_dtype, p->kv_dtype};
    for (int i = 0; i < 2; i++) {
        if (st[i] == AUG_DTYPE_FP8 && !(g->peak_tflops[AUG_DTYPE_FP8] > 0))
            return aug_errorf(AUG_EUNSUPPORTED,
                              "%s (%s) has no fp8 support: %s dtype fp8 cannot run there (use int8 "
                              "or int4 storage, or bf16)", g->name, g->id, what[i]);
        if (st[i] == AUG_DTYPE_TF32)
            return aug_errorf(AUG_EUSAGE, "%s dtype tf32 is a compute format; store in fp32", what[i]);
    }
    return AUG_OK;
}

int aug_infer_plan_resolve(struct aug_infer_plan *p, const struct aug_model *m,
                           const struct aug_system *s) {
    int st;
    if (p->batch < 1)
        return aug_errorf(AUG_EUSAGE, "batch %ld: must be at least 1 sequence", p->batch);
    if (p->input_len < 1)
        return aug_errorf(AUG_EUSAGE, "input length %ld: must be at least 1 token", p->input_len);
    if (p->output_len < 1)
        return aug_errorf(AUG_EUSAGE, "output length %ld: must be at least 1 token (the first "
                                      "comes out of the prefill)", p->output_len);
    if ((double)p->input_len + (double)p->output_len > AUG_INFER_MAX_CONTEXT ||
        (double)p->batch > AUG_INFER_MAX_CONTEXT)
        return aug_errorf(AUG_EUSAGE, "batch %ld, input length %ld and output length %ld: at most "
                                      "2^31 each (sequences or tokens)", p->batch, p->input_len,
                          p->output_len);
    if (p->tp < 1 || p->pp < 1 || p->ep < 1 || p->gpus < 0)
        return aug_errorf(AUG_EUSAGE, "parallel degrees must be positive (gpus %ld, tp %ld, pp %ld, "
                                      "ep %ld)", p->gpus, p->tp, p->pp, p->ep);
    if (m->max_seq > 0 && p->input_len + p->output_len > m->max_seq)
        return aug_errorf(AUG_EUSAGE, "input length %ld + output length %ld = %ld tokens exceed the "
                                      "maximum context of model '%s' (%ld tokens)",
                          p->input_len, p->output_len, p->input_len + p->output_len, m->name,
                          m->max_seq);
    if ((st = check_tp(m, p->tp, "tp")) != AUG_OK)
        return st;
    if (m->layers < p->pp)
        return aug_errorf(AUG_EUSAGE, "layers %ld are fewer than pp %ld", m->layers, p->pp);
    if (p->ep > 1) {
        if (m->arch != AUG_ARCH_MOE)
            return aug_errorf(AUG_EUSAGE, "ep %ld needs a mixture-of-experts model ('%s' is dense)",
                              p->ep, m->name);
        if (p->tp % p->ep != 0)
            return aug_errorf(AUG_EUSAGE, "ep %ld must divide tp %ld (experts are spread over the "
                                          "ranks of the TP group)", p->ep, p->tp);
        if (m->moe_experts % p->ep != 0)
            return aug_errorf(AUG_EUSAGE, "experts %ld are not divisible by ep %ld", m->moe_experts,
                              p->ep);
    }
    if (p->attn_dp && (m->arch != AUG_ARCH_MOE || p->tp < 2 || p->ep != p->tp))
        return aug_errorf(AUG_EUSAGE, "attention data parallelism needs an MoE model served with "
                                      "ep = tp > 1 (got ep %ld, tp %ld, model '%s')",
                          p->ep, p->tp, m->name);
    if ((unsigned)p->dtype >= AUG_DTYPE_COUNT)
        return aug_errorf(AUG_EUSAGE, "unknown compute dtype");
    if ((unsigned)p->weight_dtype >= AUG_DTYPE_COUNT)
        p->weight_dtype = p->dtype;
    if ((unsigned)p->kv_dtype >= AUG_DTYPE_COUNT)
        p->kv_dtype = p->dtype == AUG_DTYPE_INT4 ? AUG_DTYPE_INT8 : p->dtype;
    if (p->dtype == AUG_DTYPE_TF32 && p->weight_dtype == AUG_DTYPE_TF32)
        p->weight_dtype = AUG_DTYPE_FP32;
    if (p->dtype == AUG_DTYPE_TF32 && p->kv_dtype == AUG_DTYPE_TF32)
        p->kv_dtype = AUG_DTYPE_FP32;
    if ((st = check_dtypes(p, s)) != AUG_OK)
        return st;
    if (!isfinite(p->launch_us) || !isfinite(p->step_overhead_us) || !isfinite(p->workspace_gib))
        return aug_errorf(AUG_EUSAGE, "launch, step overhead and workspace must be finite");
    if (p->mode == AUG_SERVE_DISAGGREGATED) {
        if (p->prefill_tp <= 0)
            p->prefill_tp = p->tp;
        if (p->decode_tp <= 0)
            p->decode_tp = p->tp;
        if ((st = check_tp(m, p->prefill_tp, "prefill tp")) != AUG_OK ||
            (st = check_tp(m, p->decode_tp, "decode tp")) != AUG_OK)
            return st;
        if (p->ep > 1 && (p->prefill_tp % p->ep || p->decode_tp % p->ep))
            return aug_errorf(AUG_EUSAGE, "ep %ld must divide both pools' tp (%ld, %ld)", p->ep,
                              p->prefill_tp, p->decode_tp);
        long rp = p->prefill_tp * p->pp, rd = p->decode_tp * p->pp;
        if (p->prefill_gpus <= 0 && p->decode_gpus <= 0) {
            if (p->gpus > 0) {
                p->prefill_gpus = p->gpus / 2 / rp * rp;
                p->decode_gpus = p->gpus - p->prefill_gpus;
            } else {
                p->prefill_gpus = rp;
                p->decode_gpus = rd;
            }
        } else if (p->prefill_gpus <= 0) {
            p->prefill_gpus = p->gpus > 0 ? p->gpus - p->decode_gpus : rp;
        } else if (p->decode_gpus <= 0) {
            p->decode_gpus = p->gpus > 0 ? p->gpus - p->prefill_gpus : rd;
        }
        if (p->prefill_gpus < rp || p->decode_gpus < rd)
            return aug_errorf(AUG_EUSAGE, "disaggregation needs a prefill pool of at least %ld and a "
                                          "decode pool of at least %ld GPUs (have %ld and %ld)",
                              rp, rd, p->prefill_gpus, p->decode_gpus);
        if (p->gpus > 0 && p->prefill_gpus + p->decode_gpus != p->gpus)
            return aug_errorf(AUG_EUSAGE, "prefill GPUs %ld + decode GPUs %ld do not equal gpus %ld",
                              p->prefill_gpus, p->decode_gpus, p->gpus);
        p->gpus = p->prefill_gpus + p->decode_gpus;
        long dpp;
        if ((st = check_pool(p, p->prefill_gpus, p->prefill_tp, "prefill", &dpp)) != AUG_OK ||
            (st = check_pool(p, p->decode_gpus, p->decode_tp, "decode", &p->dp)) != AUG_OK)
            return st;
        if (p->kv_link >= AUG_LINK_COUNT)
            return aug_errorf(AUG_EUSAGE, "unknown KV link %d", p->kv_link);
    } else {
        if (p->gpus == 0)
            p->gpus = p->tp * p->pp;
        if ((st = check_pool(p, p->gpus, p->tp, "serving", &p->dp)) != AUG_OK)
            return st;
    }
    if (p->mode == AUG_SERVE_CONTINUOUS) {
        if (p->concurrency < 0 || p->chunk_tokens < 0 || !(p->request_rate >= 0) ||
            !isfinite(p->request_rate))
            return aug_errorf(AUG_EUSAGE, "request rate %g, concurrency %ld and chunk tokens %ld "
                                          "must not be negative", p->request_rate, p->concurrency,
                              p->chunk_tokens);
        if (p->concurrency > 0 && p->concurrency % p->dp != 0)
            return aug_errorf(AUG_EUSAGE, "concurrency %ld is not divisible by the %ld replicas",
                              p->concurrency, p->dp);
    }
    return AUG_OK;
}

int aug_infer_predict(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                      struct aug_infer_result *out) {
    memset(out, 0, sizeof *out);
    if (p->dp < 1 || p->batch < 1 || p->input_len < 1 || p->output_len < 1 ||
        (unsigned)p->weight_dtype >= AUG_DTYPE_COUNT || (unsigned)p->kv_dtype >= AUG_DTYPE_COUNT)
        return aug_errorf(AUG_EUSAGE, "the serving plan was not resolved (aug_infer_plan_resolve)");
    int st;
    switch (p->mode) {
    case AUG_SERVE_CONTINUOUS: st = aug_infer_continuous(m, s, p, opt, out); break;
    case AUG_SERVE_DISAGGREGATED: st = aug_infer_disaggregated(m, s, p, opt, out); break;
    default: st = aug_infer_static(m, s, p, opt, out); break;
    }
    out->mode = p->mode;
    if (st == AUG_OK)
        st = aug_infer_check_finite(m, s, p, out);
    return st;
}

/* ---- bound analysis ---- */

static int report_phase(const struct aug_infer_ctx *c, const struct aug_model *m,
                        const struct aug_infer_plan *p, const struct aug_infer_graph *g,
                        const char *phase, struct aug_infer_op_report *ops, int cap, int *n) {
    struct aug_infer_acc total;
    int st = aug_infer_stage_time(c, m, p, g, 0, &total);
    if (st != AUG_OK)
        return st;
    const struct aug_gpu *gpu = &c->sys.gpu;
    double bw = gpu->hbm_gbps * 1e9, Ls = (double)aug_infer_stage_layers(m, p);
    for (int part = 0; part < 2; part++) {
        const struct aug_infer_gop *list = part ? g->head : g->layer;
        int cnt = part ? g->n_head : g->n_layer;
        for (int i = 0; i < cnt && *n < cap; i++) {
            const struct aug_infer_gop *go = &list[i];
            struct aug_op_time t;
            if ((st = aug_infer_time_op(c, go, &t)) != AUG_OK)
                return st;
            struct aug_infer_op_report *r = &ops[(*n)++];
            memset(r, 0, sizeof *r);
            snprintf(r->phase, sizeof r->phase, "%s", phase);
            snprintf(r->name, sizeof r->name, "%s", go->op.name ? go->op.name : "?");
            snprintf(r->kind, sizeof r->kind, "%s", aug_op_kind_name(go->op.kind));
            r->count = (part ? 1.0 : Ls) * go->op.count;
            r->flops = go->op.flops;
            r->bytes = go->op.bytes;
            r->time_s = t.time_s;
            r->share = total.total > 0 ? r->count * t.time_s / total.total : 0.0;
            snprintf(r->source, sizeof r->source, "%s", aug_source_name(t.source));
            aug_op_shape_of(&go->op, &r->shape);
            if (go->op.kind == AUG_OP_COLLECTIVE)
                continue; /* no FLOPs: neither bound applies */
            double peak = go->op.kind == AUG_OP_MEMORY ? gpu->vector_tflops
                                                       : gpu->peak_tflops[go->op.dtype];
            r->intensity = go->op.bytes > 0 ? go->op.flops / go->op.bytes : 0.0;
            r->ridge = peak * 1e12 / bw;
            r->compute_bound = r->intensity >= r->ridge;
        }
    }
    return AUG_OK;
}

int aug_infer_ops(const struct aug_model *m, const struct aug_system *s,
                  const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                  struct aug_infer_op_report *ops, int cap, int *n) {
    *n = 0;
    struct aug_infer_ctx c;
    aug_infer_ctx_init(&c, s, p, opt);
    double I = (double)p->input_len, O = (double)p->output_len, pp = (double)p->pp;
    double b = (double)p->batch / (double)(p->dp > 0 ? p->dp : 1);
    double mbs = ceil(b / fmin(b, pp));
    struct aug_infer_graph g;
    struct aug_infer_step pst = {0, 0, mbs, I, 0, mbs};
    aug_infer_graph_build(m, s, p, &pst, &g);
    int st = report_phase(&c, m, p, &g, "prefill", ops, cap, n);
    if (st != AUG_OK)
        return st;
    struct aug_infer_step dst = {mbs, I + floor(O / 2.0), 0, 0, 0, mbs};
    aug_infer_graph_build(m, s, p, &dst, &g);
    return report_phase(&c, m, p, &g, "decode", ops, cap, n);
}
