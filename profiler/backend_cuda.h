/* SPDX-License-Identifier: Apache-2.0 */
/* backend_cuda.h - the real device backend: CUDA, cuBLAS(Lt), our kernels, NCCL, timed
 * with CUPTI (or CUDA events). Internal to augur-profile.
 *
 * The context is shared by every family: options from the command line, the device
 * description, the timer (opened on first use, so a machine without a GPU never touches
 * CUPTI) and, in MPI builds, the process layout. Each family's implementation lives in
 * its own gpu_<family>.c and is one row of the table in backend_cuda.c. */
#ifndef AUG_PROF_BACKEND_CUDA_H
#define AUG_PROF_BACKEND_CUDA_H

#include "backend.h"
#include "gpu_timer.h"
#ifdef AUG_HAVE_MPI
#include "gpu_mpi.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct aug_cuda_ctx {
    struct aug_prof_backend_opts opts;
    struct aug_prof_device dev;
    int queried;
    struct aug_gpu_timer *timer;
    char versions[256];
#ifdef AUG_HAVE_MPI
    struct aug_gpu_mpi mpi;
    int mpi_on;
#endif
};

/* Fill `be` with the CUDA backend over context c (zeroed here). */
void aug_cuda_backend_init(struct aug_cuda_ctx *c, struct aug_prof_backend *be);
/* Release the timer and finish MPI. */
void aug_cuda_backend_release(struct aug_cuda_ctx *c);

/* The timer, opened on first use with the --timing preference. */
int aug_cuda_ctx_timer(struct aug_cuda_ctx *c, struct aug_gpu_timer **out);

/* MPI layout: this process's rank and the number of processes (0 and 1 without MPI). */
int aug_cuda_ctx_rank(const struct aug_cuda_ctx *c);
int aug_cuda_ctx_nodes(const struct aug_cuda_ctx *c);

/* The families. */
extern const struct aug_prof_bench_impl aug_gpu_gemm_impl;
extern const struct aug_prof_bench_impl aug_gpu_nccl_impl;
#ifdef AUG_HAVE_CUDA_KERNELS
extern const struct aug_prof_bench_impl aug_gpu_attention_impl;
extern const struct aug_prof_bench_impl aug_gpu_memory_impl;
#endif

#ifdef __cplusplus
}
#endif
#endif
