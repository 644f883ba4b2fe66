/* SPDX-License-Identifier: Apache-2.0 */
/* test_infer.c - the serving model against hand computation: KV-cache bytes of GQA models
 * (Llama-2-70B: 2 x 80 layers x 8 KV heads x 128 x 2 bytes per token), the HBM bytes of a
 * decode step (every linear weight, the LM head and the whole KV cache, once), the decode
 * step at the roofline (bytes / bandwidth), weight quantization, the two TP all-reduces per
 * layer and their bytes, the largest batch at the memory limit, the bound analysis, the
 * serving modes (Little's law of the continuous estimate, the KV transfer of
 * disaggregation), and the named errors of bad plans. */
#include "aug_test.h"

#include "augur/infer.h"
#include "augur/model.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/units.h"

#include "infer/infer_graph.h"

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

static struct aug_model preset(const char *name) {
    struct aug_model m;
    if (aug_model_load(DATA_ROOT, name, &m) != AUG_OK)
        fail_msg("model '%s': %s", name, aug_last_error());
    return m;
}

static struct aug_infer_plan plan(long gpus, long tp, long batch, long in, long out,
                                  enum aug_dtype dt) {
    struct aug_infer_plan p;
    aug_infer_plan_init(&p);
    p.gpus = gpus;
    p.tp = tp;
    p.batch = batch;
    p.input_len = in;
    p.output_len = out;
    p.dtype = dt;
    return p;
}

