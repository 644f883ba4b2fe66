/* SPDX-License-Identifier: Apache-2.0 */
/* scheduler.c - an in-flight-batching engine simulated step by step (augur/serving.h).
 *
 * Each replica runs the loop of an iteration-level scheduler (Orca, Yu et al. OSDI 2022;
 * TensorRT-LLM's batch manager; vLLM, Kwon et al. SOSP 2023):
 * 1. arrivals up to now join the waiting queue (first come, first served; preempted
 *    requests go back to its head);
 * 2. admission, while fewer than max_batch requests run:
 *    - no-evict (TensorRT-LLM GUARANTEED_NO_EVICT): the request's whole context, prompt
 *      plus output, in KV blocks, must fit next to the reservations of the running ones;
 *    - max-util (vLLM, SGLang): the prompt's blocks must fit in the free blocks less a
 *      1% watermark (vLLM's watermark default 0.01);
 * 3. the step: one decode token of every running request whose prompt is done, then
 *    prompt chunks of the admitted requests in admission order until max_num_tokens
 *    tokens (Sarathi-Serve's stall-free batching, Agrawal et al. OSDI 2024; TensorRT-LLM
 *    chunked context); without chunked prefill a prompt goes whole or waits;
 *    under max-util a decode that needs a new block and finds none preempts the most
 *    recently admitted request, which frees its blocks and is recomputed later from its
 *    prompt plus the tokens it had generated (vLLM's recompute preemption);
 * 4. the step's time is that of a forward pass with this composition (step_graph.h: the
 *    decodes at their mean cached context, the chunks at their mean prompt length and
 *    cached prefix), on the slowest pipeline stage with micro-batches as in serving.c,
 *    plus the framework floor; a chunk that completes a prompt, and every decode, emits
 *    a token at the end of the step.
 * Steps with the same composition reuse their timing: the key is the decode count, the
 * chunk count, the prefill tokens, the prompts completing and the mean contexts rounded to
 * 1/64 of their power of two (under 1.6%; decode attention is linear in the context), so
 * 10,000 requests of 2,000 tokens time a few thousand distinct steps.
 *
 * KV capacity: paged blocks of block_tokens tokens; the pool is kv_fraction of the memory
 * left after weights, the activations of the largest step (max_num_tokens tokens,
 * max_batch sampled rows) and the workspace (TensorRT-LLM), or kv_fraction of the GPU's
 * memory less all of those (vLLM, SGLang). Requests are dealt round-robin to replicas.
 * Latencies (server): TTFT = first token - arrival; TPOT = (last - first token) /
 * (output - 1); end-to-end = last token - arrival; inter-token latency = the duration of
 * every step for each decode token it emits (vLLM benchmark_serving's definitions). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/serving.h"
#include "augur/status.h"
#include "augur/units.h"
#include "engine.h"
#include "infer_graph.h"
#include "infer_memory.h"
#include "latency_stats.h"
#include "step_time.h"

/* Steps one replica may simulate: beyond this the run is not a serving question (5 x 10^7
 * steps, a few seconds of simulation). */
#define AUG_SCHED_MAX_STEPS 50000000L

/* vLLM BlockSpaceManager watermark: 1% of the blocks stay free at admission. */
#define AUG_SCHED_WATERMARK 0.01
/* a server is sustainable while the queue at the last arrival holds at most this share of
 * the requests (it grows without bound when arrivals outpace service) */
#define AUG_SCHED_QUEUE_SHARE 0.05

enum rstate { R_PENDING, R_WAITING, R_RUNNING, R_DONE };

struct sreq {
    long in, out;
    double arrival;
    long target;      /* tokens to prefill: the prompt, or prompt + generated after preemption */
    long done_prompt; /* prefilled so far */
    long generated;
    long blocks;      /* KV blocks held */
    long reserved;    /* no-evict: blocks reserved at admission */
    double t_first, t_done;
    int state;
};

/* ---- step timing with reuse ---- */

struct step_key {
    long d, np, ptok, fin;
    double dctx, pctx;
};

