/* SPDX-License-Identifier: Apache-2.0 */
/* train.c - one training iteration: times the layer graph with the hybrid op model,
 * assembles the pipeline schedule, data-parallel / ZeRO / FSDP traffic, the optimizer
 * step, and reports time, breakdown, MFU/HFU, memory and provenance.
 *
 * Pipeline (Narayanan et al. SC21 sec. 2.2; Zheng et al. OSDI 2022 eq. 2): with m
 * micro-batches per iteration, p stages and v interleaved chunks per rank, the busy time
 * is m * t_mb, t_mb the forward + backward time of one micro-batch on the slowest stage,
 * and the bubble the fill and drain through the other stages, (sum of the stage times -
 * t_mb) / v: (p - 1) / v * t_mb when the stages are equal. Stage-to-stage activations are
 * sent once forward and once backward per chunk (v times more often when interleaved).
 * Data parallelism: gradients are all-reduced in buckets as the last micro-batch's
 * backward produces them, so only what outlasts that backward is exposed (with
 * dp_overlap); ZeRO-1/2 reduce-scatter the gradients the same way and all-gather the
 * updated weights after the optimizer step; ZeRO-3 and FSDP gather every layer's weights
 * in forward and backward and reduce-scatter its gradients per micro-batch, 1.5x the
 * all-reduce volume (Rajbhandari et al. 2020 sec. 7), prefetched behind the previous
 * layer's compute (DeepSpeed's 2021 ZeRO-3 gathered tensor by tensor after the compute
 * instead: zero3_serial.h). Dense gradients are reduced over dp * cp ranks (context-parallel
 * ranks hold the same weights), routed experts' over their expert data-parallel group.
 *
 * Overlap is a resource model (overlap.h): a collective hidden behind compute still
 * slows that compute by plan->comm_slowdown while both run (NCCL kernels take SMs), and
 * no overlapped pair is ever faster than its slower resource. Overlap groups of the layer
 * graph (ring attention, chunked TP collectives), gradient buckets (a trailing pipeline
 * over the last micro-batch's backward), FSDP prefetch (each layer's gather beside the
 * previous layer's compute) and, with plan->pp_overlap, steady-state pipeline sends
 * (beside the next chunk's compute; the fill and drain stay exposed) all go through it. */
#include <math.h>
#include <string.h>

#include "augur/framework.h"
#include "augur/status.h"
#include "augur/train.h"
#include "augur/units.h"
#include "hw/efficiency.h"
#include "model/layer_graph.h"
#include "host_dispatch.h"
#include "overlap.h"
#include "train/ep_overlap.h"
#include "model/memory.h"
#include "hw/topology.h"
#include "train/train_check.h"
#include "train/train_trace.h"
#include "train/zero3_serial.h"

/* Framework floor of one iteration (data-loader hand-off, loss logging, grad-norm and
 * scaler checks): a documented default. */
#define AUG_TRAIN_ITER_OVERHEAD_S 0.0

struct acc {
    double cat[AUG_CAT_COUNT];
    double src[AUG_SOURCE_COUNT];
    double total;
};

static void acc_scale_into(struct acc *dst, const struct acc *a, double k) {
    for (int i = 0; i < AUG_CAT_COUNT; i++)
        dst->cat[i] += a->cat[i] * k;
    for (int i = 0; i < AUG_SOURCE_COUNT; i++)
        dst->src[i] += a->src[i] * k;
    dst->total += a->total * k;
}

/* Host issue cost per kernel kind (0 everywhere: no host timeline). */
struct host_costs {
    double issue[AUG_OP_KIND_COUNT];
};

/* The framework's costs (fitted on x86 DGX hosts) at the speed of the system's host CPU. */
static void host_costs(const struct aug_plan *p, const struct aug_system *s,
                       const struct aug_train_options *opt, int roofline, struct host_costs *h) {
    double cpu = aug_system_host_issue_scale(s);
    for (int k = 0; k < AUG_OP_KIND_COUNT; k++)
        h->issue[k] = roofline ? 0.0
                               : cpu * aug_framework_issue_s(p, opt ? opt->host : NULL,
                                                             (enum aug_op_kind)k);
}

/* One overlap group while a list is timed. */
struct grp {
    int id, n;
    enum aug_ovl_kind kind;
    double C, M;             /* compute and communication seconds alone */
    enum aug_cat comm_cat;
    enum aug_source comm_src;
};
#define MAX_GROUPS 24

