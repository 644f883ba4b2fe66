/* SPDX-License-Identifier: Apache-2.0 */
/* sweep.c - every valid training plan of a model on a system: enumeration in one fixed
 * order, the memory filter, timing, top-K and the Pareto front of step time against
 * memory per GPU, in parallel over threads.
 *
 * The space. Degrees are enumerated as divisors: TP (dividing the GPUs, the heads and,
 * inside an NVLink domain, the domain size, so a TP group never straddles two domains;
 * beyond the domain only whole domains, and only when --max-tp allows it), CP (dividing
 * the sequence), PP (dividing the layers unless uneven splits are allowed), DP = the rest
 * (dividing the global batch), EP (MoE only: dividing DP*CP and the experts), the
 * micro-batch (dividing the per-replica batch), interleaving (v chunks per stage dividing
 * the layers, micro-batches a multiple of PP), sequence parallelism (TP > 1, seq/CP
 * divisible by TP), recomputation and sharding (ZeRO 0-3, FSDP hybrid). Plans that the
 * model cannot tell apart are enumerated once: with DP = 1 every ZeRO stage equals stage
 * 0; FSDP full sharding is ZeRO-3; FSDP hybrid is listed only when its shard group is
 * strictly between 1 and DP; SP is off when TP = 1; selective recomputation of the default
 * module only touches the unfused attention core, so with FlashAttention it equals no
 * recomputation (other recompute modules, --recompute-modules, make it a plan of its
 * own; the plans that do not recompute selectively leave them unset). Where a
 * plan fits with full recomputation but not without, one more plan recomputes only the
 * fewest layers per pipeline chunk that fit (Megatron-Core's block method, --recompute-
 * layers): faster than recomputing all of them, and the plan NeMo's recipes pick by hand.
 * Pinned knobs take exactly the value given. Every plan still goes through
 * aug_plan_resolve().
 *
 * Work units are the (tp, cp, pp, ep, micro-batch) tuples in enumeration order; a plan's
 * index is (unit << 32) | position inside the unit. Threads take units from an atomic
 * counter; each keeps its own top-K and front, merged at the end by (time, memory, index)
 * and (memory, time, index), so results never depend on the thread count or the split over
 * processes (aug_sweep_merge folds in other processes' shares).
 *
 * Pruning (exact). Each GEMM and attention op takes at least flops / dense peak (its
 * efficiency is at most 1, curve.h clamps calibrated ones), and a step takes at least
 * (micro-batches + (pp - 1) / v) times the layers of a stage times their forward,
 * backward and recomputed op times (train.c). A plan whose bound exceeds both the K-th
 * best time found so far and the time of a front plan that needs no more memory can enter
 * neither the top K nor the front, so it is not timed. */
#include "augur/sweep.h"

#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "augur/status.h"
#include "model/layer_graph.h"
#include "sweep_rank.h"

/* Divisors kept per degree (a number below 2^40 has fewer). */
#define AUG_SWEEP_MAX_DIVISORS 16384

struct unit {
    uint64_t gidx; /* position in the whole space's unit order */
    long tp, cp, pp, dp, ep, mb;
};

struct sweep_ctx {
    const struct aug_sweep_config *cfg;
    long seq;
    struct unit *units;
    size_t n_units;
    atomic_size_t next;
    atomic_size_t done;
    atomic_int stop;
    int count_only;
};

