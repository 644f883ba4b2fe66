/* SPDX-License-Identifier: Apache-2.0 */
/* test_pipeline.c - pipeline parallelism in the training step (Narayanan et al., SC21,
 * sec. 2.2; Zheng et al., "Alpa", OSDI 2022, sec. 5.1 eq. 2): with m micro-batches, p
 * stages of micro-batch times t_i and v interleaved chunks per rank, the slowest stage is
 * busy m t_max and the fill and drain pass through every other stage once, a bubble of
 * (sum t_i - t_max) / v: (p-1)/v micro-batch times when the stages are equal, less when
 * the last stage's head and loss make it the slowest; stage-to-stage activations (b s h
 * elements) are sent once forward and once backward per chunk, 2 v (m + p - 1) transfers
 * per iteration. */
#include "aug_test.h"

#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"

#include "model/memory.h"
#include "hw/topology.h"

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

static struct aug_plan plan(long gpus, long tp, long pp, long v, long mb, long gb) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = gpus;
    p.tp = tp;
    p.pp = pp;
    p.interleave = v;
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

/* Busy time: everything a micro-batch does on the slowest stage, times m, including the
 * time its GPU waits for the host to issue kernels (overhead_s: per micro-batch host-bound
 * time times m, plus a per-iteration floor of 0). */
static double busy_s(const struct aug_train_result *r) {
    const struct aug_train_breakdown *b = &r->breakdown;
    return b->compute_s + b->attention_s + b->recompute_s + b->embedding_s + b->tp_comm_s +
           b->cp_comm_s + b->ep_comm_s + b->overhead_s;
}

static void test_microbatch_count(void **state) {
    (void)state;
    /* 64 GPUs, tp 2, pp 4: dp = 8; global 512 / (micro 2 x dp 8) = 32 */
    struct aug_plan p = plan(64, 2, 4, 1, 2, 512);
    struct aug_train_result r = predict(&p);
    assert_int_equal(p.dp, 8);
    assert_int_equal(aug_plan_microbatches(&p), 32);
    assert_int_equal(r.microbatches, 32);
    p = plan(8, 1, 1, 1, 4, 32);
    r = predict(&p);
    assert_int_equal(r.microbatches, 1); /* 32 / (4 x 8) */
}

/* One micro-batch's seconds on a stage, from the op report of `p` (train.h: the rows are
 * the prediction): the transformer layers of the slowest stage, the first stage's
 * embedding and the last stage's head and loss. The plans replay CUDA graphs: no
 * host-bound time, so a stage's time is the sum of its ops. */
struct parts {
    double layers, first, last;
    int last_slowest;
};

static struct parts stage_parts(struct aug_plan *p) {
    static struct aug_train_op_report ops[AUG_TRAIN_OPS_MAX];
    int n = 0;
    struct aug_train_result r;
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    if (aug_plan_resolve(p, &gpt, &sys) != AUG_OK ||
        aug_train_ops(&gpt, &sys, p, &o, &r, ops, AUG_TRAIN_OPS_MAX, &n) != AUG_OK)
        fail_msg("ops: %s", aug_last_error());
    struct parts x = {0, 0, 0, 0};
    double m = (double)r.microbatches;
    for (int i = 0; i < n; i++) {
        double per_mb = ops[i].step_s / m;
        if (strncmp(ops[i].list, "first.", 6) == 0)
            x.first += per_mb;
        else if (strncmp(ops[i].list, "last.", 5) == 0) {
            x.last += per_mb;
            x.last_slowest |= ops[i].on_slowest_stage;
        } else if (strcmp(ops[i].list, "iteration") != 0)
            x.layers += per_mb;
        else if (strcmp(ops[i].name, "host_bound") == 0)
            fail_msg("host-bound time without a framework");
    }
    return x;
}

static void test_bubble_1f1b(void **state) {
    (void)state;
    static const long pps[] = {2, 4, 8};
    static const long gbs[] = {8, 16, 64};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            long p_ = pps[i], m = gbs[j];
            struct aug_plan p = plan(p_ * 2, 2, p_, 1, 1, m);
            p.cuda_graphs = 1;
            struct aug_train_result r = predict(&p);
            assert_int_equal(r.microbatches, m);
            /* 32 / p layers on every stage; the head and loss outweigh the embedding, so
             * the last stage paces the pipeline: t_max = layers + last, and the fill and
             * drain pass the p - 2 middle stages (layers) and the first (layers + first) */
            struct parts x = stage_parts(&p);
            assert_true(x.last_slowest && x.last > x.first);
            assert_rel(busy_s(&r), (double)m * (x.layers + x.last), 1e-9);
            assert_rel(r.breakdown.pipeline_bubble_s, (double)(p_ - 1) * x.layers + x.first,
                       1e-9);
            assert_rel(r.bubble_fraction, r.breakdown.pipeline_bubble_s / busy_s(&r), 1e-12);
            /* below the equal-stage bubble (p - 1) t_max by (p - 1) (last - first)... */
            assert_rel((double)(p_ - 1) * busy_s(&r) / (double)m - r.breakdown.pipeline_bubble_s,
                       (double)(p_ - 1) * x.last - x.first, 1e-9);
            assert_true(r.bubble_fraction < (double)(p_ - 1) / (double)m);
        }
    struct aug_plan p = plan(2, 2, 1, 1, 1, 16);
    struct aug_train_result r = predict(&p);
    assert_near(r.bubble_fraction, 0, 0);
    assert_near(r.breakdown.pipeline_bubble_s, 0, 0);
    assert_near(r.breakdown.pp_comm_s, 0, 0);
}

