/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_attention.c - attention forward on the GPU, three implementations of the same maths:
 *   fused_fwd, fused_decode_fwd
 *                cuDNN's fused flash SDPA (cudnn_sdpa.c: the backend operation graph,
 *                heuristics mode A, the first engine config that finalizes, one execution
 *                plan cached per shape) when libcudnn.so.9 (>= 9.0) is found at run time,
 *                the GPU is sm80 or later and an engine takes the shape; otherwise our
 *                flash-style kernel (attention_kernels.cu), labelled augur_flash_fallback
 *                with the reason in library_algo;
 *   unfused_fwd  S = Q K^T (cublasGemmStridedBatchedEx over batch x heads), the row
 *                softmax with scale and causal mask in place (memory_kernels.cu), then
 *                O = P V (cublasGemmStridedBatchedEx): three launches per measured call.
 * Tensors are [batch, heads, seq, head_dim] packed, bf16 or fp16, fp32 accumulation.
 * cuDNN's prefill / training forward (seq_q = seq_kv) also writes the softmax statistics
 * (fp32, one per query row), as a training forward does; decode does not.
 *
 * Before the first timing of each variant (implementation, dtype, head dimension,
 * causality, prefill or decode shape) the variant is run on a small problem and compared
 * with a double-precision reference on the host; a variant that disagrees is never timed,
 * so a wrong kernel cannot produce numbers. A cuDNN variant that disagrees, or has no
 * engine for the small problem, falls back to our kernel with that reason. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "backend_cuda.h"
#include "check.h"
#include "fill.h"
#include "gpu_buffer.h"
#include "kernels.h"
#include "sdpa_layout.h"
#ifdef AUG_HAVE_CUDNN
#include "cudnn_sdpa.h"
#endif

#define WORKSPACE_BYTES ((size_t)32 << 20)

enum { IMPL_UNFUSED, IMPL_OWN, IMPL_CUDNN, IMPL_COUNT };

#ifdef AUG_HAVE_CUDNN
/* Execution plans by shape; a shape without an engine is kept too, with the reason. */
#define PLAN_CACHE 48
struct plan_entry {
    int used;
    struct aug_cudnn_sdpa_cfg cfg;
    int ok;
    char why[192];
    struct aug_cudnn_sdpa g;
};
#endif

struct attn_state {
    struct aug_cuda_ctx *ctx;
    struct aug_gpu_timer *timer;
    cudaStream_t stream;
    cublasHandle_t blas;
    void *workspace;
    struct aug_gpu_buf q, k, v, o, s;
    /* [impl][fp16][d128][causal][decode]: 1 ok, -1 bad */
    signed char checked[IMPL_COUNT][2][2][2][2];
#ifdef AUG_HAVE_CUDNN
    struct aug_cudnn dnn;
    int dnn_loaded;
    char dnn_error[256];
    cudnnHandle_t dnn_handle;
    struct plan_entry *plans; /* PLAN_CACHE entries */
    int next_plan;
    struct aug_cudnn_sdpa *cur; /* the plan of the call being measured */
    struct aug_gpu_buf stats, dnn_ws;
    char dnn_bad[2][2][2][2][192]; /* why a cuDNN variant fell back after its self-check */
#endif
    int cc_major, cc_minor;
    /* the call being measured */
    int impl;
    int dtype;
    cudaDataType_t ctype;
    long bh, sq, skv, d;
    int causal;
    float scale;
};

static void teardown(void *state) {
    struct attn_state *s = state;
    if (!s)
        return;
#ifdef AUG_HAVE_CUDNN
    for (int i = 0; s->plans && i < PLAN_CACHE; i++)
        if (s->plans[i].used)
            aug_cudnn_sdpa_release(&s->plans[i].g);
    free(s->plans);
    if (s->dnn_handle)
        (void)s->dnn.Destroy(s->dnn_handle);
    if (s->dnn_loaded)
        aug_cudnn_unload(&s->dnn);
    aug_gpu_buf_release(&s->stats);
    aug_gpu_buf_release(&s->dnn_ws);
#endif
    if (s->blas)
        (void)cublasDestroy(s->blas);
    if (s->workspace)
        (void)cudaFree(s->workspace);
    aug_gpu_buf_release(&s->q);
    aug_gpu_buf_release(&s->k);
    aug_gpu_buf_release(&s->v);
    aug_gpu_buf_release(&s->o);
    aug_gpu_buf_release(&s->s);
    if (s->stream)
        (void)cudaStreamDestroy(s->stream);
    free(s);
}

