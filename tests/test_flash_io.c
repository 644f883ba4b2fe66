/* SPDX-License-Identifier: Apache-2.0 */
/* test_flash_io.c - the attention IO model against Dao et al. 2022 (FlashAttention,
 * arXiv 2205.14135) and FlashAttention-2 (Dao 2023, arXiv 2307.08691).
 *
 * Theorem 2: with sequence length N, head dimension d and SRAM of M elements, standard
 * attention makes Theta(Nd + N^2) HBM accesses and FlashAttention Theta(N^2 d^2 / M).
 * Algorithm 1, line 1 sets the blocks B_c = ceil(M / 4d), B_r = min(B_c, d). In the
 * forward (FA2 loop order) every query block streams all of K and V once: 2 N d T_r
 * elements with T_r = N / B_r; when B_r = M / 4d < d that is 8 N^2 d^2 / M exactly.
 * Algorithm 0 (standard attention) moves 2 N d (Q, K) + N^2 (S) + 2 N^2 (softmax) + N^2 +
 * N d (P, V) + N d (O) = 4 N d + 4 N^2 elements forward; its backward (Appendix B.3,
 * Algorithm 3) 8 N d + 7 N^2. Causal masking computes N (N + 1) / 2 of the N^2 pairs. */
#include "aug_test.h"

#include "augur/attention.h"
#include "augur/model.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"

#include "model/layer_graph.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system a100, h100;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-a100-80g", &a100) != AUG_OK ||
        aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK)
        return -1;
    return 0;
}

static struct aug_attn_shape shape(double N, double d, int causal) {
    struct aug_attn_shape a;
    memset(&a, 0, sizeof a);
    a.batch = 1;
    a.heads = 1;
    a.kv_heads = 1;
    a.seq_q = N;
    a.seq_kv = N;
    a.head_dim = d;
    a.causal = causal;
    a.elem_bytes = 2;
    return a;
}

static void test_block_sizes_from_sram(void **state) {
    (void)state;
    struct aug_attn_io io;
    struct aug_attn_shape a = shape(4096, 128, 0);
    /* A100: 164 KiB of shared memory per SM = 83,968 bf16 elements: B_c = ceil(83968 / 512)
     * = 164, B_r = min(164, 128) = 128 */
    assert_near(a100.gpu.smem_kib_per_sm, 164, 0);
    aug_attention_io(&a, a100.gpu.smem_kib_per_sm * 1024.0, 1, &io);
    assert_near(io.sram_elems, 83968, 0);
    assert_near(io.block_c, 164, 0);
    assert_near(io.block_r, 128, 0);
    assert_near(io.t_r, 32, 0);
    assert_near(io.t_c, 25, 0); /* ceil(4096 / 164) */
    /* H100: 228 KiB = 116,736 elements: B_c = 228; head dim 64: B_c = 456, B_r = 64 */
    aug_attention_io(&a, h100.gpu.smem_kib_per_sm * 1024.0, 1, &io);
    assert_near(io.block_c, 228, 0);
    a.head_dim = 64;
    aug_attention_io(&a, h100.gpu.smem_kib_per_sm * 1024.0, 1, &io);
    assert_near(io.block_c, 456, 0);
    assert_near(io.block_r, 64, 0);
}

static void test_theorem2_forward(void **state) {
    (void)state;
    /* M = 4 d x 32 elements: B_c = B_r = 32 < d, the regime of the theorem's bound */
    double d = 128, M = 4.0 * d * 32.0;
    struct aug_attn_io io;
    for (double N = 1024; N <= 16384; N *= 2) {
        struct aug_attn_shape a = shape(N, d, 0);
        aug_attention_io(&a, M * 2.0, 1, &io);
        assert_near(io.block_r, 32, 0);
        assert_near(io.kv_fetches, N / 32.0, 0);
        double kv_traffic = io.fwd_bytes - 2.0 * (2.0 * N * d) - 4.0 * N; /* less Q, O, LSE */
        assert_rel(kv_traffic, 2.0 * 8.0 * N * N * d * d / M, 1e-12);
        /* and the total is Q and O once, K and V per query block, fp32 log-sum-exp */
        assert_rel(io.fwd_bytes, 2.0 * (2.0 * N * d + 2.0 * N * d * N / 32.0) + 4.0 * N, 1e-12);
    }
    /* twice the SRAM halves the quadratic term */
    struct aug_attn_shape a = shape(8192, d, 0);
    struct aug_attn_io small, big;
    aug_attention_io(&a, M * 2.0, 1, &small);
    aug_attention_io(&a, 2.0 * M * 2.0, 1, &big);
    double q_o_lse = 2.0 * (2.0 * 8192 * d) + 4.0 * 8192;
    assert_rel(big.fwd_bytes - q_o_lse, (small.fwd_bytes - q_o_lse) / 2.0, 1e-12);
}

