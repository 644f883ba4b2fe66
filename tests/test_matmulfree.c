/* SPDX-License-Identifier: Apache-2.0 */
/* test_matmulfree.c - MatMul-free LMs (Zhu et al. 2024, arXiv 2406.02528) against the
 * paper and its reference code (ridgerchu/matmulfreellm).
 *
 * Parameters, module by module (mmfreelm HGRNBitBlock, HGRNBitModel, HGRNBitForCausalLM):
 * per layer the ternary i, f, g, o projections (4 h^2) and GLU gate/up and down (3 h f),
 * an RMSNorm weight in every BitLinear (i, f, g, o, gate: h each; down: f), g_norm (h),
 * attn_norm and mlp_norm (2 h) and the layer's MLGRU lower bound (h): 9 h + f; the
 * embedding (V h), the final norm (h) and the BitLinear LM head (V h + h). The paper and
 * its model zoo name the three sizes 370M (24 x 1024), 1.3B (24 x 2048), 2.7B (32 x 2560);
 * ffn_hidden = 256 ceil(int(8h/3) / 256). Ternary weights take 2 bits; embeddings, norms
 * and lower bounds stay 16-bit. Inference state: h values per layer and sequence. */
#include "aug_test.h"

#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "augur/matmulfree.h"
#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"

#include "hw/efficiency.h"
#include "model/layer_graph.h"
#include "model/memory.h"

extern char **environ;

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system h100;
static struct aug_graph g;

static int group_setup(void **state) {
    (void)state;
    return aug_system_load(KDB, "dgx-h100", &h100) == AUG_OK ? 0 : -1;
}

static struct aug_model preset(const char *name) {
    struct aug_model m;
    if (aug_model_load(DATA_ROOT, name, &m) != AUG_OK)
        fail_msg("model '%s': %s", name, aug_last_error());
    return m;
}

static double exact_params(double L, double h, double f, double V) {
    return L * (4.0 * h * h + 3.0 * h * f + 9.0 * h + f) + 2.0 * V * h + 2.0 * h;
}

