/* SPDX-License-Identifier: Apache-2.0 */
/* test_model_load.c - model presets, augur model JSON and Hugging Face config.json loading.
 *
 * Expected values are the published ones (paper tables, official config.json files), so a
 * wrong preset or a wrong key mapping fails here. Fixture files are written to a temporary
 * directory by the tests themselves. */
#include "aug_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "augur/model.h"
#include "augur/status.h"

#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static char tmp_root[256];
static char created[32][512];
static int n_created;

static int group_setup(void **state) {
    (void)state;
    snprintf(tmp_root, sizeof tmp_root, "/tmp/aug_model_test_XXXXXX");
    return mkdtemp(tmp_root) ? 0 : -1;
}

static int group_teardown(void **state) {
    (void)state;
    for (int i = n_created - 1; i >= 0; i--)
        remove(created[i]);
    rmdir(tmp_root);
    return 0;
}

/* Write `text` to <tmp_root>/<rel> (one optional sub-directory level); returns the path. */
static const char *write_fixture(const char *rel, const char *text) {
    static char path[512];
    const char *slash = strchr(rel, '/');
    if (slash) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%.*s", tmp_root, (int)(slash - rel), rel);
        if (mkdir(dir, 0700) == 0 && n_created < 32)
            snprintf(created[n_created++], sizeof created[0], "%s", dir);
    }
    snprintf(path, sizeof path, "%s/%s", tmp_root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    int seen = 0;
    for (int i = 0; i < n_created; i++)
        seen |= strcmp(created[i], path) == 0;
    if (!seen && n_created < 32)
        snprintf(created[n_created++], sizeof created[0], "%s", path);
    return path;
}

static void assert_error_has(const char *needle) {
    const char *msg = aug_last_error();
    if (!strstr(msg, needle))
        fail_msg("error message '%s' lacks '%s'", msg, needle);
}

static struct aug_model load_ok(const char *name) {
    struct aug_model m;
    int st = aug_model_load(DATA_ROOT, name, &m);
    if (st != AUG_OK)
        fail_msg("loading '%s': %s", name, aug_last_error());
    return m;
}

/* ---- presets ------------------------------------------------------------------------ */

static void test_preset_llama2_70b(void **state) {
    (void)state;
    struct aug_model m = load_ok("llama2-70b");
    assert_string_equal(m.name, "llama2-70b");
    assert_int_equal(m.arch, AUG_ARCH_DENSE);
    assert_int_equal(m.layers, 80);
    assert_int_equal(m.hidden, 8192);
    assert_int_equal(m.heads, 64);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ffn_hidden, 28672);
    assert_int_equal(m.vocab, 32000);
    assert_int_equal(m.max_seq, 4096);
    assert_int_equal(m.mlp, AUG_MLP_SWIGLU);
    assert_int_equal(m.norm, AUG_NORM_RMSNORM);
    assert_int_equal(m.pos, AUG_POS_ROPE);
    assert_int_equal(m.tied_embeddings, 0);
    assert_int_equal(m.linear_bias, 0);
    assert_non_null(strstr(m.source, "meta-llama/Llama-2-70b-hf"));
}

static void test_preset_gpt3_175b(void **state) {
    (void)state;
    struct aug_model m = load_ok("gpt3-175b");
    assert_int_equal(m.layers, 96);
    assert_int_equal(m.hidden, 12288);
    assert_int_equal(m.heads, 96);
    assert_int_equal(m.kv_heads, 96);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ffn_hidden, 4 * 12288);
    assert_int_equal(m.vocab, 50257);
    assert_int_equal(m.max_seq, 2048);
    assert_int_equal(m.mlp, AUG_MLP_GELU);
    assert_int_equal(m.norm, AUG_NORM_LAYERNORM);
    assert_int_equal(m.pos, AUG_POS_LEARNED);
    assert_int_equal(m.tied_embeddings, 1);
    assert_int_equal(m.linear_bias, 1);
    assert_non_null(strstr(m.source, "2005.14165"));
}

