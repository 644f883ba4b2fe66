/* plan.h - a parallelization plan: degrees, batching, memory-saving choices.
 *
 * GPUs = tp * pp * dp * cp (expert parallelism is carved out of dp * cp as in
 * Megatron). Ranks map to the topology with TP innermost, then CP, then DP, then PP
 * outermost, so a group of g consecutive ranks stays inside one NVLink domain when g
 * divides the domain size. */
#ifndef AUG_PLAN_H
#define AUG_PLAN_H

#include "augur/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_model;
struct aug_system;

enum aug_recompute { AUG_RECOMPUTE_NONE, AUG_RECOMPUTE_SELECTIVE, AUG_RECOMPUTE_FULL,
                     AUG_RECOMPUTE_COUNT };
enum aug_fsdp { AUG_FSDP_NONE, AUG_FSDP_FULL, AUG_FSDP_HYBRID, AUG_FSDP_COUNT };

const char *aug_recompute_name(enum aug_recompute r);
int aug_recompute_from_name(const char *s, enum aug_recompute *out);
const char *aug_fsdp_name(enum aug_fsdp f);
int aug_fsdp_from_name(const char *s, enum aug_fsdp *out);

struct aug_plan {
    long gpus;
    long tp, pp, dp, cp, ep;
    int sp;                  /* sequence parallelism with TP (Korthikanti et al. 2022) */
    long interleave;         /* virtual pipeline stages per rank (1 = plain 1F1B) */
    long micro_batch;        /* sequences per micro-batch per DP rank */
    long global_batch;       /* sequences per iteration over all DP ranks */
    long seq;                /* tokens per sequence (0 = model max_seq) */
    enum aug_recompute recompute;
    int zero;                /* ZeRO stage 0-3 (DeepSpeed / Megatron distributed optimizer) */
    enum aug_fsdp fsdp;      /* PyTorch FSDP: full = ZeRO-3 over dp, hybrid = within node */
    enum aug_dtype dtype;    /* compute dtype of GEMMs */
    int flash_attention;     /* 1: fused FlashAttention (default), 0: unfused path */
    int dp_overlap;          /* 1: gradient reduction overlapped with backward (default) */
    int uneven_pp;           /* 1: allow layers not divisible by pp (slowest stage rounds up) */
};

/* Defaults: all degrees 1 (dp 0 = derive), bf16, FlashAttention, overlap, no recompute. */
void aug_plan_init(struct aug_plan *p);

/* Derive dp (gpus / (tp*pp*cp)) and seq, then check divisibility and consistency
 * against the model and system. AUG_EUSAGE with a one-line message naming the
 * product or divisibility that fails. */
int aug_plan_resolve(struct aug_plan *p, const struct aug_model *m, const struct aug_system *s);

/* Layers on the most loaded pipeline stage: layers / pp, rounded up per virtual chunk
 * when the split is uneven. */
long aug_plan_stage_layers(const struct aug_plan *p, const struct aug_model *m);

/* Micro-batches per iteration per pipeline: global / (micro_batch * dp). */
long aug_plan_microbatches(const struct aug_plan *p);

#ifdef __cplusplus
}
#endif
#endif
