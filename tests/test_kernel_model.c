/* SPDX-License-Identifier: Apache-2.0 */
/* test_kernel_model.c - the structural kernel models (hw/gemm_model.c, attention_model.c,
 * memop_model.c), the physics clamp and extrapolation of hw/op.c, the host/kernel time
 * split (hw/host_time.c) and the physical bounds checked when curves.csv and gpus.csv
 * load. Every expected number is derived in the comment beside it from kernels-db/gpus.csv:
 * A100 SXM 80GB: 108 SMs, bf16 peak 312 and achievable 267.9 TFLOP/s, HBM 2039 GB/s and
 * achievable 1795, L2 40 MiB and 7219 GB/s. H100 SXM: 132 SMs, bf16 989.4 / 792.1, HBM
 * 3350 GB/s (achievable 0.9 x 3350 = 3015), L2 50 MiB. */
#include "aug_test.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/attention.h"
#include "augur/curve.h"
#include "augur/kdb.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "hw/gemm_model.h"
#include "hw/host_time.h"
#include "hw/kernel_model.h"
#include "fit.h"
#include "samples.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

static struct aug_gpu a100, h100;
static char root[256];

static int setup(void **state)
{
    (void)state;
    if (aug_gpu_lookup(KDB, "a100-80g", &a100) != AUG_OK ||
        aug_gpu_lookup(KDB, "h100-80g", &h100) != AUG_OK)
        return -1;
    snprintf(root, sizeof root, "/tmp/aug_test_kmodel_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    char d[300];
    snprintf(d, sizeof d, "%s/a100-80g", root);
    return mkdir(d, 0755);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_ceilings_from_gpus_csv(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &c), 1);
    assert_near(c.rate_tflops, 267.9, 0);
    assert_near(c.hbm_gbps, 1795, 0);
    assert_near(c.l2_gbps, 7219, 0);
    assert_near(c.l2_bytes, 40.0 * 1048576, 0);
    assert_int_equal(c.sms, 108);
    /* tf32: the bf16 fraction 267.9 / 312 of its own 156 TFLOP/s peak = 133.95 */
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_TF32, &c), 1);
    assert_rel(c.rate_tflops, 156 * 267.9 / 312, 1e-12);
    /* fp32: SGEMM on the CUDA cores at 0.85 of 19.5 (no column), SIMT tiles */
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_FP32, &c), 1);
    assert_rel(c.rate_tflops, 0.85 * 19.5, 1e-12);
    assert_int_equal(c.simt, 1);
    /* no fp8 on A100: no ceiling, the op is refused upstream */
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_FP8, &c), 0);
    /* H100: fp8 1280 (column), int8 takes the fp8 fraction 1280 / 1978.9 of its peak,
     * HBM 0.9 x 3350 with no column */
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_FP8, &c), 1);
    assert_near(c.rate_tflops, 1280, 0);
    assert_rel(c.hbm_gbps, 0.9 * 3350, 1e-12);
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_INT8, &c), 1);
    assert_rel(c.rate_tflops, 1978.9 * 1280 / 1978.9, 1e-12);
    /* GB200: gemm_scale 0.75 (fitted on published runs, benchmarks/blackwell_fit.sh) on the
     * GEMM main loop of every tensor-core dtype: bf16 at 0.89 x 0.75 = 0.6675 of 1822, fp8
     * (no column) at 0.75 of 0.65 x 5000 = 3250; the rates themselves, which attention and
     * the ceilings use, stay; SGEMM (0.85 x 80 = 68) takes none */
    struct aug_gpu gb200;
    assert_int_equal(aug_gpu_lookup(KDB, "gb200-186g", &gb200), AUG_OK);
    assert_near(gb200.gemm_scale, 0.75, 0);
    assert_int_equal(aug_gemm_ceiling_of(&gb200, AUG_DTYPE_BF16, &c), 1);
    assert_rel(c.rate_tflops, 1822.0, 1e-12);
    assert_rel(c.sustained, 0.89 * 0.75, 1e-12);
    assert_int_equal(aug_gemm_ceiling_of(&gb200, AUG_DTYPE_FP8, &c), 1);
    assert_rel(c.rate_tflops, 3250.0, 1e-12);
    assert_rel(c.sustained, 0.75, 1e-12);
    assert_int_equal(aug_gemm_ceiling_of(&gb200, AUG_DTYPE_FP32, &c), 1);
    assert_rel(c.rate_tflops, 68.0, 1e-12);
    assert_rel(c.sustained, 1.0, 1e-12);
    /* the GPUs augur has kernel sweeps of carry none */
    assert_true(a100.gemm_scale == 0 && h100.gemm_scale == 0);
}

/* Main-loop share of a 16-bit tile of intensity `i` FLOP/B against the largest tile, 256 x
 * 128 (I = 2 x 256 x 128 / (384 x 2 B) = 85.33), at rate / L2 bandwidth = `i0` FLOP/B
 * (hw/gemm_model.c: s(I) = I / (I + I0), relative to the largest tile's). */
static double tile_share(double i, double i0)
{
    double ib = 2.0 * 256 * 128 / (384 * 2.0);
    return (i / (i + i0)) / (ib / (ib + i0));
}

/* A100 bf16 4096^3 with 256 x 128 tiles: 16 x 32 = 512 tiles, one CTA per SM (65536 /
 * (2 x 256 x 128) = 1), waves = ceil(512 / 108) = 5; a tile's main loop is 2 x 256 x 128 x
 * 4096 = 268,435,456 FLOPs at the sustained 0.89 x 267.9e12 / 108 per SM = 121.591 us;
 * HBM: A + B = 67 MB do not fit in 20 MiB (half the L2), a wave of 10 x 11 tiles reads
 * (10 x 256 + 11 x 128) x 4096 x 2 B = 32.5 MB, 5 waves + 33.5 MB of C = 196 MB at 1795
 * GB/s = 109 us: compute binds. Data-parallel: t = 2.5 + 5 x 121.591 = 610.45 us. With
 * 4097 rows a 17th row of tiles makes 544 tiles = 6 waves: 2.5 + 6 x 121.591 = 732.05 us,
 * 20% more for 0.02% more work. */
static void test_tiles_waves_and_the_4097_step(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    struct aug_gemm_plan p;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &c), 1);
    assert_int_equal(c.stream_k, 1); /* sm_arch 80 */
    assert_near(c.sustained, 0.89, 0);
    double task = 2.0 * 256 * 128 * 4096 / (0.89 * 267.9e12 / 108) * 1e6;
    assert_rel(task, 121.591, 1e-5);
    double t = aug_gemm_model_tile_us(&c, 4096, 4096, 4096, 1, 256, 128, 1, &p);
    assert_near(p.tiles, 512, 0);
    assert_near(p.ctas_per_sm, 1, 0);
    assert_near(p.waves, 5, 0);
    assert_int_equal(p.stream_k, 0);
    assert_rel(p.hbm_bytes, 5 * (10.0 * 256 + 11.0 * 128) * 4096 * 2 + 4096.0 * 4096 * 2, 1e-12);
    assert_rel(t, 2.5 + 5 * task, 1e-12);
    double t2 = aug_gemm_model_tile_us(&c, 4097, 4096, 4096, 1, 256, 128, 1, &p);
    assert_near(p.tiles, 544, 0);
    assert_near(p.waves, 6, 0);
    assert_rel(t2, 2.5 + 6 * task, 1e-12);
    /* the model over all tiles, splits and stream-K: the data-parallel + stream-K hybrid
     * runs 4 full waves of 256 x 128 tiles and spreads the other 80 tiles over the 108
     * SMs (4 + 80/108 = 4.7407 waves), then fixes up at most 108 fp32 partial tiles,
     * written and read through L2: 2 x 108 x 256 x 128 x 4 B / 7219 GB/s = 3.9218 us.
     * t = 2.5 + 4.7407 x 121.591 + 3.9218 = 582.85 us, below the data-parallel 610.45 */
    double fix = 2.0 * 108 * 256 * 128 * 4 / 7219e9 * 1e6;
    assert_rel(fix, 3.9218, 1e-4);
    double best = aug_gemm_model_us(&c, 4096, 4096, 4096, 1, &p);
    assert_int_equal(p.stream_k, 1);
    assert_rel(p.waves, 4 + 80.0 / 108, 1e-12);
    assert_rel(p.t_fixup_us, fix, 1e-12);
    assert_rel(best, 2.5 + (4 + 80.0 / 108) * task + fix, 1e-12);
    assert_rel(best, 582.853, 1e-5);
    /* 4097 rows never run faster than 4096: the 128 x 256 tile takes them (33 x 16 = 528
     * tiles = 4 full waves and 96 spread, 4.8889 waves): 2.5 + 4.8889 x 121.591 + 3.9218
     * = 600.87 us; the step is 3% instead of a whole wave's 20% */
    double best2 = aug_gemm_model_us(&c, 4097, 4096, 4096, 1, &p);
    assert_true(best2 >= best);
    assert_near(p.tile_m, 128, 0);
    assert_rel(best2, 2.5 + (4 + 96.0 / 108) * task + fix, 1e-12);
    /* 4096 + 1024 rows: 20 x 32 = 640 tiles of 256 x 128, 5 full waves and 100 spread:
     * 2.5 + 5.9259 x 121.591 + 3.9218 = 726.96 us (data-parallel: 6 waves, 732.05) */
    assert_rel(aug_gemm_model_us(&c, 5120, 4096, 4096, 1, NULL),
               2.5 + (5 + 100.0 / 108) * task + fix, 1e-12);
    /* no stream-K kernels (a GPU before sm_80): the data-parallel 5 waves again */
    c.stream_k = 0;
    assert_rel(aug_gemm_model_us(&c, 4096, 4096, 4096, 1, NULL), 2.5 + 5 * task, 1e-12);
    assert_rel(aug_gemm_model_us(&c, 5120, 4096, 4096, 1, NULL), 2.5 + 6 * task, 1e-12);
    c.stream_k = 1;
    /* smaller tiles run slower per FLOP: 64 x 64 (I = 2 x 64 x 64 / (128 x 2) = 32 FLOP/B)
     * against 256 x 128 (I = 85.33) with I0 = 0.89 x 267.9e12 / 7219e9 = 33.03:
     * rate x (32 / 65.03) / (85.33 / 118.36) = 0.6826 x rate. 8 CTAs per SM, so
     * 64 x 64 x 4096 in one tile: t = 2.5 + 2 x 64 x 64 x 4096 / (0.6826 x 0.89 x 267.9e12
     * / 864) */
    double f = tile_share(32, 0.89 * 267.9e12 / 7219e9);
    assert_rel(f, 0.6826, 1e-3);
    t = aug_gemm_model_tile_us(&c, 64, 64, 4096, 1, 64, 64, 1, &p);
    assert_near(p.ctas_per_sm, 8, 0);
    assert_rel(t, 2.5 + 2.0 * 64 * 64 * 4096 / (f * 0.89 * 267.9e12 / 864) * 1e6, 1e-12);
}

