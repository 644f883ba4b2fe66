/* SPDX-License-Identifier: Apache-2.0 */
/* test_serving.c - the serving simulation (augur/serving.h) on request lists small enough to
 * follow by hand: admission under the max batch, chunked prefill, mixed steps, eviction
 * (max-util preempts, no-evict waits), the drain; percentile maths; a server at low load
 * against the static batch-1 prediction and at overload; seeded request lists; and the
 * named errors of bad inputs. */
#include "aug_test.h"

#include <unistd.h>

#include "augur/infer.h"
#include "augur/model.h"
#include "augur/serving.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/validate.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"
#define DATA_ROOT AUG_TEST_SOURCE_DIR "/predictor"

static struct aug_system h100;
static struct aug_model llama8b;

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK ||
        aug_model_load(DATA_ROOT, "llama3-8b", &llama8b) != AUG_OK)
        return -1;
    return 0;
}

static struct aug_infer_plan one_gpu(void) {
    struct aug_infer_plan p;
    aug_infer_plan_init(&p);
    p.input_len = 128;
    p.output_len = 128;
    p.dtype = AUG_DTYPE_FP16;
    if (aug_infer_plan_resolve(&p, &llama8b, &h100) != AUG_OK)
        fail_msg("plan: %s", aug_last_error());
    return p;
}

/* n requests of in + out tokens, all at time 0. */
static struct aug_requests fixed(long n, long in, long out) {
    struct aug_len_dist a = {AUG_LEN_FIXED, (double)in, 0}, b = {AUG_LEN_FIXED, (double)out, 0};
    struct aug_requests r;
    if (aug_requests_generate(&a, &b, n, 0.0, 1, &r) != AUG_OK)
        fail_msg("requests: %s", aug_last_error());
    return r;
}

static struct aug_serve_result run(struct aug_serve_config *c, struct aug_requests *r,
                                   enum aug_scenario sc) {
    struct aug_infer_plan p = one_gpu();
    struct aug_infer_options opt = {NULL, 0};
    struct aug_serve_result res;
    if (aug_serve_simulate(&llama8b, &h100, &p, &opt, c, r, sc, &res) != AUG_OK)
        fail_msg("simulate: %s", aug_last_error());
    return res;
}

/* 4 requests of 100 + 3 tokens, max batch 2, budget 1,000 tokens: the first two are
 * admitted and prefill together (one prefill step of 200 tokens, each emits its first
 * token), decode twice (tokens 2 and 3) and leave; the next two do the same. 6 steps:
 * 2 prefill-only, 4 decode-only, none mixed; always 2 in flight. */
static void test_admission_and_drain(void **state) {
    (void)state;
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    c.max_batch = 2;
    c.max_num_tokens = 1000;
    struct aug_requests r = fixed(4, 100, 3);
    struct aug_serve_result res = run(&c, &r, AUG_SCENARIO_OFFLINE);
    assert_int_equal(res.steps, 6);
    assert_int_equal(res.prefill_steps, 2);
    assert_int_equal(res.decode_steps, 4);
    assert_int_equal(res.mixed_steps, 0);
    assert_near(res.mean_batch, 2.0, 1e-9);
    assert_near(res.output_tokens, 12.0, 0);
    assert_near(res.mean_tokens_per_step, (2.0 * 200 + 4.0 * 2) / 6.0, 1e-9);
    /* the second pair starts when the first has left: its first token comes after the
     * first pair's whole life L: its TTFT exceeds L, half of the last end-to-end 2L */
    assert_true(res.ttft.max > 0.5 * res.e2e.max);
    assert_int_equal(res.preemptions, 0);
    aug_requests_free(&r);
}

/* One request of 250 + 2 tokens with a 100-token budget: chunks of 100, 100 and 50 (the
 * last emits the first token), then one decode: 3 prefill steps and 1 decode step; the
 * time to first token is the three chunk steps. Without chunking the prompt cannot run:
 * named error. */