struct worker {
    struct sweep_ctx *c;
    pthread_t thread;
    struct aug_sweep_entry *top;
    int n_top;
    struct aug_sweep_entry *front;
    int n_front, cap_front;
    uint64_t evaluated, fit, timed;
    int status;
    char err[512];
    struct aug_sweep_entry scratch;
    struct aug_graph graph;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void aug_sweep_space_init(struct aug_sweep_space *sp) {
    memset(sp, 0, sizeof *sp);
    sp->cp_algo = -1;
    sp->sp = -1;
    sp->recompute = -1;
    sp->zero = -1;
    sp->fsdp = -1;
}

/* ---- ordering, top-K and front (sweep_rank.c) ------------------------------------ */

static const struct aug_rank_keys train_keys = {
    sizeof(struct aug_sweep_entry),
    offsetof(struct aug_sweep_entry, result) + offsetof(struct aug_train_result, step_time_s),
    offsetof(struct aug_sweep_entry, result) + offsetof(struct aug_train_result, memory) +
        offsetof(struct aug_train_memory, total_gib)};

int aug_sweep_dominates(const struct aug_sweep_entry *b, const struct aug_sweep_entry *a) {
    return aug_rank_dominates(&train_keys, b, a);
}

/* ---- the space ---------------------------------------------------------------------- */

static long nvlink_domain(const struct aug_system *s) {
    return s->nvlink_domain > 0 ? s->nvlink_domain : (s->gpus_per_node > 0 ? s->gpus_per_node : 1);
}

static int tp_allowed(const struct aug_sweep_config *c, long tp) {
    const struct aug_model *m = c->model;
    long domain = nvlink_domain(c->system);
    long max_tp = c->space.max_tp > 0 ? c->space.max_tp : domain;
    if (c->space.tp > 0)
        return tp == c->space.tp;
    if (tp > max_tp)
        return 0;
    if (m->arch == AUG_ARCH_MATMULFREE) { /* TP splits the MLGRU and GLU channels */
        if (m->hidden % tp != 0 || m->ffn_hidden % tp != 0)
            return 0;
    } else if (m->heads % tp != 0 || (m->kv_heads % tp != 0 && tp % m->kv_heads != 0)) {
        return 0;
    }
    return tp <= domain ? domain % tp == 0 : tp % domain == 0;
}

static int pin_ok(long pinned, long v, long max) {
    if (pinned > 0)
        return v == pinned;
    return max <= 0 || v <= max;
}

/* Divisors of n in ascending order (at most cap; n <= 2^40 has fewer than 10,000). */
static int divisors(long n, long *out, int cap, long *high) {
    int lo = 0, hi = 0;
    for (long d = 1; d * d <= n; d++) {
        if (n % d != 0)
            continue;
        if (lo < cap)
            out[lo++] = d;
        if (d != n / d && hi < AUG_SWEEP_MAX_DIVISORS)
            high[hi++] = n / d;
    }
    for (int i = hi - 1; i >= 0 && lo < cap; i--)
        out[lo++] = high[i];
    return lo;
}

/* Call fn for every work unit in order. Returns the unit count, or -1 on fn's error. */
static long units_foreach(const struct aug_sweep_config *c, long seq,
                          int (*fn)(const struct unit *u, void *user), void *user) {
    const struct aug_model *m = c->model;
    const struct aug_sweep_space *sp = &c->space;
    long gpus = c->base.gpus, gb = c->base.global_batch;
    uint64_t gidx = 0;
    long *buf = malloc(6 * AUG_SWEEP_MAX_DIVISORS * sizeof *buf);
    if (!buf)
        return -1;
    long *d_tp = buf, *d_cp = buf + AUG_SWEEP_MAX_DIVISORS, *d_pp = buf + 2 * AUG_SWEEP_MAX_DIVISORS;
    long *d_ep = buf + 3 * AUG_SWEEP_MAX_DIVISORS, *d_mb = buf + 4 * AUG_SWEEP_MAX_DIVISORS;
    long *scratch = buf + 5 * AUG_SWEEP_MAX_DIVISORS;
    int n_tp = divisors(gpus, d_tp, AUG_SWEEP_MAX_DIVISORS, scratch);
    for (int i_tp = 0; i_tp < n_tp; i_tp++) {
        long tp = d_tp[i_tp];
        if (!tp_allowed(c, tp))
            continue;
        long r1 = gpus / tp;
        int n_cp = divisors(r1, d_cp, AUG_SWEEP_MAX_DIVISORS, scratch);
        for (int i_cp = 0; i_cp < n_cp; i_cp++) {
            long cp = d_cp[i_cp];
            if (seq % cp != 0 || !pin_ok(sp->cp, cp, sp->max_cp))
                continue;
            if (cp > 1 && m->arch == AUG_ARCH_MATMULFREE) /* a recurrence, no attention */
                continue;
            long r2 = r1 / cp;
            int n_pp = divisors(r2, d_pp, AUG_SWEEP_MAX_DIVISORS, scratch);
            for (int i_pp = 0; i_pp < n_pp && d_pp[i_pp] <= m->layers; i_pp++) {
                long pp = d_pp[i_pp];
                if (!pin_ok(sp->pp, pp, sp->max_pp))
                    continue;
                if (!sp->uneven_pp && m->layers % pp != 0)
                    continue;
                long dp = r2 / pp;
                if ((sp->dp > 0 && dp != sp->dp) || gb % dp != 0)
                    continue;
                long per_replica = gb / dp;
                int n_ep = 1;
                d_ep[0] = 1;
                /* EP is carved out of dp*cp, or with expert TP out of tp*dp*cp / etp */
                long etp = c->base.etp > 0 ? c->base.etp : tp;
                long ep_room = etp == tp ? dp * cp : (tp * dp * cp) % etp == 0 ? tp * dp * cp / etp : 0;
                if (m->arch == AUG_ARCH_MOE && m->moe_experts > 1 && ep_room > 0)
                    n_ep = divisors(ep_room, d_ep, AUG_SWEEP_MAX_DIVISORS, scratch);
                int n_mb = divisors(per_replica, d_mb, AUG_SWEEP_MAX_DIVISORS, scratch);
                for (int i_ep = 0; i_ep < n_ep; i_ep++) {
                    long ep = d_ep[i_ep];
                    if (!pin_ok(sp->ep, ep, sp->max_ep))
                        continue;
                    if (ep > 1 && m->moe_experts % ep != 0)
                        continue;
                    for (int i_mb = 0; i_mb < n_mb; i_mb++) {
                        long mb = d_mb[i_mb];
                        if (!pin_ok(sp->micro_batch, mb, sp->max_micro_batch))
                            continue;
                        struct unit u = {gidx++, tp, cp, pp, dp, ep, mb};
                        if (fn && fn(&u, user) != 0) {
                            free(buf);
                            return -1;
                        }
                    }
                }
            }
        }
    }
    free(buf);
    return (long)gidx;
}

struct collect {
    struct unit *units;
    size_t n, cap;
    int part, n_parts;
};

static int collect_unit(const struct unit *u, void *user) {
    struct collect *c = user;
    if (c->n_parts > 1 && (int)(u->gidx % (uint64_t)c->n_parts) != c->part)
        return 0;
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 256;
        struct unit *g = realloc(c->units, nc * sizeof *g);
        if (!g)
            return -1;
        c->units = g;
        c->cap = nc;
    }
    c->units[c->n++] = *u;
    return 0;
}

