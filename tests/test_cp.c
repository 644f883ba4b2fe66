/* SPDX-License-Identifier: Apache-2.0 */
/* test_cp.c - context parallelism (plan.h, layer_graph.c) against hand derivations.
 *
 * Ring attention (Liu et al. 2023; Megatron-CP): a rank holds n = N / cp tokens; cp - 1
 * times per layer it passes its K and V block (2 b n kv_heads d bytes-per-element) to the
 * next rank while computing attention on the block it holds, so the exchange is exposed
 * only when a transfer outlasts a block's compute. Backward: K, V and the accumulating
 * dK, dV travel together (cp - 1 hops of two blocks) and dK, dV take one more hop home:
 * (2 cp - 1) blocks in all. With the causal mask, rank r holds chunks r and 2cp-1-r of 2cp,
 * so every rank computes n (N + 1) / 2 query-key pairs per head and all ranks together
 * N (N + 1) / 2.
 * Ulysses (Jacobs et al. 2023, arXiv 2309.14509, sec. 3): all-to-all of Q, K, V before and
 * O after attention; with MHA each GPU sends 4 N h / P elements per layer forward.
 * All-gather CP (Llama 3, arXiv 2407.21783, sec. 3.3.2): K and V of the whole sequence. */
#include "aug_test.h"

#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"
#include "augur/units.h"

#include "model/layer_graph.h"
#include "model/memory.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system h100;
static struct aug_model llama2, llama3;
static struct aug_graph g;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK ||
        aug_model_load(DATA_ROOT, "llama2-7b", &llama2) != AUG_OK ||
        aug_model_load(DATA_ROOT, "llama3-8b", &llama3) != AUG_OK)
        return -1;
    return 0;
}

static struct aug_plan cp_plan(long gpus, long tp, long cp, long seq, enum aug_cp_algo algo) {
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = gpus;
    p.tp = tp;
    p.cp = cp;
    p.sp = tp > 1;
    p.seq = seq;
    p.micro_batch = 1;
    p.global_batch = 8;
    p.cp_algo = algo;
    return p;
}

static void resolve(struct aug_plan *p, const struct aug_model *m, const struct aug_system *s) {
    if (aug_plan_resolve(p, m, s) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
}

static const struct aug_graph_op *find(const struct aug_graph_op *ops, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].op.name, name) == 0)
            return &ops[i];
    fail_msg("no op '%s' in the graph", name);
    return NULL;
}

static double op_time(const struct aug_system *s, const struct aug_op *op) {
    struct aug_op_ctx ctx = {s, NULL, 0};
    struct aug_op_time t;
    assert_int_equal(aug_op_time(&ctx, op, &t), AUG_OK);
    return t.time_s;
}

static struct aug_train_result predict(const struct aug_model *m, const struct aug_system *s,
                                       struct aug_plan *p) {
    resolve(p, m, s);
    struct aug_train_options o = {NULL, 0, NULL, 0.0};
    struct aug_train_result r;
    if (aug_train_predict(m, s, p, &o, &r) != AUG_OK)
        fail_msg("predict: %s", aug_last_error());
    return r;
}

