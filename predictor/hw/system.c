/* SPDX-License-Identifier: Apache-2.0 */
/* system.c - GPUs (rows of kernels-db/gpus.csv) and systems (presets/systems.json or a
 * user's own system JSON), loaded strictly.
 *
 * One table of GPU fields serves both the CSV rows and the inline "gpu": {...} objects of a
 * system JSON, so a user can describe a new GPU without editing kernels-db, or start from a
 * known row ("base": "h100-80g") and change a few numbers for a what-if. Every rejection
 * names the file, the line or entry, and the field. The format is documented in
 * predictor/presets/README.md. */
#include "augur/system.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "augur/csvio.h"
#include "augur/data.h"
#include "augur/dtype.h"
#include "augur/status.h"
#include "core/jsonutil.h"
#include "core/suggest.h"

static const char *const link_names[] = {"nvlink", "network"};
_Static_assert(sizeof link_names / sizeof *link_names == AUG_LINK_COUNT, "link names");

const char *aug_link_name(enum aug_link l) {
    return (unsigned)l < AUG_LINK_COUNT ? link_names[l] : "unknown";
}

/* Default per-kernel launch overhead when a GPU description gives none (see the comment
 * header of kernels-db/gpus.csv for its basis). */
#define DEFAULT_LAUNCH_US 4.0

/* ---- the GPU field table ------------------------------------------------------------ */

enum gtype { G_STR, G_INT, G_DBL };

/* flags: AUG_CSV_* and AUG_JSON_* share the values 1 (required), 2 (positive), 4 (>= 0) */
_Static_assert((int)AUG_CSV_REQUIRED == (int)AUG_JSON_REQUIRED &&
                   (int)AUG_CSV_POSITIVE == (int)AUG_JSON_POSITIVE &&
                   (int)AUG_CSV_NONNEG == (int)AUG_JSON_NONNEG,
               "csv and json flags agree");
#define REQ AUG_JSON_REQUIRED
#define POS AUG_JSON_POSITIVE
#define NONNEG AUG_JSON_NONNEG

struct gfield {
    const char *key;
    enum gtype type;
    size_t off;   /* for peaks: offset of peak_tflops[0] */
    int dtype;    /* >= 0: index into peak_tflops */
    int flags;
    double max;   /* larger values are mistakes */
};

#define GOFF(k) offsetof(struct aug_gpu, k)
static const struct gfield gpu_fields[] = {
    {"gpu_id", G_STR, GOFF(id), -1, REQ, 0},
    {"name", G_STR, GOFF(name), -1, 0, 0},
    {"sm_count", G_INT, GOFF(sm_count), -1, REQ | POS, 100000},
    {"clock_mhz", G_DBL, GOFF(clock_mhz), -1, NONNEG, 100000},
    {"peak_tflops_fp32", G_DBL, GOFF(peak_tflops), AUG_DTYPE_FP32, REQ | POS, 1e6},
    {"peak_tflops_tf32", G_DBL, GOFF(peak_tflops), AUG_DTYPE_TF32, REQ | NONNEG, 1e6},
    {"peak_tflops_bf16", G_DBL, GOFF(peak_tflops), AUG_DTYPE_BF16, REQ | NONNEG, 1e6},
    {"peak_tflops_fp16", G_DBL, GOFF(peak_tflops), AUG_DTYPE_FP16, REQ | NONNEG, 1e6},
    {"peak_tflops_fp8", G_DBL, GOFF(peak_tflops), AUG_DTYPE_FP8, REQ | NONNEG, 1e6},
    {"peak_tflops_int8", G_DBL, GOFF(peak_tflops), AUG_DTYPE_INT8, REQ | NONNEG, 1e6},
    {"peak_tflops_int4", G_DBL, GOFF(peak_tflops), AUG_DTYPE_INT4, REQ | NONNEG, 1e6},
    {"vector_tflops", G_DBL, GOFF(vector_tflops), -1, POS, 1e6},
    {"hbm_gib", G_DBL, GOFF(hbm_gib), -1, REQ | POS, 1e6},
    {"hbm_gbps", G_DBL, GOFF(hbm_gbps), -1, REQ | POS, 1e6},
    {"l2_mib", G_DBL, GOFF(l2_mib), -1, NONNEG, 1e5},
    {"smem_kib_per_sm", G_DBL, GOFF(smem_kib_per_sm), -1, NONNEG, 1e5},
    {"launch_us", G_DBL, GOFF(launch_us), -1, NONNEG, 1e5},
    {"ach_tflops_bf16", G_DBL, GOFF(ach_tflops_bf16), -1, NONNEG, 1e6},
    {"ach_tflops_fp8", G_DBL, GOFF(ach_tflops_fp8), -1, NONNEG, 1e6},
    {"ach_tflops_fp32", G_DBL, GOFF(ach_tflops_fp32), -1, NONNEG, 1e6},
    {"ach_hbm_gbps", G_DBL, GOFF(ach_hbm_gbps), -1, NONNEG, 1e6},
    {"l2_gbps", G_DBL, GOFF(l2_gbps), -1, NONNEG, 1e6},
    {"sm_arch", G_INT, GOFF(sm_arch), -1, NONNEG, 1000},
    {"gemm_scale", G_DBL, GOFF(gemm_scale), -1, NONNEG, 1.0},
    {"source", G_STR, GOFF(source), -1, 0, 0},
};
#define N_GPU_FIELDS (sizeof gpu_fields / sizeof *gpu_fields)
_Static_assert(AUG_DTYPE_COUNT == 7, "gpu_fields lists one peak column per dtype");

