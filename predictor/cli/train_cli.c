/* SPDX-License-Identifier: Apache-2.0 */
/* train_cli.c - formatting of training predictions. */
#include "train_cli.h"

#include <string.h>

#include "augur/framework.h"
#include "augur/matmulfree.h"
#include "augur/moe.h"

/* The host issue cost per kernel kind the plan's framework charges, at the speed of the
 * system's host CPU (as train.c runs them), in microseconds. */
static void host_issue_us(const struct aug_plan *p, const struct aug_system *s,
                          double us[AUG_OP_KIND_COUNT]) {
    double cpu = aug_system_host_issue_scale(s);
    for (int k = 0; k < AUG_OP_KIND_COUNT; k++)
        us[k] = 1e6 * cpu * aug_framework_issue_s(p, NULL, (enum aug_op_kind)k);
}

/* Where those costs come from. */
static const char *host_issue_source(const struct aug_plan *p) {
    const struct aug_framework *fw = aug_framework_get(p->framework);
    return p->cuda_graphs ? "CUDA graphs: none" : fw ? fw->host_fit : "?";
}

json_t *aug_cli_train_framework_json(const struct aug_plan *p, const struct aug_system *s,
                                     const char *applied) {
    double us[AUG_OP_KIND_COUNT];
    host_issue_us(p, s, us);
    json_t *o = json_pack("{s:s,s:s}", "name", aug_framework_name(p->framework),
                          "defaults_applied", applied ? applied : "");
    json_object_set_new(o, "host_issue_us",
                        json_pack("{s:f,s:f,s:f,s:f}", "gemm", us[AUG_OP_GEMM], "attention",
                                  us[AUG_OP_ATTENTION], "memory", us[AUG_OP_MEMORY],
                                  "collective", us[AUG_OP_COLLECTIVE]));
    json_object_set_new(o, "host_issue_scale", json_real(aug_system_host_issue_scale(s)));
    json_object_set_new(o, "host_issue_source", json_string(host_issue_source(p)));
    return o;
}

