/* SPDX-License-Identifier: Apache-2.0 */
/* test_train.c - one training iteration: invariants every prediction must keep (shares of
 * time sum to 1, the breakdown adds up to the step, more bandwidth never slows a step,
 * the roofline bounds the fallback), and the TP collective count of Megatron-style tensor
 * parallelism (Korthikanti et al. 2022 sec. 4.2.2: two all-reduces per layer forward and
 * two backward without SP; two all-gathers and two reduce-scatters each way with SP) timed
 * with the same per-op model the predictor uses. */
#include "aug_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "augur/collective.h"
#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"
#include "augur/units.h"

#include "hw/efficiency.h"
#include "model/memory.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system a100, h100;
static char tmp_root[64], gpu_dir[128], curves_path[192];

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-a100-80g", &a100) != AUG_OK ||
        aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK)
        return -1;
    snprintf(tmp_root, sizeof tmp_root, "/tmp/aug_train_test_XXXXXX");
    if (!mkdtemp(tmp_root))
        return -1;
    snprintf(gpu_dir, sizeof gpu_dir, "%s/h100-80g", tmp_root);
    snprintf(curves_path, sizeof curves_path, "%s/curves.csv", gpu_dir);
    return mkdir(gpu_dir, 0700);
}

static int group_teardown(void **state) {
    (void)state;
    remove(curves_path);
    rmdir(gpu_dir);
    rmdir(tmp_root);
    return 0;
}

static struct aug_model preset(const char *name) {
    struct aug_model m;
    if (aug_model_load(DATA_ROOT, name, &m) != AUG_OK)
        fail_msg("model '%s': %s", name, aug_last_error());
    return m;
}

static struct aug_model gpt(long layers, long hidden, long heads) {
    struct aug_model m;
    aug_model_init(&m);
    snprintf(m.name, sizeof m.name, "gpt-test");
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = heads;
    m.vocab = 51200;
    m.max_seq = 2048;
    m.tied_embeddings = 1;
    if (aug_model_finish(&m, "test") != AUG_OK)
        fail_msg("model: %s", aug_last_error());
    return m;
}

struct pcase {
    const char *model;
    long gpus, tp, pp, cp, ep, v, mb, gb;
    int sp, zero;
    enum aug_fsdp fsdp;
    enum aug_recompute rc;
    int flash, overlap;
};

/* A spread of plans touching every code path of the step. */
static const struct pcase cases[] = {
    {"llama2-7b", 8, 1, 1, 1, 1, 1, 1, 64, 0, 0, AUG_FSDP_NONE, AUG_RECOMPUTE_NONE, 1, 1},
    {"llama2-7b", 64, 2, 1, 1, 1, 1, 2, 256, 1, 1, AUG_FSDP_NONE, AUG_RECOMPUTE_SELECTIVE, 1, 1},
    {"llama2-13b", 64, 8, 2, 1, 1, 1, 1, 128, 0, 2, AUG_FSDP_NONE, AUG_RECOMPUTE_FULL, 1, 0},
    {"llama2-70b", 128, 8, 4, 1, 1, 2, 1, 256, 1, 1, AUG_FSDP_NONE, AUG_RECOMPUTE_SELECTIVE, 1, 1},
    {"llama3-8b", 32, 1, 1, 1, 1, 1, 1, 64, 0, 3, AUG_FSDP_NONE, AUG_RECOMPUTE_NONE, 1, 1},
    {"llama3-8b", 32, 1, 1, 1, 1, 1, 2, 64, 0, 0, AUG_FSDP_HYBRID, AUG_RECOMPUTE_FULL, 1, 1},
    {"llama3-8b", 16, 2, 1, 2, 1, 1, 1, 32, 1, 0, AUG_FSDP_NONE, AUG_RECOMPUTE_NONE, 1, 1},
    {"gpt3-175b", 1024, 8, 16, 1, 1, 1, 1, 1024, 0, 1, AUG_FSDP_NONE, AUG_RECOMPUTE_FULL, 0, 1},
    {"gpt3-175b", 512, 8, 8, 1, 1, 3, 1, 512, 1, 0, AUG_FSDP_NONE, AUG_RECOMPUTE_SELECTIVE, 0, 1},
    {"mixtral-8x7b", 64, 2, 1, 1, 8, 1, 1, 256, 1, 1, AUG_FSDP_NONE, AUG_RECOMPUTE_NONE, 1, 1},
};
#define N_CASES (sizeof cases / sizeof *cases)

static int make_plan(const struct pcase *c, const struct aug_model *m,
                     const struct aug_system *s, struct aug_plan *p) {
    aug_plan_init(p);
    p->gpus = c->gpus;
    p->tp = c->tp;
    p->pp = c->pp;
    p->cp = c->cp;
    p->ep = c->ep;
    p->interleave = c->v;
    p->micro_batch = c->mb;
    p->global_batch = c->gb;
    p->sp = c->sp;
    p->zero = c->zero;
    p->fsdp = c->fsdp;
    p->recompute = c->rc;
    p->flash_attention = c->flash;
    p->dp_overlap = c->overlap;
    if (m->max_seq > 4096)
        p->seq = 4096;
    return aug_plan_resolve(p, m, s);
}

static struct aug_train_result predict_opt(const struct aug_model *m, const struct aug_system *s,
                                           const struct aug_plan *p, const struct aug_kdb *kdb,
                                           int roofline) {
    struct aug_train_result r;
    struct aug_train_options o = {kdb, roofline, NULL, 0.0};
    if (aug_train_predict(m, s, p, &o, &r) != AUG_OK)
        fail_msg("predict %s: %s", m->name, aug_last_error());
    return r;
}