static void resolve(struct aug_infer_plan *p, const struct aug_model *m, const struct aug_system *s) {
    if (aug_infer_plan_resolve(p, m, s) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
}

static struct aug_infer_result predict(const struct aug_model *m, const struct aug_system *s,
                                       struct aug_infer_plan *p, int roofline) {
    resolve(p, m, s);
    struct aug_infer_options opt = {NULL, roofline};
    struct aug_infer_result r;
    if (aug_infer_predict(m, s, p, &opt, &r) != AUG_OK)
        fail_msg("predict: %s", aug_last_error());
    return r;
}

/* Llama-2-70B: 2 * 80 * 8 * 128 * 2 = 327,680 bytes per token in bf16; a batch of 16
 * sequences of 4,096 tokens holds 16 * 4096 * 327680 = 20 GiB, 5 GiB per GPU at TP 4
 * (2 KV heads each), half of that in fp8. MHA would need 64/8 = 8 times more. */
static void test_kv_cache_llama2_70b(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-70b");
    assert_int_equal(m.kv_heads, 8);
    assert_near(aug_infer_kv_bytes_per_token(&m, AUG_DTYPE_BF16), 327680.0, 0);
    assert_near(aug_infer_kv_bytes_per_token(&m, AUG_DTYPE_FP8), 163840.0, 0);
    struct aug_infer_plan p = plan(4, 4, 16, 2048, 2048, AUG_DTYPE_BF16);
    resolve(&p, &m, &h100);
    struct aug_infer_memory mem;
    aug_infer_memory(&m, &h100, &p, &mem);
    assert_near(mem.kv_cache_gib, 5.0, 1e-12);
    p = plan(4, 4, 16, 2048, 2048, AUG_DTYPE_BF16);
    p.kv_dtype = AUG_DTYPE_FP8;
    resolve(&p, &m, &h100);
    aug_infer_memory(&m, &h100, &p, &mem);
    assert_near(mem.kv_cache_gib, 2.5, 1e-12);
    /* TP 16 > 8 KV heads: every rank keeps one KV head (a copy), 80 * 2 * 128 * 2 bytes */
    struct aug_model mha = m;
    mha.kv_heads = 64;
    assert_near(aug_infer_kv_bytes_per_token(&mha, AUG_DTYPE_BF16), 8.0 * 327680.0, 0);
    struct aug_model mqa = m;
    mqa.kv_heads = 1;
    assert_near(aug_infer_kv_bytes_per_token(&mqa, AUG_DTYPE_BF16), 327680.0 / 8.0, 0);
}

/* One decode step of Llama-2-7B at batch 1 after a 1,024-token prompt reads every linear
 * weight (per layer 4 * 4096^2 + 3 * 4096 * 11008 = 202,375,168 parameters, times 32
 * layers, 2 bytes), the untied LM head (32000 * 4096 * 2 bytes) and the KV cache of 1,025
 * tokens (32 * 1025 * 2 * 4096 * 2 bytes): 13,751,549,952 bytes. Activations (a few MB)
 * are the rest. */
static void test_decode_bytes_are_weights_plus_kv(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-7b");
    struct aug_infer_plan p = plan(1, 1, 1, 1024, 2, AUG_DTYPE_BF16);
    struct aug_infer_result r = predict(&m, &h100, &p, 0);
    double linear = 32.0 * (4.0 * 4096.0 * 4096.0 + 3.0 * 4096.0 * 11008.0) * 2.0;
    double head = 32000.0 * 4096.0 * 2.0;
    double kv = 32.0 * 1025.0 * 2.0 * 4096.0 * 2.0;
    assert_near(linear + head + kv, 13751549952.0, 0);
    /* the rest: about 0.5 MB of activations and flash-decoding partials per layer */
    assert_true(r.decode_step_bytes > linear + head + kv);
    assert_true(r.decode_step_bytes < linear + head + kv + 32.0 * 0.6e6);
    /* 1,024 more prompt tokens add exactly their cache: 32 * 1024 * 2 * 4096 * 2 bytes */
    struct aug_infer_plan p2 = plan(1, 1, 1, 2048, 2, AUG_DTYPE_BF16);
    struct aug_infer_result r2 = predict(&m, &h100, &p2, 0);
    assert_near(r2.decode_step_bytes - r.decode_step_bytes, 536870912.0, 1e-3);

    /* int4 weights: 0.5 byte plus one 16-bit scale per 128 weights; head stays 16-bit */
    struct aug_infer_plan q = plan(1, 1, 1, 1024, 2, AUG_DTYPE_BF16);
    q.weight_dtype = AUG_DTYPE_INT4;
    struct aug_infer_result rq = predict(&m, &h100, &q, 0);
    double linear4 = linear / 2.0 * (0.5 + 2.0 / 128.0);
    assert_rel(rq.decode_step_bytes, linear4 + head + kv, 5e-3);
    /* fp8 KV halves the cache */
    struct aug_infer_plan k8 = plan(1, 1, 1, 1024, 2, AUG_DTYPE_BF16);
    k8.kv_dtype = AUG_DTYPE_FP8;
    struct aug_infer_result rk = predict(&m, &h100, &k8, 0);
    assert_rel(rk.decode_step_bytes, linear + head + kv / 2.0, 2e-3);
}

/* At the roofline (peak bandwidth, no launch or framework floors) a batch-1 decode step
 * is memory-bound end to end, so its time is its bytes over the HBM bandwidth. */
static void test_decode_roofline_is_bytes_over_bandwidth(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-7b");
    struct aug_infer_plan p = plan(1, 1, 1, 1024, 2, AUG_DTYPE_BF16);
    struct aug_infer_result r = predict(&m, &h100, &p, 1);
    assert_int_equal(r.decode_steps, 1);
    assert_rel(r.tpot_s, r.decode_step_bytes / (3350.0 * 1e9), 1e-9);
    assert_rel(r.e2e_latency_s, r.ttft_s + r.tpot_s, 1e-12);
    assert_rel(r.throughput_tokens_per_s, 2.0 / r.e2e_latency_s, 1e-12);
    assert_rel(r.total_tokens_per_s, 1026.0 / r.e2e_latency_s, 1e-12);
    /* with the defaults, the step is slower than the roofline but within 2x of it */
    struct aug_infer_plan d = plan(1, 1, 1, 1024, 2, AUG_DTYPE_BF16);
    struct aug_infer_result rd = predict(&m, &h100, &d, 0);
    assert_true(rd.tpot_s > r.tpot_s && rd.tpot_s < 2.0 * r.tpot_s);
    /* the mean TPOT over 100 steps lies between the first and the last step */
    struct aug_infer_plan l = plan(1, 1, 8, 1024, 101, AUG_DTYPE_BF16);
    struct aug_infer_result rl = predict(&m, &h100, &l, 0);
    assert_int_equal(rl.decode_steps, 100);
    assert_true(rl.tpot_last_s > rl.tpot_s);
    assert_rel(rl.e2e_latency_s, rl.ttft_s + 100.0 * rl.tpot_s, 1e-12);
}

static int count_ops(const struct aug_infer_gop *ops, int n, const char *name, double *size) {
    int c = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(ops[i].op.name, name) == 0) {
            c++;
            *size = ops[i].op.size_bytes;
        }
    return c;
}

