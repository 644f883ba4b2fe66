/* SPDX-License-Identifier: Apache-2.0 */
/* test_parallel_block.c - parallel attention and MLP blocks, y = x + Attn(LN(x)) +
 * MLP(LN'(x)) (GPT-J; PaLM sec. 2 "Parallel Layers"; Falcon; GPT-NeoX; MegaScale sec. 3.1):
 * which Hugging Face configs have one, what the training layer graph reduces over TP, and
 * what a serving step runs.
 *
 * Training with TP 4 and sequence parallelism: a sequential layer gathers the sequence
 * twice (before QKV and before the MLP) and reduce-scatters twice in the forward, twice
 * each in the backward; a parallel block with one norm gathers once and reduce-scatters
 * once each way (the branches read the same input and their partial outputs are summed
 * before the reduction); with a norm per branch each norm's output is gathered (2 + 1).
 * Every collective moves the same b s h activation, and the GEMM FLOPs are unchanged.
 *
 * Serving: TensorRT-LLM's Falcon keeps a row-parallel all-reduce in each branch (two per
 * layer, as sequential) but drops the post-attention add and norm: 1 norm (2 for
 * Falcon-40B/180B) and 1 residual add per layer instead of 2 and 2. */
#include "aug_test.h"

#include "augur/infer.h"
#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"

#include "infer/infer_graph.h"
#include "model/layer_graph.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

static struct aug_system h100;

static int group_setup(void **state) {
    (void)state;
    return aug_system_load(KDB, "dgx-h100", &h100) == AUG_OK ? 0 : -1;
}

static struct aug_model from_json(const char *text) {
    struct aug_model m;
    if (aug_model_from_json("config.json", text, &m) != AUG_OK)
        fail_msg("model: %s", aug_last_error());
    return m;
}

/* parallel_block read from public Hugging Face configs (the keys as published) */
static void test_hf_configs(void **state) {
    (void)state;
    static const struct {
        const char *what, *config;
        long parallel_block;
    } cases[] = {
        {"tiiuae/falcon-180B: new_decoder_architecture, a norm per branch",
         "{\"model_type\": \"falcon\", \"hidden_size\": 14848, \"num_hidden_layers\": 80,"
         " \"num_attention_heads\": 232, \"num_kv_heads\": 8, \"new_decoder_architecture\": true,"
         " \"parallel_attn\": true, \"vocab_size\": 65024, \"bias\": false, \"alibi\": false}",
         2},
        {"tiiuae/falcon-7b: parallel_attn with one shared norm",
         "{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_hidden_layers\": 32,"
         " \"num_attention_heads\": 71, \"multi_query\": true, \"parallel_attn\": true,"
         " \"new_decoder_architecture\": false, \"vocab_size\": 65024, \"bias\": false}",
         1},
        {"a Falcon with parallel_attn false is sequential",
         "{\"model_type\": \"falcon\", \"hidden_size\": 1024, \"num_hidden_layers\": 4,"
         " \"num_attention_heads\": 16, \"parallel_attn\": false, \"vocab_size\": 65024}",
         0},
        {"EleutherAI/gpt-j-6b (GPT-2 style keys)",
         "{\"model_type\": \"gptj\", \"n_embd\": 4096, \"n_layer\": 28, \"n_head\": 16,"
         " \"rotary_dim\": 64, \"vocab_size\": 50400, \"n_positions\": 2048}",
         1},
        {"EleutherAI/gpt-neox-20b: use_parallel_residual, input and post-attention norms",
         "{\"model_type\": \"gpt_neox\", \"hidden_size\": 6144, \"num_hidden_layers\": 44,"
         " \"num_attention_heads\": 64, \"intermediate_size\": 24576,"
         " \"use_parallel_residual\": true, \"vocab_size\": 50432}",
         2},
        {"a Llama is sequential",
         "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32,"
         " \"num_attention_heads\": 32, \"intermediate_size\": 11008, \"vocab_size\": 32000}",
         0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct aug_model m = from_json(cases[i].config);
        if (m.parallel_block != cases[i].parallel_block)
            fail_msg("%s: parallel_block %ld, expected %ld", cases[i].what, m.parallel_block,
                     cases[i].parallel_block);
    }
}

static void test_model_rules(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_from_json("m.json",
                                         "{\"name\": \"p\", \"layers\": 2, \"hidden\": 256,"
                                         " \"heads\": 4, \"vocab\": 1000, \"parallel_block\": 3}",
                                         &m),
                     AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "parallel_block"));
    assert_int_equal(aug_model_from_json("m.json",
                                         "{\"name\": \"p\", \"arch\": \"moe\", \"layers\": 2,"
                                         " \"hidden\": 256, \"heads\": 4, \"vocab\": 1000,"
                                         " \"moe_experts\": 8, \"moe_topk\": 2,"
                                         " \"parallel_block\": 1}",
                                         &m),
                     AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "applies to dense transformers"));
}

/* One shared norm per layer in a parallel block with parallel_block 1: a LayerNorm's 2 h
 * weights fewer per layer, 40 x 2 x 5120 = 409,600 for the 40-layer test model; a norm
 * per branch keeps the sequential count. */
static void test_norm_params(void **state) {
    (void)state;
    const char *text = "{\"name\": \"gpt-13b-test\", \"layers\": 40, \"hidden\": 5120,"
                       " \"heads\": 40, \"vocab\": 51200, \"max_seq\": 2048}";
    struct aug_model seq = from_json(text), one = seq, two = seq;
    one.parallel_block = 1;
    two.parallel_block = 2;
    assert_int_equal(aug_model_finish(&one, "test"), AUG_OK);
    assert_int_equal(aug_model_finish(&two, "test"), AUG_OK);
    assert_near(aug_model_params(&seq) - aug_model_params(&one), 409600.0, 0);
    assert_near(aug_model_params(&two), aug_model_params(&seq), 0);
}