static void test_ring_steps_and_bytes(void **state) {
    (void)state;
    /* Llama-2-7B (32 heads of 128, MHA), 16384 tokens on cp 4: n = 4096 per rank, one K,V
     * block = 2 x 4096 x 32 x 128 x 2 bytes = 64 MiB */
    struct aug_plan p = cp_plan(8, 1, 4, 16384, AUG_CP_RING);
    resolve(&p, &llama2, &h100);
    aug_graph_layer(&llama2, &p, &h100, &g);
    double kv = 2.0 * 4096.0 * 32.0 * 128.0 * 2.0;
    const struct aug_graph_op *f = find(g.fwd, g.n_fwd, "cp_kv_ring");
    assert_near(f->op.size_bytes, kv, 0);
    assert_near(f->op.count, 3, 0);
    assert_int_equal(f->op.coll, AUG_COLL_SEND_RECV);
    assert_int_equal(f->ovl, AUG_OVL_RING);
    assert_int_equal(f->ovl_n, 4);
    /* step 0: the causal kernel of the rank's two local chunks, n (n + 1) / 2 pairs; the
     * other 3 steps: unmasked kernels of 4096 queries against 2048 keys (TE's
     * load-balanced ring: each arriving chunk pair is half in the past of every query) */
    const struct aug_graph_op *att = find(g.fwd, g.n_fwd, "attn_fwd");
    const struct aug_graph_op *rest = find(g.fwd, g.n_fwd, "attn_fwd_ring");
    assert_int_equal(att->group, f->group); /* the blocks compute while the ring moves */
    assert_int_equal(rest->group, f->group);
    assert_near(att->op.count, 1, 0);
    assert_near(att->op.seq_q, 4096, 0);
    assert_near(att->op.seq_kv, 4096, 0);
    assert_int_equal(att->op.causal, 1);
    assert_near(att->op.flops, 4.0 * 32.0 * 4096.0 * 4097.0 / 2.0 * 128.0, 0);
    assert_near(rest->op.count, 3, 0);
    assert_near(rest->op.seq_q, 4096, 0);
    assert_near(rest->op.seq_kv, 2048, 0);
    assert_int_equal(rest->op.causal, 0);
    assert_near(rest->op.flops, 4.0 * 32.0 * 4096.0 * 2048.0 * 128.0, 0);
    /* causal balance: this rank's 4 block kernels compute n (N + 1) / 2 pairs per head */
    double pairs = 4096.0 * 16385.0 / 2.0;
    assert_rel(att->op.flops + rest->op.flops * rest->op.count, 4.0 * 32.0 * pairs * 128.0,
               1e-15);
    /* ... and the 4 ranks together the whole causal triangle N (N + 1) / 2 */
    assert_rel(4.0 * pairs, 16384.0 * 16385.0 / 2.0, 1e-15);
    /* backward: 3 hops of K, V plus dK, dV, then dK, dV home: 7 blocks */
    const struct aug_graph_op *b = find(g.bwd, g.n_bwd, "cp_kv_ring_bwd");
    const struct aug_graph_op *home = find(g.bwd, g.n_bwd, "cp_dkv_home");
    assert_near(b->op.size_bytes * b->op.count + home->op.size_bytes * home->op.count,
                (2.0 * 4.0 - 1.0) * kv, 0);
    assert_int_equal(b->group, find(g.bwd, g.n_bwd, "attn_bwd")->group);
    assert_int_equal(b->group, find(g.bwd, g.n_bwd, "attn_bwd_ring")->group);
    assert_int_equal(home->group, 0); /* nothing left to hide it behind */
}

/* One step of the ring's attention: the causal step and the cp - 1 unmasked ones, averaged
 * (the ring overlaps each hop with a step, train/overlap.c aug_ovl_ring). */
static double ring_step_s(const struct aug_system *s, const struct aug_graph *gr, int bwd) {
    const struct aug_graph_op *a = bwd ? find(gr->bwd, gr->n_bwd, "attn_bwd")
                                       : find(gr->fwd, gr->n_fwd, "attn_fwd");
    const struct aug_graph_op *r = bwd ? find(gr->bwd, gr->n_bwd, "attn_bwd_ring")
                                       : find(gr->fwd, gr->n_fwd, "attn_fwd_ring");
    return (op_time(s, &a->op) * a->op.count + op_time(s, &r->op) * r->op.count) /
           (a->op.count + r->op.count);
}