/* Time every op of a list (with `only`, just the ops of those recompute modules).
 * Grouped ops: compute counts in full, the communication only by what the overlap of
 * the group adds to the compute (overlap.h), with slowdown s; of what a group of EP
 * collectives would hide, only the share ep_realized. The host issues the list
 * kernel by kernel (host_dispatch.h) starting with the GPU, and waits for the GPU before
 * an op flagged host_sync (a device-to-host read); a grouped collective runs on
 * its own stream (it costs the host its issue, the compute stream nothing); what the GPU
 * waits for the host is host-bound time. With `out` (or NULL) each op's time alone and
 * its seconds on the device: a grouped collective's share of its group's exposed time, 0
 * for an op left out; the seconds add up to the list's time less the host-bound part. */
static int time_list(const struct aug_op_ctx *ctx, const struct aug_graph_op *ops, int n,
                     unsigned only, double s, double ep_realized, const struct host_costs *hc,
                     struct acc *a, struct aug_list_times *out) {
    double *op_s = out ? out->sec : NULL;
    struct aug_host_tl tl;
    aug_host_tl_init(&tl);
    struct grp g[MAX_GROUPS];
    int ng = 0;
    double once[AUG_GRAPH_MAX_OPS];        /* one execution of each op timed so far */
    enum aug_source from[AUG_GRAPH_MAX_OPS];
    for (int i = 0; i < n; i++) {
        if (op_s)
            op_s[i] = 0.0;
        if (only && !(ops[i].rc & only))
            continue;
        struct aug_op_time t;
        int same = ops[i].same_as;
        if (same >= 0 && same < i && (!only || (ops[same].rc & only))) {
            t.time_s = once[same]; /* an identical op timed before */
            t.source = from[same];
        } else {
            int st = aug_op_time(ctx, &ops[i].op, &t);
            if (st != AUG_OK)
                return st;
        }
        once[i] = t.time_s;
        from[i] = t.source;
        if (out) {
            out->once[i] = t.time_s;
            out->src[i] = t.source;
        }
        double sec = t.time_s * ops[i].op.count;
        if (op_s)
            op_s[i] = sec;
        int comm = ops[i].op.kind == AUG_OP_COLLECTIVE;
        if (ops[i].host_sync)
            aug_host_tl_sync(&tl);
        aug_host_tl_kernels(&tl, ops[i].op.count, comm && ops[i].group > 0 ? 0.0 : t.time_s,
                            hc->issue[ops[i].op.kind]);
        if (ops[i].group > 0) {
            int k = 0;
            while (k < ng && g[k].id != ops[i].group)
                k++;
            if (k == ng && ng < MAX_GROUPS) {
                memset(&g[k], 0, sizeof g[k]);
                g[k].id = ops[i].group;
                g[k].n = ops[i].ovl_n;
                g[k].kind = ops[i].ovl;
                ng++;
            }
            if (k < ng && comm) {
                g[k].M += sec;
                g[k].comm_cat = ops[i].cat;
                g[k].comm_src = t.source;
                continue;
            }
            if (k < ng)
                g[k].C += sec;
        }
        a->cat[ops[i].cat] += sec;
        a->src[t.source] += sec;
        a->total += sec;
    }
    for (int k = 0; k < ng; k++) {
        if (!(g[k].M > 0))
            continue;
        double both = g[k].kind == AUG_OVL_TRAIL  ? aug_ovl_trail(g[k].C, g[k].M, g[k].n, s)
                      : g[k].kind == AUG_OVL_PAIR ? aug_ovl_pair(g[k].C, g[k].M, s)
                                                  : aug_ovl_ring(g[k].C, g[k].M, g[k].n, s);
        /* an EP collective beside compute is Megatron-Core's shared-expert overlap, a
         * side-stream schedule like the merged-layer one: a run shows ep_realized of what
         * it hides (plan moe_overlap_realized) */
        if (g[k].kind == AUG_OVL_PAIR && g[k].comm_cat == AUG_CAT_EP)
            both = g[k].C + g[k].M - ep_realized * (g[k].C + g[k].M - both);
        double exposed = both - g[k].C;
        a->cat[g[k].comm_cat] += exposed;
        a->src[g[k].comm_src] += exposed;
        a->total += exposed;
        for (int i = 0; op_s && i < n; i++) /* the group's collectives share what shows */
            if (ops[i].group == g[k].id && ops[i].op.kind == AUG_OP_COLLECTIVE)
                op_s[i] *= exposed / g[k].M;
    }
    double idle = aug_host_tl_idle(&tl);
    a->cat[AUG_CAT_HOST] += idle;
    a->src[AUG_SOURCE_FALLBACK] += idle;
    a->total += idle;
    return AUG_OK;
}

