/* SPDX-License-Identifier: Apache-2.0 */
/* op.c - the hybrid step: one operator's time from its FLOPs and bytes, the GPU's peaks,
 * and an efficiency that comes from a calibrated curve, the default table, or nothing.
 *
 *   t = max(flops / (peak_dtype * eff_c), bytes / (hbm_bw * eff_m)) + launch
 *
 * A calibrated memory or collective curve gives the time directly (it was fitted as
 * latency + size / bandwidth, launch included). */
#include "augur/attention.h"
#include "augur/op.h"
#include "augur/plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "augur/status.h"
#include "augur/system.h"
#include "collective_internal.h"
#include "efficiency.h"
#include "hw/gemm_model.h"
#include "hw/kernel_model.h"

struct aug_op aug_op_gemm(const char *name, enum aug_dtype dt, double m, double n, double k,
                          double batch) {
    struct aug_op op;
    memset(&op, 0, sizeof op);
    op.name = name;
    op.kind = AUG_OP_GEMM;
    op.dtype = dt;
    op.m = m;
    op.n = n;
    op.k = k;
    op.batch = batch;
    op.count = 1;
    op.flops = 2.0 * m * n * k * batch;
    /* read A (m x k) and B (k x n), write C (m x n), each once */
    op.bytes = (m * k + k * n + m * n) * batch * aug_dtype_bytes(dt);
    return op;
}

struct aug_op aug_op_attention(const char *name, enum aug_dtype dt, double batch, double q_heads,
                               double kv_heads, double seq_q, double seq_kv, double head_dim,
                               int causal, double window, int chunked, int backward) {
    struct aug_op op;
    memset(&op, 0, sizeof op);
    op.name = name;
    op.kind = AUG_OP_ATTENTION;
    op.dtype = dt;
    op.count = 1;
    op.batch_heads = batch * q_heads;
    op.seq_q = seq_q;
    op.seq_kv = seq_kv;
    op.head_dim = head_dim;
    op.causal = causal;
    op.window = causal && window > 0 && window < seq_kv ? window : 0.0;
    op.chunked = op.window > 0 && chunked;
    op.backward = backward;
    op.attn_kernel = AUG_ATTN_KERNEL_CUDNN;
    double pairs = causal ? aug_attention_local_pairs(seq_q, seq_kv, op.window, op.chunked)
                          : seq_q * seq_kv;
    double keys = aug_attention_local_keys(seq_q, seq_kv, op.window, op.chunked);
    op.flops = 4.0 * op.batch_heads * head_dim * pairs * (backward ? 2.5 : 1.0);
    op.bytes = aug_dtype_bytes(dt) * batch * head_dim *
               (2.0 * q_heads * seq_q + 2.0 * kv_heads * keys) * (backward ? 2.0 : 1.0);
    return op;
}

struct aug_op aug_op_attention_widths(const char *name, enum aug_dtype dt, double batch,
                                      double q_heads, double kv_heads, double seq_q,
                                      double seq_kv, double d_qk, double d_v, int causal,
                                      double window, int chunked, int backward) {
    struct aug_op w;
    memset(&w, 0, sizeof w);
    aug_op_attention_set_widths(&w, d_qk, d_v);
    struct aug_op op = aug_op_attention(name, dt, batch, q_heads, kv_heads, seq_q, seq_kv,
                                        w.head_dim, causal, window, chunked, backward);
    op.head_dim_v = w.head_dim_v;
    return op;
}

void aug_op_attention_set_widths(struct aug_op *op, double d_qk, double d_v) {
    int two = d_v > 0 && d_v != d_qk;
    op->head_dim = two ? 0.5 * (d_qk + d_v) : d_qk;
    op->head_dim_v = two ? d_v : 0.0;
}

struct aug_op aug_op_memory(const char *name, const char *mem_op, enum aug_dtype dt, double bytes,
                            double flops) {
    struct aug_op op;
    memset(&op, 0, sizeof op);
    op.name = name;
    op.kind = AUG_OP_MEMORY;
    op.mem_op = mem_op;
    op.dtype = dt;
    op.bytes = bytes;
    op.flops = flops;
    op.count = 1;
    return op;
}

