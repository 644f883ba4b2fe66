/* SPDX-License-Identifier: Apache-2.0 */
/* infer_graph.c - every kernel of one serving step (prefill, decode or both mixed) on one
 * GPU of a replica, with exact FLOPs and the HBM bytes it moves. Op names follow the
 * training graph (layer_graph.c) so the same calibrated curves apply.
 *
 * Per layer: norm, QKV GEMM, rotary, attention, output GEMM, TP all-reduce, residual add,
 * norm, MLP (or router + grouped expert GEMMs), TP all-reduce, residual add (a parallel
 * block: the MLP beside attention on the same input and one add; Megatron-style
 * tensor parallelism: Shoeybi et al. 2019; two all-reduces per layer, Korthikanti et al.
 * 2022 sec. 4.2.2). Linear weights are read in their storage dtype (weight quantization)
 * while the GEMM runs at the compute dtype's tensor-core peak.
 *
 * Attention:
 * - prefill: FlashAttention (Dao et al. 2022; FA2, Dao 2023) over the chunk's queries and
 *   every cached key, causal inside the chunk: FLOPs 4 * d * heads * (n * ctx + n(n+1)/2).
 *   HBM traffic: Q and O once, K and V once (a head's K,V at these lengths are a few MiB
 *   and the re-reads of each query block hit L2), plus the new K,V written to the cache.
 * - decode: flash-decoding (Dao, Haziza, Massa, Sizov 2023, "Flash-Decoding for
 *   long-context inference"): the cache of every sequence is split along its length over
 *   enough thread blocks to fill the GPU, each block reads its part of K and V once, and a
 *   reduction combines the fp32 partial outputs. The query heads of a GQA group share one
 *   pass over their KV head (Ainslie et al. 2023), so the kernel sees heads/kv_heads query
 *   rows per KV head. It is memory-bound: bytes = cached tokens * 2 * kv_heads * head_dim *
 *   bytes(kv dtype), timed as a stream at AUG_INFER_STREAM_EFF of HBM bandwidth (no
 *   calibrated curve measures decode-shaped attention). Kernels that run one thread block
 *   per query head on CUDA cores (TensorRT-LLM's masked MHA, "a single CUDA thread-block per
 *   head" in its gpt_attention.md, before the XQA kernels; vLLM's PagedAttention) compute
 *   at AUG_INFER_CORE_EFF_* of the FP32 peak (plan.decode_per_head): with a large GQA
 *   group (Llama-2-70B: 8, Falcon-180B: 29 query heads per KV head) they are compute-bound.
 *
 * Mixture of experts (dropless, uniform routing): with T tokens each choosing k of E
 * experts, an expert receives at least one token with probability 1 - (1 - k/E)^T, so a
 * decode step with few tokens reads only those experts' weights. Expert parallelism sits
 * inside the TP group (ep divides tp): each rank keeps E/ep experts, each split tp/ep ways,
 * and the layer's TP all-reduce combines their outputs. */
#include <math.h>
#include <string.h>

#include "augur/attention.h"
#include "infer_graph.h"
#include "infer_matmulfree.h"
#include "model/memory.h"
#include "hw/topology.h"

static void add(struct aug_infer_gop *arr, int *n, int cap, struct aug_op op, enum aug_icat cat,
                int defaults_only, int stage) {
    if (*n >= cap)
        return; /* the builders stay under the bounds (asserted in the tests) */
    arr[*n].op = op;
    arr[*n].cat = cat;
    arr[*n].defaults_only = defaults_only;
    arr[*n].stream = 0;
    arr[*n].core_eff = 0.0;
    arr[*n].stage = stage;
    (*n)++;
}

#define ADD_L(op, cat, d) add(g->layer, &g->n_layer, AUG_INFER_MAX_LAYER_OPS, op, cat, d, 0)
#define ADD_H(op, cat, st) add(g->head, &g->n_head, AUG_INFER_MAX_HEAD_OPS, op, cat, 0, st)

