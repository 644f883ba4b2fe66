/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_infer.c - every valid serving plan of a model on a system: TP (the rules of the
 * training sweep: heads, KV heads, inside the NVLink domain), PP (dividing the layers),
 * EP (MoE: dividing TP and the experts), replicas = the rest of the GPUs, and the batch
 * (pinned, or per-replica powers of two from 1 up to the first that does not fit).
 * Plans that fit are timed; those reaching the throughput target are ranked by end-to-end
 * latency, and their front of latency against memory per GPU is kept. Threads take
 * (tp, pp, ep) units from an atomic counter, with per-thread lists merged by index as in
 * sweep.c, so results do not depend on threads or processes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "augur/status.h"
#include "augur/sweep.h"
#include "sweep_rank.h"

static const struct aug_rank_keys infer_keys = {
    sizeof(struct aug_sweep_infer_entry),
    offsetof(struct aug_sweep_infer_entry, result) + offsetof(struct aug_infer_result, e2e_latency_s),
    offsetof(struct aug_sweep_infer_entry, result) + offsetof(struct aug_infer_result, memory) +
        offsetof(struct aug_infer_memory, total_gib)};

/* Largest per-replica batch an open sweep tries. */
#define MAX_REPLICA_BATCH (1L << 20)

struct iunit {
    uint64_t gidx;
    long tp, pp, ep, dp;
};

struct ictx {
    const struct aug_sweep_infer_config *cfg;
    struct iunit *units;
    size_t n_units;
    atomic_size_t next, done;
    atomic_int stop;
};

