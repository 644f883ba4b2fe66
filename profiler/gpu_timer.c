/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_timer.c - warm-up, repetitions and the CUPTI / CUDA events timing of one measured
 * call (see gpu_timer.h). */
#include "gpu_timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "augur/status.h"
#include "check.h"
#include "correlate.h"
#include "cupti_trace.h"
#include "gpu_nvml.h"
#include "measure.h"

_Static_assert(AUG_PROF_KERNEL_NAME_LEN == AUG_PROF_KERNEL_LEN,
               "the timer's kernel name fits the measure's");

struct aug_gpu_timer {
    enum aug_prof_timing method;
    struct aug_prof_corr *corr;     /* CUPTI record sink (NULL with events) */
    uint64_t next_id;               /* external correlation ids, unique per process */
    /* event pool: ev[d][2*r] starts, ev[d][2*r+1] stops, created on device dev[d] */
    cudaEvent_t *ev[AUG_GPU_MAX_DEVICES];
    int ev_dev[AUG_GPU_MAX_DEVICES];
    int ev_cap[AUG_GPU_MAX_DEVICES];
    int n_ev;
    /* L2 flush buffers, one per device: twice the L2 size (nvbench's l2flush.cuh writes
     * one L2 size; twice leaves no line of the operands behind whatever the replacement
     * policy) */
    void *flush_buf[AUG_GPU_MAX_DEVICES];
    size_t flush_bytes[AUG_GPU_MAX_DEVICES];
    cublasHandle_t flush_blas[AUG_GPU_MAX_DEVICES]; /* reads the buffer back (flush_l2) */
    float *flush_sum[AUG_GPU_MAX_DEVICES];          /* its result, on the device, unused */
    int flush_dev[AUG_GPU_MAX_DEVICES];
    int n_flush;
    unsigned char flush_val;
    /* NVML's reading taken while the last timed batch was still queued on the GPU: read
     * after the synchronize, the first H200 sweep saw idle clocks (1575 MHz at 156 W after
     * an 800 us fp8 GEMM) that the kernels never ran at */
    struct aug_prof_clocks busy;
    /* the longest kernel of the last call timed through CUPTI ("" none) */
    char kernel[AUG_PROF_KERNEL_NAME_LEN];
};

/* The flush buffer of device `dev` (index *slot), with the cuBLAS handle and scalar that
 * read it back, made on first use. A slot whose making failed part-way is completed on
 * the next call; aug_gpu_timer_close frees whatever a slot holds. */
static int flush_buffer(struct aug_gpu_timer *t, int dev, int *slot) {
    int i = 0;
    while (i < t->n_flush && t->flush_dev[i] != dev)
        i++;
    if (i < t->n_flush && t->flush_blas[i]) {
        *slot = i;
        return AUG_OK;
    }
    if (i == t->n_flush) {
        if (t->n_flush == AUG_GPU_MAX_DEVICES)
            return aug_errorf(AUG_EUNSUPPORTED, "more than %d devices", AUG_GPU_MAX_DEVICES);
        t->flush_dev[i] = dev;
        t->n_flush++;
    }
    CUDA_CHECK(cudaSetDevice(dev));
    if (!t->flush_buf[i]) {
        int l2 = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        size_t n = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
        CUDA_CHECK(cudaMalloc(&t->flush_buf[i], n));
        t->flush_bytes[i] = n;
    }
    if (!t->flush_sum[i])
        CUDA_CHECK(cudaMalloc((void **)&t->flush_sum[i], sizeof(float)));
    cublasHandle_t h = NULL;
    CUBLAS_CHECK(cublasCreate(&h));
    cublasStatus_t st = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    if (st != CUBLAS_STATUS_SUCCESS) {
        (void)cublasDestroy(h);
        return aug_gpu_fail_cublas(st, "cublasSetPointerMode", __FILE__, __LINE__);
    }
    t->flush_blas[i] = h; /* last: a slot with its handle is complete */
    *slot = i;
    return AUG_OK;
}

/* Overwrite twice the L2 of every device of the call, on its stream, before a timed call,
 * then read the first half back (cublasSasum into a device scalar). The memset alone
 * leaves L2 full of dirty lines that the timed kernel must write back while it reads its
 * operands: on the first H100 and H200 runs a flushed 32 MB bf16 GEMV moved its bytes at
 * 1.7 and 2.1 TB/s and a 512 MB one at 2.8 and 4.1, as if every byte it read had cost a
 * write-back too, up to the L2 size. Reading
 * evicts those lines here and leaves clean ones that are not the operands. All of it is
 * outside the timed range: it precedes the external-correlation range of the CUPTI
 * records and the start event. */
