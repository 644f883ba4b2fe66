/* SPDX-License-Identifier: Apache-2.0 */
/* memop_model.c - time of a memory-bound kernel (norm, activation, softmax, add, copy)
 * from its bytes:
 *
 *   t = overhead + bytes / bw,   bw = achievable HBM bandwidth     (working set > L2 / 2)
 *                                bw = datasheet HBM bandwidth      (working set <= L2 / 2)
 *
 * A working set that fits in L2 was just written by the kernel before it, so part of its
 * traffic never reaches HBM and the kernel runs faster than a STREAM copy; the predictor
 * keeps every time at or above bytes / (datasheet HBM bandwidth) (the physics bound of
 * op.c), so the L2 case is credited up to that bound and not beyond. The step at L2 / 2 is
 * upward in bytes: the time is non-decreasing in the size.
 *
 * overhead 2 us: grid launch and the tail of one short kernel on the device; Vidur's A100
 * and H100 sweeps of norms, adds and activations level off at 1-4 us for the smallest
 * sizes (kernels-db/<gpu>/curves.csv, intercepts of the memory rows). */
#include "hw/kernel_model.h"

#include <string.h>

double aug_memop_model_us(const struct aug_gemm_ceiling *c, double bytes, int *in_l2)
{
    if (in_l2)
        *in_l2 = 0;
    if (!c || !(c->hbm_gbps > 0) || !(bytes >= 0))
        return 0.0;
    double bw = c->hbm_gbps;
    if (bytes <= 0.5 * c->l2_bytes && c->peak_hbm_gbps > bw) {
        bw = c->peak_hbm_gbps;
        if (in_l2)
            *in_l2 = 1;
    }
    return AUG_MEMOP_OVERHEAD_US + bytes / (bw * 1e9) * 1e6;
}

/* Share of the streaming bandwidth a memory-bound op reaches with the byte count of
 * kernels-db/README.md (one read and one write per tensor), against an add: fitted on
 * NeuSight's five GPUs (benchmarks/kernels.md, "within a GPU"): softmax reaches 0.76 and
 * layer norm 0.65 of the add's bandwidth on the same GPU (medians over A100, V100, T4,
 * P100, P4: both read their input twice, for the row max / sum or the mean / variance). */
double aug_memop_op_factor(const char *mem_op)
{
    if (!mem_op)
        return 1.0;
    if (strcmp(mem_op, "softmax") == 0)
        return 0.76;
    if (strcmp(mem_op, "norm") == 0 || strcmp(mem_op, "layernorm") == 0 ||
        strcmp(mem_op, "rmsnorm") == 0)
        return 0.65;
    return 1.0;
}
