/* model_load.c - where a struct aug_model comes from: presets, augur model JSON, and
 * Hugging Face config.json files (GPT-2, Llama, Mistral, Mixtral, Qwen2, DeepSeek keys).
 *
 * All three paths end in aug_model_finish(), which derives the defaults (kv_heads, head_dim,
 * ffn_hidden) and rejects anything that is missing, non-positive or absurd, naming the field.
 * Parameter counting lives in model_params.c. */
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
#include "core/suggest.h"

/* ---- enum names --------------------------------------------------------------------- */

static const char *const arch_names[] = {"dense", "moe", "matmulfree"};
static const char *const mlp_names[] = {"gelu", "swiglu"};
static const char *const norm_names[] = {"layernorm", "rmsnorm"};
static const char *const pos_names[] = {"learned", "rope"};
_Static_assert(sizeof arch_names / sizeof *arch_names == AUG_ARCH_COUNT, "arch names");
_Static_assert(sizeof mlp_names / sizeof *mlp_names == AUG_MLP_COUNT, "mlp names");
_Static_assert(sizeof norm_names / sizeof *norm_names == AUG_NORM_COUNT, "norm names");
_Static_assert(sizeof pos_names / sizeof *pos_names == AUG_POS_COUNT, "pos names");

const char *aug_arch_name(enum aug_arch a) {
    return (unsigned)a < AUG_ARCH_COUNT ? arch_names[a] : "unknown";
}

const char *aug_mlp_name(enum aug_mlp m) {
    return (unsigned)m < AUG_MLP_COUNT ? mlp_names[m] : "unknown";
}

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
    } else {
        if (m->moe_experts != 0)
            return aug_errorf(AUG_EDATA,
                              "%s: field 'moe_experts' = %ld needs arch 'moe' (arch is '%s')",
                              ctx, m->moe_experts, aug_arch_name(m->arch));
        m->moe_topk = 0;
        m->moe_shared_experts = 0;
    }
    return AUG_OK;
}

/* ---- names from files --------------------------------------------------------------- */

