/* SPDX-License-Identifier: Apache-2.0 */
/* test_moe_arch.c - architectures of current MoE models (model.h): latent attention,
 * dense-first and interleaved MoE layers, shared experts, sliding windows, MTP; parameter
 * and KV-cache counts of every MoE preset by hand against the published figures; the
 * Hugging Face configs of each family (written here as fixtures) against the presets; and
 * the layer graph and FLOP counts that follow from them.
 *
 * Published totals are given to two or three significant digits; each check states the
 * relative difference. Two conventions exist for "active" parameters: Mistral and Meta
 * count the input embedding (aug_model_active_params), the GPT-OSS model card and
 * DeepSeek do not (aug_model_active_compute_params; DeepSeek-V2-Lite's 2.4B, V2's 21B and
 * V3's 37B are all met by it at their printed precision). */
#include "aug_test.h"

#include <unistd.h>

#include "augur/infer.h"
#include "augur/model.h"
#include "augur/moe.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"

#include "augur/csvio.h"
#include "infer/step_graph.h"
#include "model/layer_graph.h"
#include "validate/validate_internal.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_model load(const char *name) {
    struct aug_model m;
    if (aug_model_load(DATA_ROOT, name, &m) != AUG_OK)
        fail_msg("%s: %s", name, aug_last_error());
    return m;
}

/* ---- parameter counts ---------------------------------------------------------------- */

/* DeepSeek-V3 (config.json; arXiv 2412.19437 sec. 4.2): h 7168, 61 layers, 128 heads.
 * MLA per layer: W_DQ 7168*1536 + q norm 1536 + W_UQ 1536*128*192 + W_DKV,W_KR 7168*576
 * + kv norm 512 + W_UK,W_UV 512*128*256 + W_O 128*128*7168 = 187,107,328; two RMSNorms
 * 14,336. Dense FFN (3 layers) 3*7168*18432 = 396,361,728. MoE layer (58): 257 experts of
 * 3*7168*2048 = 44,040,192 plus router 256*7168 = 1,835,008. Embedding and untied head
 * 2*129280*7168 = 1,853,358,080, final norm 7168. */
static void test_deepseek_v3_params(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    double attn = 7168.0 * 1536 + 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512 +
                  512.0 * 128 * 256 + 128.0 * 128 * 7168;
    assert_near(attn, 187107328.0, 0);
    double expert = 3.0 * 7168 * 2048, router = 256.0 * 7168;
    double common = 61.0 * (attn + 2 * 7168) + 3.0 * 3 * 7168 * 18432;
    double emb = 129280.0 * 7168, total = common + 58.0 * (257 * expert + router) + 2 * emb + 7168;
    assert_near(aug_model_params(&m), total, 0);
    assert_near(total, 671026404352.0, 0);
    assert_rel(aug_model_params(&m), 671e9, 0.001);           /* +0.004% of 671B */
    double active = common + 58.0 * (9 * expert + router) + emb + 7168; /* no input table */
    assert_near(aug_model_active_compute_params(&m), active, 0);
    assert_rel(aug_model_active_compute_params(&m), 37e9, 0.0102); /* 36.63B: -1.01% */
    assert_near(aug_model_active_params(&m), active + emb, 0);
    assert_int_equal(aug_model_moe_layers(&m), 58);
    /* the MTP module (not in the 671B): M 2*7168*7168, enorm, hnorm and the head's norm
     * 3*7168, one MoE layer with its two norms */
    assert_near(aug_model_mtp_params(&m),
                2.0 * 7168 * 7168 + 3 * 7168 + attn + 2 * 7168 + 257 * expert + router, 0);
    /* ~11.5B + the shared embedding/head make DeepSeek's 14B MTP weights */
    assert_rel(aug_model_mtp_params(&m) + 2 * emb, 14e9, 0.05);
}

/* DeepSeek-V2-Lite (arXiv 2405.04434 App. B): no q compression, W_Q 2048*16*192;
 * kv 2048*576 + 512 + 512*16*256; W_O 16*128*2048; 1 dense layer of 10944; 26 MoE layers
 * of 66 experts (64 routed + 2 shared) of 3*2048*1408 and router 64*2048; vocab 102400. */
static void test_deepseek_v2_lite_params(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v2-lite");
    double attn = 2048.0 * 16 * 192 + 2048.0 * 576 + 512 + 512.0 * 16 * 256 + 16.0 * 128 * 2048;
    double expert = 3.0 * 2048 * 1408, router = 64.0 * 2048, emb = 102400.0 * 2048;
    double common = 27.0 * (attn + 2 * 2048) + 3.0 * 2048 * 10944;
    assert_near(aug_model_params(&m), common + 26 * (66 * expert + router) + 2 * emb + 2048, 0);
    assert_rel(aug_model_params(&m), 15.7e9, 0.001);                 /* 15.706B */
    double act = common + 26 * (8 * expert + router) + emb + 2048;
    assert_near(aug_model_active_compute_params(&m), act, 0);
    assert_rel(aug_model_active_compute_params(&m), 2.4e9, 0.022);   /* 2.451B: +2.1% */
}

/* Qwen3 (arXiv 2505.09388 Table 2): q width 32*128 = 4096 > hidden 2048; q/k norms 2*128.
 * 30B-A3B: attention 2048*4096 + 2*2048*512 + 4096*2048 + 256; 48 MoE layers of 128
 * experts of 3*2048*768 and router 128*2048; vocab 151936 untied. */
static void test_qwen3_params(void **state) {
    (void)state;
    struct aug_model m = load("qwen3-30b-a3b");
    double attn = 2048.0 * 4096 + 2 * 2048.0 * 512 + 4096.0 * 2048 + 256;
    double expert = 3.0 * 2048 * 768, router = 128.0 * 2048, emb = 151936.0 * 2048;
    double total = 48 * (attn + 2 * 2048 + 128 * expert + router) + 2 * emb + 2048;
    assert_near(aug_model_params(&m), total, 0);
    assert_rel(aug_model_params(&m), 30.5e9, 0.002);              /* 30.53B */
    assert_rel(aug_model_active_params(&m), 3.3e9, 0.02);          /* 3.35B: +1.5% */
    m = load("qwen3-235b-a22b");
    assert_rel(aug_model_params(&m), 235e9, 0.001);                /* 235.09B */
    assert_rel(aug_model_active_params(&m), 22e9, 0.01);           /* 22.2B: +0.9% */
}

/* GPT-OSS model card Table 1 (20b: MLP 19.12B, attention 0.64B, embed+unembed 1.16B; active
 * 3.61B without the embedding). Per layer: q 2880*4096, k,v 2*2880*512, o 4096*2880, biases
 * 4096 + 2*512 + 2880, 64 sinks; experts 3*2880*2880 + 2*2880 + 2880 biases; router
 * 2880*E + E; norms 2*2880. */