static void test_chunked_prefill(void **state) {
    (void)state;
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    c.max_num_tokens = 100;
    struct aug_requests r = fixed(1, 250, 2);
    struct aug_serve_result res = run(&c, &r, AUG_SCENARIO_OFFLINE);
    assert_int_equal(res.prefill_steps, 3);
    assert_int_equal(res.decode_steps, 1);
    assert_near(res.ttft.mean, res.prefill_s, 1e-12);
    assert_near(res.e2e.mean, res.prefill_s + res.decode_s, 1e-12);
    c.chunked_prefill = 0;
    struct aug_infer_plan p = one_gpu();
    struct aug_serve_result bad;
    assert_int_equal(aug_serve_simulate(&llama8b, &h100, &p, NULL, &c, &r, AUG_SCENARIO_OFFLINE, &bad),
                     AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "without chunked prefill"));
    aug_requests_free(&r);
}

/* Two requests of 100 + 3 tokens, budget 150: step 1 prefills A (100) and B's first 50
 * (prefill-only; A emits token 1); step 2 decodes A and finishes B's prompt (mixed); steps
 * 3 and 4 decode (A ends at step 3, B at step 4): 1 prefill, 1 mixed, 2 decode. */
static void test_mixed_steps(void **state) {
    (void)state;
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    c.max_num_tokens = 150;
    struct aug_requests r = fixed(2, 100, 3);
    struct aug_serve_result res = run(&c, &r, AUG_SCENARIO_OFFLINE);
    assert_int_equal(res.prefill_steps, 1);
    assert_int_equal(res.mixed_steps, 1);
    assert_int_equal(res.decode_steps, 2);
    assert_near(res.mean_tokens_per_step, (150.0 + 51.0 + 2.0 + 1.0) / 4.0, 1e-9);
    aug_requests_free(&r);
}

/* A KV cache of four blocks (a KV pool that scales with the fraction of the free memory):
 * two requests whose prompt fills one block and whose output
 * fills two more. max-util admits both (one block each) and must preempt when their
 * decodes need six blocks; no-evict reserves three blocks per request, so only one runs
 * at a time and nothing is evicted. Both finish every token. */
static void test_eviction(void **state) {
    (void)state;
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    c.policy = AUG_SCHED_MAX_UTIL;
    c.kv_fraction = 0.6; /* a probe: the KV pool in tokens */
    c.block_tokens = 1;
    struct aug_requests probe = fixed(1, 10, 2);
    struct aug_serve_result pr = run(&c, &probe, AUG_SCENARIO_OFFLINE);
    aug_requests_free(&probe);
    /* Llama-3-8B serves at most 8,192 tokens: shrink the pool to ~32 tokens (kv_fraction
     * scales it linearly) and cut it into four blocks */
    long pool = (long)pr.kv_capacity_tokens;
    double frac = 0.6 * 32.0 / (double)pool; /* a pool of ~32 tokens */
    c.kv_fraction = frac;
    c.block_tokens = 1;
    struct aug_requests probe2 = fixed(1, 1, 1);
    struct aug_serve_result pr2 = run(&c, &probe2, AUG_SCENARIO_OFFLINE);
    aug_requests_free(&probe2);
    long pool2 = (long)pr2.kv_capacity_tokens;
    assert_true(pool2 >= 28 && pool2 <= 36);
    long B = pool2 / 4;
    c.block_tokens = B; /* floor(pool2 / B) = 4 blocks */
    struct aug_requests r = fixed(2, B, 2 * B);
    struct aug_serve_result mu = run(&c, &r, AUG_SCENARIO_OFFLINE);
    assert_int_equal(mu.kv_blocks, 4);
    assert_true(mu.preemptions >= 1);
    assert_near(mu.output_tokens, 4.0 * (double)B, 0);
    c.policy = AUG_SCHED_NO_EVICT;
    struct aug_serve_result ne = run(&c, &r, AUG_SCENARIO_OFFLINE);
    assert_int_equal(ne.preemptions, 0);
    assert_true(ne.mean_batch <= 1.0 + 1e-9);
    /* one at a time: the second's first token waits for the first's whole life */
    assert_true(ne.ttft.max > 0.5 * ne.e2e.max);
    aug_requests_free(&r);
}