static int setup(void *ctx, void **state) {
    struct attn_state *s = calloc(1, sizeof *s);
    if (!s)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    *state = s;
    s->ctx = ctx;
    aug_gpu_buf_init(&s->q, 0);
    aug_gpu_buf_init(&s->k, 0);
    aug_gpu_buf_init(&s->v, 0);
    aug_gpu_buf_init(&s->o, 0);
    aug_gpu_buf_init(&s->s, 0);
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&s->blas));
    CUBLAS_CHECK(cublasSetStream(s->blas, s->stream));
    CUDA_CHECK(cudaMalloc(&s->workspace, WORKSPACE_BYTES));
    CUBLAS_CHECK(cublasSetWorkspace(s->blas, s->workspace, WORKSPACE_BYTES));
    CUDA_CHECK(cudaDeviceGetAttribute(&s->cc_major, cudaDevAttrComputeCapabilityMajor, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&s->cc_minor, cudaDevAttrComputeCapabilityMinor, 0));
    GPU_TRY(aug_cuda_ctx_timer(s->ctx, &s->timer));
#ifdef AUG_HAVE_CUDNN
    aug_gpu_buf_init(&s->stats, 0);
    aug_gpu_buf_init(&s->dnn_ws, 0);
    s->plans = calloc(PLAN_CACHE, sizeof *s->plans);
    if (!s->plans)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    s->dnn_loaded = aug_cudnn_load(&s->dnn, NULL, s->dnn_error, sizeof s->dnn_error);
    if (s->dnn_loaded) {
        cudnnStatus_t st = s->dnn.Create(&s->dnn_handle);
        if (st == CUDNN_STATUS_SUCCESS)
            st = s->dnn.SetStream(s->dnn_handle, s->stream);
        if (st != CUDNN_STATUS_SUCCESS) {
            aug_cudnn_status_text(&s->dnn, st, "cudnnCreate/cudnnSetStream", s->dnn_error,
                                  sizeof s->dnn_error);
            if (s->dnn_handle)
                (void)s->dnn.Destroy(s->dnn_handle);
            s->dnn_handle = NULL;
            aug_cudnn_unload(&s->dnn);
            s->dnn_loaded = 0;
        }
    }
    if (s->dnn_loaded) {
        char v[32];
        aug_cudnn_version_format(s->dnn.version, v, sizeof v);
        fprintf(stderr, "augur-profile: attention: fused points time cuDNN %s (%s) fused SDPA "
                "where an engine takes the shape\n", v, s->dnn.path);
    } else {
        fprintf(stderr, "augur-profile: attention: cuDNN not used (%s): fused points time "
                "augur's own kernel (augur_flash_fallback)\n", s->dnn_error);
    }
#endif
    return AUG_OK;
}

#ifdef AUG_HAVE_CUDNN
static int same_cfg(const struct aug_cudnn_sdpa_cfg *a, const struct aug_cudnn_sdpa_cfg *b) {
    return a->shape.b == b->shape.b && a->shape.h_q == b->shape.h_q &&
           a->shape.h_kv == b->shape.h_kv && a->shape.s_q == b->shape.s_q &&
           a->shape.s_kv == b->shape.s_kv && a->shape.d == b->shape.d && a->bf16 == b->bf16 &&
           a->causal == b->causal && a->stats == b->stats;
}

/* The plan for cfg: from the cache, or built (and cached, also when no engine takes it). */
static struct plan_entry *get_plan(struct attn_state *s, const struct aug_cudnn_sdpa_cfg *cfg) {
    for (int i = 0; i < PLAN_CACHE; i++)
        if (s->plans[i].used && same_cfg(&s->plans[i].cfg, cfg))
            return &s->plans[i];
    struct plan_entry *e = &s->plans[s->next_plan];
    s->next_plan = (s->next_plan + 1) % PLAN_CACHE;
    if (e->used) {
        if (s->cur == &e->g)
            s->cur = NULL;
        aug_cudnn_sdpa_release(&e->g);
    }
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->cfg = *cfg;
    e->ok = aug_cudnn_sdpa_ops(&s->dnn, cfg, &e->g, e->why, sizeof e->why) &&
            aug_cudnn_sdpa_plan(&e->g, s->dnn_handle, e->why, sizeof e->why);
    const struct aug_sdpa_shape *sh = &cfg->shape;
    if (e->ok)
        fprintf(stderr, "augur-profile: attention: cuDNN plan for b=%ld h=%ld s_q=%ld s_kv=%ld "
                "d=%ld%s: engine %lld (heuristics A, config %d), workspace %lld bytes\n", sh->b,
                sh->h_q, sh->s_q, sh->s_kv, sh->d, cfg->causal ? " causal" : "", e->g.info.engine,
                e->g.info.heur_index, e->g.info.workspace);
    else
        fprintf(stderr, "augur-profile: attention: no cuDNN plan for b=%ld h=%ld s_q=%ld "
                "s_kv=%ld d=%ld%s: %s\n", sh->b, sh->h_q, sh->s_q, sh->s_kv, sh->d,
                cfg->causal ? " causal" : "", e->why);
    if (!e->ok)
        aug_cudnn_sdpa_release(&e->g); /* only the reason is kept */
    return e;
}