static void test_bubble_interleaved(void **state) {
    (void)state;
    /* 32 layers on 4 stages: v = 2 (4 layers per chunk) and v = 4 (2 per chunk) */
    struct aug_plan p1 = plan(8, 2, 4, 1, 1, 16);
    struct aug_train_result r1 = predict(&p1);
    for (long v = 2; v <= 4; v *= 2) {
        struct aug_plan p = plan(8, 2, 4, v, 1, 16);
        struct aug_train_result r = predict(&p);
        /* the same stage work per micro-batch: the bubble time shrinks by exactly v */
        assert_rel(r.bubble_fraction, r1.bubble_fraction / (double)v, 1e-12);
        assert_true(r.bubble_fraction < 3.0 / (16.0 * (double)v));
        assert_rel(busy_s(&r), busy_s(&r1), 1e-12);
        assert_rel(r.breakdown.pipeline_bubble_s, r1.breakdown.pipeline_bubble_s / (double)v,
                   1e-12);
        /* and the step is faster by the bubble saved minus the extra stage-to-stage sends */
        assert_rel(r1.step_time_s - r.step_time_s,
                   (r1.breakdown.pipeline_bubble_s - r.breakdown.pipeline_bubble_s) -
                       (r.breakdown.pp_comm_s - r1.breakdown.pp_comm_s),
                   1e-9);
        assert_true(r.step_time_s < r1.step_time_s);
    }
}

static void test_step_time_includes_bubble(void **state) {
    (void)state;
    /* more micro-batches amortize the bubble (7 stages' worth of fill and drain, the same
     * for any m): per-sequence time falls */
    struct aug_plan a = plan(8, 1, 8, 1, 1, 8);
    struct aug_plan b = plan(8, 1, 8, 1, 1, 64);
    a.cuda_graphs = b.cuda_graphs = 1;
    struct aug_train_result ra = predict(&a), rb = predict(&b);
    double t_mb = busy_s(&ra) / 8.0;
    assert_rel(busy_s(&rb) / 64.0, t_mb, 1e-12);
    struct parts x = stage_parts(&a);
    assert_rel(ra.breakdown.pipeline_bubble_s, 7.0 * x.layers + x.first, 1e-9);
    assert_rel(rb.breakdown.pipeline_bubble_s, ra.breakdown.pipeline_bubble_s, 1e-12);
    assert_true(ra.breakdown.pipeline_bubble_s < 7.0 * t_mb); /* the head's stage is t_mb */
    assert_true(rb.step_time_s / 64.0 < ra.step_time_s / 8.0);
    /* the step grows by 56 micro-batches of work and their sends, nothing else */
    assert_rel(rb.step_time_s - ra.step_time_s,
               56.0 * t_mb + (rb.breakdown.pp_comm_s - ra.breakdown.pp_comm_s), 1e-9);
    /* the bubble is a large share of the step with 8 micro-batches on 8 stages */
    assert_true(ra.breakdown.pipeline_bubble_s / ra.step_time_s > 0.3);
    assert_true(rb.breakdown.pipeline_bubble_s / rb.step_time_s < 0.1);
}

/* With the embedding and the loss in the pipeline split, a 30-layer model on 4 ranks puts
 * 7 layers and the embedding on the first rank, 8 on the middle ones and 7 with the head
 * on the last. Weights per GPU at tp 2 (h 4096, V 25600, learned positions of 2,048):
 * a layer (12 h^2 + 13 h = 201,379,840, its 4 h norm weights replicated) is
 * (201,379,840 - 16,384) / 2 + 16,384 = 100,698,112; the embedding V h / 2 + 2048 h =
 * 52,428,800 + 8,388,608 = 60,817,408; the tied head copy V h / 2 plus the final norm
 * 2 h = 52,436,992. The slowest stage is a middle one: 8 layers, no embedding work (the
 * head's GEMMs are half a layer's, its loss less than the rest), as for the 32-layer model
 * whose last rank adds the head to 8 layers. */
