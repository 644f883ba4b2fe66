/* SPDX-License-Identifier: Apache-2.0 */
/* model_keys.c - the record of how a model file was read, for `augur models --show` and
 * the warnings about fields augur does not model.
 *
 * The loader (model_load.c) reads a fixed set of keys per format; this file lists them
 * with the struct aug_model field each one sets, and the keys that are read by nobody
 * with why that is harmless (tokenizer ids, initialisation, dropout of inference, rotary
 * frequencies) or what is lost (quantized checkpoints, soft-capping, ALiBi). A key in
 * neither list is "not modelled" and named in a warning. Keys of Hugging Face configs as
 * transformers 4.40-4.46 writes them (configuration_*.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "augur/data.h"
#include "augur/model.h"
#include "augur/status.h"
#include "core/jsonutil.h"
#include "model/model_keys.h"

struct key_rule {
    const char *key;
    enum aug_key_use use;
    const char *why;
};

/* Hugging Face keys the loader reads (parse_hf_gpt2, parse_hf_llama). */
static const struct key_rule hf_rules[] = {
    {"hidden_size", AUG_KEY_USED, "hidden"},
    {"n_embd", AUG_KEY_USED, "hidden"},
    {"num_hidden_layers", AUG_KEY_USED, "layers"},
    {"n_layer", AUG_KEY_USED, "layers"},
    {"num_attention_heads", AUG_KEY_USED, "heads"},
    {"n_head", AUG_KEY_USED, "heads"},
    {"num_key_value_heads", AUG_KEY_USED, "kv_heads (grouped-query attention)"},
    {"num_kv_heads", AUG_KEY_USED, "kv_heads (grouped-query attention)"},
    {"multi_query", AUG_KEY_USED, "kv_heads = 1 when true (multi-query attention)"},
    {"head_dim", AUG_KEY_USED, "head_dim"},
    {"qk_nope_head_dim", AUG_KEY_USED, "qk_nope_head_dim (latent attention: q.k without RoPE)"},
    {"qk_rope_head_dim", AUG_KEY_USED, "qk_rope_head_dim (latent attention: the RoPE key)"},
    {"q_lora_rank", AUG_KEY_USED, "q_lora_rank (latent attention: query compression)"},
    {"kv_lora_rank", AUG_KEY_USED, "kv_lora_rank, attention mla (the cached latent)"},
    {"v_head_dim", AUG_KEY_USED, "v_head_dim (latent attention: value width)"},
    {"num_nextn_predict_layers", AUG_KEY_USED, "mtp_layers (multi-token prediction modules)"},
    {"sliding_window", AUG_KEY_USED, "sliding_window (the windowed layers' keys and cache)"},
    {"use_sliding_window", AUG_KEY_USED, "Qwen2: sliding_window only when true"},
    {"max_window_layers", AUG_KEY_USED, "Qwen2: windows only with use_sliding_window"},
    {"sliding_window_pattern", AUG_KEY_USED, "global_attn_every (Gemma 3: n-th layer global)"},
    {"layer_types", AUG_KEY_USED, "global_attn_every (the pattern of sliding and full layers)"},
    {"attention_chunk_size", AUG_KEY_USED, "sliding_window, attn_chunked (Llama 4: 3 of 4 layers)"},
    {"n_group", AUG_KEY_USED, "moe_groups (grouped routing)"},
    {"topk_group", AUG_KEY_USED, "moe_topk_groups (groups a token may reach)"},
    {"interleave_moe_layer_step", AUG_KEY_USED, "moe_layer_freq (Llama 4: every n-th layer MoE)"},
    {"intermediate_size_mlp", AUG_KEY_USED, "dense_ffn_hidden (Llama 4 dense layers)"},
    {"experts_per_token", AUG_KEY_USED, "moe_topk (GPT-OSS)"},
    {"intermediate_size", AUG_KEY_USED, "ffn_hidden"},
    {"ffn_hidden_size", AUG_KEY_USED, "ffn_hidden"},
    {"ffn_dim", AUG_KEY_USED, "ffn_hidden"},
    {"n_inner", AUG_KEY_USED, "ffn_hidden (null: 4 x hidden)"},
    {"vocab_size", AUG_KEY_USED, "vocab"},
    {"max_position_embeddings", AUG_KEY_USED, "max_seq"},
    {"n_positions", AUG_KEY_USED, "max_seq"},
    {"n_ctx", AUG_KEY_USED, "max_seq"},
    {"seq_length", AUG_KEY_USED, "max_seq"},
    {"max_sequence_length", AUG_KEY_USED, "max_seq"},
    {"tie_word_embeddings", AUG_KEY_USED, "tied_embeddings"},
    {"hidden_act", AUG_KEY_USED, "mlp (gated SwiGLU/GeGLU or plain)"},
    {"hidden_activation", AUG_KEY_USED, "mlp (gated SwiGLU/GeGLU or plain)"},
    {"activation_function", AUG_KEY_USED, "mlp (gated SwiGLU/GeGLU or plain)"},
    {"model_type", AUG_KEY_USED, "defaults of mlp, norm and linear_bias for that family"},
    {"attention_bias", AUG_KEY_USED, "linear_bias"},
    {"mlp_bias", AUG_KEY_USED, "linear_bias"},
    {"bias", AUG_KEY_USED, "linear_bias"},
    {"use_bias", AUG_KEY_USED, "linear_bias"},
    {"add_bias_linear", AUG_KEY_USED, "linear_bias"},
    {"rms_norm_eps", AUG_KEY_USED, "norm = rmsnorm (its presence; the value is numerical only)"},
    {"rotary_dim", AUG_KEY_USED, "pos = rope"},
    {"num_local_experts", AUG_KEY_USED, "moe_experts (arch moe)"},
    {"num_experts", AUG_KEY_USED, "moe_experts (arch moe)"},
    {"n_routed_experts", AUG_KEY_USED, "moe_experts (arch moe)"},
    {"num_experts_per_tok", AUG_KEY_USED, "moe_topk"},
    {"n_shared_experts", AUG_KEY_USED, "moe_shared_experts"},
    {"shared_expert_intermediate_size", AUG_KEY_USED, "moe_shared_experts (in units of the expert FFN)"},
    {"moe_intermediate_size", AUG_KEY_USED, "ffn_hidden of one expert"},
    {"capacity_factor", AUG_KEY_USED, "moe_capacity_factor"},
    {"decoder_sparse_step", AUG_KEY_USED, "moe_layer_freq (Qwen-MoE: every n-th layer MoE)"},
    {"moe_layer_freq", AUG_KEY_USED, "moe_layer_freq (every n-th layer MoE)"},
    {"first_k_dense_replace", AUG_KEY_USED, "moe_dense_layers (the first k layers dense)"},
    {"_name_or_path", AUG_KEY_USED, "name"},
    {"text_config", AUG_KEY_USED, "the language model's keys of a multimodal config"},
    /* read by nobody, harmless */
    {"architectures", AUG_KEY_IGNORED, "class name; model_type decides"},
    {"transformers_version", AUG_KEY_IGNORED, "metadata"},
    {"_commit_hash", AUG_KEY_IGNORED, "metadata"},
    {"auto_map", AUG_KEY_IGNORED, "metadata (custom code location)"},
    {"torch_dtype", AUG_KEY_IGNORED, "storage dtype; the compute dtype is --dtype, inference weights --weight-dtype"},
    {"dtype", AUG_KEY_IGNORED, "storage dtype; the compute dtype is --dtype, inference weights --weight-dtype"},
    {"bos_token_id", AUG_KEY_IGNORED, "tokenizer id"},
    {"eos_token_id", AUG_KEY_IGNORED, "tokenizer id"},
    {"pad_token_id", AUG_KEY_IGNORED, "tokenizer id"},
    {"sep_token_id", AUG_KEY_IGNORED, "tokenizer id"},
    {"decoder_start_token_id", AUG_KEY_IGNORED, "tokenizer id"},
    {"initializer_range", AUG_KEY_IGNORED, "initialisation only"},
    {"initializer_factor", AUG_KEY_IGNORED, "initialisation only"},
    {"init_std", AUG_KEY_IGNORED, "initialisation only"},
    {"use_cache", AUG_KEY_IGNORED, "inference always keeps a KV cache in augur"},
    {"rope_theta", AUG_KEY_IGNORED, "rotary base frequency: same FLOPs and bytes"},
    {"rope_scaling", AUG_KEY_IGNORED, "rotary frequency scaling: same FLOPs and bytes"},
    {"rotary_emb_base", AUG_KEY_IGNORED, "rotary base frequency: same FLOPs and bytes"},
    {"rotary_pct", AUG_KEY_IGNORED, "share of head_dim rotated: elementwise, negligible"},
    {"partial_rotary_factor", AUG_KEY_IGNORED, "share of head_dim rotated: elementwise, negligible"},
    {"layer_norm_eps", AUG_KEY_IGNORED, "numerical constant"},
    {"layer_norm_epsilon", AUG_KEY_IGNORED, "numerical constant"},
    {"norm_epsilon", AUG_KEY_IGNORED, "numerical constant"},
    {"pretraining_tp", AUG_KEY_IGNORED, "numerics switch of the original training, same shapes"},
    {"attention_dropout", AUG_KEY_IGNORED, "dropout: LLM pre-training runs set 0; inference never drops"},
    {"hidden_dropout", AUG_KEY_IGNORED, "dropout: LLM pre-training runs set 0; inference never drops"},
    {"resid_pdrop", AUG_KEY_IGNORED, "dropout: LLM pre-training runs set 0; inference never drops"},
    {"embd_pdrop", AUG_KEY_IGNORED, "dropout: LLM pre-training runs set 0; inference never drops"},
    {"attn_pdrop", AUG_KEY_IGNORED, "dropout: LLM pre-training runs set 0; inference never drops"},
    {"summary_first_dropout", AUG_KEY_IGNORED, "classification head, not used"},
    {"summary_activation", AUG_KEY_IGNORED, "classification head, not used"},
    {"summary_proj_to_labels", AUG_KEY_IGNORED, "classification head, not used"},
    {"summary_type", AUG_KEY_IGNORED, "classification head, not used"},
    {"summary_use_proj", AUG_KEY_IGNORED, "classification head, not used"},
    {"task_specific_params", AUG_KEY_IGNORED, "generation defaults"},
    {"scale_attn_weights", AUG_KEY_IGNORED, "a scalar multiply inside attention"},
    {"reorder_and_upcast_attn", AUG_KEY_IGNORED, "numerics switch"},
    {"scale_attn_by_inverse_layer_idx", AUG_KEY_IGNORED, "numerics switch"},
    {"router_aux_loss_coef", AUG_KEY_IGNORED, "training loss weight, same shapes"},
    {"router_z_loss_coef", AUG_KEY_IGNORED, "training loss weight, same shapes"},
    {"output_router_logits", AUG_KEY_IGNORED, "what the forward returns, same shapes"},
    {"router_jitter_noise", AUG_KEY_IGNORED, "training noise, same shapes"},
    {"norm_topk_prob", AUG_KEY_IGNORED, "router weight normalisation, same shapes"},
    {"routed_scaling_factor", AUG_KEY_IGNORED, "router output scale, same shapes"},
    {"scoring_func", AUG_KEY_IGNORED, "router scoring function, same shapes"},
    {"topk_method", AUG_KEY_IGNORED, "router selection rule; load imbalance is --moe-imbalance"},
    {"aux_loss_alpha", AUG_KEY_IGNORED, "training loss weight, same shapes"},
    {"seq_aux", AUG_KEY_IGNORED, "training loss variant, same shapes"},
    {"ep_size", AUG_KEY_IGNORED, "the expert-parallel degree is --ep"},
    {"attn_implementation", AUG_KEY_IGNORED, "the attention kernel is --attention"},
    {"_attn_implementation", AUG_KEY_IGNORED, "the attention kernel is --attention"},
    {"_attn_implementation_autoset", AUG_KEY_IGNORED, "the attention kernel is --attention"},
    {"use_flash_attn", AUG_KEY_IGNORED, "the attention kernel is --attention"},
    {"is_decoder", AUG_KEY_IGNORED, "decoder-only models are what augur models"},
    {"return_dict", AUG_KEY_IGNORED, "Python API switch"},
    {"output_attentions", AUG_KEY_IGNORED, "Python API switch"},
    {"output_hidden_states", AUG_KEY_IGNORED, "Python API switch"},
    {"torchscript", AUG_KEY_IGNORED, "Python API switch"},
    {"gradient_checkpointing", AUG_KEY_IGNORED, "recomputation is --recompute"},
    {"id2label", AUG_KEY_IGNORED, "classification labels"},
    {"label2id", AUG_KEY_IGNORED, "classification labels"},
    /* read by nobody, and they change what runs */
    {"quantization_config", AUG_KEY_UNMODELED, "the checkpoint is quantized: pass --weight-dtype to infer"},
    {"final_logit_softcapping", AUG_KEY_UNMODELED, "logit soft-capping: an elementwise op not counted"},
    {"attn_logit_softcapping", AUG_KEY_UNMODELED, "logit soft-capping: an elementwise op not counted"},
    {"query_pre_attn_scalar", AUG_KEY_UNMODELED, "a scalar inside attention"},
    {"parallel_attn", AUG_KEY_USED, "parallel_block (Falcon: attention and MLP side by side)"},
    {"use_parallel_residual", AUG_KEY_USED, "parallel_block = 2 (GPT-NeoX: a norm per branch)"},
    {"new_decoder_architecture", AUG_KEY_USED, "parallel_block = 2 (Falcon-40B/180B: a norm per branch)"},
    {"num_ln_in_parallel_attn", AUG_KEY_USED, "parallel_block 1 or 2 (Falcon: norms per block)"},
    {"alibi", AUG_KEY_UNMODELED, "ALiBi position bias: counted as no position encoding"},
};