struct step_entry {
    struct step_key k;
    int used;
    double t;
    double src[AUG_SOURCE_COUNT];
    double itl_weight; /* decode tokens emitted by steps of this composition */
};

struct step_cache {
    struct step_entry *e;
    size_t cap, n;
};

static double bucket(double x) {
    if (!(x > 64.0))
        return floor(x + 0.5);
    double q = exp2(floor(log2(x)) - 6.0);
    return floor(x / q + 0.5) * q;
}

static size_t key_hash(const struct step_key *k) {
    unsigned long long h = 1469598103934665603ULL;
    double parts[6] = {(double)k->d, (double)k->np, (double)k->ptok, (double)k->fin, k->dctx, k->pctx};
    for (int i = 0; i < 6; i++) {
        unsigned long long v;
        memcpy(&v, &parts[i], sizeof v);
        h = (h ^ v) * 1099511628211ULL;
        h ^= h >> 29;
    }
    return (size_t)h;
}

static int key_eq(const struct step_key *a, const struct step_key *b) {
    return a->d == b->d && a->np == b->np && a->ptok == b->ptok && a->fin == b->fin &&
           a->dctx == b->dctx && a->pctx == b->pctx;
}

static int cache_grow(struct step_cache *c) {
    size_t ncap = c->cap ? c->cap * 2 : 1024;
    struct step_entry *ne = calloc(ncap, sizeof *ne);
    if (!ne)
        return aug_errorf(AUG_ENOMEM, "out of memory for the step-time table");
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->e[i].used)
            continue;
        size_t j = key_hash(&c->e[i].k) & (ncap - 1);
        while (ne[j].used)
            j = (j + 1) & (ncap - 1);
        ne[j] = c->e[i];
    }
    free(c->e);
    c->e = ne;
    c->cap = ncap;
    return AUG_OK;
}

struct sim {
    const struct aug_model *m;
    const struct aug_system *s;
    const struct aug_infer_plan *p;
    struct aug_infer_ctx ctx;
    struct step_cache cache;
};

/* Time of one step of composition k (see the file comment), into e. */
static int time_step(struct sim *S, const struct step_key *k, struct step_entry *e) {
    const struct aug_infer_plan *p = S->p;
    double pp = (double)p->pp, seqs = (double)(k->d + k->np);
    double mb = fmax(1.0, fmin(seqs, pp));
    struct aug_infer_step st;
    memset(&st, 0, sizeof st);
    st.decode_seqs = (double)k->d / mb;
    st.decode_ctx = k->dctx;
    st.prefill_seqs = (double)k->np / mb;
    st.prefill_len = k->np > 0 ? (double)k->ptok / (double)k->np : 0.0;
    st.prefill_ctx = k->pctx;
    st.sample_seqs = (double)(k->d + k->fin) / mb;
    struct aug_infer_graph g;
    aug_infer_graph_build(S->m, S->s, p, &st, &g);
    struct aug_infer_acc acc;
    int rc = aug_infer_stage_time(&S->ctx, S->m, p, &g, 0, &acc);
    if (rc != AUG_OK)
        return rc;
    double send;
    enum aug_source ssrc;
    double tokens = st.decode_seqs + st.prefill_seqs * st.prefill_len;
    if ((rc = aug_infer_pp_send(&S->ctx, S->m, p, tokens, &send, &ssrc)) != AUG_OK)
        return rc;
    double rounds = fmax(mb, pp);
    e->t = rounds * (acc.total + send) + S->ctx.step_overhead_s;
    for (int i = 0; i < AUG_SOURCE_COUNT; i++)
        e->src[i] = rounds * acc.src[i];
    e->src[ssrc] += rounds * send;
    e->src[AUG_SOURCE_FALLBACK] += S->ctx.step_overhead_s;
    return AUG_OK;
}

