/* SPDX-License-Identifier: Apache-2.0 */
/* test_sweep.c - design-space exploration (predictor/explore/sweep.c, sweep_infer.c, `augur sweep`):
 * enumeration counts of small spaces worked out by hand in the comments below; every plan
 * returned is valid, fits and carries its own prediction; results do not depend on threads,
 * pruning or the split into parts; a fully pinned space is exactly `augur train`; doubling
 * every bandwidth never slows a plan; the CLI's JSON keys, CSV and plot; and
 * `mpirun -n 2 augur sweep` gives the single-process answer (skipped without mpirun). */
#include "aug_test.h"

#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "augur/augur.h"
#include "augur/scaling.h"
#include "augur/sweep.h"

extern char **environ;

/* A 4-layer GPT-style model small enough that every plan fits on an 80 GB GPU: 4 heads,
 * hidden 256, sequence 128 (FlashAttention by default). */
static void tiny_model(struct aug_model *m, long layers) {
    aug_model_init(m);
    snprintf(m->name, sizeof m->name, "tiny");
    m->layers = layers;
    m->hidden = 256;
    m->heads = 4;
    m->kv_heads = 4;
    m->ffn_hidden = 1024;
    m->vocab = 1000;
    m->max_seq = 128;
    assert_int_equal(aug_model_finish(m, "tiny"), AUG_OK);
}

/* The same with 4 experts, top-2 routing, in every layer. */
static void tiny_moe(struct aug_model *m) {
    tiny_model(m, 4);
    m->arch = AUG_ARCH_MOE;
    m->moe_experts = 4;
    m->moe_topk = 2;
    m->moe_capacity_factor = 1.0;
    assert_int_equal(aug_model_finish(m, "tiny-moe"), AUG_OK);
}

static void load_system(const char *name, struct aug_system *s) {
    if (aug_system_load(NULL, name, s) != AUG_OK)
        fail_msg("%s", aug_last_error());
}

static void config(struct aug_sweep_config *c, const struct aug_model *m, const struct aug_system *s,
                   long gpus, long gb) {
    memset(c, 0, sizeof *c);
    c->model = m;
    c->system = s;
    aug_plan_init(&c->base);
    c->base.gpus = gpus;
    c->base.global_batch = gb;
    aug_sweep_space_init(&c->space);
    c->top_k = 10;
    c->threads = 1;
}

/* A space without SP, ZeRO, FSDP or context parallelism whose every plan is kept in the
 * top list: what a plan option (recompute modules, MoE overlap) adds or removes shows in
 * the count and in each plan. */
static void keep_all_unsharded(struct aug_sweep_config *c) {
    c->space.sp = 0;
    c->space.zero = 0;
    c->space.fsdp = AUG_FSDP_NONE;
    c->space.cp = 1;
    c->top_k = AUG_SWEEP_MAX_TOP;
}

/* Pin the layout knobs: tp, pp, interleave, micro-batch, SP; no context parallelism. */
static void pin_layout(struct aug_sweep_config *c, long tp, long pp, long v, long mb, int sp) {
    c->space.tp = tp;
    c->space.pp = pp;
    c->space.cp = 1;
    c->space.interleave = v;
    c->space.micro_batch = mb;
    c->space.sp = sp;
}

static uint64_t count(const struct aug_sweep_config *c, uint64_t *fit) {
    uint64_t valid = 0;
    if (aug_sweep_count(c, &valid, fit) != AUG_OK)
        fail_msg("%s", aug_last_error());
    return valid;
}

/* 8 GPUs (one DGX A100 node, NVLink domain 8), global batch 8, 4 layers, 4 heads, seq 128.
 * tp in {1, 2, 4} (divides 8 and the 4 heads); cp any divisor of 8/tp (128 divides);
 * pp in {1, 2, 4} dividing 8/(tp cp); dp the rest; micro-batches: the divisors of 8/dp
 * (dp 8: 1, dp 4: 2, dp 2: 3, dp 1: 4 values); interleave 2 only with pp 2 (4 layers /
 * (2*2)) and an even number of micro-batches 8/(mb dp), i.e. mb < 8/dp. Per (tp, cp):
 *   tp 1: cp 1: dp 8,4,2 at pp 1,2,4 -> 1 + (2+1) + 3 = 7; cp 2: dp 4,2,1 -> 2 + (3+2) + 4
 *         = 11; cp 4: dp 2,1 -> 3 + (4+3) = 10; cp 8: dp 1 -> 4.           tp 1: 32
 *   tp 2: cp 1: dp 4,2,1 -> 2 + 5 + 4 = 11; cp 2: dp 2,1 -> 3 + 7 = 10; cp 4: 4.  tp 2: 25
 *   tp 4: cp 1: dp 2,1 -> 3 + 7 = 10; cp 2: dp 1 -> 4.                          tp 4: 14
 * = 71 plans with SP off, no recomputation, ZeRO 0 and ring attention across CP. Of those,
 * dp > 1: 17 + 10 + 3 = 30; cp = 1: 7 + 11 + 10 = 28, so 43 have cp > 1. */
