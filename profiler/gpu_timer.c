/* gpu_timer.c - warm-up, repetitions and the CUPTI / CUDA events timing of one measured
 * call (see gpu_timer.h). */
#include "gpu_timer.h"

#include <stdio.h>
#include <stdlib.h>

#include "augur/status.h"
#include "check.h"
#include "correlate.h"
#include "cupti_trace.h"

struct aug_gpu_timer {
    enum aug_prof_timing method;
    struct aug_prof_corr *corr;     /* CUPTI record sink (NULL with events) */
    uint64_t next_id;               /* external correlation ids, unique per process */
    /* event pool: ev[d][2*r] starts, ev[d][2*r+1] stops, created on device dev[d] */
    cudaEvent_t *ev[AUG_GPU_MAX_DEVICES];
    int ev_dev[AUG_GPU_MAX_DEVICES];
    int ev_cap[AUG_GPU_MAX_DEVICES];
    int n_ev;
};

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
                          double *time_us) {
    cudaEvent_t *ev[AUG_GPU_MAX_DEVICES];
    for (int d = 0; d < call->n_dev; d++)
        GPU_TRY(events_for(t, call->device[d], reps, &ev[d]));
    for (int r = 0; r < reps; r++) {
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
                         double *time_us) {
    aug_trace_reset();
    uint64_t first = t->next_id;
    CUDA_CHECK(cudaSetDevice(call->device[0]));
    for (int r = 0; r < reps; r++) {
        GPU_TRY(aug_trace_push(first + (uint64_t)r));
        int rc = call->enqueue(call->arg);
        int pop = aug_trace_pop();
        GPU_TRY(rc);
        GPU_TRY(pop);
    }
    t->next_id += (uint64_t)reps;
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
    return AUG_OK;
}

int aug_gpu_timer_measure(struct aug_gpu_timer *t, const struct aug_gpu_call *call,
                          const struct aug_prof_run_cfg *cfg, struct aug_prof_measure *out) {
    if (cfg->reps > out->cap)
        return aug_errorf(AUG_EUNSUPPORTED, "%d repetitions do not fit %d slots", cfg->reps,
                          out->cap);
    if (call->n_dev < 1 || call->n_dev > AUG_GPU_MAX_DEVICES)
        return aug_errorf(AUG_EUNSUPPORTED, "a call on %d devices", call->n_dev);
    /* single-device benches launch on the current device */
    CUDA_CHECK(cudaSetDevice(call->device[0]));
    for (int w = 0; w < cfg->warmup; w++)
        GPU_TRY(call->enqueue(call->arg));
    GPU_TRY(aug_gpu_call_sync(call));
    out->n = 0;
    if (t->method == AUG_PROF_TIMING_CUPTI) {
        int rc = measure_cupti(t, call, cfg->reps, out->time_us);
        if (rc == AUG_OK) {
            out->timing = AUG_PROF_TIMING_CUPTI;
            out->n = cfg->reps;
            return AUG_OK;
        }
        if (rc != AUG_ENOTFOUND && rc != AUG_EDATA)
            return rc;
        /* records missing or dropped for this point: time it with events instead */
        fprintf(stderr, "augur-profile: CUPTI records incomplete (%s); timing this point with "
                "CUDA events\n", aug_last_error());
    }
    GPU_TRY(measure_events(t, call, cfg->reps, out->time_us));
    out->timing = AUG_PROF_TIMING_EVENT;
    out->n = cfg->reps;
    return AUG_OK;
}
