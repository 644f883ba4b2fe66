/* SPDX-License-Identifier: Apache-2.0 */
/* test_hf_cache.c - Hugging Face names from the local hub cache ($HF_HUB_CACHE, $HF_HOME,
 * ~/.cache/huggingface/hub), the message naming where augur looked, and the record of how
 * a config was read (`augur models --show`, the warning about fields not modelled). */
#include "aug_cli_run.h"

#include <jansson.h>

#include "json_schema_subset.h"

#include "augur/model.h"
#include "augur/status.h"

static char home[128];

/* Mistral-7B-v0.1's config.json as published (mistralai/Mistral-7B-v0.1, transformers 4.34):
 * 32 layers, hidden 4096, 32 heads with 8 KV heads, FFN 14336, vocab 32000, a 4096-token
 * sliding window; with the quantization_config an AWQ upload of it adds, which augur does
 * not model (the weight dtype is --weight-dtype). */
static const char *mistral =
    "{\"architectures\":[\"MistralForCausalLM\"],\"bos_token_id\":1,\"eos_token_id\":2,"
    "\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,"
    "\"intermediate_size\":14336,\"max_position_embeddings\":32768,\"model_type\":\"mistral\","
    "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,"
    "\"rms_norm_eps\":1e-05,\"rope_theta\":10000.0,\"sliding_window\":4096,"
    "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.34.0\","
    "\"use_cache\":true,\"vocab_size\":32000,"
    "\"quantization_config\":{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":128}}\n";

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void mk(const char *fmt, const char *a) {
    char p[512];
    snprintf(p, sizeof p, fmt, home, a);
    assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state) {
    (void)state;
    if (aug_cli_run_setup("aughf") != 0)
        return -1;
    snprintf(home, sizeof home, "%s", tmp_root);
    /* $HF_HOME/hub/models--mistralai--Mistral-7B-v0.1/{refs/main,snapshots/<commit>/} */
    const char *repo = "models--mistralai--Mistral-7B-v0.1";
    mk("%s/%s", "hub");
    mk("%s/hub/%s", repo);
    char p[512];
    snprintf(p, sizeof p, "%s/hub/%s/refs", home, repo);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/hub/%s/snapshots", home, repo);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/hub/%s/snapshots/26bca36b", home, repo);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/hub/%s/snapshots/26bca36b/config.json", home, repo);
    write_file(p, mistral);
    snprintf(p, sizeof p, "%s/hub/%s/refs/main", home, repo);
    write_file(p, "26bca36b");
    setenv("HF_HOME", home, 1);
    unsetenv("HF_HUB_CACHE");
    unsetenv("HUGGINGFACE_HUB_CACHE");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    aug_cli_run_teardown(NULL, 0);
    char cmd[256];
    /* the folder was made by mkdtemp under /tmp with a fixed prefix: no input reaches it */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
    return system(cmd) == 0 ? 0 : -1;
}

static void resolves_from_hf_home(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_load(NULL, "mistralai/Mistral-7B-v0.1", &m), AUG_OK);
    assert_string_equal(m.name, "Mistral-7B-v0.1"); /* from the cache folder, not the commit */
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.ffn_hidden, 14336);
    /* 7.24 B parameters (Mistral 7B model card): embeddings 2 x 32000 x 4096 = 262.1 M,
     * per layer attention 4096 x (4096 + 2 x 1024 + 4096) = 41.9 M, MLP 3 x 4096 x 14336 =
     * 176.2 M, norms 8192: 32 x 218.1 M + 262.1 M + 4096 = 7.2417 B */
    assert_rel(aug_model_params(&m), 7.2417e9, 1e-3);
}