static void test_counts_by_hand(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    tiny_model(&m, 4);
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 8, 8);
    c.space.sp = 0;
    c.space.recompute = AUG_RECOMPUTE_NONE;
    c.space.zero = 0;
    c.space.fsdp = AUG_FSDP_NONE;
    c.space.cp_algo = AUG_CP_RING;
    uint64_t fit;
    assert_int_equal(count(&c, &fit), 71);
    assert_int_equal(fit, 71); /* a 4-layer toy fits anywhere */

    /* every CP algorithm where cp > 1: ring and all-gather always (43 each), Ulysses where
     * heads/tp divide by cp: tp 1 cp 2 (11), tp 1 cp 4 (10), tp 2 cp 2 (10) = 31; with the
     * 28 cp = 1 plans: 28 + 43 + 43 + 31 = 145 */
    c.space.cp_algo = -1;
    assert_int_equal(count(&c, NULL), 145);
    c.space.cp_algo = AUG_CP_RING;

    /* SP doubles the tp > 1 plans ((128/cp) % tp == 0 always here): 32 + 2 * (25 + 14) */
    c.space.sp = -1;
    assert_int_equal(count(&c, NULL), 110);
    /* recomputation none or full (selective equals none with FlashAttention): x2 */
    c.space.recompute = -1;
    assert_int_equal(count(&c, NULL), 220);
    /* the unfused attention path adds selective: x3 */
    c.base.flash_attention = 0;
    assert_int_equal(count(&c, NULL), 330);
    c.base.flash_attention = 1;

    /* ZeRO 0-3 where dp > 1 (one node: FSDP hybrid would shard like full sharding, so it
     * is never listed): 4 * 30 + (71 - 30) = 161 */
    c.space.sp = 0;
    c.space.recompute = AUG_RECOMPUTE_NONE;
    c.space.zero = -1;
    c.space.fsdp = -1;
    assert_int_equal(count(&c, NULL), 161);

    /* pins and bounds */
    c.space.zero = 0;
    c.space.fsdp = AUG_FSDP_NONE;
    c.space.tp = 2;
    assert_int_equal(count(&c, NULL), 25);
    c.space.tp = 0;
    c.space.max_tp = 2;
    assert_int_equal(count(&c, NULL), 32 + 25);
    c.space.max_tp = 0;
    c.space.max_cp = 1; /* tp 1: 7, tp 2: 11, tp 4: 10 */
    assert_int_equal(count(&c, NULL), 28);
}

/* 6 layers on 4 GPUs, batch 4, tp = cp = mb = 1 pinned. Even splits: pp 1 (dp 4, one plan)
 * and pp 2 (dp 2, 2 micro-batches; v = 1 or 3 since 6 % (2*3) == 0, not 2) = 3 plans.
 * Uneven splits add pp 4 (dp 1; v = 1 only, 4*2 > 6 layers) and v = 2 at pp 2: 5 plans. */
static void test_counts_uneven_pipeline(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    tiny_model(&m, 6);
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 4, 4);
    c.space.tp = c.space.cp = c.space.micro_batch = 1;
    c.space.sp = 0;
    c.space.recompute = AUG_RECOMPUTE_NONE;
    c.space.zero = 0;
    c.space.fsdp = AUG_FSDP_NONE;
    assert_int_equal(count(&c, NULL), 3); /* cp = 1: the CP algorithm plays no part */
    c.space.uneven_pp = 1;
    assert_int_equal(count(&c, NULL), 5);
}

/* MoE with 4 experts on 4 GPUs, tp = cp = pp = 1 pinned: dp 4, ep in the divisors of
 * dp*cp = 4 that divide the experts {1, 2, 4}; micro-batch 1 (batch 4 / dp 4): 3 plans. */
static void test_counts_experts(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    tiny_moe(&m);
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 4, 4);
    c.space.tp = c.space.cp = c.space.pp = 1;
    c.space.sp = 0;
    c.space.recompute = AUG_RECOMPUTE_NONE;
    c.space.zero = 0;
    c.space.fsdp = AUG_FSDP_NONE;
    assert_int_equal(count(&c, NULL), 3);
}

static void run(const struct aug_sweep_config *c, struct aug_sweep_result *r) {
    if (aug_sweep_train(c, r) != AUG_OK)
        fail_msg("%s", aug_last_error());
}

static void check_entries(const struct aug_sweep_config *c, const struct aug_sweep_entry *e, int n) {
    for (int i = 0; i < n; i++) {
        struct aug_plan p = e[i].plan;
        assert_int_equal(aug_plan_resolve(&p, c->model, c->system), AUG_OK);
        assert_int_equal(p.gpus, c->base.gpus);
        assert_int_equal(p.tp * p.pp * p.dp * p.cp, c->base.gpus);
        assert_int_equal(c->base.global_batch % (p.micro_batch * p.dp), 0);
        struct aug_train_memory mem;
        aug_train_memory(c->model, c->system, &p, &mem);
        assert_true(mem.total_gib <= c->system->gpu.hbm_gib);
        assert_true(e[i].result.fits_in_memory);
        struct aug_train_result r;
        assert_int_equal(aug_train_predict(c->model, c->system, &p, &c->options, &r), AUG_OK);
        assert_true(r.step_time_s == e[i].result.step_time_s);
        assert_true(r.memory.total_gib == e[i].result.memory.total_gib);
    }
}

/* Llama 2 70B on 64 A100 80GB, global batch 128. */
static void big_case(struct aug_model *m, struct aug_system *s, struct aug_sweep_config *c) {
    if (aug_model_load(NULL, "llama2-70b", m) != AUG_OK)
        fail_msg("%s", aug_last_error());
    load_system("dgx-a100-80g", s);
    config(c, m, s, 64, 128);
    c->top_k = 20;
}

