/* SPDX-License-Identifier: Apache-2.0 */
/* hf_config.c - struct aug_model from a Hugging Face config.json: GPT-2 keys and the
 * Llama-style keys of Llama 1-4, Mistral, Mixtral, Qwen2/Qwen3 (dense and MoE), Gemma 1-3,
 * DeepSeek-V2/V3, GPT-OSS and Grok-1 conversions.
 *
 * Every key the reader looks at is recorded as used; the rest of the object is ignored
 * (struct aug_model_keys). Ignored keys that change cost and are not modelled are named in
 * the model's source ("not modelled: ..."); architectures whose cost the layer graphs
 * cannot express (linear-attention hybrids, state-space layers) are refused by name.
 *
 * Key meanings follow the transformers configuration classes (v4.55): DeepseekV3Config
 * (first_k_dense_replace, moe_layer_freq, n_group, topk_group, num_nextn_predict_layers,
 * q_lora_rank ... v_head_dim), Llama4TextConfig (interleave_moe_layer_step,
 * intermediate_size_mlp for dense layers, one shared expert in every MoE layer,
 * attention_chunk_size), GptOssConfig (layer_types, sliding_window, attention sinks,
 * biases on attention, router and experts), Qwen3MoeConfig (decoder_sparse_step,
 * mlp_only_layers, q/k norms), Gemma2/3Config (sliding_window, sliding_window_pattern). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "augur/status.h"
#include "core/jsonutil.h"
#include "model/model_internal.h"

/* A reader over one config object that records the keys it touches. */
struct rd {
    const char *ctx;
    json_t *obj;
    struct aug_model_keys *keys;
};

static void touch(struct rd *r, const char *key) {
    if (json_object_get(r->obj, key))
        aug_model_keys_use(r->keys, key);
}

static json_t *rget(struct rd *r, const char *key) {
    touch(r, key);
    return aug_json_get(r->obj, key);
}

static int rlong(struct rd *r, const char *key, int flags, long *out) {
    touch(r, key);
    return aug_json_long(r->ctx, r->obj, key, flags, out);
}

static int rdouble(struct rd *r, const char *key, int flags, double *out) {
    touch(r, key);
    return aug_json_double(r->ctx, r->obj, key, flags, out);
}

static int rbool(struct rd *r, const char *key, int *out) {
    touch(r, key);
    return aug_json_bool(r->ctx, r->obj, key, 0, out);
}

/* First present key of `keys`: AUG_OK, AUG_ENOTFOUND or AUG_EDATA. */
static int first_long(struct rd *r, const char *const *keys, int flags, long *out) {
    for (; *keys; keys++) {
        int st = rlong(r, *keys, flags, out);
        if (st != AUG_ENOTFOUND)
            return st;
    }
    return AUG_ENOTFOUND;
}

static void hf_name(const char *origin, struct rd *r, struct aug_model *m) {
    json_t *v = rget(r, "_name_or_path");
    if (v && json_is_string(v) && json_string_length(v) > 0)
        aug_model_last_component(json_string_value(v), m->name, sizeof m->name);
    if (!m->name[0])
        aug_model_name_from_origin(origin, m->name, sizeof m->name);
}

static void hf_model_type(struct rd *r, char *buf, size_t n) {
    json_t *v = rget(r, "model_type");
    aug_fmt_trunc(buf, n, "%s", v && json_is_string(v) ? json_string_value(v) : "");
}

static int type_in(const char *type, const char *const *list) {
    for (; *list; list++)
        if (strcasecmp(type, *list) == 0)
            return 1;
    return 0;
}

/* Keys that change what a step costs and that augur does not model: named in the source
 * and in keys->unmodelled when present with a value other than null, false, 0 or []. */
static const char *const unmodelled_keys[] = {
    "vision_config",      /* a vision encoder beside the text model (Llama 4, Gemma 3) */
    "audio_config",
    "quantization_config", /* stored weight format: augur uses the plan's dtype */
    "mlp_only_layers",     /* Qwen-MoE dense layers at listed indices */
    "max_window_layers",   /* Qwen2 sliding window on the top layers only */
    "cross_attention_layers", /* Llama 3.2 Vision's image cross-attention layers */
    NULL};

static int meaningful(json_t *v) {
    if (!v || json_is_null(v) || json_is_false(v))
        return 0;
    if (json_is_integer(v) && json_integer_value(v) == 0)
        return 0;
    if (json_is_array(v) && json_array_size(v) == 0)
        return 0;
    return 1;
}

