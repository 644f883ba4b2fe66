/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_mpi.c - MPI helpers for multi-node collective sweeps (see gpu_mpi.h). */
#include "gpu_mpi.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>

#include "augur/status.h"

static int mpi_fail(int err, const char *call) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error %d", err);
    return aug_errorf(AUG_EIO, "%s: MPI: %s", call, msg);
}

#define MPI_CHECK(call)                                                                      \
    do {                                                                                     \
        int aug_m_ = (call);                                                                 \
        if (aug_m_ != MPI_SUCCESS)                                                           \
            return mpi_fail(aug_m_, #call);                                                  \
    } while (0)

int aug_gpu_mpi_init(struct aug_gpu_mpi *m) {
    int done = 0;
    m->inited_here = 0;
    MPI_CHECK(MPI_Initialized(&done));
    if (!done) {
        MPI_CHECK(MPI_Init(NULL, NULL));
        m->inited_here = 1;
    }
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &m->rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &m->size));
    return AUG_OK;
}

void aug_gpu_mpi_finalize(struct aug_gpu_mpi *m) {
    int fin = 0;
    if (m->inited_here && MPI_Finalized(&fin) == MPI_SUCCESS && !fin)
        MPI_Finalize();
    m->inited_here = 0;
}

int aug_gpu_mpi_bcast(const struct aug_gpu_mpi *m, void *buf, size_t bytes) {
    (void)m;
    if (bytes > INT_MAX)
        return aug_errorf(AUG_EUNSUPPORTED, "broadcast of %zu bytes is too large", bytes);
    MPI_CHECK(MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
    return AUG_OK;
}

int aug_gpu_mpi_max_int(const struct aug_gpu_mpi *m, int v, int *out) {
    (void)m;
    MPI_CHECK(MPI_Allreduce(&v, out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return AUG_OK;
}

int aug_gpu_mpi_max_doubles(const struct aug_gpu_mpi *m, double *v, int n) {
    (void)m;
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return AUG_OK;
}
