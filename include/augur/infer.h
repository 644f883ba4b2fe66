/* SPDX-License-Identifier: Apache-2.0 */
/* infer.h - serving an LLM: prefill and decode with a KV cache, time to first token, time
 * per output token, throughput, memory per GPU and the largest batch that fits, for static
 * batching, steady-state continuous batching and prefill/decode disaggregation.
 *
 * One replica of the model spans tp * pp GPUs; --gpus beyond that are data-parallel
 * replicas that share the batch. Expert parallelism (MoE) lives inside the TP group
 * (ep divides tp): each rank holds experts / ep routed experts, each split tp / ep ways.
 * Compute dtype (GEMM inputs and tensor-core peak) is separate from the storage dtypes of
 * weights and KV cache, which set bytes moved and capacity. */
#ifndef AUG_INFER_H
#define AUG_INFER_H

#include "augur/dtype.h"
#include "augur/kdb.h"
#include "augur/model.h"
#include "augur/system.h"
#include "augur/train.h"

#ifdef __cplusplus
extern "C" {
#endif

enum aug_serve_mode {
    AUG_SERVE_STATIC,        /* one batch: prefill together, decode together (default) */
    AUG_SERVE_CONTINUOUS,    /* steady-state continuous (in-flight) batching */
    AUG_SERVE_DISAGGREGATED, /* prefill and decode on separate GPU pools (Splitwise) */
    AUG_SERVE_COUNT
};
/* "static", "continuous", "disaggregated". */
const char *aug_serve_mode_name(enum aug_serve_mode m);
int aug_serve_mode_from_name(const char *name, enum aug_serve_mode *out);

/* Documented defaults of the serving floors (see infer.c for their basis). */
#define AUG_INFER_DEFAULT_STEP_OVERHEAD_US 300.0
#define AUG_INFER_DEFAULT_WORKSPACE_GIB 1.5

struct aug_infer_plan {
    long gpus;           /* all GPUs (0 = tp * pp, or the sum of the pools) */
    long tp, pp, ep;
    long dp;             /* replicas: derived, gpus / (tp * pp) */
    long batch;          /* sequences in flight over all replicas (divisible by dp) */
    long input_len;      /* prompt tokens per sequence */
    long output_len;     /* generated tokens per sequence (the first comes from prefill) */
    enum aug_dtype dtype;        /* compute dtype of the GEMMs */
    enum aug_dtype weight_dtype; /* storage of linear-layer weights (AUG_DTYPE_COUNT = dtype) */
    enum aug_dtype kv_dtype;     /* storage of the KV cache (AUG_DTYPE_COUNT = dtype) */
    int flash_attention;         /* 1: fused FlashAttention / flash-decoding (default) */
    int decode_per_head;         /* 1: the decode kernel runs one thread block per query head
                                    on CUDA cores (TensorRT-LLM's masked MHA, vLLM's
                                    PagedAttention); 0: tensor-core kernels that take a GQA
                                    group's query heads together (flash-decoding, XQA,
                                    FlashInfer; default) */
    double launch_us;            /* per-kernel launch gap; < 0: the GPU's launch_us */
    double step_overhead_us;     /* framework floor per forward step; < 0: the default */
    double workspace_gib;        /* runtime workspace per GPU; < 0: the default */
    int attn_dp;                 /* 1: attention data-parallel over the tp ranks of a replica
                                    (whole attention weights and the KV cache of its own
                                    sequences on each), MoE layers expert-parallel over them
                                    with all-to-all dispatch and combine (SGLang
                                    --enable-dp-attention, TensorRT-LLM enable_attention_dp);
                                    needs ep = tp */

    /* serving mode */
    enum aug_serve_mode mode;
    double request_rate;  /* continuous: arriving requests/s (0: run at `concurrency`) */
    long concurrency;     /* continuous: requests in flight (0: batch) */
    long chunk_tokens;    /* continuous: prefill token budget per step (0: whole prompts) */
    long prefill_gpus, prefill_tp; /* disaggregated: prefill pool (0: half the GPUs, tp) */
    long decode_gpus, decode_tp;   /* disaggregated: decode pool (0: the rest, tp) */
    int kv_link;          /* disaggregated: -1 auto, else enum aug_link between the pools */
};

/* Defaults: one GPU, batch 1, bf16 everything, FlashAttention, default floors, static. */
void aug_infer_plan_init(struct aug_infer_plan *p);

/* Fill derived fields (gpus, dp, storage dtypes) and check the plan against the model and
 * system. Named errors: AUG_EUSAGE for zero or inconsistent sizes and degrees and for a
 * context beyond the model's maximum; AUG_EUNSUPPORTED for a dtype the GPU cannot run. */
int aug_infer_plan_resolve(struct aug_infer_plan *p, const struct aug_model *m,
                           const struct aug_system *s);

/* Seconds of one phase on the critical path, by component (they add up to the phase). */
struct aug_infer_breakdown {
    double gemm_s;      /* linear layers (QKV, output, MLP, experts, router) */
    double attention_s; /* attention core (FlashAttention prefill, flash-decoding) */
    double memory_s;    /* norms, rotary, activations, residual adds, embedding */
    double lm_head_s;   /* final norm, LM head, sampling */
    double tp_comm_s;   /* tensor-parallel all-reduces and the logits gather (beside
                           data-parallel attention: the MoE all-to-alls) */
    double pp_comm_s;   /* pipeline sends between stages */
    double bubble_s;    /* pipeline stages waiting on each other */
    double overhead_s;  /* framework floor per step */
};

/* GiB per GPU (the most loaded pipeline stage). */
struct aug_infer_memory {
    double weights_gib;
    double kv_cache_gib;
    double activations_gib;
    double workspace_gib;
    double total_gib;
};

/* One op of the bound analysis (Optimus-style): per GPU, for one layer or once per step. */
struct aug_infer_op_report {
    char phase[8];          /* "prefill" or "decode" */
    char name[24];
    char kind[12];          /* "gemm", "attention", "memory", "collective" */
    double count;           /* executions per step on the slowest stage */
    double flops, bytes;    /* one execution */
    double intensity;       /* FLOP per byte */
    double ridge;           /* the GPU's ridge point for the op's dtype (FLOP per byte) */
    int compute_bound;      /* intensity above the ridge (collectives: 0) */
    double time_s;          /* one execution */
    double share;           /* count * time / step time */
    char source[12];        /* "curve", "fallback", "roofline" */
    struct aug_op_shape shape; /* its dtype and GEMM shape */
};

struct aug_infer_serving {
    double request_rate;        /* continuous: requests/s sustained */
    double concurrency;         /* continuous: requests in flight */
    int saturated;              /* continuous: the offered rate exceeds what fits */
    double step_s;              /* continuous: one mixed step */
    double prefill_tokens_per_step, decode_tokens_per_step;
    double kv_transfer_s;       /* disaggregated: KV cache of the batch, exposed part */
    double kv_transfer_bytes;   /* disaggregated: per request */
    long prefill_gpus, decode_gpus, prefill_tp, decode_tp;
    const char *kv_link;        /* "nvlink" or "network" */
};

struct aug_infer_result {
    enum aug_serve_mode mode;
    double ttft_s;                   /* request to first token (prefill + first sample) */
    double tpot_s;                   /* mean time per output token after the first */
    double tpot_last_s;              /* the last decode step (longest context) */
    double e2e_latency_s;            /* ttft + (output_len - 1) * tpot */
    double throughput_tokens_per_s;  /* output tokens/s over all GPUs */
    double total_tokens_per_s;       /* (input + output) tokens/s over all GPUs */
    double prefill_s, decode_s;      /* the two phases of a static batch */
    long decode_steps;
    struct aug_infer_breakdown prefill, decode; /* decode: summed over all steps */
    double decode_step_bytes;        /* HBM bytes per GPU of the first decode step */
    double weight_bytes_per_gpu;     /* linear weights + embeddings held by one GPU */
    double kv_bytes_per_token;       /* whole model (all layers, all KV heads) */
    double params;
    struct aug_infer_memory memory;
    double memory_capacity_gib;
    int fits_in_memory;
    long max_batch;                  /* over all replicas, at these lengths */
    struct aug_provenance provenance;
    struct aug_infer_serving serving;
};

struct aug_infer_options {
    const struct aug_kdb *kdb;  /* calibrated curves of the GPU, or NULL */
    int pure_roofline;          /* 1: peak rates, no launch or framework floors */
};

/* Predict serving of `m` on `s` under a resolved plan. Does not allocate. */
int aug_infer_predict(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                      struct aug_infer_result *out);

/* Memory per GPU at the plan's batch and lengths, and the largest batch that fits. */
void aug_infer_memory(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_infer_plan *p, struct aug_infer_memory *out);
long aug_infer_max_batch(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p);

/* KV-cache bytes of one token over the whole model: 2 * layers * kv_heads * head_dim *
 * bytes(kv_dtype), or layers * (kv_lora_rank + qk_rope_head_dim) * bytes for latent
 * attention (every layer counted whole: windows bound it only at longer contexts). */
double aug_infer_kv_bytes_per_token(const struct aug_model *m, enum aug_dtype kv_dtype);

/* Bound analysis of every op of the prefill and of one decode step at context
 * input_len + output_len / 2 (the mean step): fills up to `cap` reports, sets *n. */
int aug_infer_ops(const struct aug_model *m, const struct aug_system *s,
                  const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                  struct aug_infer_op_report *ops, int cap, int *n);

#ifdef __cplusplus
}
#endif
#endif