static void test_returned_plans_are_valid_and_fit(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    big_case(&m, &s, &c);
    struct aug_sweep_result r;
    run(&c, &r);
    assert_true(r.plans_evaluated > 1000);
    assert_true(r.plans_valid > 0 && r.plans_valid < r.plans_evaluated);
    assert_true(r.plans_timed <= r.plans_valid);
    assert_int_equal(r.n_top, 20);
    assert_true(r.n_pareto >= 2);
    check_entries(&c, r.top, r.n_top);
    check_entries(&c, r.pareto, r.n_pareto);
    for (int i = 1; i < r.n_top; i++)
        assert_true(r.top[i - 1].result.step_time_s <= r.top[i].result.step_time_s);
    for (int i = 1; i < r.n_pareto; i++) {
        assert_true(r.pareto[i - 1].result.memory.total_gib < r.pareto[i].result.memory.total_gib);
        assert_true(r.pareto[i - 1].result.step_time_s > r.pareto[i].result.step_time_s);
    }
    /* the fastest plan is on the front, at its memory-hungry end */
    assert_true(r.pareto[r.n_pareto - 1].index == r.top[0].index);
    /* nothing on the front is dominated by a top plan */
    for (int i = 0; i < r.n_pareto; i++)
        for (int j = 0; j < r.n_top; j++)
            assert_false(aug_sweep_dominates(&r.top[j], &r.pareto[i]));
    aug_sweep_result_free(&r);
}

static void same_entries(const struct aug_sweep_entry *a, int na, const struct aug_sweep_entry *b,
                         int nb) {
    assert_int_equal(na, nb);
    for (int i = 0; i < na; i++) {
        assert_true(a[i].index == b[i].index);
        assert_true(a[i].result.step_time_s == b[i].result.step_time_s);
        assert_true(a[i].result.memory.total_gib == b[i].result.memory.total_gib);
        assert_memory_equal(&a[i].plan, &b[i].plan, sizeof a[i].plan);
    }
}

static void test_threads_prune_parts_agree(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    big_case(&m, &s, &c);
    c.no_prune = 1;
    struct aug_sweep_result ref;
    run(&c, &ref);
    assert_true(ref.plans_timed == ref.plans_valid); /* nothing skipped without pruning */
    for (int variant = 0; variant < 3; variant++) {
        c.no_prune = variant == 0;
        c.threads = variant == 0 ? 1 : variant == 1 ? 2 : 3;
        struct aug_sweep_result r;
        run(&c, &r);
        assert_true(r.plans_evaluated == ref.plans_evaluated);
        assert_true(r.plans_valid == ref.plans_valid);
        same_entries(r.top, r.n_top, ref.top, ref.n_top);
        same_entries(r.pareto, r.n_pareto, ref.pareto, ref.n_pareto);
        aug_sweep_result_free(&r);
    }
    /* three parts swept apart and merged, as the MPI ranks do */
    struct aug_sweep_result merged;
    memset(&merged, 0, sizeof merged);
    uint64_t evaluated = 0;
    for (int part = 0; part < 3; part++) {
        c.part = part;
        c.n_parts = 3;
        c.threads = 1;
        struct aug_sweep_result r;
        run(&c, &r);
        evaluated += r.plans_evaluated;
        assert_int_equal(aug_sweep_merge(&merged, c.top_k, r.top, r.n_top), AUG_OK);
        assert_int_equal(aug_sweep_merge(&merged, c.top_k, r.pareto, r.n_pareto), AUG_OK);
        aug_sweep_result_free(&r);
    }
    assert_true(evaluated == ref.plans_evaluated);
    same_entries(merged.top, merged.n_top, ref.top, ref.n_top);
    same_entries(merged.pareto, merged.n_pareto, ref.pareto, ref.n_pareto);
    /* merging a list twice changes nothing */
    assert_int_equal(aug_sweep_merge(&merged, c.top_k, ref.top, ref.n_top), AUG_OK);
    same_entries(merged.top, merged.n_top, ref.top, ref.n_top);
    aug_sweep_result_free(&merged);
    aug_sweep_result_free(&ref);
}

/* Pinning every knob to the GPT-3 175B plan of Narayanan et al. (1,024 A100, tp 8, pp 16,
 * dp 8, 2 interleaved chunks, micro-batch 1, batch 1536, full recomputation, SP off,
 * ZeRO 0) leaves exactly that plan, predicted as `augur train` predicts it. */
static void test_pinned_space_is_train(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    if (aug_model_load(NULL, "gpt3-175b", &m) != AUG_OK)
        fail_msg("%s", aug_last_error());
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 1024, 1536);
    pin_layout(&c, 8, 16, 2, 1, 0);
    c.space.ep = 1;
    c.space.recompute = AUG_RECOMPUTE_FULL;
    c.space.zero = 0;
    c.space.fsdp = AUG_FSDP_NONE;
    struct aug_sweep_result r;
    run(&c, &r);
    assert_true(r.plans_evaluated == 1);
    assert_int_equal(r.n_top, 1);
    assert_int_equal(r.n_pareto, 1);
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 1024;
    p.tp = 8;
    p.pp = 16;
    p.interleave = 2;
    p.micro_batch = 1;
    p.global_batch = 1536;
    p.recompute = AUG_RECOMPUTE_FULL;
    assert_int_equal(aug_plan_resolve(&p, &m, &s), AUG_OK);
    assert_int_equal(p.dp, 8);
    struct aug_train_result t;
    assert_int_equal(aug_train_predict(&m, &s, &p, NULL, &t), AUG_OK);
    assert_true(t.step_time_s == r.top[0].result.step_time_s);
    assert_memory_equal(&p, &r.top[0].plan, sizeof p);
    aug_sweep_result_free(&r);
}

/* Llama 3 70B on 64 H100 at TP 4, PP 2, DP 8, one 8192-token sequence per micro-batch and
 * ZeRO 1 needs 88 GiB per GPU without recomputation and 49 GiB recomputing every layer:
 * the sweep adds the block method's plan that recomputes the fewest layers per chunk that
 * fit (three plans evaluated, two fit), and that plan is the fastest one that fits. */
