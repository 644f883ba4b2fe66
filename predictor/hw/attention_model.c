/* SPDX-License-Identifier: Apache-2.0 */
/* attention_model.c - FlashAttention time from its tiles (Dao, "FlashAttention-2",
 * arXiv 2307.08691, Algorithm 1 and section 3.2 "Parallelism"; flash-decoding split-KV,
 * Dao et al. 2023 "Flash-Decoding for long-context inference").
 *
 * One CTA owns block_q = 128 query rows (fewer queries: 16-row multiples) of one (batch,
 * head) and loops over the keys in
 * blocks of block_kv = 64 (FA2's forward tiles for head dims up to 128; 128 x 128 is used
 * for the backward's key-major loop). With a causal mask (queries aligned to the end of the
 * keys) a CTA stops at the diagonal, so CTAs carry different work. The time of the compute
 * phase is the larger of the average load per SM and the longest CTA:
 *
 *   t_compute = max(sum_blocks / SMs, max_blocks) x t_block,
 *   t_block   = 4 block_q block_kv head_dim x (2.5 backward) / (rate / SMs)
 *
 * rate: the forward main loop reaches 0.722 of the GPU's achievable GEMM rate: FA2 on A100
 * at the 2k-token sequences of training runs about 190 TFLOP/s forward at head dim 128
 * (Dao 2023, Fig. 4) against the 267.9 TFLOP/s cuBLAS reaches (gpus.csv): 0.62 of the 312
 * peak, the documented default of efficiency.c; other head dims scale it by
 * aug_attention_head_dim_factor() below, which the caller applies. The backward (5 GEMMs
 * for the forward's 2, hence 2.5) runs at a share of the forward rate that grows with the
 * query blocks its key-major CTAs walk (FA2 Algorithm 2),
 * as fixed per-CTA work (loading K and V, writing dK and dV, the dO.O and dQ passes)
 * amortizes: attn_bwd_of_fwd() below. When batch_heads x query blocks leaves SMs idle (decode,
 * short prefill), the key range is split over up to 32 CTAs (flash-decoding) at the cost of
 * writing and re-reading an fp32 partial output per split. The IO (`bytes`, the caller's
 * count: Q, K, V read and O written, GQA sharing included) streams at the achievable HBM
 * bandwidth. A sliding window (each query sees its last `window` keys) narrows every query
 * block's key range to the blocks the window touches, from the first row's oldest key to
 * the last row's newest (flash-attn 2.x, csrc/flash_attn/src/flash_fwd_kernel.h:
 * n_block_min from window_size_left), and the backward's key-major CTAs walk only the query
 * blocks that see their keys. Chunked local attention (Llama 4: each query sees the keys of
 * its own chunk of `window` tokens up to itself) starts a block's keys at its first row's
 * chunk:
 *
 *   t = overhead + max(t_compute, t_memory). */
#include "hw/kernel_model.h"

#include <math.h>
#include <string.h>

#include "augur/attention.h"
#include "augur/plan.h"

/* 0.62 x 312 / 267.9 */
#define ATTN_FWD_OF_GEMM 0.722
/* query blocks walked one by one (2^20 x 128 = 134M queries) */
#define MAX_Q_BLOCKS 1048576.0

/* Backward rate over forward rate (TFLOP/s, backward FLOPs counted as 2.5 x forward) with n
 * query blocks of 128 per key-major CTA: 1 / (A + B / n), the per-CTA fixed work worth
 * B / A = 3.9 main-loop blocks. Fitted by least squares on the five non-causal head-dim-128
 * points of PyTorch's FlashAttention-2 kernel (flash SDPA) on H200 at 4k-64k tokens in
 * cudnn-frontend's attention benchmark (NVIDIA/cudnn-frontend commit 505fcfe,
 * benchmark/benchmark_results.csv, container pytorch:24.03, clocks locked): 0.81 at 4k to
 * 0.91 at 64k, fitted within 0.7% on average. Held out, the same law gives the benchmark's
 * causal FA2 points within 3.2% on average, its cuDNN 9.1 points (causal and not) within
 * 3.3%, cuDNN 9.19's (cudnn-frontend@df73764) within 3.7%, and FA2 on A100 (Dao 2023, Fig.
 * 4-5: 150 / 190 at 2k, 197 / 230 at 16k) within -7.6% and +2.7%; a flat 0.726 (the A100 2k
 * figure) was 15% low at 16k. The benchmark starts at 4k tokens: below 2k (16 blocks, the
 * A100 anchor) the ratio is held at its 2k value.
 * Blackwell does not follow it: cuDNN 9.22 on GB200 (cudnn-frontend commit 3929da2,
 * benchmark/sdpa_benchmark_training/results/llama3.1/gb200/llama3.1_20260424_100750.csv,
 * bf16, head dim 128, non-deterministic) holds 0.76-0.85 from 2k to 32k tokens with no
 * trend, median 0.80 over its ten points (causal and not): that share, flat, on sm_100+. */