const char *aug_key_use_name(enum aug_key_use u) {
    switch (u) {
    case AUG_KEY_USED: return "used";
    case AUG_KEY_IGNORED: return "ignored";
    default: return "not modelled";
    }
}

static void add_key(struct aug_model_record *rec, const char *key, enum aug_key_use use,
                    const char *why) {
    if (rec->n == AUG_MODEL_KEYS_MAX) {
        rec->n_more++;
        return;
    }
    struct aug_model_key *k = &rec->keys[rec->n++];
    aug_fmt_trunc(k->key, sizeof k->key, "%s", key);
    k->use = use;
    aug_fmt_trunc(k->why, sizeof k->why, "%s", why);
}

static int listed(char (*list)[48], int n, const char *key) {
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], key) == 0)
            return 1;
    return 0;
}

/* The loader's own record (aug_model_load_keys) decides used / ignored / not modelled;
 * the table above gives the reason, and decides alone for keys the loader did not list. */
static void classify_hf(struct aug_model_record *rec, json_t *obj, const struct aug_model_keys *lk) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        const struct key_rule *r = NULL;
        for (size_t i = 0; i < sizeof hf_rules / sizeof hf_rules[0] && !r; i++)
            if (strcmp(hf_rules[i].key, key) == 0)
                r = &hf_rules[i];
        char (*used)[48] = (char (*)[48])lk->used, (*ign)[48] = (char (*)[48])lk->ignored,
             (*unm)[48] = (char (*)[48])lk->unmodelled;
        if (listed(used, lk->n_used, key))
            add_key(rec, key, AUG_KEY_USED, r && r->use == AUG_KEY_USED ? r->why
                                                                         : "read into the model");
        else if (listed(unm, lk->n_unmodelled, key))
            add_key(rec, key, AUG_KEY_UNMODELED, r && r->use == AUG_KEY_UNMODELED
                                                     ? r->why : "changes cost; not modelled");
        else if (listed(ign, lk->n_ignored, key))
            add_key(rec, key, AUG_KEY_IGNORED, r && r->use == AUG_KEY_IGNORED
                                                   ? r->why : "changes no timing or memory");
        else if (r)
            add_key(rec, key, r->use, r->why);
        else
            add_key(rec, key, AUG_KEY_UNMODELED, "not a key augur reads");
    }
}