struct iworker {
    struct ictx *c;
    pthread_t thread;
    struct aug_sweep_infer_entry *top, *front, scratch;
    int n_top, n_front, cap_front;
    uint64_t evaluated, fit, timed, meeting;
    int status;
    char err[512];
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int tp_ok(const struct aug_sweep_infer_config *c, long tp) {
    const struct aug_model *m = c->model;
    const struct aug_system *s = c->system;
    long domain = s->nvlink_domain > 0 ? s->nvlink_domain : (s->gpus_per_node > 0 ? s->gpus_per_node : 1);
    if (c->tp > 0)
        return tp == c->tp;
    if (tp > (c->max_tp > 0 ? c->max_tp : domain) || m->heads % tp != 0)
        return 0;
    if (m->kv_heads % tp != 0 && tp % m->kv_heads != 0)
        return 0;
    return tp <= domain ? domain % tp == 0 : tp % domain == 0;
}

static int build_units(const struct aug_sweep_infer_config *c, struct ictx *x) {
    const struct aug_model *m = c->model;
    long gpus = c->base.gpus;
    size_t cap = 0;
    uint64_t gidx = 0;
    for (long tp = 1; tp <= gpus; tp++) {
        if (gpus % tp != 0 || !tp_ok(c, tp))
            continue;
        for (long pp = 1; pp <= gpus / tp && pp <= m->layers; pp++) {
            if ((gpus / tp) % pp != 0 || m->layers % pp != 0)
                continue;
            if (c->pp > 0 ? pp != c->pp : (c->max_pp > 0 && pp > c->max_pp))
                continue;
            long dp = gpus / (tp * pp);
            if (c->base.batch > 0 && c->base.batch % dp != 0)
                continue;
            for (long ep = 1; ep <= tp; ep++) {
                if (tp % ep != 0 || (c->ep > 0 && ep != c->ep))
                    continue;
                if (ep > 1 && (m->arch != AUG_ARCH_MOE || m->moe_experts % ep != 0))
                    continue;
                uint64_t g = gidx++;
                if (c->n_parts > 1 && (int)(g % (uint64_t)c->n_parts) != c->part)
                    continue;
                if (x->n_units == cap) {
                    size_t nc = cap ? 2 * cap : 64;
                    struct iunit *u = realloc(x->units, nc * sizeof *u);
                    if (!u)
                        return aug_errorf(AUG_ENOMEM, "sweep: out of memory for the plan space");
                    x->units = u;
                    cap = nc;
                }
                x->units[x->n_units++] = (struct iunit){g, tp, pp, ep, dp};
            }
        }
    }
    return AUG_OK;
}

static int run_unit(struct iworker *w, const struct iunit *u) {
    const struct aug_sweep_infer_config *c = w->c->cfg;
    const struct aug_model *m = c->model;
    const struct aug_system *s = c->system;
    uint32_t pos = 0;
    for (long b = 1; b <= MAX_REPLICA_BATCH; b *= 2, pos++) {
        long batch = c->base.batch > 0 ? c->base.batch : b * u->dp;
        if (c->base.batch <= 0 && c->max_batch > 0 && batch > c->max_batch)
            break;
        if (atomic_load_explicit(&w->c->stop, memory_order_relaxed))
            break;
        struct aug_sweep_infer_entry *e = &w->scratch;
        e->plan = c->base;
        e->plan.tp = u->tp;
        e->plan.pp = u->pp;
        e->plan.ep = u->ep;
        e->plan.gpus = c->base.gpus;
        e->plan.batch = batch;
        e->plan.mode = AUG_SERVE_STATIC;
        if (aug_infer_plan_resolve(&e->plan, m, s) != AUG_OK) {
            if (c->base.batch > 0)
                break;
            continue;
        }
        w->evaluated++;
        aug_infer_memory(m, s, &e->plan, &e->result.memory);
        if (!(e->result.memory.total_gib <= s->gpu.hbm_gib))
            break; /* memory grows with the batch: larger ones fit no better */
        w->fit++;
        int st = aug_infer_predict(m, s, &e->plan, &c->options, &e->result);
        if (st != AUG_OK) {
            snprintf(w->err, sizeof w->err, "plan tp %ld pp %ld ep %ld batch %ld: %s", u->tp, u->pp,
                     u->ep, batch, aug_last_error());
            return st;
        }
        w->timed++;
        if (e->result.throughput_tokens_per_s >= c->min_throughput) {
            w->meeting++;
            e->index = (u->gidx << 32) | pos;
            aug_rank_top_insert(&infer_keys, w->top, &w->n_top, c->top_k, e);
            if ((st = aug_rank_front_insert(&infer_keys, (void **)&w->front, &w->n_front,
                                            &w->cap_front, e)) != AUG_OK) {
                snprintf(w->err, sizeof w->err, "%s", aug_last_error());
                return st;
            }
        }
        if (c->base.batch > 0)
            break;
    }
    return AUG_OK;
}

static void *worker_main(void *arg) {
    struct iworker *w = arg;
    struct ictx *c = w->c;
    while (!atomic_load(&c->stop)) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->n_units)
            break;
        int st = run_unit(w, &c->units[i]);
        atomic_fetch_add(&c->done, 1);
        if (st != AUG_OK) {
            w->status = st;
            atomic_store(&c->stop, 1);
        }
    }
    return NULL;
}

static int check(const struct aug_sweep_infer_config *c) {
    if (!c || !c->model || !c->system)
        return aug_errorf(AUG_EUSAGE, "sweep: a model and a system are required");
    if (c->base.gpus <= 0)
        return aug_errorf(AUG_EUSAGE, "--gpus must be positive");
    if (c->base.input_len <= 0 || c->base.output_len <= 0)
        return aug_errorf(AUG_EUSAGE, "--input-len and --output-len are required (positive)");
    if (c->top_k < 1 || c->top_k > AUG_SWEEP_MAX_TOP)
        return aug_errorf(AUG_EUSAGE, "--top %d must be between 1 and %d", c->top_k, AUG_SWEEP_MAX_TOP);
    if (c->threads < 0 || c->threads > 4096)
        return aug_errorf(AUG_EUSAGE, "--threads %d must be between 0 (all cores) and 4096", c->threads);
    if (!(c->min_throughput >= 0))
        return aug_errorf(AUG_EUSAGE, "--min-throughput must not be negative");
    if (c->n_parts > 1 && (c->part < 0 || c->part >= c->n_parts))
        return aug_errorf(AUG_EUSAGE, "sweep part %d is not in [0, %d)", c->part, c->n_parts);
    if (c->model->arch == AUG_ARCH_MATMULFREE)
        return aug_errorf(AUG_EUNSUPPORTED, "serving of MatMul-free models ('%s') is not modeled",
                          c->model->name);
    return AUG_OK;
}

