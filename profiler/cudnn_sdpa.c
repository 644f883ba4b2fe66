/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_sdpa.c - see cudnn_sdpa.h. */
#include "cudnn_sdpa.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "augur/status.h"

/* cudnn_graph.h (9.19) marks the handle attributes of the operation graph and of the
 * execution plan deprecated in favour of CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR, which older
 * 9.x releases lack; every 9.x release accepts these, with these values (unchanged since
 * 8.0), so the profiler keeps working with the cuDNN a node has. */
#define ATTR_OPERATIONGRAPH_HANDLE ((cudnnBackendAttributeName_t)800)
#define ATTR_EXECUTION_PLAN_HANDLE ((cudnnBackendAttributeName_t)400)

/* The first virtual tensor id; the bound tensors use the AUG_SDPA_UID_* ids below it. */
#define VIRTUAL_UID0 100

#define CHECK(call, what)                                                                    \
    do {                                                                                     \
        cudnnStatus_t st_ = (call);                                                          \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                   \
            aug_cudnn_status_text(g->api, st_, what, why, cap);                              \
            return 0;                                                                        \
        }                                                                                    \
    } while (0)

#define SET(d, name, type, n, ptr) CHECK(g->api->BackendSetAttribute(d, name, type, n, ptr), \
                                         "cudnnBackendSetAttribute(" #name ")")

static int create(struct aug_cudnn_sdpa *g, cudnnBackendDescriptorType_t type,
                  cudnnBackendDescriptor_t *out, char *why, size_t cap) {
    if (g->n_desc >= AUG_SDPA_MAX_DESC) {
        snprintf(why, cap, "SDPA graph: more than %d descriptors", AUG_SDPA_MAX_DESC);
        return 0;
    }
    *out = NULL;
    CHECK(g->api->BackendCreateDescriptor(type, out), "cudnnBackendCreateDescriptor");
    g->desc[g->n_desc++] = *out;
    return 1;
}

static int finalize(struct aug_cudnn_sdpa *g, cudnnBackendDescriptor_t d, const char *what,
                    char *why, size_t cap) {
    CHECK(g->api->BackendFinalize(d), what);
    return 1;
}