static json_t *plan_json(const struct aug_plan *p) {
    json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:I,s:I,s:I,s:I,s:s,s:i,s:s,s:s,s:s,s:b}",
                     "gpus", (json_int_t)p->gpus, "tp", (json_int_t)p->tp, "pp", (json_int_t)p->pp,
                     "dp", (json_int_t)p->dp, "cp", (json_int_t)p->cp, "ep", (json_int_t)p->ep,
                     "sp", p->sp, "interleave", (json_int_t)p->interleave, "micro_batch",
                     (json_int_t)p->micro_batch, "global_batch", (json_int_t)p->global_batch, "seq",
                     (json_int_t)p->seq, "recompute", aug_recompute_name(p->recompute), "zero",
                     p->zero, "fsdp", aug_fsdp_name(p->fsdp), "dtype", aug_dtype_name(p->dtype),
                     "attention", p->flash_attention ? "fused" : "unfused", "dp_overlap",
                     p->dp_overlap);
    if (!o)
        return NULL;
    char rcm[128];
    aug_rc_modules_format(aug_plan_rc_modules(p), rcm, sizeof rcm);
    json_object_set_new(o, "recompute_modules", json_string(rcm));
    json_object_set_new(o, "recompute_layers", json_integer((json_int_t)p->recompute_layers));
    json_object_set_new(o, "attention_kernel", json_string(aug_attn_kernel_name(p->attn_kernel)));
    json_object_set_new(o, "cross_entropy", json_string(aug_cross_entropy_name(p->cross_entropy)));
    json_object_set_new(o, "fp8_scaling", p->dtype == AUG_DTYPE_FP8
                                              ? json_string(aug_fp8_scaling_name(p->fp8_scaling))
                                              : json_null());
    json_object_set_new(o, "fp8_params",
                        p->dtype == AUG_DTYPE_FP8 ? json_boolean(p->fp8_params) : json_null());
    json_object_set_new(o, "zero3_gather", json_string(aug_zero3_gather_name(p->zero3_gather)));
    json_object_set_new(o, "grad_reduce", json_string(aug_grad_reduce_name(p->grad_reduce)));
    json_object_set_new(o, "cp_algo", json_string(aug_cp_algo_name(p->cp_algo)));
    json_object_set_new(o, "etp", json_integer((json_int_t)aug_plan_etp(p)));
    json_object_set_new(o, "ep_placement", json_string(p->ep_outer ? "outer" : "inner"));
    json_object_set_new(o, "moe_capacity_factor", json_real(p->moe_capacity_factor));
    json_object_set_new(o, "moe_imbalance", json_real(p->moe_imbalance));
    json_object_set_new(o, "ternary_kernel", json_string(aug_ternary_kernel_name(p->ternary)));
    json_object_set_new(o, "tp_overlap", json_boolean(p->tp_overlap));
    json_object_set_new(o, "pp_overlap", json_boolean(p->pp_overlap));
    json_object_set_new(o, "pp_embed_loss_slots", json_boolean(p->pp_embed_loss_slots));
    json_object_set_new(o, "pp_first_layers", json_integer((json_int_t)p->pp_first_layers));
    json_object_set_new(o, "pp_last_layers", json_integer((json_int_t)p->pp_last_layers));
    json_object_set_new(o, "moe_overlap", json_string(aug_moe_overlap_name(p->moe_overlap)));
    json_object_set_new(o, "moe_dispatcher",
                        json_string(aug_moe_dispatcher_name(p->moe_dispatcher)));
    json_object_set_new(o, "comm_slowdown", json_real(p->comm_slowdown));
    json_object_set_new(o, "moe_overlap_realized", json_real(p->moe_overlap_realized));
    json_object_set_new(o, "framework", json_string(aug_framework_name(p->framework)));
    json_object_set_new(o, "pp_scatter", json_boolean(p->pp_scatter));
    json_object_set_new(o, "tp_async_allreduce", json_boolean(p->tp_async_allreduce));
    json_object_set_new(o, "main_grads", json_string(aug_main_grads_name(p->main_grads)));
    json_object_set_new(o, "cuda_graphs", json_boolean(p->cuda_graphs));
    json_object_set_new(o, "bucket_params", json_real(p->bucket_params));
    json_object_set_new(o, "param_gather_overlap", json_boolean(p->param_gather_overlap));
    return o;
}

static json_t *moe_json(const struct aug_model *m, const struct aug_plan *p) {
    struct aug_moe_routing r;
    aug_moe_routing(m, p, p->dtype == AUG_DTYPE_FP32 || p->dtype == AUG_DTYPE_TF32 ? 4.0 : 2.0, &r);
    json_t *o = json_object();
    json_object_set_new(o, "routing", json_string(r.dropless ? "dropless" : "capacity"));
    json_object_set_new(o, "tokens_per_rank", json_real(r.tokens_per_rank));
    json_object_set_new(o, "local_experts", json_real(r.local_experts));
    json_object_set_new(o, "mean_tokens_per_expert", json_real(r.mean_tokens_per_expert));
    json_object_set_new(o, "tokens_per_expert_busiest", json_real(r.tokens_per_expert));
    json_object_set_new(o, "busiest_rank_factor", json_real(r.busiest_rank_factor));
    json_object_set_new(o, "dropped_fraction", json_real(r.dropped_fraction));
    json_object_set_new(o, "dispatch_bytes_per_rank", json_real(r.dispatch_bytes));
    return o;
}

static json_t *mmf_json(const struct aug_model *m) {
    struct aug_mmf_counts c;
    aug_mmf_counts(m, 2.0, &c);
    return json_pack("{s:f,s:f,s:f,s:f}", "ternary_params", c.ternary_params, "other_params",
                     c.other_params, "inference_weight_gib", c.weight_bytes / (1024.0 * 1024.0 * 1024.0),
                     "state_bytes_per_sequence", c.state_bytes_per_seq);
}

static const char *const moe_keys[] = {"routing", "tokens_per_rank", "local_experts",
                                      "mean_tokens_per_expert", "tokens_per_expert_busiest",
                                      "busiest_rank_factor", "dropped_fraction",
                                      "dispatch_bytes_per_rank", NULL};