static int flush_l2(struct aug_gpu_timer *t, const struct aug_gpu_call *call) {
    t->flush_val++;
    for (int d = 0; d < call->n_dev; d++) {
        int i = 0;
        GPU_TRY(flush_buffer(t, call->device[d], &i));
        CUDA_CHECK(cudaSetDevice(call->device[d]));
        CUDA_CHECK(cudaMemsetAsync(t->flush_buf[i], t->flush_val, t->flush_bytes[i],
                                   call->stream[d]));
        CUBLAS_CHECK(cublasSetStream(t->flush_blas[i], call->stream[d]));
        CUBLAS_CHECK(cublasSasum(t->flush_blas[i], (int)(t->flush_bytes[i] / 2 / sizeof(float)),
                                 (const float *)t->flush_buf[i], 1, t->flush_sum[i]));
    }
    CUDA_CHECK(cudaSetDevice(call->device[0]));
    return AUG_OK;
}

int aug_gpu_timer_open(enum aug_prof_timing_pref pref, struct aug_gpu_timer **out) {
    struct aug_gpu_timer *t = calloc(1, sizeof *t);
    if (!t)
        return aug_errorf(AUG_ENOMEM, "out of memory creating a timer");
    t->method = AUG_PROF_TIMING_EVENT;
    t->next_id = 1;
    if (pref != AUG_PROF_PREF_EVENT) {
        int rc = aug_prof_corr_new(&t->corr);
        if (rc == AUG_OK)
            rc = aug_trace_open(t->corr);
        if (rc == AUG_OK) {
            t->method = AUG_PROF_TIMING_CUPTI;
        } else {
            aug_prof_corr_free(t->corr);
            t->corr = NULL;
            if (pref == AUG_PROF_PREF_CUPTI) {
                free(t);
                return aug_errorf(AUG_EUNSUPPORTED, "CUPTI is unavailable (%s) and --timing "
                                  "cupti was asked for", aug_last_error());
            }
            fprintf(stderr, "augur-profile: CUPTI is unavailable (%s); timing with CUDA events "
                    "(rows say timing=cuda_event)\n", aug_last_error());
        }
    }
    *out = t;
    return AUG_OK;
}

void aug_gpu_timer_close(struct aug_gpu_timer *t) {
    if (!t)
        return;
    if (t->corr) {
        aug_trace_close();
        aug_prof_corr_free(t->corr);
    }
    for (int i = 0; i < t->n_flush; i++)
        if (cudaSetDevice(t->flush_dev[i]) == cudaSuccess) {
            if (t->flush_blas[i])
                (void)cublasDestroy(t->flush_blas[i]);
            (void)cudaFree(t->flush_sum[i]);
            (void)cudaFree(t->flush_buf[i]);
        }
    aug_gpu_nvml_close();
    for (int d = 0; d < t->n_ev; d++) {
        if (cudaSetDevice(t->ev_dev[d]) == cudaSuccess)
            for (int i = 0; i < t->ev_cap[d]; i++)
                (void)cudaEventDestroy(t->ev[d][i]);
        free(t->ev[d]);
    }
    free(t);
}

enum aug_prof_timing aug_gpu_timer_method(const struct aug_gpu_timer *t) {
    return t->method;
}

int aug_gpu_call_sync(const struct aug_gpu_call *call) {
    for (int d = 0; d < call->n_dev; d++) {
        CUDA_CHECK(cudaSetDevice(call->device[d]));
        CUDA_CHECK(cudaStreamSynchronize(call->stream[d]));
    }
    return AUG_OK;
}

/* Events for `reps` repetitions on device `dev`: index into the pool. */
static int events_for(struct aug_gpu_timer *t, int dev, int reps, cudaEvent_t **out) {
    int d = 0;
    while (d < t->n_ev && t->ev_dev[d] != dev)
        d++;
    if (d == t->n_ev) {
        if (t->n_ev == AUG_GPU_MAX_DEVICES)
            return aug_errorf(AUG_EUNSUPPORTED, "more than %d devices", AUG_GPU_MAX_DEVICES);
        t->ev_dev[d] = dev;
        t->ev[d] = NULL;
        t->ev_cap[d] = 0;
        t->n_ev++;
    }
    if (t->ev_cap[d] < 2 * reps) {
        cudaEvent_t *ne = realloc(t->ev[d], (size_t)(2 * reps) * sizeof *ne);
        if (!ne)
            return aug_errorf(AUG_ENOMEM, "out of memory for %d events", 2 * reps);
        t->ev[d] = ne;
        CUDA_CHECK(cudaSetDevice(dev));
        while (t->ev_cap[d] < 2 * reps) {
            CUDA_CHECK(cudaEventCreate(&t->ev[d][t->ev_cap[d]]));
            t->ev_cap[d]++;
        }
    }
    *out = t->ev[d];
    return AUG_OK;
}

