/* SPDX-License-Identifier: Apache-2.0 */
/* memory_kernels.cu - our memory-bound kernels: copy, elementwise add, RMSNorm, LayerNorm
 * and row softmax (also the softmax of the unfused attention path, with its causal mask).
 *
 * They are written the way production kernels are: 16-byte vector loads and stores,
 * grid-stride loops for the flat kernels, one 256-thread block per row for the row
 * kernels with fp32 statistics, so their measured bandwidth is what a framework's kernels
 * reach rather than what a naive loop would. */
#include "augur/dtype.h"
#include "kernel_util.cuh"
#include "kernels.h"

namespace {

constexpr int FLAT_THREADS = 256;
constexpr int ROW_THREADS = 256;
constexpr long MAX_BLOCKS = 1L << 20;

unsigned flat_blocks(size_t work) {
    size_t b = (work + FLAT_THREADS - 1) / FLAT_THREADS;
    if (b < 1)
        b = 1;
    return (unsigned)(b > (size_t)MAX_BLOCKS ? MAX_BLOCKS : b);
}

__global__ void copy_vec(const uint4 *__restrict__ x, uint4 *__restrict__ y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i];
}

__global__ void copy_bytes(const unsigned char *__restrict__ x, unsigned char *__restrict__ y,
                           size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i];
}

template <typename T>
__global__ void add_kernel(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ z,
                           size_t n) {
    constexpr int V = aug::vec<T>::n;
    const size_t nv = n / V;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nv; i += stride) {
        float a[V], b[V];
        aug::load_vec<T>(x + i * V, a);
        aug::load_vec<T>(y + i * V, b);
#pragma unroll
        for (int j = 0; j < V; j++)
            a[j] += b[j];
        aug::store_vec<T>(z + i * V, a);
    }
    for (size_t i = nv * V + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        z[i] = aug::from_f<T>(aug::to_f<T>(x[i]) + aug::to_f<T>(y[i]));
}

/* Sum of x (and of x^2) over one row. */
template <typename T>
__device__ __forceinline__ void row_sums(const T *xr, int cols, float *s1, float *s2) {
    constexpr int V = aug::vec<T>::n;
    const int nv = cols / V;
    float a = 0.0f, b = 0.0f;
    for (int i = threadIdx.x; i < nv; i += blockDim.x) {
        float f[V];
        aug::load_vec<T>(xr + (long)i * V, f);
#pragma unroll
        for (int j = 0; j < V; j++) {
            a += f[j];
            b += f[j] * f[j];
        }
    }
    for (int i = nv * V + threadIdx.x; i < cols; i += blockDim.x) {
        float f = aug::to_f<T>(xr[i]);
        a += f;
        b += f * f;
    }
    *s1 = aug::block_reduce(a, false);
    *s2 = aug::block_reduce(b, false);
}

/* y = (x - shift) * mul * w (+ bias) over one row; bias may be NULL. */
template <typename T>
__device__ __forceinline__ void row_affine(const T *xr, const T *w, const T *bias, T *yr, int cols,
                                           float shift, float mul) {
    constexpr int V = aug::vec<T>::n;
    const int nv = cols / V;
    for (int i = threadIdx.x; i < nv; i += blockDim.x) {
        float f[V], g[V], h[V] = {};
        aug::load_vec<T>(xr + (long)i * V, f);
        aug::load_vec<T>(w + (long)i * V, g);
        if (bias)
            aug::load_vec<T>(bias + (long)i * V, h);
#pragma unroll
        for (int j = 0; j < V; j++)
            f[j] = (f[j] - shift) * mul * g[j] + (bias ? h[j] : 0.0f);
        aug::store_vec<T>(yr + (long)i * V, f);
    }
    for (int i = nv * V + threadIdx.x; i < cols; i += blockDim.x) {
        float f = (aug::to_f<T>(xr[i]) - shift) * mul * aug::to_f<T>(w[i]);
        yr[i] = aug::from_f<T>(f + (bias ? aug::to_f<T>(bias[i]) : 0.0f));
    }
}

template <typename T>
__global__ void __launch_bounds__(ROW_THREADS)
    rmsnorm_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int cols) {
    const long row = blockIdx.x;
    const T *xr = x + row * cols;
    float s1, s2;
    row_sums<T>(xr, cols, &s1, &s2);
    const float inv = rsqrtf(s2 / (float)cols + 1e-6f);
    row_affine<T>(xr, w, nullptr, y + row * cols, cols, 0.0f, inv);
}

template <typename T>
__global__ void __launch_bounds__(ROW_THREADS)
    layernorm_kernel(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b,
                     T *__restrict__ y, int cols) {
    const long row = blockIdx.x;
    const T *xr = x + row * cols;
    float s1, s2;
    row_sums<T>(xr, cols, &s1, &s2);
    const float mean = s1 / (float)cols;
    const float var = fmaxf(s2 / (float)cols - mean * mean, 0.0f);
    row_affine<T>(xr, w, b, y + row * cols, cols, mean, rsqrtf(var + 1e-5f));
}

/* x and y may alias: each element is read before it is written, by the same thread. */
template <typename T>
__global__ void __launch_bounds__(ROW_THREADS)
    softmax_kernel(const T *x, T *y, int cols, float scale, int causal, long seq_q, long offset) {
    const long row = blockIdx.x;
    const T *xr = x + row * cols;
    T *yr = y + row * cols;
    int limit = cols;
    if (causal) {
        long lim = row % seq_q + offset + 1;
        limit = lim < 0 ? 0 : (lim < cols ? (int)lim : cols);
    }
    float mx = -INFINITY;
    for (int j = threadIdx.x; j < limit; j += blockDim.x)
        mx = fmaxf(mx, aug::to_f<T>(xr[j]) * scale);
    mx = aug::block_reduce(mx, true);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < limit; j += blockDim.x)
        sum += __expf(aug::to_f<T>(xr[j]) * scale - mx);
    sum = aug::block_reduce(sum, false);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        const float p = j < limit ? __expf(aug::to_f<T>(xr[j]) * scale - mx) * inv : 0.0f;
        yr[j] = aug::from_f<T>(p);
    }
}