/* The layer op named `name` of a step graph (NULL: none). */
static const struct aug_op *layer_op(const struct aug_infer_graph *g, const char *name) {
    for (int i = 0; i < g->n_layer; i++)
        if (strcmp(g->layer[i].op.name, name) == 0)
            return &g->layer[i].op;
    return NULL;
}

/* Megatron TP: two all-reduces per layer of the step's tokens x hidden x 2 bytes (decode:
 * batch tokens; prefill: batch x input), one for the vocabulary-parallel embedding and an
 * all-gather of the fp32 logits of the sampled rows. TP 1 has none. */
static void test_tp_collectives(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-70b");
    struct aug_infer_plan p = plan(4, 4, 8, 512, 64, AUG_DTYPE_BF16);
    resolve(&p, &m, &h100);
    struct aug_infer_graph g;
    struct aug_infer_step dec = {8, 600, 0, 0, 0, 8};
    aug_infer_graph_build(&m, &h100, &p, &dec, &g);
    double size = 0;
    assert_int_equal(count_ops(g.layer, g.n_layer, "tp_all_reduce", &size), 2);
    assert_near(size, 8.0 * 8192.0 * 2.0, 0);
    assert_int_equal(count_ops(g.head, g.n_head, "emb_all_reduce", &size), 1);
    assert_int_equal(count_ops(g.head, g.n_head, "logits_all_gather", &size), 1);
    assert_near(size, 8.0 * 32000.0 * 4.0, 0);
    struct aug_infer_step pre = {0, 0, 8, 512, 0, 8};
    aug_infer_graph_build(&m, &h100, &p, &pre, &g);
    assert_int_equal(count_ops(g.layer, g.n_layer, "tp_all_reduce", &size), 2);
    assert_near(size, 8.0 * 512.0 * 8192.0 * 2.0, 0);
    for (int i = 0; i < g.n_layer; i++)
        if (g.layer[i].op.kind == AUG_OP_COLLECTIVE)
            assert_int_equal(g.layer[i].op.ranks, 4);
    assert_true(g.n_layer < AUG_INFER_MAX_LAYER_OPS && g.n_head < AUG_INFER_MAX_HEAD_OPS);
    /* the per-GPU GEMM shapes: QKV of 64/4 query and 8/4 KV heads */
    for (int i = 0; i < g.n_layer; i++)
        if (strcmp(g.layer[i].op.name, "qkv") == 0) {
            assert_near(g.layer[i].op.n, (16.0 + 2.0 * 2.0) * 128.0, 0);
            assert_near(g.layer[i].op.m, 8.0 * 512.0, 0);
        }
    struct aug_infer_plan p1 = plan(1, 1, 8, 512, 64, AUG_DTYPE_BF16);
    resolve(&p1, &m, &h100);
    aug_infer_graph_build(&m, &h100, &p1, &dec, &g);
    assert_int_equal(count_ops(g.layer, g.n_layer, "tp_all_reduce", &size), 0);
    assert_int_equal(count_ops(g.head, g.n_head, "logits_all_gather", &size), 0);
    /* their time shows in the breakdown only with TP */
    struct aug_infer_result r4 = predict(&m, &h100, &p, 0);
    assert_true(r4.decode.tp_comm_s > 0 && r4.prefill.tp_comm_s > 0);
}

