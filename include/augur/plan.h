/* SPDX-License-Identifier: Apache-2.0 */
/* plan.h - a parallelization plan: degrees, batching, memory-saving choices.
 *
 * GPUs = tp * pp * dp * cp (expert parallelism is carved out of dp * cp as in
 * Megatron). Ranks map to the topology with TP innermost, then CP, then DP, then PP
 * outermost, so a group of g consecutive ranks stays inside one NVLink domain when g
 * divides the domain size. */
#ifndef AUG_PLAN_H
#define AUG_PLAN_H

#include <stddef.h>

#include "augur/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_model;
struct aug_system;
struct aug_plan;

enum aug_recompute { AUG_RECOMPUTE_NONE, AUG_RECOMPUTE_SELECTIVE, AUG_RECOMPUTE_FULL,
                     AUG_RECOMPUTE_COUNT };
/* What selective recomputation repeats: Megatron-Core's recompute_modules
 * (TransformerConfig, core_r0.13.0 transformer_config.py; default ["core_attn"]), one bit
 * each. core_attn: the attention core; mla_up_proj: MLA's up projections and RoPE;
 * layernorm: input_layernorm and pre_mlp_layernorm; mlp: a dense layer's MLP; moe: the
 * whole MoE layer (router, permutation, all-to-alls, experts, shared experts); moe_act: the
 * routed experts' activation function; shared_experts: the shared experts' MLP. moe_act,
 * layernorm and mla_up_proj free their outputs (output-discarding checkpointing), the
 * others keep only their inputs. */
enum aug_rc_module {
    AUG_RC_CORE_ATTN = 1u << 0,
    AUG_RC_MLA_UP_PROJ = 1u << 1,
    AUG_RC_LAYERNORM = 1u << 2,
    AUG_RC_MLP = 1u << 3,
    AUG_RC_MOE = 1u << 4,
    AUG_RC_MOE_ACT = 1u << 5,
    AUG_RC_SHARED_EXPERTS = 1u << 6,
};
#define AUG_RC_MODULE_COUNT 7
#define AUG_RC_ALL ((1u << AUG_RC_MODULE_COUNT) - 1u)
enum aug_fsdp { AUG_FSDP_NONE, AUG_FSDP_FULL, AUG_FSDP_HYBRID, AUG_FSDP_COUNT };
/* Context parallelism: ring attention passes K/V blocks around the CP ring by send/recv
 * overlapped with blockwise attention (Liu et al. 2023; Megatron-CP, causal load-balanced);
 * Ulysses all-to-alls Q, K, V and O so each rank attends a full sequence on heads/cp heads
 * (Jacobs et al. 2023); allgather gathers K and V once per layer (Llama 3, sec. 3.3.2). */
enum aug_cp_algo { AUG_CP_RING, AUG_CP_ULYSSES, AUG_CP_ALLGATHER, AUG_CP_COUNT };
/* BitLinear (ternary) layers: accumulate-only work on the CUDA cores at the GPU's
 * non-tensor rate (the MatMul-free design), or ternary values run as 16-bit tensor-core
 * GEMMs (what the reference PyTorch/Triton implementation does on GPUs). */
enum aug_ternary_kernel { AUG_TERNARY_ACCUMULATE, AUG_TERNARY_TENSOR, AUG_TERNARY_COUNT };
/* Gradient buffers and what the optimizer keeps beside them (bytes per parameter with
 * 16-bit weights; Megatron-Core docs, "Distributed Optimizer", the table of bytes per
 * parameter): dtype: gradients in the compute dtype, 12 B of fp32 master weights and Adam
 * moments (ZeRO, Rajbhandari et al. sec. 3.1: 16 B, 4 + 12/d with ZeRO-1); fp32: fp32 main
 * gradients, reduced in fp32 (Megatron bf16: 18 B, 6 + 12/d); fp32-copy: 16-bit gradients
 * reduced in 16 bits and an fp32 copy kept with the optimizer states (Megatron fp16:
 * 20 B, 4 + 16/d). */
