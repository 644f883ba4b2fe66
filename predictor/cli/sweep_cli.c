/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_cli.c - output of `augur sweep train`: the top plans, the Pareto front of step time
 * against memory per GPU, why the best plan beats the runner-up (their breakdowns side by
 * side), as a table, JSON or CSV; the gnuplot plot of the front; the progress bar. */
#include "sweep_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "augur/csvio.h"
#include "augur/status.h"
#include "core/atomic_write.h"
#include "train_cli.h"

extern char **environ;

/* Front plans a table shows at most. */
#define AUG_SWEEP_TABLE_FRONT 40

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void aug_sweep_cli_calibration(const struct aug_sweep_view *v, char *buf, size_t n) {
    int what_if = v->scale && !aug_scale_is_identity(v->scale);
    int curves = v->kdb ? aug_kdb_curve_count(v->kdb) : 0;
    const char *gpu = v->system->gpu.id;
    if (v->roofline) {
        snprintf(buf, n, "pure roofline: peak rates, no efficiencies%s",
                 what_if ? " (of the scaled system)" : "");
        return;
    }
    if (!what_if) {
        if (curves)
            snprintf(buf, n, "calibrated curves of kernels-db/%s (%d), documented default "
                             "efficiencies where none applies", gpu, curves);
        else
            snprintf(buf, n, "no calibrated curves for %s: documented default efficiencies", gpu);
        return;
    }
    char desc[256];
    aug_scale_describe(v->scale, desc, sizeof desc);
    if (curves)
        snprintf(buf, n, "what-if %s from %s (%s); calibrated efficiencies of kernels-db/%s (%d "
                         "curves) carried over to the scaled system: GEMM and attention "
                         "efficiencies apply to the scaled peaks, memory-bound and collective "
                         "time curves are rescaled by the bandwidth and latency factors",
                 v->system->name, v->preset->name, desc, gpu, curves);
    else
        snprintf(buf, n, "what-if %s from %s (%s); no calibrated curves for %s: the documented "
                         "default efficiencies carried over to the scaled system",
                 v->system->name, v->preset->name, desc, gpu);
}

/* ---- the breakdown of a step, by name ---- */

static const struct {
    const char *name;
    size_t off;
} parts[] = {
    {"compute", offsetof(struct aug_train_breakdown, compute_s)},
    {"attention", offsetof(struct aug_train_breakdown, attention_s)},
    {"recompute", offsetof(struct aug_train_breakdown, recompute_s)},
    {"embedding", offsetof(struct aug_train_breakdown, embedding_s)},
    {"tp_comm", offsetof(struct aug_train_breakdown, tp_comm_s)},
    {"cp_comm", offsetof(struct aug_train_breakdown, cp_comm_s)},
    {"ep_comm", offsetof(struct aug_train_breakdown, ep_comm_s)},
    {"pp_comm", offsetof(struct aug_train_breakdown, pp_comm_s)},
    {"dp_comm", offsetof(struct aug_train_breakdown, dp_comm_s)},
    {"pipeline_bubble", offsetof(struct aug_train_breakdown, pipeline_bubble_s)},
    {"optimizer", offsetof(struct aug_train_breakdown, optimizer_s)},
    {"overhead", offsetof(struct aug_train_breakdown, overhead_s)},
};
#define N_PARTS ((int)(sizeof parts / sizeof *parts))

static double part(const struct aug_train_breakdown *b, int i) {
    return *(const double *)((const char *)b + parts[i].off);
}

static int same_layout(const struct aug_plan *a, const struct aug_plan *b) {
    return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->ep == b->ep;
}

/* The plans the best is compared with: the runner-up (the first plan of the top list that
 * is slower, not tied), and the best plan of another layout (degrees) when the runner-up
 * shares the best one's; -1 when there is none. */
