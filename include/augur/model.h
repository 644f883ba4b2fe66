/* SPDX-License-Identifier: Apache-2.0 */
/* model.h - model architecture hyper-parameters, presets and loaders.
 *
 * A model comes from a preset name (presets/models.json), from a Hugging Face
 * config.json (GPT-2, Llama, Mistral, Mixtral, Qwen2/3, DeepSeek-V2/V3, GPT-OSS, Llama 4,
 * Gemma keys; reader in model/hf_config.c) or from augur's own model JSON (the keys of
 * struct aug_model).
 *
 * Layers need not be alike: the first moe_dense_layers are dense (DeepSeek's
 * first_k_dense_replace), after them every moe_layer_freq-th layer is MoE (Llama 4's
 * interleave step; layer i, 0-based, is MoE when i >= moe_dense_layers and
 * (i + 1) % moe_layer_freq == 0), dense layers have an FFN of dense_ffn_hidden; with a
 * sliding window every global_attn_every-th layer ((i + 1) % n == 0) attends to the whole
 * context and the others to the last sliding_window tokens (0: every layer windowed). */
#ifndef AUG_MODEL_H
#define AUG_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

enum aug_arch {
    AUG_ARCH_DENSE,      /* decoder-only transformer */
    AUG_ARCH_MOE,        /* transformer with mixture-of-experts FFN */
    AUG_ARCH_MATMULFREE, /* MatMul-free LM (Zhu et al. 2024) */
    AUG_ARCH_COUNT
};
enum aug_mlp { AUG_MLP_GELU, AUG_MLP_SWIGLU, AUG_MLP_COUNT };
enum aug_norm { AUG_NORM_LAYERNORM, AUG_NORM_RMSNORM, AUG_NORM_COUNT };
enum aug_pos { AUG_POS_LEARNED, AUG_POS_ROPE, AUG_POS_COUNT };
/* Attention: multi-head / grouped-query / multi-query ("gqa": heads, kv_heads, head_dim),
 * or DeepSeek's multi-head latent attention ("mla", DeepSeek-V2, arXiv 2405.04434, sec.
 * 2.1: low-rank query and joint key-value compression, a decoupled RoPE key). */
enum aug_attn { AUG_ATTN_GQA, AUG_ATTN_MLA, AUG_ATTN_COUNT };
/* How the model's published FP8 checkpoint (NVIDIA TensorRT Model Optimizer) is quantized,
 * which decides the KV cache an engine serves it with when none is asked (serving.h):
 * "per_tensor" (ModelOpt's FP8 recipe, quant_algo FP8, the Llama 3.x checkpoints: FP8
 * weights and activations with one scale per tensor), or "per_channel_per_token"
 * (quant_algo FP8_PER_CHANNEL_PER_TOKEN: a scale per weight row and dynamic scales per
 * activation token, and no KV-cache quantization; the Llama 4 Maverick checkpoint, which
 * TensorRT-LLM's accuracy tests load with quant_algo FP8_PER_CHANNEL_PER_TOKEN and must give
 * kv_cache_quant_algo FP8 themselves for an FP8 cache:
 * tests/integration/defs/accuracy/test_llm_api_pytorch.py,
 * TestLlama4MaverickInstruct.test_fp8_prequantized, v0.20-era). */
enum aug_fp8_recipe { AUG_FP8_PER_TENSOR, AUG_FP8_PER_CHANNEL_PER_TOKEN, AUG_FP8_RECIPE_COUNT };