static int lookup(struct sim *S, const struct step_key *k, struct step_entry **out) {
    struct step_cache *c = &S->cache;
    if ((c->n + 1) * 2 > c->cap) {
        int rc = cache_grow(c);
        if (rc != AUG_OK)
            return rc;
    }
    size_t j = key_hash(k) & (c->cap - 1);
    while (c->e[j].used) {
        if (key_eq(&c->e[j].k, k)) {
            *out = &c->e[j];
            return AUG_OK;
        }
        j = (j + 1) & (c->cap - 1);
    }
    struct step_entry *e = &c->e[j];
    memset(e, 0, sizeof *e);
    e->k = *k;
    int rc = time_step(S, k, e);
    if (rc != AUG_OK)
        return rc;
    e->used = 1;
    c->n++;
    *out = e;
    return AUG_OK;
}

/* ---- one replica ---- */

struct limits {
    long max_batch, max_tokens, block, blocks;
    double req_overhead_s;
    int chunked;
    enum aug_sched_policy policy;
};

struct totals {
    double end_s, start_s;
    double batch_time, kv_time, tokens_steps;
    long steps, prefill_steps, decode_steps, mixed_steps;
    double prefill_s, decode_s, mixed_s;
    long preemptions;
    double src[AUG_SOURCE_COUNT];
    long queued_at_last;
};

static long blocks_for(long tokens, long block) {
    return (tokens + block - 1) / block;
}

/* A running request's KV need after `tokens` more are cached. */
static void hold(struct sreq *q, long cached, const struct limits *L, long *used) {
    long nb = blocks_for(cached, L->block);
    if (nb > q->blocks) {
        *used += nb - q->blocks;
        q->blocks = nb;
    }
}

