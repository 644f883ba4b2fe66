/* SPDX-License-Identifier: Apache-2.0 */
/* plan_json.c - a plan read back from augur's own JSON output: the "plan" object that
 * `augur train --format json` prints, or entry N of the "top" list that `augur sweep train
 * --format json` prints (`augur train --plan FILE.json[#N]`). Every key of the printed
 * plan is read (dp, and etp as printed, are checked again by aug_plan_resolve); an unknown
 * key is an error naming it, so a hand-edited plan cannot silently lose a setting. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "augur/dtype.h"
#include "augur/framework.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "core/jsonutil.h"

static int long_key(const char *ctx, json_t *o, const char *key, long lo, long hi, long *out) {
    long v;
    int st = aug_json_long(ctx, o, key, 0, &v);
    if (st == AUG_ENOTFOUND)
        return AUG_OK;
    if (st)
        return st;
    if (v < lo || v > hi)
        return aug_errorf(AUG_EDATA, "%s: field '%s': %ld is outside %ld..%ld", ctx, key, v, lo,
                          hi);
    *out = v;
    return AUG_OK;
}

static int bool_key(const char *ctx, json_t *o, const char *key, int *out) {
    int st = aug_json_bool(ctx, o, key, 0, out);
    return st == AUG_ENOTFOUND ? AUG_OK : st;
}

static int double_key(const char *ctx, json_t *o, const char *key, double *out) {
    int st = aug_json_double(ctx, o, key, AUG_JSON_NONNEG, out);
    return st == AUG_ENOTFOUND ? AUG_OK : st;
}

static int string_key(const char *ctx, json_t *o, const char *key, char *buf, size_t n) {
    int st = aug_json_string(ctx, o, key, 0, buf, n);
    return st == AUG_ENOTFOUND ? AUG_OK : st;
}

static int read_plan(const char *ctx, json_t *o, struct aug_plan *p) {
    static const char *const known[] = {
        "gpus", "tp", "pp", "dp", "cp", "ep", "sp", "interleave", "micro_batch", "global_batch",
        "seq", "recompute", "recompute_modules", "recompute_layers", "zero", "fsdp", "dtype", "attention", "attention_kernel", "cross_entropy",
        "fp8_scaling", "fp8_params",
        "dp_overlap", "cp_algo", "etp", "ep_placement", "moe_capacity_factor", "moe_imbalance", "ternary_kernel", "tp_overlap",
        "pp_overlap", "comm_slowdown", "uneven_pp", "pp_embed_loss_slots", "moe_overlap", "moe_dispatcher", "moe_overlap_realized", "framework", "pp_scatter",
        "tp_async_allreduce", "pp_first_layers", "pp_last_layers", "main_grads", "cuda_graphs", "bucket_params", "param_gather_overlap", "zero3_gather", "grad_reduce", NULL};
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, key) == 0;
        if (!ok)
            return aug_errorf(AUG_EDATA, "%s: unknown plan field '%s'", ctx, key);
    }
    long zero = p->zero;
    char s[32];
    int st;
    if ((st = long_key(ctx, o, "gpus", 1, 100000000, &p->gpus)) ||
        (st = long_key(ctx, o, "tp", 1, 1 << 20, &p->tp)) ||
        (st = long_key(ctx, o, "pp", 1, 1 << 20, &p->pp)) ||
        (st = long_key(ctx, o, "dp", 1, 1 << 26, &p->dp)) ||
        (st = long_key(ctx, o, "cp", 1, 1 << 20, &p->cp)) ||
        (st = long_key(ctx, o, "ep", 1, 1 << 20, &p->ep)) ||
        (st = long_key(ctx, o, "interleave", 1, 1024, &p->interleave)) ||
        (st = long_key(ctx, o, "micro_batch", 1, 1L << 30, &p->micro_batch)) ||
        (st = long_key(ctx, o, "global_batch", 1, 1L << 40, &p->global_batch)) ||
        (st = long_key(ctx, o, "seq", 1, 1L << 30, &p->seq)) ||
        (st = long_key(ctx, o, "zero", 0, 3, &zero)) ||
        (st = long_key(ctx, o, "etp", 1, 1 << 20, &p->etp)) ||
        (st = long_key(ctx, o, "recompute_layers", 0, 1 << 20, &p->recompute_layers)) ||
        (st = long_key(ctx, o, "pp_first_layers", 0, 1 << 20, &p->pp_first_layers)) ||
        (st = long_key(ctx, o, "pp_last_layers", 0, 1 << 20, &p->pp_last_layers)) ||
        (st = bool_key(ctx, o, "sp", &p->sp)) ||
        (st = bool_key(ctx, o, "dp_overlap", &p->dp_overlap)) ||
        (st = bool_key(ctx, o, "tp_overlap", &p->tp_overlap)) ||
        (st = bool_key(ctx, o, "pp_overlap", &p->pp_overlap)) ||
        (st = bool_key(ctx, o, "uneven_pp", &p->uneven_pp)) ||
        (st = bool_key(ctx, o, "pp_embed_loss_slots", &p->pp_embed_loss_slots)) ||
        (st = bool_key(ctx, o, "pp_scatter", &p->pp_scatter)) ||
        (st = bool_key(ctx, o, "tp_async_allreduce", &p->tp_async_allreduce)) ||
        (st = bool_key(ctx, o, "cuda_graphs", &p->cuda_graphs)) ||
        (st = bool_key(ctx, o, "param_gather_overlap", &p->param_gather_overlap)) ||
        (st = double_key(ctx, o, "bucket_params", &p->bucket_params)) ||
        (st = double_key(ctx, o, "moe_capacity_factor", &p->moe_capacity_factor)) ||
        (st = double_key(ctx, o, "moe_imbalance", &p->moe_imbalance)) ||
        (st = double_key(ctx, o, "comm_slowdown", &p->comm_slowdown)) ||
        (st = double_key(ctx, o, "moe_overlap_realized", &p->moe_overlap_realized)))
        return st;
    p->zero = (int)zero;
    if (p->etp == p->tp)
        p->etp = 0; /* printed as aug_plan_etp(): equal to tp means the default */
    s[0] = '\0';
    if ((st = string_key(ctx, o, "recompute", s, sizeof s)))
        return st;
    if (s[0] && aug_recompute_from_name(s, &p->recompute) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'recompute': %s", ctx, aug_last_error());
    char mods[128] = "";
    if ((st = string_key(ctx, o, "recompute_modules", mods, sizeof mods)))
        return st;
    if (mods[0] && aug_rc_modules_parse(mods, &p->recompute_modules) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'recompute_modules': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "fsdp", s, sizeof s)))
        return st;
    if (s[0] && aug_fsdp_from_name(s, &p->fsdp) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'fsdp': unknown mode '%s'", ctx, s);
    s[0] = '\0';
    if ((st = string_key(ctx, o, "dtype", s, sizeof s)))
        return st;
    if (s[0] && aug_dtype_from_name(s, &p->dtype) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'dtype': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "attention", s, sizeof s)))
        return st;
    if (s[0] && strcmp(s, "fused") != 0 && strcmp(s, "unfused") != 0)
        return aug_errorf(AUG_EDATA, "%s: field 'attention': '%s' is not fused or unfused", ctx, s);
    if (s[0])
        p->flash_attention = strcmp(s, "fused") == 0;
    s[0] = '\0';
    if ((st = string_key(ctx, o, "attention_kernel", s, sizeof s)))
        return st;
    if (s[0] && aug_attn_kernel_from_name(s, &p->attn_kernel) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'attention_kernel': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "grad_reduce", s, sizeof s)))
        return st;
    if (s[0] && aug_grad_reduce_from_name(s, &p->grad_reduce) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'grad_reduce': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "zero3_gather", s, sizeof s)))
        return st;
    if (s[0] && aug_zero3_gather_from_name(s, &p->zero3_gather) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'zero3_gather': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "cross_entropy", s, sizeof s)))
        return st;
    if (s[0] && aug_cross_entropy_from_name(s, &p->cross_entropy) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'cross_entropy': %s", ctx, aug_last_error());
    s[0] = '\0';
    /* null: a plan of another dtype, as augur train writes it */
    if (!json_is_null(json_object_get(o, "fp8_scaling")) &&
        (st = string_key(ctx, o, "fp8_scaling", s, sizeof s)))
        return st;
    if (s[0] && aug_fp8_scaling_from_name(s, &p->fp8_scaling) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'fp8_scaling': %s", ctx, aug_last_error());
    if (s[0] && p->dtype != AUG_DTYPE_FP8)
        return aug_errorf(AUG_EDATA, "%s: field 'fp8_scaling': set on a plan whose dtype is %s, "
                          "not fp8", ctx, aug_dtype_name(p->dtype));
    s[0] = '\0';
    /* null: a plan of another dtype, as augur train writes it */
    if (!json_is_null(json_object_get(o, "fp8_params")) &&
        (st = bool_key(ctx, o, "fp8_params", &p->fp8_params)))
        return st;
    if (p->fp8_params && p->dtype != AUG_DTYPE_FP8)
        return aug_errorf(AUG_EDATA, "%s: field 'fp8_params': true on a plan whose dtype is %s, "
                          "not fp8", ctx, aug_dtype_name(p->dtype));
    if ((st = string_key(ctx, o, "cp_algo", s, sizeof s)))
        return st;
    if (s[0] && aug_cp_algo_from_name(s, &p->cp_algo) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'cp_algo': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "ep_placement", s, sizeof s)))
        return st;
    if (s[0] && strcmp(s, "inner") != 0 && strcmp(s, "outer") != 0)
        return aug_errorf(AUG_EDATA, "%s: field 'ep_placement': '%s' is not inner or outer", ctx,
                          s);
    if (s[0])
        p->ep_outer = strcmp(s, "outer") == 0;
    s[0] = '\0';
    if ((st = string_key(ctx, o, "ternary_kernel", s, sizeof s)))
        return st;
    if (s[0] && aug_ternary_kernel_from_name(s, &p->ternary) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'ternary_kernel': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "framework", s, sizeof s)))
        return st;
    if (s[0] && aug_framework_from_name(s, &p->framework) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'framework': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "main_grads", s, sizeof s)))
        return st;
    if (s[0] && aug_main_grads_from_name(s, &p->main_grads) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'main_grads': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "moe_overlap", s, sizeof s)))
        return st;
    if (s[0] && aug_moe_overlap_from_name(s, &p->moe_overlap) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'moe_overlap': %s", ctx, aug_last_error());
    s[0] = '\0';
    if ((st = string_key(ctx, o, "moe_dispatcher", s, sizeof s)))
        return st;
    if (s[0] && aug_moe_dispatcher_from_name(s, &p->moe_dispatcher) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s: field 'moe_dispatcher': %s", ctx, aug_last_error());
    return AUG_OK;
}

int aug_plan_from_json(const char *origin, const char *text, long index, struct aug_plan *p,
                       char *model, size_t model_n, char *system, size_t system_n) {
    json_t *root;
    int st = aug_json_parse(origin, text, &root);
    if (st)
        return st;
    char ctx[512];
    json_t *entry = root;
    json_t *top = json_object_get(root, "top");
    if (json_is_array(top)) {
        if (index < 0 || (size_t)index >= json_array_size(top)) {
            st = aug_errorf(AUG_EDATA, "%s: plan #%ld asked for, the sweep's \"top\" list has "
                            "%zu (numbered from 0)", origin, index, json_array_size(top));
            goto out;
        }
        entry = json_array_get(top, (size_t)index);
        aug_fmt_trunc(ctx, sizeof ctx, "%s: top[%ld]", origin, index);
    } else {
        if (index > 0) {
            st = aug_errorf(AUG_EDATA, "%s: plan #%ld asked for, but the file holds one plan "
                            "(no sweep \"top\" list)", origin, index);
            goto out;
        }
        aug_fmt_trunc(ctx, sizeof ctx, "%s", origin);
    }
    json_t *plan = json_is_object(entry) ? json_object_get(entry, "plan") : NULL;
    if (!json_is_object(plan)) {
        st = aug_errorf(AUG_EDATA, "%s: no \"plan\" object (expected the JSON that augur train "
                        "or augur sweep train prints with --format json)", ctx);
        goto out;
    }
    model[0] = system[0] = '\0';
    if ((st = string_key(ctx, entry, "model", model, model_n)) ||
        (st = string_key(ctx, entry, "system", system, system_n)))
        goto out;
    /* the sweep searched with uneven splits allowed: its plans may need them */
    json_t *space = json_object_get(root, "space");
    int uneven = 0;
    if (json_is_object(space) && (st = bool_key(origin, space, "uneven_pp", &uneven)) == AUG_OK &&
        uneven)
        p->uneven_pp = 1;
    if (st)
        goto out;
    char pctx[600];
    aug_fmt_trunc(pctx, sizeof pctx, "%s.plan", ctx);
    st = read_plan(pctx, plan, p);
out:
    json_decref(root);
    return st;
}
