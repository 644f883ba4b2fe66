/* SPDX-License-Identifier: Apache-2.0 */
/* import_vidur_mlp.c - Vidur's op-level profiling table mlp.csv (microsoft/vidur,
 * data/profiling/compute/<gpu>/<org>/<model>/mlp.csv).
 *
 * One row per (num_tokens, tensor-parallel degree) of one model, timed in fp16 with the
 * torch profiler (CUDA kernel time summed per op, milliseconds). The model dimensions in
 * the row rebuild each op's per-shard shape (T = num_tokens, h = n_embd, d = h / n_head,
 * F = n_expanded_embd, t = TP degree, all fp16, 2 bytes per element):
 *   attn_pre_proj   GEMM m = T, k = h, n = (n_head + 2 n_kv_head) d / t   (QKV)
 *   attn_post_proj  GEMM m = T, k = h / t, n = h                          (output)
 *   mlp_up_proj     GEMM m = T, k = h, n = (gated ? 2 : 1) F / t          (gate + up)
 *   mlp_down_proj   GEMM m = T, k = F / t, n = h
 *   emb                       memory "embedding":  bytes = 2 (T h read + T h written)
 *   input_layernorm, post_attention_layernorm  "norm": 2 (T h + T h)
 *   attn_rope                 memory "rope": 2 * 2 T (n_head + n_kv_head) d / t (q, k in place)
 *   mlp_act                   memory "activation": 2 T F / t (gated ? 3 : 2)
 *   add                       memory "elementwise": 2 * 3 T h (two reads, one write)
 * Ops whose columns are absent are skipped; a present op with a bad value is an error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "augur/csvio.h"
#include "augur/status.h"
#include "importer.h"

enum vop_kind { V_QKV, V_OUT, V_UP, V_DOWN, V_EMB, V_NORM, V_ROPE, V_ACT, V_ADD };

static const struct {
    const char *col;  /* Vidur op name */
    enum vop_kind kind;
    const char *op;   /* augur op name */
} vops[] = {
    {"attn_pre_proj", V_QKV, "gemm"},
    {"attn_post_proj", V_OUT, "gemm"},
    {"mlp_up_proj", V_UP, "gemm"},
    {"mlp_down_proj", V_DOWN, "gemm"},
    {"emb", V_EMB, "embedding"},
    {"input_layernorm", V_NORM, "norm"},
    {"post_attention_layernorm", V_NORM, "norm"},
    {"attn_rope", V_ROPE, "rope"},
    {"mlp_act", V_ACT, "activation"},
    {"add", V_ADD, "elementwise"},
};
#define N_VOPS (sizeof vops / sizeof vops[0])

struct dims {
    double T, h, nh, nkv, F, tp;
    int gated;
};

static int get_dims(const struct aug_csv *t, size_t r, struct dims *d)
{
    int rc;
    const int req = AUG_CSV_REQUIRED | AUG_CSV_POSITIVE;
    if ((rc = aug_csv_get_double(t, r, "num_tokens", req, &d->T)) ||
        (rc = aug_csv_get_double(t, r, "n_embd", req, &d->h)) ||
        (rc = aug_csv_get_double(t, r, "n_head", req, &d->nh)) ||
        (rc = aug_csv_get_double(t, r, "n_kv_head", req, &d->nkv)) ||
        (rc = aug_csv_get_double(t, r, "n_expanded_embd", req, &d->F)) ||
        (rc = aug_csv_get_double(t, r, "num_tensor_parallel_workers", req, &d->tp)))
        return rc;
    const char *g = aug_csv_cell(t, r, aug_csv_col(t, "use_gated_mlp"));
    if (strcmp(g, "True") == 0 || strcmp(g, "true") == 0 || strcmp(g, "1") == 0)
        d->gated = 1;
    else if (strcmp(g, "False") == 0 || strcmp(g, "false") == 0 || strcmp(g, "0") == 0)
        d->gated = 0;
    else
        return aug_csv_cell_error(t, r, "use_gated_mlp", "'%s' is not True or False", g);
    if (d->nkv > d->nh)
        return aug_csv_cell_error(t, r, "n_kv_head", "more KV heads (%g) than heads (%g)",
                                  d->nkv, d->nh);
    return AUG_OK;
}