/* Megatron-Core's first/last-stage layer counts: 8 and 8 of 32 on four ranks is the even
 * split, to the bit; 6 and 10 make the last rank (10 layers, the head and the loss) the
 * slowest, and its layers run 10 x m times an iteration; the stage parameters follow. */
static void test_first_last_stage_layers(void **state) {
    (void)state;
    struct aug_plan even = plan(8, 2, 4, 1, 1, 16), p = even;
    p.pp_first_layers = 8;
    p.pp_last_layers = 8;
    assert_int_equal(aug_plan_resolve(&even, &gpt, &sys), AUG_OK);
    struct aug_train_result a = predict(&even), b = predict(&p);
    assert_true(a.step_time_s == b.step_time_s);
    p = plan(8, 2, 4, 1, 1, 16);
    p.pp_first_layers = 6;
    p.pp_last_layers = 10;
    p.cuda_graphs = 1;
    struct aug_train_result r = predict(&p);
    assert_true(r.step_time_s > a.step_time_s);
    struct parts x = stage_parts(&p);
    assert_true(x.last_slowest);
    double layer = aug_train_layer_params_per_gpu(&gpt, &p);
    assert_rel(aug_train_stage_params_per_gpu(&gpt, &p, 1), 8.0 * layer, 1e-12);
    assert_rel(aug_train_stage_params_per_gpu(&gpt, &p, 0) - 6.0 * layer,
               aug_train_stage_params_per_gpu(&gpt, &even, 0) - 8.0 * layer, 1e-12);
    static struct aug_train_op_report ops[AUG_TRAIN_OPS_MAX];
    int n = 0;
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    assert_int_equal(aug_train_ops(&gpt, &sys, &p, &o, &r, ops, AUG_TRAIN_OPS_MAX, &n), AUG_OK);
    int qkv = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].list, "fwd") == 0 && strcmp(ops[i].name, "qkv") == 0) {
            assert_rel(ops[i].count, 10.0 * 16.0, 1e-12);
            qkv = 1;
        }
    assert_true(qkv);
}

static void test_embed_loss_slots(void **state) {
    (void)state;
    struct aug_model m30 = gpt, m32 = gpt;
    m30.layers = 30;
    m30.vocab = m32.vocab = 25600;
    assert_int_equal(aug_model_finish(&m32, "test"), AUG_OK);
    assert_int_equal(aug_model_finish(&m30, "test"), AUG_OK);
    struct aug_plan p = plan(8, 2, 4, 1, 1, 16);
    p.pp_embed_loss_slots = 1;
    assert_int_equal(aug_plan_resolve(&p, &m30, &sys), AUG_OK);
    const double layer = 100698112.0, embed = 60817408.0, head = 52436992.0;
    assert_rel(aug_train_stage_params_per_gpu(&m30, &p, 0), 7.0 * layer + embed, 1e-15);
    assert_rel(aug_train_stage_params_per_gpu(&m30, &p, 1), 8.0 * layer, 1e-15);
    assert_rel(aug_train_stage_params_per_gpu(&m30, &p, 3), 7.0 * layer + head, 1e-15);
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result slots, plain;
    assert_int_equal(aug_train_predict(&m30, &sys, &p, &o, &slots), AUG_OK);
    struct aug_plan q = plan(8, 2, 4, 1, 1, 16);
    struct aug_train_result r32;
    assert_int_equal(aug_plan_resolve(&q, &m32, &sys), AUG_OK);
    assert_int_equal(aug_train_predict(&m32, &sys, &q, &o, &r32), AUG_OK);
    q = plan(8, 2, 4, 1, 1, 16);
    q.uneven_pp = 1;
    assert_int_equal(aug_plan_resolve(&q, &m30, &sys), AUG_OK);
    assert_int_equal(aug_train_predict(&m30, &sys, &q, &o, &plain), AUG_OK);
    assert_near(slots.breakdown.embedding_s, 0, 0);
    assert_rel(slots.breakdown.compute_s, r32.breakdown.compute_s, 1e-12);
    assert_rel(slots.breakdown.attention_s, r32.breakdown.attention_s, 1e-12);
    /* the uneven split without slots rounds 30 / 4 up to 8 and adds the head: slower */
    assert_rel(plain.breakdown.compute_s, r32.breakdown.compute_s, 1e-12);
    assert_true(plain.breakdown.embedding_s > 0);
    assert_true(slots.step_time_s < plain.step_time_s);
}