static double parts_sum(const struct aug_train_breakdown *b) {
    return b->compute_s + b->attention_s + b->recompute_s + b->embedding_s + b->tp_comm_s +
           b->cp_comm_s + b->ep_comm_s + b->pp_comm_s + b->dp_comm_s + b->pipeline_bubble_s +
           b->optimizer_s + b->overhead_s;
}

static void check_invariants(const char *what, const struct aug_train_result *r) {
    const struct aug_train_breakdown *b = &r->breakdown;
    const double parts[] = {b->compute_s, b->attention_s, b->recompute_s, b->embedding_s,
                            b->tp_comm_s, b->cp_comm_s, b->ep_comm_s, b->pp_comm_s, b->dp_comm_s,
                            b->pipeline_bubble_s, b->optimizer_s, b->overhead_s};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (!(parts[i] >= 0) || !isfinite(parts[i]))
            fail_msg("%s: breakdown part %zu = %g", what, i, parts[i]);
    if (!(r->step_time_s > 0))
        fail_msg("%s: step time %g", what, r->step_time_s);
    if (fabs(parts_sum(b) - r->step_time_s) > 1e-9 * r->step_time_s)
        fail_msg("%s: breakdown sums to %.12g, step time %.12g", what, parts_sum(b), r->step_time_s);
    const struct aug_provenance *pv = &r->provenance;
    double sum = pv->calibrated + pv->fallback + pv->roofline;
    if (fabs(sum - 1.0) > 1e-12 || pv->calibrated < 0 || pv->fallback < 0 || pv->roofline < 0)
        fail_msg("%s: provenance %g + %g + %g = %.15g", what, pv->calibrated, pv->fallback,
                 pv->roofline, sum);
    if (!(r->mfu > 0 && r->mfu < 1 && r->hfu >= r->mfu && r->hfu < 1))
        fail_msg("%s: MFU %g, HFU %g", what, r->mfu, r->hfu);
    const struct aug_train_memory *mm = &r->memory;
    if (fabs(mm->weights_gib + mm->gradients_gib + mm->optimizer_gib + mm->activations_gib +
             mm->workspace_gib - mm->total_gib) > 1e-9 * mm->total_gib)
        fail_msg("%s: memory parts do not sum to the total", what);
    if (r->fits_in_memory != (mm->total_gib <= r->memory_capacity_gib))
        fail_msg("%s: fits_in_memory disagrees with %g of %g GiB", what, mm->total_gib,
                 r->memory_capacity_gib);
}

static void test_invariants_across_plans(void **state) {
    (void)state;
    for (size_t i = 0; i < N_CASES; i++) {
        struct aug_model m = preset(cases[i].model);
        struct aug_plan p;
        if (make_plan(&cases[i], &m, &h100, &p) != AUG_OK)
            fail_msg("case %zu (%s): %s", i, cases[i].model, aug_last_error());
        char what[64];
        snprintf(what, sizeof what, "case %zu (%s)", i, cases[i].model);
        struct aug_train_result r = predict_opt(&m, &h100, &p, NULL, 0);
        check_invariants(what, &r);
        assert_near(r.provenance.fallback, 1.0, 1e-12); /* no curves */
        assert_rel(r.tokens_per_s, (double)p.global_batch * (double)p.seq / r.step_time_s, 1e-12);
        struct aug_train_result rr = predict_opt(&m, &h100, &p, NULL, 1);
        check_invariants(what, &rr);
        assert_near(rr.provenance.roofline, 1.0, 1e-12);
        if (!(rr.step_time_s < r.step_time_s))
            fail_msg("%s: roofline %g s is not faster than the fallback %g s", what,
                     rr.step_time_s, r.step_time_s);
        /* the roofline is an upper bound of the model's speed: no part is slower */
        assert_true(rr.breakdown.compute_s <= r.breakdown.compute_s);
        assert_true(rr.breakdown.attention_s <= r.breakdown.attention_s);
        assert_true(rr.breakdown.tp_comm_s <= r.breakdown.tp_comm_s);
        /* (exposed DP time may grow: a faster backward hides less of the reduction) */
    }
}

static struct aug_system scaled(const struct aug_system *s, double nv, double net, double hbm) {
    struct aug_system x = *s;
    x.link[AUG_LINK_NVLINK].bw_gbps *= nv;
    x.link[AUG_LINK_NETWORK].bw_gbps *= net;
    x.gpu.hbm_gbps *= hbm;
    return x;
}

static void test_more_bandwidth_never_slows(void **state) {
    (void)state;
    static const double f[][3] = {{2, 2, 2}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {4, 4, 4}};
    for (size_t i = 0; i < N_CASES; i++) {
        struct aug_model m = preset(cases[i].model);
        struct aug_plan p;
        assert_int_equal(make_plan(&cases[i], &m, &h100, &p), AUG_OK);
        struct aug_train_result base = predict_opt(&m, &h100, &p, NULL, 0);
        for (size_t k = 0; k < sizeof f / sizeof *f; k++) {
            struct aug_system s2 = scaled(&h100, f[k][0], f[k][1], f[k][2]);
            struct aug_train_result r = predict_opt(&m, &s2, &p, NULL, 0);
            if (r.step_time_s > base.step_time_s * (1.0 + 1e-12))
                fail_msg("case %zu (%s): bandwidth x(%g nvlink, %g network, %g hbm) slows the "
                         "step from %.9g to %.9g s", i, cases[i].model, f[k][0], f[k][1], f[k][2],
                         base.step_time_s, r.step_time_s);
        }
        /* and doubling all of them makes a real difference */
        struct aug_system s2 = scaled(&h100, 2, 2, 2);
        struct aug_train_result r = predict_opt(&m, &s2, &p, NULL, 0);
        assert_true(r.step_time_s < base.step_time_s);
    }
}

