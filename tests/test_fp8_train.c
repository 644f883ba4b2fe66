/* SPDX-License-Identifier: Apache-2.0 */
/* test_fp8_train.c - what an fp8 training recipe runs besides its fp8 GEMMs (layer_graph.c,
 * graph_build.c, moe_layer.c), against numbers derived by hand.
 *
 * Llama-2-7B (h 4096, 32 heads of 128, SwiGLU FFN 11008), one 4096-token sequence, tp 1.
 * Its four Transformer Engine GEMMs per layer take as inputs (tokens x K):
 *   qkv 4096 x 4096, attn_out 4096 x 4096, mlp_up 4096 x 4096, mlp_down 4096 x 11008,
 * and produce (tokens x N): 4096 x 12288, 4096 x 4096, 4096 x 22016, 4096 x 4096.
 * Forward: every input is cast to fp8 with its transpose (2 bytes read, 1 + 1 written):
 *   4 x 4096 x (3 x 4096 + 11008) = 4 x 4096 x 23296 bytes over 4 kernels,
 *   i.e. 4096 x 23296 = 95,420,416 bytes per kernel.
 * Backward: every output gradient likewise:
 *   4 x 4096 x (12288 + 4096 + 22016 + 4096) = 4 x 4096 x 42496 bytes over 4 kernels,
 *   i.e. 4096 x 42496 = 174,063,616 bytes per kernel.
 * The output layer (Megatron-Core ColumnParallelLinear) and the MoE router (a plain torch
 * linear) are not TE modules: they stay bf16 under fp8_autocast. Backward fp8 GEMMs
 * accumulate through the split accumulator. */
#include "aug_test.h"

#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"

#include "model/layer_graph.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system h100;
static struct aug_model llama, mixtral;
static struct aug_graph layer, first, last;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK ||
        aug_model_load(DATA_ROOT, "llama2-7b", &llama) != AUG_OK ||
        aug_model_load(DATA_ROOT, "mixtral-8x7b", &mixtral) != AUG_OK)
        return -1;
    return 0;
}

static struct aug_plan plan(const struct aug_model *m, enum aug_dtype dt, long ep) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.tp = 1;
    p.ep = ep;
    p.micro_batch = 1;
    p.global_batch = 8;
    p.seq = 4096;
    p.dtype = dt;
    if (aug_plan_resolve(&p, m, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    return p;
}

static const struct aug_op *find(const struct aug_graph_op *ops, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].op.name, name) == 0)
            return &ops[i].op;
    return NULL;
}

static void test_cast_transpose_bytes(void **state) {
    (void)state;
    struct aug_plan p = plan(&llama, AUG_DTYPE_FP8, 1);
    aug_graph_all(&llama, &p, &h100, &layer, &first, &last);
    const struct aug_op *f = find(layer.fwd, layer.n_fwd, "fp8_cast_transpose");
    const struct aug_op *b = find(layer.bwd, layer.n_bwd, "fp8_cast_transpose_bwd");
    assert_non_null(f);
    assert_non_null(b);
    assert_near(f->count, 4.0, 0);
    assert_near(b->count, 4.0, 0);
    assert_near(f->bytes, 95420416.0, 0);
    assert_near(b->bytes, 174063616.0, 0);
    assert_int_equal(f->kind, AUG_OP_MEMORY);
    /* the GEMMs themselves stay fp8 */
    assert_int_equal(find(layer.fwd, layer.n_fwd, "qkv")->dtype, AUG_DTYPE_FP8);
    assert_int_equal(find(layer.bwd, layer.n_bwd, "mlp_up_wgrad")->dtype, AUG_DTYPE_FP8);
    /* the output layer is bf16, and its three GEMMs add no casts */
    assert_int_equal(find(last.fwd, last.n_fwd, "lm_head")->dtype, AUG_DTYPE_BF16);
    assert_int_equal(find(last.bwd, last.n_bwd, "lm_head_wgrad")->dtype, AUG_DTYPE_BF16);
    assert_null(find(last.fwd, last.n_fwd, "fp8_cast_transpose"));
}

/* Current scaling reads each cast tensor once more for its amax (Transformer Engine's
 * fp8_current_scaling docs: "requires reading the tensor twice"): one amax kernel beside
 * each cast, 2 bytes read per element: forward 2 x 4096 x 23296 = 190,840,832 bytes over 4
 * kernels, 47,710,208 per kernel (half the cast's 95,420,416); backward 2 x 4096 x 42496 /
 * 4 = 87,031,808 per kernel. The casts themselves are unchanged, and delayed scaling (the
 * default) has no amax pass. The layer takes longer by the amax kernels' time. */
static void test_current_scaling_amax_pass(void **state) {
    (void)state;
    struct aug_plan p = plan(&llama, AUG_DTYPE_FP8, 1);
    aug_graph_all(&llama, &p, &h100, &layer, &first, &last);
    assert_null(find(layer.fwd, layer.n_fwd, "fp8_amax"));
    assert_null(find(layer.bwd, layer.n_bwd, "fp8_amax_bwd"));
    p.fp8_scaling = AUG_FP8_CURRENT;
    aug_graph_all(&llama, &p, &h100, &layer, &first, &last);
    const struct aug_op *fa = find(layer.fwd, layer.n_fwd, "fp8_amax");
    const struct aug_op *ba = find(layer.bwd, layer.n_bwd, "fp8_amax_bwd");
    assert_non_null(fa);
    assert_non_null(ba);
    assert_near(fa->count, 4.0, 0);
    assert_near(ba->count, 4.0, 0);
    assert_near(fa->bytes, 47710208.0, 0);
    assert_near(ba->bytes, 87031808.0, 0);
    assert_int_equal(fa->kind, AUG_OP_MEMORY);
    assert_near(find(layer.fwd, layer.n_fwd, "fp8_cast_transpose")->bytes, 95420416.0, 0);
    assert_near(find(layer.bwd, layer.n_bwd, "fp8_cast_transpose_bwd")->bytes, 174063616.0, 0);
    /* no amax for the bf16 output layer */
    assert_null(find(last.fwd, last.n_fwd, "fp8_amax"));
    assert_string_equal(aug_fp8_scaling_name(AUG_FP8_CURRENT), "current");
    enum aug_fp8_scaling sc;
    assert_int_equal(aug_fp8_scaling_from_name("delayed", &sc), AUG_OK);
    assert_int_equal(sc, AUG_FP8_DELAYED);
    assert_int_equal(aug_fp8_scaling_from_name("tensorwise", &sc), AUG_EUSAGE);
}

