/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_slo_cli.c - `augur sweep infer --slo-ttft-p99 X --slo-tpot-p99 Y`: every serving
 * plan's highest request rate within the latency targets, best first, as a table or JSON. */
#include <stdio.h>
#include <string.h>

#include "augur/sweep_slo.h"
#include "sweep_opts.h"

static json_t *entry_json(const struct aug_sweep_slo_entry *e) {
    const struct aug_serve_result *r = &e->result.at_max;
    return json_pack("{s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "tp", (json_int_t)e->plan.tp,
                     "pp", (json_int_t)e->plan.pp, "ep", (json_int_t)e->plan.ep, "dp",
                     (json_int_t)e->plan.dp, "max_rate", e->result.max_rate, "capacity_rate",
                     e->result.capacity_rate, "ttft_p99_s", r->ttft.p99, "tpot_p99_s", r->tpot.p99,
                     "e2e_p99_s", r->e2e.p99, "output_tokens_per_s", r->output_tokens_per_s,
                     "mean_batch", r->mean_batch);
}

int aug_sweep_run_slo(const struct aug_sweep_opts *o) {
    const char *cmd = "sweep";
    if (o->ibase.batch > 0 || o->min_throughput > 0 || o->max_batch > 0)
        return aug_cli_usage(cmd, "--slo-ttft-p99/--slo-tpot-p99 rank plans by request rate: drop "
                                  "--batch, --max-batch and --min-throughput");
    if (o->fmt == AUG_FORMAT_CSV || o->plot)
        return aug_cli_usage(cmd, "the SLO sweep prints a table or JSON (no --format csv, --plot)");
    struct aug_sweep_slo_config cfg;
    memset(&cfg, 0, sizeof cfg);
    enum aug_engine eng = AUG_ENGINE_TRTLLM;
    if (o->engine && aug_engine_from_name(o->engine, &eng) != AUG_OK)
        return aug_cli_usage(cmd, "--engine: %s", aug_last_error());
    struct aug_model model;
    struct aug_system preset, sys;
    struct aug_scale sc;
    struct aug_kdb *kdb = NULL;
    int rc = aug_sweep_cli_inputs(o, &model, &preset, &sc, &sys, &kdb);
    if (rc)
        return rc;
    cfg.model = &model;
    cfg.system = &sys;
    cfg.base = o->ibase;
    if ((unsigned)cfg.base.kv_dtype >= AUG_DTYPE_COUNT) {
        const char *why;
        cfg.base.kv_dtype = aug_engine_kv_dtype(eng, cfg.base.dtype, cfg.base.weight_dtype,
                                                model.fp8_recipe, &why);
    }
    cfg.tp = o->space.tp;
    cfg.pp = o->space.pp;
    cfg.ep = o->space.ep;
    cfg.max_tp = o->space.max_tp;
    cfg.max_pp = o->space.max_pp;
    aug_serve_config_init(&cfg.serve, eng);
    cfg.slo.ttft_p99_s = o->slo_ttft;
    cfg.slo.tpot_p99_s = o->slo_tpot;
    cfg.slo.num_requests = o->num_requests > 0 ? o->num_requests : 1000;
    cfg.slo.seed = (unsigned long long)o->seed;
    cfg.slo.input = (struct aug_len_dist){AUG_LEN_FIXED, (double)o->ibase.input_len, 0};
    cfg.slo.output = (struct aug_len_dist){AUG_LEN_FIXED, (double)o->ibase.output_len, 0};
    cfg.options.kdb = kdb;
    cfg.options.pure_roofline = o->roofline;
    struct aug_sweep_slo_result r;
    int st = aug_sweep_slo(&cfg, &r);
    if (st != AUG_OK) {
        aug_kdb_close(kdb);
        return st == AUG_EUSAGE ? aug_cli_usage(cmd, "%s", aug_last_error()) : aug_cli_fail(st, NULL);
    }
    FILE *f = aug_cli_open_output(o->output);
    if (!f) {
        aug_sweep_slo_result_free(&r);
        aug_kdb_close(kdb);
        return 1;
    }
    int top = o->top > 0 && o->top < r.n ? o->top : r.n;
    if (o->fmt == AUG_FORMAT_JSON) {
        json_t *arr = json_array();
        for (int i = 0; i < top; i++)
            json_array_append_new(arr, entry_json(&r.plans[i]));
        json_t *j = json_pack("{s:s,s:s,s:I,s:f,s:f,s:s,s:I,s:I,s:o}", "model", model.name, "system",
                              sys.name, "gpus", (json_int_t)o->ibase.gpus, "slo_ttft_p99_s",
                              o->slo_ttft, "slo_tpot_p99_s", o->slo_tpot, "engine",
                              aug_engine_name(eng), "plans_evaluated", (json_int_t)r.n,
                              "plans_skipped", (json_int_t)r.skipped, "top", arr);
        rc = aug_cli_write(f, AUG_FORMAT_JSON, j) != 0;
        json_decref(j);
    } else {
        fprintf(f, "# augur sweep infer: %s on %s, %ld GPUs, %ld + %ld tokens per request, %s engine\n",
                model.name, sys.name, o->ibase.gpus, o->ibase.input_len, o->ibase.output_len,
                aug_engine_name(eng));
        fprintf(f, "# targets: TTFT p99 <= %g s, TPOT p99 <= %g s (0: none), and a queue that keeps "
                   "up; %ld seeded requests per trial, Poisson arrivals, rate by bisection up to the "
                   "offline capacity\n", o->slo_ttft, o->slo_tpot, cfg.slo.num_requests);
        fprintf(f, "# %d plans simulated, %d skipped (no room for a KV cache)\n", r.n, r.skipped);
        fprintf(f, "rank  tp   pp  ep   dp   max rate/s  capacity/s  TTFT p99 s  TPOT p99 s  out tok/s\n");
        for (int i = 0; i < top; i++) {
            const struct aug_sweep_slo_entry *e = &r.plans[i];
            const struct aug_serve_result *x = &e->result.at_max;
            fprintf(f, "%4d %3ld %4ld %3ld %4ld %12.3f %11.3f %11.4f %11.5f %10.1f\n", i + 1, e->plan.tp,
                    e->plan.pp, e->plan.ep, e->plan.dp, e->result.max_rate, e->result.capacity_rate,
                    x->ttft.p99, x->tpot.p99, x->output_tokens_per_s);
        }
        if (r.n > 0 && !(r.plans[0].result.max_rate > 0))
            fprintf(f, "no plan meets the targets at any rate\n");
    }
    rc = aug_cli_close_output(f, o->output) != 0 || rc;
    aug_sweep_slo_result_free(&r);
    aug_kdb_close(kdb);
    return rc;
}
