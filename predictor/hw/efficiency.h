/* SPDX-License-Identifier: Apache-2.0 */
/* efficiency.h - the documented default efficiencies (fallback when no curve exists). */
#ifndef AUG_EFFICIENCY_H
#define AUG_EFFICIENCY_H

#include "augur/system.h"

struct aug_eff_defaults {
    double gemm_e_max;     /* efficiency of large, well-shaped 16/32-bit GEMMs */
    double gemm_e_max_fp8; /* the same for fp8 GEMMs (scaling and casts included) */
    double gemm_f_half;    /* FLOPs at which the saturating term is 1/2 */
    double gemm_alpha;     /* steepness of the saturation */
    double gemm_tile_m;    /* output tile used for wave quantization */
    double gemm_tile_n;
    double mem_eff;        /* achieved / peak HBM bandwidth of memory-bound kernels */
    double attn_fwd_eff;   /* FlashAttention-2 forward, long sequences */
    double attn_bwd_eff;   /* FlashAttention-2 backward (counted with its recompute) */
    double attn_seq_half;  /* sequence length at which attention efficiency is half */
    double coll_eff[AUG_LINK_COUNT]; /* achieved / nominal bus bandwidth, large messages */
    double framework_op_us; /* host time to issue one kernel from an eager framework */
    double comm_slowdown;  /* compute slowdown while an overlapped collective shares the SMs */
    double moe_imbalance;  /* tokens on the busiest expert over the mean, natural routing */
    double moe_overlap_realized; /* share of the merged EP schedule's overlap that a run shows */
};

/* The one table of defaults (see efficiency.c for sources). */
const struct aug_eff_defaults *aug_eff_defaults(void);

/* Wave-quantization factor W = tiles / (ceil(tiles / SMs) * SMs) of an m x n output. */
double aug_eff_wave(double m, double n, double tile_m, double tile_n, int sm_count);

/* GEMM efficiency for batch x (m x n x k) on `gpu` from the structural model
 * (gemm_model.c) at the GPU's achievable ceilings; the saturating table above only
 * for a dtype the GPU has no peak for. */
double aug_eff_gemm(const struct aug_gpu *gpu, enum aug_dtype dt, double m, double n, double k,
                    double batch);

/* Default fused-attention efficiency. */
double aug_eff_attention(double seq_q, double seq_kv, double head_dim, int backward);

#endif
