/* SPDX-License-Identifier: Apache-2.0 */
/* sdpa_layout.h - the host side of timing attention with cuDNN's fused SDPA: the tensor
 * dimensions and strides of the forward graph, the choice between cuDNN and augur's own
 * kernel, and the `library` / `library_algo` labels of a row. Plain C, no CUDA or cuDNN
 * headers: the sweep driver's tests use it with a fake backend, and the CUDA backend
 * (gpu_attention.c, cudnn_sdpa.c) uses the same functions.
 *
 * Layout (cudnn-frontend 1.x, include/cudnn_frontend/node/scaled_dot_product_flash_attention.h,
 * "cuDNN frontend API attention requires Q, K, V where Q = {b, h_q, s_q, d_qk},
 * K = {b, h_k, s_kv, d_qk}, V = {b, h_v, s_kv, d_v} but cuDNN backend API attention
 * requires Q, KT, V"): every tensor is 4-D in BHSD order. The profiler's buffers are
 * packed [batch, heads, seq, head_dim] (row-major, head_dim fastest), so
 *   Q  dims {b, h_q, s_q, d}   strides {h_q s_q d, s_q d, d, 1}
 *   K^T dims {b, h_kv, d, s_kv} strides {h_kv s_kv d, s_kv d, 1, d}  (K's memory, the last
 *                                two dims and strides swapped, as the frontend maps K->KT)
 *   V  dims {b, h_kv, s_kv, d} strides {h_kv s_kv d, s_kv d, d, 1}
 *   O  as Q
 *   S  (scores, virtual) dims {b, h_q, s_q, s_kv} strides {h_q s_q s_kv, s_q s_kv, s_kv, 1}
 *   row statistics (max, sum, stats) dims {b, h_q, s_q, 1} strides {h_q s_q, s_q, 1, 1}
 * Grouped-query attention: h_kv divides h_q and K, V carry h_kv heads; cuDNN maps query
 * head i to key/value head i / (h_q / h_kv) from the head dimension of K and V. */
#ifndef AUG_PROF_SDPA_LAYOUT_H
#define AUG_PROF_SDPA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aug_sdpa_shape {
    long b, h_q, h_kv, s_q, s_kv, d;
};

struct aug_sdpa_dims {
    int64_t dim[4], stride[4];
};

struct aug_sdpa_layout {
    struct aug_sdpa_dims q, kt, v, o, s, row;
};

/* Dimensions and strides of every tensor of the forward graph. AUG_EDATA with a message
 * naming the field when a size is not positive, h_kv does not divide h_q, or an element
 * count exceeds 2^62. */
int aug_sdpa_layout(const struct aug_sdpa_shape *sh, struct aug_sdpa_layout *out);

/* The smallest cuDNN with the fused flash SDPA forward through the backend graph API that
 * this profiler builds: 9.0.0 (cudnnGetVersion() = major*10000 + minor*100 + patch). The
 * flash engine was added in 8.9 (cuDNN 8.9.0 release notes) and needs compute capability
 * 8.0 or later (cudnn-frontend 1.x
 * node/sdpa_support_surface.h: "SDPA FP16/BF16 requires SM80 (Ampere) or newer architecture"). */
#define AUG_CUDNN_MIN_VERSION 90000
#define AUG_CUDNN_MIN_CC_MAJOR 8

/* The library augur-profile opens (dlopen) and the environment variable that names
 * another file (cudnn_loader.h). */
#define AUG_CUDNN_ENV "AUGUR_CUDNN_LIB"
#define AUG_CUDNN_DEFAULT_LIB "libcudnn.so.9"

/* "9.19.0" from cudnnGetVersion(); 8.x encoded major*1000 + minor*100 + patch. */
void aug_cudnn_version_format(size_t v, char *buf, size_t cap);

/* What the attention benchmark knows when it chooses an implementation for one point. */
struct aug_attn_probe {
    int loaded;               /* libcudnn opened and its backend symbols resolved */
    const char *load_error;   /* why not, when !loaded */
    size_t version;           /* cudnnGetVersion() when loaded */
    int cc_major, cc_minor;   /* the GPU's compute capability */
    int engine_found;         /* heuristics (mode A) gave a config that finalized for the shape */
    const char *engine_error; /* why not, when !engine_found */
};

/* 1: time cuDNN's fused SDPA; 0: time augur's own kernel, with the reason in why (the
 * first of: cuDNN absent, older than 9.0, GPU below sm80, no engine for the shape). */
int aug_attn_choose(const struct aug_attn_probe *p, char *why, size_t cap);

/* The cuDNN execution plan that ran a point. Knob types are cudnnBackendKnobType_t values
 * (cudnn_graph.h), written as numbers so that the row does not depend on the header. */
#define AUG_SDPA_MAX_KNOBS 16
struct aug_sdpa_plan_info {
    size_t version;             /* cudnnGetVersion() */
    long long engine;           /* CUDNN_ATTR_ENGINE_GLOBAL_INDEX */
    int n_knobs;
    int knob_type[AUG_SDPA_MAX_KNOBS];
    long long knob_value[AUG_SDPA_MAX_KNOBS];
    long long workspace;        /* CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, bytes */
    int stats;                  /* 1: the softmax statistics are written (training forward) */
    int heur_index;             /* position of the config in the heuristics' list */
};

#define AUG_ATTN_IMPL_CUDNN "cudnn_sdpa"
#define AUG_ATTN_IMPL_FALLBACK "augur_flash_fallback"

/* The `library` and `library_algo` cells of a fused attention row: info != NULL gives
 *   cudnn_sdpa    "cudnn=9.19.0 engine=8 knobs=17:1,18:0 heur=A#0 stats=1 workspace=0"
 * and info == NULL (why: the reason aug_attn_choose gave) gives
 *   augur_flash_fallback  "augur flash-style forward, not a production kernel; cuDNN SDPA
 *                          not used: WHY"
 * Both are cut to their buffers (impl 32 bytes, algo AUG_PROF_ALGO_LEN). */
void aug_attn_label(const struct aug_sdpa_plan_info *info, const char *why, char *impl,
                    size_t impl_cap, char *algo, size_t algo_cap);

#ifdef __cplusplus
}
#endif
#endif