static void test_causal_pairs_and_flops(void **state) {
    (void)state;
    struct aug_attn_io io;
    struct aug_attn_shape a = shape(2048, 128, 1);
    a.batch = 2;
    a.heads = 16;
    a.kv_heads = 4;
    aug_attention_io(&a, 228 * 1024.0, 132, &io);
    assert_near(io.pairs, 2048.0 * 2049.0 / 2.0, 0);
    assert_near(aug_attention_causal_pairs(2048, 2048), 2048.0 * 2049.0 / 2.0, 0);
    /* queries at the end of a longer context (chunked prefill): 512 x 1536 + 512 x 513 / 2 */
    assert_near(aug_attention_causal_pairs(512, 2048), 512.0 * 1536.0 + 512.0 * 513.0 / 2.0, 0);
    /* QK^T and PV: 2 x 2d FLOPs per pair and head; backward 5 matmuls to forward's 2 */
    assert_rel(io.fwd_flops, 4.0 * 2.0 * 16.0 * 2048.0 * 2049.0 / 2.0 * 128.0, 1e-15);
    assert_rel(io.bwd_flops, 2.5 * io.fwd_flops, 1e-15);
    /* causal re-reads visit half the key blocks: 1 + (T_r - 1)(N + 1)/(2N) with no sharing */
    aug_attention_io(&a, 228 * 1024.0, 1, &io);
    double Tr = 2048.0 / 128.0;
    assert_rel(io.kv_fetches, 1.0 + (16.0 / 4.0 * Tr - 1.0) * 2049.0 / 4096.0, 1e-12);
}

static void test_l2_sharing(void **state) {
    (void)state;
    /* 2048 tokens, GQA 32/8, head dim 128 on 132 SMs: the 4 x 16 query-block CTAs of one KV
     * head run in one wave and share one fetch: only compulsory traffic remains */
    struct aug_attn_shape a = shape(2048, 128, 1);
    a.heads = 32;
    a.kv_heads = 8;
    struct aug_attn_io io;
    aug_attention_io(&a, 228 * 1024.0, 132, &io);
    assert_near(io.kv_fetches, 1, 0);
    double e = 2, N = 2048, d = 128;
    assert_rel(io.fwd_bytes, e * (2.0 * 32.0 * N * d + 2.0 * 8.0 * N * d) + 4.0 * 32.0 * N, 1e-15);
    /* 128K tokens, one head: 1024 query blocks, 8 waves of 132 CTAs: K and V fetched 8
     * times on the causal half past the first */
    a = shape(131072, 128, 1);
    aug_attention_io(&a, 228 * 1024.0, 132, &io);
    assert_near(io.t_r, 1024, 0);
    assert_rel(io.kv_fetches, 1.0 + 7.0 * 131073.0 / 262144.0, 1e-12);
}

