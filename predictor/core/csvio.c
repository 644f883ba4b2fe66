/* SPDX-License-Identifier: Apache-2.0 */
/* csvio.c - CSV tables over libcsv: the only file that includes csv.h.
 *
 * The reader feeds libcsv one physical line at a time so that every row knows the line
 * it started on; '#' lines between records are comments (provenance headers). The
 * writer quotes through csv_fwrite only what needs quoting and renames a temporary file
 * into place on commit, so an interrupted write leaves the old file intact. */
#include "augur/csvio.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "augur/data.h"
#include "core/atomic_write.h"
#include "augur/status.h"
#include "augur/units.h"

struct csv_row {
    char **cells;
    size_t n, cap;
    long line;
};

struct aug_csv {
    char *name;
    char **comments;
    size_t n_comments, cap_comments;
    struct csv_row header;
    struct csv_row *rows;
    size_t n_rows, cap_rows;
    int have_header;
    /* parse state */
    struct csv_row cur;
    long line;
    int row_done_on_line;
    int oom;
};

static int push_ptr(void ***arr, size_t *n, size_t *cap, void *p) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void **na = realloc(*arr, nc * sizeof *na);
        if (!na)
            return -1;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = p;
    return 0;
}

static char *dup_n(const char *s, size_t len) {
    char *d = malloc(len + 1);
    if (d) {
        if (len)
            memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

static void on_field(void *field, size_t len, void *user) {
    struct aug_csv *t = user;
    if (t->cur.n == 0)
        t->cur.line = t->line;
    char *d = dup_n(field ? field : "", field ? len : 0);
    if (!d || push_ptr((void ***)&t->cur.cells, &t->cur.n, &t->cur.cap, d) != 0) {
        free(d);
        t->oom = 1;
    }
}

static void free_row(struct csv_row *r) {
    for (size_t i = 0; i < r->n; i++)
        free(r->cells[i]);
    free(r->cells);
    memset(r, 0, sizeof *r);
}

static void on_row(int c, void *user) {
    (void)c;
    struct aug_csv *t = user;
    t->row_done_on_line = 1;
    if (t->oom)
        return;
    if (!t->have_header) {
        t->header = t->cur;
        t->have_header = 1;
    } else {
        if (t->n_rows == t->cap_rows) {
            size_t nc = t->cap_rows ? t->cap_rows * 2 : 64;
            struct csv_row *nr = realloc(t->rows, nc * sizeof *nr);
            if (!nr) {
                t->oom = 1;
                free_row(&t->cur);
                return;
            }
            t->rows = nr;
            t->cap_rows = nc;
        }
        t->rows[t->n_rows++] = t->cur;
    }
    memset(&t->cur, 0, sizeof t->cur);
}

static void trim_header(char *s) {
    /* strip a UTF-8 byte-order mark and surrounding blanks from column names */
    if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF)
        memmove(s, s + 3, strlen(s + 3) + 1);
    size_t b = 0, e = strlen(s);
    while (s[b] == ' ' || s[b] == '\t')
        b++;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
        e--;
    memmove(s, s + b, e - b);
    s[e - b] = '\0';
}

static int check_shape(struct aug_csv *t) {
    if (!t->have_header || t->header.n == 0)
        return aug_errorf(AUG_EDATA, "%s: no header row", t->name);
    for (size_t i = 0; i < t->header.n; i++) {
        trim_header(t->header.cells[i]);
        if (!t->header.cells[i][0])
            continue;
        for (size_t j = 0; j < i; j++)
            if (strcmp(t->header.cells[i], t->header.cells[j]) == 0)
                return aug_errorf(AUG_EDATA, "%s:%ld: duplicate column '%s'", t->name,
                                  t->header.line, t->header.cells[i]);
    }
    for (size_t r = 0; r < t->n_rows; r++)
        if (t->rows[r].n > t->header.n)
            return aug_errorf(AUG_EDATA, "%s:%ld: row has %zu cells but the header has %zu",
                              t->name, t->rows[r].line, t->rows[r].n, t->header.n);
    return AUG_OK;
}

static int load_mem(const char *name, const char *buf, size_t len, int comments,
                    struct aug_csv **out) {
    struct aug_csv *t = calloc(1, sizeof *t);
    if (!t)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    t->name = dup_n(name ? name : "<memory>", strlen(name ? name : "<memory>"));
    struct csv_parser p;
    if (!t->name || csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        aug_csv_free(t);
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    int st = AUG_OK;
    size_t pos = 0;
    int pending = 0; /* a record continues across lines (quoted newline) */
    t->line = 0;
    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
        (unsigned char)buf[2] == 0xBF)
        pos = 3;
    while (pos < len && st == AUG_OK) {
        /* a line ends at \n, or at a lone \r (old Mac line endings) */
        size_t end = pos;
        while (end < len && buf[end] != '\n' && !(buf[end] == '\r' && (end + 1 >= len || buf[end + 1] != '\n')))
            end++;
        end = end < len ? end + 1 : len;
        t->line++;
        const char *l = buf + pos;
        size_t ll = end - pos;
        if (comments && !pending && ll > 0 && l[0] == '#') {
            size_t cl = ll;
            while (cl > 0 && (l[cl - 1] == '\n' || l[cl - 1] == '\r'))
                cl--;
            size_t skip = 1;
            while (skip < cl && l[skip] == ' ')
                skip++;
            char *c = dup_n(l + skip, cl - skip);
            if (!c || push_ptr((void ***)&t->comments, &t->n_comments, &t->cap_comments, c)) {
                free(c);
                st = aug_errorf(AUG_ENOMEM, "out of memory");
            }
            pos = end;
            continue;
        }
        t->row_done_on_line = 0;
        if (csv_parse(&p, l, ll, on_field, on_row, t) != ll)
            st = aug_errorf(AUG_EDATA, "%s:%ld: malformed CSV: %s", t->name, t->line,
                            csv_strerror(csv_error(&p)));
        else if (t->oom)
            st = aug_errorf(AUG_ENOMEM, "out of memory");
        int blank = 1;
        for (size_t i = 0; i < ll; i++)
            if (l[i] != '\n' && l[i] != '\r' && l[i] != ' ' && l[i] != '\t')
                blank = 0;
        pending = !t->row_done_on_line && (!blank || pending);
        pos = end;
    }
    if (st == AUG_OK) {
        if (csv_fini(&p, on_field, on_row, t) != 0)
            st = aug_errorf(AUG_EDATA, "%s:%ld: malformed CSV at end of file: %s", t->name,
                            t->line, csv_strerror(csv_error(&p)));
        else if (t->oom)
            st = aug_errorf(AUG_ENOMEM, "out of memory");
    }
    csv_free(&p);
    if (st == AUG_OK)
        st = check_shape(t);
    if (st != AUG_OK) {
        aug_csv_free(t);
        return st;
    }
    *out = t;
    return AUG_OK;
}

int aug_csv_load_mem(const char *name, const char *buf, size_t len, struct aug_csv **out) {
    return load_mem(name, buf, len, 1, out);
}

static int load_file(const char *path, int comments, struct aug_csv **out) {
    char *buf = NULL;
    long len = 0;
    int st = aug_read_file(path, &buf, &len);
    if (st != AUG_OK)
        return st;
    st = load_mem(path, buf, (size_t)len, comments, out);
    free(buf);
    return st;
}

int aug_csv_load(const char *path, struct aug_csv **out) { return load_file(path, 1, out); }

int aug_csv_load_nocomments(const char *path, struct aug_csv **out) {
    return load_file(path, 0, out);
}

void aug_csv_free(struct aug_csv *t) {
    if (!t)
        return;
    for (size_t i = 0; i < t->n_comments; i++)
        free(t->comments[i]);
    free(t->comments);
    free_row(&t->header);
    for (size_t r = 0; r < t->n_rows; r++)
        free_row(&t->rows[r]);
    free(t->rows);
    free_row(&t->cur);
    free(t->name);
    free(t);
}

size_t aug_csv_rows(const struct aug_csv *t) { return t->n_rows; }
size_t aug_csv_cols(const struct aug_csv *t) { return t->header.n; }
const char *aug_csv_name(const struct aug_csv *t) { return t->name; }
const char *aug_csv_header(const struct aug_csv *t, size_t col) {
    return col < t->header.n ? t->header.cells[col] : "";
}
size_t aug_csv_comments(const struct aug_csv *t) { return t->n_comments; }
const char *aug_csv_comment(const struct aug_csv *t, size_t i) {
    return i < t->n_comments ? t->comments[i] : "";
}

int aug_csv_col(const struct aug_csv *t, const char *name) {
    for (size_t i = 0; i < t->header.n; i++)
        if (strcmp(t->header.cells[i], name) == 0)
            return (int)i;
    return -1;
}

int aug_csv_need_cols(const struct aug_csv *t, const char *const *cols, size_t n,
                      const char *hint) {
    for (size_t i = 0; i < n; i++)
        if (aug_csv_col(t, cols[i]) < 0) /* the header follows the leading comment lines */
            return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': missing%s", aug_csv_name(t),
                              (long)aug_csv_comments(t) + 1, cols[i], hint ? hint : "");
    return AUG_OK;
}

