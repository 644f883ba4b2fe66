/* SPDX-License-Identifier: Apache-2.0 */
/* backend.h - the device backend interface of the profiler: a struct of function pointers.
 *
 * The sweep driver (harness.c) never calls CUDA. It asks a backend for the device's
 * description and, per kernel family, for an implementation that measures one point at a
 * time. The real backend (backend_cuda.c, built only with the CUDA toolkit) times cuBLAS,
 * our own kernels and NCCL with CUPTI; tests inject a fake one. A family whose
 * implementation is NULL was not built (for example no nvcc for the .cu kernels); the
 * backend says why in `missing`. */
#ifndef AUG_PROF_BACKEND_H
#define AUG_PROF_BACKEND_H

#include "augur/kdb.h"
#include "point.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the provenance header and the grids need to know about the machine. Strings are
 * "" when unknown. */
struct aug_prof_device {
    char name[128];           /* CUDA device name of the GPU that is measured */
    int device_count;         /* GPUs visible to this process */
    int nodes;                /* processes (one per node) in an MPI run; 1 otherwise */
    int cc_major, cc_minor;   /* compute capability */
    int sm_count;
    double sm_clock_mhz;      /* peak SM clock */
    double mem_clock_mhz;     /* peak memory clock */
    int mem_bus_bits;
    double memory_gib;        /* global memory of one GPU */
    char driver[64];          /* kernel driver version, e.g. "580.65.06" */
    char cuda_driver[32];     /* CUDA version the driver supports, e.g. "13.0" */
    char cuda_runtime[32];
    char cublas[32];
    char cupti[32];
    char nccl[32];
    char cudnn[32];           /* cuDNN found at run time ("" none) */
    int cudnn_sdpa;           /* 1: fused attention points time cuDNN's fused SDPA where an
                                 engine takes the shape (a build with cuDNN's headers,
                                 libcudnn >= 9.0 found, sm80+); 0: augur's own kernel */
    int is_writer;            /* 1 on the process that writes files (MPI rank 0) */
};

/* One family's measuring code. */
struct aug_prof_bench_impl {
    /* Create the family's resources (library handles, communicators, streams) for the
     * points that follow. *state is passed to run and teardown. A failure skips the whole
     * family with the recorded message. */
    int (*setup)(void *ctx, void **state);
    /* Measure point p: cfg->warmup untimed calls, then cfg->reps timed calls, filling
     * out->time_us[0 .. reps), out->n, out->timing and out->impl. On failure return a
     * negative status after recording a message (aug_errorf): the point is skipped and no
     * number is written. AUG_ENODEV means the device can no longer be used (a sticky CUDA
     * error): the sweep stops. */
    int (*run)(void *state, const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
               struct aug_prof_measure *out);
    /* Release what setup created (state may be NULL after a failed setup). */
    void (*teardown)(void *state);
};

/* Run-wide choices the command line passes to a backend before it queries the device. */
enum aug_prof_timing_pref {
    AUG_PROF_PREF_AUTO,  /* CUPTI kernel records, CUDA events when CUPTI is unavailable */
    AUG_PROF_PREF_CUPTI, /* CUPTI only: fail when it is unavailable */
    AUG_PROF_PREF_EVENT  /* CUDA events only */
};
struct aug_prof_backend_opts {
    enum aug_prof_timing_pref timing;
    int gpus;           /* local GPUs to use (0: all) */
    int use_mpi;        /* one process per node, collectives across nodes */
};

struct aug_prof_backend {
    const char *name;         /* "cuda", "fake" */
    int synthetic;            /* 1: numbers are not measurements; output is refused
                                 anywhere under a kernels-db/ folder */
    void *ctx;
    /* Optional: apply run-wide options; called once, before query. AUG_EUSAGE when the
     * backend cannot honour them (MPI requested in a build without MPI). */
    int (*configure)(void *ctx, const struct aug_prof_backend_opts *opts);
    /* Describe the device. AUG_ENODEV (with a message) when no usable GPU is present. */
    int (*query)(void *ctx, struct aug_prof_device *out);
    const struct aug_prof_bench_impl *impl[AUG_FAMILY_COUNT];
    const char *missing[AUG_FAMILY_COUNT]; /* why impl[f] is NULL */
    /* Optional (MPI runs): every process returns the value that the writer passed, so all
     * processes take the same branch (skip a point that is already measured). NULL: one
     * process. */
    int (*agree)(void *ctx, int value);
    /* Build-time library versions for --version ("CUDA 13.0, cuBLAS 13.1.0, ..."). */
    const char *build_versions;
};

#ifdef __cplusplus
}
#endif
#endif
