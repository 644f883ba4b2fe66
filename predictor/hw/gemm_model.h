/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_model.h - structural GEMM time: output tiles, waves, split-K, main-loop rate at the
 * GPU's achievable ceiling, and the HBM traffic of the operands (gemm_model.c). */
#ifndef AUG_GEMM_MODEL_H
#define AUG_GEMM_MODEL_H

#include "augur/dtype.h"
#include "augur/system.h"

/* What the model needs of one GPU and dtype (aug_gemm_ceiling_of fills it from gpus.csv). */
struct aug_gemm_ceiling {
    double rate_tflops;  /* dense rate cuBLAS reaches on its best large shapes (TFLOP/s) */
    double sustained;    /* the main loop's rate over a sweep of model shapes, as a share of
                          * rate_tflops (AUG_GEMM_SUSTAINED for 16-bit tensor cores, else 1;
                          * 0 reads as 1) */
    double peak_tflops;  /* datasheet dense peak of the dtype (the physics bound) */
    double hbm_gbps;     /* achievable HBM bandwidth (1e9 B/s) */
    double peak_hbm_gbps;/* datasheet HBM bandwidth (the physics bound) */
    double l2_bytes;     /* L2 capacity */
    double l2_gbps;      /* L2 -> SM bandwidth (1e9 B/s) */
    double overhead_us;  /* prologue, epilogue and grid launch of one GEMM kernel (device) */
    double elt_bytes;    /* operand element size */
    double out_bytes;    /* output element size */
    double clock_mhz;    /* boost clock the peaks assume (0: unknown) */
    int sms;
    int simt;            /* 1: CUDA-core SGEMM tiles (fp32), 0: tensor-core tiles */
    int stream_k;        /* 1: the library also has stream-K kernels (tensor cores, sm_80+) */
    int sm_arch;         /* compute capability x 10 (0: unknown); picks the batched SGEMM tiles */
    int adaptive_tiles;  /* 1: Hopper's nvjet kernels of cuBLAS 13, which size the tile to
                          * the shape (gemm_model.c; 16-bit and fp8 only: tf32 keeps fixed
                          * tiles); 0: the fixed CUTLASS-style tiles */
};

/* The kernel configuration the model chose and the terms of its time. */
struct aug_gemm_plan {
    double tile_m, tile_n, tile_k; /* output tile of one CTA and its main-loop k step */
    double ctas_per_sm;            /* CTAs of that tile resident on one SM */
    double split_k;                /* k split over this many CTAs (1: none) */
    double tiles;                  /* output tiles over all batches, times split_k */
    double waves;                  /* ceil(tiles / (SMs x CTAs per SM)); stream-K: the full
                                    * waves plus the spread last one, tiles / slots */
    double last_wave;              /* what the last wave costs as a share of a full one,
                                    * 0 when the waves are all full: SIMT ceil(rest / SMs)
                                    * / CTAs per SM (the busiest SM's CTAs), tensor cores
                                    * 1, stream-K rest / slots */
    double t_wave_us;              /* one full wave of the main loop */
    int stream_k;                  /* 1: the data-parallel + stream-K hybrid was chosen */
    double hbm_bytes;              /* HBM traffic: operands (with L2 reuse) + output */
    double t_compute_us, t_memory_us, t_us;
    double t_fixup_us;             /* stream-K partial-tile fixup after the main loop */
};

/* Main-loop rate of 16-bit tensor-core GEMMs over a sweep of model shapes, as a share of
 * the best-shape achievable rate of gpus.csv (see gemm_model.c). */
#define AUG_GEMM_SUSTAINED 0.89

/* Main-loop rate of an fp8 GEMM with the split accumulator, as a share of the same GEMM
 * with fast accumulation (see aug_gemm_split_acc_share in gemm_model.c). */
#define AUG_FP8_SPLIT_ACC_SHARE (1.0 / 1.15)

/* The share of its main-loop rate a GEMM of dtype `dt` keeps on a GPU of compute
 * capability `sm_arch` (x 10) when it accumulates through the split accumulator:
 * AUG_FP8_SPLIT_ACC_SHARE for fp8 on sm_89 and sm_90, 1 elsewhere. */
double aug_gemm_split_acc_share(enum aug_dtype dt, int sm_arch);

/* Slow the main loop of ceiling `c` (dtype dt, compute capability sm_arch) by the split
 * accumulator's share; the ceiling's rate, the physics bound, stays the fast one. */
static inline void aug_gemm_ceiling_split_acc(struct aug_gemm_ceiling *c, enum aug_dtype dt,
                                              int sm_arch) {
    c->sustained = (c->sustained > 0 ? c->sustained : 1.0) * aug_gemm_split_acc_share(dt, sm_arch);
}

/* Default device-side overhead of one GEMM kernel in microseconds (see gemm_model.c). */
#define AUG_GEMM_OVERHEAD_US 2.5

/* The main loop's rate (TFLOP/s): the ceiling's rate times its sustained share. */
static inline double aug_gemm_mainloop_tflops(const struct aug_gemm_ceiling *c) {
    return c->rate_tflops * (c->sustained > 0 ? c->sustained : 1.0);
}

/* L2 bandwidth (GB/s) of `gpu`: its gpus.csv l2_gbps, else 5120 B/clk at its clock. */
double aug_gpu_l2_gbps(const struct aug_gpu *gpu);

/* Fill the ceiling of dtype `dt` on `gpu` from its gpus.csv row (achievable columns, else
 * the documented fractions of the datasheet peaks). Returns 0 when the GPU has no rate
 * for the dtype. */
int aug_gemm_ceiling_of(const struct aug_gpu *gpu, enum aug_dtype dt, struct aug_gemm_ceiling *c);

/* The kernel family a gemm_tile curve records for ceiling `c` (hw/curve.c, p6): SIMT with
 * the batched SGEMM tiles of its architecture (4: sm_80+, 3: sm_70/75, 1: older), tensor
 * cores with Hopper's one CTA per SM (5, with stream-K; 6, tiles sized to the shape as
 * cuBLAS 13's nvjet kernels do), with (2) or without (0) stream-K. */
int aug_gemm_tile_family(const struct aug_gemm_ceiling *c);

/* Device time in microseconds of batch x (m x k)(k x n) under ceiling `c`; `plan` (may be
 * NULL) receives the chosen tile, split and terms. Non-decreasing in m, n, k and batch. */
double aug_gemm_model_us(const struct aug_gemm_ceiling *c, double m, double n, double k,
                         double batch, struct aug_gemm_plan *plan);

/* The same for one fixed tile and split (for tests and reports). */
double aug_gemm_model_tile_us(const struct aug_gemm_ceiling *c, double m, double n, double k,
                              double batch, double tile_m, double tile_n, double split_k,
                              struct aug_gemm_plan *plan);

#endif
