/* SPDX-License-Identifier: Apache-2.0 */
/* test_framework.c - framework profiles and what they change: the host issue timeline
 * (train/host_dispatch.h), CUDA graphs, Megatron's gradient and optimizer bytes, the
 * pipeline scatter/gather of Megatron-LM 2021 and the defaults a profile applies. */
#include "aug_test.h"

#include <math.h>
#include <string.h>

#include "augur/framework.h"
#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"
#include "augur/units.h"

#include "hw/topology.h"
#include "model/layer_graph.h"
#include "train/host_dispatch.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

static struct aug_system sys;
static struct aug_model gpt;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-a100-80g", &sys) != AUG_OK)
        return -1;
    aug_model_init(&gpt);
    snprintf(gpt.name, sizeof gpt.name, "gpt-6.7b-test");
    gpt.layers = 32;
    gpt.hidden = 4096;
    gpt.heads = 32;
    gpt.kv_heads = 32;
    gpt.vocab = 51200;
    gpt.max_seq = 2048;
    gpt.tied_embeddings = 1;
    return aug_model_finish(&gpt, "test") == AUG_OK ? 0 : -1;
}

static struct aug_plan plan(long gpus, long tp, long pp, long mb, long gb) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = gpus;
    p.tp = tp;
    p.pp = pp;
    p.micro_batch = mb;
    p.global_batch = gb;
    p.seq = 2048;
    return p;
}

