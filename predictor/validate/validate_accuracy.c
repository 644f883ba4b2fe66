/* SPDX-License-Identifier: Apache-2.0 */
/* validate_accuracy.c - rows of an accuracy set in the DESIGN section 6 training schema.
 * Inference-schema rows are read by validate_infer.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "augur/augur.h"
#include "validate_internal.h"

static const struct {
    const char *name;
    enum aug_metric metric;
    const char *units[4];
} metrics[] = {
    {"step_time_s", AUG_METRIC_STEP_TIME, {"s", "s/iteration", "seconds", NULL}},
    {"tokens_per_s", AUG_METRIC_TOKENS, {"tokens/s", "tokens/s (whole 8-GPU node)", NULL, NULL}},
    {"tokens_per_s_per_gpu", AUG_METRIC_TOKENS_PER_GPU,
     {"tokens/s/GPU", "tokens/s per GPU", "tokens/s", NULL}},
    {"mfu", AUG_METRIC_MFU, {"fraction", "fraction of peak", NULL, NULL}},
    {"memory_gib", AUG_METRIC_MEMORY, {"GiB", NULL, NULL, NULL}},
};

/* Optional columns beyond the DESIGN section 6 schema, for runs whose setup augur can
 * model more precisely: etp, ep_placement (inner|outer), cp_algo (ring|ulysses|allgather),
 * moe_capacity_factor, moe_imbalance, moe_overlap (none|shared|batch), moe_dispatcher
 * (alltoall|deepep), tp_overlap, pp_overlap,
 * pp_embed_loss_slots (0|1), pp_first_layers and pp_last_layers (layers on the first and last
 * pipeline rank), tp_async_allreduce (0|1), cuda_graphs (0|1: the layers replay as CUDA
 * graphs, no per-kernel host issue), ternary_kernel, attention_kernel (cudnn|fa3|fa2),
 * main_grads (dtype|fp32|fp32-copy: the gradient bytes a run's notes state, e.g. FSDP
 * reducing gradients in fp32),
 * zero3_gather (prefetch|serial), grad_reduce (reduce-scatter|all-reduce), fp8_scaling
 * (delayed|current), fp8_params (0|1: the layers' weights kept and gathered in fp8) and
 * param_gather_overlap (0|1: the sharded optimizer's parameter all-gather behind the next
 * forward, Megatron-Core overlap_param_gather). */
static int read_extra(const struct aug_csv *t, size_t i, struct aug_plan *p) {
    int st;
    long v;
    double d;
    if ((st = aug_vrow_long(t, i, "etp", AUG_CSV_POSITIVE, &p->etp)) != AUG_OK ||
        (st = aug_vrow_long(t, i, "pp_first_layers", AUG_CSV_POSITIVE, &p->pp_first_layers)) !=
            AUG_OK ||
        (st = aug_vrow_long(t, i, "pp_last_layers", AUG_CSV_POSITIVE, &p->pp_last_layers)) !=
            AUG_OK)
        return st;
    const char *s = aug_vrow_cell(t, i, "ep_placement");
    if (s[0]) {
        if (strcasecmp(s, "outer") != 0 && strcasecmp(s, "inner") != 0)
            return aug_csv_cell_error(t, i, "ep_placement", "'%s' is not inner or outer", s);
        p->ep_outer = strcasecmp(s, "outer") == 0;
    }
    s = aug_vrow_cell(t, i, "cp_algo");
    if (s[0] && aug_cp_algo_from_name(s, &p->cp_algo) != AUG_OK)
        return aug_csv_cell_error(t, i, "cp_algo", "'%s' is not ring, ulysses or allgather", s);
    s = aug_vrow_cell(t, i, "attention_kernel");
    if (s[0] && aug_attn_kernel_from_name(s, &p->attn_kernel) != AUG_OK)
        return aug_csv_cell_error(t, i, "attention_kernel", "'%s' is not cudnn, fa3 or fa2", s);
    s = aug_vrow_cell(t, i, "zero3_gather");
    if (s[0] && aug_zero3_gather_from_name(s, &p->zero3_gather) != AUG_OK)
        return aug_csv_cell_error(t, i, "zero3_gather", "'%s' is not prefetch or serial", s);
    s = aug_vrow_cell(t, i, "grad_reduce");
    if (s[0] && aug_grad_reduce_from_name(s, &p->grad_reduce) != AUG_OK)
        return aug_csv_cell_error(t, i, "grad_reduce", "'%s' is not reduce-scatter or all-reduce",
                                  s);
    s = aug_vrow_cell(t, i, "cross_entropy");
    if (s[0] && aug_cross_entropy_from_name(s, &p->cross_entropy) != AUG_OK)
        return aug_csv_cell_error(t, i, "cross_entropy", "'%s' is not fused, unfused or te", s);
    s = aug_vrow_cell(t, i, "fp8_scaling");
    if (s[0] && aug_fp8_scaling_from_name(s, &p->fp8_scaling) != AUG_OK)
        return aug_csv_cell_error(t, i, "fp8_scaling", "'%s' is not delayed or current", s);
    s = aug_vrow_cell(t, i, "main_grads");
    if (s[0] && aug_main_grads_from_name(s, &p->main_grads) != AUG_OK)
        return aug_csv_cell_error(t, i, "main_grads", "'%s' is not dtype, fp32 or fp32-copy", s);
    s = aug_vrow_cell(t, i, "ternary_kernel");
    if (s[0] && aug_ternary_kernel_from_name(s, &p->ternary) != AUG_OK)
        return aug_csv_cell_error(t, i, "ternary_kernel", "'%s' is not accumulate or tensor", s);
    st = aug_csv_get_double(t, i, "moe_capacity_factor", AUG_CSV_NONNEG, &d);
    if (st == AUG_OK)
        p->moe_capacity_factor = d;
    else if (st != AUG_ENOTFOUND)
        return st;
    s = aug_vrow_cell(t, i, "moe_overlap");
    if (s[0] && aug_moe_overlap_from_name(s, &p->moe_overlap) != AUG_OK)
        return aug_csv_cell_error(t, i, "moe_overlap", "'%s' is not none, shared or batch", s);
    s = aug_vrow_cell(t, i, "moe_dispatcher");
    if (s[0] && aug_moe_dispatcher_from_name(s, &p->moe_dispatcher) != AUG_OK)
        return aug_csv_cell_error(t, i, "moe_dispatcher", "'%s' is not alltoall or deepep", s);
    st = aug_csv_get_double(t, i, "moe_imbalance", AUG_CSV_POSITIVE, &d);
    if (st == AUG_OK)
        p->moe_imbalance = d;
    else if (st != AUG_ENOTFOUND)
        return st;
    static const char *const flags[] = {"tp_overlap", "pp_overlap", "pp_embed_loss_slots",
                                        "tp_async_allreduce", "cuda_graphs", "fp8_params",
                                        "param_gather_overlap"};
    int *dst[] = {&p->tp_overlap, &p->pp_overlap, &p->pp_embed_loss_slots,
                  &p->tp_async_allreduce, &p->cuda_graphs, &p->fp8_params,
                  &p->param_gather_overlap};
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
        v = -1;
        if ((st = aug_vrow_long(t, i, flags[k], AUG_CSV_NONNEG, &v)) != AUG_OK)
            return st;
        if (v > 1)
            return aug_csv_cell_error(t, i, flags[k], "%ld is not 0 or 1", v);
        if (v >= 0)
            *dst[k] = (int)v;
    }
    return AUG_OK;
}

