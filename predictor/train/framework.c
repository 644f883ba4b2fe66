/* SPDX-License-Identifier: Apache-2.0 */
/* framework.c - the framework profiles of framework.h, one table entry each, and the
 * defaults they apply to a plan.
 *
 * Host issue costs: the time the framework's Python code, autograd and the CUDA launch
 * need to put one kernel of each kind on the stream (train/host_dispatch.c runs them as a
 * second timeline beside the GPU's). The eager-PyTorch values were fitted on the public
 * vTrain single-node set (VIA-Research/vTrain data/ground_truth_single.csv, 1,440
 * Megatron-DeepSpeed runs on 8x A100) by benchmarks/bench_host_dispatch_fit.c (5-fold
 * cross-validation, folds by row order modulo 5; the values kept are the fit on all rows,
 * the held-out errors are in README.md, "What the framework does"). Megatron-LM,
 * Megatron-Core, DeepSpeed and FSDP issue kernels through the same eager PyTorch path and
 * reuse them; no other set was used to tune them.
 *
 * Fused attention kernel: Transformer Engine "prefers cuDNN flash attention on Hopper+
 * architectures, and Tri Dao flash attention on Ampere" (NeMo docs, memory_optimizations.rst,
 * NVIDIA/NeMo PR 9188), so Megatron-Core runs cuDNN; flash-attn 2.x is what Megatron-DeepSpeed
 * (--use-flash-attn-v2), DeepSpeed and PyTorch's SDPA flash backend call; the two differ in
 * speed from Hopper on (hw/attention_model.c). */
#include "augur/framework.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "augur/status.h"
#include "hw/efficiency.h"

/* Fitted on vTrain ground_truth_single.csv (see above): microseconds per kernel issued
 * for GEMMs, fused attention, memory-bound kernels and collectives. Fit on all 1,440 rows
 * with the stream-K GEMM model, the A100 gemm_tile curves, Megatron's unfused
 * cross-entropy, the dense embedding gradient, the pipeline fill and drain through every
 * stage once (train.c, Alpa eq. 2) and the asynchronous input-gradient all-reduce of
 * Megatron-DeepSpeed's column-parallel linears (the environment of vTrain's Dockerfile,
 * apex of 2023-09-29, postdates the fork's 2023-07-04 rebase that brought it): GEMM 113.7,
 * memory 20.0, collective 22.9 (MAPE 31.4% without host time -> 7.03%; 5-fold held-out
 * MAPE 6.73 - 7.53%, mean 7.03%; per fold GEMM 113.6 - 115.1, memory 19.5 - 20.0 and
 * collective 5.9 - 24.2 us; each TP degree held out in turn scores 5.8 / 6.5 / 10.8 /
 * 14.3% for TP 1 / 2 / 4 / 8). Synchronous all-reduces: 113.7, 20.0, 27.7, held out
 * 7.34%; with the bubble at (p - 1) times the slowest stage as well: 110.3, 20.0, 36.5,
 * held out 7.92%; with the loss at 14 B per logit instead of Megatron's 52 and no
 * embedding gradient pass: 116.8, 20.0, 0.1 (the collective cost barely identified), held
 * out 7.50%; before the stream-K model: 114.1, 20.0, 27.7, held out 8.11%. augur's graph has
 * one op per GEMM where the framework also runs views, bias adds, dropout and autograd
 * bookkeeping, so a GEMM's cost carries its module's other host work. vTrain has no fused
 * attention: it takes the GEMM cost (one module call through the same path). */
#define EAGER_HOST {{[AUG_OP_GEMM] = 113.7, [AUG_OP_ATTENTION] = 113.7, [AUG_OP_MEMORY] = 20.0, \
                     [AUG_OP_COLLECTIVE] = 22.9}}
#define EAGER_FIT "fitted on vTrain ground_truth_single.csv (benchmarks/bench_host_dispatch_fit.c)"

