/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_gemm.c - GEMM on the GPU: cuBLASLt with the first heuristic choice that runs, cuBLAS
 * (cublasGemmEx) when cuBLASLt offers no algorithm for a non-fp8 shape.
 *
 * The measured product is the row-major C[m x n] = A[m x k] * W^T of a linear layer with
 * weight W[n x k]. In cuBLAS's column-major terms that is D'[n x m] = op(W')[n x k] *
 * X'[k x m] with W' stored k x n and transposed ("TN", the layout fp8 requires), so m, the
 * token count, is cuBLAS's N. Types: fp32 and tf32 (CUBLAS_COMPUTE_32F_FAST_TF32) in fp32;
 * bf16 and fp16 inputs and outputs with fp32 accumulation; fp8 e4m3 inputs with unit
 * scales (A/B scale pointers, as Transformer Engine passes its scale-inverse tensors) and a
 * bf16 output. Op "gemm" runs fp8 with fast accumulation on, as Transformer Engine runs its
 * forward GEMMs (TE 1.x-2.x, pytorch/module/base.py: _2X_ACC_FPROP = False, i.e. no split
 * accumulator in fprop); op "gemm_split_acc" with it off (CUBLASLT_MATMUL_DESC_FAST_ACCUM
 * 0: partial sums promoted to fp32), as its dgrad and wgrad run (_2X_ACC_DGRAD/WGRAD True);
 * the row says fast_accum=1 or 0. The
 * workspace is fixed at 32 MiB for reproducible algorithm choices. Every row records the
 * library and the algorithm the heuristic chose (library_algo column). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/kdb.h"
#include "augur/status.h"
#include "backend_cuda.h"
#include "check.h"
#include "fill.h"
#include "gpu_buffer.h"

#define WORKSPACE_BYTES ((size_t)32 << 20)
/* A heuristic result can still be refused by cublasLtMatmul (CUBLAS_STATUS_NOT_SUPPORTED):
 * the point takes the first of this many results that runs, its row says which
 * (heuristic#i), and the refusals are in the message when none runs. */
#define HEURISTIC_CANDIDATES 8
/* The fp8 A and B scales sit 256 bytes apart, each as aligned as an allocation of its own:
 * with B's scale 4 bytes after A's, cuBLAS 13.1 refused every fp8 algorithm on an H100 and
 * an H200 (CUBLAS_STATUS_NOT_SUPPORTED), and accepted them without scale pointers. */
#define SCALE_STRIDE 64

struct gemm_state {
    struct aug_cuda_ctx *ctx;
    struct aug_gpu_timer *timer;
    cudaStream_t stream;
    cublasLtHandle_t lt;
    cublasHandle_t blas;
    struct aug_gpu_buf a, b, c;
    void *workspace;
    float *scales; /* device: 1.0f at [0] and [SCALE_STRIDE] (fp8 A and B scales) */
    int scale_ptrs;  /* fp8: this point's descriptor carries the A/B scale pointers */
    int fast_accum;  /* fp8: CUBLASLT_MATMUL_DESC_FAST_ACCUM of this point (0: split) */
    /* the point being measured */
    int use_lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulHeuristicResult_t heur[HEURISTIC_CANDIDATES];
    int n_heur, chosen; /* results the heuristic returned; the one that ran (heur[chosen]) */
    long m, n, k;
    cudaDataType_t ab_type, c_type;
    cublasComputeType_t compute;
    float alpha, beta;
};

static void teardown(void *state) {
    struct gemm_state *s = state;
    if (!s)
        return;
    if (s->lt)
        (void)cublasLtDestroy(s->lt);
    if (s->blas)
        (void)cublasDestroy(s->blas);
    if (s->workspace)
        (void)cudaFree(s->workspace);
    if (s->scales)
        (void)cudaFree(s->scales);
    aug_gpu_buf_release(&s->a);
    aug_gpu_buf_release(&s->b);
    aug_gpu_buf_release(&s->c);
    if (s->stream)
        (void)cudaStreamDestroy(s->stream);
    free(s);
}

static int setup_state(struct gemm_state *s) {
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasLtCreate(&s->lt));
    CUBLAS_CHECK(cublasCreate(&s->blas));
    CUBLAS_CHECK(cublasSetStream(s->blas, s->stream));
    CUDA_CHECK(cudaMalloc(&s->workspace, WORKSPACE_BYTES));
    CUBLAS_CHECK(cublasSetWorkspace(s->blas, s->workspace, WORKSPACE_BYTES));
    CUDA_CHECK(cudaMalloc((void **)&s->scales, 2 * SCALE_STRIDE * sizeof(float)));
    const float one = 1.0f;
    CUDA_CHECK(cudaMemcpy(s->scales, &one, sizeof one, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s->scales + SCALE_STRIDE, &one, sizeof one, cudaMemcpyHostToDevice));
    GPU_TRY(aug_cuda_ctx_timer(s->ctx, &s->timer));
    return AUG_OK;
}

