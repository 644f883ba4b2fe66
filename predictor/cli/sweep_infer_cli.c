/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_infer_cli.c - `augur sweep infer`: serving plans ranked by end-to-end latency among
 * those reaching a throughput target, the front of latency against memory per GPU, and why
 * the best plan beats the runner-up, as a table, JSON or CSV (and a plot of the front). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/csvio.h"
#include "infer_cli.h"
#include "sweep_cli.h"
#include "sweep_mpi.h"
#include "sweep_opts.h"

static void plan_cols(FILE *f, const struct aug_infer_plan *p) {
    fprintf(f, " %3ld %4ld %3ld %5ld %7ld\n", p->tp, p->pp, p->ep, p->dp, p->batch);
}

static const char plan_head[] = "  tp   pp  ep    dp   batch";

/* The phases' breakdowns summed: prefill plus all decode steps. */
static const struct {
    const char *name;
    size_t off;
} parts[] = {
    {"gemm", offsetof(struct aug_infer_breakdown, gemm_s)},
    {"attention", offsetof(struct aug_infer_breakdown, attention_s)},
    {"memory", offsetof(struct aug_infer_breakdown, memory_s)},
    {"lm_head", offsetof(struct aug_infer_breakdown, lm_head_s)},
    {"tp_comm", offsetof(struct aug_infer_breakdown, tp_comm_s)},
    {"pp_comm", offsetof(struct aug_infer_breakdown, pp_comm_s)},
    {"bubble", offsetof(struct aug_infer_breakdown, bubble_s)},
    {"overhead", offsetof(struct aug_infer_breakdown, overhead_s)},
};
#define N_PARTS ((int)(sizeof parts / sizeof *parts))

static double part(const struct aug_infer_result *r, int i, int decode) {
    const struct aug_infer_breakdown *b = decode ? &r->decode : &r->prefill;
    return *(const double *)((const char *)b + parts[i].off);
}

/* The runner-up: the first plan of the top list that is slower than the best, not tied. */
static int runner_up(const struct aug_sweep_infer_result *r) {
    for (int i = 1; i < r->n_top; i++)
        if (r->top[i].result.e2e_latency_s > r->top[0].result.e2e_latency_s)
            return i;
    return r->n_top > 1 ? 1 : -1;
}

static void why_text(const struct aug_sweep_infer_entry *a, const struct aug_sweep_infer_entry *b,
                     int rb, char *buf, size_t n) {
    double ta = a->result.e2e_latency_s, tb = b->result.e2e_latency_s;
    snprintf(buf, n, "rank 1 finishes a request %.3g%% sooner than rank %d (%.6g s vs %.6g s): TTFT "
                     "%.4g vs %.4g s, TPOT %.4g vs %.4g s; throughput %.4g vs %.4g tokens/s; "
                     "memory %.3g vs %.3g GiB per GPU",
             100.0 * (tb - ta) / tb, rb, ta, tb, a->result.ttft_s, b->result.ttft_s, a->result.tpot_s,
             b->result.tpot_s, a->result.throughput_tokens_per_s, b->result.throughput_tokens_per_s,
             a->result.memory.total_gib, b->result.memory.total_gib);
}

