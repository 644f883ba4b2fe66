/* SPDX-License-Identifier: Apache-2.0 */
/* import_nccl_tests.c - NVIDIA nccl-tests output as users have it: the text that
 * all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, sendrecv_perf and
 * broadcast_perf print (pasted whole, with NCCL_DEBUG chatter, inside markdown fences,
 * or tagged by mpirun), the JSON file that nccl-tests writes with -J, and the
 * comma-separated tables derived from the text (vTrain's trace/<gpu>/AR_GPU<n>_1M_1024M_LUT).
 *
 * Text (nccl-tests 2.0 to 2.17, src/common.cu and src/util.cu): '#' header lines (the
 * options line "nThread 1 nGpus 8 ... iters: 20", one "Rank r Group g Pid p on HOST device d
 * [bus] NAME" line per rank (2.0-2.10 lack "Group"), "Collective test starting: X_perf"
 * from 2.13 on), a column-name line (size count type redop root time algbw busbw #wrong
 * time algbw busbw #wrong; before 2.10 without root; "cputime" for -C 1; per-iteration
 * columns with -R; "timestamp" with -S), a units line ((B) (elements) (us) (GB/s) ...),
 * data rows, '#' footer. Columns that do not apply print blank (alltoall_perf has no
 * redop, sendrecv no root in some versions): a row with fewer fields than the header is
 * mapped by where each field ends, under its right-aligned column name. The
 * first time is out-of-place, the second in-place; a sample's median is their mean, min
 * and max the two (reps 2). Rows of size 0 carry no timing and are skipped, and so is every
 * line that is not a table row (NCCL INFO/WARN, mpirun and shell output, fences). Several
 * runs pasted one after another are read in turn: an options line starts a new run.
 * Group size: the Rank lines, else nThread x nGpus, else --ranks. Ranks per node: ranks
 * over distinct hosts, else --ranks-per-node, else all on one node. Collective: the
 * "starting" line, else a pasted command line naming the *_perf binary, else --coll,
 * else the file name. GPU: the device name of the Rank lines
 * (every rank must show the same one), kept in the sample set for `augur calibrate`.
 *
 * JSON (-J FILE, nccl-tests 2.15+, JSON_FILE_VERSION 1 or 2): "config" with nthreads,
 * ngpus and "devices" (one object per process: hostname, device_info), "results" rows
 * with size, type, out_of_place / in_place objects holding "time" (or "cpu_time") in us;
 * the collective from args[0] (the *_perf binary), else experiment_name, the file name,
 * --coll. Group size: devices x nthreads x ngpus.
 *
 * CSV tables: header "size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)"
 * (units checked), the group size from "GPU<n>" in the file name or --ranks, all-reduce
 * from an "AR_" file name or --coll, one node. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "augur/collective.h"
#include "augur/status.h"
#include "augur/units.h"
#include "importer.h"

#define MAX_LINE 4096
#define MAX_TOK 64
#define MAX_HOSTS 1024

struct nt_state {
    const char *name;
    const struct aug_import_opts *o;
    struct aug_samples *out;
    int fidx, src;
    int coll;                /* enum aug_coll, -1 unknown */
    int n_threads, n_gpus;   /* options line */
    int n_rank_lines;
    int json_procs;          /* JSON: entries of config.devices */
    char *hosts[MAX_HOSTS];
    int n_hosts;
    /* column layout */
    int have_cols;
    int n_cols;
    int c_size, c_type, c_time[2];
    int col_end[MAX_TOK];    /* text: offset just past each column name, '#' at 0 */
    int timestamp;           /* header ends in "timestamp": rows end in a date and a time */
    double time_scale;       /* to microseconds */
    long skipped;            /* lines that are not part of the table */
};

/* Split s in place at whitespace (or `sep` when not 0). */
static int tokenize(char *s, char sep, char **tok, int max)
{
    int n = 0;
    char *p = s;
    while (*p && n < max) {
        if (sep) {
            tok[n++] = p;
            char *e = strchr(p, sep);
            if (!e)
                break;
            *e = '\0';
            p = e + 1;
        } else {
            while (*p && isspace((unsigned char)*p))
                p++;
            if (!*p)
                break;
            tok[n++] = p;
            while (*p && !isspace((unsigned char)*p))
                p++;
            if (*p)
                *p++ = '\0';
        }
    }
    return n;
}

