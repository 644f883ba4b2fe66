/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_mpi.c - the MPI side of `augur sweep`: every rank sweeps its share of the work
 * units (unit i belongs to rank i mod K), then the top lists and fronts are gathered on
 * rank 0 and merged by the same (time, index) and (memory, time, index) orders as the
 * threads, so the result is the single-process one. Entries are plain structs sent as
 * bytes: ranks must run the same augur build (a homogeneous cluster).
 *
 * Without MPI at build time (AUG_HAVE_MPI unset) the twin path below runs: a process
 * started by a launcher with K > 1 ranks lets rank 0 sweep everything and the others
 * exit quietly, so `mpirun -n K augur sweep` still prints one correct answer. */
#include "sweep_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

#ifdef AUG_HAVE_MPI
#include <mpi.h>
#endif

#ifdef AUG_HAVE_MPI
static int mpi_active; /* MPI_Init was called */
static int world_rank, world_size = 1;
#endif

/* Rank and size as the launcher wrote them in the environment (Open MPI, MPICH/Hydra,
 * PMIx/Slurm); 0 when this process was not started by one. */
static int env_int(const char *const *names, int *out) {
    for (int i = 0; names[i]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*end == '\0' && x >= 0 && x < (1L << 30)) {
                *out = (int)x;
                return 1;
            }
        }
    }
    return 0;
}

static int launched(int *rank, int *size) {
    static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL};
    *rank = 0;
    *size = 1;
    if (!env_int(ranks, rank))
        return 0;
    env_int(sizes, size);
    return 1;
}

int aug_sweep_mpi_available(void) {
#ifdef AUG_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

int aug_sweep_mpi_init(int *argc, char ***argv, int *rank, int *size) {
    int env_rank, env_size;
    *rank = 0;
    *size = 1;
    if (!launched(&env_rank, &env_size))
        return 0;
#ifdef AUG_HAVE_MPI
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "augur: MPI_Init failed\n");
        return 1;
    }
    mpi_active = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    *rank = world_rank;
    *size = world_size;
    return 0;
#else
    (void)argc;
    (void)argv;
    if (env_rank != 0)
        return -1;
    if (env_size > 1) {
        fprintf(stderr, "augur: this augur was built without MPI: rank 0 sweeps the whole "
                        "space, the other %d ranks exit\n", env_size - 1);
    }
    return 0;
#endif
}

int aug_sweep_mpi_status(int status) {
#ifdef AUG_HAVE_MPI
    if (mpi_active && world_size > 1) {
        int worst;
        /* statuses are 0 or negative: the minimum is the first failure kind */
        MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return worst;
    }
#endif
    return status;
}

double aug_sweep_mpi_max(double v) {
#ifdef AUG_HAVE_MPI
    if (mpi_active && world_size > 1) {
        double m;
        MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return m;
    }
#endif
    return v;
}

#ifdef AUG_HAVE_MPI
/* memcpy that accepts an empty (possibly NULL) source. */
static void copy(void *dst, const void *src, size_t bytes) {
    if (bytes)
        memcpy(dst, src, bytes);
}

/* Gather n records of sz bytes from every rank on rank 0: *all holds the other ranks'
 * records (rank 1 first), *n_all their count. */
