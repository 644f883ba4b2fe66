/* SPDX-License-Identifier: Apache-2.0 */
/* samples.c - the sample set of calibration: growing it with checks, and reading and
 * writing it as kernels-db raw CSV (the schema in samples.h, DESIGN section 5). */
#include "samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/collective.h"
#include "augur/csvio.h"
#include "augur/data.h"
#include "augur/dtype.h"
#include "augur/kdb.h"
#include "augur/status.h"

static const char *const raw_columns[] = {
    "family", "op", "dtype", "m", "n", "k", "batch", "heads", "seq_q", "seq_kv", "head_dim",
    "causal", "size_bytes", "ranks", "ranks_per_node", "algo", "time_us_median", "time_us_min",
    "time_us_max", "reps", "timing", "source"};
#define N_RAW_COLUMNS (sizeof raw_columns / sizeof raw_columns[0])

/* cupti_kernel: device time of the kernel; cuda_event: events around the kernel launch
 * itself (the profiler without CUPTI); host_event: events around one call of an eager
 * framework (PyTorch: dispatch included, NeuSight's data); wall: a synchronised wall clock */
static const char *const timings[] = {"cupti_kernel", "cuda_event", "host_event", "wall"};

void aug_samples_init(struct aug_samples *s)
{
    memset(s, 0, sizeof *s);
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void aug_samples_free(struct aug_samples *s)
{
    if (!s)
        return;
    free(s->v);
    free_strs(s->files, s->n_files);
    free_strs(s->sources, s->n_sources);
    free_strs(s->prov, s->n_prov);
    free_strs(s->algos, s->n_algos);
    memset(s, 0, sizeof *s);
}

/* Intern `text` in (v, n): linear search from the end (the latest is the usual hit). */
static int intern(char ***v, size_t *n, const char *text)
{
    for (size_t i = *n; i-- > 0;)
        if (strcmp((*v)[i], text) == 0)
            return (int)i;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    *v = nv;
    size_t len = strlen(text);
    nv[*n] = malloc(len + 1);
    if (!nv[*n])
        return aug_errorf(AUG_ENOMEM, "out of memory");
    memcpy(nv[*n], text, len + 1);
    return (int)(*n)++;
}

int aug_samples_file(struct aug_samples *s, const char *name)
{
    return intern(&s->files, &s->n_files, name ? name : "-");
}

int aug_samples_source(struct aug_samples *s, const char *text)
{
    return intern(&s->sources, &s->n_sources, text ? text : "");
}

int aug_samples_prov(struct aug_samples *s, const char *line)
{
    while (*line == ' ')
        line++;
    if (!*line)
        return AUG_OK;
    int rc = intern(&s->prov, &s->n_prov, line);
    return rc < 0 ? rc : AUG_OK;
}

struct aug_sample aug_sample_blank(void)
{
    struct aug_sample x;
    memset(&x, 0, sizeof x);
    x.time_us_min = NAN;
    x.time_us_max = NAN;
    x.batch = 1;
    x.algo = "";
    return x;
}

int aug_timing_valid(const char *timing)
{
    for (size_t i = 0; i < sizeof timings / sizeof timings[0]; i++)
        if (strcmp(timing, timings[i]) == 0)
            return 1;
    return 0;
}

const char *aug_sample_link(const struct aug_sample *x)
{
    return x->ranks_per_node >= x->ranks ? "nvlink" : "network";
}

static const char *where_file(const struct aug_samples *s, const struct aug_sample *x)
{
    return x->file >= 0 && (size_t)x->file < s->n_files ? s->files[x->file] : "-";
}

#define POS(v) (isfinite(v) && (v) > 0)

int aug_samples_add(struct aug_samples *s, const struct aug_sample *x)
{
    const char *f = where_file(s, x);
    long ln = x->line;
    if ((int)x->family < 0 || x->family >= AUG_FAMILY_COUNT)
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'family': unknown family", f, ln);
    if (!x->op[0])
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'op': missing value", f, ln);
    if (!POS(x->time_us))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'time_us_median': %g is not a positive "
                          "time", f, ln, x->time_us);
    if (!isnan(x->time_us_min) && (!POS(x->time_us_min) || x->time_us_min > x->time_us * 1.000001))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'time_us_min': %g is not a positive time "
                          "at most the median %g", f, ln, x->time_us_min, x->time_us);
    if (!isnan(x->time_us_max) && (!POS(x->time_us_max) || x->time_us_max < x->time_us * 0.999999))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'time_us_max': %g is not a time at least "
                          "the median %g", f, ln, x->time_us_max, x->time_us);
    if (x->reps < 0)
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'reps': negative", f, ln);
    if (!aug_timing_valid(x->timing))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'timing': unknown timing '%s' (cupti_kernel, "
                          "cuda_event, host_event or wall)", f, ln, x->timing);
    switch (x->family) {
    case AUG_FAMILY_GEMM:
        if (!POS(x->m) || !POS(x->n) || !POS(x->k) || !POS(x->batch))
            return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': GEMM sizes must be positive", f,
                              ln, !POS(x->m) ? "m" : !POS(x->n) ? "n" : !POS(x->k) ? "k" : "batch");
        if (strcmp(x->op, AUG_GEMM_SPLIT_ACC_OP) == 0 && x->dtype != AUG_DTYPE_FP8)
            return aug_errorf(AUG_EDATA, "%s:%ld: column 'op': %s is an fp8 GEMM with the split "
                              "accumulator, not %s", f, ln, AUG_GEMM_SPLIT_ACC_OP,
                              aug_dtype_name(x->dtype));
        break;
    case AUG_FAMILY_ATTENTION:
        if (!POS(x->batch) || !POS(x->heads) || !POS(x->seq_q) || !POS(x->seq_kv) ||
            !POS(x->head_dim))
            return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': attention sizes must be positive",
                              f, ln, !POS(x->batch) ? "batch" : !POS(x->heads) ? "heads"
                              : !POS(x->seq_q) ? "seq_q" : !POS(x->seq_kv) ? "seq_kv" : "head_dim");
        if (x->causal != 0 && x->causal != 1)
            return aug_errorf(AUG_EDATA, "%s:%ld: column 'causal': must be 0 or 1", f, ln);
        { /* its curve name (op + "_decode"/"_causal") must fit, never be cut short */
            char cop[sizeof ((struct aug_curve *)0)->op];
            if (aug_attn_curve_op(x->op, x->seq_q, x->causal, cop, sizeof cop) != AUG_OK)
                return aug_errorf(AUG_EDATA, "%s:%ld: column 'op': %s", f, ln, aug_last_error());
        }
        break;
    case AUG_FAMILY_MEMORY:
        if (!POS(x->size_bytes))
            return aug_errorf(AUG_EDATA, "%s:%ld: column 'size_bytes': %g is not a positive size",
                              f, ln, x->size_bytes);
        break;
    case AUG_FAMILY_COLLECTIVE: {
        enum aug_coll c;
        if (aug_coll_from_name(x->op, &c) != AUG_OK)
            return aug_errorf(AUG_EDATA, "%s:%ld: column 'op': unknown collective '%s'", f, ln,
                              x->op);
        if (!POS(x->size_bytes))
            return aug_errorf(AUG_EDATA, "%s:%ld: column 'size_bytes': %g is not a positive size",
                              f, ln, x->size_bytes);
        if (x->ranks < 1 || x->ranks_per_node < 1)
            return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': must be at least 1", f, ln,
                              x->ranks < 1 ? "ranks" : "ranks_per_node");
        break;
    }
    default:
        break;
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        struct aug_sample *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return aug_errorf(AUG_ENOMEM, "out of memory");
        s->v = nv;
        s->cap = nc;
    }
    /* the algo text lives in this set (a sample copied from another set must not point
     * into that one, which may be freed first) */
    int ai = intern(&s->algos, &s->n_algos, x->algo ? x->algo : "");
    if (ai < 0)
        return ai;
    s->v[s->n] = *x;
    s->v[s->n].algo = s->algos[ai];
    if (x->family == AUG_FAMILY_COLLECTIVE) { /* one spelling per collective */
        enum aug_coll c;
        aug_coll_from_name(x->op, &c);
        snprintf(s->v[s->n].op, sizeof s->v[s->n].op, "%s", aug_coll_name(c));
    }
    s->n++;
    return AUG_OK;
}

