/* infer_internal.h - what the serving model's files share (not public): the op graph of
 * one forward step of a replica, the per-GPU shapes it is built from, and the timing of a
 * step on a pipeline stage. */
#ifndef AUG_INFER_INTERNAL_H
#define AUG_INFER_INTERNAL_H

#include "augur/infer.h"
#include "augur/op.h"

/* What one forward step of one replica processes: sequences that decode one token over
 * the cache they already hold, and sequences whose prompt (or a chunk of it) runs now. */
struct aug_infer_step {
    double decode_seqs;  /* sequences generating one token */
    double decode_ctx;   /* tokens already cached for each of them */
    double prefill_seqs; /* sequences prefilling this step */
    double prefill_len;  /* new prompt tokens per prefilling sequence */
    double prefill_ctx;  /* tokens cached before this chunk (chunked prefill) */
    double sample_seqs;  /* sequences that emit a token (rows of the LM head) */
};

/* What a second of an op counts as. */
enum aug_icat {
    AUG_ICAT_GEMM,
    AUG_ICAT_ATTENTION,
    AUG_ICAT_MEMORY,
    AUG_ICAT_HEAD,
    AUG_ICAT_TP,
    AUG_ICAT_COUNT
};

struct aug_infer_gop {
    struct aug_op op;
    enum aug_icat cat;
    int defaults_only; /* time with the documented defaults: no calibrated curve measures it */
    int stream;        /* a streaming read timed at AUG_INFER_STREAM_EFF of HBM bandwidth */
    double core_eff;   /* > 0: computed on CUDA cores at this share of the FP32 peak */
    int stage;         /* head ops: 0 first pipeline stage (embedding), 1 last (LM head) */
};

#define AUG_INFER_MAX_LAYER_OPS 32
#define AUG_INFER_MAX_HEAD_OPS 12

struct aug_infer_graph {
    struct aug_infer_gop layer[AUG_INFER_MAX_LAYER_OPS];
    int n_layer;
    int decode_attn; /* index of the decode attention op in `layer` (-1: none) */
    struct aug_infer_gop head[AUG_INFER_MAX_HEAD_OPS];
    int n_head;
};

/* Per-GPU shapes of a plan. */
struct aug_infer_dims {
    double t, h, d, a_t, kv_t, f, V, E, k, L;
    double e;            /* activation bytes (16-bit, or 4 for fp32) */
    double wb;           /* bytes per linear weight (with int4 group scales) */
    double kvb;          /* bytes per KV element */
    double ep;
    enum aug_dtype cdt;  /* compute dtype of GEMMs */
    enum aug_dtype adt;  /* dtype of attention and of the LM head (16-bit for 8/4-bit compute) */
    int tp_ranks, tp_domain;
};

void aug_infer_dims(const struct aug_model *m, const struct aug_system *s,
                    const struct aug_infer_plan *p, struct aug_infer_dims *x);

/* Achieved share of HBM bandwidth of kernels that stream hundreds of MiB (flash-decoding
 * over the KV cache): the A100 calibrated elementwise curve moves 1,795 GB/s of 2,039 (0.88)
 * for 36 MB to 1.6 GB (Vidur's profiles, kernels-db/a100-80g); the default for short
 * memory-bound kernels (0.70, efficiency.c) undercounts such streams. */
#define AUG_INFER_STREAM_EFF 0.85

/* Share of the FP32 (CUDA-core) peak that a per-query-head decode kernel reaches: every
 * cached element a thread block reads is converted to fp32 before its multiply-add, and the
 * CUDA C++ Programming Guide (Arithmetic Instructions, throughput table, compute
 * capability 8.x and 9.0) lists 16 conversions per clock per SM against 128 fp32 FMAs: one
 * conversion per FMA (2 FLOPs) caps the kernel at 1/8 of the FP32 peak; 16-bit elements
 * are converted two per instruction (half2), 1/4. The query heads of a GQA group run in
 * adjacent thread blocks, so the group's reads of one KV head are served by L2 and HBM sees
 * them once. */
#define AUG_INFER_CORE_EFF_8BIT 0.125
#define AUG_INFER_CORE_EFF_16BIT 0.25