/* Time of a single collective, and where it came from. */
static double coll(const struct aug_op_ctx *ctx, enum aug_coll c, double size, long ranks,
                   int per_domain, enum aug_source *src, int *st) {
    *src = AUG_SOURCE_FALLBACK;
    if (ranks <= 1 || size <= 0)
        return 0.0;
    struct aug_op op = aug_op_collective("coll", c, size, (int)ranks, per_domain);
    struct aug_op_time t;
    int s = aug_op_time(ctx, &op, &t);
    if (s != AUG_OK) {
        *st = s;
        return 0.0;
    }
    *src = t.source;
    return t.time_s;
}

/* Megatron-Core's EP all-to-all overlap (ep_overlap.h): in the steady 1F1B phase a layer's
 * forward and backward run merged, the all-to-alls of one beside the compute of the other;
 * what that hides comes off the layer's exposed EP time (the warm-up and cool-down passes
 * run unmerged). The recomputed forward runs before the backward, on the compute stream. */
static void ep_merge_hide(const struct aug_graph *layer, const double *fwd_s,
                          const double *bwd_s, const struct acc *rec, const struct aug_plan *p,
                          double slow, struct acc *a) {
    struct aug_ep_nodes nd;
    memset(&nd, 0, sizeof nd);
    for (int i = 0; i < layer->n_fwd; i++)
        nd.f[layer->fwd[i].ep_node] += fwd_s[i];
    for (int i = 0; i < layer->n_bwd; i++)
        nd.b[layer->bwd[i].ep_node] += bwd_s[i];
    nd.b[AUG_EP_NODE_PRE] += rec->total - rec->cat[AUG_CAT_HOST];
    double serial = 0.0;
    for (int k = 0; k < AUG_EP_NODE_COUNT; k++)
        serial += nd.f[k] + nd.b[k];
    /* the share of the schedule's overlap a run shows (plan moe_overlap_realized) */
    double hidden = (serial - aug_ep_overlap_layer_s(&nd, slow)) * p->moe_overlap_realized *
                    aug_ep_overlap_steady_share(aug_plan_microbatches(p), p->pp, p->interleave);
    if (hidden > a->cat[AUG_CAT_EP])
        hidden = a->cat[AUG_CAT_EP];
    if (!(hidden > 0) || !(a->total > 0))
        return;
    for (int k = 0; k < AUG_SOURCE_COUNT; k++) /* every source gives its share */
        a->src[k] -= hidden * a->src[k] / a->total;
    a->cat[AUG_CAT_EP] -= hidden;
    a->total -= hidden;
}

