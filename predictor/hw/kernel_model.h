/* SPDX-License-Identifier: Apache-2.0 */
/* kernel_model.h - structural time of the non-GEMM kernels: memory-bound ops
 * (memop_model.c) and fused attention (attention_model.c). Both use the ceilings of
 * struct aug_gemm_ceiling (gemm_model.h). */
#ifndef AUG_KERNEL_MODEL_H
#define AUG_KERNEL_MODEL_H

#include "hw/gemm_model.h"

/* Default device-side overhead of one memory-bound kernel (us), see memop_model.c. */
#define AUG_MEMOP_OVERHEAD_US 2.0

/* Memory-bound kernel moving `bytes` (read + written): overhead + bytes / bw, with bw the
 * achievable HBM bandwidth, or the datasheet HBM bandwidth when the bytes fit in half the
 * L2 (*in_l2 = 1). */
double aug_memop_model_us(const struct aug_gemm_ceiling *c, double bytes, int *in_l2);

/* Bandwidth share of memory-bound op `mem_op` against an add (1 for adds, copies and
 * activations; below 1 for ops that read their input more than once). */
double aug_memop_op_factor(const char *mem_op);

/* What the attention model chose. */
struct aug_attn_plan {
    double block_q, block_kv; /* query rows and key columns of one tile */
    double ctas;              /* CTAs: batch_heads x query blocks x kv splits */
    double split_kv;          /* key range split over CTAs (flash-decoding), 1: none */
    double waves;             /* ceil(ctas / SMs) */
    double t_compute_us, t_memory_us, t_us;
};

/* FlashAttention forward/backward of batch_heads heads, seq_q queries against seq_kv keys
 * (causal: queries aligned to the end of the keys; window > 0: each query sees at most its
 * last `window` keys, or with `chunked` the keys of its own chunk of `window` tokens up to
 * itself; 0: all), moving `bytes` of HBM (the caller's IO count, GQA included). */
double aug_attention_model_us(const struct aug_gemm_ceiling *c, double batch_heads,
                              double seq_q, double seq_kv, double head_dim, int causal,
                              double window, int chunked, int backward, double bytes,
                              struct aug_attn_plan *plan);

/* How much faster per FLOP an unmasked kernel over seq_kv keys runs than the causal
 * kernels the attention rates describe: 1.13 up to 4096 keys, 1.06 at 16384, 1.03 at
 * 65536 (attention_model.c). */
double aug_attention_full_gain(double seq_kv);

/* What FlashAttention-2 reaches of the main-loop rate this model gives the GPU's native
 * fused kernel (cuDNN, FlashAttention-3): 1 before Hopper (sm_arch < 90, or unknown: 0),
 * below 1 from Hopper on; multiply c->rate_tflops by it (attention_model.c). */
double aug_attention_fa2_factor(const struct aug_gemm_ceiling *c, int sm_arch);

/* The softmax step of one query-key pair in head-dim columns (attention_model.c): the
 * exponential's SFU time against one column's tensor-core time at c's peak and clock, times
 * the share a kernel leaves exposed (mma.sync kernels: A100's FA2 gives e = 16; fitted for
 * Hopper's and Blackwell's native kernels). `kernel` is an enum aug_attn_kernel
 * (plan.h). */
double aug_attention_softmax_cols(const struct aug_gemm_ceiling *c, int sm_arch, int kernel);

/* The main-loop rate at `head_dim` (the kernel's padded width) against head dim 128, with a
 * softmax step of `softmax_cols`: d / (d + e) x (128 + e) / 128 below 128, 1 from 128 on;
 * multiply c->rate_tflops by it (both passes). */
double aug_attention_head_dim_factor(double head_dim, double softmax_cols);

/* The head dim the attention kernel computes on: flash-attn pads a head to the next head
 * dim it was compiled for (fa2: 32, 64, 96, 128, 160, 192, 256; fa3: 64, 96, 128, 192,
 * 256), cuDNN takes the head as it is. `kernel` is an enum aug_attn_kernel (plan.h). */
double aug_attention_kernel_head_dim(int kernel, double head_dim);

/* The mean width the kernel's main loop runs on for a head of mean width `head_dim` whose
 * p.v width is `head_dim_v` (0: the same as q.k's): each of the two widths padded. */
double aug_attention_kernel_width(int kernel, double head_dim, double head_dim_v);

#endif
