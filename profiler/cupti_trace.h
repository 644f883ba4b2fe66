/* SPDX-License-Identifier: Apache-2.0 */
/* cupti_trace.h - GPU kernel time per measured call through the CUPTI Activity API.
 *
 * The only interface to cupti.h (which only cupti_trace.c includes). Kernel records
 * (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, which does not serialize kernels) and external
 * correlation records are delivered into a struct aug_prof_corr (correlate.h), which sums
 * every kernel of one measured call. CUPTI's buffer callbacks carry no user pointer, so
 * the open trace is process-wide: one aug_trace at a time. */
#ifndef AUG_PROF_CUPTI_TRACE_H
#define AUG_PROF_CUPTI_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "correlate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start collecting into `sink`. Any CUPTI failure (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES in
 * a container, another tool already subscribed, no driver) returns AUG_EUNSUPPORTED with
 * CUPTI's message, and tracing stays off: the caller falls back to CUDA events. */
int aug_trace_open(struct aug_prof_corr *sink);

/* Enter / leave the measured call `id` on this thread: every kernel launched in between
 * is attributed to it. */
int aug_trace_push(uint64_t id);
int aug_trace_pop(void);

/* Deliver every completed record to the sink (cuptiActivityFlushAll with the forced
 * flag). The caller synchronizes its streams first. AUG_EDATA when CUPTI dropped records
 * since the last flush (the times of this batch are incomplete). */
int aug_trace_flush(void);

/* Forget the records collected so far (between points), under the trace's lock. */
void aug_trace_reset(void);

/* GPU time of measured call `id` from the records delivered so far, under the trace's
 * lock (see aug_prof_corr_time_us). */
int aug_trace_time_us(uint64_t id, double *time_us, int *n_kernels);
/* The name of the longest kernel of measured call `id` (aug_prof_corr_main_kernel). */
int aug_trace_main_kernel(uint64_t id, char *buf, size_t cap);

/* Stop collecting, flush, and release CUPTI's activity buffers. */
void aug_trace_close(void);

/* "13.0 (API 130001)" from cuptiGetVersion, or the header version when the call fails. */
void aug_trace_version(char *buf, size_t cap);
/* The CUPTI API version of the headers this was built with. */
unsigned aug_trace_build_version(void);

#ifdef __cplusplus
}
#endif
#endif