static int read_plan(const struct aug_csv *t, size_t i, struct aug_plan *p) {
    int st;
    aug_plan_init(p);
    if ((st = aug_csv_get_long(t, i, "num_gpus", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &p->gpus)) ||
        (st = aug_vrow_long(t, i, "tp", AUG_CSV_POSITIVE, &p->tp)) || (st = aug_vrow_long(t, i, "pp", AUG_CSV_POSITIVE, &p->pp)) ||
        (st = aug_vrow_long(t, i, "cp", AUG_CSV_POSITIVE, &p->cp)) || (st = aug_vrow_long(t, i, "ep", AUG_CSV_POSITIVE, &p->ep)) ||
        (st = aug_vrow_long(t, i, "interleave", AUG_CSV_POSITIVE, &p->interleave)) ||
        (st = aug_vrow_long(t, i, "microbatch", AUG_CSV_POSITIVE, &p->micro_batch)) ||
        (st = aug_csv_get_long(t, i, "global_batch", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE,
                               &p->global_batch)) ||
        (st = aug_vrow_long(t, i, "seq_len", AUG_CSV_POSITIVE, &p->seq)))
        return st;
    long dp = 0, sp = 0, zero = 0, overlap = 1;
    if ((st = aug_vrow_long(t, i, "dp", AUG_CSV_POSITIVE, &dp)) || (st = aug_vrow_long(t, i, "sp", AUG_CSV_NONNEG, &sp)) ||
        (st = aug_vrow_long(t, i, "zero_stage", AUG_CSV_NONNEG, &zero)) || (st = aug_vrow_long(t, i, "dp_overlap", AUG_CSV_NONNEG, &overlap)))
        return st;
    p->dp = dp;
    if (sp > 1)
        return aug_csv_cell_error(t, i, "sp", "%ld is not 0 or 1", sp);
    p->sp = (int)sp;
    if (zero > 3)
        return aug_csv_cell_error(t, i, "zero_stage", "%ld is not 0-3", zero);
    p->zero = (int)zero;
    p->dp_overlap = overlap != 0;
    p->uneven_pp = 1; /* published runs split layers unevenly (e.g. BLOOM 70 on 12 stages) */
    if ((st = read_extra(t, i, p)) != AUG_OK)
        return st;
    const char *rc = aug_vrow_cell(t, i, "recompute");
    if (rc[0] && aug_recompute_from_name(rc, &p->recompute) != AUG_OK)
        return aug_csv_cell_error(t, i, "recompute", "'%s' is not none, selective or full", rc);
    /* recompute_layers: Megatron-Core's block method, N layers per chunk (needs full) */
    long nrl = 0;
    if ((st = aug_vrow_long(t, i, "recompute_layers", AUG_CSV_NONNEG, &nrl)) != AUG_OK)
        return st;
    if (nrl > 0 && p->recompute != AUG_RECOMPUTE_FULL)
        return aug_csv_cell_error(t, i, "recompute_layers", "%ld needs recompute 'full' (the "
                                  "row says '%s')", nrl, aug_recompute_name(p->recompute));
    p->recompute_layers = nrl;
    /* recompute_modules: Megatron-Core's list (e.g. "mla_up_proj" or "core_attn,mlp");
     * empty means core_attn, and a list needs recompute selective */
    const char *rcm = aug_vrow_cell(t, i, "recompute_modules");
    if (rcm[0]) {
        if (aug_rc_modules_parse(rcm, &p->recompute_modules) != AUG_OK)
            return aug_csv_cell_error(t, i, "recompute_modules", "%s", aug_last_error());
        if (p->recompute != AUG_RECOMPUTE_SELECTIVE)
            return aug_csv_cell_error(t, i, "recompute_modules", "'%s' needs recompute "
                                      "'selective' (the row says '%s')", rcm,
                                      aug_recompute_name(p->recompute));
    }
    const char *dt = aug_vrow_cell(t, i, "dtype");
    if (dt[0] && aug_dtype_from_name(dt, &p->dtype) != AUG_OK)
        return aug_csv_cell_error(t, i, "dtype", "unknown dtype '%s'", dt);
    if (aug_vrow_cell(t, i, "fp8_scaling")[0] && p->dtype != AUG_DTYPE_FP8)
        return aug_csv_cell_error(t, i, "fp8_scaling", "set on a row whose dtype is %s, not fp8",
                                  aug_dtype_name(p->dtype));
    if (strcmp(aug_vrow_cell(t, i, "fp8_params"), "1") == 0 && p->dtype != AUG_DTYPE_FP8)
        return aug_csv_cell_error(t, i, "fp8_params", "1 on a row whose dtype is %s, not fp8",
                                  aug_dtype_name(p->dtype));
    return aug_vrow_attention(t, i, &p->flash_attention);
}