static void trim(char *s)
{
    size_t l = strlen(s);
    while (l > 0 && isspace((unsigned char)s[l - 1]))
        s[--l] = '\0';
}

static int coll_from_text(const char *text)
{
    static const struct {
        const char *key;
        enum aug_coll c;
    } keys[] = {{"all_reduce", AUG_COLL_ALL_REDUCE},   {"allreduce", AUG_COLL_ALL_REDUCE},
                {"all_gather", AUG_COLL_ALL_GATHER},   {"allgather", AUG_COLL_ALL_GATHER},
                {"reduce_scatter", AUG_COLL_REDUCE_SCATTER},
                {"reducescatter", AUG_COLL_REDUCE_SCATTER},
                {"alltoall", AUG_COLL_ALL_TO_ALL},     {"all_to_all", AUG_COLL_ALL_TO_ALL},
                {"sendrecv", AUG_COLL_SEND_RECV},      {"send_recv", AUG_COLL_SEND_RECV},
                {"broadcast", AUG_COLL_BROADCAST}};
    char low[256];
    size_t i = 0;
    for (; text[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)text[i]);
    low[i] = '\0';
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strstr(low, keys[k].key))
            return (int)keys[k].c;
    return -1;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static int dtype_from_nccl(const char *t, enum aug_dtype *out)
{
    static const struct {
        const char *name;
        enum aug_dtype d;
    } map[] = {{"float", AUG_DTYPE_FP32}, {"float32", AUG_DTYPE_FP32},
               {"half", AUG_DTYPE_FP16},  {"float16", AUG_DTYPE_FP16},
               {"bfloat16", AUG_DTYPE_BF16}, {"int8", AUG_DTYPE_INT8},
               {"uint8", AUG_DTYPE_INT8}, {"fp8_e4m3", AUG_DTYPE_FP8},
               {"f8e4m3", AUG_DTYPE_FP8}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(t, map[i].name) == 0) {
            *out = map[i].d;
            return AUG_OK;
        }
    return AUG_ENOTFOUND;
}

static int time_unit_scale(const char *u, double *scale)
{
    if (strcmp(u, "us") == 0)
        *scale = 1.0;
    else if (strcmp(u, "ns") == 0)
        *scale = 1e-3;
    else if (strcmp(u, "ms") == 0)
        *scale = 1e3;
    else if (strcmp(u, "s") == 0)
        *scale = 1e6;
    else
        return AUG_EDATA;
    return AUG_OK;
}

static void free_hosts(struct nt_state *st)
{
    for (int i = 0; i < st->n_hosts; i++)
        free(st->hosts[i]);
    st->n_hosts = 0;
}

static int note_host(struct nt_state *st, const char *h)
{
    for (int i = 0; i < st->n_hosts; i++)
        if (strcmp(st->hosts[i], h) == 0)
            return AUG_OK;
    if (st->n_hosts == MAX_HOSTS)
        return AUG_OK;
    size_t l = strlen(h);
    st->hosts[st->n_hosts] = malloc(l + 1);
    if (!st->hosts[st->n_hosts])
        return aug_errorf(AUG_ENOMEM, "out of memory");
    memcpy(st->hosts[st->n_hosts++], h, l + 1);
    return AUG_OK;
}

/* The GPU a Rank line (or a JSON device_info) names: every rank of every file must agree. */
static int note_device(struct nt_state *st, long line, const char *dev)
{
    while (isspace((unsigned char)*dev))
        dev++;
    char d[sizeof st->out->device];
    snprintf(d, sizeof d, "%s", dev);
    trim(d);
    if (!d[0])
        return AUG_OK;
    if (!st->out->device[0]) {
        memcpy(st->out->device, d, sizeof d);
        return AUG_OK;
    }
    if (strcmp(st->out->device, d) != 0) {
        char where[64] = ": config.devices";
        if (line > 0)
            snprintf(where, sizeof where, ":%ld", line);
        return aug_errorf(AUG_EDATA, "%s%s: rank on a '%s' where earlier ranks ran on a '%s': "
                          "one kernels-db folder holds one GPU model", st->name, where, d,
                          st->out->device);
    }
    return AUG_OK;
}