/* Run the requests `idx[0..n)` (in arrival order) of one replica. */
static int run_replica(struct sim *S, struct sreq *R, const long *idx, long n, const struct limits *L,
                       struct totals *T) {
    long cap = n + 1;
    long *wait = malloc((size_t)cap * sizeof *wait); /* waiting queue (ring of indices) */
    long *run = malloc((size_t)cap * sizeof *run);   /* running, in admission order */
    long *work = malloc((size_t)cap * sizeof *work); /* this step: -1 decode, > 0 chunk */
    if (!wait || !run || !work) {
        free(wait);
        free(run);
        free(work);
        return aug_errorf(AUG_ENOMEM, "out of memory for the scheduler queues");
    }
    long wh = 0, wn = 0, nrun = 0, next = 0, finished = 0;
    long used = 0, reserved = 0;
    long watermark = (long)floor(AUG_SCHED_WATERMARK * (double)L->blocks);
    double t = n > 0 ? R[idx[0]].arrival : 0.0;
    T->start_s = t;
    int rc = AUG_OK;
    while (finished < n) {
        /* 1. arrivals */
        if (nrun == 0 && wn == 0 && next < n && R[idx[next]].arrival > t)
            t = R[idx[next]].arrival;
        int last_arrived = 0;
        while (next < n && R[idx[next]].arrival <= t) {
            R[idx[next]].state = R_WAITING;
            wait[(wh + wn) % cap] = idx[next];
            wn++;
            next++;
            last_arrived = next == n;
        }
        /* 2. admission */
        while (wn > 0 && nrun < L->max_batch) {
            struct sreq *q = &R[wait[wh]];
            if (L->policy == AUG_SCHED_NO_EVICT) {
                long need = blocks_for(q->in + q->out, L->block);
                if (reserved + need > L->blocks)
                    break;
                q->reserved = need;
                reserved += need;
            } else {
                long need = blocks_for(q->target, L->block);
                long room = L->blocks - (nrun > 0 ? watermark : 0);
                if (used + need > room)
                    break;
                q->blocks = need;
                used += need;
            }
            q->state = R_RUNNING;
            run[nrun++] = wait[wh];
            wh = (wh + 1) % cap;
            wn--;
        }
        if (last_arrived)
            T->queued_at_last = wn;
        if (nrun == 0) {
            if (wn > 0) {
                rc = aug_errorf(AUG_EUSAGE, "a request of %ld + %ld tokens does not fit the KV cache "
                                            "of %ld blocks of %ld tokens", R[wait[wh]].in,
                                R[wait[wh]].out, L->blocks, L->block);
                break;
            }
            continue;
        }
        /* 3a. max-util: every decode needs room for one more token; preempt the most
         * recently admitted request (recompute) while a block is missing */
        if (L->policy == AUG_SCHED_MAX_UTIL) {
            for (long i = 0; i < nrun; i++) {
                struct sreq *q = &R[run[i]];
                if (q->done_prompt < q->target || q->generated >= q->out)
                    continue;
                long cached = q->in + q->generated - 1;
                long need = blocks_for(cached + 1, L->block) - q->blocks;
                while (need > 0 && used + need > L->blocks && nrun - 1 > i) {
                    long v = run[--nrun];
                    struct sreq *x = &R[v];
                    used -= x->blocks;
                    x->blocks = 0;
                    x->target = x->in + x->generated;
                    x->done_prompt = 0;
                    x->state = R_WAITING;
                    wh = (wh + cap - 1) % cap;
                    wait[wh] = v;
                    wn++;
                    T->preemptions++;
                }
                if (need > 0 && used + need > L->blocks) {
                    if (i == 0) {
                        rc = aug_errorf(AUG_EUSAGE, "a request of %ld + %ld tokens outgrows the KV "
                                                    "cache of %ld blocks", q->in, q->out, L->blocks);
                        goto out;
                    }
                    /* the last admitted is this one: it yields its own blocks */
                    long v = run[--nrun];
                    used -= q->blocks;
                    q->blocks = 0;
                    q->target = q->in + q->generated;
                    q->done_prompt = 0;
                    q->state = R_WAITING;
                    wh = (wh + cap - 1) % cap;
                    wait[wh] = v;
                    wn++;
                    T->preemptions++;
                    break;
                }
                hold(q, cached + 1, L, &used);
            }
        }
        /* 3b. the step's work: decodes, then prompt chunks in admission order */
        long budget = L->max_tokens, d = 0, np = 0, ptok = 0, fin = 0;
        double dctx = 0.0, pctx = 0.0;
        for (long i = 0; i < nrun; i++) {
            struct sreq *q = &R[run[i]];
            work[i] = 0;
            if (q->done_prompt >= q->target && q->generated < q->out && budget > 0) {
                work[i] = -1;
                dctx += (double)(q->in + q->generated - 1);
                d++;
                budget--;
            }
        }
        for (long i = 0; i < nrun && budget > 0; i++) {
            struct sreq *q = &R[run[i]];
            long rem = q->target - q->done_prompt;
            if (rem <= 0)
                continue;
            long chunk = rem <= budget ? rem : (L->chunked ? budget : 0);
            if (chunk <= 0)
                continue;
            work[i] = chunk;
            np++;
            ptok += chunk;
            pctx += (double)q->done_prompt;
            fin += chunk == rem;
            budget -= chunk;
        }
        if (d == 0 && np == 0) {
            rc = aug_errorf(AUG_EUSAGE, "no request can make progress: a prompt exceeds the token "
                                        "budget of %ld tokens per step without chunked prefill",
                            L->max_tokens);
            break;
        }
        if (T->steps >= AUG_SCHED_MAX_STEPS) {
            rc = aug_errorf(AUG_EUSAGE, "the run needs more than %ld scheduler steps per replica: "
                                        "fewer or shorter requests, or a larger batch",
                            AUG_SCHED_MAX_STEPS);
            break;
        }
        struct step_key k = {d, np, ptok, fin, d > 0 ? bucket(dctx / (double)d) : 0.0,
                             np > 0 ? bucket(pctx / (double)np) : 0.0};
        struct step_entry *e;
        if ((rc = lookup(S, &k, &e)) != AUG_OK)
            break;
        double dt = e->t + L->req_overhead_s * (double)nrun;
        e->itl_weight += (double)d;
        t += dt;
        for (int i = 0; i < AUG_SOURCE_COUNT; i++)
            T->src[i] += e->src[i];
        T->src[AUG_SOURCE_FALLBACK] += dt - e->t;
        T->steps++;
        T->batch_time += (double)nrun * dt;
        T->tokens_steps += (double)(d + ptok);
        if (d > 0 && np > 0) {
            T->mixed_steps++;
            T->mixed_s += dt;
        } else if (d > 0) {
            T->decode_steps++;
            T->decode_s += dt;
        } else {
            T->prefill_steps++;
            T->prefill_s += dt;
        }
        /* 4. the step's results: every decode and every completed prompt emits a token;
         * finished requests leave and free their blocks */
        long kept = 0;
        for (long i = 0; i < nrun; i++) {
            struct sreq *q = &R[run[i]];
            if (work[i] < 0) {
                q->generated++;
                hold(q, q->in + q->generated - 1, L, &used);
            } else if (work[i] > 0) {
                q->done_prompt += work[i];
                hold(q, q->done_prompt, L, &used);
                if (q->done_prompt == q->target) {
                    if (q->generated == 0)
                        q->t_first = t;
                    q->generated++;
                }
            }
            if (q->done_prompt >= q->target && q->generated >= q->out) {
                q->state = R_DONE;
                q->t_done = t;
                used -= q->blocks;
                reserved -= q->reserved;
                q->blocks = q->reserved = 0;
                finished++;
            } else {
                run[kept++] = run[i];
            }
        }
        T->kv_time += (double)used * dt;
        nrun = kept;
    }
out:
    T->end_s = t;
    free(wait);
    free(run);
    free(work);
    return rc;
}

