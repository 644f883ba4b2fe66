/* SPDX-License-Identifier: Apache-2.0 */
/* serving.h - serving as it is benchmarked: request lists (a CSV file, or seeded length
 * distributions with Poisson arrivals), engine presets (TensorRT-LLM, vLLM, SGLang), and an
 * in-flight-batching scheduler simulated step by step over a paged KV cache for the two
 * scenarios that benchmarks publish:
 * - offline max throughput (trtllm-bench throughput, vLLM benchmark_throughput, MLPerf
 *   Inference Offline): every request queued at once, output tokens/s over the whole run
 *   including ramp-up and drain;
 * - a server under load (vLLM benchmark_serving, MLPerf Server): requests arrive at their
 *   times, queue, and the run reports TTFT, TPOT, inter-token and end-to-end latency as
 *   mean and percentiles, and whether the load is sustainable.
 * Each step is timed by the per-step model of augur/infer.h (the decode tokens of the running
 * requests plus prefill chunks). */
#ifndef AUG_SERVING_H
#define AUG_SERVING_H

#include <stddef.h>

#include "augur/infer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- request lengths and request lists ---- */

enum aug_len_kind { AUG_LEN_FIXED, AUG_LEN_NORMAL, AUG_LEN_UNIFORM, AUG_LEN_LOGNORMAL };

/* A token-length distribution; draws are rounded and clamped to at least 1 token.
 * fixed: a; normal: mean a, standard deviation b; uniform: integers a..b; lognormal:
 * median a, sigma b (of the log). */
struct aug_len_dist {
    enum aug_len_kind kind;
    double a, b;
};

/* "N" or "fixed:N", "normal:MEAN,STD", "uniform:LO,HI", "lognormal:MEDIAN,SIGMA".
 * Named errors (AUG_EUSAGE) for unknown kinds, missing, negative or non-finite parameters. */
int aug_len_dist_parse(const char *spec, struct aug_len_dist *out);
/* The same text back ("normal:1000,100"). */
void aug_len_dist_format(const struct aug_len_dist *d, char *buf, size_t n);
/* The mean of the distribution before rounding and clamping. */
double aug_len_dist_mean(const struct aug_len_dist *d);

struct aug_request {
    long input_len, output_len;
    double arrival_s; /* 0 for an offline run */
};

struct aug_requests {
    struct aug_request *r;
    long n;
    int has_arrivals; /* 1: the arrival times are given (file column or Poisson) */
};

/* `n` requests with lengths drawn from the two distributions by a seeded generator
 * (xoshiro256**, Blackman and Vigna 2018, seeded through splitmix64): the same seed gives
 * the same list on every platform. rate > 0 adds Poisson arrivals (exponential gaps of mean
 * 1/rate from the same generator); rate 0 queues every request at time 0. */
int aug_requests_generate(const struct aug_len_dist *in, const struct aug_len_dist *out, long n,
                          double rate, unsigned long long seed, struct aug_requests *reqs);

/* A CSV file, one row per request: `input_len`, `output_len` (also `input_tokens`,
 * `output_tokens`), optional `arrival_s` (seconds, non-decreasing). Named errors for a
 * missing file, no rows, missing columns, lengths below 1 and arrival times that go back. */
int aug_requests_load(const char *path, struct aug_requests *reqs);

/* Replace the arrival times by Poisson arrivals at `rate` requests/s (seeded). */
int aug_requests_poisson(struct aug_requests *reqs, double rate, unsigned long long seed);

void aug_requests_free(struct aug_requests *reqs);

/* ---- engines ---- */

/* trtllm: TensorRT-LLM's PyTorch backend (the default from v0.19); trtllm-trt: its
 * TensorRT-engine backend (v0.14-class trtllm-bench runs), whose runtime floors are fitted
 * (engine.c). */
enum aug_engine {
    AUG_ENGINE_TRTLLM,
    AUG_ENGINE_VLLM,
    AUG_ENGINE_SGLANG,
    AUG_ENGINE_TRTLLM_TRT,
    AUG_ENGINE_COUNT
};