/* Group size and placement, once the headers are read. */
static int resolve_group(struct nt_state *st, long line, int *ranks, int *rpn)
{
    int per_proc = (st->n_gpus > 0 ? st->n_gpus : 1) * (st->n_threads > 0 ? st->n_threads : 1);
    if (st->json_procs > 0)
        *ranks = st->json_procs * per_proc;
    else if (st->n_rank_lines > 0)
        *ranks = st->n_rank_lines;
    else if (st->o && st->o->ranks > 0)
        *ranks = st->o->ranks;
    else if (st->n_gpus > 0)
        *ranks = per_proc;
    else
        return aug_errorf(AUG_EDATA, "%s:%ld: cannot tell the group size (no Rank lines, no "
                          "nGpus): pass --ranks", st->name, line);
    if (st->n_hosts > 0 && *ranks % st->n_hosts == 0)
        *rpn = *ranks / st->n_hosts;
    else if (st->o && st->o->ranks_per_node > 0)
        *rpn = st->o->ranks_per_node;
    else
        *rpn = *ranks;
    if (*rpn > *ranks)
        *rpn = *ranks;
    if (st->coll < 0 && st->o && st->o->coll) {
        enum aug_coll c;
        if (aug_coll_from_name(st->o->coll, &c) != AUG_OK)
            return aug_errorf(AUG_EUSAGE, "unknown collective '%s'", st->o->coll);
        st->coll = (int)c;
    }
    if (st->coll < 0)
        st->coll = coll_from_text(base_name(st->name));
    if (st->coll < 0)
        return aug_errorf(AUG_EDATA, "%s:%ld: cannot tell which collective was measured (no "
                          "'Collective test starting' line, no name in the file name): pass "
                          "--coll", st->name, line);
    return AUG_OK;
}

static int add_row(struct nt_state *st, long line, double size, const char *type, double t0,
                   double t1, int have_t0, int have_t1)
{
    int ranks = 0, rpn = 0, rc;
    if ((rc = resolve_group(st, line, &ranks, &rpn)) != AUG_OK)
        return rc;
    struct aug_sample x = aug_sample_blank();
    x.family = AUG_FAMILY_COLLECTIVE;
    snprintf(x.op, sizeof x.op, "%s", aug_coll_name((enum aug_coll)st->coll));
    if (dtype_from_nccl(type, &x.dtype) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'type': unknown data type '%s'", st->name,
                          line, type);
    x.size_bytes = size;
    x.ranks = ranks;
    x.ranks_per_node = rpn;
    if ((have_t0 && !(t0 > 0)) || (have_t1 && !(t1 > 0)))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'time': %g is not a positive time",
                          st->name, line, have_t0 && !(t0 > 0) ? t0 : t1);
    if (have_t0 && have_t1) {
        x.time_us = 0.5 * (t0 + t1);
        x.time_us_min = t0 < t1 ? t0 : t1;
        x.time_us_max = t0 < t1 ? t1 : t0;
        x.reps = 2;
    } else {
        x.time_us = have_t0 ? t0 : t1;
        x.reps = 1;
    }
    snprintf(x.timing, sizeof x.timing, "wall");
    x.file = st->fidx;
    x.line = line;
    x.source = st->src;
    return aug_samples_add(st->out, &x);
}

static int num(struct nt_state *st, long line, const char *col, const char *s, double *v)
{
    if (aug_parse_double(s, col, v) != AUG_OK)
        return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': '%s' is not a number", st->name,
                          line, col, s);
    return AUG_OK;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* A new run (options line): forget the previous run's ranks and columns. */
static void new_run(struct nt_state *st)
{
    st->n_rank_lines = 0;
    st->n_threads = st->n_gpus = 0;
    free_hosts(st);
    st->have_cols = 0;
}

/* ---- text output ---- */