/* numpy's linear percentiles of 1..10: index q/100 * 9, so p50 = 5.5, p90 = 9.1,
 * p99 = 9.91; the weighted form of (1 s x 3, 2 s x 1) has mean 1.25, p50 1, p90 2. */
static void test_percentiles(void **state) {
    (void)state;
    double v[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    struct aug_latency_stats l;
    aug_latency_stats_fill(v, 10, &l);
    assert_near(l.mean, 5.5, 1e-12);
    assert_near(l.p50, 5.5, 1e-12);
    assert_near(l.p90, 9.1, 1e-12);
    assert_near(l.p99, 9.91, 1e-12);
    assert_near(l.max, 10.0, 0);
    double one[1] = {3.0};
    assert_near(aug_percentile_sorted(one, 1, 99.0), 3.0, 0);
    assert_near(aug_percentile_sorted(one, 0, 50.0), 0.0, 0);
}

/* At a low rate (a request every ~100 s, each lasting well under a second) every request
 * runs alone: TTFT is the static batch-1 prefill and TPOT the static batch-1 decode step,
 * within the context rounding of the step-time reuse (1.6%); the load is sustainable. */
static void test_server_low_load_is_static(void **state) {
    (void)state;
    struct aug_infer_plan p = one_gpu();
    p.input_len = 512;
    p.output_len = 64;
    struct aug_infer_result st;
    if (aug_infer_plan_resolve(&p, &llama8b, &h100) != AUG_OK ||
        aug_infer_predict(&llama8b, &h100, &p, NULL, &st) != AUG_OK)
        fail_msg("static: %s", aug_last_error());
    struct aug_len_dist a = {AUG_LEN_FIXED, 512, 0}, b = {AUG_LEN_FIXED, 64, 0};
    struct aug_requests r;
    assert_int_equal(aug_requests_generate(&a, &b, 20, 0.01, 7, &r), AUG_OK);
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    struct aug_serve_result res = run(&c, &r, AUG_SCENARIO_SERVER);
    assert_rel(res.ttft.mean, st.ttft_s, 1e-9);
    assert_rel(res.ttft.p99, st.ttft_s, 1e-9);
    assert_rel(res.tpot.mean, st.tpot_s, 0.016);
    assert_rel(res.e2e.p50, st.e2e_latency_s, 0.016);
    assert_true(res.sustainable);
    assert_near(res.mean_batch, 1.0, 1e-9);
    aug_requests_free(&r);
}

/* 2,000 requests of 256 + 64 tokens at 1,000/s into an engine of at most 8 in flight.
 * Each request lives 64 steps (its prompt step, which emits the first token, and 63
 * decodes); a step reads at least the 16.06 GB of Llama-3-8B's fp16 weights (8.03e9
 * params x 2 bytes) at no more than the H100's 3.35 TB/s, 4.79 ms, plus the 0.3 ms step
 * floor: >= 5.09 ms. So 8 in flight serve at most 8 / (64 x 5.09 ms) = 24.5 requests/s.
 * The arrivals span (2000 - 1) / 1000 = 2.0 s, by which at most ~49 requests have left
 * and 8 run: at least 2000 - 49 - 8 = 1,943 wait at the last arrival (1,900 leaves room
 * for the Poisson spread of the last arrival time, 2.0 s +- 0.045 s): not sustainable. */
static void test_server_overload(void **state) {
    (void)state;
    struct aug_len_dist a = {AUG_LEN_FIXED, 256, 0}, b = {AUG_LEN_FIXED, 64, 0};
    struct aug_requests r;
    assert_int_equal(aug_requests_generate(&a, &b, 2000, 1000.0, 3, &r), AUG_OK);
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    c.max_batch = 8;
    struct aug_serve_result res = run(&c, &r, AUG_SCENARIO_SERVER);
    assert_false(res.sustainable);
    assert_true(res.queued_at_last_arrival >= 1900);
    assert_true(res.requests_per_s < 24.5);
    assert_true(res.ttft.p99 > res.ttft.p50);
    assert_rel(res.offered_rate, 1000.0, 0.1);
    aug_requests_free(&r);
}

/* The same seed gives the same list; another seed another; normal:1000,100 has a sample
 * mean within 1% of 1000 over 20,000 draws (standard error 0.7 tokens); Poisson gaps
 * average 1/rate. */
static void test_requests_seeded(void **state) {
    (void)state;
    struct aug_len_dist in, out;
    assert_int_equal(aug_len_dist_parse("normal:1000,100", &in), AUG_OK);
    assert_int_equal(aug_len_dist_parse("uniform:10,20", &out), AUG_OK);
    struct aug_requests a, b, c;
    assert_int_equal(aug_requests_generate(&in, &out, 20000, 50.0, 42, &a), AUG_OK);
    assert_int_equal(aug_requests_generate(&in, &out, 20000, 50.0, 42, &b), AUG_OK);
    assert_int_equal(aug_requests_generate(&in, &out, 20000, 50.0, 43, &c), AUG_OK);
    assert_memory_equal(a.r, b.r, sizeof *a.r * 20000);
    assert_true(memcmp(a.r, c.r, sizeof *a.r * 20000) != 0);
    double sum = 0;
    long lo = 100, hi = 0;
    for (long i = 0; i < a.n; i++) {
        sum += (double)a.r[i].input_len;
        lo = a.r[i].output_len < lo ? a.r[i].output_len : lo;
        hi = a.r[i].output_len > hi ? a.r[i].output_len : hi;
    }
    assert_rel(sum / 20000.0, 1000.0, 0.01);
    assert_int_equal(lo, 10);
    assert_int_equal(hi, 20);
    assert_rel(a.r[a.n - 1].arrival_s / (double)(a.n - 1), 1.0 / 50.0, 0.03);
    char buf[64];
    aug_len_dist_format(&in, buf, sizeof buf);
    assert_string_equal(buf, "normal:1000,100");
    aug_requests_free(&a);
    aug_requests_free(&b);
    aug_requests_free(&c);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Negative or zero lengths, empty request files, arrival times that go back, rates of 0,
 * unknown distributions and engines: named errors. */
static void test_bad_inputs(void **state) {
    (void)state;
    struct aug_len_dist d;
    assert_int_equal(aug_len_dist_parse("normal:-5,1", &d), AUG_EUSAGE);
    assert_int_equal(aug_len_dist_parse("fixed:0", &d), AUG_EUSAGE);
    assert_int_equal(aug_len_dist_parse("-3", &d), AUG_EUSAGE);
    assert_int_equal(aug_len_dist_parse("zipf:1,2", &d), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "unknown kind"));
    assert_int_equal(aug_len_dist_parse("uniform:20,10", &d), AUG_EUSAGE);
    assert_int_equal(aug_len_dist_parse("normal:100", &d), AUG_EUSAGE);
    enum aug_engine e;
    assert_int_equal(aug_engine_from_name("tgi", &e), AUG_EUSAGE);
    struct aug_requests r;
    assert_int_equal(aug_requests_generate(&d, &d, 0, 0.0, 1, &r), AUG_EUSAGE);
    struct aug_len_dist ok = {AUG_LEN_FIXED, 10, 0};
    assert_int_equal(aug_requests_generate(&ok, &ok, 10, -1.0, 1, &r), AUG_EUSAGE);
    assert_int_equal(aug_requests_generate(&ok, &ok, 10, 0.0, 1, &r), AUG_OK);
    assert_int_equal(aug_requests_poisson(&r, 0.0, 1), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "request rate"));
    aug_requests_free(&r);

    char path[256];
    snprintf(path, sizeof path, "%s/test_serving_%ld.csv", AUG_TEST_BINARY_DIR, (long)getpid());
    write_file(path, "input_len,output_len\n");
    assert_int_equal(aug_requests_load(path, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "no requests"));
    write_file(path, "input_len,output_len\n10,5\n-4,5\n");
    assert_int_equal(aug_requests_load(path, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "input_len"));
    write_file(path, "input_len,output_len,arrival_s\n10,5,1.0\n10,5,0.5\n");
    assert_int_equal(aug_requests_load(path, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "arrival_s"));
    write_file(path, "prompt,answer\n10,5\n");
    assert_int_equal(aug_requests_load(path, &r), AUG_EDATA);
    write_file(path, "input_tokens,output_tokens,arrival_s\n10,5,0\n12,6,0.25\n");
    assert_int_equal(aug_requests_load(path, &r), AUG_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.r[1].input_len, 12);
    assert_near(r.r[1].arrival_s, 0.25, 0);
    assert_true(r.has_arrivals);
    /* a request the model's context cannot hold, and an empty list */
    r.r[1].input_len = 9000;
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    struct aug_infer_plan p = one_gpu();
    struct aug_serve_result res;
    assert_int_equal(aug_serve_simulate(&llama8b, &h100, &p, NULL, &c, &r, AUG_SCENARIO_OFFLINE, &res),
                     AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "request 2"));
    r.r[1].input_len = 12;
    c.kv_fraction = 0.0;
    assert_int_equal(aug_serve_simulate(&llama8b, &h100, &p, NULL, &c, &r, AUG_SCENARIO_OFFLINE, &res),
                     AUG_EUSAGE);
    aug_requests_free(&r);
    struct aug_requests empty = {NULL, 0, 0};
    assert_int_equal(aug_serve_simulate(&llama8b, &h100, &p, NULL, &c, &empty, AUG_SCENARIO_OFFLINE,
                                        &res), AUG_EUSAGE);
    unlink(path);
}

