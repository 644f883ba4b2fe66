/* SPDX-License-Identifier: Apache-2.0 */
/* kernel_util.cuh - device helpers shared by our CUDA kernels: element conversions,
 * 16-byte vector loads and stores, and block-wide reductions. */
#ifndef AUG_PROF_KERNEL_UTIL_CUH
#define AUG_PROF_KERNEL_UTIL_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace aug {

template <typename T> __device__ __forceinline__ float to_f(T x);
template <> __device__ __forceinline__ float to_f<float>(float x) { return x; }
template <> __device__ __forceinline__ float to_f<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 x) {
    return __bfloat162float(x);
}

template <typename T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ float from_f<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_f<__half>(float x) { return __float2half(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float x) {
    return __float2bfloat16(x);
}

/* Elements of T in one 16-byte vector. */
template <typename T> struct vec {
    static constexpr int n = 16 / (int)sizeof(T);
};

/* Load 16 bytes (p 16-byte aligned) as floats. */
template <typename T> __device__ __forceinline__ void load_vec(const T *p, float *f) {
    union {
        uint4 u;
        T e[vec<T>::n];
    } v;
    v.u = *reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int i = 0; i < vec<T>::n; i++)
        f[i] = to_f<T>(v.e[i]);
}

/* Store floats as 16 bytes of T (p 16-byte aligned). */
template <typename T> __device__ __forceinline__ void store_vec(T *p, const float *f) {
    union {
        uint4 u;
        T e[vec<T>::n];
    } v;
#pragma unroll
    for (int i = 0; i < vec<T>::n; i++)
        v.e[i] = from_f<T>(f[i]);
    *reinterpret_cast<uint4 *>(p) = v.u;
}

__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}

/* Sum (or max) over the block; every thread gets the result. blockDim.x is a multiple of
 * 32 and at most 1024. Safe to call repeatedly: it synchronizes before reusing `red`. */
__device__ __forceinline__ float block_reduce(float x, bool is_max) {
    __shared__ float red[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = (int)(blockDim.x >> 5);
    x = is_max ? warp_max(x) : warp_sum(x);
    __syncthreads();
    if (lane == 0)
        red[warp] = x;
    __syncthreads();
    float init = is_max ? -INFINITY : 0.0f;
    float y = lane < warps ? red[lane] : init;
    y = is_max ? warp_max(y) : warp_sum(y);
    return y;
}

} // namespace aug

#endif