enum aug_main_grads { AUG_GRADS_DTYPE, AUG_GRADS_FP32, AUG_GRADS_FP32_COPY, AUG_GRADS_COUNT };
/* What hides the expert-parallel all-to-alls of an MoE layer: nothing; the shared expert's
 * GEMMs, run beside the dispatch and the combine (Megatron-Core --moe-shared-expert-overlap);
 * or another micro-batch's layer (Megatron-Core --overlap-moe-expert-parallel-comm, which
 * merges one micro-batch's forward with another's backward as DeepSeek-V3's DualPipe pairs
 * its chunks, arXiv 2412.19437 sec. 3.2.1; train/ep_overlap.c). */
enum aug_moe_overlap { AUG_MOE_OVERLAP_NONE, AUG_MOE_OVERLAP_SHARED, AUG_MOE_OVERLAP_BATCH,
                       AUG_MOE_OVERLAP_COUNT };
/* How an MoE layer's tokens travel to their experts: NCCL all-to-all, every token copy
 * sent to its expert's rank (Megatron-Core's alltoall dispatcher); or DeepEP's normal
 * kernels (Megatron-Core's flex dispatcher with the deepep backend), which send a token
 * once to each other NVLink domain that holds one of its experts and forward it there over
 * NVLink (DeepSeek-V3 technical report, arXiv 2412.19437 sec. 3.2.2; deepseek-ai/DeepEP
 * csrc/kernels/internode.cu), so the network carries one copy per domain, not per expert. */
enum aug_moe_dispatcher { AUG_MOE_DISPATCH_ALLTOALL, AUG_MOE_DISPATCH_DEEPEP,
                          AUG_MOE_DISPATCH_COUNT };
/* Which fused attention kernel a training framework runs: cuDNN's fused attention
 * (Transformer Engine's default backend on Hopper), FlashAttention-3 (flash-attn 3.x), both
 * on the GPU's own tensor-core instructions, or FlashAttention-2 (flash-attn 2.x, PyTorch
 * SDPA's flash backend), which issues Ampere's mma.sync on every GPU and so runs slower on
 * Hopper and later (hw/attention_model.c). */
enum aug_attn_kernel { AUG_ATTN_KERNEL_CUDNN, AUG_ATTN_KERNEL_FA3, AUG_ATTN_KERNEL_FA2,
                       AUG_ATTN_KERNEL_COUNT };
/* How the loss runs over the vocabulary-parallel logits (layer_graph.c counts the bytes):
 * Megatron-Core's jit-fused kernels (cross_entropy_loss_fusion, the NeMo 2 default), its
 * unfused PyTorch ops (Megatron-LM, Megatron-DeepSpeed), or Transformer Engine's Triton
 * kernel (cross_entropy_fusion_impl "te"). */
enum aug_cross_entropy { AUG_CE_FUSED, AUG_CE_UNFUSED, AUG_CE_TE, AUG_CE_COUNT };
/* Where an fp8 GEMM operand's scale comes from (Transformer Engine recipes,
 * model/graph_build.c counts the passes): delayed scaling takes it from the amax history of
 * earlier iterations (DelayedScaling, TE's default), current scaling from the tensor itself,
 * one more read of it before the cast (Float8CurrentScaling, Megatron-Core fp8_recipe
 * "tensorwise": Megatron-Bridge's and NeMo 25.04's performance recipes). */
enum aug_fp8_scaling { AUG_FP8_DELAYED, AUG_FP8_CURRENT, AUG_FP8_SCALING_COUNT };

/* How ZeRO-3 (without FSDP) gathers the weights: prefetch each layer's gather behind the
 * previous layer's compute (DeepSpeed from 0.5.6, FSDP), or serial, each weight tensor
 * on its own after a device synchronization, so every gather and gradient reduce-scatter
 * adds to the compute (DeepSpeed 0.3.13-0.5.5, 2021; train/zero3_serial.h). */
enum aug_zero3_gather { AUG_ZERO3_PREFETCH, AUG_ZERO3_SERIAL, AUG_ZERO3_COUNT };