/* KV-cache dtype per engine: TensorRT-LLM with FP8 weights serves an FP8 cache, vLLM and
 * SGLang the 16-bit activation dtype; unquantized stays at the compute dtype. A per-channel,
 * per-token FP8 checkpoint (no KV quantization in it) keeps a 16-bit cache on the PyTorch
 * backend, which serves the checkpoint's cache, but not on the TensorRT engine, whose build
 * quantizes the cache itself. */
static void test_engine_kv_dtype(void **state) {
    (void)state;
    const char *why;
    const enum aug_fp8_recipe pt = AUG_FP8_PER_TENSOR, pc = AUG_FP8_PER_CHANNEL_PER_TOKEN;
    assert_int_equal(aug_engine_kv_dtype(AUG_ENGINE_TRTLLM, AUG_DTYPE_FP8, AUG_DTYPE_FP8, pt, &why),
                     AUG_DTYPE_FP8);
    assert_int_equal(aug_engine_kv_dtype(AUG_ENGINE_VLLM, AUG_DTYPE_FP8, AUG_DTYPE_FP8, pt, &why),
                     AUG_DTYPE_BF16);
    assert_int_equal(aug_engine_kv_dtype(AUG_ENGINE_SGLANG, AUG_DTYPE_FP16, AUG_DTYPE_COUNT, pt,
                                         &why),
                     AUG_DTYPE_FP16);
    assert_int_equal(aug_engine_kv_dtype(AUG_ENGINE_TRTLLM, AUG_DTYPE_FP8, AUG_DTYPE_FP8, pc, &why),
                     AUG_DTYPE_BF16);
    assert_non_null(strstr(why, "per-token"));
    assert_int_equal(aug_engine_kv_dtype(AUG_ENGINE_TRTLLM_TRT, AUG_DTYPE_FP8, AUG_DTYPE_FP8, pc,
                                         &why),
                     AUG_DTYPE_FP8);
    assert_non_null(why);
}

