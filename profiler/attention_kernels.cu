/* SPDX-License-Identifier: Apache-2.0 */
/* attention_kernels.cu - our fused attention forward kernel, flash style (FlashAttention,
 * Dao et al. 2022, forward pass with the FA-2 loop order).
 *
 * One thread block of 4 warps owns BM = 64 query rows of one (batch, head); it walks the
 * keys in tiles of BN = 64. Per tile: S = Q K^T on tensor cores (WMMA 16x16x16, fp32
 * accumulate) into shared memory; each warp updates the running max m and sum l of its 16
 * rows (online softmax, base-2 exponentials with the scale folded in), writes P = exp(S -
 * m) in the input type and rescales its rows of the fp32 output accumulator; then the same
 * shared buffer receives the V tile and O += P V on tensor cores. The seq_q x seq_kv
 * scores never reach global memory. A causal mask aligns the queries to the end of the
 * keys (query i sees keys j <= i + seq_kv - seq_q) and skips key tiles beyond the
 * diagonal. Shared memory: Q, one K/V tile, S (fp32), P, O (fp32), m and l:
 * 56.5 KiB at head_dim 64, 88.5 KiB at 128 (opted in with cudaFuncSetAttribute). */
#include <mma.h>

#include "augur/dtype.h"
#include "kernel_util.cuh"
#include "kernels.h"

namespace {

using namespace nvcuda;

constexpr int BM = 64;
constexpr int BN = 64;
constexpr int WARPS = 4;
constexpr int THREADS = WARPS * 32;
static_assert(BM == WARPS * 16, "each warp owns 16 query rows");
static_assert(BM == BN, "one tile loader serves Q, K and V");

size_t smem_bytes(int d) {
    return (size_t)BM * d * 2 + (size_t)BN * d * 2 + (size_t)BM * BN * 4 + (size_t)BM * BN * 2 +
           (size_t)BM * d * 4 + 2 * (size_t)BM * 4;
}

/* rows [row0, row0 + 64) of a [nrows, D] tensor into a dense 64 x D tile, zero padded. */
template <typename T, int D>
__device__ __forceinline__ void load_tile(T *dst, const T *src, long row0, long nrows) {
    constexpr int V = aug::vec<T>::n;
    constexpr int PER_ROW = D / V;
    for (int i = threadIdx.x; i < BM * PER_ROW; i += THREADS) {
        int r = i / PER_ROW, c = (i % PER_ROW) * V;
        uint4 v = make_uint4(0u, 0u, 0u, 0u);
        if (row0 + r < nrows)
            v = *reinterpret_cast<const uint4 *>(src + (row0 + r) * D + c);
        *reinterpret_cast<uint4 *>(dst + r * D + c) = v;
    }
}

template <typename T, int D>
__global__ void __launch_bounds__(THREADS)
    flash_fwd(const T *__restrict__ q, const T *__restrict__ k, const T *__restrict__ v,
              T *__restrict__ o, long seq_q, long seq_kv, float scale_log2, int causal) {
    extern __shared__ __align__(128) unsigned char smem[];
    T *s_q = reinterpret_cast<T *>(smem);
    T *s_kv = s_q + BM * D;
    float *s_s = reinterpret_cast<float *>(s_kv + BN * D);
    T *s_p = reinterpret_cast<T *>(s_s + BM * BN);
    float *s_o = reinterpret_cast<float *>(s_p + BM * BN);
    float *s_m = s_o + BM * D;
    float *s_l = s_m + BM;

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long bh = blockIdx.y;
    const long q0 = (long)blockIdx.x * BM;
    const long offset = seq_kv - seq_q;
    const T *qb = q + bh * seq_q * D;
    const T *kb = k + bh * seq_kv * D;
    const T *vb = v + bh * seq_kv * D;
    T *ob = o + bh * seq_q * D;

    load_tile<T, D>(s_q, qb, q0, seq_q);
    for (int i = threadIdx.x; i < BM * D; i += THREADS)
        s_o[i] = 0.0f;
    for (int i = threadIdx.x; i < BM; i += THREADS) {
        s_m[i] = -INFINITY;
        s_l[i] = 0.0f;
    }
    long kv_end = seq_kv;
    if (causal) {
        long lim = q0 + BM + offset; /* one past the last key the last row may see */
        kv_end = lim < 0 ? 0 : (lim < seq_kv ? lim : seq_kv);
    }
    __syncthreads();

    for (long kv0 = 0; kv0 < kv_end; kv0 += BN) {
        load_tile<T, D>(s_kv, kb, kv0, seq_kv);
        __syncthreads();
        /* S[warp rows, 0..BN) = Q K^T */
        {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[BN / 16];
#pragma unroll
            for (int j = 0; j < BN / 16; j++)
                wmma::fill_fragment(acc[j], 0.0f);
#pragma unroll
            for (int kk = 0; kk < D; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
                wmma::load_matrix_sync(a, s_q + warp * 16 * D + kk, D);
#pragma unroll
                for (int j = 0; j < BN / 16; j++) {
                    /* K^T as a column-major D x BN matrix: element (kk + r, 16 j + c) is
                     * s_kv[(16 j + c) * D + kk + r] */
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
                    wmma::load_matrix_sync(b, s_kv + j * 16 * D + kk, D);
                    wmma::mma_sync(acc[j], a, b, acc[j]);
                }
            }
#pragma unroll
            for (int j = 0; j < BN / 16; j++)
                wmma::store_matrix_sync(s_s + warp * 16 * BN + j * 16, acc[j], BN,
                                        wmma::mem_row_major);
        }
        __syncwarp();
        /* online softmax of this warp's 16 rows; lane handles columns lane and lane + 32 */
        for (int r = 0; r < 16; r++) {
            const int row = warp * 16 + r;
            const long qi = q0 + row;
            float val[2], mx = -INFINITY;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int c = lane + 32 * h;
                const long kj = kv0 + c;
                const bool ok = kj < seq_kv && (!causal || kj <= qi + offset);
                val[h] = ok ? s_s[row * BN + c] * scale_log2 : -INFINITY;
                mx = fmaxf(mx, val[h]);
            }
            mx = aug::warp_max(mx);
            const float m_old = s_m[row];
            const float m_new = fmaxf(m_old, mx);
            float sum = 0.0f;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const float p = m_new == -INFINITY ? 0.0f : exp2f(val[h] - m_new);
                s_p[row * BN + lane + 32 * h] = aug::from_f<T>(p);
                sum += p;
            }
            sum = aug::warp_sum(sum);
            const float alpha = m_old == -INFINITY ? 0.0f : exp2f(m_old - m_new);
            for (int c = lane; c < D; c += 32)
                s_o[row * D + c] *= alpha;
            __syncwarp();
            if (lane == 0) {
                s_l[row] = s_l[row] * alpha + sum;
                s_m[row] = m_new;
            }
        }
        __syncthreads(); /* every warp is done with the K tile */
        load_tile<T, D>(s_kv, vb, kv0, seq_kv);
        __syncthreads();
        /* O[warp rows] += P V */
#pragma unroll
        for (int c = 0; c < D / 16; c++) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::load_matrix_sync(acc, s_o + warp * 16 * D + c * 16, D, wmma::mem_row_major);
#pragma unroll
            for (int kk = 0; kk < BN; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
                wmma::load_matrix_sync(a, s_p + warp * 16 * BN + kk, BN);
                wmma::load_matrix_sync(b, s_kv + kk * D + c * 16, D);
                wmma::mma_sync(acc, a, b, acc);
            }
            wmma::store_matrix_sync(s_o + warp * 16 * D + c * 16, acc, D, wmma::mem_row_major);
        }
        __syncthreads(); /* before the next K tile overwrites s_kv */
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BM * D; i += THREADS) {
        const int row = i / D, c = i % D;
        const long qi = q0 + row;
        if (qi < seq_q) {
            const float l = s_l[row];
            ob[qi * D + c] = aug::from_f<T>(l > 0.0f ? s_o[i] / l : 0.0f);
        }
    }
}

