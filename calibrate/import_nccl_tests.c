/* import_nccl_tests.c - NVIDIA nccl-tests output: the text that all_reduce_perf,
 * all_gather_perf, reduce_scatter_perf, alltoall_perf and sendrecv_perf print, and the
 * comma-separated tables derived from it (vTrain's trace/<gpu>/AR_GPU<n>_1M_1024M_LUT).
 *
 * Text: '#' header lines (the options line "nThread 1 nGpus 8 ... iters: 20", one
 * "Rank r Group g Pid p on HOST device d ..." line per rank, "Collective test starting:
 * X_perf" in recent versions), a column-name line (size count type redop root time algbw
 * busbw #wrong time algbw busbw #wrong; older versions lack root), a units line ((B)
 * (elements) (us) (GB/s) ...), data rows, '#' footer. The first "time" is out-of-place,
 * the second in-place; a sample's median is their mean, min and max the two (reps 2).
 * Group size: the Rank lines, else nThread x nGpus, else --ranks. Ranks per node: ranks
 * over distinct hosts, else --ranks-per-node, else all on one node. Collective: the
 * "starting" line, else the file name, else --coll.
 * CSV tables: header "size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)"
 * (units checked), the group size from "GPU<n>" in the file name or --ranks, all-reduce
 * from an "AR_" file name or --coll, one node. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    long iters;
    int n_rank_lines;
    char *hosts[MAX_HOSTS];
    int n_hosts;
    /* column layout */
    int have_cols;
    int n_cols;
    int c_size, c_type, c_time[2];
    double time_scale;       /* to microseconds */
    /* data rows are buffered until the group size is known (Rank lines come first, but
     * be safe with the options line) */
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
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strstr(text, keys[i].key))
            return (int)keys[i].c;
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

/* Group size and placement, once the headers are read. */
static int resolve_group(struct nt_state *st, long line, int *ranks, int *rpn)
{
    if (st->n_rank_lines > 0)
        *ranks = st->n_rank_lines;
    else if (st->o && st->o->ranks > 0)
        *ranks = st->o->ranks;
    else if (st->n_gpus > 0)
        *ranks = st->n_gpus * (st->n_threads > 0 ? st->n_threads : 1);
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
                   double t1, int have_t1)
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
    if (!(t0 > 0) || (have_t1 && !(t1 > 0)))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'time': %g is not a positive time",
                          st->name, line, !(t0 > 0) ? t0 : t1);
    if (have_t1) {
        x.time_us = 0.5 * (t0 + t1);
        x.time_us_min = t0 < t1 ? t0 : t1;
        x.time_us_max = t0 < t1 ? t1 : t0;
        x.reps = 2;
    } else {
        x.time_us = t0;
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

/* ---- text output ---- */

static int header_line(struct nt_state *st, char *text, long line)
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
        for (int i = 0; i + 1 < n; i++) {
            if (strcmp(tok[i], "nThread") == 0)
                st->n_threads = atoi(tok[i + 1]);
            else if (strcmp(tok[i], "nGpus") == 0)
                st->n_gpus = atoi(tok[i + 1]);
            else if (strcmp(tok[i], "iters:") == 0 && i > 0 && strcmp(tok[i - 1], "agg") != 0)
                st->iters = atol(tok[i + 1]);
        }
        char prov[MAX_LINE + 32];
        snprintf(prov, sizeof prov, "nccl-tests: %s", text);
        return aug_samples_prov(st->out, prov);
    }
    if (n >= 6 && strcmp(tok[0], "Rank") == 0) {
        st->n_rank_lines++;
        for (int i = 0; i + 1 < n; i++)
            if (strcmp(tok[i], "on") == 0)
                return note_host(st, tok[i + 1]);
        return AUG_OK;
    }
    if (n >= 3 && strcmp(tok[0], "size") == 0) { /* column names */
        st->n_cols = n;
        st->c_size = 0;
        st->c_type = -1;
        st->c_time[0] = st->c_time[1] = -1;
        int nt = 0;
        for (int i = 0; i < n; i++) {
            if (strcmp(tok[i], "type") == 0)
                st->c_type = i;
            else if (strcmp(tok[i], "time") == 0 && nt < 2)
                st->c_time[nt++] = i;
        }
        if (st->c_type < 0 || st->c_time[0] < 0)
            return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': missing from the header",
                              st->name, line, st->c_type < 0 ? "type" : "time");
        st->have_cols = 1;
        st->time_scale = 1.0;
        return AUG_OK;
    }
    if (st->have_cols && n >= 1 && tok[0][0] == '(') { /* units */
        /* units belong, in order, to size, count, then (time, algbw, busbw) per pass */
        int ui = 0;
        for (int i = 0; i < n; i++) {
            char u[32];
            size_t l = strlen(tok[i]);
            if (l < 2 || tok[i][0] != '(' || tok[i][l - 1] != ')' || l - 2 >= sizeof u)
                return aug_errorf(AUG_EDATA, "%s:%ld: unit '%s' is not in parentheses",
                                  st->name, line, tok[i]);
            memcpy(u, tok[i] + 1, l - 2);
            u[l - 2] = '\0';
            if (ui == 0 && strcmp(u, "B") != 0)
                return aug_errorf(AUG_EDATA, "%s:%ld: column 'size': unknown unit '(%s)' "
                                  "(expected (B))", st->name, line, u);
            if (ui >= 2 && (ui - 2) % 3 == 0) {
                double sc;
                if (time_unit_scale(u, &sc) != AUG_OK)
                    return aug_errorf(AUG_EDATA, "%s:%ld: column 'time': unknown unit '(%s)'",
                                      st->name, line, u);
                st->time_scale = sc;
            }
            if (ui >= 2 && (ui - 2) % 3 != 0 && strcmp(u, "GB/s") != 0)
                return aug_errorf(AUG_EDATA, "%s:%ld: column 'busbw': unknown unit '(%s)'",
                                  st->name, line, u);
            ui++;
        }
    }
    return AUG_OK;
}