json_t *aug_sweep_cli_infer_json(const struct aug_sweep_view *v, const struct aug_sweep_infer_result *r) {
    const struct aug_sweep_infer_config *c = v->infer;
    json_t *o = json_object();
    char cal[1024];
    aug_sweep_cli_calibration(v, cal, sizeof cal);
    json_object_set_new(o, "mode", json_string("infer"));
    json_object_set_new(o, "model", json_string(v->model->name));
    json_object_set_new(o, "system", json_string(v->system->name));
    json_object_set_new(o, "gpu", json_string(v->system->gpu.id));
    json_object_set_new(o, "gpus", json_integer(c->base.gpus));
    json_object_set_new(o, "batch", c->base.batch > 0 ? json_integer(c->base.batch) : json_string("open"));
    json_object_set_new(o, "input_len", json_integer(c->base.input_len));
    json_object_set_new(o, "output_len", json_integer(c->base.output_len));
    json_object_set_new(o, "min_throughput", json_real(c->min_throughput));
    json_object_set_new(o, "plans_evaluated", json_integer((json_int_t)r->plans_evaluated));
    json_object_set_new(o, "plans_valid", json_integer((json_int_t)r->plans_valid));
    json_object_set_new(o, "plans_timed", json_integer((json_int_t)r->plans_timed));
    json_object_set_new(o, "plans_meeting_target", json_integer((json_int_t)r->plans_meeting_target));
    json_object_set_new(o, "elapsed_s", json_real(r->elapsed_s));
    json_object_set_new(o, "threads", json_integer(r->threads));
    json_object_set_new(o, "processes", json_integer(v->ranks));
    json_object_set_new(o, "calibration", json_string(cal));
    json_t *top = json_array();
    for (int i = 0; i < r->n_top; i++) {
        json_t *e = aug_cli_infer_json(v->model, v->system, &r->top[i].plan, &r->top[i].result,
                                       v->kdb, v->roofline);
        json_object_set_new(e, "rank", json_integer(i + 1));
        json_array_append_new(top, e);
    }
    json_object_set_new(o, "top", top);
    json_t *front = json_array();
    for (int i = 0; i < r->n_pareto; i++)
        json_array_append_new(front, aug_cli_infer_json(v->model, v->system, &r->pareto[i].plan,
                                                        &r->pareto[i].result, v->kdb, v->roofline));
    json_object_set_new(o, "pareto", front);
    int ru = runner_up(r);
    if (ru > 0) {
        char text[512];
        why_text(&r->top[0], &r->top[ru], ru + 1, text, sizeof text);
        json_t *why = json_object(), *d = json_object();
        for (int ph = 0; ph < 2; ph++)
            for (int i = 0; i < N_PARTS; i++) {
                char key[48];
                snprintf(key, sizeof key, "%s_%s", ph ? "decode" : "prefill", parts[i].name);
                json_object_set_new(d, key, json_real(part(&r->top[ru].result, i, ph) -
                                                      part(&r->top[0].result, i, ph)));
            }
        json_object_set_new(why, "best_rank", json_integer(1));
        json_object_set_new(why, "other_rank", json_integer(ru + 1));
        json_object_set_new(why, "other_minus_best_s", d);
        json_object_set_new(why, "summary", json_string(text));
        json_object_set_new(o, "why", why);
    }
    return o;
}

void aug_sweep_cli_infer_table(FILE *f, const struct aug_sweep_view *v,
                               const struct aug_sweep_infer_result *r) {
    const struct aug_sweep_infer_config *c = v->infer;
    const struct aug_system *s = v->system;
    char cal[1024];
    aug_sweep_cli_calibration(v, cal, sizeof cal);
    fprintf(f, "# augur sweep infer: %s (%.4g B params) on %s, %ld x %s\n", v->model->name,
            aug_model_params(v->model) / 1e9, s->name, c->base.gpus, s->gpu.name);
    if (c->base.batch > 0)
        fprintf(f, "# batch %ld, input %ld, output %ld tokens", c->base.batch, c->base.input_len,
                c->base.output_len);
    else
        fprintf(f, "# batch open (powers of two per replica up to what fits), input %ld, output "
                   "%ld tokens", c->base.input_len, c->base.output_len);
    fprintf(f, "; target %.4g output tokens/s over all GPUs\n", c->min_throughput);
    fprintf(f, "# plans: %llu evaluated, %llu fit in %.4g GiB, %llu timed, %llu reach the target; "
               "%.3f s on %d thread%s, %d process%s\n",
            (unsigned long long)r->plans_evaluated, (unsigned long long)r->plans_valid,
            s->gpu.hbm_gib, (unsigned long long)r->plans_timed,
            (unsigned long long)r->plans_meeting_target, r->elapsed_s, r->threads,
            r->threads == 1 ? "" : "s", v->ranks, v->ranks == 1 ? "" : "es");
    fprintf(f, "# efficiencies: %s\n", cal);
    if (r->n_top == 0) {
        fprintf(f, "\nno plan fits and reaches %.4g tokens/s\n", c->min_throughput);
        return;
    }
    fprintf(f, "\ntop %d by end-to-end latency:\nrank    e2e_s     ttft_s     tpot_s     tokens/s  "
               "mem_GiB %s\n", r->n_top, plan_head);
    for (int i = 0; i < r->n_top; i++) {
        const struct aug_infer_result *x = &r->top[i].result;
        fprintf(f, "%4d %8.5g %10.5g %10.5g %12.5g %8.2f", i + 1, x->e2e_latency_s, x->ttft_s,
                x->tpot_s, x->throughput_tokens_per_s, x->memory.total_gib);
        plan_cols(f, &r->top[i].plan);
    }
    fprintf(f, "\nPareto front, latency against memory per GPU (%d plans):\n mem_GiB    e2e_s   "
               "tokens/s %s\n", r->n_pareto, plan_head);
    for (int i = 0; i < r->n_pareto; i++) {
        const struct aug_infer_result *x = &r->pareto[i].result;
        fprintf(f, "%8.2f %8.5g %10.5g", x->memory.total_gib, x->e2e_latency_s,
                x->throughput_tokens_per_s);
        plan_cols(f, &r->pareto[i].plan);
    }
    int ru = runner_up(r);
    if (ru > 0) {
        const struct aug_sweep_infer_entry *a = &r->top[0], *b = &r->top[ru];
        char cb[16], cd[16];
        snprintf(cb, sizeof cb, "rank %d", ru + 1);
        snprintf(cd, sizeof cd, "%d - 1", ru + 1);
        fprintf(f, "\nwhy rank 1 beats rank %d (seconds, prefill and all decode steps):\n", ru + 1);
        fprintf(f, "  %-20s %12s %12s %12s\n", "", "rank 1", cb, cd);
        for (int ph = 0; ph < 2; ph++)
            for (int i = 0; i < N_PARTS; i++) {
                double x = part(&a->result, i, ph), y = part(&b->result, i, ph);
                if (x == 0 && y == 0)
                    continue;
                char name[48];
                snprintf(name, sizeof name, "%s %s", ph ? "decode" : "prefill", parts[i].name);
                fprintf(f, "  %-20s %12.6g %12.6g %+12.4g\n", name, x, y, y - x);
            }
        char text[512];
        why_text(a, b, ru + 1, text, sizeof text);
        fprintf(f, "  %s\n", text);
    }
}