static const char *const mmf_keys[] = {"ternary_params", "other_params", "inference_weight_gib",
                                      "state_bytes_per_sequence", NULL};

/* An object with these keys, all null. */
static json_t *nulls(const char *const *keys) {
    json_t *o = json_object();
    for (; o && *keys; keys++)
        json_object_set_new(o, *keys, json_null());
    return o;
}

json_t *aug_cli_train_json(const struct aug_model *m, const struct aug_system *s,
                           const struct aug_plan *p, const struct aug_train_result *r,
                           const struct aug_kdb *kdb) {
    const struct aug_train_breakdown *b = &r->breakdown;
    const struct aug_train_memory *mem = &r->memory;
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(m->name));
    json_object_set_new(o, "system", json_string(s->name));
    json_object_set_new(o, "gpu", json_string(s->gpu.id));
    json_object_set_new(o, "plan", plan_json(p));
    json_object_set_new(o, "step_time_s", json_real(r->step_time_s));
    json_object_set_new(o, "tokens_per_s", json_real(r->tokens_per_s));
    json_object_set_new(o, "tokens_per_s_per_gpu", json_real(r->tokens_per_s / (double)p->gpus));
    json_object_set_new(o, "mfu", json_real(r->mfu));
    json_object_set_new(o, "hfu", json_real(r->hfu));
    json_object_set_new(o, "params", json_real(r->params));
    json_object_set_new(o, "model_flops", json_real(r->model_flops));
    json_object_set_new(o, "hardware_flops", json_real(r->hardware_flops));
    json_object_set_new(o, "microbatches", json_integer(r->microbatches));
    json_object_set_new(o, "bubble_fraction", json_real(r->bubble_fraction));
    json_object_set_new(o, "memory_gib_per_gpu", json_real(mem->total_gib));
    json_object_set_new(o, "memory_capacity_gib", json_real(r->memory_capacity_gib));
    json_object_set_new(o, "fits_in_memory", json_boolean(r->fits_in_memory));
    json_object_set_new(
        o, "breakdown_s",
        json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "compute", b->compute_s,
                  "attention", b->attention_s, "recompute", b->recompute_s, "embedding",
                  b->embedding_s, "tp_comm", b->tp_comm_s, "cp_comm", b->cp_comm_s, "ep_comm",
                  b->ep_comm_s, "pp_comm", b->pp_comm_s, "dp_comm", b->dp_comm_s,
                  "pipeline_bubble", b->pipeline_bubble_s, "optimizer", b->optimizer_s, "overhead",
                  b->overhead_s));
    json_object_set_new(o, "memory_gib",
                        json_pack("{s:f,s:f,s:f,s:f,s:f}", "weights", mem->weights_gib, "gradients",
                                  mem->gradients_gib, "optimizer", mem->optimizer_gib,
                                  "activations", mem->activations_gib, "workspace",
                                  mem->workspace_gib));
    json_object_set_new(o, "provenance",
                        json_pack("{s:f,s:f,s:f}", "calibrated", r->provenance.calibrated,
                                  "fallback", r->provenance.fallback, "roofline",
                                  r->provenance.roofline));
    json_object_set_new(o, "kdb_curves", json_integer(kdb ? aug_kdb_curve_count(kdb) : 0));
    json_object_set_new(o, "kdb_origin", json_string(aug_kdb_origin(kdb)));
    /* every model kind has the same keys (and CSV columns): null where one does not apply */
    json_object_set_new(o, "moe", m->arch == AUG_ARCH_MOE ? moe_json(m, p) : nulls(moe_keys));
    json_object_set_new(o, "matmulfree",
                        m->arch == AUG_ARCH_MATMULFREE ? mmf_json(m) : nulls(mmf_keys));
    return o;
}

void aug_cli_provenance_text(const struct aug_provenance *pv, char *buf, size_t n) {
    snprintf(buf, n, "calibrated %.1f%%, fallback %.1f%%, roofline %.1f%%", 100.0 * pv->calibrated,
             100.0 * pv->fallback, 100.0 * pv->roofline);
}