static void test_fewest_recompute_layers(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    if (aug_model_load(NULL, "llama3-70b", &m) != AUG_OK)
        fail_msg("%s", aug_last_error());
    load_system("dgx-h100", &s);
    config(&c, &m, &s, 64, 128);
    c.base.seq = 8192;
    pin_layout(&c, 4, 2, 1, 1, 1);
    c.space.zero = 1;
    c.space.fsdp = AUG_FSDP_NONE;
    struct aug_sweep_result r;
    run(&c, &r);
    assert_true(r.plans_evaluated == 3);
    assert_true(r.plans_valid == 2);
    check_entries(&c, r.top, r.n_top);
    struct aug_plan p = r.top[0].plan;
    long n = p.recompute_layers;
    assert_int_equal(p.recompute, AUG_RECOMPUTE_FULL);
    assert_true(n > 0 && n < 40); /* 40 layers per chunk */
    struct aug_train_memory mem;
    aug_train_memory(&m, &s, &p, &mem);
    assert_true(mem.total_gib <= s.gpu.hbm_gib);
    p.recompute_layers = n - 1; /* one layer fewer does not fit */
    aug_train_memory(&m, &s, &p, &mem);
    assert_true(mem.total_gib > s.gpu.hbm_gib);
    assert_true(r.top[0].result.step_time_s < r.top[1].result.step_time_s);
    assert_int_equal(r.top[1].plan.recompute_layers, 0);
    aug_sweep_result_free(&r);
}

/* With FlashAttention selective recomputation of the default module equals none and is not
 * enumerated; --recompute-modules makes it a plan of its own: the tiny model's space grows by
 * one selective plan per (none) plan, every selective plan recomputes the named module and
 * no other plan carries it; a module the model lacks is refused before the sweep. */
static void test_sweep_recompute_modules(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    tiny_model(&m, 4);
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 8, 8);
    keep_all_unsharded(&c);
    struct aug_sweep_result r0, r1;
    run(&c, &r0);
    c.base.recompute_modules = AUG_RC_MLP;
    run(&c, &r1);
    assert_true(r1.plans_evaluated == r0.plans_evaluated + r0.plans_evaluated / 2);
    int selective = 0;
    for (int i = 0; i < r1.n_top; i++) {
        const struct aug_plan *p = &r1.top[i].plan;
        if (p->recompute == AUG_RECOMPUTE_SELECTIVE) {
            selective++;
            assert_int_equal(p->recompute_modules, AUG_RC_MLP);
        } else {
            assert_int_equal(aug_plan_rc_modules(p), AUG_RC_CORE_ATTN);
        }
    }
    assert_true(selective > 0);
    check_entries(&c, r1.top, r1.n_top);
    aug_sweep_result_free(&r0);
    aug_sweep_result_free(&r1);
    c.base.recompute_modules = AUG_RC_MLA_UP_PROJ;
    assert_int_equal(aug_sweep_check(&c), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "mla_up_proj"));
}

/* --moe-overlap: every plan of the sweep runs it; those Megatron-Core refuses it for (no
 * expert parallelism, PP without virtual stages, full recomputation) are left out, so the
 * sweep evaluates fewer plans and returns only ones that run it. A dense model is refused. */
static void test_sweep_moe_overlap(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    tiny_moe(&m);
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 8, 16);
    keep_all_unsharded(&c);
    struct aug_sweep_result r0, r1;
    run(&c, &r0);
    c.base.moe_overlap = AUG_MOE_OVERLAP_BATCH;
    run(&c, &r1);
    assert_true(r1.plans_evaluated > 0 && r1.plans_evaluated < r0.plans_evaluated);
    assert_true(r1.n_top > 0);
    int piped = 0;
    for (int i = 0; i < r1.n_top; i++) {
        const struct aug_plan *p = &r1.top[i].plan;
        assert_int_equal(p->moe_overlap, AUG_MOE_OVERLAP_BATCH);
        assert_true(p->ep >= 2);
        assert_true(p->pp == 1 || p->interleave > 1);
        piped += p->pp > 1;
        assert_true(p->recompute != AUG_RECOMPUTE_FULL);
    }
    assert_true(piped > 0);
    check_entries(&c, r1.top, r1.n_top);
    aug_sweep_result_free(&r0);
    aug_sweep_result_free(&r1);
    c.base.moe_overlap = AUG_MOE_OVERLAP_SHARED; /* no shared experts to run beside */
    assert_int_equal(aug_sweep_check(&c), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "no shared experts"));
    struct aug_model dense;
    tiny_model(&dense, 4);
    c.model = &dense;
    c.base.moe_overlap = AUG_MOE_OVERLAP_BATCH;
    assert_int_equal(aug_sweep_check(&c), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "dense"));
}

/* --moe-dispatcher deepep: every plan of the sweep dispatches with DeepEP; those the flex
 * dispatcher refuses (tp*ep of 1, expert TP) are left out, and a dense model is refused.
 * The tiny MoE is dropless here: the flex dispatcher pads no expert to a capacity. */
static void test_sweep_moe_dispatcher(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    tiny_moe(&m);
    m.moe_capacity_factor = 0.0;
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 8, 16);
    keep_all_unsharded(&c);
    struct aug_sweep_result r0, r1;
    run(&c, &r0);
    c.base.moe_dispatcher = AUG_MOE_DISPATCH_DEEPEP;
    run(&c, &r1);
    assert_true(r1.plans_evaluated > 0 && r1.plans_evaluated < r0.plans_evaluated);
    assert_true(r1.n_top > 0);
    for (int i = 0; i < r1.n_top; i++) {
        const struct aug_plan *p = &r1.top[i].plan;
        assert_int_equal(p->moe_dispatcher, AUG_MOE_DISPATCH_DEEPEP);
        assert_true(p->tp * p->ep >= 2);
        assert_true(aug_plan_etp(p) == 1);
    }
    check_entries(&c, r1.top, r1.n_top);
    aug_sweep_result_free(&r0);
    aug_sweep_result_free(&r1);
    struct aug_model dense;
    tiny_model(&dense, 4);
    c.model = &dense;
    assert_int_equal(aug_sweep_check(&c), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "dense"));
}