#define ATTN_BWD_A 1.1031
#define ATTN_BWD_B 4.2946
#define ATTN_BWD_MIN_BLOCKS 16.0
#define ATTN_BWD_BLACKWELL 0.80

/* Kernels without a causal mask run faster per useful FLOP than causal ones of the same
 * shape, by more the fewer keys each query block walks: in NVIDIA's cudnn-frontend
 * attention benchmark (commit 505fcfe, H200, bf16, head dim 128, locked clocks) the causal
 * kernels' time per FLOP over the full ones' is 1.21 / 1.17 / 1.09 / 1.06 / 1.06 (cuDNN 9.1
 * forward) and 1.13 / 1.09 / 1.10 / 1.01 / 1.03 (FlashAttention-2) at 4k / 8k / 16k / 32k /
 * 64k tokens, the backward alike, where this model's tiles alone give 1.00-1.04: the
 * diagonal blocks' masking and the unequal CTAs of a causal grid. The rates above are
 * those of causal kernels (the training and prefill case), so an unmasked kernel gains
 *
 *   g = exp(ATTN_FULL_GAIN sqrt(2048 / max(keys, 4096))).
 *
 * ATTN_FULL_GAIN is the least-squares fit of ln(ratio / model's ratio) on sqrt(2048 / keys)
 * through the origin over that run's 20 pairs (both kernels, both passes; `bench_attention`
 * prints the fit). Below 4096 keys, where the run has no point, the gain is held at its
 * 4096 value, as the held-out kernels disagree there (cuDNN 9.19 and 9.22 with Llama 3.1's
 * heads at 2048: about 1.2; cuDNN 9.19 with 32 full heads in augur-profile's own H100 points
 * at 512-2048: about 1.0). Causal kernels keep the rates whatever their shape (no kernel
 * timed here has fewer queries than keys under a mask), and so do windowed ones. */
#define ATTN_FULL_GAIN 0.174
#define ATTN_FULL_GAIN_MIN_KEYS 4096.0

double aug_attention_full_gain(double seq_kv)
{
    if (!(seq_kv > 0))
        return 1.0;
    double keys = seq_kv > ATTN_FULL_GAIN_MIN_KEYS ? seq_kv : ATTN_FULL_GAIN_MIN_KEYS;
    return exp(ATTN_FULL_GAIN * sqrt(2048.0 / keys));
}

static double attn_bwd_of_fwd(int sm_arch, double q_walked)
{
    if (sm_arch >= 100)
        return ATTN_BWD_BLACKWELL;
    double n = ceil(q_walked / 128.0);
    if (n < ATTN_BWD_MIN_BLOCKS)
        n = ATTN_BWD_MIN_BLOCKS;
    return 1.0 / (ATTN_BWD_A + ATTN_BWD_B / n);
}