static int rank_line(struct nt_state *st, const char *text, char **tok, int n, long line)
{
    st->n_rank_lines++;
    int rc = AUG_OK;
    for (int i = 0; i + 1 < n && rc == AUG_OK; i++)
        if (strcmp(tok[i], "on") == 0) {
            rc = note_host(st, tok[i + 1]);
            break;
        }
    /* "... device  0 [0x07] NVIDIA A100-SXM4-80GB" or "[0000:07:00]": the name follows ']' */
    const char *dev = strstr(text, " device ");
    const char *br = dev ? strchr(dev, ']') : NULL;
    if (rc == AUG_OK && br)
        rc = note_device(st, line, br + 1);
    return rc;
}

static int header_line(struct nt_state *st, char *text, int indent, long line)
{
    char copy[MAX_LINE];
    snprintf(copy, sizeof copy, "%s", text);
    char *tok[MAX_TOK];
    int n = tokenize(copy, 0, tok, MAX_TOK);
    const char *starting = strstr(text, "Collective test starting:");
    if (starting) {
        int c = coll_from_text(starting);
        if (c >= 0)
            st->coll = c;
        return AUG_OK;
    }
    if (n >= 2 && strcmp(tok[0], "nThread") == 0) {
        new_run(st);
        for (int i = 0; i + 1 < n; i++) {
            if (strcmp(tok[i], "nThread") == 0)
                st->n_threads = atoi(tok[i + 1]);
            else if (strcmp(tok[i], "nGpus") == 0)
                st->n_gpus = atoi(tok[i + 1]);
        }
        char prov[MAX_LINE + 32];
        snprintf(prov, sizeof prov, "nccl-tests: %s", text);
        return aug_samples_prov(st->out, prov);
    }
    if (n >= 2 && strcmp(tok[0], "nccl-tests") == 0 && strcmp(tok[1], "version") == 0) {
        char prov[MAX_LINE + 32];
        snprintf(prov, sizeof prov, "nccl-tests: %s", text);
        return aug_samples_prov(st->out, prov);
    }
    if (n >= 6 && strcmp(tok[0], "Rank") == 0)
        return rank_line(st, text, tok, n, line);
    if (n >= 3 && strcmp(tok[0], "size") == 0) { /* column names */
        st->n_cols = n;
        st->c_size = 0;
        st->c_type = -1;
        st->c_time[0] = st->c_time[1] = -1;
        for (int i = 0; i < n; i++)
            st->col_end[i] = indent + 1 + (int)(tok[i] - copy) + (int)strlen(tok[i]);
        st->timestamp = strcmp(tok[n - 1], "timestamp") == 0;
        int nt = 0;
        for (int i = 0; i < n; i++) {
            if (strcmp(tok[i], "type") == 0)
                st->c_type = i;
            else if ((strcmp(tok[i], "time") == 0 || strcmp(tok[i], "cputime") == 0) && nt < 2)
                st->c_time[nt++] = i;
        }
        if (st->c_type < 0 || st->c_time[0] < 0)
            return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': missing from the header",
                              st->name, line, st->c_type < 0 ? "type" : "time");
        if (st->c_type != 2)
            return aug_errorf(AUG_EDATA, "%s:%ld: column 'type' is column %d, expected 3 "
                              "(size count type ...)", st->name, line, st->c_type + 1);
        st->have_cols = 1;
        st->time_scale = 1.0;
        return AUG_OK;
    }
    if (st->have_cols && n >= 1 && tok[0][0] == '(') { /* units */
        /* units belong, in order, to size, count, then (time, algbw, busbw) per pass;
         * -R adds (us) (us) (us) (%) after each pass: only the first three of a pass count */
        int ui = 0;
        for (int i = 0; i < n && ui < 8; i++) {
            char u[32];
            size_t l = strlen(tok[i]);
            if (l < 2 || tok[i][0] != '(' || tok[i][l - 1] != ')' || l - 2 >= sizeof u) {
                if (st->timestamp)
                    break; /* the timestamp column's format, e.g. %Y-%m-%d */
                return aug_errorf(AUG_EDATA, "%s:%ld: unit '%s' is not in parentheses",
                                  st->name, line, tok[i]);
            }
            memcpy(u, tok[i] + 1, l - 2);
            u[l - 2] = '\0';
            if (ui == 0 && strcmp(u, "B") != 0)
                return aug_errorf(AUG_EDATA, "%s:%ld: column 'size': unknown unit '(%s)' "
                                  "(expected (B))", st->name, line, u);
            if (ui >= 2 && ui < 5 && (ui - 2) % 3 == 0) {
                double sc;
                if (time_unit_scale(u, &sc) != AUG_OK)
                    return aug_errorf(AUG_EDATA, "%s:%ld: column 'time': unknown unit '(%s)'",
                                      st->name, line, u);
                st->time_scale = sc;
            }
            if (ui >= 2 && ui < 5 && (ui - 2) % 3 != 0 && strcmp(u, "GB/s") != 0)
                return aug_errorf(AUG_EDATA, "%s:%ld: column 'busbw': unknown unit '(%s)'",
                                  st->name, line, u);
            ui++;
        }
    }
    return AUG_OK;
}

