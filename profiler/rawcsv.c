/* SPDX-License-Identifier: Apache-2.0 */
/* rawcsv.c - reading back, extending and atomically rewriting one raw measurement file
 * (see rawcsv.h). Rows are kept as formatted cells, so rows of an earlier run are written
 * back exactly as they were read; a hash set of identity keys answers "already measured?". */
#include "rawcsv.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "augur/csvio.h"
#include "augur/status.h"
#include "augur/units.h"

const char *const aug_prof_raw_columns[AUG_PROF_RAW_NCOLS] = {
    "family",   "op",     "dtype",          "m",              "n",           "k",
    "batch",    "heads",  "seq_q",          "seq_kv",         "head_dim",    "causal",
    "size_bytes", "ranks", "ranks_per_node", "algo",          "time_us_median",
    "time_us_min", "time_us_max", "reps",   "timing",         "source",
    "library",  "library_algo", "l2_flush", "warmup_calls", "noise", "sm_clock_mhz",
    "mem_clock_mhz", "temp_c", "power_w"};

#define KEY_LEN (AUG_PROF_ALGO_LEN + 512)

struct row {
    char *cells[AUG_PROF_RAW_NCOLS];
};

struct aug_prof_raw {
    char *path;
    char **comments; /* lines to write, without '#' */
    size_t n_comments;
    struct row *rows;
    size_t n_rows, cap_rows, n_loaded;
    char **keys;     /* open-addressing set of identity keys */
    size_t cap_keys, n_keys;
};

