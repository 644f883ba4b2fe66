/* infer.c - serving one batch: prefill (time to first token), decode steps over a growing
 * KV cache (time per output token), end-to-end latency and throughput, memory and the
 * largest batch; the plan's checks; the Optimus-style bound analysis of every op.
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
 * and collectives; GEMMs and flash-decoding through gemm_time() and stream_time() below,
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
#include "efficiency.h"
#include "infer_internal.h"
#include "infer_matmulfree.h"
#include "train_internal.h"

/* Decode steps summed one by one; beyond this, sampled (see aug_infer_static). */
#define AUG_INFER_EXACT_STEPS 16384.0

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

/* ---- timing ---- */

void aug_infer_ctx_init(struct aug_infer_ctx *c, const struct aug_system *s,
                        const struct aug_infer_plan *p, const struct aug_infer_options *opt) {
    memset(c, 0, sizeof *c);
    c->sys = *s;
    if (p->launch_us >= 0)
        c->sys.gpu.launch_us = p->launch_us;
    int pure = opt && opt->pure_roofline;
    c->with_curves.sys = &c->sys;
    c->with_curves.kdb = opt ? opt->kdb : NULL;
    c->with_curves.pure_roofline = pure;
    c->defaults = c->with_curves;
    c->defaults.kdb = NULL;
    double us = p->step_overhead_us >= 0 ? p->step_overhead_us : AUG_INFER_DEFAULT_STEP_OVERHEAD_US;
    c->step_overhead_s = pure ? 0.0 : us * 1e-6;
}

void aug_infer_acc_add(struct aug_infer_acc *dst, const struct aug_infer_acc *a, double k) {
    for (int i = 0; i < AUG_ICAT_COUNT; i++)
        dst->cat[i] += k * a->cat[i];
    for (int i = 0; i < AUG_SOURCE_COUNT; i++)
        dst->src[i] += k * a->src[i];
    dst->total += k * a->total;
    dst->flops += k * a->flops;
    dst->bytes += k * a->bytes;
}

/* A streaming kernel (flash-decoding): the attention default for its compute, the
 * streaming share of HBM bandwidth for its bytes, plus the launch gap. */
static int stream_time(const struct aug_infer_ctx *c, const struct aug_op *op, double core_eff,
                       struct aug_op_time *t) {
    const struct aug_gpu *gpu = &c->sys.gpu;
    double peak = gpu->peak_tflops[op->dtype] * 1e12;
    if (!(peak > 0))
        return aug_errorf(AUG_EUNSUPPORTED, "%s has no %s peak for op '%s'", gpu->name,
                          aug_dtype_name(op->dtype), op->name);
    double eff_c = aug_eff_attention(op->seq_q, op->seq_kv, op->head_dim, 0);
    double tc = op->flops / (peak * eff_c);
    if (core_eff > 0) { /* one query head per thread block, on CUDA cores */
        eff_c = core_eff;
        tc = op->flops / (gpu->vector_tflops * 1e12 * core_eff);
    }
    double tm = op->bytes / (gpu->hbm_gbps * 1e9 * AUG_INFER_STREAM_EFF);
    memset(t, 0, sizeof *t);
    t->compute_bound = tc >= tm;
    t->eff = t->compute_bound ? eff_c : AUG_INFER_STREAM_EFF;
    t->time_s = fmax(tc, tm) + gpu->launch_us * 1e-6;
    t->intensity = op->bytes > 0 ? op->flops / op->bytes : 0.0;
    t->source = AUG_SOURCE_FALLBACK;
    return AUG_OK;
}

/* A GEMM: its compute term from the calibrated curve (unless its operands are not what the
 * curves measured) or the default efficiency, its memory term at the streaming efficiency.
 * Decode GEMMs are streams of weights: the gemm_roof curves of kernels-db fit them at
 * 1,850 GB/s on A100 (0.91 of peak) and above 3,400 GB/s on H100, while aug_op_time()
 * charges every GEMM's bytes at the short-kernel default (0.70), which would bind first. */