static double attn_split_us(const struct aug_gemm_ceiling *c, double bh, double sq, double skv,
                            double hd, int causal, double window, int chunked, int backward,
                            double bytes, double split, struct aug_attn_plan *p)
{
    /* short query ranges (decode, speculative and chunk tails) pad to 16-row MMA
     * fragments, not to a whole 128-row tile (flash-decoding packs them so) */
    double bq = sq < 128 ? 16.0 * ceil(sq / 16.0) : 128, bkv = backward ? 128 : 64;
    double nq = ceil(sq / bq);
    /* key blocks visited by query block i (0-based): causal stops at the diagonal, with
     * queries aligned to the end of the keys: last key = skv - sq + (i + 1) bq - 1 */
    double sum = 0, maxb = 0;
    /* every query block up to MAX_Q_BLOCKS; beyond, evenly spaced ones standing for
     * `stride` blocks each (the causal work grows along i, so no prefix is representative) */
    double stride = nq > MAX_Q_BLOCKS ? ceil(nq / MAX_Q_BLOCKS) : 1.0;
    for (double i = 0; i < nq; i += stride) {
        /* keys [lo, hi) of query block i; a window starts them at the first row's
         * position (skv - sq + i bq) less window - 1, a chunk at that row's chunk */
        double hi = skv, lo = 0;
        if (causal) {
            double last = skv - sq + (i + 1) * bq;
            hi = last > skv ? skv : last;
        }
        if (window > 0) {
            double first = skv - sq + i * bq;
            lo = chunked ? window * floor(first / window) : first - window + 1;
            lo = lo > 0 ? lo : 0;
        }
        double kb = ceil(hi / bkv) - floor(lo / bkv);
        if (kb < 1)
            kb = 1;
        double per_cta = ceil(kb / split);
        sum += per_cta * split * (i + stride <= nq ? stride : nq - i);
        if (per_cta > maxb)
            maxb = per_cta;
    }
    sum *= bh;
    double slots = c->sms;
    double ctas = bh * nq * split;
    double rate = c->rate_tflops * 1e12 * ATTN_FWD_OF_GEMM;
    if (backward)
        rate *= attn_bwd_of_fwd(c->sm_arch, window > 0 && window + bq < sq ? window + bq : sq);
    double t_block = 4.0 * bq * bkv * hd * (backward ? 2.5 : 1.0) / (rate / slots);
    double load = sum / slots;
    double t_comp = (load > maxb ? load : maxb) * t_block;
    if (!causal && !(window > 0))
        t_comp /= aug_attention_full_gain(skv);
    double red = split > 1 ? 2.0 * split * bh * sq * hd * 4.0 : 0.0;
    double t_mem = (bytes + red) / (c->hbm_gbps * 1e9);
    double t = c->overhead_us * 1e-6 + (t_comp > t_mem ? t_comp : t_mem);
    if (p) {
        p->block_q = bq;
        p->block_kv = bkv;
        p->ctas = ctas;
        p->split_kv = split;
        p->waves = ceil(ctas / slots);
        p->t_compute_us = t_comp * 1e6;
        p->t_memory_us = t_mem * 1e6;
        p->t_us = t * 1e6;
    }
    return t * 1e6;
}

/* The main loop's rate at head dim d below 128 against head dim 128. Each query-key pair
 * costs the two GEMMs' 4 d FLOPs on the tensor cores plus a softmax step whose cost does not
 * shrink with d: an exponential on the SFU, which issues 16 per clock per SM on sm_80 to
 * sm_100 (CUDA C++ Programming Guide, "Arithmetic Instructions" throughput table, exp2f),
 * and the running max and sum (Dao 2023, Algorithm 1; Shah et al. 2024, "FlashAttention-3",
 * sec. 3.1: H100 SXM5 has 989 TFLOP/s of matmul but 3.9 TFLOP/s of exponentials). In
 * head-dim columns that step is worth
 *
 *   e = k x F x s / (4 x 16),   F = dense peak FLOPs per clock per SM of the dtype,
 *
 * the exponential's SFU time in units of one column's tensor-core time (s: the kernel's
 * share of the native GEMM rate, aug_attention_fa2_factor() for FA2 on Hopper, else 1),
 * times the share k of it the kernel leaves exposed. A pair then takes d + e and
 *
 *   f(d) = d / (d + e) / (128 / (128 + e)).
 *
 * The backward loses as much (FA2 on A100 and H100 runs head dim 64 at 0.87-0.91 of 128's
 * rate forward and backward together, Dao 2023, Fig. 4 and the flash-attention README's H100
 * figure, as forward alone), so both passes take f.
 *   - Kernels on mma.sync (everything before Hopper, FA2 on any GPU): k = 0.5, from FA2 on
 *     A100 (F = 2049) running head dim 64 about 10% slower per FLOP (Dao 2023, Fig. 4):
 *     e = 16, f(64) = 0.90. Held out: FA2 on H100, e = 17.4, f(64) = 0.89 against 0.88 / 0.89
 *     at 16k tokens, no mask / causal (FlashAttention-3 paper, Fig. 5).
 *   - Hopper's and Blackwell's native kernels (cuDNN, FlashAttention-3), which issue their
 *     GEMMs asynchronously beside the softmax: k = ATTN_SOFTMAX_EXPOSED_NATIVE, the
 *     least-squares fit of ln(t64 / t128) over augur-profile's own H100 cuDNN 9.19 forward
 *     points at 512-16384 tokens, both masks (kernels-db/h100-80g/raw/attention.csv: equal
 *     FLOPs at head dims 64 and 128); `bench_attention` refits it and prints the held-out
 *     H200 points and FlashAttention-3 paper's H100 rates. Blackwell keeps the SFU's 16 per
 *     clock beside twice Hopper's tensor rate per SM, so its e is about twice Hopper's.
 * Heads wider than 128 keep f = 1: the kernels shrink their tiles to fit the registers, and
 * at head dim 256 FA2 runs at 0.88 of 128's rate, cuDNN 0.94-0.98, FA3 1.04-1.17 (same
 * figure): no common direction. Without a clock in gpus.csv, F is the generation's
 * reference GPU's (A100: 2049, H100 SXM: 3786). */
