/* SPDX-License-Identifier: Apache-2.0 */
/* layer_graph.c - every kernel of a transformer layer, forward and backward, with exact
 * FLOPs and bytes (Narayanan et al. SC21 sec. 5.1 / appendix; Korthikanti et al. 2022
 * sec. 4 for the TP and SP collectives).
 *
 * Forward, per layer: norm, [SP all-gather], QKV GEMM, rotary, attention core (fused
 * FlashAttention, or QK^T + softmax + dropout + AV), output GEMM, TP all-reduce (or SP
 * reduce-scatter), dropout + residual add, norm, [SP all-gather], MLP up (gate+up for
 * SwiGLU), activation, MLP down, TP all-reduce / reduce-scatter, dropout + residual.
 * Backward: every GEMM becomes a data-gradient and a weight-gradient GEMM of the same
 * FLOPs; memory-bound kernels move about twice their forward bytes (the softmax backward
 * reads P and dP and writes dS: Dao et al. 2022, Algorithm 3); TP collectives mirror the
 * forward (all-reduce <-> identity, all-gather <-> reduce-scatter), and with SP each
 * column-parallel linear's saved input shard is all-gathered again for its weight
 * gradient (sp_regather).
 *
 * Attention bytes and FLOPs come from the IO model of attention_io.c (FlashAttention-2
 * traffic on the GPU's shared memory, exact causal pairs). Context parallelism (plan.h):
 * ring attention runs cp blockwise kernels per layer on the local queries, with the
 * causal work balanced over the ranks (each holds chunks r and 2cp-1-r, so every rank
 * computes n(N+1)/2 pairs per head, n = N/cp) and the K/V block of the previous step
 * arriving while a step computes (an overlap group); the backward also returns dK/dV one
 * more hop. Ulysses all-to-alls Q, K, V before and O after attention (and their
 * gradients), attention running on the full sequence with heads/cp heads. All-gather CP
 * gathers K and V once per layer and reduce-scatters their gradients.
 *
 * MoE layers replace the MLP by the MoE FFN of moe_layer.c; models whose layers differ
 * (dense first layers, every n-th layer MoE, sliding windows) get the mean layer of the
 * slowest pipeline stage, each op at its share of the stage's layers; latent attention's
 * projections come from mla.c; DeepSeek's MTP modules ride on the last stage. Model FLOP
 * counts are in model_flops.c. MatMul-free layers are built by matmulfree.c. With
 * plan->tp_overlap each TP collective overlaps the GEMM beside it in tp chunks (T3, Pati et
 * al. ASPLOS 2024; Transformer Engine userbuffers). */
#include "layer_graph.h"

#include <string.h>

#include "augur/attention.h"
#include "graph_build.h"
#include "matmulfree_internal.h"
#include "hw/topology.h"
#include "model/mla.h"
#include "model/moe_layer.h"

/* ---- attention and context parallelism ------------------------------------------------ */

/* One all-to-all among `ranks` ranks of which `per_domain` share an NVLink domain
 * (collective.c sends the off-domain share through each GPU's NIC). */
static struct aug_op a2a_op(const char *name, double size, int ranks, int per_domain) {
    return aug_op_collective(name, AUG_COLL_ALL_TO_ALL, size, ranks, per_domain);
}

/* The attention core's shape on this rank under the plan's CP algorithm; `window` bounds
 * the keys of every query (sliding-window layers; 0: none), which scales the pairs of every
 * CP variant by the same ratio. */
static void attn_shape(const struct aug_model *m, const struct aug_plan *p,
                       const struct aug_dims *x, double window, struct aug_attn_shape *a,
                       double *steps) {
    double N = x->skv, n = x->s, cp = (double)p->cp;
    memset(a, 0, sizeof *a);
    a->batch = x->b;
    a->heads = x->a_t;
    a->kv_heads = x->kv_t;
    a->head_dim = m->attention == AUG_ATTN_MLA ? aug_mla_core_head_dim(m) : x->d;
    a->causal = 1;
    a->elem_bytes = x->e;
    a->seq_q = n;
    a->seq_kv = N;
    /* load-balanced causal split: every rank computes n (N + 1) / 2 pairs per head */
    a->pairs = n * (N + 1.0) / 2.0;
    *steps = 1;
    if (p->cp > 1 && p->cp_algo == AUG_CP_ULYSSES) {
        a->heads = x->a_t / cp;
        a->kv_heads = x->kv_t >= cp ? x->kv_t / cp : 1.0;
        a->seq_q = N;
        a->pairs = N * (N + 1.0) / 2.0;
    } else if (p->cp > 1 && p->cp_algo == AUG_CP_RING) {
        /* cp blockwise kernels of n queries against n keys, the pairs spread evenly (the
         * unfused path; fused, attn_plan_init splits the steps by mask) */
        a->seq_kv = n;
        a->pairs = n * (N + 1.0) / 2.0 / cp;
        *steps = cp;
    } else if (p->cp > 1 && p->cp_algo == AUG_CP_ALLGATHER) {
        /* two causal kernels, one per local chunk (r and 2cp-1-r, n/2 queries each), each
         * against the gathered keys up to its own end (Transformer Engine 2.4,
         * AttnFuncWithCPAndKVAllGather: local_seq_chunk_ids = [rank, 2 cp - rank - 1];
         * Llama 3, sec. 3.3.2). Their key lengths (r + 1) n/2 and (2cp - r) n/2 average
         * (N + n/2) / 2, and the tiles of a causal chunk grow linearly in its key length,
         * so one op at the mean counts both: n (N + 1) / 4 pairs each. One kernel of n
         * queries against all N keys would compute n N (1 - n/2N) pairs, twice the work. */
        a->seq_q = n / 2.0;
        a->seq_kv = (N + n / 2.0) / 2.0;
        a->pairs = n * (N + 1.0) / 4.0;
        *steps = 2;
    }
    if (window > 0 && window < N)
        a->pairs *= aug_model_local_pairs(m, N, N) / aug_attention_pairs(N, N, 0.0);
}

/* The attention core of a layer: its shape under the plan's CP algorithm and, when fused,
 * its IO counts (computed once for both passes). */
struct attn_plan {
    struct aug_attn_shape a;
    double steps; /* kernels of shape `a` per layer */
    /* fused ring CP: step 0 is `a` (causal, once); the other steps run `full` (no mask) */
    struct aug_attn_shape full;
    struct aug_attn_io full_io;
    double full_steps;
    double share; /* of the stage's layers that run this attention (global or windowed) */
    struct aug_attn_io io;
    enum aug_dtype adt;
    int kernel; /* enum aug_attn_kernel */
    double d_qk, d_v; /* per-head widths of q.k and of p.v (MLA: 192 and 128) */
    double window;    /* keys each query sees in the fused kernel's tiles, 0: all */
    int chunked;      /* ... as the chunk of `window` tokens it sits in (Llama 4) */
    int local;        /* the windowed (or chunked) layers' core: ops named *_local */
};