static size_t str_size(const struct gfield *f) {
    if (f->off == GOFF(id))
        return sizeof(((struct aug_gpu *)0)->id);
    if (f->off == GOFF(name))
        return sizeof(((struct aug_gpu *)0)->name);
    return sizeof(((struct aug_gpu *)0)->source);
}

static double *dbl_slot(struct aug_gpu *g, const struct gfield *f) {
    if (f->dtype >= 0)
        return &g->peak_tflops[f->dtype];
    return (double *)((char *)g + f->off);
}

static void gpu_defaults(struct aug_gpu *g) {
    memset(g, 0, sizeof *g);
    g->launch_us = DEFAULT_LAUNCH_US;
    g->vector_tflops = -1; /* = peak fp32 unless given */
}

/* Cross-field checks after all fields are read; `where` prefixes the message. */
static int gpu_finish(struct aug_gpu *g, const char *where) {
    if (!g->name[0])
        aug_fmt_trunc(g->name, sizeof g->name, "%s", g->id);
    if (g->vector_tflops < 0)
        g->vector_tflops = g->peak_tflops[AUG_DTYPE_FP32];
    if (!(g->peak_tflops[AUG_DTYPE_BF16] > 0) && !(g->peak_tflops[AUG_DTYPE_FP16] > 0))
        return aug_errorf(AUG_EDATA,
                          "%s: GPU '%s' has neither peak_tflops_bf16 nor peak_tflops_fp16 > 0",
                          where, g->id);
    /* physical bounds: the slowest real HBM/GDDR part moves > 100 GB/s and the slowest
     * supported GPU (Tesla P4) does 0.09 TFLOP/s of fp16; 1 GB/s and 0.01 TFLOP/s catch unit slips
     * (a value in TB/s or PFLOP/s) and absurd numbers such as 1e-300 */
    if (g->hbm_gbps < 1.0)
        return aug_errorf(AUG_EDATA, "%s: field 'hbm_gbps' = %g GB/s is below any real GPU",
                          where, g->hbm_gbps);
    for (int d = 0; d < AUG_DTYPE_COUNT; d++)
        if (g->peak_tflops[d] > 0 && g->peak_tflops[d] < 0.01)
            return aug_errorf(AUG_EDATA, "%s: field 'peak_tflops_%s' = %g TFLOP/s is below "
                              "any real GPU", where, aug_dtype_name((enum aug_dtype)d),
                              g->peak_tflops[d]);
    /* an achievable ceiling can never exceed the datasheet peak it is measured against */
    double p16 = g->peak_tflops[AUG_DTYPE_BF16] > 0 ? g->peak_tflops[AUG_DTYPE_BF16]
                                                    : g->peak_tflops[AUG_DTYPE_FP16];
    const struct {
        const char *key;
        double ach, peak;
    } ach[] = {{"ach_tflops_bf16", g->ach_tflops_bf16, p16},
               {"ach_tflops_fp8", g->ach_tflops_fp8, g->peak_tflops[AUG_DTYPE_FP8]},
               {"ach_tflops_fp32", g->ach_tflops_fp32, g->peak_tflops[AUG_DTYPE_FP32]},
               {"ach_hbm_gbps", g->ach_hbm_gbps, g->hbm_gbps}};
    for (size_t i = 0; i < sizeof ach / sizeof *ach; i++)
        if (ach[i].ach > ach[i].peak * (1 + 1e-9))
            return aug_errorf(AUG_EDATA, "%s: field '%s' = %g is above the datasheet peak %g",
                              where, ach[i].key, ach[i].ach, ach[i].peak);
    /* compute capability x 10: 60 (Pascal) and up; "9.0" read as 9 is the capability itself */
    if (g->sm_arch > 0 && g->sm_arch < 10)
        return aug_errorf(AUG_EDATA, "%s: field 'sm_arch' = %d: give the compute capability x 10 "
                          "(%d for %d.%d)", where, g->sm_arch, g->sm_arch * 10, g->sm_arch, 0);
    for (const char *p = g->id; *p; p++)
        if (*p == '/' || *p == ' ' || *p == ',')
            return aug_errorf(AUG_EDATA,
                              "%s: gpu_id '%s' must be a folder name (no '/', ',' or space)",
                              where, g->id);
    return AUG_OK;
}