/* Hopper runs one tensor-core CTA per SM whatever the tile (hw/gemm_model.c: cuBLASLt's
 * reported wavesCount on H100/H200), where the register rule gives 128 x 128 two CTAs and
 * 64 x 64 eight (A100 keeps them). H100 bf16 4096^3 with 128 x 128 tiles: 32 x 32 = 1024
 * tiles on 132 slots, ceil(1024 / 132) = 8 waves (A100: 2 x 108 slots, 5 waves). Main loop
 * at 0.89 x 792.1 = 704.969 TFLOP/s; the 128 x 128 tile (I = 64 FLOP/B) against 256 x 128
 * (I = 85.33) with I0 = 704.969e12 / (5120 B/clk x 1980 MHz = 10137.6 GB/s) = 69.54 runs at
 * (64 / 133.54) / (85.33 / 154.88) = 0.8698 of it; one tile, 2 x 128 x 128 x 4096 FLOPs,
 * takes 134,217,728 / (0.8698 x 704.969e12 / 132) = 28.89 us: t = 2.5 + 8 x 28.89 =
 * 233.6 us (memory: 8 waves of 11 x 12 tiles read 193 MB, C 33.5 MB, 75 us at 3015 GB/s).
 * The curve family that calibration records for it is 5 (stream-K, one CTA per SM). */
static void test_hopper_one_cta_per_sm(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    struct aug_gemm_plan p;
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_BF16, &c), 1);
    assert_int_equal(c.sm_arch, 90);
    assert_int_equal(aug_gemm_tile_family(&c), 5);
    double rate = 0.89 * 792.1e12, l2 = 5120.0 * 1980e6;
    double f = tile_share(64, rate / l2);
    assert_rel(f, 0.8698, 1e-3);
    double task = 2.0 * 128 * 128 * 4096 / (f * rate / 132) * 1e6;
    assert_rel(task, 28.89, 1e-3);
    double t = aug_gemm_model_tile_us(&c, 4096, 4096, 4096, 1, 128, 128, 1, &p);
    assert_near(p.ctas_per_sm, 1, 0);
    assert_near(p.tiles, 1024, 0);
    assert_near(p.waves, 8, 0);
    assert_rel(t, 2.5 + 8 * task, 1e-12);
    assert_true(p.t_memory_us < p.t_compute_us);
    aug_gemm_model_tile_us(&c, 64, 64, 4096, 1, 64, 64, 1, &p);
    assert_near(p.ctas_per_sm, 1, 0);
    /* A100 keeps the register rule: 2 CTAs of 128 x 128, 8 of 64 x 64; family 2 */
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &c), 1);
    assert_int_equal(aug_gemm_tile_family(&c), 2);
    aug_gemm_model_tile_us(&c, 4096, 4096, 4096, 1, 128, 128, 1, &p);
    assert_near(p.ctas_per_sm, 2, 0);
    assert_near(p.waves, 5, 0); /* ceil(1024 / 216) */
    /* SIMT keeps it on Hopper too: fp32 128 x 128, two CTAs */
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_FP32, &c), 1);
    aug_gemm_model_tile_us(&c, 4096, 4096, 4096, 1, 128, 128, 1, &p);
    assert_near(p.ctas_per_sm, 2, 0);
}

/* GEMV: H100 bf16 1 x 8192 x 8192 streams the 134 MB weight once at 3015 GB/s: at least
 * 2.5 + 134.2e6 / 3015e9 = 47.02 us; the compute of one row is negligible, so split-K
 * spreads it over the SMs and memory binds within the tile padding of A (a few %). */
/* SGEMM on A100 (fp32 SIMT at 0.85 x 19.5 = 16.575 TFLOP/s, no achievable column), 128 x 128
 * tiles: 65536 / (2 x 128 x 128) = 2 CTAs per SM, 216 slots; k = 4096 runs 512 k steps of
 * 8, a tile's 2 x 128 x 128 x 4096 = 134,217,728 FLOPs at 16.575e12 / 216 per slot =
 * 1749.08 us per wave. 1280 x 1280 is 10 x 10 = 100 tiles, one partial wave whose busiest
 * SM holds ceil(100 / 108) = 1 CTA of its 2: half a wave, 2.5 + 874.54 us (operands, 42 MB,
 * and C at 1795 GB/s take 27 us). 1408 x 1280 is 110 tiles: two CTAs on some SM, a whole
 * wave, 2.5 + 1749.08 us. Tensor-core tiles pay a whole wave either way (the 4097 test). */
static void test_simt_partial_wave_and_batched_sgemm(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    struct aug_gemm_plan p;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_FP32, &c), 1);
    assert_int_equal(c.sm_arch, 80);
    double wave = 2.0 * 128 * 128 * 4096 / (0.85 * 19.5e12 / 216) * 1e6;
    assert_rel(wave, 1749.08, 1e-5);
    double t = aug_gemm_model_tile_us(&c, 1280, 1280, 4096, 1, 128, 128, 1, &p);
    assert_near(p.tiles, 100, 0);
    assert_near(p.waves, 1, 0);
    assert_near(p.last_wave, 0.5, 0);
    assert_rel(t, 2.5 + 0.5 * wave, 1e-12);
    t = aug_gemm_model_tile_us(&c, 1408, 1280, 4096, 1, 128, 128, 1, &p);
    assert_near(p.tiles, 110, 0);
    assert_near(p.last_wave, 1, 0);
    assert_rel(t, 2.5 + wave, 1e-12);
    /* torch.bmm of 64 entries of 64 x 64 x 64 on sm_80: cuBLAS's one batched SGEMM tile,
     * 128 x 128, never split: 64 tiles, at most one per SM, half a wave of 8 k steps:
     * 2 x 128 x 128 x 64 FLOPs / (16.575e12 / 216) = 27.329 us, t = 2.5 + 13.664 us */
    t = aug_gemm_model_us(&c, 64, 64, 64, 64, &p);
    assert_near(p.tile_m, 128, 0);
    assert_near(p.tile_n, 128, 0);
    assert_near(p.split_k, 1, 0);
    assert_near(p.tiles, 64, 0);
    assert_rel(t, 2.5 + 0.5 * 2.0 * 128 * 128 * 64 / (0.85 * 19.5e12 / 216) * 1e6, 1e-12);
    assert_rel(t, 16.164, 1e-4);
    /* the same product alone (batch 1) takes a smaller tile or a k split, as cuBLAS's
     * nn.Linear kernels do, and is faster than one entry of the batch */
    double t1 = aug_gemm_model_us(&c, 64, 64, 64, 1, &p);
    assert_true(p.tile_m * p.tile_n < 128 * 128 || p.split_k > 1);
    assert_true(t1 < t);
    /* sm_70: a long-k batched SGEMM still never splits k, and its tile is one of Volta's
     * batched family (128 x 64, 64 x 64, 32 x 128, 128 x 32) */
    struct aug_gpu v100;
    assert_int_equal(aug_gpu_lookup(KDB, "v100-pcie-32g", &v100), AUG_OK);
    assert_int_equal(aug_gemm_ceiling_of(&v100, AUG_DTYPE_FP32, &c), 1);
    aug_gemm_model_us(&c, 64, 64, 65536, 2, &p);
    assert_near(p.split_k, 1, 0);
    assert_true((p.tile_m == 128 && p.tile_n == 64) || (p.tile_m == 64 && p.tile_n == 64) ||
                (p.tile_m == 32 && p.tile_n == 128) || (p.tile_m == 128 && p.tile_n == 32));
    assert_true(aug_gemm_model_us(&c, 64, 64, 65536, 1, &p) > 0 && p.split_k > 1);
}