/* Bytes per weight of a storage dtype: int4 carries one 16-bit scale per group of 128
 * weights (AWQ, Lin et al. 2024; GPTQ, Frantar et al. 2023), 8-bit formats per-channel or
 * per-tensor scales (negligible). */
double aug_infer_weight_bytes(enum aug_dtype wdt);

/* The ops of one layer and of the model's two ends for one step of one replica. */
void aug_infer_graph_build(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_infer_step *st,
                           struct aug_infer_graph *g);

/* The op-time contexts of a prediction: with curves, and defaults only. */
struct aug_infer_ctx {
    struct aug_system sys;  /* the system with the plan's launch gap */
    struct aug_op_ctx with_curves, defaults;
    double step_overhead_s;
};
void aug_infer_ctx_init(struct aug_infer_ctx *c, const struct aug_system *s,
                        const struct aug_infer_plan *p, const struct aug_infer_options *opt);

/* Seconds (and what they are made of) of a list of ops. */
struct aug_infer_acc {
    double cat[AUG_ICAT_COUNT];
    double src[AUG_SOURCE_COUNT];
    double total;
    double flops, bytes;
};

void aug_infer_acc_add(struct aug_infer_acc *dst, const struct aug_infer_acc *a, double k);

/* Time one op (with curves unless it is defaults_only). */
int aug_infer_time_op(const struct aug_infer_ctx *c, const struct aug_infer_gop *g,
                      struct aug_op_time *t);

/* Time ops [first, first + n) of `ops`, each `mult` times, into acc (skipping `skip`). */
int aug_infer_time_ops(const struct aug_infer_ctx *c, const struct aug_infer_gop *ops, int first,
                       int n, int skip, double mult, struct aug_infer_acc *acc);

/* The flash-decoding op of `seqs` sequences attending over `ctx` tokens each. */
struct aug_op aug_infer_decode_attention(const struct aug_infer_dims *x, const struct aug_system *s,
                                         double seqs, double ctx);

/* One forward step of one replica on its slowest pipeline stage: layer ops times the
 * stage's layers plus the heavier end (embedding or LM head). */
int aug_infer_stage_time(const struct aug_infer_ctx *c, const struct aug_model *m,
                         const struct aug_infer_plan *p, const struct aug_infer_graph *g,
                         int skip_decode_attn, struct aug_infer_acc *acc);

/* Layers on the most loaded pipeline stage: ceil(layers / pp). */
long aug_infer_stage_layers(const struct aug_model *m, const struct aug_infer_plan *p);

/* Time of the activations of `tokens` crossing one pipeline boundary (0 when pp = 1). */
/* Breakdown of `busy` copies of a stage step (categories from acc). */
void aug_infer_add_busy(struct aug_infer_breakdown *b, const struct aug_infer_acc *a, double busy);

/* Time to first token: the prefill pass of the prompt, filled into out->prefill_s and
 * out->prefill, its time added to src by source. Shared by every architecture (the graph
 * builder picks the layer kind). */
int aug_infer_prefill(const struct aug_infer_ctx *c, const struct aug_model *m,
                      const struct aug_system *s, const struct aug_infer_plan *p,
                      struct aug_infer_result *out, double src[AUG_SOURCE_COUNT]);

int aug_infer_pp_send(const struct aug_infer_ctx *c, const struct aug_model *m,
                      const struct aug_infer_plan *p, double tokens, double *t,
                      enum aug_source *src);

/* Steady-state continuous batching and disaggregation (serving.c). */
int aug_infer_continuous(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                         struct aug_infer_result *out);
int aug_infer_disaggregated(const struct aug_model *m, const struct aug_system *s,
                            const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                            struct aug_infer_result *out);

/* Static batching of one replica (infer.c), also used per pool by disaggregation. */
int aug_infer_static(const struct aug_model *m, const struct aug_system *s,
                     const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                     struct aug_infer_result *out);

/* Memory with `kv_tokens` cached per sequence and `prefill_tokens` in the largest step. */
void aug_infer_memory_at(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, double seqs, double kv_tokens,
                         double prefill_tokens, struct aug_infer_memory *out);

#endif