static void test_gpt_oss_params(void **state) {
    (void)state;
    double attn = 2880.0 * 4096 + 2 * 2880.0 * 512 + 4096.0 * 2880 + 4096 + 1024 + 2880 + 64;
    double expert = 3.0 * 2880 * 2880 + 3 * 2880, emb = 201088.0 * 2880;
    struct aug_model m = load("gpt-oss-20b");
    double total = 24 * (attn + 2 * 2880 + 32 * expert + 32 * 2880.0 + 32) + 2 * emb + 2880;
    assert_near(aug_model_params(&m), total, 0);
    assert_rel(aug_model_params(&m), 20.91e9, 0.001);
    assert_rel(aug_model_active_compute_params(&m), 3.61e9, 0.005);
    m = load("gpt-oss-120b");
    assert_rel(aug_model_params(&m), 116.83e9, 0.001);
    assert_rel(aug_model_active_compute_params(&m), 5.13e9, 0.005);
    assert_int_equal(aug_model_window_layers(&m), 18); /* every other layer of 36 */
}

/* Llama 4 (text model): attention 2*5120*5120 + 2*5120*1024; experts and the shared expert
 * 3*5120*8192, dense layers 3*5120*16384; router 5120*E; vocab 202048 untied.
 * Maverick: 24 MoE layers (1, 3, ...) of 128 + 1 experts, 24 dense. Meta's 400B / 17B
 * count the embedding; Scout's 109B also counts the vision encoder (not modelled). */
static void test_llama4_params(void **state) {
    (void)state;
    double attn = 2 * 5120.0 * 5120 + 2 * 5120.0 * 1024, expert = 3.0 * 5120 * 8192;
    double dense = 3.0 * 5120 * 16384, emb = 202048.0 * 5120, norms = 2 * 5120.0;
    struct aug_model m = load("llama4-maverick");
    assert_int_equal(aug_model_moe_layers(&m), 24);
    assert_true(aug_model_layer_is_moe(&m, 1) && !aug_model_layer_is_moe(&m, 0));
    double total = 48 * (attn + norms) + 24 * dense + 24 * (129 * expert + 128 * 5120.0) +
                   2 * emb + 5120;
    assert_near(aug_model_params(&m), total, 0);
    assert_rel(aug_model_params(&m), 400e9, 0.002);                /* 400.7B */
    assert_rel(aug_model_active_params(&m), 17e9, 0.011);          /* 17.18B: +1.1% */
    m = load("llama4-scout");
    assert_rel(aug_model_params(&m), 109e9, 0.012);                /* 107.8B: -1.1% */
    assert_rel(aug_model_active_params(&m), 17e9, 0.011);          /* 17.17B: +1.0% */
}

/* Grok-1 (xAI release, 314B) and Mixtral 8x7B (46.7B total, 12.9B active). */
static void test_grok_mixtral_params(void **state) {
    (void)state;
    struct aug_model m = load("grok-1");
    double attn = 2 * 6144.0 * 6144 + 2 * 6144.0 * 1024, expert = 3.0 * 6144 * 32768;
    double total = 64 * (attn + 2 * 6144 + 8 * expert + 8 * 6144.0) + 2 * 131072.0 * 6144 + 6144;
    assert_near(aug_model_params(&m), total, 0);
    assert_rel(aug_model_params(&m), 314e9, 0.01);                 /* 316.5B: +0.8% */
    m = load("mixtral-8x7b");
    assert_rel(aug_model_params(&m), 46.7e9, 0.001);
    assert_rel(aug_model_active_params(&m), 12.9e9, 0.002);        /* 12.88B */
}

/* ---- KV cache ------------------------------------------------------------------------- */

/* Bytes per token at 16 bits: GQA 2 * layers * kv_heads * head_dim * 2; MLA layers *
 * (kv_lora_rank + qk_rope_head_dim) * 2 (DeepSeek-V2 Table 1: (d_c + d_h^R) l elements).
 * DeepSeek-V3 read as MHA with head_dim 192 would cache 2*61*128*192*2 = 5,996,544 bytes,
 * 85.3 times the latent's 70,272. */
static void test_kv_bytes(void **state) {
    (void)state;
    struct {
        const char *name;
        double bytes;
    } cases[] = {
        {"deepseek-v3", 61.0 * 576 * 2},       {"deepseek-v2-lite", 27.0 * 576 * 2},
        {"qwen3-30b-a3b", 2.0 * 48 * 4 * 128 * 2}, {"qwen3-235b-a22b", 2.0 * 94 * 4 * 128 * 2},
        {"gpt-oss-20b", 2.0 * 24 * 8 * 64 * 2}, {"gpt-oss-120b", 2.0 * 36 * 8 * 64 * 2},
        {"llama4-scout", 2.0 * 48 * 8 * 128 * 2}, {"llama4-maverick", 2.0 * 48 * 8 * 128 * 2},
        {"grok-1", 2.0 * 64 * 8 * 128 * 2},    {"mixtral-8x7b", 2.0 * 32 * 8 * 128 * 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct aug_model m = load(cases[i].name);
        assert_near(aug_infer_kv_bytes_per_token(&m, AUG_DTYPE_BF16), cases[i].bytes, 0);
    }
    struct aug_model ds = load("deepseek-v3");
    assert_near(2.0 * 61 * 128 * 192 * 2 / aug_infer_kv_bytes_per_token(&ds, AUG_DTYPE_BF16),
                85.33, 0.01);
    /* windows: GPT-OSS-20b at an 8192-token context keeps 12 global layers whole and 12
     * windowed layers at 128 tokens: 12*1024 + 12*1024*128/8192 elements per token */
    struct aug_model g = load("gpt-oss-20b");
    assert_near(aug_model_kv_elems_per_token(&g, 8192), 12.0 * 1024 + 12.0 * 1024 / 64, 1e-9);
    assert_near(aug_model_kv_elems_per_token(&g, 100), 24.0 * 1024, 1e-9);
}

/* ---- Hugging Face configs ------------------------------------------------------------ */

/* Read `json` as a config.json in a fresh folder: into *m with the loader's key record
 * (keys) or with `augur models --show`'s (rec); the file is gone on return. */
static int load_config(const char *json, struct aug_model *m, struct aug_model_keys *keys,
                       struct aug_model_record *rec) {
    char dir[] = "/tmp/aug_hf_XXXXXX";
    if (!mkdtemp(dir))
        fail_msg("mkdtemp");
    char path[64];
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    int st = rec ? aug_model_load_record(NULL, path, m, rec)
                 : aug_model_load_keys(NULL, path, m, keys);
    unlink(path);
    rmdir(dir);
    return st;
}

static struct aug_model from_file(const char *json, struct aug_model_keys *keys) {
    struct aug_model m;
    if (load_config(json, &m, keys, NULL))
        fail_msg("%s", aug_last_error());
    return m;
}

static int has_key(char (*list)[48], int n, const char *k) {
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], k) == 0)
            return 1;
    return 0;
}

