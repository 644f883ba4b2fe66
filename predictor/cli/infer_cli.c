/* SPDX-License-Identifier: Apache-2.0 */
/* infer_cli.c - formatting of serving predictions and of the per-op bound analysis. */
#include "infer_cli.h"
#include "op_shape_cli.h"

#include <string.h>

#include "augur/csvio.h"
#include "train_cli.h"

static double launch_used(const struct aug_system *s, const struct aug_infer_plan *p, int roofline) {
    if (roofline)
        return 0.0;
    return p->launch_us >= 0 ? p->launch_us : s->gpu.launch_us;
}

static double overhead_used(const struct aug_infer_plan *p, int roofline) {
    if (roofline)
        return 0.0;
    return p->step_overhead_us >= 0 ? p->step_overhead_us : AUG_INFER_DEFAULT_STEP_OVERHEAD_US;
}

static json_t *breakdown_json(const struct aug_infer_breakdown *b) {
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "gemm", b->gemm_s, "attention",
                     b->attention_s, "memory_bound", b->memory_s, "lm_head", b->lm_head_s,
                     "tp_comm", b->tp_comm_s, "pp_comm", b->pp_comm_s, "pipeline_bubble",
                     b->bubble_s, "overhead", b->overhead_s);
}

json_t *aug_cli_infer_json(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_infer_result *r,
                           const struct aug_kdb *kdb, int roofline) {
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(m->name));
    json_object_set_new(o, "system", json_string(s->name));
    json_object_set_new(o, "gpu", json_string(s->gpu.id));
    json_object_set_new(o, "mode", json_string(aug_serve_mode_name(r->mode)));
    json_object_set_new(
        o, "plan",
        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s,s:s,s:s,s:s,s:s,s:b}", "gpus",
                  (json_int_t)p->gpus,
                  "tp", (json_int_t)p->tp, "pp", (json_int_t)p->pp, "ep", (json_int_t)p->ep, "dp",
                  (json_int_t)p->dp, "batch", (json_int_t)p->batch, "input_len",
                  (json_int_t)p->input_len, "output_len", (json_int_t)p->output_len, "dtype",
                  aug_dtype_name(p->dtype), "weight_dtype", aug_dtype_name(p->weight_dtype),
                  "kv_dtype", aug_dtype_name(p->kv_dtype), "attention",
                  p->flash_attention ? "fused" : "unfused", "decode_attention",
                  p->decode_per_head ? "per-head" : "grouped", "attn_dp", p->attn_dp));
    json_object_set_new(o, "ttft_s", json_real(r->ttft_s));
    json_object_set_new(o, "tpot_s", json_real(r->tpot_s));
    json_object_set_new(o, "tpot_last_s", json_real(r->tpot_last_s));
    json_object_set_new(o, "e2e_latency_s", json_real(r->e2e_latency_s));
    json_object_set_new(o, "throughput_tokens_per_s", json_real(r->throughput_tokens_per_s));
    json_object_set_new(o, "throughput_tokens_per_s_per_gpu",
                        json_real(r->throughput_tokens_per_s / (double)p->gpus));
    json_object_set_new(o, "total_tokens_per_s", json_real(r->total_tokens_per_s));
    json_object_set_new(o, "prefill_s", json_real(r->prefill_s));
    json_object_set_new(o, "decode_s", json_real(r->decode_s));
    json_object_set_new(o, "decode_steps", json_integer(r->decode_steps));
    json_object_set_new(o, "decode_step_bytes", json_real(r->decode_step_bytes));
    json_object_set_new(o, "kv_bytes_per_token", json_real(r->kv_bytes_per_token));
    json_object_set_new(o, "params", json_real(r->params));
    json_object_set_new(o, "memory_gib_per_gpu", json_real(r->memory.total_gib));
    json_object_set_new(o, "memory_capacity_gib", json_real(r->memory_capacity_gib));
    json_object_set_new(o, "fits_in_memory", json_boolean(r->fits_in_memory));
    json_object_set_new(o, "max_batch", json_integer(r->max_batch));
    json_object_set_new(o, "breakdown_s", json_pack("{s:o,s:o}", "prefill", breakdown_json(&r->prefill),
                                                    "decode", breakdown_json(&r->decode)));
    json_object_set_new(o, "memory_gib",
                        json_pack("{s:f,s:f,s:f,s:f}", "weights", r->memory.weights_gib, "kv_cache",
                                  r->memory.kv_cache_gib, "activations", r->memory.activations_gib,
                                  "workspace", r->memory.workspace_gib));
    json_object_set_new(o, "provenance",
                        json_pack("{s:f,s:f,s:f}", "calibrated", r->provenance.calibrated,
                                  "fallback", r->provenance.fallback, "roofline",
                                  r->provenance.roofline));
    json_object_set_new(o, "floors_us", json_pack("{s:f,s:f}", "kernel_launch",
                                                  launch_used(s, p, roofline), "step_overhead",
                                                  overhead_used(p, roofline)));
    const struct aug_infer_serving *sv = &r->serving;
    if (r->mode == AUG_SERVE_CONTINUOUS)
        json_object_set_new(o, "serving",
                            json_pack("{s:f,s:f,s:b,s:f,s:f,s:f,s:I}", "request_rate", sv->request_rate,
                                      "concurrency", sv->concurrency, "saturated", sv->saturated,
                                      "step_s", sv->step_s, "prefill_tokens_per_step",
                                      sv->prefill_tokens_per_step, "decode_tokens_per_step",
                                      sv->decode_tokens_per_step, "chunk_tokens",
                                      (json_int_t)p->chunk_tokens));
    else if (r->mode == AUG_SERVE_DISAGGREGATED)
        json_object_set_new(o, "serving",
                            json_pack("{s:I,s:I,s:I,s:I,s:s,s:f,s:f}", "prefill_gpus",
                                      (json_int_t)sv->prefill_gpus, "prefill_tp",
                                      (json_int_t)sv->prefill_tp, "decode_gpus",
                                      (json_int_t)sv->decode_gpus, "decode_tp",
                                      (json_int_t)sv->decode_tp, "kv_link",
                                      sv->kv_link ? sv->kv_link : "", "kv_transfer_s",
                                      sv->kv_transfer_s, "kv_transfer_bytes_per_request",
                                      sv->kv_transfer_bytes));
    json_object_set_new(o, "kdb_curves", json_integer(kdb ? aug_kdb_curve_count(kdb) : 0));
    json_object_set_new(o, "kdb_origin", json_string(aug_kdb_origin(kdb)));
    return o;
}

