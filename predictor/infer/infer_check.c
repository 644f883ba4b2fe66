/* SPDX-License-Identifier: Apache-2.0 */
/* infer_check.c - every number of a serving prediction is finite (infer_check.h). */
#include "infer/infer_check.h"

#include <stdio.h>

#include "core/finite.h"

_Static_assert(sizeof(struct aug_infer_breakdown) == 8 * sizeof(double),
               "breakdown_names out of sync with struct aug_infer_breakdown");
_Static_assert(sizeof(struct aug_infer_memory) == 5 * sizeof(double),
               "memory_names out of sync with struct aug_infer_memory");

int aug_infer_check_finite(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_infer_plan *p, const struct aug_infer_result *r) {
    static const char *const prefill_names[] = {
        "prefill.gemm_s", "prefill.attention_s", "prefill.memory_s", "prefill.lm_head_s",
        "prefill.tp_comm_s", "prefill.pp_comm_s", "prefill.bubble_s", "prefill.overhead_s"};
    static const char *const decode_names[] = {
        "decode.gemm_s", "decode.attention_s", "decode.memory_s", "decode.lm_head_s",
        "decode.tp_comm_s", "decode.pp_comm_s", "decode.bubble_s", "decode.overhead_s"};
    static const char *const memory_names[] = {"memory.weights_gib", "memory.kv_cache_gib",
                                               "memory.activations_gib", "memory.workspace_gib",
                                               "memory.total_gib"};
    const struct aug_finite_field f[] = {
        {"ttft_s", r->ttft_s},
        {"tpot_s", r->tpot_s},
        {"tpot_last_s", r->tpot_last_s},
        {"e2e_latency_s", r->e2e_latency_s},
        {"throughput_tokens_per_s", r->throughput_tokens_per_s},
        {"total_tokens_per_s", r->total_tokens_per_s},
        {"prefill_s", r->prefill_s},
        {"decode_s", r->decode_s},
        {"decode_step_bytes", r->decode_step_bytes},
        {"weight_bytes_per_gpu", r->weight_bytes_per_gpu},
        {"kv_bytes_per_token", r->kv_bytes_per_token},
        {"params", r->params},
        {"memory_capacity_gib", r->memory_capacity_gib},
        {"provenance.calibrated", r->provenance.calibrated},
        {"provenance.fallback", r->provenance.fallback},
        {"provenance.roofline", r->provenance.roofline},
        {"serving.request_rate", r->serving.request_rate},
        {"serving.concurrency", r->serving.concurrency},
        {"serving.step_s", r->serving.step_s},
        {"serving.prefill_tokens_per_step", r->serving.prefill_tokens_per_step},
        {"serving.decode_tokens_per_step", r->serving.decode_tokens_per_step},
        {"serving.kv_transfer_s", r->serving.kv_transfer_s},
        {"serving.kv_transfer_bytes", r->serving.kv_transfer_bytes},
    };
    char ctx[256];
    snprintf(ctx, sizeof ctx, "serving %.64s on %.64s (tp %ld pp %ld, batch %ld, input %ld, "
             "output %ld)", m->name, s->name, p->tp, p->pp, p->batch, p->input_len,
             p->output_len);
    int st = aug_finite_check(ctx, f, sizeof f / sizeof *f);
    if (st == 0)
        st = aug_finite_check_array(ctx, prefill_names, &r->prefill.gemm_s, 8);
    if (st == 0)
        st = aug_finite_check_array(ctx, decode_names, &r->decode.gemm_s, 8);
    if (st == 0)
        st = aug_finite_check_array(ctx, memory_names, &r->memory.weights_gib, 5);
    return st;
}