static int setup(void *ctx, void **state) {
    struct gemm_state *s = calloc(1, sizeof *s);
    if (!s)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    s->ctx = ctx;
    aug_gpu_buf_init(&s->a, 0);
    aug_gpu_buf_init(&s->b, 0);
    aug_gpu_buf_init(&s->c, 0);
    *state = s;
    return setup_state(s);
}

static int enqueue(void *arg) {
    struct gemm_state *s = arg;
    if (s->use_lt) {
        CUBLAS_CHECK(cublasLtMatmul(s->lt, s->op, &s->alpha, s->a.ptr, s->la, s->b.ptr, s->lb,
                                    &s->beta, s->c.ptr, s->lc, s->c.ptr, s->lc,
                                    &s->heur[s->chosen].algo,
                                    s->workspace, WORKSPACE_BYTES, s->stream));
    } else {
        CUBLAS_CHECK(cublasGemmEx(s->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)s->n, (int)s->m,
                                  (int)s->k, &s->alpha, s->a.ptr, s->ab_type, (int)s->k, s->b.ptr,
                                  s->ab_type, (int)s->k, &s->beta, s->c.ptr, s->c_type, (int)s->n,
                                  s->compute, CUBLAS_GEMM_DEFAULT));
    }
    return AUG_OK;
}

static void destroy_descs(struct gemm_state *s) {
    if (s->op)
        (void)cublasLtMatmulDescDestroy(s->op);
    if (s->la)
        (void)cublasLtMatrixLayoutDestroy(s->la);
    if (s->lb)
        (void)cublasLtMatrixLayoutDestroy(s->lb);
    if (s->lc)
        (void)cublasLtMatrixLayoutDestroy(s->lc);
    s->op = NULL;
    s->la = s->lb = s->lc = NULL;
}

/* Describe the point to cuBLASLt and ask for algorithms: 1 found, 0 none, <0 error. */
static int plan_lt(struct gemm_state *s, int fp8) {
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&s->op, s->compute, CUDA_R_32F));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (fp8) {
        const int8_t fast = (int8_t)(s->fast_accum != 0);
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                                    &fast, sizeof fast));
    }
    if (fp8 && s->scale_ptrs) {
        const float *sa = s->scales, *sb = s->scales + SCALE_STRIDE;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                    &sa, sizeof sa));
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                    &sb, sizeof sb));
    }
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->la, s->ab_type, (uint64_t)s->k, (uint64_t)s->n,
                                            (int64_t)s->k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->lb, s->ab_type, (uint64_t)s->k, (uint64_t)s->m,
                                            (int64_t)s->k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->lc, s->c_type, (uint64_t)s->n, (uint64_t)s->m,
                                            (int64_t)s->n));
    cublasLtMatmulPreference_t pref = NULL;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    size_t ws = WORKSPACE_BYTES;
    cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(s->lt, s->op, s->la, s->lb, s->lc, s->lc, pref,
                                            HEURISTIC_CANDIDATES, s->heur, &found);
    (void)cublasLtMatmulPreferenceDestroy(pref);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED)
        return 0;
    if (st != CUBLAS_STATUS_SUCCESS)
        return aug_gpu_fail_cublas(st, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
    s->n_heur = found < HEURISTIC_CANDIDATES ? found : HEURISTIC_CANDIDATES;
    return s->n_heur > 0;
}

