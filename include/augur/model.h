/* model.h - model architecture hyper-parameters, presets and loaders.
 *
 * A model comes from a preset name (presets/models.json), from a Hugging Face
 * config.json (GPT-2, Llama, Mistral, Mixtral, Qwen2, DeepSeek-style keys) or from
 * augur's own model JSON (the keys of struct aug_model). */
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
    char source[512];
};

const char *aug_arch_name(enum aug_arch a);
const char *aug_mlp_name(enum aug_mlp m);

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
double aug_model_layer_params(const struct aug_model *m);      /* one transformer layer */
double aug_model_embedding_params(const struct aug_model *m);  /* input (+pos) + untied head */
double aug_model_active_params(const struct aug_model *m);     /* per token (MoE: top-k) */

#ifdef __cplusplus
}
#endif
#endif