static void test_fp8_vs_bf16_on_h100(void **state) {
    (void)state;
    /* one large, compute-bound GEMM without a curve: the structural model (hw/gemm_model.c)
     * at H100's main-loop rates (gpus.csv: bf16 792.1 best-shape x 0.89 sustained = 704.97,
     * fp8 1280 TFLOP/s, a training-shape figure kept whole). 8192^3 takes
     * 256 x 128 tiles (one CTA per SM): 32 x 64 = 2048 tiles, 15 full waves of 132 and 68
     * tiles spread over all SMs by stream-K (sm_90): 15 + 68/132 waves, each tile 2 x 256 x
     * 128 x 8192 FLOPs at rate / 132 per SM, then the fixup of 132 fp32 partial tiles
     * through L2 (2 x 132 x 256 x 128 x 4 B at 5120 B/clk x 1980 MHz = 10137.6 GB/s:
     * 3.4133 us), plus the GPU's launch gap (the model's own 2.5 us fixed cost is counted
     * inside launch_us) */
    struct aug_op_ctx ctx = {&h100, NULL, 0};
    struct aug_op g16 = aug_op_gemm("g", AUG_DTYPE_BF16, 8192, 8192, 8192, 1);
    struct aug_op g8 = aug_op_gemm("g", AUG_DTYPE_FP8, 8192, 8192, 8192, 1);
    struct aug_op_time t16, t8;
    assert_int_equal(aug_op_time(&ctx, &g16, &t16), AUG_OK);
    assert_int_equal(aug_op_time(&ctx, &g8, &t8), AUG_OK);
    double launch = h100.gpu.launch_us * 1e-6;
    double tile = 2.0 * 256 * 128 * 8192, waves = 15 + 68.0 / 132;
    double fix = 2.0 * 132 * 256 * 128 * 4 / 10137.6e9;
    assert_rel(fix, 3.4133e-6, 1e-4);
    assert_rel(t16.time_s - launch, waves * tile / (0.89 * 792.1e12 / 132) + fix, 1e-9);
    assert_rel(t8.time_s - launch, waves * tile / (1280e12 / 132) + fix, 1e-9);
    /* fp8's main loop gains 1280 / 704.97 = 1.82x, not the 2x of the datasheet peaks */
    assert_rel((t16.time_s - launch - fix) / (t8.time_s - launch - fix), 1280 / (0.89 * 792.1),
               1e-9);
    assert_int_equal(t8.compute_bound, 1);
    assert_int_equal(t16.compute_bound, 1);
    /* the efficiency reported is against the dense peak, launch included */
    assert_rel(t16.eff, 2.0 * 8192.0 * 8192.0 * 8192.0 / (989.4e12 * t16.time_s), 1e-12);

    /* a whole step: GEMMs get faster (attention stays in bf16); Transformer Engine keeps
     * its fp8 linears' inputs as their 1 B casts (model/memory.c, linear_input_bytes): per
     * token and layer the two norm outputs (2 x 4096) and the down projection's input
     * (11008) lose a byte each, the attention output gains its 1 B copy beside the 16-bit
     * one cuDNN keeps (4096): 15,104 B less x 4096 tokens x 32 layers = 1.84375 GiB */
    struct aug_model m = preset("llama2-7b");
    struct aug_plan p16, p8;
    const struct pcase c = {"llama2-7b", 8, 1, 1, 1, 1, 1, 1, 64, 0, 0, AUG_FSDP_NONE,
                            AUG_RECOMPUTE_NONE, 1, 1};
    assert_int_equal(make_plan(&c, &m, &h100, &p16), AUG_OK);
    assert_int_equal(make_plan(&c, &m, &h100, &p8), AUG_OK);
    p8.dtype = AUG_DTYPE_FP8;
    assert_int_equal(aug_plan_resolve(&p8, &m, &h100), AUG_OK);
    struct aug_train_result r16 = predict_opt(&m, &h100, &p16, NULL, 0);
    struct aug_train_result r8 = predict_opt(&m, &h100, &p8, NULL, 0);
    assert_true(r8.step_time_s < r16.step_time_s);
    assert_true(r8.step_time_s > 0.5 * r16.step_time_s);
    assert_true(r8.breakdown.compute_s < r16.breakdown.compute_s);
    assert_rel(r16.memory.activations_gib - r8.memory.activations_gib,
               15104.0 * 4096.0 * 32.0 / 1073741824.0, 1e-9);
    assert_rel(r16.memory.activations_gib - r8.memory.activations_gib, 1.84375, 1e-9);
    assert_rel(r8.model_flops, r16.model_flops, 1e-12);
    /* MFU is against the peak of the compute dtype */
    assert_rel(r8.mfu, r8.model_flops / (r8.step_time_s * 1978.9e12 * 8.0), 1e-12);
    assert_rel(r16.mfu, r16.model_flops / (r16.step_time_s * 989.4e12 * 8.0), 1e-12);
}

