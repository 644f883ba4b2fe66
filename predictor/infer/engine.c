/* SPDX-License-Identifier: Apache-2.0 */
/* engine.c - serving-engine presets (augur/serving.h): the scheduler and memory defaults
 * each engine documents, and the KV-cache dtype it serves with.
 *
 * TensorRT-LLM (trtllm-bench throughput; tensorrt_llm/bench and executor KvCacheConfig):
 *   capacity scheduler GUARANTEED_NO_EVICT (the executor's default SchedulerConfig);
 *   KV cache = kv_cache_free_gpu_mem_fraction of the memory free after the engine loads,
 *   0.90 (KvCacheConfig free_gpu_memory_fraction default; the v0.20 perf-overview runs
 *   pass 0.95); paged blocks of 64 tokens (trtllm-build --tokens_per_block default);
 *   chunked context on (trtllm-bench enables it); max batch size and max num tokens from
 *   trtllm-bench's own heuristic (tensorrt_llm/bench/build/tuning.py, calc_engine_setting
 *   and finetune_setting), reproduced in aug_engine_auto_limits().
 * vLLM (vllm/config.py, CacheConfig and SchedulerConfig of the V1 engine): the KV cache and
 *   everything else within gpu_memory_utilization 0.90 of the GPU's memory; blocks of 16
 *   tokens; max_num_seqs 256; max_num_batched_tokens 8192 with chunked prefill; greedy
 *   admission with recompute preemption.
 * SGLang (python/sglang/srt/server_args.py): mem_fraction_static 0.88 of the GPU's memory
 *   for weights and the KV pool; page size 1; chunked_prefill_size 8192; max running
 *   requests bounded by the pool (a batch limit of 1024 here); retraction (preemption) when
 *   decode runs out of pages. */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "augur/serving.h"
#include "augur/status.h"
#include "engine.h"

static const char *const engine_names[] = {"trtllm", "vllm", "sglang", "trtllm-trt"};
_Static_assert(sizeof engine_names / sizeof *engine_names == AUG_ENGINE_COUNT, "engine names");
static const char *const policy_names[] = {"no-evict", "max-util"};
_Static_assert(sizeof policy_names / sizeof *policy_names == AUG_SCHED_COUNT, "policy names");

const char *aug_engine_name(enum aug_engine e) {
    return (unsigned)e < AUG_ENGINE_COUNT ? engine_names[e] : "?";
}

int aug_engine_from_name(const char *name, enum aug_engine *out) {
    for (int i = 0; name && i < AUG_ENGINE_COUNT; i++)
        if (strcasecmp(name, engine_names[i]) == 0) {
            *out = (enum aug_engine)i;
            return AUG_OK;
        }
    if (name && (strcasecmp(name, "tensorrt-llm") == 0 || strcasecmp(name, "trt-llm") == 0)) {
        *out = AUG_ENGINE_TRTLLM;
        return AUG_OK;
    }
    return aug_errorf(AUG_EUSAGE, "unknown engine '%s' (use trtllm, vllm or sglang)",
                      name ? name : "");
}

const char *aug_sched_policy_name(enum aug_sched_policy p) {
    return (unsigned)p < AUG_SCHED_COUNT ? policy_names[p] : "?";
}

int aug_sched_policy_from_name(const char *name, enum aug_sched_policy *out) {
    for (int i = 0; name && i < AUG_SCHED_COUNT; i++)
        if (strcasecmp(name, policy_names[i]) == 0) {
            *out = (enum aug_sched_policy)i;
            return AUG_OK;
        }
    if (name && strcasecmp(name, "guaranteed_no_evict") == 0) {
        *out = AUG_SCHED_NO_EVICT;
        return AUG_OK;
    }
    if (name && strcasecmp(name, "max_utilization") == 0) {
        *out = AUG_SCHED_MAX_UTIL;
        return AUG_OK;
    }
    return aug_errorf(AUG_EUSAGE, "unknown scheduler policy '%s' (use no-evict or max-util)",
                      name ? name : "");
}

