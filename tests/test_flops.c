/* SPDX-License-Identifier: Apache-2.0 */
/* test_flops.c - FLOPs per iteration and parameter counts against the published formulas.
 *
 * Narayanan et al., SC21 (arXiv 2104.04473), eq. (3): with full activation recomputation
 * a GPT model of l layers, hidden h, vocabulary V, sequence s and batch B costs
 *     F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h))
 * FLOPs per iteration. Expanded, one layer's forward is 24 B s h^2 + 4 B s^2 h (QKV 6Bsh^2,
 * QK^T 2Bs^2h, AV 2Bs^2h, output 2Bsh^2, MLP 16Bsh^2) and the LM head 2BshV, so
 *     F = 4 l (24 B s h^2 + 4 B s^2 h) + 6 B s h V     (forward, 2x backward, recomputed forward)
 * and the model FLOPs (no recomputation, PaLM-style MFU) are
 *     M = 3 (l (24 B s h^2 + 4 B s^2 h) + 2 B s h V).
 * Both count every query against every key. augur counts the causal pairs a causal model
 * needs, s (s + 1) / 2 per head, so its attention core is 4 h s (s + 1) / 2 = 2 B h s (s + 1)
 * per layer forward instead of 4 B s^2 h: its F and M are the above less 4 l D and 3 l D,
 * D = 4 B s^2 h - 2 B h s (s + 1) = 2 B h s (s - 1) (the full-attention M is what validation
 * compares with published MFUs).
 * Parameters: 12 l h^2 (1 + 13/(12h)) + V h + s h is the classic GPT count (weights and
 * biases of l layers with two LayerNorms each, tied embeddings, learned positions); it leaves
 * out the final LayerNorm (2h), which augur counts. Llama-2-7B has 6,738,415,616 parameters
 * (the count of the released checkpoint, Touvron et al. 2023). */
#include "aug_test.h"

#include "augur/model.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system load_system(const char *name) {
    struct aug_system s;
    if (aug_system_load(KDB, name, &s) != AUG_OK)
        fail_msg("system '%s': %s", name, aug_last_error());
    return s;
}

/* GPT-3 175B in the dimensions of Narayanan et al. Table 1 (vocabulary padded to 51200). */
static struct aug_model gpt175b(void) {
    struct aug_model m;
    aug_model_init(&m);
    snprintf(m.name, sizeof m.name, "gpt-175b-test");
    m.layers = 96;
    m.hidden = 12288;
    m.heads = 96;
    m.kv_heads = 96;
    m.vocab = 51200;
    m.max_seq = 2048;
    m.tied_embeddings = 1;
    if (aug_model_finish(&m, "test") != AUG_OK)
        fail_msg("model: %s", aug_last_error());
    return m;
}

static double eq3(double B, double s, double l, double h, double V) {
    return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
}

static double model_flops(double B, double s, double l, double h, double V) {
    return 3.0 * (l * (24.0 * B * s * h * h + 4.0 * B * s * s * h) + 2.0 * B * s * h * V);
}

/* full minus causal attention core of one layer's forward: 2 B h s (s - 1) */
static double causal_saving(double B, double s, double h) {
    return 2.0 * B * h * s * (s - 1.0);
}

static struct aug_train_result predict(const struct aug_model *m, const struct aug_system *s,
                                       struct aug_plan *p) {
    if (aug_plan_resolve(p, m, s) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    struct aug_train_result r;
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    if (aug_train_predict(m, s, p, &o, &r) != AUG_OK)
        fail_msg("predict: %s", aug_last_error());
    return r;
}

/* Narayanan et al. Table 1, 175B row: 1536 GPUs, tp 8, pp 16, batch 1536. */
static struct aug_plan plan_175b(enum aug_recompute rc) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 1536;
    p.tp = 8;
    p.pp = 16;
    p.micro_batch = 1;
    p.global_batch = 1536;
    p.seq = 2048;
    p.recompute = rc;
    return p;
}

static void test_eq3_expansion(void **state) {
    (void)state;
    /* the closed form and its expansion agree (guards the reference itself) */
    double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
    double expanded = 4.0 * l * (24.0 * B * s * h * h + 4.0 * B * s * s * h) + 6.0 * B * s * h * V;
    assert_rel(eq3(B, s, l, h, V), expanded, 1e-14);
    /* 4.511e18 FLOPs per iteration: at the 153 TFLOP/s per GPU that Narayanan et al.
     * report for this row on 1536 A100s, one iteration takes about 19 s */
    assert_rel(eq3(B, s, l, h, V), 4.51097075e18, 1e-8);
}