static int runner_up(const struct aug_sweep_result *r) {
    for (int i = 1; i < r->n_top; i++)
        if (r->top[i].result.step_time_s > r->top[0].result.step_time_s)
            return i;
    return r->n_top > 1 ? 1 : -1;
}

static int other_layout(const struct aug_sweep_result *r, int ru) {
    if (ru < 0 || !same_layout(&r->top[ru].plan, &r->top[0].plan))
        return -1;
    for (int i = 1; i < r->n_top; i++)
        if (!same_layout(&r->top[i].plan, &r->top[0].plan))
            return i;
    return -1;
}

static void plan_text(const struct aug_plan *p, char *buf, size_t n) {
    char rec[160];
    aug_plan_recompute_label(p, rec, sizeof rec);
    snprintf(buf, n, "tp %ld pp %ld dp %ld cp %ld%s%s ep %ld sp %s v %ld mb %ld recompute %s zero %d%s%s",
             p->tp, p->pp, p->dp, p->cp, p->cp > 1 ? " " : "",
             p->cp > 1 ? aug_cp_algo_name(p->cp_algo) : "", p->ep, p->sp ? "on" : "off",
             p->interleave, p->micro_batch, rec, p->zero,
             p->fsdp ? " fsdp " : "", p->fsdp ? aug_fsdp_name(p->fsdp) : "");
}

/* One sentence: where the best plan gains and loses against another. */
static void why_text(const struct aug_sweep_entry *a, int ra, const struct aug_sweep_entry *b,
                     int rb, char *buf, size_t n) {
    int gain = -1, loss = -1;
    double dg = 0, dl = 0;
    for (int i = 0; i < N_PARTS; i++) {
        double d = part(&b->result.breakdown, i) - part(&a->result.breakdown, i);
        if (d > dg) {
            dg = d;
            gain = i;
        }
        if (d < dl) {
            dl = d;
            loss = i;
        }
    }
    double ta = a->result.step_time_s, tb = b->result.step_time_s;
    double dm = b->result.memory.total_gib - a->result.memory.total_gib;
    size_t used = (size_t)snprintf(buf, n, "rank %d is %.3g%% faster than rank %d (%.6g s vs %.6g s)",
                                   ra, 100.0 * (tb - ta) / tb, rb, ta, tb);
    if (gain >= 0 && used < n)
        used += (size_t)snprintf(buf + used, n - used, ": %.4g s less %s", dg, parts[gain].name);
    if (loss >= 0 && used < n)
        used += (size_t)snprintf(buf + used, n - used, ", %.4g s more %s", -dl, parts[loss].name);
    if (used < n)
        snprintf(buf + used, n - used, "; it needs %.3g GiB %s memory per GPU", fabs(dm),
                 dm >= 0 ? "less" : "more");
}

static json_t *why_json(const struct aug_sweep_entry *a, int ra, const struct aug_sweep_entry *b,
                        int rb) {
    json_t *o = json_object(), *d = json_object(), *ba = json_object(), *bb = json_object();
    for (int i = 0; i < N_PARTS; i++) {
        double x = part(&a->result.breakdown, i), y = part(&b->result.breakdown, i);
        json_object_set_new(ba, parts[i].name, json_real(x));
        json_object_set_new(bb, parts[i].name, json_real(y));
        json_object_set_new(d, parts[i].name, json_real(y - x));
    }
    char text[512];
    why_text(a, ra, b, rb, text, sizeof text);
    json_object_set_new(o, "best_rank", json_integer(ra));
    json_object_set_new(o, "other_rank", json_integer(rb));
    json_object_set_new(o, "best_breakdown_s", ba);
    json_object_set_new(o, "other_breakdown_s", bb);
    json_object_set_new(o, "other_minus_best_s", d);
    json_object_set_new(o, "step_time_s", json_pack("[f,f]", a->result.step_time_s, b->result.step_time_s));
    json_object_set_new(o, "memory_gib_per_gpu",
                        json_pack("[f,f]", a->result.memory.total_gib, b->result.memory.total_gib));
    json_object_set_new(o, "summary", json_string(text));
    return o;
}