static void brow(FILE *f, const char *name, double a, double b) {
    if (a <= 0 && b <= 0)
        return;
    fprintf(f, "  %-22s %12.6f s  %12.6f s\n", name, a, b);
}

void aug_cli_infer_table(FILE *f, const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_result *r,
                         const struct aug_kdb *kdb, int roofline) {
    char prov[128];
    aug_cli_provenance_text(&r->provenance, prov, sizeof prov);
    double I = (double)p->input_len, O = (double)p->output_len;
    fprintf(f, "# augur infer: %s (%.3g B params) on %s, %ld x %s, %s batching\n", m->name,
            r->params / 1e9, s->name, p->gpus, s->gpu.name, aug_serve_mode_name(r->mode));
    fprintf(f, "# plan: tp %ld, pp %ld, ep %ld%s, replicas %ld; batch %ld, input %ld, output %ld "
               "tokens; compute %s, weights %s, KV cache %s; attention %s, decode KV reads %s\n",
            p->tp, p->pp, p->ep, p->attn_dp ? " (attention data-parallel over the tp ranks)" : "",
            p->dp, p->batch, p->input_len, p->output_len,
            aug_dtype_name(p->dtype), aug_dtype_name(p->weight_dtype), aug_dtype_name(p->kv_dtype),
            p->flash_attention ? "fused (FlashAttention, flash-decoding)" : "unfused prefill",
            p->decode_per_head ? "per query head" : "per GQA group");
    if (m->caveats[0])
        fprintf(f, "# model caveats: %s\n", m->caveats);
    fprintf(f, "# times: hybrid op model; share of predicted time by source: %s\n", prov);
    const char *origin = aug_kdb_origin(kdb);
    fprintf(f, "#   (calibrated = kernels-db/%s curves (%d)%s%s, fallback = documented default "
               "efficiencies, roofline = peak only%s)\n",
            s->gpu.id, kdb ? aug_kdb_curve_count(kdb) : 0, *origin ? " " : "", origin,
            roofline ? "; --roofline given" : "");
    if (s->gpu.gemm_scale > 0 && !roofline)
        fprintf(f, "#   (fallback GEMM main loops at gemm_scale %.2f of their rate elsewhere, "
                   "fitted on published training runs: kernels-db/gpus.csv)\n",
                s->gpu.gemm_scale);
    fprintf(f, "# floors: kernel launch %.1f us per kernel (%s), framework %.0f us per step (%s)\n",
            launch_used(s, p, roofline),
            roofline ? "--roofline" : p->launch_us >= 0 ? "--launch-us" : "kernels-db/gpus.csv launch_us",
            overhead_used(p, roofline),
            roofline ? "--roofline" : p->step_overhead_us >= 0 ? "--step-overhead-us" : "default");
    fprintf(f, "# memory: analytical (weights in their storage dtype, KV cache %s x bytes per "
               "token%s%s, prefill working set, workspace)\n",
            m->attention == AUG_ATTN_MLA ? "layers x (kv_lora_rank + qk_rope_head_dim)"
                                         : "2 x layers x KV heads x head dim",
            m->sliding_window <= 0 ? ""
            : m->attn_chunked      ? ", chunked layers at most their chunk"
                                   : ", windowed layers at most their window",
            p->attn_dp ? ", each rank its own sequences (attention data-parallel)" : "");
    if (r->mode == AUG_SERVE_STATIC)
        fprintf(f, "TTFT                     %12.6f s    prefill of %ld x %ld tokens and the first "
                   "token\n", r->ttft_s, p->batch / p->dp, p->input_len);
    else if (r->mode == AUG_SERVE_CONTINUOUS)
        fprintf(f, "TTFT                     %12.6f s    the step(s) carrying the prompt beside the "
                   "decodes in flight\n", r->ttft_s);
    else
        fprintf(f, "TTFT                     %12.6f s    prefill pool, then the KV cache's transfer\n",
                r->ttft_s);
    if (r->decode_steps > 0 && r->mode == AUG_SERVE_CONTINUOUS)
        fprintf(f, "TPOT                     %12.6f s    one steady-state step (%ld per request)\n",
                r->tpot_s, r->decode_steps);
    else if (r->decode_steps > 0)
        fprintf(f, "TPOT                     %12.6f s    mean of %ld decode steps (last step %.6f s, "
                   "context %.0f..%.0f)\n", r->tpot_s, r->decode_steps, r->tpot_last_s, I + 1.0,
                I + O - 1.0);
    else
        fprintf(f, "TPOT                     %12s      no decode step (output length 1)\n", "-");
    fprintf(f, "end-to-end latency       %12.6f s\n", r->e2e_latency_s);
    fprintf(f, "throughput               %12.1f output tokens/s (%.1f per GPU), %.1f total tokens/s\n",
            r->throughput_tokens_per_s, r->throughput_tokens_per_s / (double)p->gpus,
            r->total_tokens_per_s);
    fprintf(f, "decode step bytes        %12.4g B per GPU (first step: weights + KV cache + "
               "activations)\n", r->decode_step_bytes);
    const struct aug_infer_serving *sv = &r->serving;
    if (r->mode == AUG_SERVE_CONTINUOUS)
        fprintf(f, "steady state             %12.2f requests/s at %.1f in flight%s; step %.6f s "
                   "with %.0f prefill + %.0f decode tokens\n",
                sv->request_rate, sv->concurrency,
                sv->saturated ? " (SATURATED: the offered rate needs more requests than fit)" : "",
                sv->step_s, sv->prefill_tokens_per_step, sv->decode_tokens_per_step);
    if (r->mode == AUG_SERVE_DISAGGREGATED)
        fprintf(f, "pools                    prefill %ld GPUs (tp %ld), decode %ld GPUs (tp %ld); KV "
                   "transfer %.4g B per request over %s, %.6f s exposed\n",
                sv->prefill_gpus, sv->prefill_tp, sv->decode_gpus, sv->decode_tp,
                sv->kv_transfer_bytes, sv->kv_link ? sv->kv_link : "?", sv->kv_transfer_s);
    fprintf(f, "time breakdown:               prefill          decode\n");
    brow(f, "linear layers (GEMM)", r->prefill.gemm_s, r->decode.gemm_s);
    brow(f, "attention", r->prefill.attention_s, r->decode.attention_s);
    brow(f, "memory-bound ops", r->prefill.memory_s, r->decode.memory_s);
    brow(f, "LM head + sampling", r->prefill.lm_head_s, r->decode.lm_head_s);
    brow(f, "tp communication", r->prefill.tp_comm_s, r->decode.tp_comm_s);
    brow(f, "pp communication", r->prefill.pp_comm_s, r->decode.pp_comm_s);
    brow(f, "pipeline bubble", r->prefill.bubble_s, r->decode.bubble_s);
    brow(f, "framework floor", r->prefill.overhead_s, r->decode.overhead_s);
    fprintf(f, "memory per GPU:          %12.2f GiB of %.2f GiB: %s\n", r->memory.total_gib,
            r->memory_capacity_gib, r->fits_in_memory ? "fits" : "DOES NOT FIT");
    fprintf(f, "  %-22s %12.2f GiB\n", "weights", r->memory.weights_gib);
    fprintf(f, "  %-22s %12.2f GiB  (%.4g B per token, whole model)\n", "KV cache",
            r->memory.kv_cache_gib, r->kv_bytes_per_token);
    fprintf(f, "  %-22s %12.2f GiB\n", "activations", r->memory.activations_gib);
    fprintf(f, "  %-22s %12.2f GiB\n", "workspace", r->memory.workspace_gib);
    fprintf(f, "max batch                %12ld      sequences of %ld + %ld tokens in memory\n",
            r->max_batch, p->input_len, p->output_len);
}

