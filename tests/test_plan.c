/* SPDX-License-Identifier: Apache-2.0 */
/* test_plan.c - parallelization plans: defaults, derived degrees, and every consistency
 * rule aug_plan_resolve enforces, each failing as a usage error whose message names the
 * product or divisibility that does not hold. */
#include "aug_test.h"

#include "augur/model.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

static struct aug_system a100, h100;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-a100-80g", &a100) != AUG_OK ||
        aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK)
        return -1;
    return 0;
}

static struct aug_model gpt(long layers, long hidden, long heads, long kv_heads) {
    struct aug_model m;
    aug_model_init(&m);
    snprintf(m.name, sizeof m.name, "gpt-test");
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = kv_heads;
    m.max_seq = 2048;
    if (aug_model_finish(&m, "test") != AUG_OK)
        fail_msg("model: %s", aug_last_error());
    return m;
}

static struct aug_plan plan(long gpus, long tp, long pp, long mb, long gb) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = gpus;
    p.tp = tp;
    p.pp = pp;
    p.micro_batch = mb;
    p.global_batch = gb;
    return p;
}

static void assert_error_has(const char *needle) {
    const char *msg = aug_last_error();
    if (!strstr(msg, needle))
        fail_msg("error message '%s' lacks '%s'", msg, needle);
}

static void resolve_fails(struct aug_plan p, const struct aug_model *m, const char *needle) {
    int st = aug_plan_resolve(&p, m, &a100);
    if (st != AUG_EUSAGE)
        fail_msg("expected a usage error containing '%s', got status %d ('%s')", needle, st,
                 aug_last_error());
    assert_error_has(needle);
    assert_null(strchr(aug_last_error(), '\n')); /* one line */
}

static void resolve_ok(struct aug_plan *p, const struct aug_model *m) {
    if (aug_plan_resolve(p, m, &a100) != AUG_OK)
        fail_msg("plan should resolve: %s", aug_last_error());
}

static void test_defaults(void **state) {
    (void)state;
    struct aug_plan p;
    aug_plan_init(&p);
    assert_int_equal(p.tp, 1);
    assert_int_equal(p.pp, 1);
    assert_int_equal(p.cp, 1);
    assert_int_equal(p.ep, 1);
    assert_int_equal(p.dp, 0);
    assert_int_equal(p.interleave, 1);
    assert_int_equal(p.dtype, AUG_DTYPE_BF16);
    assert_int_equal(p.flash_attention, 1);
    assert_int_equal(p.dp_overlap, 1);
    assert_int_equal(p.recompute, AUG_RECOMPUTE_NONE);
    assert_int_equal(p.zero, 0);
    assert_int_equal(p.fsdp, AUG_FSDP_NONE);
    assert_int_equal(p.sp, 0);
}

static void test_names(void **state) {
    (void)state;
    enum aug_recompute r;
    enum aug_fsdp f;
    assert_int_equal(aug_recompute_from_name("Selective", &r), AUG_OK);
    assert_int_equal(r, AUG_RECOMPUTE_SELECTIVE);
    assert_string_equal(aug_recompute_name(AUG_RECOMPUTE_FULL), "full");
    assert_int_equal(aug_recompute_from_name("partial", &r), AUG_EUSAGE);
    assert_error_has("partial");
    assert_int_equal(aug_fsdp_from_name("hybrid", &f), AUG_OK);
    assert_int_equal(f, AUG_FSDP_HYBRID);
    assert_int_equal(aug_fsdp_from_name("zero", &f), AUG_EUSAGE);
    assert_string_equal(aug_fsdp_name(AUG_FSDP_FULL), "full");
}

static void test_dp_derived(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 4096, 32, 32);
    struct aug_plan p = plan(64, 4, 2, 1, 512);
    resolve_ok(&p, &m);
    assert_int_equal(p.dp, 8);
    assert_int_equal(p.seq, 2048); /* the model's context */
    assert_int_equal(aug_plan_microbatches(&p), 64);
    /* with cp: 64 / (2 * 2 * 2) */
    p = plan(64, 2, 2, 1, 512);
    p.cp = 2;
    resolve_ok(&p, &m);
    assert_int_equal(p.dp, 8);
    /* gpus derived from an explicit dp */
    p = plan(0, 2, 2, 1, 64);
    p.dp = 4;
    resolve_ok(&p, &m);
    assert_int_equal(p.gpus, 16);
    /* an explicit dp that agrees */
    p = plan(16, 2, 2, 1, 64);
    p.dp = 4;
    resolve_ok(&p, &m);
}