static void note_unmodelled(struct rd *r, struct aug_model *m) {
    char list[256] = "";
    size_t used = 0;
    for (const char *const *k = unmodelled_keys; *k; k++) {
        json_t *v = json_object_get(r->obj, *k);
        if (!meaningful(v))
            continue;
        if (strcmp(*k, "max_window_layers") == 0) { /* only with use_sliding_window */
            json_t *u = json_object_get(r->obj, "use_sliding_window");
            if (!u || !json_is_true(u))
                continue;
        }
        if (r->keys && r->keys->n_unmodelled < AUG_MODEL_MAX_KEYS)
            aug_fmt_trunc(r->keys->unmodelled[r->keys->n_unmodelled++],
                          sizeof r->keys->unmodelled[0], "%s", *k);
        int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
        if (w > 0 && (size_t)w < sizeof list - used)
            used += (size_t)w;
    }
    if (used) {
        char note[300];
        aug_fmt_trunc(note, sizeof note, "not modelled: %s", list);
        aug_model_caveat(m, note);
    }
}

/* Parallel attention and MLP blocks: GPT-J (GPTJBlock: one ln_1 feeds both), Phi-1/2
 * (PhiDecoderLayer: one input_layernorm), Falcon with parallel_attn (FalconConfig default
 * true; new_decoder_architecture or num_ln_in_parallel_attn = 2 gives each branch its own
 * norm, Falcon-40B/180B), GPT-NeoX with use_parallel_residual (default true; its two norms
 * both read the block input). transformers 4.46 modeling_*.py. */
static int hf_parallel_block(struct rd *r, const char *type, struct aug_model *m) {
    int st, on = 0, two = 0;
    long nln = 0;
    if (strcasecmp(type, "gptj") == 0 || strcasecmp(type, "phi") == 0) {
        m->parallel_block = 1;
    } else if (strcasecmp(type, "falcon") == 0) {
        on = 1;
        if ((st = rbool(r, "parallel_attn", &on)) == AUG_EDATA ||
            (st = rbool(r, "new_decoder_architecture", &two)) == AUG_EDATA ||
            (st = rlong(r, "num_ln_in_parallel_attn", AUG_JSON_POSITIVE, &nln)) == AUG_EDATA)
            return AUG_EDATA;
        if (two && nln == 0)
            nln = 2; /* FalconConfig: None means 2 with the new decoder architecture */
        m->parallel_block = two || on ? (nln == 2 ? 2 : 1) : 0;
    } else if (strcasecmp(type, "gpt_neox") == 0) {
        on = 1;
        if ((st = rbool(r, "use_parallel_residual", &on)) == AUG_EDATA)
            return AUG_EDATA;
        m->parallel_block = on ? 2 : 0;
    }
    return AUG_OK;
}

/* GPT-2 style keys: n_embd, n_layer, n_head, n_inner, n_positions. */
int aug_hf_parse_gpt2(const char *origin, json_t *obj, struct aug_model *out,
                      struct aug_model_keys *keys) {
    struct aug_model m;
    aug_model_init(&m);
    char ctx[512], type[64];
    aug_fmt_trunc(ctx, sizeof ctx, "%s: Hugging Face config", origin);
    struct rd r = {ctx, obj, keys};
    hf_name(origin, &r, &m);
    hf_model_type(&r, type, sizeof type);
    int st;
    const int rp = AUG_JSON_REQUIRED | AUG_JSON_POSITIVE;
    if ((st = rlong(&r, "n_embd", rp, &m.hidden)) || (st = rlong(&r, "n_layer", rp, &m.layers)) ||
        (st = rlong(&r, "n_head", rp, &m.heads)))
        return st;
    m.ffn_hidden = 4 * m.hidden; /* n_inner null or absent */
    if ((st = rlong(&r, "n_inner", AUG_JSON_POSITIVE, &m.ffn_hidden)) == AUG_EDATA)
        return st;
    m.vocab = 50257;
    if ((st = rlong(&r, "vocab_size", AUG_JSON_POSITIVE, &m.vocab)) == AUG_EDATA)
        return st;
    m.max_seq = 1024;
    st = rlong(&r, "n_positions", AUG_JSON_POSITIVE, &m.max_seq);
    if (st == AUG_ENOTFOUND)
        st = rlong(&r, "n_ctx", AUG_JSON_POSITIVE, &m.max_seq);
    if (st == AUG_EDATA)
        return st;
    m.tied_embeddings = 1; /* PretrainedConfig default, and GPT-2 ties */
    if ((st = rbool(&r, "tie_word_embeddings", &m.tied_embeddings)) == AUG_EDATA)
        return st;
    m.mlp = AUG_MLP_GELU;
    m.norm = AUG_NORM_LAYERNORM;
    m.pos = rget(&r, "rotary_dim") ? AUG_POS_ROPE : AUG_POS_LEARNED; /* GPT-J */
    m.linear_bias = 1;
    int mq = 0;
    if ((st = rbool(&r, "multi_query", &mq)) == AUG_EDATA)
        return st;
    if (mq)
        m.kv_heads = 1; /* GPTBigCode multi-query attention */
    if ((st = hf_parallel_block(&r, type, &m)))
        return st;
    aug_fmt_trunc(m.source, sizeof m.source, "Hugging Face config.json %s (model_type %s)", origin,
                  type[0] ? type : "gpt2");
    note_unmodelled(&r, &m);
    if ((st = aug_model_finish(&m, origin)))
        return st;
    aug_model_keys_finish(keys, obj);
    *out = m;
    return AUG_OK;
}

