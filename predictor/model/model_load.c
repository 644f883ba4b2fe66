/* SPDX-License-Identifier: Apache-2.0 */
/* model_load.c - where a struct aug_model comes from: presets, augur model JSON, and
 * Hugging Face config.json files (read by hf_config.c).
 *
 * All three paths end in aug_model_finish() (model_finish.c), which derives the defaults (kv_heads, head_dim,
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
#include "model/hf_cache.h"
#include "model/model_internal.h"
#include "model/model_keys.h"

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
    {"arch", F_ENUM, MF(arch), 0, NAMES(aug_model_arch_names)},
    {"layers", F_LONG, MF(layers), AUG_JSON_REQUIRED | AUG_JSON_POSITIVE, NULL, 0},
    {"hidden", F_LONG, MF(hidden), AUG_JSON_REQUIRED | AUG_JSON_POSITIVE, NULL, 0},
    {"heads", F_LONG, MF(heads), AUG_JSON_REQUIRED | AUG_JSON_POSITIVE, NULL, 0},
    {"kv_heads", F_LONG, MF(kv_heads), AUG_JSON_POSITIVE, NULL, 0},
    {"head_dim", F_LONG, MF(head_dim), AUG_JSON_POSITIVE, NULL, 0},
    {"ffn_hidden", F_LONG, MF(ffn_hidden), AUG_JSON_POSITIVE, NULL, 0},
    {"vocab", F_LONG, MF(vocab), AUG_JSON_POSITIVE, NULL, 0},
    {"max_seq", F_LONG, MF(max_seq), AUG_JSON_POSITIVE, NULL, 0},
    {"mlp", F_ENUM, MF(mlp), 0, NAMES(aug_model_mlp_names)},
    {"norm", F_ENUM, MF(norm), 0, NAMES(aug_model_norm_names)},
    {"pos", F_ENUM, MF(pos), 0, NAMES(aug_model_pos_names)},
    {"tied_embeddings", F_BOOL, MF(tied_embeddings), 0, NULL, 0},
    {"linear_bias", F_BOOL, MF(linear_bias), 0, NULL, 0},
    {"moe_experts", F_LONG, MF(moe_experts), AUG_JSON_NONNEG, NULL, 0},
    {"moe_topk", F_LONG, MF(moe_topk), AUG_JSON_NONNEG, NULL, 0},
    {"moe_shared_experts", F_LONG, MF(moe_shared_experts), AUG_JSON_NONNEG, NULL, 0},
    {"moe_capacity_factor", F_DOUBLE, MF(moe_capacity_factor), AUG_JSON_NONNEG, NULL, 0},
    {"moe_dense_layers", F_LONG, MF(moe_dense_layers), AUG_JSON_NONNEG, NULL, 0},
    {"moe_layer_freq", F_LONG, MF(moe_layer_freq), AUG_JSON_POSITIVE, NULL, 0},
    {"dense_ffn_hidden", F_LONG, MF(dense_ffn_hidden), AUG_JSON_NONNEG, NULL, 0},
    {"moe_groups", F_LONG, MF(moe_groups), AUG_JSON_NONNEG, NULL, 0},
    {"moe_topk_groups", F_LONG, MF(moe_topk_groups), AUG_JSON_NONNEG, NULL, 0},
    {"attention", F_ENUM, MF(attention), 0, NAMES(aug_model_attn_names)},
    {"q_lora_rank", F_LONG, MF(q_lora_rank), AUG_JSON_NONNEG, NULL, 0},
    {"kv_lora_rank", F_LONG, MF(kv_lora_rank), AUG_JSON_NONNEG, NULL, 0},
    {"qk_nope_head_dim", F_LONG, MF(qk_nope_head_dim), AUG_JSON_NONNEG, NULL, 0},
    {"qk_rope_head_dim", F_LONG, MF(qk_rope_head_dim), AUG_JSON_NONNEG, NULL, 0},
    {"v_head_dim", F_LONG, MF(v_head_dim), AUG_JSON_NONNEG, NULL, 0},
    {"qk_norm", F_BOOL, MF(qk_norm), 0, NULL, 0},
    {"attn_bias", F_BOOL, MF(attn_bias), 0, NULL, 0},
    {"attn_sinks", F_BOOL, MF(attn_sinks), 0, NULL, 0},
    {"sliding_window", F_LONG, MF(sliding_window), AUG_JSON_NONNEG, NULL, 0},
    {"global_attn_every", F_LONG, MF(global_attn_every), AUG_JSON_NONNEG, NULL, 0},
    {"attn_chunked", F_BOOL, MF(attn_chunked), 0, NULL, 0},
    {"mtp_layers", F_LONG, MF(mtp_layers), AUG_JSON_NONNEG, NULL, 0},
    {"parallel_block", F_LONG, MF(parallel_block), AUG_JSON_NONNEG, NULL, 0},
    {"fp8_recipe", F_ENUM, MF(fp8_recipe), 0, NAMES(aug_model_fp8_recipe_names)},
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
                   sizeof(enum aug_norm) == sizeof(int) && sizeof(enum aug_pos) == sizeof(int) &&
                   sizeof(enum aug_attn) == sizeof(int) &&
                   sizeof(enum aug_fp8_recipe) == sizeof(int),
               "model enums are read as int");

/* `origin` names the file (and entry) in messages. */
static int parse_augur(const char *origin, json_t *obj, struct aug_model *out,
                       struct aug_model_keys *keys) {
    struct aug_model m;
    aug_model_init(&m);
    char ctx[512];
    char name[64] = "";
    int nst = aug_json_string(origin, obj, "name", 0, name, sizeof name);
    if (nst == AUG_EDATA)
        return AUG_EDATA;
    if (nst == AUG_ENOTFOUND)
        aug_model_name_from_origin(origin, name, sizeof name);
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
    if (!aug_json_get(obj, "attention") && m.kv_lora_rank > 0)
        m.attention = AUG_ATTN_MLA;
    if (!m.name[0])
        aug_fmt_trunc(m.name, sizeof m.name, "%s", name);
    if (!m.source[0])
        aug_fmt_trunc(m.source, sizeof m.source, "augur model JSON %s", origin);
    int st = aug_model_finish(&m, origin);
    if (st)
        return st;
    if (keys) {
        aug_fmt_trunc(keys->format, sizeof keys->format, "augur");
        for (size_t i = 0; i < N_MODEL_FIELDS; i++)
            if (json_object_get(obj, model_fields[i].key))
                aug_model_keys_use(keys, model_fields[i].key);
        aug_model_keys_finish(keys, obj);
    }
    *out = m;
    return AUG_OK;
}