/* How ZeRO-1 reduces the gradients: reduce-scatter, each rank keeping the shard it updates
 * (Megatron's distributed optimizer, DeepSpeed's ZeRO-1 optimizer), or all-reduce, every
 * rank receiving all of them (DeepSpeed's BF16_Optimizer: bf16 weights with fp32 gradient
 * accumulation, runtime/bf16_optimizer.py, reduced by the engine's
 * buffered_allreduce_fallback); the updated weights are all-gathered either way. */
enum aug_grad_reduce { AUG_GRAD_REDUCE_SCATTER, AUG_GRAD_ALL_REDUCE, AUG_GRAD_REDUCE_COUNT };

const char *aug_recompute_name(enum aug_recompute r);
int aug_recompute_from_name(const char *s, enum aug_recompute *out);
/* A list of recompute module names separated by ',', '+' or spaces ("core_attn,mlp") into
 * a set of enum aug_rc_module bits (non-empty; AUG_EUSAGE naming an unknown module), and
 * back ("core_attn,mlp"; "none" for no module). */
int aug_rc_modules_parse(const char *list, unsigned *out);
void aug_rc_modules_format(unsigned mods, char *buf, size_t n);
/* The modules selective recomputation repeats under plan p (core_attn when none is set). */
unsigned aug_plan_rc_modules(const struct aug_plan *p);
/* AUG_EUSAGE naming the module when p's recompute modules need selective recomputation
 * (p is not selective) or name a part model m lacks (mla_up_proj without MLA, moe on a
 * dense model, ...); aug_plan_resolve() runs it. */
int aug_plan_check_rc_modules(const struct aug_plan *p, const struct aug_model *m);
/* The share of a pipeline stage's layers that full recomputation repeats: 1 for every
 * layer, recompute_layers of each chunk's layers with the block method, 0 without full
 * recomputation. */
double aug_plan_full_recompute_share(const struct aug_plan *p, const struct aug_model *m);
/* The recomputation of plan p in a few characters: "none", "selective", "full", "full(N)"
 * with the block method's N layers per chunk, "selective(mla_up_proj,mlp)" with modules
 * other than the default. */
void aug_plan_recompute_label(const struct aug_plan *p, char *buf, size_t n);
const char *aug_fsdp_name(enum aug_fsdp f);
int aug_fsdp_from_name(const char *s, enum aug_fsdp *out);
const char *aug_cp_algo_name(enum aug_cp_algo a);             /* "ring", "ulysses", "allgather" */
int aug_cp_algo_from_name(const char *s, enum aug_cp_algo *out);
const char *aug_ternary_kernel_name(enum aug_ternary_kernel k); /* "accumulate", "tensor" */
int aug_ternary_kernel_from_name(const char *s, enum aug_ternary_kernel *out);
const char *aug_main_grads_name(enum aug_main_grads g);     /* "dtype", "fp32", "fp32-copy" */
int aug_main_grads_from_name(const char *s, enum aug_main_grads *out);
const char *aug_moe_overlap_name(enum aug_moe_overlap o); /* "none", "shared", "batch" */
int aug_moe_overlap_from_name(const char *s, enum aug_moe_overlap *out);
const char *aug_moe_dispatcher_name(enum aug_moe_dispatcher d); /* "alltoall", "deepep" */
int aug_moe_dispatcher_from_name(const char *s, enum aug_moe_dispatcher *out);
const char *aug_attn_kernel_name(enum aug_attn_kernel k); /* "cudnn", "fa3", "fa2" */
int aug_attn_kernel_from_name(const char *s, enum aug_attn_kernel *out);
const char *aug_cross_entropy_name(enum aug_cross_entropy c); /* "fused", "unfused", "te" */
int aug_cross_entropy_from_name(const char *s, enum aug_cross_entropy *out);
const char *aug_fp8_scaling_name(enum aug_fp8_scaling s); /* "delayed", "current" */
int aug_fp8_scaling_from_name(const char *s, enum aug_fp8_scaling *out);
/* What a printed plan adds after its dtype: " (current scaling)" or " (delayed scaling)" for
 * an fp8 plan, with ", fp8 parameters" inside the brackets when its weights are fp8; ""
 * for any other. */