json_t *aug_cli_infer_ops_json(const struct aug_infer_op_report *ops, int n) {
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const struct aug_infer_op_report *o = &ops[i];
        json_t *row = json_pack(
            "{s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:s,s:f,s:f,s:s}", "phase", o->phase, "op", o->name,
            "kind", o->kind, "count", o->count, "flops", o->flops, "bytes", o->bytes,
            "intensity_flop_per_byte", o->intensity, "ridge_flop_per_byte", o->ridge, "bound",
            strcmp(o->kind, "collective") == 0 ? "communication"
            : o->compute_bound               ? "compute"
                                             : "memory",
            "time_s", o->time_s, "share", o->share, "source", o->source);
        aug_cli_op_shape_json(row, &o->shape);
        json_array_append_new(arr, row);
    }
    return arr;
}

static const char *bound_name(const struct aug_infer_op_report *o) {
    if (strcmp(o->kind, "collective") == 0)
        return "comm";
    return o->compute_bound ? "compute" : "memory";
}

void aug_cli_infer_ops_table(FILE *f, const struct aug_system *s,
                             const struct aug_infer_op_report *ops, int n) {
    fprintf(f, "bound analysis (per GPU; arithmetic intensity against the ridge point peak/HBM "
               "bandwidth of %s at %.0f GB/s; decode at the mean context):\n", s->gpu.name,
            s->gpu.hbm_gbps);
    fprintf(f, "  %-8s %-18s %-10s %6s %11s %11s %9s %7s %-8s %11s %6s %-8s\n", "phase", "op", "kind",
            "count", "FLOPs", "bytes", "FLOP/B", "ridge", "bound", "time", "share", "source");
    for (int i = 0; i < n; i++) {
        const struct aug_infer_op_report *o = &ops[i];
        fprintf(f, "  %-8s %-18s %-10s %6.0f %11.4g %11.4g %9.3g %7.0f %-8s %9.3f us %5.1f%% %-8s\n",
                o->phase, o->name, o->kind, o->count, o->flops, o->bytes, o->intensity, o->ridge,
                bound_name(o), o->time_s * 1e6, 100.0 * o->share, o->source);
    }
}