const char *aug_engine_name(enum aug_engine e); /* "trtllm", "vllm", "sglang", "trtllm-trt" */
int aug_engine_from_name(const char *name, enum aug_engine *out);

/* Who may enter the batch: GUARANTEED_NO_EVICT (TensorRT-LLM's default capacity scheduler:
 * a request is admitted only when the KV blocks of its whole context, prompt plus output,
 * can be reserved next to those of the running requests) or MAX_UTILIZATION (admit while the
 * prompt's blocks fit, grow block by block and preempt the most recently admitted request
 * when a block is missing; vLLM and SGLang schedule so, recomputing the preempted request). */
enum aug_sched_policy { AUG_SCHED_NO_EVICT, AUG_SCHED_MAX_UTIL, AUG_SCHED_COUNT };
const char *aug_sched_policy_name(enum aug_sched_policy p); /* "no-evict", "max-util" */
int aug_sched_policy_from_name(const char *name, enum aug_sched_policy *out);

enum aug_kv_base {
    AUG_KV_OF_FREE,  /* kv_fraction of the memory left after weights, activations, workspace
                        (TensorRT-LLM kv_cache_free_gpu_mem_fraction) */
    AUG_KV_OF_TOTAL  /* kv_fraction of the GPU's memory holds weights, activations and the
                        KV cache (vLLM gpu_memory_utilization, SGLang mem_fraction_static) */
};

/* Scheduler and memory settings of a run. A value < 0 (0 for the limits) takes the engine's
 * documented default (see engine.c for their sources). */
struct aug_serve_config {
    enum aug_engine engine;
    enum aug_sched_policy policy;
    enum aug_kv_base kv_base;
    double kv_fraction;    /* share of memory given to the KV cache */
    long max_batch;        /* requests in flight per replica (0: engine default) */
    long max_num_tokens;   /* tokens per step, decode and prefill together (0: default) */
    long block_tokens;     /* tokens per KV block (paged attention) */
    int chunked_prefill;   /* 1: prompts are split into chunks that fill the token budget */
    double step_overhead_us; /* framework floor per step (< 0: the plan's, else the default) */
    double layer_overhead_us;   /* host work per layer of the most loaded stage and step
                                   (the runtime enqueues every layer's kernels), added to
                                   step_overhead_us */
    double request_overhead_us; /* host work per running request and step (batch manager) */
    double workspace_gib;    /* runtime memory per GPU (< 0: the plan's, else the default) */
};

/* The engine's documented defaults (policy, KV base and fraction, block size, chunking,
 * max batch and max tokens left 0: chosen per run by aug_serve_config_resolve). */
void aug_serve_config_init(struct aug_serve_config *c, enum aug_engine e);

/* The framework floor of one step of plan `p` under `c`: step_overhead_us plus
 * layer_overhead_us per layer of the most loaded pipeline stage; -1 when the engine sets no
 * floor (the plan's or the default applies). A plan's own step_overhead_us takes
 * precedence over it (aug_serve_simulate). */
double aug_serve_step_floor_us(const struct aug_serve_config *c, const struct aug_model *m,
                               const struct aug_infer_plan *p);

/* The KV-cache dtype the engine serves with when none is asked: TensorRT-LLM quantizes the
 * KV cache to FP8 with FP8 weights (its FP8 recipe: "If you specify FP8 quantization, the KV
 * cache will automatically be set to FP8 as well", perf-overview), except that its PyTorch
 * backend (trtllm) serves a model's FP8 checkpoint with the checkpoint's KV cache, which a
 * per-channel, per-token FP8 checkpoint leaves unquantized (`recipe`, model.h; engine.c);
 * vLLM and SGLang keep the model's 16-bit activation dtype ("auto"). Sets *why to the
 * reason printed. */