static void hub_cache_variable_wins(void **state) {
    (void)state;
    struct aug_model m;
    char p[256];
    snprintf(p, sizeof p, "%s/elsewhere", home);
    setenv("HF_HUB_CACHE", p, 1);
    assert_int_equal(aug_model_load(NULL, "mistralai/Mistral-7B-v0.1", &m), AUG_ENOTFOUND);
    /* the message names the folder it looked in and the variable that chose it */
    assert_non_null(strstr(aug_last_error(), "elsewhere/models--mistralai--Mistral-7B-v0.1/snapshots"));
    assert_non_null(strstr(aug_last_error(), "$HF_HUB_CACHE"));
    unsetenv("HF_HUB_CACHE");
    assert_int_equal(aug_model_load(NULL, "meta-llama/Llama-3.1-8B", &m), AUG_ENOTFOUND);
    assert_non_null(strstr(aug_last_error(), "hub/models--meta-llama--Llama-3.1-8B/snapshots/*/config.json"));
    assert_non_null(strstr(aug_last_error(), "$HF_HOME/hub"));
    /* a path that is not "org/name" is still a plain missing file */
    assert_int_equal(aug_model_load(NULL, "./no/such/config.json", &m), AUG_EIO);
}

static void record_of_keys(void **state) {
    (void)state;
    struct aug_model m;
    static struct aug_model_record rec;
    assert_int_equal(aug_model_load_record(NULL, "mistralai/Mistral-7B-v0.1", &m, &rec), AUG_OK);
    assert_string_equal(rec.format, "Hugging Face config.json");
    assert_int_equal(rec.n, 21); /* every key of the file */
    int used = 0, ignored = 0, unmodeled = 0;
    for (int i = 0; i < rec.n; i++) {
        used += rec.keys[i].use == AUG_KEY_USED;
        ignored += rec.keys[i].use == AUG_KEY_IGNORED;
        if (rec.keys[i].use == AUG_KEY_UNMODELED) {
            unmodeled++;
            assert_string_equal(rec.keys[i].key, "quantization_config");
        }
    }
    /* used: hidden_act hidden_size intermediate_size max_position_embeddings model_type
     * num_attention_heads num_hidden_layers num_key_value_heads rms_norm_eps sliding_window
     * tie_word_embeddings vocab_size */
    assert_int_equal(used, 12);
    assert_int_equal(ignored, 8);
    assert_int_equal(unmodeled, 1);
}

static void cli_show_and_warning(void **state) {
    (void)state;
    if (!bin)
        skip();
    expect_exit(RUN("models", "--show", "mistralai/Mistral-7B-v0.1"), 0);
    out_has("Mistral-7B-v0.1 read from ");
    out_has("num_key_value_heads                used          kv_heads");
    out_has("torch_dtype                        ignored       storage dtype");
    out_has("sliding_window                     used          sliding_window (the windowed");
    out_has("# sliding_window 4096 on 32 of 32 layers");
    out_has("quantization_config                not modelled  the checkpoint is quantized");
    expect_exit(RUN("train", "--model", "mistralai/Mistral-7B-v0.1", "--system", "dgx-h100",
                    "--gpus", "8", "--micro-batch", "1", "--global-batch", "64", "--seq", "4096"),
                0);
    err_has("1 field augur does not model: quantization_config");
    expect_exit(RUN("train", "--model", "meta-llama/Llama-3.1-8B", "--system", "dgx-h100",
                    "--gpus", "8", "--micro-batch", "1", "--global-batch", "64"),
                1);
    err_has("not in the Hugging Face cache: looked for ");
    /* the same record as JSON, valid against predictor/schemas/models-show.schema.json */
    expect_exit(RUN("models", "--show", "mistralai/Mistral-7B-v0.1", "--format", "json"), 0);
    json_t *v = json_loads(out_buf, 0, NULL);
    json_t *sch = json_load_file(AUG_TEST_SOURCE_DIR "/predictor/schemas/models-show.schema.json", 0, NULL);
    assert_non_null(v);
    assert_non_null(sch);
    char err[512];
    if (aug_js_validate(sch, v, "$", err, sizeof err))
        fail_msg("models --show json: %s", err);
    assert_int_equal((int)json_array_size(json_object_get(v, "keys")), 21);
    json_t *k = json_array_get(json_object_get(v, "keys"), 20); /* file order: the last */
    assert_string_equal(json_string_value(json_object_get(k, "key")), "quantization_config");
    assert_string_equal(json_string_value(json_object_get(k, "read")), "not modelled");
    json_decref(v);
    json_decref(sch);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolves_from_hf_home), cmocka_unit_test(hub_cache_variable_wins),
        cmocka_unit_test(record_of_keys), cmocka_unit_test(cli_show_and_warning),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