static void test_gemv_is_a_weight_stream(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    struct aug_gemm_plan p;
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_BF16, &c), 1);
    double t = aug_gemm_model_us(&c, 1, 8192, 8192, 1, &p);
    double floor_us = 2.5 + 8192.0 * 8192 * 2 / 3015e9 * 1e6;
    assert_rel(floor_us, 47.02, 1e-3);
    assert_true(t >= floor_us);
    assert_true(t <= 1.05 * floor_us);
    assert_true(p.t_memory_us > p.t_compute_us);
}

/* Time never falls when a dimension grows, on a grid around tile and wave edges, and no
 * prediction beats max(F / peak, bytes / HBM) at the datasheet peaks. */
/* cuBLAS 13's Hopper tiles sized to the shape (gemm_model.c, adaptive_us): m = 648,
 * n = 6144, k = 4096 on H100. Feature side 192: 6144 / 192 = 32 tiles a row; the token
 * side may reach floor(min(304, 40960 / 192) / 8) x 8 = 208, so 648 needs ceil(648 / 208)
 * = 4 rows, 4 x 32 = 128 tiles <= 132: one wave; then 132 / 32 = 4 rows of ceil(648 / 4)
 * = 162, rounded up to 8: 168. Side 256: 24 a row, 5 rows of 136 (120 tiles), a larger
 * tile (34,816 against 32,256 outputs) for the same one wave, so 168 x 192 is cheaper.
 * The fixed tiles open a second wave there (256 x 128: ceil(648 / 256) x 48 = 144 > 132),
 * which cuBLAS 13's nvjet kernel avoids with 176 x 192 (47 us on an H200, against 74 us
 * for 2024's cuBLAS on Vidur's H100). Time stays monotone and above physics. */
static void test_adaptive_tiles_hopper(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_FP16, &c), 1);
    assert_int_equal(aug_gemm_tile_family(&c), 5);
    struct aug_gemm_plan fixed, adapt;
    double t_fixed = aug_gemm_model_us(&c, 648, 6144, 4096, 1, &fixed);
    c.adaptive_tiles = 1;
    assert_int_equal(aug_gemm_tile_family(&c), 6);
    double t_adapt = aug_gemm_model_us(&c, 648, 6144, 4096, 1, &adapt);
    assert_true(fixed.waves > 1.0);
    assert_near(adapt.tile_m, 168, 1e-9);
    assert_near(adapt.tile_n, 192, 1e-9);
    assert_near(adapt.tiles, 128, 1e-9);
    assert_near(adapt.waves, 1, 1e-9);
    assert_near(adapt.split_k, 1, 1e-9);
    assert_int_equal(adapt.stream_k, 0);
    assert_true(t_adapt < t_fixed);
    /* decode, m = 1, n = k = 4096: side 64 gives 64 tiles in a row, one wave, 132 / 64 = 2
     * rows of ceil(1 / 2) = 1 token, rounded up to 8: nvjet_sm90_hsh_64x8 (282 of the
     * H200 run's GEMMs) */
    struct aug_gemm_plan dec;
    (void)aug_gemm_model_us(&c, 1, 4096, 4096, 1, &dec);
    assert_near(dec.tile_m, 8, 1e-9);
    assert_near(dec.tile_n, 64, 1e-9);
    assert_near(dec.tiles, 64, 1e-9);
    assert_near(dec.split_k, 1, 1e-9);
    /* tf32 stays on fixed tiles (cuBLAS 13.1's sm90_xmma tf32 kernels): family 5, the
     * same time as without the flag */
    struct aug_gemm_ceiling t32;
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_TF32, &t32), 1);
    double t_t32 = aug_gemm_model_us(&t32, 648, 6144, 4096, 1, NULL);
    t32.adaptive_tiles = 1;
    assert_int_equal(aug_gemm_tile_family(&t32), 5);
    assert_rel(aug_gemm_model_us(&t32, 648, 6144, 4096, 1, NULL), t_t32, 1e-15);
    /* a gemm_tile curve of kernel family 6 times the same (kernels-db tables fitted to
     * cuBLAS 13 measurements); family 5 keeps the fixed tiles */
    const struct aug_curve_form *f = aug_curve_form_find("gemm_tile");
    c.sustained = 1.0;
    double p[8] = {c.overhead_us, c.rate_tflops, c.hbm_gbps, c.sms, c.l2_bytes / 1048576.0,
                   c.l2_gbps, 6, c.peak_tflops};
    struct aug_curve_point pt = aug_curve_gemm_point(648, 6144, 4096, 2);
    assert_rel(f->eval(p, &pt), aug_gemm_model_us(&c, 648, 6144, 4096, 1, NULL), 1e-12);
    p[6] = 5;
    c.adaptive_tiles = 0;
    assert_rel(f->eval(p, &pt), aug_gemm_model_us(&c, 648, 6144, 4096, 1, NULL), 1e-12);
    c.adaptive_tiles = 1;
    double prev_m = 0, prev_n = 0, prev_b = 0;
    for (double x = 1; x <= 3000; x += 1) {
        double tm = aug_gemm_model_us(&c, x, 6144, 4096, 1, NULL);
        double tn = aug_gemm_model_us(&c, 512, x, 4096, 1, NULL);
        double tb = aug_gemm_model_us(&c, 128, 2048, 1024, 1 + floor(x / 50), NULL);
        if (tm < prev_m || tn < prev_n || tb < prev_b)
            fail_msg("adaptive tiles: time falls at %g (%g %g, %g %g, %g %g)", x, prev_m, tm,
                     prev_n, tn, prev_b, tb);
        prev_m = tm;
        prev_n = tn;
        prev_b = tb;
        double fl = 2.0 * x * 6144 * 4096;
        double by = (x * 4096 + 4096.0 * 6144 + x * 6144) * 2.0;
        assert_true(tm * 1e-6 >= fmax(fl / (c.peak_tflops * 1e12), by / (c.peak_hbm_gbps * 1e9)));
    }
}

static void test_monotone_and_physical(void **state)
{
    (void)state;
    const struct aug_gpu *g[] = {&a100, &h100};
    const enum aug_dtype dts[] = {AUG_DTYPE_BF16, AUG_DTYPE_FP32, AUG_DTYPE_TF32};
    for (int gi = 0; gi < 2; gi++) {
        for (int di = 0; di < 3; di++) {
            struct aug_gemm_ceiling c;
            assert_int_equal(aug_gemm_ceiling_of(g[gi], dts[di], &c), 1);
            double e = c.elt_bytes;
            double prev_m = 0, prev_k = 0;
            for (double x = 1; x <= 1100; x += 1) {
                double tm = aug_gemm_model_us(&c, x, 4096, 1024, 1, NULL);
                double tk = aug_gemm_model_us(&c, 256, 512, x * 8, 1, NULL);
                if (tm < prev_m || tk < prev_k)
                    fail_msg("%s %s: time falls at %g", g[gi]->id, aug_dtype_name(dts[di]), x);
                prev_m = tm;
                prev_k = tk;
                double fl = 2.0 * x * 4096 * 1024;
                double by = (x * 1024 + 1024.0 * 4096 + x * 4096) * e;
                double phys = fmax(fl / (c.peak_tflops * 1e12), by / (c.peak_hbm_gbps * 1e9));
                assert_true(tm * 1e-6 >= phys);
            }
        }
    }
}

/* L2 / HBM switch of memory-bound kernels on A100: half the 40 MiB L2 is 20,971,520 B.
 * At that size the bytes are credited at the datasheet 2039 GB/s: 2 + 10.2853 us; one byte
 * more streams at the achievable 1795 GB/s: 2 + 11.6833 us. */
static void test_memop_l2_switch(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_FP32, &c), 1);
    int in_l2 = -1;
    double b = 20.0 * 1048576;
    assert_rel(aug_memop_model_us(&c, b, &in_l2), 2 + b / 2039e9 * 1e6, 1e-12);
    assert_int_equal(in_l2, 1);
    assert_rel(aug_memop_model_us(&c, b + 1, &in_l2), 2 + (b + 1) / 1795e9 * 1e6, 1e-12);
    assert_int_equal(in_l2, 0);
    assert_rel(2 + b / 2039e9 * 1e6, 12.2853, 1e-4);
    /* ops that read their input twice stream at a share of an add's bandwidth (NeuSight
     * medians): softmax 0.76, norms 0.65; adds, copies and activations 1 */
    assert_near(aug_memop_op_factor("softmax"), 0.76, 0);
    assert_near(aug_memop_op_factor("rmsnorm"), 0.65, 0);
    assert_near(aug_memop_op_factor("elementwise"), 1.0, 0);
    assert_near(aug_memop_op_factor(NULL), 1.0, 0);
}