enum aug_dtype aug_engine_kv_dtype(enum aug_engine e, enum aug_dtype dtype,
                                   enum aug_dtype weight_dtype, enum aug_fp8_recipe recipe,
                                   const char **why);

/* ---- the simulation ---- */

enum aug_scenario { AUG_SCENARIO_OFFLINE, AUG_SCENARIO_SERVER };

struct aug_latency_stats {
    double mean, p50, p90, p99, max;
    long n;
};

/* Percentile q (0..100) of sorted values with linear interpolation between closest ranks
 * (numpy's default, used by vLLM's benchmark_serving): index q/100 * (n - 1). */
double aug_percentile_sorted(const double *sorted, long n, double q);
/* Sort `v` in place and fill mean, p50, p90, p99, max (all 0 when n is 0). */
void aug_latency_stats_fill(double *v, long n, struct aug_latency_stats *out);

struct aug_serve_result {
    enum aug_scenario scenario;
    struct aug_serve_config config;  /* with the engine defaults and the limits resolved */
    long requests;
    double input_tokens, output_tokens;
    double duration_s;               /* first arrival to the last token */
    double output_tokens_per_s, total_tokens_per_s, requests_per_s; /* over all GPUs */
    double mean_batch;               /* running requests per step, time-weighted */
    double mean_tokens_per_step;
    double kv_utilization;           /* mean share of the KV blocks held, time-weighted */
    long kv_blocks;                  /* per replica */
    double kv_capacity_tokens;       /* per replica */
    double kv_cache_gib;             /* per GPU */
    long steps, prefill_steps, decode_steps, mixed_steps;
    double prefill_s, decode_s, mixed_s; /* time in each kind of step (per replica, summed) */
    long preemptions;
    long distinct_steps;             /* step compositions timed (the rest reused a timing) */
    /* server */
    double offered_rate;             /* requests/s over all replicas */
    int sustainable;                 /* 0: arrivals outpace service (the queue grows) */
    long queued_at_last_arrival;
    struct aug_latency_stats ttft, tpot, itl, e2e; /* seconds */
    struct aug_provenance provenance;
    struct aug_infer_memory memory;  /* per GPU, with the KV cache as allocated */
};

/* Run `reqs` through a resolved plan (tp, pp, ep, dtypes, floors; the plan's batch and
 * lengths are not used) with the engine settings `cfg`: requests are dealt round-robin to
 * the plan's replicas, each replica is simulated step by step. Named errors: AUG_EUSAGE for
 * an empty list, a request longer than the KV cache or the model's context, or a prompt
 * longer than the token budget without chunked prefill; AUG_EUNSUPPORTED when the weights
 * leave no room for a KV cache. */
int aug_serve_simulate(const struct aug_model *m, const struct aug_system *s,
                       const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                       const struct aug_serve_config *cfg, const struct aug_requests *reqs,
                       enum aug_scenario scenario, struct aug_serve_result *out);

/* ---- the highest rate that meets latency targets ---- */

struct aug_serve_slo {
    double ttft_p99_s, tpot_p99_s; /* targets; 0: none */
    long num_requests;             /* per trial (default 1000 when 0) */
    unsigned long long seed;
    struct aug_len_dist input, output;
};

struct aug_serve_slo_result {
    double capacity_rate;   /* requests/s of the offline run: the ceiling */
    double max_rate;        /* highest Poisson rate found that meets the targets (0: none) */
    struct aug_serve_result at_max; /* the server run at max_rate */
    int trials;
};

/* Bisection over the request rate (Poisson arrivals, the same seeded lengths at every rate)
 * between 0 and the offline capacity: a rate passes when the load is sustainable and the
 * p99 TTFT and TPOT meet the targets; 12 halvings (0.025% of the capacity). */
int aug_serve_max_rate(const struct aug_model *m, const struct aug_system *s,
                       const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                       const struct aug_serve_config *cfg, const struct aug_serve_slo *slo,
                       struct aug_serve_slo_result *out);

#ifdef __cplusplus
}
#endif
#endif
