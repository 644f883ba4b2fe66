/* SPDX-License-Identifier: Apache-2.0 */
/* bench_gpu.h - a GPU row as seen by kernels that share the GPU with others. */
#ifndef AUG_BENCH_GPU_H
#define AUG_BENCH_GPU_H

#include "augur/system.h"

/* `g` with `sms` of its SMs, as a kernel sees it while another kernel (DeepEP's, NCCL's)
 * holds the rest: the tensor-core and FMA rates scale with the SMs; HBM and L2 stay
 * whole. */
static inline struct aug_gpu aug_bench_gpu_with_sms(struct aug_gpu g, int sms)
{
    double f = (double)sms / (double)g.sm_count;
    for (int d = 0; d < AUG_DTYPE_COUNT; d++)
        g.peak_tflops[d] *= f;
    g.vector_tflops *= f;
    g.ach_tflops_bf16 *= f;
    g.ach_tflops_fp8 *= f;
    g.ach_tflops_fp32 *= f;
    g.sm_count = sms;
    return g;
}

#endif
