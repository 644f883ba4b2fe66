/* SPDX-License-Identifier: Apache-2.0 */
/* test_memory.c - memory per GPU against the papers it implements.
 *
 * Activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 * Transformer Models" (arXiv 2205.05198), Table 2: bytes one transformer layer keeps per
 * micro-batch (16-bit activations, GELU MLP of 4h, dropout, unfused attention):
 *     no parallelism                   sbh (34 + 5as/h)
 *     tensor parallel (t)              sbh (10 + 24/t + 5as/(ht))
 *     tensor + sequence parallel       sbh/t (34 + 5as/h)
 *     tensor parallel + selective      sbh (10 + 24/t)
 *     tensor + sequence + selective    sbh (34/t)
 *     full recomputation               2 sbh
 * and sec. 4.2.3: the first pipeline stage keeps p micro-batches in flight, times
 * (1 + (p-1)/(p v)) with v interleaved stages.
 * Model states: Rajbhandari et al., "ZeRO", SC20, Fig. 1 and sec. 3: mixed-precision Adam
 * keeps 2 + 2 + 12 = 16 bytes per parameter; on N_d data-parallel GPUs stage 1 keeps
 * 2 + 2 + 12/N_d, stage 2 2 + 14/N_d, stage 3 16/N_d. For 7.5B parameters on 64 GPUs:
 * 120 GB, 31.4 GB, 16.6 GB and 1.88 GB. */
#include "aug_test.h"

#include "augur/model.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"
#include "augur/units.h"

#include "model/memory.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

/* Dimensions for the activation checks: b s h a t. */
#define B_ 4.0
#define S_ 2048.0
#define H_ 2048.0
#define A_ 16.0
#define T_ 4.0

static struct aug_system sys;

static int group_setup(void **state) {
    (void)state;
    return aug_system_load(KDB, "dgx-a100-80g", &sys) == AUG_OK ? 0 : -1;
}

/* GPT: GELU MLP of 4h, multi-head attention, LayerNorm, learned positions (so dropout). */
static struct aug_model gpt(long layers, long hidden, long heads, long vocab, long seq) {
    struct aug_model m;
    aug_model_init(&m);
    snprintf(m.name, sizeof m.name, "gpt-test");
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = heads;
    m.vocab = vocab;
    m.max_seq = seq;
    m.tied_embeddings = 1;
    if (aug_model_finish(&m, "test") != AUG_OK)
        fail_msg("model: %s", aug_last_error());
    return m;
}

static struct aug_plan act_plan(long t, int sp, enum aug_recompute rc, int flash) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = t;
    p.tp = t;
    p.sp = sp;
    p.micro_batch = (long)B_;
    p.global_batch = (long)B_;
    p.seq = (long)S_;
    p.recompute = rc;
    p.flash_attention = flash;
    return p;
}