/* The largest batch: Llama-2-7B in bf16 on one H100 (79.6475 GiB) with 1,024 + 1,024
 * tokens. Each sequence holds 1 GiB of KV cache (32 layers * 2048 tokens * 2 * 4096 * 2
 * bytes) and 32000 * 4 * 2 bytes of logits; the prefill working set is transient, that of
 * the largest context step of 8,192 tokens (eight prompts), 8192 * (2 * 4096 + 3 * 11008)
 * * 2 bytes, whatever the batch; weights are 32 * (202,375,168 * 2 + 2 * 4096 * 2) +
 * 2 * 32000 * 4096 * 2 + 4096 * 2 bytes; workspace 1.5 GiB: 64 sequences (counting every
 * prompt's working set at once, 1024 * (2 * 4096 + 3 * 11008) * 2 bytes per sequence,
 * left 60). */
static void test_max_batch_at_memory_limit(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-7b");
    double weights = 32.0 * (202375168.0 * 2.0 + 2.0 * 4096.0 * 2.0) + 2.0 * 32000.0 * 4096.0 * 2.0 +
                     4096.0 * 2.0;
    double per_seq = AUG_GIB + 32000.0 * 4.0 * 2.0;
    double act = 8192.0 * (2.0 * 4096.0 + 3.0 * 11008.0) * 2.0;
    double cap = h100.gpu.hbm_gib * AUG_GIB;
    long expect = (long)floor((cap - weights - 1.5 * AUG_GIB - act) / per_seq);
    assert_int_equal(expect, 64);
    struct aug_infer_plan p = plan(1, 1, 64, 1024, 1024, AUG_DTYPE_BF16);
    resolve(&p, &m, &h100);
    assert_int_equal(aug_infer_max_batch(&m, &h100, &p), 64);
    struct aug_infer_memory mem;
    aug_infer_memory(&m, &h100, &p, &mem);
    assert_near(mem.weights_gib * AUG_GIB, weights, 1.0);
    assert_true(mem.total_gib <= h100.gpu.hbm_gib);
    p.batch = 65;
    aug_infer_memory(&m, &h100, &p, &mem);
    assert_true(mem.total_gib > h100.gpu.hbm_gib);
    struct aug_infer_result r = predict(&m, &h100, &p, 0);
    assert_false(r.fits_in_memory);
    assert_int_equal(r.max_batch, 64);
    /* two replicas hold twice the batch; int4 weights and fp8 KV make room for more */
    struct aug_infer_plan p2 = plan(2, 1, 2, 1024, 1024, AUG_DTYPE_BF16);
    resolve(&p2, &m, &h100);
    assert_int_equal(aug_infer_max_batch(&m, &h100, &p2), 128);
    struct aug_infer_plan q = plan(1, 1, 1, 1024, 1024, AUG_DTYPE_BF16);
    q.weight_dtype = AUG_DTYPE_INT4;
    q.kv_dtype = AUG_DTYPE_FP8;
    resolve(&q, &m, &h100);
    assert_true(aug_infer_max_batch(&m, &h100, &q) > 110);
    /* weights that do not fit leave no batch */
    struct aug_model big = preset("llama2-70b");
    struct aug_infer_plan b = plan(1, 1, 1, 128, 128, AUG_DTYPE_BF16);
    resolve(&b, &big, &h100);
    assert_int_equal(aug_infer_max_batch(&big, &h100, &b), 0);
}

static void expect_error(const struct aug_model *m, const struct aug_system *s,
                         struct aug_infer_plan *p, int status, const char *needle) {
    int st = aug_infer_plan_resolve(p, m, s);
    assert_int_equal(st, status);
    if (!strstr(aug_last_error(), needle))
        fail_msg("error '%s' does not name '%s'", aug_last_error(), needle);
}