static void row(FILE *f, const char *name, double sec, double total) {
    if (sec <= 0)
        return;
    fprintf(f, "  %-22s %12.6f s  %5.1f%%\n", name, sec, total > 0 ? 100.0 * sec / total : 0.0);
}

void aug_cli_train_table(FILE *f, const struct aug_model *m, const struct aug_system *s,
                         const struct aug_plan *p, const struct aug_train_result *r,
                         const struct aug_kdb *kdb) {
    const struct aug_train_breakdown *b = &r->breakdown;
    const struct aug_train_memory *mem = &r->memory;
    char prov[128], rcm[128];
    aug_cli_provenance_text(&r->provenance, prov, sizeof prov);
    int sel = p->recompute == AUG_RECOMPUTE_SELECTIVE;
    aug_rc_modules_format(aug_plan_rc_modules(p), rcm, sizeof rcm);
    if (p->recompute == AUG_RECOMPUTE_FULL && p->recompute_layers > 0) {
        sel = 1; /* the parenthesis names the block method's layers instead */
        snprintf(rcm, sizeof rcm, "first %ld layers of each chunk", p->recompute_layers);
    }
    fprintf(f, "# augur train: %s (%.3g B params) on %s, %ld x %s\n", m->name, r->params / 1e9,
            s->name, p->gpus, s->gpu.name);
    fprintf(f, "# plan: tp %ld, pp %ld, dp %ld, cp %ld, ep %ld, sp %s, interleave %ld, "
               "micro-batch %ld, global batch %ld, seq %ld, recompute %s%s%s%s, zero %d, fsdp %s, "
               "%s%s, attention %s%s\n",
            p->tp, p->pp, p->dp, p->cp, p->ep, p->sp ? "on" : "off", p->interleave, p->micro_batch,
            p->global_batch, p->seq, aug_recompute_name(p->recompute), sel ? " (" : "",
            sel ? rcm : "", sel ? ")" : "", p->zero,
            aug_fsdp_name(p->fsdp), aug_dtype_name(p->dtype), aug_plan_fp8_scaling_note(p),
            p->flash_attention ? "fused" : "unfused",
            !p->flash_attention ? ""
            : p->attn_kernel == AUG_ATTN_KERNEL_FA2 ? " (FlashAttention-2)"
            : p->attn_kernel == AUG_ATTN_KERNEL_FA3 ? " (FlashAttention-3)" : " (cuDNN)");
    /* Transformer Engine trains a fused kernel with a head wider than 128 on Blackwell only
     * since TE 2.5 with cuDNN 9.11 (common/fused_attn/fused_attn.cpp, TE PR #1797,
     * 2025-06); FlashAttention refuses MLA's unequal q.k and p.v widths, so older stacks
     * (NeMo 25.04's TE) run UnfusedDotProductAttention there. */
    if (m->attention == AUG_ATTN_MLA && p->flash_attention && s->gpu.sm_arch >= 100 &&
        (m->qk_nope_head_dim + m->qk_rope_head_dim > 128 || m->v_head_dim > 128))
        fprintf(f, "# note: fused attention assumed for MLA heads of %ld/%ld on sm_%d, which "
                   "needs Transformer Engine >= 2.5 with cuDNN >= 9.11; older stacks run "
                   "unfused attention (--attention unfused)\n",
                m->qk_nope_head_dim + m->qk_rope_head_dim, m->v_head_dim, s->gpu.sm_arch);
    /* GPT-OSS's layers (attention sinks, biased experts with a clamped GLU): the published
     * Megatron-Bridge 26.04.01 runs of GPT-OSS-120B, BF16 on 64 H100, B200 and GB200
     * (benchmarks/accuracy/training_moe.csv, held out), took 1.57-1.75x the step augur
     * predicts for them; what costs the difference is not known, so the plan says so. */
    if (m->attn_sinks)
        fprintf(f, "# note: attention sinks (GPT-OSS layers): Megatron-Bridge 26.04.01's published "
                   "GPT-OSS-120B runs took 1.57-1.75x the step augur predicts for them, a cost "
                   "not modelled (benchmarks/accuracy/README.md)\n");
    fprintf(f, "# overlap: dp %s, tp %s, pp %s, parameter all-gather %s%s; compute slowdown %.2f "
               "while a collective shares the SMs\n", p->dp_overlap ? "on" : "off",
            p->tp_overlap ? "on" : "off", p->pp_overlap ? "on" : "off",
            p->param_gather_overlap ? "on" : "off",
            p->zero3_gather == AUG_ZERO3_SERIAL
                ? ", ZeRO-3 gathers serial (tensor by tensor after the compute)"
            : p->zero == 1 && p->grad_reduce == AUG_GRAD_ALL_REDUCE
                ? ", ZeRO-1 gradients all-reduced (BF16_Optimizer)"
                : "",
            p->comm_slowdown);
    if (p->pp_first_layers > 0 || p->pp_last_layers > 0)
        fprintf(f, "# pipeline split: %ld layers on the first rank, %ld on the last, %ld on each "
                   "of the other %ld\n",
                aug_plan_stage_layers_at(p, m, 0), aug_plan_stage_layers_at(p, m, p->pp - 1),
                p->pp > 2 ? aug_plan_stage_layers_at(p, m, 1) : 0L, p->pp - 2);
    else if (p->pp_embed_loss_slots && p->pp > 2)
        fprintf(f, "# pipeline split: %ld layers + embedding + loss over %ld chunks: %ld layers "
                   "per rank, %ld on the first and last\n",
                m->layers, p->pp * p->interleave, aug_plan_stage_layers(p, m),
                aug_plan_stage_layers_at(p, m, 0));
    else if (p->pp_embed_loss_slots && p->pp == 2)
        fprintf(f, "# pipeline split: %ld layers + embedding + loss over %ld chunks: %ld layers "
                   "on each of the two ranks\n",
                m->layers, p->pp * p->interleave, aug_plan_stage_layers_at(p, m, 0));
    if (p->cp > 1)
        fprintf(f, "# context parallelism: %s over %ld ranks, %ld tokens each\n",
                aug_cp_algo_name(p->cp_algo), p->cp, p->seq / p->cp);
    if (m->arch == AUG_ARCH_MOE) {
        char realized[160] = "";
        struct aug_plan dflt;
        aug_plan_init(&dflt);
        if (p->moe_overlap == AUG_MOE_OVERLAP_BATCH || p->moe_overlap == AUG_MOE_OVERLAP_SHARED)
            snprintf(realized, sizeof realized, " (%.2f of its schedule's hidden time: %s)",
                     p->moe_overlap_realized,
                     p->moe_overlap_realized == dflt.moe_overlap_realized
                         ? "fitted on a published pair, efficiency.c"
                         : "given");
        fprintf(f, "# experts: %ld (top-%ld, %ld shared), ep %ld placed %s, etp %ld, %s, "
                   "imbalance %.2f, %s dispatcher, a2a overlap %s%s; MoE layers %ld of %ld\n",
                m->moe_experts, m->moe_topk, m->moe_shared_experts, p->ep,
                p->ep_outer ? "across nodes (outer)" : "next to TP (inner)", aug_plan_etp(p),
                p->moe_capacity_factor > 0 ? "capacity-padded" : "dropless", p->moe_imbalance,
                aug_moe_dispatcher_name(p->moe_dispatcher), aug_moe_overlap_name(p->moe_overlap),
                realized, aug_model_moe_layers(m), m->layers);
    }
    if (m->arch == AUG_ARCH_MATMULFREE)
        fprintf(f, "# MatMul-free: ternary BitLinear layers %s\n",
                p->ternary == AUG_TERNARY_ACCUMULATE
                    ? "accumulate-only on the CUDA cores (non-tensor rate, 2-bit weights)"
                    : "as 16-bit tensor-core GEMMs (reference implementation)");
    const struct aug_framework *fw = aug_framework_get(p->framework);
    fprintf(f, "# framework: %s (%s); pipeline scatter/gather %s, async TP all-reduce %s, "
               "gradients %s, CUDA graphs %s\n",
            fw ? fw->name : "?", fw ? fw->source : "?", p->pp_scatter ? "on" : "off",
            p->tp_async_allreduce ? "on" : "off", aug_main_grads_name(p->main_grads),
            p->cuda_graphs ? "on" : "off");
    double cpu = aug_system_host_issue_scale(s), us[AUG_OP_KIND_COUNT];
    host_issue_us(p, s, us);
    char cpu_note[160] = "";
    if (cpu != 1.0 && !p->cuda_graphs)
        snprintf(cpu_note, sizeof cpu_note,
                 ", x %.2f for the host CPU of system %s (its host_issue_scale)", cpu, s->name);
    fprintf(f, "# host issue per kernel: gemm %.1f, attention %.1f, memory %.1f, collective "
               "%.1f us (%s%s)\n",
            us[AUG_OP_GEMM], us[AUG_OP_ATTENTION], us[AUG_OP_MEMORY], us[AUG_OP_COLLECTIVE],
            host_issue_source(p), cpu_note);
    if (m->caveats[0])
        fprintf(f, "# model caveats: %s\n", m->caveats);
    fprintf(f, "# times: hybrid op model; share of predicted time by source: %s\n", prov);
    const char *origin = aug_kdb_origin(kdb);
    fprintf(f, "#   (calibrated = kernels-db/%s curves (%d)%s%s, fallback = documented default "
               "efficiencies, roofline = peak only)\n",
            s->gpu.id, kdb ? aug_kdb_curve_count(kdb) : 0, *origin ? " " : "", origin);
    if (s->gpu.gemm_scale > 0)
        fprintf(f, "#   (fallback GEMM main loops at gemm_scale %.2f of their rate elsewhere, "
                   "fitted on published training runs: kernels-db/gpus.csv)\n",
                s->gpu.gemm_scale);
    fprintf(f, "# memory: analytical (ZeRO model states, Korthikanti et al. activations%s)\n",
            p->dtype != AUG_DTYPE_FP8 ? ""
            : p->fp8_params ? "; weights: the layers' in fp8 with Transformer Engine's "
                              "transposes where the GPU needs them"
                            : "; weights: 16-bit beside Transformer Engine's cached fp8 copies");
    fprintf(f, "step time                %12.6f s\n", r->step_time_s);
    fprintf(f, "throughput               %12.1f tokens/s  (%.1f per GPU)\n", r->tokens_per_s,
            r->tokens_per_s / (double)p->gpus);
    fprintf(f, "MFU                      %12.1f %%   (model FLOPs %.4g per iteration, "
               "causal attention pairs)\n",
            100.0 * r->mfu, r->model_flops);
    fprintf(f, "HFU                      %12.1f %%   (with recomputation)\n", 100.0 * r->hfu);
    fprintf(f, "micro-batches            %12ld      (bubble %.1f%% of busy time)\n", r->microbatches,
            100.0 * r->bubble_fraction);
    fprintf(f, "time breakdown:\n");
    double t = r->step_time_s;
    row(f, "compute", b->compute_s, t);
    row(f, "attention", b->attention_s, t);
    row(f, "recompute", b->recompute_s, t);
    row(f, "embedding+head+loss", b->embedding_s, t);
    row(f, "tp communication", b->tp_comm_s, t);
    row(f, "cp communication", b->cp_comm_s, t);
    row(f, "ep communication", b->ep_comm_s, t);
    row(f, "pp communication", b->pp_comm_s, t);
    row(f, "dp communication", b->dp_comm_s, t);
    row(f, "pipeline bubble", b->pipeline_bubble_s, t);
    row(f, "optimizer", b->optimizer_s, t);
    row(f, "overhead", b->overhead_s, t);
    if (m->arch == AUG_ARCH_MOE) {
        struct aug_moe_routing mr;
        aug_moe_routing(m, p, 2.0, &mr);
        fprintf(f, "MoE routing:             %s, imbalance %.2f (busiest rank %.3f x mean), "
                   "%.1f tokens per local expert, %.2f%% dropped\n",
                mr.dropless ? "dropless" : "capacity-padded", mr.imbalance, mr.busiest_rank_factor,
                mr.tokens_per_expert, 100.0 * mr.dropped_fraction);
    }
    fprintf(f, "memory per GPU:          %12.2f GiB of %.2f GiB: %s\n", mem->total_gib,
            r->memory_capacity_gib, r->fits_in_memory ? "fits" : "DOES NOT FIT");
    fprintf(f, "  %-22s %12.2f GiB\n", "weights", mem->weights_gib);
    fprintf(f, "  %-22s %12.2f GiB\n", "gradients", mem->gradients_gib);
    fprintf(f, "  %-22s %12.2f GiB\n", "optimizer states", mem->optimizer_gib);
    fprintf(f, "  %-22s %12.2f GiB\n", "activations", mem->activations_gib);
    fprintf(f, "  %-22s %12.2f GiB\n", "workspace", mem->workspace_gib);
}