/* FlashAttention-2 forward on A100, 32 heads x 4096 x 4096, head dim 128: 32 query blocks
 * of 128 rows x 64 key blocks of 64 per head; a block is 4 x 128 x 64 x 128 = 4,194,304
 * FLOPs at 0.722 x 267.9e12 / 108 per SM = 2.34192 us; 32 x 32 x 64 = 65,536 blocks over
 * 108 SMs = 606.8 blocks = 1421.1 us at the causal kernels' rate (193.4 TFLOP/s), which a
 * full mask runs exp(0.174 sqrt(2048 / 4096)) = 1.130926 times faster: t = 2.5 + 1421.1 /
 * 1.130926 = 1259.1 us (218.7 TFLOP/s). Causal: query block i visits 2 (i + 1) key blocks,
 * 1056 per head, 33,792 in all: 2.5 + 312.89 x 2.34192. Decode (1 query padded to 16 rows,
 * 4096 keys, 8 heads): a block is 4 x 16 x 64 x 128 FLOPs = 0.29274 us, 8 CTAs x 64 blocks
 * would take 18.7 us against 9.35 us to stream K and V (2 x 8 x 4096 x 128 x 2 B at 1795
 * GB/s), so the keys are split over more CTAs (flash-decoding) until the stream binds. */
static void test_attention_tiles(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    struct aug_attn_plan p;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &c), 1);
    double blk = 4.0 * 128 * 64 * 128 / (0.722 * 267.9e12 / 108) * 1e6;
    assert_rel(blk, 2.34192, 1e-5);
    double io = 2.0 * 32 * 128 * (2.0 * 4096 + 2.0 * 4096);
    double t = aug_attention_model_us(&c, 32, 4096, 4096, 128, 0, 0, 0, 0, io, &p);
    assert_near(p.ctas, 1024, 0);
    assert_near(p.split_kv, 1, 0);
    double gain = exp(0.174 * sqrt(0.5));
    assert_rel(gain, 1.130926, 1e-6);
    assert_rel(t, 2.5 + 65536.0 / 108 * blk / gain, 1e-12);
    double fl = 4.0 * 32 * 4096.0 * 4096 * 128;
    assert_rel(fl / ((t - 2.5) * 1e-6) / 1e12, 193.4 * gain, 1e-3);
    t = aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, 0, 0, 0, io, &p);
    assert_rel(t, 2.5 + 33792.0 / 108 * blk, 1e-12);
    double kv = 2.0 * 8 * 4096 * 128 * 2;
    t = aug_attention_model_us(&c, 8, 1, 4096, 128, 0, 0, 0, 0, kv, &p);
    assert_near(p.block_q, 16, 0);
    assert_true(p.split_kv > 1);
    assert_true(p.t_memory_us > p.t_compute_us);
    assert_rel(t, 2.5 + (kv + 2.0 * p.split_kv * 8 * 128 * 4) / 1795e9 * 1e6, 1e-12);
}

/* A kernel without a causal mask runs faster per FLOP than the causal kernels the rates
 * describe (cudnn-frontend 505fcfe on H200: causal over full time per FLOP 1.06-1.21 at
 * 4k-64k, both kernels): g = exp(0.174 sqrt(2048 / max(keys, 4096))). By hand: 4096 keys
 * exp(0.174 x 0.707107) = 1.130926; 16384 exp(0.174 x 0.353553) = 1.063450; 65536 exp(0.174 x
 * 0.176777) = 1.031237; 1024 held at 4096's 1.130926; 8192 exp(0.174 x 0.5) = 1.090897. Causal
 * and windowed kernels keep the rate. */
static void test_attention_full_gain(void **state)
{
    (void)state;
    assert_rel(aug_attention_full_gain(4096), 1.130926, 1e-6);
    assert_rel(aug_attention_full_gain(16384), 1.063450, 1e-6);
    assert_rel(aug_attention_full_gain(65536), 1.031237, 1e-6);
    assert_rel(aug_attention_full_gain(1024), 1.130926, 1e-6);
    assert_rel(aug_attention_full_gain(8192), 1.090897, 1e-6);
    assert_rel(aug_attention_full_gain(0), 1.0, 0);
    assert_rel(aug_attention_full_gain(NAN), 1.0, 0);
    /* H100, 16 heads x 16384 square, compute-bound: the full kernel computes twice the
     * causal one's pairs (less the diagonal blocks' share) in 2 / 1.063450 of its time */
    struct aug_gemm_ceiling c;
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_BF16, &c), 1);
    struct aug_attn_plan pf, pc;
    aug_attention_model_us(&c, 16, 16384, 16384, 128, 0, 0, 0, 0, 0, &pf);
    aug_attention_model_us(&c, 16, 16384, 16384, 128, 1, 0, 0, 0, 0, &pc);
    /* per head 128 query blocks x 256 key blocks full, 2 x (1 + ... + 128) = 16512 causal */
    assert_rel(pf.t_compute_us / pc.t_compute_us, 32768.0 / 16512.0 / 1.063450, 1e-6);
    /* a window as long as the keys: the same blocks at the causal kernels' rate */
    struct aug_attn_plan pw;
    aug_attention_model_us(&c, 16, 16384, 16384, 128, 0, 16384, 0, 0, 0, &pw);
    assert_rel(pw.t_compute_us, pf.t_compute_us * 1.063450, 1e-6);
}

/* A sliding window of 1024 keys on the causal A100 forward above (32 heads x 4096 x 4096,
 * head dim 128): query block i (rows 128 i .. 128 i + 127) needs keys 128 i - 1023 to
 * 128 i + 127, key blocks of 64 from floor((128 i - 1023) / 64) = 2 i - 16 to 2 i + 1: 18
 * from i = 8 on, 2 (i + 1) before (the window not yet full). Per head 72 + 24 x 18 = 504
 * blocks instead of the causal 1056: t = 2.5 + 32 x 504 / 108 x 2.34192 us. The backward's
 * key-major CTAs walk the query blocks that see their keys, (1024 + 128) / 128 = 9, held at
 * the 16 of 2k: its rate share is 2k's 0.729123, not 4k's 0.808204. A window as long as the
 * keys changes nothing. */
static void test_attention_window(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &c), 1);
    double blk = 4.0 * 128 * 64 * 128 / (0.722 * 267.9e12 / 108) * 1e6;
    double t = aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, 1024, 0, 0, 0, NULL);
    assert_rel(t, 2.5 + 32.0 * 504 / 108 * blk, 1e-12);
    double full = aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, 0, 0, 0, 0, NULL);
    assert_rel(aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, 4096, 0, 0, 0, NULL), full,
               1e-15);
    double bblk = 4.0 * 128 * 128 * 128 * 2.5 / (0.722 * 0.729123 * 267.9e12 / 108) * 1e6;
    /* backward tiles of 128 x 128: query block i spans key blocks floor((128 i - 1023) /
     * 128) = i - 8 to i, 9 from i = 8 on, i + 1 before: 36 + 24 x 9 = 252 per head */
    t = aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, 1024, 0, 1, 0, NULL);
    assert_rel(t, 2.5 + 32.0 * 252 / 108 * bblk, 1e-5);
    assert_int_equal(aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, -1, 0, 0, 0, NULL) == 0.0,
                     1);
    /* chunks of 1024 instead (Llama 4): query block i starts at its chunk 1024 floor(i / 8),
     * key block 16 floor(i / 8), and ends at block 2 i + 1: 2 (i mod 8) + 2 blocks, 72 per
     * chunk of 8 query blocks, 288 per head; backward tiles of 128: (i mod 8) + 1, 144 */
    t = aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, 1024, 1, 0, 0, NULL);
    assert_rel(t, 2.5 + 32.0 * 288 / 108 * blk, 1e-12);
    t = aug_attention_model_us(&c, 32, 4096, 4096, 128, 1, 1024, 1, 1, 0, NULL);
    assert_rel(t, 2.5 + 32.0 * 144 / 108 * bblk, 1e-5);
    /* their pairs: 4 chunks of 1024 x 1025 / 2; after 1000 cached tokens, 500 queries at
     * positions 1000..1499 see 1001..1024 keys (24 of them, 24,300) and then 1..476
     * (113,526) */
    assert_near(aug_attention_chunk_pairs(4096, 4096, 1024), 4.0 * 1024 * 1025 / 2, 0);
    assert_near(aug_attention_chunk_pairs(500, 1500, 1024), 24300.0 + 113526.0, 0);
    assert_near(aug_attention_chunk_pairs(4096, 4096, 0), 4096.0 * 4097 / 2, 0);
    /* the keys read: after 1,000 cached tokens the first query's chunk starts at 0, so all
     * 1,500; after 2,048 it starts with the queries, so their 500; a window of 1,024 reaches
     * 500 + 1,023; more queries than keys read the keys there are */
    assert_near(aug_attention_local_keys(500, 1500, 1024, 1), 1500, 0);
    assert_near(aug_attention_local_keys(500, 2548, 1024, 1), 2548 - 2048, 0);
    assert_near(aug_attention_local_keys(500, 2548, 1024, 0), 500 + 1023, 0);
    assert_near(aug_attention_local_keys(8192, 4096, 1024, 1), 4096, 0);
}

