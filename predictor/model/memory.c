/* SPDX-License-Identifier: Apache-2.0 */
/* memory.c - memory per GPU of a training plan: weights, gradients, optimizer states,
 * activations and workspace.
 *
 * Model states (Rajbhandari et al., ZeRO, SC20, sec. 3.1 and Fig. 1): mixed-precision
 * Adam keeps 2 bytes of 16-bit weights, 2 of gradients and K = 12 of fp32 master weights,
 * momentum and variance per parameter (16 in all). ZeRO-1 shards the 12 over DP, ZeRO-2
 * also the gradients, ZeRO-3 (and FSDP full sharding) also the weights; FSDP hybrid
 * shards inside a node and replicates across nodes (Zhao et al., VLDB 2023). Megatron
 * keeps fp32 main gradients instead (plan.h, enum aug_main_grads).
 *
 * Activations (Korthikanti et al. 2022, arXiv 2205.05198, sec. 4.1 and Table 2): one
 * layer keeps sbh(34 + 5as/h) bytes without parallelism; TP splits 24 of the 34 and the
 * attention scores (sbh(10 + 24/t + 5as/ht)); TP+SP splits all of it; selective
 * recomputation and FlashAttention drop the 5as/h term; full recomputation keeps the
 * 2sbh layer input. Under fp8 each linear keeps its input as a 1 B cast
 * (linear_input_bytes). The first pipeline stage holds p micro-batches in flight under 1F1B,
 * times (1 + (p-1)/(pv)) with v interleaved stages (sec. 4.2.3).
 *
 * Data-parallel sharding follows Megatron-Core's distributed optimizer: dense parameters
 * are replicated over dp * cp ranks (context-parallel ranks hold the same weights) and
 * sharded over all of them; routed experts are split over ep * etp ranks and replicated
 * (and sharded) over the expert data-parallel degree edp = tp dp cp / (ep etp).
 * Context parallelism divides every activation by cp (each rank keeps seq / cp tokens).
 * MoE layers keep, per rank, the router's fp32 logits and top-k choices, the dispatched
 * tokens of its local experts (the busiest rank's load, moe.h) and their inner
 * activations; shared experts keep a dense MLP's. Models whose layers differ (dense first
 * layers, every n-th layer MoE) count the mean layer: routed experts, router and routed
 * activations at the MoE layers' share, the dense FFN at the rest. MatMul-free layers:
 * matmulfree.c. */
#include <math.h>
#include <string.h>

#include "augur/moe.h"
#include "augur/train.h"
#include "augur/units.h"
#include "matmulfree_internal.h"
#include "memory.h"

/* Workspace a training process holds besides tensors: CUDA context (~0.5 GiB), cuBLAS
 * workspaces and NCCL buffers; a documented default (unfused attention adds its transient
 * scores, below). */
#define AUG_TRAIN_WORKSPACE_GIB 1.0

static double norm_params(const struct aug_model *m) {
    return m->norm == AUG_NORM_LAYERNORM ? 2.0 * (double)m->hidden : (double)m->hidden;
}

/* Share of the layers that are MoE (dense-first and interleaved MoE models mix them). */
static double moe_share(const struct aug_model *m) {
    if (m->arch != AUG_ARCH_MOE || m->layers <= 0)
        return 0.0;
    return (double)aug_model_moe_layers(m) / (double)m->layers;
}

/* Routed-expert parameters of the mean layer (all experts of the MoE layers, spread over
 * every layer as aug_model_layer_params() spreads the rest). */
static double routed_params(const struct aug_model *m) {
    if (m->arch != AUG_ARCH_MOE || m->layers <= 0)
        return 0.0;
    return aug_model_routed_expert_params(m) / (double)m->layers;
}

/* The MoE router of the mean layer (replicated on every rank, a plain linear outside
 * Transformer Engine). */
static double router_params(const struct aug_model *m) {
    if (m->arch != AUG_ARCH_MOE)
        return 0.0;
    return moe_share(m) * (double)m->moe_experts *
           ((double)m->hidden + (m->linear_bias ? 1.0 : 0.0));
}

