/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_buffer.c - growable, pattern-filled device buffers (see gpu_buffer.h).
 *
 * Filling copies one host pattern of CHUNK bytes to the device, then doubles it with
 * device-to-device copies: log2(bytes / CHUNK) copies instead of a host loop. */
#include "gpu_buffer.h"

#include <stdlib.h>

#include "augur/status.h"
#include "check.h"
#include "fill.h"

#define CHUNK ((size_t)4 << 20)

void aug_gpu_buf_init(struct aug_gpu_buf *b, int device) {
    b->ptr = NULL;
    b->bytes = 0;
    b->filled = 0;
    b->device = device;
    b->fill_dtype = -1;
}

void aug_gpu_buf_release(struct aug_gpu_buf *b) {
    if (b->ptr && cudaSetDevice(b->device) == cudaSuccess)
        (void)cudaFree(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
    b->filled = 0;
    b->fill_dtype = -1;
}

static int fill(struct aug_gpu_buf *b, size_t bytes, enum aug_dtype dt) {
    size_t e = aug_prof_elt_bytes(dt);
    size_t first = bytes < CHUNK ? bytes : CHUNK;
    first -= first % e;
    if (first == 0)
        return AUG_OK;
    unsigned char *host = malloc(first);
    if (!host)
        return aug_errorf(AUG_ENOMEM, "out of memory for a %zu-byte input pattern", first);
    int rc = aug_prof_fill(dt, host, first, 0x5eed0000u + (uint64_t)dt);
    if (rc == AUG_OK) {
        cudaError_t ce = cudaMemcpy(b->ptr, host, first, cudaMemcpyHostToDevice);
        if (ce != cudaSuccess)
            rc = aug_gpu_fail_cuda(ce, "cudaMemcpy(pattern)", __FILE__, __LINE__);
    }
    free(host);
    if (rc != AUG_OK)
        return rc;
    unsigned char *d = b->ptr;
    for (size_t done = first; done < bytes;) {
        size_t n = done < bytes - done ? done : bytes - done;
        CUDA_CHECK(cudaMemcpy(d + done, d, n, cudaMemcpyDeviceToDevice));
        done += n;
    }
    b->filled = bytes;
    b->fill_dtype = (int)dt;
    return AUG_OK;
}

int aug_gpu_buf_reserve(struct aug_gpu_buf *b, size_t bytes, int fill_dtype) {
    if (bytes == 0)
        bytes = 256;
    CUDA_CHECK(cudaSetDevice(b->device));
    if (bytes > b->bytes) {
        aug_gpu_buf_release(b);
        CUDA_CHECK(cudaSetDevice(b->device));
        void *p = NULL;
        cudaError_t e = cudaMalloc(&p, bytes);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return aug_errorf(aug_gpu_cuda_status(e), "cannot allocate %.3g GiB on GPU %d: %s",
                              (double)bytes / (1024.0 * 1024.0 * 1024.0), b->device,
                              cudaGetErrorString(e));
        }
        b->ptr = p;
        b->bytes = bytes;
    }
    if (fill_dtype >= 0 && (b->fill_dtype != fill_dtype || b->filled < bytes))
        return fill(b, bytes, (enum aug_dtype)fill_dtype);
    return AUG_OK;
}