static int gather_bytes(const void *mine, int n, size_t sz, void **all, int *n_all) {
    *all = NULL;
    *n_all = 0;
    int *counts = NULL, *displs = NULL;
    if (world_rank == 0) {
        counts = calloc((size_t)world_size, sizeof *counts);
        displs = calloc((size_t)world_size, sizeof *displs);
        if (!counts || !displs) {
            free(counts);
            free(displs);
            MPI_Abort(MPI_COMM_WORLD, 1);
            return AUG_ENOMEM;
        }
    }
    int bytes = (int)((size_t)n * sz);
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *buf = NULL;
    if (world_rank == 0) {
        size_t total = 0;
        for (int r = 0; r < world_size; r++) {
            displs[r] = (int)total;
            total += (size_t)counts[r];
        }
        buf = malloc(total ? total : 1);
        if (!buf) {
            free(counts);
            free(displs);
            MPI_Abort(MPI_COMM_WORLD, 1);
            return AUG_ENOMEM;
        }
        *n_all = (int)((total - (size_t)counts[0]) / sz);
    }
    MPI_Gatherv(mine, bytes, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        /* drop rank 0's own records: the caller already holds them */
        memmove(buf, buf + counts[0], (size_t)*n_all * sz);
        *all = buf;
    }
    free(counts);
    free(displs);
    return AUG_OK;
}

static void reduce_counters(uint64_t *c, int n, double *elapsed, int *threads) {
    uint64_t sum[8];
    MPI_Reduce(c, sum, n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    double emax;
    MPI_Reduce(elapsed, &emax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int tsum;
    MPI_Reduce(threads, &tsum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        memcpy(c, sum, (size_t)n * sizeof *c);
        *elapsed = emax;
        *threads = tsum;
    }
}
#endif

#ifdef AUG_HAVE_MPI
/* Every rank's top list and front, concatenated, to rank 0 (records of `size` bytes). */
static int gather_lists(const void *top, int n_top, const void *front, int n_front, size_t size,
                        void **all, int *n_all) {
    int n = n_top + n_front;
    char *mine = malloc((size_t)(n ? n : 1) * size);
    if (!mine)
        MPI_Abort(MPI_COMM_WORLD, 1);
    copy(mine, top, (size_t)n_top * size);
    copy(mine + (size_t)n_top * size, front, (size_t)n_front * size);
    int st = gather_bytes(mine, n, size, all, n_all);
    free(mine);
    return st;
}
#endif

int aug_sweep_mpi_gather(struct aug_sweep_result *r, int top_k) {
#ifdef AUG_HAVE_MPI
    if (!mpi_active || world_size == 1)
        return AUG_OK;
    uint64_t c[3] = {r->plans_evaluated, r->plans_valid, r->plans_timed};
    reduce_counters(c, 3, &r->elapsed_s, &r->threads);
    void *all;
    int n_all, st = gather_lists(r->top, r->n_top, r->pareto, r->n_pareto, sizeof *r->top, &all,
                                 &n_all);
    if (st == AUG_OK && world_rank == 0) {
        r->plans_evaluated = c[0];
        r->plans_valid = c[1];
        r->plans_timed = c[2];
        st = aug_sweep_merge(r, top_k, all, n_all);
    }
    free(all);
    return st;
#else
    (void)r;
    (void)top_k;
    return AUG_OK;
#endif
}

int aug_sweep_mpi_gather_infer(struct aug_sweep_infer_result *r, int top_k) {
#ifdef AUG_HAVE_MPI
    if (!mpi_active || world_size == 1)
        return AUG_OK;
    uint64_t c[4] = {r->plans_evaluated, r->plans_valid, r->plans_timed, r->plans_meeting_target};
    reduce_counters(c, 4, &r->elapsed_s, &r->threads);
    void *all;
    int n_all, st = gather_lists(r->top, r->n_top, r->pareto, r->n_pareto, sizeof *r->top, &all,
                                 &n_all);
    if (st == AUG_OK && world_rank == 0) {
        r->plans_evaluated = c[0];
        r->plans_valid = c[1];
        r->plans_timed = c[2];
        r->plans_meeting_target = c[3];
        st = aug_sweep_infer_merge(r, top_k, all, n_all);
    }
    free(all);
    return st;
#else
    (void)r;
    (void)top_k;
    return AUG_OK;
#endif
}

void aug_sweep_mpi_finalize(void) {
#ifdef AUG_HAVE_MPI
    if (mpi_active)
        MPI_Finalize();
    mpi_active = 0;
#endif
}