/* Run one untimed call with each heuristic result in rank order and keep the first that
 * cuBLASLt accepts and the device completes: 1 one ran, 0 none did, <0 a device error.
 * The refusals are appended to `why` for the message when none runs. */
static int choose_algo(struct gemm_state *s, char *why, size_t cap) {
    for (s->chosen = 0; s->chosen < s->n_heur; s->chosen++) {
        const cublasLtMatmulHeuristicResult_t *h = &s->heur[s->chosen];
        cublasStatus_t st = h->state;
        if (st == CUBLAS_STATUS_SUCCESS)
            st = cublasLtMatmul(s->lt, s->op, &s->alpha, s->a.ptr, s->la, s->b.ptr, s->lb,
                                &s->beta, s->c.ptr, s->lc, s->c.ptr, s->lc, &h->algo,
                                s->workspace, WORKSPACE_BYTES, s->stream);
        if (st == CUBLAS_STATUS_SUCCESS) {
            CUDA_CHECK(cudaStreamSynchronize(s->stream));
            return 1;
        }
        size_t used = strlen(why);
        snprintf(why + used, cap - used, "%s#%d: %s", used ? ", " : "", s->chosen,
                 cublasGetStatusString(st));
    }
    return 0;
}

/* Describe the point (plan_lt) and keep the first heuristic algorithm that runs
 * (choose_algo): 1 one runs, 0 none, <0 error. */
static int plan_and_choose(struct gemm_state *s, int fp8, char *why, size_t cap) {
    destroy_descs(s);
    int rc = plan_lt(s, fp8);
    return rc == 1 ? choose_algo(s, why, cap) : rc;
}

/* "heuristic#i id=.. tile=.. stages=.. splitk=.. waves=.." of the chosen cuBLASLt
 * algorithm (cublasLtMatmulAlgoConfigGetAttribute), plus fast_accum and scale_ptrs for
 * fp8. */
static void describe_algo(const struct gemm_state *s, int fp8, char *buf, size_t cap) {
    const cublasLtMatmulHeuristicResult_t *h = &s->heur[s->chosen];
    int id = -1, tile = -1, stages = -1, splitk = -1;
    size_t w = 0;
    (void)cublasLtMatmulAlgoConfigGetAttribute(&h->algo, CUBLASLT_ALGO_CONFIG_ID, &id,
                                               sizeof id, &w);
    (void)cublasLtMatmulAlgoConfigGetAttribute(&h->algo, CUBLASLT_ALGO_CONFIG_TILE_ID,
                                               &tile, sizeof tile, &w);
    (void)cublasLtMatmulAlgoConfigGetAttribute(&h->algo, CUBLASLT_ALGO_CONFIG_STAGES_ID,
                                               &stages, sizeof stages, &w);
    (void)cublasLtMatmulAlgoConfigGetAttribute(&h->algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                               &splitk, sizeof splitk, &w);
    char tail[40] = "";
    if (fp8)
        snprintf(tail, sizeof tail, " fast_accum=%d scale_ptrs=%d", s->fast_accum != 0,
                 s->scale_ptrs != 0);
    snprintf(buf, cap, "heuristic#%d id=%d tile=%d stages=%d splitk=%d waves=%.3g%s", s->chosen,
             id, tile, stages, splitk, (double)h->wavesCount, tail);
}