static int read_row(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                    struct aug_validate_case *vc) {
    const struct aug_csv *t = rd->t;
    snprintf(row->id, sizeof row->id, "%s", aug_vrow_cell(t, i, "id"));
    snprintf(row->source, sizeof row->source, "%s", aug_vrow_cell(t, i, "source"));
    if (!row->id[0])
        return aug_csv_cell_error(t, i, "id", "empty, every row needs an id");
    const char *metric = aug_vrow_cell(t, i, "metric");
    snprintf(row->metric, sizeof row->metric, "%s", metric);
    int st = aug_csv_get_double(t, i, "value", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &row->measured);
    if (st != AUG_OK)
        return st;
    if (aug_csv_col(t, "input_len") >= 0 || aug_csv_col(t, "output_len") >= 0)
        return aug_errorf(AUG_EUNSUPPORTED, "inference rows are not scored by this build "
                                            "(no inference predictor)");
    size_t k;
    for (k = 0; k < sizeof metrics / sizeof *metrics; k++)
        if (strcmp(metric, metrics[k].name) == 0)
            break;
    if (k == sizeof metrics / sizeof *metrics)
        return aug_csv_cell_error(t, i, "metric", "unknown metric '%s' (use step_time_s, "
                                  "tokens_per_s, tokens_per_s_per_gpu, mfu, memory_gib)", metric);
    vc->metric = metrics[k].metric;
    if ((st = aug_vrow_unit(t, i, metric, metrics[k].units, 4)) != AUG_OK)
        return st;
    if ((st = aug_vrow_model(t, i, &vc->model)) != AUG_OK || (st = read_plan(t, i, &vc->plan)) != AUG_OK ||
        (st = aug_vrow_framework(t, i, vc)) != AUG_OK ||
        (st = aug_vrow_system(rd, i, &vc->system)) != AUG_OK)
        return st;
    /* a model described by its dimensions was trained at the row's sequence length */
    if (!aug_vrow_cell(t, i, "model")[0] && vc->plan.seq > vc->model.max_seq)
        vc->model.max_seq = vc->plan.seq;
    return AUG_OK;
}

int aug_validate_accuracy_open(const struct aug_csv *t, const char *path, const char *kdb_root,
                               struct aug_validate_reader *rd) {
    memset(rd, 0, sizeof *rd);
    rd->t = t;
    rd->kdb_root = kdb_root;
    rd->read = read_row;
    snprintf(rd->dir, sizeof rd->dir, "%s", path);
    char *slash = strrchr(rd->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(rd->dir, sizeof rd->dir, ".");
    static const char *const required[] = {"id", "metric", "value", "system", "num_gpus"};
    for (size_t k = 0; k < sizeof required / sizeof *required; k++)
        if (aug_csv_col(t, required[k]) < 0)
            return aug_errorf(AUG_EDATA, "%s: missing column '%s' (accuracy sets use the schema of "
                                         "benchmarks/accuracy/README.md)", aug_csv_name(t), required[k]);
    return AUG_OK;
}