static void test_preset_llama3(void **state) {
    (void)state;
    struct aug_model m = load_ok("llama3-8b");
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.hidden, 4096);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.ffn_hidden, 14336);
    assert_int_equal(m.vocab, 128256);
    assert_int_equal(m.max_seq, 8192);
    m = load_ok("llama3-405b");
    assert_int_equal(m.layers, 126);
    assert_int_equal(m.hidden, 16384);
    assert_int_equal(m.heads, 128);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.ffn_hidden, 53248);
    assert_int_equal(m.max_seq, 131072);
    m = load_ok("llama2-13b");
    assert_int_equal(m.layers, 40);
    assert_int_equal(m.hidden, 5120);
    assert_int_equal(m.kv_heads, 40);
    assert_int_equal(m.ffn_hidden, 13824);
}

static void test_preset_megatron_families(void **state) {
    (void)state;
    /* Narayanan et al. 2021 Table 1 */
    struct aug_model m = load_ok("gpt-1.7b");
    assert_int_equal(m.layers, 24);
    assert_int_equal(m.hidden, 2304);
    assert_int_equal(m.heads, 24);
    assert_int_equal(m.vocab, 51200);
    m = load_ok("gpt-145.6b");
    assert_int_equal(m.layers, 80);
    assert_int_equal(m.hidden, 12288);
    assert_int_equal(m.heads, 96);
    m = load_ok("gpt-1t");
    assert_int_equal(m.layers, 128);
    assert_int_equal(m.hidden, 25600);
    assert_int_equal(m.heads, 160);
    assert_int_equal(m.ffn_hidden, 102400);
    /* Korthikanti et al. 2022 Table 3 */
    m = load_ok("megatron-22b");
    assert_int_equal(m.layers, 48);
    assert_int_equal(m.hidden, 6144);
    assert_int_equal(m.heads, 64);
    m = load_ok("megatron-530b");
    assert_int_equal(m.layers, 105);
    assert_int_equal(m.hidden, 20480);
    assert_int_equal(m.heads, 128);
    assert_int_equal(m.head_dim, 160);
    m = load_ok("megatron-1t");
    assert_int_equal(m.layers, 128);
    assert_int_equal(m.hidden, 25600);
    assert_int_equal(m.heads, 160);
    assert_int_equal(m.vocab, 51200);
    assert_int_equal(m.max_seq, 2048);
}

static void test_preset_moe(void **state) {
    (void)state;
    struct aug_model m = load_ok("mixtral-8x7b");
    assert_int_equal(m.arch, AUG_ARCH_MOE);
    assert_int_equal(m.moe_experts, 8);
    assert_int_equal(m.moe_topk, 2);
    assert_int_equal(m.moe_shared_experts, 0);
    assert_int_equal(m.ffn_hidden, 14336);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.max_seq, 32768);
    m = load_ok("mixtral-8x22b");
    assert_int_equal(m.layers, 56);
    assert_int_equal(m.hidden, 6144);
    assert_int_equal(m.heads, 48);
    assert_int_equal(m.ffn_hidden, 16384);
    assert_int_equal(m.max_seq, 65536);
    m = load_ok("deepseek-moe-16b");
    assert_int_equal(m.arch, AUG_ARCH_MOE);
    assert_int_equal(m.layers, 28);
    assert_int_equal(m.hidden, 2048);
    assert_int_equal(m.moe_experts, 64);
    assert_int_equal(m.moe_topk, 6);
    assert_int_equal(m.moe_shared_experts, 2);
    assert_int_equal(m.ffn_hidden, 1408);
    assert_int_equal(m.vocab, 102400);
    assert_near(m.moe_capacity_factor, 0.0, 0); /* dropless unless the config sets it */
    assert_int_equal(m.moe_dense_layers, 1);
    assert_int_equal(m.dense_ffn_hidden, 10944);
}

static void test_preset_matmulfree(void **state) {
    (void)state;
    struct aug_model m = load_ok("matmulfree-370m");
    assert_int_equal(m.arch, AUG_ARCH_MATMULFREE);
    assert_int_equal(m.layers, 24);
    assert_int_equal(m.hidden, 1024);
    assert_int_equal(m.ffn_hidden, 2816); /* 256 * ceil(2730 / 256) */
    assert_int_equal(m.vocab, 32000);
    m = load_ok("matmulfree-1.3b");
    assert_int_equal(m.layers, 24);
    assert_int_equal(m.hidden, 2048);
    assert_int_equal(m.ffn_hidden, 5632); /* README: gate_proj 2048 -> 11264 = 2 x 5632 */
    m = load_ok("matmulfree-2.7b");
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.hidden, 2560);
    assert_int_equal(m.ffn_hidden, 6912);
    assert_non_null(strstr(m.source, "2406.02528"));
}

