/* SPDX-License-Identifier: Apache-2.0 */
/* correlate.h - GPU time per measured call from CUPTI activity records.
 *
 * The profiler pushes one external correlation id around every measured library call
 * (one cuBLAS GEMM, one NCCL group, one attention forward). CUPTI then reports:
 *   - EXTERNAL_CORRELATION records: external id -> CUPTI correlation id of each CUDA API
 *     call made inside that range;
 *   - CONCURRENT_KERNEL records: correlation id, device, start and end of each kernel.
 * One call may launch several kernels (split-K reduction, a cuBLAS prologue, one NCCL
 * kernel per GPU), and records arrive in any order and from any buffer. This module
 * collects both kinds as plain numbers (it never sees cupti.h, so it is tested without a
 * GPU) and answers: the time of call X is, per device, the sum of its kernels' durations,
 * and over the devices the maximum (a collective is as slow as its slowest rank). */
#ifndef AUG_PROF_CORRELATE_H
#define AUG_PROF_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aug_prof_corr;

/* A new, empty collection. AUG_ENOMEM on failure. */
int aug_prof_corr_new(struct aug_prof_corr **out);
void aug_prof_corr_free(struct aug_prof_corr *c);
/* Forget every record (between points), keeping the storage. */
void aug_prof_corr_reset(struct aug_prof_corr *c);

/* Record that CUDA API call `correlation_id` ran inside external range `external_id`. */
int aug_prof_corr_add_external(struct aug_prof_corr *c, uint32_t correlation_id,
                               uint64_t external_id);
/* Longest kernel name kept, terminator included; longer names are cut. */
#define AUG_PROF_KERNEL_NAME_LEN 160

/* Record a kernel launched by API call `correlation_id` that ran on `device` from
 * start_ns to end_ns (GPU timestamps), named `name` (the symbol CUPTI reports, NULL when
 * unknown; kept as characters of [A-Za-z0-9_$.], any other byte becomes '?', cut to
 * AUG_PROF_KERNEL_NAME_LEN - 1). AUG_EDATA when end_ns < start_ns or both are 0 (CUPTI
 * could not time it): such a kernel poisons its call (see aug_prof_corr_time_us). */
int aug_prof_corr_add_kernel(struct aug_prof_corr *c, uint32_t correlation_id, uint32_t device,
                             uint64_t start_ns, uint64_t end_ns, const char *name);

/* GPU time of external range `external_id` in microseconds and how many kernels it
 * contained. AUG_ENOTFOUND when no kernel belongs to it; AUG_EDATA when one of its
 * kernels had no valid timestamps. */
int aug_prof_corr_time_us(const struct aug_prof_corr *c, uint64_t external_id, double *time_us,
                          int *n_kernels);

/* Name of the longest kernel of external range `external_id` (the GEMM's main loop
 * rather than its split-K reduction; the first of equal ones) into buf, "" when it had no
 * name. AUG_ENOTFOUND when no kernel belongs to the range. */
int aug_prof_corr_main_kernel(const struct aug_prof_corr *c, uint64_t external_id, char *buf,
                              size_t cap);

/* Number of kernel records held (also those of no external range). */
int aug_prof_corr_kernel_count(const struct aug_prof_corr *c);

#ifdef __cplusplus
}
#endif
#endif