/* ---- reading raw CSV ---- */

static int get_opt(const struct aug_csv *t, size_t r, const char *col, double *out)
{
    int rc = aug_csv_get_double(t, r, col, 0, out);
    return rc == AUG_ENOTFOUND ? AUG_OK : rc;
}

static int get_req(const struct aug_csv *t, size_t r, const char *col, double *out)
{
    return aug_csv_get_double(t, r, col, AUG_CSV_REQUIRED, out);
}

static int copy_text(const struct aug_csv *t, size_t r, const char *col, char *dst, size_t cap,
                     int required)
{
    const char *v = aug_csv_cell(t, r, aug_csv_col(t, col));
    if (required && !*v)
        return aug_csv_cell_error(t, r, col, "missing value");
    if (strlen(v) >= cap)
        return aug_csv_cell_error(t, r, col, "longer than %zu characters", cap - 1);
    memcpy(dst, v, strlen(v) + 1);
    return AUG_OK;
}

static int parse_raw_row(const struct aug_csv *t, size_t r, struct aug_sample *x,
                         struct aug_samples *s)
{
    char buf[32];
    int rc;
    double v;
    if ((rc = copy_text(t, r, "family", buf, sizeof buf, 1)))
        return rc;
    if (aug_family_from_name(buf, &x->family) != AUG_OK)
        return aug_csv_cell_error(t, r, "family", "unknown family '%s'", buf);
    if ((rc = copy_text(t, r, "op", x->op, sizeof x->op, 1)))
        return rc;
    if ((rc = copy_text(t, r, "dtype", buf, sizeof buf, 1)))
        return rc;
    if (aug_dtype_from_name(buf, &x->dtype) != AUG_OK)
        return aug_csv_cell_error(t, r, "dtype", "unknown dtype '%s'", buf);
    int fam = x->family;
    int gemm = fam == AUG_FAMILY_GEMM, attn = fam == AUG_FAMILY_ATTENTION;
    int sized = fam == AUG_FAMILY_MEMORY || fam == AUG_FAMILY_COLLECTIVE;
    if ((rc = (gemm ? get_req : get_opt)(t, r, "m", &x->m)) ||
        (rc = (gemm ? get_req : get_opt)(t, r, "n", &x->n)) ||
        (rc = (gemm ? get_req : get_opt)(t, r, "k", &x->k)) ||
        (rc = (attn ? get_req : get_opt)(t, r, "batch", &x->batch)) ||
        (rc = (attn ? get_req : get_opt)(t, r, "heads", &x->heads)) ||
        (rc = (attn ? get_req : get_opt)(t, r, "seq_q", &x->seq_q)) ||
        (rc = (attn ? get_req : get_opt)(t, r, "seq_kv", &x->seq_kv)) ||
        (rc = (attn ? get_req : get_opt)(t, r, "head_dim", &x->head_dim)) ||
        (rc = (sized ? get_req : get_opt)(t, r, "size_bytes", &x->size_bytes)))
        return rc;
    long lv = 0;
    rc = aug_csv_get_long(t, r, "causal", attn ? AUG_CSV_REQUIRED | AUG_CSV_NONNEG : AUG_CSV_NONNEG,
                          &lv);
    if (rc && rc != AUG_ENOTFOUND)
        return rc;
    x->causal = (int)lv;
    if (attn && lv > 1)
        return aug_csv_cell_error(t, r, "causal", "must be 0 or 1");
    int coll = fam == AUG_FAMILY_COLLECTIVE;
    lv = 0;
    rc = aug_csv_get_long(t, r, "ranks", coll ? AUG_CSV_REQUIRED | AUG_CSV_POSITIVE : AUG_CSV_NONNEG,
                          &lv);
    if (rc && rc != AUG_ENOTFOUND)
        return rc;
    x->ranks = (int)lv;
    lv = 0;
    rc = aug_csv_get_long(t, r, "ranks_per_node",
                          coll ? AUG_CSV_REQUIRED | AUG_CSV_POSITIVE : AUG_CSV_NONNEG, &lv);
    if (rc && rc != AUG_ENOTFOUND)
        return rc;
    x->ranks_per_node = (int)lv;
    { /* any length: NCCL_ALGO / NCCL_PROTO settings can be long lists */
        int ai = intern(&s->algos, &s->n_algos, aug_csv_cell(t, r, aug_csv_col(t, "algo")));
        if (ai < 0)
            return ai;
        x->algo = s->algos[ai];
    }
    if ((rc = aug_csv_get_double(t, r, "time_us_median", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE,
                                 &x->time_us)))
        return rc;
    v = NAN;
    rc = aug_csv_get_double(t, r, "time_us_min", AUG_CSV_POSITIVE, &v);
    if (rc && rc != AUG_ENOTFOUND)
        return rc;
    x->time_us_min = v;
    v = NAN;
    rc = aug_csv_get_double(t, r, "time_us_max", AUG_CSV_POSITIVE, &v);
    if (rc && rc != AUG_ENOTFOUND)
        return rc;
    x->time_us_max = v;
    lv = 0;
    rc = aug_csv_get_long(t, r, "reps", AUG_CSV_NONNEG, &lv);
    if (rc && rc != AUG_ENOTFOUND)
        return rc;
    x->reps = lv;
    if ((rc = copy_text(t, r, "timing", x->timing, sizeof x->timing, 1)))
        return rc;
    if (!aug_timing_valid(x->timing))
        return aug_csv_cell_error(t, r, "timing", "unknown timing '%s' (cupti_kernel, "
                                  "cuda_event, host_event or wall)", x->timing);
    int src = aug_samples_source(s, aug_csv_cell(t, r, aug_csv_col(t, "source")));
    if (src < 0)
        return src;
    x->source = src;
    if (!attn && x->batch == 0)
        x->batch = 1;
    return AUG_OK;
}