/* ---- dispatch ----------------------------------------------------------------------- */

/* A multimodal config (Llama 4, Gemma 3) nests the text model in text_config: its other
 * members (the vision encoder) are ignored and, when they are encoders, named. */
static int parse_text_config(const char *origin, json_t *obj, json_t *text_cfg,
                             struct aug_model *out, struct aug_model_keys *keys);

static int parse_object(const char *origin, json_t *obj, struct aug_model *out, int depth,
                        struct aug_model_keys *keys) {
    if (keys) {
        memset(keys, 0, sizeof *keys);
        aug_fmt_trunc(keys->format, sizeof keys->format, "hf-llama");
    }
    if (json_object_get(obj, "hidden") || json_object_get(obj, "layers"))
        return parse_augur(origin, obj, out, keys);
    if (json_object_get(obj, "n_embd") || json_object_get(obj, "n_layer")) {
        if (keys)
            aug_fmt_trunc(keys->format, sizeof keys->format, "hf-gpt2");
        return aug_hf_parse_gpt2(origin, obj, out, keys);
    }
    if (json_object_get(obj, "hidden_size") || json_object_get(obj, "num_hidden_layers"))
        return aug_hf_parse_llama(origin, obj, out, keys);
    json_t *text_cfg = json_object_get(obj, "text_config");
    if (depth == 0 && json_is_object(text_cfg))
        return parse_text_config(origin, obj, text_cfg, out, keys);
    json_t *list = json_object_get(obj, "models");
    if (depth == 0 && json_is_array(list)) {
        if (json_array_size(list) == 1 && json_is_object(json_array_get(list, 0)))
            return parse_object(origin, json_array_get(list, 0), out, 1, keys);
        return aug_errorf(AUG_EDATA,
                          "%s: holds a list of %zu models; give one preset name instead",
                          origin, json_array_size(list));
    }
    return aug_errorf(AUG_EDATA,
                      "%s: not a model description: no 'hidden' (augur model JSON), "
                      "'hidden_size' or 'n_embd' (Hugging Face config.json) field",
                      origin);
}

