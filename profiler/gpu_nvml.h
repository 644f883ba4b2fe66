/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_nvml.h - SM and memory clocks, temperature, power and slowdown reasons of a GPU
 * through NVML, loaded at run time (dlopen of libnvidia-ml.so.1, which the driver
 * installs), so augur-profile neither links nor needs it: without it the clock columns
 * stay empty and a message says why, once. */
#ifndef AUG_PROF_GPU_NVML_H
#define AUG_PROF_GPU_NVML_H

#include "point.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sample the state of CUDA device `dev` into out (out->valid 0 when NVML is unavailable). */
void aug_gpu_nvml_sample(int dev, struct aug_prof_clocks *out);
/* Unload NVML (at exit). */
void aug_gpu_nvml_close(void);

#ifdef __cplusplus
}
#endif
#endif