static void test_product_mismatch(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 4096, 32, 32);
    struct aug_plan p = plan(16, 2, 2, 1, 64);
    p.dp = 2;
    resolve_fails(p, &m, "2*2*2*1 = 8");
    resolve_fails(p, &m, "16");
    /* dp derived: the GPU count must divide by tp*pp*cp */
    p = plan(12, 8, 1, 1, 64);
    resolve_fails(p, &m, "tp*pp*cp = 8*1*1 = 8");
    resolve_fails(p, &m, "12");
    /* neither gpus nor dp */
    p = plan(0, 2, 1, 1, 64);
    resolve_fails(p, &m, "--gpus");
    /* non-positive degrees */
    p = plan(8, 0, 1, 1, 64);
    resolve_fails(p, &m, "positive");
    p = plan(8, 1, -2, 1, 64);
    resolve_fails(p, &m, "positive");
}

static void test_batch_divisibility(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 4096, 32, 32);
    /* 8 GPUs, tp 2: dp 4; micro 4 x dp 4 = 16 does not divide 40 */
    struct aug_plan p = plan(8, 2, 1, 4, 40);
    resolve_fails(p, &m, "--global-batch 40");
    resolve_fails(p, &m, "4*4 = 16");
    p = plan(8, 2, 1, 4, 48);
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_microbatches(&p), 3);
    p = plan(8, 2, 1, 0, 48);
    resolve_fails(p, &m, "--micro-batch");
    p = plan(8, 2, 1, 1, 0);
    resolve_fails(p, &m, "--global-batch");
}

static void test_heads_and_kv_heads(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 3072, 24, 24);
    struct aug_plan p = plan(16, 16, 1, 1, 16);
    resolve_fails(p, &m, "heads 24");
    resolve_fails(p, &m, "--tp 16");
    p = plan(8, 8, 1, 1, 16);
    resolve_ok(&p, &m);
    /* GQA: 8 KV heads replicate over tp 16 (tp a multiple of them) */
    struct aug_model g = gpt(32, 4096, 32, 8);
    p = plan(16, 16, 1, 1, 16);
    resolve_ok(&p, &g);
    /* 24 heads, 6 KV heads, tp 4: 4 does not divide 6 nor 6 divide 4 */
    struct aug_model k = gpt(32, 3072, 24, 6);
    p = plan(4, 4, 1, 1, 16);
    resolve_fails(p, &k, "KV heads 6");
}

static void test_layers_and_pp(void **state) {
    (void)state;
    struct aug_model m = gpt(30, 4096, 32, 32);
    struct aug_plan p = plan(4, 1, 4, 1, 16);
    resolve_fails(p, &m, "layers 30");
    resolve_fails(p, &m, "--pp 4");
    /* uneven split allowed on request: the heaviest stage has ceil(30 / 4) = 8 layers */
    p.uneven_pp = 1;
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_stage_layers(&p, &m), 8);
    p = plan(5, 1, 5, 1, 10);
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_stage_layers(&p, &m), 6);
    /* more stages than layers is never possible */
    struct aug_model s = gpt(4, 1024, 16, 16);
    p = plan(8, 1, 8, 1, 16);
    p.uneven_pp = 1;
    resolve_fails(p, &s, "layers 4");
}