/* ---- gpus.csv ----------------------------------------------------------------------- */

static int gpu_from_row(const struct aug_csv *t, size_t row, struct aug_gpu *out) {
    struct aug_gpu g;
    gpu_defaults(&g);
    for (size_t i = 0; i < N_GPU_FIELDS; i++) {
        const struct gfield *f = &gpu_fields[i];
        int st = AUG_OK;
        if (f->type == G_STR) {
            int col = aug_csv_col(t, f->key);
            const char *s = aug_csv_cell(t, row, col);
            if (!*s && (f->flags & REQ))
                return aug_csv_cell_error(t, row, f->key, "is empty");
            if (strlen(s) >= str_size(f))
                return aug_csv_cell_error(t, row, f->key, "longer than %zu bytes",
                                          str_size(f) - 1);
            aug_fmt_trunc((char *)&g + f->off, str_size(f), "%s", s);
            continue;
        }
        double v = 0;
        if (f->type == G_INT) {
            long lv = 0;
            st = aug_csv_get_long(t, row, f->key, f->flags, &lv);
            v = (double)lv;
            if (st == AUG_OK)
                *(int *)((char *)&g + f->off) = (int)(lv > INT_MAX ? INT_MAX : lv);
        } else {
            st = aug_csv_get_double(t, row, f->key, f->flags, &v);
            if (st == AUG_OK)
                *dbl_slot(&g, f) = v;
        }
        if (st == AUG_ENOTFOUND)
            continue;
        if (st != AUG_OK)
            return st;
        if (v > f->max)
            return aug_csv_cell_error(t, row, f->key, "%g is beyond any real GPU (max %g)", v,
                                      f->max);
    }
    char where[PATH_MAX + 32];
    aug_fmt_trunc(where, sizeof where, "%s:%ld", aug_csv_name(t), aug_csv_line(t, row));
    int st = gpu_finish(&g, where);
    if (st)
        return st;
    *out = g;
    return AUG_OK;
}

/* Read <kdb_root>/gpus.csv (root NULL or "": aug_kdb_dir()) into *t with its path and the
 * gpu_id column: a missing column or a repeated id is an error naming the file and line. */