/* GPT-3 175B needs 16 bytes x 175e9 = 2.8 TB of model states: 8 A100 40GB (320 GB) hold no
 * plan, even fully sharded. */
static void test_nothing_fits(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    if (aug_model_load(NULL, "gpt3-175b", &m) != AUG_OK)
        fail_msg("%s", aug_last_error());
    load_system("dgx-a100-40g", &s);
    config(&c, &m, &s, 8, 8);
    struct aug_sweep_result r;
    run(&c, &r);
    assert_true(r.plans_evaluated > 0);
    assert_true(r.plans_valid == 0);
    assert_int_equal(r.n_top, 0);
    assert_int_equal(r.n_pareto, 0);
    aug_sweep_result_free(&r);
}

static void test_bad_inputs(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    struct aug_sweep_config c;
    tiny_model(&m, 4);
    load_system("dgx-a100-80g", &s);
    config(&c, &m, &s, 8, 8);
    struct aug_sweep_result r;
    c.top_k = 0;
    assert_int_equal(aug_sweep_train(&c, &r), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "--top"));
    c.top_k = 5;
    c.base.global_batch = 0;
    assert_int_equal(aug_sweep_train(&c, &r), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "--global-batch"));
    c.base.global_batch = 8;
    c.base.dtype = AUG_DTYPE_FP8; /* A100 has no fp8 */
    assert_int_equal(aug_sweep_train(&c, &r), AUG_EUSAGE);
}

/* Doubling HBM, NVLink and network bandwidth never slows a plan: every top and front plan
 * of the base sweep, with default efficiencies and with the A100's calibrated curves. */
static void test_double_bandwidth_never_slows(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s, fast;
    struct aug_sweep_config c;
    big_case(&m, &s, &c);
    c.no_prune = 1;
    c.top_k = 50;
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_parse("hbm_bw=2,nvlink_bw=2,net_bw=2", &sc), AUG_OK);
    assert_int_equal(aug_scale_system(&s, &sc, &fast), AUG_OK);
    for (int with_kdb = 0; with_kdb < 2; with_kdb++) {
        struct aug_kdb *kdb = NULL, *kdb_fast = NULL;
        if (with_kdb) {
            assert_int_equal(aug_kdb_open(NULL, s.gpu.id, &kdb), AUG_OK);
            assert_int_equal(aug_scale_kdb(NULL, s.gpu.id, &sc, &kdb_fast), AUG_OK);
        }
        c.options.kdb = kdb;
        struct aug_sweep_result r;
        run(&c, &r);
        struct aug_train_options fo = {kdb_fast, 0, NULL, 0.0};
        for (int set = 0; set < 2; set++) {
            const struct aug_sweep_entry *e = set ? r.pareto : r.top;
            int n = set ? r.n_pareto : r.n_top;
            for (int i = 0; i < n; i++) {
                struct aug_train_result t;
                assert_int_equal(aug_train_predict(&m, &fast, &e[i].plan, &fo, &t), AUG_OK);
                if (!(t.step_time_s <= e[i].result.step_time_s * (1.0 + 1e-12)))
                    fail_msg("plan %d (tp %ld pp %ld dp %ld): %.9g s with 2x bandwidth, %.9g s before",
                             i, e[i].plan.tp, e[i].plan.pp, e[i].plan.dp, t.step_time_s,
                             e[i].result.step_time_s);
            }
        }
        /* and the best of the faster system is at least as fast */
        struct aug_sweep_config cf = c;
        cf.system = &fast;
        cf.options.kdb = kdb_fast;
        struct aug_sweep_result rf;
        run(&cf, &rf);
        assert_true(rf.top[0].result.step_time_s <= r.top[0].result.step_time_s);
        aug_sweep_result_free(&rf);
        aug_sweep_result_free(&r);
        aug_kdb_close(kdb);
        aug_kdb_close(kdb_fast);
    }
}

/* Scaling by 1.0 is the identity: the same system, the same curves, the same sweep. */
static void test_scale_one_is_identity(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s, same;
    struct aug_sweep_config c;
    big_case(&m, &s, &c);
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_parse("compute=1,hbm_bw=1,hbm_cap=1,nvlink_bw=1,net_lat=1", &sc), AUG_OK);
    assert_true(aug_scale_is_identity(&sc));
    assert_int_equal(aug_scale_system(&s, &sc, &same), AUG_OK);
    assert_memory_equal(&s, &same, sizeof s);
    struct aug_kdb *kdb, *kdb_same;
    assert_int_equal(aug_kdb_open(NULL, s.gpu.id, &kdb), AUG_OK);
    assert_int_equal(aug_scale_kdb(NULL, s.gpu.id, &sc, &kdb_same), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(kdb), aug_kdb_curve_count(kdb_same));
    c.options.kdb = kdb;
    struct aug_sweep_result a, b;
    run(&c, &a);
    c.system = &same;
    c.options.kdb = kdb_same;
    run(&c, &b);
    same_entries(a.top, a.n_top, b.top, b.n_top);
    same_entries(a.pareto, a.n_pareto, b.pareto, b.n_pareto);
    aug_sweep_result_free(&a);
    aug_sweep_result_free(&b);
    aug_kdb_close(kdb);
    aug_kdb_close(kdb_same);
}