static void test_ring_exposed_only_when_slower(void **state) {
    (void)state;
    /* no slowdown: inside one DGX a 64 MiB hop (195.6 us) is shorter than a step of
     * attention forward (~230 us: the causal step and the 3 unmasked ones, averaged) and
     * backward: only the dK, dV trip home shows, once per layer and micro-batch: 4
     * micro-batches x 32 layers */
    struct aug_plan p = cp_plan(8, 1, 4, 16384, AUG_CP_RING);
    p.comm_slowdown = 0;
    struct aug_train_result r = predict(&llama2, &h100, &p);
    aug_graph_layer(&llama2, &p, &h100, &g);
    const struct aug_graph_op *f = find(g.fwd, g.n_fwd, "cp_kv_ring");
    double m = op_time(&h100, &f->op), c = ring_step_s(&h100, &g, 0);
    assert_rel(m, 1.9e-6 + 64.0 * 1024 * 1024 / (450e9 * 0.77), 1e-12);
    assert_true(m < c);
    double home = op_time(&h100, &find(g.bwd, g.n_bwd, "cp_dkv_home")->op);
    assert_rel(r.breakdown.cp_comm_s, 4.0 * 32.0 * home, 1e-9);
    /* a ten times slower NVLink: every forward hop waits m - c beyond its block */
    struct aug_system slow = h100;
    slow.link[AUG_LINK_NVLINK].bw_gbps /= 10.0;
    struct aug_train_result rs = predict(&llama2, &slow, &p);
    aug_graph_layer(&llama2, &p, &slow, &g);
    double ms = op_time(&slow, &find(g.fwd, g.n_fwd, "cp_kv_ring")->op);
    double mb = op_time(&slow, &find(g.bwd, g.n_bwd, "cp_kv_ring_bwd")->op);
    c = ring_step_s(&slow, &g, 0);
    double cb = ring_step_s(&slow, &g, 1);
    double homes = op_time(&slow, &find(g.bwd, g.n_bwd, "cp_dkv_home")->op);
    assert_true(ms > c);
    double per_layer = 3.0 * (ms - c) + 3.0 * fmax(0.0, mb - cb) + homes;
    assert_rel(rs.breakdown.cp_comm_s, 4.0 * 32.0 * per_layer, 1e-9);
    /* the slowdown of compute under the hidden hops is charged to the exchange */
    p.comm_slowdown = 0.19;
    struct aug_train_result r19 = predict(&llama2, &h100, &p);
    assert_rel(r19.breakdown.cp_comm_s - r.breakdown.cp_comm_s,
               4.0 * 32.0 * 3.0 * (m * 0.19 / 1.19 +
                                   op_time(&h100, &find(g.bwd, g.n_bwd, "cp_kv_ring_bwd")->op) *
                                       0.19 / 1.19),
               1e-6);
}

static void test_ulysses_all_to_all(void **state) {
    (void)state;
    struct aug_plan p = cp_plan(8, 1, 4, 16384, AUG_CP_ULYSSES);
    resolve(&p, &llama2, &h100);
    aug_graph_layer(&llama2, &p, &h100, &g);
    double qkv = find(g.fwd, g.n_fwd, "cp_a2a_qkv")->op.size_bytes;
    double o = find(g.fwd, g.n_fwd, "cp_a2a_o")->op.size_bytes;
    assert_near(qkv, 4096.0 * 128.0 * 2.0 * (32.0 + 2.0 * 32.0), 0);
    assert_near(o, 4096.0 * 128.0 * 2.0 * 32.0, 0);
    /* Jacobs et al.: 4 N h / P elements per GPU per layer (forward), N 16384, h 4096, P 4 */
    assert_near(qkv + o, 4.0 * 16384.0 * 4096.0 / 4.0 * 2.0, 0);
    assert_near(find(g.bwd, g.n_bwd, "cp_a2a_do")->op.size_bytes, o, 0);
    assert_near(find(g.bwd, g.n_bwd, "cp_a2a_dqkv")->op.size_bytes, qkv, 0);
    /* attention on the whole sequence with 32 / 4 heads */
    const struct aug_graph_op *att = find(g.fwd, g.n_fwd, "attn_fwd");
    assert_near(att->op.batch_heads, 8, 0);
    assert_near(att->op.seq_q, 16384, 0);
    assert_rel(att->op.flops, 4.0 * 8.0 * 16384.0 * 16385.0 / 2.0 * 128.0, 1e-15);
    /* the same attention work per rank as the ring: a quarter of the heads, all pairs */
    struct aug_plan pr = cp_plan(8, 1, 4, 16384, AUG_CP_RING);
    resolve(&pr, &llama2, &h100);
    static struct aug_graph gr;
    aug_graph_layer(&llama2, &pr, &h100, &gr);
    const struct aug_graph_op *ar = find(gr.fwd, gr.n_fwd, "attn_fwd");
    const struct aug_graph_op *rest = find(gr.fwd, gr.n_fwd, "attn_fwd_ring");
    assert_rel(att->op.flops, ar->op.flops * ar->op.count + rest->op.flops * rest->op.count,
               1e-12); /* per rank */
    /* heads must split over cp: 32 / 8 = 4 heads per TP rank cannot go to 8 CP ranks */
    struct aug_plan bad = cp_plan(64, 8, 8, 16384, AUG_CP_ULYSSES);
    assert_int_equal(aug_plan_resolve(&bad, &llama2, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "ulysses"));
}