static void test_hardware_flops_full_recompute_eq3(void **state) {
    (void)state;
    struct aug_model m = gpt175b();
    struct aug_system s = load_system("dgx-a100-80g");
    struct aug_plan p = plan_175b(AUG_RECOMPUTE_FULL);
    struct aug_train_result r = predict(&m, &s, &p);
    double B = 1536, sq = 2048, l = 96, h = 12288, V = 51200;
    double D = causal_saving(B, sq, h);
    assert_rel(r.hardware_flops, eq3(B, sq, l, h, V) - 4.0 * l * D, 1e-9);
    assert_rel(r.model_flops, model_flops(B, sq, l, h, V) - 3.0 * l * D, 1e-9);
    /* model FLOPs are eq. (3) less the recomputed forward of every layer */
    assert_rel(r.hardware_flops - r.model_flops,
               l * (24.0 * B * sq * h * h + 4.0 * B * sq * sq * h - D), 1e-9);
    /* HFU and MFU against the hand-derived FLOPs and the A100's 312 TFLOP/s dense BF16
     * peak over 1536 GPUs. D = 2 x 1536 x 12288 x 2048 x 2047 = 1.58252e14, so
     * F = 4.51097075e18 - 4 x 96 x D = 4.45020e18 and M = 3.38620e18 - 3 x 96 x D =
     * 3.34062e18: HFU / MFU = 1.33215 (with full recomputation a layer runs forward twice:
     * 4 l X + 6BshV over 3 l X + 6BshV) */
    double peak = 312e12 * 1536.0;
    assert_rel(s.gpu.peak_tflops[AUG_DTYPE_BF16], 312.0, 1e-12);
    assert_rel(D, 1.58252364988416e14, 1e-12);
    assert_rel(r.hfu, 4.450201845167555e18 / (r.step_time_s * peak), 1e-9);
    assert_rel(r.mfu, 3.340620065270661e18 / (r.step_time_s * peak), 1e-9);
    assert_rel(r.hfu / r.mfu, 4.450201845167555e18 / 3.340620065270661e18, 1e-9);
    assert_rel(r.tokens_per_s, 1536.0 * 2048.0 / r.step_time_s, 1e-12);
}

static void test_flops_other_recompute_modes(void **state) {
    (void)state;
    struct aug_model m = gpt175b();
    struct aug_system s = load_system("dgx-a100-80g");
    double B = 1536, sq = 2048, l = 96, h = 12288, V = 51200;
    double D = causal_saving(B, sq, h);
    struct aug_plan p = plan_175b(AUG_RECOMPUTE_NONE);
    struct aug_train_result r = predict(&m, &s, &p);
    assert_rel(r.model_flops, model_flops(B, sq, l, h, V) - 3.0 * l * D, 1e-9);
    assert_rel(r.hardware_flops, r.model_flops, 1e-12);
    assert_rel(r.hfu, r.mfu, 1e-12);
    /* selective recomputation of the unfused attention core repeats QK^T and AV:
     * 4 B s^2 h per layer (Korthikanti et al. 2022, sec. 5), on the causal pairs
     * 2 B h s (s + 1) */
    double core = 2.0 * B * h * sq * (sq + 1.0);
    p = plan_175b(AUG_RECOMPUTE_SELECTIVE);
    p.flash_attention = 0;
    r = predict(&m, &s, &p);
    assert_rel(r.hardware_flops, model_flops(B, sq, l, h, V) - 3.0 * l * D + l * core, 1e-9);
    /* with FlashAttention Megatron-Core's selective mode recomputes the core attention
     * forward as well (recompute_modules ["core_attn"], core_r0.12.0): the same count */
    p = plan_175b(AUG_RECOMPUTE_SELECTIVE);
    r = predict(&m, &s, &p);
    assert_rel(r.hardware_flops, model_flops(B, sq, l, h, V) - 3.0 * l * D + l * core, 1e-9);
}