int aug_cli_infer_ops_csv(FILE *f, const struct aug_infer_op_report *ops, int n) {
    struct aug_csv_writer *w;
    if (aug_csv_writer_fp(f, &w) != AUG_OK)
        return 1;
    static const char *const head[] = {"phase", "op", "kind", "count", "flops", "bytes",
                                       "intensity_flop_per_byte", "ridge_flop_per_byte", "bound",
                                       "time_s", "share", "source"};
    for (size_t k = 0; k < sizeof head / sizeof *head; k++)
        aug_csv_write_str(w, head[k]);
    aug_cli_op_shape_csv_head(w);
    aug_csv_end_row(w);
    for (int i = 0; i < n; i++) {
        const struct aug_infer_op_report *o = &ops[i];
        aug_csv_write_str(w, o->phase);
        aug_csv_write_str(w, o->name);
        aug_csv_write_str(w, o->kind);
        aug_csv_write_num(w, o->count);
        aug_csv_write_num(w, o->flops);
        aug_csv_write_num(w, o->bytes);
        aug_csv_write_num(w, o->intensity);
        aug_csv_write_num(w, o->ridge);
        aug_csv_write_str(w, strcmp(o->kind, "collective") == 0 ? "communication"
                             : o->compute_bound               ? "compute"
                                                              : "memory");
        aug_csv_write_num(w, o->time_s);
        aug_csv_write_num(w, o->share);
        aug_csv_write_str(w, o->source);
        aug_cli_op_shape_csv(w, &o->shape);
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w) == AUG_OK ? 0 : 1;
}

int aug_cli_infer_emit(FILE *f, enum aug_format fmt, const struct aug_model *m,
                       const struct aug_system *s, const struct aug_infer_plan *p,
                       const struct aug_infer_result *r, const struct aug_kdb *kdb, int roofline,
                       const struct aug_infer_op_report *ops, int n_ops, int want_ops,
                       const char *key, json_t *extra) {
    if (fmt == AUG_FORMAT_TABLE) {
        json_decref(extra);
        aug_cli_infer_table(f, m, s, p, r, kdb, roofline);
        if (want_ops)
            aug_cli_infer_ops_table(f, s, ops, n_ops);
        return 0;
    }
    if (fmt == AUG_FORMAT_CSV && want_ops) {
        json_decref(extra);
        return aug_cli_infer_ops_csv(f, ops, n_ops); /* one row per op */
    }
    json_t *obj = aug_cli_infer_json(m, s, p, r, kdb, roofline);
    if (want_ops)
        json_object_set_new(obj, "ops", aug_cli_infer_ops_json(ops, n_ops));
    if (key)
        json_object_set_new(obj, key, extra);
    else
        json_decref(extra);
    int rc = aug_cli_write(f, fmt, obj);
    json_decref(obj);
    return rc;
}