const char *aug_csv_cell(const struct aug_csv *t, size_t row, int col) {
    if (row >= t->n_rows || col < 0 || (size_t)col >= t->rows[row].n)
        return "";
    return t->rows[row].cells[col];
}

long aug_csv_line(const struct aug_csv *t, size_t row) {
    return row < t->n_rows ? t->rows[row].line : 0;
}

int aug_csv_cell_error(const struct aug_csv *t, size_t row, const char *col, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return aug_errorf(AUG_EDATA, "%s:%ld: column '%s': %s", t->name, aug_csv_line(t, row), col, msg);
}

/* Shared front half of the typed getters: the trimmed cell or a miss. */
static int get_text(const struct aug_csv *t, size_t row, const char *col, int flags, char *buf,
                    size_t n) {
    int c = aug_csv_col(t, col);
    if (c < 0) {
        if (flags & AUG_CSV_REQUIRED)
            return aug_errorf(AUG_EDATA, "%s: missing column '%s'", t->name, col);
        return AUG_ENOTFOUND;
    }
    const char *s = aug_csv_cell(t, row, c);
    while (*s == ' ' || *s == '\t')
        s++;
    size_t l = strlen(s);
    while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
        l--;
    if (l == 0) {
        if (flags & AUG_CSV_REQUIRED)
            return aug_csv_cell_error(t, row, col, "empty, a value is required");
        return AUG_ENOTFOUND;
    }
    if (l >= n)
        return aug_csv_cell_error(t, row, col, "value too long");
    memcpy(buf, s, l);
    buf[l] = '\0';
    return AUG_OK;
}