void aug_serve_config_init(struct aug_serve_config *c, enum aug_engine e) {
    memset(c, 0, sizeof *c);
    c->engine = e;
    c->chunked_prefill = 1;
    c->step_overhead_us = -1.0;
    c->workspace_gib = -1.0;
    switch (e) {
    case AUG_ENGINE_VLLM:
        c->policy = AUG_SCHED_MAX_UTIL;
        c->kv_base = AUG_KV_OF_TOTAL;
        c->kv_fraction = 0.90;
        c->block_tokens = 16;
        break;
    case AUG_ENGINE_SGLANG:
        c->policy = AUG_SCHED_MAX_UTIL;
        c->kv_base = AUG_KV_OF_TOTAL;
        c->kv_fraction = 0.88;
        c->block_tokens = 1;
        break;
    case AUG_ENGINE_TRTLLM_TRT:
        /* The TensorRT engine's runtime floors, fitted on the even-indexed TensorRT-LLM v0.14
         * rows of benchmarks/accuracy/inference_throughput.csv (0-based data-row index in
         * the file, 208 rows) and reported on the odd-indexed ones (README "Accuracy"):
         * - runtime memory: the engine's activation profiles, decoder and sampling buffers
         *   leave 4.5 GiB per GPU less for the KV cache than the weights and the largest
         *   step need;
         * - host work per layer and step: without CUDA graphs (the executor's
         *   ExtendedRuntimePerfKnobConfig has cudaGraphMode false by default,
         *   cpp/include/tensorrt_llm/executor/executor.h) the runtime enqueues every
         *   layer's TensorRT kernels and plugins (GPT attention, GEMM, all-reduce) from the
         *   host each iteration, so the floor grows with the layers of the stage: 100 us
         *   per layer (8.0 ms for Llama-3-70B's 80 layers, 3.2 ms for Llama-3.1-8B's 32);
         * - the C++ batch manager and decoder do host work for every active request each
         *   iteration (the capacity and micro-batch schedulers take the vector of active
         *   requests, as do the decoder setup and the response handling: TensorRT-LLM
         *   cpp/include/tensorrt_llm/batch_manager/microBatchScheduler.h and
         *   capacityScheduler.h; v0.14 shipped that batch manager as a library): 4 us per
         *   running request and step.
         * The first fit had a constant floor of 4 ms per step beside 6 GiB and 4 us
         * (grids 1.5-10 GiB x 0.3-5 ms, then 3-7.5 GiB x 2-5 ms x 0-10 us): MAPE 10.8% on
         * the fit half, 10.5% held out; it left the one-GPU 7B/8B runs 10-20% too slow
         * and the 70B runs at TP 8 too fast. Replacing the constant by a per-layer floor
         * (a + b x layers over a = 0-3 ms, b = 0-100 us, then 3-7.5 GiB at b = 75-100 us,
         * the per-request term kept at 4 us) the fit half has its lowest MAPE at a = 0,
         * b = 100 us, 4.5 GiB: 10.0% (10.1-10.3% at b = 75-100 us, 4.5-6 GiB), and the
         * held-out half scores 10.3% (10.5% before). */
        c->workspace_gib = 4.5;
        c->step_overhead_us = 0.0;
        c->layer_overhead_us = 100.0;
        c->request_overhead_us = 4.0;
        c->policy = AUG_SCHED_NO_EVICT;
        c->kv_base = AUG_KV_OF_FREE;
        c->kv_fraction = 0.90;
        c->block_tokens = 64;
        break;
    default:
        c->policy = AUG_SCHED_NO_EVICT;
        c->kv_base = AUG_KV_OF_FREE;
        c->kv_fraction = 0.90;
        c->block_tokens = 64;
        break;
    }
}

/* TensorRT-LLM's two backends come to their KV cache differently:
 * - the TensorRT engine (trtllm-trt): `trtllm-bench build --quantization FP8` quantizes the
 *   checkpoint itself and "if you specify FP8 quantization, the KV cache will automatically
 *   be set to FP8 as well" (perf-overview, v0.14);
 * - the PyTorch backend (trtllm) loads a pre-quantized checkpoint and keeps the KV cache its
 *   hf_quant_config.json names (kv_cache_dtype "auto"); trtllm-bench replaces a missing one
 *   by FP8 only for the quant algos of its map, FP8 and NVFP4
 *   (tensorrt_llm/bench/benchmark/utils/general.py, _KV_CACHE_MAP and get_settings, and the
 *   table of docs/source/performance/perf-benchmarking.md, v0.20-era). ModelOpt's per-tensor
 *   FP8 checkpoints therefore serve an FP8 cache; a per-channel, per-token FP8 checkpoint
 *   (FP8_PER_CHANNEL_PER_TOKEN, not in the map, no KV quantization: Llama 4 Maverick, whose
 *   FP8 accuracy test sets kv_cache_quant_algo FP8 explicitly, model.h) keeps a 16-bit one. */