static void test_params_vs_paper(void **state) {
    (void)state;
    static const struct {
        const char *name;
        double L, h, f, nominal, exact;
    } rows[] = {
        {"matmulfree-370m", 24, 1024, 2816, 370e6, 374108160.0},
        {"matmulfree-1.3b", 24, 2048, 5632, 1.3e9, 1364779008.0},
        {"matmulfree-2.7b", 32, 2560, 6912, 2.7e9, 2702357504.0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct aug_model m = preset(rows[i].name);
        assert_int_equal(m.arch, AUG_ARCH_MATMULFREE);
        assert_near(exact_params(rows[i].L, rows[i].h, rows[i].f, 32000), rows[i].exact, 0.5);
        assert_near(aug_model_params(&m), rows[i].exact, 0.5);
        if (fabs(aug_model_params(&m) / rows[i].nominal - 1.0) > 0.05)
            fail_msg("%s: %.4g parameters, the paper's size is %.3g", rows[i].name,
                     aug_model_params(&m), rows[i].nominal);
        /* layer: 4 h^2 + 3 h f ternary, 9 h + f others */
        assert_near(aug_model_layer_params(&m),
                    4.0 * rows[i].h * rows[i].h + 3.0 * rows[i].h * rows[i].f + 9.0 * rows[i].h +
                        rows[i].f, 0.5);
    }
}

static void test_byte_counts(void **state) {
    (void)state;
    struct aug_model m = preset("matmulfree-370m");
    struct aug_mmf_counts c;
    aug_mmf_counts(&m, 2.0, &c);
    /* ternary: 24 x (4 x 1024^2 + 3 x 1024 x 2816) + 32000 x 1024 (the BitLinear head) */
    assert_near(c.ternary_params, 341049344.0, 0.5);
    assert_near(c.ternary_bytes, 341049344.0 / 4.0, 0.5); /* 2 bits each */
    assert_near(c.other_params, 374108160.0 - 341049344.0, 0.5);
    assert_near(c.other_bytes, 2.0 * (374108160.0 - 341049344.0), 0.5);
    assert_near(c.weight_bytes, 85262336.0 + 66117632.0, 0.5);
    assert_near(c.state_bytes_per_seq, 24.0 * 1024.0 * 2.0, 0);
    /* against the same-size Transformer++ in bf16: about 4.9x fewer weight bytes */
    struct aug_model t;
    assert_int_equal(aug_mmf_transformer_twin(&m, &t), AUG_OK);
    double ratio = 2.0 * aug_model_params(&t) / c.weight_bytes;
    assert_true(ratio > 4.8 && ratio < 5.0);
    /* dense models have no MatMul-free counts */
    struct aug_model d = preset("llama2-7b");
    aug_mmf_counts(&d, 2.0, &c);
    assert_near(c.weight_bytes, 0, 0);
    assert_int_equal(aug_mmf_transformer_twin(&d, &t), AUG_EDATA);
}

static void test_twin(void **state) {
    (void)state;
    struct aug_model m = preset("matmulfree-1.3b"), t;
    assert_int_equal(aug_mmf_transformer_twin(&m, &t), AUG_OK);
    assert_int_equal(t.arch, AUG_ARCH_DENSE);
    assert_int_equal(t.layers, 24);
    assert_int_equal(t.hidden, 2048);
    assert_int_equal(t.heads, 16);
    assert_int_equal(t.head_dim, 128);
    assert_int_equal(t.ffn_hidden, 5632);
    assert_int_equal(t.vocab, 32000);
    assert_int_equal(t.mlp, AUG_MLP_SWIGLU);
    assert_int_equal(t.pos, AUG_POS_ROPE);
    /* 24 x (4 h^2 + 3 h f + 2 h) + 2 V h + h */
    double h = 2048, f = 5632;
    assert_near(aug_model_params(&t), 24.0 * (4.0 * h * h + 3.0 * h * f + 2.0 * h) + 2.0 * 32000.0 * h + h,
                0.5);
}

static const struct aug_op *find(const struct aug_graph_op *ops, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].op.name, name) == 0)
            return &ops[i].op;
    fail_msg("no op '%s'", name);
    return NULL;
}

