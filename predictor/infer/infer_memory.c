/* SPDX-License-Identifier: Apache-2.0 */
/* infer_memory.c - memory per GPU of a serving replica and the largest batch that fits.
 *
 * Weights: the linear layers of the stage's layers in their storage dtype (int4 with its
 * group scales), norms, embedding and LM head in 16 bits (quantization recipes keep them
 * there: AWQ, Lin et al. 2024; TensorRT-LLM FP8), split over TP (vocabulary-parallel
 * embedding and head) and, for MoE, over EP x TP.
 * KV cache: 2 * layers * kv_heads * head_dim * bytes(kv dtype) per token (Pope et al. 2022,
 * "Efficiently Scaling Transformer Inference", sec. 3.1), KV heads split over TP (or one
 * copy per rank when there are fewer KV heads than ranks); latent attention caches
 * kv_lora_rank + qk_rope_head_dim per layer (DeepSeek-V2 sec. 2.1.2), whole on every TP
 * rank; sliding-window layers hold at most their window. Static batching reserves the
 * whole context (input + output) per sequence; continuous batching with paged attention
 * (Kwon et al., SOSP 2023) holds what is cached.
 * Activations: the working set of the largest step: the residual
 * stream, the normed input and the widest intermediate (QKV plus attention output, or the
 * MLP's up/gate and activated outputs), plus fp32 logits of the sampled rows (the local
 * vocabulary shard and the gathered row). They are transient, so a static batch counts
 * the largest step, not the whole batch's prompts: an engine runs the context phase in
 * steps of at most AUG_INFER_STEP_TOKENS tokens (whole prompts when longer).
 * Workspace: CUDA context, cuBLAS workspaces, NCCL buffers and the runtime's own buffers,
 * AUG_INFER_DEFAULT_WORKSPACE_GIB unless the plan overrides it. */
#include <math.h>
#include <string.h>

#include "augur/units.h"
#include "infer_matmulfree.h"
#include "infer_memory.h"


double aug_infer_kv_bytes_per_token(const struct aug_model *m, enum aug_dtype kv_dtype) {
    if (m->arch == AUG_ARCH_MATMULFREE) /* hook: no KV cache (a per-sequence state instead) */
        return 0.0;
    return aug_model_kv_elems_per_token(m, 0.0) * aug_dtype_bytes(kv_dtype);
}

/* Linear-layer weights of one layer held by one GPU (elements), and the 16-bit rest. */
static void layer_params(const struct aug_model *m, const struct aug_infer_dims *x,
                         double *linear, double *other) {
    double attn = x->h * x->qkv_cols + x->out_k * x->h;
    int gated = m->mlp == AUG_MLP_SWIGLU;
    double mlp1 = (gated ? 3.0 : 2.0) * x->h * x->f / x->t;
    double mlp = mlp1;
    double router = 0.0;
    if (m->arch == AUG_ARCH_MOE && m->moe_experts > 0) {
        /* E/ep experts, each split tp/ep ways: E * expert / tp per rank; the mean layer
         * mixes MoE and dense layers at their shares */
        /* beside data-parallel attention the dense FFNs and shared experts are whole */
        double dense = (gated ? 3.0 : 2.0) * x->h * x->dense_f * x->adp / x->t;
        mlp = x->moe_share * (x->E * mlp1 + (double)m->moe_shared_experts * mlp1 * x->adp) +
              (1.0 - x->moe_share) * dense;
        router = x->moe_share * x->h * x->E;
    }
    double norms = (m->norm == AUG_NORM_LAYERNORM ? 4.0 : 2.0) * x->h;
    double bias = m->linear_bias ? (x->a_t + 2.0 * x->kv_t) * x->d + 2.0 * x->h + x->f / x->t : 0.0;
    *linear = attn + mlp;
    *other = norms + bias + router;
}