static void test_interleave_rules(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 4096, 32, 32);
    struct aug_plan p = plan(8, 1, 1, 1, 16);
    p.interleave = 2;
    resolve_fails(p, &m, "--pp");
    /* 32 layers on 4 stages x 3 chunks */
    p = plan(4, 1, 4, 1, 16);
    p.interleave = 3;
    resolve_fails(p, &m, "pp*interleave = 12");
    /* micro-batches (6) must be a multiple of pp (4) */
    p = plan(4, 1, 4, 1, 6);
    p.interleave = 2;
    resolve_fails(p, &m, "micro-batches (6)");
    p = plan(4, 1, 4, 1, 16);
    p.interleave = 2;
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_stage_layers(&p, &m), 8);
    p = plan(4, 1, 4, 1, 16);
    p.interleave = 0;
    resolve_fails(p, &m, "--interleave");
    /* uneven with chunks: 30 layers, 4 stages x 2 chunks -> ceil(30/8) = 4 per chunk */
    struct aug_model u = gpt(30, 4096, 32, 32);
    p = plan(4, 1, 4, 1, 16);
    p.interleave = 2;
    p.uneven_pp = 1;
    resolve_ok(&p, &u);
    assert_int_equal(aug_plan_stage_layers(&p, &u), 8);
}

/* Embedding and loss slots in the pipeline split (Megatron-Core --account-for-embedding-
 * in-pipeline-split / --account-for-loss-in-pipeline-split; Llama 3 sec. 3.3.2): the split
 * divides layers + 2, and the first and last ranks give a layer's place to them. */
static void test_embed_loss_slots(void **state) {
    (void)state;
    /* Llama 3 405B: 126 layers, PP 16, V 8 -> 128 chunks of one layer each; without the
     * slots there are fewer layers than chunks */
    struct aug_model llama = gpt(126, 1024, 16, 16);
    struct aug_plan p = plan(16, 1, 16, 1, 16);
    p.interleave = 8;
    resolve_fails(p, &llama, "fewer than pp*interleave = 128");
    p.pp_embed_loss_slots = 1;
    resolve_ok(&p, &llama);
    assert_int_equal(aug_plan_stage_layers(&p, &llama), 8);
    assert_int_equal(aug_plan_stage_layers_at(&p, &llama, 0), 7);
    assert_int_equal(aug_plan_stage_layers_at(&p, &llama, 1), 8);
    assert_int_equal(aug_plan_stage_layers_at(&p, &llama, 14), 8);
    assert_int_equal(aug_plan_stage_layers_at(&p, &llama, 15), 7);
    /* 30 layers on 4 ranks: 32 slots, 8 a rank; without the slots 30 does not divide */
    struct aug_model m = gpt(30, 4096, 32, 32);
    p = plan(4, 1, 4, 1, 16);
    resolve_fails(p, &m, "layers 30 are not divisible by --pp 4");
    p.pp_embed_loss_slots = 1;
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_stage_layers(&p, &m), 8);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 0), 7);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 3), 7);
    /* Megatron-Core asserts the slots divide evenly, uneven splits or not */
    struct aug_model m32 = gpt(32, 4096, 32, 32);
    p = plan(4, 1, 4, 1, 16);
    p.pp_embed_loss_slots = 1;
    p.uneven_pp = 1;
    resolve_fails(p, &m32, "(34) are not divisible by pp*interleave = 4");
    p = plan(1, 1, 1, 1, 16);
    p.pp_embed_loss_slots = 1;
    resolve_fails(p, &m32, "--pp of at least 2");
}

/* Megatron-Core's first/last-stage layer counts, as NeMo's DeepSeek-V3 recipe sets them
 * (64 / pp - 1 and 64 / pp - 2 of 61 layers): PP 16 -> 3, 14 ranks of 4, 2; PP 8 -> 7, six
 * of 8, 6. One count alone leaves the rest to the other pp - 1 ranks. */