static double layer_act(long t, int sp, enum aug_recompute rc, int flash) {
    struct aug_model m = gpt(8, (long)H_, (long)A_, 51200, (long)S_);
    struct aug_plan p = act_plan(t, sp, rc, flash);
    if (aug_plan_resolve(&p, &m, &sys) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    return aug_train_layer_activation_bytes(&m, &p);
}

static void test_table2_no_parallelism(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_;
    assert_rel(layer_act(1, 0, AUG_RECOMPUTE_NONE, 0), sbh * (34.0 + 5.0 * A_ * S_ / H_), 1e-12);
    /* 34 sbh + 5 a s^2 b = 570,425,344 + 1,342,177,280 bytes for these dimensions */
    assert_near(layer_act(1, 0, AUG_RECOMPUTE_NONE, 0), 1912602624.0, 0.5);
}

/* Megatron-Core recompute_modules (core_r0.13.0 transformer_config.py) on Korthikanti
 * et al.'s Table 2 layer without parallelism, whose 34 sbh split as: attention block 11 sbh
 * (QKV input 2, Q K V 6, attention output 2, dropout mask 1), MLP block 19 sbh (input 2,
 * GELU input 8, second linear's input 8, dropout mask 1), the two LayerNorm inputs 4 sbh.
 * layernorm discards the two norm outputs, the QKV and MLP inputs: 34 - 4 = 30 sbh; mlp
 * keeps only the MLP's input: 34 - 16 = 18 sbh; both: 14 sbh; core_attn (unfused) drops
 * the 5as^2b of scores, so layernorm alone keeps them. */
static double layer_act_modules(unsigned mods) {
    struct aug_model m = gpt(8, (long)H_, (long)A_, 51200, (long)S_);
    struct aug_plan p = act_plan(1, 0, AUG_RECOMPUTE_SELECTIVE, 0);
    p.recompute_modules = mods;
    if (aug_plan_resolve(&p, &m, &sys) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    return aug_train_layer_activation_bytes(&m, &p);
}

static void test_recompute_modules_activations(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_, scores = 5.0 * A_ * S_ * S_ * B_;
    assert_rel(layer_act_modules(AUG_RC_CORE_ATTN), 34.0 * sbh, 1e-12);
    assert_rel(layer_act_modules(AUG_RC_CORE_ATTN | AUG_RC_LAYERNORM), 30.0 * sbh, 1e-12);
    assert_rel(layer_act_modules(AUG_RC_CORE_ATTN | AUG_RC_MLP), 18.0 * sbh, 1e-12);
    assert_rel(layer_act_modules(AUG_RC_CORE_ATTN | AUG_RC_LAYERNORM | AUG_RC_MLP), 14.0 * sbh,
               1e-12);
    assert_rel(layer_act_modules(AUG_RC_LAYERNORM), 30.0 * sbh + scores, 1e-12);
    /* 14 sbh = 234,881,024 bytes for these dimensions */
    assert_near(layer_act_modules(AUG_RC_CORE_ATTN | AUG_RC_LAYERNORM | AUG_RC_MLP),
                234881024.0, 0.5);
}

/* DeepSeek-V3's mla_up_proj discards the up-projected query, key and value the core
 * attention reads: per token 128 heads x (2 x (128 + 64) + 128) = 65,536 values, 2 bytes
 * each, split over TP 2 with SP: 65,536 x 2 x 4096 / 2 = 268,435,456 bytes per layer at one
 * 4096-token sequence. The MoE modules: moe drops everything of the routed experts (and the
 * shared expert), so it frees more than moe_act, which drops the routed activation outputs
 * only; shared_experts drops the shared expert's inner activations. */
static void test_recompute_modules_mla_and_moe(void **state) {
    (void)state;
    struct aug_model m;
    if (aug_model_load(AUG_TEST_SOURCE_DIR "/predictor", "deepseek-v3", &m) != AUG_OK)
        fail_msg("deepseek-v3: %s", aug_last_error());
    struct aug_system h100;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK)
        fail_msg("dgx-h100: %s", aug_last_error());
    double b[5];
    static const unsigned mods[5] = {AUG_RC_CORE_ATTN, AUG_RC_CORE_ATTN | AUG_RC_MLA_UP_PROJ,
                                     AUG_RC_MOE_ACT, AUG_RC_MOE, AUG_RC_SHARED_EXPERTS};
    for (int i = 0; i < 5; i++) {
        struct aug_plan p;
        aug_plan_init(&p);
        p.gpus = 512;
        p.tp = 2;
        p.pp = 8;
        p.ep = 64;
        p.etp = 1;
        p.sp = 1;
        p.micro_batch = 1;
        p.global_batch = 4096;
        p.seq = 4096;
        p.uneven_pp = 1;
        p.moe_capacity_factor = 1.0;
        p.recompute = AUG_RECOMPUTE_SELECTIVE;
        p.recompute_modules = mods[i];
        if (aug_plan_resolve(&p, &m, &h100) != AUG_OK)
            fail_msg("plan: %s", aug_last_error());
        b[i] = aug_train_layer_activation_bytes(&m, &p);
    }
    assert_near(b[0] - b[1], 268435456.0, 0.5);
    assert_true(b[3] < b[2] && b[2] < b[0]);
    assert_true(b[4] < b[0]); /* with FlashAttention core_attn frees nothing measurable */
}

/* Megatron-Core's block method (--recompute-layers N): the first N layers of each chunk
 * keep only their input (Table 2 "full recomputation": 2 sbh), the others everything
 * (34 sbh + 5as^2b without parallelism). The 8-layer model on one stage with N = 2: the
 * mean layer is (2 x 2 + 6 x (34 + 5as/h)) / 8 sbh; on 2 stages with 2 chunks each (2
 * layers per chunk) N = 1 recomputes half: (2 + 34 + 5as/h) / 2 sbh. */
static void test_recompute_layers_block(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_, none = 34.0 + 5.0 * A_ * S_ / H_;
    struct aug_model m = gpt(8, (long)H_, (long)A_, 51200, (long)S_);
    struct aug_plan p = act_plan(1, 0, AUG_RECOMPUTE_FULL, 0);
    p.recompute_layers = 2;
    if (aug_plan_resolve(&p, &m, &sys) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    assert_rel(aug_train_layer_activation_bytes(&m, &p), sbh * (2.0 * 2.0 + 6.0 * none) / 8.0,
               1e-12);
    p = act_plan(1, 0, AUG_RECOMPUTE_FULL, 0);
    p.gpus = 2;
    p.pp = 2;
    p.interleave = 2;
    p.global_batch = 2 * (long)B_;
    p.recompute_layers = 1;
    if (aug_plan_resolve(&p, &m, &sys) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    assert_rel(aug_plan_full_recompute_share(&p, &m), 0.5, 1e-15);
    assert_rel(aug_train_layer_activation_bytes(&m, &p), sbh * (2.0 + none) / 2.0, 1e-12);
}

static void test_table2_tensor_parallel(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_;
    assert_rel(layer_act((long)T_, 0, AUG_RECOMPUTE_NONE, 0),
               sbh * (10.0 + 24.0 / T_ + 5.0 * A_ * S_ / (H_ * T_)), 1e-12);
}

static void test_table2_tensor_sequence_parallel(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_;
    assert_rel(layer_act((long)T_, 1, AUG_RECOMPUTE_NONE, 0),
               sbh / T_ * (34.0 + 5.0 * A_ * S_ / H_), 1e-12);
}

static void test_table2_tp_selective(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_;
    assert_rel(layer_act((long)T_, 0, AUG_RECOMPUTE_SELECTIVE, 0), sbh * (10.0 + 24.0 / T_), 1e-12);
}

static void test_table2_tp_sp_selective(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_;
    assert_rel(layer_act((long)T_, 1, AUG_RECOMPUTE_SELECTIVE, 0), sbh * 34.0 / T_, 1e-12);
}

static void test_table2_full_recompute(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_;
    assert_rel(layer_act(1, 0, AUG_RECOMPUTE_FULL, 0), 2.0 * sbh, 1e-12);
    assert_rel(layer_act((long)T_, 0, AUG_RECOMPUTE_FULL, 0), 2.0 * sbh, 1e-12);
    /* with SP the saved layer input is itself split over t */
    assert_rel(layer_act((long)T_, 1, AUG_RECOMPUTE_FULL, 1), 2.0 * sbh / T_, 1e-12);
}

static void test_flash_attention_drops_score_term(void **state) {
    (void)state;
    /* FlashAttention keeps no s x s scores, only its fp32 log-sum-exp (4 bytes per query
     * and head): the 5as/h term becomes 4asb bytes */
    double sbh = S_ * B_ * H_, lse = 4.0 * A_ * S_ * B_;
    assert_rel(layer_act(1, 0, AUG_RECOMPUTE_NONE, 1), 34.0 * sbh + lse, 1e-12);
    assert_rel(layer_act((long)T_, 0, AUG_RECOMPUTE_NONE, 1),
               sbh * (10.0 + 24.0 / T_) + lse / T_, 1e-12);
    assert_rel(layer_act((long)T_, 1, AUG_RECOMPUTE_NONE, 1), (34.0 * sbh + lse) / T_, 1e-12);
}

/* Unfused attention holds two score-sized tensors in the layer it runs (scores beside
 * probabilities, then their gradient beside them): with b 4, a 16 over t 4, s 2048 and
 * 2-byte scores that is 2 * 2 * 4 * 4 * 2048^2 = 268,435,456 bytes = 0.25 GiB above the
 * 1 GiB workspace, also when core_attn recomputation keeps none of them between passes.
 * FlashAttention adds nothing; Ulysses CP 2 runs all 2048 queries of 2 heads per rank:
 * 2 * 2 * 4 * 2 * 2048^2 bytes = 0.125 GiB. */
static void test_unfused_attention_workspace(void **state) {
    (void)state;
    struct aug_model m = gpt(8, (long)H_, (long)A_, 51200, (long)S_);
    struct aug_train_memory mem;
    struct aug_plan p = act_plan((long)T_, 1, AUG_RECOMPUTE_NONE, 0);
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    aug_train_memory(&m, &sys, &p, &mem);
    assert_near(mem.workspace_gib, 1.25, 1e-12);
    p = act_plan((long)T_, 1, AUG_RECOMPUTE_SELECTIVE, 0);
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    aug_train_memory(&m, &sys, &p, &mem);
    assert_near(mem.workspace_gib, 1.25, 1e-12);
    p = act_plan((long)T_, 1, AUG_RECOMPUTE_NONE, 1);
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    aug_train_memory(&m, &sys, &p, &mem);
    assert_near(mem.workspace_gib, 1.0, 0);
    p = act_plan((long)T_, 1, AUG_RECOMPUTE_NONE, 0);
    p.gpus = 8;
    p.cp = 2;
    p.cp_algo = AUG_CP_ULYSSES;
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    aug_train_memory(&m, &sys, &p, &mem);
    assert_near(mem.workspace_gib, 1.125, 1e-12);
}

static void test_fp32_doubles_activations(void **state) {
    (void)state;
    /* Table 2 counts 2-byte activations; fp32 training keeps 4-byte ones. The mask bytes
     * (1 per element: sbh twice and as^2b) do not grow. */
    struct aug_model m = gpt(8, (long)H_, (long)A_, 51200, (long)S_);
    struct aug_plan p = act_plan(1, 0, AUG_RECOMPUTE_NONE, 0);
    p.dtype = AUG_DTYPE_FP32;
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    double sbh = S_ * B_ * H_, as2b = A_ * S_ * S_ * B_;
    assert_rel(aug_train_layer_activation_bytes(&m, &p), 2.0 * 32.0 * sbh + 2.0 * sbh + 9.0 * as2b,
               1e-12);
}

/* fp8 plans keep each Transformer Engine linear's input as its 1 B fp8 cast (TE 1.8
 * linear.py / layernorm_linear.py, TE 2.2 quantized inputs; model/memory.c,
 * linear_input_bytes). Of Table 2's 34 sbh: the QKV and MLP inputs (norm outputs, 2 + 2)
 * become 1 + 1 and the second linear's input 8 becomes 4: 34 - 6 = 28 sbh; the attention
 * output's 1 B copy for the output projection adds 1 sbh beside the 16-bit output a
 * fused kernel keeps (29 sbh + the log-sum-exp), and replaces it under unfused attention,
 * whose backward reads the probabilities and V (34 - 6 - 1 = 27 sbh + 5as^2b). With TP
 * and SP all of it splits over t. */
static double layer_act_fp8(long t, int sp, int flash) {
    struct aug_system h100;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK)
        fail_msg("system: %s", aug_last_error());
    struct aug_model m = gpt(8, (long)H_, (long)A_, 51200, (long)S_);
    struct aug_plan p = act_plan(t, sp, AUG_RECOMPUTE_NONE, flash);
    p.dtype = AUG_DTYPE_FP8;
    if (aug_plan_resolve(&p, &m, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    return aug_train_layer_activation_bytes(&m, &p);
}

static void test_fp8_linear_inputs(void **state) {
    (void)state;
    double sbh = S_ * B_ * H_, lse = 4.0 * A_ * S_ * B_, scores = 5.0 * A_ * S_ * S_ * B_;
    assert_rel(layer_act_fp8(1, 0, 1), 29.0 * sbh + lse, 1e-12);
    assert_rel(layer_act_fp8(1, 0, 0), 27.0 * sbh + scores, 1e-12);
    assert_rel(layer_act_fp8((long)T_, 1, 1), (29.0 * sbh + lse) / T_, 1e-12);
    /* 29 sbh + 4asb = 486,539,264 + 524,288 bytes for these dimensions */
    assert_near(layer_act_fp8(1, 0, 1), 487063552.0, 0.5);
}

/* What a plan needs after one memory-saving change (train/memory_options.c), on Table 2's
 * layer at TP 4 without SP, FlashAttention, one stage of 8 layers, micro-batch 4:
 * - --sp splits the 10 sbh TP kept whole: sbh (10 + 24/4) -> 34 sbh / 4 per layer,
 *   7.5 sbh x 8 layers = 60 x 16,777,216 B = 0.9375 GiB less;
 * - --recompute full keeps the 2 sbh layer input instead of 16 sbh and the log-sum-exp
 *   (4 a s b / t = 131,072 B): (14 x 16,777,216 + 131,072) x 8 B = 1.7509765625 GiB less;
 * - --recompute selective saves nothing beside FlashAttention (no scores kept): not
 *   listed; no ZeRO stage either, with one data-parallel rank. */
static void test_memory_options(void **state) {
    (void)state;
    struct aug_model m = gpt(8, (long)H_, (long)A_, 51200, (long)S_);
    struct aug_plan p = act_plan((long)T_, 0, AUG_RECOMPUTE_NONE, 1);
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    struct aug_train_memory now;
    aug_train_memory(&m, &sys, &p, &now);
    struct aug_train_memory_option o[AUG_TRAIN_MEMORY_OPTIONS_MAX];
    int n = aug_train_memory_options(&m, &sys, &p, o, AUG_TRAIN_MEMORY_OPTIONS_MAX);
    assert_int_equal(n, 4);
    assert_string_equal(o[0].change, "--sp");
    assert_rel(now.total_gib - o[0].total_gib, 0.9375, 1e-9);
    assert_string_equal(o[1].change, "--recompute full");
    assert_rel(now.total_gib - o[1].total_gib, 1.7509765625, 1e-9);
    assert_string_equal(o[2].change, "--micro-batch 1");
    assert_true(o[2].total_gib < now.total_gib);
    assert_string_equal(o[3].change, "all of the above");
    assert_true(o[3].total_gib < o[1].total_gib);
    for (int i = 0; i < n; i++)
        assert_int_equal(o[i].fits, o[i].total_gib <= sys.gpu.hbm_gib);
    /* with SP, full recomputation and micro-batch 1 already set nothing is left to offer */
    p.sp = 1;
    p.recompute = AUG_RECOMPUTE_FULL;
    p.micro_batch = 1;
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    assert_int_equal(aug_train_memory_options(&m, &sys, &p, o, AUG_TRAIN_MEMORY_OPTIONS_MAX), 0);
}

/* The first pipeline stage holds min(m, p) micro-batches; interleaving multiplies by
 * 1 + (p-1)/(p v). */
static void test_pipeline_in_flight(void **state) {
    (void)state;
    struct aug_model m = gpt(16, (long)H_, (long)A_, 1024, (long)S_);
    for (long v = 1; v <= 2; v++) {
        struct aug_plan p;
        aug_plan_init(&p);
        p.gpus = 4;
        p.pp = 4;
        p.interleave = v;
        p.micro_batch = 1;
        p.global_batch = 8;
        p.seq = (long)S_;
        p.recompute = AUG_RECOMPUTE_SELECTIVE;
        assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
        double layer = aug_train_layer_activation_bytes(&m, &p);
        struct aug_train_memory mem;
        aug_train_memory(&m, &sys, &p, &mem);
        double factor = 1.0 + 3.0 / (4.0 * (double)v);
        if (v == 1)
            factor = 1.0;
        assert_rel(mem.activations_gib * AUG_GIB, layer * 4.0 /* layers per stage */ * 4.0 * factor,
                   1e-12);
    }
    /* fewer micro-batches than stages: only those are in flight */
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 4;
    p.pp = 4;
    p.micro_batch = 1;
    p.global_batch = 2;
    p.seq = (long)S_;
    p.recompute = AUG_RECOMPUTE_SELECTIVE;
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    struct aug_train_memory mem;
    aug_train_memory(&m, &sys, &p, &mem);
    assert_rel(mem.activations_gib * AUG_GIB, aug_train_layer_activation_bytes(&m, &p) * 4.0 * 2.0,
               1e-12);
}

/* ---- model states (ZeRO) ---- */

static double states_bytes(const struct aug_model *m, int zero, enum aug_fsdp fsdp,
                           enum aug_dtype dt, struct aug_train_memory *mem) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 64;
    p.micro_batch = 1;
    p.global_batch = 64;
    p.seq = 2048;
    p.zero = zero;
    p.fsdp = fsdp;
    p.dtype = dt;
    if (aug_plan_resolve(&p, m, &sys) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    assert_int_equal(p.dp, 64);
    aug_train_memory(m, &sys, &p, mem);
    return (mem->weights_gib + mem->gradients_gib + mem->optimizer_gib) * AUG_GIB;
}

static void test_zero_bytes_per_parameter(void **state) {
    (void)state;
    /* a 7.2B GPT (32 layers, h 4096): the per-parameter ratios hold for any size */
    struct aug_model m = gpt(32, 4096, 32, 51200, 2048);
    double n = aug_model_params(&m);
    struct aug_train_memory mem;
    static const double per_param[4] = {16.0, 2.0 + 2.0 + 12.0 / 64.0, 2.0 + 14.0 / 64.0,
                                        16.0 / 64.0};
    for (int z = 0; z <= 3; z++) {
        double b = states_bytes(&m, z, AUG_FSDP_NONE, AUG_DTYPE_BF16, &mem);
        if (fabs(b / n - per_param[z]) > 1e-12 * per_param[z])
            fail_msg("ZeRO-%d: %.12g bytes per parameter, expected %.12g", z, b / n, per_param[z]);
        /* the 7.5B model of the ZeRO paper, in GB = 1e9 bytes, to 3 significant digits */
        double gb = 7.5e9 * b / n / AUG_GB;
        static const double paper[4] = {120.0, 31.4, 16.6, 1.88};
        static const double half_ulp[4] = {0.5, 0.05, 0.05, 0.005};
        if (fabs(gb - paper[z]) > half_ulp[z])
            fail_msg("ZeRO-%d: 7.5B parameters on 64 GPUs = %.4g GB, the paper says %.3g", z, gb,
                     paper[z]);
    }
    /* which part is sharded at which stage */
    states_bytes(&m, 1, AUG_FSDP_NONE, AUG_DTYPE_BF16, &mem);
    assert_rel(mem.weights_gib * AUG_GIB, 2.0 * n, 1e-12);
    assert_rel(mem.gradients_gib * AUG_GIB, 2.0 * n, 1e-12);
    assert_rel(mem.optimizer_gib * AUG_GIB, 12.0 * n / 64.0, 1e-12);
    states_bytes(&m, 2, AUG_FSDP_NONE, AUG_DTYPE_BF16, &mem);
    assert_rel(mem.gradients_gib * AUG_GIB, 2.0 * n / 64.0, 1e-12);
    assert_rel(mem.weights_gib * AUG_GIB, 2.0 * n, 1e-12);
    /* workspace is added once and the total is the sum of the parts */
    assert_rel(mem.total_gib, mem.weights_gib + mem.gradients_gib + mem.optimizer_gib +
                                  mem.activations_gib + mem.workspace_gib, 1e-12);
    assert_true(mem.workspace_gib > 0);
}

static void test_fsdp_matches_zero3_and_hybrid_shards_in_node(void **state) {
    (void)state;
    struct aug_model m = gpt(32, 4096, 32, 51200, 2048);
    double n = aug_model_params(&m);
    struct aug_train_memory mem;
    assert_rel(states_bytes(&m, 0, AUG_FSDP_FULL, AUG_DTYPE_BF16, &mem) / n, 16.0 / 64.0, 1e-12);
    /* hybrid: shards over the 8 GPUs of a node, replicated across the 8 nodes */
    assert_rel(states_bytes(&m, 0, AUG_FSDP_HYBRID, AUG_DTYPE_BF16, &mem) / n, 16.0 / 8.0, 1e-12);
}

static void test_fp32_states(void **state) {
    (void)state;
    /* fp32 training: 4 bytes of weights, 4 of gradients, 8 of Adam moments */
    struct aug_model m = gpt(32, 4096, 32, 51200, 2048);
    double n = aug_model_params(&m);
    struct aug_train_memory mem;
    assert_rel(states_bytes(&m, 0, AUG_FSDP_NONE, AUG_DTYPE_FP32, &mem) / n, 16.0, 1e-12);
    assert_rel(states_bytes(&m, 1, AUG_FSDP_NONE, AUG_DTYPE_FP32, &mem) / n, 8.0 + 8.0 / 64.0, 1e-12);
}

/* The 7.2B GPT of the tests below at TP 8, micro-batch 1, 2048 tokens (not resolved). */
static struct aug_plan tp8_plan(long gpus, long global_batch) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = gpus;
    p.tp = 8;
    p.micro_batch = 1;
    p.global_batch = global_batch;
    p.seq = 2048;
    return p;
}

static void test_tensor_parallel_weights(void **state) {
    (void)state;
    /* TP splits every matrix and bias but the LayerNorms (4h per layer) and the learned
     * positions; the vocabulary-parallel embedding is split too */
    struct aug_model m = gpt(32, 4096, 32, 51200, 2048);
    struct aug_plan p = tp8_plan(8, 1);
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_OK);
    double h = 4096, L = 32, V = 51200, s = 2048;
    double layer = aug_model_layer_params(&m);
    double expect = L * ((layer - 4.0 * h) / 8.0 + 4.0 * h) + V * h / 8.0 + s * h + 2.0 * h;
    assert_rel(aug_train_stage_params_per_gpu(&m, &p, 0), expect, 1e-12);
    struct aug_train_memory mem;
    aug_train_memory(&m, &sys, &p, &mem);
    assert_rel(mem.weights_gib * AUG_GIB, 2.0 * expect, 1e-12);
}

/* Transformer Engine's fp8 weights (model/memory.c, fp8_linear_bytes). The 7.2B GPT above
 * at TP 8: each layer's linears hold 12h^2 + 9h = 201,363,456 parameters (qkv 3h^2 + 3h,
 * projection h^2 + h, fc1 4h^2 + 4h, fc2 4h^2 + h), 25,170,432 per GPU, 805,453,824 over the
 * 32 layers; all its parameters per GPU are 840,589,312 (test_tensor_parallel_weights:
 * layers with their LayerNorms, the split embedding, the learned positions, the final norm).
 * 16-bit weights: 2 x 840,589,312 = 1,681,178,624 B. An fp8 plan adds Transformer Engine's
 * cached fp8 copy of each linear weight (1 B) and, on H100 (sm_90, TN-only fp8 GEMMs), its
 * transpose (1 B): 1,681,178,624 + 2 x 805,453,824 = 3,292,086,272 B; on B200 (sm_100) the
 * copy only: 2,486,632,448 B. With fp8 parameters the linear weights are 1 B each and H100
 * caches their transpose: 1,681,178,624 again; B200 1,681,178,624 - 805,453,824 =
 * 875,724,800 B. ZeRO-3 over dp 8 caches nothing: 1,681,178,624 / 8 = 210,147,328 B, with
 * fp8 parameters 875,724,800 / 8 = 109,465,600 B. */
static double fp8_weight_bytes(const char *system, long gpus, int zero, enum aug_dtype dt,
                               int fp8_params) {
    struct aug_system s;
    if (aug_system_load(KDB, system, &s) != AUG_OK)
        fail_msg("system: %s", aug_last_error());
    struct aug_model m = gpt(32, 4096, 32, 51200, 2048);
    struct aug_plan p = tp8_plan(gpus, 64);
    p.zero = zero;
    p.dtype = dt;
    p.fp8_params = fp8_params;
    if (aug_plan_resolve(&p, &m, &s) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    assert_rel(aug_train_stage_linear_params_per_gpu(&m, &p, 0), 805453824.0, 1e-12);
    struct aug_train_memory mem;
    aug_train_memory(&m, &s, &p, &mem);
    return mem.weights_gib * AUG_GIB;
}

static void test_fp8_weight_copies(void **state) {
    (void)state;
    assert_rel(fp8_weight_bytes("dgx-h100", 8, 0, AUG_DTYPE_BF16, 0), 1681178624.0, 1e-12);
    assert_rel(fp8_weight_bytes("dgx-h100", 8, 0, AUG_DTYPE_FP8, 0), 3292086272.0, 1e-12);
    assert_rel(fp8_weight_bytes("dgx-h100", 8, 0, AUG_DTYPE_FP8, 1), 1681178624.0, 1e-12);
    assert_rel(fp8_weight_bytes("dgx-b200", 8, 0, AUG_DTYPE_FP8, 0), 2486632448.0, 1e-12);
    assert_rel(fp8_weight_bytes("dgx-b200", 8, 0, AUG_DTYPE_FP8, 1), 875724800.0, 1e-12);
    assert_rel(fp8_weight_bytes("dgx-b200", 64, 3, AUG_DTYPE_FP8, 0), 210147328.0, 1e-12);
    assert_rel(fp8_weight_bytes("dgx-b200", 64, 3, AUG_DTYPE_FP8, 1), 109465600.0, 1e-12);
    /* fp8 parameters on a plan that is not fp8 are refused */
    struct aug_model m = gpt(32, 4096, 32, 51200, 2048);
    struct aug_plan p = tp8_plan(8, 8);
    p.fp8_params = 1;
    assert_int_equal(aug_plan_resolve(&p, &m, &sys), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "fp8 parameters need dtype fp8"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table2_no_parallelism),
        cmocka_unit_test(test_table2_tensor_parallel),
        cmocka_unit_test(test_table2_tensor_sequence_parallel),
        cmocka_unit_test(test_table2_tp_selective),
        cmocka_unit_test(test_table2_tp_sp_selective),
        cmocka_unit_test(test_table2_full_recompute),
        cmocka_unit_test(test_flash_attention_drops_score_term),
        cmocka_unit_test(test_unfused_attention_workspace),
        cmocka_unit_test(test_fp32_doubles_activations),
        cmocka_unit_test(test_pipeline_in_flight),
        cmocka_unit_test(test_zero_bytes_per_parameter),
        cmocka_unit_test(test_fsdp_matches_zero3_and_hybrid_shards_in_node),
        cmocka_unit_test(test_fp32_states),
        cmocka_unit_test(test_tensor_parallel_weights),
        cmocka_unit_test(test_recompute_modules_activations),
        cmocka_unit_test(test_recompute_layers_block),
        cmocka_unit_test(test_recompute_modules_mla_and_moe),
        cmocka_unit_test(test_fp8_weight_copies),
        cmocka_unit_test(test_fp8_linear_inputs),
        cmocka_unit_test(test_memory_options),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