static void csv_row(struct aug_csv_writer *w, const char *set, int rank,
                    const struct aug_sweep_infer_entry *e) {
    aug_csv_write_str(w, set);
    aug_csv_write_int(w, rank);
    const long deg[] = {e->plan.tp, e->plan.pp, e->plan.ep, e->plan.dp, e->plan.batch};
    for (size_t i = 0; i < sizeof deg / sizeof *deg; i++)
        aug_csv_write_int(w, deg[i]);
    const struct aug_infer_result *r = &e->result;
    const double val[] = {r->e2e_latency_s, r->ttft_s, r->tpot_s, r->throughput_tokens_per_s,
                          r->memory.total_gib};
    for (size_t i = 0; i < sizeof val / sizeof *val; i++)
        aug_csv_write_num(w, val[i]);
}

int aug_sweep_cli_infer_csv(FILE *f, const struct aug_sweep_view *v,
                            const struct aug_sweep_infer_result *r) {
    (void)v;
    struct aug_csv_writer *w;
    if (aug_csv_writer_fp(f, &w) != AUG_OK)
        return 1;
    static const char *const head[] = {"set", "rank", "tp", "pp", "ep", "dp", "batch",
                                       "e2e_latency_s", "ttft_s", "tpot_s",
                                       "throughput_tokens_per_s", "memory_gib_per_gpu"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        aug_csv_write_str(w, head[i]);
    aug_csv_end_row(w);
    for (int i = 0; i < r->n_top; i++) {
        csv_row(w, "top", i + 1, &r->top[i]);
        aug_csv_end_row(w);
    }
    for (int i = 0; i < r->n_pareto; i++) {
        csv_row(w, "pareto", i + 1, &r->pareto[i]);
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w) == AUG_OK ? 0 : 1;
}

static int plot(const char *path, const struct aug_sweep_view *v, const struct aug_sweep_infer_result *r) {
    double *buf = malloc((size_t)(2 * (r->n_pareto + r->n_top) + 4) * sizeof *buf);
    if (!buf)
        return 1;
    double *fx = buf, *fy = fx + r->n_pareto, *tx = fy + r->n_pareto, *ty = tx + r->n_top;
    for (int i = 0; i < r->n_pareto; i++) {
        fx[i] = r->pareto[i].result.memory.total_gib;
        fy[i] = r->pareto[i].result.e2e_latency_s;
    }
    for (int i = 0; i < r->n_top; i++) {
        tx[i] = r->top[i].result.memory.total_gib;
        ty[i] = r->top[i].result.e2e_latency_s;
    }
    char title[256];
    snprintf(title, sizeof title, "%s serving on %ld x %s (%s): latency vs memory per GPU",
             v->model->name, v->infer->base.gpus, v->system->gpu.name, v->system->name);
    int rc = aug_sweep_cli_plot(path, title, "end-to-end latency (s)", fx, fy, r->n_pareto, tx, ty,
                                r->n_top);
    free(buf);
    return rc;
}

int aug_sweep_run_infer(const struct aug_sweep_opts *o, int rank, int size) {
    if (o->train_only || o->space.dp || o->space.cp || o->space.sp >= 0 || o->space.interleave ||
        o->space.micro_batch || o->space.recompute >= 0 || o->space.zero >= 0 || o->space.fsdp >= 0 ||
        o->space.max_cp || o->space.max_ep || o->space.max_interleave || o->space.max_micro_batch ||
        o->space.uneven_pp || o->no_prune)
        return aug_cli_usage("sweep", "'augur sweep infer' takes --tp, --pp, --ep, --max-tp and "
                                      "--max-pp; the other plan options belong to 'sweep train'");
    if (o->ibase.input_len <= 0 || o->ibase.output_len <= 0)
        return aug_cli_usage("sweep", "--input-len and --output-len are required");
    if (o->slo_ttft > 0 || o->slo_tpot > 0)
        return rank == 0 ? aug_sweep_run_slo(o) : 0;
    if (o->engine || o->num_requests > 0)
        return aug_cli_usage("sweep", "--engine and --num-requests belong to the SLO sweep "
                                      "(--slo-ttft-p99, --slo-tpot-p99)");
    struct aug_model model;
    struct aug_system preset, sys;
    struct aug_scale sc;
    struct aug_kdb *kdb = NULL;
    int st, rc = aug_sweep_cli_inputs(o, &model, &preset, &sc, &sys, &kdb);
    if (rc)
        return rc;
    struct aug_sweep_infer_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.model = &model;
    cfg.system = &sys;
    cfg.base = o->ibase;
    cfg.tp = o->space.tp;
    cfg.pp = o->space.pp;
    cfg.ep = o->space.ep;
    cfg.max_tp = o->space.max_tp;
    cfg.max_pp = o->space.max_pp;
    cfg.max_batch = o->max_batch;
    cfg.min_throughput = o->min_throughput;
    cfg.options.kdb = kdb;
    cfg.options.pure_roofline = o->roofline;
    cfg.top_k = o->top;
    cfg.threads = aug_sweep_cli_threads(o, size);
    cfg.part = rank;
    cfg.n_parts = size;
    struct aug_sweep_infer_result r;
    memset(&r, 0, sizeof r);
    st = aug_sweep_infer(&cfg, &r);
    if (st != AUG_OK && st != AUG_EUSAGE)
        fprintf(stderr, "augur: %s\n", aug_last_error());
    int all = aug_sweep_mpi_status(st);
    if (all == AUG_OK)
        all = aug_sweep_mpi_status(aug_sweep_mpi_gather_infer(&r, cfg.top_k));
    if (st == AUG_EUSAGE) {
        aug_kdb_close(kdb);
        return rank == 0 ? aug_cli_usage("sweep", "%s", aug_last_error()) : 2;
    }
    rc = all == AUG_OK ? 0 : aug_exit_code(all);
    if (all == AUG_OK && rank == 0) {
        struct aug_sweep_view v = {&model, &sys, &preset, &sc, kdb, o->roofline, size, o->top, NULL, &cfg};
        FILE *f = aug_cli_open_output(o->output);
        if (!f) {
            rc = 1;
        } else {
            int bad = 0;
            if (o->fmt == AUG_FORMAT_TABLE) {
                aug_sweep_cli_infer_table(f, &v, &r);
            } else if (o->fmt == AUG_FORMAT_JSON) {
                json_t *j = aug_sweep_cli_infer_json(&v, &r);
                bad = aug_cli_write(f, AUG_FORMAT_JSON, j) != 0;
                json_decref(j);
            } else {
                bad = aug_sweep_cli_infer_csv(f, &v, &r) != 0;
            }
            if (bad)
                aug_cli_discard_output(f);
            rc = bad || aug_cli_close_output(f, o->output) != 0;
            if (!rc && o->plot)
                rc = plot(o->plot, &v, &r);
        }
    }
    aug_sweep_infer_result_free(&r);
    aug_kdb_close(kdb);
    return rc;
}