json_t *aug_cli_train_memory_options_json(const struct aug_train_memory_option *o, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "change", json_string(o[i].change));
        json_object_set_new(e, "memory_gib", json_real(o[i].total_gib));
        json_object_set_new(e, "fits", json_boolean(o[i].fits));
        json_array_append_new(a, e);
    }
    return a;
}

void aug_cli_train_memory_options_table(FILE *f, const struct aug_train_memory_option *o,
                                        int n) {
    if (n == 0) {
        fprintf(f, "memory: no single option of augur train saves memory on this plan; "
                   "augur sweep train searches the plans that fit\n");
        return;
    }
    fprintf(f, "memory per GPU after one change (analytical, nothing else changed; "
               "augur sweep train searches every plan):\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "  %-22s %12.2f GiB%s\n", o[i].change, o[i].total_gib,
                o[i].fits ? "  fits" : "");
}

static void cmp_row(FILE *f, const char *name, double a, double b, const char *fmt) {
    char x[32], y[32];
    snprintf(x, sizeof x, fmt, a);
    snprintf(y, sizeof y, fmt, b);
    fprintf(f, "  %-24s %16s %16s   %6.2fx\n", name, x, y, b > 0 ? a / b : 0.0);
}

void aug_cli_train_compare(FILE *f, const struct aug_model *mmf, const struct aug_train_result *r,
                           const struct aug_model *tpp, const struct aug_train_result *t,
                           const struct aug_plan *p) {
    struct aug_mmf_counts c;
    aug_mmf_counts(mmf, 2.0, &c);
    fprintf(f, "\n# MatMul-free (%s BitLinear) against the same-size Transformer++ (%s), same plan\n",
            aug_ternary_kernel_name(p->ternary), tpp->name);
    fprintf(f, "  %-24s %16s %16s   %7s\n", "", mmf->name, "transformer++", "ratio");
    cmp_row(f, "parameters (B)", r->params / 1e9, t->params / 1e9, "%.4f");
    cmp_row(f, "step time (s)", r->step_time_s, t->step_time_s, "%.6f");
    cmp_row(f, "tokens/s per GPU", r->tokens_per_s / (double)p->gpus,
            t->tokens_per_s / (double)p->gpus, "%.1f");
    cmp_row(f, "MFU (%)", 100.0 * r->mfu, 100.0 * t->mfu, "%.1f");
    cmp_row(f, "compute (s)", r->breakdown.compute_s, t->breakdown.compute_s, "%.6f");
    cmp_row(f, "token mixer/attention (s)", r->breakdown.attention_s, t->breakdown.attention_s,
            "%.6f");
    cmp_row(f, "memory per GPU (GiB)", r->memory.total_gib, t->memory.total_gib, "%.2f");
    cmp_row(f, "activations (GiB)", r->memory.activations_gib, t->memory.activations_gib, "%.2f");
    double tw = (double)aug_model_params(tpp) * 2.0 / (1024.0 * 1024.0 * 1024.0);
    cmp_row(f, "inference weights (GiB)", c.weight_bytes / (1024.0 * 1024.0 * 1024.0), tw, "%.3f");
    fprintf(f, "  (inference: MatMul-free keeps %.0f bytes of recurrent state per sequence, no KV "
               "cache; ternary weights packed at 2 bits)\n", c.state_bytes_per_seq);
}
