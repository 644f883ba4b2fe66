/* SPDX-License-Identifier: Apache-2.0 */
/* check.h - error relays for CUDA, cuBLAS and NCCL calls in the CUDA backend.
 *
 * Each macro evaluates the call once; on failure it prints "file:line: call: message" to
 * stderr, records the same text as the last error (aug_errorf) and returns a status from
 * the enclosing function: AUG_ENOMEM for out-of-memory (the point is skipped), AUG_ENODEV
 * for errors that leave the device unusable (illegal address, launch failure, ECC, no
 * driver), AUG_EUNSUPPORTED for unsupported configurations, AUG_EIO otherwise. GPU_TRY
 * relays a status from a callee and adds its own location, which gives a cheap stack
 * trace on stderr (the nccl-tests TESTCHECK idea, on stderr instead of stdout). */
#ifndef AUG_PROF_CHECK_H
#define AUG_PROF_CHECK_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#ifdef __cplusplus
extern "C" {
#endif

int aug_gpu_fail_cuda(cudaError_t e, const char *call, const char *file, int line);
int aug_gpu_fail_cublas(cublasStatus_t s, const char *call, const char *file, int line);
int aug_gpu_fail_nccl(ncclResult_t r, const char *call, const char *file, int line);
/* Status for a CUDA error (see above). */
int aug_gpu_cuda_status(cudaError_t e);

#define CUDA_CHECK(call)                                                                     \
    do {                                                                                     \
        cudaError_t aug_e_ = (call);                                                         \
        if (aug_e_ != cudaSuccess)                                                           \
            return aug_gpu_fail_cuda(aug_e_, #call, __FILE__, __LINE__);                     \
    } while (0)

#define CUBLAS_CHECK(call)                                                                   \
    do {                                                                                     \
        cublasStatus_t aug_s_ = (call);                                                      \
        if (aug_s_ != CUBLAS_STATUS_SUCCESS)                                                 \
            return aug_gpu_fail_cublas(aug_s_, #call, __FILE__, __LINE__);                   \
    } while (0)

#define NCCL_CHECK(call)                                                                     \
    do {                                                                                     \
        ncclResult_t aug_r_ = (call);                                                        \
        if (aug_r_ != ncclSuccess)                                                           \
            return aug_gpu_fail_nccl(aug_r_, #call, __FILE__, __LINE__);                     \
    } while (0)

#define GPU_TRY(call)                                                                        \
    do {                                                                                     \
        int aug_rc_ = (call);                                                                \
        if (aug_rc_ != 0) {                                                                  \
            fprintf(stderr, "augur-profile:   from %s:%d: %s\n", __FILE__, __LINE__, #call); \
            return aug_rc_;                                                                  \
        }                                                                                    \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