/* ---- the run ---- */


struct order {
    long i;
    double t;
};

static int cmp_order(const void *a, const void *b) {
    const struct order *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i); /* stable: file order among equal times */
}

double aug_serve_step_floor_us(const struct aug_serve_config *c, const struct aug_model *m,
                               const struct aug_infer_plan *p) {
    double layer = c->layer_overhead_us > 0 ? c->layer_overhead_us : 0.0;
    if (!(c->step_overhead_us >= 0) && !(layer > 0))
        return -1.0;
    return fmax(c->step_overhead_us, 0.0) + layer * (double)aug_infer_stage_layers(m, p);
}

/* The settings the engine picks for this run and the KV pool they leave. */
static int resolve_limits(const struct aug_model *m, const struct aug_system *s,
                          const struct aug_infer_plan *p, const struct aug_requests *reqs,
                          struct aug_serve_config *c, struct limits *L,
                          struct aug_infer_memory *mem, double *kv_tok_bytes) {
    if (!(c->kv_fraction > 0 && c->kv_fraction <= 1.0))
        return aug_errorf(AUG_EUSAGE, "KV-cache fraction %g: must be in (0, 1]", c->kv_fraction);
    if (c->block_tokens < 1 || c->max_batch < 0 || c->max_num_tokens < 0)
        return aug_errorf(AUG_EUSAGE, "block tokens %ld, max batch %ld and max num tokens %ld: must "
                                      "be positive (0 for the engine's default limits)",
                          c->block_tokens, c->max_batch, c->max_num_tokens);
    if ((unsigned)c->policy >= AUG_SCHED_COUNT || (unsigned)c->engine >= AUG_ENGINE_COUNT)
        return aug_errorf(AUG_EUSAGE, "unknown engine or scheduler policy");
    double isl = 0.0, osl = 0.0;
    for (long i = 0; i < reqs->n; i++) {
        isl += (double)reqs->r[i].input_len;
        osl += (double)reqs->r[i].output_len;
    }
    isl /= (double)reqs->n;
    osl /= (double)reqs->n;
    long mb = 0, mt = 0;
    long tpk = m->kv_heads > p->tp ? m->kv_heads : p->tp;
    double kv_model = 2.0 * (double)m->layers * (double)tpk * (double)m->head_dim *
                      aug_dtype_bytes(p->kv_dtype);
    aug_engine_auto_limits(c, s->gpu.hbm_gib, aug_model_params(m), aug_dtype_bytes(p->weight_dtype),
                           kv_model, p->tp, p->pp, isl, osl, &mb, &mt);
    if (c->max_batch == 0)
        c->max_batch = mb;
    if (c->max_num_tokens == 0)
        c->max_num_tokens = mt;
    struct aug_infer_memory one, zero;
    aug_infer_memory_at(m, s, p, 1.0, 1.0, 0.0, &one);
    aug_infer_memory_at(m, s, p, 1.0, 0.0, 0.0, &zero);
    *kv_tok_bytes = (one.kv_cache_gib - zero.kv_cache_gib) * AUG_GIB;
    aug_infer_memory_at(m, s, p, (double)c->max_batch, 0.0, (double)c->max_num_tokens, mem);
    double cap = s->gpu.hbm_gib;
    double kv_gib = c->kv_base == AUG_KV_OF_FREE ? c->kv_fraction * (cap - mem->total_gib)
                                                 : c->kv_fraction * cap - mem->total_gib;
    if (!(kv_gib > 0) || !(*kv_tok_bytes > 0))
        return aug_errorf(AUG_EUNSUPPORTED, "no room for a KV cache: weights %.2f GiB, activations "
                                            "%.2f GiB and workspace %.2f GiB per GPU of %.2f GiB "
                                            "(%s, KV fraction %.2f)", mem->weights_gib,
                          mem->activations_gib, mem->workspace_gib, cap, aug_engine_name(c->engine),
                          c->kv_fraction);
    mem->kv_cache_gib = kv_gib;
    mem->total_gib += kv_gib;
    double tokens = floor(kv_gib * AUG_GIB / *kv_tok_bytes);
    L->block = c->block_tokens;
    L->blocks = (long)fmin(tokens / (double)c->block_tokens, 4e18);
    L->max_batch = c->max_batch;
    L->max_tokens = c->max_num_tokens;
    L->chunked = c->chunked_prefill;
    L->policy = c->policy;
    if (!(c->layer_overhead_us >= 0) || !isfinite(c->layer_overhead_us))
        return aug_errorf(AUG_EUSAGE, "per-layer step overhead %g us: must be finite and not "
                                      "negative", c->layer_overhead_us);
    if (!(c->request_overhead_us >= 0) || !isfinite(c->request_overhead_us))
        return aug_errorf(AUG_EUSAGE, "per-request step overhead %g us: must be finite and not "
                                      "negative", c->request_overhead_us);
    L->req_overhead_s = c->request_overhead_us * 1e-6;
    return AUG_OK;
}