struct aug_model {
    char name[64];
    enum aug_arch arch;
    long layers;
    long hidden;       /* h */
    long heads;        /* a */
    long kv_heads;     /* GQA/MQA; = heads for MHA */
    long head_dim;     /* h / a unless given */
    long ffn_hidden;   /* MLP inner size (per expert for MoE) */
    long vocab;        /* V */
    long max_seq;      /* maximum context length */
    enum aug_mlp mlp;
    enum aug_norm norm;
    enum aug_pos pos;
    int tied_embeddings;
    int linear_bias;   /* GPT-2/Megatron GPT keep biases in linear layers */
    /* mixture of experts (arch == AUG_ARCH_MOE) */
    long moe_experts;
    long moe_topk;
    long moe_shared_experts;
    double moe_capacity_factor; /* 0: dropless; > 0: the default of plans that give none */
    long moe_dense_layers;   /* the first k layers have a dense FFN (DeepSeek) */
    long moe_layer_freq;     /* every n-th layer is MoE (1: all; Llama 4 Maverick 2) */
    long dense_ffn_hidden;   /* FFN of the dense layers of an MoE model (0: ffn_hidden) */
    long moe_groups;         /* grouped routing: experts in n groups (DeepSeek n_group; 0/1 none) */
    long moe_topk_groups;    /* ... of which each token uses at most this many (topk_group);
                                it limits which experts a token reaches, not the bytes that
                                Megatron-Core's all-to-all dispatcher sends (k copies per
                                token), so it changes no cost here */
    /* attention details */
    enum aug_attn attention;
    long q_lora_rank;        /* MLA: query compression rank (0: full-rank W_Q, V2-Lite) */
    long kv_lora_rank;       /* MLA: joint KV compression rank d_c (the cached latent) */
    long qk_nope_head_dim;   /* MLA: per-head q/k width without RoPE */
    long qk_rope_head_dim;   /* MLA: decoupled RoPE width (one key shared by all heads) */
    long v_head_dim;         /* MLA: per-head value width */
    int qk_norm;             /* RMSNorm of q and k per head (Qwen3, Gemma 3): 2 d weights */
    int attn_bias;           /* biases on the Q, K, V and output projections only */
    int attn_sinks;          /* a learned sink logit per head (GPT-OSS) */
    long sliding_window;     /* tokens a windowed layer attends to (0: none) */
    int attn_chunked;        /* the windowed layers attend within fixed chunks of
                                sliding_window tokens, each query to its own chunk up to
                                itself (Llama 4 attention_chunk_size), not a sliding window */
    long global_attn_every;  /* with a window: every n-th layer global (0: none global) */
    long mtp_layers;         /* DeepSeek-V3 multi-token prediction modules (extra layers,
                                trained beside the model, not in the parameter total) */
    long parallel_block;     /* 0: attention, then the MLP on its residual output; 1: both
                                side by side on one norm's output, summed into one residual
                                (GPT-J, PaLM, MegaScale); 2: the same with a norm per branch
                                (Falcon-40B/180B, GPT-NeoX use_parallel_residual) */
    enum aug_fp8_recipe fp8_recipe; /* of the published FP8 checkpoint (default per_tensor) */
    char source[1024];
    char caveats[256];       /* what the loader approximated or could not model, by name
                                ("not modelled: vision_config"; empty: nothing) */
};

/* Which keys a loaded config used and which it ignored (for `augur models --show`):
 * filled by aug_model_load_keys() / aug_model_from_json_keys(). `unmodelled` lists the
 * ignored keys that name a feature which changes cost and that augur does not model
 * (also noted in the model's source); the others change no timing or memory. */
#define AUG_MODEL_MAX_KEYS 96
struct aug_model_keys {
    int n_used, n_ignored, n_unmodelled;
    char used[AUG_MODEL_MAX_KEYS][48];
    char ignored[AUG_MODEL_MAX_KEYS][48];
    char unmodelled[AUG_MODEL_MAX_KEYS][48];
    char format[32]; /* "augur", "hf-llama" (Llama-style config.json), "hf-gpt2" */
};

const char *aug_arch_name(enum aug_arch a);
const char *aug_mlp_name(enum aug_mlp m);
const char *aug_attn_name(enum aug_attn a); /* "gqa", "mla" */
const char *aug_fp8_recipe_name(enum aug_fp8_recipe r); /* "per_tensor", "per_channel_per_token" */

/* Fill defaults for a GPT-style model with the given dims (ffn 4h, vocab 50257,
 * kv_heads = heads, GELU, LayerNorm, learned positions, untied... as in section 6). */
void aug_model_init(struct aug_model *m);

/* Derive head_dim / kv_heads / ffn defaults, then check every field; AUG_EDATA names
 * the field ("model 'x': heads 0 must be positive"). */
int aug_model_finish(struct aug_model *m, const char *origin);

/* Load by preset name or path (HF config.json or augur model JSON). */
int aug_model_load(const char *data_root, const char *name_or_path, struct aug_model *out);

/* Parse JSON text: HF config keys or augur keys, detected by the keys present. */
int aug_model_from_json(const char *origin, const char *text, struct aug_model *out);

