/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_model.c - the structural GEMM model: time of one cuBLAS/CUTLASS-style GEMM kernel
 * from its output tiles, the waves they run in, the main-loop rate of one tile and the HBM
 * traffic of its operands.
 *
 * Kernel structure (CUTLASS, "Efficient GEMM in CUDA", docs/efficient_gemm.md; NVIDIA
 * "Matrix Multiplication Background User's Guide", sections "Tile quantization" and "Wave
 * quantization"): C (m x n) is cut into tile_m x tile_n output tiles, one per CTA; a CTA
 * walks k in steps of tile_k. ctas_per_sm CTAs are resident on each SM, so the tiles run
 * in waves = ceil(tiles / (SMs x ctas_per_sm)) and a tensor-core wave costs as much as a
 * full one:
 *
 *   t_compute = waves x 2 tile_m tile_n ceil(k / (split_k tile_k)) tile_k / rate_cta
 *   rate_cta  = rate_tile / (SMs x ctas_per_sm)
 *
 * A SIMT (fp32 CUDA-core) SGEMM CTA keeps its SM's FMA pipes busy on its own, so its last,
 * partial wave costs ceil(rest / SMs) / ctas_per_sm of a full one (the busiest SM's share);
 * with that rule the 5-fold median error of NeuSight's A100 SGEMMs (>= 10 us) falls from
 * 15.2% to 4.0%, while on the tensor-core sweeps of Vidur and augur-profile it made H100
 * bf16/fp8 0.2-2.5 points worse, so tensor-core CTAs keep the whole wave.
 *
 * Partial tiles (m or n not a multiple of the tile) and partial k steps are paid in full.
 * rate_tile: a CTA's main loop overlaps its math with the L2 -> SM operand traffic of its
 * tile, (tile_m + tile_n) tile_k elements per 2 tile_m tile_n tile_k FLOPs, i.e. an
 * intensity I = 2 tile_m tile_n / ((tile_m + tile_n) elt) FLOP/B. The unhidden part makes
 * a small tile slower than a large one:
 *
 *   rate_tile = rate x s(I) / s(I_largest),  s(I) = I / (I + rate / l2_bw)
 *
 * so the largest tile runs at the main-loop rate and 64 x 64 tiles run about 30% slower
 * on A100 bf16. The main-loop rate is the achievable rate of gpus.csv (ach_tflops_*: what
 * cuBLAS reaches on its best large shape, "Maximum Achievable Matmul FLOPS") times
 * `sustained`: over a sweep of model shapes the main loop holds less than the best shape
 * (clocks under sustained load, kernel selection). Fitted on Vidur's fp16 sweeps with this
 * model (benchmarks/bench_kernels.c, every distinct shape): A100 230.9 TFLOP/s = 0.862 of
 * 267.9, H100 732.2 = 0.924 of 792.1 (one CTA per SM, below); AUG_GEMM_SUSTAINED = 0.89,
 * their mean 0.893 rounded, for 16-bit tensor-core GEMMs on every GPU. fp8 and int8 keep
 * 1: no fp8 kernel sweep is at hand to fit their share from (their gpus.csv rate is one
 * published GEMM throughput); SIMT fp32 keeps 1 (NeuSight's fits set its rate directly).
 * The physics clamp and the extrapolation ceiling of hw/op.c use the achievable rate
 * itself.
 *
 * CTAs per SM: the fp32 accumulators of one tile take about half of a thread's registers,
 * and an SM has 64 K 32-bit registers (every NVIDIA GPU from Volta to Blackwell, CUDA C
 * Programming Guide, "Compute capabilities" table), so ctas_per_sm = 65536 / (2 tile_m
 * tile_n), between 1 and 8: 256 x 128 -> 1, 128 x 128 -> 2, 64 x 64 -> 8.
 * Hopper (sm_90) is the exception: its tensor-core GEMMs are warp-specialized persistent
 * kernels (CUTLASS 3.x KernelTmaWarpSpecializedCooperative / Pingpong, cuBLASLt's sm90
 * kernels) whose TMA pipeline stages fill the shared memory of one SM, so one CTA runs
 * per SM whatever the tile: cuBLASLt's own heuristic reports wavesCount = CTAs / 132 for
 * 1,175 of the 1,267 GEMMs it ran with tiles of 64 x 64 and larger on H100 and H200, and
 * for the median GEMM of every such tile (augur-profile's kernels-db/{h100-80g,
 * h200-141g}/raw/gemm-full.csv, field library_algo; the other 92 are split-K runs whose
 * count leaves the k splits out).
 * With that rule the 5-fold median error of those GEMMs (>= 10 us) falls from 8.2% to
 * 7.3% (H100 bf16), 9.2% to 7.7% (H200 bf16), 8.1% to 6.6% and 9.2% to 7.5% (fp8), and
 * Vidur's H100 sweep from 6.4% to 6.2% (benchmarks/kernels.md). Blackwell keeps the
 * register rule: no measurement of its kernels has reached augur.
 *
 * Memory: the operands stream from HBM at the achievable bandwidth. Tiles of one wave are
 * rasterised as a near-square block of gm_w x gn_w tiles that share their A rows and B
 * columns through L2, so a wave reads (gm_w tile_m + gn_w tile_n) k elements; when A and B
 * together fit in half the L2 they are read once. The output is written once; split-K
 * writes and reads split_k fp32 partial outputs for the reduction.
 *
 *   t = overhead + max(t_compute, t_memory)          (pipelined: the larger one binds)
 *
 * Tile and split choice: cuBLAS's heuristic picks a kernel per shape; the model takes the
 * candidate with the smallest time (tensor cores: 256x128, 128x256, 128x128, 128x64,
 * 64x128, 64x64 with tile_k = 64 bytes of k, the CUTLASS SM80/SM90 defaults; SIMT SGEMM:
 * 128x128, 128x64, 64x64, 32x128, 32x32 with tile_k 8, the kernels named ampere_sgemm_*
 * in NeuSight's traces; batched SGEMM: cuBLAS's own batched family, below) and split_k in
 * {1, 2, 4, 8, 16} (not for batched SGEMM), split-K only while the output
 * tiles fill less than one wave (the split set only shrinks as m and n grow). Each candidate's time is
 * non-decreasing in m, n, k and batch (ceilings and maxima of non-decreasing terms), so
 * the minimum is too: a 4097-row GEMM is never faster than a 4096-row one; it steps up
 * when the extra row of tiles opens a new wave.
 *
 * Stream-K (Osama, Merrill, Cecka, Garland and Owens, "Stream-K: Work-centric Parallel
 * Decomposition for Dense Matrix Multiplication on the GPU", PPoPP 2023; in CUTLASS as
 * GemmUniversal's stream-K mode for sm_80 since 2.11 and the stream-K tile scheduler of
 * 3.x for sm_90; vendor libraries carry persistent kernels of this kind, and whether one
 * is picked for a shape is their heuristic's business, so the model takes the cheaper
 * candidate and Vidur's sweeps judge it): where the last wave is partial, the
 * paper's hybrid runs the full waves data-parallel and spreads the k iterations of the
 * remaining tiles evenly over every CTA slot, so the last wave costs its share of the work
 * instead of a whole wave. CTAs that end inside a tile write their fp32 partial
 * accumulators to a workspace that the tile's finishing CTA reads back (the "fixup"): at
 * most one tile_m x tile_n x 4 B partial per slot, written and read through L2 after the
 * main loop:
 *
 *   t_sk = overhead + max(waves_sk x t_wave, t_memory) + 2 slots tile_m tile_n 4 / l2_bw,
 *   waves_sk = full waves + remaining tiles / slots
 *
 * It is one more candidate (tensor-core tiles on sm_80 and newer, split_k 1, at least one
 * full wave); the minimum with the data-parallel kernel of the same tile stays
 * non-decreasing in every dimension: inside a wave both grow, and at an exact multiple of
 * the slots (where the hybrid does not apply) the data-parallel w x t_wave equals the
 * data-parallel candidate one tile below, which the minimum never exceeded. The step at
 * a wave edge shrinks from a whole wave to 1 / slots of one plus the fixup: on Vidur's
 * A100 fp16 sweep the median error of GEMMs >= 10 us falls from 6.8% to 4.8% with it, on
 * H100 from 7.2% to 6.4% (benchmarks/kernels.md).
 *
 * overhead 2.5 us (AUG_GEMM_OVERHEAD_US): grid launch, pipeline fill (a few k steps at
 * ~0.6-1 us HBM latency) and the epilogue of the last wave; the smallest cuBLAS GEMMs take
 * 2-4 us of device time in CUPTI traces (Vidur's A100/H100 fp16 sweep bottoms out at 4-6 us
 * with its profiler's own overhead). Calibration replaces it per GPU. */
#include "gemm_model.h"

#include <math.h>
#include <string.h>

/* Fractions of the datasheet peaks used when gpus.csv has no achievable column:
 * tensor 0.80: median of the NVIDIA rows of the "Maximum Achievable Matmul FLOPS" table
 *   (stas00/ml-engineering, compute/accelerator/README.md: A100 SXM 267.9/312 = 0.859,
 *   GH200 0.830, A100 PCIe 0.822, H100 SXM 792.1/989 = 0.801, B200 0.776, GB200 0.729);
 * fp8 0.65: about 1,280 of 1,979 TFLOP/s on H100 with public cuBLASLt (SemiAnalysis,
 *   "MI300X vs H100 vs H200 Benchmark Part 1: Training", 2024);
 * fp32 SIMT 0.85: cuBLAS SGEMM on large shapes (e.g. NeuSight's A100-PCIe rows reach
 *   16.6 of 19.5 TFLOP/s, see benchmarks/kernels.md);
 * HBM 0.90: STREAM-like copies reach about 90% of the datasheet bandwidth (A100 80GB:
 *   the slope of Vidur's large fp16 adds is 1.79 TB/s = 0.88 of 2.04, kernels-db/a100-80g);
 * L2: 5120 B/clk at the boost clock (A100 whitepaper, "L2 cache": 5120 B/clk read
 *   bandwidth, 2.3x V100) for GPUs without an l2_gbps figure. */
#define FRAC_TENSOR 0.80
#define FRAC_FP8 0.65
#define FRAC_SIMT 0.85
#define FRAC_HBM 0.90
#define L2_BYTES_PER_CLK 5120.0

double aug_gpu_l2_gbps(const struct aug_gpu *gpu) {
    if (gpu->l2_gbps > 0)
        return gpu->l2_gbps;
    return L2_BYTES_PER_CLK * (gpu->clock_mhz > 0 ? gpu->clock_mhz : 1400.0) * 1e-3;
}

int aug_gemm_ceiling_of(const struct aug_gpu *gpu, enum aug_dtype dt, struct aug_gemm_ceiling *c)
{
    memset(c, 0, sizeof *c);
    if (!gpu || (unsigned)dt >= AUG_DTYPE_COUNT)
        return 0;
    double peak = gpu->peak_tflops[dt];
    if (!(peak > 0))
        return 0;
    c->sustained = 1.0;
    double bf16 = gpu->peak_tflops[AUG_DTYPE_BF16] > 0 ? gpu->peak_tflops[AUG_DTYPE_BF16]
                                                        : gpu->peak_tflops[AUG_DTYPE_FP16];
    double ach16 = gpu->ach_tflops_bf16 > 0 ? gpu->ach_tflops_bf16 : FRAC_TENSOR * bf16;
    double frac16 = bf16 > 0 ? ach16 / bf16 : FRAC_TENSOR;
    double rate;
    switch (dt) {
    case AUG_DTYPE_FP32:
        rate = gpu->ach_tflops_fp32 > 0 ? gpu->ach_tflops_fp32 : FRAC_SIMT * peak;
        c->simt = 1;
        break;
    case AUG_DTYPE_FP8:
        rate = gpu->ach_tflops_fp8 > 0 ? gpu->ach_tflops_fp8 : FRAC_FP8 * peak;
        break;
    case AUG_DTYPE_INT8:
    case AUG_DTYPE_INT4: /* integer tensor paths: the fp8 fraction where the GPU has one */
        rate = gpu->ach_tflops_fp8 > 0 && gpu->peak_tflops[AUG_DTYPE_FP8] > 0
                   ? peak * gpu->ach_tflops_fp8 / gpu->peak_tflops[AUG_DTYPE_FP8]
                   : frac16 * peak;
        break;
    default: /* bf16, fp16, tf32: the 16-bit fraction of the dtype's own peak */
        rate = frac16 * peak;
        c->sustained = AUG_GEMM_SUSTAINED;
        break;
    }
    /* a generation no GEMM sweep has measured: the share of this rate its GEMM main loops
     * hold in training, fitted on published runs (gpus.csv gemm_scale); attention and the
     * ceilings keep the rate itself */
    if (!c->simt && gpu->gemm_scale > 0)
        c->sustained *= gpu->gemm_scale;
    if (rate > peak)
        rate = peak;
    c->rate_tflops = rate;
    c->peak_tflops = peak;
    c->peak_hbm_gbps = gpu->hbm_gbps;
    c->hbm_gbps = gpu->ach_hbm_gbps > 0 ? gpu->ach_hbm_gbps : FRAC_HBM * gpu->hbm_gbps;
    if (c->hbm_gbps > gpu->hbm_gbps)
        c->hbm_gbps = gpu->hbm_gbps;
    c->l2_bytes = gpu->l2_mib * 1048576.0;
    c->l2_gbps = aug_gpu_l2_gbps(gpu);
    c->overhead_us = AUG_GEMM_OVERHEAD_US;
    c->elt_bytes = aug_dtype_bytes(dt);
    /* outputs: fp32 stays fp32; 16-bit and fp8 GEMMs write 16-bit (fp8 training GEMMs
     * accumulate in fp32 and write bf16); int8 writes int32 */
    c->out_bytes = dt == AUG_DTYPE_FP32 || dt == AUG_DTYPE_TF32 || dt == AUG_DTYPE_INT8 ? 4.0
                                                                                         : 2.0;
    c->sms = gpu->sm_count > 0 ? gpu->sm_count : 1;
    c->clock_mhz = gpu->clock_mhz;
    c->stream_k = !c->simt && gpu->sm_arch >= 80;
    c->sm_arch = gpu->sm_arch;
    return 1;
}

/* Does `c` take the tiles sized to the shape (adaptive_us)? cuBLAS 13's nvjet kernels run
 * Hopper's 16-bit and fp8 GEMMs; its tf32 GEMMs stay on fixed-tile sm90_xmma kernels
 * (128 x 128 and 128 x 256 in 1,007 of the 1,490 tf32 GEMMs of
 * kernels-db/h200-141g/raw/gemm-vidur-shapes-fp32.csv, some with stream-K), so they keep
 * the fixed tiles and stream-K. */
static int adaptive(const struct aug_gemm_ceiling *c)
{
    return c->adaptive_tiles && !c->simt && c->sm_arch == 90 && c->elt_bytes <= 2.0;
}

int aug_gemm_tile_family(const struct aug_gemm_ceiling *c)
{
    if (c->simt)
        return c->sm_arch >= 80 ? 4 : c->sm_arch >= 70 ? 3 : 1;
    if (c->sm_arch == 90)
        return adaptive(c) ? 6 : 5;
    return c->stream_k ? 2 : 0;
}

/* fp8 accumulation. Hopper's and Ada's fp8 tensor-core instructions accumulate in a
 * reduced-precision adder (about 14 bits kept: DeepSeek-AI, "DeepSeek-V3 Technical Report",
 * arXiv 2412.19437, sec. 3.3.2). cuBLASLt's default therefore promotes the partial sums to
 * fp32 registers on the CUDA cores every few k steps; CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1
 * skips that. Transformer Engine runs the forward GEMM with fast accumulation and the
 * data- and weight-gradient GEMMs with the split accumulator (TE 1.x-2.x,
 * pytorch/module/base.py: _2X_ACC_FPROP = False, _2X_ACC_DGRAD = _2X_ACC_WGRAD = True;
 * recipe MMParams in 2.x; torchao.float8 defaults the same way). Fast accumulation is
 * "a 1.1x to 1.2x speedup" on fp8 training GEMMs (pytorch/ao issue #2377, 2025): the
 * split accumulator keeps 1 / 1.15, the middle of that range, of the main-loop rate. The
 * fp8 ceilings of gpus.csv and augur-profile's fp8 points are fast-accumulation rates
 * (profiler/gpu_gemm.c). Blackwell's tcgen05 instructions accumulate in fp32 in tensor
 * memory and cuBLASLt has no fast-accumulation mode on sm_100 (Transformer Engine
 * cublaslt_grouped_gemm.cu, 2026), so the share is 1 there. */
double aug_gemm_split_acc_share(enum aug_dtype dt, int sm_arch)
{
    return dt == AUG_DTYPE_FP8 && (sm_arch == 89 || sm_arch == 90) ? AUG_FP8_SPLIT_ACC_SHARE
                                                                     : 1.0;
}

static const double tc_tiles[][2] = {{256, 128}, {128, 256}, {128, 128},
                                     {128, 64},  {64, 128},  {64, 64}};
static const double simt_tiles[][2] = {{128, 128}, {128, 64}, {64, 64}, {32, 128}, {32, 32}};
static const double splits[] = {1, 2, 4, 8, 16};

/* Batched SGEMM (torch.bmm -> cublasSgemmStridedBatched): cuBLAS 12.1 never splits k (grid
 * z = batch in all 88,000 bmm calls of NeuSight's traces on five GPUs) and picks from a
 * family of its own, per architecture (the kernel names of those traces): sm_80
 * ampere_sgemm_128x128_nn in 16,588 of A100's 16,661 calls; sm_70/75 volta_sgemm_{64x64,
 * 32x128, 128x32, 128x64}_nn. sm_6x runs maxwell_sgemm_128x64_nn in 99.6% of P100's and
 * P4's calls, but this model times that one tile worse than the whole SIMT family (5-fold
 * median error of P100's GEMMs 17% -> 20%: the Maxwell kernel's occupancy is not the
 * register rule's), so Pascal keeps the family, without split-K. */
static const double simt_batched_ampere[][2] = {{128, 128}};
static const double simt_batched_volta[][2] = {{128, 64}, {64, 64}, {32, 128}, {128, 32}};

/* The candidate tiles of `c` for a GEMM of `batch` entries; *nt receives their count. */
static const double (*tile_family(const struct aug_gemm_ceiling *c, double batch, int *nt))[2]
{
    if (!c->simt) {
        *nt = (int)(sizeof tc_tiles / sizeof *tc_tiles);
        return tc_tiles;
    }
    if (batch > 1 && c->sm_arch >= 80) {
        *nt = 1;
        return simt_batched_ampere;
    }
    if (batch > 1 && c->sm_arch >= 70) {
        *nt = (int)(sizeof simt_batched_volta / sizeof *simt_batched_volta);
        return simt_batched_volta;
    }
    *nt = (int)(sizeof simt_tiles / sizeof *simt_tiles);
    return simt_tiles;
}

/* CTAs resident on one SM for a tile: one on Hopper's tensor cores, else the register
 * rule of the file note, 1 to 8. */
static double ctas_per_sm(const struct aug_gemm_ceiling *c, double tile_m, double tile_n)
{
    if (!c->simt && c->sm_arch == 90)
        return 1;
    double ctas = floor(65536.0 / (2.0 * tile_m * tile_n));
    return ctas < 1 ? 1 : ctas > 8 ? 8 : ctas;
}

static double intensity(double tm, double tn, double elt)
{
    return 2.0 * tm * tn / ((tm + tn) * elt);
}

static double tile_k_of(const struct aug_gemm_ceiling *c)
{
    if (c->simt)
        return 8.0;
    return 64.0 / (c->elt_bytes > 0 ? c->elt_bytes : 2.0);
}

double aug_gemm_model_tile_us(const struct aug_gemm_ceiling *c, double m, double n, double k,
                              double batch, double tile_m, double tile_n, double split_k,
                              struct aug_gemm_plan *plan)
{
    if (batch < 1)
        batch = 1;
    double tk = tile_k_of(c);
    double ctas = ctas_per_sm(c, tile_m, tile_n);
    double slots = (double)c->sms * ctas;
    double gm = ceil(m / tile_m), gn = ceil(n / tile_n);
    double tiles = gm * gn * batch * split_k;
    double waves = ceil(tiles / slots);
    /* the last, partial wave: SIMT SGEMM CTAs (256 threads, an 8 x 8 register block each)
     * keep an SM's FMA pipes busy on their own, so the wave lasts as long as its busiest
     * SM, ceil(rest / SMs) of the SM's ctas slots; tensor-core CTAs need their SM's full
     * complement to hide the pipeline's latency and pay a whole wave (see the file note) */
    double full = floor(tiles / slots), rest = tiles - full * slots;
    double last = rest <= 0 ? 0.0 : c->simt ? fmin(ceil(rest / (double)c->sms), ctas) / ctas
                                            : 1.0;
    /* main-loop rate of this tile, against the largest tile of the family (SIMT: 128 x 128,
     * batched or not) */
    double big_m = c->simt ? simt_tiles[0][0] : tc_tiles[0][0];
    double big_n = c->simt ? simt_tiles[0][1] : tc_tiles[0][1];
    double rate = aug_gemm_mainloop_tflops(c) * 1e12;
    double i0 = rate / (c->l2_gbps * 1e9);
    double it = intensity(tile_m, tile_n, c->elt_bytes);
    double ib = intensity(big_m, big_n, c->elt_bytes);
    double rate_tile = rate * (it / (it + i0)) / (ib / (ib + i0));
    if (rate_tile > rate)
        rate_tile = rate;
    double k_steps = ceil(k / (split_k * tk));
    double t_task = 2.0 * tile_m * tile_n * k_steps * tk / (rate_tile / slots);
    double t_comp = (full + last) * t_task;

    /* HBM traffic of the operands, with L2 sharing inside a wave */
    double a = m * k * c->elt_bytes, b = k * n * c->elt_bytes;
    double per_batch;
    if (a + b <= 0.5 * c->l2_bytes) {
        per_batch = a + b;
    } else {
        double tiles_b = gm * gn * split_k; /* tiles of one batch entry */
        double w = slots < tiles_b ? slots : tiles_b;
        double gn_w = ceil(sqrt(w));
        if (gn_w > gn)
            gn_w = gn;
        double gm_w = ceil(w / gn_w);
        if (gm_w > gm)
            gm_w = gm;
        double waves_b = ceil(tiles_b / w);
        double wave_bytes = (gm_w * tile_m + gn_w * tile_n) * (k / split_k) * c->elt_bytes;
        per_batch = waves_b * wave_bytes;
        if (per_batch < a + b)
            per_batch = a + b;
    }
    double out = m * n * c->out_bytes;
    double red = split_k > 1 ? 2.0 * split_k * m * n * 4.0 : 0.0;
    double bytes = batch * (per_batch + out + red);
    double t_mem = bytes / (c->hbm_gbps * 1e9);
    double t = c->overhead_us * 1e-6 + (t_comp > t_mem ? t_comp : t_mem);
    if (plan) {
        plan->tile_m = tile_m;
        plan->tile_n = tile_n;
        plan->tile_k = tk;
        plan->ctas_per_sm = ctas;
        plan->split_k = split_k;
        plan->tiles = tiles;
        plan->waves = waves;
        plan->last_wave = last;
        plan->t_wave_us = t_task * 1e6;
        plan->stream_k = 0;
        plan->t_fixup_us = 0;
        plan->hbm_bytes = bytes;
        plan->t_compute_us = t_comp * 1e6;
        plan->t_memory_us = t_mem * 1e6;
        plan->t_us = t * 1e6;
    }
    return t * 1e6;
}

/* The data-parallel + stream-K hybrid of the tile of `dp` (its data-parallel plan at
 * split_k 1); INFINITY where it does not apply (no full wave, or no partial one). */
static double stream_k_us(const struct aug_gemm_ceiling *c, const struct aug_gemm_plan *dp,
                          struct aug_gemm_plan *out)
{
    double slots = (double)c->sms * dp->ctas_per_sm;
    double full = floor(dp->tiles / slots), rest = dp->tiles - full * slots;
    if (full < 1 || rest <= 0 || !(dp->waves > 0))
        return INFINITY;
    double waves = full + rest / slots;
    double t_comp = waves * dp->t_wave_us;
    double fixup = 2.0 * slots * dp->tile_m * dp->tile_n * 4.0 / (c->l2_gbps * 1e9) * 1e6;
    double t = c->overhead_us + (t_comp > dp->t_memory_us ? t_comp : dp->t_memory_us) + fixup;
    *out = *dp;
    out->waves = waves;
    out->last_wave = rest / slots;
    out->stream_k = 1;
    out->t_compute_us = t_comp;
    out->t_fixup_us = fixup;
    out->t_us = t;
    return t;
}

/* Hopper's nvjet kernels (cuBLAS 13; the kernels CUPTI names nvjet_sm90_hsh_<N>x<M>_...
 * in augur-profile's run of Vidur's 17,871 H100 fp16 shapes on an H200,
 * kernels-db/h200-141g/raw/gemm-vidur-shapes.csv) do not keep a few fixed tiles: they ran
 * 144 tile shapes (17,224 of the GEMMs without split-K), whose side along the output
 * features is 64, 128, 192, 256 or 320 in 16,667 GEMMs and whose side along the tokens is
 * a multiple of 8 from 8 to 304, the tile's area staying at most 320 x 128. The heuristic
 * sizes the token side so that the output tiles fill a whole number of waves: 7,324 GEMMs
 * ran in one wave of at most 132 tiles. Where the fixed 256 x 128 tile of m = 648,
 * n = 6144 opens a second wave, nvjet runs 192 x 176 tiles in one (47 us on the H200;
 * 74 us on Vidur's H100 with 2024's cuBLAS).
 * The model's candidates: each feature side tn, and for the least whole number of waves w
 * whose tiles fit (and the next three, where rounding can make more, smaller tiles the
 * cheaper choice) the token side rounded up to 8 that fills w waves; split-K stays with
 * the fixed tiles below one wave. Each candidate's time is non-decreasing in m, n and the
 * batch, and the window of waves only moves up as they grow; test_kernel_model's dense
 * sweeps check that the minimum never steps down. */
static const double nvjet_tile_n[] = {64, 128, 192, 256, 320};
#define NVJET_TILE_M_STEP 8.0
#define NVJET_TILE_M_MAX 304.0
#define NVJET_TILE_AREA (320.0 * 128.0)
#define NVJET_EXTRA_WAVES 3

static double adaptive_us(const struct aug_gemm_ceiling *c, double m, double n, double k,
                          double batch, struct aug_gemm_plan *plan)
{
    double best = INFINITY;
    double slots = (double)c->sms; /* one CTA per SM on sm_90 */
    for (size_t i = 0; i < sizeof nvjet_tile_n / sizeof *nvjet_tile_n; i++) {
        double tn = nvjet_tile_n[i];
        double tm_max = floor(fmin(NVJET_TILE_M_MAX, NVJET_TILE_AREA / tn) / NVJET_TILE_M_STEP) *
                        NVJET_TILE_M_STEP;
        double cols = ceil(n / tn) * batch; /* tiles of one row of tiles, over the batch */
        double w_min = ceil(ceil(m / tm_max) * cols / slots);
        for (int e = 0; e <= NVJET_EXTRA_WAVES; e++) {
            double rows = floor((w_min + e) * slots / cols);
            if (rows < 1)
                rows = 1;
            double tm = ceil(ceil(m / rows) / NVJET_TILE_M_STEP) * NVJET_TILE_M_STEP;
            if (tm > tm_max)
                tm = tm_max;
            struct aug_gemm_plan tp;
            double t = aug_gemm_model_tile_us(c, m, n, k, batch, tm, tn, 1, &tp);
            if (t < best) {
                best = t;
                if (plan)
                    *plan = tp;
            }
        }
    }
    return best;
}

double aug_gemm_model_us(const struct aug_gemm_ceiling *c, double m, double n, double k,
                         double batch, struct aug_gemm_plan *plan)
{
    if (!c || !(c->rate_tflops > 0) || !(c->hbm_gbps > 0) || !(c->l2_gbps > 0) ||
        !(m > 0) || !(n > 0) || !(k > 0)) {
        if (plan)
            memset(plan, 0, sizeof *plan);
        return 0.0;
    }
    if (batch < 1)
        batch = 1;
    int nt;
    const double(*tiles)[2] = tile_family(c, batch, &nt);
    /* batched SGEMM kernels never split k (see simt_batched_*) */
    size_t nsplit = c->simt && batch > 1 ? 1 : sizeof splits / sizeof *splits;
    double best = INFINITY;
    struct aug_gemm_plan bp, tp;
    memset(&bp, 0, sizeof bp);
    int sized = adaptive(c);
    if (sized)
        best = adaptive_us(c, m, n, k, batch, &bp);
    for (int i = 0; i < nt; i++) {
        double ctas = ctas_per_sm(c, tiles[i][0], tiles[i][1]);
        double out_tiles = ceil(m / tiles[i][0]) * ceil(n / tiles[i][1]) * batch;
        for (size_t s = 0; s < nsplit; s++) {
            /* split-K only while the output tiles leave SMs idle (less than one wave), as
             * cuBLAS's heuristics do; the allowed set only shrinks as m, n, batch grow */
            if (s > 0 && out_tiles >= c->sms * ctas)
                break;
            if (sized && s == 0) /* the sized tiles replace the data-parallel ones */
                continue;
            double t = aug_gemm_model_tile_us(c, m, n, k, batch, tiles[i][0], tiles[i][1],
                                              splits[s], &tp);
            if (t < best) {
                best = t;
                bp = tp;
            }
            struct aug_gemm_plan sp;
            if (s == 0 && c->stream_k && (t = stream_k_us(c, &tp, &sp)) < best) {
                best = t;
                bp = sp;
            }
        }
    }
    if (plan)
        *plan = bp;
    return best;
}