static int load_gpus_csv(const char *kdb_root, char *path, size_t n, struct aug_csv **t,
                         int *col) {
    const char *dir = kdb_root && *kdb_root ? kdb_root : aug_kdb_dir();
    aug_fmt_trunc(path, n, "%s/gpus.csv", dir);
    int st = aug_csv_load(path, t);
    if (st)
        return st;
    *col = aug_csv_col(*t, "gpu_id");
    if (*col < 0)
        st = aug_errorf(AUG_EDATA, "%s: column 'gpu_id' is missing", path);
    size_t rows = aug_csv_rows(*t);
    for (size_t r = 0; r < rows && st == AUG_OK; r++) {
        const char *id = aug_csv_cell(*t, r, *col);
        for (size_t q = 0; q < r && st == AUG_OK; q++)
            if (*id && strcmp(id, aug_csv_cell(*t, q, *col)) == 0)
                st = aug_csv_cell_error(*t, r, "gpu_id", "'%s' repeats line %ld", id,
                                        aug_csv_line(*t, q));
    }
    if (st != AUG_OK) {
        aug_csv_free(*t);
        *t = NULL;
    }
    return st;
}

int aug_gpu_lookup(const char *kdb_root, const char *gpu_id, struct aug_gpu *out) {
    if (!gpu_id || !*gpu_id)
        return aug_errorf(AUG_EUSAGE, "no GPU id given");
    char path[PATH_MAX];
    struct aug_csv *t;
    int col, st = load_gpus_csv(kdb_root, path, sizeof path, &t, &col);
    if (st)
        return st;
    size_t n = aug_csv_rows(t), hit = n;
    for (size_t r = 0; r < n && hit == n; r++)
        if (strcmp(aug_csv_cell(t, r, col), gpu_id) == 0)
            hit = r;
    for (size_t r = 0; r < n && hit == n; r++)
        if (strcasecmp(aug_csv_cell(t, r, col), gpu_id) == 0)
            hit = r;
    if (hit < n) {
        st = gpu_from_row(t, hit, out);
    } else {
        struct aug_suggest sg;
        char hint[256];
        aug_suggest_init(&sg, gpu_id);
        for (size_t r = 0; r < n; r++)
            aug_suggest_add(&sg, aug_csv_cell(t, r, col));
        st = aug_errorf(AUG_ENOTFOUND, "unknown GPU '%s' in %s%s", gpu_id, path,
                        aug_suggest_format(&sg, hint, sizeof hint));
    }
    aug_csv_free(t);
    return st;
}

int aug_gpu_foreach(const char *kdb_root, int (*fn)(const struct aug_gpu *, void *), void *ctx) {
    char path[PATH_MAX];
    struct aug_csv *t;
    int col, st = load_gpus_csv(kdb_root, path, sizeof path, &t, &col);
    if (st)
        return st;
    size_t n = aug_csv_rows(t);
    for (size_t r = 0; r < n && st == AUG_OK; r++) {
        struct aug_gpu g;
        if ((st = gpu_from_row(t, r, &g)) == AUG_OK)
            st = fn(&g, ctx);
    }
    aug_csv_free(t);
    return st;
}

/* ---- system JSON -------------------------------------------------------------------- */

/* Reject keys not in `known` (NULL-terminated); '_'-prefixed keys are comments. */
static int check_keys(const char *ctx, json_t *obj, const char *const *known) {
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value) {
        if (key[0] == '_')
            continue;
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, key) == 0;
        if (ok)
            continue;
        struct aug_suggest sg;
        char hint[256];
        aug_suggest_init(&sg, key);
        for (const char *const *k = known; *k; k++)
            aug_suggest_add(&sg, *k);
        return aug_errorf(AUG_EDATA, "%s: unknown field '%s'%s", ctx, key,
                          aug_suggest_format(&sg, hint, sizeof hint));
    }
    return AUG_OK;
}

/* Re-record the last error with a prefix ("<ctx>: field 'gpu': <message>"). */
static int wrap_error(int st, const char *ctx, const char *field) {
    char msg[1024];
    aug_fmt_trunc(msg, sizeof msg, "%s", aug_last_error());
    return aug_errorf(st, "%s: field '%s': %s", ctx, field, msg);
}