struct colls {
    int ag, rs;
    double ag_bytes, rs_bytes, gemm_flops;
};

static struct colls count(const struct aug_graph_op *ops, int n) {
    struct colls c = {0, 0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        const struct aug_op *o = &ops[i].op;
        if (o->kind == AUG_OP_GEMM)
            c.gemm_flops += o->flops * o->count;
        if (o->kind != AUG_OP_COLLECTIVE || ops[i].cat != AUG_CAT_TP)
            continue;
        if (o->coll == AUG_COLL_ALL_GATHER) {
            c.ag += (int)o->count;
            c.ag_bytes = o->size_bytes;
        } else if (o->coll == AUG_COLL_REDUCE_SCATTER) {
            c.rs += (int)o->count;
            c.rs_bytes = o->size_bytes;
        }
    }
    return c;
}

static void layer_colls(long parallel, struct colls *fwd, struct colls *bwd) {
    struct aug_model m = from_json(
        "{\"name\": \"gpt-13b-test\", \"layers\": 40, \"hidden\": 5120, \"heads\": 40,"
        " \"vocab\": 51200, \"max_seq\": 2048}");
    m.parallel_block = parallel;
    assert_int_equal(aug_model_finish(&m, "test"), AUG_OK);
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.tp = 4;
    p.pp = 2;
    p.sp = 1;
    p.micro_batch = 1;
    p.global_batch = 8;
    p.seq = 2048;
    if (aug_plan_resolve(&p, &m, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    struct aug_graph g;
    aug_graph_layer(&m, &p, &h100, &g);
    *fwd = count(g.fwd, g.n_fwd);
    *bwd = count(g.bwd, g.n_bwd);
}

static void test_training_tp_collectives(void **state) {
    (void)state;
    struct colls sf, sb, pf, pb, qf, qb;
    layer_colls(0, &sf, &sb);
    layer_colls(1, &pf, &pb);
    layer_colls(2, &qf, &qb);
    /* b s h x 2 bytes = 2048 x 5120 x 2 */
    const double act = 2048.0 * 5120.0 * 2.0;
    /* the backward also all-gathers SP's saved input shard again for each column-parallel
     * weight gradient (Korthikanti et al. 2022 sec. 4.2.2): two per sequential layer, one
     * per shared input of a parallel block (two with a norm per branch) */
    assert_int_equal(sf.ag, 2);
    assert_int_equal(sf.rs, 2);
    assert_int_equal(sb.ag, 2 + 2);
    assert_int_equal(sb.rs, 2);
    assert_int_equal(pf.ag, 1);
    assert_int_equal(pf.rs, 1);
    assert_int_equal(pb.ag, 1 + 1);
    assert_int_equal(pb.rs, 1);
    assert_int_equal(qf.ag, 2);
    assert_int_equal(qf.rs, 1);
    assert_int_equal(qb.ag, 1 + 2);
    assert_int_equal(qb.rs, 2);
    assert_near(pf.ag_bytes, act, 0);
    assert_near(pf.rs_bytes, act, 0);
    assert_near(sf.ag_bytes, act, 0);
    /* the same GEMMs: 24 b s h^2 forward (QKV 3, out 1, MLP 8 times 2 b s h^2) */
    assert_rel(pf.gemm_flops, sf.gemm_flops, 1e-12);
    assert_rel(pb.gemm_flops, sb.gemm_flops, 1e-12);
    assert_rel(pf.gemm_flops, 24.0 * 2048.0 * 5120.0 * 5120.0 / 4.0, 1e-12);
}

static int count_named(const struct aug_infer_gop *ops, int n, const char *name) {
    int c = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].op.name, name) == 0)
            c += (int)ops[i].op.count;
    return c;
}

static void test_serving_step(void **state) {
    (void)state;
    for (long par = 0; par <= 2; par++) {
        struct aug_model m = from_json(
            "{\"name\": \"falcon-like\", \"layers\": 8, \"hidden\": 4096, \"heads\": 32,"
            " \"kv_heads\": 8, \"vocab\": 65024, \"max_seq\": 2048}");
        m.parallel_block = par;
        assert_int_equal(aug_model_finish(&m, "test"), AUG_OK);
        struct aug_infer_plan p;
        aug_infer_plan_init(&p);
        p.gpus = 4;
        p.tp = 4;
        p.batch = 8;
        p.input_len = 512;
        p.output_len = 16;
        if (aug_infer_plan_resolve(&p, &m, &h100) != AUG_OK)
            fail_msg("plan: %s", aug_last_error());
        struct aug_infer_graph g;
        struct aug_infer_step dec = {8, 600, 0, 0, 0, 8};
        aug_infer_graph_build(&m, &h100, &p, &dec, &g);
        assert_int_equal(count_named(g.layer, g.n_layer, "tp_all_reduce"), 2);
        assert_int_equal(count_named(g.layer, g.n_layer, "norm"), par == 1 ? 1 : 2);
        assert_int_equal(count_named(g.layer, g.n_layer, "residual"), par ? 1 : 2);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hf_configs),
        cmocka_unit_test(test_model_rules),
        cmocka_unit_test(test_norm_params),
        cmocka_unit_test(test_training_tp_collectives),
        cmocka_unit_test(test_serving_step),
    };
    return cmocka_run_group_tests_name("parallel_block", tests, group_setup, NULL);
}