/* Seconds at dense peak of the GEMM and attention ops of a list (all, or with `only` those
 * of these recompute modules). */
static double peak_seconds(const struct aug_system *s, const struct aug_graph_op *ops, int n,
                           unsigned only) {
    double t = 0.0;
    for (int i = 0; i < n; i++) {
        const struct aug_op *op = &ops[i].op;
        if (only && !(ops[i].rc & only))
            continue;
        if (op->kind != AUG_OP_GEMM && op->kind != AUG_OP_ATTENTION)
            continue;
        double peak = s->gpu.peak_tflops[op->dtype] * 1e12;
        if (peak > 0)
            t += op->flops * op->count / peak;
    }
    return t;
}

/* The fewest layers per pipeline chunk whose full recomputation (block method) lets plan
 * p fit, p fitting with every layer recomputed; 0 when only every layer fits. Memory falls
 * as more layers recompute, so a bisection finds it. */
static long fewest_recompute_layers(const struct aug_model *m, const struct aug_system *s,
                                    const struct aug_plan *p) {
    long v = p->interleave > 0 ? p->interleave : 1;
    long chunk = (aug_plan_stage_layers(p, m) + v - 1) / v;
    struct aug_plan q = *p;
    struct aug_train_memory mem;
    long lo = 1, hi = chunk; /* hi (every layer of a chunk) fits */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        q.recompute_layers = mid;
        aug_train_memory(m, s, &q, &mem);
        if (mem.total_gib <= s->gpu.hbm_gib)
            hi = mid;
        else
            lo = mid + 1;
    }
    return hi < chunk ? hi : 0;
}

