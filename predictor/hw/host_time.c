/* host_time.c - the two time semantics of a kernel: `kernel` (device time, what CUPTI and
 * the profiler give) and `host` (what a user timing one eager framework call with CUDA
 * events or a synchronised wall clock sees).
 *
 * An event pair recorded around one PyTorch call brackets the framework's dispatch on the
 * CPU (Python, dispatcher, allocator, the launch itself) while the GPU waits for the
 * kernel, then the kernel: t_host = t_kernel + h. The per-call overhead h is fitted per
 * op kind on NeuSight's event-timed training split (sitar-lab/NeuSight@6945927,
 * scripts/asplos/data/dataset/train/collect, PyTorch 2.1, five GPUs) by
 * benchmarks/bench_kernels.c: the median over the GPUs of the per-GPU median of
 * t_measured - t_kernel(model) over the kernels shorter than 10 us (where h dominates):
 * GEMM (nn.Linear, bias included; torch.bmm) and memory-bound ops separately. */
#include "hw/host_time.h"

/* benchmarks/kernels.md, "Host overhead": medians of the five GPUs */
#define HOST_GEMM_US 36.0
#define HOST_MEMORY_US 24.0
#define HOST_OTHER_US 24.0

double aug_host_overhead_us(const struct aug_op *op)
{
    if (!op)
        return HOST_OTHER_US;
    switch (op->kind) {
    case AUG_OP_GEMM:
        return HOST_GEMM_US;
    case AUG_OP_MEMORY:
        return HOST_MEMORY_US;
    default:
        return HOST_OTHER_US;
    }
}

double aug_host_time_s(double kernel_s, double host_us)
{
    return kernel_s + (host_us > 0 ? host_us * 1e-6 : 0.0);
}