static int gemm_time(const struct aug_infer_ctx *c, const struct aug_infer_gop *g,
                     struct aug_op_time *t) {
    const struct aug_op *op = &g->op;
    const struct aug_gpu *gpu = &c->sys.gpu;
    double peak = gpu->peak_tflops[op->dtype] * 1e12;
    if (!(peak > 0))
        return aug_errorf(AUG_EUNSUPPORTED, "%s has no %s peak for op '%s'", gpu->name,
                          aug_dtype_name(op->dtype), op->name);
    memset(t, 0, sizeof *t);
    double e = 0.0, groups = op->batch > 0 ? op->batch : 1.0;
    t->source = AUG_SOURCE_FALLBACK;
    if (!g->defaults_only &&
        aug_kdb_gemm_eff(c->with_curves.kdb, op->dtype, op->m * groups, op->n, op->k, &e) && e > 0)
        t->source = AUG_SOURCE_CURVE;
    else
        e = aug_eff_gemm(gpu, op->dtype, op->m, op->n, op->k, groups);
    /* a GEMV-like decode GEMM (at most one 16-row MMA fragment of tokens) whose output
     * fills fewer tiles than the GPU has SMs is split along k (split-K, as cuBLAS(Lt) does
     * for such shapes) so every SM streams weights: its compute is the MMA work with rows
     * padded to 16, at the efficiency of large GEMMs. The defaults' saturation in total
     * FLOPs would make such a weight stream look compute-bound; from 17 rows on it stands
     * (it matches TensorRT-LLM's 128-token prefills on H100 and H200 within 10%). */
    const struct aug_eff_defaults *d = aug_eff_defaults();
    double tiles = ceil(op->m * groups / d->gemm_tile_m) * ceil(op->n / d->gemm_tile_n);
    if (t->source == AUG_SOURCE_FALLBACK && tiles < (double)gpu->sm_count && op->m > 0 &&
        op->m <= 16.0) {
        double e_max = op->dtype == AUG_DTYPE_FP8 ? d->gemm_e_max_fp8 : d->gemm_e_max;
        e = fmax(e, e_max * op->m / (16.0 * ceil(op->m / 16.0)));
    }
    double tc = op->flops / (peak * e);
    double tm = op->bytes / (gpu->hbm_gbps * 1e9 * AUG_INFER_STREAM_EFF);
    t->compute_bound = tc >= tm;
    t->eff = t->compute_bound ? e : AUG_INFER_STREAM_EFF;
    /* a gemm curve's constant term already holds the launch and prologue it measured */
    double launch = t->source == AUG_SOURCE_CURVE ? 0.0 : gpu->launch_us * 1e-6;
    t->time_s = fmax(tc, tm) + launch;
    t->intensity = op->bytes > 0 ? op->flops / op->bytes : 0.0;
    return AUG_OK;
}

int aug_infer_time_op(const struct aug_infer_ctx *c, const struct aug_infer_gop *g,
                      struct aug_op_time *t) {
    if (g->stream && !c->defaults.pure_roofline)
        return stream_time(c, &g->op, g->core_eff, t);
    if (g->op.kind == AUG_OP_GEMM && !c->defaults.pure_roofline)
        return gemm_time(c, g, t);
    return aug_op_time(g->defaults_only ? &c->defaults : &c->with_curves, &g->op, t);
}

int aug_infer_time_ops(const struct aug_infer_ctx *c, const struct aug_infer_gop *ops, int first,
                       int n, int skip, double mult, struct aug_infer_acc *acc) {
    for (int i = first; i < first + n; i++) {
        if (i == skip)
            continue;
        struct aug_op_time t;
        int st = aug_infer_time_op(c, &ops[i], &t);
        if (st != AUG_OK)
            return st;
        double k = mult * ops[i].op.count, sec = k * t.time_s;
        acc->cat[ops[i].cat] += sec;
        acc->src[t.source] += sec;
        acc->total += sec;
        acc->flops += k * ops[i].op.flops;
        acc->bytes += k * (ops[i].op.kind == AUG_OP_COLLECTIVE ? 0.0 : ops[i].op.bytes);
    }
    return AUG_OK;
}

int aug_infer_stage_time(const struct aug_infer_ctx *c, const struct aug_model *m,
                         const struct aug_infer_plan *p, const struct aug_infer_graph *g,
                         int skip_decode_attn, struct aug_infer_acc *acc) {
    memset(acc, 0, sizeof *acc);
    double Ls = (double)aug_infer_stage_layers(m, p);
    int st = aug_infer_time_ops(c, g->layer, 0, g->n_layer, skip_decode_attn ? g->decode_attn : -1,
                                Ls, acc);
    if (st != AUG_OK)
        return st;
    struct aug_infer_acc ends[2];
    memset(ends, 0, sizeof ends);
    for (int i = 0; i < g->n_head; i++)
        if ((st = aug_infer_time_ops(c, g->head, i, 1, -1, 1.0, &ends[g->head[i].stage])) != AUG_OK)
            return st;
    if (p->pp == 1) {
        aug_infer_acc_add(acc, &ends[0], 1.0);
        aug_infer_acc_add(acc, &ends[1], 1.0);
    } else {
        aug_infer_acc_add(acc, &ends[ends[1].total >= ends[0].total], 1.0);
    }
    return AUG_OK;
}