/* The same, also recording the keys used and ignored into *keys (may be NULL). */
int aug_model_load_keys(const char *data_root, const char *name_or_path, struct aug_model *out,
                        struct aug_model_keys *keys);
int aug_model_from_json_keys(const char *origin, const char *text, struct aug_model *out,
                             struct aug_model_keys *keys);

/* How a model description was read (`augur models --show`): every top-level key of the
 * file with what augur did with it. */
enum aug_key_use {
    AUG_KEY_USED,      /* read into a field of struct aug_model (why: which one) */
    AUG_KEY_IGNORED,   /* known, and without effect on time or memory (why: the reason) */
    AUG_KEY_UNMODELED  /* changes the model, but augur does not model it: warned about */
};
#define AUG_MODEL_KEYS_MAX 160
struct aug_model_key {
    char key[64];
    enum aug_key_use use;
    char why[192];
};
struct aug_model_record {
    char path[1024];    /* the file read; "" for a preset */
    char format[48];    /* "preset", "augur model JSON", "Hugging Face config.json" */
    int n;              /* keys below (more are counted in n_more) */
    int n_more;
    struct aug_model_key keys[AUG_MODEL_KEYS_MAX];
};
const char *aug_key_use_name(enum aug_key_use u); /* "used", "ignored", "not modelled" */

/* aug_model_load(), and the record of how the file was read. */
int aug_model_load_record(const char *data_root, const char *name_or_path, struct aug_model *out,
                          struct aug_model_record *rec);

/* Call fn for every preset (for `augur models`). */
int aug_model_foreach(const char *data_root, void (*fn)(const struct aug_model *, void *),
                      void *user);

/* Parameter counts (exact, from the shapes). */
double aug_model_params(const struct aug_model *m);            /* total */
/* Norms per layer: 1 in a parallel block with one shared norm (parallel_block 1), else 2. */
int aug_model_block_norms(const struct aug_model *m);
double aug_model_layer_params(const struct aug_model *m);      /* one transformer layer */
double aug_model_embedding_params(const struct aug_model *m);  /* input (+pos) + untied head */
double aug_model_active_params(const struct aug_model *m);     /* per token (MoE: top-k) */
/* Active parameters without the input embedding (a table lookup, no arithmetic): the
 * convention of the GPT-OSS model card and of DeepSeek-V2/V3's activated counts; the
 * count above keeps it (Mistral's and Meta's convention). */
double aug_model_active_compute_params(const struct aug_model *m);
/* Routed-expert parameters of all MoE layers (the part expert parallelism splits). */
double aug_model_routed_expert_params(const struct aug_model *m);
/* One multi-token-prediction module (DeepSeek-V3 sec. 2.2: projection 2h x h, two
 * norms and one transformer layer; embedding and head shared with the main model). */
double aug_model_mtp_params(const struct aug_model *m);

/* Layer kinds: the number of MoE layers (0 for a dense model), of windowed-attention
 * layers, and whether layer i (0-based) is MoE / windowed. */
long aug_model_moe_layers(const struct aug_model *m);
long aug_model_window_layers(const struct aug_model *m);
int aug_model_layer_is_moe(const struct aug_model *m, long i);
int aug_model_layer_is_windowed(const struct aug_model *m, long i);
/* (query, key) pairs per head of a windowed layer for seq_q causal queries at the end of
 * seq_kv keys: each sees its last sliding_window keys, or with attn_chunked the keys of
 * its own chunk up to itself (augur/attention.h). */
double aug_model_local_pairs(const struct aug_model *m, double seq_q, double seq_kv);
/* FFN size of the dense layers (dense_ffn_hidden, or ffn_hidden). */
long aug_model_dense_ffn(const struct aug_model *m);

/* Key-value cache elements per token of a sequence holding `context` tokens, summed over
 * the layers: 2 kv_heads head_dim per layer for GQA (Pope et al. 2022), kv_lora_rank +
 * qk_rope_head_dim for MLA (DeepSeek-V2 sec. 2.1.2, Table 1); windowed layers keep at
 * most sliding_window tokens, so their share per token of the context is
 * min(context, window) / context (a chunked layer holds the current chunk, at most as
 * many: the bound). context <= 0 counts every layer whole. */
double aug_model_kv_elems_per_token(const struct aug_model *m, double context);

#ifdef __cplusplus
}
#endif
#endif