/* A linear layer: `groups` x (m x k) * (k x n) with weights in storage dtype. Inputs are
 * quantized to the compute dtype when it is narrower than 16 bits; outputs are 16-bit. */
static struct aug_op linear(const char *name, const struct aug_infer_dims *x, double m, double n,
                            double k, double groups, int *defaults_only) {
    struct aug_op op = aug_op_gemm(name, x->cdt, m, n, k, groups);
    double in = fmin(x->e, aug_dtype_bytes(x->cdt));
    op.bytes = groups * (m * k * in + k * n * x->wb + m * n * x->e);
    /* the curves measured GEMMs whose operands are all in the compute dtype */
    *defaults_only = fabs(x->wb - aug_dtype_bytes(x->cdt)) > 1e-9;
    return op;
}

static struct aug_op mem(const char *name, const char *kind, const struct aug_infer_dims *x,
                         double bytes, double flops) {
    return aug_op_memory(name, kind, x->adt, bytes, flops);
}

struct aug_op aug_infer_decode_attention(const struct aug_infer_dims *x, const struct aug_system *s,
                                         double seqs, double ctx) {
    struct aug_op op;
    memset(&op, 0, sizeof op);
    op.name = "attn_decode";
    op.kind = AUG_OP_ATTENTION;
    op.dtype = x->adt;
    op.count = 1;
    /* grouped kernels pack a GQA group's query rows into one pass over their KV head; the
     * absorbed MLA kernel (FlashMLA) packs every query head over the one latent */
    double kv_heads = x->mla ? 1.0 : x->kv_t;
    double keys = aug_infer_attended(x, ctx);
    op.batch_heads = seqs * kv_heads;
    op.seq_q = x->a_t / kv_heads;
    op.seq_kv = keys;
    op.head_dim = x->mla ? x->kv_layer : x->d;
    op.causal = 0;
    op.flops = seqs * x->a_t * keys * x->flops_per_key;
    /* flash-decoding splits each sequence's cache until the blocks fill the SMs, at most
     * one split per 256 cached tokens; the fp32 partial outputs (and their log-sum-exp)
     * are written and read back by the reduction */
    double blocks = op.batch_heads, sms = s ? (double)s->gpu.sm_count : 108.0;
    double splits = blocks >= sms ? 1.0 : fmin(ceil(sms / blocks), fmax(1.0, ceil(ctx / 256.0)));
    double partials = splits > 1 ? 2.0 * splits * seqs * x->a_t * (x->d + 1.0) * 4.0 : 0.0;
    op.bytes = seqs * keys * x->kv_layer * x->kvb /* cached K and V (or latent), read once */
               + seqs * x->kv_layer * x->kvb          /* this token's K and V written */
               + 2.0 * seqs * x->a_t * x->d * x->e      /* Q in, O out */
               + partials;
    return op;
}

