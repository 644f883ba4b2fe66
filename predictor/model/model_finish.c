/* SPDX-License-Identifier: Apache-2.0 */
/* model_finish.c - what every model loader ends with (model_load.c for presets and augur
 * model JSON, hf_config.c for Hugging Face config.json): the defaults and range checks of
 * aug_model_finish(), the name a model takes from where it came from, caveats, and the
 * record of which input keys were used or ignored. Kept apart from model_load.c so that
 * both loaders call down into it and neither calls back into the other. */
#define _XOPEN_SOURCE 700 /* realpath() */
#include "augur/model.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "augur/data.h"
#include "augur/status.h"
#include "core/jsonutil.h"
#include "model/hf_cache.h"
#include "model/model_internal.h"
#include "model/model_keys.h"

/* ---- defaults and checks ------------------------------------------------------------ */

/* Sizes beyond these are typos or unit mistakes, not models (the largest published dense
 * and MoE models are far inside them). */
#define MAX_LAYERS 10000L
#define MAX_HIDDEN (1L << 20)
#define MAX_HEADS (1L << 16)
#define MAX_FFN (1L << 24)
#define MAX_VOCAB (1L << 26)
#define MAX_SEQ (1L << 30)
#define MAX_EXPERTS (1L << 16)

void aug_model_init(struct aug_model *m) {
    memset(m, 0, sizeof *m);
    m->arch = AUG_ARCH_DENSE;
    m->vocab = 50257; /* GPT-2 BPE, as DESIGN section 6 */
    m->max_seq = 2048;
    m->mlp = AUG_MLP_GELU;
    m->norm = AUG_NORM_LAYERNORM;
    m->pos = AUG_POS_LEARNED;
    m->tied_embeddings = 0;
    m->linear_bias = 1;
    m->moe_capacity_factor = 0.0; /* 0: dropless unless the model says otherwise */
    m->moe_layer_freq = 1;
    m->attention = AUG_ATTN_GQA;
}

static int check_range(const char *ctx, const char *field, long v, long lo, long hi) {
    if (v < lo) {
        if (lo == 1)
            return aug_errorf(AUG_EDATA, "%s: field '%s' must be positive (got %ld)", ctx,
                              field, v);
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be at least %ld (got %ld)", ctx,
                          field, lo, v);
    }
    if (v > hi)
        return aug_errorf(AUG_EDATA, "%s: field '%s' = %ld is beyond any real model (max %ld)",
                          ctx, field, v, hi);
    return AUG_OK;
}