#define ATTN_SFU_EXP_PER_CLK 16.0
#define ATTN_SOFTMAX_EXPOSED_MMA_SYNC 0.5
#define ATTN_SOFTMAX_EXPOSED_NATIVE 1.13

double aug_attention_softmax_cols(const struct aug_gemm_ceiling *c, int sm_arch, int kernel)
{
    int hopper = sm_arch >= 90, fa2 = kernel == AUG_ATTN_KERNEL_FA2;
    double flop_per_clk = hopper ? 3786.0 : 2049.0;
    if (c && c->peak_tflops > 0 && c->sms > 0 && c->clock_mhz > 0)
        flop_per_clk = c->peak_tflops * 1e12 / (c->sms * c->clock_mhz * 1e6);
    double k = hopper && !fa2 ? ATTN_SOFTMAX_EXPOSED_NATIVE : ATTN_SOFTMAX_EXPOSED_MMA_SYNC;
    double share = fa2 ? aug_attention_fa2_factor(c, sm_arch) : 1.0;
    return k * flop_per_clk * share / (4.0 * ATTN_SFU_EXP_PER_CLK);
}

double aug_attention_head_dim_factor(double head_dim, double softmax_cols)
{
    double d = head_dim, e = softmax_cols;
    if (!(d > 0) || !(d < 128.0) || !(e >= 0))
        return 1.0;
    return d / (d + e) * (128.0 + e) / 128.0;
}

/* FlashAttention-2 issues Ampere's mma.sync instructions on every GPU. On Hopper they reach
 * far less of the tensor cores than wgmma, which cuBLAS, cuDNN and FlashAttention-3 use:
 * "FlashAttention-2 achieving only 35% utilization on the H100 GPU", against up to 75% for
 * FlashAttention-3, 1.5-2.0x faster in both passes (Shah et al., "FlashAttention-3",
 * arXiv 2407.08608, abstract and sec. 4.1). The native forward main loop above runs at
 * ATTN_FWD_OF_GEMM x the achievable GEMM rate (0.722 x 792.1 = 572 TFLOP/s on H100 SXM);
 * FA2's causal forward at 0.34 of the dense peak: 335 TFLOP/s at 16k tokens, head dim 128,
 * on H100 SXM5 (the paper's Fig. 5, causal panel; 370 without the mask, the full-mask gain
 * above). Both passes are scaled by that ratio (0.588 on H100). Blackwell has no published
 * FA2 figure; the Hopper fraction is kept for it. */
#define FA2_HOPPER_OF_PEAK 0.34

double aug_attention_fa2_factor(const struct aug_gemm_ceiling *c, int sm_arch)
{
    if (sm_arch < 90 || !c || !(c->rate_tflops > 0) || !(c->peak_tflops > 0))
        return 1.0;
    double f = FA2_HOPPER_OF_PEAK * c->peak_tflops / (ATTN_FWD_OF_GEMM * c->rate_tflops);
    return f < 1.0 ? f : 1.0;
}

/* Sum over positions p in [0, P) of (p mod c) + 1: the keys each query of a chunked
 * mask sees (whole chunks of c (c + 1) / 2, then the partial one). */
static double chunk_prefix(double P, double c)
{
    double q = floor(P / c), r = P - q * c;
    return q * c * (c + 1.0) / 2.0 + r * (r + 1.0) / 2.0;
}

double aug_attention_chunk_pairs(double seq_q, double seq_kv, double c)
{
    if (seq_q > seq_kv)
        seq_q = seq_kv;
    if (!(c > 0) || c >= seq_kv)
        return aug_attention_pairs(seq_q, seq_kv, 0.0);
    return chunk_prefix(seq_kv, c) - chunk_prefix(seq_kv - seq_q, c);
}

double aug_attention_local_pairs(double seq_q, double seq_kv, double w, int chunked)
{
    return chunked ? aug_attention_chunk_pairs(seq_q, seq_kv, w)
                   : aug_attention_pairs(seq_q, seq_kv, w);
}