static json_t *space_json(const struct aug_sweep_config *c, const struct aug_system *s) {
    const struct aug_sweep_space *sp = &c->space;
    long domain = s->nvlink_domain > 0 ? s->nvlink_domain : s->gpus_per_node;
    json_t *o = json_object();
    json_object_set_new(o, "max_tp", json_integer(sp->max_tp > 0 ? sp->max_tp : domain));
    static const char *const keys[] = {"tp", "pp", "dp", "cp", "ep", "interleave", "micro_batch",
                                       "max_pp", "max_cp", "max_ep", "max_interleave",
                                       "max_micro_batch"};
    const long vals[] = {sp->tp, sp->pp, sp->dp, sp->cp, sp->ep, sp->interleave, sp->micro_batch,
                         sp->max_pp, sp->max_cp, sp->max_ep, sp->max_interleave,
                         sp->max_micro_batch};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        json_object_set_new(o, keys[i], vals[i] > 0 ? json_integer(vals[i]) : json_string("open"));
    json_object_set_new(o, "sp", sp->sp < 0 ? json_string("open") : json_boolean(sp->sp));
    json_object_set_new(o, "recompute", sp->recompute < 0 ? json_string("open")
                                          : json_string(aug_recompute_name(sp->recompute)));
    char rcm[128];
    aug_rc_modules_format(aug_plan_rc_modules(&c->base), rcm, sizeof rcm);
    json_object_set_new(o, "recompute_modules", json_string(rcm));
    json_object_set_new(o, "moe_overlap", json_string(aug_moe_overlap_name(c->base.moe_overlap)));
    json_object_set_new(o, "moe_dispatcher",
                        json_string(aug_moe_dispatcher_name(c->base.moe_dispatcher)));
    json_object_set_new(o, "zero", sp->zero < 0 ? json_string("open") : json_integer(sp->zero));
    json_object_set_new(o, "fsdp", sp->fsdp < 0 ? json_string("open")
                                     : json_string(aug_fsdp_name(sp->fsdp)));
    json_object_set_new(o, "uneven_pp", json_boolean(sp->uneven_pp));
    return o;
}

json_t *aug_sweep_cli_train_json(const struct aug_sweep_view *v, const struct aug_sweep_result *r) {
    const struct aug_sweep_config *c = v->train;
    json_t *o = json_object();
    char cal[1024];
    aug_sweep_cli_calibration(v, cal, sizeof cal);
    json_object_set_new(o, "mode", json_string("train"));
    json_object_set_new(o, "model", json_string(v->model->name));
    json_object_set_new(o, "system", json_string(v->system->name));
    json_object_set_new(o, "gpu", json_string(v->system->gpu.id));
    json_object_set_new(o, "gpus", json_integer(c->base.gpus));
    json_object_set_new(o, "global_batch", json_integer(c->base.global_batch));
    json_object_set_new(o, "seq", json_integer(c->base.seq > 0 ? c->base.seq : v->model->max_seq));
    json_object_set_new(o, "dtype", json_string(aug_dtype_name(c->base.dtype)));
    json_object_set_new(o, "plans_evaluated", json_integer((json_int_t)r->plans_evaluated));
    json_object_set_new(o, "plans_valid", json_integer((json_int_t)r->plans_valid));
    json_object_set_new(o, "plans_timed", json_integer((json_int_t)r->plans_timed));
    json_object_set_new(o, "elapsed_s", json_real(r->elapsed_s));
    json_object_set_new(o, "threads", json_integer(r->threads));
    json_object_set_new(o, "processes", json_integer(v->ranks));
    json_object_set_new(o, "space", space_json(c, v->system));
    json_object_set_new(o, "calibration", json_string(cal));
    if (v->scale && !aug_scale_is_identity(v->scale)) {
        json_t *sc = json_object();
        for (int i = 0; i < AUG_RES_COUNT; i++)
            json_object_set_new(sc, aug_resource_name((enum aug_resource)i), json_real(v->scale->f[i]));
        json_object_set_new(o, "what_if", json_pack("{s:s,s:o,s:b}", "from", v->preset->name,
                                                   "factors", sc, "efficiencies_carried_over", 1));
    }
    json_t *top = json_array();
    for (int i = 0; i < r->n_top; i++) {
        json_t *e = aug_cli_train_json(v->model, v->system, &r->top[i].plan, &r->top[i].result, v->kdb);
        json_object_set_new(e, "rank", json_integer(i + 1));
        json_array_append_new(top, e);
    }
    json_object_set_new(o, "top", top);
    json_t *front = json_array();
    for (int i = 0; i < r->n_pareto; i++)
        json_array_append_new(front, aug_cli_train_json(v->model, v->system, &r->pareto[i].plan,
                                                        &r->pareto[i].result, v->kdb));
    json_object_set_new(o, "pareto", front);
    int ru = runner_up(r);
    if (ru > 0) {
        json_t *why = why_json(&r->top[0], 1, &r->top[ru], ru + 1);
        json_t *ties = json_array();
        for (int i = 1; i < ru; i++)
            json_array_append_new(ties, json_integer(i + 1));
        json_object_set_new(why, "tied_ranks", ties);
        int alt = other_layout(r, ru);
        if (alt > 0)
            json_object_set_new(why, "other_layout", why_json(&r->top[0], 1, &r->top[alt], alt + 1));
        json_object_set_new(o, "why", why);
    }
    return o;
}