/* Is this line a table row? Two non-negative integers (size, count) and a data type name.
 * Anything else outside '#' lines (NCCL INFO/WARN, mpirun, shell prompts) is not. */
static int is_row(char **tok, int n)
{
    return n >= 4 && all_digits(tok[0]) && all_digits(tok[1]) &&
           isalpha((unsigned char)tok[2][0]);
}

/* Map the fields of a row with blank columns (alltoall's redop, sendrecv's root) to the
 * header's: nccl-tests prints every field right-aligned under its column name, so a
 * field ends where its name ends. col[i] receives the field of column i, NULL if blank. */
static int map_blank_columns(const struct nt_state *st, const char *row, char **tok, int n,
                             char **col)
{
    for (int i = 0; i < st->n_cols; i++)
        col[i] = NULL;
    int c = 0;
    for (int t = 0; t < n; t++) {
        int end = (int)(tok[t] - row) + (int)strlen(tok[t]);
        while (c < st->n_cols && st->col_end[c] < end)
            c++;
        if (c == st->n_cols || st->col_end[c] != end)
            return AUG_EDATA;
        col[c++] = tok[t];
    }
    /* only the columns between type and the first time (redop, root) may be blank */
    for (int i = 0; i < st->n_cols - st->timestamp; i++)
        if (!col[i] && (i <= st->c_type || i >= st->c_time[0]))
            return AUG_EDATA;
    return AUG_OK;
}

static int data_line(struct nt_state *st, char *text, const char *line0, long line)
{
    char *tok[MAX_TOK], *col[MAX_TOK];
    int n = tokenize(text, 0, tok, MAX_TOK);
    if (!is_row(tok, n)) {
        st->skipped++;
        return AUG_OK;
    }
    if (!st->have_cols)
        return aug_errorf(AUG_EDATA, "%s:%ld: data before the '# size count type ...' column "
                          "header", st->name, line);
    if (st->timestamp && n >= 2)
        n -= 2; /* "2025-01-31 12:00:00" under the one column name "timestamp" */
    int n_cols = st->n_cols - st->timestamp;
    if (n == n_cols) {
        for (int i = 0; i < n; i++)
            col[i] = tok[i];
    } else if (n > n_cols || map_blank_columns(st, line0, tok, n, col) != AUG_OK) {
        return aug_errorf(AUG_EDATA, "%s:%ld: %d fields where the header has %d (truncated "
                          "line?)", st->name, line, n, n_cols);
    }
    double size, t0 = 0, t1 = 0;
    int rc;
    if ((rc = num(st, line, "size", col[st->c_size], &size)))
        return rc;
    if (size == 0)
        return AUG_OK; /* nothing moved, nothing timed */
    if ((rc = num(st, line, "time", col[st->c_time[0]], &t0)))
        return rc;
    int have_t1 = st->c_time[1] >= 0;
    if (have_t1 && (rc = num(st, line, "time", col[st->c_time[1]], &t1)))
        return rc;
    return add_row(st, line, size, col[st->c_type], t0 * st->time_scale, t1 * st->time_scale,
                   1, have_t1);
}

/* ---- CSV tables (vTrain LUT) ---- */

