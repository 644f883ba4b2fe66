/* SPDX-License-Identifier: Apache-2.0 */
/* efficiency.c - default efficiencies. GEMMs, attention and memory-bound kernels without a
 * calibrated curve are timed by the structural models (gemm_model.c, attention_model.c,
 * memop_model.c); aug_eff_gemm() reports the GEMM model as an efficiency, and the
 * saturating GEMM constants below remain only for a dtype the GPU has no ceiling for.
 * The other entries are still used where named. One table, each number with its basis:
 *
 * gemm_e_max 0.72, f_half 2e9, alpha 1.0: cuBLAS fp16 GEMMs of Llama-2-7B on A100 80GB
 *   in Vidur's profiling sweep (microsoft/vidur data/profiling/compute/a100, mlp.csv) run at
 *   0.69-0.74 of the 312 TFLOP/s dense peak for 512+ tokens, ~0.55 at 128 tokens (13 GFLOP)
 *   and ~0.3 at 64; below that the weight read bounds the time (memory term).
 * gemm_e_max_fp8 0.60: fp8 GEMMs on H100 reach about 1,200 of 1,979 TFLOP/s dense in
 *   cuBLASLt (NVIDIA H100 Tensor Core GPU Architecture whitepaper peaks; Transformer
 *   Engine adds amax/scale kernels), so they gain ~1.6x, not 2x, over bf16.
 * gemm tiles 128 x 128: the common CUTLASS/cuBLAS tensor-core tile; with the SM count it
 *   gives wave quantization as in NVIDIA's "Matrix Multiplication Background" guide.
 * mem_eff 0.70: norms, rotary embedding and adds of the same sweep move 0.45-0.75 of the
 *   2.0 TB/s HBM bandwidth at 4096 tokens.
 * attention: FlashAttention-2 forward reaches 50-73% of A100 peak and backward 40-63%
 *   at head dim 64/128 (Dao 2023, arXiv 2307.08691, Fig. 4-5); 0.62 and 0.45 here, with
 *   a saturation in sequence length (seq_half 512) for the short sequences.
 * coll_eff nvlink 0.77: nccl-tests all_reduce_perf on 8 A100 reaches 229 GB/s bus
 *   bandwidth of 300 GB/s per-direction NVLink at 1 GiB (vTrain trace, AR_GPU8 LUT);
 *   network 0.90: InfiniBand NDR/HDR links run near line rate for large messages.
 * framework_op_us 20: host time for PyTorch eager to issue one kernel-level op from a
 *   Megatron module (Python module call, autograd bookkeeping, dispatcher and the CUDA
 *   launch itself, each a few microseconds; PyTorch's CUDA Graphs introduction blog
 *   reports per-op CPU overheads of this order). It only matters when kernels are
 *   shorter than that: small hidden sizes and micro-batches.
 * comm_slowdown 0.19: while a collective runs beside them, compute kernels lose the SMs
 *   NCCL's channels occupy (and some HBM bandwidth); measured GEMM and attention kernels
 *   overlapped with collectives run 18.9% slower on average (up to 40%) on A100 and H100
 *   (Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep
 *   Learning, arXiv 2507.03114), which matches NCCL taking ~24 of 132 H100 SMs
 *   (132/108 - 1 = 0.22). Applied only while communication is actually overlapped.
 * moe_imbalance 1.08: busiest expert over the mean load (1 + MaxVio of Wang et al. 2024,
 *   arXiv 2408.15664) with auxiliary-loss routing; calibrated on the one pair of published
 *   runs that differ only in routing: Mixtral 8x22B on 128 H100 (tp 2, pp 8, vp 7, ep 8,
 *   etp 1, global batch 256 x 4096) runs at 445 TFLOP/s per GPU with natural routing and
 *   at 465 with forced balancing (Megatron-MoE-ModelZoo commit b09773a,
 *   best_practice/mixtral/run_mixtral_8x22B.sh), a 4.5% longer step, which this model
 *   reproduces at f = 1.077 with the default efficiencies (tests/test_moe.c).
 * moe_overlap_realized 0.39: the share of the time Megatron-Core's EP all-to-all overlap
 *   (--overlap-moe-expert-parallel-comm, train/ep_overlap.c's merged-layer schedule with the
 *   compute slowdown) hides that a run actually shows. Fitted on the one published pair of
 *   runs that differ only in that overlap: Qwen3-235B-A22B on 256 H100 with DeepEP (TP 2,
 *   EP 32, PP 8, VPP 4, GBS 2048), 19.7 s without and 17.6 s with "+1f1b overlap", 10.66%
 *   saved (yanring/Megatron-MoE-ModelZoo e865051 best_practice/qwen3/readme.md, H100
 *   "Cross-node EP strategy"), where the full schedule saves 27.1% in augur (16.95 s ->
 *   12.36 s): 0.1066 x 16.95 / 4.59 = 0.39 (benchmarks/ep_overlap_fit.sh). Held out: the
 *   two Qwen3-235B-A22B rows of benchmarks/accuracy/training_moe.csv, the only rows with
 *   the overlap (-31.3% -> -14.1% and +21.1% -> +0.9%). The same share applies to
 *   Megatron-Core's shared-expert overlap (moe_shared_expert_overlap: the shared expert's
 *   GEMMs on the main stream beside the dispatch and combine on a side stream), the other
 *   side-stream schedule of the MoE layer, of which no pair of runs is published: held out,
 *   14 of the set's 15 rows with it (Llama 4 Maverick and Scout, DeepSeek-V3 of v25.05.05)
 *   move towards the measurement, the set 13.37% -> 12.91%. */