/* ---- table ---- */

/* The plan columns of a table row; `rw` is the width of the recompute column. */
static void row_plan(FILE *f, const struct aug_plan *p, int rw) {
    char sh[16], rec[160];
    aug_plan_recompute_label(p, rec, sizeof rec);
    if (p->fsdp != AUG_FSDP_NONE)
        snprintf(sh, sizeof sh, "fsdp-%s", aug_fsdp_name(p->fsdp));
    else
        snprintf(sh, sizeof sh, "zero-%d", p->zero);
    fprintf(f, " %3ld %4ld %5ld %4ld %-9s %3ld %-3s %3ld %4ld %-*s %-11s\n", p->tp, p->pp, p->dp,
            p->cp, p->cp > 1 ? aug_cp_algo_name(p->cp_algo) : "-", p->ep, p->sp ? "on" : "off",
            p->interleave, p->micro_batch, rw, rec, sh);
}

/* The header of the plan columns for a recompute column `rw` wide. */
static void plan_head(char *buf, size_t n, int rw) {
    snprintf(buf, n, "  tp   pp    dp   cp cp_algo    ep sp    v   mb %-*s sharding", rw,
             "recompute");
}

/* The recompute column's width: its longest label among the rows a table shows (at least
 * the header's 9), so "selective(mla_up_proj)" keeps the columns after it aligned. */
static int recompute_width(const struct aug_sweep_entry *e, int n, int w) {
    char rec[160];
    for (int i = 0; i < n; i++) {
        aug_plan_recompute_label(&e[i].plan, rec, sizeof rec);
        int len = (int)strlen(rec);
        if (len > w)
            w = len;
    }
    return w;
}