static int gpu_from_object(const char *kdb_root, const char *ctx, json_t *obj,
                           struct aug_gpu *out) {
    const char *known[N_GPU_FIELDS + 2];
    for (size_t i = 0; i < N_GPU_FIELDS; i++)
        known[i] = gpu_fields[i].key;
    known[N_GPU_FIELDS] = "base";
    known[N_GPU_FIELDS + 1] = NULL;
    int st = check_keys(ctx, obj, known);
    if (st)
        return st;
    struct aug_gpu g;
    gpu_defaults(&g);
    char base[sizeof g.id];
    int required = REQ;
    st = aug_json_string(ctx, obj, "base", 0, base, sizeof base);
    if (st == AUG_EDATA)
        return st;
    if (st == AUG_OK) {
        if ((st = aug_gpu_lookup(kdb_root, base, &g)))
            return wrap_error(st, ctx, "base");
        required = 0; /* everything else overrides the base row */
        char src[sizeof g.source];
        aug_fmt_trunc(src, sizeof src, "%s", g.source);
        if (snprintf(g.source, sizeof g.source, "overrides from %s on base '%s': %s", ctx,
                     base, src) >= (int)sizeof g.source)
            g.source[sizeof g.source - 1] = '\0'; /* a shortened citation is acceptable */
    }
    for (size_t i = 0; i < N_GPU_FIELDS; i++) {
        const struct gfield *f = &gpu_fields[i];
        int flags = (f->flags & ~REQ) | (f->flags & required);
        double v = 0;
        if (f->type == G_STR) {
            st = aug_json_string(ctx, obj, f->key, flags, (char *)&g + f->off, str_size(f));
        } else if (f->type == G_INT) {
            long lv = 0;
            st = aug_json_long(ctx, obj, f->key, flags, &lv);
            v = (double)lv;
            if (st == AUG_OK && lv <= f->max)
                *(int *)((char *)&g + f->off) = (int)lv;
        } else {
            st = aug_json_double(ctx, obj, f->key, flags, &v);
            if (st == AUG_OK)
                *dbl_slot(&g, f) = v;
        }
        if (st == AUG_ENOTFOUND)
            continue;
        if (st != AUG_OK)
            return st;
        if (f->type != G_STR && v > f->max)
            return aug_errorf(AUG_EDATA, "%s: field '%s' = %g is beyond any real GPU (max %g)",
                              ctx, f->key, v, f->max);
    }
    if (!g.source[0])
        aug_fmt_trunc(g.source, sizeof g.source, "described in %s", ctx);
    if ((st = gpu_finish(&g, ctx)))
        return st;
    *out = g;
    return AUG_OK;
}

static int link_from_object(const char *ctx, json_t *obj, const char *key,
                            struct aug_link_spec *out) {
    static const char *const known[] = {"bw_gbps", "latency_us", NULL};
    json_t *v = aug_json_get(obj, key);
    if (!v)
        return aug_errorf(AUG_EDATA, "%s: field '%s' is missing", ctx, key);
    char sub[600];
    aug_fmt_trunc(sub, sizeof sub, "%s: %s", ctx, key);
    if (!json_is_object(v))
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be an object {\"bw_gbps\", "
                          "\"latency_us\"} (got %s)", ctx, key, aug_json_type_name(v));
    int st = check_keys(sub, v, known);
    if (st)
        return st;
    if ((st = aug_json_double(sub, v, "bw_gbps", REQ | POS, &out->bw_gbps)) ||
        (st = aug_json_double(sub, v, "latency_us", REQ | NONNEG, &out->latency_us)))
        return st;
    if (out->bw_gbps > 1e5 || out->bw_gbps < 1e-3) /* 1 MB/s .. 100 TB/s per GPU */
        return aug_errorf(AUG_EDATA, "%s: field 'bw_gbps' = %g GB/s per GPU is beyond any "
                          "real link (units are 1e9 B/s)", sub, out->bw_gbps);
    if (out->latency_us > 1e6)
        return aug_errorf(AUG_EDATA, "%s: field 'latency_us' = %g is beyond any real link",
                          sub, out->latency_us);
    return AUG_OK;
}

