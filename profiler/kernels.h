/* SPDX-License-Identifier: Apache-2.0 */
/* kernels.h - launchers of our own CUDA kernels (attention_kernels.cu, memory_kernels.cu),
 * callable from the C backend. Every launcher enqueues on `stream`, does not synchronize,
 * and returns the launch's cudaError_t. dtype is an enum aug_dtype (bf16, fp16 or fp32
 * where noted). Tensors are contiguous. */
#ifndef AUG_PROF_KERNELS_H
#define AUG_PROF_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fused attention forward, flash style: O = softmax(scale * Q K^T + mask) V per
 * (batch, head), tiled over keys with an online softmax, the scores never written to
 * memory. Q, O: [bh, seq_q, head_dim]; K, V: [bh, seq_kv, head_dim]; bf16 or fp16;
 * head_dim 64 or 128. causal: query i sees keys j <= i + (seq_kv - seq_q). */
cudaError_t aug_k_flash_fwd(int dtype, int head_dim, const void *q, const void *k,
                            const void *v, void *o, long bh, long seq_q, long seq_kv,
                            int causal, float scale, cudaStream_t stream);

/* Row softmax of x[rows, cols] into y (may equal x) after multiplying by `scale`, with
 * the causal mask of attention when causal != 0 (row r is query r % seq_q; columns
 * j > r % seq_q + offset are masked). bf16, fp16 or fp32. */
cudaError_t aug_k_softmax_rows(int dtype, const void *x, void *y, long rows, long cols,
                               float scale, int causal, long seq_q, long offset,
                               cudaStream_t stream);

/* y = x, `bytes` bytes. */
cudaError_t aug_k_copy(const void *x, void *y, size_t bytes, cudaStream_t stream);
/* z = x + y over n elements (bf16, fp16, fp32). */
cudaError_t aug_k_add(int dtype, const void *x, const void *y, void *z, size_t n,
                      cudaStream_t stream);
/* RMSNorm over rows of x[rows, cols] with weight w[cols]: y = x / rms(x) * w. */
cudaError_t aug_k_rmsnorm(int dtype, const void *x, const void *w, void *y, long rows,
                          long cols, cudaStream_t stream);
/* LayerNorm: y = (x - mean) / std * w + b. */
cudaError_t aug_k_layernorm(int dtype, const void *x, const void *w, const void *b, void *y,
                            long rows, long cols, cudaStream_t stream);

/* Bytes of dynamic shared memory the flash kernel needs for head_dim and dtype size. */
size_t aug_k_flash_smem_bytes(int head_dim);

#ifdef __cplusplus
}
#endif
#endif