static int check_sign(const struct aug_csv *t, size_t row, const char *col, int flags, double v,
                      const char *text) {
    if ((flags & AUG_CSV_POSITIVE) && !(v > 0))
        return aug_csv_cell_error(t, row, col, "'%s' must be positive", text);
    if ((flags & AUG_CSV_NONNEG) && v < 0)
        return aug_csv_cell_error(t, row, col, "'%s' must not be negative", text);
    return AUG_OK;
}

int aug_csv_get_double(const struct aug_csv *t, size_t row, const char *col, int flags, double *out) {
    char buf[128];
    int st = get_text(t, row, col, flags, buf, sizeof buf);
    if (st != AUG_OK)
        return st;
    double v;
    if (aug_parse_double(buf, col, &v) != AUG_OK)
        return aug_csv_cell_error(t, row, col, "'%s' is not a finite number", buf);
    st = check_sign(t, row, col, flags, v, buf);
    if (st == AUG_OK)
        *out = v;
    return st;
}

int aug_csv_get_long(const struct aug_csv *t, size_t row, const char *col, int flags, long *out) {
    char buf[128];
    int st = get_text(t, row, col, flags, buf, sizeof buf);
    if (st != AUG_OK)
        return st;
    long v;
    if (aug_parse_long(buf, col, -4000000000000000000L, 4000000000000000000L, &v) != AUG_OK)
        return aug_csv_cell_error(t, row, col, "'%s' is not an integer", buf);
    st = check_sign(t, row, col, flags, (double)v, buf);
    if (st == AUG_OK)
        *out = v;
    return st;
}

/* ---- writer ---- */
struct aug_csv_writer {
    FILE *fp;
    char *path;
    struct aug_atomic file; /* atomic writers: the temporary renamed at commit */
    int atomic;
    int first; /* next cell is the first of its row */
    int borrowed; /* fp belongs to the caller */
    int cells;    /* cells written in the current row */
    int last_empty; /* the last cell written was empty */
    int failed;
};