static void attn_plan_init(const struct aug_model *m, const struct aug_plan *p,
                           const struct aug_system *s, const struct aug_dims *x, double window,
                           double share, struct attn_plan *ap) {
    memset(ap, 0, sizeof *ap);
    attn_shape(m, p, x, window, &ap->a, &ap->steps);
    ap->share = share;
    /* the kernel skips the key blocks outside the window (its pairs are already bounded);
     * ring CP never gets here with a window shorter than the sequence (plan.c refuses it,
     * as Transformer Engine does) */
    ap->window = window > 0 && window < x->skv ? window : 0.0;
    ap->chunked = ap->window > 0 && m->attn_chunked;
    ap->local = window > 0;
    ap->d_qk = ap->d_v = x->d;
    if (m->attention == AUG_ATTN_MLA) {
        ap->d_qk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
        ap->d_v = (double)m->v_head_dim;
    }
    if (!(share > 0))
        return; /* no layer of the stage runs it */
    /* fp8 recipes (Transformer Engine) keep attention in bf16 */
    ap->adt = x->dt == AUG_DTYPE_FP8 ? AUG_DTYPE_BF16 : x->dt;
    ap->kernel = (int)p->attn_kernel;
    if (!p->flash_attention)
        return;
    double sram = s->gpu.smem_kib_per_sm * 1024.0, sms = (double)s->gpu.sm_count;
    if (p->cp > 1 && p->cp_algo == AUG_CP_RING) {
        /* Transformer Engine's load-balanced ring (AttnFuncWithCPAndKVP2P, TE 1.x-2.x): step
         * 0 is the causal kernel of the rank's two local chunks (n queries, n keys, n (n + 1)
         * / 2 pairs); at each of the other cp - 1 steps the arriving chunks are wholly in
         * the past of the queries that see them, an unmasked kernel of n (n / 2) pairs (all
         * n queries against the earlier half of the keys, or the later half of the queries
         * against all n keys): n (N + 1) / 2 pairs in all, as before the split. */
        double n = ap->a.seq_q;
        ap->full = ap->a;
        ap->full.causal = 0;
        ap->full.seq_kv = n / 2.0;
        ap->full.pairs = n * n / 2.0;
        ap->full_steps = (double)p->cp - 1.0;
        ap->steps = 1.0;
        ap->a.pairs = n * (n + 1.0) / 2.0;
        aug_attention_io(&ap->full, sram, sms, &ap->full_io);
    }
    aug_attention_io(&ap->a, sram, sms, &ap->io);
}

/* The fused kernel of `ap`, or with `full` its ring's unmasked steps. */
static struct aug_op flash_op(const struct attn_plan *ap, int backward, int full) {
    const struct aug_attn_shape *a = full ? &ap->full : &ap->a;
    const struct aug_attn_io *io = full ? &ap->full_io : &ap->io;
    struct aug_op fa;
    memset(&fa, 0, sizeof fa);
    fa.name = full        ? (backward ? "attn_bwd_ring" : "attn_fwd_ring")
              : ap->local ? (backward ? "attn_bwd_local" : "attn_fwd_local")
                          : (backward ? "attn_bwd" : "attn_fwd");
    fa.kind = AUG_OP_ATTENTION;
    fa.dtype = ap->adt;
    fa.count = (full ? ap->full_steps : ap->steps) * ap->share;
    fa.batch_heads = a->batch * a->heads;
    fa.seq_q = a->seq_q;
    fa.seq_kv = a->seq_kv;
    aug_op_attention_set_widths(&fa, ap->d_qk, ap->d_v); /* MLA: the mean of 192 and 128 */
    fa.causal = a->causal;
    fa.window = ap->window;
    fa.chunked = ap->chunked;
    fa.backward = backward;
    fa.attn_kernel = ap->kernel;
    fa.flops = backward ? io->bwd_flops : io->fwd_flops;
    fa.bytes = backward ? io->bwd_bytes : io->fwd_bytes;
    return fa;
}

/* Unfused attention: QK^T, softmax, dropout, AV (Dao et al. 2022, Algorithm 0), every
 * score of the square computed and masked; QK^T contracts over the query/key width and AV
 * over the value width, which differ under MLA (Transformer Engine's
 * UnfusedDotProductAttention, TE 2.2, runs the same two batched GEMMs). */
static void unfused_ops(const struct attn_plan *ap, const struct aug_dims *x, struct aug_op *qk,
                        struct aug_op *sm, struct aug_op *dr, struct aug_op *av, double *scores) {
    double bh = ap->a.batch * ap->a.heads;
    *qk = aug_op_gemm("attn_qk", ap->adt, ap->a.seq_q, ap->a.seq_kv, ap->d_qk, bh);
    *scores = bh * ap->a.seq_q * ap->a.seq_kv;
    *sm = aug_gb_act("attn_softmax", "softmax", x, 2.0 * *scores * x->e, 5.0 * *scores);
    *av = aug_op_gemm("attn_av", ap->adt, ap->a.seq_q, ap->d_v, ap->a.seq_kv, bh);
    *dr = aug_gb_act("attn_dropout", "elementwise", x, *scores * (2.0 * x->e + 1.0), *scores);
    qk->count = sm->count = av->count = dr->count = ap->steps * ap->share;
}

/* Forward attention ops; their index range in g->fwd through *first / *last (ring CP
 * overlaps them with its exchange). */
static void attention_fwd(const struct attn_plan *ap, const struct aug_plan *p,
                          const struct aug_dims *x, struct aug_graph *g, int *first, int *last) {
    *first = g->n_fwd;
    if (p->flash_attention) {
        /* selective recomputation re-runs the fused core attention forward too
         * (Megatron-Core 0.12 recompute_modules ["core_attn"]) */
        aug_gb_add(g->fwd, &g->n_fwd, flash_op(ap, 0, 0), AUG_CAT_ATTENTION, AUG_RC_CORE_ATTN);
        if (ap->full_steps > 0)
            aug_gb_add(g->fwd, &g->n_fwd, flash_op(ap, 0, 1), AUG_CAT_ATTENTION,
                       AUG_RC_CORE_ATTN);
        *last = g->n_fwd - 1;
        return;
    }
    struct aug_op qk, sm, dr, av;
    double scores;
    unfused_ops(ap, x, &qk, &sm, &dr, &av, &scores);
    aug_gb_add(g->fwd, &g->n_fwd, qk, AUG_CAT_ATTENTION, AUG_RC_CORE_ATTN);
    aug_gb_add(g->fwd, &g->n_fwd, sm, AUG_CAT_ATTENTION, AUG_RC_CORE_ATTN);
    if (x->dropout)
        aug_gb_add(g->fwd, &g->n_fwd, dr, AUG_CAT_ATTENTION, AUG_RC_CORE_ATTN);
    aug_gb_add(g->fwd, &g->n_fwd, av, AUG_CAT_ATTENTION, AUG_RC_CORE_ATTN);
    *last = g->n_fwd - 1;
}

