/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_buffer.h - device buffers that grow on demand and hold finite input data.
 *
 * Benches keep one buffer per operand and reserve the size each point needs: the buffer
 * is reallocated only when it must grow, and (re)filled only when it grows or the dtype
 * changes, so a sweep does not pay cudaMalloc and initialization on every point. An
 * out-of-memory on growth frees the buffer and returns AUG_ENOMEM (the point is skipped,
 * the next one starts clean). */
#ifndef AUG_PROF_GPU_BUFFER_H
#define AUG_PROF_GPU_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "augur/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_gpu_buf {
    void *ptr;
    size_t bytes;       /* allocated */
    size_t filled;      /* bytes holding the pattern of `fill_dtype` */
    int device;
    int fill_dtype;     /* enum aug_dtype of the data, -1 when not filled */
};

/* An empty buffer on CUDA device `device`. */
void aug_gpu_buf_init(struct aug_gpu_buf *b, int device);

/* At least `bytes` bytes. With fill >= 0 (an enum aug_dtype) the first `bytes` bytes hold
 * finite values of that dtype (aug_prof_fill pattern); with fill < 0 the content is left
 * as is (outputs). */
int aug_gpu_buf_reserve(struct aug_gpu_buf *b, size_t bytes, int fill);

void aug_gpu_buf_release(struct aug_gpu_buf *b);

#ifdef __cplusplus
}
#endif
#endif