/* A tensor of the graph: dims and strides from sdpa_layout (scalars {1,1,1,1}). */
static int tensor(struct aug_cudnn_sdpa *g, int64_t uid, cudnnDataType_t dt,
                  const struct aug_sdpa_dims *t, int is_virtual, int by_value,
                  cudnnBackendDescriptor_t *out, char *why, size_t cap) {
    static const struct aug_sdpa_dims scalar = {{1, 1, 1, 1}, {1, 1, 1, 1}};
    const struct aug_sdpa_dims *s = t ? t : &scalar;
    int64_t align = 16;
    bool virt = is_virtual != 0, byval = by_value != 0;
    if (!create(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, out, why, cap))
        return 0;
    SET(*out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    SET(*out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, s->dim);
    SET(*out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, s->stride);
    SET(*out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(*out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    SET(*out, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt);
    if (byval)
        SET(*out, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byval);
    return finalize(g, *out, "cudnnBackendFinalize(tensor)", why, cap);
}

static int push_op(struct aug_cudnn_sdpa *g, cudnnBackendDescriptor_t op, char *why, size_t cap) {
    if (g->n_ops >= AUG_SDPA_MAX_OPS) {
        snprintf(why, cap, "SDPA graph: more than %d operations", AUG_SDPA_MAX_OPS);
        return 0;
    }
    g->ops[g->n_ops++] = op;
    return 1;
}

/* y = mode(x[, b[, t]]) at math precision prec; axis >= 0 for GEN_INDEX. */
static int pointwise(struct aug_cudnn_sdpa *g, cudnnPointwiseMode_t mode, cudnnDataType_t prec,
                     int64_t axis, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                     cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y, char *why,
                     size_t cap) {
    cudnnBackendDescriptor_t pw, op;
    if (!create(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw, why, cap))
        return 0;
    SET(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    SET(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
    if (axis >= 0)
        SET(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    if (!finalize(g, pw, "cudnnBackendFinalize(pointwise)", why, cap) ||
        !create(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op, why, cap))
        return 0;
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    if (b)
        SET(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    if (t)
        SET(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    return finalize(g, op, "cudnnBackendFinalize(pointwise operation)", why, cap) &&
           push_op(g, op, why, cap);
}

static int reduction(struct aug_cudnn_sdpa *g, cudnnReduceTensorOp_t mode,
                     cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y, char *why,
                     size_t cap) {
    cudnnBackendDescriptor_t rd, op;
    cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    if (!create(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &rd, why, cap))
        return 0;
    SET(rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode);
    SET(rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
    if (!finalize(g, rd, "cudnnBackendFinalize(reduction)", why, cap) ||
        !create(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, &op, why, cap))
        return 0;
    SET(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd);
    SET(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    SET(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    return finalize(g, op, "cudnnBackendFinalize(reduction operation)", why, cap) &&
           push_op(g, op, why, cap);
}

static int matmul(struct aug_cudnn_sdpa *g, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                  cudnnBackendDescriptor_t c, char *why, size_t cap) {
    cudnnBackendDescriptor_t mm, op;
    cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    if (!create(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm, why, cap))
        return 0;
    SET(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
    if (!finalize(g, mm, "cudnnBackendFinalize(matmul)", why, cap) ||
        !create(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &op, why, cap))
        return 0;
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
    SET(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
    return finalize(g, op, "cudnnBackendFinalize(matmul operation)", why, cap) &&
           push_op(g, op, why, cap);
}

int aug_cudnn_sdpa_ops(const struct aug_cudnn *api, const struct aug_cudnn_sdpa_cfg *cfg,
                       struct aug_cudnn_sdpa *g, char *why, size_t cap) {
    memset(g, 0, sizeof *g);
    g->api = api;
    g->cfg = *cfg;
    struct aug_sdpa_layout l;
    if (aug_sdpa_layout(&cfg->shape, &l) != 0) {
        snprintf(why, cap, "%s", aug_last_error());
        return 0;
    }
    const cudnnDataType_t io = cfg->bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF,
                          f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32,
                          boolean = CUDNN_DATA_BOOLEAN;
    g->scale = cfg->scale;
    /* utils/attn_score_modifiers.h get_negative_inf_value: the float lowest before 9.10 */
    g->neg_inf = api->version < 91000 ? -FLT_MAX : -INFINITY;
    g->s_kv = (int32_t)cfg->shape.s_kv;
    g->s_q = (int32_t)cfg->shape.s_q;
    if (cfg->shape.s_kv > INT32_MAX || cfg->shape.s_q > INT32_MAX) {
        snprintf(why, cap, "sequence lengths beyond 2^31");
        return 0;
    }
    int64_t vuid = VIRTUAL_UID0;
    cudnnBackendDescriptor_t q, kt, v, o, stats, scale, s1, s2, s, m, z, e, sum, lg, p;
#define T(uid, dt, dims, virt, byval, out)                                                   \
    if (!tensor(g, uid, dt, dims, virt, byval, out, why, cap))                               \
    return 0
    T(AUG_SDPA_UID_Q, io, &l.q, 0, 0, &q);
    T(AUG_SDPA_UID_K, io, &l.kt, 0, 0, &kt);
    T(AUG_SDPA_UID_V, io, &l.v, 0, 0, &v);
    T(AUG_SDPA_UID_O, io, &l.o, 0, 0, &o);
    T(AUG_SDPA_UID_STATS, f32, &l.row, !cfg->stats, 0, &stats);
    T(AUG_SDPA_UID_SCALE, f32, NULL, 0, 1, &scale);
    /* bmm1 and the scale */
    T(vuid++, f32, &l.s, 1, 0, &s1);
    if (!matmul(g, q, kt, s1, why, cap))
        return 0;
    T(vuid++, f32, &l.s, 1, 0, &s2);
    if (!pointwise(g, CUDNN_POINTWISE_MUL, f32, -1, s1, scale, NULL, s2, why, cap))
        return 0;
    s = s2;
    if (cfg->causal) {
        /* node/diagonal_band_mask.h, right bound 0: keep row (+ s_kv - s_q) >= col */
        cudnnBackendDescriptor_t row, col, mask, ninf, masked;
        T(vuid++, i32, &l.s, 1, 0, &row);
        if (!pointwise(g, CUDNN_POINTWISE_GEN_INDEX, f32, 2, s2, NULL, NULL, row, why, cap))
            return 0;
        T(vuid++, i32, &l.s, 1, 0, &col);
        if (!pointwise(g, CUDNN_POINTWISE_GEN_INDEX, f32, 3, s2, NULL, NULL, col, why, cap))
            return 0;
        if (cfg->shape.s_q != cfg->shape.s_kv) {
            cudnnBackendDescriptor_t skv, sq, r1, r2;
            T(AUG_SDPA_UID_SKV, i32, NULL, 0, 1, &skv);
            T(AUG_SDPA_UID_SQ, i32, NULL, 0, 1, &sq);
            T(vuid++, i32, &l.s, 1, 0, &r1);
            if (!pointwise(g, CUDNN_POINTWISE_ADD, i32, 3, row, skv, NULL, r1, why, cap))
                return 0;
            T(vuid++, i32, &l.s, 1, 0, &r2);
            if (!pointwise(g, CUDNN_POINTWISE_SUB, i32, 3, r1, sq, NULL, r2, why, cap))
                return 0;
            row = r2;
        }
        T(vuid++, boolean, &l.s, 1, 0, &mask);
        if (!pointwise(g, CUDNN_POINTWISE_CMP_GE, boolean, -1, row, col, NULL, mask, why, cap))
            return 0;
        T(AUG_SDPA_UID_NEG_INF, f32, NULL, 0, 1, &ninf);
        T(vuid++, f32, &l.s, 1, 0, &masked);
        if (!pointwise(g, CUDNN_POINTWISE_BINARY_SELECT, f32, -1, s2, ninf, mask, masked, why,
                       cap))
            return 0;
        s = masked;
    }
    /* node/softmax.h CompositeSoftmaxNode: max, sub, exp, sum, log + add (stats), div */
    T(vuid++, f32, &l.row, 1, 0, &m);
    if (!reduction(g, CUDNN_REDUCE_TENSOR_MAX, s, m, why, cap))
        return 0;
    T(vuid++, f32, &l.s, 1, 0, &z);
    if (!pointwise(g, CUDNN_POINTWISE_SUB, f32, -1, s, m, NULL, z, why, cap))
        return 0;
    T(vuid++, f32, &l.s, 1, 0, &e);
    if (!pointwise(g, CUDNN_POINTWISE_EXP, f32, -1, z, NULL, NULL, e, why, cap))
        return 0;
    T(vuid++, f32, &l.row, 1, 0, &sum);
    if (!reduction(g, CUDNN_REDUCE_TENSOR_ADD, e, sum, why, cap))
        return 0;
    T(vuid++, f32, &l.row, 1, 0, &lg);
    if (!pointwise(g, CUDNN_POINTWISE_LOG, f32, -1, sum, NULL, NULL, lg, why, cap) ||
        !pointwise(g, CUDNN_POINTWISE_ADD, f32, -1, m, lg, NULL, stats, why, cap))
        return 0;
    /* P in the I/O type: "Requirement by cudnn backend to take in bmm2 aType as i/o type" */
    T(vuid++, io, &l.s, 1, 0, &p);
    if (!pointwise(g, CUDNN_POINTWISE_DIV, f32, -1, e, sum, NULL, p, why, cap))
        return 0;
#undef T
    return matmul(g, p, v, o, why, cap);
}

/* The engine id and knob choices of a finalized engine config, for the row. */
static int describe(struct aug_cudnn_sdpa *g, cudnnBackendDescriptor_t cfg, char *why, size_t cap) {
    cudnnBackendDescriptor_t engine, knobs[AUG_SDPA_MAX_KNOBS];
    int64_t n = 0;
    if (!create(g, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine, why, cap))
        return 0;
    CHECK(g->api->BackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine),
          "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINECFG_ENGINE)");
    int64_t idx = -1;
    CHECK(g->api->BackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64,
                                      1, &n, &idx),
          "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINE_GLOBAL_INDEX)");
    g->info.engine = (long long)idx;
    for (int i = 0; i < AUG_SDPA_MAX_KNOBS; i++)
        if (!create(g, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &knobs[i], why, cap))
            return 0;
    n = 0;
    CHECK(g->api->BackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, AUG_SDPA_MAX_KNOBS, &n,
                                      knobs),
          "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES)");
    g->info.n_knobs = 0;
    for (int64_t i = 0; i < n && i < AUG_SDPA_MAX_KNOBS; i++) {
        cudnnBackendKnobType_t type;
        int64_t value = 0, got = 0;
        CHECK(g->api->BackendGetAttribute(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                          CUDNN_TYPE_KNOB_TYPE, 1, &got, &type),
              "cudnnBackendGetAttribute(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)");
        CHECK(g->api->BackendGetAttribute(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
                                          CUDNN_TYPE_INT64, 1, &got, &value),
              "cudnnBackendGetAttribute(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)");
        g->info.knob_type[g->info.n_knobs] = (int)type;
        g->info.knob_value[g->info.n_knobs++] = (long long)value;
    }
    return 1;
}

int aug_cudnn_sdpa_plan(struct aug_cudnn_sdpa *g, cudnnHandle_t handle, char *why, size_t cap) {
    cudnnBackendDescriptor_t graph, heur;
    if (!create(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph, why, cap))
        return 0;
    SET(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g->n_ops, g->ops);
    SET(graph, ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    if (!finalize(g, graph, "cudnnBackendFinalize(operation graph)", why, cap) ||
        !create(g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur, why, cap))
        return 0;
    cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    if (!finalize(g, heur, "cudnnBackendFinalize(heuristics mode A)", why, cap))
        return 0;
    int64_t count = 0;
    CHECK(g->api->BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL),
          "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS count)");
    if (count <= 0) {
        snprintf(why, cap, "heuristics mode A returned no engine config");
        return 0;
    }
    /* the first few configs are what a library user gets; the rest are slower fallbacks */
    enum { MAX_CFG = 8 };
    cudnnBackendDescriptor_t cfgs[MAX_CFG];
    int64_t want = count < MAX_CFG ? count : MAX_CFG, got = 0;
    for (int64_t i = 0; i < want; i++)
        if (!create(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i], why, cap))
            return 0;
    CHECK(g->api->BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, want, &got, cfgs),
          "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS)");
    char last[160] = "";
    for (int64_t i = 0; i < got && i < want; i++) {
        cudnnBackendDescriptor_t plan;
        if (!create(g, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan, why, cap))
            return 0;
        SET(plan, ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &cfgs[i]);
        cudnnStatus_t st = g->api->BackendFinalize(plan);
        if (st != CUDNN_STATUS_SUCCESS) {
            aug_cudnn_status_text(g->api, st, "cudnnBackendFinalize(execution plan)", last,
                                  sizeof last);
            continue;
        }
        int64_t ws = 0, n = 0;
        CHECK(g->api->BackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                          CUDNN_TYPE_INT64, 1, &n, &ws),
              "cudnnBackendGetAttribute(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)");
        if (!describe(g, cfgs[i], why, cap))
            return 0;
        g->plan = plan;
        g->info.version = g->api->version;
        g->info.workspace = (long long)ws;
        g->info.stats = g->cfg.stats;
        g->info.heur_index = (int)i;
        return 1;
    }
    snprintf(why, cap, "none of %lld engine configs finalized (%s)", (long long)got,
             last[0] ? last : "no config returned");
    return 0;
}

int aug_cudnn_sdpa_bind(struct aug_cudnn_sdpa *g, void *q, void *k, void *v, void *o,
                        void *stats, void *workspace, char *why, size_t cap) {
    if (!g->plan) {
        snprintf(why, cap, "SDPA: no execution plan to bind");
        return 0;
    }
    if (g->cfg.stats && !stats) {
        snprintf(why, cap, "SDPA: the statistics tensor is written but has no buffer");
        return 0;
    }
    int64_t uids[9];
    void *ptrs[9];
    int n = 0;
#define BIND(uid, ptr) (uids[n] = (uid), ptrs[n++] = (ptr))
    BIND(AUG_SDPA_UID_Q, q);
    BIND(AUG_SDPA_UID_K, k);
    BIND(AUG_SDPA_UID_V, v);
    BIND(AUG_SDPA_UID_O, o);
    BIND(AUG_SDPA_UID_SCALE, &g->scale);
    if (g->cfg.stats)
        BIND(AUG_SDPA_UID_STATS, stats);
    if (g->cfg.causal) {
        BIND(AUG_SDPA_UID_NEG_INF, &g->neg_inf);
        if (g->cfg.shape.s_q != g->cfg.shape.s_kv) {
            BIND(AUG_SDPA_UID_SKV, &g->s_kv);
            BIND(AUG_SDPA_UID_SQ, &g->s_q);
        }
    }
#undef BIND
    /* one variant pack at a time: a new binding replaces the last; g->varpack is set only
     * once the new one is finalized */
    if (g->varpack)
        (void)g->api->BackendDestroyDescriptor(g->varpack);
    g->varpack = NULL;
    cudnnBackendDescriptor_t vp = NULL;
    CHECK(g->api->BackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp),
          "cudnnBackendCreateDescriptor(variant pack)");
    cudnnStatus_t st = g->api->BackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                                   CUDNN_TYPE_INT64, n, uids);
    if (st == CUDNN_STATUS_SUCCESS)
        st = g->api->BackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                         CUDNN_TYPE_VOID_PTR, n, ptrs);
    if (st == CUDNN_STATUS_SUCCESS)
        st = g->api->BackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                         CUDNN_TYPE_VOID_PTR, 1, &workspace);
    if (st == CUDNN_STATUS_SUCCESS)
        st = g->api->BackendFinalize(vp);
    if (st != CUDNN_STATUS_SUCCESS) {
        aug_cudnn_status_text(g->api, st, "variant pack", why, cap);
        (void)g->api->BackendDestroyDescriptor(vp);
        return 0;
    }
    g->varpack = vp;
    return 1;
}

int aug_cudnn_sdpa_execute(struct aug_cudnn_sdpa *g, cudnnHandle_t handle, char *why,
                           size_t cap) {
    if (!g->plan || !g->varpack) {
        snprintf(why, cap, "SDPA: execute before plan and bind");
        return 0;
    }
    CHECK(g->api->BackendExecute(handle, g->plan, g->varpack), "cudnnBackendExecute");
    return 1;
}

void aug_cudnn_sdpa_release(struct aug_cudnn_sdpa *g) {
    if (g->varpack && g->api && g->api->BackendDestroyDescriptor)
        (void)g->api->BackendDestroyDescriptor(g->varpack);
    /* destroyed in reverse order of creation: users before what they refer to */
    for (int i = g->n_desc - 1; i >= 0; i--)
        if (g->desc[i] && g->api && g->api->BackendDestroyDescriptor)
            (void)g->api->BackendDestroyDescriptor(g->desc[i]);
    const struct aug_cudnn *api = g->api;
    memset(g, 0, sizeof *g);
    g->api = api;
}