int aug_model_load_record(const char *data_root, const char *name_or_path, struct aug_model *out,
                          struct aug_model_record *rec) {
    memset(rec, 0, sizeof *rec);
    static struct aug_model_keys lk;
    memset(&lk, 0, sizeof lk);
    int st = aug_model_load_keys(data_root, name_or_path, out, &lk);
    if (st)
        return st;
    char path[1024];
    if (aug_model_file(name_or_path, path, sizeof path) != AUG_OK) {
        aug_fmt_trunc(rec->format, sizeof rec->format, "preset");
        aug_fmt_trunc(rec->path, sizeof rec->path, "%s/presets/models.json",
                      data_root && *data_root ? data_root : aug_data_dir());
        add_key(rec, "(all)", AUG_KEY_USED, "a preset: every key is one of struct aug_model");
        return AUG_OK;
    }
    aug_fmt_trunc(rec->path, sizeof rec->path, "%s", path);
    char *text;
    json_t *root;
    if ((st = aug_read_file_max(path, AUG_JSON_FILE_MAX, &text, NULL)))
        return st;
    st = aug_json_parse(path, text, &root);
    free(text);
    if (st)
        return st;
    json_t *obj = root;
    if (!json_object_get(obj, "hidden") && !json_object_get(obj, "layers") &&
        !json_object_get(obj, "hidden_size") && !json_object_get(obj, "n_embd") &&
        json_is_object(json_object_get(obj, "text_config"))) {
        add_key(rec, "text_config", AUG_KEY_USED, "the language model's keys, listed below");
        obj = json_object_get(obj, "text_config");
    }
    if (json_object_get(obj, "hidden") || json_object_get(obj, "layers")) {
        aug_fmt_trunc(rec->format, sizeof rec->format, "augur model JSON");
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
            add_key(rec, key, AUG_KEY_USED, "the struct aug_model field of that name");
    } else {
        aug_fmt_trunc(rec->format, sizeof rec->format, "Hugging Face config.json");
        classify_hf(rec, obj, &lk);
    }
    json_decref(root);
    return AUG_OK;
}