/* The TensorRT-engine preset's host work (engine.c, fitted on the even-indexed v0.14
 * offline rows): 4 us per running request and step, and 100 us per layer and step. On the
 * run of test_admission_and_drain (4 requests of 100 + 3 tokens, max batch 2: 6 steps with
 * 2 requests in flight each) the first adds 6 * 2 * 4 us = 48 us to the run and nothing to
 * the step compositions; the second adds 6 steps * 32 layers (Llama-3-8B) * 100 us =
 * 19.2 ms, 3.2 ms per step; the PyTorch-backend preset adds neither. */
static void test_request_overhead(void **state) {
    (void)state;
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    assert_near(c.request_overhead_us, 0.0, 0);
    assert_near(c.layer_overhead_us, 0.0, 0);
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM_TRT);
    assert_near(c.request_overhead_us, 4.0, 0);
    assert_near(c.step_overhead_us, 0.0, 0);
    assert_near(c.layer_overhead_us, 100.0, 0);
    assert_near(c.workspace_gib, 4.5, 0);
    struct aug_infer_plan p = one_gpu();
    assert_near(aug_serve_step_floor_us(&c, &llama8b, &p), 3200.0, 1e-9);
    c.max_batch = 2;
    c.max_num_tokens = 1000;
    struct aug_requests r = fixed(4, 100, 3);
    struct aug_serve_result with = run(&c, &r, AUG_SCENARIO_OFFLINE);
    c.request_overhead_us = 0.0;
    struct aug_serve_result without = run(&c, &r, AUG_SCENARIO_OFFLINE);
    c.layer_overhead_us = 0.0;
    struct aug_serve_result bare = run(&c, &r, AUG_SCENARIO_OFFLINE);
    assert_int_equal(with.steps, 6);
    assert_int_equal(without.steps, 6);
    assert_int_equal(bare.steps, 6);
    assert_near(with.duration_s - without.duration_s, 6.0 * 2.0 * 4e-6, 1e-12);
    assert_near(without.duration_s - bare.duration_s, 6.0 * 32.0 * 100e-6, 1e-9);
    assert_near(with.output_tokens_per_s, 12.0 / with.duration_s, 1e-9);
    /* a floor that is not finite is a named error, not a non-finite run */
    c.layer_overhead_us = 1e308;
    struct aug_infer_options opt = {NULL, 0};
    struct aug_serve_result bad;
    assert_int_equal(aug_serve_simulate(&llama8b, &h100, &p, &opt, &c, &r, AUG_SCENARIO_OFFLINE,
                                        &bad),
                     AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "step floor"));
    aug_requests_free(&r);
}