#include "efficiency.h"
#include "hw/gemm_model.h"

#include <math.h>
#include <stddef.h>

static const struct aug_eff_defaults defaults = {
    .gemm_e_max = 0.72,
    .gemm_e_max_fp8 = 0.60,
    .gemm_f_half = 2e9,
    .gemm_alpha = 1.0, /* <= 1 keeps time non-decreasing in FLOPs: t = (F + f_half) / (peak e_max) */
    .gemm_tile_m = 128,
    .gemm_tile_n = 128,
    .mem_eff = 0.70,
    .attn_fwd_eff = 0.62,
    .attn_bwd_eff = 0.45,
    .attn_seq_half = 512,
    .coll_eff = {[AUG_LINK_NVLINK] = 0.77, [AUG_LINK_NETWORK] = 0.90},
    .framework_op_us = 20.0,
    .comm_slowdown = 0.19,
    .moe_imbalance = 1.08,
    .moe_overlap_realized = 0.39,
};

const struct aug_eff_defaults *aug_eff_defaults(void) { return &defaults; }

/* ceil() of a positive quotient without a libm call (values far below 2^62). */
static double ceil_pos(double q) {
    if (!(q < 4.0e18))
        return ceil(q);
    double f = (double)(long long)q;
    return f < q ? f + 1.0 : f;
}

double aug_eff_wave(double m, double n, double tile_m, double tile_n, int sm_count) {
    if (sm_count <= 0 || m <= 0 || n <= 0)
        return 1.0;
    double tiles = ceil_pos(m / tile_m) * ceil_pos(n / tile_n);
    double waves = ceil_pos(tiles / (double)sm_count);
    return tiles / (waves * (double)sm_count);
}

double aug_eff_gemm(const struct aug_gpu *gpu, enum aug_dtype dt, double m, double n, double k,
                    double batch) {
    /* the structural model (gemm_model.c) at the GPU's achievable ceilings: its compute
     * time (tiles, waves, main loop, prologue/epilogue, stream-K fixup) as an efficiency
     * against the dtype's dense peak; callers add the memory term from their own bytes */
    struct aug_gemm_ceiling c;
    struct aug_gemm_plan plan;
    double b = batch > 0 ? batch : 1.0;
    double flops = 2.0 * m * n * k * b;
    if (aug_gemm_ceiling_of(gpu, dt, &c) && flops > 0 &&
        aug_gemm_model_us(&c, m, n, k, b, &plan) > 0) {
        double t_us = plan.t_compute_us + plan.t_fixup_us + c.overhead_us;
        if (t_us > 0) {
            double e = flops / (t_us * 1e-6 * c.peak_tflops * 1e12);
            return e < 1.0 ? e : 1.0;
        }
    }
    const struct aug_eff_defaults *d = &defaults;
    double e_max = dt == AUG_DTYPE_FP8 ? d->gemm_e_max_fp8 : d->gemm_e_max;
    /* F^a / (F^a + F_half^a) = 1 / (1 + (F_half / F)^a): one pow per GEMM */
    double sat = flops > 0 ? 1.0 / (1.0 + pow(d->gemm_f_half / flops, d->gemm_alpha)) : 0.0;
    /* batched GEMMs fill the GPU with more tiles: quantize over all of them */
    double w = aug_eff_wave(m * b, n, d->gemm_tile_m, d->gemm_tile_n, gpu->sm_count);
    return e_max * w * sat;
}

double aug_eff_attention(double seq_q, double seq_kv, double head_dim, int backward) {
    const struct aug_eff_defaults *d = &defaults;
    double e = backward ? d->attn_bwd_eff : d->attn_fwd_eff;
    double s = sqrt(seq_q * seq_kv);
    /* head dim 64 runs about 10% below 128 in FA2's measurements */
    double hd = head_dim >= 128 ? 1.0 : 0.9;
    return e * hd * s / (s + d->attn_seq_half);
}