struct seen {
    int n;
    char names[64][64];
    int bad_source;
};

static void collect(const struct aug_model *m, void *user) {
    struct seen *s = user;
    if (s->n < 64)
        snprintf(s->names[s->n], sizeof s->names[0], "%s", m->name);
    s->n++;
    if (strlen(m->source) < 40)
        s->bad_source++;
}

static void test_foreach_every_preset(void **state) {
    (void)state;
    struct seen s = {0};
    int st = aug_model_foreach(DATA_ROOT, collect, &s);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_int_equal(s.n, 38); /* 29 + 9 MoE presets of current architectures */
    assert_int_equal(s.bad_source, 0);
    for (int i = 0; i < s.n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(s.names[i], s.names[j]) == 0)
                fail_msg("preset '%s' appears twice", s.names[i]);
    static const char *const required[] = {
        "gpt3-175b",     "megatron-22b",    "megatron-530b",   "megatron-1t",
        "llama2-7b",     "llama2-13b",      "llama2-70b",      "llama3-8b",
        "llama3-70b",    "llama3-405b",     "mixtral-8x7b",    "mixtral-8x22b",
        "matmulfree-370m", "matmulfree-1.3b", "matmulfree-2.7b", NULL};
    for (const char *const *r = required; *r; r++) {
        int found = 0;
        for (int i = 0; i < s.n; i++)
            found |= strcmp(s.names[i], *r) == 0;
        if (!found)
            fail_msg("required preset '%s' is missing", *r);
    }
    /* data_root NULL: the library's own data dir (the source tree in a build tree) */
    struct seen s2 = {0};
    assert_int_equal(aug_model_foreach(NULL, collect, &s2), AUG_OK);
    assert_int_equal(s2.n, 38);
}

static void test_preset_case_insensitive(void **state) {
    (void)state;
    struct aug_model m = load_ok("LLaMA2-7B");
    assert_string_equal(m.name, "llama2-7b");
    assert_int_equal(m.ffn_hidden, 11008);
}

static void test_unknown_preset_suggests(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_load(DATA_ROOT, "llama-7b", &m), AUG_ENOTFOUND);
    assert_error_has("unknown model 'llama-7b' (did you mean: ");
    assert_error_has("llama2-7b");
    assert_error_has("llama3-8b");
    /* llama2-7b is one edit away and so comes first */
    assert_non_null(strstr(aug_last_error(), "did you mean: llama2-7b"));
    assert_int_equal(aug_model_load(DATA_ROOT, "zzqqxxw", &m), AUG_ENOTFOUND);
    assert_error_has("augur models");
}

/* ---- Hugging Face config.json ------------------------------------------------------- */

static const char gpt2_config[] =
    "{\n"
    "  \"activation_function\": \"gelu_new\",\n"
    "  \"architectures\": [\"GPT2LMHeadModel\"],\n"
    "  \"model_type\": \"gpt2\",\n"
    "  \"n_ctx\": 1024,\n"
    "  \"n_embd\": 768,\n"
    "  \"n_head\": 12,\n"
    "  \"n_inner\": null,\n"
    "  \"n_layer\": 12,\n"
    "  \"n_positions\": 1024,\n"
    "  \"vocab_size\": 50257\n"
    "}\n";

static void test_hf_gpt2_defaults(void **state) {
    (void)state;
    const char *path = write_fixture("gpt2-small/config.json", gpt2_config);
    struct aug_model m;
    int st = aug_model_load(NULL, path, &m);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_string_equal(m.name, "gpt2-small"); /* the parent directory */
    assert_int_equal(m.layers, 12);
    assert_int_equal(m.hidden, 768);
    assert_int_equal(m.heads, 12);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.ffn_hidden, 3072); /* n_inner null -> 4 * n_embd */
    assert_int_equal(m.vocab, 50257);
    assert_int_equal(m.max_seq, 1024);
    assert_int_equal(m.tied_embeddings, 1);
    assert_int_equal(m.linear_bias, 1);
    assert_int_equal(m.mlp, AUG_MLP_GELU);
    assert_int_equal(m.norm, AUG_NORM_LAYERNORM);
    assert_int_equal(m.pos, AUG_POS_LEARNED);
    /* the directory itself is accepted too */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/gpt2-small", tmp_root);
    struct aug_model m2;
    assert_int_equal(aug_model_load(NULL, dir, &m2), AUG_OK);
    assert_int_equal(m2.ffn_hidden, 3072);
}