/* The highest rate within targets: never above the offline capacity; a TTFT target below
 * the prefill of one prompt cannot be met at any rate (0); a looser TPOT target never
 * lowers the rate found (the pass/fail test is monotone in the target). */
static void test_max_rate(void **state) {
    (void)state;
    struct aug_infer_plan p = one_gpu();
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    struct aug_serve_slo slo;
    memset(&slo, 0, sizeof slo);
    slo.num_requests = 300;
    slo.seed = 5;
    slo.input = (struct aug_len_dist){AUG_LEN_FIXED, 512, 0};
    slo.output = (struct aug_len_dist){AUG_LEN_FIXED, 64, 0};
    slo.ttft_p99_s = 1e-6;
    struct aug_serve_slo_result none, tight, loose;
    assert_int_equal(aug_serve_max_rate(&llama8b, &h100, &p, NULL, &c, &slo, &none), AUG_OK);
    assert_near(none.max_rate, 0.0, 0);
    assert_true(none.capacity_rate > 0);
    slo.ttft_p99_s = 0;
    slo.tpot_p99_s = 0.012;
    assert_int_equal(aug_serve_max_rate(&llama8b, &h100, &p, NULL, &c, &slo, &tight), AUG_OK);
    slo.tpot_p99_s = 0.05;
    assert_int_equal(aug_serve_max_rate(&llama8b, &h100, &p, NULL, &c, &slo, &loose), AUG_OK);
    assert_true(tight.max_rate > 0);
    assert_true(tight.at_max.tpot.p99 <= 0.012);
    assert_true(loose.max_rate >= tight.max_rate);
    assert_true(loose.max_rate <= loose.capacity_rate);
    slo.tpot_p99_s = -1;
    assert_int_equal(aug_serve_max_rate(&llama8b, &h100, &p, NULL, &c, &slo, &loose), AUG_EUSAGE);
}