static int lut_header(struct nt_state *st, char *text)
{
    char *tok[MAX_TOK];
    int n = tokenize(text, ',', tok, MAX_TOK);
    if (n < 4)
        return aug_errorf(AUG_EDATA, "%s:1: header has %d columns, expected size(B), count, "
                          "type, time(..)", st->name, n);
    st->c_size = 0;
    st->c_type = -1;
    st->c_time[0] = st->c_time[1] = -1;
    int nt = 0;
    for (int i = 0; i < n; i++) {
        trim(tok[i]);
        char *open = strchr(tok[i], '(');
        char unit[32] = "";
        if (open) {
            char *close = strchr(open, ')');
            if (!close || close - open - 1 >= (long)sizeof unit)
                return aug_errorf(AUG_EDATA, "%s:1: column '%s': bad unit", st->name, tok[i]);
            memcpy(unit, open + 1, (size_t)(close - open - 1));
            unit[close - open - 1] = '\0';
            *open = '\0';
        }
        if (strcmp(tok[i], "size") == 0) {
            if (i != 0 || strcmp(unit, "B") != 0)
                return aug_errorf(AUG_EDATA, "%s:1: column 'size': unknown unit '(%s)' "
                                  "(expected (B) first)", st->name, unit);
        } else if (strcmp(tok[i], "type") == 0) {
            st->c_type = i;
        } else if (strcmp(tok[i], "time") == 0) {
            double sc;
            if (time_unit_scale(unit, &sc) != AUG_OK)
                return aug_errorf(AUG_EDATA, "%s:1: column 'time': unknown unit '(%s)'",
                                  st->name, unit);
            st->time_scale = sc;
            if (nt < 2)
                st->c_time[nt++] = i;
        } else if (strcmp(tok[i], "busbw") == 0 || strcmp(tok[i], "algbw") == 0) {
            if (strcmp(unit, "GB/s") != 0)
                return aug_errorf(AUG_EDATA, "%s:1: column '%s': unknown unit '(%s)'",
                                  st->name, tok[i], unit);
        }
    }
    if (st->c_type < 0 || st->c_time[0] < 0)
        return aug_errorf(AUG_EDATA, "%s:1: column '%s': missing", st->name,
                          st->c_type < 0 ? "type" : "time");
    st->n_cols = n;
    st->have_cols = 1;
    /* group size and collective from the file name (AR_GPU8_...) unless given */
    const char *b = base_name(st->name);
    const char *g = strstr(b, "GPU");
    if (g && isdigit((unsigned char)g[3]) && !(st->o && st->o->ranks > 0))
        st->n_rank_lines = atoi(g + 3);
    if (strncmp(b, "AR_", 3) == 0 && !(st->o && st->o->coll))
        st->coll = AUG_COLL_ALL_REDUCE;
    return AUG_OK;
}

static int lut_line(struct nt_state *st, char *text, long line)
{
    char *tok[MAX_TOK];
    int n = tokenize(text, ',', tok, MAX_TOK);
    if (n != st->n_cols)
        return aug_errorf(AUG_EDATA, "%s:%ld: %d fields where the header has %d (truncated "
                          "line?)", st->name, line, n, st->n_cols);
    for (int i = 0; i < n; i++)
        trim(tok[i]);
    double size, t0, t1 = 0;
    int rc;
    if ((rc = num(st, line, "size(B)", tok[st->c_size], &size)))
        return rc;
    if (size == 0)
        return AUG_OK;
    if ((rc = num(st, line, "time", tok[st->c_time[0]], &t0)))
        return rc;
    int have_t1 = st->c_time[1] >= 0;
    if (have_t1 && (rc = num(st, line, "time", tok[st->c_time[1]], &t1)))
        return rc;
    if (!(size > 0))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'size(B)': %g is not a positive size",
                          st->name, line, size);
    return add_row(st, line, size, tok[st->c_type], t0 * st->time_scale, t1 * st->time_scale,
                   1, have_t1);
}

/* ---- JSON (-J) ---- */

/* One pass's time in us: {"time": 12.3, ...}, "cpu_time" with -C 1; null when the pass
 * did not run (trace replay prints only in-place). "nan" (a string) is an error. */