static void prefill_attention(const struct aug_infer_plan *p, const struct aug_infer_dims *x,
                              const struct aug_infer_step *st, struct aug_infer_graph *g) {
    double ps = st->prefill_seqs, n = st->prefill_len, c = st->prefill_ctx;
    if (p->flash_attention) {
        /* the global layers, then the local (windowed or chunked) ones, their share of
         * the layers as the op's count, whose kernel skips the key blocks outside the mask
         * (named *_local as training's ops) */
        double ws = x->win > 0 && x->win < c + n ? x->win_share : 0.0;
        for (int part = 0; part < 2; part++) {
            double share = part ? ws : 1.0 - ws, w = part ? x->win : 0.0;
            if (!(share > 0))
                continue;
            struct aug_op fa;
            memset(&fa, 0, sizeof fa);
            fa.name = part ? "attn_prefill_local" : "attn_prefill";
            fa.kind = AUG_OP_ATTENTION;
            fa.dtype = x->adt;
            fa.count = share;
            fa.batch_heads = ps * x->a_t;
            fa.seq_q = n;
            fa.seq_kv = c + n;
            /* q.k over d_qk and p.v over d_v (MLA: 192 and 128; the kernel's mean width) */
            aug_op_attention_set_widths(&fa, x->d_qk, x->d_v);
            fa.causal = 1;
            fa.window = w;
            fa.chunked = w > 0 && x->win_chunked;
            fa.flops = 2.0 * ps * x->a_t * (x->d_qk + x->d_v) *
                       aug_attention_local_pairs(n, c + n, w, fa.chunked);
            /* K and V read: those the window or the chunk reaches */
            double keys = aug_attention_local_keys(n, c + n, w, fa.chunked);
            fa.bytes = ps * n * x->a_t * (x->d_qk + x->d_v) * x->e + /* Q in, O out */
                       ps * keys * x->kv_layer * x->kvb +              /* K, V read */
                       ps * n * x->kv_layer * x->kvb;                  /* new K, V */
            ADD_L(fa, AUG_ICAT_ATTENTION, 0);
        }
        return;
    }
    /* unfused: scores materialized in HBM (QK^T, softmax, AV) */
    double bh = ps * x->a_t, skv = c + n;
    struct aug_op qk = aug_op_gemm("attn_qk", x->adt, n, skv, x->d_qk, bh);
    struct aug_op sm = mem("attn_softmax", "softmax", x, 2.0 * bh * n * skv * x->e, 5.0 * bh * n * skv);
    struct aug_op av = aug_op_gemm("attn_av", x->adt, n, x->d_v, skv, bh);
    ADD_L(qk, AUG_ICAT_ATTENTION, 0);
    ADD_L(sm, AUG_ICAT_ATTENTION, 0);
    ADD_L(av, AUG_ICAT_ATTENTION, 0);
}

static void tp_all_reduce(const struct aug_infer_dims *x, double T, struct aug_infer_graph *g) {
    if (x->tp_ranks > 1)
        ADD_L(aug_op_collective("tp_all_reduce", AUG_COLL_ALL_REDUCE, T * x->h * x->e, x->tp_ranks,
                                x->tp_domain),
              AUG_ICAT_TP, 0);
}

static void dense_mlp(const struct aug_model *m, const struct aug_infer_dims *x, double T,
                      double f_local, struct aug_infer_graph *g) {
    int gated = m->mlp == AUG_MLP_SWIGLU, dflt;
    struct aug_op up = linear("mlp_up", x, T, (gated ? 2.0 : 1.0) * f_local, x->h, 1, &dflt);
    ADD_L(up, AUG_ICAT_GEMM, dflt);
    double inner = T * f_local;
    ADD_L(mem("mlp_act", "activation", x, inner * x->e * (gated ? 3.0 : 2.0),
              inner * (gated ? 8.0 : 10.0)),
          AUG_ICAT_MEMORY, 0);
    struct aug_op down = linear("mlp_down", x, T, x->h, f_local, 1, &dflt);
    ADD_L(down, AUG_ICAT_GEMM, dflt);
}

static void moe_mlp(const struct aug_model *m, const struct aug_infer_dims *x, double T,
                    struct aug_infer_graph *g) {
    int gated = m->mlp == AUG_MLP_SWIGLU, dflt;
    /* the router (16-bit, on every rank) has as many output columns as experts (8-64): a
     * single tile column that streams the tokens' activations, so it is timed as the
     * memory-bound kernel it is (the GEMM efficiency defaults assume full tiles) */
    ADD_L(mem("router", "elementwise", x, T * x->h * x->e + x->h * x->E * x->e + T * x->E * 4.0,
              2.0 * T * x->E * x->h),
          AUG_ICAT_GEMM, 0);
    /* top-k, gather of each token's rows to its experts and the weighted scatter back */
    ADD_L(mem("moe_permute", "elementwise", x, 2.0 * T * x->h * x->e * (1.0 + x->k),
              T * x->E * 5.0),
          AUG_ICAT_MEMORY, 0);
    double local = x->E / x->ep, f_local = x->f * x->ep / x->t;
    double p_active = 1.0 - pow(1.0 - x->k / x->E, T);
    double active = local * p_active;
    double tokens = active > 0 ? T * x->k / x->E / p_active : 0.0; /* per active expert */
    struct aug_op up = linear("expert_up", x, tokens, (gated ? 2.0 : 1.0) * f_local, x->h, active,
                              &dflt);
    ADD_L(up, AUG_ICAT_GEMM, dflt);
    double inner = tokens * active * f_local;
    ADD_L(mem("expert_act", "activation", x, inner * x->e * (gated ? 3.0 : 2.0),
              inner * (gated ? 8.0 : 10.0)),
          AUG_ICAT_MEMORY, 0);
    struct aug_op down = linear("expert_down", x, tokens, x->h, f_local, active, &dflt);
    ADD_L(down, AUG_ICAT_GEMM, dflt);
    if (m->moe_shared_experts > 0) /* on this rank's tokens beside data-parallel attention */
        dense_mlp(m, x, T / x->adp, x->f * (double)m->moe_shared_experts * x->adp / x->t, g);
}