/* Sliding windows: `sliding_window` with the layer pattern of `layer_types` (GPT-OSS,
 * Gemma 3 newer configs), `sliding_window_pattern` (Gemma 3), Gemma 2's alternation, or
 * every layer (Mistral; Qwen only with use_sliding_window). */
static int hf_window(struct rd *r, const char *type, struct aug_model *m) {
    long w = 0;
    int st = rlong(r, "sliding_window", AUG_JSON_NONNEG, &w);
    if (st == AUG_EDATA)
        return st;
    if (w <= 0)
        return AUG_OK;
    int use = 1;
    if ((st = rbool(r, "use_sliding_window", &use)) == AUG_EDATA)
        return st;
    if (!use)
        return AUG_OK;
    m->sliding_window = w;
    m->global_attn_every = 0;
    json_t *lt = rget(r, "layer_types");
    long pattern = 0;
    if (json_is_array(lt) && json_array_size(lt) > 0) {
        size_t n = json_array_size(lt);
        long first_full = -1, n_full = 0;
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(lt, i);
            const char *s = json_is_string(e) ? json_string_value(e) : "";
            if (strcmp(s, "full_attention") == 0) {
                n_full++;
                if (first_full < 0)
                    first_full = (long)i;
            } else if (strcmp(s, "sliding_attention") != 0) {
                return aug_errorf(AUG_EUNSUPPORTED,
                                  "%s: field 'layer_types'[%zu] = '%s': only sliding_attention "
                                  "and full_attention layers are modelled",
                                  r->ctx, i, s);
            }
        }
        if (n_full == 0) {
            pattern = 0;
        } else {
            pattern = first_full + 1;
            for (size_t i = 0; i < n; i++) {
                json_t *e = json_array_get(lt, i);
                int full = strcmp(json_string_value(e), "full_attention") == 0;
                if (full != ((long)(i + 1) % pattern == 0))
                    return aug_errorf(AUG_EUNSUPPORTED,
                                      "%s: field 'layer_types': full-attention layers are not "
                                      "every %ld-th layer, a pattern augur does not model",
                                      r->ctx, pattern);
            }
        }
    } else if ((st = rlong(r, "sliding_window_pattern", AUG_JSON_POSITIVE, &pattern)) ==
               AUG_EDATA) {
        return st;
    } else if (st == AUG_ENOTFOUND && strcasecmp(type, "gemma2") == 0) {
        pattern = 2; /* Gemma 2: even layers local, odd layers global */
    }
    m->global_attn_every = pattern;
    return AUG_OK;
}