/* Last component of a path-like string (no trailing '/'), into buf. */
static void last_component(const char *s, char *buf, size_t n) {
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

/* "dir/Llama-2-7b-hf/config.json" -> "Llama-2-7b-hf"; "x/gpt2.json" -> "gpt2". */
static void name_from_origin(const char *origin, char *buf, size_t n) {
    char base[256];
    last_component(origin, base, sizeof base);
    if (strcmp(base, "config.json") == 0) {
        char parent[PATH_MAX];
        const char *slash = strrchr(origin, '/');
        size_t plen = slash ? (size_t)(slash - origin) : 0;
        if (plen > 0 && plen < sizeof parent) {
            memcpy(parent, origin, plen);
            parent[plen] = '\0';
            char comp[256];
            last_component(parent, comp, sizeof comp);
            if (strcmp(comp, ".") && strcmp(comp, "..") && comp[0]) {
                aug_fmt_trunc(buf, n, "%s", comp);
                return;
            }
            char real[PATH_MAX];
            if (realpath(parent, real)) {
                last_component(real, comp, sizeof comp);
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

/* ---- augur's own model JSON --------------------------------------------------------- */

enum ftype { F_LONG, F_DOUBLE, F_BOOL, F_STR, F_ENUM };

struct field {
    const char *key;
    enum ftype type;
    size_t off;
    size_t size;
    int flags;
    const char *const *names; /* F_ENUM */
    int n_names;
};

#define MF(k) offsetof(struct aug_model, k), sizeof(((struct aug_model *)0)->k)
#define NAMES(t) t, (int)(sizeof t / sizeof *t)
static const struct field model_fields[] = {
    {"name", F_STR, MF(name), 0, NULL, 0},
    {"arch", F_ENUM, MF(arch), 0, NAMES(arch_names)},
    {"layers", F_LONG, MF(layers), AUG_JSON_REQUIRED | AUG_JSON_POSITIVE, NULL, 0},
    {"hidden", F_LONG, MF(hidden), AUG_JSON_REQUIRED | AUG_JSON_POSITIVE, NULL, 0},
    {"heads", F_LONG, MF(heads), AUG_JSON_REQUIRED | AUG_JSON_POSITIVE, NULL, 0},
    {"kv_heads", F_LONG, MF(kv_heads), AUG_JSON_POSITIVE, NULL, 0},
    {"head_dim", F_LONG, MF(head_dim), AUG_JSON_POSITIVE, NULL, 0},
    {"ffn_hidden", F_LONG, MF(ffn_hidden), AUG_JSON_POSITIVE, NULL, 0},
    {"vocab", F_LONG, MF(vocab), AUG_JSON_POSITIVE, NULL, 0},
    {"max_seq", F_LONG, MF(max_seq), AUG_JSON_POSITIVE, NULL, 0},
    {"mlp", F_ENUM, MF(mlp), 0, NAMES(mlp_names)},
    {"norm", F_ENUM, MF(norm), 0, NAMES(norm_names)},
    {"pos", F_ENUM, MF(pos), 0, NAMES(pos_names)},
    {"tied_embeddings", F_BOOL, MF(tied_embeddings), 0, NULL, 0},
    {"linear_bias", F_BOOL, MF(linear_bias), 0, NULL, 0},
    {"moe_experts", F_LONG, MF(moe_experts), AUG_JSON_NONNEG, NULL, 0},
    {"moe_topk", F_LONG, MF(moe_topk), AUG_JSON_NONNEG, NULL, 0},
    {"moe_shared_experts", F_LONG, MF(moe_shared_experts), AUG_JSON_NONNEG, NULL, 0},
    {"moe_capacity_factor", F_DOUBLE, MF(moe_capacity_factor), AUG_JSON_NONNEG, NULL, 0},
    {"source", F_STR, MF(source), 0, NULL, 0},
};
#define N_MODEL_FIELDS (sizeof model_fields / sizeof *model_fields)

static const struct field *find_field(const char *key) {
    for (size_t i = 0; i < N_MODEL_FIELDS; i++)
        if (strcmp(model_fields[i].key, key) == 0)
            return &model_fields[i];
    return NULL;
}

static int read_enum(const char *ctx, json_t *obj, const struct field *f, int *out) {
    char buf[64];
    int st = aug_json_string(ctx, obj, f->key, 0, buf, sizeof buf);
    if (st)
        return st;
    for (int i = 0; i < f->n_names; i++)
        if (strcasecmp(buf, f->names[i]) == 0) {
            *out = i;
            return AUG_OK;
        }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; i < f->n_names && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", f->names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return aug_errorf(AUG_EDATA, "%s: field '%s' = '%s' is not one of: %s", ctx, f->key, buf,
                      list);
}

static int read_field(const char *ctx, json_t *obj, const struct field *f,
                      struct aug_model *m) {
    char *dst = (char *)m + f->off;
    int st, iv;
    long lv;
    double dv;
    switch (f->type) {
    case F_LONG:
        st = aug_json_long(ctx, obj, f->key, f->flags, &lv);
        if (st == AUG_OK)
            memcpy(dst, &lv, sizeof lv);
        return st;
    case F_DOUBLE:
        st = aug_json_double(ctx, obj, f->key, f->flags, &dv);
        if (st == AUG_OK)
            memcpy(dst, &dv, sizeof dv);
        return st;
    case F_BOOL:
        st = aug_json_bool(ctx, obj, f->key, f->flags, &iv);
        if (st == AUG_OK)
            memcpy(dst, &iv, sizeof iv);
        return st;
    case F_STR:
        return aug_json_string(ctx, obj, f->key, f->flags, dst, f->size);
    case F_ENUM:
        st = read_enum(ctx, obj, f, &iv);
        if (st == AUG_OK)
            memcpy(dst, &iv, sizeof iv); /* every model enum is int-sized */
        return st;
    }
    return AUG_OK;
}

_Static_assert(sizeof(enum aug_arch) == sizeof(int) && sizeof(enum aug_mlp) == sizeof(int) &&
                   sizeof(enum aug_norm) == sizeof(int) && sizeof(enum aug_pos) == sizeof(int),
               "model enums are read as int");

/* `origin` names the file (and entry) in messages. */
static int parse_augur(const char *origin, json_t *obj, struct aug_model *out) {
    struct aug_model m;
    aug_model_init(&m);
    char ctx[512];
    char name[64] = "";
    int nst = aug_json_string(origin, obj, "name", 0, name, sizeof name);
    if (nst == AUG_EDATA)
        return AUG_EDATA;
    if (nst == AUG_ENOTFOUND)
        name_from_origin(origin, name, sizeof name);
    aug_fmt_trunc(ctx, sizeof ctx, "%s: model '%s'", origin, name);

    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value) {
        if (key[0] == '_' || find_field(key))
            continue; /* keys starting with '_' are comments */
        struct aug_suggest sg;
        char hint[128];
        aug_suggest_init(&sg, key);
        for (size_t i = 0; i < N_MODEL_FIELDS; i++)
            aug_suggest_add(&sg, model_fields[i].key);
        return aug_errorf(AUG_EDATA, "%s: unknown field '%s'%s", ctx, key,
                          aug_suggest_format(&sg, hint, sizeof hint));
    }
    for (size_t i = 0; i < N_MODEL_FIELDS; i++) {
        int st = read_field(ctx, obj, &model_fields[i], &m);
        if (st != AUG_OK && st != AUG_ENOTFOUND)
            return st;
    }
    if (!aug_json_get(obj, "linear_bias"))
        m.linear_bias = m.mlp == AUG_MLP_GELU; /* GPT-style keeps biases, Llama-style not */
    if (!aug_json_get(obj, "arch") && m.moe_experts > 0)
        m.arch = AUG_ARCH_MOE;
    if (!m.name[0])
        aug_fmt_trunc(m.name, sizeof m.name, "%s", name);
    if (!m.source[0])
        aug_fmt_trunc(m.source, sizeof m.source, "augur model JSON %s", origin);
    int st = aug_model_finish(&m, origin);
    if (st)
        return st;
    *out = m;
    return AUG_OK;
}

/* ---- Hugging Face config.json ------------------------------------------------------- */

/* Append "; note" to a source string. */
static void add_note(char *src, size_t n, const char *note) {
    size_t len = strlen(src);
    if (len + 3 < n)
        aug_fmt_trunc(src + len, n - len, "; %s", note);
}

static int hf_name(const char *origin, json_t *obj, struct aug_model *m) {
    json_t *v = aug_json_get(obj, "_name_or_path");
    if (v && json_is_string(v) && json_string_length(v) > 0)
        last_component(json_string_value(v), m->name, sizeof m->name);
    if (!m->name[0])
        name_from_origin(origin, m->name, sizeof m->name);
    return AUG_OK;
}

static void hf_model_type(json_t *obj, char *buf, size_t n) {
    json_t *v = aug_json_get(obj, "model_type");
    aug_fmt_trunc(buf, n, "%s", v && json_is_string(v) ? json_string_value(v) : "");
}

/* GPT-2 style keys: n_embd, n_layer, n_head, n_inner, n_positions. */
static int parse_hf_gpt2(const char *origin, json_t *obj, struct aug_model *out) {
    struct aug_model m;
    aug_model_init(&m);
    hf_name(origin, obj, &m);
    char ctx[512], type[64];
    aug_fmt_trunc(ctx, sizeof ctx, "%s: Hugging Face config", origin);
    hf_model_type(obj, type, sizeof type);
    int st;
    const int rp = AUG_JSON_REQUIRED | AUG_JSON_POSITIVE;
    if ((st = aug_json_long(ctx, obj, "n_embd", rp, &m.hidden)) ||
        (st = aug_json_long(ctx, obj, "n_layer", rp, &m.layers)) ||
        (st = aug_json_long(ctx, obj, "n_head", rp, &m.heads)))
        return st;
    m.ffn_hidden = 4 * m.hidden; /* n_inner null or absent */
    if ((st = aug_json_long(ctx, obj, "n_inner", AUG_JSON_POSITIVE, &m.ffn_hidden)) ==
        AUG_EDATA)
        return st;
    m.vocab = 50257;
    if ((st = aug_json_long(ctx, obj, "vocab_size", AUG_JSON_POSITIVE, &m.vocab)) == AUG_EDATA)
        return st;
    m.max_seq = 1024;
    st = aug_json_long(ctx, obj, "n_positions", AUG_JSON_POSITIVE, &m.max_seq);
    if (st == AUG_ENOTFOUND)
        st = aug_json_long(ctx, obj, "n_ctx", AUG_JSON_POSITIVE, &m.max_seq);
    if (st == AUG_EDATA)
        return st;
    m.tied_embeddings = 1; /* PretrainedConfig default, and GPT-2 ties */
    if ((st = aug_json_bool(ctx, obj, "tie_word_embeddings", 0, &m.tied_embeddings)) ==
        AUG_EDATA)
        return st;
    m.mlp = AUG_MLP_GELU;
    m.norm = AUG_NORM_LAYERNORM;
    m.pos = aug_json_get(obj, "rotary_dim") ? AUG_POS_ROPE : AUG_POS_LEARNED; /* GPT-J */
    m.linear_bias = 1;
    int mq = 0;
    if ((st = aug_json_bool(ctx, obj, "multi_query", 0, &mq)) == AUG_EDATA)
        return st;
    if (mq)
        m.kv_heads = 1; /* GPTBigCode multi-query attention */
    aug_fmt_trunc(m.source, sizeof m.source, "Hugging Face config.json %s (model_type %s)", origin,
             type[0] ? type : "gpt2");
    if ((st = aug_model_finish(&m, origin)))
        return st;
    *out = m;
    return AUG_OK;
}

static int type_in(const char *type, const char *const *list) {
    for (; *list; list++)
        if (strcasecmp(type, *list) == 0)
            return 1;
    return 0;
}

/* First present key of `keys` as a positive integer: AUG_OK, AUG_ENOTFOUND or AUG_EDATA. */
static int first_long(const char *ctx, json_t *obj, const char *const *keys, long *out) {
    for (; *keys; keys++) {
        int st = aug_json_long(ctx, obj, *keys, AUG_JSON_POSITIVE, out);
        if (st != AUG_ENOTFOUND)
            return st;
    }
    return AUG_ENOTFOUND;
}

/* Llama-style keys: hidden_size, num_hidden_layers, num_attention_heads, ... and the MoE
 * keys of Mixtral (num_local_experts), Qwen2-MoE (num_experts) and DeepSeek
 * (n_routed_experts, n_shared_experts, moe_intermediate_size). */
static int parse_hf_llama(const char *origin, json_t *obj, struct aug_model *out) {
    static const char *const non_gated[] = {"gpt_neox", "falcon", "phi", "opt", "bloom",
                                            "mpt", "persimmon", "gpt_bigcode", NULL};
    static const char *const with_bias[] = {"gpt_neox", "phi", "opt", "bloom", "persimmon",
                                            NULL};
    static const char *const layernorm_types[] = {"gpt_neox", "falcon", "phi", "opt", "bloom",
                                                  "persimmon", NULL};
    static const char *const ffn_keys[] = {"intermediate_size", "ffn_hidden_size", "ffn_dim",
                                           "n_inner", NULL};
    static const char *const seq_keys[] = {"max_position_embeddings", "n_positions",
                                           "seq_length", "max_sequence_length", NULL};
    struct aug_model m;
    aug_model_init(&m);
    hf_name(origin, obj, &m);
    char ctx[512], type[64], act[64] = "silu";
    aug_fmt_trunc(ctx, sizeof ctx, "%s: Hugging Face config", origin);
    hf_model_type(obj, type, sizeof type);
    int st;
    const int rp = AUG_JSON_REQUIRED | AUG_JSON_POSITIVE;
    if ((st = aug_json_long(ctx, obj, "hidden_size", rp, &m.hidden)) ||
        (st = aug_json_long(ctx, obj, "num_hidden_layers", rp, &m.layers)) ||
        (st = aug_json_long(ctx, obj, "num_attention_heads", rp, &m.heads)) ||
        (st = aug_json_long(ctx, obj, "vocab_size", rp, &m.vocab)))
        return st;
    m.kv_heads = m.heads;
    st = aug_json_long(ctx, obj, "num_key_value_heads", AUG_JSON_POSITIVE, &m.kv_heads);
    if (st == AUG_ENOTFOUND)
        st = aug_json_long(ctx, obj, "num_kv_heads", AUG_JSON_POSITIVE, &m.kv_heads);
    if (st == AUG_EDATA)
        return st;
    int mq = 0;
    if ((st = aug_json_bool(ctx, obj, "multi_query", 0, &mq)) == AUG_EDATA)
        return st;
    if (mq && !aug_json_get(obj, "num_key_value_heads") && !aug_json_get(obj, "num_kv_heads"))
        m.kv_heads = 1;
    m.max_seq = 2048; /* LlamaConfig default */
    if ((st = first_long(ctx, obj, seq_keys, &m.max_seq)) == AUG_EDATA)
        return st;
    if ((st = aug_json_long(ctx, obj, "head_dim", AUG_JSON_POSITIVE, &m.head_dim)) ==
        AUG_EDATA)
        return st;

    /* activation: a gated MLP (SwiGLU, GeGLU) has three matrices, a plain one two */
    const char *act_keys[] = {"hidden_act", "hidden_activation", "activation_function", NULL};
    for (const char *const *k = act_keys; *k; k++) {
        json_t *v = aug_json_get(obj, *k);
        if (!v)
            continue;
        if (!json_is_string(v))
            return aug_errorf(AUG_EDATA, "%s: field '%s' must be a string (got %s)", ctx, *k,
                              aug_json_type_name(v));
        aug_fmt_trunc(act, sizeof act, "%s", json_string_value(v));
        break;
    }
    int gated = 1;
    if ((strstr(act, "gelu") || strstr(act, "relu")) && strncasecmp(type, "gemma", 5) != 0)
        gated = 0;
    if (type_in(type, non_gated))
        gated = 0;
    m.mlp = gated ? AUG_MLP_SWIGLU : AUG_MLP_GELU;
    m.norm = type_in(type, layernorm_types) ? AUG_NORM_LAYERNORM : AUG_NORM_RMSNORM;
    if (aug_json_get(obj, "rms_norm_eps"))
        m.norm = AUG_NORM_RMSNORM;
    m.pos = strcasecmp(type, "opt") == 0 ? AUG_POS_LEARNED : AUG_POS_ROPE;
    m.tied_embeddings = strncasecmp(type, "gemma", 5) == 0;
    if ((st = aug_json_bool(ctx, obj, "tie_word_embeddings", 0, &m.tied_embeddings)) ==
        AUG_EDATA)
        return st;
    m.linear_bias = type_in(type, with_bias);
    const char *bias_keys[] = {"mlp_bias", "use_bias", "bias", "add_bias_linear", NULL};
    for (const char *const *k = bias_keys; *k; k++) {
        int b = 0;
        if ((st = aug_json_bool(ctx, obj, *k, 0, &b)) == AUG_EDATA)
            return st;
        if (st == AUG_OK)
            m.linear_bias = b;
    }
    aug_fmt_trunc(m.source, sizeof m.source, "Hugging Face config.json %s (model_type %s)", origin,
             type[0] ? type : "unknown");
    int attn_bias = 0;
    if ((st = aug_json_bool(ctx, obj, "attention_bias", 0, &attn_bias)) == AUG_EDATA)
        return st;
    if (!m.linear_bias && (attn_bias || strncasecmp(type, "qwen2", 5) == 0))
        add_note(m.source, sizeof m.source, "QKV projection biases not counted");

    /* mixture of experts */
    long experts = 0;
    const char *expert_keys[] = {"num_local_experts", "n_routed_experts", "num_experts", NULL};
    for (const char *const *k = expert_keys; *k; k++) {
        if ((st = aug_json_long(ctx, obj, *k, AUG_JSON_NONNEG, &experts)) == AUG_EDATA)
            return st;
        if (st == AUG_OK)
            break;
    }
    long moe_ffn = 0;
    if ((st = aug_json_long(ctx, obj, "moe_intermediate_size", AUG_JSON_POSITIVE, &moe_ffn)) ==
        AUG_EDATA)
        return st;
    if (experts > 1) {
        m.arch = AUG_ARCH_MOE;
        m.moe_experts = experts;
        if ((st = aug_json_long(ctx, obj, "num_experts_per_tok", rp, &m.moe_topk)))
            return st;
        if ((st = aug_json_long(ctx, obj, "n_shared_experts", AUG_JSON_NONNEG,
                                &m.moe_shared_experts)) == AUG_EDATA)
            return st;
        long shared_ffn = 0;
        if ((st = aug_json_long(ctx, obj, "shared_expert_intermediate_size", AUG_JSON_NONNEG,
                                &shared_ffn)) == AUG_EDATA)
            return st;
        if (shared_ffn > 0 && moe_ffn > 0 && m.moe_shared_experts == 0) {
            /* Qwen2-MoE: one wide shared expert = shared_ffn / moe_ffn fine-grained ones */
            m.moe_shared_experts = (shared_ffn + moe_ffn / 2) / moe_ffn;
            add_note(m.source, sizeof m.source,
                     "shared expert counted as shared_expert_intermediate_size / "
                     "moe_intermediate_size experts");
        }
        if ((st = aug_json_double(ctx, obj, "capacity_factor", AUG_JSON_POSITIVE,
                                  &m.moe_capacity_factor)) == AUG_EDATA)
            return st;
        long dense_first = 0;
        if ((st = aug_json_long(ctx, obj, "first_k_dense_replace", AUG_JSON_NONNEG,
                                &dense_first)) == AUG_EDATA)
            return st;
        if (dense_first > 0)
            add_note(m.source, sizeof m.source,
                     "the first_k_dense_replace dense layers are counted as MoE layers");
        long freq = 1;
        if ((st = aug_json_long(ctx, obj, "moe_layer_freq", AUG_JSON_POSITIVE, &freq)) ==
                AUG_EDATA ||
            (st = aug_json_long(ctx, obj, "decoder_sparse_step", AUG_JSON_POSITIVE, &freq)) ==
                AUG_EDATA)
            return st;
        if (freq > 1)
            add_note(m.source, sizeof m.source, "every layer counted as MoE");
    }
    if (m.arch == AUG_ARCH_MOE && moe_ffn > 0) {
        m.ffn_hidden = moe_ffn;
    } else {
        st = first_long(ctx, obj, ffn_keys, &m.ffn_hidden);
        if (st == AUG_EDATA)
            return st;
        if (st == AUG_ENOTFOUND) {
            if (gated)
                return aug_errorf(AUG_EDATA, "%s: field 'intermediate_size' is missing", ctx);
            m.ffn_hidden = 4 * m.hidden;
        }
    }
    /* DeepSeek-V2/V3 multi-head latent attention: keep the per-head q/k width */
    long nope = 0, rope = 0;
    if (!m.head_dim &&
        aug_json_long(ctx, obj, "qk_nope_head_dim", AUG_JSON_POSITIVE, &nope) == AUG_OK &&
        aug_json_long(ctx, obj, "qk_rope_head_dim", AUG_JSON_POSITIVE, &rope) == AUG_OK) {
        m.head_dim = nope + rope;
        add_note(m.source, sizeof m.source,
                 "latent attention (MLA) approximated as MHA with head_dim = qk_nope_head_dim "
                 "+ qk_rope_head_dim");
    }
    if ((st = aug_model_finish(&m, origin)))
        return st;
    *out = m;
    return AUG_OK;
}

/* ---- dispatch ----------------------------------------------------------------------- */

static int parse_object(const char *origin, json_t *obj, struct aug_model *out, int depth) {
    if (json_object_get(obj, "hidden") || json_object_get(obj, "layers"))
        return parse_augur(origin, obj, out);
    if (json_object_get(obj, "n_embd") || json_object_get(obj, "n_layer"))
        return parse_hf_gpt2(origin, obj, out);
    if (json_object_get(obj, "hidden_size") || json_object_get(obj, "num_hidden_layers"))
        return parse_hf_llama(origin, obj, out);
    json_t *text_cfg = json_object_get(obj, "text_config");
    if (depth == 0 && json_is_object(text_cfg))
        return parse_object(origin, text_cfg, out, 1);
    json_t *list = json_object_get(obj, "models");
    if (depth == 0 && json_is_array(list)) {
        if (json_array_size(list) == 1 && json_is_object(json_array_get(list, 0)))
            return parse_object(origin, json_array_get(list, 0), out, 1);
        return aug_errorf(AUG_EDATA,
                          "%s: holds a list of %zu models; give one preset name instead",
                          origin, json_array_size(list));
    }
    return aug_errorf(AUG_EDATA,
                      "%s: not a model description: no 'hidden' (augur model JSON), "
                      "'hidden_size' or 'n_embd' (Hugging Face config.json) field",
                      origin);
}

int aug_model_from_json(const char *origin, const char *text, struct aug_model *out) {
    if (!origin || !*origin)
        origin = "model JSON";
    if (!text)
        return aug_errorf(AUG_EDATA, "%s: no text", origin);
    json_t *root;
    int st = aug_json_parse(origin, text, &root);
    if (st)
        return st;
    st = parse_object(origin, root, out, 0);
    json_decref(root);
    return st;
}

/* ---- presets ------------------------------------------------------------------------ */

static int is_path(const char *s) {
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n >= 5 && strcasecmp(s + n - 5, ".json") == 0);
}

/* Parse <root>/presets/models.json; *arr is its "models" array (owned by *root_out). */
static int presets_open(const char *data_root, char *path, size_t n, json_t **root_out,
                        json_t **arr) {
    const char *dir = data_root && *data_root ? data_root : aug_data_dir();
    aug_fmt_trunc(path, n, "%s/presets/models.json", dir);
    char *text;
    int st = aug_read_file(path, &text, NULL);
    if (st)
        return st;
    json_t *root;
    st = aug_json_parse(path, text, &root);
    free(text);
    if (st)
        return st;
    *arr = json_object_get(root, "models");
    if (!json_is_array(*arr)) {
        json_decref(root);
        return aug_errorf(AUG_EDATA, "%s: field 'models' must be an array", path);
    }
    *root_out = root;
    return AUG_OK;
}

static int preset_entry(const char *path, json_t *arr, size_t i, struct aug_model *out) {
    json_t *e = json_array_get(arr, i);
    char origin[PATH_MAX + 32];
    aug_fmt_trunc(origin, sizeof origin, "%s: models[%zu]", path, i);
    if (!json_is_object(e))
        return aug_errorf(AUG_EDATA, "%s: expected an object, got %s", origin,
                          aug_json_type_name(e));
    if (!json_is_string(json_object_get(e, "name")))
        return aug_errorf(AUG_EDATA, "%s: field 'name' is missing", origin);
    return parse_augur(origin, e, out);
}

int aug_model_load(const char *data_root, const char *name_or_path, struct aug_model *out) {
    if (!name_or_path || !*name_or_path)
        return aug_errorf(AUG_EUSAGE, "no model given (a preset name or a JSON path)");
    if (is_path(name_or_path)) {
        char path[PATH_MAX];
        struct stat sb;
        if (stat(name_or_path, &sb) == 0 && S_ISDIR(sb.st_mode))
            aug_fmt_trunc(path, sizeof path, "%s/config.json", name_or_path);
        else
            aug_fmt_trunc(path, sizeof path, "%s", name_or_path);
        char *text;
        int st = aug_read_file_max(path, AUG_JSON_FILE_MAX, &text, NULL);
        if (st)
            return st;
        st = aug_model_from_json(path, text, out);
        free(text);
        return st;
    }
    char path[PATH_MAX];
    json_t *root, *arr;
    int st = presets_open(data_root, path, sizeof path, &root, &arr);
    if (st)
        return st;
    size_t hit = aug_json_find_named(arr, name_or_path);
    if (hit < json_array_size(arr))
        st = preset_entry(path, arr, hit, out);
    else
        st = aug_json_unknown_named(arr, "model", name_or_path, "models");
    json_decref(root);
    return st;
}

int aug_model_foreach(const char *data_root, void (*fn)(const struct aug_model *, void *),
                      void *user) {
    char path[PATH_MAX];
    json_t *root, *arr;
    int st = presets_open(data_root, path, sizeof path, &root, &arr);
    if (st)
        return st;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        struct aug_model m;
        if ((st = preset_entry(path, arr, i, &m)))
            break;
        if (fn)
            fn(&m, user);
    }
    json_decref(root);
    return st;
}