static void test_hf_gpt2_name_key(void **state) {
    (void)state;
    const char *text = "{\"_name_or_path\": \"openai-community/gpt2-medium\", \"n_embd\": 1024,"
                       " \"n_layer\": 24, \"n_head\": 16, \"n_inner\": 2048,"
                       " \"tie_word_embeddings\": false}";
    struct aug_model m;
    assert_int_equal(aug_model_from_json("x/config.json", text, &m), AUG_OK);
    assert_string_equal(m.name, "gpt2-medium");
    assert_int_equal(m.ffn_hidden, 2048);
    assert_int_equal(m.tied_embeddings, 0);
    assert_int_equal(m.max_seq, 1024); /* GPT2Config default n_positions */
    assert_int_equal(m.vocab, 50257);
}

static const char llama2_7b_config[] =
    "{\n"
    "  \"architectures\": [\"LlamaForCausalLM\"],\n"
    "  \"hidden_act\": \"silu\",\n"
    "  \"hidden_size\": 4096,\n"
    "  \"intermediate_size\": 11008,\n"
    "  \"max_position_embeddings\": 4096,\n"
    "  \"model_type\": \"llama\",\n"
    "  \"num_attention_heads\": 32,\n"
    "  \"num_hidden_layers\": 32,\n"
    "  \"rms_norm_eps\": 1e-05,\n"
    "  \"tie_word_embeddings\": false,\n"
    "  \"vocab_size\": 32000\n"
    "}\n";

static void test_hf_llama(void **state) {
    (void)state;
    const char *path = write_fixture("Llama-2-7b-hf/config.json", llama2_7b_config);
    struct aug_model m;
    int st = aug_model_load(NULL, path, &m);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_string_equal(m.name, "Llama-2-7b-hf");
    assert_int_equal(m.arch, AUG_ARCH_DENSE);
    assert_int_equal(m.kv_heads, 32); /* no num_key_value_heads: MHA */
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ffn_hidden, 11008);
    assert_int_equal(m.max_seq, 4096);
    assert_int_equal(m.mlp, AUG_MLP_SWIGLU);
    assert_int_equal(m.norm, AUG_NORM_RMSNORM);
    assert_int_equal(m.pos, AUG_POS_ROPE);
    assert_int_equal(m.tied_embeddings, 0);
    assert_int_equal(m.linear_bias, 0);
    /* same numbers as the preset */
    struct aug_model p = load_ok("llama2-7b");
    assert_int_equal(p.ffn_hidden, m.ffn_hidden);
    assert_int_equal(p.kv_heads, m.kv_heads);
    assert_int_equal(p.vocab, m.vocab);
}

static void test_hf_mixtral(void **state) {
    (void)state;
    const char *text =
        "{\"architectures\": [\"MixtralForCausalLM\"], \"hidden_act\": \"silu\","
        " \"hidden_size\": 4096, \"intermediate_size\": 14336,"
        " \"max_position_embeddings\": 32768, \"model_type\": \"mixtral\","
        " \"num_attention_heads\": 32, \"num_experts_per_tok\": 2, \"num_hidden_layers\": 32,"
        " \"num_key_value_heads\": 8, \"num_local_experts\": 8, \"rms_norm_eps\": 1e-05,"
        " \"rope_theta\": 1e6, \"tie_word_embeddings\": false, \"vocab_size\": 32000}";
    struct aug_model m;
    int st = aug_model_from_json("Mixtral-8x7B-v0.1/config.json", text, &m);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_string_equal(m.name, "Mixtral-8x7B-v0.1");
    assert_int_equal(m.arch, AUG_ARCH_MOE);
    assert_int_equal(m.moe_experts, 8);
    assert_int_equal(m.moe_topk, 2);
    assert_int_equal(m.moe_shared_experts, 0);
    assert_int_equal(m.ffn_hidden, 14336);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.max_seq, 32768);
    /* experts without num_experts_per_tok is an error naming the key */
    const char *broken = "{\"hidden_size\": 64, \"num_hidden_layers\": 2,"
                         " \"num_attention_heads\": 4, \"vocab_size\": 100,"
                         " \"intermediate_size\": 128, \"num_local_experts\": 8}";
    assert_int_equal(aug_model_from_json("m.json", broken, &m), AUG_EDATA);
    assert_error_has("'num_experts_per_tok'");
}

