/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_nccl.c - NCCL collectives on the GPUs: one process drives all local GPUs.
 *
 * On one node, the group of g ranks is the first g local GPUs with communicators from
 * ncclCommInitAll (created on first use of each g and kept). Under --mpi every process
 * drives its local GPUs and the communicator spans all of them (ncclCommInitRank with the
 * unique id broadcast by MPI; global rank = process * local GPUs + local index). One
 * measured call is one ncclGroupStart/End over all local ranks, so CUPTI sees every
 * rank's kernel in one external range and the time is the slowest rank's; under MPI the
 * processes then take the maximum over nodes. All-to-all is grouped ncclSend/ncclRecv to
 * every peer (as in nccl-tests); send/recv sends to the next rank of a ring and receives
 * from the previous one. A failing call aborts that group's communicators, which are
 * recreated for the next point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/collective.h"
#include "augur/status.h"
#include "backend_cuda.h"
#include "check.h"
#include "fill.h"
#include "gpu_buffer.h"

#define MAX_GROUPS 16
#define MAX_DEV AUG_GPU_MAX_DEVICES

struct comm_group {
    int ranks;                   /* communicator size */
    int n_local;                 /* local members: local GPUs 0 .. n_local-1 */
    ncclComm_t comm[MAX_DEV];
};

struct nccl_state {
    struct aug_cuda_ctx *ctx;
    struct aug_gpu_timer *timer;
    int n_local, nodes, rank;
    cudaStream_t stream[MAX_DEV];
    struct aug_gpu_buf send[MAX_DEV], recv[MAX_DEV];
    struct comm_group groups[MAX_GROUPS];
    int n_groups;
    /* the point being measured */
    struct comm_group *g;
    enum aug_coll coll;
    ncclDataType_t dt;
    size_t count;                /* elements per call argument, see enqueue */
    size_t elt;
};

static void destroy_group(struct comm_group *g, int abort_) {
    for (int i = 0; i < g->n_local; i++)
        if (g->comm[i]) {
            if (abort_)
                (void)ncclCommAbort(g->comm[i]);
            else
                (void)ncclCommDestroy(g->comm[i]);
            g->comm[i] = NULL;
        }
    g->ranks = 0;
    g->n_local = 0;
}

static void teardown(void *state) {
    struct nccl_state *s = state;
    if (!s)
        return;
    for (int i = 0; i < s->n_groups; i++)
        destroy_group(&s->groups[i], 0);
    for (int d = 0; d < s->n_local; d++) {
        aug_gpu_buf_release(&s->send[d]);
        aug_gpu_buf_release(&s->recv[d]);
        if (s->stream[d] && cudaSetDevice(d) == cudaSuccess)
            (void)cudaStreamDestroy(s->stream[d]);
    }
    free(s);
}

static int setup(void *ctx, void **state) {
    struct aug_cuda_ctx *c = ctx;
    struct nccl_state *s = calloc(1, sizeof *s);
    if (!s)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    *state = s;
    s->ctx = c;
    s->n_local = c->dev.device_count;
    s->nodes = aug_cuda_ctx_nodes(c);
    s->rank = aug_cuda_ctx_rank(c);
    if (s->n_local > MAX_DEV)
        s->n_local = MAX_DEV;
    if (s->n_local * s->nodes < 2)
        return aug_errorf(AUG_EUNSUPPORTED, "collectives need at least 2 GPUs; %d visible",
                          s->n_local);
    for (int d = 0; d < s->n_local; d++) {
        aug_gpu_buf_init(&s->send[d], d);
        aug_gpu_buf_init(&s->recv[d], d);
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream[d], cudaStreamNonBlocking));
    }
    GPU_TRY(aug_cuda_ctx_timer(c, &s->timer));
    return AUG_OK;
}

static int create_group(struct nccl_state *s, struct comm_group *g, int ranks) {
    memset(g, 0, sizeof *g);
    if (s->nodes == 1) {
        int devs[MAX_DEV];
        for (int i = 0; i < ranks; i++)
            devs[i] = i;
        NCCL_CHECK(ncclCommInitAll(g->comm, ranks, devs));
        g->n_local = ranks;
        g->ranks = ranks;
        return AUG_OK;
    }
#ifdef AUG_HAVE_MPI
    ncclUniqueId id;
    if (s->rank == 0)
        NCCL_CHECK(ncclGetUniqueId(&id));
    GPU_TRY(aug_gpu_mpi_bcast(&s->ctx->mpi, &id, sizeof id));
    NCCL_CHECK(ncclGroupStart());
    ncclResult_t first = ncclSuccess;
    for (int i = 0; i < s->n_local; i++) {
        CUDA_CHECK(cudaSetDevice(i));
        ncclResult_t r = ncclCommInitRank(&g->comm[i], ranks, id, s->rank * s->n_local + i);
        if (r != ncclSuccess && first == ncclSuccess)
            first = r;
    }
    ncclResult_t end = ncclGroupEnd();
    NCCL_CHECK(first);
    NCCL_CHECK(end);
    g->n_local = s->n_local;
    g->ranks = ranks;
    return AUG_OK;
#else
    return aug_errorf(AUG_EUNSUPPORTED, "multi-node collectives need an MPI build");
#endif
}

