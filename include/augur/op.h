/* SPDX-License-Identifier: Apache-2.0 */
/* op.h - one kernel-level operator and its hybrid time.
 *
 * The time comes from the GPU's calibrated curve for the op's family (source "curve"),
 * else from the structural kernel models of predictor/hw/ (GEMM tiles and waves,
 * FlashAttention tiles, memory-bound bytes at the achievable bandwidth) at the GPU's
 * achievable ceilings plus its launch gap ("fallback"), else the op runs at peak
 * ("roofline": only when asked, --roofline). No time is ever below
 * max(flops / peak_dtype, bytes / hbm_bw) (`clamped` says when it was raised to it); a
 * curve used outside its measured range says `extrapolated`. */
#ifndef AUG_OP_H
#define AUG_OP_H

#include "augur/collective.h"
#include "augur/dtype.h"
#include "augur/kdb.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_system;

enum aug_op_kind {
    AUG_OP_GEMM,       /* batch x (m x k) * (k x n) */
    AUG_OP_ATTENTION,  /* fused attention core (FlashAttention) */
    AUG_OP_MEMORY,     /* memory-bound kernel: norm, activation, softmax, add, optimizer */
    AUG_OP_COLLECTIVE, /* collective or point-to-point over a group */
    AUG_OP_KIND_COUNT
};

struct aug_op {
    const char *name;      /* static string: "qkv", "attn_fwd", "mlp_up_dgrad", ... */
    enum aug_op_kind kind;
    enum aug_dtype dtype;
    double flops;          /* floating-point operations (multiply-add = 2) */
    double bytes;          /* HBM bytes read + written */
    double count;          /* how many times it runs where it is listed */
    /* GEMM */
    double m, n, k, batch;
    int split_acc;         /* fp8: the split accumulator, partial sums promoted to fp32 on
                            * the CUDA cores (cuBLASLt fast accumulation off), as Transformer
                            * Engine runs its data- and weight-gradient GEMMs */
    /* attention */
    double batch_heads, seq_q, seq_kv, head_dim;
    double head_dim_v;     /* per-head p.v width where it differs from q.k's (MLA: 128 beside
                            * 192), head_dim then being their mean; 0: head_dim is both */
    int causal, backward;
    double window;         /* sliding window: each query sees at most its last `window`
                            * keys (its FLOPs and bytes already bounded by it); 0: all */
    int chunked;           /* with a window: the keys of the query's own chunk of `window`
                            * tokens up to itself (Llama 4 chunked attention) */
    int attn_kernel;       /* fused attention: enum aug_attn_kernel (plan.h); 0 = cudnn */
    /* memory-bound */
    const char *mem_op;    /* curve op name: "elementwise", "norm", "softmax", "copy", ... */
    /* collective */
    enum aug_coll coll;
    double size_bytes;     /* nccl-tests buffer size convention */
    int ranks, ranks_per_domain;
    double deepep_net_share; /* all-to-all run by DeepEP (aug_coll_deepep_time): the share of
                                the off-domain copies that cross the network, in (0, 1];
                                0: NCCL's all-to-all, every copy */
};

/* What the timing of one op found. */
struct aug_op_time {
    double time_s;         /* one execution */
    double eff;            /* efficiency used on the binding resource */
    double intensity;      /* flops / bytes */
    int compute_bound;     /* 1 when the compute term dominates */
    enum aug_source source;
    int extrapolated;      /* 1: a calibrated curve was used outside its measured range */
    int clamped;           /* 1: raised to the physics bound max(flops / peak, bytes / HBM) */
};

/* Hybrid timing options. */
struct aug_op_ctx {
    const struct aug_system *sys;
    const struct aug_kdb *kdb;  /* may be NULL: fallback defaults only */
    int pure_roofline;          /* 1: ignore curves and defaults (eff = 1, no launch) */
};

int aug_op_time(const struct aug_op_ctx *ctx, const struct aug_op *op, struct aug_op_time *out);

/* "gemm", "attention", "memory" or "collective". */
const char *aug_op_kind_name(enum aug_op_kind k);

/* What a kernel profiler needs to measure an op of an `--ops` listing again: its compute
 * dtype, and for a GEMM its shape (m, n, k and the batch of a batched GEMM, 1 for one
 * GEMM; all 0 for the other kinds). `augur-profile --shapes FILE` reads these columns. */
struct aug_op_shape {
    char dtype[8];         /* aug_dtype_name() */
    double m, n, k, batch; /* GEMM only */
};
void aug_op_shape_of(const struct aug_op *op, struct aug_op_shape *out);

/* Builders (fill every field; count = 1). */
struct aug_op aug_op_gemm(const char *name, enum aug_dtype dt, double m, double n, double k,
                          double batch);
struct aug_op aug_op_memory(const char *name, const char *mem_op, enum aug_dtype dt,
                            double bytes, double flops);
struct aug_op aug_op_collective(const char *name, enum aug_coll c, double size_bytes, int ranks,
                                int ranks_per_domain);
/* One fused attention kernel (cuDNN kind, count 1) over `batch` sequences of `q_heads`
 * query heads sharing `kv_heads` K/V heads: FLOPs of the (query, key) pairs computed (a
 * causal mask aligns the queries to the end of the keys; a causal window > 0 lets each see
 * its last `window` keys, or with `chunked` its own chunk of `window` tokens up to itself:
 * aug_attention_pairs, aug_attention_chunk_pairs), 2.5x for the backward; bytes: Q and O per
 * query head, K and V per KV head (those a window reaches), read once (and the same again
 * as gradients in the backward). The graph builders, which know the kernel's IO in more
 * detail, set their own flops and bytes. */
struct aug_op aug_op_attention(const char *name, enum aug_dtype dt, double batch, double q_heads,
                               double kv_heads, double seq_q, double seq_kv, double head_dim,
                               int causal, double window, int chunked, int backward);
/* The same for a head whose p.v width `d_v` differs from its q.k width `d_qk` (multi-head
 * latent attention, DeepSeek-V2/V3: 192 and 128): the op runs at their mean, whose FLOPs
 * (q.k and p.v over the same pairs) and Q, K, V, O bytes are those of the two widths, and
 * carries `d_v` in head_dim_v for the kernel model's padding of each width
 * (aug_attention_kernel_width). A `d_v` of 0 or `d_qk` gives aug_op_attention's head. */
struct aug_op aug_op_attention_widths(const char *name, enum aug_dtype dt, double batch,
                                      double q_heads, double kv_heads, double seq_q,
                                      double seq_kv, double d_qk, double d_v, int causal,
                                      double window, int chunked, int backward);
/* The two widths of an attention op as the kernel model reads them: head_dim their mean
 * (d_qk alone when d_v is 0 or equal) and head_dim_v = d_v when they differ, else 0. The
 * op's FLOPs and bytes are left to its builder. */
void aug_op_attention_set_widths(struct aug_op *op, double d_qk, double d_v);

#ifdef __cplusplus
}
#endif
#endif