static void test_hf_deepseek(void **state) {
    (void)state;
    const char *text =
        "{\"architectures\": [\"DeepseekForCausalLM\"], \"first_k_dense_replace\": 1,"
        " \"hidden_act\": \"silu\", \"hidden_size\": 2048, \"intermediate_size\": 10944,"
        " \"max_position_embeddings\": 4096, \"model_type\": \"deepseek\","
        " \"moe_intermediate_size\": 1408, \"moe_layer_freq\": 1, \"n_routed_experts\": 64,"
        " \"n_shared_experts\": 2, \"num_attention_heads\": 16, \"num_experts_per_tok\": 6,"
        " \"num_hidden_layers\": 28, \"num_key_value_heads\": 16, \"rms_norm_eps\": 1e-06,"
        " \"tie_word_embeddings\": false, \"vocab_size\": 102400}";
    struct aug_model m;
    int st = aug_model_from_json("deepseek-moe-16b-base/config.json", text, &m);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_int_equal(m.arch, AUG_ARCH_MOE);
    assert_int_equal(m.moe_experts, 64);
    assert_int_equal(m.moe_topk, 6);
    assert_int_equal(m.moe_shared_experts, 2);
    assert_int_equal(m.ffn_hidden, 1408); /* per expert, not the dense 10944 */
    assert_int_equal(m.layers, 28);
    assert_int_equal(m.vocab, 102400);
    assert_int_equal(m.moe_dense_layers, 1);     /* first_k_dense_replace */
    assert_int_equal(m.dense_ffn_hidden, 10944); /* that layer's FFN */
    assert_int_equal(aug_model_moe_layers(&m), 27);
    /* agrees with the preset */
    struct aug_model p = load_ok("deepseek-moe-16b");
    assert_int_equal(p.ffn_hidden, m.ffn_hidden);
    assert_int_equal(p.moe_shared_experts, m.moe_shared_experts);
    assert_int_equal(p.moe_dense_layers, m.moe_dense_layers);
    assert_int_equal(p.dense_ffn_hidden, m.dense_ffn_hidden);
}

static void test_hf_qwen2(void **state) {
    (void)state;
    /* Qwen/Qwen2-0.5B config.json */
    const char *text =
        "{\"architectures\": [\"Qwen2ForCausalLM\"], \"hidden_act\": \"silu\","
        " \"hidden_size\": 896, \"intermediate_size\": 4864,"
        " \"max_position_embeddings\": 131072, \"model_type\": \"qwen2\","
        " \"num_attention_heads\": 14, \"num_hidden_layers\": 24, \"num_key_value_heads\": 2,"
        " \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0, \"tie_word_embeddings\": true,"
        " \"vocab_size\": 151936}";
    struct aug_model m;
    int st = aug_model_from_json("qwen/config.json", text, &m);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.kv_heads, 2);
    assert_int_equal(m.tied_embeddings, 1);
    assert_int_equal(m.linear_bias, 0);
    assert_int_equal(m.mlp, AUG_MLP_SWIGLU);
    assert_int_equal(m.max_seq, 131072);
    assert_non_null(strstr(m.source, "QKV"));
}

static void test_hf_bad_values_name_the_key(void **state) {
    (void)state;
    struct aug_model m;
    const char *zero_heads = "{\"hidden_size\": 64, \"num_hidden_layers\": 2,"
                             " \"num_attention_heads\": 0, \"vocab_size\": 100,"
                             " \"intermediate_size\": 128}";
    assert_int_equal(aug_model_from_json("z.json", zero_heads, &m), AUG_EDATA);
    assert_error_has("z.json");
    assert_error_has("'num_attention_heads'");
    assert_error_has("positive");
    const char *no_vocab = "{\"hidden_size\": 64, \"num_hidden_layers\": 2,"
                           " \"num_attention_heads\": 4, \"intermediate_size\": 128}";
    assert_int_equal(aug_model_from_json("v.json", no_vocab, &m), AUG_EDATA);
    assert_error_has("'vocab_size' is missing");
    const char *str_layers = "{\"n_embd\": 64, \"n_layer\": \"12\", \"n_head\": 4}";
    assert_int_equal(aug_model_from_json("s.json", str_layers, &m), AUG_EDATA);
    assert_error_has("'n_layer' must be an integer (got a string)");
}

