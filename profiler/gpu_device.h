/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_device.h - what the CUDA backend reports about the machine: device description,
 * driver and library versions (runtime values, for the provenance header) and the
 * versions the binary was built with (for --version). */
#ifndef AUG_PROF_GPU_DEVICE_H
#define AUG_PROF_GPU_DEVICE_H

#include <stddef.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill `out` from CUDA device 0 and the libraries; device_count is the number of visible
 * GPUs, capped at `max_gpus` when it is positive. AUG_ENODEV with CUDA's message when no
 * GPU can be used (no driver, "CUDA driver version is insufficient", no device). */
int aug_gpu_device_query(int max_gpus, struct aug_prof_device *out);

/* "CUDA 13.0, cuBLAS 13.1.0, NCCL 2.28.9, CUPTI API 130001, nvcc 13.0.88": the headers
 * (and compiler) the binary was built with. */
void aug_gpu_build_versions(char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