/* The backward (2.5 x the forward's FLOPs) runs at 1 / (1.1031 + 4.2946 / n) of the forward
 * rate, n = query blocks of 128 its key-major CTAs walk (fit on FA2's non-causal H200 points
 * of cudnn-frontend's benchmark 505fcfe: 0.811 at 4k, 0.912 at 64k). A100, 32 heads x 4096 x
 * 4096, head dim 128, not causal: 128 x 128 blocks, 32 per CTA, 1024 CTAs = 32,768 blocks
 * over 108 SMs; n = 32 gives 1 / (1.1031 + 0.134206) = 0.808204, a block 4 x 128^3 x 2.5 /
 * (0.722 x 0.808204 x 267.9e12 / 108) = 14.4885 us: 303.41 x 14.4885 us = 4396.0 us at the
 * causal rate, 156.3 TFLOP/s (193.4 x 0.808), and the full mask's 1.130926 times faster:
 * t = 2.5 + 3887.1 us. At 2k tokens (n = 16, the A100 anchor of FA2's paper, 150 /
 * 190) the share is 1 / (1.1031 + 0.268413) = 0.729123, and 1k holds that value (the
 * benchmark has no point below 4k); at 64k (n = 512) it is 0.899694. Blackwell holds a
 * flat 0.80. */
static void test_attention_backward_share(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &c), 1);
    double blk = 4.0 * 128 * 128 * 128 * 2.5 / (0.722 * 0.808204 * 267.9e12 / 108) * 1e6;
    assert_rel(blk, 14.4885, 1e-5);
    double io = 2.0 * 32 * 128 * (2.0 * 4096 + 2.0 * 4096);
    double t = aug_attention_model_us(&c, 32, 4096, 4096, 128, 0, 0, 0, 1, 3.0 * io, NULL);
    double gain = exp(0.174 * sqrt(0.5));
    assert_rel(t, 2.5 + 32768.0 / 108 * blk / gain, 1e-5);
    double fl = 2.5 * 4.0 * 32 * 4096.0 * 4096 * 128;
    assert_rel(fl / ((t - 2.5) * 1e-6) / 1e12, 156.3 * gain, 1e-3);
    /* the share against the forward of the same shape, at 2k, 1k and 64k tokens: the
     * blocks divide evenly over the SMs at 108 x 128 heads, so only the rates differ */
    double lens[] = {2048, 1024, 65536}, want[] = {0.729123, 0.729123, 0.899694};
    for (int i = 0; i < 3; i++) {
        double s = lens[i], bh = 108.0 * 128.0 * 65536.0 / s;
        double tf = aug_attention_model_us(&c, bh, s, s, 128, 0, 0, 0, 0, 0, NULL) - 2.5;
        double tb = aug_attention_model_us(&c, bh, s, s, 128, 0, 0, 0, 1, 0, NULL) - 2.5;
        assert_rel(2.5 * tf / tb, want[i], 1e-5);
        /* Blackwell (cuDNN 9.22 on GB200: 0.76-0.85 with no trend in length) holds 0.80 */
        struct aug_gemm_ceiling bw = c;
        bw.sm_arch = 100;
        tf = aug_attention_model_us(&bw, bh, s, s, 128, 0, 0, 0, 0, 0, NULL) - 2.5;
        tb = aug_attention_model_us(&bw, bh, s, s, 128, 0, 0, 0, 1, 0, NULL) - 2.5;
        assert_rel(2.5 * tf / tb, 0.80, 1e-9);
    }
}

/* flash-attn runs a head on the smallest head dim it was built for: FA2 32, 64, 96, 128,
 * 160, 192, 256 (static_switch.h), FA3 64, 96, 128, 192, 256 (round_up_headdim); cuDNN
 * takes the head as it is. A head of 80 under FA2 costs the main loop of 96: a long causal
 * forward on A100 (compute-bound, FA2 at the native rate before Hopper) takes the same
 * time at 80 as at 96. cuDNN's 80 takes (80 + e) / (96 + e) of it, a pair costing its
 * columns plus the softmax step's e = 0.5 x 312e12 / (108 x 1.41e9) / 64 = 16.0067
 * columns (attention_model.c): 96.0067 / 112.0067 = 0.857151. */
static void test_flash_head_dim_padding(void **state)
{
    (void)state;
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA2, 80), 96, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA2, 33), 64, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA2, 32), 32, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA2, 200), 256, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA2, 300), 300, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA2, 0), 0, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA3, 32), 64, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_FA3, 160), 192, 0);
    assert_near(aug_attention_kernel_head_dim(AUG_ATTN_KERNEL_CUDNN, 80), 80, 0);
    /* MLA (q.k 192, p.v 128, mean 160): FA3's kernel for 192 with a 128-wide V, no padding
     * of the mean itself (160 alone would round to 192); FA2 pads 88 + 72 to 96 + 96 */
    assert_near(aug_attention_kernel_width(AUG_ATTN_KERNEL_FA3, 160, 128), 160, 0);
    assert_near(aug_attention_kernel_width(AUG_ATTN_KERNEL_FA2, 80, 72), 96, 0);
    assert_near(aug_attention_kernel_width(AUG_ATTN_KERNEL_FA2, 80, 0), 96, 0);
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    sys.gpu = a100;
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    struct aug_op h80 = aug_op_attention("a", AUG_DTYPE_BF16, 1, 32, 32, 8192, 8192, 80, 1, 0, 0, 0);
    struct aug_op h96 = aug_op_attention("a", AUG_DTYPE_BF16, 1, 32, 32, 8192, 8192, 96, 1, 0, 0, 0);
    h80.attn_kernel = h96.attn_kernel = AUG_ATTN_KERNEL_FA2;
    struct aug_op_time t80, t96, native80;
    assert_int_equal(aug_op_time(&ctx, &h80, &t80), AUG_OK);
    assert_int_equal(aug_op_time(&ctx, &h96, &t96), AUG_OK);
    h80.attn_kernel = AUG_ATTN_KERNEL_CUDNN;
    assert_int_equal(aug_op_time(&ctx, &h80, &native80), AUG_OK);
    double launch = a100.launch_us * 1e-6;
    assert_true(t80.compute_bound);
    assert_rel(t80.time_s, t96.time_s, 1e-12);
    assert_rel((native80.time_s - launch) / (t80.time_s - launch), 0.857151, 1e-5);
}

/* The softmax step of a query-key pair in head-dim columns, e = k F / (4 x 16): F the dense
 * bf16 FLOPs per clock per SM, k the share left exposed (attention_model.c), and the rate at
 * head dim d against 128, f(d) = d / (d + e) x (128 + e) / 128:
 *   A100 (mma.sync, k 0.5): F = 312e12 / (108 x 1.41e9) = 2048.86, e = 16.0067,
 *     f(64) = 64 / 80.0067 x 144.0067 / 128 = 0.899967 (FA2's "10% slower", Dao 2023);
 *   H100 native (k 1.13): F = 989.4e12 / (132 x 1.98e9) = 3785.58, e = 66.8392,
 *     f(64) = 0.744575, f(96) = 0.897385;
 *   H100 FA2 (k 0.5 at its 0.58821 share of the native rate): e = 17.3963, f(64) = 0.893138
 *     (FlashAttention-3 paper, Fig. 5: 0.88 / 0.89 at 16k, full / causal);
 *   B200 native: F = 2250e12 / (148 x 1.98e9) = 7678.13, e = 135.567, f(64) = 0.660347.
 * Heads of 128 and wider keep f = 1. Through aug_op_time a long causal H100 forward at head
 * dim 64 with 64 heads takes 1 / 0.744575 of the time of 128 with 32 heads (the same
 * FLOPs and tiles per head-pair). */
static void test_attention_head_dim(void **state)
{
    (void)state;
    struct aug_gemm_ceiling ca, ch;
    assert_true(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &ca));
    assert_true(aug_gemm_ceiling_of(&h100, AUG_DTYPE_BF16, &ch));
    double ea = aug_attention_softmax_cols(&ca, a100.sm_arch, AUG_ATTN_KERNEL_FA2);
    double eh = aug_attention_softmax_cols(&ch, h100.sm_arch, AUG_ATTN_KERNEL_CUDNN);
    double e2 = aug_attention_softmax_cols(&ch, h100.sm_arch, AUG_ATTN_KERNEL_FA2);
    assert_rel(ea, 16.0067, 1e-5);
    assert_rel(aug_attention_softmax_cols(&ca, a100.sm_arch, AUG_ATTN_KERNEL_CUDNN), ea, 1e-12);
    assert_rel(eh, 66.8392, 1e-5);
    assert_rel(aug_attention_softmax_cols(&ch, h100.sm_arch, AUG_ATTN_KERNEL_FA3), eh, 1e-12);
    assert_rel(e2, 17.3963, 1e-5);
    assert_rel(aug_attention_head_dim_factor(64, ea), 0.899967, 1e-5);
    assert_rel(aug_attention_head_dim_factor(64, eh), 0.744575, 1e-5);
    assert_rel(aug_attention_head_dim_factor(96, eh), 0.897385, 1e-5);
    assert_rel(aug_attention_head_dim_factor(64, e2), 0.893138, 1e-5);
    assert_rel(aug_attention_head_dim_factor(128, eh), 1.0, 0);
    assert_rel(aug_attention_head_dim_factor(256, eh), 1.0, 0);
    struct aug_gemm_ceiling cb = ch;
    cb.peak_tflops = 2250;
    cb.sms = 148;
    cb.clock_mhz = 1980;
    double eb = aug_attention_softmax_cols(&cb, 100, AUG_ATTN_KERNEL_CUDNN);
    assert_rel(eb, 135.567, 1e-5);
    assert_rel(aug_attention_head_dim_factor(64, eb), 0.660347, 1e-5);
    /* no clock: the generation's reference GPU (H100 SXM's F) */
    cb.clock_mhz = 0;
    assert_rel(aug_attention_softmax_cols(&cb, 90, AUG_ATTN_KERNEL_CUDNN), 1.13 * 3786.0 / 64,
               1e-12);
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    sys.gpu = h100;
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    struct aug_op h64 = aug_op_attention("a", AUG_DTYPE_BF16, 1, 64, 64, 16384, 16384, 64, 1, 0,
                                         0, 0);
    struct aug_op h128 = aug_op_attention("a", AUG_DTYPE_BF16, 1, 32, 32, 16384, 16384, 128, 1,
                                          0, 0, 0);
    struct aug_op_time t64, t128;
    assert_int_equal(aug_op_time(&ctx, &h64, &t64), AUG_OK);
    assert_int_equal(aug_op_time(&ctx, &h128, &t128), AUG_OK);
    double launch = h100.launch_us * 1e-6;
    assert_true(t64.compute_bound && t128.compute_bound);
    assert_rel((t64.time_s - launch) / (t128.time_s - launch), 1.0 / 0.744575, 1e-3);
}