static void same_counts(const struct aug_model *a, const char *preset) {
    struct aug_model p = load(preset);
    assert_near(aug_model_params(a), aug_model_params(&p), 0);
    assert_near(aug_model_active_params(a), aug_model_active_params(&p), 0);
    assert_near(aug_model_kv_elems_per_token(a, 1e6), aug_model_kv_elems_per_token(&p, 1e6), 0);
}

static void test_hf_families(void **state) {
    (void)state;
    static struct aug_model_keys k; /* large: not on the stack */
    struct aug_model m = from_file(
        "{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"model_type\": \"deepseek_v3\","
        " \"hidden_size\": 7168, \"intermediate_size\": 18432, \"moe_intermediate_size\": 2048,"
        " \"num_hidden_layers\": 61, \"num_attention_heads\": 128, \"num_key_value_heads\": 128,"
        " \"n_shared_experts\": 1, \"n_routed_experts\": 256, \"num_experts_per_tok\": 8,"
        " \"n_group\": 8, \"topk_group\": 4, \"first_k_dense_replace\": 3, \"moe_layer_freq\": 1,"
        " \"q_lora_rank\": 1536, \"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128,"
        " \"qk_rope_head_dim\": 64, \"v_head_dim\": 128, \"num_nextn_predict_layers\": 1,"
        " \"vocab_size\": 129280, \"max_position_embeddings\": 163840, \"hidden_act\": \"silu\","
        " \"rms_norm_eps\": 1e-06, \"tie_word_embeddings\": false, \"routed_scaling_factor\": 2.5,"
        " \"torch_dtype\": \"bfloat16\"}", &k);
    same_counts(&m, "deepseek-v3");
    assert_int_equal(m.attention, AUG_ATTN_MLA);
    assert_int_equal(m.mtp_layers, 1);
    assert_true(has_key(k.used, k.n_used, "kv_lora_rank"));
    assert_true(has_key(k.ignored, k.n_ignored, "routed_scaling_factor"));
    assert_true(has_key(k.ignored, k.n_ignored, "torch_dtype"));
    assert_int_equal(k.n_unmodelled, 0);
    m = from_file(
        "{\"model_type\": \"deepseek_v2\", \"hidden_size\": 2048, \"intermediate_size\": 10944,"
        " \"moe_intermediate_size\": 1408, \"num_hidden_layers\": 27, \"num_attention_heads\": 16,"
        " \"num_key_value_heads\": 16, \"n_shared_experts\": 2, \"n_routed_experts\": 64,"
        " \"num_experts_per_tok\": 6, \"n_group\": 1, \"topk_group\": 1,"
        " \"first_k_dense_replace\": 1, \"q_lora_rank\": null, \"kv_lora_rank\": 512,"
        " \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"v_head_dim\": 128,"
        " \"vocab_size\": 102400, \"max_position_embeddings\": 163840,"
        " \"tie_word_embeddings\": false}", &k);
    same_counts(&m, "deepseek-v2-lite");
    assert_int_equal(m.q_lora_rank, 0);
    m = from_file(
        "{\"model_type\": \"qwen3_moe\", \"hidden_size\": 2048, \"intermediate_size\": 6144,"
        " \"moe_intermediate_size\": 768, \"num_hidden_layers\": 48, \"num_attention_heads\": 32,"
        " \"num_key_value_heads\": 4, \"head_dim\": 128, \"num_experts\": 128,"
        " \"num_experts_per_tok\": 8, \"decoder_sparse_step\": 1, \"mlp_only_layers\": [],"
        " \"vocab_size\": 151936, \"max_position_embeddings\": 40960,"
        " \"tie_word_embeddings\": false, \"use_sliding_window\": false,"
        " \"sliding_window\": null, \"max_window_layers\": 48}", &k);
    same_counts(&m, "qwen3-30b-a3b");
    assert_int_equal(m.sliding_window, 0);
    assert_int_equal(k.n_unmodelled, 0);
    m = from_file(
        "{\"model_type\": \"gpt_oss\", \"hidden_size\": 2880, \"intermediate_size\": 2880,"
        " \"num_hidden_layers\": 24, \"num_attention_heads\": 64, \"num_key_value_heads\": 8,"
        " \"head_dim\": 64, \"num_local_experts\": 32, \"num_experts_per_tok\": 4,"
        " \"experts_per_token\": 4, \"sliding_window\": 128, \"attention_bias\": true,"
        " \"layer_types\": [\"sliding_attention\", \"full_attention\", \"sliding_attention\","
        " \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\","
        " \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\","
        " \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\","
        " \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\","
        " \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\","
        " \"full_attention\"], \"vocab_size\": 201088, \"max_position_embeddings\": 131072,"
        " \"tie_word_embeddings\": false, \"hidden_act\": \"silu\","
        " \"quantization_config\": {\"quant_method\": \"mxfp4\"}}", &k);
    same_counts(&m, "gpt-oss-20b");
    assert_int_equal(m.global_attn_every, 2);
    assert_true(has_key(k.unmodelled, k.n_unmodelled, "quantization_config"));
    assert_non_null(strstr(m.source, "not modelled: quantization_config"));
    assert_non_null(strstr(m.caveats, "not modelled: quantization_config"));
    m = from_file(
        "{\"model_type\": \"llama4\", \"vision_config\": {\"hidden_size\": 1408},"
        " \"text_config\": {\"model_type\": \"llama4_text\", \"hidden_size\": 5120,"
        " \"intermediate_size\": 8192, \"intermediate_size_mlp\": 16384,"
        " \"num_hidden_layers\": 48, \"num_attention_heads\": 40, \"num_key_value_heads\": 8,"
        " \"head_dim\": 128, \"num_local_experts\": 128, \"num_experts_per_tok\": 1,"
        " \"interleave_moe_layer_step\": 2, \"attention_chunk_size\": 8192,"
        " \"vocab_size\": 202048, \"max_position_embeddings\": 1048576,"
        " \"tie_word_embeddings\": false}}", &k);
    same_counts(&m, "llama4-maverick");
    assert_true(has_key(k.unmodelled, k.n_unmodelled, "vision_config"));
    /* chunked local attention on 3 of 4 layers, modelled as such: no caveat */
    assert_int_equal(m.attn_chunked, 1);
    assert_int_equal(m.sliding_window, 8192);
    assert_int_equal(m.global_attn_every, 4);
    assert_null(strstr(m.caveats, "attention_chunk_size"));
    assert_non_null(strstr(m.caveats, "vision_config"));
    struct aug_model preset = load("deepseek-v3");
    assert_string_equal(preset.caveats, ""); /* a preset is what it says */
}