enum aug_dtype aug_engine_kv_dtype(enum aug_engine e, enum aug_dtype dtype,
                                   enum aug_dtype weight_dtype, enum aug_fp8_recipe recipe,
                                   const char **why) {
    enum aug_dtype w = (unsigned)weight_dtype < AUG_DTYPE_COUNT ? weight_dtype : dtype;
    int trt = e == AUG_ENGINE_TRTLLM || e == AUG_ENGINE_TRTLLM_TRT;
    int fp8 = w == AUG_DTYPE_FP8 || dtype == AUG_DTYPE_FP8;
    int kv16 = e == AUG_ENGINE_TRTLLM && recipe == AUG_FP8_PER_CHANNEL_PER_TOKEN;
    if (trt && fp8 && !kv16) {
        *why = "TensorRT-LLM FP8 quantization also quantizes the KV cache";
        return AUG_DTYPE_FP8;
    }
    /* 8- and 4-bit compute keeps 16-bit activations, so does the cache */
    enum aug_dtype act = dtype == AUG_DTYPE_FP8 || dtype == AUG_DTYPE_INT8 || dtype == AUG_DTYPE_INT4
                             ? AUG_DTYPE_BF16
                             : dtype;
    if (trt && fp8)
        *why = "TensorRT-LLM PyTorch backend: the per-channel, per-token FP8 checkpoint carries "
               "no KV-cache quantization, which trtllm-bench does not add";
    else
        *why = trt ? "TensorRT-LLM: unquantized KV cache in the activation dtype"
                   : "kv_cache_dtype auto: the model's activation dtype";
    return act;
}

void aug_engine_auto_limits(const struct aug_serve_config *c, double gpu_mem_gib, double params,
                            double weight_bytes, double kv_bytes_per_token, long tp, long pp,
                            double isl, double osl, long *max_batch, long *max_tokens) {
    if (c->engine == AUG_ENGINE_VLLM) {
        *max_batch = 256;
        *max_tokens = 8192;
        return;
    }
    if (c->engine == AUG_ENGINE_SGLANG) {
        *max_batch = 1024;
        *max_tokens = 8192;
        return;
    }
    /* trtllm-bench calc_engine_setting: the KV cache that would fit beside an engine of
     * params * bytes per weight, at fraction 0.95, in requests of isl + osl tokens */
    double n_gpus = (double)(tp * pp);
    double engine_gb = params / 1e9 * weight_bytes;
    double avail = gpu_mem_gib * n_gpus - engine_gb;
    double per_tok_gb = kv_bytes_per_token / (1024.0 * 1024.0 * 1024.0);
    double kv_req = per_tok_gb > 0 && isl + osl > 0 ? avail * 0.95 / per_tok_gb / (isl + osl) : 4096;
    if (!(kv_req > 1.0))
        kv_req = 1.0;
    /* finetune_setting */
    double raw_bs = fmin(kv_req, 4096.0) / (double)pp;
    double raw_tok = fmin(raw_bs * (1.0 + isl / osl), 32768.0);
    double bs, tok;
    if (raw_bs < 256)
        bs = fmax(64.0, 32.0 * ceil(raw_bs / 32.0));
    else if (raw_bs < 1024)
        bs = 128.0 * ceil(raw_bs / 128.0);
    else
        bs = 256.0 * ceil(raw_bs / 256.0);
    if (raw_tok < 4096)
        tok = fmax(2048.0, 256.0 * ceil(raw_tok / 256.0));
    else if (raw_tok < 8192)
        tok = 512.0 * ceil(raw_tok / 512.0);
    else
        tok = 1024.0 * ceil(raw_tok / 1024.0);
    *max_batch = (long)bs;
    *max_tokens = (long)tok;
}
