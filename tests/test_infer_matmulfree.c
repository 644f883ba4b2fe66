/* SPDX-License-Identifier: Apache-2.0 */
/* test_infer_matmulfree.c - serving MatMul-free LMs (infer_matmulfree.c): a constant-size
 * recurrent state instead of a KV cache (Zhu et al. 2024, arXiv 2406.02528, sec. 3.3),
 * 2-bit ternary weights. Memory by hand: per layer (4 h^2 + 3 h f) / 4 bytes of packed
 * weights and 2 (9 h + f) of norms and lower bounds; 16-bit embedding, packed BitLinear
 * head and the two head-side norms; state = layers x hidden x 4 bytes per sequence. */
#include "aug_test.h"

#include "augur/infer.h"
#include "augur/matmulfree.h"
#include "augur/model.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/units.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system h100;
static struct aug_model mmf, twin;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK ||
        aug_model_load(DATA_ROOT, "matmulfree-2.7b", &mmf) != AUG_OK ||
        aug_mmf_transformer_twin(&mmf, &twin) != AUG_OK)
        return -1;
    return 0;
}

static struct aug_infer_result serve(const struct aug_model *m, long batch, long in, long out,
                                     long tp) {
    struct aug_infer_plan p;
    aug_infer_plan_init(&p);
    p.gpus = tp;
    p.tp = tp;
    p.batch = batch;
    p.input_len = in;
    p.output_len = out;
    if (aug_infer_plan_resolve(&p, m, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    struct aug_infer_options o = {NULL, 0};
    struct aug_infer_result r;
    if (aug_infer_predict(m, &h100, &p, &o, &r) != AUG_OK)
        fail_msg("predict: %s", aug_last_error());
    return r;
}

static void test_memory_by_hand(void **state) {
    (void)state;
    double L = 32, h = 2560, f = 6912, V = 32000;
    struct aug_infer_result r = serve(&mmf, 4, 1024, 64, 1);
    double weights = L * ((4.0 * h * h + 3.0 * h * f) / 4.0 + 2.0 * (9.0 * h + f)) + 2.0 * V * h +
                     V * h / 4.0 + 2.0 * 2.0 * h;
    assert_rel(r.memory.weights_gib * AUG_GIB, weights, 1e-12);
    struct aug_mmf_counts c;
    aug_mmf_counts(&mmf, 4.0, &c);
    assert_rel(weights, c.weight_bytes, 1e-12); /* the same count as the model's */
    assert_rel(r.memory.kv_cache_gib * AUG_GIB, 4.0 * L * h * 4.0, 1e-12);
    assert_near(r.kv_bytes_per_token, 0, 0);
    /* the state does not grow with the context; a KV cache does */
    struct aug_infer_result r2 = serve(&mmf, 4, 128, 64, 1);
    assert_rel(r2.memory.kv_cache_gib, r.memory.kv_cache_gib, 1e-15);
    struct aug_infer_result t1 = serve(&twin, 4, 1024, 64, 1), t2 = serve(&twin, 4, 128, 64, 1);
    assert_rel(t1.memory.kv_cache_gib, t2.memory.kv_cache_gib * (1024.0 + 64.0) / (128.0 + 64.0),
               1e-12); /* static batching reserves input + output */
    /* 2.7 B parameters in about 0.85 GB of weights against 5.4 GB in bf16 */
    assert_true(t1.memory.weights_gib / r.memory.weights_gib > 5.0);
    /* and far more sequences fit */
    assert_true(r.max_batch > 5 * t1.max_batch);
}

static void test_decode_constant_state(void **state) {
    (void)state;
    /* every decode step costs the same, whatever the context */
    struct aug_infer_result a = serve(&mmf, 1, 1024, 64, 1), b = serve(&mmf, 1, 128, 64, 1);
    assert_rel(a.tpot_s, a.tpot_last_s, 1e-15);
    assert_rel(a.tpot_s, b.tpot_s, 1e-15);
    assert_int_equal(a.decode_steps, 63);
    /* batch 1: the step streams the packed weights, 8x lighter than the twin's bf16 ones */
    struct aug_infer_result t = serve(&twin, 1, 1024, 64, 1);
    assert_true(a.decode_step_bytes < 0.25 * t.decode_step_bytes);
    assert_true(a.tpot_s < t.tpot_s);
    assert_true(a.ttft_s > 0 && a.e2e_latency_s > a.ttft_s);
    /* tensor parallelism splits channels: 2560 / 2 */
    struct aug_infer_result r2 = serve(&mmf, 8, 1024, 64, 2);
    assert_true(r2.decode.tp_comm_s > 0);
    struct aug_infer_plan p;
    aug_infer_plan_init(&p);
    p.gpus = 3;
    p.tp = 3;
    p.input_len = 128;
    p.output_len = 8;
    assert_int_equal(aug_infer_plan_resolve(&p, &mmf, &h100), AUG_EUSAGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_by_hand),
        cmocka_unit_test(test_decode_constant_state),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
