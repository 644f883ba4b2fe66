/* SPDX-License-Identifier: Apache-2.0 */
/* step_time.c - the time of one serving step: op-time contexts (calibrated curves, and
 * documented defaults for the ops no curve measures), GEMMs and flash-decoding timed as
 * weight and KV-cache streams, one step on the slowest pipeline stage, the activations
 * crossing a pipeline boundary, and the prefill pass (time to first token). Floors: see
 * infer.c. */
#include <math.h>
#include <string.h>

#include "augur/status.h"
#include "augur/units.h"
#include "hw/efficiency.h"
#include "hw/topology.h"
#include "infer_graph.h"
#include "infer_memory.h"
#include "step_time.h"

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
 * Decode GEMMs are streams of weights: the GEMM curves of kernels-db (gemm_tile, fitted to
 * Vidur's sweeps) stream them at 1,636 GB/s on A100 (0.80 of peak) and 3,067 GB/s on H100
 * (0.92), while aug_op_time() charges every GEMM's bytes at the short-kernel default
 * (0.70), which would bind first. */
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
        aug_kdb_gemm_batched_op_eff(c->with_curves.kdb, AUG_GEMM_OP, op->dtype, groups, op->m,
                                    op->n, op->k, &e) &&
        e > 0)
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