double aug_system_host_issue_scale(const struct aug_system *s) {
    return s && s->host_issue_scale > 0 ? s->host_issue_scale : 1.0;
}

/* Stem of a file name for systems that carry no "name". */
static void stem_of(const char *origin, char *buf, size_t n) {
    const char *b = strrchr(origin, '/');
    b = b ? b + 1 : origin;
    aug_fmt_trunc(buf, n, "%s", *b ? b : "system");
    size_t l = strlen(buf);
    if (l > 5 && strcasecmp(buf + l - 5, ".json") == 0)
        buf[l - 5] = '\0';
}

static int parse_system(const char *kdb_root, const char *origin, json_t *obj,
                        struct aug_system *out) {
    static const char *const known[] = {"name",    "gpu",     "gpus_per_node",    "nvlink_domain",
                                        "nvlink",  "network", "host_issue_scale", "source",
                                        NULL};
    struct aug_system s;
    memset(&s, 0, sizeof s);
    int st = aug_json_string(origin, obj, "name", 0, s.name, sizeof s.name);
    if (st == AUG_EDATA)
        return st;
    if (st == AUG_ENOTFOUND)
        stem_of(origin, s.name, sizeof s.name);
    for (const char *c = s.name; *c; c++) /* names reach terminals: no escape sequences */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return aug_errorf(AUG_EDATA, "%s: field 'name' holds a control character", origin);
    char ctx[PATH_MAX + 128];
    aug_fmt_trunc(ctx, sizeof ctx, "%s: system '%s'", origin, s.name);
    if ((st = check_keys(ctx, obj, known)))
        return st;

    json_t *gpu = aug_json_get(obj, "gpu");
    if (!gpu)
        return aug_errorf(AUG_EDATA, "%s: field 'gpu' is missing", ctx);
    if (json_is_string(gpu)) {
        if ((st = aug_gpu_lookup(kdb_root, json_string_value(gpu), &s.gpu)))
            return wrap_error(st, ctx, "gpu");
    } else if (json_is_object(gpu)) {
        char gctx[sizeof ctx + 8];
        aug_fmt_trunc(gctx, sizeof gctx, "%s: gpu", ctx);
        if ((st = gpu_from_object(kdb_root, gctx, gpu, &s.gpu)))
            return st;
    } else {
        return aug_errorf(AUG_EDATA,
                          "%s: field 'gpu' must be a GPU id of gpus.csv or an object (got %s)",
                          ctx, aug_json_type_name(gpu));
    }

    long gpn = 0, dom = 0;
    if ((st = aug_json_long(ctx, obj, "gpus_per_node", REQ | POS, &gpn)))
        return st;
    if (gpn > 4096)
        return aug_errorf(AUG_EDATA, "%s: field 'gpus_per_node' = %ld is beyond any real node",
                          ctx, gpn);
    dom = gpn;
    if ((st = aug_json_long(ctx, obj, "nvlink_domain", POS, &dom)) == AUG_EDATA)
        return st;
    if (dom > (1L << 20))
        return aug_errorf(AUG_EDATA, "%s: field 'nvlink_domain' = %ld is beyond any real "
                          "system", ctx, dom);
    if (dom % gpn != 0 && gpn % dom != 0)
        return aug_errorf(AUG_EDATA,
                          "%s: field 'nvlink_domain' = %ld must be a multiple or a divisor of "
                          "gpus_per_node = %ld",
                          ctx, dom, gpn);
    s.gpus_per_node = (int)gpn;
    s.nvlink_domain = (int)dom;
    if ((st = link_from_object(ctx, obj, "nvlink", &s.link[AUG_LINK_NVLINK])) ||
        (st = link_from_object(ctx, obj, "network", &s.link[AUG_LINK_NETWORK])))
        return st;
    s.host_issue_scale = 1.0;
    if ((st = aug_json_double(ctx, obj, "host_issue_scale", POS, &s.host_issue_scale)) ==
        AUG_EDATA)
        return st;
    if (s.host_issue_scale > 100.0)
        return aug_errorf(AUG_EDATA,
                          "%s: field 'host_issue_scale' = %g: a host 100 times slower than a "
                          "DGX's issues no kernels worth predicting",
                          ctx, s.host_issue_scale);
    st = aug_json_string(ctx, obj, "source", 0, s.source, sizeof s.source);
    if (st == AUG_EDATA)
        return st;
    if (st == AUG_ENOTFOUND)
        aug_fmt_trunc(s.source, sizeof s.source, "system JSON %s", origin);
    *out = s;
    return AUG_OK;
}