static void test_first_last_stage_layers(void **state) {
    (void)state;
    struct aug_model m = gpt(61, 1024, 16, 16);
    struct aug_plan p = plan(16, 1, 16, 1, 16);
    resolve_fails(p, &m, "layers 61 are not divisible by --pp 16");
    p.pp_first_layers = 3;
    p.pp_last_layers = 2;
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_stage_layers(&p, &m), 4);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 0), 3);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 1), 4);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 14), 4);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 15), 2);
    p = plan(8, 1, 8, 1, 16);
    p.pp_first_layers = 7;
    p.pp_last_layers = 6;
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_stage_layers(&p, &m), 8);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 7), 6);
    /* 30 layers, PP 4, 6 on the first: 24 over the other three */
    struct aug_model m30 = gpt(30, 1024, 16, 16);
    p = plan(4, 1, 4, 1, 16);
    p.pp_first_layers = 6;
    resolve_ok(&p, &m30);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m30, 0), 6);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m30, 3), 8);
    /* two ranks: the two counts are the model */
    p = plan(2, 1, 2, 1, 16);
    p.pp_first_layers = 14;
    p.pp_last_layers = 16;
    resolve_ok(&p, &m30);
    assert_int_equal(aug_plan_stage_layers(&p, &m30), 16);
    p.pp_last_layers = 15;
    resolve_fails(p, &m30, "do not add up to the model's 30 layers over --pp 2");
    /* what Megatron-Core refuses */
    p = plan(16, 1, 16, 1, 16);
    p.pp_first_layers = 3;
    p.pp_last_layers = 3;
    resolve_fails(p, &m, "the 55 layers left by the first/last pipeline stages do not split "
                         "evenly over the other 14 ranks");
    /* With a virtual pipeline the counts are a rank's layers over its chunks, as
     * Megatron-Core's pipeline_model_parallel_layout places them (core_v0.13): NeMo 25.07's
     * DeepSeek-V3 layout for PP 8, VP 2 gives the first rank 4 + 4 layers, the last 4 + 1,
     * and each of the six others 8 in two chunks of 4 (61 = 8 + 6 x 8 + 5). */
    p = plan(8, 1, 8, 1, 16);
    p.interleave = 2;
    p.pp_first_layers = 8;
    p.pp_last_layers = 5;
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_stage_layers(&p, &m), 8);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 0), 8);
    assert_int_equal(aug_plan_stage_layers_at(&p, &m, 7), 5);
    /* PP 4, VP 4, 9 and 6 on the edges: the two middle ranks' 23 layers each cannot fill
     * four equal chunks */
    p = plan(4, 1, 4, 1, 16);
    p.interleave = 4;
    p.pp_first_layers = 9;
    p.pp_last_layers = 6;
    resolve_fails(p, &m, "the 23 layers of each middle pipeline rank do not split evenly over "
                         "--interleave 4 chunks");
    p = plan(1, 1, 1, 1, 16);
    p.pp_first_layers = 3;
    resolve_fails(p, &m, "need --pp of at least 2");
    p = plan(4, 1, 4, 1, 16);
    p.pp_first_layers = 6;
    p.pp_embed_loss_slots = 1; /* 32 slots would split over 4 ranks */
    resolve_fails(p, &m30, "exclude each other");
}

static void test_sequence_rules(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 4096, 32, 32);
    struct aug_plan p = plan(8, 8, 1, 1, 8);
    p.seq = 4096; /* beyond 2048 learned positions */
    resolve_fails(p, &m, "--seq 4096");
    struct aug_model r = m;
    r.pos = AUG_POS_ROPE; /* rotary positions extrapolate */
    resolve_ok(&p, &r);
    assert_int_equal(p.seq, 4096);
    /* sequence parallelism splits the sequence over tp */
    p = plan(8, 8, 1, 1, 8);
    p.seq = 1020;
    p.sp = 1;
    resolve_fails(p, &m, "--tp 8");
    p.seq = 1024;
    resolve_ok(&p, &m);
    /* context parallelism splits it over cp */
    p = plan(6, 1, 1, 1, 6);
    p.cp = 3;
    p.seq = 1024;
    resolve_fails(p, &m, "--cp 3");
}

static void test_ep_zero_fsdp_dtype(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 4096, 32, 32);
    struct aug_plan p = plan(8, 1, 1, 1, 8);
    p.ep = 2;
    resolve_fails(p, &m, "--ep 2");
    p = plan(8, 1, 1, 1, 8);
    p.zero = 4;
    resolve_fails(p, &m, "--zero");
    p = plan(8, 1, 1, 1, 8);
    p.zero = 2;
    p.fsdp = AUG_FSDP_FULL;
    resolve_fails(p, &m, "--fsdp");
    p.zero = 3;
    resolve_ok(&p, &m);
    /* A100 has no fp8 tensor path; H100 does */
    p = plan(8, 1, 1, 1, 8);
    p.dtype = AUG_DTYPE_FP8;
    resolve_fails(p, &m, "fp8");
    p = plan(8, 1, 1, 1, 8);
    p.dtype = AUG_DTYPE_FP8;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    /* MoE: experts must divide over ep, and ep over dp*cp */
    struct aug_model e = m;
    e.arch = AUG_ARCH_MOE;
    e.moe_experts = 8;
    e.moe_topk = 2;
    p = plan(8, 1, 1, 1, 8);
    p.ep = 8;
    resolve_ok(&p, &e);
    p = plan(8, 1, 1, 1, 8);
    p.ep = 3;
    resolve_fails(p, &e, "--ep 3");
    p = plan(32, 1, 1, 1, 32);
    p.ep = 16;
    resolve_fails(p, &e, "experts 8");
}