double aug_attention_local_keys(double seq_q, double seq_kv, double w, int chunked)
{
    if (!(w > 0) || w >= seq_kv)
        return seq_kv;
    if (seq_q > seq_kv)
        seq_q = seq_kv;
    return chunked ? seq_kv - w * floor((seq_kv - seq_q) / w) : fmin(seq_kv, seq_q + w - 1.0);
}

/* The pairs a causal mask leaves (augur/attention.h), windowed or not. */
double aug_attention_pairs(double seq_q, double seq_kv, double w)
{
    if (seq_q > seq_kv)
        seq_q = seq_kv;
    double c = seq_kv - seq_q; /* keys before the first query */
    if (!(w > 0) || w >= seq_kv)
        return seq_q * c + seq_q * (seq_q + 1.0) / 2.0;
    if (c >= w)
        return seq_q * w;
    /* the queries before position w see all keys up to their own, the rest w */
    return (w * (w + 1.0) - c * (c + 1.0)) / 2.0 + (seq_kv - w) * w;
}

/* flash-attn instantiates its kernels for a few head dims and runs a head on the smallest
 * that holds it, the padding columns computed like the others: FlashAttention-2 rounds up
 * to 32, 64, 96, 128, 160, 192 or 256 (Dao-AILab/flash-attention 2.x,
 * csrc/flash_attn/src/static_switch.h, HEADDIM_SWITCH), FlashAttention-3 to 64, 96, 128,
 * 192 or 256 (hopper/flash_api.cpp, round_up_headdim). A head of 80 (Phi-2) thus costs the
 * main loop of 96. cuDNN builds its fused kernel for the graph's head dim, which need only
 * be a multiple of 8 (cudnn-frontend include/cudnn_frontend/node/sdpa_support_surface.h):
 * no padding is charged. Heads beyond 256 are left as they are (neither kernel takes
 * them). */
double aug_attention_kernel_head_dim(int kernel, double head_dim)
{
    static const double fa2[] = {32, 64, 96, 128, 160, 192, 256};
    static const double fa3[] = {64, 96, 128, 192, 256};
    const double *dims = kernel == AUG_ATTN_KERNEL_FA2   ? fa2
                         : kernel == AUG_ATTN_KERNEL_FA3 ? fa3
                                                         : NULL;
    size_t n = kernel == AUG_ATTN_KERNEL_FA2 ? sizeof fa2 / sizeof *fa2 : sizeof fa3 / sizeof *fa3;
    if (!(head_dim > 0))
        return head_dim;
    for (size_t i = 0; dims && i < n; i++)
        if (head_dim <= dims[i])
            return dims[i];
    return head_dim;
}

/* MLA heads (q.k 192, p.v 128: FA3's hdim-192 kernel with a 128-wide V) pad each width on
 * its own; their mean is what the main loop runs on. */
double aug_attention_kernel_width(int kernel, double head_dim, double head_dim_v)
{
    if (!(head_dim_v > 0))
        return aug_attention_kernel_head_dim(kernel, head_dim);
    double d_qk = 2.0 * head_dim - head_dim_v;
    return 0.5 * (aug_attention_kernel_head_dim(kernel, d_qk) +
                  aug_attention_kernel_head_dim(kernel, head_dim_v));
}

double aug_attention_model_us(const struct aug_gemm_ceiling *c, double batch_heads,
                              double seq_q, double seq_kv, double head_dim, int causal,
                              double window, int chunked, int backward, double bytes,
                              struct aug_attn_plan *plan)
{
    if (plan)
        memset(plan, 0, sizeof *plan);
    if (!c || !(c->rate_tflops > 0) || !(c->hbm_gbps > 0) || !(batch_heads > 0) ||
        !(seq_q > 0) || !(seq_kv > 0) || !(head_dim > 0) || !(bytes >= 0) || !(window >= 0))
        return 0.0;
    double best = INFINITY;
    struct aug_attn_plan tp;
    /* split-KV only where the query tiles leave SMs idle (decode, short prefill) */
    double ctas1 = batch_heads * (seq_q < 128 ? 1.0 : ceil(seq_q / 128));
    for (double s = 1; s <= 32; s *= 2) {
        if (s > 1 && (backward || ctas1 >= c->sms))
            break;
        double t = attn_split_us(c, batch_heads, seq_q, seq_kv, head_dim, causal, window,
                                 chunked, backward, bytes, s, &tp);
        if (t < best) {
            best = t;
            if (plan)
                *plan = tp;
        }
    }
    return best;
}