/* Backward attention ops, appended to g->bwd; their index range through *first / *last. */
static void attention_bwd(const struct attn_plan *ap, const struct aug_plan *p,
                          const struct aug_dims *x, struct aug_graph *g, int *first, int *last) {
    *first = g->n_bwd;
    if (p->flash_attention) {
        aug_gb_add(g->bwd, &g->n_bwd, flash_op(ap, 1, 0), AUG_CAT_ATTENTION, 0);
        if (ap->full_steps > 0)
            aug_gb_add(g->bwd, &g->n_bwd, flash_op(ap, 1, 1), AUG_CAT_ATTENTION, 0);
        *last = g->n_bwd - 1;
        return;
    }
    struct aug_op qk, sm, dr, av;
    double scores;
    unfused_ops(ap, x, &qk, &sm, &dr, &av, &scores);
    aug_gb_gemm_bwd(g, &av, "attn_av_dgrad_p", "attn_av_dgrad_v", AUG_CAT_ATTENTION, 0);
    if (x->dropout)
        aug_gb_mem_bwd(g, &dr, "attn_dropout_bwd", AUG_CAT_ATTENTION);
    /* read P and dP, write dS (Dao et al. 2022, Algorithm 3) */
    aug_gb_add(g->bwd, &g->n_bwd,
               aug_op_memory("attn_softmax_bwd", "softmax", x->dt, 3.0 * scores * x->e,
                             2.0 * sm.flops), AUG_CAT_ATTENTION, 0);
    aug_gb_gemm_bwd(g, &qk, "attn_qk_dgrad_q", "attn_qk_dgrad_k", AUG_CAT_ATTENTION, 0);
    *last = g->n_bwd - 1;
    for (int i = *first; i <= *last; i++)
        g->bwd[i].op.count = ap->steps * ap->share;
}

/* Put ops [a0, a1] of `arr` into overlap group `id` (a ring of `steps`). */
static void join(struct aug_graph_op *arr, int a0, int a1, int id, int steps) {
    for (int i = a0; i <= a1 && i >= 0; i++) {
        arr[i].group = id;
        arr[i].ovl = AUG_OVL_RING;
        arr[i].ovl_n = steps;
    }
}

/* Context-parallel exchange of one layer. Forward: appended to g->fwd, the ring paired
 * with the attention ops [a0, a1]; backward (bwd = 1): appended to g->bwd right after the
 * attention backward [a0, a1]. */
static void context_parallel(const struct aug_plan *p, const struct aug_system *s,
                             const struct aug_dims *x, struct aug_graph *g, int bwd, int a0,
                             int a1) {
    if (p->cp <= 1)
        return;
    int cp = (int)p->cp;
    int cp_domain = aug_ranks_per_domain(s, p->cp, p->tp);
    struct aug_graph_op *arr = bwd ? g->bwd : g->fwd;
    int *n = bwd ? &g->n_bwd : &g->n_fwd;
    if (p->cp_algo == AUG_CP_RING) {
        double kv_block = 2.0 * x->b * x->s * x->kv_t * x->d * x->e;
        /* a ring that leaves the NVLink domain has a network hop on every step */
        int per = cp_domain >= p->cp ? 2 : 1;
        struct aug_op f = aug_op_collective("cp_kv_ring", AUG_COLL_SEND_RECV, kv_block, 2, per);
        f.count = (double)(cp - 1);
        int id = ++g->n_groups;
        if (!bwd) {
            aug_gb_add_ovl(arr, n, &f, AUG_CAT_CP, id, AUG_OVL_RING, cp);
            join(arr, a0, a1, id, cp);
            return;
        }
        /* K, V and the dK, dV accumulators travel together (cp - 1 hops hidden behind the
         * blockwise backward), then dK, dV return to their owner */
        struct aug_op b = f;
        b.name = "cp_kv_ring_bwd";
        b.size_bytes = b.bytes = 2.0 * kv_block;
        aug_gb_add_ovl(arr, n, &b, AUG_CAT_CP, id, AUG_OVL_RING, cp);
        join(arr, a0, a1, id, cp);
        struct aug_op home = f;
        home.name = "cp_dkv_home";
        home.count = 1;
        aug_gb_add(arr, n, home, AUG_CAT_CP, 0);
        return;
    }
    if (p->cp_algo == AUG_CP_ULYSSES) {
        /* each rank receives one KV head at least */
        double kv_heads_sent = x->kv_t < (double)cp ? (double)cp : x->kv_t;
        double qkv = x->b * x->s * x->d * x->e * (x->a_t + 2.0 * kv_heads_sent);
        double o = x->b * x->s * x->d * x->e * x->a_t;
        aug_gb_add(arr, n, a2a_op(bwd ? "cp_a2a_do" : "cp_a2a_qkv", bwd ? o : qkv, cp, cp_domain),
                   AUG_CAT_CP, 0);
        aug_gb_add(arr, n, a2a_op(bwd ? "cp_a2a_dqkv" : "cp_a2a_o", bwd ? qkv : o, cp, cp_domain),
                   AUG_CAT_CP, 0);
        return;
    }
    /* all-gather: K and V of the whole sequence, gathered again for the backward */
    double kv_all = 2.0 * x->b * x->skv * x->kv_t * x->d * x->e;
    aug_gb_add(arr, n,
               aug_op_collective(bwd ? "cp_kv_all_gather_bwd" : "cp_kv_all_gather",
                                 AUG_COLL_ALL_GATHER, kv_all, cp, cp_domain), AUG_CAT_CP, 0);
    if (bwd)
        aug_gb_add(arr, n,
                   aug_op_collective("cp_dkv_reduce_scatter", AUG_COLL_REDUCE_SCATTER, kv_all, cp,
                                     cp_domain), AUG_CAT_CP, 0);
}

/* The attention cores of a layer's global and windowed shares (forward, or backward with
 * bwd = 1) and the context-parallel exchange that overlaps them. */
static void attention_cores(const struct attn_plan ap[2], const struct aug_plan *p,
                            const struct aug_system *s, const struct aug_dims *x,
                            struct aug_graph *g, int bwd) {
    int a0 = -1, a1 = -1;
    for (int k = 0; k < 2; k++) {
        int f0, f1;
        if (!(ap[k].share > 0))
            continue;
        if (bwd)
            attention_bwd(&ap[k], p, x, g, &f0, &f1);
        else
            attention_fwd(&ap[k], p, x, g, &f0, &f1);
        if (a0 < 0)
            a0 = f0;
        a1 = f1;
    }
    context_parallel(p, s, x, g, bwd, a0, a1);
}

/* The attention half of a layer, forward: QKV (MLA's projections), RoPE, the attention
 * core of the global and windowed layers, the CP exchange and the output projection.
 * *i_qkv and *i_proj index the QKV (last MLA) and output GEMMs for TP overlap pairs. */
static void attn_block_fwd(const struct aug_model *m, const struct aug_plan *p,
                           const struct aug_system *s, const struct aug_dims *x,
                           const struct attn_plan ap[2], const struct aug_op *qkv,
                           const struct aug_op *rope, const struct aug_op *proj,
                           struct aug_graph *g, int *i_qkv, int *i_proj) {
    if (m->attention == AUG_ATTN_MLA) {
        *i_qkv = aug_mla_qkv_fwd(m, x, g);
    } else {
        aug_gb_add(g->fwd, &g->n_fwd, *qkv, AUG_CAT_COMPUTE, 0);
        *i_qkv = g->n_fwd - 1;
    }
    /* MLA applies RoPE inside its up-projection checkpoint (mla_up_proj) */
    if (m->pos == AUG_POS_ROPE)
        aug_gb_add(g->fwd, &g->n_fwd, *rope, AUG_CAT_COMPUTE,
                   m->attention == AUG_ATTN_MLA ? AUG_RC_MLA_UP_PROJ : 0);
    attention_cores(ap, p, s, x, g, 0);
    aug_gb_add(g->fwd, &g->n_fwd, *proj, AUG_CAT_COMPUTE, 0);
    *i_proj = g->n_fwd - 1;
}