/* DeepSeek-V2/V3 multi-head latent attention. */
static int hf_mla(struct rd *r, struct aug_model *m) {
    long rkv = 0;
    int st = rlong(r, "kv_lora_rank", AUG_JSON_POSITIVE, &rkv);
    if (st != AUG_OK)
        return st == AUG_ENOTFOUND ? AUG_OK : st;
    m->attention = AUG_ATTN_MLA;
    m->kv_lora_rank = rkv;
    const int rp = AUG_JSON_REQUIRED | AUG_JSON_POSITIVE;
    if ((st = rlong(r, "q_lora_rank", AUG_JSON_POSITIVE, &m->q_lora_rank)) == AUG_EDATA ||
        (st = rlong(r, "qk_nope_head_dim", rp, &m->qk_nope_head_dim)) ||
        (st = rlong(r, "qk_rope_head_dim", rp, &m->qk_rope_head_dim)) ||
        (st = rlong(r, "v_head_dim", rp, &m->v_head_dim)))
        return st;
    m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
    m->kv_heads = m->heads;
    return AUG_OK;
}

/* Mixture of experts: Mixtral (num_local_experts), Qwen-MoE (num_experts), DeepSeek
 * (n_routed_experts, n_shared_experts, moe_intermediate_size), GPT-OSS
 * (experts_per_token), Llama 4 (one shared expert, interleave_moe_layer_step). */
static int hf_moe(struct rd *r, const char *type, struct aug_model *m, long *moe_ffn) {
    static const char *const expert_keys[] = {"num_local_experts", "n_routed_experts",
                                              "num_experts", NULL};
    static const char *const topk_keys[] = {"num_experts_per_tok", "experts_per_token", NULL};
    static const char *const freq_keys[] = {"moe_layer_freq", "decoder_sparse_step",
                                            "interleave_moe_layer_step", NULL};
    long experts = 0;
    int st = first_long(r, expert_keys, AUG_JSON_NONNEG, &experts);
    if (st == AUG_EDATA)
        return st;
    if ((st = rlong(r, "moe_intermediate_size", AUG_JSON_POSITIVE, moe_ffn)) == AUG_EDATA)
        return st;
    if (experts <= 1)
        return AUG_OK;
    m->arch = AUG_ARCH_MOE;
    m->moe_experts = experts;
    st = first_long(r, topk_keys, AUG_JSON_POSITIVE, &m->moe_topk);
    if (st == AUG_ENOTFOUND)
        return aug_errorf(AUG_EDATA, "%s: field 'num_experts_per_tok' is missing", r->ctx);
    if (st)
        return st;
    if ((st = rlong(r, "n_shared_experts", AUG_JSON_NONNEG, &m->moe_shared_experts)) ==
        AUG_EDATA)
        return st;
    if (strncasecmp(type, "llama4", 6) == 0)
        m->moe_shared_experts = 1; /* Llama4TextMoe: a shared expert in every MoE layer */
    long shared_ffn = 0;
    if ((st = rlong(r, "shared_expert_intermediate_size", AUG_JSON_NONNEG, &shared_ffn)) ==
        AUG_EDATA)
        return st;
    if (shared_ffn > 0 && *moe_ffn > 0 && m->moe_shared_experts == 0) {
        /* Qwen2-MoE: one wide shared expert = shared_ffn / moe_ffn fine-grained ones */
        m->moe_shared_experts = (shared_ffn + *moe_ffn / 2) / *moe_ffn;
        if (shared_ffn % *moe_ffn)
            aug_model_caveat(m,
                               "shared expert rounded to shared_expert_intermediate_size / "
                               "moe_intermediate_size experts");
    }
    if ((st = rdouble(r, "capacity_factor", AUG_JSON_POSITIVE, &m->moe_capacity_factor)) ==
        AUG_EDATA)
        return st;
    if ((st = rlong(r, "first_k_dense_replace", AUG_JSON_NONNEG, &m->moe_dense_layers)) ==
        AUG_EDATA)
        return st;
    m->moe_layer_freq = 1;
    if ((st = first_long(r, freq_keys, AUG_JSON_POSITIVE, &m->moe_layer_freq)) == AUG_EDATA)
        return st;
    if ((st = rlong(r, "n_group", AUG_JSON_NONNEG, &m->moe_groups)) == AUG_EDATA ||
        (st = rlong(r, "topk_group", AUG_JSON_NONNEG, &m->moe_topk_groups)) == AUG_EDATA)
        return st;
    return AUG_OK;
}