static void test_allgather(void **state) {
    (void)state;
    struct aug_plan p = cp_plan(8, 1, 4, 16384, AUG_CP_ALLGATHER);
    resolve(&p, &llama2, &h100);
    aug_graph_layer(&llama2, &p, &h100, &g);
    const struct aug_graph_op *ag = find(g.fwd, g.n_fwd, "cp_kv_all_gather");
    assert_near(ag->op.size_bytes, 2.0 * 16384.0 * 32.0 * 128.0 * 2.0, 0);
    assert_int_equal(ag->op.ranks, 4);
    assert_near(find(g.bwd, g.n_bwd, "cp_dkv_reduce_scatter")->op.size_bytes, ag->op.size_bytes, 0);
    /* two causal kernels per layer, one per local chunk of n/2 = 2048 queries (chunks r
     * and 7 - r of 8): keys up to (r + 1) 2048 and (8 - r) 2048, whose mean is
     * (16384 + 2048) / 2 = 9216; together n (N + 1) / 2 pairs per head */
    const struct aug_graph_op *att = find(g.fwd, g.n_fwd, "attn_fwd");
    assert_near(att->op.count, 2, 0);
    assert_near(att->op.seq_q, 2048, 0);
    assert_near(att->op.seq_kv, 9216, 0);
    assert_rel(att->op.flops * att->op.count, 4.0 * 32.0 * 4096.0 * 16385.0 / 2.0 * 128.0,
               1e-15);
    /* tiles of 128 queries x 64 keys (FA2 forward): query block i of a chunk reaches key
     * (9216 - 2048) + 128 (i + 1), i.e. 112 + 2 (i + 1) blocks: 16 x 112 + 2 x 136 = 2064
     * per chunk, against 7200 for one kernel of all 4096 queries over 16384 keys
     * (32 x 192 + 2 x 528), at the causal kernels' rate. The ring's causal step visits
     * 2 x 528 = 1056 blocks and its 3 unmasked steps of 4096 x 2048 32 x 32 each at the
     * unmasked kernels' 1.130926 times that rate (test_kernel_model.c): the chunk kernels
     * take 4128 / (1056 + 3072 / 1.130926) = 1.0943 of the ring's time */
    struct aug_plan pr = cp_plan(8, 1, 4, 16384, AUG_CP_RING);
    resolve(&pr, &llama2, &h100);
    static struct aug_graph gr;
    aug_graph_layer(&llama2, &pr, &h100, &gr);
    const struct aug_graph_op *ring = find(gr.fwd, gr.n_fwd, "attn_fwd");
    const struct aug_graph_op *rest = find(gr.fwd, gr.n_fwd, "attn_fwd_ring");
    double t_ag = op_time(&h100, &att->op) * att->op.count;
    double t_ring = op_time(&h100, &ring->op) * ring->op.count +
                    op_time(&h100, &rest->op) * rest->op.count;
    assert_rel(t_ag / t_ring, 4128.0 / (1056.0 + 3072.0 / 1.130926), 0.01);
}