static int json_pass(struct nt_state *st, size_t row, json_t *res, const char *key, double *t,
                     int *have)
{
    *have = 0;
    json_t *p = json_object_get(res, key);
    if (!p || json_is_null(p))
        return AUG_OK;
    if (!json_is_object(p))
        return aug_errorf(AUG_EDATA, "%s: results[%zu].%s: not an object", st->name, row, key);
    json_t *v = json_object_get(p, "time");
    if (!v)
        v = json_object_get(p, "cpu_time");
    if (!v || !json_is_number(v))
        return aug_errorf(AUG_EDATA, "%s: results[%zu].%s.time: %s", st->name, row, key,
                          v ? "not a number" : "missing");
    *t = json_number_value(v);
    *have = 1;
    return AUG_OK;
}

static int import_json(struct nt_state *st, const char *buf, size_t len)
{
    json_error_t err;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return aug_errorf(AUG_EDATA, "%s:%d:%d: malformed JSON: %s", st->name, err.line,
                          err.column, err.text);
    int rc = AUG_OK;
    json_t *cfg = json_object_get(root, "config");
    json_t *results = json_object_get(root, "results");
    if (!json_is_object(root) || !json_is_object(cfg) || !json_is_array(results)) {
        rc = aug_errorf(AUG_EDATA, "%s: not nccl-tests -J output (needs a \"config\" object and "
                        "a \"results\" array)", st->name);
        goto out;
    }
    json_t *v;
    if ((v = json_object_get(cfg, "nthreads")) && json_is_integer(v))
        st->n_threads = (int)json_integer_value(v);
    if ((v = json_object_get(cfg, "ngpus")) && json_is_integer(v))
        st->n_gpus = (int)json_integer_value(v);
    json_t *devs = json_object_get(cfg, "devices");
    if (json_is_array(devs)) {
        size_t i;
        json_t *d;
        json_array_foreach(devs, i, d) {
            json_t *h = json_object_get(d, "hostname"), *di = json_object_get(d, "device_info");
            if (json_is_string(h) && (rc = note_host(st, json_string_value(h))) != AUG_OK)
                goto out;
            if (json_is_string(di) && (rc = note_device(st, 0, json_string_value(di))) != AUG_OK)
                goto out;
        }
        st->json_procs = (int)json_array_size(devs);
    }
    json_t *args = json_object_get(root, "args");
    if (json_is_array(args) && json_is_string(json_array_get(args, 0)))
        st->coll = coll_from_text(base_name(json_string_value(json_array_get(args, 0))));
    char prov[256];
    json_t *ver = json_object_get(root, "nccl_version");
    snprintf(prov, sizeof prov, "nccl-tests: JSON version %lld, NCCL %lld, nThread %d nGpus %d",
             (long long)json_integer_value(json_object_get(root, "version")),
             (long long)json_integer_value(ver), st->n_threads, st->n_gpus);
    if ((rc = aug_samples_prov(st->out, prov)) != AUG_OK)
        goto out;
    size_t i;
    json_t *res;
    json_array_foreach(results, i, res) {
        json_t *sz = json_object_get(res, "size"), *ty = json_object_get(res, "type");
        if (!json_is_object(res) || !json_is_integer(sz) || json_integer_value(sz) < 0 ||
            !json_is_string(ty)) {
            rc = aug_errorf(AUG_EDATA, "%s: results[%zu]: needs a non-negative integer \"size\" "
                            "and a string \"type\"", st->name, i);
            goto out;
        }
        if (json_integer_value(sz) == 0)
            continue;
        if (st->coll < 0) {
            json_t *en = json_object_get(res, "experiment_name");
            if (json_is_string(en))
                st->coll = coll_from_text(json_string_value(en));
        }
        double t0 = 0, t1 = 0;
        int h0, h1;
        if ((rc = json_pass(st, i, res, "out_of_place", &t0, &h0)) != AUG_OK ||
            (rc = json_pass(st, i, res, "in_place", &t1, &h1)) != AUG_OK)
            goto out;
        if (!h0 && !h1) {
            rc = aug_errorf(AUG_EDATA, "%s: results[%zu]: neither an out_of_place nor an "
                            "in_place time", st->name, i);
            goto out;
        }
        /* the line number of a JSON row is its index + 1 */
        if ((rc = add_row(st, (long)i + 1, (double)json_integer_value(sz), json_string_value(ty),
                          t0, t1, h0, h1)) != AUG_OK)
            goto out;
    }
out:
    json_decref(root);
    return rc;
}