/* `augur models --show` of a DeepSeek-V3 config names the field each architecture key
 * fills: the latent ranks and widths, the dense first layers, grouped routing and MTP are
 * read, none "modelled as plain MHA" as the loader once did. */
static void test_hf_key_record(void **state) {
    (void)state;
    struct aug_model m;
    static struct aug_model_record rec;
    int st = load_config(
        "{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, \"intermediate_size\": 18432,"
        " \"moe_intermediate_size\": 2048, \"num_hidden_layers\": 61,"
        " \"num_attention_heads\": 128, \"num_key_value_heads\": 128, \"n_shared_experts\": 1,"
        " \"n_routed_experts\": 256, \"num_experts_per_tok\": 8, \"n_group\": 8,"
        " \"topk_group\": 4, \"first_k_dense_replace\": 3, \"q_lora_rank\": 1536,"
        " \"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64,"
        " \"v_head_dim\": 128, \"num_nextn_predict_layers\": 1, \"vocab_size\": 129280,"
        " \"hidden_act\": \"silu\", \"tie_word_embeddings\": false}", &m, NULL, &rec);
    assert_int_equal(st, AUG_OK);
    static const char *const want[][2] = {
        {"kv_lora_rank", "kv_lora_rank"},       {"q_lora_rank", "q_lora_rank"},
        {"qk_nope_head_dim", "qk_nope_head_dim"}, {"v_head_dim", "v_head_dim"},
        {"first_k_dense_replace", "moe_dense_layers"}, {"n_group", "moe_groups"},
        {"topk_group", "moe_topk_groups"},      {"num_nextn_predict_layers", "mtp_layers"},
    };
    for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
        int found = 0;
        for (int i = 0; i < rec.n; i++)
            if (strcmp(rec.keys[i].key, want[w][0]) == 0) {
                found = 1;
                assert_int_equal(rec.keys[i].use, AUG_KEY_USED);
                if (!strstr(rec.keys[i].why, want[w][1]) || strstr(rec.keys[i].why, "MHA"))
                    fail_msg("%s: '%s'", want[w][0], rec.keys[i].why);
            }
        if (!found)
            fail_msg("no record of %s", want[w][0]);
    }
}

/* Windows of the dense families: Mistral 7B v0.1 windows every layer (4096); Gemma 2
 * alternates local and global layers (even layers local); Gemma 3 has one global layer in
 * six (sliding_window_pattern 6) and q/k norms of head_dim 256 over hidden 2560; Qwen2
 * ignores its window unless use_sliding_window. */
static void test_hf_windows(void **state) {
    (void)state;
    static struct aug_model_keys k;
    struct aug_model m = from_file(
        "{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
        " \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"
        " \"vocab_size\": 32000, \"sliding_window\": 4096}", &k);
    assert_int_equal(aug_model_window_layers(&m), 32);
    /* the preset reads the same config: its window too */
    struct aug_model mp = load("mistral-7b");
    assert_int_equal(mp.sliding_window, 4096);
    assert_int_equal(aug_model_window_layers(&mp), 32);
    assert_near(aug_model_kv_elems_per_token(&m, 32768), 32.0 * 2 * 8 * 128 / 8, 1e-9);
    m = from_file(
        "{\"model_type\": \"gemma2\", \"hidden_size\": 3584, \"intermediate_size\": 14336,"
        " \"num_hidden_layers\": 42, \"num_attention_heads\": 16, \"num_key_value_heads\": 8,"
        " \"head_dim\": 256, \"vocab_size\": 256000, \"sliding_window\": 4096,"
        " \"hidden_activation\": \"gelu_pytorch_tanh\"}", &k);
    assert_int_equal(m.global_attn_every, 2);
    assert_int_equal(aug_model_window_layers(&m), 21);
    assert_int_equal(m.mlp, AUG_MLP_SWIGLU); /* GeGLU: three matrices */
    assert_int_equal(m.tied_embeddings, 1);
    m = from_file(
        "{\"model_type\": \"gemma3_text\", \"hidden_size\": 2560, \"intermediate_size\": 10240,"
        " \"num_hidden_layers\": 34, \"num_attention_heads\": 8, \"num_key_value_heads\": 4,"
        " \"head_dim\": 256, \"vocab_size\": 262208, \"sliding_window\": 1024,"
        " \"sliding_window_pattern\": 6}", &k);
    assert_int_equal(aug_model_window_layers(&m), 34 - 5);
    assert_int_equal(m.qk_norm, 1);
    assert_true(aug_model_layer_is_windowed(&m, 4) && !aug_model_layer_is_windowed(&m, 5));
    m = from_file(
        "{\"model_type\": \"qwen2\", \"hidden_size\": 896, \"intermediate_size\": 4864,"
        " \"num_hidden_layers\": 24, \"num_attention_heads\": 14, \"num_key_value_heads\": 2,"
        " \"vocab_size\": 151936, \"sliding_window\": 32768, \"use_sliding_window\": false}",
        &k);
    assert_int_equal(m.sliding_window, 0);
}

static void test_hf_refuses_what_it_cannot_model(void **state) {
    (void)state;
    struct aug_model m;
    const char *next = "{\"model_type\": \"qwen3_next\", \"hidden_size\": 2048,"
                       " \"num_hidden_layers\": 48, \"num_attention_heads\": 16,"
                       " \"vocab_size\": 151936, \"intermediate_size\": 5120}";
    assert_int_equal(aug_model_from_json("c.json", next, &m), AUG_EUNSUPPORTED);
    assert_non_null(strstr(aug_last_error(), "qwen3_next"));
    const char *lin = "{\"hidden_size\": 64, \"num_hidden_layers\": 2,"
                      " \"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                      " \"sliding_window\": 16, \"layer_types\": [\"linear_attention\","
                      " \"full_attention\"]}";
    assert_int_equal(aug_model_from_json("c.json", lin, &m), AUG_EUNSUPPORTED);
    assert_non_null(strstr(aug_last_error(), "linear_attention"));
    /* latent fields on a GQA model, and a head_dim contradicting them, name the field */
    const char *bad = "{\"name\": \"x\", \"layers\": 2, \"hidden\": 64, \"heads\": 4,"
                      " \"kv_lora_rank\": 16, \"attention\": \"gqa\"}";
    assert_int_equal(aug_model_from_json("x.json", bad, &m), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "mla"));
}

/* ---- graphs and FLOPs -------------------------------------------------------------------- */

static struct aug_system h100;

static int setup(void **state) {
    (void)state;
    return aug_system_load(KDB, "dgx-h100", &h100) == AUG_OK ? 0 : -1;
}