int aug_model_finish(struct aug_model *m, const char *origin) {
    char ctx[512];
    if (!m->name[0])
        aug_fmt_trunc(m->name, sizeof m->name, "model");
    /* names reach terminals, CSV and plot titles: no control characters (escape sequences) */
    for (const char *c = m->name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return aug_errorf(AUG_EDATA, "%s: field 'name' holds a control character",
                              origin && *origin ? origin : "model");
    aug_fmt_trunc(ctx, sizeof ctx, "%s: model '%s'", origin && *origin ? origin : "model", m->name);
    if ((unsigned)m->arch >= AUG_ARCH_COUNT)
        return aug_errorf(AUG_EDATA, "%s: field 'arch' is not a known architecture", ctx);
    if ((unsigned)m->mlp >= AUG_MLP_COUNT)
        return aug_errorf(AUG_EDATA, "%s: field 'mlp' is not gelu or swiglu", ctx);
    if ((unsigned)m->norm >= AUG_NORM_COUNT)
        return aug_errorf(AUG_EDATA, "%s: field 'norm' is not layernorm or rmsnorm", ctx);
    if ((unsigned)m->pos >= AUG_POS_COUNT)
        return aug_errorf(AUG_EDATA, "%s: field 'pos' is not learned or rope", ctx);
    if ((unsigned)m->attention >= AUG_ATTN_COUNT)
        return aug_errorf(AUG_EDATA, "%s: field 'attention' is not gqa or mla", ctx);
    int st;
    if ((st = check_range(ctx, "layers", m->layers, 1, MAX_LAYERS)) ||
        (st = check_range(ctx, "hidden", m->hidden, 1, MAX_HIDDEN)) ||
        (st = check_range(ctx, "heads", m->heads, 1, MAX_HEADS)))
        return st;
    if (m->kv_heads == 0)
        m->kv_heads = m->heads;
    if ((st = check_range(ctx, "kv_heads", m->kv_heads, 1, MAX_HEADS)))
        return st;
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return aug_errorf(AUG_EDATA, "%s: field 'kv_heads' = %ld does not divide heads = %ld",
                          ctx, m->kv_heads, m->heads);
    if (m->attention == AUG_ATTN_MLA) {
        /* DeepSeek-V2 sec. 2.1: q/k heads are qk_nope + qk_rope wide, one latent per token */
        if ((st = check_range(ctx, "kv_lora_rank", m->kv_lora_rank, 1, MAX_HIDDEN)) ||
            (st = check_range(ctx, "q_lora_rank", m->q_lora_rank, 0, MAX_HIDDEN)) ||
            (st = check_range(ctx, "qk_nope_head_dim", m->qk_nope_head_dim, 1, MAX_HIDDEN)) ||
            (st = check_range(ctx, "qk_rope_head_dim", m->qk_rope_head_dim, 1, MAX_HIDDEN)) ||
            (st = check_range(ctx, "v_head_dim", m->v_head_dim, 1, MAX_HIDDEN)))
            return st;
        long qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
        if (m->head_dim != 0 && m->head_dim != qk)
            return aug_errorf(AUG_EDATA,
                              "%s: field 'head_dim' = %ld differs from qk_nope_head_dim + "
                              "qk_rope_head_dim = %ld of latent attention",
                              ctx, m->head_dim, qk);
        m->head_dim = qk;
        if (m->kv_heads != m->heads)
            return aug_errorf(AUG_EDATA,
                              "%s: field 'kv_heads' = %ld: latent attention expands keys and "
                              "values for every head (kv_heads = heads = %ld)",
                              ctx, m->kv_heads, m->heads);
    } else if (m->kv_lora_rank || m->q_lora_rank || m->qk_nope_head_dim ||
               m->qk_rope_head_dim || m->v_head_dim) {
        return aug_errorf(AUG_EDATA,
                          "%s: latent-attention fields (kv_lora_rank, q_lora_rank, "
                          "qk_nope_head_dim, qk_rope_head_dim, v_head_dim) need attention "
                          "'mla'", ctx);
    }
    if (m->head_dim == 0) {
        if (m->hidden % m->heads)
            return aug_errorf(AUG_EDATA,
                              "%s: field 'hidden' = %ld is not a multiple of heads = %ld; "
                              "give head_dim explicitly",
                              ctx, m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    if ((st = check_range(ctx, "head_dim", m->head_dim, 1, MAX_HIDDEN)))
        return st;
    if (m->ffn_hidden == 0)
        m->ffn_hidden = 4 * m->hidden;
    if ((st = check_range(ctx, "ffn_hidden", m->ffn_hidden, 1, MAX_FFN)) ||
        (st = check_range(ctx, "vocab", m->vocab, 1, MAX_VOCAB)) ||
        (st = check_range(ctx, "max_seq", m->max_seq, 1, MAX_SEQ)))
        return st;
    if (m->tied_embeddings != 0 && m->tied_embeddings != 1)
        return aug_errorf(AUG_EDATA, "%s: field 'tied_embeddings' must be 0 or 1", ctx);
    if (m->linear_bias != 0 && m->linear_bias != 1)
        return aug_errorf(AUG_EDATA, "%s: field 'linear_bias' must be 0 or 1", ctx);
    if ((m->qk_norm & ~1) || (m->attn_bias & ~1) || (m->attn_sinks & ~1))
        return aug_errorf(AUG_EDATA, "%s: fields 'qk_norm', 'attn_bias', 'attn_sinks' must be "
                          "0 or 1", ctx);
    if ((st = check_range(ctx, "sliding_window", m->sliding_window, 0, MAX_SEQ)) ||
        (st = check_range(ctx, "global_attn_every", m->global_attn_every, 0, MAX_LAYERS)) ||
        (st = check_range(ctx, "mtp_layers", m->mtp_layers, 0, 16)) ||
        (st = check_range(ctx, "dense_ffn_hidden", m->dense_ffn_hidden, 0, MAX_FFN)))
        return st;
    if ((st = check_range(ctx, "parallel_block", m->parallel_block, 0, 2)))
        return st;
    if (m->parallel_block && (m->arch != AUG_ARCH_DENSE || m->attention == AUG_ATTN_MLA))
        return aug_errorf(AUG_EDATA, "%s: field 'parallel_block' applies to dense transformers "
                          "without latent attention (arch is '%s')", ctx, aug_arch_name(m->arch));
    if (m->sliding_window == 0 && m->global_attn_every != 0)
        return aug_errorf(AUG_EDATA, "%s: field 'global_attn_every' = %ld needs a sliding_window",
                          ctx, m->global_attn_every);
    if (m->attn_chunked & ~1)
        return aug_errorf(AUG_EDATA, "%s: field 'attn_chunked' must be 0 or 1", ctx);
    if (m->attn_chunked && m->sliding_window == 0)
        return aug_errorf(AUG_EDATA, "%s: field 'attn_chunked' needs a sliding_window (the chunk "
                          "size)", ctx);
    if (m->arch == AUG_ARCH_MOE) {
        if ((st = check_range(ctx, "moe_experts", m->moe_experts, 1, MAX_EXPERTS)) ||
            (st = check_range(ctx, "moe_topk", m->moe_topk, 1, MAX_EXPERTS)) ||
            (st = check_range(ctx, "moe_shared_experts", m->moe_shared_experts, 0,
                              MAX_EXPERTS)))
            return st;
        if (m->moe_topk > m->moe_experts)
            return aug_errorf(AUG_EDATA, "%s: field 'moe_topk' = %ld exceeds moe_experts = %ld",
                              ctx, m->moe_topk, m->moe_experts);
        if (!(m->moe_capacity_factor >= 0) || !(m->moe_capacity_factor <= 64))
            return aug_errorf(AUG_EDATA,
                              "%s: field 'moe_capacity_factor' must be 0 (dropless) or in (0, 64] "
                              "(got %g)", ctx, m->moe_capacity_factor);
        if (m->moe_layer_freq == 0)
            m->moe_layer_freq = 1;
        if ((st = check_range(ctx, "moe_layer_freq", m->moe_layer_freq, 1, MAX_LAYERS)) ||
            (st = check_range(ctx, "moe_dense_layers", m->moe_dense_layers, 0, m->layers)) ||
            (st = check_range(ctx, "moe_groups", m->moe_groups, 0, m->moe_experts)) ||
            (st = check_range(ctx, "moe_topk_groups", m->moe_topk_groups, 0,
                              m->moe_groups > 0 ? m->moe_groups : 0)))
            return st;
        if (m->moe_groups > 1 && m->moe_experts % m->moe_groups)
            return aug_errorf(AUG_EDATA,
                              "%s: field 'moe_groups' = %ld does not divide moe_experts = %ld",
                              ctx, m->moe_groups, m->moe_experts);
        if (aug_model_moe_layers(m) == 0)
            return aug_errorf(AUG_EDATA,
                              "%s: no MoE layer: moe_dense_layers = %ld and moe_layer_freq = %ld "
                              "leave none of the %ld layers",
                              ctx, m->moe_dense_layers, m->moe_layer_freq, m->layers);
    } else {
        if (m->moe_experts != 0)
            return aug_errorf(AUG_EDATA,
                              "%s: field 'moe_experts' = %ld needs arch 'moe' (arch is '%s')",
                              ctx, m->moe_experts, aug_arch_name(m->arch));
        m->moe_topk = 0;
        m->moe_shared_experts = 0;
        m->moe_dense_layers = 0;
        m->moe_layer_freq = 1;
        m->dense_ffn_hidden = 0;
        m->moe_groups = m->moe_topk_groups = 0;
    }
    if (m->arch == AUG_ARCH_MATMULFREE &&
        (m->attention != AUG_ATTN_GQA || m->sliding_window || m->mtp_layers))
        return aug_errorf(AUG_EDATA, "%s: attention, window and MTP fields do not apply to "
                          "arch 'matmulfree'", ctx);
    return AUG_OK;
}

/* ---- names from files --------------------------------------------------------------- */

void aug_model_last_component(const char *s, char *buf, size_t n) {
    size_t len = strlen(s);
    while (len > 1 && s[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && s[start - 1] != '/')
        start--;
    size_t k = len - start;
    if (k >= n)
        k = n - 1;
    memcpy(buf, s + start, k);
    buf[k] = '\0';
}

/* ".../models--meta-llama--Llama-3.1-8B/snapshots/<commit>/config.json" (the Hugging Face
 * hub cache layout) -> "Llama-3.1-8B"; 0 when origin is not in that layout. */
static int name_from_hf_cache(const char *origin, char *buf, size_t n) {
    const char *snap = strstr(origin, "/snapshots/");
    if (!snap)
        return 0;
    const char *start = snap;
    while (start > origin && start[-1] != '/')
        start--;
    if (strncmp(start, "models--", 8) != 0)
        return 0;
    const char *name = start + 8;
    for (const char *p = name; p + 1 < snap; p++)
        if (p[0] == '-' && p[1] == '-')
            name = p + 2;
    if (name >= snap)
        return 0;
    aug_fmt_trunc(buf, n, "%.*s", (int)(snap - name), name);
    return 1;
}

void aug_model_name_from_origin(const char *origin, char *buf, size_t n) {
    char base[256];
    aug_model_last_component(origin, base, sizeof base);
    if (strcmp(base, "config.json") == 0 && name_from_hf_cache(origin, buf, n))
        return;
    if (strcmp(base, "config.json") == 0) {
        char parent[PATH_MAX];
        const char *slash = strrchr(origin, '/');
        size_t plen = slash ? (size_t)(slash - origin) : 0;
        if (plen > 0 && plen < sizeof parent) {
            memcpy(parent, origin, plen);
            parent[plen] = '\0';
            char comp[256];
            aug_model_last_component(parent, comp, sizeof comp);
            if (strcmp(comp, ".") && strcmp(comp, "..") && comp[0]) {
                aug_fmt_trunc(buf, n, "%s", comp);
                return;
            }
            char real[PATH_MAX];
            if (realpath(parent, real)) {
                aug_model_last_component(real, comp, sizeof comp);
                if (comp[0] && strcmp(comp, "/")) {
                    aug_fmt_trunc(buf, n, "%s", comp);
                    return;
                }
            }
        }
        aug_fmt_trunc(buf, n, "config");
        return;
    }
    size_t bl = strlen(base);
    if (bl > 5 && strcasecmp(base + bl - 5, ".json") == 0)
        base[bl - 5] = '\0';
    aug_fmt_trunc(buf, n, "%s", base[0] ? base : "model");
}

/* ---- key records -------------------------------------------------------------------- */

void aug_model_add_note(char *src, size_t n, const char *note) {
    size_t len = strlen(src);
    if (len + 3 < n)
        aug_fmt_trunc(src + len, n - len, "; %s", note);
}

void aug_model_caveat(struct aug_model *m, const char *note) {
    aug_model_add_note(m->source, sizeof m->source, note);
    size_t len = strlen(m->caveats);
    if (len + 3 < sizeof m->caveats)
        aug_fmt_trunc(m->caveats + len, sizeof m->caveats - len, "%s%s", len ? "; " : "", note);
}

static int keys_has(char (*list)[48], int n, const char *key) {
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], key) == 0)
            return 1;
    return 0;
}

void aug_model_keys_use(struct aug_model_keys *keys, const char *key) {
    if (!keys || keys_has(keys->used, keys->n_used, key) || keys->n_used >= AUG_MODEL_MAX_KEYS)
        return;
    aug_fmt_trunc(keys->used[keys->n_used++], sizeof keys->used[0], "%s", key);
}

void aug_model_keys_finish(struct aug_model_keys *keys, json_t *obj) {
    if (!keys)
        return;
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value) {
        (void)value;
        if (!keys_has(keys->used, keys->n_used, key) &&
            !keys_has(keys->ignored, keys->n_ignored, key) && keys->n_ignored < AUG_MODEL_MAX_KEYS)
            aug_fmt_trunc(keys->ignored[keys->n_ignored++], sizeof keys->ignored[0], "%s", key);
    }
}