static void why_table(FILE *f, const struct aug_sweep_entry *a, int ra,
                      const struct aug_sweep_entry *b, int rb) {
    char pa[256], pb[256], text[512];
    plan_text(&a->plan, pa, sizeof pa);
    plan_text(&b->plan, pb, sizeof pb);
    fprintf(f, "\nwhy rank %d beats rank %d:\n  rank %d: %s\n  rank %d: %s\n", ra, rb, ra, pa, rb, pb);
    char ca[16], cb[16], cd[24];
    snprintf(ca, sizeof ca, "rank %d", ra);
    snprintf(cb, sizeof cb, "rank %d", rb);
    snprintf(cd, sizeof cd, "%d - %d", rb, ra);
    fprintf(f, "  %-18s %12s %12s %12s\n", "seconds", ca, cb, cd);
    for (int i = 0; i < N_PARTS; i++) {
        double x = part(&a->result.breakdown, i), y = part(&b->result.breakdown, i);
        if (x == 0 && y == 0)
            continue;
        fprintf(f, "  %-18s %12.6g %12.6g %+12.4g\n", parts[i].name, x, y, y - x);
    }
    fprintf(f, "  %-18s %12.6g %12.6g %+12.4g\n", "step time", a->result.step_time_s,
            b->result.step_time_s, b->result.step_time_s - a->result.step_time_s);
    fprintf(f, "  %-18s %12.4g %12.4g %+12.4g\n", "memory GiB/GPU", a->result.memory.total_gib,
            b->result.memory.total_gib, b->result.memory.total_gib - a->result.memory.total_gib);
    why_text(a, ra, b, rb, text, sizeof text);
    fprintf(f, "  %s\n", text);
}

void aug_sweep_cli_train_table(FILE *f, const struct aug_sweep_view *v,
                               const struct aug_sweep_result *r) {
    const struct aug_sweep_config *c = v->train;
    const struct aug_system *s = v->system;
    long seq = c->base.seq > 0 ? c->base.seq : v->model->max_seq;
    long domain = s->nvlink_domain > 0 ? s->nvlink_domain : s->gpus_per_node;
    char cal[1024];
    aug_sweep_cli_calibration(v, cal, sizeof cal);
    fprintf(f, "# augur sweep train: %s (%.4g B params) on %s, %ld x %s\n", v->model->name,
            aug_model_params(v->model) / 1e9, s->name, c->base.gpus, s->gpu.name);
    fprintf(f, "# global batch %ld x seq %ld (%.4g M tokens), %s%s, attention %s\n",
            c->base.global_batch, seq, (double)c->base.global_batch * (double)seq / 1e6,
            aug_dtype_name(c->base.dtype), aug_plan_fp8_scaling_note(&c->base),
            c->base.flash_attention ? "fused" : "unfused");
    fprintf(f, "# space: tp <= %ld%s; every divisor for pp, cp (ring, Ulysses, all-gather), dp, "
               "ep, micro-batch and interleave; sp, recompute, ZeRO 0-3, FSDP hybrid; pinned "
               "knobs fixed\n",
            c->space.max_tp > 0 ? c->space.max_tp : domain,
            c->space.max_tp > 0 ? "" : " (inside the NVLink domain)");
    fprintf(f, "# plans: %llu evaluated, %llu fit in %.4g GiB, %llu timed (the others cannot "
               "enter the top %d or the front); %.3f s on %d thread%s, %d process%s "
               "(%.3g plans/s)\n",
            (unsigned long long)r->plans_evaluated, (unsigned long long)r->plans_valid,
            s->gpu.hbm_gib, (unsigned long long)r->plans_timed, v->top_k, r->elapsed_s,
            r->threads, r->threads == 1 ? "" : "s", v->ranks, v->ranks == 1 ? "" : "es",
            r->elapsed_s > 0 ? (double)r->plans_evaluated / r->elapsed_s : 0.0);
    fprintf(f, "# efficiencies: %s\n", cal);
    if (r->n_top == 0) {
        fprintf(f, "\nno plan fits in %.4g GiB per GPU (%llu valid plans): try more GPUs, "
                   "recomputation or sharding, or a smaller global batch\n",
                s->gpu.hbm_gib, (unsigned long long)r->plans_evaluated);
        return;
    }
    char prov[128];
    aug_cli_provenance_text(&r->top[0].result.provenance, prov, sizeof prov);
    fprintf(f, "# rank 1 time by source: %s\n", prov);
    int rw = recompute_width(r->pareto, r->n_pareto, recompute_width(r->top, r->n_top, 9));
    char head[160];
    plan_head(head, sizeof head, rw);
    fprintf(f, "\ntop %d by throughput:\nrank     step_s     tokens/s   MFU%%  mem_GiB %s\n",
            r->n_top, head);
    for (int i = 0; i < r->n_top; i++) {
        const struct aug_sweep_entry *e = &r->top[i];
        fprintf(f, "%4d %10.5g %12.5g %6.2f %8.2f", i + 1, e->result.step_time_s,
                e->result.tokens_per_s, 100.0 * e->result.mfu, e->result.memory.total_gib);
        row_plan(f, &e->plan, rw);
    }
    int shown = r->n_pareto < AUG_SWEEP_TABLE_FRONT ? r->n_pareto : AUG_SWEEP_TABLE_FRONT;
    fprintf(f, "\nPareto front, step time against memory per GPU (%d plans, memory ascending",
            r->n_pareto);
    if (shown < r->n_pareto)
        fprintf(f, "; %d of them evenly spread, both ends included: --format json or csv lists "
                   "all", shown);
    fprintf(f, "):\n mem_GiB     step_s     tokens/s   MFU%% %s\n", head);
    for (int j = 0; j < shown; j++) {
        int i = shown < 2 ? j : (int)((long)j * (r->n_pareto - 1) / (shown - 1));
        const struct aug_sweep_entry *e = &r->pareto[i];
        fprintf(f, "%8.2f %10.5g %12.5g %6.2f", e->result.memory.total_gib, e->result.step_time_s,
                e->result.tokens_per_s, 100.0 * e->result.mfu);
        row_plan(f, &e->plan, rw);
    }
    int ru = runner_up(r);
    if (ru > 0) {
        for (int i = 1; i < ru; i++) {
            char pt[256];
            plan_text(&r->top[i].plan, pt, sizeof pt);
            fprintf(f, "\nrank %d ties with rank 1 (%.6g s) and needs %.4g GiB more memory per "
                       "GPU: %s\n", i + 1, r->top[i].result.step_time_s,
                    r->top[i].result.memory.total_gib - r->top[0].result.memory.total_gib, pt);
        }
        why_table(f, &r->top[0], 1, &r->top[ru], ru + 1);
        int alt = other_layout(r, ru);
        if (alt > 0)
            why_table(f, &r->top[0], 1, &r->top[alt], alt + 1);
    }
}