void aug_infer_memory_at(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, double seqs, double kv_tokens,
                         double prefill_tokens, struct aug_infer_memory *out) {
    if (m->arch == AUG_ARCH_MATMULFREE) { /* hook: 2-bit weights, state, infer_matmulfree.c */
        (void)kv_tokens;
        aug_infer_mmf_memory_at(m, s, p, seqs, prefill_tokens, out);
        return;
    }
    struct aug_infer_dims x;
    aug_infer_dims(m, s, p, &x);
    memset(out, 0, sizeof *out);
    double Ls = (double)aug_infer_stage_layers(m, p);
    double lin, other;
    layer_params(m, &x, &lin, &other);
    double layers_bytes = Ls * (lin * x.wb + other * x.e);
    double emb = x.V * x.h / x.t * x.e + (m->pos == AUG_POS_LEARNED ? (double)m->max_seq * x.h * x.e : 0.0);
    double head = (m->norm == AUG_NORM_LAYERNORM ? 2.0 : 1.0) * x.h * x.e;
    if (!m->tied_embeddings || p->pp > 1)
        head += x.V * x.h / x.t * x.e;
    double first = layers_bytes + emb + (p->pp == 1 ? head : 0.0);
    double last = layers_bytes + head;
    double weights = fmax(first, last);

    /* data-parallel attention: each rank caches its own share of the sequences */
    double kv = Ls * x.kv_layer * x.kvb * seqs / x.adp * aug_infer_resident(&x, kv_tokens);

    int gated = m->mlp == AUG_MLP_SWIGLU;
    double f_inner = x.f / x.t;
    if (m->arch == AUG_ARCH_MOE && m->moe_experts > 0)
        f_inner = x.f * x.ep / x.t * x.k + x.f * (double)m->moe_shared_experts / x.t;
    double wide = fmax((x.a_t + 2.0 * x.kv_t) * x.d + x.a_t * x.d, (gated ? 3.0 : 2.0) * f_inner);
    /* beside data-parallel attention a rank prefills and samples its own sequences */
    double act = prefill_tokens / x.adp * (2.0 * x.h + wide) * x.e;
    double logits = seqs / x.adp * x.V * 4.0 * (1.0 + 1.0 / x.t);

    out->weights_gib = weights / AUG_GIB;
    out->kv_cache_gib = kv / AUG_GIB;
    out->activations_gib = (act + logits) / AUG_GIB;
    out->workspace_gib = p->workspace_gib >= 0 ? p->workspace_gib : AUG_INFER_DEFAULT_WORKSPACE_GIB;
    out->total_gib = out->weights_gib + out->kv_cache_gib + out->activations_gib + out->workspace_gib;
}

/* Tokens of the largest prefill step of a static batch: TensorRT-LLM's default
 * max_num_tokens (BuildConfig.max_num_tokens = 8192, tensorrt_llm/builder.py; trtllm-bench
 * falls back to it), the budget its context phase packs prompts into. */
#define AUG_INFER_STEP_TOKENS 8192.0

/* Sequences per replica, prefill tokens of the largest step, cached tokens per sequence. */
static void shape(const struct aug_infer_plan *p, double seqs, double *kv_tokens, double *prefill) {
    double I = (double)p->input_len, O = (double)p->output_len;
    if (p->mode == AUG_SERVE_CONTINUOUS) {
        *kv_tokens = I + O / 2.0; /* paged: the mean cached length in steady state */
        /* one step: every sequence's decode token plus a prompt (or chunk) */
        *prefill = seqs + (p->chunk_tokens > 0 ? (double)p->chunk_tokens : I);
        return;
    }
    *kv_tokens = I + O;
    double mbs = p->pp > 1 ? ceil(seqs / fmin(seqs, (double)p->pp)) : seqs;
    *prefill = fmin(mbs * I, fmax(I, AUG_INFER_STEP_TOKENS));
}

void aug_infer_memory(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_infer_plan *p, struct aug_infer_memory *out) {
    long dp = p->dp > 0 ? p->dp : 1;
    double seqs = (double)p->batch / (double)dp, kv, pf;
    if (p->mode == AUG_SERVE_CONTINUOUS && p->concurrency > 0)
        seqs = (double)p->concurrency / (double)dp;
    shape(p, seqs, &kv, &pf);
    aug_infer_memory_at(m, s, p, seqs, kv, pf, out);
}

long aug_infer_max_batch(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p) {
    double cap = s->gpu.hbm_gib;
    struct aug_infer_memory m0, m1;
    double kv, pf;
    shape(p, 0.0, &kv, &pf);
    aug_infer_memory_at(m, s, p, 0.0, kv, 0.0, &m0);
    if (m0.total_gib > cap)
        return 0;
    /* memory grows linearly with the sequences held: solve, then step down over the
     * rounding of pipeline micro-batches */
    shape(p, 1024.0, &kv, &pf);
    aug_infer_memory_at(m, s, p, 1024.0, kv, pf, &m1);
    double slope = (m1.total_gib - m0.total_gib) / 1024.0;
    if (!(slope > 0))
        return 0;
    double b = floor((cap - m0.total_gib) / slope);
    if (b > 1e12)
        b = 1e12;
    for (int i = 0; i < 64 && b > 0; i++) {
        struct aug_infer_memory mb;
        shape(p, b, &kv, &pf);
        aug_infer_memory_at(m, s, p, b, kv, pf, &mb);
        if (mb.total_gib <= cap)
            break;
        b -= 1.0;
    }
    long dp = p->dp > 0 ? p->dp : 1;
    return (long)b * dp;
}