static int get_group(struct nccl_state *s, int ranks, struct comm_group **out) {
    for (int i = 0; i < s->n_groups; i++)
        if (s->groups[i].ranks == ranks) {
            *out = &s->groups[i];
            return AUG_OK;
        }
    int world = s->n_local * s->nodes;
    if (s->nodes > 1 ? ranks != world : (ranks < 2 || ranks > s->n_local))
        return aug_errorf(AUG_EUNSUPPORTED, "a group of %d ranks cannot be formed here (%d GPUs "
                          "per node, %d node%s)", ranks, s->n_local, s->nodes,
                          s->nodes == 1 ? "" : "s");
    int slot = 0;
    while (slot < s->n_groups && s->groups[slot].ranks != 0)
        slot++;
    if (slot == MAX_GROUPS)
        return aug_errorf(AUG_EUNSUPPORTED, "too many communicator sizes");
    GPU_TRY(create_group(s, &s->groups[slot], ranks));
    if (slot == s->n_groups)
        s->n_groups++;
    *out = &s->groups[slot];
    return AUG_OK;
}

/* One collective over all local ranks of the group; ncclGroupEnd always runs. */
static int enqueue(void *arg) {
    struct nccl_state *s = arg;
    struct comm_group *g = s->g;
    int n = g->ranks;
    ncclResult_t first = ncclGroupStart();
    if (first != ncclSuccess)
        return aug_gpu_fail_nccl(first, "ncclGroupStart()", __FILE__, __LINE__);
    for (int i = 0; i < g->n_local && first == ncclSuccess; i++) {
        int rank = s->rank * s->n_local + i;
        ncclComm_t c = g->comm[i];
        cudaStream_t st = s->stream[i];
        const char *sb = s->send[i].ptr;
        char *rb = s->recv[i].ptr;
        size_t chunk = s->count * s->elt;
        switch (s->coll) {
        case AUG_COLL_ALL_REDUCE:
            first = ncclAllReduce(sb, rb, s->count, s->dt, ncclSum, c, st);
            break;
        case AUG_COLL_ALL_GATHER:
            first = ncclAllGather(sb, rb, s->count, s->dt, c, st);
            break;
        case AUG_COLL_REDUCE_SCATTER:
            first = ncclReduceScatter(sb, rb, s->count, s->dt, ncclSum, c, st);
            break;
        case AUG_COLL_ALL_TO_ALL:
            for (int peer = 0; peer < n && first == ncclSuccess; peer++) {
                first = ncclSend(sb + (size_t)peer * chunk, s->count, s->dt, peer, c, st);
                if (first == ncclSuccess)
                    first = ncclRecv(rb + (size_t)peer * chunk, s->count, s->dt, peer, c, st);
            }
            break;
        case AUG_COLL_SEND_RECV:
            first = ncclSend(sb, s->count, s->dt, (rank + 1) % n, c, st);
            if (first == ncclSuccess)
                first = ncclRecv(rb, s->count, s->dt, (rank - 1 + n) % n, c, st);
            break;
        default:
            first = ncclInvalidArgument;
            break;
        }
    }
    ncclResult_t end = ncclGroupEnd();
    if (first != ncclSuccess)
        return aug_gpu_fail_nccl(first, aug_coll_name(s->coll), __FILE__, __LINE__);
    if (end != ncclSuccess)
        return aug_gpu_fail_nccl(end, "ncclGroupEnd()", __FILE__, __LINE__);
    return AUG_OK;
}

static int nccl_type(enum aug_dtype d, ncclDataType_t *out) {
    switch (d) {
    case AUG_DTYPE_FP32: *out = ncclFloat32; return AUG_OK;
    case AUG_DTYPE_FP16: *out = ncclFloat16; return AUG_OK;
    case AUG_DTYPE_BF16: *out = ncclBfloat16; return AUG_OK;
    case AUG_DTYPE_FP8: *out = ncclFloat8e4m3; return AUG_OK;
    default:
        return aug_errorf(AUG_EUNSUPPORTED, "NCCL has no %s type", aug_dtype_name(d));
    }
}

