/* op.c - the hybrid step: one operator's time from its FLOPs and bytes, the GPU's peaks,
 * and an efficiency that comes from a calibrated curve, the default table, or nothing.
 *
 *   t = max(flops / (peak_dtype * eff_c), bytes / (hbm_bw * eff_m)) + launch
 *
 * A calibrated memory or collective curve gives the time directly (it was fitted as
 * latency + size / bandwidth, launch included). */
#include "augur/op.h"

#include <math.h>
#include <string.h>

#include "augur/status.h"
#include "augur/system.h"
#include "collective_internal.h"
#include "efficiency.h"

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
        double eff_c = 1.0, eff_m = 1.0, e;
        out->source = AUG_SOURCE_ROOFLINE;
        if (!ctx->pure_roofline) {
            /* a calibrated curve was fitted to whole measured kernel times (launch and the
             * memory-bound regime of skinny shapes included): it gives the time alone */
            int hit = op->kind == AUG_OP_GEMM
                          ? aug_kdb_gemm_eff(kdb, op->dtype, op->m * op->batch, op->n, op->k, &e)
                          : aug_kdb_attention_eff(kdb, op->dtype, op->causal, op->backward,
                                                  op->batch_heads, op->seq_q, op->seq_kv,
                                                  op->head_dim, &e);
            if (hit && e > 0) {
                out->source = AUG_SOURCE_CURVE;
                double tc = op->flops / (peak * e);
                out->time_s = tc;
                out->eff = e;
                out->intensity = op->bytes > 0 ? op->flops / op->bytes : INFINITY;
                /* bound: compare the roofline terms at full rates */
                out->compute_bound = op->flops / peak >= op->bytes / bw;
                return AUG_OK;
            }
            eff_m = d->mem_eff;
            out->source = AUG_SOURCE_FALLBACK;
            eff_c = op->kind == AUG_OP_GEMM
                        ? aug_eff_gemm(gpu, op->dtype, op->m, op->n, op->k, op->batch)
                        : aug_eff_attention(op->seq_q, op->seq_kv, op->head_dim, op->backward);
        }
        finish(out, op->flops / (peak * eff_c), op->bytes / (bw * eff_m), launch, eff_c, eff_m, op);
        return AUG_OK;
    }
    case AUG_OP_MEMORY: {
        double vec = gpu->vector_tflops * 1e12;
        double tc = vec > 0 ? op->flops / vec : 0.0;
        double t_us;
        /* norms: the kind's own curve (profiler), else the generic "norm" one (Vidur) */
        int hit = kdb && op->mem_op &&
                  aug_kdb_memory_time_us(kdb, op->mem_op, op->dtype, op->bytes, &t_us);
        if (!hit && kdb && op->mem_op &&
            (strcmp(op->mem_op, "rmsnorm") == 0 || strcmp(op->mem_op, "layernorm") == 0))
            hit = aug_kdb_memory_time_us(kdb, "norm", op->dtype, op->bytes, &t_us);
        if (hit && t_us > 0) {
            out->source = AUG_SOURCE_CURVE;
            double tm = t_us * 1e-6;
            finish(out, tc, tm, 0.0, 1.0, op->bytes / (tm * bw), op);
            return AUG_OK;
        }
        double eff_m = ctx->pure_roofline ? 1.0 : d->mem_eff;
        out->source = ctx->pure_roofline ? AUG_SOURCE_ROOFLINE : AUG_SOURCE_FALLBACK;
        finish(out, tc, op->bytes / (bw * eff_m), launch, 1.0, eff_m, op);
        return AUG_OK;
    }
    case AUG_OP_COLLECTIVE: {
        struct aug_coll_time ct;
        int st = aug_coll_time_ideal(ctx->sys, kdb, op->coll, op->size_bytes, op->ranks,
                                     op->ranks_per_domain,
                                     ctx->pure_roofline ? AUG_ALGO_RING : AUG_ALGO_AUTO,
                                     ctx->pure_roofline, &ct);
        if (st != AUG_OK)
            return st;
        out->time_s = ct.time_s;
        out->source = ct.source;
        out->eff = 1.0;
        out->intensity = 0.0;
        out->compute_bound = 0;
        return AUG_OK;
    }
    default:
        return aug_errorf(AUG_EDATA, "op '%s' has an unknown kind", op->name ? op->name : "?");
    }
}