double aug_train_layer_expert_params_per_gpu(const struct aug_model *m, const struct aug_plan *p) {
    return routed_params(m) / (double)(p->ep * aug_plan_etp(p));
}

double aug_train_layer_params_per_gpu(const struct aug_model *m, const struct aug_plan *p) {
    double all = aug_model_layer_params(m);
    double norms = (double)aug_model_block_norms(m) * norm_params(m);
    if (m->arch == AUG_ARCH_MATMULFREE) /* every norm weight sits beside a split matrix */
        norms = 0.0;
    double sharded = all - norms;
    if (m->arch == AUG_ARCH_MOE) {
        /* routed experts are split over EP and expert TP; the router is replicated;
         * attention and shared experts are split over TP */
        double router = router_params(m);
        double routed = routed_params(m);
        return (sharded - routed - router) / (double)p->tp + router +
               aug_train_layer_expert_params_per_gpu(m, p) + norms;
    }
    return sharded / (double)p->tp + norms;
}

double aug_train_layer_linear_params_per_gpu(const struct aug_model *m, const struct aug_plan *p) {
    if (m->arch == AUG_ARCH_MATMULFREE) /* BitLinear layers are not Transformer Engine's */
        return 0.0;
    double norms = (double)aug_model_block_norms(m) * norm_params(m);
    return aug_train_layer_params_per_gpu(m, p) - norms - router_params(m);
}

double aug_train_stage_linear_params_per_gpu(const struct aug_model *m, const struct aug_plan *p,
                                             long stage) {
    return aug_train_layer_linear_params_per_gpu(m, p) *
           (double)aug_plan_stage_layers_at(p, m, stage);
}

double aug_train_stage_expert_params_per_gpu(const struct aug_model *m, const struct aug_plan *p,
                                             long stage) {
    return aug_train_layer_expert_params_per_gpu(m, p) *
           (double)aug_plan_stage_layers_at(p, m, stage);
}

double aug_train_stage_params_per_gpu(const struct aug_model *m, const struct aug_plan *p,
                                      long stage) {
    double per_layer = aug_train_layer_params_per_gpu(m, p);
    double params = per_layer * (double)aug_plan_stage_layers_at(p, m, stage);
    double h = (double)m->hidden, v = (double)m->vocab;
    int first = stage == 0, last = stage == p->pp - 1;
    if (first) {
        params += v * h / (double)p->tp;
        if (m->pos == AUG_POS_LEARNED)
            params += (double)m->max_seq * h;
    }
    if (last) {
        params += norm_params(m);
        /* an untied head lives on the last stage; a tied one is copied there when p > 1 */
        if (!m->tied_embeddings || p->pp > 1)
            params += v * h / (double)p->tp;
    }
    return params;
}

/* Bytes per element a linear layer keeps of its input for the weight-gradient GEMM. Under
 * an fp8 plan Transformer Engine keeps the fp8 cast it made for the forward GEMM, not the
 * 16-bit tensor: TE 1.8 module/linear.py saves `inputmat` or its fp8 transpose
 * `inputmat_t`, layernorm_linear.py the norm output it wrote as uint8; TE 2.2 keeps the
 * quantized `inputmat` / `ln_out` with one of its row- or column-wise copies
 * (update_usage), and grouped_linear.py does the same per expert. 1 B per element. */
static double linear_input_bytes(const struct aug_plan *p) {
    return p->dtype == AUG_DTYPE_FP8 ? 1.0 : aug_train_act_bytes(p);
}

/* Routed-expert activations one MoE layer keeps on one rank (not split further by TP):
 * router logits and top-k state per token, then per routed row the expert input and the
 * inner activations (gate and up outputs and the activation output when gated); with
 * `act_recomputed` (recompute_modules moe_act) the activation output is discarded and
 * recomputed from the kept gate and up outputs. */
