/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_device.c - device description and library versions (see gpu_device.h).
 *
 * The kernel driver version ("580.65.06") is not exposed by the CUDA runtime, and NVML is
 * not part of the toolkit here, so it is read from /proc/driver/nvidia/version when that
 * file exists; the runtime still reports which CUDA version the driver supports. */
#include "gpu_device.h"
#include "gpuid.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "check.h"
#include "cupti_trace.h"
#include "sdpa_layout.h"

#ifndef AUG_NVCC_VERSION
#define AUG_NVCC_VERSION ""
#endif

/* cuDNN's version when the library is installed (dlopen: the build never needs it), ""
 * otherwise; the library the attention benchmark opens (AUGUR_CUDNN_LIB, else
 * libcudnn.so.9) comes first. Returns cudnnGetVersion() (0: none). */
static size_t cudnn_version(char *buf, size_t cap) {
    const char *env = getenv(AUG_CUDNN_ENV);
    const char *names[] = {env && env[0] ? env : AUG_CUDNN_DEFAULT_LIB, "libcudnn.so.9",
                           "libcudnn.so.8", "libcudnn.so"};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        size_t (*get)(void) = NULL, v = 0;
        void *f = dlsym(h, "cudnnGetVersion");
        memcpy(&get, &f, sizeof get);
        if (get) {
            v = get();
            aug_cudnn_version_format(v, buf, cap);
        }
        dlclose(h);
        return v;
    }
    return 0;
}

static void cuda_version(int v, char *buf, size_t cap) {
    snprintf(buf, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* The kernel module's version from the first line of /proc/driver/nvidia/version
 * (aug_prof_driver_version, gpuid.c). */
static void kernel_driver(char *buf, size_t cap) {
    buf[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f))
        aug_prof_driver_version(line, buf, cap);
    fclose(f);
}

int aug_gpu_device_query(int max_gpus, struct aug_prof_device *out) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return aug_errorf(AUG_ENODEV, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
    }
    if (count < 1)
        return aug_errorf(AUG_ENODEV, "no CUDA device is visible");
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, prop.name);
    out->device_count = max_gpus > 0 && max_gpus < count ? max_gpus : count;
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
    out->sm_count = prop.multiProcessorCount;
    out->memory_gib = (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    out->mem_bus_bits = prop.memoryBusWidth;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess)
        out->sm_clock_mhz = khz / 1000.0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess)
        out->mem_clock_mhz = khz / 1000.0;
    for (int d = 1; d < out->device_count; d++) {
        struct cudaDeviceProp other;
        if (cudaGetDeviceProperties(&other, d) == cudaSuccess && strcmp(other.name, prop.name))
            fprintf(stderr, "augur-profile: warning: GPU %d is a '%s', GPU 0 a '%s'; the files "
                    "describe GPU 0\n", d, other.name, prop.name);
    }
    int v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess)
        cuda_version(v, out->cuda_driver, sizeof out->cuda_driver);
    if (cudaRuntimeGetVersion(&v) == cudaSuccess)
        cuda_version(v, out->cuda_runtime, sizeof out->cuda_runtime);
    size_t lt = cublasLtGetVersion();
    snprintf(out->cublas, sizeof out->cublas, "%zu.%zu.%zu", lt / 10000, (lt / 100) % 100, lt % 100);
    aug_trace_version(out->cupti, sizeof out->cupti);
    int nv = 0;
    if (ncclGetVersion(&nv) == ncclSuccess) {
        if (nv >= 10000)
            snprintf(out->nccl, sizeof out->nccl, "%d.%d.%d", nv / 10000, (nv / 100) % 100, nv % 100);
        else
            snprintf(out->nccl, sizeof out->nccl, "%d.%d.%d", nv / 1000, (nv / 100) % 10, nv % 100);
    }
    kernel_driver(out->driver, sizeof out->driver);
    size_t dnn = cudnn_version(out->cudnn, sizeof out->cudnn);
#ifdef AUG_HAVE_CUDNN
    out->cudnn_sdpa = dnn >= AUG_CUDNN_MIN_VERSION && out->cc_major >= AUG_CUDNN_MIN_CC_MAJOR;
#else
    (void)dnn;
    out->cudnn_sdpa = 0;
#endif
    return AUG_OK;
}

void aug_gpu_build_versions(char *buf, size_t cap) {
    char cuda[16];
    cuda_version(CUDART_VERSION, cuda, sizeof cuda);
    snprintf(buf, cap, "CUDA %s, cuBLAS %d.%d.%d, NCCL %d.%d.%d, CUPTI API %u%s%s", cuda,
             CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH, NCCL_MAJOR, NCCL_MINOR,
             NCCL_PATCH, aug_trace_build_version(), AUG_NVCC_VERSION[0] ? ", nvcc " : "",
             AUG_NVCC_VERSION);
}
