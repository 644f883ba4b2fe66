/* SPDX-License-Identifier: Apache-2.0 */
/* framework.h - what a training framework executes beyond the plan the user writes: the
 * plan defaults it applies (sequence parallelism, FlashAttention, overlaps, pipeline
 * scatter/gather, optimizer and gradient bytes, bucket sizes, CUDA graphs) and the host
 * time it needs to issue each kernel. One profile per framework, in one table
 * (predictor/train/framework.c); every default stays overridable. */
#ifndef AUG_FRAMEWORK_H
#define AUG_FRAMEWORK_H

#include <stddef.h>

#include "augur/op.h"
#include "augur/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum aug_framework_id {
    AUG_FW_NONE,              /* the plan exactly as given; flat per-kernel host cost */
    AUG_FW_MEGATRON_CORE,     /* NeMo 2 / Megatron-Core recipes */
    AUG_FW_MEGATRON_LM_2022,  /* Megatron-LM of Narayanan et al. 2021 / Korthikanti et al. 2022 */
    AUG_FW_MEGATRON_DEEPSPEED,
    AUG_FW_DEEPSPEED_ZERO,
    AUG_FW_PYTORCH_FSDP,
    AUG_FW_DEEPSPEED_ZERO_2021, /* DeepSpeed 0.3.13-0.5.5 ZeRO-3 (the SC21 baseline) */
    AUG_FW_NEMO1_LAUNCHER,      /* NeMo 1 through NeMo-Framework-Launcher 24.01-24.07 */
    AUG_FW_COUNT
};

/* Plan fields a profile sets; a caller passes the ones the user gave explicitly so the
 * profile leaves them alone. */
enum {
    AUG_FWSET_SP = 1u << 0,
    AUG_FWSET_ATTENTION = 1u << 1,
    AUG_FWSET_DP_OVERLAP = 1u << 2,
    AUG_FWSET_TP_OVERLAP = 1u << 3,
    AUG_FWSET_PP_OVERLAP = 1u << 4,
    AUG_FWSET_PP_SCATTER = 1u << 5,
    AUG_FWSET_SHARDING = 1u << 6, /* --zero / --fsdp */
    AUG_FWSET_GRADS = 1u << 7,
    AUG_FWSET_CUDA_GRAPHS = 1u << 8,
    AUG_FWSET_BUCKET = 1u << 9,
    AUG_FWSET_PARAM_GATHER = 1u << 10,
    AUG_FWSET_ATTN_KERNEL = 1u << 11,
    AUG_FWSET_CROSS_ENTROPY = 1u << 12,
    AUG_FWSET_TP_ASYNC = 1u << 13,
    AUG_FWSET_ZERO3_GATHER = 1u << 14,
    AUG_FWSET_GRAD_REDUCE = 1u << 15,
    AUG_FWSET_FP8_PARAMS = 1u << 16
};

/* Host time to issue one kernel, by op kind, in microseconds. */
struct aug_host_cost {
    double issue_us[AUG_OP_KIND_COUNT];
};

/* A framework profile. Plan defaults: -1 leaves the plan's value. */
struct aug_framework {
    const char *name;
    const char *source;        /* the version and documents it follows */
    int sp;                    /* 1: sequence parallelism whenever tp > 1 */
    int flash_attention;
    int attn_kernel;           /* enum aug_attn_kernel of its fused attention */
    int cross_entropy;         /* enum aug_cross_entropy of its loss */
    int dp_overlap, tp_overlap;
    int param_gather_overlap;  /* sharded-optimizer all-gather behind the next forward */
    int pp_overlap;            /* 2: only with an interleaved schedule */
    int pp_scatter;
    int tp_async_allreduce;    /* the input-gradient all-reduce beside the weight gradient */
    int zero;                  /* ZeRO stage / distributed optimizer */
    int fsdp;                  /* enum aug_fsdp */
    int zero3_gather;          /* enum aug_zero3_gather, where the plan ends up ZeRO-3 */
    int bf16_optimizer;        /* 1: ZeRO-1 with bf16 weights and fp32 gradients runs
                                  DeepSpeed's BF16_Optimizer, which all-reduces them */
    int main_grads;            /* enum aug_main_grads; 3: fp32 with bf16/fp8, fp32-copy with
                                  fp16, dtype otherwise (Megatron's rule) */
    int cuda_graphs;
    int fp8_params;            /* 1: an fp8 plan stores and gathers fp8 weights; 0: leave */
    double bucket_min, bucket_per_dp; /* bucket = max(min, per_dp * dp) params; min < 0: leave */
    struct aug_host_cost host;
    const char *host_fit;      /* how the host costs were obtained */
};

const struct aug_framework *aug_framework_get(int id); /* NULL when out of range */
const char *aug_framework_name(int id);
int aug_framework_from_name(const char *s, int *id);   /* AUG_EUSAGE listing the names */

/* Set the profile's defaults on a resolved plan, except the fields in `explicit_mask`,
 * and record the profile in p->framework. Writes "sp on, attention fused, ..." (what it
 * set) into `applied` when not NULL. Resolve the plan again afterwards. */
void aug_framework_apply(int id, struct aug_plan *p, unsigned explicit_mask, char *applied,
                         size_t applied_size);

/* Host issue cost of one kernel of `kind` under the plan's framework (0 with CUDA graphs). */
double aug_framework_issue_s(const struct aug_plan *p, const struct aug_host_cost *override,
                             enum aug_op_kind kind);

#ifdef __cplusplus
}
#endif
#endif