static void test_accumulate_only_at_vector_rate(void **state) {
    (void)state;
    struct aug_model m = preset("matmulfree-370m");
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 1;
    p.micro_batch = 4;
    p.global_batch = 4;
    p.seq = 2048;
    /* the default is the reference implementation's tensor-core path */
    assert_int_equal(p.ternary, AUG_TERNARY_TENSOR);
    p.ternary = AUG_TERNARY_ACCUMULATE;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    aug_graph_layer(&m, &p, &h100, &g);
    double T = 8192, h = 1024, e = 2;
    for (int i = 0; i < g.n_fwd; i++) /* the token mixer has no attention kernel */
        assert_int_not_equal(g.fwd[i].op.kind, AUG_OP_ATTENTION);
    /* i, f, g: one addition per weight and token, 8-bit inputs, 2-bit weights, bf16 out */
    const struct aug_op *ifg = find(g.fwd, g.n_fwd, "mlgru_ifg");
    assert_int_equal(ifg->dtype, AUG_DTYPE_FP32);
    assert_near(ifg->count, 3, 0);
    assert_near(ifg->flops, T * h * h, 0);
    assert_near(ifg->bytes, T * h * 1.0 + h * h / 4.0 + T * h * e, 0);
    /* timed at the CUDA-core rate (gpus.csv: the fp32 peak is vector_tflops) */
    assert_near(h100.gpu.peak_tflops[AUG_DTYPE_FP32], h100.gpu.vector_tflops, 0);
    struct aug_op_ctx ctx = {&h100, NULL, 0};
    struct aug_op_time t;
    assert_int_equal(aug_op_time(&ctx, ifg, &t), AUG_OK);
    double eff = aug_eff_gemm(&h100.gpu, AUG_DTYPE_FP32, T, h, h, 1);
    assert_int_equal(t.compute_bound, 1);
    assert_rel(t.time_s, T * h * h / (67e12 * eff) + h100.gpu.launch_us * 1e-6, 1e-12);
    /* the weight gradient has no ternary operand: a bf16 tensor-core GEMM */
    const struct aug_op *wg = find(g.bwd, g.n_bwd, "mlgru_ifg_wgrad");
    assert_int_equal(wg->dtype, AUG_DTYPE_BF16);
    assert_near(wg->flops, 2.0 * T * h * h, 0);
    const struct aug_op *dg = find(g.bwd, g.n_bwd, "mlgru_ifg_dgrad");
    assert_int_equal(dg->dtype, AUG_DTYPE_FP32);
    /* the reference implementation runs all three on tensor cores */
    p.ternary = AUG_TERNARY_TENSOR;
    aug_graph_layer(&m, &p, &h100, &g);
    ifg = find(g.fwd, g.n_fwd, "mlgru_ifg");
    assert_int_equal(ifg->dtype, AUG_DTYPE_BF16);
    assert_near(ifg->flops, 2.0 * T * h * h, 0);
    /* the model FLOPs count the projections as GEMMs of the same shapes (MFU comparable
     * with the Transformer++), linear in the sequence: no attention term */
    assert_rel(aug_layer_fwd_flops_per_seq(&m, 2048), 2.0 * 2048.0 * (4.0 * h * h + 3.0 * h * 2816.0),
               1e-15);
    assert_rel(aug_layer_fwd_flops_per_seq(&m, 4096), 2.0 * aug_layer_fwd_flops_per_seq(&m, 2048),
               1e-15);
}

static void test_activation_memory(void **state) {
    (void)state;
    struct aug_model m = preset("matmulfree-370m");
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 1;
    p.micro_batch = 1;
    p.global_batch = 1;
    p.seq = 2048;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    /* s b (4 e h + 36) + s b e (6 h + 3 f): 2048 x 8228 + 2048 x 2 x 14592, plus the
     * 16-bit copy of the quantized weights each BitLinear saves for its backward (the
     * reference LayerNormLinearQuantFn saves linear_weight after weight_quant):
     * 2 (4 h^2 + 3 h f) = 2 (4 x 1024^2 + 3 x 1024 x 2816) = 25,690,112 bytes */
    double wq = 2.0 * (4.0 * 1024.0 * 1024.0 + 3.0 * 1024.0 * 2816.0);
    assert_near(wq, 25690112.0, 0);
    double tok = 2048.0 * 8228.0 + 2048.0 * 2.0 * 14592.0;
    assert_near(aug_train_layer_activation_bytes(&m, &p), tok + wq, 0.5);
    /* accumulate-only kernels read the 2-bit packed copy instead: wq / 8 */
    p.ternary = AUG_TERNARY_ACCUMULATE;
    assert_near(aug_train_layer_activation_bytes(&m, &p), tok + wq / 8.0, 0.5);
    p.ternary = AUG_TERNARY_TENSOR;
    /* constant-size state: twice the sequence, twice the per-token activations, the same
     * weight copy */
    p.seq = 4096;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    assert_rel(aug_train_layer_activation_bytes(&m, &p), 2.0 * tok + wq, 1e-15);
    /* TP + SP split everything over t (the weight copy by TP alone); full recomputation
     * keeps the layer input */
    p.gpus = 2;
    p.tp = 2;
    p.sp = 1;
    p.global_batch = 1;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    assert_rel(aug_train_layer_activation_bytes(&m, &p), tok + wq / 2.0, 1e-15); /* 2 x seq / 2 */
    p.recompute = AUG_RECOMPUTE_FULL;
    assert_rel(aug_train_layer_activation_bytes(&m, &p), 4096.0 * 1024.0 * 2.0 / 2.0, 1e-15);
}

