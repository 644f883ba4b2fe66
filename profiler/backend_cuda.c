/* SPDX-License-Identifier: Apache-2.0 */
/* backend_cuda.c - the CUDA backend's table and its shared context (see backend_cuda.h). */
#include "backend_cuda.h"

#include <stdio.h>
#include <string.h>

#include "augur/status.h"
#include "gpu_device.h"

static int configure(void *ctx, const struct aug_prof_backend_opts *opts) {
    struct aug_cuda_ctx *c = ctx;
    c->opts = *opts;
    if (opts->use_mpi) {
#ifdef AUG_HAVE_MPI
        int rc = aug_gpu_mpi_init(&c->mpi);
        if (rc != AUG_OK)
            return rc;
        c->mpi_on = 1;
#else
        return aug_errorf(AUG_EUSAGE, "--mpi: this augur-profile was built without MPI "
                          "(install an MPI implementation and reconfigure)");
#endif
    }
    return AUG_OK;
}

static int query(void *ctx, struct aug_prof_device *out) {
    struct aug_cuda_ctx *c = ctx;
    int rc = aug_gpu_device_query(c->opts.gpus, out);
    out->nodes = 1;
    out->is_writer = 1;
#ifdef AUG_HAVE_MPI
    if (c->mpi_on) {
        int any_failed = 0;
        int mrc = aug_gpu_mpi_max_int(&c->mpi, rc != AUG_OK, &any_failed);
        if (mrc != AUG_OK)
            return mrc;
        if (any_failed && rc == AUG_OK)
            rc = aug_errorf(AUG_ENODEV, "another MPI process has no usable GPU");
        out->nodes = c->mpi.size;
        out->is_writer = c->mpi.rank == 0;
    }
#endif
    if (rc != AUG_OK)
        return rc;
    c->dev = *out;
    c->queried = 1;
    /* CUPTI activity collection starts before any benchmark creates a CUDA context */
    struct aug_gpu_timer *t = NULL;
    return aug_cuda_ctx_timer(c, &t);
}

static int agree(void *ctx, int value) {
    struct aug_cuda_ctx *c = ctx;
#ifdef AUG_HAVE_MPI
    if (c->mpi_on && aug_gpu_mpi_bcast(&c->mpi, &value, sizeof value) != AUG_OK)
        return 1; /* cannot agree: behave as "skip" / "failed" everywhere */
#else
    (void)c;
#endif
    return value;
}

int aug_cuda_ctx_timer(struct aug_cuda_ctx *c, struct aug_gpu_timer **out) {
    if (!c->timer) {
        int rc = aug_gpu_timer_open(c->opts.timing, &c->timer);
        if (rc != AUG_OK)
            return rc;
    }
    *out = c->timer;
    return AUG_OK;
}

int aug_cuda_ctx_rank(const struct aug_cuda_ctx *c) {
#ifdef AUG_HAVE_MPI
    return c->mpi_on ? c->mpi.rank : 0;
#else
    (void)c;
    return 0;
#endif
}

int aug_cuda_ctx_nodes(const struct aug_cuda_ctx *c) {
#ifdef AUG_HAVE_MPI
    return c->mpi_on ? c->mpi.size : 1;
#else
    (void)c;
    return 1;
#endif
}

void aug_cuda_backend_init(struct aug_cuda_ctx *c, struct aug_prof_backend *be) {
    memset(c, 0, sizeof *c);
    memset(be, 0, sizeof *be);
    aug_gpu_build_versions(c->versions, sizeof c->versions);
    be->name = "cuda";
    be->synthetic = 0;
    be->ctx = c;
    be->configure = configure;
    be->query = query;
    be->agree = agree;
    be->build_versions = c->versions;
    be->impl[AUG_FAMILY_GEMM] = &aug_gpu_gemm_impl;
    be->impl[AUG_FAMILY_COLLECTIVE] = &aug_gpu_nccl_impl;
#ifdef AUG_HAVE_CUDA_KERNELS
    be->impl[AUG_FAMILY_ATTENTION] = &aug_gpu_attention_impl;
    be->impl[AUG_FAMILY_MEMORY] = &aug_gpu_memory_impl;
#else
    be->missing[AUG_FAMILY_ATTENTION] = "its kernels are CUDA source and nvcc was not found "
                                        "when augur was configured";
    be->missing[AUG_FAMILY_MEMORY] = be->missing[AUG_FAMILY_ATTENTION];
#endif
}

void aug_cuda_backend_release(struct aug_cuda_ctx *c) {
    aug_gpu_timer_close(c->timer);
    c->timer = NULL;
#ifdef AUG_HAVE_MPI
    if (c->mpi_on)
        aug_gpu_mpi_finalize(&c->mpi);
    c->mpi_on = 0;
#endif
}