static int measure_events(struct aug_gpu_timer *t, const struct aug_gpu_call *call, int reps,
                          int flush, double *time_us) {
    cudaEvent_t *ev[AUG_GPU_MAX_DEVICES];
    for (int d = 0; d < call->n_dev; d++)
        GPU_TRY(events_for(t, call->device[d], reps, &ev[d]));
    for (int r = 0; r < reps; r++) {
        if (flush)
            GPU_TRY(flush_l2(t, call));
        for (int d = 0; d < call->n_dev; d++) {
            CUDA_CHECK(cudaSetDevice(call->device[d]));
            CUDA_CHECK(cudaEventRecord(ev[d][2 * r], call->stream[d]));
        }
        CUDA_CHECK(cudaSetDevice(call->device[0]));
        GPU_TRY(call->enqueue(call->arg));
        for (int d = 0; d < call->n_dev; d++) {
            CUDA_CHECK(cudaSetDevice(call->device[d]));
            CUDA_CHECK(cudaEventRecord(ev[d][2 * r + 1], call->stream[d]));
        }
    }
    aug_gpu_nvml_sample(call->device[0], &t->busy);
    GPU_TRY(aug_gpu_call_sync(call));
    for (int r = 0; r < reps; r++) {
        double worst = 0.0;
        for (int d = 0; d < call->n_dev; d++) {
            float ms = 0.0f;
            CUDA_CHECK(cudaSetDevice(call->device[d]));
            CUDA_CHECK(cudaEventElapsedTime(&ms, ev[d][2 * r], ev[d][2 * r + 1]));
            if (ms * 1e3 > worst)
                worst = ms * 1e3;
        }
        time_us[r] = worst;
    }
    return AUG_OK;
}

/* CUPTI: returns AUG_ENOTFOUND when some repetition got no kernel record. */
static int measure_cupti(struct aug_gpu_timer *t, const struct aug_gpu_call *call, int reps,
                         int flush, double *time_us) {
    aug_trace_reset();
    uint64_t first = t->next_id;
    CUDA_CHECK(cudaSetDevice(call->device[0]));
    for (int r = 0; r < reps; r++) {
        if (flush)
            GPU_TRY(flush_l2(t, call));
        GPU_TRY(aug_trace_push(first + (uint64_t)r));
        int rc = call->enqueue(call->arg);
        int pop = aug_trace_pop();
        GPU_TRY(rc);
        GPU_TRY(pop);
    }
    t->next_id += (uint64_t)reps;
    aug_gpu_nvml_sample(call->device[0], &t->busy);
    GPU_TRY(aug_gpu_call_sync(call));
    int rc = aug_trace_flush();
    if (rc != AUG_OK)
        return rc;
    for (int r = 0; r < reps; r++) {
        int n = 0;
        rc = aug_trace_time_us(first + (uint64_t)r, &time_us[r], &n);
        if (rc != AUG_OK)
            return rc;
    }
    if (reps > 0 && aug_trace_main_kernel(first + (uint64_t)(reps - 1), t->kernel,
                                          sizeof t->kernel) != AUG_OK)
        t->kernel[0] = '\0';
    return AUG_OK;
}

/* The callbacks of the repetition policy (measure.h) over one call. */
struct loop_arg {
    struct aug_gpu_timer *t;
    const struct aug_gpu_call *call;
    enum aug_prof_timing method;
};

static int op_warm(void *a, int n) {
    struct loop_arg *la = a;
    CUDA_CHECK(cudaSetDevice(la->call->device[0]));
    for (int w = 0; w < n; w++)
        GPU_TRY(la->call->enqueue(la->call->arg));
    return aug_gpu_call_sync(la->call);
}

static int op_timed(void *a, int n, int flush, double *time_us) {
    struct loop_arg *la = a;
    if (la->method == AUG_PROF_TIMING_CUPTI)
        return measure_cupti(la->t, la->call, n, flush, time_us);
    return measure_events(la->t, la->call, n, flush, time_us);
}

static double op_now(void *a) {
    (void)a;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int aug_gpu_timer_measure(struct aug_gpu_timer *t, const struct aug_gpu_call *call,
                          const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
                          struct aug_prof_measure *out) {
    if (call->n_dev < 1 || call->n_dev > AUG_GPU_MAX_DEVICES)
        return aug_errorf(AUG_EUNSUPPORTED, "a call on %d devices", call->n_dev);
    /* single-device benches launch on the current device */
    CUDA_CHECK(cudaSetDevice(call->device[0]));
    struct loop_arg la = {t, call, t->method};
    struct aug_prof_loop_ops ops = {&la, op_warm, op_timed, op_now};
    int flush = aug_prof_point_wants_l2_flush(p, cfg);
    t->kernel[0] = '\0';
    int rc = aug_prof_measure_loop(&ops, cfg, flush, out);
    if (la.method == AUG_PROF_TIMING_CUPTI && (rc == AUG_ENOTFOUND || rc == AUG_EDATA)) {
        /* records missing or dropped for this point: time all of it with events instead */
        fprintf(stderr, "augur-profile: CUPTI records incomplete (%s); timing this point with "
                "CUDA events\n", aug_last_error());
        la.method = AUG_PROF_TIMING_EVENT;
        t->kernel[0] = '\0';
        rc = aug_prof_measure_loop(&ops, cfg, flush, out);
    }
    if (rc != AUG_OK)
        return rc;
    out->timing = la.method;
    out->clocks = t->busy; /* the state the GPU ran the last timed batch in */
    snprintf(out->kernel, sizeof out->kernel, "%s", t->kernel);
    return AUG_OK;
}