static const struct aug_framework table[AUG_FW_COUNT] = {
    [AUG_FW_NONE] = {
        .name = "none",
        .source = "the plan as given; a flat per-kernel host cost (efficiency.c "
                  "framework_op_us)",
        .sp = -1, .flash_attention = -1, .attn_kernel = -1, .cross_entropy = -1,
        .dp_overlap = -1, .tp_overlap = -1,
        .param_gather_overlap = -1,
        .pp_overlap = -1, .pp_scatter = -1, .tp_async_allreduce = -1, .zero = -1, .fsdp = -1,
        .zero3_gather = -1, .bf16_optimizer = 0,
        .main_grads = -1,
        .cuda_graphs = -1, .bucket_min = -1, .bucket_per_dp = 0,
        .host = {{0}}, /* filled from framework_op_us at run time */
        .host_fit = "documented default (efficiency.c)",
    },
    /* NeMo 2.x / Megatron-Core 0.9-0.12 recipes (nemo/collections/llm/recipes, the
     * Megatron-LM arguments of core_r0.12.0): sequence parallelism with TP
     * (sequence_parallel=True in the recipes), TE FlashAttention, distributed optimizer
     * (use_distributed_optimizer=True) with overlapped gradient reduce-scatter and
     * parameter all-gather (overlap_grad_reduce, overlap_param_gather), bf16 main
     * gradients reduced in fp32 (grad_reduce_in_fp32=True of the bf16 mixed-precision
     * plugin), DDP buckets of max(40M, 1M * dp) parameters
     * (distributed_data_parallel.py), P2P overlapped with compute under the interleaved
     * schedule (overlap_p2p_comm, on by default, applies to it), no scatter/gather of
     * pipeline sends (removed from Megatron-Core's p2p_communication.py), the loss through
     * Megatron-Core's jit-fused cross-entropy (GPTConfig cross_entropy_loss_fusion=True,
     * cross_entropy_fusion_impl "native" in core_r0.12.0), and without SP the column-parallel
     * linears' input-gradient all-reduce issued asynchronously before the weight-gradient
     * GEMM (tensor_parallel/layers.py LinearWithGradAccumulationAndAsyncCommunication,
     * allreduce_dgrad = tp > 1 and not sequence_parallel). TP overlap and CUDA graphs are
     * per-recipe choices, off by default. fp8 plans keep fp8 parameters: NeMo 2's fp8
     * recipes (nemo/collections/llm/recipes/precision/mixed_precision.py at 6f2c6fd,
     * bf16_with_fp8_mixed and bf16_with_fp8_current_scaling_mixed) and Megatron-Bridge's
     * (training/mixed_precision.py) set fp8_param_gather=True. */
    [AUG_FW_MEGATRON_CORE] = {
        .name = "megatron-core",
        .source = "NeMo 2 / Megatron-Core 0.12 recipe defaults",
        .sp = 1, .flash_attention = 1, .attn_kernel = AUG_ATTN_KERNEL_CUDNN,
        .cross_entropy = AUG_CE_FUSED, .dp_overlap = 1, .tp_overlap = 0,
        .param_gather_overlap = 1, .pp_overlap = 2,
        .pp_scatter = 0, .tp_async_allreduce = 1, .zero = 1, .fsdp = AUG_FSDP_NONE,
        .zero3_gather = -1, .bf16_optimizer = 0,
        .main_grads = 3, .cuda_graphs = 0, .fp8_params = 1, .bucket_min = 4e7,
        .bucket_per_dp = 1e6, .host = EAGER_HOST, .host_fit = EAGER_FIT,
    },
    /* Megatron-LM v2.x-v3.0 as in Narayanan et al. SC21 and Korthikanti et al. 2022:
     * unfused (fused-softmax) attention, --scatter-gather-tensors-in-pipeline on by
     * default (SC21 sec. 4.1), local DDP reducing the contiguous fp32 gradient buffer
     * after the backward (no overlap), no distributed optimizer; SP only when asked; the
     * unfused vocab-parallel cross-entropy on fp32 logits (mpu/cross_entropy.py, with
     * --fp16-lm-cross-entropy off by default); the asynchronous input-gradient all-reduce
     * of column-parallel linears beside their weight gradient (mpu/layers.py, commit
     * cf7efd4 of 2021-08-30 "allreduce overlap with wgrad gemm", on unless
     * --no-async-tensor-model-parallel-allreduce; the SC21 runs predate it and their rows
     * turn it off). */
    [AUG_FW_MEGATRON_LM_2022] = {
        .name = "megatron-lm-2022",
        .source = "Megatron-LM v2.x-v3.0 (Narayanan et al. SC21, Korthikanti et al. 2022)",
        .sp = -1, .flash_attention = 0, .attn_kernel = AUG_ATTN_KERNEL_FA2,
        .cross_entropy = AUG_CE_UNFUSED, .dp_overlap = 0, .tp_overlap = 0,
        .param_gather_overlap = 0, .pp_overlap = 0,
        .pp_scatter = 1, .tp_async_allreduce = 1, .zero = 0, .fsdp = AUG_FSDP_NONE,
        .zero3_gather = -1, .bf16_optimizer = 0,
        .main_grads = 3, .cuda_graphs = 0, .bucket_min = -1, .bucket_per_dp = 0,
        .host = EAGER_HOST, .host_fit = EAGER_FIT,
    },
    /* microsoft/Megatron-DeepSpeed (DeepSpeed 0.9-0.14 engine): Megatron-LM 2021 modules
     * under the DeepSpeed engine, whose PipelineEngine sends whole activations
     * (runtime/pipe/engine.py) and whose ZeRO-0/1 gradient all-reduce follows the
     * backward (overlap_comm off by default); fp16 gradients and fp32 master weights in
     * the optimizer (16 B per parameter); unfused attention and Megatron's unfused
     * cross-entropy; the asynchronous input-gradient all-reduce of column-parallel linears
     * (core/tensor_parallel/layers.py, --no-async-tensor-model-parallel-allreduce to turn it
     * off), which the fork took from Megatron-LM in its rebase of 2023-07-04 (9e72d571):
     * runs of the 2021-2022 forks (MT-NLG, BigScience's BLOOM fork) have it off.
     * DeepSpeed ZeRO and FSDP run whatever loss the model code has: the plan's. */
    [AUG_FW_MEGATRON_DEEPSPEED] = {
        .name = "megatron-deepspeed",
        .source = "microsoft/Megatron-DeepSpeed with the DeepSpeed 0.9-0.14 engine",
        .sp = -1, .flash_attention = 0, .attn_kernel = AUG_ATTN_KERNEL_FA2,
        .cross_entropy = AUG_CE_UNFUSED, .dp_overlap = 0, .tp_overlap = 0,
        .param_gather_overlap = 0, .pp_overlap = 0,
        .pp_scatter = 0, .tp_async_allreduce = 1, .zero = -1, .fsdp = AUG_FSDP_NONE,
        .zero3_gather = -1, .bf16_optimizer = 1,
        .main_grads = AUG_GRADS_DTYPE, .cuda_graphs = 0, .bucket_min = 5e8, .bucket_per_dp = 0,
        .host = EAGER_HOST, .host_fit = EAGER_FIT,
    },
    /* DeepSpeed ZeRO-3 (deepspeed 0.14, runtime/zero/config.py defaults): parameters,
     * gradients and optimizer states sharded, overlap_comm true for stage 3,
     * reduce_bucket_size 5e8 elements, gradients in the compute dtype. */
    [AUG_FW_DEEPSPEED_ZERO] = {
        .name = "deepspeed-zero",
        .source = "DeepSpeed 0.14 ZeRO stage 3 defaults",
        .sp = -1, .flash_attention = -1, .attn_kernel = AUG_ATTN_KERNEL_FA2,
        .cross_entropy = -1, .dp_overlap = 1, .tp_overlap = 0,
        .param_gather_overlap = 0, .pp_overlap = 0,
        .pp_scatter = 0, .tp_async_allreduce = -1, .zero = 3, .fsdp = AUG_FSDP_NONE,
        .zero3_gather = AUG_ZERO3_PREFETCH, .bf16_optimizer = 1,
        .main_grads = AUG_GRADS_DTYPE,
        .cuda_graphs = 0, .bucket_min = 5e8, .bucket_per_dp = 0,
        .host = EAGER_HOST, .host_fit = EAGER_FIT,
    },
    /* PyTorch 2.x FSDP (FULL_SHARD, BACKWARD_PRE prefetch, MixedPrecision reducing in
     * the compute dtype), one FSDP unit per transformer layer, SDPA FlashAttention. */
    [AUG_FW_PYTORCH_FSDP] = {
        .name = "pytorch-fsdp",
        .source = "PyTorch 2.x FSDP FULL_SHARD, one unit per layer",
        .sp = -1, .flash_attention = 1, .attn_kernel = AUG_ATTN_KERNEL_FA2,
        .cross_entropy = -1, .dp_overlap = 1, .tp_overlap = 0,
        .param_gather_overlap = 0, .pp_overlap = 0,
        .pp_scatter = 0, .tp_async_allreduce = -1, .zero = 0, .fsdp = AUG_FSDP_FULL,
        .zero3_gather = -1, .bf16_optimizer = 0,
        .main_grads = AUG_GRADS_DTYPE,
        .cuda_graphs = 0, .bucket_min = 0, .bucket_per_dp = 0,
        .host = EAGER_HOST, .host_fit = EAGER_FIT,
    },
    /* DeepSpeed ZeRO-3 as released from 0.3.13 (2021-03) to 0.5.5, the baseline of
     * Narayanan et al. SC21 (sec. 5.2.2, Table 2): parameters below
     * stage3_param_persistence_threshold (1e5 elements) stay whole, every larger weight is
     * gathered on its own (runtime/zero/partition_parameters.py at 112ebff, 2021-04-12:
     * _allgather_param calls torch.cuda.synchronize() before each all-gather, so the
     * prefetch does not overlap; torch.distributed's list all-gather and reduce-scatter
     * copy every rank's partition), which DeepSpeed#1188 (c0eeb69, 2021-10-31: "the async
     * version is not async at all") and #1453 (4912e0ad, 2022-01-20: batched, *_base
     * collectives) replaced. Gradients in the compute dtype, overlap_comm as in 0.14; no
     * BF16_Optimizer yet (it came with BigScience's bf16 work of 2022). */
    [AUG_FW_DEEPSPEED_ZERO_2021] = {
        .name = "deepspeed-zero-2021",
        .source = "DeepSpeed 0.3.13-0.5.5 ZeRO stage 3 (before DeepSpeed#1188 and #1453)",
        .sp = -1, .flash_attention = -1, .attn_kernel = AUG_ATTN_KERNEL_FA2,
        .cross_entropy = -1, .dp_overlap = 1, .tp_overlap = 0,
        .param_gather_overlap = 0, .pp_overlap = 0,
        .pp_scatter = 0, .tp_async_allreduce = -1, .zero = 3, .fsdp = AUG_FSDP_NONE,
        .zero3_gather = AUG_ZERO3_SERIAL, .bf16_optimizer = 0, .main_grads = AUG_GRADS_DTYPE,
        .cuda_graphs = 0, .bucket_min = 5e8, .bucket_per_dp = 0,
        .host = EAGER_HOST, .host_fit = EAGER_FIT,
    },
    /* NeMo 1 (megatron_gpt_pretraining.py on Megatron-Core, mcore_gpt=true) launched by
     * NeMo-Framework-Launcher 24.01 to 24.07, the runs of NeMo's 2024 performance pages.
     * Two defaults differ from megatron-core's:
     * - attention: launcher_scripts/conf/config.yaml sets env_vars NVTE_FUSED_ATTN: 0
     *   ("Disable cudnn FA until we've tested it more"; in the tags 24.01 to 24.07, gone in
     *   24.09), so Transformer Engine's DotProductAttention skips cuDNN's fused kernel and
     *   runs flash-attn's FlashAttention-2 (TE 1.x pytorch/attention.py backend filters, also
     *   under context parallelism);
     * - loss: NeMo 1 copies into Megatron-Core's TransformerConfig only the fields a model
     *   yaml has, and most launcher model yamls set no cross_entropy_loss_fusion, so
     *   Megatron-Core's default (False) runs the unfused vocab-parallel loss (the llama3 and
     *   nemotron 4B-22B yamls of 24.07 set it: --cross-entropy fused there).
     * The rest as megatron-core: sequence_parallel, the distributed (fused Adam) optimizer
     * with overlap_grad_sync / overlap_param_sync and overlap_p2p_comm are what the
     * launcher's GPT, Llama and Nemotron yamls set; ub_tp_comm_overlap and the virtual
     * pipeline stay per model (the row's columns). */
    [AUG_FW_NEMO1_LAUNCHER] = {
        .name = "nemo1-launcher",
        .source = "NeMo 1 via NeMo-Framework-Launcher 24.01-24.07, NVTE_FUSED_ATTN=0",
        .sp = 1, .flash_attention = 1, .attn_kernel = AUG_ATTN_KERNEL_FA2,
        .cross_entropy = AUG_CE_UNFUSED, .dp_overlap = 1, .tp_overlap = 0,
        .param_gather_overlap = 1, .pp_overlap = 2,
        .pp_scatter = 0, .tp_async_allreduce = 1, .zero = 1, .fsdp = AUG_FSDP_NONE,
        .zero3_gather = -1, .bf16_optimizer = 0,
        .main_grads = 3, .cuda_graphs = 0, .bucket_min = 4e7, .bucket_per_dp = 1e6,
        .host = EAGER_HOST, .host_fit = EAGER_FIT,
    },
};

