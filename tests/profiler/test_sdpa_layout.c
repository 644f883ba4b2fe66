/* SPDX-License-Identifier: Apache-2.0 */
/* test_sdpa_layout.c - the BHSD dimensions and strides of cuDNN's SDPA forward graph
 * (sdpa_layout.c), the choice between cuDNN and augur's own kernel, the version text and
 * the row labels. Expected strides are products of the packed [b, h, s, d] layout worked
 * out by hand in the comments. */
#include "../aug_test.h"

#include "augur/status.h"
#include "sdpa_layout.h"

static void assert_dims(const struct aug_sdpa_dims *t, const int64_t dim[4],
                        const int64_t stride[4]) {
    for (int i = 0; i < 4; i++) {
        assert_int_equal(t->dim[i], dim[i]);
        assert_int_equal(t->stride[i], stride[i]);
    }
}

/* Decode with grouped-query attention: 8 query heads share 2 key/value heads. */
static void decode_gqa(void **state) {
    (void)state;
    struct aug_sdpa_shape sh = {.b = 2, .h_q = 8, .h_kv = 2, .s_q = 1, .s_kv = 4096, .d = 128};
    struct aug_sdpa_layout l;
    assert_int_equal(aug_sdpa_layout(&sh, &l), AUG_OK);
    /* Q: one row per head; head stride 1 * 128, batch stride 8 * 128 = 1024 */
    assert_dims(&l.q, (const int64_t[]){2, 8, 1, 128}, (const int64_t[]){1024, 128, 128, 1});
    assert_dims(&l.o, (const int64_t[]){2, 8, 1, 128}, (const int64_t[]){1024, 128, 128, 1});
    /* K^T over K's memory: head stride 4096 * 128 = 524288, batch 2 * 524288 = 1048576;
     * the d axis has stride 1 and the s_kv axis stride 128 */
    assert_dims(&l.kt, (const int64_t[]){2, 2, 128, 4096},
                (const int64_t[]){1048576, 524288, 1, 128});
    assert_dims(&l.v, (const int64_t[]){2, 2, 4096, 128},
                (const int64_t[]){1048576, 524288, 128, 1});
    /* scores: 1 x 4096 per head, 8 * 4096 = 32768 per batch */
    assert_dims(&l.s, (const int64_t[]){2, 8, 1, 4096}, (const int64_t[]){32768, 4096, 4096, 1});
    assert_dims(&l.row, (const int64_t[]){2, 8, 1, 1}, (const int64_t[]){8, 1, 1, 1});
}

/* Prefill, multi-head (h_kv = h_q): b 4, 32 heads, 2048 tokens, d 64. */
static void prefill_mha(void **state) {
    (void)state;
    struct aug_sdpa_shape sh = {.b = 4, .h_q = 32, .h_kv = 32, .s_q = 2048, .s_kv = 2048,
                                .d = 64};
    struct aug_sdpa_layout l;
    assert_int_equal(aug_sdpa_layout(&sh, &l), AUG_OK);
    /* 2048 * 64 = 131072 per head, 32 * 131072 = 4194304 per batch */
    assert_dims(&l.q, (const int64_t[]){4, 32, 2048, 64}, (const int64_t[]){4194304, 131072, 64, 1});
    assert_dims(&l.kt, (const int64_t[]){4, 32, 64, 2048}, (const int64_t[]){4194304, 131072, 1, 64});
    /* 2048^2 = 4194304 per head, 32 * 4194304 = 134217728 per batch */
    assert_dims(&l.s, (const int64_t[]){4, 32, 2048, 2048},
                (const int64_t[]){134217728, 4194304, 2048, 1});
    assert_dims(&l.row, (const int64_t[]){4, 32, 2048, 1}, (const int64_t[]){65536, 2048, 1, 1});
}

static void bad_shapes(void **state) {
    (void)state;
    struct aug_sdpa_layout l;
    struct aug_sdpa_shape sh = {.b = 1, .h_q = 6, .h_kv = 4, .s_q = 1, .s_kv = 64, .d = 64};
    assert_int_equal(aug_sdpa_layout(&sh, &l), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "'kv_heads' (4) does not divide 'heads' (6)"));
    sh.h_kv = 0;
    assert_int_equal(aug_sdpa_layout(&sh, &l), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "field 'kv_heads' is 0"));
    sh.h_kv = 2;
    sh.d = -64;
    assert_int_equal(aug_sdpa_layout(&sh, &l), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "field 'head_dim' is -64"));
    /* 2^20 x 64 heads x 2^20 x 2^20 scores = 2^66 > 2^62 */
    struct aug_sdpa_shape big = {.b = 1L << 20, .h_q = 64, .h_kv = 64, .s_q = 1L << 20,
                                 .s_kv = 1L << 20, .d = 128};
    assert_int_equal(aug_sdpa_layout(&big, &l), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "exceeds 2^62 elements"));
}

