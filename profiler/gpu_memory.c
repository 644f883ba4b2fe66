/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_memory.c - memory-bound kernels on the GPU (memory_kernels.cu): copy, elementwise
 * add, RMSNorm, LayerNorm and row softmax, sized from the point's bytes moved
 * (bench_memory.c: copy moves 2x its buffer, add 3x, row kernels 2 x rows x cols). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "backend_cuda.h"
#include "check.h"
#include "fill.h"
#include "gpu_buffer.h"
#include "kernels.h"

enum mem_op { OP_COPY, OP_ADD, OP_RMSNORM, OP_LAYERNORM, OP_SOFTMAX };

struct mem_state {
    struct aug_cuda_ctx *ctx;
    struct aug_gpu_timer *timer;
    cudaStream_t stream;
    struct aug_gpu_buf x, y, z, w, b;
    /* the call being measured */
    enum mem_op op;
    int dtype;
    size_t n;          /* copy: bytes; add: elements */
    long rows, cols;
};

static void teardown(void *state) {
    struct mem_state *s = state;
    if (!s)
        return;
    aug_gpu_buf_release(&s->x);
    aug_gpu_buf_release(&s->y);
    aug_gpu_buf_release(&s->z);
    aug_gpu_buf_release(&s->w);
    aug_gpu_buf_release(&s->b);
    if (s->stream)
        (void)cudaStreamDestroy(s->stream);
    free(s);
}

static int setup(void *ctx, void **state) {
    struct mem_state *s = calloc(1, sizeof *s);
    if (!s)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    *state = s;
    s->ctx = ctx;
    aug_gpu_buf_init(&s->x, 0);
    aug_gpu_buf_init(&s->y, 0);
    aug_gpu_buf_init(&s->z, 0);
    aug_gpu_buf_init(&s->w, 0);
    aug_gpu_buf_init(&s->b, 0);
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    GPU_TRY(aug_cuda_ctx_timer(s->ctx, &s->timer));
    return AUG_OK;
}

static int enqueue(void *arg) {
    struct mem_state *s = arg;
    switch (s->op) {
    case OP_COPY: CUDA_CHECK(aug_k_copy(s->x.ptr, s->y.ptr, s->n, s->stream)); break;
    case OP_ADD:
        CUDA_CHECK(aug_k_add(s->dtype, s->x.ptr, s->y.ptr, s->z.ptr, s->n, s->stream));
        break;
    case OP_RMSNORM:
        CUDA_CHECK(aug_k_rmsnorm(s->dtype, s->x.ptr, s->w.ptr, s->y.ptr, s->rows, s->cols,
                                 s->stream));
        break;
    case OP_LAYERNORM:
        CUDA_CHECK(aug_k_layernorm(s->dtype, s->x.ptr, s->w.ptr, s->b.ptr, s->y.ptr, s->rows,
                                   s->cols, s->stream));
        break;
    case OP_SOFTMAX:
        CUDA_CHECK(aug_k_softmax_rows(s->dtype, s->x.ptr, s->y.ptr, s->rows, s->cols, 1.0f, 0, 1,
                                      0, s->stream));
        break;
    }
    return AUG_OK;
}

static int run(void *state, const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
               struct aug_prof_measure *out) {
    struct mem_state *s = state;
    size_t e = aug_prof_elt_bytes(p->dtype);
    int dt = (int)p->dtype;
    if (p->dtype != AUG_DTYPE_BF16 && p->dtype != AUG_DTYPE_FP16 && p->dtype != AUG_DTYPE_FP32)
        return aug_errorf(AUG_EUNSUPPORTED, "memory kernels are built for bf16, fp16 and fp32");
    s->dtype = dt;
    size_t moved = (size_t)p->size_bytes;
    if (strcmp(p->op, "copy") == 0) {
        s->op = OP_COPY;
        s->n = moved / 2;
        GPU_TRY(aug_gpu_buf_reserve(&s->x, s->n, dt));
        GPU_TRY(aug_gpu_buf_reserve(&s->y, s->n, -1));
    } else if (strcmp(p->op, "elementwise") == 0) {
        s->op = OP_ADD;
        s->n = moved / (3 * e);
        GPU_TRY(aug_gpu_buf_reserve(&s->x, s->n * e, dt));
        GPU_TRY(aug_gpu_buf_reserve(&s->y, s->n * e, dt));
        GPU_TRY(aug_gpu_buf_reserve(&s->z, s->n * e, -1));
    } else {
        if (strcmp(p->op, "rmsnorm") == 0)
            s->op = OP_RMSNORM;
        else if (strcmp(p->op, "layernorm") == 0)
            s->op = OP_LAYERNORM;
        else if (strcmp(p->op, "softmax") == 0)
            s->op = OP_SOFTMAX;
        else
            return aug_errorf(AUG_EUNSUPPORTED, "unknown memory-bound kernel '%s'", p->op);
        if (p->m < 1 || p->n < 1)
            return aug_errorf(AUG_EUNSUPPORTED, "%s needs rows (m) and columns (n)", p->op);
        s->rows = p->m;
        s->cols = p->n;
        size_t bytes = (size_t)p->m * (size_t)p->n * e;
        GPU_TRY(aug_gpu_buf_reserve(&s->x, bytes, dt));
        GPU_TRY(aug_gpu_buf_reserve(&s->y, bytes, -1));
        GPU_TRY(aug_gpu_buf_reserve(&s->w, (size_t)p->n * e, dt));
        GPU_TRY(aug_gpu_buf_reserve(&s->b, (size_t)p->n * e, dt));
    }
    struct aug_gpu_call call;
    memset(&call, 0, sizeof call);
    call.n_dev = 1;
    call.device[0] = 0;
    call.stream[0] = s->stream;
    call.enqueue = enqueue;
    call.arg = s;
    int rc = aug_gpu_timer_measure(s->timer, &call, p, cfg, out);
    snprintf(out->impl, sizeof out->impl, "own_kernels");
    return rc;
}

const struct aug_prof_bench_impl aug_gpu_memory_impl = {setup, run, teardown};