/* Serving: Llama 2 7B (32 heads) on 8 A100 at batch 8: tp in {1, 2, 4, 8}, pp in the
 * divisors of 8/tp that divide 32 layers, replicas the rest (dividing the batch): 4 + 3 +
 * 2 + 1 = 10 plans, all fitting. Every one reaches 0 tokens/s; top by latency. */
static void test_infer_sweep(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    if (aug_model_load(NULL, "llama2-7b", &m) != AUG_OK)
        fail_msg("%s", aug_last_error());
    load_system("dgx-a100-80g", &s);
    struct aug_sweep_infer_config c;
    memset(&c, 0, sizeof c);
    c.model = &m;
    c.system = &s;
    aug_infer_plan_init(&c.base);
    c.base.gpus = 8;
    c.base.batch = 8;
    c.base.input_len = 512;
    c.base.output_len = 128;
    c.top_k = 20;
    c.threads = 2;
    struct aug_sweep_infer_result r;
    if (aug_sweep_infer(&c, &r) != AUG_OK)
        fail_msg("%s", aug_last_error());
    assert_true(r.plans_evaluated == 10);
    assert_true(r.plans_valid == 10);
    assert_true(r.plans_meeting_target == 10);
    assert_int_equal(r.n_top, 10);
    for (int i = 0; i < r.n_top; i++) {
        struct aug_infer_plan p = r.top[i].plan;
        assert_int_equal(aug_infer_plan_resolve(&p, &m, &s), AUG_OK);
        assert_int_equal(p.tp * p.pp * p.dp, 8);
        struct aug_infer_result t;
        assert_int_equal(aug_infer_predict(&m, &s, &p, NULL, &t), AUG_OK);
        assert_true(t.e2e_latency_s == r.top[i].result.e2e_latency_s);
        if (i)
            assert_true(r.top[i - 1].result.e2e_latency_s <= r.top[i].result.e2e_latency_s);
    }
    /* a target above the best throughput leaves nothing */
    double best = 0;
    for (int i = 0; i < r.n_top; i++)
        if (r.top[i].result.throughput_tokens_per_s > best)
            best = r.top[i].result.throughput_tokens_per_s;
    aug_sweep_infer_result_free(&r);
    c.min_throughput = best * 1.0001;
    assert_int_equal(aug_sweep_infer(&c, &r), AUG_OK);
    assert_true(r.plans_meeting_target == 0);
    assert_int_equal(r.n_top, 0);
    aug_sweep_infer_result_free(&r);
    /* open batch: per-replica powers of two, the same for any thread count */
    c.min_throughput = 0;
    c.base.batch = 0;
    c.max_batch = 64;
    c.threads = 1;
    struct aug_sweep_infer_result o1, o2;
    assert_int_equal(aug_sweep_infer(&c, &o1), AUG_OK);
    c.threads = 3;
    assert_int_equal(aug_sweep_infer(&c, &o2), AUG_OK);
    assert_true(o1.plans_evaluated > 10);
    assert_int_equal(o1.n_top, o2.n_top);
    for (int i = 0; i < o1.n_top; i++)
        assert_true(o1.top[i].index == o2.top[i].index);
    /* the lowest latency is the front's memory-hungry end */
    assert_true(o1.n_pareto >= 1);
    assert_true(o1.pareto[o1.n_pareto - 1].index == o1.top[0].index);
    for (int i = 0; i < o1.n_top; i++)
        assert_int_equal(o1.top[i].plan.batch % o1.top[i].plan.dp, 0);
    aug_sweep_infer_result_free(&o1);
    aug_sweep_infer_result_free(&o2);
}

/* ---- the CLI, as a subprocess ---- */

static const char *bin;
static char tmp_root[64];

static int group_setup(void **state) {
    (void)state;
    bin = getenv("AUGUR_BIN");
    snprintf(tmp_root, sizeof tmp_root, "/tmp/aug_sweep_test_XXXXXX");
    return mkdtemp(tmp_root) ? 0 : -1;
}

static const char *const fixtures[] = {"out", "err", "front.svg", "mpi.json", "one.json"};

static int group_teardown(void **state) {
    (void)state;
    char p[192];
    for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
        snprintf(p, sizeof p, "%s/%s", tmp_root, fixtures[i]);
        remove(p);
    }
    rmdir(tmp_root);
    return 0;
}

static char out_buf[1 << 22], err_buf[1 << 16];