/* ... and backward, in reverse: output projection gradients, attention core, CP, RoPE,
 * QKV gradients. *i_proj_d and *i_qkv_d index the two data-gradient GEMMs. */
static void attn_block_bwd(const struct aug_model *m, const struct aug_plan *p,
                           const struct aug_system *s, const struct aug_dims *x,
                           const struct attn_plan ap[2], const struct aug_op *qkv,
                           const struct aug_op *rope, const struct aug_op *proj,
                           struct aug_graph *g, int *i_proj_d, int *i_qkv_d) {
    *i_proj_d = aug_gb_gemm_bwd(g, proj, "attn_out_dgrad", "attn_out_wgrad", AUG_CAT_COMPUTE, 1);
    attention_cores(ap, p, s, x, g, 1);
    if (m->pos == AUG_POS_ROPE)
        aug_gb_mem_bwd(g, rope, "rope_bwd", AUG_CAT_COMPUTE);
    *i_qkv_d = m->attention == AUG_ATTN_MLA
                   ? aug_mla_qkv_bwd(m, x, g)
                   : aug_gb_gemm_bwd(g, qkv, "qkv_dgrad", "qkv_wgrad", AUG_CAT_COMPUTE, 1);
}

/* Sequence parallelism keeps only its shard of a column-parallel linear's input, so the
 * backward all-gathers it again for the weight gradient (Korthikanti et al. 2022 sec.
 * 4.2.2; Megatron-LM LinearWithGradAccumulationAndAsyncCommunication.backward issues the
 * all-gather asynchronously beside the data-gradient GEMM, Transformer Engine's
 * LayerNormLinear overlaps it the same way): one all-gather of the T x h input, paired
 * with GEMM `with` of the backward list (the data gradient, or with TP overlap, where that
 * one already hides the reduce-scatter, the weight gradient after it). Returns its index. */
static int sp_regather(struct aug_graph *g, const struct aug_dims *x, int with) {
    int i = aug_gb_tp_coll(g->bwd, &g->n_bwd, "sp_regather_bwd", AUG_COLL_ALL_GATHER, x,
                           AUG_CAT_TP);
    if (i >= 0 && with >= 0 && with < g->n_bwd) {
        if (g->bwd[with].group != 0)
            with++; /* the weight gradient that follows the data gradient */
        if (with < i && g->bwd[with].group == 0)
            aug_gb_pair(g, g->bwd, with, i, AUG_OVL_PAIR, 1);
    }
    return i;
}

/* The all-reduce `ar` of the backward list beside the weight-gradient GEMM that follows the
 * data-gradient GEMM `dgrad` (aug_gb_gemm_bwd adds the two in that order). */
static void async_dgrad_allreduce(struct aug_graph *g, int dgrad, int ar) {
    int wgrad = dgrad + 1;
    if (dgrad < 0 || ar < 0 || wgrad >= ar || g->bwd[wgrad].op.kind != AUG_OP_GEMM ||
        g->bwd[wgrad].group != 0 || g->bwd[ar].group != 0)
        return;
    aug_gb_pair(g, g->bwd, wgrad, ar, AUG_OVL_PAIR, 1);
}

/* ---- one layer ------------------------------------------------------------------------- */

static void graph_layer(const struct aug_model *m, const struct aug_plan *p,
                        const struct aug_system *s, const struct aug_dims *xp, struct aug_graph *g);
static void graph_head(const struct aug_model *m, const struct aug_plan *p,
                       const struct aug_dims *xp, int last_stage, struct aug_graph *g);

void aug_graph_layer(const struct aug_model *m, const struct aug_plan *p,
                     const struct aug_system *s, struct aug_graph *g) {
    struct aug_dims x;
    aug_dims_init(m, p, s, &x);
    graph_layer(m, p, s, &x, g);
}

static void graph_mtp(const struct aug_model *m, const struct aug_plan *p,
                      const struct aug_system *s, const struct aug_dims *x, struct aug_graph *g);
static void graph_layer_mix(const struct aug_model *m, const struct aug_plan *p,
                            const struct aug_system *s, const struct aug_dims *xp, double f_moe,
                            double f_win, struct aug_graph *g);
static void graph_layer_parallel(const struct aug_model *m, const struct aug_plan *p,
                                 const struct aug_system *s, const struct aug_dims *xp,
                                 double f_win, struct aug_graph *g);

void aug_graph_head(const struct aug_model *m, const struct aug_plan *p,
                    const struct aug_system *s, int last_stage, struct aug_graph *g) {
    struct aug_dims x;
    aug_dims_init(m, p, s, &x);
    graph_head(m, p, &x, last_stage, g);
    if (last_stage)
        graph_mtp(m, p, s, &x, g);
}

void aug_graph_all(const struct aug_model *m, const struct aug_plan *p, const struct aug_system *s,
                   struct aug_graph *layer, struct aug_graph *first, struct aug_graph *last) {
    struct aug_dims x;
    aug_dims_init(m, p, s, &x);
    graph_layer(m, p, s, &x, layer);
    graph_head(m, p, &x, 0, first);
    graph_head(m, p, &x, 1, last);
    graph_mtp(m, p, s, &x, last);
}

/* Append list `src` (n ops) to `dst`, each op's count times k, its overlap groups renumbered
 * after `groups` and its same_as indices moved with it. */
static void append_ops(struct aug_graph_op *dst, int *nd, const struct aug_graph_op *src, int n,
                       int groups, double k) {
    int base = *nd;
    for (int i = 0; i < n && *nd < AUG_GRAPH_MAX_OPS; i++) {
        struct aug_graph_op o = src[i];
        o.op.count *= k;
        if (o.group > 0)
            o.group += groups;
        if (o.same_as >= 0)
            o.same_as += base;
        dst[(*nd)++] = o;
    }
}

/* DeepSeek-V3's multi-token prediction (arXiv 2412.19437, sec. 2.2, Fig. 3) on the last
 * stage: per module the RMSNorms of the hidden state and of the next token's embedding, the
 * projection M (2h -> h), one transformer layer (an MoE layer when the model has them)
 * and the shared output head with its own final norm and cross-entropy: the last stage's
 * head ops once more. */