static void test_bad_input_named_errors(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-7b");
    struct aug_infer_plan p = plan(1, 1, 1, 128, 0, AUG_DTYPE_BF16);
    expect_error(&m, &h100, &p, AUG_EUSAGE, "output length 0");
    p = plan(1, 1, 0, 128, 128, AUG_DTYPE_BF16);
    expect_error(&m, &h100, &p, AUG_EUSAGE, "batch 0");
    p = plan(1, 1, 1, 0, 128, AUG_DTYPE_BF16);
    expect_error(&m, &h100, &p, AUG_EUSAGE, "input length 0");
    p = plan(1, 1, 1, 4000, 200, AUG_DTYPE_BF16);
    expect_error(&m, &h100, &p, AUG_EUSAGE, "maximum context of model 'llama2-7b' (4096");
    /* quantization the GPU cannot run: no fp8 on A100, no int4 tensor path on H100 */
    p = plan(1, 1, 1, 128, 128, AUG_DTYPE_FP8);
    expect_error(&m, &a100, &p, AUG_EUNSUPPORTED, "no fp8 tensor-core path");
    p = plan(1, 1, 1, 128, 128, AUG_DTYPE_INT4);
    expect_error(&m, &h100, &p, AUG_EUNSUPPORTED, "no int4 tensor-core path");
    p = plan(1, 1, 1, 128, 128, AUG_DTYPE_BF16);
    p.kv_dtype = AUG_DTYPE_FP8;
    expect_error(&m, &a100, &p, AUG_EUNSUPPORTED, "KV-cache dtype fp8");
    /* weight-only int4 with 16-bit compute runs anywhere; int8 compute on A100 too */
    p = plan(1, 1, 1, 128, 128, AUG_DTYPE_BF16);
    p.weight_dtype = AUG_DTYPE_INT4;
    assert_int_equal(aug_infer_plan_resolve(&p, &m, &a100), AUG_OK);
    p = plan(1, 1, 1, 128, 128, AUG_DTYPE_INT8);
    assert_int_equal(aug_infer_plan_resolve(&p, &m, &a100), AUG_OK);
    /* degrees */
    p = plan(3, 2, 1, 128, 128, AUG_DTYPE_BF16);
    expect_error(&m, &h100, &p, AUG_EUSAGE, "not divisible by tp*pp");
    p = plan(4, 2, 3, 128, 128, AUG_DTYPE_BF16);
    expect_error(&m, &h100, &p, AUG_EUSAGE, "batch 3 is not divisible by the 2");
    p = plan(2, 2, 1, 128, 128, AUG_DTYPE_BF16);
    p.ep = 2;
    expect_error(&m, &h100, &p, AUG_EUSAGE, "needs a mixture-of-experts model");
    struct aug_model moe = preset("mixtral-8x7b");
    p = plan(2, 2, 1, 128, 128, AUG_DTYPE_BF16);
    p.ep = 4;
    expect_error(&moe, &h100, &p, AUG_EUSAGE, "must divide tp 2");
    /* an unresolved plan is refused by predict */
    struct aug_infer_plan raw;
    aug_infer_plan_init(&raw);
    struct aug_infer_result r;
    assert_int_equal(aug_infer_predict(&m, &h100, &raw, NULL, &r), AUG_EUSAGE);
}

/* Bound analysis: at batch 1 every decode GEMM is memory-bound (intensity ~2 FLOP/B, far
 * below H100's bf16 ridge of 989.4e12 / 3350e9 = 295 FLOP/B); a 2,048-token prefill's
 * GEMMs are compute-bound; the shares of each phase sum to 1. */
static void test_bound_analysis(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-7b");
    struct aug_infer_plan p = plan(1, 1, 1, 2048, 64, AUG_DTYPE_BF16);
    resolve(&p, &m, &h100);
    struct aug_infer_op_report ops[96];
    int n = 0;
    struct aug_infer_options opt = {NULL, 0};
    assert_int_equal(aug_infer_ops(&m, &h100, &p, &opt, ops, 96, &n), AUG_OK);
    assert_true(n > 20);
    double share[2] = {0, 0};
    int gemms = 0;
    for (int i = 0; i < n; i++) {
        int dec = strcmp(ops[i].phase, "decode") == 0;
        share[dec] += ops[i].share;
        if (strcmp(ops[i].kind, "gemm") == 0 && strcmp(ops[i].name, "lm_head") != 0) {
            gemms++;
            assert_near(ops[i].ridge, 989.4e12 / 3350e9, 1e-9);
            assert_int_equal(ops[i].compute_bound, dec ? 0 : 1);
            if (dec)
                assert_true(ops[i].intensity < 2.1);
        }
    }
    assert_int_equal(gemms, 8);
    assert_near(share[0], 1.0, 1e-9);
    assert_near(share[1], 1.0, 1e-9);
}