int aug_serve_simulate(const struct aug_model *m, const struct aug_system *s,
                       const struct aug_infer_plan *p, const struct aug_infer_options *opt,
                       const struct aug_serve_config *cfg, const struct aug_requests *reqs,
                       enum aug_scenario scenario, struct aug_serve_result *out) {
    memset(out, 0, sizeof *out);
    if (!reqs || reqs->n < 1 || !reqs->r)
        return aug_errorf(AUG_EUSAGE, "no requests to serve");
    if (p->dp < 1 || (unsigned)p->kv_dtype >= AUG_DTYPE_COUNT ||
        (unsigned)p->weight_dtype >= AUG_DTYPE_COUNT)
        return aug_errorf(AUG_EUSAGE, "the serving plan was not resolved (aug_infer_plan_resolve)");
    for (long i = 0; i < reqs->n; i++) {
        const struct aug_request *q = &reqs->r[i];
        if (q->input_len < 1 || q->output_len < 1)
            return aug_errorf(AUG_EUSAGE, "request %ld: input length %ld and output length %ld must "
                                          "be at least 1 token", i + 1, q->input_len, q->output_len);
        if (!(q->arrival_s >= 0) || !isfinite(q->arrival_s))
            return aug_errorf(AUG_EUSAGE, "request %ld: arrival time %g s must be finite and not "
                                          "negative", i + 1, q->arrival_s);
        if (m->max_seq > 0 && q->input_len + q->output_len > m->max_seq)
            return aug_errorf(AUG_EUSAGE, "request %ld: %ld + %ld tokens exceed the maximum context "
                                          "of model '%s' (%ld tokens)", i + 1, q->input_len,
                              q->output_len, m->name, m->max_seq);
    }
    struct aug_serve_config c = *cfg;
    struct aug_infer_plan plan = *p;
    if (plan.step_overhead_us < 0)
        plan.step_overhead_us = aug_serve_step_floor_us(&c, m, p);
    if (!isfinite(plan.step_overhead_us) || plan.step_overhead_us > 1e9)
        return aug_errorf(AUG_EUSAGE, "step floor %g us (%g us per step and %g us per layer): "
                                      "must be finite and at most 1e9 us", plan.step_overhead_us,
                          c.step_overhead_us, c.layer_overhead_us);
    if (c.workspace_gib >= 0 && plan.workspace_gib < 0)
        plan.workspace_gib = c.workspace_gib;
    struct limits L;
    memset(&L, 0, sizeof L);
    double kv_tok;
    int rc = resolve_limits(m, s, &plan, reqs, &c, &L, &out->memory, &kv_tok);
    if (rc != AUG_OK)
        return rc;
    for (long i = 0; i < reqs->n; i++) {
        const struct aug_request *q = &reqs->r[i];
        if (blocks_for(q->input_len + q->output_len, L.block) > L.blocks)
            return aug_errorf(AUG_EUSAGE, "request %ld: %ld + %ld tokens do not fit the KV cache of "
                                          "%.0f tokens per replica", i + 1, q->input_len,
                              q->output_len, (double)L.blocks * (double)L.block);
        if (!L.chunked && q->input_len > L.max_tokens)
            return aug_errorf(AUG_EUSAGE, "request %ld: a prompt of %ld tokens exceeds max num tokens "
                                          "%ld without chunked prefill", i + 1, q->input_len,
                              L.max_tokens);
    }
    struct sim S;
    memset(&S, 0, sizeof S);
    S.m = m;
    S.s = s;
    S.p = &plan;
    aug_infer_ctx_init(&S.ctx, s, &plan, opt);

    long n = reqs->n;
    struct sreq *R = calloc((size_t)n, sizeof *R);
    struct order *ord = calloc((size_t)n, sizeof *ord);
    long *idx = calloc((size_t)n, sizeof *idx);
    double *lat = calloc((size_t)n, sizeof *lat);
    if (!R || !ord || !idx || !lat) {
        rc = aug_errorf(AUG_ENOMEM, "out of memory for %ld requests", n);
        goto done;
    }
    for (long i = 0; i < n; i++) {
        const struct aug_request *q = &reqs->r[i];
        R[i].in = q->input_len;
        R[i].out = q->output_len;
        R[i].arrival = scenario == AUG_SCENARIO_SERVER ? q->arrival_s : 0.0;
        R[i].target = q->input_len;
        ord[i].i = i;
        ord[i].t = R[i].arrival;
        out->input_tokens += (double)q->input_len;
        out->output_tokens += (double)q->output_len;
    }
    qsort(ord, (size_t)n, sizeof *ord, cmp_order);
    struct totals all;
    memset(&all, 0, sizeof all);
    double start = INFINITY, end = 0.0;
    long dp = p->dp;
    for (long r = 0; r < dp; r++) {
        long k = 0;
        for (long i = r; i < n; i += dp)
            idx[k++] = ord[i].i;
        if (k == 0)
            continue;
        struct totals T;
        memset(&T, 0, sizeof T);
        if ((rc = run_replica(&S, R, idx, k, &L, &T)) != AUG_OK)
            goto done;
        start = fmin(start, T.start_s);
        end = fmax(end, T.end_s);
        all.batch_time += T.batch_time;
        all.kv_time += T.kv_time;
        all.tokens_steps += T.tokens_steps;
        all.steps += T.steps;
        all.prefill_steps += T.prefill_steps;
        all.decode_steps += T.decode_steps;
        all.mixed_steps += T.mixed_steps;
        all.prefill_s += T.prefill_s;
        all.decode_s += T.decode_s;
        all.mixed_s += T.mixed_s;
        all.preemptions += T.preemptions;
        all.queued_at_last += T.queued_at_last;
        for (int i = 0; i < AUG_SOURCE_COUNT; i++)
            all.src[i] += T.src[i];
    }
    out->scenario = scenario;
    out->config = c;
    out->requests = n;
    out->duration_s = end - start;
    double busy = all.prefill_s + all.decode_s + all.mixed_s;
    if (out->duration_s > 0) {
        out->output_tokens_per_s = out->output_tokens / out->duration_s;
        out->total_tokens_per_s = (out->input_tokens + out->output_tokens) / out->duration_s;
        out->requests_per_s = (double)n / out->duration_s;
    }
    if (busy > 0) {
        out->mean_batch = all.batch_time / busy;
        out->kv_utilization = all.kv_time / busy / (double)L.blocks;
    }
    out->mean_tokens_per_step = all.steps > 0 ? all.tokens_steps / (double)all.steps : 0.0;
    out->kv_blocks = L.blocks;
    out->kv_capacity_tokens = (double)L.blocks * (double)L.block;
    out->kv_cache_gib = out->memory.kv_cache_gib;
    out->steps = all.steps;
    out->prefill_steps = all.prefill_steps;
    out->decode_steps = all.decode_steps;
    out->mixed_steps = all.mixed_steps;
    out->prefill_s = all.prefill_s;
    out->decode_s = all.decode_s;
    out->mixed_s = all.mixed_s;
    out->preemptions = all.preemptions;
    out->distinct_steps = (long)S.cache.n;
    double sum = all.src[0] + all.src[1] + all.src[2];
    if (sum > 0) {
        out->provenance.calibrated = all.src[AUG_SOURCE_CURVE] / sum;
        out->provenance.fallback = all.src[AUG_SOURCE_FALLBACK] / sum;
        out->provenance.roofline = all.src[AUG_SOURCE_ROOFLINE] / sum;
    }
    /* latencies */
    if (scenario == AUG_SCENARIO_SERVER) {
        double first = INFINITY, last = 0.0;
        for (long i = 0; i < n; i++) {
            first = fmin(first, R[i].arrival);
            last = fmax(last, R[i].arrival);
        }
        out->offered_rate = n > 1 && last > first ? (double)(n - 1) / (last - first) : 0.0;
        out->queued_at_last_arrival = all.queued_at_last;
        out->sustainable = (double)all.queued_at_last <= fmax(1.0, AUG_SCHED_QUEUE_SHARE * (double)n);
    } else {
        out->sustainable = 1;
    }
    for (long i = 0; i < n; i++)
        lat[i] = R[i].t_first - R[i].arrival;
    aug_latency_stats_fill(lat, n, &out->ttft);
    for (long i = 0; i < n; i++)
        lat[i] = R[i].t_done - R[i].arrival;
    aug_latency_stats_fill(lat, n, &out->e2e);
    long k = 0;
    for (long i = 0; i < n; i++)
        if (R[i].out > 1)
            lat[k++] = (R[i].t_done - R[i].t_first) / (double)(R[i].out - 1);
    aug_latency_stats_fill(lat, k, &out->tpot);
    {
        size_t ne = S.cache.n;
        double *v = ne ? malloc(ne * sizeof *v) : NULL, *w = ne ? malloc(ne * sizeof *w) : NULL;
        if (ne && (!v || !w)) {
            free(v);
            free(w);
            rc = aug_errorf(AUG_ENOMEM, "out of memory for the inter-token latencies");
            goto done;
        }
        long j = 0;
        for (size_t i = 0; i < S.cache.cap; i++)
            if (S.cache.e[i].used) {
                v[j] = S.cache.e[i].t;
                w[j] = S.cache.e[i].itl_weight;
                j++;
            }
        aug_latency_stats_weighted(v, w, j, &out->itl);
        free(v);
        free(w);
    }
done:
    free(S.cache.e);
    free(R);
    free(ord);
    free(idx);
    free(lat);
    return rc;
}