/* FlashAttention-2 on Hopper: 34% of the dense peak (FlashAttention-3 paper, Fig. 5: 335
 * TFLOP/s causal at 16k) against this model's native main loop of 0.722 x the achievable
 * GEMM rate: 0.34 x 989.4 / (0.722 x 792.1) = 336.40 / 571.90 = 0.58821 on H100; 1 on A100
 * (sm_80), where the model's rates are FA2's own. A long causal forward is compute-bound,
 * so its main loop, the time less the kernel overhead, stretches by 1 / 0.58821 = 1.7001. */
static void test_fa2_on_hopper(void **state)
{
    (void)state;
    struct aug_gemm_ceiling c;
    assert_int_equal(aug_gemm_ceiling_of(&h100, AUG_DTYPE_BF16, &c), 1);
    assert_int_equal(h100.sm_arch, 90);
    assert_rel(aug_attention_fa2_factor(&c, h100.sm_arch), 0.34 * 989.4 / (0.722 * 792.1), 1e-12);
    assert_rel(aug_attention_fa2_factor(&c, h100.sm_arch), 0.58821, 1e-4);
    assert_rel(aug_attention_fa2_factor(&c, 0), 1.0, 0);
    struct aug_gemm_ceiling ca;
    assert_int_equal(aug_gemm_ceiling_of(&a100, AUG_DTYPE_BF16, &ca), 1);
    assert_rel(aug_attention_fa2_factor(&ca, a100.sm_arch), 1.0, 0);
    /* through aug_op_time: the same op, cudnn then fa2 */
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    sys.gpu = h100;
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    struct aug_op op = aug_op_attention("attn_fwd", AUG_DTYPE_BF16, 1, 16, 16, 16384, 16384,
                                        128, 1, 0, 0, 0);
    /* the pairs of a causal square mask: s (s + 1) / 2 per head; Q, K, V, O once */
    assert_near(op.flops, 2.0 * 16 * 16384.0 * 16385 * 128, 0);
    assert_near(op.bytes, 4.0 * 16 * 16384 * 128 * 2, 0);
    /* GQA backward (Llama 3.1: 64 query heads on 8 KV heads, 4096 tokens, full mask):
     * 2.5 x 4 x 64 x 4096^2 x 128 FLOPs; Q, O: 2 x 64 x 4096 x 128 x 2 B and K, V:
     * 2 x 8 x 4096 x 128 x 2 B, twice (the gradients) */
    struct aug_op gqa = aug_op_attention("g", AUG_DTYPE_BF16, 1, 64, 8, 4096, 4096, 128, 0, 0, 0, 1);
    assert_near(gqa.flops, 2.5 * 4.0 * 64 * 4096.0 * 4096 * 128, 0);
    assert_near(gqa.bytes, 2.0 * (2.0 * 64 * 4096 * 128 * 2 + 2.0 * 8 * 4096 * 128 * 2), 0);
    assert_near(gqa.batch_heads, 64, 0);
    struct aug_op_time native, fa2;
    assert_int_equal(aug_op_time(&ctx, &op, &native), AUG_OK);
    op.attn_kernel = AUG_ATTN_KERNEL_FA2;
    assert_int_equal(aug_op_time(&ctx, &op, &fa2), AUG_OK);
    double launch = h100.launch_us * 1e-6;
    assert_rel((fa2.time_s - launch) / (native.time_s - launch), 1.0 / 0.58821, 1e-4);
}

/* fp8 with the split accumulator (gemm_model.c, aug_gemm_split_acc_share): Transformer
 * Engine's data- and weight-gradient GEMMs keep 1 / 1.15 of the fast-accumulation main
 * loop on Hopper. H100 fp8 8192^3: 2048 tiles of 256 x 128 over 132 SMs, stream-K spreads
 * them evenly, so the main loop is 2 x 8192^3 / 1280 TFLOP/s (gpus.csv achievable fp8, no
 * sustained share) = 858.993 us and the split accumulator adds 0.15 of it, 128.849 us; the
 * fixup and the launch do not change. bf16 ignores the flag, and so does Blackwell
 * (fp32 accumulation in tensor memory). A calibrated fp8 curve (measured with fast
 * accumulation) is slowed by the same 1.15 on a compute-bound shape. */
static void test_fp8_split_accumulator(void **state)
{
    (void)state;
    assert_rel(aug_gemm_split_acc_share(AUG_DTYPE_FP8, 90), 1.0 / 1.15, 1e-15);
    assert_rel(aug_gemm_split_acc_share(AUG_DTYPE_FP8, 89), 1.0 / 1.15, 1e-15);
    assert_rel(aug_gemm_split_acc_share(AUG_DTYPE_FP8, 100), 1.0, 0);
    assert_rel(aug_gemm_split_acc_share(AUG_DTYPE_BF16, 90), 1.0, 0);
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    sys.gpu = h100;
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    struct aug_op op = aug_op_gemm("g", AUG_DTYPE_FP8, 8192, 8192, 8192, 1);
    struct aug_op_time fast, split;
    assert_int_equal(aug_op_time(&ctx, &op, &fast), AUG_OK);
    op.split_acc = 1;
    assert_int_equal(aug_op_time(&ctx, &op, &split), AUG_OK);
    assert_int_equal(split.source, AUG_SOURCE_FALLBACK);
    assert_rel(split.time_s - fast.time_s, 0.15 * 2.0 * 8192.0 * 8192 * 8192 / 1280e12, 1e-9);
    assert_rel(split.time_s - fast.time_s, 128.849e-6, 1e-5);

    op = aug_op_gemm("g", AUG_DTYPE_BF16, 8192, 8192, 8192, 1);
    assert_int_equal(aug_op_time(&ctx, &op, &fast), AUG_OK);
    op.split_acc = 1;
    assert_int_equal(aug_op_time(&ctx, &op, &split), AUG_OK);
    assert_rel(split.time_s, fast.time_s, 0);

    struct aug_gpu b200;
    assert_int_equal(aug_gpu_lookup(KDB, "b200-180g", &b200), AUG_OK);
    assert_int_equal(b200.sm_arch, 100);
    sys.gpu = b200;
    op = aug_op_gemm("g", AUG_DTYPE_FP8, 8192, 8192, 8192, 1);
    assert_int_equal(aug_op_time(&ctx, &op, &fast), AUG_OK);
    op.split_acc = 1;
    assert_int_equal(aug_op_time(&ctx, &op, &split), AUG_OK);
    assert_rel(split.time_s, fast.time_s, 0);

    /* the curve path: an fp8 gemm_roof curve of augur-profile's H100 points */
    char dir[300], path[400];
    snprintf(dir, sizeof dir, "%s/h100-80g", root);
    assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/curves.csv", dir);
    write_file(path, "family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,"
                     "n_points,rel_rmse,max_rel_err,cv_rel_err,source\n"
                     "gemm,gemm,fp8,0,,gemm_roof,3.126563383,1.320777016e-10,"
                     "5.354449042e-10,4.499032958e-07,7.906263698e-11,132,128,1978.9,"
                     "131072,8.796093022e+12,777,0.14,0.47,0.14,t\n");
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(root, "h100-80g", &k), AUG_OK);
    sys.gpu = h100;
    ctx.kdb = k;
    op = aug_op_gemm("g", AUG_DTYPE_FP8, 8192, 8192, 8192, 1);
    assert_int_equal(aug_op_time(&ctx, &op, &fast), AUG_OK);
    op.split_acc = 1;
    assert_int_equal(aug_op_time(&ctx, &op, &split), AUG_OK);
    assert_int_equal(fast.source, AUG_SOURCE_CURVE);
    assert_int_equal(split.source, AUG_SOURCE_CURVE);
    assert_int_equal(fast.compute_bound, 1);
    assert_rel(split.time_s / fast.time_s, 1.15, 1e-12);
    aug_kdb_close(k);

    /* with a measured split-accumulator curve (here the same parameters) that curve gives
     * the time: no share on top, so the two times are equal */
    write_file(path, "family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,"
                     "n_points,rel_rmse,max_rel_err,cv_rel_err,source\n"
                     "gemm,gemm,fp8,0,,gemm_roof,3.126563383,1.320777016e-10,"
                     "5.354449042e-10,4.499032958e-07,7.906263698e-11,132,128,1978.9,"
                     "131072,8.796093022e+12,777,0.14,0.47,0.14,t\n"
                     "gemm,gemm_split_acc,fp8,0,,gemm_roof,3.126563383,1.320777016e-10,"
                     "5.354449042e-10,4.499032958e-07,7.906263698e-11,132,128,1978.9,"
                     "131072,8.796093022e+12,777,0.14,0.47,0.14,t\n");
    assert_int_equal(aug_kdb_open(root, "h100-80g", &k), AUG_OK);
    ctx.kdb = k;
    op.split_acc = 0;
    assert_int_equal(aug_op_time(&ctx, &op, &fast), AUG_OK);
    op.split_acc = 1;
    assert_int_equal(aug_op_time(&ctx, &op, &split), AUG_OK);
    assert_int_equal(split.source, AUG_SOURCE_CURVE);
    assert_rel(split.time_s, fast.time_s, 1e-15);
    /* a forward (fast) fp8 GEMM never reads the split curve, and no other dtype does */
    double e_fast, e_split;
    assert_int_equal(aug_kdb_gemm_eff(k, AUG_DTYPE_FP8, 8192, 8192, 8192, &e_fast), 1);
    assert_int_equal(aug_kdb_gemm_op_eff(k, "gemm_split_acc", AUG_DTYPE_FP8, 8192, 8192, 8192,
                                         &e_split), 1);
    assert_int_equal(aug_kdb_gemm_op_eff(k, "gemm_split_acc", AUG_DTYPE_BF16, 8192, 8192, 8192,
                                         &e_split), 0);
    assert_string_equal(aug_gemm_curve_op("linear"), "gemm");
    assert_string_equal(aug_gemm_curve_op("gemm_split_acc"), "gemm_split_acc");
    aug_kdb_close(k);
}

