/* SPDX-License-Identifier: Apache-2.0 */
/* plan.c - parallelization plans: defaults, names, and the consistency rules that
 * every prediction relies on (products of degrees, divisibility), including those of
 * expert parallelism (Megatron-Core: tp * dp * cp = etp * ep * edp), context parallelism
 * (Ulysses needs the heads to split over cp) and the MatMul-free recurrence (no CP). */
#include "augur/plan.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "augur/model.h"
#include "augur/status.h"
#include "augur/system.h"
#include "hw/efficiency.h"

/* Name tables of the plan enums, indexed by the enum. */
#define COUNT(a) (int)(sizeof a / sizeof *a)
static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const fsdp_names[] = {"none", "full", "hybrid"};
static const char *const cp_algo_names[] = {"ring", "ulysses", "allgather"};
static const char *const ternary_names[] = {"accumulate", "tensor"};
static const char *const moe_overlap_names[] = {"none", "shared", "batch"};
static const char *const moe_dispatcher_names[] = {"alltoall", "deepep"};
static const char *const attn_kernel_names[] = {"cudnn", "fa3", "fa2"};
static const char *const cross_entropy_names[] = {"fused", "unfused", "te"};
static const char *const fp8_scaling_names[] = {"delayed", "current"};
static const char *const zero3_gather_names[] = {"prefetch", "serial"};
static const char *const grad_reduce_names[] = {"reduce-scatter", "all-reduce"};
static const char *const grads_names[] = {"dtype", "fp32", "fp32-copy"};
/* by bit position of enum aug_rc_module */
static const char *const rc_module_names[] = {"core_attn", "mla_up_proj", "layernorm", "mlp",
                                              "moe",       "moe_act",     "shared_experts"};
_Static_assert(COUNT(recompute_names) == AUG_RECOMPUTE_COUNT, "recompute names");
_Static_assert(COUNT(fsdp_names) == AUG_FSDP_COUNT, "fsdp names");
_Static_assert(COUNT(cp_algo_names) == AUG_CP_COUNT, "cp names");
_Static_assert(COUNT(ternary_names) == AUG_TERNARY_COUNT, "ternary names");
_Static_assert(COUNT(moe_overlap_names) == AUG_MOE_OVERLAP_COUNT, "moe overlap names");
_Static_assert(COUNT(moe_dispatcher_names) == AUG_MOE_DISPATCH_COUNT, "moe dispatcher names");
_Static_assert(COUNT(attn_kernel_names) == AUG_ATTN_KERNEL_COUNT, "attention kernel names");
_Static_assert(COUNT(cross_entropy_names) == AUG_CE_COUNT, "cross-entropy names");
_Static_assert(COUNT(fp8_scaling_names) == AUG_FP8_SCALING_COUNT, "fp8 scaling names");
_Static_assert(COUNT(zero3_gather_names) == AUG_ZERO3_COUNT, "ZeRO-3 gather names");
_Static_assert(COUNT(grad_reduce_names) == AUG_GRAD_REDUCE_COUNT, "gradient reduction names");
_Static_assert(COUNT(grads_names) == AUG_GRADS_COUNT, "main-grads names");
_Static_assert(COUNT(rc_module_names) == AUG_RC_MODULE_COUNT, "recompute module names");