/* Pipeline parallelism at batch 1: one token crosses every stage in turn, so the step is
 * not faster than without PP (the stages idle in turn); with a batch of pp micro-batches
 * the stages overlap. */
static void test_pipeline_decode(void **state) {
    (void)state;
    struct aug_model m = preset("llama2-13b");
    struct aug_infer_plan p1 = plan(1, 1, 1, 512, 33, AUG_DTYPE_BF16);
    struct aug_infer_plan p2 = plan(2, 1, 1, 512, 33, AUG_DTYPE_BF16);
    p2.pp = 2;
    struct aug_infer_result r1 = predict(&m, &h100, &p1, 0);
    struct aug_infer_result r2 = predict(&m, &h100, &p2, 0);
    assert_true(r2.tpot_s >= r1.tpot_s);
    assert_true(r2.decode.bubble_s > 0 && r2.decode.pp_comm_s > 0);
    struct aug_infer_plan b2 = plan(2, 1, 8, 512, 33, AUG_DTYPE_BF16);
    b2.pp = 2;
    struct aug_infer_plan b1 = plan(1, 1, 8, 512, 33, AUG_DTYPE_BF16);
    struct aug_infer_result rb2 = predict(&m, &h100, &b2, 0);
    struct aug_infer_result rb1 = predict(&m, &h100, &b1, 0);
    assert_near(rb2.decode.bubble_s, 0.0, 1e-12);
    assert_true(rb2.throughput_tokens_per_s > 0.5 * rb1.throughput_tokens_per_s);
}

/* Continuous batching at an offered rate obeys Little's law: requests in decode =
 * rate * (output_len - 1) * TPOT; output tokens/s = rate * output_len. A rate beyond the
 * memory's concurrency saturates. */
static void test_continuous_littles_law(void **state) {
    (void)state;
    struct aug_model m = preset("llama3-8b");
    struct aug_infer_plan p = plan(2, 1, 2, 1000, 200, AUG_DTYPE_BF16);
    p.mode = AUG_SERVE_CONTINUOUS;
    p.request_rate = 4.0;
    struct aug_infer_result r = predict(&m, &h100, &p, 0);
    assert_false(r.serving.saturated);
    assert_rel(r.serving.concurrency, 4.0 * 199.0 * r.tpot_s, 1e-4);
    assert_rel(r.throughput_tokens_per_s, 4.0 * 200.0, 1e-4);
    assert_rel(r.serving.request_rate, 4.0, 1e-4);
    assert_true(r.ttft_s > 0 && r.e2e_latency_s > r.ttft_s);
    struct aug_infer_plan f = p;
    f.request_rate = 1e6;
    struct aug_infer_result rs = predict(&m, &h100, &f, 0);
    assert_true(rs.serving.saturated);
    assert_rel(rs.serving.concurrency, (double)rs.max_batch, 1e-6);
    /* chunked prefill: the prompt takes ceil(1000 / 256) = 4 steps */
    struct aug_infer_plan c = plan(1, 1, 16, 1000, 200, AUG_DTYPE_BF16);
    c.mode = AUG_SERVE_CONTINUOUS;
    c.chunk_tokens = 256;
    struct aug_infer_result rc = predict(&m, &h100, &c, 0);
    assert_true(rc.ttft_s > 3.0 * rc.tpot_s);
}

/* Disaggregation moves the prompt's KV cache: input_len * kv_bytes_per_token per request;
 * TTFT is the prefill pool's prefill plus the exposed transfer; a slow link shows. */