/* ---- CSV: one row per plan of the top list and of the front ---- */

static void csv_row(struct aug_csv_writer *w, const char *set, int rank, const struct aug_sweep_entry *e) {
    const struct aug_plan *p = &e->plan;
    const struct aug_train_result *r = &e->result;
    aug_csv_write_str(w, set);
    aug_csv_write_int(w, rank);
    const long deg[] = {p->tp, p->pp, p->dp, p->cp, p->ep, p->sp, p->interleave, p->micro_batch};
    for (size_t i = 0; i < sizeof deg / sizeof *deg; i++)
        aug_csv_write_int(w, deg[i]);
    aug_csv_write_str(w, aug_recompute_name(p->recompute));
    aug_csv_write_int(w, p->recompute_layers);
    aug_csv_write_int(w, p->zero);
    aug_csv_write_str(w, aug_fsdp_name(p->fsdp));
    aug_csv_write_str(w, aug_cp_algo_name(p->cp_algo));
    const double val[] = {r->step_time_s, r->tokens_per_s, r->mfu, r->hfu, r->memory.total_gib,
                          r->bubble_fraction};
    for (size_t i = 0; i < sizeof val / sizeof *val; i++)
        aug_csv_write_num(w, val[i]);
    for (int i = 0; i < N_PARTS; i++)
        aug_csv_write_num(w, part(&r->breakdown, i));
}