/* ---- augur model JSON --------------------------------------------------------------- */

static void test_augur_json_defaults(void **state) {
    (void)state;
    struct aug_model m;
    const char *tiny = "{\"name\": \"tiny\", \"layers\": 2, \"hidden\": 256, \"heads\": 4}";
    assert_int_equal(aug_model_from_json("tiny.json", tiny, &m), AUG_OK);
    assert_string_equal(m.name, "tiny");
    assert_int_equal(m.arch, AUG_ARCH_DENSE);
    assert_int_equal(m.ffn_hidden, 1024);
    assert_int_equal(m.kv_heads, 4);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.vocab, 50257);
    assert_int_equal(m.linear_bias, 1); /* GELU: GPT-style biases */
    const char *swiglu = "{\"layers\": 2, \"hidden\": 256, \"heads\": 4, \"mlp\": \"swiglu\","
                         " \"moe_experts\": 4, \"moe_topk\": 1, \"_note\": \"comment\"}";
    assert_int_equal(aug_model_from_json("dir/small-moe.json", swiglu, &m), AUG_OK);
    assert_string_equal(m.name, "small-moe"); /* from the file name */
    assert_int_equal(m.linear_bias, 0);
    assert_int_equal(m.arch, AUG_ARCH_MOE); /* implied by moe_experts */
    assert_int_equal(m.moe_experts, 4);
}

static void test_bad_json_line_column(void **state) {
    (void)state;
    struct aug_model m;
    const char *text = "{\n  \"layers\": 2,\n  \"hidden\": ,\n  \"heads\": 4\n}\n";
    assert_int_equal(aug_model_from_json("bad.json", text, &m), AUG_EDATA);
    assert_error_has("bad.json:3:13: malformed JSON");
    /* the same through a file */
    const char *path = write_fixture("broken.json", text);
    assert_int_equal(aug_model_load(NULL, path, &m), AUG_EDATA);
    assert_error_has("broken.json:3:13:");
    assert_int_equal(aug_model_from_json("arr.json", "[1, 2]", &m), AUG_EDATA);
    assert_error_has("expected a JSON object");
}

static void test_missing_and_bad_fields(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_from_json("a.json", "{\"layers\": 2, \"hidden\": 256}", &m),
                     AUG_EDATA);
    assert_error_has("field 'heads' is missing");
    assert_int_equal(
        aug_model_from_json("b.json", "{\"layers\": 2, \"hidden\": -8, \"heads\": 4}", &m),
        AUG_EDATA);
    assert_error_has("'hidden' must be positive");
    assert_int_equal(
        aug_model_from_json("c.json", "{\"layers\": 2, \"hiden\": 256, \"heads\": 4}", &m),
        AUG_EDATA);
    assert_error_has("unknown field 'hiden' (did you mean: hidden");
    assert_int_equal(aug_model_from_json("d.json",
                                         "{\"layers\": 2, \"hidden\": 256, \"heads\": 4,"
                                         " \"mlp\": \"relu\"}",
                                         &m),
                     AUG_EDATA);
    assert_error_has("'mlp' = 'relu' is not one of: gelu, swiglu");
    assert_int_equal(aug_model_from_json("d2.json",
                                         "{\"layers\": 2, \"hidden\": 256, \"heads\": 4,"
                                         " \"fp8_recipe\": \"per_block\"}",
                                         &m),
                     AUG_EDATA);
    assert_error_has("'fp8_recipe' = 'per_block' is not one of: per_tensor, per_channel_per_token");
    assert_int_equal(aug_model_from_json("d3.json",
                                         "{\"layers\": 2, \"hidden\": 256, \"heads\": 4,"
                                         " \"fp8_recipe\": \"per_channel_per_token\"}",
                                         &m),
                     AUG_OK);
    assert_int_equal(m.fp8_recipe, AUG_FP8_PER_CHANNEL_PER_TOKEN);
    assert_int_equal(aug_model_from_json("e.json",
                                         "{\"layers\": 2, \"hidden\": 256, \"heads\": 4,"
                                         " \"ffn_hidden\": 1000.5}",
                                         &m),
                     AUG_EDATA);
    assert_error_has("'ffn_hidden' must be an integer");
    assert_int_equal(aug_model_from_json("f.json", "{\"models\": [{}, {}]}", &m), AUG_EDATA);
    assert_error_has("list of 2 models");
    assert_int_equal(aug_model_from_json("g.json", "{\"foo\": 1}", &m), AUG_EDATA);
    assert_error_has("not a model description");
}