const struct aug_framework *aug_framework_get(int id) {
    return id >= 0 && id < AUG_FW_COUNT ? &table[id] : NULL;
}

const char *aug_framework_name(int id) {
    return id >= 0 && id < AUG_FW_COUNT ? table[id].name : "?";
}

int aug_framework_from_name(const char *s, int *id) {
    for (int i = 0; i < AUG_FW_COUNT; i++)
        if (s && strcasecmp(s, table[i].name) == 0) {
            *id = i;
            return AUG_OK;
        }
    return aug_errorf(AUG_EUSAGE, "unknown framework '%s' (use none, megatron-core, "
                                  "megatron-lm-2022, megatron-deepspeed, deepspeed-zero, "
                                  "deepspeed-zero-2021, pytorch-fsdp or nemo1-launcher)",
                      s ? s : "");
}

static void note(char *buf, size_t n, const char *fmt, const char *what) {
    if (!buf || n == 0)
        return;
    size_t len = strlen(buf);
    if (len + 1 >= n)
        return;
    snprintf(buf + len, n - len, fmt, len ? ", " : "", what);
}

void aug_framework_apply(int id, struct aug_plan *p, unsigned explicit_mask, char *applied,
                         size_t applied_size) {
    if (applied && applied_size)
        applied[0] = '\0';
    const struct aug_framework *f = aug_framework_get(id);
    if (!f)
        return;
    p->framework = id;
    char num[64];
    if (f->sp >= 0 && !(explicit_mask & AUG_FWSET_SP)) {
        p->sp = f->sp && p->tp > 1;
        note(applied, applied_size, "%ssp %s", p->sp ? "on" : "off");
    }
    if (f->flash_attention >= 0 && !(explicit_mask & AUG_FWSET_ATTENTION)) {
        p->flash_attention = f->flash_attention;
        note(applied, applied_size, "%sattention %s", p->flash_attention ? "fused" : "unfused");
    }
    if (f->attn_kernel >= 0 && p->flash_attention && !(explicit_mask & AUG_FWSET_ATTN_KERNEL)) {
        p->attn_kernel = (enum aug_attn_kernel)f->attn_kernel;
        note(applied, applied_size, "%sattention kernel %s", aug_attn_kernel_name(p->attn_kernel));
    }
    if (f->cross_entropy >= 0 && !(explicit_mask & AUG_FWSET_CROSS_ENTROPY)) {
        p->cross_entropy = (enum aug_cross_entropy)f->cross_entropy;
        note(applied, applied_size, "%scross-entropy %s", aug_cross_entropy_name(p->cross_entropy));
    }
    if (f->dp_overlap >= 0 && !(explicit_mask & AUG_FWSET_DP_OVERLAP)) {
        p->dp_overlap = f->dp_overlap;
        note(applied, applied_size, "%sdp-overlap %s", p->dp_overlap ? "on" : "off");
    }
    if (f->param_gather_overlap >= 0 && !(explicit_mask & AUG_FWSET_PARAM_GATHER)) {
        p->param_gather_overlap = f->param_gather_overlap;
        note(applied, applied_size, "%sparam-gather-overlap %s",
             p->param_gather_overlap ? "on" : "off");
    }
    if (f->tp_overlap >= 0 && !(explicit_mask & AUG_FWSET_TP_OVERLAP)) {
        p->tp_overlap = f->tp_overlap;
        note(applied, applied_size, "%stp-overlap %s", p->tp_overlap ? "on" : "off");
    }
    if (f->pp_overlap >= 0 && !(explicit_mask & AUG_FWSET_PP_OVERLAP)) {
        p->pp_overlap = f->pp_overlap == 2 ? p->interleave > 1 : f->pp_overlap;
        note(applied, applied_size, "%spp-overlap %s", p->pp_overlap ? "on" : "off");
    }
    if (f->pp_scatter >= 0 && !(explicit_mask & AUG_FWSET_PP_SCATTER)) {
        p->pp_scatter = f->pp_scatter;
        note(applied, applied_size, "%spp-scatter %s", p->pp_scatter ? "on" : "off");
    }
    if (f->tp_async_allreduce >= 0 && !(explicit_mask & AUG_FWSET_TP_ASYNC)) {
        p->tp_async_allreduce = f->tp_async_allreduce;
        note(applied, applied_size, "%stp-async-allreduce %s",
             p->tp_async_allreduce ? "on" : "off");
    }
    if (!(explicit_mask & AUG_FWSET_SHARDING)) {
        if (f->fsdp >= 0)
            p->fsdp = (enum aug_fsdp)f->fsdp;
        if (f->zero >= 0)
            p->zero = f->zero;
        if (f->fsdp > 0)
            note(applied, applied_size, "%sfsdp %s", aug_fsdp_name(p->fsdp));
        else if (f->zero >= 0) {
            snprintf(num, sizeof num, "%d", p->zero);
            note(applied, applied_size, "%szero %s", num);
        }
    }
    if (f->zero3_gather >= 0 && p->zero == 3 && p->fsdp == AUG_FSDP_NONE &&
        !(explicit_mask & AUG_FWSET_ZERO3_GATHER)) {
        p->zero3_gather = (enum aug_zero3_gather)f->zero3_gather;
        note(applied, applied_size, "%szero3-gather %s", aug_zero3_gather_name(p->zero3_gather));
    }
    if (f->main_grads >= 0 && !(explicit_mask & AUG_FWSET_GRADS)) {
        if (f->main_grads == 3)
            p->main_grads = p->dtype == AUG_DTYPE_FP16   ? AUG_GRADS_FP32_COPY
                            : p->dtype == AUG_DTYPE_FP32 ||
                                      p->dtype == AUG_DTYPE_TF32 ? AUG_GRADS_DTYPE
                                                                 : AUG_GRADS_FP32;
        else
            p->main_grads = (enum aug_main_grads)f->main_grads;
        note(applied, applied_size, "%sgrads %s", aug_main_grads_name(p->main_grads));
    }
    /* DeepSpeed runs ZeRO-1 with bf16 weights and fp32 gradient accumulation through its
     * BF16_Optimizer (runtime/engine.py _do_optimizer_sanity_check returns BFLOAT16 for
     * bf16 + fp32 grad_accum_dtype + stage 1; BigScience's BLOOM fork the same), whose
     * gradients the engine all-reduces (buffered_allreduce_fallback, also in the pipeline
     * engine's _bf16_reduce_grads) before each rank steps its shard; the profiles of
     * DeepSpeed since 2022 (megatron-deepspeed, deepspeed-zero) */
    if (f->bf16_optimizer && !(explicit_mask & AUG_FWSET_GRAD_REDUCE) && p->zero == 1 &&
        p->fsdp == AUG_FSDP_NONE && p->dtype == AUG_DTYPE_BF16 && p->main_grads == AUG_GRADS_FP32) {
        p->grad_reduce = AUG_GRAD_ALL_REDUCE;
        note(applied, applied_size, "%sgrad-reduce %s (BF16_Optimizer)",
             aug_grad_reduce_name(p->grad_reduce));
    }
    if (f->fp8_params > 0 && p->dtype == AUG_DTYPE_FP8 && !(explicit_mask & AUG_FWSET_FP8_PARAMS)) {
        p->fp8_params = 1;
        note(applied, applied_size, "%sfp8-params %s", "on");
    }
    if (f->cuda_graphs >= 0 && !(explicit_mask & AUG_FWSET_CUDA_GRAPHS)) {
        p->cuda_graphs = f->cuda_graphs;
        note(applied, applied_size, "%scuda-graphs %s", p->cuda_graphs ? "on" : "off");
    }
    if (f->bucket_min >= 0 && !(explicit_mask & AUG_FWSET_BUCKET)) {
        double b = f->bucket_per_dp * (double)(p->dp * p->cp);
        p->bucket_params = b > f->bucket_min ? b : f->bucket_min;
        if (p->bucket_params > 0)
            snprintf(num, sizeof num, "%.3g params", p->bucket_params);
        else
            snprintf(num, sizeof num, "per layer");
        note(applied, applied_size, "%sbucket %s", num);
    }
}

double aug_framework_issue_s(const struct aug_plan *p, const struct aug_host_cost *override,
                             enum aug_op_kind kind) {
    if (p->cuda_graphs || (unsigned)kind >= AUG_OP_KIND_COUNT)
        return 0.0;
    if (override)
        return override->issue_us[kind] * 1e-6;
    const struct aug_framework *f = aug_framework_get(p->framework);
    if (!f || p->framework == AUG_FW_NONE)
        return aug_eff_defaults()->framework_op_us * 1e-6;
    return f->host.issue_us[kind] * 1e-6;
}