static void test_memory_fit_and_zero(void **state) {
    (void)state;
    /* GPT-3 175B on one DGX H100 with plain data parallelism: 175e9 x 16 bytes per GPU */
    struct aug_model m = preset("gpt3-175b");
    const struct pcase big = {"gpt3-175b", 8, 1, 1, 1, 1, 1, 1, 8, 0, 0, AUG_FSDP_NONE,
                              AUG_RECOMPUTE_FULL, 1, 1};
    struct aug_plan p;
    assert_int_equal(make_plan(&big, &m, &h100, &p), AUG_OK);
    struct aug_train_result r = predict_opt(&m, &h100, &p, NULL, 0);
    assert_int_equal(r.fits_in_memory, 0);
    assert_true(r.memory.total_gib > 16.0 * 174e9 / AUG_GIB);
    assert_near(r.memory_capacity_gib, h100.gpu.hbm_gib, 0);
    /* ZeRO stages shrink the footprint step by step */
    double prev = INFINITY;
    for (int z = 0; z <= 3; z++) {
        p.zero = z;
        assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
        struct aug_train_memory mem;
        aug_train_memory(&m, &h100, &p, &mem);
        if (!(mem.total_gib < prev))
            fail_msg("ZeRO-%d: %g GiB is not below %g", z, mem.total_gib, prev);
        prev = mem.total_gib;
    }
    /* a 1.3B-class model fits on 8 GPUs */
    struct aug_model s = gpt(24, 2048, 16);
    const struct pcase small = {"", 8, 1, 1, 1, 1, 1, 1, 64, 0, 0, AUG_FSDP_NONE,
                                AUG_RECOMPUTE_NONE, 1, 1};
    assert_int_equal(make_plan(&small, &s, &h100, &p), AUG_OK);
    r = predict_opt(&s, &h100, &p, NULL, 0);
    assert_int_equal(r.fits_in_memory, 1);
}

/* Per-op times the predictor would use for the TP group of 8 on one DGX. */
static double op_coll(enum aug_coll c, double size, int ranks, int per_domain) {
    struct aug_op_ctx ctx = {&h100, NULL, 0};
    struct aug_op op = aug_op_collective("x", c, size, ranks, per_domain);
    struct aug_op_time t;
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    return t.time_s;
}

/* One bf16 GEMM's time on the H100 of these tests (fallback model, as the graph times it). */
static double op_gemm(double mm, double n, double k) {
    struct aug_op_ctx ctx = {&h100, NULL, 0};
    struct aug_op op = aug_op_gemm("x", AUG_DTYPE_BF16, mm, n, k, 1);
    struct aug_op_time t;
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    return t.time_s;
}

static struct aug_train_result tp8(const struct aug_model *m, int sp, enum aug_recompute rc,
                                   struct aug_plan *p) {
    aug_plan_init(p);
    p->gpus = 8;
    p->tp = 8;
    p->micro_batch = 2;
    p->global_batch = 8;
    p->seq = 2048;
    p->sp = sp;
    p->recompute = rc;
    if (aug_plan_resolve(p, m, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    return predict_opt(m, &h100, p, NULL, 0);
}

static void test_tp_collective_count(void **state) {
    (void)state;
    struct aug_model m = gpt(24, 4096, 32);
    struct aug_plan p;
    /* T = b s = 4096 tokens; each collective moves T h x 2 bytes (32 MiB) */
    double T = 2.0 * 2048.0, act = T * 4096.0 * 2.0;
    double ar = op_coll(AUG_COLL_ALL_REDUCE, act, 8, 8);
    double ce = op_coll(AUG_COLL_ALL_REDUCE, 3.0 * T * 4.0, 8, 8); /* max, sum, target logit */
    double nmb = 4.0, L = 24.0;

    /* no SP: 2 all-reduces forward + 2 backward per layer; the vocabulary-parallel
     * embedding (forward) and LM head (backward) add one each; cross-entropy one small */
    struct aug_train_result r = tp8(&m, 0, AUG_RECOMPUTE_NONE, &p);
    assert_int_equal(r.microbatches, 4);
    assert_rel(r.breakdown.tp_comm_s, nmb * (4.0 * L * ar + 2.0 * ar + ce), 1e-12);
    /* hand check of one all-reduce: a ring inside the NVLink domain (NCCL builds trees
     * only across nodes), 14 steps x 1.9 us + 32 MiB x 1.75 / (450 GB/s x 0.77) */
    assert_rel(ar, 14.0 * 1.9e-6 + act * 1.75 / 346.5e9, 1e-12);

    /* full recomputation repeats the forward, its two all-reduces per layer included */
    r = tp8(&m, 0, AUG_RECOMPUTE_FULL, &p);
    assert_rel(r.breakdown.tp_comm_s, nmb * (6.0 * L * ar + 2.0 * ar + ce), 1e-12);

    /* SP: all-gather + reduce-scatter twice each way per layer, each of the full T h; and
     * the backward all-gathers the saved input shard of the QKV and MLP-up linears again
     * for their weight gradients (Korthikanti et al. 2022 sec. 4.2.2), beside their
     * data-gradient GEMMs (T x h x 3h/8 and T x h x 4h/8): only what outlasts the GEMM,
     * slowed by the comm slowdown s while both run, is exposed (overlap.c pair:
     * max(ag, c + ag s / (1 + s)) - c) */
    double ag = op_coll(AUG_COLL_ALL_GATHER, act, 8, 8);
    double rs = op_coll(AUG_COLL_REDUCE_SCATTER, act, 8, 8);
    r = tp8(&m, 1, AUG_RECOMPUTE_NONE, &p);
    double sl = p.comm_slowdown, exposed = 0.0;
    const double kdim[2] = {3.0 * 4096.0 / 8.0, 4.0 * 4096.0 / 8.0};
    for (int i = 0; i < 2; i++) {
        double c = op_gemm(T, 4096.0, kdim[i]);
        exposed += fmax(ag, c + ag * sl / (1.0 + sl)) - c;
    }
    assert_true(exposed > 0.0 && exposed < 2.0 * ag);
    assert_rel(r.breakdown.tp_comm_s,
               nmb * (4.0 * L * (ag + rs) + rs + ag + rs + ce + L * exposed), 1e-12);
    /* with latency aside an all-gather plus a reduce-scatter move what one all-reduce does */
    assert_rel((ag - 7.0 * 1.9e-6) + (rs - 7.0 * 1.9e-6), ar - 14.0 * 1.9e-6, 1e-12);
}

/* `augur train --ops`: the rows are the prediction itself. The op rows of the slowest
 * stage and the schedule rows add up to the step time for every plan (an overlapped
 * collective counts only what its group exposes; Megatron-Core's merged EP schedule gives
 * back a negative row), and a row carries the hand-countable numbers of its op. */
static void check_rows(const char *what, const struct aug_train_result *r,
                       const struct aug_train_op_report *ops, int n) {
    double sum = 0.0, share = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(ops[i].count > 0) || !(ops[i].time_s == ops[i].time_s))
            fail_msg("%s: row %d (%s %s) count %g time %g", what, i, ops[i].list,
                     ops[i].name, ops[i].count, ops[i].time_s);
        if (!ops[i].on_slowest_stage)
            continue;
        sum += ops[i].step_s;
        share += ops[i].share;
    }
    if (fabs(sum / r->step_time_s - 1.0) > 1e-9)
        fail_msg("%s: rows add up to %.9g s, the step is %.9g s", what, sum, r->step_time_s);
    assert_near(share, 1.0, 1e-9);
}