static void test_finish_checks(void **state) {
    (void)state;
    struct aug_model m;
    aug_model_init(&m);
    snprintf(m.name, sizeof m.name, "t");
    m.layers = 4;
    m.hidden = 1000;
    m.heads = 3;
    assert_int_equal(aug_model_finish(&m, "t.json"), AUG_EDATA);
    assert_error_has("'hidden' = 1000 is not a multiple of heads = 3");
    m.heads = 8;
    m.kv_heads = 3;
    assert_int_equal(aug_model_finish(&m, "t.json"), AUG_EDATA);
    assert_error_has("'kv_heads' = 3 does not divide heads = 8");
    m.kv_heads = 2;
    assert_int_equal(aug_model_finish(&m, "t.json"), AUG_OK);
    assert_int_equal(m.head_dim, 125);
    assert_int_equal(m.ffn_hidden, 4000);
    m.arch = AUG_ARCH_MOE;
    m.moe_experts = 4;
    m.moe_topk = 5;
    assert_int_equal(aug_model_finish(&m, "t.json"), AUG_EDATA);
    assert_error_has("'moe_topk' = 5 exceeds moe_experts = 4");
    m.moe_topk = 2;
    assert_int_equal(aug_model_finish(&m, "t.json"), AUG_OK);
    m.layers = 2000000;
    assert_int_equal(aug_model_finish(&m, "t.json"), AUG_EDATA);
    assert_error_has("'layers' = 2000000 is beyond any real model");
    m.layers = 4;
    m.arch = AUG_ARCH_DENSE;
    assert_int_equal(aug_model_finish(&m, "t.json"), AUG_EDATA);
    assert_error_has("'moe_experts' = 4 needs arch 'moe'");
}

static void test_names(void **state) {
    (void)state;
    assert_string_equal(aug_arch_name(AUG_ARCH_DENSE), "dense");
    assert_string_equal(aug_arch_name(AUG_ARCH_MOE), "moe");
    assert_string_equal(aug_arch_name(AUG_ARCH_MATMULFREE), "matmulfree");
    assert_string_equal(aug_mlp_name(AUG_MLP_GELU), "gelu");
    assert_string_equal(aug_mlp_name(AUG_MLP_SWIGLU), "swiglu");
    assert_string_equal(aug_arch_name(AUG_ARCH_COUNT), "unknown");
}

static void test_missing_file(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_load(NULL, "/nonexistent/dir/model.json", &m), AUG_EIO);
    assert_error_has("/nonexistent/dir/model.json");
    assert_int_equal(aug_model_load(NULL, "", &m), AUG_EUSAGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preset_llama2_70b),
        cmocka_unit_test(test_preset_gpt3_175b),
        cmocka_unit_test(test_preset_llama3),
        cmocka_unit_test(test_preset_megatron_families),
        cmocka_unit_test(test_preset_moe),
        cmocka_unit_test(test_preset_matmulfree),
        cmocka_unit_test(test_foreach_every_preset),
        cmocka_unit_test(test_preset_case_insensitive),
        cmocka_unit_test(test_unknown_preset_suggests),
        cmocka_unit_test(test_hf_gpt2_defaults),
        cmocka_unit_test(test_hf_gpt2_name_key),
        cmocka_unit_test(test_hf_llama),
        cmocka_unit_test(test_hf_mixtral),
        cmocka_unit_test(test_hf_deepseek),
        cmocka_unit_test(test_hf_qwen2),
        cmocka_unit_test(test_hf_bad_values_name_the_key),
        cmocka_unit_test(test_augur_json_defaults),
        cmocka_unit_test(test_bad_json_line_column),
        cmocka_unit_test(test_missing_and_bad_fields),
        cmocka_unit_test(test_finish_checks),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests_name("model_load", tests, group_setup, group_teardown);
}