int aug_sweep_cli_train_csv(FILE *f, const struct aug_sweep_view *v, const struct aug_sweep_result *r) {
    (void)v;
    struct aug_csv_writer *w;
    if (aug_csv_writer_fp(f, &w) != AUG_OK)
        return 1;
    static const char *const head[] = {"set", "rank", "tp", "pp", "dp", "cp", "ep", "sp",
                                       "interleave", "micro_batch", "recompute",
                                       "recompute_layers", "zero", "fsdp",
                                       "cp_algo", "step_time_s", "tokens_per_s", "mfu", "hfu",
                                       "memory_gib_per_gpu", "bubble_fraction"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        aug_csv_write_str(w, head[i]);
    for (int i = 0; i < N_PARTS; i++) {
        char col[48];
        snprintf(col, sizeof col, "%s_s", parts[i].name);
        aug_csv_write_str(w, col);
    }
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

/* ---- plot ---- */

static int have_gnuplot(void) {
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char dir[1024];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len < sizeof dir - 16) {
            memcpy(dir, path, len);
            snprintf(dir + len, sizeof dir - len, "/gnuplot");
            if (access(dir, X_OK) == 0)
                return 1;
        }
        path += len + (path[len] == ':');
    }
    return 0;
}

/* Text for a single-quoted gnuplot string. Inside double quotes gnuplot expands
 * backslashes and runs `backquoted` commands, and a quote ends the string; so names from
 * input files (a model's "name", a Hugging Face _name_or_path, a GPU name) keep only
 * characters that mean nothing to it: letters, digits, space and . , : ; ( ) + - / _ = %.
 * Anything else becomes '?'. */
void aug_sweep_cli_plot_text(char *dst, size_t cap, const char *s) {
    static const char ok[] = " .,:;()+-/_=%";
    size_t j = 0;
    for (; s && *s && j + 1 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   (c != '\0' && strchr(ok, c) != NULL);
        dst[j++] = keep ? (char)c : '?';
    }
    if (cap)
        dst[j] = '\0';
}

/* gnuplot with its stdin on a pipe and its stdout on `out_fd`: no shell, no file name in
 * the script. Returns the write end of the pipe (NULL on failure, message printed). */
static FILE *spawn_gnuplot(int out_fd, pid_t *pid) {
    int p[2];
    if (pipe(p) != 0) {
        fprintf(stderr, "augur: cannot start gnuplot: %s\n", strerror(errno));
        return NULL;
    }
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addclose(&fa, out_fd);
    char *argv[] = {"gnuplot", NULL};
    int rc = posix_spawnp(pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[0]);
    if (rc != 0) {
        close(p[1]);
        fprintf(stderr, "augur: cannot start gnuplot: %s\n", strerror(rc));
        return NULL;
    }
    FILE *g = fdopen(p[1], "w");
    if (!g) {
        close(p[1]);
        waitpid(*pid, NULL, 0);
        fprintf(stderr, "augur: cannot start gnuplot: %s\n", strerror(errno));
    }
    return g;
}