static void test_ops_report(void **state) {
    (void)state;
    static struct aug_train_op_report ops[AUG_TRAIN_OPS_MAX];
    int n = 0;
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    for (size_t i = 0; i < N_CASES; i++) {
        struct aug_model m = preset(cases[i].model);
        struct aug_plan p;
        if (make_plan(&cases[i], &m, &h100, &p) != AUG_OK)
            fail_msg("case %zu: %s", i, aug_last_error());
        struct aug_train_result r, plain = predict_opt(&m, &h100, &p, NULL, 0);
        if (aug_train_ops(&m, &h100, &p, &o, &r, ops, AUG_TRAIN_OPS_MAX, &n) != AUG_OK)
            fail_msg("case %zu: %s", i, aug_last_error());
        assert_true(r.step_time_s == plain.step_time_s); /* the same prediction */
        char what[64];
        snprintf(what, sizeof what, "case %zu (%s)", i, cases[i].model);
        check_rows(what, &r, ops, n);
        /* recomputation lists what it repeats: the attention core when selective (the
         * default module: the fused kernel, or QK^T, softmax, dropout and AV unfused, not
         * the projections), nothing without it */
        int rec = 0;
        for (int j = 0; j < n; j++)
            if (strcmp(ops[j].list, "recompute") == 0) {
                rec++;
                if (cases[i].rc == AUG_RECOMPUTE_SELECTIVE &&
                    (strncmp(ops[j].name, "attn_", 5) != 0 || !strcmp(ops[j].name, "attn_out")))
                    fail_msg("%s: selective recomputation lists %s", what, ops[j].name);
            }
        assert_true((rec > 0) == (cases[i].rc != AUG_RECOMPUTE_NONE));
    }

    /* Megatron-Core's EP all-to-all overlap hides part of the layer: a negative row */
    struct aug_model mx = preset("mixtral-8x7b");
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 64;
    p.tp = 2;
    p.pp = 2;
    p.interleave = 2;
    p.ep = 8;
    p.sp = 1;
    p.micro_batch = 1;
    p.global_batch = 64;
    p.seq = 4096;
    p.moe_overlap = AUG_MOE_OVERLAP_BATCH;
    if (aug_plan_resolve(&p, &mx, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    struct aug_train_result r;
    assert_int_equal(aug_train_ops(&mx, &h100, &p, &o, &r, ops, AUG_TRAIN_OPS_MAX, &n), AUG_OK);
    check_rows("mixtral ep overlap", &r, ops, n);
    int hidden = 0;
    double h_default = 0.0;
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].name, "ep_a2a_overlap") == 0) {
            hidden |= ops[i].step_s < 0.0;
            h_default = ops[i].step_s;
        }
    assert_true(hidden);
    /* a run shows moe_overlap_realized of what the schedule hides (0.39 by default, fitted
     * on the ModelZoo Qwen3 pair: efficiency.c): the full schedule hides 1 / 0.39 as much,
     * none hides nothing and leaves the step of the plan without the overlap */
    assert_rel(p.moe_overlap_realized, 0.39, 0);
    double hidden_at[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++) {
        struct aug_plan q = p;
        q.moe_overlap_realized = k ? 1.0 : 0.0;
        struct aug_train_result rq;
        assert_int_equal(aug_train_ops(&mx, &h100, &q, &o, &rq, ops, AUG_TRAIN_OPS_MAX, &n),
                         AUG_OK);
        for (int i = 0; i < n; i++)
            if (strcmp(ops[i].name, "ep_a2a_overlap") == 0)
                hidden_at[k] = ops[i].step_s;
        if (!k) {
            struct aug_plan none = p;
            none.moe_overlap = AUG_MOE_OVERLAP_NONE;
            assert_rel(rq.step_time_s, predict_opt(&mx, &h100, &none, NULL, 0).step_time_s, 1e-12);
        }
    }
    assert_true(hidden_at[0] == 0.0);
    assert_rel(h_default, 0.39 * hidden_at[1], 1e-9);
    /* with two stages the slowest one runs either the embedding or the head, not both */
    int first_on = 0, last_on = 0;
    for (int i = 0; i < n; i++) {
        first_on |= ops[i].on_slowest_stage && strncmp(ops[i].list, "first.", 6) == 0;
        last_on |= ops[i].on_slowest_stage && strncmp(ops[i].list, "last.", 5) == 0;
    }
    assert_true(first_on + last_on == 1);

    /* by hand: GPT, 24 layers, h 4096, TP 8, micro-batch 2 x seq 2048 = T 4096 tokens,
     * global batch 8 on 8 GPUs: 4 micro-batches. The QKV GEMM runs 24 x 4 = 96 times an
     * iteration, each 2 T h (3h / 8) FLOPs; the LM head once per micro-batch, 2 T h
     * (51200 / 8) FLOPs; with TP 8 and no SP every layer's forward all-reduces twice */
    struct aug_model g = gpt(24, 4096, 32);
    tp8(&g, 0, AUG_RECOMPUTE_NONE, &p);
    assert_int_equal(aug_train_ops(&g, &h100, &p, &o, &r, ops, AUG_TRAIN_OPS_MAX, &n), AUG_OK);
    check_rows("gpt tp8", &r, ops, n);
    int qkv = 0, head = 0, ar = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(ops[i].list, "fwd") == 0 && strcmp(ops[i].name, "qkv") == 0) {
            assert_rel(ops[i].count, 96.0, 1e-12);
            assert_rel(ops[i].flops, 2.0 * 4096.0 * 4096.0 * 3.0 * 4096.0 / 8.0, 1e-12);
            assert_rel(ops[i].step_s, ops[i].count * ops[i].time_s, 1e-12);
            assert_true(ops[i].on_slowest_stage && !ops[i].overlapped);
            assert_string_equal(ops[i].kind, "gemm");
            qkv++;
        }
        if (strcmp(ops[i].list, "last.fwd") == 0 && strcmp(ops[i].name, "lm_head") == 0) {
            assert_rel(ops[i].count, 4.0, 1e-12);
            assert_rel(ops[i].flops, 2.0 * 4096.0 * 4096.0 * 51200.0 / 8.0, 1e-12);
            head++;
        }
        if (strcmp(ops[i].list, "fwd") == 0 && strcmp(ops[i].kind, "collective") == 0)
            ar += (int)(ops[i].count / 96.0 + 0.5);
    }
    assert_int_equal(qkv, 1);
    assert_int_equal(head, 1);
    assert_int_equal(ar, 2);
    /* too few rows is an error, not a cut report */
    assert_int_equal(aug_train_ops(&g, &h100, &p, &o, &r, ops, 3, &n), AUG_EUSAGE);
}