int aug_csv_writer_open(const char *path, int atomic, struct aug_csv_writer **out) {
    struct aug_csv_writer *w = calloc(1, sizeof *w);
    if (!w)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    w->first = 1;
    if (!path || strcmp(path, "-") == 0) {
        w->fp = stdout;
        *out = w;
        return AUG_OK;
    }
    if (atomic) {
        int st = aug_atomic_open(&w->file, path);
        if (st != AUG_OK) {
            free(w);
            return st;
        }
        w->atomic = 1;
        w->fp = w->file.fp;
        *out = w;
        return AUG_OK;
    }
    w->path = dup_n(path, strlen(path));
    if (!w->path) {
        free(w);
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    w->fp = fopen(path, "w");
    if (!w->fp) {
        int st = aug_errorf(AUG_EIO, "cannot write '%s': %s", path, strerror(errno));
        free(w->path);
        free(w);
        return st;
    }
    *out = w;
    return AUG_OK;
}

int aug_csv_writer_fp(FILE *fp, struct aug_csv_writer **out) {
    struct aug_csv_writer *w = calloc(1, sizeof *w);
    if (!w)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    w->fp = fp;
    w->first = 1;
    w->borrowed = 1;
    *out = w;
    return AUG_OK;
}

void aug_csv_write_comment(struct aug_csv_writer *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *line = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!line) {
        w->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(line, (size_t)len + 1, fmt, ap);
    va_end(ap);
    /* one line each: a control character from a file or folder name (a newline in a
     * command line or a source path) would end the comment and start a row */
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    fputs("# ", w->fp);
    fputs(line, w->fp);
    fputc('\n', w->fp);
    free(line);
}

static void sep(struct aug_csv_writer *w) {
    if (!w->first)
        fputc(',', w->fp);
    w->first = 0;
    w->cells++;
    w->last_empty = 0;
}

void aug_csv_write_str(struct aug_csv_writer *w, const char *s) {
    sep(w);
    size_t l = s ? strlen(s) : 0;
    if (l == 0) {
        w->last_empty = 1;
        return;
    }
    /* libcsv trims unquoted blanks: quote leading/trailing spaces and tabs */
    int quote = s[0] == ' ' || s[l - 1] == ' ' || s[0] == '\t' || s[l - 1] == '\t' || s[0] == '#';
    for (size_t i = 0; i < l && !quote; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            quote = 1;
    if (quote) {
        if (csv_fwrite(w->fp, s, l) != 0)
            w->failed = 1;
    } else {
        fputs(s, w->fp);
    }
}

void aug_csv_write_num(struct aug_csv_writer *w, double v) {
    sep(w);
    if (isfinite(v))
        fprintf(w->fp, "%.10g", v);
    else
        w->last_empty = 1;
}

void aug_csv_write_int(struct aug_csv_writer *w, long long v) {
    sep(w);
    fprintf(w->fp, "%lld", v);
}

void aug_csv_write_empty(struct aug_csv_writer *w) {
    sep(w);
    w->last_empty = 1;
}

void aug_csv_end_row(struct aug_csv_writer *w) {
    if (w->cells == 1 && w->last_empty)
        fputs("\"\"", w->fp); /* a row of one empty cell must not read back as a blank line */
    fputc('\n', w->fp);
    w->first = 1;
    w->cells = 0;
    w->last_empty = 0;
}

static void writer_free(struct aug_csv_writer *w) {
    free(w->path);
    free(w);
}

int aug_csv_writer_commit(struct aug_csv_writer *w) {
    int st = AUG_OK;
    if (w->fp == stdout || w->borrowed) {
        if (fflush(w->fp) != 0 || w->failed)
            st = aug_errorf(AUG_EIO, "cannot write the CSV output");
        writer_free(w);
        return st;
    }
    if (w->atomic) {
        if (w->failed) {
            st = aug_errorf(AUG_EIO, "cannot write '%s'", w->file.path);
            aug_atomic_abort(&w->file);
        } else {
            st = aug_atomic_commit(&w->file);
        }
        writer_free(w);
        return st;
    }
    if (fflush(w->fp) != 0 || ferror(w->fp) || w->failed || fsync(fileno(w->fp)) != 0)
        st = aug_errorf(AUG_EIO, "cannot write '%s': %s", w->path, strerror(errno));
    if (fclose(w->fp) != 0 && st == AUG_OK)
        st = aug_errorf(AUG_EIO, "cannot close '%s': %s", w->path, strerror(errno));
    writer_free(w);
    return st;
}

void aug_csv_writer_abort(struct aug_csv_writer *w) {
    if (!w)
        return;
    if (w->atomic)
        aug_atomic_abort(&w->file);
    else if (w->fp != stdout && !w->borrowed)
        fclose(w->fp);
    writer_free(w);
}