int aug_sweep_infer(const struct aug_sweep_infer_config *cfg, struct aug_sweep_infer_result *out) {
    double t0 = now_s();
    memset(out, 0, sizeof *out);
    int st = check(cfg);
    if (st != AUG_OK)
        return st;
    struct ictx x;
    memset(&x, 0, sizeof x);
    x.cfg = cfg;
    atomic_init(&x.next, 0);
    atomic_init(&x.done, 0);
    atomic_init(&x.stop, 0);
    if ((st = build_units(cfg, &x)) != AUG_OK) {
        free(x.units);
        return st;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cfg->threads > 0 ? cfg->threads : (cores > 0 ? (int)(cores < 4096 ? cores : 4096) : 1);
    if ((size_t)nt > x.n_units)
        nt = x.n_units > 0 ? (int)x.n_units : 1;
    struct iworker *w = calloc((size_t)nt, sizeof *w);
    if (!w) {
        free(x.units);
        return aug_errorf(AUG_ENOMEM, "sweep: out of memory for %d threads", nt);
    }
    for (int i = 0; i < nt && st == AUG_OK; i++) {
        w[i].c = &x;
        if (!(w[i].top = calloc((size_t)cfg->top_k, sizeof *w[i].top)))
            st = aug_errorf(AUG_ENOMEM, "sweep: out of memory for the top list");
    }
    int spawned = 1;
    for (int i = 1; i < nt && st == AUG_OK; i++, spawned++)
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
            break;
    if (st == AUG_OK)
        worker_main(&w[0]);
    for (int i = 1; i < spawned; i++)
        pthread_join(w[i].thread, NULL);
    if (cfg->progress)
        cfg->progress(atomic_load(&x.done), x.n_units, cfg->progress_user);

    size_t n_all = 0;
    for (int i = 0; i < nt; i++) {
        out->plans_evaluated += w[i].evaluated;
        out->plans_valid += w[i].fit;
        out->plans_timed += w[i].timed;
        out->plans_meeting_target += w[i].meeting;
        n_all += (size_t)w[i].n_top + (size_t)w[i].n_front;
        if (st == AUG_OK && w[i].status != AUG_OK)
            st = aug_errorf(w[i].status, "%s", w[i].err);
    }
    if (st == AUG_OK) {
        struct aug_sweep_infer_entry *all = malloc((n_all ? n_all : 1) * sizeof *all);
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
            int k = aug_rank_top_of(&infer_keys, all, (int)n, cfg->top_k);
            if (k > 0)
                aug_rank_copy(out->top, all, (size_t)k * sizeof *all);
            n = 0;
            for (int i = 0; i < nt; i++) {
                aug_rank_copy(all + n, w[i].front, (size_t)w[i].n_front * sizeof *all);
                n += (size_t)w[i].n_front;
            }
            int f = aug_rank_front_of(&infer_keys, all, (int)n);
            out->pareto = all;
            if (k < 0 || f < 0)
                st = aug_errorf(AUG_ENOMEM, "sweep: out of memory merging results");
            else {
                out->n_top = k;
                out->n_pareto = f;
            }
        }
    }
    for (int i = 0; i < nt; i++) {
        free(w[i].top);
        free(w[i].front);
    }
    free(w);
    free(x.units);
    out->threads = nt;
    out->elapsed_s = now_s() - t0;
    if (st != AUG_OK)
        aug_sweep_infer_result_free(out);
    return st;
}

int aug_sweep_infer_merge(struct aug_sweep_infer_result *r, int top_k,
                          const struct aug_sweep_infer_entry *e, int n) {
    void *top = r->top, *front = r->pareto;
    int st = aug_rank_merge(&infer_keys, &top, &r->n_top, &front, &r->n_pareto, top_k, e, n);
    r->top = top;
    r->pareto = front;
    return st;
}

void aug_sweep_infer_result_free(struct aug_sweep_infer_result *r) {
    if (!r)
        return;
    free(r->top);
    free(r->pareto);
    r->top = r->pareto = NULL;
    r->n_top = r->n_pareto = 0;
}