int aug_samples_load_raw_mem(const char *name, const char *buf, size_t len,
                             struct aug_samples *s)
{
    struct aug_csv *t = NULL;
    int rc = aug_csv_load_mem(name, buf, len, &t);
    if (rc != AUG_OK)
        return rc;
    for (size_t c = 0; c < N_RAW_COLUMNS; c++) {
        if (aug_csv_col(t, raw_columns[c]) < 0) {
            rc = aug_errorf(AUG_EDATA, "%s:%ld: column '%s': missing from the header", name,
                            (long)aug_csv_comments(t) + 1, raw_columns[c]);
            goto out;
        }
    }
    int fidx = aug_samples_file(s, name);
    if (fidx < 0) {
        rc = fidx;
        goto out;
    }
    for (size_t i = 0; i < aug_csv_comments(t); i++)
        if ((rc = aug_samples_prov(s, aug_csv_comment(t, i))) != AUG_OK)
            goto out;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        struct aug_sample x = aug_sample_blank();
        x.batch = 0;
        x.file = fidx;
        x.line = aug_csv_line(t, r);
        if ((rc = parse_raw_row(t, r, &x, s)) != AUG_OK)
            goto out;
        if ((rc = aug_samples_add(s, &x)) != AUG_OK)
            goto out;
    }