static void slurp(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    size_t n = 0;
    if (f) {
        n = fread(buf, 1, cap - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
}

/* Run argv (argv[0] is the program) with stdout/stderr into files; returns the status. */
static int spawn(char *const *argv) {
    char out[128], err[128];
    snprintf(out, sizeof out, "%s/out", tmp_root);
    snprintf(err, sizeof err, "%s/err", tmp_root);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status;
    waitpid(pid, &status, 0);
    slurp(out, out_buf, sizeof out_buf);
    slurp(err, err_buf, sizeof err_buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int augur(char **args) {
    if (!bin || access(bin, X_OK) != 0)
        skip();
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)bin;
    for (int i = 0; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return spawn(argv);
}

#define SWEEP_ARGS "sweep", "train", "--model", "llama2-13b", "--system", "dgx-a100-80g", \
                   "--gpus", "32", "--global-batch", "64", "--top", "5"

static json_t *parse_json(const char *text) {
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (!j)
        fail_msg("bad JSON at line %d: %s\n%.400s", e.line, e.text, text);
    return j;
}

/* The sweep's JSON with fixed option `opt` set to `val` (the caller frees it). */
static json_t *sweep_with(const char *opt, const char *val) {
    char o[64], v[64];
    snprintf(o, sizeof o, "%s", opt);
    snprintf(v, sizeof v, "%s", val);
    char *args[] = {SWEEP_ARGS, "--format", "json", "--threads", "2", o, v, NULL};
    int rc = augur(args);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, err_buf);
    return parse_json(out_buf);
}

/* The sweep refuses `val` for `opt` as a usage error whose message has `needle`. */
static void sweep_refuses(const char *opt, const char *val, const char *needle) {
    char o[64], v[64];
    snprintf(o, sizeof o, "%s", opt);
    snprintf(v, sizeof v, "%s", val);
    char *args[] = {SWEEP_ARGS, o, v, NULL};
    assert_int_equal(augur(args), 2);
    assert_non_null(strstr(err_buf, needle));
}

static void test_cli_json_keys(void **state) {
    (void)state;
    char *args[] = {SWEEP_ARGS, "--format", "json", "--threads", "2", NULL};
    int rc = augur(args);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, err_buf);
    json_t *j = parse_json(out_buf);
    static const char *const keys[] = {"plans_evaluated", "plans_valid", "elapsed_s", "top", "pareto"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        assert_non_null(json_object_get(j, keys[i]));
    json_t *top = json_object_get(j, "top");
    assert_int_equal(json_array_size(top), 5);
    json_t *first = json_array_get(top, 0);
    static const char *const tkeys[] = {"step_time_s", "tokens_per_s", "mfu", "memory_gib_per_gpu",
                                        "fits_in_memory", "breakdown_s", "memory_gib", "provenance",
                                        "plan", "rank"};
    for (size_t i = 0; i < sizeof tkeys / sizeof *tkeys; i++)
        assert_non_null(json_object_get(first, tkeys[i]));
    json_t *plan = json_object_get(first, "plan");
    long long tp = json_integer_value(json_object_get(plan, "tp"));
    long long pp = json_integer_value(json_object_get(plan, "pp"));
    long long dp = json_integer_value(json_object_get(plan, "dp"));
    long long cp = json_integer_value(json_object_get(plan, "cp"));
    assert_int_equal(tp * pp * dp * cp, 32);
    assert_true(json_is_true(json_object_get(first, "fits_in_memory")));
    assert_true(json_integer_value(json_object_get(j, "plans_valid")) <=
                json_integer_value(json_object_get(j, "plans_evaluated")));
    assert_non_null(json_object_get(json_object_get(j, "why"), "summary"));
    assert_string_equal(json_string_value(json_object_get(plan, "attention_kernel")), "cudnn");
    assert_string_equal(json_string_value(json_object_get(plan, "cross_entropy")), "fused");
    json_decref(j);
    /* the attention kernel is a fixed input of the sweep, carried into every plan */
    j = sweep_with("--attention-kernel", "fa2");
    json_t *f0 = json_array_get(json_object_get(j, "top"), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(f0, "plan"),
                                                          "attention_kernel")), "fa2");
    json_decref(j);
    sweep_refuses("--attention-kernel", "sdpa", "--attention-kernel");
    /* so is the loss: the default fused (above), or the one given, in every plan */
    j = sweep_with("--cross-entropy", "te");
    json_t *t0 = json_array_get(json_object_get(j, "top"), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(t0, "plan"),
                                                          "cross_entropy")), "te");
    assert_true(json_is_false(json_object_get(json_object_get(t0, "plan"), "tp_async_allreduce")));
    json_decref(j);
    sweep_refuses("--cross-entropy", "liger", "--cross-entropy");
    /* and the asynchronous TP all-reduce: off unless asked (above), then in every plan */
    j = sweep_with("--tp-async-allreduce", "on");
    json_t *plans = json_object_get(j, "top");
    assert_true(json_array_size(plans) > 0);
    for (size_t i = 0; i < json_array_size(plans); i++)
        assert_true(json_is_true(json_object_get(
            json_object_get(json_array_get(plans, i), "plan"), "tp_async_allreduce")));
    json_decref(j);
    sweep_refuses("--tp-async-allreduce", "maybe", "--tp-async-allreduce: use on or off");
}

static void test_cli_csv_table_plot_usage(void **state) {
    (void)state;
    char *csv[] = {SWEEP_ARGS, "--format", "csv", NULL};
    assert_int_equal(augur(csv), 0);
    assert_memory_equal(out_buf, "set,rank,tp,pp,dp,cp,ep,sp,", 27);
    assert_non_null(strstr(out_buf, "\ntop,1,"));
    assert_non_null(strstr(out_buf, "\npareto,1,"));

    char svg[160];
    snprintf(svg, sizeof svg, "%s/front.svg", tmp_root);
    char *table[] = {SWEEP_ARGS, "--plot", svg, NULL};
    int rc = augur(table);
    assert_non_null(strstr(out_buf, "top 5 by throughput"));
    assert_non_null(strstr(out_buf, "Pareto front"));
    assert_non_null(strstr(out_buf, "why rank 1 beats rank"));
    if (rc == 0) { /* gnuplot present */
        slurp(svg, out_buf, sizeof out_buf);
        assert_non_null(strstr(out_buf, "<svg"));
    } else {
        assert_non_null(strstr(err_buf, "gnuplot"));
    }

    char *no_gb[] = {"sweep", "train", "--model", "llama2-7b", "--system", "dgx-a100-80g",
                     "--gpus", "8", NULL};
    assert_int_equal(augur(no_gb), 2);
    assert_non_null(strstr(err_buf, "--global-batch"));
    char *bad_mode[] = {"sweep", "fly", NULL};
    assert_int_equal(augur(bad_mode), 2);
    char *bad_scale[] = {SWEEP_ARGS, "--scale", "compute=-1", NULL};
    assert_int_equal(augur(bad_scale), 2);
    assert_non_null(strstr(err_buf, "compute"));
    char *mixed[] = {SWEEP_ARGS, "--input-len", "128", NULL};
    assert_int_equal(augur(mixed), 2);
}