/* Buffers and element counts of point p (sizes per nccl-tests, collective.h). */
static int prepare(struct nccl_state *s, const struct aug_prof_point *p) {
    int n = p->ranks;
    size_t S = (size_t)p->size_bytes, e = aug_prof_elt_bytes(p->dtype);
    size_t send_b = S, recv_b = S;
    switch (s->coll) {
    case AUG_COLL_ALL_REDUCE:
    case AUG_COLL_SEND_RECV: s->count = S / e; break;
    case AUG_COLL_ALL_GATHER:
        s->count = S / ((size_t)n * e);
        send_b = S / (size_t)n;
        break;
    case AUG_COLL_REDUCE_SCATTER:
        s->count = S / ((size_t)n * e);
        recv_b = S / (size_t)n;
        break;
    case AUG_COLL_ALL_TO_ALL: s->count = S / ((size_t)n * e); break;
    default: return aug_errorf(AUG_EUNSUPPORTED, "collective '%s' is not measured", p->op);
    }
    if (s->count == 0)
        return aug_errorf(AUG_EUNSUPPORTED, "%.0f bytes is less than one element per rank",
                          p->size_bytes);
    s->elt = e;
    for (int i = 0; i < s->g->n_local; i++) {
        GPU_TRY(aug_gpu_buf_reserve(&s->send[i], send_b, (int)p->dtype));
        GPU_TRY(aug_gpu_buf_reserve(&s->recv[i], recv_b, -1));
    }
    return AUG_OK;
}

static int check_async(struct nccl_state *s) {
    for (int i = 0; i < s->g->n_local; i++) {
        ncclResult_t a = ncclSuccess;
        NCCL_CHECK(ncclCommGetAsyncError(s->g->comm[i], &a));
        NCCL_CHECK(a);
    }
    return AUG_OK;
}

static int run_local(struct nccl_state *s, const struct aug_prof_point *p,
                     const struct aug_prof_run_cfg *cfg, struct aug_prof_measure *out) {
    if (aug_coll_from_name(p->op, &s->coll) != AUG_OK)
        return aug_errorf(AUG_EUNSUPPORTED, "unknown collective '%s'", p->op);
    GPU_TRY(nccl_type(p->dtype, &s->dt));
    GPU_TRY(get_group(s, p->ranks, &s->g));
    GPU_TRY(prepare(s, p));
    struct aug_gpu_call call;
    memset(&call, 0, sizeof call);
    call.n_dev = s->g->n_local;
    for (int i = 0; i < call.n_dev; i++) {
        call.device[i] = i;
        call.stream[i] = s->stream[i];
    }
    call.enqueue = enqueue;
    call.arg = s;
    /* Across processes every rank must issue the same calls, or a collective waits
     * forever: no decisions from local times (warm-up by time, noise, budget); the
     * counts alone, as nccl-tests runs its -w warm-up and -n iterations. */
    struct aug_prof_run_cfg fixed = *cfg;
    if (s->nodes > 1) {
        fixed.max_reps = fixed.reps;
        fixed.warmup_s = 0;
        fixed.max_noise = 0;
        fixed.budget_s = 0;
    }
    int rc = aug_gpu_timer_measure(s->timer, &call, p, &fixed, out);
    if (rc == AUG_OK)
        rc = check_async(s);
    if (rc != AUG_OK && rc != AUG_ENODEV && s->g) {
        /* the communicator may be unusable after a failure: rebuild it next time */
        destroy_group(s->g, 1);
        s->g = NULL;
    }
    return rc;
}

static int run(void *state, const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
               struct aug_prof_measure *out) {
    struct nccl_state *s = state;
    int rc = run_local(s, p, cfg, out);
    snprintf(out->impl, sizeof out->impl, "nccl");
    snprintf(out->algo, sizeof out->algo, "%s", p->algo[0] ? p->algo : "nccl default choice");
#ifdef AUG_HAVE_MPI
    if (s->nodes > 1) {
        int any = 0;
        GPU_TRY(aug_gpu_mpi_max_int(&s->ctx->mpi, rc != AUG_OK, &any));
        if (rc == AUG_OK && any)
            return aug_errorf(AUG_EIO, "the collective failed on another node");
        if (rc == AUG_OK)
            GPU_TRY(aug_gpu_mpi_max_doubles(&s->ctx->mpi, out->time_us, out->n));
    }
#endif
    return rc;
}

const struct aug_prof_bench_impl aug_gpu_nccl_impl = {setup, run, teardown};