/* A plan of micro-batch 1 and global batch 64 at `seq` tokens, not yet resolved. */
static struct aug_plan plan_at(long gpus, long tp, long pp, long ep, long seq) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = gpus;
    p.tp = tp;
    p.pp = pp;
    p.ep = ep;
    p.sp = tp > 1;
    p.micro_batch = 1;
    p.global_batch = 64;
    p.seq = seq;
    p.uneven_pp = 1;
    return p;
}

static struct aug_plan plan(const struct aug_model *m, long gpus, long tp, long pp, long ep) {
    struct aug_plan p = plan_at(gpus, tp, pp, ep, 4096);
    if (aug_plan_resolve(&p, m, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    return p;
}

/* The last op of that name (NULL: none); the shared expert's MLP comes first. */
static const struct aug_op *last_op(const struct aug_graph_op *ops, int n, const char *name) {
    for (int i = n - 1; i >= 0; i--)
        if (strcmp(ops[i].op.name, name) == 0)
            return &ops[i].op;
    return NULL;
}

/* Count of the last op of that name (-1: none). */
static double count_of(const struct aug_graph_op *ops, int n, const char *name) {
    const struct aug_op *o = last_op(ops, n, name);
    return o ? o->count : -1.0;
}

/* FLOPs of the last op of that name (-1: none). */
static double flops_of(const struct aug_graph_op *ops, int n, const char *name) {
    const struct aug_op *o = last_op(ops, n, name);
    return o ? o->flops : -1.0;
}

/* DeepSeek-V3 on one pipeline stage: 58 of 61 layers are MoE, 3 dense; the mean layer
 * runs the experts 58/61 times and the dense MLP 3/61 times. With pp 8 (8 layers per stage)
 * every stage but the first holds MoE layers only. The MTP layer rides on the last stage. */
static void test_layer_mix_and_mtp(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    struct aug_plan p = plan(&m, 64, 1, 1, 64);
    struct aug_graph layer, first, last;
    aug_graph_all(&m, &p, &h100, &layer, &first, &last);
    assert_near(count_of(layer.fwd, layer.n_fwd, "expert_up"), 58.0 / 61.0, 1e-12);
    assert_near(count_of(layer.fwd, layer.n_fwd, "mlp_up"), 3.0 / 61.0, 1e-12);
    assert_true(count_of(layer.fwd, layer.n_fwd, "mla_kv_down") == 1.0);
    assert_true(layer.n_fwd < AUG_GRAPH_MAX_OPS && layer.n_bwd < AUG_GRAPH_MAX_OPS);
    assert_true(last.n_fwd < AUG_GRAPH_MAX_OPS && last.n_bwd < AUG_GRAPH_MAX_OPS);
    assert_near(count_of(last.fwd, last.n_fwd, "mtp_proj"), 1.0, 0);
    assert_near(count_of(last.fwd, last.n_fwd, "expert_up"), 1.0, 0);
    p = plan(&m, 512, 1, 8, 64);
    aug_graph_all(&m, &p, &h100, &layer, &first, &last);
    assert_near(count_of(layer.fwd, layer.n_fwd, "expert_up"), 1.0, 0);
    assert_near(count_of(layer.fwd, layer.n_fwd, "mlp_up"), 1.0, 0); /* the shared expert */
}

/* GPT-OSS at 4096 tokens: half the layers attend to 128 keys. Per head the windowed layer
 * computes 128*129/2 + (4096 - 128)*128 pairs against 4096*4097/2 for a global one. */
static void test_window_attention(void **state) {
    (void)state;
    struct aug_model m = load("gpt-oss-20b");
    struct aug_plan p = plan(&m, 8, 1, 1, 8);
    struct aug_graph g;
    aug_graph_layer(&m, &p, &h100, &g);
    int n = 0;
    double fl[2] = {0, 0}, t[2] = {0, 0};
    struct aug_op_ctx ctx = {&h100, NULL, 0};
    for (int i = 0; i < g.n_fwd; i++)
        if (strcmp(g.fwd[i].op.name, n == 0 ? "attn_fwd" : "attn_fwd_local") == 0 && n < 2) {
            struct aug_op_time ot;
            assert_int_equal(aug_op_time(&ctx, &g.fwd[i].op, &ot), AUG_OK);
            assert_near(g.fwd[i].op.window, n == 0 ? 0 : 128, 0);
            t[n] = ot.time_s;
            fl[n++] = g.fwd[i].op.flops;
        }
    assert_int_equal(n, 2);
    double win = 128.0 * 129 / 2 + (4096.0 - 128) * 128, full = 4096.0 * 4097 / 2;
    assert_rel(fl[1] / fl[0], win / full, 1e-12);
    /* and the kernel skips the key blocks outside the window: tiles of 128 queries x 64
     * keys, query block i >= 1 spans key blocks 2i - 2 to 2i + 1, 2 + 31 x 4 = 126 per head
     * against the causal 1056; the Q, K, V and O traffic (the same for both) keeps the
     * windowed kernel above 126 / 1056 of the global one's time */
    assert_true(t[1] < 0.25 * t[0]);
    assert_true(t[1] > 126.0 / 1056.0 * (t[0] - h100.gpu.launch_us * 1e-6));
    /* model FLOPs: windowed layers count the windowed causal pairs per head, not the
     * full causal 4096 x 4097 / 2, at 4 d per pair and head */
    double d = aug_model_fwd_flops_per_seq(&m, 4096);
    struct aug_model g2 = m;
    g2.sliding_window = 0;
    g2.global_attn_every = 0;
    double full_d = aug_model_fwd_flops_per_seq(&g2, 4096);
    assert_near(full_d - d, 12.0 * 4 * (full - win) * 64 * 64, 1.0);
}

/* Llama 4 Scout at 32,768 tokens: 36 of its 48 layers attend within chunks of 8,192
 * tokens, 4 chunks of 8192 x 8193 / 2 = 134,221,824 pairs per head; a sliding window of
 * 8,192 would see 8192 x 8193 / 2 + 24576 x 8192 = 234,885,120. The training op carries
 * the chunk to the kernel, whose tiles stop at each query block's chunk. Decoding at
 * 20,000 tokens reads ((20000 - 1) mod 8192) + 1 = 3,616 keys on a chunked layer. */
static void test_chunked_attention(void **state) {
    (void)state;
    struct aug_model m = load("llama4-scout");
    assert_int_equal(m.attn_chunked, 1);
    double s = 32768, chunked = 4.0 * 8192 * 8193 / 2;
    double window = 8192.0 * 8193 / 2 + 24576.0 * 8192;
    assert_near(aug_model_local_pairs(&m, s, s), chunked, 0);
    struct aug_model w = m;
    w.attn_chunked = 0;
    assert_near(aug_model_local_pairs(&w, s, s), window, 0);
    /* model FLOPs: 36 local layers x 40 heads x 4 x 128 per pair apart */
    assert_near(aug_model_fwd_flops_per_seq(&w, s) - aug_model_fwd_flops_per_seq(&m, s),
                36.0 * 40 * 4 * 128 * (window - chunked), 1.0);
    struct aug_plan p = plan_at(8, 1, 1, 8, (long)s);
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    struct aug_graph g;
    aug_graph_layer(&m, &p, &h100, &g);
    int n = 0;
    double t[2] = {0, 0};
    struct aug_op_ctx ctx = {&h100, NULL, 0};
    for (int i = 0; i < g.n_fwd; i++)
        if (strcmp(g.fwd[i].op.name, n == 0 ? "attn_fwd" : "attn_fwd_local") == 0 && n < 2) {
            struct aug_op_time ot;
            assert_int_equal(aug_op_time(&ctx, &g.fwd[i].op, &ot), AUG_OK);
            assert_int_equal(g.fwd[i].op.chunked, n == 1);
            t[n++] = ot.time_s;
        }
    assert_int_equal(n, 2);
    /* per head the chunked kernel visits the causal tiles of 4 chunks of 8192, a quarter
     * of the global kernel's over 32768 (the same Q, K, V and O traffic keeps it above) */
    assert_true(t[1] < 0.3 * t[0] && t[1] > 0.2 * t[0]);
    struct aug_infer_dims x;
    memset(&x, 0, sizeof x);
    x.win = 8192;
    x.win_share = 0.75;
    x.win_chunked = 1;
    assert_near(aug_infer_attended(&x, 20000), 0.25 * 20000 + 0.75 * 3616, 1e-9);
    assert_near(aug_infer_resident(&x, 20000), 0.25 * 20000 + 0.75 * 8192, 1e-9);
    assert_near(aug_infer_attended(&x, 8192), 8192, 0);
    assert_near(aug_infer_attended(&x, 8193), 0.25 * 8193 + 0.75 * 1, 1e-9);
    /* a chunk needs its size: attn_chunked without a sliding_window is refused by name */
    struct aug_model bad;
    assert_int_equal(aug_model_from_json("m.json",
                                         "{\"name\": \"c\", \"layers\": 2, \"hidden\": 64,"
                                         " \"heads\": 4, \"attn_chunked\": true}", &bad),
                     AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "'attn_chunked' needs a sliding_window"));
    /* context parallelism over local layers: Transformer Engine's ring attention refuses a
     * window (TE 2.4 context_parallel.py); all-gather and a2a take it */
    struct aug_plan r = plan_at(32, 1, 1, 8, 131072);
    r.cp = 4;
    assert_int_equal(aug_plan_resolve(&r, &m, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "chunked-attention layers (8192 tokens)"));
    assert_non_null(strstr(aug_last_error(), "--cp-algo allgather or ulysses"));
    r.cp_algo = AUG_CP_ALLGATHER;
    assert_int_equal(aug_plan_resolve(&r, &m, &h100), AUG_OK);
    /* a window as long as the sequence is none */
    r = plan_at(8, 1, 1, 1, 8192);
    r.cp = 2;
    assert_int_equal(aug_plan_resolve(&r, &m, &h100), AUG_OK);
}

/* Latent attention's core: q.k over 192 and p.v over 128 per head, 2 (192 + 128) FLOPs per
 * causal pair and head. Causal pairs: 2s (2s + 1) / 2 - 2 s (s + 1) / 2 = s^2, so the core
 * part of the forward FLOPs f(2s) - 2 f(s) = 2 s^2 a (192 + 128) per layer (61 + 1 MTP). */
static void test_mla_flops(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    double s = 1024;
    double core = aug_model_fwd_flops_per_seq(&m, 2 * s) - 2 * aug_model_fwd_flops_per_seq(&m, s);
    assert_rel(core, 62.0 * 2 * s * s * 128 * 320, 1e-9);
}

/* Unfused latent attention (what Transformer Engine before 2.5 runs for MLA on Blackwell,
 * see tests/test_cli.c): per rank with tp 2, 64 heads of one 4096-token sequence. QK^T
 * contracts over 128 + 64 = 192: 2 * 64 * 4096^2 * 192 = 412,316,860,416 FLOPs; PV over
 * the value width 128: 2 * 64 * 4096^2 * 128 = 274,877,906,944. */
static void test_mla_unfused(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    struct aug_plan p = plan(&m, 128, 2, 1, 64);
    p.flash_attention = 0;
    struct aug_graph g;
    aug_graph_layer(&m, &p, &h100, &g);
    assert_near(flops_of(g.fwd, g.n_fwd, "attn_qk"), 412316860416.0, 1.0);
    assert_near(flops_of(g.fwd, g.n_fwd, "attn_av"), 274877906944.0, 1.0);
    assert_near(flops_of(g.bwd, g.n_bwd, "attn_av_dgrad_v"), 274877906944.0, 1.0);
    assert_near(flops_of(g.bwd, g.n_bwd, "attn_qk_dgrad_q"), 412316860416.0, 1.0);
}

/* A capacity factor drops routed work; MFU counts only processed tokens and stays <= 1 for
 * every factor, however small (Mixtral: dropped = 1 - c at c <= 1 with even routing). */
static void test_mfu_with_capacity(void **state) {
    (void)state;
    struct aug_model m = load("mixtral-8x7b");
    double prev = 0.0;
    const double cf[] = {0.05, 0.25, 0.5, 1.0, 2.0, 0.0};
    for (size_t i = 0; i < sizeof cf / sizeof *cf; i++) {
        struct aug_plan p = plan(&m, 8, 1, 1, 8);
        p.moe_capacity_factor = cf[i];
        p.moe_imbalance = 1.0;
        struct aug_train_result r;
        struct aug_train_options o = {0};
        o.pure_roofline = 1;
        assert_int_equal(aug_train_predict(&m, &h100, &p, &o, &r), AUG_OK);
        assert_true(r.mfu > 0 && r.mfu <= 1.0);
        p.recompute = AUG_RECOMPUTE_FULL; /* the recomputed forward counts processed work too */
        struct aug_train_result rf;
        assert_int_equal(aug_train_predict(&m, &h100, &p, &o, &rf), AUG_OK);
        assert_true(rf.hfu > rf.mfu && rf.hfu <= 1.0);
        p.recompute = AUG_RECOMPUTE_NONE;
        if (cf[i] > 0 && cf[i] <= 1.0) {
            assert_true(r.model_flops > prev); /* more kept, more counted */
            prev = r.model_flops;
            struct aug_moe_routing rt;
            aug_moe_routing(&m, &p, 2.0, &rt);
            assert_near(rt.dropped_fraction, 1.0 - cf[i], 1e-12);
        }
    }
}

/* The EP all-to-alls hidden behind the shared expert (Megatron-Core
 * moe_shared_expert_overlap) or behind another micro-batch's layer (Megatron-Core's EP
 * all-to-all overlap, ep_overlap.c): DeepSeek-V3 on 64 GPUs, EP 64 across eight nodes, 8
 * micro-batches, of which 7 run merged. Each option is faster than the one before and
 * exposes less all-to-all time; the merged one hides no more than its all-to-alls. What
 * Megatron-Core refuses for either overlap is refused by name. */
static void test_moe_overlap(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    double t[3], ep[3];
    for (int o = 0; o < 3; o++) {
        struct aug_plan p = plan(&m, 64, 1, 1, 64);
        p.global_batch = 512;
        p.moe_overlap = (enum aug_moe_overlap)o;
        assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
        struct aug_train_result r;
        assert_int_equal(aug_train_predict(&m, &h100, &p, NULL, &r), AUG_OK);
        t[o] = r.step_time_s;
        ep[o] = r.breakdown.ep_comm_s;
    }
    assert_true(t[1] < t[0] && t[2] < t[1]);
    assert_true(ep[2] < ep[1] && ep[1] < ep[0]);
    assert_true(ep[2] > 0);
    assert_true(t[0] - t[2] <= ep[0] - ep[2] + 1e-9);
    enum aug_moe_overlap o;
    assert_int_equal(aug_moe_overlap_from_name("batch", &o), AUG_OK);
    assert_int_equal(o, AUG_MOE_OVERLAP_BATCH);
    assert_int_equal(aug_moe_overlap_from_name("dualpipe2", &o), AUG_EUSAGE);

    struct aug_plan p = plan(&m, 512, 1, 8, 64);
    p.moe_overlap = AUG_MOE_OVERLAP_BATCH;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "--interleave"));
    p = plan(&m, 64, 1, 1, 64);
    p.moe_overlap = AUG_MOE_OVERLAP_BATCH;
    p.recompute = AUG_RECOMPUTE_FULL;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "full"));
    p.recompute = AUG_RECOMPUTE_SELECTIVE;
    p.recompute_modules = AUG_RC_MOE;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "moe"));
    p = plan(&m, 64, 1, 1, 1);
    p.moe_overlap = AUG_MOE_OVERLAP_BATCH;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "--ep"));
    /* the shared expert's overlap needs one (Mixtral has none) and expert parallelism */
    struct aug_model mx = load("mixtral-8x7b");
    p = plan(&mx, 8, 1, 1, 8);
    p.moe_overlap = AUG_MOE_OVERLAP_SHARED;
    assert_int_equal(aug_plan_resolve(&p, &mx, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "shared experts"));
    p = plan(&m, 64, 1, 1, 1);
    p.moe_overlap = AUG_MOE_OVERLAP_SHARED;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_EUSAGE);
}