static int run(void *state, const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
               struct aug_prof_measure *out) {
    struct gemm_state *s = state;
    int fp8 = p->dtype == AUG_DTYPE_FP8;
    int split = strcmp(p->op, AUG_GEMM_SPLIT_ACC_OP) == 0;
    if (split && !fp8)
        return aug_errorf(AUG_EUNSUPPORTED, "the split accumulator is an fp8 GEMM mode, not %s",
                          aug_dtype_name(p->dtype));
    s->fast_accum = !split;
    enum aug_dtype out_dt = p->dtype;
    s->m = p->m;
    s->n = p->n;
    s->k = p->k;
    s->alpha = 1.0f;
    s->beta = 0.0f;
    s->compute = CUBLAS_COMPUTE_32F;
    switch (p->dtype) {
    case AUG_DTYPE_FP32: s->ab_type = s->c_type = CUDA_R_32F; break;
    case AUG_DTYPE_TF32:
        s->ab_type = s->c_type = CUDA_R_32F;
        s->compute = CUBLAS_COMPUTE_32F_FAST_TF32;
        break;
    case AUG_DTYPE_BF16: s->ab_type = s->c_type = CUDA_R_16BF; break;
    case AUG_DTYPE_FP16: s->ab_type = s->c_type = CUDA_R_16F; break;
    case AUG_DTYPE_FP8:
        s->ab_type = CUDA_R_8F_E4M3;
        s->c_type = CUDA_R_16BF;
        out_dt = AUG_DTYPE_BF16;
        break;
    default:
        return aug_errorf(AUG_EUNSUPPORTED, "no GEMM for dtype %s", aug_dtype_name(p->dtype));
    }
    if (p->m > 2147483647L || p->n > 2147483647L || p->k > 2147483647L)
        return aug_errorf(AUG_EUNSUPPORTED, "GEMM dimensions beyond 2^31");
    size_t e_in = aug_prof_elt_bytes(p->dtype), e_out = aug_prof_elt_bytes(out_dt);
    GPU_TRY(aug_gpu_buf_reserve(&s->a, (size_t)p->k * (size_t)p->n * e_in, (int)p->dtype));
    GPU_TRY(aug_gpu_buf_reserve(&s->b, (size_t)p->k * (size_t)p->m * e_in, (int)p->dtype));
    GPU_TRY(aug_gpu_buf_reserve(&s->c, (size_t)p->n * (size_t)p->m * e_out, -1));
    /* fp8 first with the scale pointers, then, if no algorithm runs with them, with none
     * (unit scales either way, so the product is the same; the row says which ran) */
    char refused[256] = "";
    s->scale_ptrs = fp8;
    int rc = plan_and_choose(s, fp8, refused, sizeof refused);
    if (rc == 0 && fp8) {
        s->scale_ptrs = 0;
        rc = plan_and_choose(s, fp8, refused, sizeof refused);
    }
    if (rc < 0) {
        destroy_descs(s);
        return rc;
    }
    s->use_lt = rc == 1;
    if (!s->use_lt && fp8) {
        destroy_descs(s);
        return aug_errorf(AUG_EUNSUPPORTED, "cuBLASLt has no fp8 algorithm (fast_accum=%d) for "
                          "m=%ld n=%ld k=%ld%s%s", s->fast_accum, p->m, p->n, p->k,
                          refused[0] ? " that runs: " : "", refused);
    }
    struct aug_gpu_call call;
    memset(&call, 0, sizeof call);
    call.n_dev = 1;
    call.device[0] = 0;
    call.stream[0] = s->stream;
    call.enqueue = enqueue;
    call.arg = s;
    rc = aug_gpu_timer_measure(s->timer, &call, p, cfg, out);
    if (s->use_lt)
        describe_algo(s, fp8, out->algo, sizeof out->algo);
    else
        snprintf(out->algo, sizeof out->algo, "cublasGemmEx CUBLAS_GEMM_DEFAULT (no cuBLASLt "
                 "algorithm)");
    destroy_descs(s);
    snprintf(out->impl, sizeof out->impl, "%s", s->use_lt ? "cublasLt" : "cublas");
    return rc;
}

const struct aug_prof_bench_impl aug_gpu_gemm_impl = {setup, run, teardown};