static void test_disaggregated_kv_transfer(void **state) {
    (void)state;
    struct aug_model m = preset("llama3-70b");
    struct aug_infer_plan p = plan(16, 8, 32, 4000, 256, AUG_DTYPE_FP8);
    p.mode = AUG_SERVE_DISAGGREGATED;
    struct aug_infer_result r = predict(&m, &h100, &p, 0);
    assert_int_equal(r.serving.prefill_gpus, 8);
    assert_int_equal(r.serving.decode_gpus, 8);
    assert_near(r.serving.kv_transfer_bytes, 4000.0 * 2.0 * 80.0 * 8.0 * 128.0, 0);
    assert_string_equal(r.serving.kv_link, "network");
    assert_true(r.ttft_s >= r.prefill_s);
    struct aug_infer_plan s = p;
    s.mode = AUG_SERVE_DISAGGREGATED;
    s.prefill_gpus = s.decode_gpus = 0;
    s.gpus = 16;
    s.kv_link = AUG_LINK_NETWORK;
    struct aug_system slow = h100;
    slow.link[AUG_LINK_NETWORK].bw_gbps = 0.05; /* 50 MB/s: the transfer dominates */
    struct aug_infer_result rs = predict(&m, &slow, &s, 0);
    assert_true(rs.serving.kv_transfer_s > 10.0);
    assert_true(rs.ttft_s > rs.prefill_s + 10.0);
}

/* MoE decode at batch 1 with top-2 of 8 experts reads two experts' weights per layer
 * (1 - (1 - 2/8)^1 = 1/4 of them), not all eight. */
static void test_moe_active_experts(void **state) {
    (void)state;
    struct aug_model m = preset("mixtral-8x7b");
    struct aug_infer_plan p = plan(1, 1, 1, 128, 2, AUG_DTYPE_BF16);
    resolve(&p, &m, &h100);
    struct aug_infer_graph g;
    struct aug_infer_step dec = {1, 128, 0, 0, 0, 1};
    aug_infer_graph_build(&m, &h100, &p, &dec, &g);
    const struct aug_op *up = layer_op(&g, "expert_up");
    assert_non_null(up);
    assert_near(up->batch, 2.0, 1e-12);
    assert_near(up->m, 1.0, 1e-12);
}

/* DeepSeek-V3's latent attention in a prefill contracts q.k over 128 + 64 = 192 and p.v
 * over 128, as training does (test_moe_arch.c test_mla_unfused): one 1,024-token prompt
 * at TP 8 (16 heads per GPU) computes 1024 x 1025 / 2 = 524,800 causal pairs per head,
 * 2 x 16 x (192 + 128) x 524,800 = 5,373,952,000 FLOPs, on a kernel of mean width 160;
 * unfused, QK^T runs k = 192 and AV n = 128. */
static void test_mla_prefill_widths(void **state) {
    (void)state;
    struct aug_model m = preset("deepseek-v3");
    struct aug_infer_plan p = plan(8, 8, 1, 1024, 1, AUG_DTYPE_BF16);
    resolve(&p, &m, &h100);
    struct aug_infer_graph g;
    struct aug_infer_step pre = {0, 0, 1, 1024, 0, 1};
    aug_infer_graph_build(&m, &h100, &p, &pre, &g);
    const struct aug_op *fa = layer_op(&g, "attn_prefill");
    assert_non_null(fa);
    assert_near(fa->flops, 5373952000.0, 0);
    assert_near(fa->head_dim, 160.0, 0);
    assert_near(fa->head_dim_v, 128.0, 0);
    p.flash_attention = 0;
    aug_infer_graph_build(&m, &h100, &p, &pre, &g);
    const struct aug_op *qk = layer_op(&g, "attn_qk"), *av = layer_op(&g, "attn_av");
    assert_non_null(qk);
    assert_non_null(av);
    assert_near(qk->k, 192.0, 0);
    assert_near(av->n, 128.0, 0);
}