/* A curve that claims 100 TB/s (1e-8 us per byte) for an elementwise kernel on A100 is
 * clamped to the HBM bound: 1 GB / 2039 GB/s = 490.44 us; a curve used beyond its
 * measured range (5e-7 us/B = 2 TB/s, measured to 1e8 B) says `extrapolated` and grows at
 * no more than the achievable 1795 GB/s: t(1e8) = 2 + 50 = 52 us, then + 9e8 / 1795e9 =
 * 501.39 us, 553.39 us at 1e9 B; inside its range it is the curve (2 + 5 = 7 us at 1e7). */
static void test_clamp_and_extrapolation(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/a100-80g/curves.csv", root);
    write_file(path, "family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,"
                     "n_points,rel_rmse,max_rel_err,cv_rel_err,source\n"
                     "memory,copy,fp16,0,,linear,0,1e-8,,,,,,,1000,1e10,5,0,0,0,t\n"
                     "memory,elementwise,fp16,0,,linear,2,5e-7,,,,,,,1000,1e8,5,0,0,0,t\n");
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(root, "a100-80g", &k), AUG_OK);
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    sys.gpu = a100;
    struct aug_op_ctx ctx = {&sys, k, 0};
    struct aug_op_time t;
    struct aug_op op = aug_op_memory("m", "copy", AUG_DTYPE_FP16, 1e9, 0);
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    assert_int_equal(t.clamped, 1);
    assert_int_equal(t.extrapolated, 0);
    assert_rel(t.time_s, 1e9 / 2039e9, 1e-12);
    op = aug_op_memory("m", "elementwise", AUG_DTYPE_FP16, 1e9, 0);
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    assert_int_equal(t.extrapolated, 1);
    assert_rel(t.time_s, (52 + 9e8 / 1795e9 * 1e6) * 1e-6, 1e-12);
    op = aug_op_memory("m", "elementwise", AUG_DTYPE_FP16, 1e7, 0);
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    assert_int_equal(t.extrapolated, 0);
    assert_int_equal(t.clamped, 0);
    assert_rel(t.time_s, 7e-6, 1e-12);
    aug_kdb_close(k);
}

/* Bad tables are refused on load with file:line: a bandwidth of 1e300 B/us, a negative
 * slope, a GEMM curve faster than its own peak, a piece that drops below a quarter, a
 * gemm_tile kernel family other than 0 to 6 (7, and 1.5 between two codes). */
static void test_bounds_on_load(void **state)
{
    (void)state;
    static const char *const hdr = "family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,"
                                   "x_min,x_max,n_points,rel_rmse,max_rel_err,cv_rel_err,source\n";
    static const char *const bad[][2] = {
        {"memory,norm,fp16,0,,linear,1,1e-300,,,,,,,1,1e9,5,0,0,0,t\n", "above any memory"},
        {"memory,norm,fp16,0,,linear,1,-1e-6,,,,,,,1,1e9,5,0,0,0,t\n", "negative"},
        {"memory,norm,fp16,0,,linear,-3,1e-6,,,,,,,1,1e9,5,0,0,0,t\n", "latency"},
        {"gemm,gemm,fp16,0,,gemm_roof,5,1e-12,1e-12,1e-7,0,108,128,312,1,1e12,5,0,0,0,t\n",
         "above the peak"},
        {"memory,norm,fp16,0,,linear,1,1e-6,,,,,,,1,1e8,5,0,0,0,t\n"
         "memory,norm,fp16,0,,linear,1,0,,,,,,,2e8,1e9,5,0,0,0,t\n",
         "not monotone"},
        {"gemm,gemm,fp16,0,,gemm_tile,3,250,1700,108,40,7219,7,312,1,1e12,5,0,0,0,t\n",
         "kernel family"},
        {"gemm,gemm,fp16,0,,gemm_tile,3,250,1700,108,40,7219,1.5,312,1,1e12,5,0,0,0,t\n",
         "kernel family"},
    };
    char path[400], text[1024];
    snprintf(path, sizeof path, "%s/a100-80g/curves.csv", root);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s%s", hdr, bad[i][0]);
        write_file(path, text);
        struct aug_kdb *k = NULL;
        assert_int_equal(aug_kdb_open(root, "a100-80g", &k), AUG_EDATA);
        assert_null(k);
        const char *msg = aug_last_error();
        if (!strstr(msg, "curves.csv:") || !strstr(msg, bad[i][1]))
            fail_msg("case %zu: '%s'", i, msg);
    }
    /* gpus.csv: an achievable rate above the datasheet peak */
    snprintf(path, sizeof path, "%s/gpus.csv", root);
    write_file(path, "gpu_id,sm_count,peak_tflops_fp32,peak_tflops_tf32,peak_tflops_bf16,"
                     "peak_tflops_fp16,peak_tflops_fp8,peak_tflops_int8,peak_tflops_int4,"
                     "hbm_gib,hbm_gbps,ach_tflops_bf16\n"
                     "g,108,19.5,156,312,312,0,624,0,80,2039,400\n");
    struct aug_gpu g;
    assert_int_equal(aug_gpu_lookup(root, "g", &g), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "ach_tflops_bf16"));
    write_file(path, "gpu_id,sm_count,peak_tflops_fp32,peak_tflops_tf32,peak_tflops_bf16,"
                     "peak_tflops_fp16,peak_tflops_fp8,peak_tflops_int8,peak_tflops_int4,"
                     "hbm_gib,hbm_gbps\n"
                     "g,108,19.5,156,312,312,0,624,0,80,1e-300\n");
    assert_int_equal(aug_gpu_lookup(root, "g", &g), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "hbm_gbps"));
    /* a gemm_scale can only take rate away: above 1 is refused, naming the field */
    write_file(path, "gpu_id,sm_count,peak_tflops_fp32,peak_tflops_tf32,peak_tflops_bf16,"
                     "peak_tflops_fp16,peak_tflops_fp8,peak_tflops_int8,peak_tflops_int4,"
                     "hbm_gib,hbm_gbps,gemm_scale\n"
                     "g,108,19.5,156,312,312,0,624,0,80,2039,1.2\n");
    assert_int_equal(aug_gpu_lookup(root, "g", &g), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "gemm_scale"));
}

/* Every dtype the GPU has a peak for is timed by the model when no curve exists (never a
 * flat efficiency); the host view adds the per-call overhead to the kernel. */
