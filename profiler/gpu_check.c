/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_check.c - turning CUDA, cuBLAS and NCCL errors into statuses and messages (check.h). */
#include "check.h"

#include <stdio.h>

#include "augur/status.h"

int aug_gpu_cuda_status(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return AUG_OK;
    case cudaErrorMemoryAllocation: return AUG_ENOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
    case cudaErrorUnknown: return AUG_ENODEV;
    case cudaErrorNotSupported:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNoKernelImageForDevice: return AUG_EUNSUPPORTED;
    default: return AUG_EIO;
    }
}

static int fail(int status, const char *lib, const char *call, const char *file, int line,
                const char *msg) {
    fprintf(stderr, "augur-profile: %s:%d: %s: %s: %s\n", file, line, call, lib, msg);
    return aug_errorf(status, "%s:%d: %s: %s: %s", file, line, call, lib, msg);
}

int aug_gpu_fail_cuda(cudaError_t e, const char *call, const char *file, int line) {
    int status = aug_gpu_cuda_status(e);
    /* an out-of-memory error is not sticky: clear it so the next point starts clean */
    if (status == AUG_ENOMEM)
        (void)cudaGetLastError();
    return fail(status, "CUDA", call, file, line, cudaGetErrorString(e));
}

int aug_gpu_fail_cublas(cublasStatus_t s, const char *call, const char *file, int line) {
    int status = AUG_EIO;
    if (s == CUBLAS_STATUS_ALLOC_FAILED)
        status = AUG_ENOMEM;
    else if (s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_ARCH_MISMATCH)
        status = AUG_EUNSUPPORTED;
    else if (s == CUBLAS_STATUS_NOT_INITIALIZED)
        status = AUG_ENODEV;
    return fail(status, "cuBLAS", call, file, line, cublasGetStatusString(s));
}

int aug_gpu_fail_nccl(ncclResult_t r, const char *call, const char *file, int line) {
    int status = r == ncclInvalidUsage || r == ncclInvalidArgument ? AUG_EUNSUPPORTED : AUG_EIO;
    return fail(status, "NCCL", call, file, line, ncclGetErrorString(r));
}