static void test_selective_flash_costs_time(void **state) {
    (void)state;
    /* one node, tp 8, pp 1, dp 1: no bubble and no gradient traffic, so selective
     * recomputation with FlashAttention lengthens the step by exactly its recompute_s,
     * one fused attention forward per layer and micro-batch (> 0), and its host issue */
    struct aug_model m = gpt175b();
    struct aug_system s = load_system("dgx-a100-80g");
    struct aug_plan a = plan_175b(AUG_RECOMPUTE_NONE), b = plan_175b(AUG_RECOMPUTE_SELECTIVE);
    a.gpus = b.gpus = 8;
    a.pp = b.pp = 1;
    a.global_batch = b.global_batch = 4;
    struct aug_train_result ra = predict(&m, &s, &a), rb = predict(&m, &s, &b);
    assert_near(ra.breakdown.recompute_s, 0.0, 0.0);
    assert_true(rb.breakdown.recompute_s > 0.0);
    assert_rel(rb.step_time_s - ra.step_time_s,
               rb.breakdown.recompute_s + (rb.breakdown.overhead_s - ra.breakdown.overhead_s),
               1e-9); /* (the recomputed kernel's host issue is host time, in overhead_s) */
    /* the attention forward is cheaper than the attention forward + backward */
    assert_true(rb.breakdown.recompute_s < rb.breakdown.attention_s);
}

/* recompute_modules mlp (Megatron-Core core_r0.13.0) repeats the MLP forward: its two
 * GEMMs, 2 B s h 4h FLOPs each, and the GELU at 10 FLOPs per inner element (the
 * activation op of model/graph_build.c): 16 B s h^2 + 40 B s h per layer, on top of the
 * core attention of core_attn. On one node (no bubble, no gradient traffic) the recompute
 * time of two modules is the sum of each one's, and the MLP forward outweighs the causal
 * attention forward at s = 2048, h = 12288 (16 h^2 against 2 s h per token). */
static void test_recompute_modules_flops_and_time(void **state) {
    (void)state;
    struct aug_model m = gpt175b();
    struct aug_system s = load_system("dgx-a100-80g");
    double B = 1536, sq = 2048, l = 96, h = 12288, V = 51200;
    double D = causal_saving(B, sq, h), core = 2.0 * B * h * sq * (sq + 1.0);
    struct aug_plan p = plan_175b(AUG_RECOMPUTE_SELECTIVE);
    p.recompute_modules = AUG_RC_CORE_ATTN | AUG_RC_MLP;
    struct aug_train_result r = predict(&m, &s, &p);
    assert_rel(r.hardware_flops,
               model_flops(B, sq, l, h, V) - 3.0 * l * D + l * core +
                   l * (16.0 * B * sq * h * h + 40.0 * B * sq * h),
               1e-9);
    assert_true(r.hfu <= 1.0 && r.mfu < r.hfu);
    static const unsigned mods[3] = {AUG_RC_CORE_ATTN, AUG_RC_MLP, AUG_RC_CORE_ATTN | AUG_RC_MLP};
    double rec[3];
    for (int i = 0; i < 3; i++) {
        struct aug_plan q = plan_175b(AUG_RECOMPUTE_SELECTIVE);
        q.gpus = 8;
        q.pp = 1;
        q.global_batch = 4;
        q.recompute_modules = mods[i];
        rec[i] = predict(&m, &s, &q).breakdown.recompute_s;
    }
    assert_rel(rec[2], rec[0] + rec[1], 1e-9);
    assert_true(rec[1] > 4.0 * rec[0]);
}

/* The block method repeats the forward of N of each chunk's layers: with 96 layers on 16
 * stages (6 per chunk) and N = 2, a third of full recomputation's time and FLOPs (Narayanan
 * eq. (3) counts all of it: the extra forward is l (24 B s h^2 + 4 B s^2 h) / 3 here). */
static void test_recompute_layers_share(void **state) {
    (void)state;
    struct aug_model m = gpt175b();
    struct aug_system s = load_system("dgx-a100-80g");
    struct aug_plan full = plan_175b(AUG_RECOMPUTE_FULL), none = plan_175b(AUG_RECOMPUTE_NONE),
                    part = plan_175b(AUG_RECOMPUTE_FULL);
    part.recompute_layers = 2;
    struct aug_train_result rf = predict(&m, &s, &full), rn = predict(&m, &s, &none),
                            rp = predict(&m, &s, &part);
    assert_rel(rp.breakdown.recompute_s, rf.breakdown.recompute_s / 3.0, 1e-9);
    assert_rel(rp.hardware_flops - rn.hardware_flops, (rf.hardware_flops - rn.hardware_flops) / 3.0,
               1e-12);
    assert_rel(rp.model_flops, rn.model_flops, 1e-15);
    assert_true(rp.step_time_s < rf.step_time_s && rp.step_time_s > rn.step_time_s);
}