static double moe_routed_activation_bytes(const struct aug_model *m, const struct aug_plan *p,
                                          double e, double tokens_local, int act_recomputed) {
    struct aug_moe_routing r;
    aug_moe_routing(m, p, e, &r);
    double E = (double)m->moe_experts, k = (double)m->moe_topk, h = (double)m->hidden;
    double fl = (double)m->ffn_hidden / (double)aug_plan_etp(p);
    double rows = r.tokens_per_expert * r.local_experts;
    /* the up projection's input and the down projection's input are the expert linears'
     * saved inputs (linear_input_bytes); the gate and up outputs stay 16-bit */
    double lin = linear_input_bytes(p);
    double gate_up = (m->mlp == AUG_MLP_SWIGLU ? 2.0 : 1.0) * fl * e;
    double act_out = act_recomputed ? 0.0 : fl * lin;
    return tokens_local * (8.0 * E + 12.0 * k) + rows * (h * lin + gate_up + act_out);
}

/* One layer's bytes under the plan's recomputation mode, every layer alike. */
static double layer_activation_bytes(const struct aug_model *m, const struct aug_plan *p) {
    if (m->arch == AUG_ARCH_MATMULFREE)
        return aug_mmf_layer_activation_bytes(m, p);
    double s = (double)(p->seq / p->cp), b = (double)p->micro_batch, h = (double)m->hidden;
    double t = (double)p->tp, e = aug_train_act_bytes(p);
    double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
    double f = (double)m->ffn_hidden, a = (double)m->heads;
    double sb = s * b;
    int dropout = aug_model_has_dropout(m);

    if (p->recompute == AUG_RECOMPUTE_FULL)
        return e * sb * h / (p->sp ? t : 1.0);
    /* Megatron-Core recompute_modules (plan.h): what each one stops keeping */
    unsigned rc = p->recompute == AUG_RECOMPUTE_SELECTIVE ? aug_plan_rc_modules(p) : 0;

    /* kept whole by TP without SP: two norm inputs, QKV and MLP inputs, dropout masks;
     * layernorm recomputation discards the two norm outputs (the QKV and MLP inputs) */
    double lin = linear_input_bytes(p);
    double whole = 2.0 * e * sb * h + ((rc & AUG_RC_LAYERNORM) ? 0.0 : 2.0 * lin * sb * h) +
                   (dropout ? 2.0 * sb * h : 0.0);
    /* split by TP: Q, K, V, attention output; mla_up_proj discards the up-projected Q, K
     * and V the core attention reads (a (d_n + d_r) twice and a d_v per token) */
    double attn = 2.0 * q + 2.0 * kv;
    if ((rc & AUG_RC_MLA_UP_PROJ) && m->attention == AUG_ATTN_MLA) {
        double up = a * (2.0 * (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) +
                         (double)m->v_head_dim);
        attn = attn > up ? attn - up : 0.0;
    }
    double split = e * sb * attn;
    /* the attention output is the output projection's input: under fp8 that keeps its
     * 1 B copy, beside the 16-bit output a fused attention kernel keeps for its own
     * backward; unfused attention's backward reads the probabilities and V, not it */
    if (p->dtype == AUG_DTYPE_FP8) {
        double o = (double)m->heads *
                   (double)(m->attention == AUG_ATTN_MLA ? m->v_head_dim : m->head_dim);
        split += sb * o * (lin - (p->flash_attention ? 0.0 : e));
    }
    /* gate and up outputs and the down-projection input (SwiGLU); GELU input and the
     * down-projection input (GELU): of the dense layers' MLP (dropped by mlp
     * recomputation) and the MoE layers' shared experts (dropped by shared_experts or moe) */
    double fm = moe_share(m);
    /* bytes per inner column: the 16-bit gate and up outputs, and the down projection's
     * input at the linear's saved width */
    double per_f = (m->mlp == AUG_MLP_SWIGLU ? 2.0 : 1.0) * e + lin;
    double dense_f = m->arch == AUG_ARCH_MOE ? (1.0 - fm) * (double)aug_model_dense_ffn(m) : f;
    double shared_f = m->arch == AUG_ARCH_MOE ? fm * f * (double)m->moe_shared_experts : 0.0;
    if (!(rc & AUG_RC_MLP))
        split += sb * per_f * dense_f;
    if (!(rc & (AUG_RC_SHARED_EXPERTS | AUG_RC_MOE)))
        split += sb * per_f * shared_f;
    double routed = 0.0;
    if (m->arch == AUG_ARCH_MOE && !(rc & AUG_RC_MOE)) {
        int sp_ = p->sp && p->tp > 1;
        routed = fm * moe_routed_activation_bytes(m, p, e, sp_ ? sb / t : sb,
                                                  (rc & AUG_RC_MOE_ACT) != 0);
    }
    /* attention scores: softmax output (e) + dropout mask (1) + dropout output (e) per
     * score, 5as^2b at e = 2; only the unfused path without core_attn recomputation keeps
     * them */
    double scores = 0.0;
    if (!p->flash_attention && !(rc & AUG_RC_CORE_ATTN))
        scores = a * s * s * b * (dropout ? 2.0 * e + 1.0 : e);
    else if (p->flash_attention)
        scores = a * s * b * 4.0; /* the fp32 log-sum-exp FlashAttention keeps */
    if (p->sp)
        return (whole + split + scores) / t + routed;
    return whole + (split + scores) / t + routed;
}