int aug_infer_pp_send(const struct aug_infer_ctx *c, const struct aug_model *m,
                      const struct aug_infer_plan *p, double tokens, double *t,
                      enum aug_source *src) {
    *t = 0.0;
    *src = AUG_SOURCE_FALLBACK;
    if (p->pp <= 1 || !(tokens > 0))
        return AUG_OK;
    struct aug_infer_dims x;
    aug_infer_dims(m, &c->sys, p, &x);
    /* the pipeline runs at the pace of its slowest boundary: once the stages span more
     * than one NVLink domain some send crosses the network */
    int per_domain = aug_ranks_per_domain(&c->sys, p->pp, p->tp) >= p->pp ? 2 : 1;
    struct aug_op op = aug_op_collective("pp_send", AUG_COLL_SEND_RECV, tokens * x.h * x.e, 2,
                                         per_domain);
    struct aug_op_time ot;
    int st = aug_op_time(&c->with_curves, &op, &ot);
    if (st != AUG_OK)
        return st;
    *t = ot.time_s;
    *src = ot.source;
    return AUG_OK;
}

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

void aug_infer_add_busy(struct aug_infer_breakdown *b, const struct aug_infer_acc *a, double busy) {
    b->gemm_s += busy * a->cat[AUG_ICAT_GEMM];
    b->attention_s += busy * a->cat[AUG_ICAT_ATTENTION];
    b->memory_s += busy * a->cat[AUG_ICAT_MEMORY];
    b->lm_head_s += busy * a->cat[AUG_ICAT_HEAD];
    b->tp_comm_s += busy * a->cat[AUG_ICAT_TP];
}

int aug_infer_prefill(const struct aug_infer_ctx *c, const struct aug_model *m,
                      const struct aug_system *s, const struct aug_infer_plan *p,
                      struct aug_infer_result *out, double src[AUG_SOURCE_COUNT]) {
    /* one fill-and-drain pass over the micro-batches of the prompt */
    double I = (double)p->input_len, pp = (double)p->pp;
    double b = (double)p->batch / (double)(p->dp > 0 ? p->dp : 1);
    double mpf = fmin(b, pp), mbs = ceil(b / mpf);
    struct aug_infer_step pst = {0, 0, mbs, I, 0, mbs};
    struct aug_infer_graph g;
    aug_infer_graph_build(m, s, p, &pst, &g);
    struct aug_infer_acc pf;
    double send;
    enum aug_source ssrc;
    int st;
    if ((st = aug_infer_stage_time(c, m, p, &g, 0, &pf)) != AUG_OK ||
        (st = aug_infer_pp_send(c, m, p, mbs * I, &send, &ssrc)) != AUG_OK)
        return st;
    double slots = mpf + pp - 1.0;
    out->prefill_s = slots * (pf.total + send) + c->step_overhead_s;
    aug_infer_add_busy(&out->prefill, &pf, mpf);
    out->prefill.bubble_s = (slots - mpf) * pf.total;
    out->prefill.pp_comm_s = slots * send;
    out->prefill.overhead_s = c->step_overhead_s;
    for (int i = 0; i < AUG_SOURCE_COUNT; i++)
        src[i] += slots * pf.src[i];
    src[ssrc] += slots * send;
    src[AUG_SOURCE_FALLBACK] += c->step_overhead_s;
    return AUG_OK;
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
    return st;
}

/* ---- bound analysis ---- */

static const char *kind_name(enum aug_op_kind k) {
    switch (k) {
    case AUG_OP_GEMM: return "gemm";
    case AUG_OP_ATTENTION: return "attention";
    case AUG_OP_MEMORY: return "memory";
    default: return "collective";
    }
}

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
            snprintf(r->kind, sizeof r->kind, "%s", kind_name(go->op.kind));
            r->count = (part ? 1.0 : Ls) * go->op.count;
            r->flops = go->op.flops;
            r->bytes = go->op.bytes;
            r->time_s = t.time_s;
            r->share = total.total > 0 ? r->count * t.time_s / total.total : 0.0;
            snprintf(r->source, sizeof r->source, "%s", aug_source_name(t.source));
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