/* DeepSpeed's 2021 ZeRO-3 (zero3_serial.h) on GPT-3 175B, 64 H100s, ZeRO-3 over all 64,
 * full recomputation, one micro-batch. Counted by hand: the layer's weights of at least 1e5
 * elements are QKV (3h x h), the output projection (h x h) and the MLP (4h x h twice);
 * each is gathered for the forward, the recomputed forward and the backward and its
 * gradient reduce-scattered, all at 1 / 0.324 of the collective model's time, 96 layers;
 * the tied embedding (50257 x h) and the learned positions (2048 x h) are each gathered
 * twice and reduce-scattered once. The layer's
 * compute is unchanged, so the step grows by that sum minus the prefetch's exposed part. */
static void test_zero3_serial(void **state) {
    (void)state;
    struct aug_model m = preset("gpt3-175b");
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 64;
    p.micro_batch = 1;
    p.global_batch = 64;
    p.seq = 2048;
    p.zero = 3;
    p.dtype = AUG_DTYPE_BF16;
    p.recompute = AUG_RECOMPUTE_FULL;
    p.cuda_graphs = 1;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    struct aug_train_result pre = predict_opt(&m, &h100, &p, NULL, 0);
    p.zero3_gather = AUG_ZERO3_SERIAL;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    struct aug_train_result ser = predict_opt(&m, &h100, &p, NULL, 0);

    const double h = 12288.0, e = 2.0;
    const double tensors[] = {3.0 * h * h, h * h, 4.0 * h * h, 4.0 * h * h};
    double layer = 0.0;
    struct aug_coll_time ag, rs;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_GATHER, tensors[i] * e, 64, 8,
                                       AUG_ALGO_AUTO, &ag), AUG_OK);
        assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_REDUCE_SCATTER, tensors[i] * e, 64,
                                       8, AUG_ALGO_AUTO, &rs), AUG_OK);
        layer += 3.0 * ag.time_s + rs.time_s;
    }
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_GATHER, 50257.0 * h * e, 64, 8,
                                   AUG_ALGO_AUTO, &ag), AUG_OK);
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_REDUCE_SCATTER, 50257.0 * h * e, 64, 8,
                                   AUG_ALGO_AUTO, &rs), AUG_OK);
    double ends = 2.0 * ag.time_s + rs.time_s;
    /* GPT-3's learned position embeddings (2048 x h) the same way */
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_GATHER, 2048.0 * h * e, 64, 8,
                                   AUG_ALGO_AUTO, &ag), AUG_OK);
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_REDUCE_SCATTER, 2048.0 * h * e, 64, 8,
                                   AUG_ALGO_AUTO, &rs), AUG_OK);
    ends += 2.0 * ag.time_s + rs.time_s;
    double expect = (96.0 * layer + ends) / 0.324;
    assert_near(ser.breakdown.dp_comm_s / expect, 1.0, 1e-9);
    /* at least the bandwidth part at the full 8 x 400 Gb/s of a DGX H100 node: four
     * passes over the layers' 96 x 12 h^2 weights and three over the embedding, 2 B each,
     * 63/64 of it through the NICs, over 0.324: 10.7 s; ring latency and the NICs'
     * efficiency add the rest (13.5 s) */
    double volume = (4.0 * 96.0 * 12.0 * h * h + 3.0 * 50257.0 * h) * e * 63.0 / 64.0;
    assert_true(expect > volume / 400e9 / 0.324 && expect < 16.0);
    assert_near(ser.step_time_s - pre.step_time_s,
                ser.breakdown.dp_comm_s - pre.breakdown.dp_comm_s, 1e-9);
    assert_true(ser.breakdown.compute_s == pre.breakdown.compute_s);

    /* the fitted share can be replaced (benchmarks/bench_zero3_fit.c fits it) */
    struct aug_train_options half = {NULL, 0, NULL, 0.5};
    struct aug_train_result r5;
    assert_int_equal(aug_train_predict(&m, &h100, &p, &half, &r5), AUG_OK);
    assert_near(r5.breakdown.dp_comm_s / ser.breakdown.dp_comm_s, 0.324 / 0.5, 1e-9);

    /* without recomputation two gathers per tensor */
    p.recompute = AUG_RECOMPUTE_NONE;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    struct aug_train_result nr = predict_opt(&m, &h100, &p, NULL, 0);
    assert_true(nr.breakdown.dp_comm_s < ser.breakdown.dp_comm_s);

    /* refused: another ZeRO stage, FSDP, pipeline parallelism, an MoE model */
    struct aug_plan q = p;
    q.zero = 1;
    assert_int_equal(aug_plan_resolve(&q, &m, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "--zero 3"));
    q = p;
    q.fsdp = AUG_FSDP_FULL;
    q.zero = 0;
    assert_int_equal(aug_plan_resolve(&q, &m, &h100), AUG_EUSAGE);
    q = p;
    q.pp = 2;
    q.dp = 0;
    assert_int_equal(aug_plan_resolve(&q, &m, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "pipeline"));
    struct aug_model mx = preset("mixtral-8x7b");
    q = p;
    q.dp = 0;
    assert_int_equal(aug_plan_resolve(&q, &mx, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "mixtral-8x7b"));
}