/* Time plan e (skipped when its lower bound `lb` can enter neither the top K nor the
 * front) and file it under `index`. */
static int consider(struct worker *w, struct aug_sweep_entry *e, uint64_t index, double lb) {
    struct sweep_ctx *c = w->c;
    const struct aug_sweep_config *cfg = c->cfg;
    int k = cfg->top_k;
    if (!cfg->no_prune && w->n_top == k && lb > w->top[k - 1].result.step_time_s &&
        aug_rank_front_beats(&train_keys, w->front, w->n_front, e->result.memory.total_gib, lb))
        return AUG_OK;
    int st = aug_train_predict(cfg->model, cfg->system, &e->plan, &cfg->options, &e->result);
    if (st != AUG_OK) {
        snprintf(w->err, sizeof w->err, "plan tp %ld pp %ld dp %ld cp %ld ep %ld micro-batch %ld: %s",
                 e->plan.tp, e->plan.pp, e->plan.dp, e->plan.cp, e->plan.ep, e->plan.micro_batch,
                 aug_last_error());
        return st;
    }
    w->timed++;
    e->index = index;
    aug_rank_top_insert(&train_keys, w->top, &w->n_top, k, e);
    if ((st = aug_rank_front_insert(&train_keys, (void **)&w->front, &w->n_front, &w->cap_front,
                                    e)) != AUG_OK) {
        snprintf(w->err, sizeof w->err, "%s", aug_last_error());
        return st;
    }
    return AUG_OK;
}

/* Sharding choices of one unit: ZeRO 0-3 and FSDP hybrid and full. */
#define MAX_SHARDINGS 6