static void test_backward_recompute(void **state) {
    (void)state;
    /* Algorithm 2 line by line for one head, N = 1024, d = 64, M = 4 d x 16 (B_c = 16,
     * T_c = 64), no sharing, no mask, e = 2:
     *   D = rowsum(dO o O):            read O, dO (2 N d e), write D (4 N)
     *   per key block: K_j, V_j once:  2 N d e;  dK_j, dV_j written once: 2 N d e
     *   per key block, every query block: Q_i, dO_i (2 d e), L_i, D_i (8), dQ_i fp32 read
     *   and written (8 d) per row:     T_c N (2 d e + 8 + 8 d)
     *   dQ zeroed, read and written back in 16 bits: N d (4 + 4 + e) */
    double N = 1024, d = 64, e = 2, M = 4.0 * d * 16.0, Tc = 64;
    struct aug_attn_shape a = shape(N, d, 0);
    struct aug_attn_io io;
    aug_attention_io(&a, M * e, 1, &io);
    assert_near(io.t_c, Tc, 0);
    double expect = 2.0 * N * d * e + 4.0 * N + 2.0 * N * d * e + 2.0 * N * d * e +
                    Tc * N * (2.0 * d * e + 8.0 + 8.0 * d) + N * d * (8.0 + e);
    assert_rel(io.bwd_bytes, expect, 1e-15);
    /* the streamed part is Theta(N^2 d^2 / M) as well: twice N, four times the stream */
    struct aug_attn_io io2;
    struct aug_attn_shape a2 = shape(2.0 * N, d, 0);
    aug_attention_io(&a2, M * e, 1, &io2);
    double lin = 6.0 * N * d * e + 4.0 * N + N * d * (8.0 + e);
    assert_rel(io2.bwd_bytes - 2.0 * lin, 4.0 * (io.bwd_bytes - lin), 1e-12);
}

static void test_unfused_writes_scores(void **state) {
    (void)state;
    double N = 4096, d = 128, e = 2;
    struct aug_attn_shape a = shape(N, d, 1);
    struct aug_attn_io io;
    aug_attention_io(&a, 228 * 1024.0, 132, &io);
    assert_rel(io.unfused_fwd_bytes, e * (4.0 * N * d + 4.0 * N * N), 1e-15);
    assert_rel(io.unfused_bwd_bytes, e * (8.0 * N * d + 7.0 * N * N), 1e-15);
    /* FlashAttention moves about N / d times less: the score matrix never reaches HBM */
    assert_rel(io.fwd_bytes, e * 4.0 * N * d + 4.0 * N, 1e-15);
    assert_true(io.unfused_fwd_bytes / io.fwd_bytes > 0.9 * N / d);
}

/* Sum of the bytes of a list's attention-category ops. */
static double attn_bytes(const struct aug_graph_op *ops, int n) {
    double b = 0;
    for (int i = 0; i < n; i++)
        if (ops[i].cat == AUG_CAT_ATTENTION)
            b += ops[i].op.bytes * ops[i].op.count;
    return b;
}

static void test_graph_uses_io_model(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_load(DATA_ROOT, "llama2-7b", &m), AUG_OK); /* no dropout */
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.micro_batch = 2;
    p.global_batch = 16;
    p.seq = 4096;
    assert_int_equal(aug_plan_resolve(&p, &m, &h100), AUG_OK);
    static struct aug_graph g;
    aug_graph_layer(&m, &p, &h100, &g);
    struct aug_attn_shape a = shape(4096, 128, 1);
    a.batch = 2;
    a.heads = 32;
    a.kv_heads = 32;
    struct aug_attn_io io;
    aug_attention_io(&a, 228 * 1024.0, 132, &io);
    assert_rel(attn_bytes(g.fwd, g.n_fwd), io.fwd_bytes, 1e-15);
    assert_rel(attn_bytes(g.bwd, g.n_bwd), io.bwd_bytes, 1e-15);
    /* the unfused path's ops are Algorithm 0 and Algorithm 3 exactly */
    p.flash_attention = 0;
    aug_graph_layer(&m, &p, &h100, &g);
    assert_rel(attn_bytes(g.fwd, g.n_fwd), io.unfused_fwd_bytes, 1e-15);
    assert_rel(attn_bytes(g.bwd, g.n_bwd), io.unfused_bwd_bytes, 1e-15);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_sizes_from_sram),
        cmocka_unit_test(test_theorem2_forward),
        cmocka_unit_test(test_causal_pairs_and_flops),
        cmocka_unit_test(test_l2_sharing),
        cmocka_unit_test(test_backward_recompute),
        cmocka_unit_test(test_unfused_writes_scores),
        cmocka_unit_test(test_graph_uses_io_model),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