/* Without SP, Megatron all-reduces a column-parallel linear's input gradient
 * asynchronously and computes its weight gradient meanwhile
 * (LinearWithGradAccumulationAndAsyncCommunication.backward): per layer the QKV and MLP-up
 * all-reduces (T h x 2 bytes over TP 8) each pair with their weight-gradient GEMM (T x h
 * x 3h/8 and T x h x 4h/8). A pair shows max(M, C + M s / (1 + s)) - C of its all-reduce
 * (overlap.c, s the comm slowdown), so the step is shorter by 4 micro-batches x 24 layers
 * x the sum over the two pairs of M minus that. CUDA graphs: no host timeline. */
static void test_tp_async_allreduce(void **state) {
    (void)state;
    struct aug_model m = gpt(24, 4096, 32);
    struct aug_plan p;
    tp8(&m, 0, AUG_RECOMPUTE_NONE, &p);
    p.cuda_graphs = 1;
    struct aug_train_result off = predict_opt(&m, &h100, &p, NULL, 0);
    p.tp_async_allreduce = 1;
    struct aug_train_result on = predict_opt(&m, &h100, &p, NULL, 0);
    double T = 2.0 * 2048.0, M = op_coll(AUG_COLL_ALL_REDUCE, T * 4096.0 * 2.0, 8, 8);
    double sl = p.comm_slowdown, saved = 0.0;
    const double n[2] = {3.0 * 4096.0 / 8.0, 4.0 * 4096.0 / 8.0};
    for (int i = 0; i < 2; i++) {
        double C = op_gemm(n[i], 4096.0, T); /* grad_output^T x input: n x h over T */
        saved += M - (fmax(M, C + M * sl / (1.0 + sl)) - C);
    }
    assert_true(saved > 0.0 && saved < 2.0 * M);
    assert_rel(off.step_time_s - on.step_time_s, 4.0 * 24.0 * saved, 1e-9);
    assert_rel(off.breakdown.tp_comm_s - on.breakdown.tp_comm_s, 4.0 * 24.0 * saved, 1e-9);
    /* with SP the input gradient is reduce-scattered instead: nothing changes */
    struct aug_plan q;
    tp8(&m, 1, AUG_RECOMPUTE_NONE, &q);
    struct aug_train_result a = predict_opt(&m, &h100, &q, NULL, 0);
    q.tp_async_allreduce = 1;
    struct aug_train_result b = predict_opt(&m, &h100, &q, NULL, 0);
    assert_true(a.step_time_s == b.step_time_s);
}

static void test_calibrated_share(void **state) {
    (void)state;
    /* a kdb with only an 8-rank NVLink all-reduce curve: with tp 8, dp 1 and pp 1 exactly
     * the TP all-reduces come from it, so the calibrated share is tp_comm_s / step */
    FILE *f = fopen(curves_path, "w");
    assert_non_null(f);
    fputs("family,op,dtype,ranks,link,form,p0,p1,x_min,x_max\n"
          "collective,all_reduce,bf16,8,nvlink,linear,15,4e-6,1024,1073741824\n", f);
    fclose(f);
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(tmp_root, "h100-80g", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 1);
    struct aug_model m = gpt(24, 4096, 32);
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.tp = 8;
    p.micro_batch = 2;
    p.global_batch = 8;
    p.seq = 2048;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    struct aug_train_result r = predict_opt(&m, &h100, &p, k, 0);
    check_invariants("calibrated", &r);
    assert_rel(r.provenance.calibrated, r.breakdown.tp_comm_s / r.step_time_s, 1e-12);
    assert_rel(r.provenance.fallback, 1.0 - r.breakdown.tp_comm_s / r.step_time_s, 1e-12);
    /* the curve's time per all-reduce: 15 us + 4e-6 us per byte of the 32 MiB buffer;
     * the loss all-reduce moves 3 fp32 values per token (48 KiB) */
    double act = 4096.0 * 4096.0 * 2.0;
    double ar = (15.0 + 4e-6 * act) * 1e-6, ce = (15.0 + 4e-6 * 3.0 * 4096.0 * 4.0) * 1e-6;
    assert_rel(r.breakdown.tp_comm_s, 4.0 * (4.0 * 24.0 * ar + 2.0 * ar + ce), 1e-12);
    /* pure roofline ignores curves */
    struct aug_train_result rr = predict_opt(&m, &h100, &p, k, 1);
    assert_near(rr.provenance.calibrated, 0, 0);
    aug_kdb_close(k);
}