/* With the block method only a share of each chunk's layers is recomputed (keeping its
 * input); the others keep everything, as without recomputation: the mean layer. */
double aug_train_layer_activation_bytes(const struct aug_model *m, const struct aug_plan *p) {
    double share = aug_plan_full_recompute_share(p, m);
    if (p->recompute != AUG_RECOMPUTE_FULL || share >= 1.0)
        return layer_activation_bytes(m, p);
    struct aug_plan none = *p;
    none.recompute = AUG_RECOMPUTE_NONE;
    return share * layer_activation_bytes(m, p) + (1.0 - share) * layer_activation_bytes(m, &none);
}

/* Bytes the loss keeps per vocabulary-parallel logit until the backward: Megatron-Core's
 * fused and unfused cross-entropy keep the fp32 softmax; Transformer Engine's kernel writes
 * the gradient over the 16-bit logits in place (layer_graph.c, ce_bytes). */
static double logit_bytes(const struct aug_plan *p) {
    return p->cross_entropy == AUG_CE_TE ? aug_train_act_bytes(p) : 4.0;
}

/* Activation bytes of pipeline rank `stage`: 1F1B keeps pp - stage micro-batches in flight
 * there (the first stage all of them); the last stage one micro-batch, plus the logits the
 * loss keeps. */
static double activation_bytes(const struct aug_model *m, const struct aug_plan *p, long stage) {
    double layer = aug_train_layer_activation_bytes(m, p);
    double layers = (double)aug_plan_stage_layers_at(p, m, stage);
    long mb = aug_plan_microbatches(p);
    double s = (double)(p->seq / p->cp), b = (double)p->micro_batch;
    int last = p->pp > 1 && stage == p->pp - 1;
    if (!last) {
        long depth = p->pp - stage;
        double inflight = (double)(mb < depth ? mb : depth);
        if (inflight < 1)
            inflight = 1;
        double factor = p->interleave > 1
                            ? 1.0 + (double)(p->pp - 1) / (double)(p->pp * p->interleave)
                            : 1.0;
        return layer * layers * inflight * factor;
    }
    double logits = logit_bytes(p) * s * b * (double)m->vocab / (double)p->tp;
    return layer * layers + logits;
}

long aug_train_dense_shard_ranks(const struct aug_plan *p, const struct aug_system *s) {
    if (p->fsdp == AUG_FSDP_HYBRID) {
        long per_node = s->gpus_per_node / (p->tp * p->cp);
        if (per_node < 1)
            per_node = 1;
        return per_node < p->dp ? per_node : p->dp;
    }
    return p->dp * p->cp;
}