int aug_system_from_json(const char *kdb_root, const char *origin, const char *text,
                         struct aug_system *out) {
    if (!origin || !*origin)
        origin = "system JSON";
    if (!text)
        return aug_errorf(AUG_EDATA, "%s: no text", origin);
    json_t *root;
    int st = aug_json_parse(origin, text, &root);
    if (st)
        return st;
    json_t *list = json_object_get(root, "systems");
    if (json_is_array(list) && !json_object_get(root, "gpu")) {
        if (json_array_size(list) == 1 && json_is_object(json_array_get(list, 0))) {
            char o[PATH_MAX + 32];
            aug_fmt_trunc(o, sizeof o, "%s: systems[0]", origin);
            st = parse_system(kdb_root, o, json_array_get(list, 0), out);
        } else {
            st = aug_errorf(AUG_EDATA,
                            "%s: holds a list of %zu systems; give one preset name instead",
                            origin, json_array_size(list));
        }
    } else {
        st = parse_system(kdb_root, origin, root, out);
    }
    json_decref(root);
    return st;
}

/* ---- presets ------------------------------------------------------------------------ */

static int presets_open(char *path, size_t n, json_t **root_out, json_t **arr) {
    aug_fmt_trunc(path, n, "%s/presets/systems.json", aug_data_dir());
    return aug_json_load_array(path, "systems", root_out, arr);
}

static int preset_entry(const char *kdb_root, const char *path, json_t *arr, size_t i,
                        struct aug_system *out) {
    json_t *e = json_array_get(arr, i);
    char origin[PATH_MAX + 32];
    aug_fmt_trunc(origin, sizeof origin, "%s: systems[%zu]", path, i);
    if (!json_is_object(e))
        return aug_errorf(AUG_EDATA, "%s: expected an object, got %s", origin,
                          aug_json_type_name(e));
    if (!json_is_string(json_object_get(e, "name")))
        return aug_errorf(AUG_EDATA, "%s: field 'name' is missing", origin);
    return parse_system(kdb_root, origin, e, out);
}

int aug_system_load(const char *kdb_root, const char *name_or_path, struct aug_system *out) {
    if (!name_or_path || !*name_or_path)
        return aug_errorf(AUG_EUSAGE, "no system given (a preset name or a JSON path)");
    if (aug_json_is_file_arg(name_or_path)) {
        char *text;
        int st = aug_read_file_max(name_or_path, AUG_JSON_FILE_MAX, &text, NULL);
        if (st)
            return st;
        st = aug_system_from_json(kdb_root, name_or_path, text, out);
        free(text);
        return st;
    }
    char path[PATH_MAX];
    json_t *root, *arr;
    int st = presets_open(path, sizeof path, &root, &arr);
    if (st)
        return st;
    size_t hit = aug_json_find_named(arr, name_or_path);
    if (hit < json_array_size(arr))
        st = preset_entry(kdb_root, path, arr, hit, out);
    else
        st = aug_json_unknown_named(arr, "system", name_or_path, "systems");
    json_decref(root);
    return st;
}

int aug_system_foreach(const char *kdb_root, void (*fn)(const struct aug_system *, void *),
                       void *user) {
    char path[PATH_MAX];
    json_t *root, *arr;
    int st = presets_open(path, sizeof path, &root, &arr);
    if (st)
        return st;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        struct aug_system s;
        if ((st = preset_entry(kdb_root, path, arr, i, &s)))
            break;
        if (fn)
            fn(&s, user);
    }
    json_decref(root);
    return st;
}