/* The shared-expert overlap hides only moe_overlap_realized of what its schedule would
 * (the side-stream share fitted on the merged-layer pair, efficiency.c): DeepSeek-V3 at EP
 * 64, one stage, so the step is linear in the share. At 0 the overlap hides nothing and the
 * EP time is that of no overlap; the default 0.39 sits at 0.39 of the way from 0 to 1. */
static void test_shared_overlap_realized(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    double t[3], ep[3], share[3] = {0.0, 0.39, 1.0};
    struct aug_plan p = plan(&m, 64, 1, 1, 64);
    p.global_batch = 512;
    p.moe_overlap = AUG_MOE_OVERLAP_SHARED;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    assert_rel(p.moe_overlap_realized, 0.39, 0);
    for (int k = 0; k < 3; k++) {
        struct aug_plan q = p;
        q.moe_overlap_realized = share[k];
        struct aug_train_result r;
        assert_int_equal(aug_train_predict(&m, &h100, &q, NULL, &r), AUG_OK);
        t[k] = r.step_time_s;
        ep[k] = r.breakdown.ep_comm_s;
    }
    assert_true(t[2] < t[1] && t[1] < t[0]);
    assert_rel(t[1], t[0] - 0.39 * (t[0] - t[2]), 1e-9);
    assert_rel(ep[1], ep[0] - 0.39 * (ep[0] - ep[2]), 1e-9);
    struct aug_plan none = p;
    none.moe_overlap = AUG_MOE_OVERLAP_NONE;
    struct aug_train_result rn;
    assert_int_equal(aug_train_predict(&m, &h100, &none, NULL, &rn), AUG_OK);
    assert_rel(ep[0], rn.breakdown.ep_comm_s, 1e-9);
}