int aug_sweep_cli_plot(const char *path, const char *title, const char *ylabel,
                       const double *front_x, const double *front_y, int n_front,
                       const double *top_x, const double *top_y, int n_top) {
    size_t len = strlen(path);
    int png = len > 4 && strcmp(path + len - 4, ".png") == 0;
    int svg = len > 4 && strcmp(path + len - 4, ".svg") == 0;
    if (!png && !svg) {
        fprintf(stderr, "augur: --plot %s: name the file .svg or .png\n", path);
        return 1;
    }
    if (!have_gnuplot()) {
        fprintf(stderr, "augur: gnuplot is not installed (apt-get install gnuplot-nox): no plot "
                        "written to %s\n", path);
        return 1;
    }
    /* gnuplot draws to its stdout, a temporary renamed over `path` when it succeeds */
    struct aug_atomic out;
    if (aug_atomic_open(&out, path) != AUG_OK) {
        fprintf(stderr, "augur: %s\n", aug_last_error());
        return 1;
    }
    if (fflush(out.fp) != 0) {
        aug_atomic_abort(&out);
        return 1;
    }
    pid_t pid;
    FILE *g = spawn_gnuplot(fileno(out.fp), &pid);
    if (!g) {
        aug_atomic_abort(&out);
        return 1;
    }
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* gnuplot may die early: EPIPE */
    char t[256], y[128];
    aug_sweep_cli_plot_text(t, sizeof t, title);
    aug_sweep_cli_plot_text(y, sizeof y, ylabel);
    fprintf(g, "set terminal %s size 900,600 %s\n", png ? "png" : "svg", svg ? "dynamic" : "");
    fprintf(g, "set title '%s' noenhanced\n", t);
    fprintf(g, "set xlabel 'memory per GPU (GiB)'\nset ylabel '%s'\nset grid\nset key top right\n",
            y);
    double lo = 0, hi = 0;
    int any = 0;
    for (int i = 0; i < n_front; i++) {
        if (!isfinite(front_y[i]))
            continue;
        if (!any || front_y[i] < lo)
            lo = front_y[i];
        if (!any || front_y[i] > hi)
            hi = front_y[i];
        any = 1;
    }
    if (lo > 0 && hi > 10.0 * lo) /* fronts span decades: the slow, frugal end */
        fprintf(g, "set logscale y\n");
    fprintf(g, "$front << EOD\n");
    for (int i = 0; i < n_front; i++)
        if (isfinite(front_x[i]) && isfinite(front_y[i]))
            fprintf(g, "%.9g %.9g\n", front_x[i], front_y[i]);
    fprintf(g, "EOD\n$top << EOD\n");
    for (int i = 0; i < n_top; i++)
        if (isfinite(top_x[i]) && isfinite(top_y[i]))
            fprintf(g, "%.9g %.9g %s\n", top_x[i], top_y[i], i == 0 ? "best" : "\"\"");
    fprintf(g, "EOD\n");
    fprintf(g, "plot $front using 1:2 with linespoints lw 2 pt 7 title 'Pareto front', "
               "$top using 1:2 with points pt 6 ps 1.6 title 'top plans', "
               "$top using 1:2:3 with labels offset 1,0.6 notitle\n");
    int werr = fflush(g) != 0 || ferror(g);
    werr |= fclose(g) != 0;
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    signal(SIGPIPE, old_pipe);
    if (werr || w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        aug_atomic_abort(&out);
        fprintf(stderr, "augur: gnuplot failed writing %s\n", path);
        return 1;
    }
    if (aug_atomic_commit(&out) != AUG_OK) {
        fprintf(stderr, "augur: %s\n", aug_last_error());
        return 1;
    }
    return 0;
}

/* ---- progress ---- */

void aug_sweep_progress_start(struct aug_sweep_progress *p, int force) {
    p->t0 = now_s();
    p->force = force;
    p->shown = 0;
}

void aug_sweep_progress_cb(uint64_t done, uint64_t total, void *user) {
    struct aug_sweep_progress *p = user;
    if (p->force < 0 || (p->force == 0 && !isatty(2)))
        return;
    double t = now_s() - p->t0;
    if (t < 0.5 && p->force == 0)
        return;
    double frac = total ? (double)done / (double)total : 1.0;
    char bar[41];
    int fill = (int)(frac * 40.0 + 0.5);
    for (int i = 0; i < 40; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[40] = '\0';
    double eta = frac > 0 ? t / frac - t : 0.0;
    fprintf(stderr, "\r[%s] %5.1f%%  %llu/%llu units  %.1f s, about %.1f s left ", bar,
            100.0 * frac, (unsigned long long)done, (unsigned long long)total, t, eta);
    fflush(stderr);
    p->shown = 1;
}

void aug_sweep_progress_end(struct aug_sweep_progress *p) {
    if (p->shown)
        fputc('\n', stderr);
    p->shown = 0;
}