void aug_infer_graph_build(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_infer_step *st,
                           struct aug_infer_graph *g) {
    if (m->arch == AUG_ARCH_MATMULFREE) { /* hook: MLGRU + GLU, infer_matmulfree.c */
        aug_infer_mmf_graph(m, s, p, st, g);
        return;
    }
    struct aug_infer_dims x;
    aug_infer_dims(m, s, p, &x);
    g->n_layer = g->n_head = 0;
    g->decode_attn = -1;
    double Tr = st->decode_seqs + st->prefill_seqs * st->prefill_len; /* replica's tokens */
    if (!(Tr > 0))
        return;
    /* with attention data parallelism each rank runs attention (and the dense FFNs) on its
     * share of the sequences; the experts still see the replica's tokens */
    double T = Tr / x.adp;
    struct aug_infer_step sa = *st;
    sa.decode_seqs /= x.adp;
    sa.prefill_seqs /= x.adp;
    const char *norm_kind = m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm";
    struct aug_op norm = mem("norm", norm_kind, &x, 2.0 * T * x.h * x.e, 8.0 * T * x.h);
    struct aug_op resid = mem("residual", "elementwise", &x, 3.0 * T * x.h * x.e, T * x.h);
    int dflt;

    /* a parallel block (model.h parallel_block) reads x through one norm, or one per branch */
    int par = m->parallel_block > 0;
    ADD_L(norm, AUG_ICAT_MEMORY, 0);
    if (m->parallel_block == 2)
        ADD_L(norm, AUG_ICAT_MEMORY, 0);
    struct aug_op qkv = linear("qkv", &x, T, x.qkv_cols, x.h, 1, &dflt);
    ADD_L(qkv, AUG_ICAT_GEMM, dflt);
    if (m->pos == AUG_POS_ROPE)
        ADD_L(mem("rope", "rope", &x, 2.0 * T * (x.a_t + x.kv_t) * x.d * x.e,
                  6.0 * T * (x.a_t + x.kv_t) * x.d),
              AUG_ICAT_MEMORY, 0);
    if (sa.prefill_seqs > 0 && sa.prefill_len > 0)
        prefill_attention(p, &x, &sa, g);
    if (sa.decode_seqs > 0) {
        g->decode_attn = g->n_layer;
        ADD_L(aug_infer_decode_attention(&x, s, sa.decode_seqs, sa.decode_ctx + 1.0),
              AUG_ICAT_ATTENTION, 1);
        g->layer[g->decode_attn].stream = 1;
        if (p->decode_per_head)
            g->layer[g->decode_attn].core_eff =
                x.kvb <= 1.0 ? AUG_INFER_CORE_EFF_8BIT : AUG_INFER_CORE_EFF_16BIT;
    }
    struct aug_op out = linear("attn_out", &x, T, x.h, x.out_k, 1, &dflt);
    ADD_L(out, AUG_ICAT_GEMM, dflt);
    /* sequential: reduce, add and normalise before the MLP; parallel: the MLP reads the
     * block input and one add closes the block. Each branch's row-parallel projection
     * still all-reduces its own output, as TensorRT-LLM builds Falcon (models/falcon/
     * model.py, RowLinear with tp_group in Attention and MLP, v0.5-v0.9); vLLM sums the
     * two partial outputs before one all-reduce (model_executor/models/falcon.py), which
     * is not modelled here */
    if (x.adp <= 1)
        tp_all_reduce(&x, T, g);
    if (!par) {
        ADD_L(resid, AUG_ICAT_MEMORY, 0);
        ADD_L(norm, AUG_ICAT_MEMORY, 0);
    }
    /* the mean layer: MoE and dense FFNs at their shares of the layers */
    int n0 = g->n_layer;
    if (x.moe_share > 0) {
        if (x.adp > 1) /* this rank's tokens to the ranks of their experts (k copies each) */
            ADD_L(aug_op_collective("moe_dispatch", AUG_COLL_ALL_TO_ALL, T * x.k * x.h * x.e,
                                    x.tp_ranks, x.tp_domain),
                  AUG_ICAT_TP, 0);
        moe_mlp(m, &x, Tr, g);
        if (x.adp > 1)
            ADD_L(aug_op_collective("moe_combine", AUG_COLL_ALL_TO_ALL, T * x.k * x.h * x.e,
                                    x.tp_ranks, x.tp_domain),
                  AUG_ICAT_TP, 0);
        for (int i = n0; i < g->n_layer; i++)
            g->layer[i].op.count *= x.moe_share;
    }
    n0 = g->n_layer;
    if (x.moe_share < 1) {
        /* dense FFNs: split over TP, or whole on every rank beside data-parallel attention */
        dense_mlp(m, &x, T, (m->arch == AUG_ARCH_MOE ? x.dense_f : x.f) * x.adp / x.t, g);
        for (int i = n0; i < g->n_layer; i++)
            g->layer[i].op.count *= 1.0 - x.moe_share;
    }
    if (x.adp <= 1)
        tp_all_reduce(&x, T, g);
    if (par) /* x + attention + MLP: three reads, one write */
        ADD_L(mem("residual", "elementwise", &x, 4.0 * T * x.h * x.e, 2.0 * T * x.h),
              AUG_ICAT_MEMORY, 0);
    else
        ADD_L(resid, AUG_ICAT_MEMORY, 0);

    /* first stage: embedding rows (+ learned positions); vocabulary-parallel tables are
     * summed over TP (Megatron / vLLM VocabParallelEmbedding) */
    ADD_H(mem("embedding", "embedding", &x,
              T * x.h * x.e * (m->pos == AUG_POS_LEARNED ? 3.0 : 2.0), 0.0),
          AUG_ICAT_HEAD, 0);
    if (x.tp_ranks > 1)
        ADD_H(aug_op_collective("emb_all_reduce", AUG_COLL_ALL_REDUCE, T * x.h * x.e, x.tp_ranks,
                                x.tp_domain),
              AUG_ICAT_TP, 0);
    /* last stage: only the rows that emit a token reach the head */
    double S = st->sample_seqs;
    if (S > 0) {
        ADD_H(mem("final_norm", norm_kind, &x, 2.0 * S * x.h * x.e, 8.0 * S * x.h), AUG_ICAT_HEAD, 1);
        ADD_H(aug_op_gemm("lm_head", x.adt, S, x.V / x.t, x.h, 1), AUG_ICAT_HEAD, 1);
        if (x.tp_ranks > 1) /* vocabulary-parallel logits gathered in fp32 */
            ADD_H(aug_op_collective("logits_all_gather", AUG_COLL_ALL_GATHER, S * x.V * 4.0,
                                    x.tp_ranks, x.tp_domain),
                  AUG_ICAT_TP, 1);
        ADD_H(mem("sampling", "softmax", &x, 2.0 * S * x.V * 4.0, 5.0 * S * x.V), AUG_ICAT_HEAD, 1);
    }
}