static int data_line(struct nt_state *st, char *text, long line)
{
    char *tok[MAX_TOK];
    int n = tokenize(text, 0, tok, MAX_TOK);
    if (n == 0)
        return AUG_OK;
    if (!isdigit((unsigned char)tok[0][0])) {
        if (strstr(text, "NCCL") || strstr(text, "nccl")) /* NCCL_DEBUG chatter */
            return AUG_OK;
        return aug_errorf(AUG_EDATA, "%s:%ld: unexpected line starting '%.40s'", st->name, line,
                          tok[0]);
    }
    if (!st->have_cols)
        return aug_errorf(AUG_EDATA, "%s:%ld: data before the '# size count type ...' column "
                          "header", st->name, line);
    if (n != st->n_cols)
        return aug_errorf(AUG_EDATA, "%s:%ld: %d fields where the header has %d (truncated "
                          "line?)", st->name, line, n, st->n_cols);
    double size, t0, t1 = 0;
    int rc;
    if ((rc = num(st, line, "size", tok[st->c_size], &size)) ||
        (rc = num(st, line, "time", tok[st->c_time[0]], &t0)))
        return rc;
    int have_t1 = st->c_time[1] >= 0;
    if (have_t1 && (rc = num(st, line, "time", tok[st->c_time[1]], &t1)))
        return rc;
    if (!(size > 0))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'size': %g is not a positive size",
                          st->name, line, size);
    return add_row(st, line, size, tok[st->c_type], t0 * st->time_scale, t1 * st->time_scale,
                   have_t1);
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
    if ((rc = num(st, line, "size(B)", tok[st->c_size], &size)) ||
        (rc = num(st, line, "time", tok[st->c_time[0]], &t0)))
        return rc;
    int have_t1 = st->c_time[1] >= 0;
    if (have_t1 && (rc = num(st, line, "time", tok[st->c_time[1]], &t1)))
        return rc;
    if (!(size > 0))
        return aug_errorf(AUG_EDATA, "%s:%ld: column 'size(B)': %g is not a positive size",
                          st->name, line, size);
    return add_row(st, line, size, tok[st->c_type], t0 * st->time_scale, t1 * st->time_scale,
                   have_t1);
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
    size_t pos = 0;
    long line = 0;
    int is_lut = -1;
    size_t before = out->n;
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
        char *s = text;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            continue;
        if (is_lut < 0) {
            is_lut = strncmp(s, "size(", 5) == 0 && strchr(s, ',') != NULL;
            if (is_lut) {
                rc = lut_header(&st, s);
                continue;
            }
        }
        if (is_lut)
            rc = lut_line(&st, s, line);
        else if (*s == '#')
            rc = header_line(&st, s + 1, line);
        else
            rc = data_line(&st, s, line);
    }
    if (rc == AUG_OK && out->n == before)
        rc = aug_errorf(AUG_EDATA, "%s:%ld: no measurements found (not nccl-tests output?)",
                        name, line);
    free_hosts(&st);
    return rc;
}