static void test_scaling_sanity(void **state) {
    (void)state;
    /* twice the data-parallel GPUs for the same batch: a faster step, more total tokens/s */
    struct aug_model m = preset("llama2-7b");
    const struct pcase c8 = {"llama2-7b", 8, 1, 1, 1, 1, 1, 1, 64, 0, 0, AUG_FSDP_NONE,
                             AUG_RECOMPUTE_NONE, 1, 1};
    const struct pcase c16 = {"llama2-7b", 16, 1, 1, 1, 1, 1, 1, 64, 0, 0, AUG_FSDP_NONE,
                              AUG_RECOMPUTE_NONE, 1, 1};
    struct aug_plan p8, p16;
    assert_int_equal(make_plan(&c8, &m, &h100, &p8), AUG_OK);
    assert_int_equal(make_plan(&c16, &m, &h100, &p16), AUG_OK);
    struct aug_train_result r8 = predict_opt(&m, &h100, &p8, NULL, 0);
    struct aug_train_result r16 = predict_opt(&m, &h100, &p16, NULL, 0);
    assert_true(r16.step_time_s < r8.step_time_s);
    assert_true(r16.tokens_per_s > r8.tokens_per_s);
    assert_int_equal(r16.dp_crosses_network, 1);
    assert_int_equal(r8.dp_crosses_network, 0);
    /* H100 beats A100 on the same plan */
    struct aug_plan pa;
    assert_int_equal(make_plan(&c8, &m, &a100, &pa), AUG_OK);
    struct aug_train_result ra = predict_opt(&m, &a100, &pa, NULL, 0);
    assert_true(r8.step_time_s < ra.step_time_s);
    /* turning gradient overlap off never helps */
    p16.dp_overlap = 0;
    struct aug_train_result rn = predict_opt(&m, &h100, &p16, NULL, 0);
    assert_true(rn.step_time_s >= r16.step_time_s);
    assert_true(rn.breakdown.dp_comm_s > r16.breakdown.dp_comm_s);
}

/* Context parallelism with tp 4 and cp 4 on 8-GPU nodes: ranks map TP innermost, then CP
 * (plan.h), so the CP ring's members sit on ranks 0, 4, 8, 12, two per node, and two of
 * its four ring links cross the network. Each ring step waits for the slowest link, so
 * the exchange must cost more than on a 16-GPU NVLink domain where the ring never leaves
 * NVLink. */
static void test_cp_ring_crossing_nodes(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-7b");
    struct aug_system big = h100;
    big.gpus_per_node = 16;
    big.nvlink_domain = 16;
    struct aug_train_result r[2];
    for (int i = 0; i < 2; i++) {
        const struct aug_system *s = i ? &big : &h100;
        struct aug_plan p;
        aug_plan_init(&p);
        p.gpus = 16;
        p.tp = 4;
        p.cp = 4;
        p.micro_batch = 1;
        p.global_batch = 8;
        p.seq = 4096;
        assert_int_equal(aug_plan_resolve(&p, &m, s), AUG_OK);
        r[i] = predict_opt(&m, s, &p, NULL, 0);
    }
    /* one K,V block: 2 x 1024 tokens x 8 local heads x 128 x 2 bytes = 4 MiB */
    double kv = 2.0 * 1024.0 * 8.0 * 128.0 * 2.0;
    if (!(r[0].breakdown.cp_comm_s > r[1].breakdown.cp_comm_s))
        fail_msg("cp 4 ring over two 8-GPU nodes: cp_comm %.6g s, not above the %.6g s of one "
                 "16-GPU NVLink domain (a 4 MiB block takes %.3g s over the network, %.3g s "
                 "over NVLink)", r[0].breakdown.cp_comm_s, r[1].breakdown.cp_comm_s,
                 4e-6 + kv / 45e9, 1.9e-6 + kv / (450e9 * 0.77));
}

/* MatMul-free LMs train like any other model now (their own graph: tests/test_matmulfree.c):
 * the invariants hold, and accumulate-only ternary layers on the CUDA cores are slower than
 * the same layers run as tensor-core GEMMs. */
static void test_matmulfree_training_predicts(void **state) {
    (void)state;
    struct aug_model m = preset("matmulfree-370m");
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.global_batch = 64;
    p.micro_batch = 8;
    p.ternary = AUG_TERNARY_ACCUMULATE;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    struct aug_train_result acc = predict_opt(&m, &h100, &p, NULL, 0);
    check_invariants("matmulfree accumulate", &acc);
    p.ternary = AUG_TERNARY_TENSOR;
    struct aug_train_result ten = predict_opt(&m, &h100, &p, NULL, 0);
    check_invariants("matmulfree tensor", &ten);
    assert_true(ten.step_time_s < acc.step_time_s);
    assert_rel(ten.model_flops, acc.model_flops, 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invariants_across_plans),
        cmocka_unit_test(test_more_bandwidth_never_slows),
        cmocka_unit_test(test_fp8_vs_bf16_on_h100),
        cmocka_unit_test(test_memory_fit_and_zero),
        cmocka_unit_test(test_tp_collective_count),
        cmocka_unit_test(test_ops_report),
        cmocka_unit_test(test_tp_async_allreduce),
        cmocka_unit_test(test_zero3_serial),
        cmocka_unit_test(test_calibrated_share),
        cmocka_unit_test(test_scaling_sanity),
        cmocka_unit_test(test_cp_ring_crossing_nodes),
        cmocka_unit_test(test_matmulfree_training_predicts),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