/* The sub-modules Megatron-Core's EP all-to-all overlap schedules (enum aug_ep_node):
 * DeepSeek-V3 at EP 64, ETP 1. Forward: router and permutation before the dispatch, the
 * shared expert too (Megatron-Core computes it in the pre-dispatch node); the experts;
 * the combine with the un-permutation. Backward: the combine's mirror, the experts' data
 * gradients apart from their delayed weight gradients, the dispatch's mirror, the rest. */
static void test_ep_nodes(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    struct aug_plan p = plan(&m, 64, 1, 1, 64);
    struct aug_graph g;
    aug_graph_layer(&m, &p, &h100, &g);
    struct { int bwd; const char *name; enum aug_ep_node node; } want[] = {
        {0, "router", AUG_EP_NODE_PRE},          {0, "moe_permute", AUG_EP_NODE_PRE},
        {0, "moe_dispatch", AUG_EP_NODE_DISPATCH}, {0, "expert_up", AUG_EP_NODE_MLP},
        {0, "expert_down", AUG_EP_NODE_MLP},     {0, "moe_combine", AUG_EP_NODE_COMBINE},
        {0, "moe_unpermute", AUG_EP_NODE_COMBINE}, {0, "mlp_up", AUG_EP_NODE_PRE},
        {0, "mla_kv_down", AUG_EP_NODE_PRE},
        {1, "moe_unpermute_bwd", AUG_EP_NODE_COMBINE}, {1, "moe_combine_bwd", AUG_EP_NODE_COMBINE},
        {1, "expert_down_dgrad", AUG_EP_NODE_MLP}, {1, "expert_down_wgrad", AUG_EP_NODE_MLP_DW},
        {1, "expert_up_wgrad", AUG_EP_NODE_MLP_DW}, {1, "moe_dispatch_bwd", AUG_EP_NODE_DISPATCH},
        {1, "moe_permute_bwd", AUG_EP_NODE_PRE},  {1, "router_wgrad", AUG_EP_NODE_PRE},
        {1, "mlp_up_wgrad", AUG_EP_NODE_PRE},
    };
    for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
        const struct aug_graph_op *ops = want[w].bwd ? g.bwd : g.fwd;
        int n = want[w].bwd ? g.n_bwd : g.n_fwd, found = 0;
        for (int i = 0; i < n; i++)
            if (strcmp(ops[i].op.name, want[w].name) == 0) {
                if (ops[i].ep_node != want[w].node)
                    fail_msg("%s: node %d, expected %d", want[w].name, ops[i].ep_node,
                             want[w].node);
                found = 1;
            }
        if (!found)
            fail_msg("no op %s", want[w].name);
    }
}