long aug_train_expert_shard_ranks(const struct aug_plan *p, const struct aug_system *s) {
    long edp = aug_plan_edp(p);
    if (p->fsdp == AUG_FSDP_HYBRID) {
        long dense = aug_train_dense_shard_ranks(p, s);
        return dense < edp ? dense : edp;
    }
    return edp;
}

/* Bytes per parameter of the layers' linear weights under an fp8 plan, stored (sharded with
 * ZeRO-3 / FSDP) and cached (held whole on every rank). Transformer Engine runs those linears
 * (module/linear.py, layernorm_linear.py, grouped_linear.py, TE 1.8-2.x): with 16-bit
 * weights it casts each to an fp8 copy in a workspace and, because Megatron-Core passes
 * is_first_microbatch (TELinear.forward unless disable_parameter_transpose_cache), keeps
 * that copy for the later micro-batches (get_weight_workspace with cache_name "weight"):
 * 1 B beside the 2 B weight, plus the copy's transpose for the backward GEMMs (1 B) where
 * fp8 GEMMs take only the TN layout, before compute capability 10.0 (TE utils.py,
 * non_tn_fp8_gemm_supported; an unknown sm_arch counts it). With fp8 parameters
 * (Megatron-Core --fp8-param-gather: TE's fp8_model_init) the weight itself is the 1 B fp8
 * tensor and only its transpose is cached. ZeRO-3 and FSDP gather a unit's weights when it
 * runs and free them after: nothing is cached between micro-batches. Embedding, output
 * layer, norms and router are not TE linears and stay 16-bit. */
static void fp8_linear_bytes(const struct aug_plan *p, const struct aug_system *s, int zero3,
                             double *stored, double *cached) {
    double tr = s->gpu.sm_arch >= 100 ? 0.0 : 1.0;
    *stored = p->fp8_params ? 1.0 : 2.0;
    *cached = zero3 ? 0.0 : (p->fp8_params ? 0.0 : 1.0) + tr;
}

static void states(const struct aug_model *m, const struct aug_plan *p, const struct aug_system *s,
                   long stage, struct aug_train_memory *out) {
    double params = aug_train_stage_params_per_gpu(m, p, stage);
    double experts = aug_train_stage_expert_params_per_gpu(m, p, stage);
    double dense = params - experts;
    int fp32 = p->dtype == AUG_DTYPE_FP32 || p->dtype == AUG_DTYPE_TF32;
    double wb = fp32 ? 4.0 : 2.0, gb = fp32 ? 4.0 : 2.0, ob = fp32 ? 8.0 : 12.0;
    /* Megatron's fp32 main gradients (Megatron-Core docs, "Distributed Optimizer"): bf16
     * weights with fp32 gradients keep 2 + 4 + 12 = 18 B, sharded 6 + 12/d; fp16 weights
     * with 16-bit gradients and an fp32 copy in the optimizer 2 + 2 + 16 = 20 B, sharded
     * 4 + 16/d (the copy is sharded with the optimizer states) */
    if (!fp32 && p->main_grads == AUG_GRADS_FP32)
        gb = 4.0;
    else if (!fp32 && p->main_grads == AUG_GRADS_FP32_COPY)
        ob = 16.0;
    double shard = (double)aug_train_dense_shard_ranks(p, s);
    double eshard = (double)aug_train_expert_shard_ranks(p, s);
    int stage_z = p->fsdp != AUG_FSDP_NONE ? 3 : p->zero;
    out->weights_gib = (dense / (stage_z >= 3 ? shard : 1.0) +
                        experts / (stage_z >= 3 ? eshard : 1.0)) * wb / AUG_GIB;
    if (p->dtype == AUG_DTYPE_FP8) {
        double stored, cached;
        fp8_linear_bytes(p, s, stage_z >= 3, &stored, &cached);
        double linear = aug_train_stage_linear_params_per_gpu(m, p, stage);
        double dense_linear = linear - experts; /* routed experts are all linear weights */
        out->weights_gib += ((stored - wb) * (dense_linear / (stage_z >= 3 ? shard : 1.0) +
                                              experts / (stage_z >= 3 ? eshard : 1.0)) +
                             cached * linear) / AUG_GIB;
    }
    out->gradients_gib = (dense / (stage_z >= 2 ? shard : 1.0) +
                          experts / (stage_z >= 2 ? eshard : 1.0)) * gb / AUG_GIB;
    out->optimizer_gib = (dense / (stage_z >= 1 ? shard : 1.0) +
                          experts / (stage_z >= 1 ? eshard : 1.0)) * ob / AUG_GIB;
}