static struct aug_train_result predict(struct aug_plan *p) {
    if (aug_plan_resolve(p, &gpt, &sys) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    struct aug_train_result r;
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    if (aug_train_predict(&gpt, &sys, p, &o, &r) != AUG_OK)
        fail_msg("predict: %s", aug_last_error());
    return r;
}

static double op_s(struct aug_op op) {
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    struct aug_op_time t;
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    return t.time_s;
}

static void test_host_timeline(void **state) {
    (void)state;
    struct aug_host_tl t;
    /* 10 kernels of 5 us, each issued in 20 us: the last is issued at 200 us and ends at
     * 205 us; the GPU was busy 50 us of it, idle 155 us */
    aug_host_tl_init(&t);
    aug_host_tl_kernels(&t, 10, 5e-6, 20e-6);
    assert_rel(t.gpu, 205e-6, 1e-12);
    assert_rel(aug_host_tl_idle(&t), 155e-6, 1e-12);
    /* 10 kernels of 50 us: only the first issue (20 us) is exposed: 20 + 500 us */
    aug_host_tl_init(&t);
    aug_host_tl_kernels(&t, 10, 50e-6, 20e-6);
    assert_rel(t.gpu, 520e-6, 1e-12);
    assert_rel(aug_host_tl_idle(&t), 20e-6, 1e-12);
    /* a 1 ms kernel lets the host run ahead: the next ten short kernels are issued by
     * 220 us, long before the GPU is free at 1020 us, and cost it nothing */
    aug_host_tl_init(&t);
    aug_host_tl_kernels(&t, 1, 1000e-6, 20e-6);
    aug_host_tl_kernels(&t, 10, 5e-6, 20e-6);
    assert_rel(t.gpu, 1070e-6, 1e-12);
    assert_rel(aug_host_tl_idle(&t), 20e-6, 1e-12);
    /* the same, with a sync after the long kernel: the host waits until 1020 us, issues
     * the ten short kernels by 1220 us and the GPU ends at 1225 us, idle 20 + 155 us */
    aug_host_tl_init(&t);
    aug_host_tl_kernels(&t, 1, 1000e-6, 20e-6);
    aug_host_tl_sync(&t);
    assert_rel(t.host, 1020e-6, 1e-12);
    aug_host_tl_kernels(&t, 10, 5e-6, 20e-6);
    assert_rel(t.gpu, 1225e-6, 1e-12);
    assert_rel(aug_host_tl_idle(&t), 175e-6, 1e-12);
    /* a sync also waits for the kernel still running (1220 -> 1225 us); a second one
     * changes nothing */
    aug_host_tl_sync(&t);
    assert_rel(t.host, 1225e-6, 1e-12);
    aug_host_tl_sync(&t);
    assert_rel(t.host, 1225e-6, 1e-12);
    assert_rel(aug_host_tl_idle(&t), 175e-6, 1e-12);
    /* the closed form equals kernel-by-kernel issue */
    static const double cases[][3] = {{7, 3e-6, 11e-6}, {13, 40e-6, 9e-6}, {3, 10e-6, 10e-6}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double host = 30e-6, gpu = 45e-6;
        for (int i = 0; i < (int)cases[k][0]; i++) {
            host += cases[k][2];
            gpu = fmax(gpu, host) + cases[k][1];
        }
        t.host = 30e-6;
        t.gpu = 45e-6;
        t.busy = 0;
        aug_host_tl_kernels(&t, cases[k][0], cases[k][1], cases[k][2]);
        assert_rel(t.gpu, gpu, 1e-12);
        assert_rel(t.host, host, 1e-12);
    }
}

static void test_cuda_graphs_remove_host_time(void **state) {
    (void)state;
    /* a small micro-batch at tp 8 is host-bound under the eager Megatron-DeepSpeed costs;
     * with pp 1 and dp 1 the step shrinks by exactly the host time when CUDA graphs
     * replay the layers */
    struct aug_plan a = plan(8, 8, 1, 1, 4);
    assert_int_equal(aug_plan_resolve(&a, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &a, 0, NULL, 0);
    struct aug_plan b = a;
    b.cuda_graphs = 1;
    struct aug_train_result ra = predict(&a), rb = predict(&b);
    assert_true(ra.breakdown.overhead_s > 0.0);
    assert_near(rb.breakdown.overhead_s, 0.0, 0.0);
    assert_rel(ra.step_time_s - rb.step_time_s, ra.breakdown.overhead_s, 1e-9);
    assert_near(aug_framework_issue_s(&b, NULL, AUG_OP_GEMM), 0.0, 0.0);
}

static void test_host_issue_scale(void **state) {
    (void)state;
    /* the same host-bound plan on a host 1.9 times slower (system host_issue_scale, as
     * GB200's Grace) predicts exactly what the x86 host does with every issue cost 1.9
     * times larger, and more host-bound time than at scale 1 */
    struct aug_plan p = plan(8, 8, 1, 1, 4);
    assert_int_equal(aug_plan_resolve(&p, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &p, 0, NULL, 0);
    struct aug_host_cost x86, slow;
    for (int k = 0; k < AUG_OP_KIND_COUNT; k++) {
        x86.issue_us[k] = 1e6 * aug_framework_issue_s(&p, NULL, (enum aug_op_kind)k);
        slow.issue_us[k] = 1.9 * x86.issue_us[k];
    }
    struct aug_system grace = sys;
    grace.host_issue_scale = 1.9;
    struct aug_train_options o = {NULL, 0, &x86, 0.0}, o_slow = {NULL, 0, &slow, 0.0};
    struct aug_train_result on_grace, scaled, on_x86;
    assert_int_equal(aug_train_predict(&gpt, &grace, &p, &o, &on_grace), AUG_OK);
    assert_int_equal(aug_train_predict(&gpt, &sys, &p, &o_slow, &scaled), AUG_OK);
    assert_int_equal(aug_train_predict(&gpt, &sys, &p, &o, &on_x86), AUG_OK);
    assert_rel(on_grace.step_time_s, scaled.step_time_s, 1e-12);
    assert_rel(on_grace.breakdown.overhead_s, scaled.breakdown.overhead_s, 1e-12);
    assert_true(on_x86.breakdown.overhead_s > 0.0);
    assert_true(on_grace.breakdown.overhead_s > 1.5 * on_x86.breakdown.overhead_s);
    /* a system built field by field (scale 0) is an x86 host */
    struct aug_system unset = sys;
    unset.host_issue_scale = 0.0;
    assert_near(aug_system_host_issue_scale(&unset), 1.0, 0);
}

static void test_profiles_apply_defaults(void **state) {
    (void)state;
    int id = -1;
    assert_int_equal(aug_framework_from_name("megatron-core", &id), AUG_OK);
    assert_int_equal(id, AUG_FW_MEGATRON_CORE);
    assert_int_equal(aug_framework_from_name("caffe", &id), AUG_EUSAGE);
    for (int i = 0; i < AUG_FW_COUNT; i++) {
        assert_int_equal(aug_framework_from_name(aug_framework_name(i), &id), AUG_OK);
        assert_int_equal(id, i);
    }
    /* NeMo 2 / Megatron-Core on 64 GPUs, tp 4, pp 2, interleaved: SP, FlashAttention,
     * distributed optimizer, fp32 main gradients with bf16, P2P overlap (interleaved),
     * buckets of max(40M, 1M x dp 8) = 40M parameters */
    struct aug_plan p = plan(64, 4, 2, 1, 64);
    p.interleave = 2;
    p.flash_attention = 0;
    assert_int_equal(aug_plan_resolve(&p, &gpt, &sys), AUG_OK);
    char applied[256];
    aug_framework_apply(AUG_FW_MEGATRON_CORE, &p, 0, applied, sizeof applied);
    assert_int_equal(p.framework, AUG_FW_MEGATRON_CORE);
    assert_int_equal(p.sp, 1);
    assert_int_equal(p.flash_attention, 1);
    assert_int_equal(p.zero, 1);
    assert_int_equal(p.main_grads, AUG_GRADS_FP32);
    assert_int_equal(p.pp_overlap, 1);
    assert_int_equal(p.pp_scatter, 0);
    assert_rel(p.bucket_params, 4e7, 1e-12);
    assert_non_null(strstr(applied, "sp on"));
    assert_non_null(strstr(applied, "grads fp32"));
    /* Transformer Engine prefers cuDNN attention on Hopper; FSDP runs SDPA's FA2 kernels,
     * unless the kernel was given */
    assert_int_equal(p.attn_kernel, AUG_ATTN_KERNEL_CUDNN);
    assert_non_null(strstr(applied, "attention kernel cudnn"));
    struct aug_plan f = plan(64, 1, 1, 1, 64);
    assert_int_equal(aug_plan_resolve(&f, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_PYTORCH_FSDP, &f, 0, NULL, 0);
    assert_int_equal(f.attn_kernel, AUG_ATTN_KERNEL_FA2);
    f.attn_kernel = AUG_ATTN_KERNEL_FA3;
    aug_framework_apply(AUG_FW_PYTORCH_FSDP, &f, AUG_FWSET_ATTN_KERNEL, NULL, 0);
    assert_int_equal(f.attn_kernel, AUG_ATTN_KERNEL_FA3);
    enum aug_attn_kernel k;
    assert_int_equal(aug_attn_kernel_from_name("FA2", &k), AUG_OK);
    assert_int_equal(k, AUG_ATTN_KERNEL_FA2);
    assert_int_equal(aug_attn_kernel_from_name("xformers", &k), AUG_EUSAGE);
    /* fp16: Megatron keeps 16-bit gradients and an fp32 copy; options given win */
    struct aug_plan q = plan(64, 4, 2, 1, 64);
    q.dtype = AUG_DTYPE_FP16;
    assert_int_equal(aug_plan_resolve(&q, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_CORE, &q, AUG_FWSET_SP | AUG_FWSET_SHARDING, NULL, 0);
    assert_int_equal(q.sp, 0);
    assert_int_equal(q.zero, 0);
    assert_int_equal(q.main_grads, AUG_GRADS_FP32_COPY);
    assert_int_equal(q.pp_overlap, 0); /* not interleaved */
    assert_int_equal(q.fp8_params, 0); /* fp8 parameters only for fp8 plans */
    /* fp8: NeMo 2's and Megatron-Bridge's fp8 recipes set fp8_param_gather=True; a plan
     * that says otherwise keeps its 16-bit weights; the other profiles leave it */
    struct aug_system h100;
    assert_int_equal(aug_system_load(KDB, "dgx-h100", &h100), AUG_OK);
    struct aug_plan e = plan(64, 4, 2, 1, 64);
    e.dtype = AUG_DTYPE_FP8;
    assert_int_equal(aug_plan_resolve(&e, &gpt, &h100), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_CORE, &e, 0, applied, sizeof applied);
    assert_int_equal(e.fp8_params, 1);
    assert_non_null(strstr(applied, "fp8-params on"));
    e.fp8_params = 0;
    aug_framework_apply(AUG_FW_MEGATRON_CORE, &e, AUG_FWSET_FP8_PARAMS, NULL, 0);
    assert_int_equal(e.fp8_params, 0);
    aug_framework_apply(AUG_FW_NEMO1_LAUNCHER, &e, 0, NULL, 0);
    assert_int_equal(e.fp8_params, 0);
    /* Megatron-LM 2021/2022 scatters pipeline sends and reduces after the backward */
    struct aug_plan r = plan(64, 4, 2, 1, 64);
    assert_int_equal(aug_plan_resolve(&r, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_LM_2022, &r, 0, NULL, 0);
    assert_int_equal(r.pp_scatter, 1);
    assert_int_equal(r.dp_overlap, 0);
    assert_int_equal(r.flash_attention, 0);
    /* the asynchronous input-gradient all-reduce: on in the Megatron profiles (Megatron-LM
     * since 2021-08-30, Megatron-Core, Megatron-DeepSpeed since its 2023 rebase), the
     * plan's (off) under FSDP, a given value kept */
    assert_int_equal(r.tp_async_allreduce, 1);
    assert_int_equal(p.tp_async_allreduce, 1);
    assert_non_null(strstr(applied, "tp-async-allreduce on"));
    assert_int_equal(f.tp_async_allreduce, 0);
    struct aug_plan a = plan(64, 4, 2, 1, 64);
    assert_int_equal(aug_plan_resolve(&a, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &a, AUG_FWSET_TP_ASYNC, NULL, 0);
    assert_int_equal(a.tp_async_allreduce, 0);
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &a, 0, NULL, 0);
    assert_int_equal(a.tp_async_allreduce, 1);
    /* DeepSpeed's 2021 ZeRO-3 profile: stage 3 with the serial gathers; the 0.14 profile
     * prefetches; a ZeRO stage given on the command line keeps the plan's prefetch */
    struct aug_plan z = plan(64, 1, 1, 1, 64);
    assert_int_equal(aug_plan_resolve(&z, &gpt, &sys), AUG_OK);
    char zapplied[512];
    aug_framework_apply(AUG_FW_DEEPSPEED_ZERO_2021, &z, 0, zapplied, sizeof zapplied);
    assert_int_equal(z.zero, 3);
    assert_int_equal(z.zero3_gather, AUG_ZERO3_SERIAL);
    assert_non_null(strstr(zapplied, "zero3-gather serial"));
    assert_int_equal(aug_plan_resolve(&z, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_DEEPSPEED_ZERO, &z, 0, NULL, 0);
    assert_int_equal(z.zero3_gather, AUG_ZERO3_PREFETCH);
    struct aug_plan z1 = plan(64, 1, 1, 1, 64);
    z1.zero = 1;
    assert_int_equal(aug_plan_resolve(&z1, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_DEEPSPEED_ZERO_2021, &z1, AUG_FWSET_SHARDING, NULL, 0);
    assert_int_equal(z1.zero, 1);
    assert_int_equal(z1.zero3_gather, AUG_ZERO3_PREFETCH);
    assert_int_equal(aug_plan_resolve(&z1, &gpt, &sys), AUG_OK);
    assert_int_equal(aug_framework_from_name("deepspeed-zero-2021", &id), AUG_OK);
    assert_int_equal(id, AUG_FW_DEEPSPEED_ZERO_2021);
    /* the loss: Megatron's unfused ops there, Megatron-Core's fused passes in NeMo 2, the
     * plan's default (fused) under FSDP, a given one kept */
    assert_int_equal(r.cross_entropy, AUG_CE_UNFUSED);
    assert_int_equal(p.cross_entropy, AUG_CE_FUSED);
    assert_non_null(strstr(applied, "cross-entropy fused"));
    assert_int_equal(f.cross_entropy, AUG_CE_FUSED);
    r.cross_entropy = AUG_CE_TE;
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &r, AUG_FWSET_CROSS_ENTROPY, NULL, 0);
    assert_int_equal(r.cross_entropy, AUG_CE_TE);
    enum aug_cross_entropy ce;
    assert_int_equal(aug_cross_entropy_from_name("Unfused", &ce), AUG_OK);
    assert_int_equal(ce, AUG_CE_UNFUSED);
    assert_int_equal(aug_cross_entropy_from_name("liger", &ce), AUG_EUSAGE);
    /* "none" changes nothing but the profile id */
    struct aug_plan n = plan(64, 4, 2, 1, 64), n0;
    assert_int_equal(aug_plan_resolve(&n, &gpt, &sys), AUG_OK);
    memcpy(&n0, &n, sizeof n);
    aug_framework_apply(AUG_FW_NONE, &n, 0, applied, sizeof applied);
    assert_memory_equal(&n, &n0, sizeof n);
    assert_string_equal(applied, "");
}

/* NeMo 1 through its launcher (24.01-24.07): megatron-core's defaults except the two the
 * launcher changes, FlashAttention-2 (config.yaml's NVTE_FUSED_ATTN: 0 takes Transformer
 * Engine off cuDNN) and Megatron-Core's unfused loss (no cross_entropy_loss_fusion in most
 * model yamls); a loss or kernel given (the llama3 yamls fuse the loss) is kept. */
static void test_nemo1_launcher_profile(void **state) {
    (void)state;
    int id = -1;
    assert_int_equal(aug_framework_from_name("nemo1-launcher", &id), AUG_OK);
    assert_int_equal(id, AUG_FW_NEMO1_LAUNCHER);
    struct aug_plan p = plan(64, 4, 2, 1, 64), m;
    p.interleave = 2;
    assert_int_equal(aug_plan_resolve(&p, &gpt, &sys), AUG_OK);
    memcpy(&m, &p, sizeof p);
    char applied[256];
    aug_framework_apply(AUG_FW_NEMO1_LAUNCHER, &p, 0, applied, sizeof applied);
    aug_framework_apply(AUG_FW_MEGATRON_CORE, &m, 0, NULL, 0);
    assert_int_equal(p.framework, AUG_FW_NEMO1_LAUNCHER);
    assert_int_equal(p.attn_kernel, AUG_ATTN_KERNEL_FA2);
    assert_int_equal(p.cross_entropy, AUG_CE_UNFUSED);
    assert_non_null(strstr(applied, "attention kernel fa2"));
    assert_non_null(strstr(applied, "cross-entropy unfused"));
    /* everything else as megatron-core */
    m.framework = p.framework;
    m.attn_kernel = p.attn_kernel;
    m.cross_entropy = p.cross_entropy;
    assert_memory_equal(&p, &m, sizeof p);
    struct aug_plan q = plan(64, 4, 2, 1, 64);
    assert_int_equal(aug_plan_resolve(&q, &gpt, &sys), AUG_OK);
    q.cross_entropy = AUG_CE_FUSED;
    q.attn_kernel = AUG_ATTN_KERNEL_CUDNN;
    aug_framework_apply(AUG_FW_NEMO1_LAUNCHER, &q,
                        AUG_FWSET_CROSS_ENTROPY | AUG_FWSET_ATTN_KERNEL, NULL, 0);
    assert_int_equal(q.cross_entropy, AUG_CE_FUSED);
    assert_int_equal(q.attn_kernel, AUG_ATTN_KERNEL_CUDNN);
    const struct aug_framework *f = aug_framework_get(AUG_FW_NEMO1_LAUNCHER);
    assert_non_null(strstr(f->source, "NVTE_FUSED_ATTN=0"));
}

/* Bytes of the op named `name` in a list, -1 when it has none. */
static double op_bytes(const struct aug_graph_op *ops, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].op.name, name) == 0)
            return ops[i].op.bytes;
    return -1.0;
}

/* Bytes of the loss over the logits of one micro-batch on the last stage: 2048 tokens x
 * V / tp logits of 2 bytes (bf16) at tp 4. Per logit (layer_graph.c, Megatron-Core
 * core_r0.12.0 and Transformer Engine 2.2): fused 2 + 4 (upcast) + 8 + 8 forward, 4 + 4 + 2
 * backward; unfused 2 + 4 + 4 + 8 + 8 + 4 + 8 = 38 and 8 + 4 + 2 = 14; te 3 x 2 and 2 x 2. */
static void test_cross_entropy_bytes(void **state) {
    (void)state;
    static const struct {
        enum aug_cross_entropy ce;
        double fwd, bwd;
    } cases[] = {{AUG_CE_FUSED, 22, 10}, {AUG_CE_UNFUSED, 38, 14}, {AUG_CE_TE, 6, 4}};
    static struct aug_graph g;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct aug_plan p = plan(8, 4, 1, 1, 2);
        p.cross_entropy = cases[k].ce;
        assert_int_equal(aug_plan_resolve(&p, &gpt, &sys), AUG_OK);
        aug_graph_head(&gpt, &p, &sys, 1, &g);
        double logits = 2048.0 * (double)gpt.vocab / 4.0;
        assert_rel(op_bytes(g.fwd, g.n_fwd, "cross_entropy"), logits * cases[k].fwd, 1e-15);
        assert_rel(op_bytes(g.bwd, g.n_bwd, "cross_entropy_bwd"), logits * cases[k].bwd, 1e-15);
    }
    /* what the loss keeps for the backward: Megatron-Core's fp32 softmax (4 B per logit),
     * Transformer Engine's bf16 gradient in place (2 B) */
    struct aug_plan a = plan(8, 4, 1, 1, 2), t = a;
    t.cross_entropy = AUG_CE_TE;
    struct aug_train_result ra = predict(&a), rt = predict(&t);
    assert_rel(ra.memory.activations_gib - rt.memory.activations_gib,
               2.0 * 2048.0 * (double)gpt.vocab / 4.0 / AUG_GIB, 1e-9);
}

/* The dense embedding gradient of one micro-batch on the first stage at tp 4: V / 4 x h
 * elements zero-filled (2 B) and added to the accumulated gradient (read 2 B and the
 * accumulator, write the accumulator): 2 + 2 + 2 x 4 = 12 B with fp32 main gradients,
 * 2 + 2 + 2 x 2 = 8 B with gradients in bf16. */
static void test_embedding_grad_bytes(void **state) {
    (void)state;
    static struct aug_graph g;
    static const struct {
        enum aug_main_grads mg;
        double bytes;
    } cases[] = {{AUG_GRADS_FP32, 12}, {AUG_GRADS_DTYPE, 8}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct aug_plan p = plan(8, 4, 1, 1, 2);
        p.main_grads = cases[k].mg;
        assert_int_equal(aug_plan_resolve(&p, &gpt, &sys), AUG_OK);
        aug_graph_head(&gpt, &p, &sys, 0, &g);
        assert_rel(op_bytes(g.bwd, g.n_bwd, "embedding_grad"),
                   (double)gpt.vocab / 4.0 * (double)gpt.hidden * cases[k].bytes, 1e-15);
    }
}

static void test_optimizer_bytes(void **state) {
    (void)state;
    /* dp 8, tp 1, pp 1: every GPU holds all P parameters. Bytes per parameter of weights +
     * gradients + optimizer states (Megatron-Core docs, "Distributed Optimizer" table;
     * ZeRO, Rajbhandari et al. sec. 3.1):
     *   ZeRO paper, 16-bit grads:  2 + 2 + 12 = 16; ZeRO-1 over 8: 2 + 2 + 12/8 = 5.5
     *   Megatron bf16, fp32 grads: 2 + 4 + 12 = 18; distributed:   6 + 12/8 = 7.5
     *   Megatron fp16, fp32 copy:  2 + 2 + 16 = 20; distributed:   4 + 16/8 = 6 */
    static const struct {
        enum aug_dtype dt;
        enum aug_main_grads g;
        int zero;
        double bytes;
    } cases[] = {
        {AUG_DTYPE_BF16, AUG_GRADS_DTYPE, 0, 16.0},     {AUG_DTYPE_BF16, AUG_GRADS_DTYPE, 1, 5.5},
        {AUG_DTYPE_BF16, AUG_GRADS_FP32, 0, 18.0},      {AUG_DTYPE_BF16, AUG_GRADS_FP32, 1, 7.5},
        {AUG_DTYPE_FP16, AUG_GRADS_FP32_COPY, 0, 20.0}, {AUG_DTYPE_FP16, AUG_GRADS_FP32_COPY, 1, 6.0},
    };
    double P = aug_model_params(&gpt);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct aug_plan p = plan(8, 1, 1, 1, 8);
        p.dtype = cases[k].dt;
        p.main_grads = cases[k].g;
        p.zero = cases[k].zero;
        assert_int_equal(aug_plan_resolve(&p, &gpt, &sys), AUG_OK);
        struct aug_train_memory mem;
        aug_train_memory(&gpt, &sys, &p, &mem);
        double states = (mem.weights_gib + mem.gradients_gib + mem.optimizer_gib) * AUG_GIB;
        if (fabs(states / P - cases[k].bytes) > 1e-9 * cases[k].bytes)
            fail_msg("case %zu: %.6f bytes per parameter, expected %.2f", k, states / P,
                     cases[k].bytes);
    }
    /* fp32 main gradients are all-reduced in fp32: without overlap the exposed DP time is
     * one all-reduce of 4 P bytes over the 8 NVLink ranks */
    struct aug_plan p = plan(8, 1, 1, 1, 8);
    p.main_grads = AUG_GRADS_FP32;
    p.dp_overlap = 0;
    struct aug_train_result r = predict(&p);
    assert_rel(r.breakdown.dp_comm_s,
               op_s(aug_op_collective("g", AUG_COLL_ALL_REDUCE, 4.0 * P, 8, 8)), 1e-12);
}

/* ZeRO-1's gradient reduction: Megatron's distributed optimizer reduce-scatters the 4 P
 * bytes of fp32 gradients and all-gathers the 2 P bytes of updated bf16 weights; DeepSpeed's
 * BF16_Optimizer (bf16 weights, fp32 gradients, ZeRO-1) all-reduces the gradients and
 * all-gathers the same weights, so without overlap it costs one all-reduce more than one
 * reduce-scatter of 4 P bytes. The DeepSpeed profiles pick it only in that case. */
static void test_bf16_optimizer_all_reduce(void **state) {
    (void)state;
    double P = aug_model_params(&gpt);
    struct aug_plan p = plan(8, 1, 1, 1, 8);
    p.main_grads = AUG_GRADS_FP32;
    p.dp_overlap = 0;
    p.zero = 1;
    struct aug_train_result rs = predict(&p);
    double ag = op_s(aug_op_collective("w", AUG_COLL_ALL_GATHER, 2.0 * P, 8, 8));
    assert_rel(rs.breakdown.dp_comm_s,
               op_s(aug_op_collective("g", AUG_COLL_REDUCE_SCATTER, 4.0 * P, 8, 8)) + ag, 1e-12);
    p.grad_reduce = AUG_GRAD_ALL_REDUCE;
    struct aug_train_result ar = predict(&p);
    assert_rel(ar.breakdown.dp_comm_s,
               op_s(aug_op_collective("g", AUG_COLL_ALL_REDUCE, 4.0 * P, 8, 8)) + ag, 1e-12);
    assert_true(ar.step_time_s > rs.step_time_s);
    /* the profiles: megatron-deepspeed with bf16 and fp32 gradients at ZeRO-1 */
    struct aug_plan q = plan(8, 1, 1, 1, 8);
    q.zero = 1;
    q.main_grads = AUG_GRADS_FP32;
    assert_int_equal(aug_plan_resolve(&q, &gpt, &sys), AUG_OK);
    char applied[512];
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &q, AUG_FWSET_SHARDING | AUG_FWSET_GRADS,
                        applied, sizeof applied);
    assert_int_equal(q.grad_reduce, AUG_GRAD_ALL_REDUCE);
    assert_non_null(strstr(applied, "grad-reduce all-reduce (BF16_Optimizer)"));
    assert_int_equal(aug_plan_resolve(&q, &gpt, &sys), AUG_OK);
    /* not with fp16 (DeepSpeed's ZeRO-1 optimizer), nor under Megatron-Core, nor when given */
    struct aug_plan f16 = plan(8, 1, 1, 1, 8);
    f16.zero = 1;
    f16.dtype = AUG_DTYPE_FP16;
    f16.main_grads = AUG_GRADS_FP32_COPY;
    assert_int_equal(aug_plan_resolve(&f16, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &f16, AUG_FWSET_SHARDING | AUG_FWSET_GRADS,
                        NULL, 0);
    assert_int_equal(f16.grad_reduce, AUG_GRAD_REDUCE_SCATTER);
    struct aug_plan mc = plan(8, 1, 1, 1, 8);
    assert_int_equal(aug_plan_resolve(&mc, &gpt, &sys), AUG_OK);
    aug_framework_apply(AUG_FW_MEGATRON_CORE, &mc, 0, NULL, 0);
    assert_int_equal(mc.zero, 1);
    assert_int_equal(mc.grad_reduce, AUG_GRAD_REDUCE_SCATTER);
    struct aug_plan given = q;
    given.grad_reduce = AUG_GRAD_REDUCE_SCATTER;
    aug_framework_apply(AUG_FW_MEGATRON_DEEPSPEED, &given,
                        AUG_FWSET_SHARDING | AUG_FWSET_GRADS | AUG_FWSET_GRAD_REDUCE, NULL, 0);
    assert_int_equal(given.grad_reduce, AUG_GRAD_REDUCE_SCATTER);
    /* refused where ZeRO does not choose: stage 2 shards the gradients */
    struct aug_plan z2 = plan(8, 1, 1, 1, 8);
    z2.zero = 2;
    z2.grad_reduce = AUG_GRAD_ALL_REDUCE;
    assert_int_equal(aug_plan_resolve(&z2, &gpt, &sys), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "--grad-reduce all-reduce"));
}

static void test_pipeline_scatter_gather(void **state) {
    (void)state;
    /* 16 GPUs, tp 8, pp 2: the two stages sit on two nodes. Without SP, Megatron-LM's
     * scatter/gather (Narayanan et al. SC21 sec. 4.1) sends b s h / t per rank over the
     * network and all-gathers the b s h activation over the 8 NVLink ranks after it.
     * 2 v (m + p - 1) = 2 (8 + 1) = 18 transfers; the tied embedding adds one all-reduce
     * of V h / t (fp16/bf16: 2 bytes) between the stages. */
    struct aug_plan p = plan(16, 8, 2, 1, 8);
    p.pp_scatter = 1;
    struct aug_train_result r = predict(&p);
    double act = 2048.0 * 4096.0 * 2.0;
    assert_int_equal(aug_ranks_per_domain(&sys, 2, 8), 1);
    double t_sr = 4.0e-6 + act / 8.0 / (25e9 * 0.90); /* network latency + bytes at 90% */
    assert_rel(op_s(aug_op_collective("s", AUG_COLL_SEND_RECV, act / 8.0, 2, 1)), t_sr, 1e-12);
    double t_ag = op_s(aug_op_collective("ag", AUG_COLL_ALL_GATHER, act, 8, 8));
    double t_ar = op_s(aug_op_collective("e", AUG_COLL_ALL_REDUCE, 51200.0 * 4096.0 / 8.0 * 2.0,
                                         2, 1));
    assert_rel(r.breakdown.pp_comm_s, 18.0 * (t_sr + t_ag) + t_ar, 1e-12);
    /* it is what makes the 2021 runs fast: the full send costs more */
    struct aug_plan q = plan(16, 8, 2, 1, 8);
    struct aug_train_result rq = predict(&q);
    assert_rel(rq.breakdown.pp_comm_s, 18.0 * (4.0e-6 + act / (25e9 * 0.90)) + t_ar, 1e-12);
    assert_true(r.breakdown.pp_comm_s < rq.breakdown.pp_comm_s);
    /* with SP each rank holds s/t already: scatter changes nothing */
    struct aug_plan s1 = plan(16, 8, 2, 1, 8), s2;
    s1.sp = 1;
    s2 = s1;
    s2.pp_scatter = 1;
    assert_rel(predict(&s1).breakdown.pp_comm_s, predict(&s2).breakdown.pp_comm_s, 1e-12);
}

static void test_param_gather_overlap(void **state) {
    (void)state;
    /* ZeRO-1 on 8 GPUs, one micro-batch, one bucket per layer (32): the parameter
     * all-gather of 2 P bytes costs t_ag exposed; overlapped with the next forward it
     * hides all but its first bucket behind compute, so the saving is positive, at most
     * t_ag, and at least t_ag / 32 stays exposed */
    double P = aug_model_params(&gpt);
    struct aug_plan a = plan(8, 1, 1, 1, 8);
    a.zero = 1;
    struct aug_plan b = a;
    b.param_gather_overlap = 1;
    struct aug_train_result ra = predict(&a), rb = predict(&b);
    double t_ag = op_s(aug_op_collective("ag", AUG_COLL_ALL_GATHER, 2.0 * P, 8, 8));
    double saved = ra.breakdown.dp_comm_s - rb.breakdown.dp_comm_s;
    assert_true(saved > 0.0);
    assert_true(saved <= t_ag * (1.0 + 1e-12));
    assert_true(saved <= t_ag - t_ag / 32.0 + 1e-12);
    assert_rel(ra.step_time_s - rb.step_time_s, saved, 1e-9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_timeline),
        cmocka_unit_test(test_cuda_graphs_remove_host_time),
        cmocka_unit_test(test_host_issue_scale),
        cmocka_unit_test(test_profiles_apply_defaults),
        cmocka_unit_test(test_nemo1_launcher_profile),
        cmocka_unit_test(test_cross_entropy_bytes),
        cmocka_unit_test(test_embedding_grad_bytes),
        cmocka_unit_test(test_optimizer_bytes),
        cmocka_unit_test(test_bf16_optimizer_all_reduce),
        cmocka_unit_test(test_pipeline_scatter_gather),
        cmocka_unit_test(test_param_gather_overlap),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