static int parse_text_config(const char *origin, json_t *obj, json_t *text_cfg,
                             struct aug_model *out, struct aug_model_keys *keys) {
    int st = parse_object(origin, text_cfg, out, 1, keys);
    if (st)
        return st;
    static const char *const encoders[] = {"vision_config", "audio_config", NULL};
    for (const char *const *k = encoders; *k; k++) {
        if (!json_is_object(json_object_get(obj, *k)))
            continue;
        char note[96];
        aug_fmt_trunc(note, sizeof note, "not modelled: %s (only the text model is)", *k);
        aug_model_caveat(out, note);
        if (keys && keys->n_unmodelled < AUG_MODEL_MAX_KEYS)
            aug_fmt_trunc(keys->unmodelled[keys->n_unmodelled++], sizeof keys->unmodelled[0],
                          "%s", *k);
    }
    if (keys) {
        aug_model_keys_use(keys, "text_config");
        aug_model_keys_finish(keys, obj);
    }
    return AUG_OK;
}

int aug_model_from_json(const char *origin, const char *text, struct aug_model *out) {
    return aug_model_from_json_keys(origin, text, out, NULL);
}

int aug_model_from_json_keys(const char *origin, const char *text, struct aug_model *out,
                             struct aug_model_keys *keys) {
    if (!origin || !*origin)
        origin = "model JSON";
    if (!text)
        return aug_errorf(AUG_EDATA, "%s: no text", origin);
    json_t *root;
    int st = aug_json_parse(origin, text, &root);
    if (st)
        return st;
    st = parse_object(origin, root, out, 0, keys);
    json_decref(root);
    return st;
}

/* ---- presets ------------------------------------------------------------------------ */

/* Parse <root>/presets/models.json; *arr is its "models" array (owned by *root_out). */
static int presets_open(const char *data_root, char *path, size_t n, json_t **root_out,
                        json_t **arr) {
    const char *dir = data_root && *data_root ? data_root : aug_data_dir();
    aug_fmt_trunc(path, n, "%s/presets/models.json", dir);
    return aug_json_load_array(path, "models", root_out, arr);
}

static int preset_entry(const char *path, json_t *arr, size_t i, struct aug_model *out,
                        struct aug_model_keys *keys) {
    json_t *e = json_array_get(arr, i);
    char origin[PATH_MAX + 32];
    aug_fmt_trunc(origin, sizeof origin, "%s: models[%zu]", path, i);
    if (!json_is_object(e))
        return aug_errorf(AUG_EDATA, "%s: expected an object, got %s", origin,
                          aug_json_type_name(e));
    if (!json_is_string(json_object_get(e, "name")))
        return aug_errorf(AUG_EDATA, "%s: field 'name' is missing", origin);
    if (keys)
        memset(keys, 0, sizeof *keys);
    return parse_augur(origin, e, out, keys);
}

/* The file a path-like model argument names (a folder means its config.json, "org/name"
 * the Hugging Face cache); AUG_ENOTFOUND without a message for a preset name. */
int aug_model_file(const char *name_or_path, char *path, size_t n) {
    if (!aug_json_is_file_arg(name_or_path))
        return AUG_ENOTFOUND;
    struct stat sb;
    int exists = stat(name_or_path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode))
        aug_fmt_trunc(path, n, "%s/config.json", name_or_path);
    else if (!exists && aug_hf_repo_id(name_or_path))
        return aug_hf_cache_config(name_or_path, path, n);
    else
        aug_fmt_trunc(path, n, "%s", name_or_path);
    return AUG_OK;
}

int aug_model_load(const char *data_root, const char *name_or_path, struct aug_model *out) {
    return aug_model_load_keys(data_root, name_or_path, out, NULL);
}

int aug_model_load_keys(const char *data_root, const char *name_or_path, struct aug_model *out,
                        struct aug_model_keys *keys) {
    if (!name_or_path || !*name_or_path)
        return aug_errorf(AUG_EUSAGE, "no model given (a preset name or a JSON path)");
    if (aug_json_is_file_arg(name_or_path)) {
        char path[PATH_MAX];
        int st = aug_model_file(name_or_path, path, sizeof path);
        if (st)
            return st;
        char *text;
        st = aug_read_file_max(path, AUG_JSON_FILE_MAX, &text, NULL);
        if (st)
            return st;
        st = aug_model_from_json_keys(path, text, out, keys);
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
        st = preset_entry(path, arr, hit, out, keys);
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
        if ((st = preset_entry(path, arr, i, &m, NULL)))
            break;
        if (fn)
            fn(&m, user);
    }
    json_decref(root);
    return st;
}