const char *aug_plan_fp8_scaling_note(const struct aug_plan *p);
const char *aug_zero3_gather_name(enum aug_zero3_gather g); /* "prefetch", "serial" */
int aug_zero3_gather_from_name(const char *s, enum aug_zero3_gather *out);
const char *aug_grad_reduce_name(enum aug_grad_reduce g); /* "reduce-scatter", "all-reduce" */
int aug_grad_reduce_from_name(const char *s, enum aug_grad_reduce *out);

struct aug_plan {
    long gpus;
    long tp, pp, dp, cp, ep;
    int sp;                  /* sequence parallelism with TP (Korthikanti et al. 2022) */
    long interleave;         /* virtual pipeline stages per rank (1 = plain 1F1B) */
    long micro_batch;        /* sequences per micro-batch per DP rank */
    long global_batch;       /* sequences per iteration over all DP ranks */
    long seq;                /* tokens per sequence (0 = model max_seq) */
    enum aug_recompute recompute;
    unsigned recompute_modules; /* enum aug_rc_module bits selective recomputation repeats
                                   (default core_attn) */
    long recompute_layers;   /* full recomputation of only the first N layers of each
                                pipeline chunk (Megatron-Core recompute_method block,
                                recompute_num_layers N); 0: every layer */
    int zero;                /* ZeRO stage 0-3 (DeepSpeed / Megatron distributed optimizer) */
    enum aug_fsdp fsdp;      /* PyTorch FSDP: full = ZeRO-3 over dp, hybrid = within node */
    enum aug_dtype dtype;    /* compute dtype of GEMMs */
    int flash_attention;     /* 1: fused FlashAttention (default), 0: unfused path */
    enum aug_attn_kernel attn_kernel; /* the fused kernel (default cudnn) */
    enum aug_cross_entropy cross_entropy; /* the loss kernels (default fused) */
    enum aug_fp8_scaling fp8_scaling;     /* fp8 operands' scales (default delayed) */
    int fp8_params;          /* 1 (fp8 plans): the layers' weights are stored and gathered in
                                fp8 (Megatron-Core --fp8-param-gather, NeMo fp8_params); 0:
                                16-bit weights with Transformer Engine's cached fp8 copies
                                (model/memory.c) */
    int dp_overlap;          /* 1: gradient reduction overlapped with backward (default) */
    int uneven_pp;           /* 1: allow layers not divisible by pp (slowest stage rounds up) */
    int pp_embed_loss_slots; /* 1: the input embedding and the loss each take one layer's
                                slot in the pipeline split, so the first and last ranks hold
                                one layer fewer (Megatron-Core --account-for-embedding-in-
                                pipeline-split and --account-for-loss-in-pipeline-split;
                                Llama 3, arXiv:2407.21783 sec. 3.3.2) */
    long pp_first_layers;    /* > 0: transformer layers on the first pipeline rank, and */
    long pp_last_layers;     /* on the last; the other ranks split the rest evenly
                                (Megatron-Core num_layers_in_first/last_pipeline_stage,
                                --decoder-first/last-pipeline-num-layers); 0: the even split */
    /* ---- context parallelism, mixture of experts, ternary layers, overlap ---- */
    enum aug_cp_algo cp_algo;    /* how attention crosses the CP group (default ring) */
    long etp;                    /* expert tensor parallelism (0 = tp, Megatron's default) */
    int ep_outer;                /* 1: EP peers placed outside data parallelism (across
                                    nodes) instead of next to TP (inside a node) */
    double moe_capacity_factor;  /* 0: dropless routing (default); > 0: every expert's
                                    buffer holds this times the even share, padded, and
                                    tokens beyond it are dropped (GShard / Switch) */
    double moe_imbalance;        /* tokens on the busiest expert over the mean (>= 1) */
    enum aug_ternary_kernel ternary; /* how BitLinear (MatMul-free) layers run */
    int tp_overlap;              /* 1: TP collectives split into chunks and overlapped with
                                    the GEMMs next to them (T3 / userbuffers style) */
    int pp_overlap;              /* 1: stage-to-stage sends overlap the next chunk's compute */
    double comm_slowdown;        /* compute slowdown while a collective shares the SMs */
    /* ---- what the training framework executes (augur/framework.h) ---- */
    int framework;               /* enum aug_framework_id whose host dispatch cost applies
                                    (0: none, a flat per-kernel cost) */
    int pp_scatter;              /* 1: without SP, a stage sends 1/tp of the activation and
                                    the receiver all-gathers it over TP (Megatron-LM 2021) */
    int tp_async_allreduce;      /* 1: without SP, a column-parallel linear all-reduces its
                                    input gradient beside its weight-gradient GEMM
                                    (Megatron-LM since 2021-08-30, Megatron-Core) */
    enum aug_main_grads main_grads; /* gradient and optimizer-state bytes (above) */
    int cuda_graphs;             /* 1: layers replay as CUDA graphs: no per-kernel host issue */
    double bucket_params;        /* gradient bucket size in parameters (0: one per layer) */
    int param_gather_overlap;    /* 1: ZeRO-1/2 parameter all-gather overlapped with the next
                                    iteration's first forward (Megatron-Core) */
    enum aug_zero3_gather zero3_gather; /* ZeRO-3 weight gathers (above; default prefetch) */
    enum aug_grad_reduce grad_reduce;   /* ZeRO-1 gradient reduction (above; default
                                           reduce-scatter) */
    enum aug_moe_overlap moe_overlap; /* what hides the EP all-to-alls (default none) */
    enum aug_moe_dispatcher moe_dispatcher; /* how tokens reach their experts (above; default
                                               alltoall) */
    double moe_overlap_realized; /* moe_overlap batch or shared: the share of its schedule's
                                    hidden time a run shows, in [0, 1] (default fitted,
                                    0.39) */
};