/* `augur sweep scaling` along compute x1, x2 and `augur sweep infer`: the keys scripts read,
 * and the study's own arithmetic (the x2 point's speed-up is the reference's compute gain). */
static void test_cli_scaling_and_infer(void **state) {
    (void)state;
    char *sc[] = {"sweep", "scaling", "--model", "llama2-7b", "--system", "dgx-a100-80g", "--gpus",
                  "8", "--global-batch", "16", "--factors", "1,2", "--format", "json", NULL};
    int rc = augur(sc);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, err_buf);
    json_t *j = parse_json(out_buf);
    json_t *pts = json_object_get(j, "points");
    assert_int_equal(json_array_size(pts), 2);
    json_t *p0 = json_array_get(pts, 0), *p1 = json_array_get(pts, 1);
    double gain = json_real_value(json_object_get(json_object_get(p0, "gain_when_improved"), "compute"));
    assert_rel(json_real_value(json_object_get(p1, "speedup")), gain, 1e-9);
    assert_rel(json_real_value(json_object_get(p0, "step_time_s")) /
                   json_real_value(json_object_get(p1, "step_time_s")), gain, 1e-9);
    assert_non_null(json_string_value(json_object_get(p0, "bound")));
    assert_rel(json_real_value(json_object_get(json_object_get(p1, "factors"), "compute")), 2.0, 0);
    json_decref(j);

    char *inf[] = {"sweep", "infer", "--model", "llama2-7b", "--system", "dgx-a100-80g", "--gpus",
                   "8", "--batch", "8", "--input-len", "512", "--output-len", "128", "--format",
                   "json", NULL};
    rc = augur(inf);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, err_buf);
    j = parse_json(out_buf);
    assert_int_equal(json_integer_value(json_object_get(j, "plans_evaluated")), 10);
    json_t *top = json_object_get(j, "top");
    assert_true(json_array_size(top) == 10);
    static const char *const keys[] = {"ttft_s", "tpot_s", "e2e_latency_s",
                                       "throughput_tokens_per_s", "memory_gib_per_gpu"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        assert_non_null(json_object_get(json_array_get(top, 0), keys[i]));
    assert_non_null(json_object_get(j, "pareto"));
    json_decref(j);
    char *bad[] = {"sweep", "infer", "--model", "llama2-7b", "--system", "dgx-a100-80g", "--gpus",
                   "8", "--input-len", "512", "--output-len", "128", "--zero", "1", NULL};
    assert_int_equal(augur(bad), 2);
}

static int have_mpirun(void) {
    const char *path = getenv("PATH");
    char dir[1024];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        if (len < sizeof dir - 16) {
            memcpy(dir, path, len);
            snprintf(dir + len, sizeof dir - len, "/mpirun");
            if (access(dir, X_OK) == 0)
                return 1;
        }
        path += len + (path[len] == ':');
    }
    return 0;
}

/* Two ranks on this host find the top plans and the front of one process. */
static void test_mpi_two_ranks_equal_one(void **state) {
    (void)state;
    if (!bin || access(bin, X_OK) != 0 || !have_mpirun())
        skip();
    char *one[] = {SWEEP_ARGS, "--format", "json", "--threads", "1", NULL};
    assert_int_equal(augur(one), 0);
    json_t *a = parse_json(out_buf);
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1); /* the MPI library's own allocations */
    char *argv[] = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", "-x",
                    "ASAN_OPTIONS", (char *)bin, SWEEP_ARGS, "--format", "json", "--threads",
                    "1", NULL};
    int rc = spawn(argv);
    if (rc != 0)
        fail_msg("mpirun exit %d: %s", rc, err_buf);
    json_t *b = parse_json(out_buf);
    assert_true(json_equal(json_object_get(a, "top"), json_object_get(b, "top")));
    assert_true(json_equal(json_object_get(a, "pareto"), json_object_get(b, "pareto")));
    assert_true(json_equal(json_object_get(a, "plans_evaluated"), json_object_get(b, "plans_evaluated")));
    assert_true(json_equal(json_object_get(a, "plans_valid"), json_object_get(b, "plans_valid")));
    json_decref(a);
    json_decref(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_by_hand),
        cmocka_unit_test(test_counts_uneven_pipeline),
        cmocka_unit_test(test_counts_experts),
        cmocka_unit_test(test_returned_plans_are_valid_and_fit),
        cmocka_unit_test(test_threads_prune_parts_agree),
        cmocka_unit_test(test_pinned_space_is_train),
        cmocka_unit_test(test_nothing_fits),
        cmocka_unit_test(test_fewest_recompute_layers),
        cmocka_unit_test(test_sweep_recompute_modules),
        cmocka_unit_test(test_sweep_moe_overlap),
        cmocka_unit_test(test_sweep_moe_dispatcher),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_double_bandwidth_never_slows),
        cmocka_unit_test(test_scale_one_is_identity),
        cmocka_unit_test(test_infer_sweep),
        cmocka_unit_test(test_cli_json_keys),
        cmocka_unit_test(test_cli_csv_table_plot_usage),
        cmocka_unit_test(test_cli_scaling_and_infer),
        cmocka_unit_test(test_mpi_two_ranks_equal_one),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