/* GPT-OSS-20b (64 heads of 64, 8 KV heads, 128-key windows on every other layer) prefills
 * one 4,096-token prompt: the global half computes 4096 x 4097 / 2 = 8,390,656 pairs per
 * head, 2 x 64 x 128 x pairs FLOPs; the windowed half 128 x 129 / 2 + 3968 x 128 =
 * 516,160, its kernel told the window. A 500-token chunk after 1,000 cached tokens sees 128
 * keys per query in the windowed layers (64,000 pairs) and reads the chunk's keys and the
 * 127 before it: 627 of K and V (2 x 8 x 64 x 2 bytes each), not all 1,500. */
static void test_window_prefill(void **state) {
    (void)state;
    struct aug_model m = preset("gpt-oss-20b");
    struct aug_infer_plan p = plan(1, 1, 1, 4096, 1, AUG_DTYPE_BF16);
    resolve(&p, &m, &h100);
    struct aug_infer_graph g;
    struct aug_infer_step pre = {0, 0, 1, 4096, 0, 1};
    aug_infer_graph_build(&m, &h100, &p, &pre, &g);
    const struct aug_op *glob = layer_op(&g, "attn_prefill");
    const struct aug_op *win = layer_op(&g, "attn_prefill_local");
    assert_non_null(glob);
    assert_non_null(win);
    assert_near(glob->count, 0.5, 0);
    assert_near(win->count, 0.5, 0);
    assert_near(glob->window, 0, 0);
    assert_near(win->window, 128, 0);
    assert_near(glob->flops, 2.0 * 64 * 128 * 8390656.0, 0);
    assert_near(win->flops, 2.0 * 64 * 128 * 516160.0, 0);
    struct aug_infer_step chunk = {0, 0, 1, 500, 1000, 1};
    aug_infer_graph_build(&m, &h100, &p, &chunk, &g);
    win = layer_op(&g, "attn_prefill_local");
    assert_non_null(win);
    assert_near(win->flops, 2.0 * 64 * 128 * 64000.0, 0);
    double kv = 2.0 * 8 * 64 * 2;
    assert_near(win->bytes, 500.0 * 64 * 128 * 2 + 627.0 * kv + 500.0 * kv, 1e-6);
    /* Llama 4 Scout's chunks of 8192 (40 heads of 128, 8 KV heads; 36 of 48 layers): a
     * 500-token chunk after 9,000 cached tokens sits at chunk positions 808..1307, so its
     * queries see 809..1308 keys (529,250 pairs per head) and read the 1,308 keys from the
     * chunk's start */
    struct aug_model l4 = preset("llama4-scout");
    struct aug_infer_plan p4 = plan(1, 1, 1, 9500, 1, AUG_DTYPE_BF16);
    resolve(&p4, &l4, &h100);
    struct aug_infer_step late = {0, 0, 1, 500, 9000, 1};
    aug_infer_graph_build(&l4, &h100, &p4, &late, &g);
    win = layer_op(&g, "attn_prefill_local");
    assert_non_null(win);
    assert_near(win->count, 0.75, 0);
    assert_int_equal(win->chunked, 1);
    assert_near(win->flops, 2.0 * 40 * 256 * 529250.0, 0);
    double kv4 = 2.0 * 8 * 128 * 2;
    assert_near(win->bytes, 500.0 * 40 * 256 * 2 + 1308.0 * kv4 + 500.0 * kv4, 1e-6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv_cache_llama2_70b),
        cmocka_unit_test(test_mla_prefill_widths),
        cmocka_unit_test(test_decode_bytes_are_weights_plus_kv),
        cmocka_unit_test(test_decode_roofline_is_bytes_over_bandwidth),
        cmocka_unit_test(test_tp_collectives),
        cmocka_unit_test(test_max_batch_at_memory_limit),
        cmocka_unit_test(test_bad_input_named_errors),
        cmocka_unit_test(test_bound_analysis),
        cmocka_unit_test(test_pipeline_decode),
        cmocka_unit_test(test_continuous_littles_law),
        cmocka_unit_test(test_disaggregated_kv_transfer),
        cmocka_unit_test(test_moe_active_experts),
        cmocka_unit_test(test_window_prefill),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