static void test_flops_independent_of_plan(void **state) {
    (void)state;
    /* 6 x params x tokens + attention is a property of the model, not of the split */
    struct aug_model m = gpt175b();
    struct aug_system s = load_system("dgx-a100-80g");
    struct aug_plan a = plan_175b(AUG_RECOMPUTE_FULL);
    struct aug_plan b = plan_175b(AUG_RECOMPUTE_FULL);
    b.tp = 4;
    b.pp = 8;
    b.micro_batch = 2;
    struct aug_train_result ra = predict(&m, &s, &a), rb = predict(&m, &s, &b);
    assert_rel(rb.hardware_flops, ra.hardware_flops, 1e-12);
    assert_rel(rb.model_flops, ra.model_flops, 1e-12);
}

static void test_gpt3_params_classic_count(void **state) {
    (void)state;
    struct aug_model m;
    if (aug_model_load(DATA_ROOT, "gpt3-175b", &m) != AUG_OK)
        fail_msg("gpt3-175b: %s", aug_last_error());
    double l = (double)m.layers, h = (double)m.hidden, V = (double)m.vocab, s = (double)m.max_seq;
    assert_int_equal(m.layers, 96);
    assert_int_equal(m.hidden, 12288);
    assert_int_equal(m.vocab, 50257);
    assert_int_equal(m.max_seq, 2048);
    double classic = 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h)) + V * h + s * h;
    /* exactly the classic count plus the final LayerNorm (weight and bias, 2h) */
    assert_near(aug_model_params(&m), classic + 2.0 * h, 0.5);
    assert_rel(aug_model_params(&m), 174.6e9, 1e-3); /* "175B" */
    /* per layer: 12 h^2 + 13 h */
    assert_near(aug_model_layer_params(&m), 12.0 * h * h + 13.0 * h, 0.5);
    /* tied embedding: V h + s h + final norm */
    assert_near(aug_model_embedding_params(&m), V * h + s * h + 2.0 * h, 0.5);
    assert_near(aug_model_active_params(&m), aug_model_params(&m), 0.5);
}

static void test_llama2_7b_official_count(void **state) {
    (void)state;
    struct aug_model m;
    if (aug_model_load(DATA_ROOT, "llama2-7b", &m) != AUG_OK)
        fail_msg("llama2-7b: %s", aug_last_error());
    assert_near(aug_model_params(&m), 6738415616.0, 0.5);
    /* 32 layers of 4 h^2 (attention) + 3 h f (SwiGLU) + 2 h (RMSNorm) */
    assert_near(aug_model_layer_params(&m), 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2.0 * 4096, 0.5);
}

static void test_fwd_flops_match_6nd_plus_attention(void **state) {
    (void)state;
    /* without the embedding table, 2 x (non-embedding weights) x tokens + attention is the
     * forward of a GPT model (biases and norms aside): 24 s h^2 per layer and the causal
     * core, 4 h per (query, key) pair: 4 h s (s + 1) / 2 = 2 s (s + 1) h */
    struct aug_model m = gpt175b();
    struct aug_system s = load_system("dgx-a100-80g");
    struct aug_plan p = plan_175b(AUG_RECOMPUTE_NONE);
    p.global_batch = 16;
    p.gpus = 128;
    struct aug_train_result r = predict(&m, &s, &p);
    double h = 12288, sq = 2048, l = 96, V = 51200;
    double weights = 12.0 * h * h * l; /* matrices only */
    double expect = 3.0 * 16.0 * (2.0 * weights * sq + l * 2.0 * sq * (sq + 1.0) * h + 2.0 * sq * h * V);
    assert_rel(r.model_flops, expect, 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq3_expansion),
        cmocka_unit_test(test_hardware_flops_full_recompute_eq3),
        cmocka_unit_test(test_flops_other_recompute_modes),
        cmocka_unit_test(test_selective_flash_costs_time),
        cmocka_unit_test(test_recompute_modules_flops_and_time),
        cmocka_unit_test(test_recompute_layers_share),
        cmocka_unit_test(test_flops_independent_of_plan),
        cmocka_unit_test(test_gpt3_params_classic_count),
        cmocka_unit_test(test_llama2_7b_official_count),
        cmocka_unit_test(test_fwd_flops_match_6nd_plus_attention),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