struct aug_op aug_op_collective(const char *name, enum aug_coll c, double size_bytes, int ranks,
                                int ranks_per_domain) {
    struct aug_op op;
    memset(&op, 0, sizeof op);
    op.name = name;
    op.kind = AUG_OP_COLLECTIVE;
    op.coll = c;
    op.size_bytes = size_bytes;
    op.bytes = size_bytes;
    op.ranks = ranks;
    op.ranks_per_domain = ranks_per_domain;
    op.count = 1;
    return op;
}

static void finish(struct aug_op_time *out, double tc, double tm, double launch_s, double eff_c,
                   double eff_m, const struct aug_op *op) {
    out->compute_bound = tc >= tm;
    out->eff = out->compute_bound ? eff_c : eff_m;
    out->time_s = (tc > tm ? tc : tm) + launch_s;
    out->intensity = op->bytes > 0 ? op->flops / op->bytes : INFINITY;
}

/* Physics: no kernel is faster than its FLOPs at the datasheet peak or its bytes at the
 * datasheet HBM bandwidth, whatever a curve, an extrapolation or a default says. */
static void physics_clamp(const struct aug_gpu *gpu, const struct aug_op *op, double peak,
                          struct aug_op_time *out) {
    double bw = gpu->hbm_gbps * 1e9;
    double tf = peak > 0 ? op->flops / peak : 0.0;
    double tb = bw > 0 ? op->bytes / bw : 0.0;
    double floor = tf > tb ? tf : tb;
    if (out->time_s < floor) {
        out->time_s = floor;
        out->clamped = 1;
    }
}

/* Structural model (hw/gemm_model.c, hw/attention_model.c) for a GEMM or attention op
 * without a calibrated curve: device time plus the GPU's launch gap. */
static double model_time_s(const struct aug_gpu *gpu, const struct aug_op *op, double launch) {
    struct aug_gemm_ceiling c;
    if (!aug_gemm_ceiling_of(gpu, op->dtype, &c))
        return 0.0;
    /* GEMM-shaped ops whose work is not 2 m n k multiply-adds (MatMul-free ternary layers:
     * additions only) keep their own FLOPs: timed through the model's efficiency below */
    double mnk = 2.0 * op->m * op->n * op->k * (op->batch > 0 ? op->batch : 1.0);
    if (op->kind == AUG_OP_GEMM && !(fabs(op->flops - mnk) <= 1e-9 * mnk))
        return 0.0;
    double width = op->kind == AUG_OP_ATTENTION ? aug_attention_kernel_width(op->attn_kernel,
                                                                             op->head_dim,
                                                                             op->head_dim_v)
                                                : 0.0;
    if (op->kind == AUG_OP_ATTENTION) {
        /* the softmax step is read off the native rate, before FA2's share is applied */
        double e = aug_attention_softmax_cols(&c, gpu->sm_arch, op->attn_kernel);
        if (op->attn_kernel == AUG_ATTN_KERNEL_FA2)
            c.rate_tflops *= aug_attention_fa2_factor(&c, gpu->sm_arch);
        c.rate_tflops *= aug_attention_head_dim_factor(width, e);
    }
    if (op->kind == AUG_OP_GEMM && op->split_acc)
        aug_gemm_ceiling_split_acc(&c, op->dtype, gpu->sm_arch);
    double us = op->kind == AUG_OP_GEMM
                    ? aug_gemm_model_us(&c, op->m, op->n, op->k, op->batch > 0 ? op->batch : 1,
                                        NULL)
                    : aug_attention_model_us(&c, op->batch_heads, op->seq_q, op->seq_kv,
                                             width, op->causal, op->window, op->chunked,
                                             op->backward, op->bytes, NULL);
    /* the model's own fixed cost (prologue, epilogue, grid launch) is part of the GPU's
     * launch_us, the per-kernel launch and tail of eager launches (gpus.csv): counted once */
    return us > 0 ? (us - c.overhead_us) * 1e-6 + launch : 0.0;
}

void aug_op_shape_of(const struct aug_op *op, struct aug_op_shape *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->dtype, sizeof out->dtype, "%s", aug_dtype_name(op->dtype));
    if (op->kind != AUG_OP_GEMM)
        return;
    out->m = op->m;
    out->n = op->n;
    out->k = op->k;
    out->batch = op->batch >= 1 ? op->batch : 1.0;
}

const char *aug_op_kind_name(enum aug_op_kind k) {
    switch (k) {
    case AUG_OP_GEMM: return "gemm";
    case AUG_OP_ATTENTION: return "attention";
    case AUG_OP_MEMORY: return "memory";
    default: return "collective";
    }
}

