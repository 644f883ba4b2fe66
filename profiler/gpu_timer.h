/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_timer.h - warm-up, L2 flushes and timed repetitions of one measured call, on one or
 * more GPUs.
 *
 * A bench describes its call as a function that enqueues it on its streams without
 * synchronizing (one cuBLAS GEMM, the three kernels of unfused attention, one NCCL group
 * over all local GPUs). The timer runs it cfg->warmup times, then cfg->reps times, each
 * inside its own external-correlation range when CUPTI works: the time of a repetition
 * is the summed GPU time of its kernels (max over GPUs). Without CUPTI, or when CUPTI
 * delivered no record for a repetition, CUDA events recorded on every stream around each
 * repetition give the time instead (max over GPUs), and the measure says cuda_event. */
#ifndef AUG_PROF_GPU_TIMER_H
#define AUG_PROF_GPU_TIMER_H

#include <cuda_runtime_api.h>

#include "backend.h"
#include "point.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AUG_GPU_MAX_DEVICES 16

struct aug_gpu_timer;

/* pref AUTO tries CUPTI and falls back to events with a message; CUPTI fails when CUPTI
 * cannot be used; EVENT never touches CUPTI. */
int aug_gpu_timer_open(enum aug_prof_timing_pref pref, struct aug_gpu_timer **out);
void aug_gpu_timer_close(struct aug_gpu_timer *t);
/* The method repetitions will use. */
enum aug_prof_timing aug_gpu_timer_method(const struct aug_gpu_timer *t);

struct aug_gpu_call {
    int n_dev;                                 /* GPUs the call runs on */
    int device[AUG_GPU_MAX_DEVICES];           /* CUDA device ordinals */
    cudaStream_t stream[AUG_GPU_MAX_DEVICES];  /* the stream used on each */
    /* Enqueue one call on the streams; no synchronization. Returns a status. */
    int (*enqueue)(void *arg);
    void *arg;
};

/* Measure `call` for point p with the repetition policy of measure.h: warm-up by time,
 * repetitions until the noise is small or the budget is spent, an L2 flush (twice the L2
 * size) before every timed call when aug_prof_point_wants_l2_flush(p, cfg); then the
 * clocks, temperature and power through NVML. Fills out->time_us[0 .. n), n, timing,
 * l2_flush, warmup_calls, noise and clocks. Errors from the call or from CUDA are
 * returned as statuses (check.h). */
int aug_gpu_timer_measure(struct aug_gpu_timer *t, const struct aug_gpu_call *call,
                          const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
                          struct aug_prof_measure *out);

/* Synchronize every stream of `call` (reporting asynchronous errors). */
int aug_gpu_call_sync(const struct aug_gpu_call *call);

#ifdef __cplusplus
}
#endif
#endif