/* One iteration; with `tr`, the trace of its per-op report (train_trace.h) too. */
static int train_run(const struct aug_model *m, const struct aug_system *s,
                     const struct aug_plan *p, const struct aug_train_options *opt,
                     struct aug_train_result *out, struct aug_train_trace *tr) {
    memset(out, 0, sizeof *out);
    struct aug_op_ctx ctx = {s, opt ? opt->kdb : NULL, opt ? opt->pure_roofline : 0};
    /* the roofline is an upper bound: overlapped collectives cost the compute nothing */
    double slow = ctx.pure_roofline ? 0.0 : p->comm_slowdown;
    struct aug_graph own[3];
    struct aug_graph *layer = tr ? &tr->layer : &own[0], *first = tr ? &tr->first : &own[1],
                     *last = tr ? &tr->last : &own[2];
    aug_graph_all(m, p, s, layer, first, last);

    struct host_costs hc;
    host_costs(p, s, opt, ctx.pure_roofline, &hc);

    struct acc fwd = {0}, bwd = {0}, rec = {0}, hf = {0}, hl = {0};
    int st;
    /* Megatron-Core's EP all-to-all overlap times the layer's sub-modules (ep_overlap.h) */
    int ep_merge = p->moe_overlap == AUG_MOE_OVERLAP_BATCH && p->ep > 1 &&
                   m->arch == AUG_ARCH_MOE;
    struct aug_list_times own_f, own_b;
    struct aug_list_times *fwd_t = tr ? &tr->fwd : ep_merge ? &own_f : NULL;
    struct aug_list_times *bwd_t = tr ? &tr->bwd : ep_merge ? &own_b : NULL;
    double realized = p->moe_overlap_realized;
    if ((st = time_list(&ctx, layer->fwd, layer->n_fwd, 0, slow, realized, &hc, &fwd, fwd_t)) !=
            AUG_OK ||
        (st = time_list(&ctx, layer->bwd, layer->n_bwd, 0, slow, realized, &hc, &bwd, bwd_t)) !=
            AUG_OK)
        return st;
    /* selective recomputation repeats the forward of the plan's recompute modules: by
     * default the core attention (Korthikanti et al. 2022 sec. 4.2; Megatron-Core
     * checkpoints core_attention, fused or not), or what recompute_modules names */
    double full_share = aug_plan_full_recompute_share(p, m); /* 0 unless full */
    unsigned rc = aug_plan_rc_modules(p);
    if (tr) {
        memset(&tr->rec, 0, sizeof tr->rec);
        tr->recomputed = p->recompute == AUG_RECOMPUTE_FULL        ? ~0u
                         : p->recompute == AUG_RECOMPUTE_SELECTIVE ? rc
                                                                   : 0u;
    }
    if (p->recompute == AUG_RECOMPUTE_FULL) { /* every layer, or the block method's share */
        acc_scale_into(&rec, &fwd, full_share);
        if (tr) {
            tr->rec = tr->fwd;
            for (int i = 0; i < layer->n_fwd; i++)
                tr->rec.sec[i] *= full_share;
        }
    } else if (p->recompute == AUG_RECOMPUTE_SELECTIVE &&
               (st = time_list(&ctx, layer->fwd, layer->n_fwd, rc, slow, realized, &hc, &rec,
                               tr ? &tr->rec : NULL)) != AUG_OK) {
        return st;
    }
    for (int i = 0; i < 2; i++) {
        struct aug_graph *g = i ? last : first;
        struct acc *a = i ? &hl : &hf;
        struct aug_list_times *fs = !tr ? NULL : i ? &tr->last_fwd : &tr->first_fwd;
        struct aug_list_times *bs = !tr ? NULL : i ? &tr->last_bwd : &tr->first_bwd;
        if ((st = time_list(&ctx, g->fwd, g->n_fwd, 0, slow, realized, &hc, a, fs)) != AUG_OK ||
            (st = time_list(&ctx, g->bwd, g->n_bwd, 0, slow, realized, &hc, a, bs)) != AUG_OK)
            return st;
    }

    /* one micro-batch on the first, a middle and the last stage: the first carries the
     * embedding, the last the head and loss; with embedding and loss slots in the split
     * both hold a layer fewer than a middle stage (aug_plan_stage_layers_at) */
    double L_stage = (double)aug_plan_stage_layers(p, m);
    double L_first = (double)aug_plan_stage_layers_at(p, m, 0);
    double L_last = (double)aug_plan_stage_layers_at(p, m, p->pp - 1);
    struct acc layer_mb = {0};
    acc_scale_into(&layer_mb, &fwd, 1.0);
    acc_scale_into(&layer_mb, &rec, 1.0);
    acc_scale_into(&layer_mb, &bwd, 1.0);
    double layer_unmerged = layer_mb.total;
    if (ep_merge)
        ep_merge_hide(layer, fwd_t->sec, bwd_t->sec, &rec, p, slow, &layer_mb);
    struct acc stage_first = {0}, stage_last = {0}, stage_mid = {0};
    acc_scale_into(&stage_first, &layer_mb, L_first);
    acc_scale_into(&stage_last, &layer_mb, L_last);
    acc_scale_into(&stage_mid, &layer_mb, L_stage);
    acc_scale_into(&stage_first, &hf, 1.0);
    if (p->pp == 1)
        acc_scale_into(&stage_first, &hl, 1.0);
    else
        acc_scale_into(&stage_last, &hl, 1.0);
    const struct acc *mb = stage_first.total >= stage_last.total ? &stage_first : &stage_last;
    if (p->pp > 2 && stage_mid.total > mb->total)
        mb = &stage_mid;
    double L_mb = mb == &stage_first ? L_first : mb == &stage_last ? L_last : L_stage;
    double t_mb = mb->total;
    if (tr) {
        tr->layers = L_mb;
        tr->with_first = mb == &stage_first;
        tr->with_last = mb == &stage_last || p->pp == 1;
        tr->host_s = mb->cat[AUG_CAT_HOST];
        tr->ep_hidden_s = (layer_unmerged - layer_mb.total) * L_mb;
    }

    long nmb = aug_plan_microbatches(p);
    double v = (double)p->interleave, pp = (double)p->pp;
    double busy = (double)nmb * t_mb;
    /* The fill and drain (Zheng et al., "Alpa", OSDI 2022, sec. 5.1 eq. 2): S stages with
     * micro-batch times t_i run B micro-batches in sum t_i + (B - 1) max t_j; the slowest
     * stage paces the steady state and the fill and drain pass through every other stage
     * once. Interleaving cuts each stage's pass into v chunks (Narayanan et al. SC21 sec.
     * 2.2.2), so the bubble is (sum t_i - max t_j) / v: (p - 1) t / v for equal stages,
     * less where the embedding or the head and loss make one stage heavier. */
    double stages_sum = stage_first.total + stage_last.total + (pp - 2.0) * stage_mid.total;
    double bubble = pp > 1 ? fmax(stages_sum - t_mb, 0.0) / v : 0.0;

    struct aug_train_breakdown *bd = &out->breakdown;
    struct acc total = {0};
    acc_scale_into(&total, mb, (double)nmb + (t_mb > 0 ? bubble / t_mb : 0.0));
    /* recomputation is reported on its own; its share comes out of compute/attention/TP */
    double scale_busy = (double)nmb;
    bd->compute_s = (mb->cat[AUG_CAT_COMPUTE] - L_mb * rec.cat[AUG_CAT_COMPUTE]) * scale_busy;
    bd->attention_s = (mb->cat[AUG_CAT_ATTENTION] - L_mb * rec.cat[AUG_CAT_ATTENTION]) * scale_busy;
    bd->recompute_s = L_mb * (rec.cat[AUG_CAT_COMPUTE] + rec.cat[AUG_CAT_ATTENTION]) * scale_busy;
    bd->embedding_s = mb->cat[AUG_CAT_EMBEDDING] * scale_busy;
    bd->tp_comm_s = mb->cat[AUG_CAT_TP] * scale_busy;
    bd->cp_comm_s = mb->cat[AUG_CAT_CP] * scale_busy;
    bd->ep_comm_s = mb->cat[AUG_CAT_EP] * scale_busy;
    bd->pipeline_bubble_s = bubble;
    (void)busy;

    double e = aug_train_act_bytes(p);
    double srcs[AUG_SOURCE_COUNT] = {0};
    st = AUG_OK;

    /* ---- pipeline point-to-point ---- */
    enum aug_source src;
    if (p->pp > 1) {
        double full = (double)p->micro_batch * (double)(p->seq / p->cp) * (double)m->hidden * e;
        /* with SP each TP rank holds s/t of the activation and sends it; without SP,
         * Megatron-LM's scatter/gather (Narayanan et al. SC21 sec. 4.1) sends 1/t of it
         * per rank and all-gathers it over TP (NVLink) on the receiving stage */
        int scatter = p->pp_scatter && !p->sp && p->tp > 1;
        double act = full / (p->sp || scatter ? (double)p->tp : 1.0);
        /* the pipeline runs at the pace of its slowest boundary: once the stages span
         * more than one NVLink domain, some send crosses the network */
        long stride = p->tp * p->cp * p->dp;
        int per_domain = aug_ranks_per_domain(s, p->pp, stride) >= p->pp ? 2 : 1;
        double one = coll(&ctx, AUG_COLL_SEND_RECV, act, 2, per_domain, &src, &st);
        if (scatter) {
            enum aug_source s3;
            one += coll(&ctx, AUG_COLL_ALL_GATHER, full, p->tp,
                        aug_ranks_per_domain(s, p->tp, 1), &s3, &st);
        }
        double t;
        if (p->pp_overlap) {
            /* steady state: each send runs beside the next chunk's forward or backward;
             * the pipeline fill and drain (2 v (p - 1) sends) wait for theirs */
            double chunk = t_mb / (2.0 * v);
            double hidden = 2.0 * v * (double)nmb;
            t = 2.0 * v * (pp - 1.0) * one + hidden * (aug_ovl_pair(chunk, one, slow) - chunk);
        } else {
            t = 2.0 * v * ((double)nmb + pp - 1.0) * one;
        }
        srcs[src] += t;
        /* tied embeddings: first and last stage all-reduce the embedding gradient */
        if (m->tied_embeddings) {
            double te = coll(&ctx, AUG_COLL_ALL_REDUCE,
                             (double)m->vocab * (double)m->hidden / (double)p->tp * e, 2,
                             per_domain, &src, &st);
            srcs[src] += te;
            t += te;
        }
        bd->pp_comm_s = t;
    }

    /* ---- data parallelism, ZeRO, FSDP ---- */
    /* the stage holding the most parameters (first, last, or with embedding and loss
     * slots a middle one) reduces the most gradients */
    double layer_experts = aug_train_layer_expert_params_per_gpu(m, p);
    double stage_params = 0.0, expert_params = 0.0, stage_linear = 0.0;
    long stages[3] = {0, p->pp - 1, p->pp > 2 ? 1 : 0};
    for (int i = 0; i < 3; i++) {
        double sp = aug_train_stage_params_per_gpu(m, p, stages[i]);
        if (sp > stage_params) {
            stage_params = sp;
            expert_params = aug_train_stage_expert_params_per_gpu(m, p, stages[i]);
            stage_linear = aug_train_stage_linear_params_per_gpu(m, p, stages[i]);
        }
    }
    double dense_params = stage_params - expert_params;
    double layer_dense = aug_train_layer_params_per_gpu(m, p) - layer_experts;
    /* fp32 main gradients are reduced in fp32 (Megatron-Core DDP grad_reduce_in_fp32) */
    double wbytes = e, gbytes = p->main_grads == AUG_GRADS_FP32 ? 4.0 : e;
    /* fp8 parameters are gathered in fp8 (Megatron-Core fp8_param_gather: the distributed
     * optimizer's and FSDP's all-gathers move the fp8 weights); the embedding, output layer,
     * norms and router stay 16-bit (model/memory.c, fp8_linear_bytes) */
    double lin_saved = p->dtype == AUG_DTYPE_FP8 && p->fp8_params ? wbytes - 1.0 : 0.0;
    double dense_gather = dense_params * wbytes - (stage_linear - expert_params) * lin_saved;
    double expert_gather = expert_params * (wbytes - lin_saved);
    double layer_dense_gather =
        layer_dense * wbytes - (aug_train_layer_linear_params_per_gpu(m, p) - layer_experts) *
                                   lin_saved;
    double layer_expert_gather = layer_experts * (wbytes - lin_saved);
    long dp = p->dp * p->cp; /* ranks holding the same dense weights */
    long edp = aug_plan_edp(p);
    int dp_domain = aug_ranks_per_domain(s, dp, p->tp);
    long etp = aug_plan_etp(p);
    int edp_domain = aug_ranks_per_domain(s, edp, p->ep_outer ? etp : etp * p->ep);
    double bwd_last_mb = L_stage * bwd.total;
    double fwd_first_mb = L_stage * fwd.total;
    /* gradient buckets: one per layer, or the framework's bucket size in parameters */
    double buckets = p->bucket_params > 0 ? fmax(ceil(stage_params / p->bucket_params), 1.0)
                                          : fmax(L_stage, 1.0);
    int zero = p->fsdp != AUG_FSDP_NONE ? 3 : p->zero;
    long shard = aug_train_dense_shard_ranks(p, s);
    long eshard = aug_train_expert_shard_ranks(p, s);
    int has_experts = expert_params > 0 && edp > 1;
    if ((dp > 1 || has_experts) && zero <= 2) {
        /* ZeRO-1 through DeepSpeed's BF16_Optimizer all-reduces (plan.h, grad_reduce) */
        enum aug_coll red = zero == 0 || (zero == 1 && p->grad_reduce == AUG_GRAD_ALL_REDUCE)
                                ? AUG_COLL_ALL_REDUCE
                                : AUG_COLL_REDUCE_SCATTER;
        enum aug_source s2 = AUG_SOURCE_FALLBACK;
        double t_grad = coll(&ctx, red, dense_params * gbytes, dp, dp_domain, &src, &st);
        if (has_experts)
            t_grad += coll(&ctx, red, expert_params * gbytes, edp, edp_domain, &s2, &st);
        /* buckets reduce as the last micro-batch's backward produces them (the last one
         * can never overlap) */
        double exposed = p->dp_overlap ? aug_ovl_trail(bwd_last_mb, t_grad, buckets, slow) -
                                             bwd_last_mb
                                       : t_grad;
        srcs[src] += exposed;
        double t_ag = 0.0;
        if (zero >= 1) {
            t_ag = coll(&ctx, AUG_COLL_ALL_GATHER, dense_gather, dp, dp_domain, &src, &st);
            if (has_experts)
                t_ag += coll(&ctx, AUG_COLL_ALL_GATHER, expert_gather, edp, edp_domain, &s2,
                             &st);
            /* Megatron-Core's overlap_param_gather: each bucket's all-gather is issued
             * ahead of the next iteration's first forward, which waits only for the
             * buckets it reaches (the first one is never hidden) */
            if (p->param_gather_overlap)
                t_ag = aug_ovl_trail(fwd_first_mb, t_ag, buckets, slow) - fwd_first_mb;
            srcs[src] += t_ag;
        }
        bd->dp_comm_s = exposed + t_ag;
    } else if (dp > 1 && p->zero3_gather == AUG_ZERO3_SERIAL) {
        /* DeepSpeed's 2021 ZeRO-3: tensor by tensor, after the compute (zero3_serial.h) */
        double per_mb;
        st = aug_zero3_serial_s(&ctx, m, p, layer, L_stage, full_share, shard, dp_domain,
                                wbytes - lin_saved, gbytes,
                                opt ? opt->zero3_serial_rate : 0.0, &per_mb, &src);
        srcs[src] += (double)nmb * per_mb;
        bd->dp_comm_s = (double)nmb * per_mb;
    } else if (dp > 1 || has_experts) {
        int shard_domain = p->fsdp == AUG_FSDP_HYBRID ? (int)shard : dp_domain;
        int eshard_domain = p->fsdp == AUG_FSDP_HYBRID ? (int)eshard : edp_domain;
        double w = (double)nmb * L_stage;
        double ag = coll(&ctx, AUG_COLL_ALL_GATHER, layer_dense_gather, shard, shard_domain,
                         &src, &st);
        double rs = coll(&ctx, AUG_COLL_REDUCE_SCATTER, layer_dense * gbytes, shard, shard_domain,
                         &src, &st);
        if (layer_experts > 0) {
            enum aug_source s2;
            ag += coll(&ctx, AUG_COLL_ALL_GATHER, layer_expert_gather, eshard, eshard_domain,
                       &s2, &st);
            rs += coll(&ctx, AUG_COLL_REDUCE_SCATTER, layer_experts * gbytes, eshard,
                       eshard_domain, &s2, &st);
        }
        /* prefetch: each layer's gather runs beside the previous layer's compute (and the
         * backward's gather plus gradient reduce-scatter beside its backward) */
        double exp_f = aug_ovl_pair(fwd.total, ag, slow) - fwd.total;
        double exp_b = aug_ovl_pair(bwd.total, ag + rs, slow) - bwd.total;
        double exposed = w * (exp_f + exp_b) + ag; /* the first gather is never hidden */
        srcs[src] += exposed;
        bd->dp_comm_s = exposed;
        if (shard < dp) {
            /* hybrid sharding: replicas across nodes all-reduce their gradient shards */
            double t = coll(&ctx, AUG_COLL_ALL_REDUCE, stage_params * gbytes / (double)shard,
                            dp / shard, 1, &src, &st);
            double ex = p->dp_overlap ? aug_ovl_trail(bwd_last_mb, t, buckets, slow) - bwd_last_mb
                                      : t;
            srcs[src] += ex;
            bd->dp_comm_s += ex;
        }
    }
    if (st != AUG_OK)
        return st;

    /* ---- optimizer: fused Adam streams fp32 master weights, momentum, variance and
     * gradients in (16 B), the updated master and moments (12 B) and 16-bit weights out ---- */
    double opt_params = zero >= 1 ? dense_params / (double)shard + expert_params / (double)eshard
                                  : stage_params;
    struct aug_op adam = aug_op_memory("optimizer", "optimizer", p->dtype,
                                       opt_params * (16.0 + 12.0 + e), opt_params * 12.0);
    struct aug_op_time at;
    if ((st = aug_op_time(&ctx, &adam, &at)) != AUG_OK)
        return st;
    bd->optimizer_s = at.time_s;
    srcs[at.source] += at.time_s;
    bd->overhead_s = AUG_TRAIN_ITER_OVERHEAD_S + mb->cat[AUG_CAT_HOST] * scale_busy;
    srcs[AUG_SOURCE_FALLBACK] += AUG_TRAIN_ITER_OVERHEAD_S; /* host time: in total.src */

    /* ---- totals ---- */
    /* the host-bound idle time is part of every micro-batch (busy) and reported in
     * overhead_s: only the per-iteration floor is added on top */
    out->step_time_s = busy + bubble + bd->pp_comm_s + bd->dp_comm_s + bd->optimizer_s +
                       AUG_TRAIN_ITER_OVERHEAD_S;
    double tokens = (double)p->global_batch * (double)p->seq;
    out->tokens_per_s = tokens / out->step_time_s;
    /* model FLOPs of the tokens processed: what a capacity factor drops is not work done,
     * and causal attention counts the pairs it needs (model_flops.c), so MFU <= HFU <= 1 */
    double fwd_flops = aug_model_fwd_flops_processed(m, p, (double)p->seq) * (double)p->global_batch;
    out->model_flops = 3.0 * fwd_flops;
    double rec_flops = 0.0, rec_graph = 0.0;
    if (p->recompute == AUG_RECOMPUTE_FULL) {
        rec_flops = aug_layers_fwd_flops_processed(m, p, (double)p->seq) * full_share;
    } else if (p->recompute == AUG_RECOMPUTE_SELECTIVE) {
        if (rc & AUG_RC_CORE_ATTN)
            rec_flops = aug_attn_core_fwd_flops_per_seq(m, (double)p->seq);
        /* the other modules' forward FLOPs as the mean layer's graph runs them on one GPU,
         * summed over the GPUs of a stage and the layers (replicated work included: the
         * hardware does it) */
        for (int i = 0; i < layer->n_fwd; i++)
            if (layer->fwd[i].rc & rc & ~(unsigned)AUG_RC_CORE_ATTN)
                rec_graph += layer->fwd[i].op.flops * layer->fwd[i].op.count;
        rec_graph *= (double)nmb * (double)m->layers * (double)p->gpus / (double)p->pp;
    }
    out->hardware_flops = out->model_flops + rec_flops * (double)p->global_batch + rec_graph;
    double peak = s->gpu.peak_tflops[p->dtype] * 1e12 * (double)p->gpus;
    out->mfu = out->model_flops / (out->step_time_s * peak);
    out->hfu = out->hardware_flops / (out->step_time_s * peak);
    out->params = aug_model_params(m);
    out->microbatches = nmb;
    out->bubble_fraction = busy > 0 ? bubble / busy : 0.0;
    out->dp_crosses_network = dp > 1 && dp_domain < dp;
    out->tp_crosses_network = p->tp > (s->nvlink_domain > 0 ? s->nvlink_domain : s->gpus_per_node);

    for (int i = 0; i < AUG_SOURCE_COUNT; i++)
        srcs[i] += total.src[i];
    double sum = srcs[0] + srcs[1] + srcs[2];
    if (sum > 0) {
        out->provenance.calibrated = srcs[AUG_SOURCE_CURVE] / sum;
        out->provenance.fallback = srcs[AUG_SOURCE_FALLBACK] / sum;
        out->provenance.roofline = srcs[AUG_SOURCE_ROOFLINE] / sum;
    }

    aug_train_memory(m, s, p, &out->memory);
    out->memory_capacity_gib = s->gpu.hbm_gib;
    out->fits_in_memory = out->memory.total_gib <= s->gpu.hbm_gib;
    return aug_train_check_finite(m, s, p, out);
}

int aug_train_predict(const struct aug_model *m, const struct aug_system *s,
                      const struct aug_plan *p, const struct aug_train_options *opt,
                      struct aug_train_result *out) {
    return train_run(m, s, p, opt, out, NULL);
}

int aug_train_predict_traced(const struct aug_model *m, const struct aug_system *s,
                             const struct aug_plan *p, const struct aug_train_options *opt,
                             struct aug_train_result *out, struct aug_train_trace *tr) {
    memset(tr, 0, sizeof *tr);
    return train_run(m, s, p, opt, out, tr);
}