/* recompute_modules: Megatron-Core's names in any order and separator, printed back in
 * the fixed order; an unknown name is named; a module the model lacks, or a list without
 * selective recomputation, is refused rather than silently ignored. */
static void test_recompute_modules(void **state) {
    (void)state;
    unsigned mods = 0;
    assert_int_equal(aug_rc_modules_parse("mlp, core_attn+layernorm", &mods), AUG_OK);
    assert_int_equal(mods, AUG_RC_CORE_ATTN | AUG_RC_LAYERNORM | AUG_RC_MLP);
    char buf[128];
    aug_rc_modules_format(mods, buf, sizeof buf);
    assert_string_equal(buf, "core_attn,layernorm,mlp");
    aug_rc_modules_format(AUG_RC_ALL, buf, sizeof buf);
    assert_string_equal(buf, "core_attn,mla_up_proj,layernorm,mlp,moe,moe_act,shared_experts");
    aug_rc_modules_format(0, buf, sizeof buf);
    assert_string_equal(buf, "none");
    assert_int_equal(aug_rc_modules_parse("core_attn,router", &mods), AUG_EUSAGE);
    assert_error_has("'router'");
    assert_int_equal(aug_rc_modules_parse(" , ", &mods), AUG_EUSAGE);
    assert_error_has("empty");
    struct aug_model m = gpt(8, 1024, 16, 16);
    struct aug_plan p = plan(8, 8, 1, 1, 8);
    assert_int_equal(aug_plan_rc_modules(&p), AUG_RC_CORE_ATTN); /* Megatron's default */
    p.recompute = AUG_RECOMPUTE_SELECTIVE;
    p.recompute_modules = AUG_RC_MLA_UP_PROJ;
    resolve_fails(p, &m, "no multi-head latent attention");
    p.recompute_modules = AUG_RC_MOE_ACT;
    resolve_fails(p, &m, "need an MoE model");
    p.recompute_modules = AUG_RC_SHARED_EXPERTS;
    resolve_fails(p, &m, "no shared experts");
    p.recompute = AUG_RECOMPUTE_FULL;
    p.recompute_modules = AUG_RC_MLP;
    resolve_fails(p, &m, "need --recompute selective");
    p.recompute = AUG_RECOMPUTE_SELECTIVE;
    resolve_ok(&p, &m);
    assert_int_equal(aug_plan_rc_modules(&p), AUG_RC_MLP);
    /* the block method: full recomputation only, at most a chunk's layers (8 / pp 1) */
    p = plan(8, 8, 1, 1, 8);
    p.recompute_layers = 2;
    resolve_fails(p, &m, "needs --recompute full");
    p.recompute = AUG_RECOMPUTE_FULL;
    p.recompute_layers = 9;
    resolve_fails(p, &m, "exceeds the 8 layers of a pipeline chunk");
    p.recompute_layers = 8;
    resolve_ok(&p, &m);
    assert_rel(aug_plan_full_recompute_share(&p, &m), 1.0, 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_dp_derived),
        cmocka_unit_test(test_product_mismatch),
        cmocka_unit_test(test_batch_divisibility),
        cmocka_unit_test(test_heads_and_kv_heads),
        cmocka_unit_test(test_layers_and_pp),
        cmocka_unit_test(test_interleave_rules),
        cmocka_unit_test(test_embed_loss_slots),
        cmocka_unit_test(test_first_last_stage_layers),
        cmocka_unit_test(test_sequence_rules),
        cmocka_unit_test(test_ep_zero_fsdp_dtype),
        cmocka_unit_test(test_recompute_modules),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