static void test_every_dtype_and_host_time(void **state)
{
    (void)state;
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    sys.gpu = h100;
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    const enum aug_dtype dts[] = {AUG_DTYPE_FP32, AUG_DTYPE_TF32, AUG_DTYPE_BF16,
                                  AUG_DTYPE_FP16, AUG_DTYPE_FP8,  AUG_DTYPE_INT8};
    double prev = INFINITY;
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++) {
        struct aug_op op = aug_op_gemm("g", dts[i], 8192, 8192, 8192, 1);
        struct aug_op_time t;
        assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
        assert_int_equal(t.source, AUG_SOURCE_FALLBACK);
        /* each faster or as fast as the one before (fp32 < tf32 < bf16 = fp16 < fp8) */
        assert_true(t.time_s <= prev * (1 + 1e-12));
        prev = t.time_s;
    }
    struct aug_op g = aug_op_gemm("g", AUG_DTYPE_BF16, 64, 64, 64, 1);
    struct aug_op m = aug_op_memory("m", "elementwise", AUG_DTYPE_BF16, 1e3, 0);
    /* pre + max(kernel, post): a 5 us add hides behind the 17 us of host work after its
     * launch (10 + 17 = 27 us, NeuSight's A100 floor of 26-28 us); a 100 us one shows:
     * 10 + 100; layer norm pays 40 us before its kernel; nn.Linear 55 + max(kernel, 3.5),
     * torch.bmm (batch > 1) 29.5 + max(kernel, 15) */
    double pre, post;
    aug_host_overhead_us(&m, &pre, &post);
    assert_near(pre, 10.0, 0);
    assert_near(post, 17.0, 0);
    assert_rel(aug_host_time_s(5e-6, pre, post), 27e-6, 1e-12);
    assert_rel(aug_host_time_s(100e-6, pre, post), 110e-6, 1e-12);
    struct aug_op ln = aug_op_memory("n", "layernorm", AUG_DTYPE_FP32, 1e6, 0);
    aug_host_overhead_us(&ln, &pre, &post);
    assert_near(pre, 40.0, 0);
    aug_host_overhead_us(&g, &pre, &post);
    assert_near(pre, 55.0, 0);
    assert_near(post, 3.5, 0);
    assert_rel(aug_host_time_s(100e-6, pre, post), 155e-6, 1e-12);
    assert_rel(aug_host_time_s(2e-6, pre, post), 58.5e-6, 1e-12);
    struct aug_op bmm = aug_op_gemm("b", AUG_DTYPE_FP32, 64, 64, 64, 8);
    aug_host_overhead_us(&bmm, &pre, &post);
    assert_near(pre, 29.5, 0);
    assert_near(post, 15.0, 0);
    assert_rel(aug_host_time_s(5e-6, pre, post), 44.5e-6, 1e-12);
    assert_rel(aug_host_time_s(100e-6, pre, post), 129.5e-6, 1e-12);
}

/* Times of gemm_tile at parameters `truth` over 64 compute- and memory-bound shapes (one in
 * `outlier` 3x slower, spread over every m and k; 0: none), fitted back from a start at the GPU's defaults:
 * the fitted overhead, rate and HBM bandwidth. */
static void fit_back(const struct aug_curve_form *f, const double *truth, double *p,
                     struct aug_fit_stats *st, int outlier)
{
    struct aug_curve_point pt[64];
    double y[64];
    int n = 0;
    static const double ms[] = {1, 16, 128, 512, 1000, 2048, 4096, 8192};
    static const double ks[] = {1024, 4096, 8192, 12288, 16384, 28672, 40000, 53248};
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            pt[n] = aug_curve_gemm_point(ms[i], ks[j], ks[(j + 3) % 8], 2.0);
            y[n] = f->eval(truth, &pt[n]) * (outlier && (i + 3 * j) % outlier == 0 ? 3.0 : 1.0);
            n++;
        }
    assert_int_equal(aug_fit_form(f, pt, y, n, p, st), AUG_OK);
}

/* The gemm_tile curve form is the structural model with fitted overhead, rate and HBM
 * bandwidth: times generated from known values (A100: 3 us, 250 TFLOP/s, 1700 GB/s) over
 * compute- and memory-bound shapes are fitted back to them. */
static void test_gemm_tile_fit_recovers(void **state)
{
    (void)state;
    const struct aug_curve_form *f = aug_curve_form_find("gemm_tile");
    assert_non_null(f);
    double truth[AUG_CURVE_MAX_PARAMS] = {3.0, 250.0, 1700.0, 108, 40, 7219, 0, 312};
    double p[AUG_CURVE_MAX_PARAMS] = {0, 0, 1795, 108, 40, 7219, 0, 312};
    struct aug_fit_stats st;
    fit_back(f, truth, p, &st, 0);
    assert_rel(p[0], 3.0, 0.01);
    assert_rel(p[1], 250.0, 0.01);
    assert_rel(p[2], 1700.0, 0.01);
    assert_true(st.rel_rmse < 0.005);
    /* p6 = 2: the same tiles with the stream-K hybrid beside them, as gemm_model.c times
     * them with stream_k on (4096^3 on 108 SMs: 4 full waves and 80 tiles spread); the
     * fit recovers the parameters as well */
    struct aug_curve_point q = aug_curve_gemm_point(4096, 4096, 4096, 2.0);
    struct aug_gemm_ceiling c;
    memset(&c, 0, sizeof c);
    c.rate_tflops = 250, c.peak_tflops = 312, c.hbm_gbps = c.peak_hbm_gbps = 1700;
    c.l2_bytes = 40.0 * 1048576, c.l2_gbps = 7219, c.overhead_us = 3, c.elt_bytes = 2;
    c.out_bytes = 2, c.sms = 108, c.stream_k = 0;
    double dp = f->eval(truth, &q);
    assert_rel(dp, aug_gemm_model_us(&c, 4096, 4096, 4096, 1, NULL), 1e-12);
    truth[6] = 2;
    c.stream_k = 1;
    double sk = f->eval(truth, &q);
    assert_rel(sk, aug_gemm_model_us(&c, 4096, 4096, 4096, 1, NULL), 1e-12);
    assert_true(sk < 0.97 * dp); /* 4.74 waves and a fixup instead of 5 waves */
    double p2[AUG_CURVE_MAX_PARAMS] = {0, 0, 1795, 108, 40, 7219, 2, 312};
    fit_back(f, truth, p2, &st, 0);
    assert_rel(p2[0], 3.0, 0.01);
    assert_rel(p2[1], 250.0, 0.01);
    assert_rel(p2[2], 1700.0, 0.01);
    /* one point in eight 3x slower (Vidur's sweeps hold such points): the passes
     * reweighted toward the least absolute log error keep the rate and bandwidth within
     * 1% (least squares alone lands at 215 TFLOP/s and a 12 us overhead) */
    double p3[AUG_CURVE_MAX_PARAMS] = {0, 0, 1795, 108, 40, 7219, 2, 312};
    fit_back(f, truth, p3, &st, 8);
    assert_rel(p3[1], 250.0, 0.01);
    assert_rel(p3[2], 1700.0, 0.01);
}

/* Host-timed measurements (host_event, wall) are fitted as kernel time: t - pre when the
 * kernel shows (t > pre + post), left out when it hides behind the host work
 * (hw/host_time.c: memory ops without a name take torch.add's pre 10, post 17 us;
 * nn.Linear 55 and 3.5, torch.bmm 29.5 and 15). CUPTI and launch-bracketing event times
 * are taken as they are. */
static void test_host_timed_samples_fit_kernel_time(void **state)
{
    (void)state;
    struct aug_sample x = aug_sample_blank();
    x.family = AUG_FAMILY_MEMORY;
    x.dtype = AUG_DTYPE_FP32;
    x.size_bytes = 1e8;
    x.time_us = 100;
    snprintf(x.timing, sizeof x.timing, "host_event");
    struct aug_curve_point pt;
    double t, e;
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_near(t, 90, 1e-12);
    x.time_us = 26;
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_true(isnan(t));
    snprintf(x.timing, sizeof x.timing, "cupti_kernel");
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_near(t, 26, 0);
    snprintf(x.timing, sizeof x.timing, "cuda_event"); /* around the launch: kernel time */
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_near(t, 26, 0);
    x.family = AUG_FAMILY_GEMM;
    x.m = x.n = x.k = 64;
    x.batch = 1;
    x.time_us = 52;
    snprintf(x.timing, sizeof x.timing, "wall");
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_true(isnan(t));
    x.time_us = 58.5; /* 55 + 3.5: a 3.5 us kernel hides behind the host work */
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_true(isnan(t));
    x.time_us = 61;
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_near(t, 6, 1e-12);
    /* the same 61 us as a torch.bmm of 8 entries: 61 - 29.5 = 31.5 us of kernel; 44 us
     * (a kernel within 15 us of 29.5) hides */
    x.batch = 8;
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_near(t, 31.5, 1e-12);
    x.time_us = 44;
    aug_fit_sample_point(&x, &a100, &pt, &t, &e);
    assert_true(isnan(t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ceilings_from_gpus_csv),
        cmocka_unit_test(test_tiles_waves_and_the_4097_step),
        cmocka_unit_test(test_hopper_one_cta_per_sm),
        cmocka_unit_test(test_simt_partial_wave_and_batched_sgemm),
        cmocka_unit_test(test_gemv_is_a_weight_stream),
        cmocka_unit_test(test_monotone_and_physical),
        cmocka_unit_test(test_adaptive_tiles_hopper),
        cmocka_unit_test(test_memop_l2_switch),
        cmocka_unit_test(test_attention_tiles),
        cmocka_unit_test(test_attention_full_gain),
        cmocka_unit_test(test_attention_backward_share),
        cmocka_unit_test(test_attention_window),
        cmocka_unit_test(test_clamp_and_extrapolation),
        cmocka_unit_test(test_bounds_on_load),
        cmocka_unit_test(test_every_dtype_and_host_time),
        cmocka_unit_test(test_gemm_tile_fit_recovers),
        cmocka_unit_test(test_host_timed_samples_fit_kernel_time),
        cmocka_unit_test(test_fa2_on_hopper),
        cmocka_unit_test(test_attention_head_dim),
        cmocka_unit_test(test_flash_head_dim_padding),
        cmocka_unit_test(test_fp8_split_accumulator),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
