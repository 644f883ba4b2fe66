/* SPDX-License-Identifier: Apache-2.0 */
/* serve_cli.c - formatting of the offline and server simulations (`augur infer --mode
 * offline|server`): JSON and a table that says where every number came from. */
#include "serve_cli.h"

#include "train_cli.h"

static json_t *stats_json(const struct aug_latency_stats *l) {
    return json_pack("{s:f,s:f,s:f,s:f,s:f}", "mean", l->mean, "p50", l->p50, "p90", l->p90, "p99",
                     l->p99, "max", l->max);
}

double aug_cli_serve_step_overhead_us(const struct aug_serve_config *cfg, const struct aug_model *m,
                                      const struct aug_infer_plan *p, int roofline) {
    if (roofline)
        return 0.0;
    if (p->step_overhead_us >= 0)
        return p->step_overhead_us;
    double floor_us = aug_serve_step_floor_us(cfg, m, p);
    return floor_us >= 0 ? floor_us : AUG_INFER_DEFAULT_STEP_OVERHEAD_US;
}

json_t *aug_cli_serve_json(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_serve_run_info *info,
                           const struct aug_serve_result *r) {
    const struct aug_serve_config *c = &r->config;
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(m->name));
    json_object_set_new(o, "system", json_string(s->name));
    json_object_set_new(o, "gpu", json_string(s->gpu.id));
    json_object_set_new(o, "mode", json_string(r->scenario == AUG_SCENARIO_SERVER ? "server" : "offline"));
    json_object_set_new(
        o, "plan",
        json_pack("{s:I,s:I,s:I,s:I,s:I,s:s,s:s,s:s,s:s}", "gpus", (json_int_t)p->gpus, "tp",
                  (json_int_t)p->tp, "pp", (json_int_t)p->pp, "ep", (json_int_t)p->ep, "dp",
                  (json_int_t)p->dp, "dtype", aug_dtype_name(p->dtype), "weight_dtype",
                  aug_dtype_name(p->weight_dtype), "kv_dtype", aug_dtype_name(p->kv_dtype),
                  "kv_dtype_source", info->kv_dtype_why ? info->kv_dtype_why : ""));
    json_object_set_new(
        o, "engine",
        json_pack("{s:s,s:s,s:s,s:f,s:I,s:I,s:I,s:b,s:f,s:f,s:f}", "name", aug_engine_name(c->engine),
                  "policy", aug_sched_policy_name(c->policy), "kv_base",
                  c->kv_base == AUG_KV_OF_FREE ? "free_memory" : "total_memory", "kv_fraction",
                  c->kv_fraction, "max_batch", (json_int_t)c->max_batch, "max_num_tokens",
                  (json_int_t)c->max_num_tokens, "block_tokens", (json_int_t)c->block_tokens,
                  "chunked_prefill", c->chunked_prefill, "step_overhead_us", info->step_overhead_us,
                  "layer_overhead_us", c->layer_overhead_us, "request_overhead_us",
                  c->request_overhead_us));
    json_object_set_new(o, "requests",
                        json_pack("{s:I,s:s,s:s,s:s,s:I,s:f,s:f}", "count", (json_int_t)r->requests,
                                  "source", info->requests_source, "input_len", info->input_spec,
                                  "output_len", info->output_spec, "seed",
                                  (json_int_t)info->seed, "input_tokens", r->input_tokens,
                                  "output_tokens", r->output_tokens));
    json_object_set_new(o, "duration_s", json_real(r->duration_s));
    json_object_set_new(o, "throughput_tokens_per_s", json_real(r->output_tokens_per_s));
    json_object_set_new(o, "throughput_tokens_per_s_per_gpu",
                        json_real(r->output_tokens_per_s / (double)p->gpus));
    json_object_set_new(o, "total_tokens_per_s", json_real(r->total_tokens_per_s));
    json_object_set_new(o, "requests_per_s", json_real(r->requests_per_s));
    json_object_set_new(o, "mean_batch", json_real(r->mean_batch));
    json_object_set_new(o, "mean_tokens_per_step", json_real(r->mean_tokens_per_step));
    json_object_set_new(o, "kv_utilization", json_real(r->kv_utilization));
    json_object_set_new(o, "kv_capacity_tokens_per_replica", json_real(r->kv_capacity_tokens));
    json_object_set_new(o, "preemptions", json_integer(r->preemptions));
    json_object_set_new(o, "steps",
                        json_pack("{s:I,s:I,s:I,s:I,s:I}", "total", (json_int_t)r->steps, "prefill",
                                  (json_int_t)r->prefill_steps, "decode", (json_int_t)r->decode_steps,
                                  "mixed", (json_int_t)r->mixed_steps, "distinct_timed",
                                  (json_int_t)r->distinct_steps));
    json_object_set_new(o, "time_s", json_pack("{s:f,s:f,s:f}", "prefill", r->prefill_s, "decode",
                                               r->decode_s, "mixed", r->mixed_s));
    json_object_set_new(o, "latency_s",
                        json_pack("{s:o,s:o,s:o,s:o}", "ttft", stats_json(&r->ttft), "tpot",
                                  stats_json(&r->tpot), "itl", stats_json(&r->itl), "e2e",
                                  stats_json(&r->e2e)));
    if (r->scenario == AUG_SCENARIO_SERVER)
        json_object_set_new(o, "server",
                            json_pack("{s:f,s:b,s:I}", "offered_rate", r->offered_rate, "sustainable",
                                      r->sustainable, "queued_at_last_arrival",
                                      (json_int_t)r->queued_at_last_arrival));
    json_object_set_new(o, "memory_gib",
                        json_pack("{s:f,s:f,s:f,s:f,s:f}", "weights", r->memory.weights_gib,
                                  "kv_cache", r->memory.kv_cache_gib, "activations",
                                  r->memory.activations_gib, "workspace", r->memory.workspace_gib,
                                  "total", r->memory.total_gib));
    json_object_set_new(o, "provenance",
                        json_pack("{s:f,s:f,s:f}", "calibrated", r->provenance.calibrated,
                                  "fallback", r->provenance.fallback, "roofline",
                                  r->provenance.roofline));
    return o;
}