/* Unfused attention holds, in the layer it is running, two score-sized tensors beyond
 * what the layers keep: the scores beside the probabilities the softmax writes (forward, or
 * its recomputation under core_attn), then the probabilities' gradient beside the
 * probabilities in the backward, which Megatron's fused masked softmax turns into the
 * scores' gradient in place (Transformer Engine UnfusedDotProductAttention and
 * FusedScaleMaskSoftmax, TE 2.2; Megatron-LM megatron/core/fusions/fused_softmax.py). Per
 * rank b a/t queries x keys scores of e bytes: the rank's n = seq/cp queries against n keys
 * per ring step, against all seq keys with the all-gather variant; Ulysses all seq queries
 * and keys of a/(t cp) heads. FlashAttention keeps its tiles in shared memory. */
static double unfused_attention_transient_bytes(const struct aug_model *m,
                                                const struct aug_plan *p) {
    if (p->flash_attention || m->arch == AUG_ARCH_MATMULFREE)
        return 0.0;
    double N = (double)p->seq, n = N / (double)p->cp, heads = (double)m->heads / (double)p->tp;
    double pairs = n * n;
    if (p->cp > 1 && p->cp_algo == AUG_CP_ALLGATHER)
        pairs = n * N;
    else if (p->cp > 1 && p->cp_algo == AUG_CP_ULYSSES) {
        pairs = N * N;
        heads /= (double)p->cp;
    }
    return 2.0 * aug_train_act_bytes(p) * (double)p->micro_batch * heads * pairs;
}

/* Memory of pipeline rank `stage`; with one stage, `with_logits` adds the logits the last
 * stage holds beside its one micro-batch (activation_bytes counts them from pp 2). */
static void rank_memory(const struct aug_model *m, const struct aug_system *s,
                        const struct aug_plan *p, long stage, int with_logits,
                        struct aug_train_memory *r) {
    memset(r, 0, sizeof *r);
    states(m, p, s, stage, r);
    r->activations_gib = activation_bytes(m, p, stage) / AUG_GIB;
    if (with_logits)
        r->activations_gib += logit_bytes(p) * (double)(p->seq / p->cp) * (double)p->micro_batch *
                              (double)m->vocab / (double)p->tp / AUG_GIB;
    r->workspace_gib = AUG_TRAIN_WORKSPACE_GIB + unfused_attention_transient_bytes(m, p) / AUG_GIB;
    r->total_gib = r->weights_gib + r->gradients_gib + r->optimizer_gib + r->activations_gib +
                   r->workspace_gib;
}

void aug_train_memory(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_plan *p, struct aug_train_memory *out) {
    /* the fullest of the first rank, the last, and the second: the second keeps one
     * micro-batch fewer in flight than the first and no embedding, but with embedding and
     * loss slots in the split a layer more; train.c times the same three */
    rank_memory(m, s, p, 0, 0, out);
    struct aug_train_memory r;
    rank_memory(m, s, p, p->pp - 1, p->pp == 1, &r);
    if (r.total_gib > out->total_gib)
        *out = r;
    if (p->pp > 2) {
        rank_memory(m, s, p, 1, 0, &r);
        if (r.total_gib > out->total_gib)
            *out = r;
    }
}