template <typename T, int D>
cudaError_t launch(const void *q, const void *k, const void *v, void *o, long bh, long seq_q,
                   long seq_kv, int causal, float scale, cudaStream_t stream) {
    const size_t smem = smem_bytes(D);
    cudaError_t e = cudaFuncSetAttribute(flash_fwd<T, D>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess)
        return e;
    const long blocks_x = (seq_q + BM - 1) / BM;
    if (bh < 1 || bh > 65535 || blocks_x < 1 || blocks_x > 2147483647L || seq_kv < 1)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)blocks_x, (unsigned)bh);
    const float scale_log2 = scale * 1.4426950408889634f;
    flash_fwd<T, D><<<grid, THREADS, smem, stream>>>(
        static_cast<const T *>(q), static_cast<const T *>(k), static_cast<const T *>(v),
        static_cast<T *>(o), seq_q, seq_kv, scale_log2, causal);
    return cudaGetLastError();
}

} // namespace

extern "C" size_t aug_k_flash_smem_bytes(int head_dim) {
    return smem_bytes(head_dim);
}

extern "C" cudaError_t aug_k_flash_fwd(int dtype, int head_dim, const void *q, const void *k,
                                       const void *v, void *o, long bh, long seq_q, long seq_kv,
                                       int causal, float scale, cudaStream_t stream) {
    if (dtype == AUG_DTYPE_BF16 && head_dim == 64)
        return launch<__nv_bfloat16, 64>(q, k, v, o, bh, seq_q, seq_kv, causal, scale, stream);
    if (dtype == AUG_DTYPE_BF16 && head_dim == 128)
        return launch<__nv_bfloat16, 128>(q, k, v, o, bh, seq_q, seq_kv, causal, scale, stream);
    if (dtype == AUG_DTYPE_FP16 && head_dim == 64)
        return launch<__half, 64>(q, k, v, o, bh, seq_q, seq_kv, causal, scale, stream);
    if (dtype == AUG_DTYPE_FP16 && head_dim == 128)
        return launch<__half, 128>(q, k, v, o, bh, seq_q, seq_kv, causal, scale, stream);
    return cudaErrorInvalidValue;
}