static void lrow(FILE *f, const char *name, const struct aug_latency_stats *l) {
    fprintf(f, "  %-18s %11.6f %11.6f %11.6f %11.6f %11.6f\n", name, l->mean, l->p50, l->p90, l->p99,
            l->max);
}

void aug_cli_serve_table(FILE *f, const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_serve_run_info *info,
                         const struct aug_serve_result *r) {
    const struct aug_serve_config *c = &r->config;
    char prov[128];
    aug_cli_provenance_text(&r->provenance, prov, sizeof prov);
    int server = r->scenario == AUG_SCENARIO_SERVER;
    fprintf(f, "# augur infer: %s on %s, %ld x %s, %s scenario, %s engine\n", m->name, s->name,
            p->gpus, s->gpu.name, server ? "server" : "offline", aug_engine_name(c->engine));
    fprintf(f, "# plan: tp %ld, pp %ld, ep %ld, replicas %ld; compute %s, weights %s, KV cache %s "
               "(%s)\n", p->tp, p->pp, p->ep, p->dp, aug_dtype_name(p->dtype),
            aug_dtype_name(p->weight_dtype), aug_dtype_name(p->kv_dtype),
            info->kv_dtype_why ? info->kv_dtype_why : "--kv-dtype");
    fprintf(f, "# scheduler: %s, max batch %ld (%s), max num tokens %ld (%s), chunked prefill %s, "
               "KV blocks of %ld tokens, KV cache %.2f of %s memory (%s)\n",
            aug_sched_policy_name(c->policy), c->max_batch, info->max_batch_given ? "given" : "engine default",
            c->max_num_tokens, info->max_tokens_given ? "given" : "engine default",
            c->chunked_prefill ? "on" : "off", c->block_tokens, c->kv_fraction,
            c->kv_base == AUG_KV_OF_FREE ? "the free" : "the GPU's",
            info->kv_fraction_given ? "given" : "engine default");
    fprintf(f, "# requests: %ld from %s, input %s, output %s tokens%s\n", r->requests,
            info->requests_source, info->input_spec, info->output_spec,
            server ? (info->arrivals_from_file ? "; arrivals from the file" : "; Poisson arrivals")
                   : "; all queued at once");
    char per_layer[64] = "";
    if (c->layer_overhead_us > 0)
        snprintf(per_layer, sizeof per_layer, " (%.1f us per layer)", c->layer_overhead_us);
    fprintf(f, "# times: each step by the hybrid op model (%s); framework floor %.0f us per step%s "
               "and %.1f us per running request (%s engine default); "
               "%ld distinct step compositions timed for %ld steps\n", prov, info->step_overhead_us,
            per_layer, c->request_overhead_us, aug_engine_name(c->engine), r->distinct_steps,
            r->steps);
    fprintf(f, "output throughput        %12.1f tokens/s (%.1f per GPU) over %.3f s incl. ramp-up "
               "and drain\n", r->output_tokens_per_s, r->output_tokens_per_s / (double)p->gpus,
            r->duration_s);
    fprintf(f, "total throughput         %12.1f tokens/s (input + output)\n", r->total_tokens_per_s);
    fprintf(f, "requests                 %12.3f per s\n", r->requests_per_s);
    fprintf(f, "mean batch               %12.1f requests in flight per replica (time-weighted)\n",
            r->mean_batch);
    fprintf(f, "mean tokens per step     %12.1f\n", r->mean_tokens_per_step);
    fprintf(f, "KV utilization           %12.1f %% of %.0f tokens per replica (%.2f GiB per GPU); "
               "%ld preemptions\n", 100.0 * r->kv_utilization, r->kv_capacity_tokens,
            r->kv_cache_gib, r->preemptions);
    fprintf(f, "steps                    %12ld: prefill-only %ld (%.3f s), decode-only %ld (%.3f s), "
               "mixed %ld (%.3f s)\n", r->steps, r->prefill_steps, r->prefill_s, r->decode_steps,
            r->decode_s, r->mixed_steps, r->mixed_s);
    if (server)
        fprintf(f, "load                     %12.3f requests/s offered: %s (%ld queued at the last "
                   "arrival)\n", r->offered_rate,
                r->sustainable ? "sustainable" : "NOT SUSTAINABLE, the queue grows",
                r->queued_at_last_arrival);
    fprintf(f, "latency (s)                     mean         p50         p90         p99         max\n");
    lrow(f, "TTFT", &r->ttft);
    lrow(f, "TPOT", &r->tpot);
    lrow(f, "inter-token", &r->itl);
    lrow(f, "end-to-end", &r->e2e);
    fprintf(f, "memory per GPU:          %12.2f GiB of %.2f GiB (analytical)\n", r->memory.total_gib,
            s->gpu.hbm_gib);
    fprintf(f, "  %-22s %12.2f GiB\n", "weights", r->memory.weights_gib);
    fprintf(f, "  %-22s %12.2f GiB\n", "KV cache", r->memory.kv_cache_gib);
    fprintf(f, "  %-22s %12.2f GiB  (largest step: %ld tokens)\n", "activations",
            r->memory.activations_gib, c->max_num_tokens);
    fprintf(f, "  %-22s %12.2f GiB\n", "workspace", r->memory.workspace_gib);
}