static void make_cfg(struct aug_cudnn_sdpa_cfg *c, enum aug_dtype dt, long batch, long heads,
                     long sq, long skv, long d, int causal) {
    memset(c, 0, sizeof *c);
    c->shape.b = batch;
    c->shape.h_q = heads;
    c->shape.h_kv = heads; /* the sweep's points are multi-head; GQA shapes set h_kv < h_q */
    c->shape.s_q = sq;
    c->shape.s_kv = skv;
    c->shape.d = d;
    c->bf16 = dt == AUG_DTYPE_BF16;
    c->causal = causal;
    c->stats = sq >= skv; /* prefill / training forward writes the statistics; decode not */
    c->scale = (float)(1.0 / sqrt((double)d));
}
#endif

static int enqueue(void *arg) {
    struct attn_state *s = arg;
#ifdef AUG_HAVE_CUDNN
    if (s->impl == IMPL_CUDNN) {
        char why[256];
        if (!s->cur || !aug_cudnn_sdpa_execute(s->cur, s->dnn_handle, why, sizeof why))
            return aug_errorf(AUG_EIO, "%s", s->cur ? why : "cuDNN SDPA: no plan");
        return AUG_OK;
    }
#endif
    if (s->impl == IMPL_OWN) {
        CUDA_CHECK(aug_k_flash_fwd(s->dtype, (int)s->d, s->q.ptr, s->k.ptr, s->v.ptr, s->o.ptr,
                                   s->bh, s->sq, s->skv, s->causal, s->scale, s->stream));
        return AUG_OK;
    }
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        s->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)s->skv, (int)s->sq, (int)s->d, &one, s->k.ptr,
        s->ctype, (int)s->d, (long long)s->skv * s->d, s->q.ptr, s->ctype, (int)s->d,
        (long long)s->sq * s->d, &zero, s->s.ptr, s->ctype, (int)s->skv,
        (long long)s->sq * s->skv, (int)s->bh, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(aug_k_softmax_rows(s->dtype, s->s.ptr, s->s.ptr, s->bh * s->sq, s->skv, s->scale,
                                  s->causal, s->sq, s->skv - s->sq, s->stream));
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        s->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)s->d, (int)s->sq, (int)s->skv, &one, s->v.ptr,
        s->ctype, (int)s->d, (long long)s->skv * s->d, s->s.ptr, s->ctype, (int)s->skv,
        (long long)s->sq * s->skv, &zero, s->o.ptr, s->ctype, (int)s->d,
        (long long)s->sq * s->d, (int)s->bh, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return AUG_OK;
}

/* Describe a call and size its buffers; fill = 1 puts the input pattern in Q, K, V. The
 * cuDNN implementation also takes its plan for the shape and binds the buffers to it. */
