/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_mpi.h - splitting a sweep over MPI ranks (mpirun -n K augur sweep ...) and
 * gathering the top plans and the front on rank 0. The only place that sees mpi.h is
 * sweep_mpi.c; without MPI at build time the same calls run one process. */
#ifndef AUG_SWEEP_MPI_H
#define AUG_SWEEP_MPI_H

#include "augur/sweep.h"

/* Start MPI when this process was launched by an MPI launcher (its environment says so);
 * *rank and *size are 0 and 1 otherwise. Returns 0, or an exit code after printing. */
int aug_sweep_mpi_init(int *argc, char ***argv, int *rank, int *size);

/* Did this build find MPI? */
int aug_sweep_mpi_available(void);

/* Agree on a status across ranks (the worst one); returns it on every rank. */
int aug_sweep_mpi_status(int status);

/* Gather every rank's top list and front into rank 0's result (counters summed, elapsed
 * and threads taken from the slowest / summed). Collective: every rank calls it. */
int aug_sweep_mpi_gather(struct aug_sweep_result *r, int top_k);
int aug_sweep_mpi_gather_infer(struct aug_sweep_infer_result *r, int top_k);

/* Wall time agreed across ranks (the maximum). */
double aug_sweep_mpi_max(double v);

void aug_sweep_mpi_finalize(void);

#endif