static void test_no_casts_without_fp8(void **state) {
    (void)state;
    struct aug_plan p = plan(&llama, AUG_DTYPE_BF16, 1);
    aug_graph_all(&llama, &p, &h100, &layer, &first, &last);
    assert_null(find(layer.fwd, layer.n_fwd, "fp8_cast_transpose"));
    assert_null(find(layer.bwd, layer.n_bwd, "fp8_cast_transpose_bwd"));
    assert_int_equal(find(last.fwd, last.n_fwd, "lm_head")->dtype, AUG_DTYPE_BF16);
}

/* Mixtral 8x7B, ep 8, one 4096-token sequence per rank, perfectly balanced: the local
 * expert gets 8192 tokens. fp8 GEMMs: qkv (K 4096, N 6144 = (32 + 2 x 8) x 128), attn_out
 * (K 4096, N 4096), expert_up (8192 tokens, K 4096, N 28672), expert_down (8192 tokens,
 * K 14336, N 4096); the router (N 8) stays bf16 and is not cast.
 * Forward input elements: 4096 x 4096 x 2 + 8192 x 4096 + 8192 x 14336 = 184,549,376 over
 * 4 kernels: 4 x 184,549,376 / 4 = 184,549,376 bytes per kernel.
 * Backward output elements: 4096 x (6144 + 4096) + 8192 x (28672 + 4096) = 310,378,496:
 * 310,378,496 bytes per kernel. */
static void test_moe_casts_and_router(void **state) {
    (void)state;
    struct aug_plan p = plan(&mixtral, AUG_DTYPE_FP8, 8);
    p.moe_imbalance = 1.0;
    aug_graph_layer(&mixtral, &p, &h100, &layer);
    assert_int_equal(find(layer.fwd, layer.n_fwd, "router")->dtype, AUG_DTYPE_BF16);
    assert_int_equal(find(layer.bwd, layer.n_bwd, "router_wgrad")->dtype, AUG_DTYPE_BF16);
    assert_int_equal(find(layer.fwd, layer.n_fwd, "expert_up")->dtype, AUG_DTYPE_FP8);
    const struct aug_op *f = find(layer.fwd, layer.n_fwd, "fp8_cast_transpose");
    const struct aug_op *b = find(layer.bwd, layer.n_bwd, "fp8_cast_transpose_bwd");
    assert_non_null(f);
    assert_non_null(b);
    assert_near(f->count, 4.0, 0);
    assert_near(f->bytes, 184549376.0, 0);
    assert_near(b->bytes, 310378496.0, 0);
}

/* Transformer Engine accumulates the forward fp8 GEMMs fast and the data- and
 * weight-gradient ones through the split accumulator (_2X_ACC_FPROP False, _2X_ACC_DGRAD
 * and _2X_ACC_WGRAD True): every fp8 GEMM of the backward list carries split_acc, no
 * forward one does, and the bf16 output layer and a bf16 recipe carry none. */
static void test_split_accumulator_in_backward(void **state) {
    (void)state;
    struct aug_plan p = plan(&llama, AUG_DTYPE_FP8, 1);
    aug_graph_all(&llama, &p, &h100, &layer, &first, &last);
    int fp8_bwd = 0;
    for (int i = 0; i < layer.n_bwd; i++) {
        const struct aug_op *o = &layer.bwd[i].op;
        if (o->kind == AUG_OP_GEMM && o->dtype == AUG_DTYPE_FP8) {
            assert_int_equal(o->split_acc, 1);
            fp8_bwd++;
        }
    }
    assert_int_equal(fp8_bwd, 8); /* dgrad and wgrad of qkv, attn_out, mlp_up, mlp_down */
    for (int i = 0; i < layer.n_fwd; i++)
        assert_int_equal(layer.fwd[i].op.split_acc, 0);
    assert_int_equal(find(layer.bwd, layer.n_bwd, "qkv_dgrad")->split_acc, 1);
    assert_int_equal(find(layer.bwd, layer.n_bwd, "mlp_down_wgrad")->split_acc, 1);
    assert_int_equal(find(last.bwd, last.n_bwd, "lm_head_wgrad")->split_acc, 0);
    p = plan(&llama, AUG_DTYPE_BF16, 1);
    aug_graph_all(&llama, &p, &h100, &layer, &first, &last);
    for (int i = 0; i < layer.n_bwd; i++)
        assert_int_equal(layer.bwd[i].op.split_acc, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast_transpose_bytes),
        cmocka_unit_test(test_current_scaling_amax_pass),
        cmocka_unit_test(test_no_casts_without_fp8),
        cmocka_unit_test(test_moe_casts_and_router),
        cmocka_unit_test(test_split_accumulator_in_backward),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
