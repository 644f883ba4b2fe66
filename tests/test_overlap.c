/* SPDX-License-Identifier: Apache-2.0 */
/* test_overlap.c - communication overlapped with computation as a resource (overlap.h,
 * train.c): the pair, ring and trailing-pipeline formulas by hand, and the property that
 * matters most: overlap never makes a step faster than its slowest resource (all compute
 * alone, or any link's traffic alone), and never slower than not overlapping.
 *
 * pair(C, M) = max(M, C + M s / (1 + s)): compute slowed by (1 + s) while the collective
 * shares the SMs (s = 0.19 by default, arXiv 2507.03114). ring(C, M, n) = (n - 1)
 * pair(C/n, M/(n-1)) + C/n; trail(C, M, n) = C/n + (n - 1) pair(C/n, M/n) + M/n. */
#include "aug_test.h"

#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"

#include "model/layer_graph.h"
#include "train/ep_overlap.h"
#include "train/overlap.h"
#include "model/memory.h"
#include "hw/topology.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system h100, fast;
static struct aug_model llama2;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK ||
        aug_model_load(DATA_ROOT, "llama2-7b", &llama2) != AUG_OK)
        return -1;
    /* links a million times faster with no latency: what compute alone takes */
    fast = h100;
    for (int l = 0; l < AUG_LINK_COUNT; l++) {
        fast.link[l].bw_gbps *= 1e6;
        fast.link[l].latency_us = 0;
    }
    return 0;
}

static void test_formulas(void **state) {
    (void)state;
    assert_rel(aug_ovl_pair(1.0, 0.5, 0.19), 1.0 + 0.5 * 0.19 / 1.19, 1e-15);
    assert_rel(aug_ovl_pair(0.2, 1.0, 0.19), 1.0, 1e-15); /* the link is the bottleneck */
    assert_rel(aug_ovl_pair(1.0, 0.5, 0.0), 1.0, 1e-15);
    /* ring of 4: 4 compute steps of 1, 3 transfers hidden between them */
    assert_rel(aug_ovl_ring(4.0, 3.0, 4, 0.0), 4.0, 1e-15);
    assert_rel(aug_ovl_ring(4.0, 6.0, 4, 0.0), 3.0 * 2.0 + 1.0, 1e-15);
    assert_rel(aug_ovl_ring(4.0, 3.0, 1, 0.0), 7.0, 1e-15); /* one step: nothing to hide behind */
    /* trailing buckets: 4 layers of 1, each followed by 0.5 of reduction */
    assert_rel(aug_ovl_trail(4.0, 2.0, 4, 0.0), 1.0 + 3.0 * 1.0 + 0.5, 1e-15);
    assert_rel(aug_ovl_trail(4.0, 8.0, 4, 0.0), 1.0 + 3.0 * 2.0 + 2.0, 1e-15);
    /* never below the slower resource, never above running them one after the other,
     * never faster with more slowdown */
    unsigned seed = 12345;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        double C = (double)(seed % 1000) / 100.0;
        seed = seed * 1103515245u + 12345u;
        double M = (double)(seed % 1000) / 100.0;
        seed = seed * 1103515245u + 12345u;
        int n = 1 + (int)(seed % 16);
        seed = seed * 1103515245u + 12345u;
        double s = (double)(seed % 101) / 100.0;
        double r[3] = {aug_ovl_pair(C, M, s), aug_ovl_ring(C, M, n, s), aug_ovl_trail(C, M, n, s)};
        double r0[3] = {aug_ovl_pair(C, M, s / 2), aug_ovl_ring(C, M, n, s / 2),
                        aug_ovl_trail(C, M, n, s / 2)};
        for (int k = 0; k < 3; k++) {
            if (r[k] < fmax(C, M) - 1e-12 || r[k] > C + M + 1e-12)
                fail_msg("form %d: C %g M %g n %d s %g -> %g outside [%g, %g]", k, C, M, n, s,
                         r[k], fmax(C, M), C + M);
            if (r0[k] > r[k] + 1e-12)
                fail_msg("form %d: less slowdown is slower (C %g M %g n %d s %g)", k, C, M, n, s);
        }
    }
}