/* Strip what wraps a pasted log line: mpirun --tag-output's "[1,0]<stdout>:" and a
 * markdown quote's "> ". Returns the start of the nccl-tests text, leading blanks kept
 * (they position the columns). */
static char *unwrap(char *s)
{
    char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '>' || *p == '[')
        s = p;
    if (*s == '[') {
        char *e = strstr(s, ">:");
        if (e && e - s >= 8 &&
            (strncmp(e - 7, "<stdout", 7) == 0 || strncmp(e - 7, "<stderr", 7) == 0))
            s = e + 2;
    }
    if (s[0] == '>' && (s[1] == ' ' || s[1] == '\0'))
        s += s[1] ? 2 : 1;
    return s;
}

int aug_import_nccl_tests(const char *name, const char *buf, size_t len,
                          const struct aug_import_opts *o, struct aug_samples *out)
{
    struct nt_state st;
    memset(&st, 0, sizeof st);
    st.name = name;
    st.o = o;
    st.out = out;
    st.coll = -1;
    st.time_scale = 1.0;
    st.fidx = aug_samples_file(out, name);
    char sbuf[512];
    st.src = aug_samples_source(out, aug_import_source(o, name, NULL, sbuf, sizeof sbuf));
    if (st.fidx < 0 || st.src < 0)
        return st.fidx < 0 ? st.fidx : st.src;
    char prov[600];
    snprintf(prov, sizeof prov, "import: nccl-tests %.500s (wall time per launch)", name);
    int rc = aug_samples_prov(out, prov);
    size_t before = out->n;
    size_t first = 0;
    while (first < len && isspace((unsigned char)buf[first]))
        first++;
    if (rc == AUG_OK && first < len && buf[first] == '{') {
        rc = import_json(&st, buf, len);
        if (rc == AUG_OK && out->n == before)
            rc = aug_errorf(AUG_EDATA, "%s: no measurements found (every result has size 0?)",
                            name);
        free_hosts(&st);
        return rc;
    }
    size_t pos = 0;
    long line = 0;
    int is_lut = -1;
    while (rc == AUG_OK && pos < len) {
        size_t end = pos;
        while (end < len && buf[end] != '\n')
            end++;
        line++;
        size_t l = end - pos;
        if (l >= MAX_LINE) {
            rc = aug_errorf(AUG_EDATA, "%s:%ld: line longer than %d characters", name, line,
                            MAX_LINE - 1);
            break;
        }
        char text[MAX_LINE];
        memcpy(text, buf + pos, l);
        text[l] = '\0';
        pos = end + 1;
        if (memchr(text, '\0', l)) {
            rc = aug_errorf(AUG_EDATA, "%s:%ld: NUL byte in text", name, line);
            break;
        }
        trim(text);
        char *line0 = unwrap(text);
        char *s = line0;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || strncmp(s, "```", 3) == 0 || strncmp(s, "~~~", 3) == 0)
            continue;
        if (is_lut < 0) {
            is_lut = strncmp(s, "size(", 5) == 0 && strchr(s, ',') != NULL;
            if (is_lut) {
                rc = lut_header(&st, s);
                continue;
            }
        }
        /* the command line pasted with the log names the *_perf binary */
        const char *perf = st.coll < 0 && !is_lut ? strstr(s, "_perf") : NULL;
        if (perf) {
            const char *w = perf;
            while (w > s && !isspace((unsigned char)w[-1]) && w[-1] != '/')
                w--;
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)(perf - w), w);
            st.coll = coll_from_text(word);
        }
        if (is_lut)
            rc = lut_line(&st, s, line);
        else if (*s == '#')
            rc = header_line(&st, s + 1, (int)(s - line0), line);
        else
            rc = data_line(&st, line0, line0, line);
    }
    if (rc == AUG_OK && out->n == before)
        rc = aug_errorf(AUG_EDATA, "%s:%ld: no measurements found (not nccl-tests output?)",
                        name, line);
    free_hosts(&st);
    return rc;
}