static void graph_mtp(const struct aug_model *m, const struct aug_plan *p,
                      const struct aug_system *s, const struct aug_dims *x, struct aug_graph *g) {
    if (m->mtp_layers <= 0 || m->arch == AUG_ARCH_MATMULFREE)
        return;
    double k = (double)m->mtp_layers;
    struct aug_graph head = *g, layer;
    graph_layer_mix(m, p, s, x, m->arch == AUG_ARCH_MOE ? 1.0 : 0.0, 0.0, &layer);
    const char *nk = m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm";
    struct aug_op norms = aug_gb_act("mtp_norms", nk, x, 4.0 * x->Tsp * x->h * x->e,
                                     16.0 * x->Tsp * x->h);
    struct aug_op proj = aug_op_gemm("mtp_proj", x->dt, x->T, x->h / x->t, 2.0 * x->h, 1);
    norms.count = proj.count = k;
    aug_gb_add(g->fwd, &g->n_fwd, norms, AUG_CAT_COMPUTE, 0);
    aug_gb_add(g->fwd, &g->n_fwd, proj, AUG_CAT_COMPUTE, 0);
    append_ops(g->fwd, &g->n_fwd, layer.fwd, layer.n_fwd, g->n_groups, k);
    append_ops(g->fwd, &g->n_fwd, head.fwd, head.n_fwd, g->n_groups, k);
    append_ops(g->bwd, &g->n_bwd, head.bwd, head.n_bwd, g->n_groups, k);
    append_ops(g->bwd, &g->n_bwd, layer.bwd, layer.n_bwd, g->n_groups, k);
    g->n_groups += layer.n_groups;
    aug_gb_gemm_bwd(g, &proj, "mtp_proj_dgrad", "mtp_proj_wgrad", AUG_CAT_COMPUTE, 1);
    g->bwd[g->n_bwd - 1].op.count = g->bwd[g->n_bwd - 2].op.count = k;
    aug_gb_mem_bwd(g, &norms, "mtp_norms_bwd", AUG_CAT_COMPUTE);
}

/* Multiply the counts of ops [from, n) of a list by k (a share of the stage's layers). */
static void scale_counts(struct aug_graph_op *arr, int from, int n, double k) {
    for (int i = from; i < n; i++)
        arr[i].op.count *= k;
}

/* Shares of the slowest pipeline stage's layers that are MoE and that attend through a
 * window. Layer i sits on stage (i / c) mod pp, c = ceil(layers / (pp v)) (Megatron's
 * interleaved assignment; v = 1 gives contiguous stages); the slowest stage is the one
 * with the most MoE layers, and of equal ones the most global-attention layers. */
static void stage_shares(const struct aug_model *m, const struct aug_plan *p, double *f_moe,
                         double *f_win) {
    *f_moe = *f_win = 0.0;
    if (m->arch != AUG_ARCH_MOE && m->sliding_window <= 0)
        return; /* every layer alike (the common case; sweeps build millions of graphs) */
    if (m->sliding_window <= 0 && m->moe_dense_layers == 0 && m->moe_layer_freq <= 1) {
        *f_moe = 1.0;
        return;
    }
    long L = m->layers, pp = p->pp > 0 ? p->pp : 1, v = p->interleave > 0 ? p->interleave : 1;
    long c = (L + pp * v - 1) / (pp * v);
    if (c < 1)
        c = 1;
    double best_moe = -1.0, best_win = 0.0;
    for (long st = 0; st < pp; st++) {
        long n = 0, nm = 0, nw = 0;
        for (long chunk = st; chunk * c < L; chunk += pp) /* one pass over the layers in all */
            for (long i = chunk * c; i < (chunk + 1) * c && i < L; i++) {
                n++;
                nm += aug_model_layer_is_moe(m, i);
                nw += aug_model_layer_is_windowed(m, i);
            }
        if (n == 0)
            continue;
        double fm = (double)nm / (double)n, fw = (double)nw / (double)n;
        if (fm > best_moe + 1e-12 || (fm > best_moe - 1e-12 && fw < best_win)) {
            best_moe = fm;
            best_win = fw;
        }
    }
    *f_moe = best_moe > 0 ? best_moe : 0.0;
    *f_win = best_win;
}


static void graph_layer(const struct aug_model *m, const struct aug_plan *p,
                        const struct aug_system *s, const struct aug_dims *xp, struct aug_graph *g) {
    g->n_fwd = g->n_bwd = g->n_groups = 0;
    if (m->arch == AUG_ARCH_MATMULFREE) {
        aug_mmf_graph_layer(m, p, s, g);
        return;
    }
    double f_moe, f_win;
    stage_shares(m, p, &f_moe, &f_win);
    if (m->parallel_block)
        graph_layer_parallel(m, p, s, xp, f_win, g);
    else
        graph_layer_mix(m, p, s, xp, f_moe, f_win, g);
}

/* The mean layer of a stage whose layers are a share f_moe MoE (the rest dense, FFN
 * dense_ffn_hidden) and a share f_win windowed: every op of a kind runs with its count
 * times that share, so one graph times the stage's mix exactly (the ops are identical
 * within a kind). */