static int hf_activation(struct rd *r, const char *type, int *gated) {
    static const char *const non_gated[] = {"gpt_neox", "falcon", "phi", "opt", "bloom",
                                            "mpt", "persimmon", "gpt_bigcode", NULL};
    static const char *const act_keys[] = {"hidden_act", "hidden_activation",
                                           "activation_function", NULL};
    char act[64] = "silu";
    for (const char *const *k = act_keys; *k; k++) {
        json_t *v = rget(r, *k);
        if (!v)
            continue;
        if (!json_is_string(v))
            return aug_errorf(AUG_EDATA, "%s: field '%s' must be a string (got %s)", r->ctx, *k,
                              aug_json_type_name(v));
        aug_fmt_trunc(act, sizeof act, "%s", json_string_value(v));
        break;
    }
    /* a gated MLP (SwiGLU, GeGLU) has three matrices, a plain one two */
    *gated = 1;
    if ((strstr(act, "gelu") || strstr(act, "relu")) && strncasecmp(type, "gemma", 5) != 0 &&
        strncasecmp(type, "grok", 4) != 0)
        *gated = 0;
    if (type_in(type, non_gated))
        *gated = 0;
    return AUG_OK;
}

/* Architectures whose layers are not attention + FFN: refused by name. */
static int hf_refuse(struct rd *r, const char *type) {
    static const char *const refused[] = {"mamba", "mamba2", "jamba", "rwkv", "recurrent_gemma",
                                          "qwen3_next", "falcon_h1", "zamba", "zamba2",
                                          "bamba", "nemotron_h", "granitemoehybrid", NULL};
    if (type_in(type, refused))
        return aug_errorf(AUG_EUNSUPPORTED,
                          "%s: model_type '%s' has recurrent or state-space layers, which augur "
                          "does not model",
                          r->ctx, type);
    return AUG_OK;
}

