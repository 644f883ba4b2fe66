/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_mpi.h - the MPI layer of the CUDA backend (built only when CMake found MPI).
 *
 * One process per node drives all of its GPUs; MPI carries the NCCL unique id, the
 * writer's decisions (rank 0 writes the files) and the per-repetition times (the slowest
 * process defines a collective's time). Nothing else in the profiler includes mpi.h. */
#ifndef AUG_PROF_GPU_MPI_H
#define AUG_PROF_GPU_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aug_gpu_mpi {
    int rank, size;
    int inited_here;    /* 1: we called MPI_Init, so we call MPI_Finalize */
};

/* Initialize MPI (unless the program already did) and read rank and size. */
int aug_gpu_mpi_init(struct aug_gpu_mpi *m);
void aug_gpu_mpi_finalize(struct aug_gpu_mpi *m);

/* Broadcast `bytes` bytes from rank 0. */
int aug_gpu_mpi_bcast(const struct aug_gpu_mpi *m, void *buf, size_t bytes);
/* Maximum of v over the processes. */
int aug_gpu_mpi_max_int(const struct aug_gpu_mpi *m, int v, int *out);
/* Element-wise maximum of v[0 .. n) over the processes, in place. */
int aug_gpu_mpi_max_doubles(const struct aug_gpu_mpi *m, double *v, int n);

#ifdef __cplusplus
}
#endif
#endif
