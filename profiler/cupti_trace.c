/* SPDX-License-Identifier: Apache-2.0 */
/* cupti_trace.c - the CUPTI Activity API plumbing (see cupti_trace.h); the only file that
 * includes cupti.h and the only place that casts activity records to their structs.
 *
 * CUPTI asks for record buffers through a "requested" callback (we hand out 8 MiB,
 * 8-byte-aligned buffers, within CUPTI's advice of 1-10 MB) and returns them full through
 * a "completed" callback, possibly on its own thread; the records are parsed there into
 * the sink under a mutex. Enabled kinds: CONCURRENT_KERNEL (kernel start/end on the GPU),
 * EXTERNAL_CORRELATION (our measured-call ids), and RUNTIME and DRIVER, the API records the
 * external-correlation records are attached to (cuBLAS launches through the runtime, NCCL
 * through the driver). */
#include "cupti_trace.h"

#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

#define BUFFER_BYTES (8u << 20)
#define RECORD_ALIGN 8

/* CUPTI's buffer callbacks take no user data: the state of the one open trace. */
static struct {
    pthread_mutex_t mu;
    struct aug_prof_corr *sink;
    size_t dropped;
    int open;
} trace = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

static int cupti_fail(CUptiResult r, const char *call, const char *file, int line, int status) {
    const char *msg = NULL;
    if (cuptiGetResultString(r, &msg) != CUPTI_SUCCESS || !msg)
        msg = "unknown CUPTI error";
    fprintf(stderr, "augur-profile: %s:%d: %s: CUPTI: %s\n", file, line, call, msg);
    return aug_errorf(status, "%s:%d: %s: CUPTI: %s", file, line, call, msg);
}

#define CUPTI_CHECK(call, status)                                                            \
    do {                                                                                     \
        CUptiResult aug_r_ = (call);                                                         \
        if (aug_r_ != CUPTI_SUCCESS)                                                         \
            return cupti_fail(aug_r_, #call, __FILE__, __LINE__, (status));                  \
    } while (0)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = aligned_alloc(RECORD_ALIGN, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

/* Every cast to a record struct lives here. CUPTI 13 (API 13.0) kernel records are
 * CUpti_ActivityKernel10. */
static void take_record(const CUpti_Activity *rec) {
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        /* an invalid record is kept: it poisons its call instead of being ignored */
        (void)aug_prof_corr_add_kernel(trace.sink, k->correlationId, k->deviceId, k->start,
                                       k->end, k->name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *x = (const CUpti_ActivityExternalCorrelation *)rec;
        if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
            (void)aug_prof_corr_add_external(trace.sink, x->correlationId, x->externalId);
        break;
    }
    default:
        break; /* API records: only needed for CUPTI to emit the correlation records */
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid) {
    (void)size;
    pthread_mutex_lock(&trace.mu);
    CUpti_Activity *rec = NULL;
    while (trace.sink && valid > 0 &&
           cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
        take_record(rec);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS)
        trace.dropped += dropped;
    pthread_mutex_unlock(&trace.mu);
    free(buffer);
}

static void disable_all(void) {
    for (size_t i = 0; i < N_KINDS; i++)
        (void)cuptiActivityDisable(kinds[i]);
}

int aug_trace_open(struct aug_prof_corr *sink) {
    if (trace.open)
        return aug_errorf(AUG_EUNSUPPORTED, "a CUPTI trace is already open");
    pthread_mutex_lock(&trace.mu);
    trace.sink = sink;
    trace.dropped = 0;
    pthread_mutex_unlock(&trace.mu);
    CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                AUG_EUNSUPPORTED);
    for (size_t i = 0; i < N_KINDS; i++) {
        CUptiResult r = cuptiActivityEnable(kinds[i]);
        if (r != CUPTI_SUCCESS) {
            disable_all();
            return cupti_fail(r, "cuptiActivityEnable", __FILE__, __LINE__, AUG_EUNSUPPORTED);
        }
    }
    trace.open = 1;
    return AUG_OK;
}

int aug_trace_push(uint64_t id) {
    CUPTI_CHECK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id),
                AUG_EIO);
    return AUG_OK;
}

int aug_trace_pop(void) {
    uint64_t last = 0;
    CUPTI_CHECK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                      &last),
                AUG_EIO);
    return AUG_OK;
}

int aug_trace_flush(void) {
    CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), AUG_EIO);
    pthread_mutex_lock(&trace.mu);
    size_t dropped = trace.dropped;
    trace.dropped = 0;
    pthread_mutex_unlock(&trace.mu);
    if (dropped)
        return aug_errorf(AUG_EDATA, "CUPTI dropped %zu activity records", dropped);
    return AUG_OK;
}

void aug_trace_reset(void) {
    pthread_mutex_lock(&trace.mu);
    if (trace.sink)
        aug_prof_corr_reset(trace.sink);
    pthread_mutex_unlock(&trace.mu);
}

int aug_trace_time_us(uint64_t id, double *time_us, int *n_kernels) {
    pthread_mutex_lock(&trace.mu);
    int rc = trace.sink ? aug_prof_corr_time_us(trace.sink, id, time_us, n_kernels)
                        : aug_errorf(AUG_EUNSUPPORTED, "no CUPTI trace is open");
    pthread_mutex_unlock(&trace.mu);
    return rc;
}

int aug_trace_main_kernel(uint64_t id, char *buf, size_t cap) {
    pthread_mutex_lock(&trace.mu);
    int rc = trace.sink ? aug_prof_corr_main_kernel(trace.sink, id, buf, cap)
                        : aug_errorf(AUG_EUNSUPPORTED, "no CUPTI trace is open");
    pthread_mutex_unlock(&trace.mu);
    return rc;
}

void aug_trace_close(void) {
    if (!trace.open)
        return;
    disable_all();
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&trace.mu);
    trace.sink = NULL;
    pthread_mutex_unlock(&trace.mu);
    trace.open = 0;
}

void aug_trace_version(char *buf, size_t cap) {
    uint32_t v = 0;
    if (cuptiGetVersion(&v) == CUPTI_SUCCESS)
        snprintf(buf, cap, "API %u", (unsigned)v);
    else
        snprintf(buf, cap, "API %u (headers)", (unsigned)CUPTI_API_VERSION);
}

unsigned aug_trace_build_version(void) {
    return (unsigned)CUPTI_API_VERSION;
}