/* One unit: every interleave, SP, recomputation and sharding choice. */
static int run_unit(struct worker *w, const struct unit *u) {
    struct sweep_ctx *c = w->c;
    const struct aug_sweep_config *cfg = c->cfg;
    const struct aug_sweep_space *sp = &cfg->space;
    const struct aug_model *m = cfg->model;
    const struct aug_system *s = cfg->system;

    struct aug_plan p = cfg->base;
    p.tp = u->tp;
    p.cp = u->cp;
    p.pp = u->pp;
    p.dp = u->dp;
    p.ep = u->ep;
    p.micro_batch = u->mb;
    p.seq = c->seq;
    p.interleave = 1;
    p.sp = 0;
    p.recompute = AUG_RECOMPUTE_NONE;
    p.zero = 0;
    p.fsdp = AUG_FSDP_NONE;
    p.uneven_pp = sp->uneven_pp;
    long nmb = cfg->base.global_batch / (u->mb * u->dp);

    /* sharding choices: (zero, fsdp) */
    int shard_z[MAX_SHARDINGS], shard_f[MAX_SHARDINGS], n_shard = 0;
    long per_node = s->gpus_per_node / (u->tp * u->cp);
    if (per_node < 1)
        per_node = 1;
    long hybrid_shard = per_node < u->dp ? per_node : u->dp;
    int hybrid_rule = !(u->tp * u->cp < s->gpus_per_node && s->gpus_per_node % (u->tp * u->cp) != 0);
    if (sp->fsdp < 0 || sp->fsdp == AUG_FSDP_NONE) {
        for (int z = 0; z <= 3; z++) {
            if (sp->zero >= 0 ? z != sp->zero : (z > 0 && u->dp == 1))
                continue;
            shard_z[n_shard] = z;
            shard_f[n_shard++] = AUG_FSDP_NONE;
        }
    }
    if (sp->fsdp == AUG_FSDP_HYBRID ||
        (sp->fsdp < 0 && hybrid_shard > 1 && hybrid_shard < u->dp && hybrid_rule)) {
        int z = sp->zero >= 0 ? sp->zero : 0;
        if (z == 0 || z == 3) {
            shard_z[n_shard] = z;
            shard_f[n_shard++] = AUG_FSDP_HYBRID;
        }
    }
    if (sp->fsdp == AUG_FSDP_FULL) {
        int z = sp->zero >= 0 ? sp->zero : 0;
        if (z == 0 || z == 3) {
            shard_z[n_shard] = z;
            shard_f[n_shard++] = AUG_FSDP_FULL;
        }
    }

    int rec_list[AUG_RECOMPUTE_COUNT], n_rec = 0;
    for (int r = 0; r < AUG_RECOMPUTE_COUNT; r++) {
        if (sp->recompute >= 0 ? r != sp->recompute
                               : (r == AUG_RECOMPUTE_SELECTIVE && cfg->base.flash_attention &&
                                  aug_plan_rc_modules(&cfg->base) == AUG_RC_CORE_ATTN))
            continue;
        rec_list[n_rec++] = r;
    }
    int algo_list[AUG_CP_COUNT], n_algo = 0;
    if (u->cp == 1) {
        algo_list[n_algo++] = sp->cp_algo >= 0 ? sp->cp_algo : AUG_CP_RING;
    } else {
        for (int a = 0; a < AUG_CP_COUNT; a++) {
            if (sp->cp_algo >= 0 ? a != sp->cp_algo : 0)
                continue;
            if (a == AUG_CP_ULYSSES && sp->cp_algo < 0) { /* heads scattered over CP */
                long a_t = m->heads / u->tp, kv_t = m->kv_heads >= u->tp ? m->kv_heads / u->tp : 1;
                if (a_t % u->cp != 0 || (kv_t % u->cp != 0 && u->cp % kv_t != 0))
                    continue;
            }
            algo_list[n_algo++] = a;
        }
    }
    /* lower bounds per layer and micro-batch (seconds at peak), per CP algorithm */
    double lb_fwd[AUG_CP_COUNT] = {0}, lb_bwd[AUG_CP_COUNT] = {0}, lb_sel[AUG_CP_COUNT] = {0};
    if (!cfg->no_prune && !c->count_only) {
        for (int g = 0; g < n_algo; g++) {
            p.cp_algo = (enum aug_cp_algo)algo_list[g];
            aug_graph_layer(m, &p, s, &w->graph);
            lb_fwd[g] = peak_seconds(s, w->graph.fwd, w->graph.n_fwd, 0);
            lb_bwd[g] = peak_seconds(s, w->graph.bwd, w->graph.n_bwd, 0);
            lb_sel[g] = peak_seconds(s, w->graph.fwd, w->graph.n_fwd, aug_plan_rc_modules(&p));
        }
    }
    int sp_list[2], n_sp = 0;
    if (u->tp == 1) {
        sp_list[n_sp++] = sp->sp == 1;
    } else {
        if (sp->sp <= 0)
            sp_list[n_sp++] = 0;
        if (sp->sp != 0 && (c->seq / u->cp) % u->tp == 0)
            sp_list[n_sp++] = 1;
    }

    uint32_t pos = 0;
    long max_v = u->pp > 1 ? m->layers / u->pp : 1;
    for (long v = 1; v <= max_v; v++) {
        if (!pin_ok(sp->interleave, v, sp->max_interleave))
            continue;
        if (v > 1) {
            if (!sp->uneven_pp && m->layers % (u->pp * v) != 0)
                continue;
            if (nmb % u->pp != 0)
                continue;
        }
        double chunks = (double)nmb + (double)(u->pp - 1) / (double)v;
        p.interleave = v;
        double stage_layers = (double)aug_plan_stage_layers(&p, m);
        for (int g = 0; g < n_algo; g++) {
        for (int a = 0; a < n_sp; a++) {
            int none_fit[MAX_SHARDINGS]; /* no-recompute fit per sharding choice, -1 unknown */
            for (int d = 0; d < MAX_SHARDINGS; d++)
                none_fit[d] = -1;
            for (int b = 0; b < n_rec; b++) {
                for (int d = 0; d < n_shard; d++, pos++) {
                    if (atomic_load_explicit(&c->stop, memory_order_relaxed))
                        return AUG_OK;
                    struct aug_sweep_entry *e = &w->scratch;
                    e->plan = p;
                    e->plan.sp = sp_list[a];
                    e->plan.recompute = (enum aug_recompute)rec_list[b];
                    if (rec_list[b] != AUG_RECOMPUTE_SELECTIVE) /* modules are selective's */
                        e->plan.recompute_modules = AUG_RC_CORE_ATTN;
                    e->plan.zero = shard_z[d];
                    e->plan.fsdp = (enum aug_fsdp)shard_f[d];
                    e->plan.cp_algo = (enum aug_cp_algo)algo_list[g];
                    if (aug_plan_resolve(&e->plan, m, s) != AUG_OK)
                        continue;
                    w->evaluated++;
                    aug_train_memory(m, s, &e->plan, &e->result.memory);
                    int fits = e->result.memory.total_gib <= s->gpu.hbm_gib;
                    if (rec_list[b] == AUG_RECOMPUTE_NONE)
                        none_fit[d] = fits;
                    if (!fits)
                        continue;
                    /* full recomputation of every layer fits where none does not: the
                     * fewest layers per chunk that still fit (block method) is a plan of
                     * its own, faster and between the two in memory */
                    long partial = rec_list[b] == AUG_RECOMPUTE_FULL && none_fit[d] == 0
                                       ? fewest_recompute_layers(m, s, &e->plan)
                                       : 0;
                    w->fit++;
                    if (partial > 0) {
                        w->evaluated++;
                        w->fit++;
                    }
                    if (c->count_only)
                        continue;
                    double lb_rec = rec_list[b] == AUG_RECOMPUTE_FULL        ? lb_fwd[g]
                                    : rec_list[b] == AUG_RECOMPUTE_SELECTIVE ? lb_sel[g]
                                                                             : 0.0;
                    double lb = chunks * stage_layers * (lb_fwd[g] + lb_bwd[g] + lb_rec);
                    int st = consider(w, e, (u->gidx << 32) | pos, lb);
                    if (st == AUG_OK && partial > 0) {
                        struct aug_sweep_entry *f = &w->scratch;
                        f->plan.recompute_layers = partial;
                        aug_train_memory(m, s, &f->plan, &f->result.memory);
                        double share = aug_plan_full_recompute_share(&f->plan, m);
                        lb = chunks * stage_layers * (lb_fwd[g] + lb_bwd[g] + share * lb_fwd[g]);
                        /* its own index: the position with the top bit set */
                        st = consider(w, f, (u->gidx << 32) | pos | 0x80000000u, lb);
                    }
                    if (st != AUG_OK)
                        return st;
                }
            }
        }
        }
    }
    return AUG_OK;
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    struct sweep_ctx *c = w->c;
    for (;;) {
        if (atomic_load(&c->stop))
            break;
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->n_units)
            break;
        int st = run_unit(w, &c->units[i]);
        atomic_fetch_add(&c->done, 1);
        if (st != AUG_OK) {
            w->status = st;
            atomic_store(&c->stop, 1);
            break;
        }
    }
    return NULL;
}