out:
    aug_csv_free(t);
    return rc;
}

int aug_samples_load_raw(const char *path, struct aug_samples *s)
{
    char *buf = NULL;
    long len = 0;
    int rc = aug_read_file(path, &buf, &len);
    if (rc != AUG_OK)
        return rc;
    rc = aug_samples_load_raw_mem(path, buf, (size_t)len, s);
    free(buf);
    return rc;
}

/* ---- writing raw CSV ---- */

static void num_or_empty(struct aug_csv_writer *w, double v, int used)
{
    if (used)
        aug_csv_write_num(w, v);
    else
        aug_csv_write_empty(w);
}

int aug_samples_write_raw(const char *path, const struct aug_samples *s, int family,
                          const char *const *extra_prov, size_t n_extra)
{
    struct aug_csv_writer *w = NULL;
    int rc = aug_csv_writer_open(path, 1, &w);
    if (rc != AUG_OK)
        return rc;
    for (size_t i = 0; i < n_extra; i++)
        aug_csv_write_comment(w, "%s", extra_prov[i]);
    for (size_t i = 0; i < s->n_prov; i++)
        aug_csv_write_comment(w, "%s", s->prov[i]);
    for (size_t c = 0; c < N_RAW_COLUMNS; c++)
        aug_csv_write_str(w, raw_columns[c]);
    aug_csv_end_row(w);
    for (size_t i = 0; i < s->n; i++) {
        const struct aug_sample *x = &s->v[i];
        if (family != AUG_FAMILY_COUNT && (int)x->family != family)
            continue;
        int gemm = x->family == AUG_FAMILY_GEMM, attn = x->family == AUG_FAMILY_ATTENTION;
        int coll = x->family == AUG_FAMILY_COLLECTIVE;
        aug_csv_write_str(w, aug_family_name(x->family));
        aug_csv_write_str(w, x->op);
        aug_csv_write_str(w, aug_dtype_name(x->dtype));
        num_or_empty(w, x->m, gemm);
        num_or_empty(w, x->n, gemm);
        num_or_empty(w, x->k, gemm);
        num_or_empty(w, x->batch, gemm || attn);
        num_or_empty(w, x->heads, attn);
        num_or_empty(w, x->seq_q, attn);
        num_or_empty(w, x->seq_kv, attn);
        num_or_empty(w, x->head_dim, attn);
        if (attn)
            aug_csv_write_int(w, x->causal);
        else
            aug_csv_write_empty(w);
        num_or_empty(w, x->size_bytes, !gemm && !attn);
        if (coll) {
            aug_csv_write_int(w, x->ranks);
            aug_csv_write_int(w, x->ranks_per_node);
        } else {
            aug_csv_write_empty(w);
            aug_csv_write_empty(w);
        }
        aug_csv_write_str(w, x->algo ? x->algo : "");
        aug_csv_write_num(w, x->time_us);
        aug_csv_write_num(w, x->time_us_min); /* NaN writes empty */
        aug_csv_write_num(w, x->time_us_max);
        if (x->reps > 0)
            aug_csv_write_int(w, x->reps);
        else
            aug_csv_write_empty(w);
        aug_csv_write_str(w, x->timing);
        aug_csv_write_str(w, x->source >= 0 && (size_t)x->source < s->n_sources
                                 ? s->sources[x->source] : "");
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w);
}