static int prepare(struct attn_state *s, int impl, enum aug_dtype dt, long batch, long heads,
                   long sq, long skv, long d, int causal, int fill) {
    long bh = batch * heads;
    s->impl = impl;
    s->dtype = (int)dt;
    s->ctype = dt == AUG_DTYPE_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    s->bh = bh;
    s->sq = sq;
    s->skv = skv;
    s->d = d;
    s->causal = causal;
    s->scale = (float)(1.0 / sqrt((double)d));
    if (bh > 2147483647L || sq > 2147483647L || skv > 2147483647L)
        return aug_errorf(AUG_EUNSUPPORTED, "attention sizes beyond 2^31");
    size_t e = aug_prof_elt_bytes(dt);
    int f = fill ? (int)dt : -1;
    GPU_TRY(aug_gpu_buf_reserve(&s->q, (size_t)(bh * sq * d) * e, f));
    GPU_TRY(aug_gpu_buf_reserve(&s->k, (size_t)(bh * skv * d) * e, f));
    GPU_TRY(aug_gpu_buf_reserve(&s->v, (size_t)(bh * skv * d) * e, f));
    GPU_TRY(aug_gpu_buf_reserve(&s->o, (size_t)(bh * sq * d) * e, -1));
    if (impl == IMPL_UNFUSED)
        GPU_TRY(aug_gpu_buf_reserve(&s->s, (size_t)bh * (size_t)sq * (size_t)skv * e, -1));
#ifdef AUG_HAVE_CUDNN
    if (impl == IMPL_CUDNN) {
        struct aug_cudnn_sdpa_cfg cfg;
        make_cfg(&cfg, dt, batch, heads, sq, skv, d, causal);
        struct plan_entry *pe = get_plan(s, &cfg);
        if (!pe->ok)
            return aug_errorf(AUG_EUNSUPPORTED, "cuDNN SDPA has no engine for this shape: %s",
                              pe->why);
        if (cfg.stats)
            GPU_TRY(aug_gpu_buf_reserve(&s->stats, (size_t)bh * (size_t)sq * sizeof(float), -1));
        if (pe->g.info.workspace > 0)
            GPU_TRY(aug_gpu_buf_reserve(&s->dnn_ws, (size_t)pe->g.info.workspace, -1));
        char why[256];
        if (!aug_cudnn_sdpa_bind(&pe->g, s->q.ptr, s->k.ptr, s->v.ptr, s->o.ptr,
                                 cfg.stats ? s->stats.ptr : NULL,
                                 pe->g.info.workspace > 0 ? s->dnn_ws.ptr : NULL, why, sizeof why))
            return aug_errorf(AUG_EIO, "%s", why);
        s->cur = &pe->g;
    }
#endif
    return AUG_OK;
}

/* Double-precision reference of one output row. */
static void reference_row(enum aug_dtype dt, const unsigned char *q, const unsigned char *k,
                          const unsigned char *v, long b, long i, long sq, long skv, long d,
                          int causal, double *out) {
    size_t e = aug_prof_elt_bytes(dt);
    double scale = 1.0 / sqrt((double)d), mx = -INFINITY, sum = 0.0;
    long limit = causal ? i + (skv - sq) + 1 : skv;
    if (limit > skv)
        limit = skv;
    for (long c = 0; c < d; c++)
        out[c] = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        for (long j = 0; j < limit; j++) {
            double dot = 0.0;
            for (long c = 0; c < d; c++)
                dot += (double)aug_prof_decode(dt, q + ((size_t)((b * sq + i) * d + c)) * e) *
                       (double)aug_prof_decode(dt, k + ((size_t)((b * skv + j) * d + c)) * e);
            dot *= scale;
            if (pass == 0) {
                if (dot > mx)
                    mx = dot;
                continue;
            }
            double p = exp(dot - mx);
            sum += p;
            for (long c = 0; c < d; c++)
                out[c] += p * (double)aug_prof_decode(dt, v + ((size_t)((b * skv + j) * d + c)) * e);
        }
    }
    for (long c = 0; c < d; c++)
        out[c] = sum > 0 ? out[c] / sum : 0.0;
}