/* ---- driver ------------------------------------------------------------------------ */

static long plan_seq(const struct aug_sweep_config *cfg) {
    return cfg->base.seq > 0 ? cfg->base.seq : cfg->model->max_seq;
}

int aug_sweep_check(const struct aug_sweep_config *cfg) {
    if (!cfg || !cfg->model || !cfg->system)
        return aug_errorf(AUG_EUSAGE, "sweep: a model and a system are required");
    if (cfg->base.gpus <= 0)
        return aug_errorf(AUG_EUSAGE, "--gpus must be positive");
    if (cfg->base.global_batch <= 0)
        return aug_errorf(AUG_EUSAGE, "--global-batch must be positive");
    if (plan_seq(cfg) <= 0)
        return aug_errorf(AUG_EUSAGE, "--seq must be positive (the model has no max_seq)");
    if (cfg->top_k < 1 || cfg->top_k > AUG_SWEEP_MAX_TOP)
        return aug_errorf(AUG_EUSAGE, "--top %d must be between 1 and %d", cfg->top_k,
                          AUG_SWEEP_MAX_TOP);
    if (cfg->threads < 0 || cfg->threads > 4096)
        return aug_errorf(AUG_EUSAGE, "--threads %d must be between 0 (all cores) and 4096",
                          cfg->threads);
    if (cfg->n_parts > 1 && (cfg->part < 0 || cfg->part >= cfg->n_parts))
        return aug_errorf(AUG_EUSAGE, "sweep part %d is not in [0, %d)", cfg->part, cfg->n_parts);
    if (cfg->system->gpu.peak_tflops[cfg->base.dtype] <= 0)
        return aug_errorf(AUG_EUSAGE, "%s cannot compute in %s (no peak for that dtype)",
                          cfg->system->gpu.name, aug_dtype_name(cfg->base.dtype));
    struct aug_plan sel = cfg->base; /* the modules selective plans will repeat */
    sel.recompute = AUG_RECOMPUTE_SELECTIVE;
    int st = aug_plan_check_rc_modules(&sel, cfg->model);
    if (st == AUG_OK && cfg->space.recompute >= 0 && cfg->space.recompute != AUG_RECOMPUTE_SELECTIVE &&
        aug_plan_rc_modules(&cfg->base) != AUG_RC_CORE_ATTN)
        return aug_errorf(AUG_EUSAGE, "--recompute-modules needs --recompute selective or an "
                          "open recomputation (recompute is pinned to %s)",
                          aug_recompute_name((enum aug_recompute)cfg->space.recompute));
    /* every plan runs the overlap the sweep was given; plans it cannot run with are left
     * out by aug_plan_resolve, a model it can never apply to is refused here */
    if (st == AUG_OK && cfg->base.moe_overlap != AUG_MOE_OVERLAP_NONE &&
        cfg->model->arch != AUG_ARCH_MOE)
        return aug_errorf(AUG_EUSAGE, "--moe-overlap %s hides expert-parallel all-to-alls: "
                          "model '%s' is dense",
                          aug_moe_overlap_name(cfg->base.moe_overlap), cfg->model->name);
    if (st == AUG_OK && cfg->base.moe_dispatcher != AUG_MOE_DISPATCH_ALLTOALL &&
        cfg->model->arch != AUG_ARCH_MOE)
        return aug_errorf(AUG_EUSAGE, "--moe-dispatcher %s moves tokens to experts: model '%s' "
                          "is dense", aug_moe_dispatcher_name(cfg->base.moe_dispatcher),
                          cfg->model->name);
    if (st == AUG_OK && cfg->base.moe_overlap == AUG_MOE_OVERLAP_SHARED &&
        cfg->model->moe_shared_experts < 1)
        return aug_errorf(AUG_EUSAGE, "--moe-overlap shared: model '%s' has no shared experts",
                          cfg->model->name);
    return st;
}