static void test_training_step(void **state) {
    (void)state;
    /* 8 H100 with tp 2: the graph's TP all-reduces and the g_norm sum all-reduce appear */
    struct aug_model m = preset("matmulfree-1.3b");
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.tp = 2;
    p.micro_batch = 4;
    p.global_batch = 64;
    p.seq = 2048;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    aug_graph_layer(&m, &p, &h100, &g);
    assert_near(find(g.fwd, g.n_fwd, "gnorm_all_reduce")->size_bytes, 4.0 * 8192.0, 0);
    assert_near(find(g.fwd, g.n_fwd, "tp_all_reduce")->size_bytes, 8192.0 * 2048.0 * 2.0, 0);
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result r;
    assert_int_equal(aug_train_predict(&m, &h100, &p, &o, &r), AUG_OK);
    assert_true(r.breakdown.tp_comm_s > 0);
    assert_near(r.breakdown.cp_comm_s, 0, 0);
    /* no attention core: selective recomputation repeats nothing, HFU = MFU */
    struct aug_plan sel = p;
    sel.recompute = AUG_RECOMPUTE_SELECTIVE;
    struct aug_train_result rs;
    assert_int_equal(aug_train_predict(&m, &h100, &sel, &o, &rs), AUG_OK);
    assert_rel(rs.hardware_flops, rs.model_flops, 1e-15);
    assert_near(rs.breakdown.recompute_s, 0.0, 0.0);
    /* 16 bytes per parameter of mixed-precision Adam: the latent weights train as usual */
    assert_rel((r.memory.weights_gib + r.memory.gradients_gib + r.memory.optimizer_gib) * 1073741824.0,
               16.0 * aug_train_stage_params_per_gpu(&m, &p, 0), 1e-12);
}

/* `augur train --compare-transformer`: both predictions, side by side in JSON. */
static void test_cli_compare(void **state) {
    (void)state;
    const char *bin = getenv("AUGUR_BIN");
    if (!bin || access(bin, X_OK) != 0)
        skip();
    char out[] = "/tmp/aug_mmf_cli_XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char *const args[] = {(char *)bin, "train", "--model", "matmulfree-370m", "--system", "dgx-h100",
                          "--gpus", "8", "--micro-batch", "8", "--global-batch", "64",
                          "--compare-transformer", "--format", "json", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_TRUNC, 0600);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, args, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
    json_error_t err;
    json_t *o = json_load_file(out, 0, &err);
    remove(out);
    if (!o)
        fail_msg("JSON: %s (line %d)", err.text, err.line);
    json_t *cmp = json_object_get(o, "compare");
    assert_non_null(cmp);
    assert_string_equal(json_string_value(json_object_get(cmp, "model")),
                        "transformer++-matmulfree-370m");
    double a = json_real_value(json_object_get(o, "step_time_s"));
    double b = json_real_value(json_object_get(cmp, "step_time_s"));
    assert_true(a > 0 && b > 0);
    json_t *mmf = json_object_get(o, "matmulfree");
    assert_non_null(mmf);
    assert_near(json_real_value(json_object_get(mmf, "ternary_params")), 341049344.0, 0.5);
    json_decref(o);
    /* a model that is not MatMul-free: usage error */
    char *const bad[] = {(char *)bin, "train", "--model", "llama2-7b", "--system", "dgx-h100",
                         "--gpus", "8", "--micro-batch", "1", "--global-batch", "8",
                         "--compare-transformer", NULL};
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0600);
    assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, bad, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_int_equal(WEXITSTATUS(ws), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_vs_paper),
        cmocka_unit_test(test_byte_counts),
        cmocka_unit_test(test_twin),
        cmocka_unit_test(test_accumulate_only_at_vector_rate),
        cmocka_unit_test(test_activation_memory),
        cmocka_unit_test(test_training_step),
        cmocka_unit_test(test_cli_compare),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