/* Index of s in names (case-insensitive), or -1. */
static int name_index(const char *s, const char *const *names, int n) {
    for (int i = 0; s && i < n; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* The name of enum value v, "?" out of range. */
#define ENUM_NAME(table, v) ((unsigned)(v) < (unsigned)COUNT(table) ? table[v] : "?")

const char *aug_moe_overlap_name(enum aug_moe_overlap o) {
    return ENUM_NAME(moe_overlap_names, o);
}

int aug_moe_overlap_from_name(const char *s, enum aug_moe_overlap *out) {
    int i = name_index(s, moe_overlap_names, COUNT(moe_overlap_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown MoE overlap '%s' (use none, shared or batch)",
                          s ? s : "");
    *out = (enum aug_moe_overlap)i;
    return AUG_OK;
}

const char *aug_moe_dispatcher_name(enum aug_moe_dispatcher d) {
    return ENUM_NAME(moe_dispatcher_names, d);
}

int aug_moe_dispatcher_from_name(const char *s, enum aug_moe_dispatcher *out) {
    int i = name_index(s, moe_dispatcher_names, COUNT(moe_dispatcher_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown MoE dispatcher '%s' (use alltoall or deepep)",
                          s ? s : "");
    *out = (enum aug_moe_dispatcher)i;
    return AUG_OK;
}

const char *aug_attn_kernel_name(enum aug_attn_kernel k) {
    return ENUM_NAME(attn_kernel_names, k);
}

int aug_attn_kernel_from_name(const char *s, enum aug_attn_kernel *out) {
    int i = name_index(s, attn_kernel_names, COUNT(attn_kernel_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown attention kernel '%s' (use cudnn, fa3 or fa2)",
                          s ? s : "");
    *out = (enum aug_attn_kernel)i;
    return AUG_OK;
}

const char *aug_cross_entropy_name(enum aug_cross_entropy c) {
    return ENUM_NAME(cross_entropy_names, c);
}

int aug_cross_entropy_from_name(const char *s, enum aug_cross_entropy *out) {
    int i = name_index(s, cross_entropy_names, COUNT(cross_entropy_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown cross-entropy '%s' (use fused, unfused or te)",
                          s ? s : "");
    *out = (enum aug_cross_entropy)i;
    return AUG_OK;
}

const char *aug_fp8_scaling_name(enum aug_fp8_scaling s) {
    return ENUM_NAME(fp8_scaling_names, s);
}

int aug_fp8_scaling_from_name(const char *s, enum aug_fp8_scaling *out) {
    int i = name_index(s, fp8_scaling_names, COUNT(fp8_scaling_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown fp8 scaling '%s' (use delayed or current)",
                          s ? s : "");
    *out = (enum aug_fp8_scaling)i;
    return AUG_OK;
}

const char *aug_plan_fp8_scaling_note(const struct aug_plan *p) {
    if (p->dtype != AUG_DTYPE_FP8)
        return "";
    if (p->fp8_params)
        return p->fp8_scaling == AUG_FP8_CURRENT ? " (current scaling, fp8 parameters)"
                                                 : " (delayed scaling, fp8 parameters)";
    return p->fp8_scaling == AUG_FP8_CURRENT ? " (current scaling)" : " (delayed scaling)";
}

const char *aug_zero3_gather_name(enum aug_zero3_gather g) {
    return ENUM_NAME(zero3_gather_names, g);
}

int aug_zero3_gather_from_name(const char *s, enum aug_zero3_gather *out) {
    int i = name_index(s, zero3_gather_names, COUNT(zero3_gather_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown ZeRO-3 gather '%s' (use prefetch or serial)",
                          s ? s : "");
    *out = (enum aug_zero3_gather)i;
    return AUG_OK;
}

const char *aug_grad_reduce_name(enum aug_grad_reduce g) {
    return ENUM_NAME(grad_reduce_names, g);
}

int aug_grad_reduce_from_name(const char *s, enum aug_grad_reduce *out) {
    int i = name_index(s, grad_reduce_names, COUNT(grad_reduce_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown gradient reduction '%s' (use reduce-scatter or "
                                      "all-reduce)", s ? s : "");
    *out = (enum aug_grad_reduce)i;
    return AUG_OK;
}

const char *aug_cp_algo_name(enum aug_cp_algo a) {
    return ENUM_NAME(cp_algo_names, a);
}

int aug_cp_algo_from_name(const char *s, enum aug_cp_algo *out) {
    /* the names other tools use: Megatron's p2p (ring), all-to-all (Ulysses) */
    static const char *const ring_alias[] = {"p2p", "ring-attention"};
    static const char *const ulysses_alias[] = {"a2a", "all-to-all"};
    int i = name_index(s, cp_algo_names, COUNT(cp_algo_names));
    if (i < 0 && name_index(s, ring_alias, COUNT(ring_alias)) >= 0)
        i = AUG_CP_RING;
    if (i < 0 && name_index(s, ulysses_alias, COUNT(ulysses_alias)) >= 0)
        i = AUG_CP_ULYSSES;
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown context-parallel algorithm '%s' (use ring, "
                                      "ulysses or allgather)", s ? s : "");
    *out = (enum aug_cp_algo)i;
    return AUG_OK;
}

const char *aug_ternary_kernel_name(enum aug_ternary_kernel k) {
    return ENUM_NAME(ternary_names, k);
}

int aug_ternary_kernel_from_name(const char *s, enum aug_ternary_kernel *out) {
    int i = name_index(s, ternary_names, COUNT(ternary_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown ternary kernel '%s' (use accumulate or tensor)",
                          s ? s : "");
    *out = (enum aug_ternary_kernel)i;
    return AUG_OK;
}

const char *aug_main_grads_name(enum aug_main_grads g) {
    return ENUM_NAME(grads_names, g);
}

int aug_main_grads_from_name(const char *s, enum aug_main_grads *out) {
    int i = name_index(s, grads_names, COUNT(grads_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown gradient mode '%s' (use dtype, fp32 or "
                                      "fp32-copy)", s ? s : "");
    *out = (enum aug_main_grads)i;
    return AUG_OK;
}

const char *aug_recompute_name(enum aug_recompute r) {
    return ENUM_NAME(recompute_names, r);
}

int aug_recompute_from_name(const char *s, enum aug_recompute *out) {
    int i = name_index(s, recompute_names, COUNT(recompute_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown recompute '%s' (use none, selective or full)",
                          s ? s : "");
    *out = (enum aug_recompute)i;
    return AUG_OK;
}

int aug_rc_modules_parse(const char *list, unsigned *out) {
    unsigned mods = 0;
    const char *c = list ? list : "";
    while (*c) {
        size_t len = strcspn(c, ", +\t");
        if (len > 0) {
            char name[32];
            int i = -1;
            if (len < sizeof name) {
                memcpy(name, c, len);
                name[len] = '\0';
                i = name_index(name, rc_module_names, COUNT(rc_module_names));
            }
            if (i < 0)
                return aug_errorf(AUG_EUSAGE, "unknown recompute module '%.*s' (use core_attn, "
                                              "mla_up_proj, layernorm, mlp, moe, moe_act or "
                                              "shared_experts)", (int)(len > 40 ? 40 : len), c);
            mods |= 1u << i;
        }
        c += len;
        if (*c)
            c++;
    }
    if (!mods)
        return aug_errorf(AUG_EUSAGE, "empty recompute module list");
    *out = mods;
    return AUG_OK;
}

unsigned aug_plan_rc_modules(const struct aug_plan *p) {
    return p->recompute_modules & AUG_RC_ALL ? p->recompute_modules & AUG_RC_ALL
                                             : (unsigned)AUG_RC_CORE_ATTN;
}

double aug_plan_full_recompute_share(const struct aug_plan *p, const struct aug_model *m) {
    if (p->recompute != AUG_RECOMPUTE_FULL)
        return 0.0;
    long stage = aug_plan_stage_layers(p, m), v = p->interleave > 0 ? p->interleave : 1;
    if (p->recompute_layers <= 0 || stage <= 0)
        return 1.0;
    /* Megatron-Core TransformerBlock._checkpointed_forward, method block: the first
     * recompute_num_layers layers of each model chunk (a stage holds v of them) */
    double r = (double)(p->recompute_layers * v) / (double)stage;
    return r < 1.0 ? r : 1.0;
}

void aug_plan_recompute_label(const struct aug_plan *p, char *buf, size_t n) {
    if (!buf || n == 0)
        return;
    unsigned rc = aug_plan_rc_modules(p);
    if (p->recompute == AUG_RECOMPUTE_FULL && p->recompute_layers > 0) {
        snprintf(buf, n, "full(%ld)", p->recompute_layers);
    } else if (p->recompute == AUG_RECOMPUTE_SELECTIVE && rc != AUG_RC_CORE_ATTN) {
        char mods[128];
        aug_rc_modules_format(rc, mods, sizeof mods);
        snprintf(buf, n, "selective(%s)", mods);
    } else {
        snprintf(buf, n, "%s", aug_recompute_name(p->recompute));
    }
}

void aug_rc_modules_format(unsigned mods, char *buf, size_t n) {
    if (!buf || n == 0)
        return;
    buf[0] = '\0';
    size_t len = 0;
    for (int i = 0; i < AUG_RC_MODULE_COUNT; i++) {
        if (!(mods & (1u << i)))
            continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", rc_module_names[i]);
        if (w < 0 || (size_t)w >= n - len)
            return;
        len += (size_t)w;
    }
    if (!len)
        snprintf(buf, n, "none");
}

const char *aug_fsdp_name(enum aug_fsdp f) {
    return ENUM_NAME(fsdp_names, f);
}

int aug_fsdp_from_name(const char *s, enum aug_fsdp *out) {
    int i = name_index(s, fsdp_names, COUNT(fsdp_names));
    if (i < 0)
        return aug_errorf(AUG_EUSAGE, "unknown fsdp mode '%s' (use full or hybrid)", s ? s : "");
    *out = (enum aug_fsdp)i;
    return AUG_OK;
}

void aug_plan_init(struct aug_plan *p) {
    memset(p, 0, sizeof *p);
    p->tp = p->pp = p->cp = p->ep = 1;
    p->dp = 0;
    p->interleave = 1;
    p->micro_batch = 1;
    p->recompute = AUG_RECOMPUTE_NONE;
    p->recompute_modules = AUG_RC_CORE_ATTN;
    p->dtype = AUG_DTYPE_BF16;
    p->flash_attention = 1;
    p->attn_kernel = AUG_ATTN_KERNEL_CUDNN;
    p->cross_entropy = AUG_CE_FUSED;
    p->fp8_scaling = AUG_FP8_DELAYED;
    p->fp8_params = 0;
    p->zero3_gather = AUG_ZERO3_PREFETCH;
    p->grad_reduce = AUG_GRAD_REDUCE_SCATTER;
    p->dp_overlap = 1;
    p->cp_algo = AUG_CP_RING;
    p->etp = 0;
    p->ep_outer = 0;
    p->moe_capacity_factor = 0.0;
    p->moe_imbalance = aug_eff_defaults()->moe_imbalance;
    /* the reference implementation (ridgerchu/matmulfreellm, ops/fusedbitnet.py) runs
     * BitLinear as F.linear on 16-bit copies of the ternarized weights */
    p->ternary = AUG_TERNARY_TENSOR;
    p->tp_overlap = 0;
    p->pp_overlap = 0;
    p->tp_async_allreduce = 0;
    p->moe_overlap = AUG_MOE_OVERLAP_NONE;
    p->moe_dispatcher = AUG_MOE_DISPATCH_ALLTOALL;
    p->moe_overlap_realized = aug_eff_defaults()->moe_overlap_realized;
    p->comm_slowdown = aug_eff_defaults()->comm_slowdown;
}

long aug_plan_etp(const struct aug_plan *p) { return p->etp > 0 ? p->etp : p->tp; }

long aug_plan_edp(const struct aug_plan *p) {
    long ep_etp = p->ep * aug_plan_etp(p);
    long world = p->tp * p->dp * p->cp;
    return ep_etp > 0 && world % ep_etp == 0 ? world / ep_etp : 1;
}

/* Layer slots the pipeline split divides: the layers, plus the embedding and the loss when
 * each takes a layer's place (Megatron-Core's account_for_embedding/loss_in_pipeline_split,
 * transformer_block.py get_num_layers_to_build, core_r0.12.0). */
static long split_units(const struct aug_plan *p, const struct aug_model *m) {
    return m->layers + (p->pp_embed_loss_slots && p->pp > 1 ? 2 : 0);
}

/* Megatron-Core's first/last-stage layer counts (TransformerConfig
 * num_layers_in_first_pipeline_stage / num_layers_in_last_pipeline_stage, core_r0.12.0):
 * the ranks they leave (`*mid` of them) share the `*rest` remaining layers evenly. Returns
 * those layers per middle rank, 0 without middle ranks; -1 when neither count is set. */
static long edge_split(const struct aug_plan *p, const struct aug_model *m, long *mid,
                       long *rest) {
    int first = p->pp_first_layers > 0, last = p->pp_last_layers > 0;
    if ((!first && !last) || p->pp < 2)
        return -1;
    *mid = p->pp - first - last;
    *rest = m->layers - (first ? p->pp_first_layers : 0) - (last ? p->pp_last_layers : 0);
    return *mid > 0 ? *rest / *mid : 0;
}

/* What Megatron-Core asserts of the first/last-stage counts (transformer_config.py and
 * transformer_block.py get_num_layers_to_build, core_r0.12.0): not with the embedding/loss
 * slots, and the middle ranks split the rest evenly. With a virtual pipeline the counts
 * are a rank's layers over all its chunks, as Megatron-Core's pipeline_model_parallel_layout
 * places them (core_v0.13 transformer/pipeline_parallel_layer_layout.py: each virtual chunk
 * lists its own layers, so the first and last ranks may hold any count; NeMo 25.07's
 * DeepSeek-V3 (pp 8, vp 2) layout puts the embedding and 4 + 4 layers on the first rank,
 * 4 + 1 layers and the loss on the last); the middle ranks' layers split evenly over
 * their chunks. The step model needs only each rank's layers (train.c). */
static int check_edge_split(const struct aug_plan *p, const struct aug_model *m) {
    if (p->pp_first_layers < 0 || p->pp_last_layers < 0)
        return aug_errorf(AUG_EUSAGE, "first/last pipeline stage layers must be positive");
    if (p->pp_first_layers == 0 && p->pp_last_layers == 0)
        return AUG_OK;
    if (p->pp < 2)
        return aug_errorf(AUG_EUSAGE, "first/last pipeline stage layers need --pp of at least 2");
    if (p->pp_embed_loss_slots)
        return aug_errorf(AUG_EUSAGE, "first/last pipeline stage layers and the embedding/loss "
                                      "pipeline slots exclude each other");
    long mid = 0, rest = 0, per = edge_split(p, m, &mid, &rest);
    if (rest < 0 || (mid == 0 && rest != 0))
        return aug_errorf(AUG_EUSAGE, "first/last pipeline stage layers (%ld + %ld) do not add "
                                      "up to the model's %ld layers over --pp %ld",
                          p->pp_first_layers, p->pp_last_layers, m->layers, p->pp);
    if (mid > 0 && (per < 1 || rest % mid != 0))
        return aug_errorf(AUG_EUSAGE, "the %ld layers left by the first/last pipeline stages do "
                                      "not split evenly over the other %ld ranks", rest, mid);
    if (p->interleave > 1 && mid > 0 && per % p->interleave != 0)
        return aug_errorf(AUG_EUSAGE, "the %ld layers of each middle pipeline rank do not split "
                                      "evenly over --interleave %ld chunks", per, p->interleave);
    return AUG_OK;
}

long aug_plan_stage_layers(const struct aug_plan *p, const struct aug_model *m) {
    long mid = 0, rest = 0, per = edge_split(p, m, &mid, &rest);
    if (per >= 0) {
        if (mid > 0)
            return per;
        return p->pp_first_layers > p->pp_last_layers ? p->pp_first_layers : p->pp_last_layers;
    }
    long v = p->interleave > 0 ? p->interleave : 1;
    long chunks = p->pp * v;
    return (split_units(p, m) + chunks - 1) / chunks * v;
}

long aug_plan_stage_layers_at(const struct aug_plan *p, const struct aug_model *m, long stage) {
    long mid = 0, rest = 0;
    if (edge_split(p, m, &mid, &rest) >= 0) {
        if (stage == 0 && p->pp_first_layers > 0)
            return p->pp_first_layers;
        if (stage == p->pp - 1 && p->pp_last_layers > 0)
            return p->pp_last_layers;
    }
    long l = aug_plan_stage_layers(p, m);
    int edge = stage == 0 || stage == p->pp - 1;
    return p->pp_embed_loss_slots && p->pp > 1 && edge && l > 0 ? l - 1 : l;
}

long aug_plan_microbatches(const struct aug_plan *p) {
    long per = p->micro_batch * p->dp;
    return per > 0 ? p->global_batch / per : 0;
}

/* More GPUs than any machine has: the bound keeps every product of degrees exact. */
#define AUG_PLAN_MAX_GPUS 1073741824.0

/* Recompute modules apply only to selective recomputation and to parts the model has: a
 * module with nothing to repeat would silently change nothing, so it is refused. */
int aug_plan_check_rc_modules(const struct aug_plan *p, const struct aug_model *m) {
    unsigned rc = p->recompute_modules & AUG_RC_ALL;
    if (p->recompute_modules & ~AUG_RC_ALL)
        return aug_errorf(AUG_EUSAGE, "recompute modules: unknown module bits 0x%x",
                          p->recompute_modules & ~AUG_RC_ALL);
    if (p->recompute != AUG_RECOMPUTE_SELECTIVE) {
        if (rc && rc != AUG_RC_CORE_ATTN)
            return aug_errorf(AUG_EUSAGE, "recompute modules need --recompute selective "
                                          "(recompute is %s)", aug_recompute_name(p->recompute));
        return AUG_OK;
    }
    char names[128];
    aug_rc_modules_format(rc & ~(unsigned)AUG_RC_CORE_ATTN, names, sizeof names);
    if (m->arch == AUG_ARCH_MATMULFREE && (rc & ~(unsigned)AUG_RC_CORE_ATTN))
        return aug_errorf(AUG_EUSAGE, "recompute modules %s: a MatMul-free model has no such "
                                      "modules (nor an attention core: selective "
                                      "recomputation repeats nothing there)", names);
    if ((rc & AUG_RC_MLA_UP_PROJ) && m->attention != AUG_ATTN_MLA)
        return aug_errorf(AUG_EUSAGE, "recompute module mla_up_proj: model '%s' has no "
                                      "multi-head latent attention", m->name);
    int moe = m->arch == AUG_ARCH_MOE;
    if ((rc & (AUG_RC_MOE | AUG_RC_MOE_ACT)) && !moe)
        return aug_errorf(AUG_EUSAGE, "recompute modules moe and moe_act need an MoE model "
                                      "('%s' is dense)", m->name);
    if ((rc & AUG_RC_SHARED_EXPERTS) && !(moe && m->moe_shared_experts > 0))
        return aug_errorf(AUG_EUSAGE, "recompute module shared_experts: model '%s' has no "
                                      "shared experts", m->name);
    if ((rc & AUG_RC_MLP) && moe && m->moe_dense_layers == 0 && m->moe_layer_freq <= 1)
        return aug_errorf(AUG_EUSAGE, "recompute module mlp: every layer of '%s' is MoE (no "
                                      "dense MLP; use moe, moe_act or shared_experts)", m->name);
    return AUG_OK;
}

int aug_plan_resolve(struct aug_plan *p, const struct aug_model *m, const struct aug_system *s) {
    if (p->tp < 1 || p->pp < 1 || p->cp < 1 || p->ep < 1 || p->dp < 0)
        return aug_errorf(AUG_EUSAGE, "parallel degrees must be positive (tp %ld, pp %ld, dp %ld, "
                                      "cp %ld, ep %ld)", p->tp, p->pp, p->dp, p->cp, p->ep);
    /* Products of degrees are checked in double first (exact up to 2^53): degrees the CLI
     * accepts (2^20 each, dp 2^26) multiply past 2^63, and a signed overflow here would
     * pass a wrong plan on. No plan has more than AUG_PLAN_MAX_GPUS GPUs. */
    double world_d = (double)p->tp * (double)p->pp * (double)p->cp * (double)(p->dp > 0 ? p->dp : 1);
    if (world_d > AUG_PLAN_MAX_GPUS || (double)p->gpus > AUG_PLAN_MAX_GPUS)
        return aug_errorf(AUG_EUSAGE, "tp*pp*cp*dp = %ld*%ld*%ld*%ld (%.4g GPUs) or --gpus %ld is "
                          "above %.0f GPUs", p->tp, p->pp, p->cp, p->dp, world_d, p->gpus,
                          AUG_PLAN_MAX_GPUS);
    if ((double)p->micro_batch * world_d > 9e18 || (double)p->pp * (double)p->interleave > 9e18 ||
        (double)p->ep * (double)(p->etp > 0 ? p->etp : p->tp) > 9e18)
        return aug_errorf(AUG_EUSAGE, "micro-batch %ld, interleave %ld or ep %ld times etp %ld "
                          "is out of range", p->micro_batch, p->interleave, p->ep, p->etp);
    long model_par = p->tp * p->pp * p->cp;
    if (p->gpus <= 0) {
        if (p->dp <= 0)
            return aug_errorf(AUG_EUSAGE, "--gpus is required (or give --dp with the other degrees)");
        p->gpus = model_par * p->dp;
    }
    if (p->dp == 0) {
        if (p->gpus % model_par != 0)
            return aug_errorf(AUG_EUSAGE, "--gpus %ld is not divisible by tp*pp*cp = %ld*%ld*%ld = %ld",
                              p->gpus, p->tp, p->pp, p->cp, model_par);
        p->dp = p->gpus / model_par;
    }
    if (model_par * p->dp != p->gpus)
        return aug_errorf(AUG_EUSAGE, "tp*pp*dp*cp = %ld*%ld*%ld*%ld = %ld does not equal --gpus %ld",
                          p->tp, p->pp, p->dp, p->cp, model_par * p->dp, p->gpus);
    if (p->seq <= 0)
        p->seq = m->max_seq;
    if (p->seq <= 0)
        return aug_errorf(AUG_EUSAGE, "--seq must be positive");
    if (m->max_seq > 0 && p->seq > m->max_seq && m->pos == AUG_POS_LEARNED)
        return aug_errorf(AUG_EUSAGE, "--seq %ld exceeds the model's %ld learned positions",
                          p->seq, m->max_seq);
    if (p->micro_batch <= 0)
        return aug_errorf(AUG_EUSAGE, "--micro-batch must be positive");
    if (p->fp8_params && p->dtype != AUG_DTYPE_FP8)
        return aug_errorf(AUG_EUSAGE, "fp8 parameters need dtype fp8 (the plan's is %s)",
                          aug_dtype_name(p->dtype));
    int st = aug_plan_check_rc_modules(p, m);
    if (st != AUG_OK)
        return st;
    if (p->recompute_layers < 0 ||
        (p->recompute_layers > 0 && p->recompute != AUG_RECOMPUTE_FULL))
        return aug_errorf(AUG_EUSAGE, "--recompute-layers %ld needs --recompute full (recompute "
                          "is %s)", p->recompute_layers, aug_recompute_name(p->recompute));
    if (p->global_batch <= 0)
        return aug_errorf(AUG_EUSAGE, "--global-batch must be positive");
    if (p->global_batch % (p->micro_batch * p->dp) != 0)
        return aug_errorf(AUG_EUSAGE,
                          "--global-batch %ld is not divisible by micro-batch*dp = %ld*%ld = %ld",
                          p->global_batch, p->micro_batch, p->dp, p->micro_batch * p->dp);
    if (m->arch == AUG_ARCH_MATMULFREE) {
        /* no attention heads: TP splits the MLGRU and GLU channels */
        if (m->hidden % p->tp != 0 || m->ffn_hidden % p->tp != 0)
            return aug_errorf(AUG_EUSAGE, "hidden %ld and FFN %ld channels are not divisible by "
                                          "--tp %ld", m->hidden, m->ffn_hidden, p->tp);
    } else {
        if (m->heads % p->tp != 0)
            return aug_errorf(AUG_EUSAGE, "heads %ld are not divisible by --tp %ld", m->heads, p->tp);
        if (m->kv_heads % p->tp != 0 && p->tp % m->kv_heads != 0)
            return aug_errorf(AUG_EUSAGE, "KV heads %ld and --tp %ld: neither divides the other",
                              m->kv_heads, p->tp);
    }
    if (p->pp_embed_loss_slots) {
        /* Megatron-Core asserts the layers plus the two slots divide evenly */
        long units = m->layers + 2;
        if (p->pp < 2)
            return aug_errorf(AUG_EUSAGE, "embedding and loss pipeline slots need --pp of at "
                                          "least 2");
        if (p->interleave >= 1 && units % (p->pp * p->interleave) != 0)
            return aug_errorf(AUG_EUSAGE, "layers %ld plus the embedding and loss slots (%ld) "
                                          "are not divisible by pp*interleave = %ld",
                              m->layers, units, p->pp * p->interleave);
    }
    if (split_units(p, m) < p->pp * p->interleave)
        return aug_errorf(AUG_EUSAGE, "layers %ld are fewer than pp*interleave = %ld", m->layers,
                          p->pp * p->interleave);
    int edge_st = check_edge_split(p, m);
    if (edge_st != AUG_OK)
        return edge_st;
    int edges = p->pp_first_layers > 0 || p->pp_last_layers > 0;
    if (split_units(p, m) % p->pp != 0 && !p->uneven_pp && !edges)
        return aug_errorf(AUG_EUSAGE, "layers %ld are not divisible by --pp %ld", m->layers, p->pp);
    if (p->interleave < 1)
        return aug_errorf(AUG_EUSAGE, "--interleave must be at least 1");
    if (p->interleave > 1) {
        if (p->pp < 2)
            return aug_errorf(AUG_EUSAGE, "--interleave %ld needs --pp of at least 2", p->interleave);
        if (split_units(p, m) % (p->pp * p->interleave) != 0 && !p->uneven_pp && !edges)
            return aug_errorf(AUG_EUSAGE, "layers %ld are not divisible by pp*interleave = %ld",
                              m->layers, p->pp * p->interleave);
        if (aug_plan_microbatches(p) % p->pp != 0)
            return aug_errorf(AUG_EUSAGE, "interleaved schedule needs micro-batches (%ld) to be a "
                                          "multiple of --pp %ld", aug_plan_microbatches(p), p->pp);
    }
    if (p->moe_overlap == AUG_MOE_OVERLAP_SHARED &&
        (m->arch != AUG_ARCH_MOE || m->moe_shared_experts < 1 || p->ep < 2))
        return aug_errorf(AUG_EUSAGE, "--moe-overlap shared runs the shared experts beside the "
                                      "expert-parallel all-to-alls: it needs an MoE model with "
                                      "shared experts and --ep of at least 2");
    if (p->moe_overlap == AUG_MOE_OVERLAP_BATCH) {
        /* what Megatron-Core's TransformerConfig asserts for overlap_moe_expert_parallel_comm
         * (megatron/core/transformer/transformer_config.py, 2025-2026) */
        if (m->arch != AUG_ARCH_MOE || p->ep < 2)
            return aug_errorf(AUG_EUSAGE, "--moe-overlap batch overlaps expert-parallel "
                                          "all-to-alls: it needs an MoE model and --ep of at "
                                          "least 2");
        if (p->pp > 1 && p->interleave < 2)
            return aug_errorf(AUG_EUSAGE, "--moe-overlap batch with --pp %ld needs --interleave "
                                          "(Megatron-Core requires virtual pipeline stages)",
                              p->pp);
        if (p->recompute == AUG_RECOMPUTE_FULL)
            return aug_errorf(AUG_EUSAGE, "--moe-overlap batch cannot run with full "
                                          "recomputation (Megatron-Core refuses it)");
        if (p->recompute == AUG_RECOMPUTE_SELECTIVE && (aug_plan_rc_modules(p) & AUG_RC_MOE))
            return aug_errorf(AUG_EUSAGE, "--moe-overlap batch cannot recompute module moe "
                                          "(Megatron-Core refuses it)");
    }
    if (p->seq % p->cp != 0)
        return aug_errorf(AUG_EUSAGE, "--seq %ld is not divisible by --cp %ld", p->seq, p->cp);
    if (p->sp && p->tp > 1 && (p->seq / p->cp) % p->tp != 0)
        return aug_errorf(AUG_EUSAGE, "sequence parallelism needs seq/cp (%ld) divisible by --tp %ld",
                          p->seq / p->cp, p->tp);
    if (p->etp < 0)
        return aug_errorf(AUG_EUSAGE, "--etp must be positive (got %ld)", p->etp);
    if (p->etp > 0 && m->arch != AUG_ARCH_MOE)
        return aug_errorf(AUG_EUSAGE, "--etp %ld needs a mixture-of-experts model", p->etp);
    if (p->ep > 1 && m->arch != AUG_ARCH_MOE)
        return aug_errorf(AUG_EUSAGE, "--ep %ld needs a mixture-of-experts model", p->ep);
    if (m->arch == AUG_ARCH_MOE) {
        long etp = aug_plan_etp(p);
        if (etp == p->tp) {
            if ((p->dp * p->cp) % p->ep != 0)
                return aug_errorf(AUG_EUSAGE, "--ep %ld must divide dp*cp = %ld", p->ep,
                                  p->dp * p->cp);
        } else if ((p->tp * p->dp * p->cp) % (p->ep * etp) != 0) {
            return aug_errorf(AUG_EUSAGE, "ep*etp = %ld*%ld = %ld must divide tp*dp*cp = %ld",
                              p->ep, etp, p->ep * etp, p->tp * p->dp * p->cp);
        }
        if (m->moe_experts % p->ep != 0)
            return aug_errorf(AUG_EUSAGE, "experts %ld are not divisible by --ep %ld",
                              m->moe_experts, p->ep);
        if (m->ffn_hidden % etp != 0)
            return aug_errorf(AUG_EUSAGE, "expert FFN size %ld is not divisible by --etp %ld",
                              m->ffn_hidden, etp);
        /* the model's own routing capacity (HF capacity_factor) unless the plan sets one */
        if (p->moe_capacity_factor == 0.0 && m->moe_capacity_factor > 0.0)
            p->moe_capacity_factor = m->moe_capacity_factor;
        if (!(p->moe_capacity_factor >= 0) || p->moe_capacity_factor > 64)
            return aug_errorf(AUG_EUSAGE, "--moe-capacity-factor %g must be 0 (dropless) or in "
                                          "(0, 64]", p->moe_capacity_factor);
        if (!(p->moe_imbalance >= 1) || p->moe_imbalance > (double)m->moe_experts)
            return aug_errorf(AUG_EUSAGE, "--moe-imbalance %g must be between 1 (even) and the "
                                          "%ld experts (all tokens on one)", p->moe_imbalance,
                              m->moe_experts);
    }
    if (p->moe_dispatcher == AUG_MOE_DISPATCH_DEEPEP) {
        /* what Megatron-Core 0.13's TransformerConfig and MoEFlexTokenDispatcher assert for
         * the flex dispatcher (megatron/core/transformer/transformer_config.py,
         * moe/token_dispatcher.py); after the model's own capacity factor is in the plan */
        if (m->arch != AUG_ARCH_MOE || p->tp * p->ep < 2)
            return aug_errorf(AUG_EUSAGE, "--moe-dispatcher deepep moves tokens between "
                                          "expert-parallel ranks: it needs an MoE model and "
                                          "tp*ep of at least 2");
        if (aug_plan_etp(p) > 1)
            return aug_errorf(AUG_EUSAGE, "--moe-dispatcher deepep with --etp %ld is not "
                                          "modelled (DeepEP here moves whole tokens between "
                                          "expert-parallel ranks; use --etp 1)",
                              aug_plan_etp(p));
        if (p->moe_capacity_factor > 0)
            return aug_errorf(AUG_EUSAGE, "--moe-dispatcher deepep cannot pad experts to a "
                                          "capacity (Megatron-Core's flex dispatcher refuses "
                                          "moe_pad_expert_input_to_capacity)");
        if (p->moe_overlap == AUG_MOE_OVERLAP_SHARED)
            return aug_errorf(AUG_EUSAGE, "--moe-overlap shared works with the alltoall "
                                          "dispatcher only (Megatron-Core refuses "
                                          "moe_shared_expert_overlap with flex)");
    } else if ((unsigned)p->moe_dispatcher >= AUG_MOE_DISPATCH_COUNT) {
        return aug_errorf(AUG_EUSAGE, "unknown MoE dispatcher %d", (int)p->moe_dispatcher);
    }
    if ((unsigned)p->cp_algo >= AUG_CP_COUNT)
        return aug_errorf(AUG_EUSAGE, "unknown context-parallel algorithm %d", (int)p->cp_algo);
    if (p->cp > 1 && m->arch == AUG_ARCH_MATMULFREE)
        return aug_errorf(AUG_EUSAGE, "--cp %ld: the MLGRU recurrence of MatMul-free models "
                                      "carries its state from token to token; context "
                                      "parallelism needs attention", p->cp);
    /* Transformer Engine's ring attention (cp_comm_type p2p, Megatron-Core's default) refuses
     * a sliding window: attn_forward_func_with_cp asserts cp_comm_type a2a or all_gather for
     * one (TE 2.4, pytorch/attention/dot_product_attention/context_parallel.py) */
    if (p->cp > 1 && p->cp_algo == AUG_CP_RING && aug_model_window_layers(m) > 0 &&
        m->sliding_window < p->seq)
        return aug_errorf(AUG_EUSAGE, "--cp %ld with the ring algorithm: the model's %s layers "
                          "(%ld tokens) are not supported by ring attention (Transformer "
                          "Engine's cp_comm_type p2p); use --cp-algo allgather or ulysses",
                          p->cp, m->attn_chunked ? "chunked-attention" : "sliding-window",
                          m->sliding_window);
    if (p->cp > 1 && p->cp_algo == AUG_CP_ULYSSES) {
        long a_t = m->heads / p->tp, kv_t = m->kv_heads >= p->tp ? m->kv_heads / p->tp : 1;
        if (a_t % p->cp != 0)
            return aug_errorf(AUG_EUSAGE, "--cp-algo ulysses scatters heads: heads/tp = %ld are "
                                          "not divisible by --cp %ld", a_t, p->cp);
        if (kv_t % p->cp != 0 && p->cp % kv_t != 0)
            return aug_errorf(AUG_EUSAGE, "--cp-algo ulysses: KV heads/tp = %ld and --cp %ld: "
                                          "neither divides the other", kv_t, p->cp);
    }
    if ((unsigned)p->ternary >= AUG_TERNARY_COUNT)
        return aug_errorf(AUG_EUSAGE, "unknown ternary kernel %d", (int)p->ternary);
    if (!(p->comm_slowdown >= 0) || p->comm_slowdown > 1)
        return aug_errorf(AUG_EUSAGE, "--comm-slowdown %g must be in [0, 1]", p->comm_slowdown);
    if (!(p->moe_overlap_realized >= 0) || p->moe_overlap_realized > 1)
        return aug_errorf(AUG_EUSAGE, "--moe-overlap-realized %g must be in [0, 1]",
                          p->moe_overlap_realized);
    if ((unsigned)p->main_grads >= AUG_GRADS_COUNT)
        return aug_errorf(AUG_EUSAGE, "unknown gradient mode %d", (int)p->main_grads);
    if (!(p->bucket_params >= 0) || p->bucket_params > 1e15)
        return aug_errorf(AUG_EUSAGE, "gradient bucket size %g must be 0 (per layer) or a "
                                      "positive parameter count", p->bucket_params);
    if (p->zero < 0 || p->zero > 3)
        return aug_errorf(AUG_EUSAGE, "--zero must be 0, 1, 2 or 3");
    if (p->fsdp != AUG_FSDP_NONE && p->zero != 0 && p->zero != 3)
        return aug_errorf(AUG_EUSAGE, "--fsdp shards like ZeRO-3; it cannot be combined with --zero %d",
                          p->zero);
    if ((unsigned)p->zero3_gather >= AUG_ZERO3_COUNT)
        return aug_errorf(AUG_EUSAGE, "unknown ZeRO-3 gather %d", (int)p->zero3_gather);
    if ((unsigned)p->grad_reduce >= AUG_GRAD_REDUCE_COUNT)
        return aug_errorf(AUG_EUSAGE, "unknown gradient reduction %d", (int)p->grad_reduce);
    if (p->grad_reduce == AUG_GRAD_ALL_REDUCE && (p->zero != 1 || p->fsdp != AUG_FSDP_NONE))
        return aug_errorf(AUG_EUSAGE, "--grad-reduce all-reduce is ZeRO-1's choice: it needs "
                                      "--zero 1 without --fsdp (ZeRO 0 all-reduces anyway, 2 "
                                      "and 3 shard the gradients)");
    if (p->zero3_gather == AUG_ZERO3_SERIAL) {
        /* DeepSpeed's 2021 ZeRO-3: no FSDP, no pipeline engine (its PipelineEngine takes
         * ZeRO stages 0-1), and dense transformer layers only (MoE under ZeRO-3 came later) */
        if (p->zero != 3 || p->fsdp != AUG_FSDP_NONE)
            return aug_errorf(AUG_EUSAGE, "--zero3-gather serial needs --zero 3 without --fsdp");
        if (p->pp > 1)
            return aug_errorf(AUG_EUSAGE, "--zero3-gather serial with --pp %ld: DeepSpeed's "
                              "ZeRO-3 runs without pipeline parallelism", p->pp);
        if (m->arch != AUG_ARCH_DENSE)
            return aug_errorf(AUG_EUSAGE, "--zero3-gather serial models DeepSpeed's 2021 ZeRO-3 "
                              "of dense transformer layers, not model '%s'", m->name);
    }
    if (p->fsdp == AUG_FSDP_HYBRID && s && p->tp * p->cp < s->gpus_per_node &&
        s->gpus_per_node % (p->tp * p->cp) != 0)
        return aug_errorf(AUG_EUSAGE, "--fsdp hybrid shards within a node: tp*cp must divide %d",
                          s->gpus_per_node);
    if (s && s->gpu.peak_tflops[p->dtype] <= 0)
        return aug_errorf(AUG_EUSAGE, "%s cannot compute in %s (no peak for that dtype)", s->gpu.name,
                          aug_dtype_name(p->dtype));
    if (p->recompute_layers > 0) {
        long v = p->interleave > 0 ? p->interleave : 1;
        long chunk = (aug_plan_stage_layers(p, m) + v - 1) / v;
        if (p->recompute_layers > chunk)
            return aug_errorf(AUG_EUSAGE, "--recompute-layers %ld exceeds the %ld layers of a "
                              "pipeline chunk", p->recompute_layers, chunk);
    }
    return AUG_OK;
}