static int default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)(n < 4096 ? n : 4096) : 1;
}

static int run(const struct aug_sweep_config *cfg, int count_only, struct aug_sweep_result *out) {
    double t0 = now_s();
    int st = aug_sweep_check(cfg);
    if (st != AUG_OK)
        return st;
    memset(out, 0, sizeof *out);
    struct sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.seq = plan_seq(cfg);
    c.count_only = count_only;
    struct collect col = {NULL, 0, 0, cfg->n_parts > 1 ? cfg->part : 0, cfg->n_parts};
    if (units_foreach(cfg, c.seq, collect_unit, &col) < 0) {
        free(col.units);
        return aug_errorf(AUG_ENOMEM, "sweep: out of memory for the plan space");
    }
    c.units = col.units;
    c.n_units = col.n;
    atomic_init(&c.next, 0);
    atomic_init(&c.done, 0);
    atomic_init(&c.stop, 0);

    int nt = count_only ? 1 : (cfg->threads > 0 ? cfg->threads : default_threads());
    if ((size_t)nt > c.n_units)
        nt = c.n_units > 0 ? (int)c.n_units : 1;
    struct worker *w = calloc((size_t)nt, sizeof *w);
    if (!w) {
        free(c.units);
        return aug_errorf(AUG_ENOMEM, "sweep: out of memory for %d threads", nt);
    }
    for (int i = 0; i < nt && st == AUG_OK; i++) {
        w[i].c = &c;
        w[i].top = calloc((size_t)cfg->top_k, sizeof *w[i].top);
        if (!w[i].top)
            st = aug_errorf(AUG_ENOMEM, "sweep: out of memory for the top list");
    }
    /* the calling thread works too unless it has to report progress */
    int first_spawned = cfg->progress ? 0 : 1;
    int spawned_to = first_spawned;
    for (int i = first_spawned; i < nt && st == AUG_OK; i++, spawned_to++)
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
            break; /* fewer threads: the others take the remaining units */
    if (st == AUG_OK) {
        if (!cfg->progress) {
            worker_main(&w[0]);
        } else {
            double last = 0.0;
            for (;;) {
                size_t d = atomic_load(&c.done);
                int finished = d >= c.n_units || atomic_load(&c.stop);
                double t = now_s();
                if (finished || t - last >= 0.1) {
                    cfg->progress(d, c.n_units, cfg->progress_user);
                    last = t;
                }
                if (finished)
                    break;
                if (spawned_to == first_spawned) { /* no thread could start: work here */
                    worker_main(&w[0]);
                    continue;
                }
                struct timespec ts = {0, 20 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
    }
    for (int i = first_spawned; i < spawned_to; i++)
        pthread_join(w[i].thread, NULL);

    /* merge */
    size_t n_all = 0;
    for (int i = 0; i < nt; i++) {
        out->plans_evaluated += w[i].evaluated;
        out->plans_valid += w[i].fit;
        out->plans_timed += w[i].timed;
        n_all += (size_t)w[i].n_top + (size_t)w[i].n_front;
        if (st == AUG_OK && w[i].status != AUG_OK) {
            st = aug_errorf(w[i].status, "%s", w[i].err);
        }
    }
    if (st == AUG_OK && !count_only) {
        struct aug_sweep_entry *all = malloc((n_all ? n_all : 1) * sizeof *all);
        out->top = calloc((size_t)cfg->top_k, sizeof *out->top);
        if (!all || !out->top) {
            free(all);
            st = aug_errorf(AUG_ENOMEM, "sweep: out of memory merging results");
        } else {
            size_t n = 0;
            for (int i = 0; i < nt; i++) {
                aug_rank_copy(all + n, w[i].top, (size_t)w[i].n_top * sizeof *all);
                n += (size_t)w[i].n_top;
            }
            out->n_top = aug_rank_top_of(&train_keys, all, (int)n, cfg->top_k);
            if (out->n_top > 0)
                aug_rank_copy(out->top, all, (size_t)out->n_top * sizeof *all);
            n = 0;
            for (int i = 0; i < nt; i++) {
                aug_rank_copy(all + n, w[i].front, (size_t)w[i].n_front * sizeof *all);
                n += (size_t)w[i].n_front;
            }
            out->n_pareto = aug_rank_front_of(&train_keys, all, (int)n);
            out->pareto = all; /* the front is a prefix of the buffer */
            if (out->n_top < 0 || out->n_pareto < 0) {
                out->n_top = out->n_pareto = 0;
                st = aug_errorf(AUG_ENOMEM, "sweep: out of memory merging results");
            }
        }
    }
    for (int i = 0; i < nt; i++) {
        free(w[i].top);
        free(w[i].front);
    }
    free(w);
    free(c.units);
    out->threads = nt;
    out->elapsed_s = now_s() - t0;
    if (st != AUG_OK)
        aug_sweep_result_free(out);
    return st;
}

int aug_sweep_train(const struct aug_sweep_config *cfg, struct aug_sweep_result *out) {
    return run(cfg, 0, out);
}

int aug_sweep_count(const struct aug_sweep_config *cfg, uint64_t *valid, uint64_t *fit) {
    struct aug_sweep_result r;
    int st = run(cfg, 1, &r);
    if (st != AUG_OK)
        return st;
    if (valid)
        *valid = r.plans_evaluated;
    if (fit)
        *fit = r.plans_valid;
    aug_sweep_result_free(&r);
    return AUG_OK;
}

int aug_sweep_merge(struct aug_sweep_result *r, int top_k, const struct aug_sweep_entry *e, int n) {
    void *top = r->top, *front = r->pareto;
    int st = aug_rank_merge(&train_keys, &top, &r->n_top, &front, &r->n_pareto, top_k, e, n);
    r->top = top;
    r->pareto = front;
    return st;
}

void aug_sweep_result_free(struct aug_sweep_result *r) {
    if (!r)
        return;
    free(r->top);
    free(r->pareto);
    r->top = r->pareto = NULL;
    r->n_top = r->n_pareto = 0;
}