/* Defaults: all degrees 1 (dp 0 = derive), bf16, FlashAttention, overlap, no recompute;
 * ring CP, dropless routing with the documented load imbalance, ternary layers as 16-bit
 * tensor-core GEMMs (the reference implementation), no TP/PP overlap, the documented compute slowdown under overlapped collectives. */
void aug_plan_init(struct aug_plan *p);

/* Derive dp (gpus / (tp*pp*cp)) and seq, then check divisibility and consistency
 * against the model and system. AUG_EUSAGE with a one-line message naming the
 * product or divisibility that fails. */
int aug_plan_resolve(struct aug_plan *p, const struct aug_model *m, const struct aug_system *s);

/* Layers on the most loaded pipeline stage: layers / pp, rounded up per virtual chunk
 * when the split is uneven; with pp_embed_loss_slots, (layers + 2) / pp; with
 * pp_first_layers / pp_last_layers, a middle rank's share of what those leave (or, with
 * two ranks, the larger of the two). */
long aug_plan_stage_layers(const struct aug_plan *p, const struct aug_model *m);

/* Layers on pipeline rank `stage` (0 .. pp-1): aug_plan_stage_layers(), one fewer on the
 * first and the last rank when the embedding and the loss take a layer's slot there, or
 * pp_first_layers / pp_last_layers on those ranks when set. */
long aug_plan_stage_layers_at(const struct aug_plan *p, const struct aug_model *m, long stage);

/* Micro-batches per iteration per pipeline: global / (micro_batch * dp). */
long aug_plan_microbatches(const struct aug_plan *p);

/* Expert tensor parallelism in effect (etp, or tp when 0), and the expert data-parallel
 * degree that replicates each expert shard: tp * dp * cp / (ep * etp). */
/* Read back a plan augur printed: the "plan" of `augur train --format json`, or entry
 * `index` (from 0) of the "top" list of `augur sweep train --format json`. Fields absent
 * keep their value in *p; an unknown field is AUG_EDATA naming it. The entry's "model" and
 * "system" names go to model/system ("" when absent). Resolve the plan afterwards. */
int aug_plan_from_json(const char *origin, const char *text, long index, struct aug_plan *p,
                       char *model, size_t model_n, char *system, size_t system_n);

long aug_plan_etp(const struct aug_plan *p);
long aug_plan_edp(const struct aug_plan *p);

#ifdef __cplusplus
}
#endif
#endif