int aug_op_time(const struct aug_op_ctx *ctx, const struct aug_op *op, struct aug_op_time *out) {
    const struct aug_gpu *gpu = &ctx->sys->gpu;
    const struct aug_eff_defaults *d = aug_eff_defaults();
    double bw = gpu->hbm_gbps * 1e9;
    double launch = ctx->pure_roofline ? 0.0 : gpu->launch_us * 1e-6;
    const struct aug_kdb *kdb = ctx->pure_roofline ? NULL : ctx->kdb;
    memset(out, 0, sizeof *out);

    switch (op->kind) {
    case AUG_OP_GEMM:
    case AUG_OP_ATTENTION: {
        double peak = gpu->peak_tflops[op->dtype] * 1e12;
        if (!(peak > 0))
            return aug_errorf(AUG_EUNSUPPORTED, "%s has no %s peak for op '%s'", gpu->name,
                              aug_dtype_name(op->dtype), op->name);
        double e;
        out->source = AUG_SOURCE_ROOFLINE;
        if (ctx->pure_roofline) {
            finish(out, op->flops / peak, op->bytes / bw, 0.0, 1.0, 1.0, op);
            return AUG_OK;
        }
        int gemm = op->kind == AUG_OP_GEMM;
        /* a calibrated curve was fitted to whole measured kernel times (launch and the
         * memory-bound regime of skinny shapes included): it gives the time alone. An fp8
         * GEMM with the split accumulator takes its own measured curve where the GPU has
         * one (augur-profile's gemm_split_acc points), else the fast one, slowed below. */
        int split_curve = gemm && op->split_acc &&
                          aug_kdb_gemm_batched_op_eff(kdb, AUG_GEMM_SPLIT_ACC_OP, op->dtype,
                                                      op->batch, op->m, op->n, op->k, &e);
        const char *gop = split_curve ? AUG_GEMM_SPLIT_ACC_OP : AUG_GEMM_OP;
        int hit = split_curve ||
                  (gemm ? aug_kdb_gemm_batched_op_eff(kdb, AUG_GEMM_OP, op->dtype, op->batch,
                                                      op->m, op->n, op->k, &e)
                        : aug_kdb_attention_eff(kdb, op->dtype, op->causal, op->backward,
                                                op->batch_heads, op->seq_q, op->seq_kv,
                                                op->head_dim, &e));
        out->intensity = op->bytes > 0 ? op->flops / op->bytes : INFINITY;
        /* bound: compare the roofline terms at full rates */
        out->compute_bound = op->flops / peak >= op->bytes / bw;
        if (hit && e > 0) {
            out->source = AUG_SOURCE_CURVE;
            /* the "gemm" fp8 curves are measured with fast accumulation
             * (profiler/gpu_gemm.c): without a split-accumulator curve the compute-bound
             * shapes slow by the model's share */
            if (gemm && op->split_acc && !split_curve && out->compute_bound)
                e *= aug_gemm_split_acc_share(op->dtype, gpu->sm_arch);
            out->time_s = op->flops / (peak * e);
            double x = gemm ? 2.0 * op->m * op->batch * op->n * op->k : op->seq_kv, lo, hi;
            if (aug_kdb_curve_range(kdb, gemm ? AUG_FAMILY_GEMM : AUG_FAMILY_ATTENTION,
                                    gemm ? gop : NULL,
                                    op->dtype, op->backward, op->causal, &lo, &hi) &&
                (x < lo || x > hi)) {
                out->extrapolated = 1;
                /* beyond the measured range: never faster than the achievable ceilings */
                struct aug_gemm_ceiling c;
                if (x > hi && aug_gemm_ceiling_of(gpu, op->dtype, &c)) {
                    double t_ach = op->flops / (c.rate_tflops * 1e12);
                    double t_bw = op->bytes / (c.hbm_gbps * 1e9);
                    if (t_bw > t_ach)
                        t_ach = t_bw;
                    if (out->time_s < t_ach)
                        out->time_s = t_ach;
                }
            }
        } else {
            out->source = AUG_SOURCE_FALLBACK;
            out->time_s = model_time_s(gpu, op, launch);
            if (!(out->time_s > 0)) {
                double eff_c = gemm ? aug_eff_gemm(gpu, op->dtype, op->m, op->n, op->k, op->batch)
                                    : aug_eff_attention(op->seq_q, op->seq_kv, op->head_dim,
                                                        op->backward);
                finish(out, op->flops / (peak * eff_c), op->bytes / (bw * d->mem_eff), launch,
                       eff_c, d->mem_eff, op);
            }
        }
        physics_clamp(gpu, op, peak, out);
        out->eff = op->flops > 0 && out->time_s > 0 ? op->flops / (peak * out->time_s) : 0.0;
        return AUG_OK;
    }
    case AUG_OP_MEMORY: {
        double vec = gpu->vector_tflops * 1e12;
        double tc = vec > 0 ? op->flops / vec : 0.0;
        if (ctx->pure_roofline) {
            out->source = AUG_SOURCE_ROOFLINE;
            finish(out, tc, op->bytes / bw, 0.0, 1.0, 1.0, op);
            return AUG_OK;
        }
        struct aug_gemm_ceiling c;
        int have_c = aug_gemm_ceiling_of(gpu, AUG_DTYPE_FP32, &c);
        double t_us;
        /* norms: the kind's own curve (profiler), else the generic "norm" one (Vidur) */
        const char *cop = op->mem_op;
        int hit = kdb && cop && aug_kdb_memory_time_us(kdb, cop, op->dtype, op->bytes, &t_us);
        if (!hit && kdb && cop && (strcmp(cop, "rmsnorm") == 0 || strcmp(cop, "layernorm") == 0)) {
            cop = "norm";
            hit = aug_kdb_memory_time_us(kdb, cop, op->dtype, op->bytes, &t_us);
        }
        if (hit && t_us > 0) {
            out->source = AUG_SOURCE_CURVE;
            double lo, hi, t_hi;
            if (aug_kdb_curve_range(kdb, AUG_FAMILY_MEMORY, cop, op->dtype, 0, 0, &lo, &hi) &&
                (op->bytes < lo || op->bytes > hi)) {
                out->extrapolated = 1;
                /* above the measured sizes the time grows at least at the achievable HBM
                 * bandwidth: t = t(x_max) + max(curve growth, extra bytes / bandwidth) */
                if (op->bytes > hi && have_c &&
                    aug_kdb_memory_time_us(kdb, cop, op->dtype, hi, &t_hi)) {
                    double grow = (op->bytes - hi) / (c.hbm_gbps * 1e9) * 1e6;
                    if (t_us - t_hi < grow)
                        t_us = t_hi + grow;
                }
            }
            double tm = t_us * 1e-6;
            finish(out, tc, tm, 0.0, 1.0, op->bytes / (tm * bw), op);
        } else {
            out->source = AUG_SOURCE_FALLBACK;
            /* the model's fixed cost is inside launch_us (see model_time_s) */
            double tm = have_c ? (aug_memop_model_us(&c, op->bytes, NULL) - AUG_MEMOP_OVERHEAD_US) *
                                     1e-6 / aug_memop_op_factor(op->mem_op)
                               : op->bytes / (bw * d->mem_eff);
            finish(out, tc, tm, launch, 1.0, tm > 0 ? op->bytes / (tm * bw) : 1.0, op);
        }
        physics_clamp(gpu, op, vec, out);
        return AUG_OK;
    }
    case AUG_OP_COLLECTIVE: {
        struct aug_coll_time ct;
        int st = op->coll == AUG_COLL_ALL_TO_ALL && op->deepep_net_share > 0
                     ? aug_coll_deepep_time(ctx->sys, op->size_bytes, op->ranks,
                                            op->ranks_per_domain, op->deepep_net_share,
                                            ctx->pure_roofline, &ct)
                     : aug_coll_time_ideal(ctx->sys, kdb, op->coll, op->size_bytes, op->ranks,
                                           op->ranks_per_domain,
                                           ctx->pure_roofline ? AUG_ALGO_RING : AUG_ALGO_AUTO,
                                           ctx->pure_roofline, &ct);
        if (st != AUG_OK)
            return st;
        out->time_s = ct.time_s;
        out->source = ct.source;
        out->extrapolated = ct.extrapolated;
        out->eff = 1.0;
        out->intensity = 0.0;
        out->compute_bound = 0;
        return AUG_OK;
    }
    default:
        return aug_errorf(AUG_EDATA, "op '%s' has an unknown kind", op->name ? op->name : "?");
    }
}