static struct aug_train_result predict(const struct aug_system *s, struct aug_plan *p) {
    if (aug_plan_resolve(p, &llama2, s) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result r;
    if (aug_train_predict(&llama2, s, p, &o, &r) != AUG_OK)
        fail_msg("predict: %s", aug_last_error());
    return r;
}

static double op_time(const struct aug_system *s, const struct aug_op *op) {
    struct aug_op_ctx ctx = {s, NULL, 0};
    struct aug_op_time t;
    assert_int_equal(aug_op_time(&ctx, op, &t), AUG_OK);
    return t.time_s;
}

/* Seconds of the TP collectives of one layer and of both model ends, per micro-batch. */
static double tp_alone(const struct aug_system *s, const struct aug_plan *p) {
    static struct aug_graph g;
    double t = 0;
    for (int k = 0; k < 3; k++) {
        if (k == 0)
            aug_graph_layer(&llama2, p, s, &g);
        else
            aug_graph_head(&llama2, p, s, k == 2, &g);
        double per = 0;
        for (int i = 0; i < g.n_fwd; i++)
            if (g.fwd[i].cat == AUG_CAT_TP)
                per += op_time(s, &g.fwd[i].op) * g.fwd[i].op.count;
        for (int i = 0; i < g.n_bwd; i++)
            if (g.bwd[i].cat == AUG_CAT_TP)
                per += op_time(s, &g.bwd[i].op) * g.bwd[i].op.count;
        t += k == 0 ? per * (double)llama2.layers : per;
    }
    return t * (double)aug_plan_microbatches(p);
}

static void test_tp_overlap(void **state) {
    (void)state;
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.tp = 8;
    p.sp = 1;
    p.micro_batch = 4;
    p.global_batch = 16;
    p.seq = 4096;
    struct aug_train_result off = predict(&h100, &p);
    p.tp_overlap = 1;
    struct aug_train_result on = predict(&h100, &p);
    struct aug_train_result compute_only = predict(&fast, &p);
    double link = tp_alone(&h100, &p);
    /* it helps, but never beats compute alone or the TP link alone */
    assert_true(on.step_time_s < off.step_time_s);
    assert_true(on.breakdown.tp_comm_s < off.breakdown.tp_comm_s);
    assert_true(on.step_time_s >= compute_only.step_time_s);
    assert_true(on.step_time_s >= link);
    /* with no slowdown and a link fast enough to hide every chunk, only the collectives
     * of the model ends (embedding, LM head, loss) are left exposed */
    struct aug_plan q = p;
    q.comm_slowdown = 0;
    struct aug_system quick = h100;
    quick.link[AUG_LINK_NVLINK].bw_gbps *= 100;
    struct aug_train_result hidden = predict(&quick, &q);
    static struct aug_graph g;
    double ends = 0;
    for (int k = 0; k < 2; k++) {
        aug_graph_head(&llama2, &q, &quick, k, &g);
        for (int i = 0; i < g.n_fwd; i++)
            if (g.fwd[i].cat == AUG_CAT_TP)
                ends += op_time(&quick, &g.fwd[i].op);
        for (int i = 0; i < g.n_bwd; i++)
            if (g.bwd[i].cat == AUG_CAT_TP)
                ends += op_time(&quick, &g.bwd[i].op);
    }
    assert_rel(hidden.breakdown.tp_comm_s, (double)aug_plan_microbatches(&q) * ends, 1e-9);
}

static void test_dp_buckets(void **state) {
    (void)state;
    /* 16 GPUs over two nodes, pure data parallelism: 32 layer buckets reduce behind the
     * backward; each bucket's share of the all-reduce is shorter than a layer's backward,
     * so only the last bucket shows (no slowdown) */
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 16;
    p.micro_batch = 1;
    p.global_batch = 16;
    p.seq = 4096;
    p.comm_slowdown = 0;
    struct aug_train_result r = predict(&h100, &p);
    double params = aug_train_stage_params_per_gpu(&llama2, &p, 0);
    struct aug_op ar = aug_op_collective("g", AUG_COLL_ALL_REDUCE, params * 2.0, 16,
                                         aug_ranks_per_domain(&h100, 16, 1));
    double t_grad = op_time(&h100, &ar);
    assert_rel(r.breakdown.dp_comm_s, t_grad / 32.0, 1e-12);
    /* the hidden 31/32 slow the backward by s / (1 + s) of themselves */
    p.comm_slowdown = 0.19;
    struct aug_train_result rs = predict(&h100, &p);
    assert_rel(rs.breakdown.dp_comm_s, t_grad / 32.0 + 31.0 * t_grad / 32.0 * 0.19 / 1.19, 1e-9);
    /* without overlap everything shows; overlap never loses */
    p.dp_overlap = 0;
    struct aug_train_result rn = predict(&h100, &p);
    assert_rel(rn.breakdown.dp_comm_s, t_grad, 1e-12);
    assert_true(rn.step_time_s > rs.step_time_s);
    /* a step is never shorter than its all-reduce */
    assert_true(rs.step_time_s >= t_grad);
}

static void test_pp_overlap(void **state) {
    (void)state;
    /* pp 4, 16 micro-batches: 2 (16 + 3) sends exposed without overlap, only the 2 x 3 of
     * the fill and drain with it (no slowdown, sends shorter than a chunk) */
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.tp = 2;
    p.pp = 4;
    p.micro_batch = 1;
    p.global_batch = 16;
    p.seq = 4096;
    p.comm_slowdown = 0;
    struct aug_train_result off = predict(&h100, &p);
    struct aug_op send = aug_op_collective("s", AUG_COLL_SEND_RECV, 4096.0 * 4096.0 * 2.0, 2, 2);
    double t = op_time(&h100, &send);
    assert_rel(off.breakdown.pp_comm_s, 2.0 * 19.0 * t, 1e-12);
    p.pp_overlap = 1;
    struct aug_train_result on = predict(&h100, &p);
    assert_rel(on.breakdown.pp_comm_s, 2.0 * 3.0 * t, 1e-12);
    assert_true(on.step_time_s < off.step_time_s);
}

static void test_never_faster_than_slowest(void **state) {
    (void)state;
    /* every overlapping mechanism at once, then each: the step is at least the step with
     * free links (compute alone), at least every exposed-free link total we can name, and
     * more slowdown never makes it faster */
    for (int k = 0; k < 5; k++) {
        struct aug_plan p;
        aug_plan_init(&p);
        p.gpus = 32;
        p.tp = 2;
        p.sp = 1;
        p.micro_batch = 1;
        p.global_batch = 64;
        p.seq = 8192;
        if (k == 0 || k == 4) {
            p.cp = 2;
            p.tp_overlap = 1;
        }
        if (k == 1 || k == 4) {
            p.pp = 2;
            p.pp_overlap = 1;
        }
        if (k == 2)
            p.fsdp = AUG_FSDP_FULL;
        if (k == 3)
            p.zero = 1;
        struct aug_plan q = p;
        struct aug_train_result r = predict(&h100, &p);
        struct aug_train_result c = predict(&fast, &q);
        if (r.step_time_s < c.step_time_s)
            fail_msg("case %d: %.6g s with overlap is faster than compute alone %.6g s", k,
                     r.step_time_s, c.step_time_s);
        q = p;
        q.comm_slowdown = 0.5;
        struct aug_train_result r5 = predict(&h100, &q);
        assert_true(r5.step_time_s >= r.step_time_s);
        q = p;
        q.comm_slowdown = 0;
        struct aug_train_result r0 = predict(&h100, &q);
        assert_true(r0.step_time_s <= r.step_time_s);
        q = p;
        q.tp_overlap = q.pp_overlap = q.dp_overlap = 0;
        struct aug_train_result serial = predict(&h100, &q);
        assert_true(serial.step_time_s >= r.step_time_s);
        assert_true(r.step_time_s >= tp_alone(&h100, &p));
    }
}

/* Megatron-Core's merged layer (ep_overlap.c), traced by hand with the schedule's order and
 * dependencies (comm: combine_b, dispatch_f, dispatch_b, combine_f; compute: pre_f, mlp_b,
 * mlp_dw, mlp_f, pre_b).
 * Compute-bound: f = {pre 2, dispatch 1, mlp 2, combine 1}, b = {combine 1, mlp 2, dw 2,
 * dispatch 1, pre 4}. Second merged layer from t = 12: combine_b [12,13], pre_f [12,14],
 * mlp_b [14,16], dispatch_f [14,15], dw [16,18], dispatch_b [16,17], mlp_f [18,20],
 * combine_f [20,21], pre_b [20,24]: period 12 = the compute alone (serial 16), and the four
 * all-to-alls each overlap 1 s of compute: 12 + 4 s / (1 + s).
 * Communication-bound: f = {1, 3, 1, 3}, b = {3, 1, 1, 3, 1}: combine_b [12,15], pre_f
 * [12,13], mlp_b [15,16], dispatch_f [15,18], dw [16,17], dispatch_b [18,21], mlp_f
 * [18,19], combine_f [21,24], pre_b [21,22]: period 12 = the all-to-alls alone (serial
 * 17), 5 s of overlap: 12 + 5 s / (1 + s).
 * Share of merged passes: without pipelining all but 1 of 8 micro-batches; PP 8 with 4
 * virtual stages and 128 micro-batches, 512 chunk passes less 7 + 3 x 8 = 31 warm-up. */
static void test_ep_overlap_schedule(void **state) {
    (void)state;
    struct aug_ep_nodes n;
    memset(&n, 0, sizeof n);
    n.f[AUG_EP_NODE_PRE] = 2, n.f[AUG_EP_NODE_DISPATCH] = 1, n.f[AUG_EP_NODE_MLP] = 2;
    n.f[AUG_EP_NODE_COMBINE] = 1;
    n.b[AUG_EP_NODE_COMBINE] = 1, n.b[AUG_EP_NODE_MLP] = 2, n.b[AUG_EP_NODE_MLP_DW] = 2;
    n.b[AUG_EP_NODE_DISPATCH] = 1, n.b[AUG_EP_NODE_PRE] = 4;
    assert_rel(aug_ep_overlap_layer_s(&n, 0.0), 12.0, 1e-12);
    assert_rel(aug_ep_overlap_layer_s(&n, 0.19), 12.0 + 4.0 * 0.19 / 1.19, 1e-12);
    memset(&n, 0, sizeof n);
    n.f[AUG_EP_NODE_PRE] = 1, n.f[AUG_EP_NODE_DISPATCH] = 3, n.f[AUG_EP_NODE_MLP] = 1;
    n.f[AUG_EP_NODE_COMBINE] = 3;
    n.b[AUG_EP_NODE_COMBINE] = 3, n.b[AUG_EP_NODE_MLP] = 1, n.b[AUG_EP_NODE_MLP_DW] = 1;
    n.b[AUG_EP_NODE_DISPATCH] = 3, n.b[AUG_EP_NODE_PRE] = 1;
    assert_rel(aug_ep_overlap_layer_s(&n, 0.0), 12.0, 1e-12);
    assert_rel(aug_ep_overlap_layer_s(&n, 0.19), 12.0 + 5.0 * 0.19 / 1.19, 1e-12);
    /* however slow the shared SMs make the compute, never the serial 17 s or more */
    assert_true(aug_ep_overlap_layer_s(&n, 1e9) < 17.0);
    memset(&n, 0, sizeof n);
    assert_rel(aug_ep_overlap_layer_s(&n, 0.19), 0.0, 0);
    assert_rel(aug_ep_overlap_steady_share(8, 1, 1), 7.0 / 8.0, 1e-15);
    assert_rel(aug_ep_overlap_steady_share(128, 8, 4), (512.0 - 31.0) / 512.0, 1e-15);
    assert_rel(aug_ep_overlap_steady_share(1, 1, 1), 0.0, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulas),
        cmocka_unit_test(test_tp_overlap),
        cmocka_unit_test(test_dp_buckets),
        cmocka_unit_test(test_pp_overlap),
        cmocka_unit_test(test_never_faster_than_slowest),
        cmocka_unit_test(test_ep_overlap_schedule),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