static void test_memory_falls_with_cp(void **state) {
    (void)state;
    /* the same 32K sequence: cp 2 keeps half the activations per GPU, cp 4 a quarter */
    double act[3];
    for (int i = 0; i < 3; i++) {
        long cp = 1L << i;
        struct aug_plan p = cp_plan(8 * cp, 8, cp, 32768, AUG_CP_RING);
        resolve(&p, &llama3, &h100);
        act[i] = aug_train_layer_activation_bytes(&llama3, &p);
    }
    assert_rel(act[1], act[0] / 2.0, 1e-12);
    assert_rel(act[2], act[0] / 4.0, 1e-12);
    /* context-parallel ranks hold the same weights: ZeRO-1 shards Adam states over
     * dp * cp = 2 x 4 ranks */
    struct aug_plan p = cp_plan(64, 8, 4, 32768, AUG_CP_RING);
    p.zero = 1;
    resolve(&p, &llama3, &h100);
    assert_int_equal(p.dp, 2);
    struct aug_train_memory mem;
    aug_train_memory(&llama3, &h100, &p, &mem);
    assert_rel(mem.optimizer_gib * AUG_GIB, 12.0 * aug_train_stage_params_per_gpu(&llama3, &p, 0) / 8.0,
               1e-12);
}

static void test_128k(void **state) {
    (void)state;
    /* Llama 3 8B at 131072 tokens on 64 H100: tp 8, cp 8 (16384 tokens per rank) */
    struct aug_plan p = cp_plan(64, 8, 8, 131072, AUG_CP_RING);
    p.global_batch = 8;
    struct aug_train_result r = predict(&llama3, &h100, &p);
    assert_int_equal(r.fits_in_memory, 1);
    assert_true(r.breakdown.attention_s > r.breakdown.compute_s); /* quadratic work wins */
    /* without CP the same sequence does not fit */
    struct aug_plan p1 = cp_plan(8, 8, 1, 131072, AUG_CP_RING);
    p1.global_batch = 8;
    struct aug_train_result r1 = predict(&llama3, &h100, &p1);
    assert_int_equal(r1.fits_in_memory, 0);
    assert_true(r1.memory.activations_gib > 7.0 * r.memory.activations_gib);
    /* the three algorithms do the same attention work */
    for (int a = 0; a < AUG_CP_COUNT; a++) {
        struct aug_plan q = cp_plan(64, 8, 8, 131072, (enum aug_cp_algo)a);
        if (a == AUG_CP_ULYSSES) { /* 32 / 8 = 4 heads per TP rank: ulysses needs tp 4 */
            q = cp_plan(64, 4, 8, 131072, AUG_CP_ULYSSES);
            q.global_batch = 16;
        }
        struct aug_train_result ra = predict(&llama3, &h100, &q);
        assert_rel(ra.model_flops, a == AUG_CP_ULYSSES ? 2.0 * r.model_flops : r.model_flops, 1e-12);
    }
    /* MatMul-free recurrences carry state token to token: no CP */
    struct aug_model mmf;
    assert_int_equal(aug_model_load(DATA_ROOT, "matmulfree-370m", &mmf), AUG_OK);
    struct aug_plan pm = cp_plan(8, 1, 2, 4096, AUG_CP_RING);
    assert_int_equal(aug_plan_resolve(&pm, &mmf, &h100), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "--cp 2"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_steps_and_bytes),
        cmocka_unit_test(test_ring_exposed_only_when_slower),
        cmocka_unit_test(test_ulysses_all_to_all),
        cmocka_unit_test(test_allgather),
        cmocka_unit_test(test_memory_falls_with_cp),
        cmocka_unit_test(test_128k),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