static char *dup_str(const char *s) {
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

/* ---- key set ---- */

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static size_t key_slot(char *const *keys, size_t cap, const char *key) {
    size_t i = (size_t)(hash_str(key) & (cap - 1));
    while (keys[i] && strcmp(keys[i], key) != 0)
        i = (i + 1) & (cap - 1);
    return i;
}

static int key_insert(struct aug_prof_raw *r, const char *key) {
    if (2 * (r->n_keys + 1) > r->cap_keys) {
        size_t nc = r->cap_keys ? r->cap_keys * 2 : 256;
        char **nk = calloc(nc, sizeof *nk);
        if (!nk)
            return aug_errorf(AUG_ENOMEM, "out of memory indexing %zu rows", r->n_keys);
        for (size_t i = 0; i < r->cap_keys; i++)
            if (r->keys[i])
                nk[key_slot(nk, nc, r->keys[i])] = r->keys[i];
        free(r->keys);
        r->keys = nk;
        r->cap_keys = nc;
    }
    size_t s = key_slot(r->keys, r->cap_keys, key);
    if (r->keys[s])
        return AUG_EDATA; /* duplicate; caller words the message */
    r->keys[s] = dup_str(key);
    if (!r->keys[s])
        return aug_errorf(AUG_ENOMEM, "out of memory indexing rows");
    r->n_keys++;
    return AUG_OK;
}

static int key_has(const struct aug_prof_raw *r, const char *key) {
    if (!r->cap_keys)
        return 0;
    return r->keys[key_slot(r->keys, r->cap_keys, key)] != NULL;
}

/* ---- rows ---- */

static int push_row(struct aug_prof_raw *r, char *const cells[AUG_PROF_RAW_NCOLS]) {
    if (r->n_rows == r->cap_rows) {
        size_t nc = r->cap_rows ? r->cap_rows * 2 : 128;
        struct row *nr = realloc(r->rows, nc * sizeof *nr);
        if (!nr)
            return aug_errorf(AUG_ENOMEM, "out of memory holding %zu rows", r->n_rows);
        r->rows = nr;
        r->cap_rows = nc;
    }
    struct row *w = &r->rows[r->n_rows];
    for (int c = 0; c < AUG_PROF_RAW_NCOLS; c++) {
        w->cells[c] = dup_str(cells[c] ? cells[c] : "");
        if (!w->cells[c]) {
            while (c-- > 0)
                free(w->cells[c]);
            return aug_errorf(AUG_ENOMEM, "out of memory holding rows");
        }
    }
    r->n_rows++;
    return AUG_OK;
}

static int push_comment(struct aug_prof_raw *r, const char *line) {
    char **nc = realloc(r->comments, (r->n_comments + 1) * sizeof *nc);
    if (!nc)
        return aug_errorf(AUG_ENOMEM, "out of memory holding provenance lines");
    r->comments = nc;
    r->comments[r->n_comments] = dup_str(line);
    if (!r->comments[r->n_comments])
        return aug_errorf(AUG_ENOMEM, "out of memory holding provenance lines");
    r->n_comments++;
    return AUG_OK;
}

/* ---- parsing a row back into a point ---- */

static int get_count(const struct aug_csv *t, size_t row, const char *col, long *out) {
    const char *s = aug_csv_cell(t, row, aug_csv_col(t, col));
    *out = 0;
    if (!*s)
        return AUG_OK;
    char what[96];
    snprintf(what, sizeof what, "%s:%ld: column '%s'", aug_csv_name(t), aug_csv_line(t, row),
             col);
    int rc = aug_parse_long(s, what, 1, 1L << 50, out);
    return rc == AUG_OK ? AUG_OK : AUG_EDATA;
}

int aug_prof_raw_parse_point(const struct aug_csv *t, size_t row, struct aug_prof_point *out) {
    const char *fam = aug_csv_cell(t, row, aug_csv_col(t, "family"));
    const char *op = aug_csv_cell(t, row, aug_csv_col(t, "op"));
    const char *dts = aug_csv_cell(t, row, aug_csv_col(t, "dtype"));
    const char *algo = aug_csv_cell(t, row, aug_csv_col(t, "algo"));
    enum aug_family f;
    enum aug_dtype dt;
    if (aug_family_from_name(fam, &f) != AUG_OK)
        return aug_csv_cell_error(t, row, "family", "unknown family '%s'", fam);
    if (!*op || strlen(op) >= AUG_PROF_OP_LEN)
        return aug_csv_cell_error(t, row, "op", "op '%s' is empty or too long", op);
    if (aug_dtype_from_name(dts, &dt) != AUG_OK)
        return aug_csv_cell_error(t, row, "dtype", "unknown dtype '%s'", dts);
    if (strlen(algo) >= AUG_PROF_ALGO_LEN)
        return aug_csv_cell_error(t, row, "algo", "longer than %d characters",
                                  AUG_PROF_ALGO_LEN - 1);
    struct aug_prof_point p = aug_prof_point_make(f, op, dt);
    snprintf(p.algo, sizeof p.algo, "%s", algo);
    long v = 0;
    int rc = AUG_OK;
    rc = rc ? rc : get_count(t, row, "m", &p.m);
    rc = rc ? rc : get_count(t, row, "n", &p.n);
    rc = rc ? rc : get_count(t, row, "k", &p.k);
    rc = rc ? rc : get_count(t, row, "batch", &p.batch);
    rc = rc ? rc : get_count(t, row, "heads", &p.heads);
    rc = rc ? rc : get_count(t, row, "seq_q", &p.seq_q);
    rc = rc ? rc : get_count(t, row, "seq_kv", &p.seq_kv);
    rc = rc ? rc : get_count(t, row, "head_dim", &p.head_dim);
    rc = rc ? rc : get_count(t, row, "size_bytes", &v);
    p.size_bytes = (double)v;
    rc = rc ? rc : get_count(t, row, "ranks", &v);
    p.ranks = (int)v;
    rc = rc ? rc : get_count(t, row, "ranks_per_node", &v);
    p.ranks_per_node = (int)v;
    if (rc != AUG_OK)
        return rc;
    const char *causal = aug_csv_cell(t, row, aug_csv_col(t, "causal"));
    if (*causal) {
        if (strcmp(causal, "0") != 0 && strcmp(causal, "1") != 0)
            return aug_csv_cell_error(t, row, "causal", "'%s' is not 0 or 1", causal);
        p.causal = causal[0] - '0';
    }
    *out = p;
    return AUG_OK;
}

/* Check the measurement cells of a loaded row. */
static int check_measure(const struct aug_csv *t, size_t row) {
    double med, lo, hi;
    long reps;
    int fl = AUG_CSV_REQUIRED | AUG_CSV_POSITIVE;
    if (aug_csv_get_double(t, row, "time_us_median", fl, &med) != AUG_OK ||
        aug_csv_get_double(t, row, "time_us_min", fl, &lo) != AUG_OK ||
        aug_csv_get_double(t, row, "time_us_max", fl, &hi) != AUG_OK ||
        aug_csv_get_long(t, row, "reps", fl, &reps) != AUG_OK)
        return AUG_EDATA;
    if (!(lo <= med && med <= hi))
        return aug_csv_cell_error(t, row, "time_us_median",
                                  "median %g is not between min %g and max %g", med, lo, hi);
    enum aug_prof_timing tm;
    const char *ts = aug_csv_cell(t, row, aug_csv_col(t, "timing"));
    if (aug_prof_timing_from_name(ts, &tm) != AUG_OK)
        return aug_csv_cell_error(t, row, "timing", "'%s' is not cupti_kernel, cuda_event or wall",
                                  ts);
    return AUG_OK;
}

static int load_existing(struct aug_prof_raw *r, const char *gpu_name) {
    struct stat st;
    if (stat(r->path, &st) != 0) {
        if (errno == ENOENT)
            return AUG_OK;
        return aug_errorf(AUG_EIO, "cannot stat '%s': %s", r->path, strerror(errno));
    }
    struct aug_csv *t = NULL;
    int rc = aug_csv_load(r->path, &t);
    if (rc != AUG_OK)
        return rc;
    if (aug_csv_cols(t) != AUG_PROF_RAW_NCOLS) {
        rc = aug_errorf(AUG_EDATA, "%s: has %zu columns, the raw schema has %d; move it away or "
                        "choose another --output-dir", r->path, aug_csv_cols(t),
                        AUG_PROF_RAW_NCOLS);
        goto out;
    }
    for (int c = 0; c < AUG_PROF_RAW_NCOLS; c++)
        if (strcmp(aug_csv_header(t, (size_t)c), aug_prof_raw_columns[c]) != 0) {
            rc = aug_errorf(AUG_EDATA, "%s: column %d is '%s', the raw schema has '%s' there",
                            r->path, c + 1, aug_csv_header(t, (size_t)c), aug_prof_raw_columns[c]);
            goto out;
        }
    for (size_t i = 0; i < aug_csv_comments(t); i++) {
        const char *line = aug_csv_comment(t, i);
        while (*line == ' ')
            line++;
        if (gpu_name && strncmp(line, "gpu_name: ", 10) == 0 && strcmp(line + 10, gpu_name) != 0) {
            rc = aug_errorf(AUG_EDATA, "%s: holds measurements of '%s', not of this GPU ('%s'); "
                            "choose another --output-dir", r->path, line + 10, gpu_name);
            goto out;
        }
        /* keep what an earlier run recorded and this run does not repeat */
        const char *body = strncmp(line, "earlier run: ", 13) == 0 ? line + 13 : line;
        int same = 0;
        for (size_t j = 0; j < r->n_comments && !same; j++) {
            const char *mine = r->comments[j];
            same = strcmp(mine, line) == 0 ||
                   (strncmp(mine, "earlier run: ", 13) == 0 && strcmp(mine + 13, body) == 0);
        }
        if (same)
            continue;
        char buf[1100];
        snprintf(buf, sizeof buf, "earlier run: %s", body);
        if ((rc = push_comment(r, buf)) != AUG_OK)
            goto out;
    }
    for (size_t i = 0; i < aug_csv_rows(t); i++) {
        struct aug_prof_point p;
        char key[KEY_LEN];
        if ((rc = aug_prof_raw_parse_point(t, i, &p)) != AUG_OK ||
            (rc = check_measure(t, i)) != AUG_OK)
            goto out;
        if ((rc = aug_prof_point_key(&p, key, sizeof key)) != AUG_OK)
            goto out;
        rc = key_insert(r, key);
        if (rc == AUG_EDATA) {
            rc = aug_errorf(AUG_EDATA, "%s:%ld: duplicate measurement of the same point", r->path,
                            aug_csv_line(t, i));
            goto out;
        }
        if (rc != AUG_OK)
            goto out;
        char *cells[AUG_PROF_RAW_NCOLS];
        for (int c = 0; c < AUG_PROF_RAW_NCOLS; c++)
            cells[c] = (char *)aug_csv_cell(t, i, c);
        if ((rc = push_row(r, cells)) != AUG_OK)
            goto out;
    }
    r->n_loaded = r->n_rows;
out:
    aug_csv_free(t);
    return rc;
}

int aug_prof_raw_open(const char *path, const char *const *prov, size_t n_prov,
                      const char *gpu_name, struct aug_prof_raw **out) {
    struct aug_prof_raw *r = calloc(1, sizeof *r);
    if (!r || !(r->path = dup_str(path))) {
        free(r);
        return aug_errorf(AUG_ENOMEM, "out of memory opening '%s'", path);
    }
    int rc = AUG_OK;
    for (size_t i = 0; rc == AUG_OK && i < n_prov; i++)
        rc = push_comment(r, prov[i]);
    if (rc == AUG_OK)
        rc = load_existing(r, gpu_name);
    if (rc != AUG_OK) {
        aug_prof_raw_close(r);
        return rc;
    }
    *out = r;
    return AUG_OK;
}

void aug_prof_raw_close(struct aug_prof_raw *r) {
    if (!r)
        return;
    for (size_t i = 0; i < r->n_rows; i++)
        for (int c = 0; c < AUG_PROF_RAW_NCOLS; c++)
            free(r->rows[i].cells[c]);
    free(r->rows);
    for (size_t i = 0; i < r->n_comments; i++)
        free(r->comments[i]);
    free(r->comments);
    for (size_t i = 0; i < r->cap_keys; i++)
        free(r->keys[i]);
    free(r->keys);
    free(r->path);
    free(r);
}

int aug_prof_raw_has(const struct aug_prof_raw *r, const struct aug_prof_point *p) {
    char key[KEY_LEN];
    if (aug_prof_point_key(p, key, sizeof key) != AUG_OK)
        return 0;
    return key_has(r, key);
}

static int add_row(struct aug_prof_raw *r, const struct aug_prof_point *p,
                   const struct aug_prof_stats *s, enum aug_prof_timing timing,
                   const struct aug_prof_measure *m, const char *source);

static void fmt_count(char *buf, size_t cap, long v) {
    if (v > 0)
        snprintf(buf, cap, "%ld", v);
    else
        buf[0] = '\0';
}

int aug_prof_raw_add(struct aug_prof_raw *r, const struct aug_prof_point *p,
                     const struct aug_prof_stats *s, enum aug_prof_timing timing,
                     const char *source) {
    return add_row(r, p, s, timing, NULL, source);
}

int aug_prof_raw_add_measure(struct aug_prof_raw *r, const struct aug_prof_point *p,
                             const struct aug_prof_stats *s, const struct aug_prof_measure *m,
                             const char *source) {
    return add_row(r, p, s, m->timing, m, source);
}

static void fmt_num(char *buf, size_t cap, double v, const char *fmt) {
    if (isfinite(v))
        snprintf(buf, cap, fmt, v);
    else
        buf[0] = '\0';
}

static int add_row(struct aug_prof_raw *r, const struct aug_prof_point *p,
                   const struct aug_prof_stats *s, enum aug_prof_timing timing,
                   const struct aug_prof_measure *m, const char *source) {
    if (!(isfinite(s->median_us) && isfinite(s->min_us) && isfinite(s->max_us) &&
          s->min_us > 0 && s->min_us <= s->median_us && s->median_us <= s->max_us && s->n > 0))
        return aug_errorf(AUG_EDATA, "refusing to write inconsistent times (median %g, min %g, "
                          "max %g, %d reps)", s->median_us, s->min_us, s->max_us, s->n);
    char key[KEY_LEN];
    int rc = aug_prof_point_key(p, key, sizeof key);
    if (rc != AUG_OK)
        return rc;
    rc = key_insert(r, key);
    if (rc == AUG_EDATA)
        return aug_errorf(AUG_EDATA, "%s: the point %s is already measured", r->path, key);
    if (rc != AUG_OK)
        return rc;
    char b[AUG_PROF_RAW_NCOLS][AUG_PROF_ALGO_LEN + 64];
    snprintf(b[0], sizeof b[0], "%s", aug_family_name(p->family));
    snprintf(b[1], sizeof b[1], "%s", p->op);
    snprintf(b[2], sizeof b[2], "%s", aug_dtype_name(p->dtype));
    fmt_count(b[3], sizeof b[3], p->m);
    fmt_count(b[4], sizeof b[4], p->n);
    fmt_count(b[5], sizeof b[5], p->k);
    fmt_count(b[6], sizeof b[6], p->batch);
    fmt_count(b[7], sizeof b[7], p->heads);
    fmt_count(b[8], sizeof b[8], p->seq_q);
    fmt_count(b[9], sizeof b[9], p->seq_kv);
    fmt_count(b[10], sizeof b[10], p->head_dim);
    if (p->causal >= 0)
        snprintf(b[11], sizeof b[11], "%d", p->causal);
    else
        b[11][0] = '\0';
    fmt_count(b[12], sizeof b[12], (long)p->size_bytes);
    fmt_count(b[13], sizeof b[13], p->ranks);
    fmt_count(b[14], sizeof b[14], p->ranks_per_node);
    snprintf(b[15], sizeof b[15], "%s", p->algo);
    snprintf(b[16], sizeof b[16], "%.6g", s->median_us);
    snprintf(b[17], sizeof b[17], "%.6g", s->min_us);
    snprintf(b[18], sizeof b[18], "%.6g", s->max_us);
    snprintf(b[19], sizeof b[19], "%d", s->n);
    snprintf(b[20], sizeof b[20], "%s", aug_prof_timing_name(timing));
    snprintf(b[21], sizeof b[21], "%s", source ? source : "");
    for (int c = 22; c < AUG_PROF_RAW_NCOLS; c++)
        b[c][0] = '\0';
    if (m) {
        snprintf(b[22], sizeof b[22], "%s", m->impl);
        snprintf(b[23], sizeof b[23], "%s", m->algo);
        snprintf(b[24], sizeof b[24], "%d", m->l2_flush);
        snprintf(b[25], sizeof b[25], "%d", m->warmup_calls);
        fmt_num(b[26], sizeof b[26], m->noise, "%.4g");
        if (m->clocks.valid) {
            fmt_num(b[27], sizeof b[27], m->clocks.sm_mhz, "%.0f");
            fmt_num(b[28], sizeof b[28], m->clocks.mem_mhz, "%.0f");
            fmt_num(b[29], sizeof b[29], m->clocks.temp_c, "%.0f");
            fmt_num(b[30], sizeof b[30], m->clocks.power_w, "%.1f");
        }
    }
    char *cells[AUG_PROF_RAW_NCOLS];
    for (int c = 0; c < AUG_PROF_RAW_NCOLS; c++)
        cells[c] = b[c];
    return push_row(r, cells);
}

int aug_prof_raw_save(struct aug_prof_raw *r) {
    struct aug_csv_writer *w = NULL;
    int rc = aug_csv_writer_open(r->path, 1, &w);
    if (rc != AUG_OK)
        return rc;
    for (size_t i = 0; i < r->n_comments; i++)
        aug_csv_write_comment(w, "%s", r->comments[i]);
    for (int c = 0; c < AUG_PROF_RAW_NCOLS; c++)
        aug_csv_write_str(w, aug_prof_raw_columns[c]);
    aug_csv_end_row(w);
    for (size_t i = 0; i < r->n_rows; i++) {
        for (int c = 0; c < AUG_PROF_RAW_NCOLS; c++)
            aug_csv_write_str(w, r->rows[i].cells[c]);
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w);
}

size_t aug_prof_raw_rows(const struct aug_prof_raw *r) {
    return r->n_rows;
}

size_t aug_prof_raw_loaded(const struct aug_prof_raw *r) {
    return r->n_loaded;
}