bool rows_ok(long rows, long cols) {
    return rows >= 1 && rows <= 2147483647L && cols >= 1 && cols <= 2147483647L;
}

/* 16-byte alignment of every row start, needed by the vector paths. */
template <typename T> bool aligned_rows(const void *p, long cols) {
    return ((size_t)p % 16) == 0 && ((size_t)cols * sizeof(T)) % 16 == 0;
}

template <typename T>
cudaError_t launch_rows_norm(const void *x, const void *w, const void *b, void *y, long rows,
                             long cols, cudaStream_t s) {
    if (!rows_ok(rows, cols) || !aligned_rows<T>(x, cols) || !aligned_rows<T>(y, cols) ||
        !aligned_rows<T>(w, cols) || (b && !aligned_rows<T>(b, cols)))
        return cudaErrorInvalidValue;
    if (b)
        layernorm_kernel<T><<<(unsigned)rows, ROW_THREADS, 0, s>>>(
            static_cast<const T *>(x), static_cast<const T *>(w), static_cast<const T *>(b),
            static_cast<T *>(y), (int)cols);
    else
        rmsnorm_kernel<T><<<(unsigned)rows, ROW_THREADS, 0, s>>>(
            static_cast<const T *>(x), static_cast<const T *>(w), static_cast<T *>(y), (int)cols);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_add(const void *x, const void *y, void *z, size_t n, cudaStream_t s) {
    if ((size_t)x % 16 || (size_t)y % 16 || (size_t)z % 16)
        return cudaErrorInvalidValue;
    add_kernel<T><<<flat_blocks(n / aug::vec<T>::n + 1), FLAT_THREADS, 0, s>>>(
        static_cast<const T *>(x), static_cast<const T *>(y), static_cast<T *>(z), n);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_softmax(const void *x, void *y, long rows, long cols, float scale,
                           int causal, long seq_q, long offset, cudaStream_t s) {
    if (!rows_ok(rows, cols) || (causal && seq_q < 1))
        return cudaErrorInvalidValue;
    softmax_kernel<T><<<(unsigned)rows, ROW_THREADS, 0, s>>>(
        static_cast<const T *>(x), static_cast<T *>(y), (int)cols, scale, causal, seq_q, offset);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t aug_k_copy(const void *x, void *y, size_t bytes, cudaStream_t stream) {
    const size_t nv = ((size_t)x % 16 || (size_t)y % 16) ? 0 : bytes / 16;
    if (nv) {
        copy_vec<<<flat_blocks(nv), FLAT_THREADS, 0, stream>>>(static_cast<const uint4 *>(x),
                                                               static_cast<uint4 *>(y), nv);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    const size_t tail = bytes - nv * 16;
    if (tail)
        copy_bytes<<<flat_blocks(tail), FLAT_THREADS, 0, stream>>>(
            static_cast<const unsigned char *>(x) + nv * 16,
            static_cast<unsigned char *>(y) + nv * 16, tail);
    return cudaGetLastError();
}

extern "C" cudaError_t aug_k_add(int dtype, const void *x, const void *y, void *z, size_t n,
                                 cudaStream_t stream) {
    switch (dtype) {
    case AUG_DTYPE_FP32: return launch_add<float>(x, y, z, n, stream);
    case AUG_DTYPE_FP16: return launch_add<__half>(x, y, z, n, stream);
    case AUG_DTYPE_BF16: return launch_add<__nv_bfloat16>(x, y, z, n, stream);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t aug_k_rmsnorm(int dtype, const void *x, const void *w, void *y, long rows,
                                     long cols, cudaStream_t stream) {
    switch (dtype) {
    case AUG_DTYPE_FP32: return launch_rows_norm<float>(x, w, nullptr, y, rows, cols, stream);
    case AUG_DTYPE_FP16: return launch_rows_norm<__half>(x, w, nullptr, y, rows, cols, stream);
    case AUG_DTYPE_BF16:
        return launch_rows_norm<__nv_bfloat16>(x, w, nullptr, y, rows, cols, stream);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t aug_k_layernorm(int dtype, const void *x, const void *w, const void *b,
                                       void *y, long rows, long cols, cudaStream_t stream) {
    if (!b)
        return cudaErrorInvalidValue;
    switch (dtype) {
    case AUG_DTYPE_FP32: return launch_rows_norm<float>(x, w, b, y, rows, cols, stream);
    case AUG_DTYPE_FP16: return launch_rows_norm<__half>(x, w, b, y, rows, cols, stream);
    case AUG_DTYPE_BF16: return launch_rows_norm<__nv_bfloat16>(x, w, b, y, rows, cols, stream);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t aug_k_softmax_rows(int dtype, const void *x, void *y, long rows, long cols,
                                          float scale, int causal, long seq_q, long offset,
                                          cudaStream_t stream) {
    switch (dtype) {
    case AUG_DTYPE_FP32:
        return launch_softmax<float>(x, y, rows, cols, scale, causal, seq_q, offset, stream);
    case AUG_DTYPE_FP16:
        return launch_softmax<__half>(x, y, rows, cols, scale, causal, seq_q, offset, stream);
    case AUG_DTYPE_BF16:
        return launch_softmax<__nv_bfloat16>(x, y, rows, cols, scale, causal, seq_q, offset,
                                             stream);
    default: return cudaErrorInvalidValue;
    }
}