static void test_pp_send_count(void **state) {
    (void)state;
    /* 8 GPUs, tp 2, pp 4, v 2, m 16: adjacent stages are 2 ranks apart, inside the node.
     * Each of 2 v (m + p - 1) = 76 transfers moves b s h x 2 bytes; the tied embedding adds
     * one all-reduce of the V h / t embedding gradient between the first and last stage.
     * (The plan as given: no pipeline scatter/gather. Megatron-LM's, which sends b s h / t
     * per rank, is tested in test_framework.c.) */
    struct aug_plan p = plan(8, 2, 4, 2, 1, 16);
    struct aug_train_result r = predict(&p);
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    double act = 1.0 * 2048.0 * 4096.0 * 2.0;
    int per_domain = aug_ranks_per_domain(&sys, 2, 2);
    assert_int_equal(per_domain, 2);
    struct aug_op sr = aug_op_collective("p2p", AUG_COLL_SEND_RECV, act, 2, per_domain);
    struct aug_op ar = aug_op_collective("emb", AUG_COLL_ALL_REDUCE, 51200.0 * 4096.0 / 2.0 * 2.0,
                                         2, per_domain);
    struct aug_op_time tsr, tar;
    assert_int_equal(aug_op_time(&ctx, &sr, &tsr), AUG_OK);
    assert_int_equal(aug_op_time(&ctx, &ar, &tar), AUG_OK);
    assert_rel(r.breakdown.pp_comm_s, 76.0 * tsr.time_s + tar.time_s, 1e-12);
    /* hand check of one transfer: NVLink latency + 16 MiB at 300 GB/s x 0.77 */
    assert_rel(tsr.time_s, 1.9e-6 + act / (300e9 * 0.77), 1e-12);
}

static void test_pp_across_nodes(void **state) {
    (void)state;
    /* 16 GPUs, tp 8, pp 2: the stages sit on different nodes and send over the network */
    struct aug_plan p = plan(16, 8, 2, 1, 1, 8);
    struct aug_train_result r = predict(&p);
    assert_int_equal(aug_ranks_per_domain(&sys, 2, 8), 1);
    double act = 2048.0 * 4096.0 * 2.0;
    double t_sr = 4.0e-6 + act / (25e9 * 0.90);
    struct aug_op_ctx ctx = {&sys, NULL, 0};
    struct aug_op ar = aug_op_collective("emb", AUG_COLL_ALL_REDUCE, 51200.0 * 4096.0 / 8.0 * 2.0,
                                         2, 1);
    struct aug_op_time tar;
    assert_int_equal(aug_op_time(&ctx, &ar, &tar), AUG_OK);
    assert_rel(r.breakdown.pp_comm_s, 2.0 * (8.0 + 1.0) * t_sr + tar.time_s, 1e-12);
}

/* Ranks map TP innermost and PP outermost (plan.h), so with tp 4 on 8-GPU nodes stage k
 * holds ranks 4k..4k+3: stages 0 and 1 share node 0, stages 2 and 3 node 1, and the
 * boundary between stages 1 and 2 crosses the network. Every micro-batch passes that
 * boundary forward and backward, so the pipeline's transfers cannot all be NVLink-fast:
 * the same plan must cost more than on nodes of 16 GPUs where all four stages share one
 * NVLink domain. */
static void test_pp_boundary_crossing_nodes(void **state) {
    (void)state;
    struct aug_plan p = plan(16, 4, 4, 1, 1, 16);
    struct aug_train_result r8 = predict(&p);
    struct aug_system big = sys;
    big.gpus_per_node = 16;
    big.nvlink_domain = 16;
    struct aug_plan q = plan(16, 4, 4, 1, 1, 16);
    assert_int_equal(aug_plan_resolve(&q, &gpt, &big), AUG_OK);
    struct aug_train_result r16;
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    assert_int_equal(aug_train_predict(&gpt, &big, &q, &o, &r16), AUG_OK);
    /* the time of one 16 MiB activation transfer over NVLink and over the network */
    double act = 2048.0 * 4096.0 * 2.0;
    double t_nv = 1.9e-6 + act / (300e9 * 0.77), t_net = 4.0e-6 + act / (25e9 * 0.90);
    if (!(r8.breakdown.pp_comm_s > r16.breakdown.pp_comm_s))
        fail_msg("pp 4 x tp 4 over two 8-GPU nodes: pp_comm %.6g s, the same as inside one "
                 "16-GPU NVLink domain (%.6g s); the stage 1 -> 2 sends cross the network "
                 "(%.3g s each instead of %.3g s)", r8.breakdown.pp_comm_s,
                 r16.breakdown.pp_comm_s, t_net, t_nv);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_microbatch_count),
        cmocka_unit_test(test_bubble_1f1b),
        cmocka_unit_test(test_bubble_interleaved),
        cmocka_unit_test(test_step_time_includes_bubble),
        cmocka_unit_test(test_embed_loss_slots),
        cmocka_unit_test(test_first_last_stage_layers),
        cmocka_unit_test(test_pp_send_count),
        cmocka_unit_test(test_pp_across_nodes),
        cmocka_unit_test(test_pp_boundary_crossing_nodes),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