static void version_text(void **state) {
    (void)state;
    char v[32];
    aug_cudnn_version_format(91900, v, sizeof v); /* 9*10000 + 19*100 + 0 */
    assert_string_equal(v, "9.19.0");
    aug_cudnn_version_format(90102, v, sizeof v);
    assert_string_equal(v, "9.1.2");
    aug_cudnn_version_format(8907, v, sizeof v); /* 8.x: 8*1000 + 9*100 + 7 */
    assert_string_equal(v, "8.9.7");
}

/* Each reason in its order of precedence, then the cuDNN choice. */
static void choice(void **state) {
    (void)state;
    char why[256];
    struct aug_attn_probe p = {.loaded = 0, .load_error = "cannot open libcudnn.so.9 (x)",
                               .version = 0, .cc_major = 7, .cc_minor = 0};
    assert_int_equal(aug_attn_choose(&p, why, sizeof why), 0);
    assert_string_equal(why, "cannot open libcudnn.so.9 (x)");
    p.loaded = 1;
    p.version = 8907;
    assert_int_equal(aug_attn_choose(&p, why, sizeof why), 0);
    assert_string_equal(why, "cuDNN 8.9.7 is older than 9.0 (the backend graph SDPA this build "
                             "uses)");
    p.version = 90100;
    assert_int_equal(aug_attn_choose(&p, why, sizeof why), 0);
    assert_string_equal(why, "compute capability 7.0: cuDNN's fused SDPA needs sm80 or later");
    p.cc_major = 8;
    p.engine_error = "cudnnBackendFinalize(engine config): CUDNN_STATUS_NOT_SUPPORTED (3000)";
    assert_int_equal(aug_attn_choose(&p, why, sizeof why), 0);
    assert_string_equal(why, "cuDNN 9.1.0 has no engine for this shape: cudnnBackendFinalize("
                             "engine config): CUDNN_STATUS_NOT_SUPPORTED (3000)");
    p.engine_found = 1;
    assert_int_equal(aug_attn_choose(&p, why, sizeof why), 1);
    assert_string_equal(why, "");
}

static void labels(void **state) {
    (void)state;
    char impl[32], algo[256];
    struct aug_sdpa_plan_info info = {.version = 91900, .engine = 8, .n_knobs = 2,
                                      .knob_type = {17, 18}, .knob_value = {1, 0},
                                      .workspace = 0, .stats = 1, .heur_index = 0};
    aug_attn_label(&info, NULL, impl, sizeof impl, algo, sizeof algo);
    assert_string_equal(impl, "cudnn_sdpa");
    assert_string_equal(algo, "cudnn=9.19.0 engine=8 knobs=17:1,18:0 heur=A#0 stats=1 workspace=0");
    info.n_knobs = 0;
    info.heur_index = 2;
    info.workspace = 1048576;
    info.stats = 0;
    aug_attn_label(&info, NULL, impl, sizeof impl, algo, sizeof algo);
    assert_string_equal(algo, "cudnn=9.19.0 engine=8 knobs=none heur=A#2 stats=0 workspace=1048576");
    aug_attn_label(NULL, "compute capability 7.5: x", impl, sizeof impl, algo, sizeof algo);
    assert_string_equal(impl, "augur_flash_fallback");
    assert_string_equal(algo, "augur flash-style forward, not a production kernel; cuDNN SDPA "
                              "not used: compute capability 7.5: x");
    /* a long reason is cut to the column's buffer, never overflows it */
    char longwhy[600];
    memset(longwhy, 'x', sizeof longwhy - 1);
    longwhy[sizeof longwhy - 1] = '\0';
    char small[40];
    aug_attn_label(NULL, longwhy, impl, sizeof impl, small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decode_gqa),   cmocka_unit_test(prefill_mha),
        cmocka_unit_test(bad_shapes),   cmocka_unit_test(version_text),
        cmocka_unit_test(choice),       cmocka_unit_test(labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