int aug_hf_parse_llama(const char *origin, json_t *obj, struct aug_model *out,
                       struct aug_model_keys *keys) {
    static const char *const with_bias[] = {"gpt_neox", "phi", "opt", "bloom", "persimmon",
                                            "gpt_oss", NULL};
    static const char *const layernorm_types[] = {"gpt_neox", "falcon", "phi", "opt", "bloom",
                                                  "persimmon", NULL};
    static const char *const qk_norm_types[] = {"qwen3", "qwen3_moe", "gemma3", "gemma3_text",
                                                "olmo2", NULL};
    static const char *const ffn_keys[] = {"intermediate_size", "ffn_hidden_size", "ffn_dim",
                                           "n_inner", NULL};
    static const char *const dense_ffn_keys[] = {"intermediate_size_mlp", "intermediate_size",
                                                 "ffn_hidden_size", "ffn_dim", NULL};
    static const char *const seq_keys[] = {"max_position_embeddings", "n_positions",
                                           "seq_length", "max_sequence_length", NULL};
    struct aug_model m;
    aug_model_init(&m);
    char ctx[512], type[64];
    aug_fmt_trunc(ctx, sizeof ctx, "%s: Hugging Face config", origin);
    struct rd r = {ctx, obj, keys};
    hf_name(origin, &r, &m);
    hf_model_type(&r, type, sizeof type);
    int st;
    if ((st = hf_refuse(&r, type)))
        return st;
    const int rp = AUG_JSON_REQUIRED | AUG_JSON_POSITIVE;
    if ((st = rlong(&r, "hidden_size", rp, &m.hidden)) ||
        (st = rlong(&r, "num_hidden_layers", rp, &m.layers)) ||
        (st = rlong(&r, "num_attention_heads", rp, &m.heads)) ||
        (st = rlong(&r, "vocab_size", rp, &m.vocab)))
        return st;
    m.kv_heads = m.heads;
    st = rlong(&r, "num_key_value_heads", AUG_JSON_POSITIVE, &m.kv_heads);
    if (st == AUG_ENOTFOUND)
        st = rlong(&r, "num_kv_heads", AUG_JSON_POSITIVE, &m.kv_heads);
    if (st == AUG_EDATA)
        return st;
    int mq = 0;
    if ((st = rbool(&r, "multi_query", &mq)) == AUG_EDATA)
        return st;
    if (mq && !aug_json_get(obj, "num_key_value_heads") && !aug_json_get(obj, "num_kv_heads"))
        m.kv_heads = 1;
    m.max_seq = 2048; /* LlamaConfig default */
    if ((st = first_long(&r, seq_keys, AUG_JSON_POSITIVE, &m.max_seq)) == AUG_EDATA)
        return st;
    if ((st = rlong(&r, "head_dim", AUG_JSON_POSITIVE, &m.head_dim)) == AUG_EDATA)
        return st;

    int gated = 1;
    if ((st = hf_activation(&r, type, &gated)))
        return st;
    m.mlp = gated ? AUG_MLP_SWIGLU : AUG_MLP_GELU;
    m.norm = type_in(type, layernorm_types) ? AUG_NORM_LAYERNORM : AUG_NORM_RMSNORM;
    if (rget(&r, "rms_norm_eps"))
        m.norm = AUG_NORM_RMSNORM;
    m.pos = strcasecmp(type, "opt") == 0 ? AUG_POS_LEARNED : AUG_POS_ROPE;
    m.tied_embeddings = strncasecmp(type, "gemma", 5) == 0;
    if ((st = rbool(&r, "tie_word_embeddings", &m.tied_embeddings)) == AUG_EDATA)
        return st;
    m.linear_bias = type_in(type, with_bias);
    static const char *const bias_keys[] = {"mlp_bias", "use_bias", "bias", "add_bias_linear",
                                            NULL};
    for (const char *const *k = bias_keys; *k; k++) {
        int b = 0;
        if ((st = rbool(&r, *k, &b)) == AUG_EDATA)
            return st;
        if (st == AUG_OK)
            m.linear_bias = b;
    }
    aug_fmt_trunc(m.source, sizeof m.source, "Hugging Face config.json %s (model_type %s)", origin,
                  type[0] ? type : "unknown");
    int attn_bias = 0;
    if ((st = rbool(&r, "attention_bias", &attn_bias)) == AUG_EDATA)
        return st;
    m.attn_bias = attn_bias && !m.linear_bias;
    if (!m.linear_bias && !attn_bias && strncasecmp(type, "qwen2", 5) == 0)
        aug_model_caveat(&m, "QKV projection biases not counted");
    if ((st = hf_parallel_block(&r, type, &m)))
        return st;
    m.qk_norm = type_in(type, qk_norm_types);
    m.attn_sinks = strcasecmp(type, "gpt_oss") == 0; /* GptOssAttention.sinks */

    long moe_ffn = 0;
    if ((st = hf_moe(&r, type, &m, &moe_ffn)))
        return st;
    if (m.arch == AUG_ARCH_MOE && moe_ffn > 0) {
        m.ffn_hidden = moe_ffn;
        long dense = 0;
        if ((st = first_long(&r, dense_ffn_keys, AUG_JSON_POSITIVE, &dense)) == AUG_EDATA)
            return st;
        if (dense > 0 && dense != moe_ffn)
            m.dense_ffn_hidden = dense;
    } else {
        st = first_long(&r, ffn_keys, AUG_JSON_POSITIVE, &m.ffn_hidden);
        if (st == AUG_EDATA)
            return st;
        if (st == AUG_ENOTFOUND) {
            if (gated)
                return aug_errorf(AUG_EDATA, "%s: field 'intermediate_size' is missing", ctx);
            m.ffn_hidden = 4 * m.hidden;
        }
        if (m.arch == AUG_ARCH_MOE) { /* Llama 4: experts intermediate_size, dense _mlp */
            long dense = 0;
            if ((st = rlong(&r, "intermediate_size_mlp", AUG_JSON_POSITIVE, &dense)) ==
                AUG_EDATA)
                return st;
            if (dense > 0 && dense != m.ffn_hidden)
                m.dense_ffn_hidden = dense;
        }
    }
    if ((st = hf_mla(&r, &m)))
        return st;
    if ((st = hf_window(&r, type, &m)))
        return st;
    long chunk = 0;
    if ((st = rlong(&r, "attention_chunk_size", AUG_JSON_NONNEG, &chunk)) == AUG_EDATA)
        return st;
    if (chunk > 0 && m.sliding_window == 0) {
        /* Llama 4: chunked local attention on three of every four layers (the fourth is
         * global, without RoPE: transformers modeling_llama4.py, no_rope_layers) */
        m.sliding_window = chunk;
        m.attn_chunked = 1;
        m.global_attn_every = 4;
    }
    if ((st = rlong(&r, "num_nextn_predict_layers", AUG_JSON_NONNEG, &m.mtp_layers)) ==
        AUG_EDATA)
        return st;
    note_unmodelled(&r, &m);
    if ((st = aug_model_finish(&m, origin)))
        return st;
    aug_model_keys_finish(keys, obj);
    *out = m;
    return AUG_OK;
}