/* Run variant once on a small problem and compare with the reference. */
static int self_check(struct attn_state *s, int impl, enum aug_dtype dt, long d, int causal,
                      int decode, double *max_err) {
    const long bh = 2, sq = decode ? 3 : 96, skv = decode ? 200 : 96;
    size_t e = aug_prof_elt_bytes(dt);
    size_t nq = (size_t)(bh * sq * d) * e, nk = (size_t)(bh * skv * d) * e;
    unsigned char *hq = malloc(nq), *hk = malloc(nk), *hv = malloc(nk), *ho = malloc(nq);
    double *ref = malloc((size_t)d * sizeof *ref);
    int rc = (!hq || !hk || !hv || !ho || !ref) ? aug_errorf(AUG_ENOMEM, "out of memory") : AUG_OK;
    if (rc == AUG_OK)
        rc = aug_prof_fill(dt, hq, nq, 11);
    if (rc == AUG_OK)
        rc = aug_prof_fill(dt, hk, nk, 12);
    if (rc == AUG_OK)
        rc = aug_prof_fill(dt, hv, nk, 13);
    if (rc == AUG_OK)
        rc = prepare(s, impl, dt, 1, bh, sq, skv, d, causal, 0);
    cudaError_t ce = cudaSuccess;
    if (rc == AUG_OK) {
        s->q.fill_dtype = s->k.fill_dtype = s->v.fill_dtype = -1; /* overwritten below */
        if ((ce = cudaMemcpy(s->q.ptr, hq, nq, cudaMemcpyHostToDevice)) == cudaSuccess &&
            (ce = cudaMemcpy(s->k.ptr, hk, nk, cudaMemcpyHostToDevice)) == cudaSuccess)
            ce = cudaMemcpy(s->v.ptr, hv, nk, cudaMemcpyHostToDevice);
        if (ce != cudaSuccess)
            rc = aug_gpu_fail_cuda(ce, "cudaMemcpy(self-check inputs)", __FILE__, __LINE__);
    }
    if (rc == AUG_OK)
        rc = enqueue(s);
    if (rc == AUG_OK && (ce = cudaStreamSynchronize(s->stream)) != cudaSuccess)
        rc = aug_gpu_fail_cuda(ce, "cudaStreamSynchronize", __FILE__, __LINE__);
    if (rc == AUG_OK && (ce = cudaMemcpy(ho, s->o.ptr, nq, cudaMemcpyDeviceToHost)) != cudaSuccess)
        rc = aug_gpu_fail_cuda(ce, "cudaMemcpy(self-check output)", __FILE__, __LINE__);
    *max_err = 0.0;
    for (long b = 0; rc == AUG_OK && b < bh; b++)
        for (long i = 0; i < sq; i++) {
            reference_row(dt, hq, hk, hv, b, i, sq, skv, d, causal, ref);
            for (long c = 0; c < d; c++) {
                double got = aug_prof_decode(dt, ho + ((size_t)((b * sq + i) * d + c)) * e);
                double err = fabs(got - ref[c]);
                if (!(err <= *max_err)) /* also catches NaN */
                    *max_err = isnan(err) ? INFINITY : err;
            }
        }
    free(hq);
    free(hk);
    free(hv);
    free(ho);
    free(ref);
    return rc;
}

static const char *const impl_names[IMPL_COUNT] = {"unfused_fwd", "augur flash", "cuDNN SDPA"};

/* Self-check implementation impl for the variant of point p once; *bad is 1 when it
 * disagreed with the reference. */
static int check_variant(struct attn_state *s, int impl, const struct aug_prof_point *p,
                         int causal, int decode, int *bad) {
    signed char *ok = &s->checked[impl][p->dtype == AUG_DTYPE_FP16][p->head_dim == 128][causal]
                                 [decode];
    if (*ok == 0) {
        double err = 0.0, tol = p->dtype == AUG_DTYPE_BF16 ? 2e-2 : 1e-2;
        GPU_TRY(self_check(s, impl, p->dtype, p->head_dim, causal, decode, &err));
        *ok = err <= tol ? 1 : -1;
        fprintf(stderr, "augur-profile: attention %s (%s) %s d=%ld%s%s self-check: max error "
                "%.3g (tolerance %.3g): %s\n", p->op, impl_names[impl], aug_dtype_name(p->dtype),
                p->head_dim, causal ? " causal" : "", decode ? " decode" : "", err, tol,
                *ok > 0 ? "ok"
                : impl == IMPL_CUDNN ? "FAILED, augur's kernel is timed instead"
                                     : "FAILED, its points are skipped");
    }
    *bad = *ok < 0;
    return AUG_OK;
}