static void graph_layer_mix(const struct aug_model *m, const struct aug_plan *p,
                            const struct aug_system *s, const struct aug_dims *xp, double f_moe,
                            double f_win, struct aug_graph *g) {
    g->n_fwd = g->n_bwd = g->n_groups = 0;
    struct aug_dims x = *xp;
    int mla = m->attention == AUG_ATTN_MLA;
    double f_dense = 1.0 - f_moe, fd = (double)aug_model_dense_ffn(m);
    double norm_flops = 8.0 * x.Tsp * x.h;
    const char *norm_kind = m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm";
    struct aug_op norm = aug_gb_act("norm", norm_kind, &x, 2.0 * x.Tsp * x.h * x.e, norm_flops);
    struct aug_op resid = aug_gb_act("residual", "elementwise", &x,
                                 x.Tsp * x.h * (3.0 * x.e + (x.dropout ? 1.0 : 0.0)), 2.0 * x.Tsp * x.h);
    struct aug_op qkv = aug_op_gemm("qkv", x.dt, x.T, (x.a_t + 2.0 * x.kv_t) * x.d, x.h, 1);
    /* RoPE rotates q and k; MLA rotates the d_r part of every query head and one shared key */
    double rot = mla ? (x.a_t + 1.0) * (double)m->qk_rope_head_dim : (x.a_t + x.kv_t) * x.d;
    struct aug_op rope = aug_gb_act("rope", "rope", &x, 2.0 * x.T * rot * x.e, 6.0 * x.T * rot);
    struct aug_op proj = mla ? aug_mla_out(m, &x)
                             : aug_op_gemm("attn_out", x.dt, x.T, x.h, x.a_t * x.d, 1);
    int moe_layer = f_moe > 0;
    /* an MoE layer's routed experts take SP-local tokens: the MLP's SP all-gather and
     * reduce-scatter remain only for shared experts (and dense layers) */
    int mlp_sp_colls = f_dense > 0 || m->moe_shared_experts > 0 || !x.sp;
    double coll_share = m->moe_shared_experts > 0 || !x.sp ? 1.0 : f_dense;
    int ovl = p->tp_overlap && p->tp > 1;
    enum aug_coll c_out = x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE;
    const char *n_out = x.sp ? "sp_reduce_scatter" : "tp_all_reduce";
    const char *n_out_b = x.sp ? "sp_reduce_scatter_bwd" : "tp_all_reduce_bwd";
    int tpn = (int)p->tp;
    struct attn_plan ap[2]; /* global, windowed */
    attn_plan_init(m, p, s, &x, 0.0, 1.0 - f_win, &ap[0]);
    attn_plan_init(m, p, s, &x, (double)m->sliding_window, f_win, &ap[1]);

    /* ---- forward ---- */
    aug_gb_add(g->fwd, &g->n_fwd, norm, AUG_CAT_COMPUTE, AUG_RC_LAYERNORM);
    int i_norm = g->n_fwd - 1;
    int ag1 = -1, rs1 = -1, ag2 = -1, rs2 = -1;
    if (x.sp)
        ag1 = aug_gb_tp_coll(g->fwd, &g->n_fwd, "sp_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    int i_qkv, i_proj;
    attn_block_fwd(m, p, s, &x, ap, &qkv, &rope, &proj, g, &i_qkv, &i_proj);
    rs1 = aug_gb_tp_coll(g->fwd, &g->n_fwd, n_out, c_out, &x, AUG_CAT_TP);
    aug_gb_add(g->fwd, &g->n_fwd, resid, AUG_CAT_COMPUTE, 0);
    int i_res = g->n_fwd - 1;
    aug_gb_add_same(g->fwd, &g->n_fwd, i_norm, AUG_CAT_COMPUTE);
    if (x.sp && mlp_sp_colls) {
        aug_gb_add_same(g->fwd, &g->n_fwd, ag1, AUG_CAT_TP);
        ag2 = g->n_fwd - 1;
        scale_counts(g->fwd, ag2, g->n_fwd, coll_share);
    }
    struct aug_mlp_idx mi = {-1, -1, -1, -1};
    int n0 = g->n_fwd;
    if (moe_layer) {
        aug_moe_layer_fwd(m, p, s, &x, g);
        scale_counts(g->fwd, n0, g->n_fwd, f_moe);
        aug_gb_tag(g->fwd, n0, g->n_fwd, AUG_RC_MOE);
    }
    n0 = g->n_fwd;
    if (f_dense > 0) {
        aug_gb_mlp(m, &x, g, x.T, (m->arch == AUG_ARCH_MOE ? fd : x.f) / x.t, 1, 0, &mi);
        scale_counts(g->fwd, n0, g->n_fwd, f_dense);
        aug_gb_tag(g->fwd, n0, g->n_fwd, AUG_RC_MLP);
    }
    if (mlp_sp_colls && rs1 >= 0) {
        aug_gb_add_same(g->fwd, &g->n_fwd, rs1, AUG_CAT_TP);
        rs2 = g->n_fwd - 1;
        scale_counts(g->fwd, rs2, g->n_fwd, coll_share);
    }
    aug_gb_add_same(g->fwd, &g->n_fwd, i_res, AUG_CAT_COMPUTE);
    if (ovl) {
        aug_gb_pair(g, g->fwd, i_qkv, ag1, AUG_OVL_RING, tpn);
        aug_gb_pair(g, g->fwd, i_proj, rs1, AUG_OVL_RING, tpn);
        if (!moe_layer) {
            aug_gb_pair(g, g->fwd, mi.up, ag2, AUG_OVL_RING, tpn);
            aug_gb_pair(g, g->fwd, mi.down, rs2, AUG_OVL_RING, tpn);
        }
    }

    /* ---- backward (reverse order) ---- */
    aug_gb_mem_bwd(g, &resid, "residual_bwd", AUG_CAT_COMPUTE);
    int b_res = g->n_bwd - 1;
    int bag1 = -1, brs1 = -1, bag2 = -1, brs2 = -1;
    if (x.sp && mlp_sp_colls) {
        bag1 = aug_gb_tp_coll(g->bwd, &g->n_bwd, "sp_all_gather_bwd", AUG_COLL_ALL_GATHER, &x,
                              AUG_CAT_TP);
        if (bag1 >= 0)
            scale_counts(g->bwd, bag1, g->n_bwd, coll_share);
    }
    n0 = g->n_bwd;
    if (f_dense > 0) {
        aug_gb_mlp_bwd(m, &x, g, x.T, (m->arch == AUG_ARCH_MOE ? fd : x.f) / x.t, 1, 0, &mi);
        scale_counts(g->bwd, n0, g->n_bwd, f_dense);
    }
    n0 = g->n_bwd;
    int shared_up_d = -1;
    if (moe_layer) {
        shared_up_d = aug_moe_layer_bwd(m, p, s, &x, g);
        scale_counts(g->bwd, n0, g->n_bwd, f_moe);
    }
    if (mlp_sp_colls) {
        brs1 = aug_gb_tp_coll(g->bwd, &g->n_bwd, n_out_b, c_out, &x, AUG_CAT_TP);
        if (brs1 >= 0)
            scale_counts(g->bwd, brs1, g->n_bwd, coll_share);
    }
    aug_gb_mem_bwd(g, &norm, "norm_bwd", AUG_CAT_COMPUTE);
    int b_norm = g->n_bwd - 1;
    aug_gb_add_same(g->bwd, &g->n_bwd, b_res, AUG_CAT_COMPUTE);
    if (x.sp) {
        if (bag1 >= 0) {
            aug_gb_add_same(g->bwd, &g->n_bwd, bag1, AUG_CAT_TP);
            bag2 = g->n_bwd - 1;
            g->bwd[bag2].op.count = 1.0;
        } else {
            bag2 = aug_gb_tp_coll(g->bwd, &g->n_bwd, "sp_all_gather_bwd", AUG_COLL_ALL_GATHER, &x,
                                  AUG_CAT_TP);
        }
    }
    int i_proj_d, i_qkv_d;
    attn_block_bwd(m, p, s, &x, ap, &qkv, &rope, &proj, g, &i_proj_d, &i_qkv_d);
    if (brs1 >= 0) {
        aug_gb_add_same(g->bwd, &g->n_bwd, brs1, AUG_CAT_TP);
        brs2 = g->n_bwd - 1;
        g->bwd[brs2].op.count = 1.0;
    } else {
        brs2 = aug_gb_tp_coll(g->bwd, &g->n_bwd, n_out_b, c_out, &x, AUG_CAT_TP);
    }
    aug_gb_add_same(g->bwd, &g->n_bwd, b_norm, AUG_CAT_COMPUTE);
    if (ovl) {
        if (!moe_layer) {
            aug_gb_pair(g, g->bwd, mi.down_dgrad, bag1, AUG_OVL_RING, tpn);
            aug_gb_pair(g, g->bwd, mi.up_dgrad, brs1, AUG_OVL_RING, tpn);
        }
        aug_gb_pair(g, g->bwd, i_proj_d, bag2, AUG_OVL_RING, tpn);
        aug_gb_pair(g, g->bwd, i_qkv_d, brs2, AUG_OVL_RING, tpn);
    }
    /* Without SP, Megatron issues a column-parallel linear's input-gradient all-reduce
     * asynchronously right after its data-gradient GEMM and computes the weight gradient
     * while it runs (LinearWithGradAccumulationAndAsyncCommunication.backward; the plan's
     * tp_async_allreduce): the MLP up projection's and the QKV projection's all-reduces
     * each pair with the weight-gradient GEMM that follows their data gradient. */
    if (p->tp_async_allreduce && !x.sp && !ovl) {
        async_dgrad_allreduce(g, mi.up_dgrad, brs1);
        if (!mla)
            async_dgrad_allreduce(g, i_qkv_d, brs2);
    }
    /* SP's re-gathers of the saved input shards: the QKV input (MLA gathers its input
     * outside its linears and keeps it whole) and the MLP input of the dense layers and
     * the shared experts, as often as the forward gathered it, beside their first data
     * gradient */
    if (x.sp && !mla)
        sp_regather(g, &x, i_qkv_d);
    if (x.sp && mlp_sp_colls && ag2 >= 0) {
        int r = sp_regather(g, &x, mi.up_dgrad >= 0 ? mi.up_dgrad : shared_up_d);
        if (r >= 0)
            scale_counts(g->bwd, r, r + 1, coll_share);
    }
    if (x.dt == AUG_DTYPE_FP8)
        aug_gb_fp8_recipe(g, 0, p->fp8_scaling);
}

/* A parallel block (GPT-J, PaLM sec. 2 "Parallel Layers", Falcon, MegaScale sec. 3.1):
 * y = x + Attn(LN(x)) + MLP(LN'(x)). Both branches read the same normalised input, so
 * with TP the attention output and MLP down projections are summed before one
 * all-reduce (or SP reduce-scatter), one SP all-gather serves both branches' inputs
 * (two with a norm per branch), one residual add closes the block; the backward
 * mirrors it: one all-gather of the output gradient, one reduction of the summed
 * input gradients. FLOPs are those of the sequential block. Dense layers only
 * (aug_model_finish refuses MoE). */
static void graph_layer_parallel(const struct aug_model *m, const struct aug_plan *p,
                                 const struct aug_system *s, const struct aug_dims *xp,
                                 double f_win, struct aug_graph *g) {
    g->n_fwd = g->n_bwd = g->n_groups = 0;
    struct aug_dims x = *xp;
    int two_norms = m->parallel_block == 2;
    const char *norm_kind = m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm";
    struct aug_op norm = aug_gb_act("norm", norm_kind, &x, 2.0 * x.Tsp * x.h * x.e,
                                    8.0 * x.Tsp * x.h);
    /* x + attention + MLP: three reads and one write */
    struct aug_op resid = aug_gb_act("residual", "elementwise", &x,
                                     x.Tsp * x.h * (4.0 * x.e + (x.dropout ? 2.0 : 0.0)),
                                     2.0 * x.Tsp * x.h);
    struct aug_op qkv = aug_op_gemm("qkv", x.dt, x.T, (x.a_t + 2.0 * x.kv_t) * x.d, x.h, 1);
    double rot = (x.a_t + x.kv_t) * x.d;
    struct aug_op rope = aug_gb_act("rope", "rope", &x, 2.0 * x.T * rot * x.e, 6.0 * x.T * rot);
    struct aug_op proj = aug_op_gemm("attn_out", x.dt, x.T, x.h, x.a_t * x.d, 1);
    int ovl = p->tp_overlap && p->tp > 1;
    enum aug_coll c_out = x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE;
    int tpn = (int)p->tp;
    struct attn_plan ap[2];
    attn_plan_init(m, p, s, &x, 0.0, 1.0 - f_win, &ap[0]);
    attn_plan_init(m, p, s, &x, (double)m->sliding_window, f_win, &ap[1]);

    /* ---- forward ---- */
    aug_gb_add(g->fwd, &g->n_fwd, norm, AUG_CAT_COMPUTE, AUG_RC_LAYERNORM);
    int i_norm = g->n_fwd - 1;
    if (two_norms)
        aug_gb_add_same(g->fwd, &g->n_fwd, i_norm, AUG_CAT_COMPUTE);
    int ag = -1, ag_mlp = -1;
    if (x.sp) {
        ag = aug_gb_tp_coll(g->fwd, &g->n_fwd, "sp_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
        if (two_norms && ag >= 0) {
            aug_gb_add_same(g->fwd, &g->n_fwd, ag, AUG_CAT_TP);
            ag_mlp = g->n_fwd - 1;
        }
    }
    int i_qkv, i_proj;
    attn_block_fwd(m, p, s, &x, ap, &qkv, &rope, &proj, g, &i_qkv, &i_proj);
    struct aug_mlp_idx mi = {-1, -1, -1, -1};
    int n_mlp = g->n_fwd;
    aug_gb_mlp(m, &x, g, x.T, x.f / x.t, 1, 0, &mi);
    aug_gb_tag(g->fwd, n_mlp, g->n_fwd, AUG_RC_MLP);
    int rs = aug_gb_tp_coll(g->fwd, &g->n_fwd, x.sp ? "sp_reduce_scatter" : "tp_all_reduce",
                            c_out, &x, AUG_CAT_TP);
    aug_gb_add(g->fwd, &g->n_fwd, resid, AUG_CAT_COMPUTE, 0);
    if (ovl) {
        aug_gb_pair(g, g->fwd, i_qkv, ag, AUG_OVL_RING, tpn);
        if (ag_mlp >= 0)
            aug_gb_pair(g, g->fwd, mi.up, ag_mlp, AUG_OVL_RING, tpn);
        aug_gb_pair(g, g->fwd, mi.down, rs, AUG_OVL_RING, tpn);
    }

    /* ---- backward ---- */
    aug_gb_mem_bwd(g, &resid, "residual_bwd", AUG_CAT_COMPUTE);
    int bag = -1;
    if (x.sp)
        bag = aug_gb_tp_coll(g->bwd, &g->n_bwd, "sp_all_gather_bwd", AUG_COLL_ALL_GATHER, &x,
                             AUG_CAT_TP);
    aug_gb_mlp_bwd(m, &x, g, x.T, x.f / x.t, 1, 0, &mi);
    int i_proj_d, i_qkv_d;
    attn_block_bwd(m, p, s, &x, ap, &qkv, &rope, &proj, g, &i_proj_d, &i_qkv_d);
    /* the two branches' input gradients, summed (one norm) or each through its own norm,
     * reduced once (SP: reduce-scatter per norm input); that one reduction follows both
     * branches' weight gradients, so tp_async_allreduce has nothing to hide it behind */
    int brs = aug_gb_tp_coll(g->bwd, &g->n_bwd,
                             x.sp ? "sp_reduce_scatter_bwd" : "tp_all_reduce_bwd", c_out, &x,
                             AUG_CAT_TP);
    if (two_norms && x.sp && brs >= 0)
        aug_gb_add_same(g->bwd, &g->n_bwd, brs, AUG_CAT_TP);
    aug_gb_mem_bwd(g, &norm, "norm_bwd", AUG_CAT_COMPUTE);
    if (two_norms)
        aug_gb_add_same(g->bwd, &g->n_bwd, g->n_bwd - 1, AUG_CAT_COMPUTE);
    if (ovl) {
        aug_gb_pair(g, g->bwd, mi.down_dgrad, bag, AUG_OVL_RING, tpn);
        aug_gb_pair(g, g->bwd, i_qkv_d, brs, AUG_OVL_RING, tpn);
    }
    /* SP's re-gathers of the saved input shard(s) for the weight gradients: one shared
     * input, or one per branch with two norms */
    if (x.sp) {
        sp_regather(g, &x, i_qkv_d);
        if (two_norms)
            sp_regather(g, &x, mi.up_dgrad);
    }
    if (x.dt == AUG_DTYPE_FP8)
        aug_gb_fp8_recipe(g, 0, p->fp8_scaling);
}

/* HBM bytes per vocabulary-parallel logit of the loss, forward and backward, for logits of
 * e bytes (the output layer writes them). Megatron-Core core_r0.12.0 upcasts 16-bit logits
 * to an fp32 copy (read e, write 4; nothing for fp32 logits) and keeps the fp32 softmax
 * for the backward:
 * - unfused (tensor_parallel/cross_entropy.py): the upcast, max (read 4), the in-place
 *   subtraction of the max (8), exp (8), sum (4), division by the sum (8); backward: the
 *   gradient scaled in place (8), cast back to the logits' dtype by autograd (4 + e);
 * - fused (fusions/fused_cross_entropy.py, three jit-fused passes): the upcast with the
 *   max, subtraction with exp and sum (8), division (8); backward: scale and cast in one
 *   pass (8 + e);
 * - te (Transformer Engine 2.2 pytorch/triton/cross_entropy.py): an online-softmax pass
 *   (e) and a pass writing the gradient over the logits in place (2e); backward: that
 *   gradient times the per-token loss gradient, in place (2e). */
static void ce_bytes(enum aug_cross_entropy ce, double e, double *fwd, double *bwd) {
    int half = e < 4.0;                 /* 16-bit logits: the upcast copies them */
    switch (ce) {
    case AUG_CE_UNFUSED:
        *fwd = (half ? e + 4.0 : 0.0) + 4.0 + 8.0 + 8.0 + 4.0 + 8.0;
        *bwd = 8.0 + (half ? 4.0 + e : 0.0);
        break;
    case AUG_CE_TE:
        *fwd = 3.0 * e;
        *bwd = 2.0 * e;
        break;
    default: /* the upcast pass reads fp32 logits once for the max */
        *fwd = (half ? e + 4.0 : 4.0) + 8.0 + 8.0;
        *bwd = 8.0 + (half ? e : 0.0);
        break;
    }
}

/* The dense gradient of the vocabulary-parallel embedding table, every micro-batch: the
 * backward of F.embedding (PyTorch embedding_dense_backward) fills a zeroed V/t x h
 * gradient in the weight's dtype (the rows it scatters are embedding_bwd), and the
 * framework adds it to the accumulated gradient, Megatron-Core's fp32 main_grad
 * (distributed_data_parallel.py _make_backward_post_hook, core_r0.12.0:
 * param.main_grad.add_(param.grad.data)) or a gradient of the weight's dtype: the zero
 * fill (e), then the accumulation reads both and writes one (e + 2 g bytes per element,
 * g the accumulated gradient's). The output layer's weight gradient needs no such pass:
 * its GEMM accumulates into the main gradient (gradient_accumulation_fusion). */
static struct aug_op embedding_grad(const struct aug_plan *p, const struct aug_dims *x) {
    double g = p->main_grads == AUG_GRADS_DTYPE ? x->e : 4.0;
    double elems = x->V / x->t * x->h;
    return aug_gb_act("embedding_grad", "elementwise", x, elems * (2.0 * x->e + 2.0 * g), elems);
}

static void graph_head(const struct aug_model *m, const struct aug_plan *p,
                       const struct aug_dims *xp, int last_stage, struct aug_graph *g) {
    struct aug_dims x = *xp;
    g->n_fwd = g->n_bwd = g->n_groups = 0;
    if (!last_stage) {
        /* embedding lookup (+ learned positions): read rows, write activations */
        struct aug_op emb = aug_gb_act("embedding", "embedding", &x,
                                   x.T * x.h * x.e * (m->pos == AUG_POS_LEARNED ? 3.0 : 2.0), 0.0);
        aug_gb_add(g->fwd, &g->n_fwd, emb, AUG_CAT_EMBEDDING, 0);
        /* vocabulary-parallel embedding: partial rows summed over TP */
        aug_gb_tp_coll(g->fwd, &g->n_fwd, x.sp ? "emb_reduce_scatter" : "emb_all_reduce",
                       x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
        aug_gb_mem_bwd(g, &emb, "embedding_bwd", AUG_CAT_EMBEDDING);
        aug_gb_add(g->bwd, &g->n_bwd, embedding_grad(p, &x), AUG_CAT_EMBEDDING, 0);
        return;
    }
    struct aug_op norm = aug_gb_act("final_norm", m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm",
                                &x, 2.0 * x.Tsp * x.h * x.e, 8.0 * x.Tsp * x.h);
    double logits = x.T * x.V / x.t;
    double ce_f, ce_b;
    ce_bytes(p->cross_entropy, x.e, &ce_f, &ce_b);
    struct aug_op ce = aug_gb_act("cross_entropy", "cross_entropy", &x, logits * ce_f,
                              5.0 * logits);
    aug_gb_add(g->fwd, &g->n_fwd, norm, AUG_CAT_EMBEDDING, 0);
    if (x.sp)
        aug_gb_tp_coll(g->fwd, &g->n_fwd, "head_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    struct aug_op head = aug_op_gemm("lm_head", aug_gb_non_te_dtype(&x), x.T, x.V / x.t, x.h, 1);
    struct aug_mmf_linear hb;
    int ternary_head = m->arch == AUG_ARCH_MATMULFREE;
    if (ternary_head) /* MatMul-free LMs end in a BitLinear head (mmfreelm HGRNBitForCausalLM) */
        aug_mmf_linear_fwd(p, &x, g, "lm_head_norm_quant", "lm_head", x.T, x.V / x.t, x.h,
                           AUG_CAT_EMBEDDING, &hb);
    else
        aug_gb_add(g->fwd, &g->n_fwd, head, AUG_CAT_EMBEDDING, 0);
    aug_gb_add(g->fwd, &g->n_fwd, ce, AUG_CAT_EMBEDDING, 0);
    if (x.tp_ranks > 1) /* vocab-parallel softmax: max, sum and target logit per token */
        aug_gb_add(g->fwd, &g->n_fwd,
                   aug_op_collective("ce_all_reduce", AUG_COLL_ALL_REDUCE, 3.0 * x.T * 4.0,
                                     x.tp_ranks, x.tp_domain), AUG_CAT_TP, 0);
    struct aug_op ceb = aug_gb_act("cross_entropy_bwd", "cross_entropy", &x, logits * ce_b, logits);
    aug_gb_add(g->bwd, &g->n_bwd, ceb, AUG_CAT_EMBEDDING, 0);
    if (ternary_head)
        aug_mmf_linear_bwd(p, &x, g, &hb, "lm_head_dgrad", "lm_head_wgrad", "lm_head_norm_quant_bwd",
                           AUG_CAT_EMBEDDING);
    else
        aug_gb_gemm_bwd(g, &head, "lm_head_dgrad", "lm_head_wgrad", AUG_CAT_EMBEDDING, 1);
    aug_gb_tp_coll(g->bwd, &g->n_bwd, x.sp ? "head_reduce_scatter_bwd" : "head_all_reduce_bwd",
                   x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE, &x, AUG_CAT_TP);
    aug_gb_mem_bwd(g, &norm, "final_norm_bwd", AUG_CAT_EMBEDDING);
}