/* DeepSeek-V3 served on 8 GPUs (tp 8, ep 8, fp8): the 576-element latent is cached whole on
 * every TP rank; with attention data-parallel each rank caches only its own eighth of the
 * sequences, so the KV cache per GPU falls 8x and the largest batch grows. */
static void test_attention_dp(void **state) {
    (void)state;
    struct aug_model m = load("deepseek-v3");
    struct aug_system h200;
    assert_int_equal(aug_system_load(KDB, "dgx-h200", &h200), AUG_OK);
    struct aug_infer_plan p;
    aug_infer_plan_init(&p);
    p.tp = p.ep = 8;
    p.batch = 64;
    p.input_len = p.output_len = 1000;
    p.dtype = AUG_DTYPE_FP8;
    assert_int_equal(aug_infer_plan_resolve(&p, &m, &h200), AUG_OK);
    struct aug_infer_memory a, b;
    aug_infer_memory(&m, &h200, &p, &a);
    long mb_tp = aug_infer_max_batch(&m, &h200, &p);
    /* 64 sequences x 2000 tokens x 61 layers x 576 elements x 1 byte, on every rank */
    assert_near(a.kv_cache_gib * 1073741824.0, 64.0 * 2000 * 61 * 576, 1.0);
    p.attn_dp = 1;
    assert_int_equal(aug_infer_plan_resolve(&p, &m, &h200), AUG_OK);
    aug_infer_memory(&m, &h200, &p, &b);
    assert_near(b.kv_cache_gib, a.kv_cache_gib / 8.0, 1e-9);
    assert_true(b.weights_gib > a.weights_gib); /* attention, shared expert and dense FFN whole */
    assert_true(aug_infer_max_batch(&m, &h200, &p) > 2 * mb_tp);
    struct aug_infer_result r;
    assert_int_equal(aug_infer_predict(&m, &h200, &p, NULL, &r), AUG_OK);
    assert_true(r.decode.tp_comm_s > 0); /* the expert all-to-alls */
    p.ep = 4;
    assert_int_equal(aug_infer_plan_resolve(&p, &m, &h200), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "ep = tp"));
}

/* The accuracy-set columns of the MoE schema: a DeepSeek-V3 row described by dimensions
 * and the architecture columns gives the preset's counts; "mla" without the latent widths
 * takes DeepSeek-V2/V3's and says so; an unknown attention kind names its column; a file
 * without the columns keeps the defaults. */
static void test_schema_columns(void **state) {
    (void)state;
    const char *csv =
        "id,layers,hidden,heads,kv_heads,ffn_hidden,vocab,mlp,moe_experts,moe_topk,head_dim,"
        "moe_ffn_hidden,moe_shared_experts,moe_dense_layers,attention_kind,moe_layer_freq,"
        "dense_ffn_hidden,mtp_layers,moe_groups,moe_topk_groups\n"
        "ds,61,7168,128,128,2048,129280,swiglu,256,8,192,2048,1,3,mla,,18432,1,8,4\n"
        "mav,48,5120,40,8,8192,202048,swiglu,128,1,128,8192,1,0,gqa,2,16384,,,\n"
        "bad,2,64,4,4,128,100,swiglu,8,2,,,,,linear,,,,,\n";
    struct aug_csv *t;
    assert_int_equal(aug_csv_load_mem("moe.csv", csv, strlen(csv), &t), AUG_OK);
    struct aug_model m;
    assert_int_equal(aug_vrow_model(t, 0, &m), AUG_OK);
    struct aug_model ds = load("deepseek-v3");
    m.max_seq = ds.max_seq;
    assert_near(aug_model_params(&m), aug_model_params(&ds), 0);
    assert_near(aug_model_kv_elems_per_token(&m, 0), 61.0 * 576, 0);
    assert_int_equal(m.mtp_layers, 1);
    assert_non_null(strstr(m.source, "kv_lora_rank 512"));
    assert_int_equal(m.fp8_recipe, AUG_FP8_PER_TENSOR);
    assert_int_equal(aug_vrow_model(t, 1, &m), AUG_OK);
    struct aug_model mav = load("llama4-maverick");
    /* the preset also carries the chunked-attention window, which adds no parameters */
    assert_near(aug_model_params(&m), aug_model_params(&mav), 0);
    /* and the recipe of its FP8 checkpoint, which the row takes from it (the DeepSeek-V3 row
     * keeps the default) */
    assert_int_equal(mav.fp8_recipe, AUG_FP8_PER_CHANNEL_PER_TOKEN);
    assert_int_equal(m.fp8_recipe, AUG_FP8_PER_CHANNEL_PER_TOKEN);
    assert_non_null(strstr(m.source, "preset 'llama4-maverick'"));
    assert_int_equal(aug_vrow_model(t, 2, &m), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "attention_kind"));
    aug_csv_free(t);
    const char *old = "id,layers,hidden,heads,moe_experts,moe_topk\nx,4,256,4,8,2\n";
    assert_int_equal(aug_csv_load_mem("old.csv", old, strlen(old), &t), AUG_OK);
    assert_int_equal(aug_vrow_model(t, 0, &m), AUG_OK);
    assert_int_equal(m.attention, AUG_ATTN_GQA);
    assert_int_equal(aug_model_moe_layers(&m), 4);
    aug_csv_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepseek_v3_params),
        cmocka_unit_test(test_deepseek_v2_lite_params),
        cmocka_unit_test(test_qwen3_params),
        cmocka_unit_test(test_gpt_oss_params),
        cmocka_unit_test(test_llama4_params),
        cmocka_unit_test(test_grok_mixtral_params),
        cmocka_unit_test(test_kv_bytes),
        cmocka_unit_test(test_hf_families),
        cmocka_unit_test(test_hf_key_record),
        cmocka_unit_test(test_hf_windows),
        cmocka_unit_test(test_hf_refuses_what_it_cannot_model),
        cmocka_unit_test(test_layer_mix_and_mtp),
        cmocka_unit_test(test_window_attention),
        cmocka_unit_test(test_chunked_attention),
        cmocka_unit_test(test_mla_flops),
        cmocka_unit_test(test_mla_unfused),
        cmocka_unit_test(test_mfu_with_capacity),
        cmocka_unit_test(test_moe_overlap),
        cmocka_unit_test(test_ep_nodes),
        cmocka_unit_test(test_shared_overlap_realized),
        cmocka_unit_test(test_attention_dp),
        cmocka_unit_test(test_schema_columns),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