static void shape_of(enum vop_kind k, const struct dims *d, struct aug_sample *x)
{
    const double eb = 2.0; /* fp16 */
    double hd = d->h / d->nh;
    double T = d->T, h = d->h, tp = d->tp;
    switch (k) {
    case V_QKV:
        x->m = T, x->k = h, x->n = (d->nh + 2 * d->nkv) * hd / tp;
        break;
    case V_OUT:
        x->m = T, x->k = h / tp, x->n = h;
        break;
    case V_UP:
        x->m = T, x->k = h, x->n = (d->gated ? 2 : 1) * d->F / tp;
        break;
    case V_DOWN:
        x->m = T, x->k = d->F / tp, x->n = h;
        break;
    case V_EMB:
    case V_NORM:
        x->size_bytes = eb * 2 * T * h;
        break;
    case V_ROPE:
        x->size_bytes = eb * 2 * T * (d->nh + d->nkv) * hd / tp;
        break;
    case V_ACT:
        x->size_bytes = eb * T * d->F / tp * (d->gated ? 3 : 2);
        break;
    case V_ADD:
        x->size_bytes = eb * 3 * T * h;
        break;
    }
    x->m = round(x->m), x->n = round(x->n), x->k = round(x->k);
}

int aug_import_vidur_mlp(const char *name, const char *buf, size_t len,
                         const struct aug_import_opts *o, struct aug_samples *out)
{
    struct aug_csv *t = NULL;
    int rc = aug_csv_load_mem(name, buf, len, &t);
    if (rc != AUG_OK)
        return rc;
    static const char *const need[] = {"num_tokens", "n_embd", "n_head", "n_kv_head",
                                       "n_expanded_embd", "use_gated_mlp",
                                       "num_tensor_parallel_workers"};
    if ((rc = aug_csv_need_cols(t, need, sizeof need / sizeof need[0],
                                " (not a Vidur mlp.csv?)")) != AUG_OK)
        goto out;
    /* which ops are present, and their column names */
    char med[N_VOPS][64], mn[N_VOPS][64], mx[N_VOPS][64];
    int present[N_VOPS], src[N_VOPS];
    int any = 0;
    for (size_t i = 0; i < N_VOPS; i++) {
        snprintf(med[i], sizeof med[i], "time_stats.%s.median", vops[i].col);
        snprintf(mn[i], sizeof mn[i], "time_stats.%s.min", vops[i].col);
        snprintf(mx[i], sizeof mx[i], "time_stats.%s.max", vops[i].col);
        present[i] = aug_csv_col(t, med[i]) >= 0;
        any |= present[i];
        char sbuf[512];
        src[i] = aug_samples_source(out, aug_import_source(o, name, vops[i].col, sbuf, sizeof sbuf));
        if (src[i] < 0) {
            rc = src[i];
            goto out;
        }
    }
    if (!any) {
        rc = aug_errorf(AUG_EDATA, "%s:1: column 'time_stats.attn_pre_proj.median': missing "
                        "(no known op timed)", name);
        goto out;
    }
    int fidx = aug_samples_file(out, name);
    if (fidx < 0) {
        rc = fidx;
        goto out;
    }
    char prov[600];
    snprintf(prov, sizeof prov, "import: vidur-mlp %.500s (torch profiler CUDA kernel time, fp16, ms)",
             name);
    if ((rc = aug_samples_prov(out, prov)) != AUG_OK)
        goto out;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        struct dims d;
        if ((rc = get_dims(t, r, &d)) != AUG_OK)
            goto out;
        for (size_t i = 0; i < N_VOPS; i++) {
            if (!present[i])
                continue;
            struct aug_sample x = aug_sample_blank();
            x.family = vops[i].kind <= V_DOWN ? AUG_FAMILY_GEMM : AUG_FAMILY_MEMORY;
            snprintf(x.op, sizeof x.op, "%s", vops[i].op);
            x.dtype = AUG_DTYPE_FP16;
            shape_of(vops[i].kind, &d, &x);
            double ms;
            if ((rc = aug_csv_get_double(t, r, med[i], AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &ms)))
                goto out;
            x.time_us = ms * 1e3;
            double v;
            rc = aug_csv_get_double(t, r, mn[i], AUG_CSV_POSITIVE, &v);
            if (rc == AUG_OK)
                x.time_us_min = v * 1e3;
            else if (rc != AUG_ENOTFOUND)
                goto out;
            rc = aug_csv_get_double(t, r, mx[i], AUG_CSV_POSITIVE, &v);
            if (rc == AUG_OK)
                x.time_us_max = v * 1e3;
            else if (rc != AUG_ENOTFOUND)
                goto out;
            if (x.time_us_min > x.time_us)   /* rounding in the source: min/max bracket */
                x.time_us_min = x.time_us;
            if (x.time_us_max < x.time_us)
                x.time_us_max = x.time_us;
            x.reps = 20; /* Vidur ACTIVE_STEPS */
            snprintf(x.timing, sizeof x.timing, "cupti_kernel");
            x.file = fidx;
            x.line = aug_csv_line(t, r);
            x.source = src[i];
            if ((rc = aug_samples_add(out, &x)) != AUG_OK)
                goto out;
        }
    }
    rc = AUG_OK;
out:
    aug_csv_free(t);
    return rc;
}