/* Does fused point p run on cuDNN? 0 with the reason in why when it falls back. */
static int pick_cudnn(struct attn_state *s, const struct aug_prof_point *p, int causal,
                      int decode, char *why, size_t cap) {
    struct aug_attn_probe probe;
    memset(&probe, 0, sizeof probe);
    probe.cc_major = s->cc_major;
    probe.cc_minor = s->cc_minor;
#ifdef AUG_HAVE_CUDNN
    probe.loaded = s->dnn_loaded;
    probe.load_error = s->dnn_error;
    probe.version = s->dnn.version;
    if (probe.loaded && probe.version >= AUG_CUDNN_MIN_VERSION &&
        probe.cc_major >= AUG_CUDNN_MIN_CC_MAJOR) {
        struct aug_cudnn_sdpa_cfg cfg;
        make_cfg(&cfg, p->dtype, p->batch, p->heads, p->seq_q, p->seq_kv, p->head_dim, causal);
        struct plan_entry *pe = get_plan(s, &cfg);
        probe.engine_found = pe->ok;
        probe.engine_error = pe->why;
    }
    if (!aug_attn_choose(&probe, why, cap))
        return 0;
    /* the variant's self-check on a small problem of its own shape */
    char *bad_why = s->dnn_bad[p->dtype == AUG_DTYPE_FP16][p->head_dim == 128][causal][decode];
    int bad = 0, rc = check_variant(s, IMPL_CUDNN, p, causal, decode, &bad);
    if (rc == AUG_ENODEV)
        return rc;
    if (rc != AUG_OK) {
        s->checked[IMPL_CUDNN][p->dtype == AUG_DTYPE_FP16][p->head_dim == 128][causal][decode] = -1;
        snprintf(bad_why, sizeof s->dnn_bad[0][0][0][0], "the self-check could not run (%s)",
                 aug_last_error());
        bad = 1;
    } else if (bad && !bad_why[0]) {
        snprintf(bad_why, sizeof s->dnn_bad[0][0][0][0], "cuDNN's output disagreed with the "
                 "double-precision reference in the self-check");
    }
    if (bad) {
        snprintf(why, cap, "%s", bad_why);
        return 0;
    }
    return 1;
#else
    (void)p;
    (void)causal;
    (void)decode;
    probe.load_error = "augur-profile was built without cuDNN's headers (cudnn_graph.h)";
    return aug_attn_choose(&probe, why, cap);
#endif
}

static int run(void *state, const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
               struct aug_prof_measure *out) {
    struct attn_state *s = state;
    int fused = strcmp(p->op, "fused_fwd") == 0 || strcmp(p->op, AUG_PROF_ATTN_DECODE_OP) == 0;
    if (!fused && strcmp(p->op, "unfused_fwd") != 0)
        return aug_errorf(AUG_EUNSUPPORTED, "unknown attention implementation '%s'", p->op);
    if (p->dtype != AUG_DTYPE_BF16 && p->dtype != AUG_DTYPE_FP16)
        return aug_errorf(AUG_EUNSUPPORTED, "attention is built for bf16 and fp16, not %s",
                          aug_dtype_name(p->dtype));
    if (p->head_dim != 64 && p->head_dim != 128)
        return aug_errorf(AUG_EUNSUPPORTED, "head dimension %ld is not built", p->head_dim);
    int causal = p->causal > 0, decode = p->seq_q < p->seq_kv;
    char why[256] = "";
    int impl = fused ? IMPL_OWN : IMPL_UNFUSED;
    if (fused) {
        int use = pick_cudnn(s, p, causal, decode, why, sizeof why);
        if (use < 0)
            return use; /* the device is lost */
        if (use)
            impl = IMPL_CUDNN;
    }
    int bad = 0;
    GPU_TRY(check_variant(s, impl, p, causal, decode, &bad));
    if (bad)
        return aug_errorf(AUG_EDATA, "the %s kernel failed its self-check for this variant",
                          p->op);
    GPU_TRY(prepare(s, impl, p->dtype, p->batch, p->heads, p->seq_q, p->seq_kv, p->head_dim,
                    causal, 1));
    struct aug_sdpa_plan_info info;
    memset(&info, 0, sizeof info);
#ifdef AUG_HAVE_CUDNN
    if (impl == IMPL_CUDNN)
        info = s->cur->info;
#endif
    struct aug_gpu_call call;
    memset(&call, 0, sizeof call);
    call.n_dev = 1;
    call.device[0] = 0;
    call.stream[0] = s->stream;
    call.enqueue = enqueue;
    call.arg = s;
    int rc = aug_gpu_timer_measure(s->timer, &call, p, cfg, out);
    if (fused) /* cudnn_sdpa with its engine, or augur_flash_fallback with the reason */
        aug_attn_label(impl == IMPL_CUDNN ? &info : NULL, why, out->impl, sizeof out->impl,
                       out->algo, sizeof out->algo);
    else {
        snprintf(out->impl, sizeof out->impl, "cublas_softmax");
        snprintf(out->algo, sizeof out->algo, "cublasGemmStridedBatchedEx QK^T, softmax kernel, "
                 "cublasGemmStridedBatchedEx PV");
    }
    return rc;
}

const struct aug_prof_bench_impl aug_gpu_attention_impl = {setup, run, teardown};