/* The inference schema: an empty batch is an offline run, predicted by the scheduler
 * simulation (the same number as aug_serve_simulate with the engine read from
 * `framework`); a server row reads its rate and percentile; a server row with rate 0 and
 * a static row without a batch are named errors. */
static void test_validate_rows(void **state) {
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/test_serving_v_%ld.csv", AUG_TEST_BINARY_DIR, (long)getpid());
    const char *head = "id,model,system,num_gpus,tp,batch,input_len,output_len,dtype,framework,"
                       "metric,value,scenario,request_rate,percentile,num_requests\n";
    char buf[2048];
    snprintf(buf, sizeof buf, "%s"
             "off,llama3-8b,dgx-h100,1,1,,128,128,fp16,TensorRT-LLM,throughput_tokens_per_s,1000,,,,200\n"
             "srv,llama3-8b,dgx-h100,1,1,,128,32,fp16,vLLM,ttft_s,0.05,server,5,99,200\n", head);
    write_file(path, buf);
    struct aug_validate_report *rep;
    struct aug_validate_options vo = {KDB, 1, NULL, NULL, 0.0};
    assert_int_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &vo, &rep), AUG_OK);
    assert_int_equal(rep->n_rows, 2);
    assert_int_equal(rep->predicted_rows, 2);
    /* the offline row against the simulation itself */
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    struct aug_requests r = fixed(200, 128, 128);
    struct aug_serve_result res = run(&c, &r, AUG_SCENARIO_OFFLINE);
    assert_rel(rep->rows[0].predicted, res.output_tokens_per_s, 1e-9);
    assert_true(rep->rows[1].predicted > 0 && rep->rows[1].predicted < 1.0);
    aug_requests_free(&r);
    aug_validate_report_free(rep);
    snprintf(buf, sizeof buf, "%s"
             "srv,llama3-8b,dgx-h100,1,1,,128,32,fp16,vLLM,ttft_s,0.05,server,0,99,200\n", head);
    write_file(path, buf);
    assert_int_not_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &vo, &rep), AUG_OK);
    assert_non_null(strstr(aug_last_error(), "request_rate"));
    snprintf(buf, sizeof buf, "%s"
             "st,llama3-8b,dgx-h100,1,1,,128,32,fp16,x,ttft_s,0.05,static,,,\n", head);
    write_file(path, buf);
    assert_int_not_equal(aug_validate_file(path, AUG_VALIDATE_AUTO, &vo, &rep), AUG_OK);
    assert_non_null(strstr(aug_last_error(), "batch"));
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admission_and_drain),
        cmocka_unit_test(test_chunked_prefill),
        cmocka_unit_test(test_mixed_steps),
        cmocka_unit_test(test_eviction),
        cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_server_low_load_is_static),
        cmocka_unit_test(test_server_overload),
        cmocka_unit_test(test_requests_seeded),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_engine_kv_dtype),
        cmocka_unit_test(test_request_overhead),
        cmocka_unit_test(test_max_rate),
        cmocka_unit_test(test_validate_rows),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
