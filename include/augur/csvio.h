/* SPDX-License-Identifier: Apache-2.0 */
/* csvio.h - CSV tables in and out, over libcsv (the only user of csv.h is csvio.c).
 *
 * Reading loads a whole file: leading lines that start with '#' are kept as comments
 * (provenance headers), the first other row is the header, and every later row keeps the
 * physical line it started on so errors can say "file:line: column 'x': why".
 * Writing quotes only what needs quoting, and can be atomic: rows go to a temporary
 * file next to the target that is renamed into place by aug_csv_writer_commit(), so an
 * interrupted write never damages the previous file. */
#ifndef AUG_CSVIO_H
#define AUG_CSVIO_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aug_csv;

/* Load `path`. Errors: AUG_EIO (cannot open), AUG_EDATA (malformed CSV, no header,
 * duplicate column names, a row with more cells than the header). */
int aug_csv_load(const char *path, struct aug_csv **out);

/* Same, but '#' lines are data (files whose header starts with '#', e.g. "# GPUs"). */
int aug_csv_load_nocomments(const char *path, struct aug_csv **out);

/* Same, from memory; `name` is used in messages (fuzzing, tests, embedded tables). */
int aug_csv_load_mem(const char *name, const char *buf, size_t len, struct aug_csv **out);

void aug_csv_free(struct aug_csv *t);

size_t aug_csv_rows(const struct aug_csv *t);
size_t aug_csv_cols(const struct aug_csv *t);
const char *aug_csv_name(const struct aug_csv *t);      /* file name given to load */
const char *aug_csv_header(const struct aug_csv *t, size_t col);
size_t aug_csv_comments(const struct aug_csv *t);
const char *aug_csv_comment(const struct aug_csv *t, size_t i); /* without the '#' */

/* Column index of `name` (exact, after trimming spaces and a UTF-8 BOM), or -1. */
int aug_csv_col(const struct aug_csv *t, const char *name);

/* AUG_EDATA "<file>:<header line>: column 'c': missing<hint>" for the first of the n
 * columns the table lacks (hint: "" or e.g. " (not a Vidur mlp.csv?)"); AUG_OK when all
 * are there. */
int aug_csv_need_cols(const struct aug_csv *t, const char *const *cols, size_t n,
                      const char *hint);

/* Cell text; "" for a short row or col < 0. Never NULL. */
const char *aug_csv_cell(const struct aug_csv *t, size_t row, int col);

/* 1-based physical line where `row` starts. */
long aug_csv_line(const struct aug_csv *t, size_t row);

/* Typed getters. Flags say what is allowed; an empty cell returns AUG_ENOTFOUND
 * (and leaves *out alone) unless AUG_CSV_REQUIRED, in which case it is AUG_EDATA.
 * Errors are recorded with file, line and column name. */
enum {
    AUG_CSV_REQUIRED = 1, /* empty cell or missing column is an error */
    AUG_CSV_POSITIVE = 2, /* value must be > 0 */
    AUG_CSV_NONNEG = 4    /* value must be >= 0 */
};
int aug_csv_get_double(const struct aug_csv *t, size_t row, const char *col, int flags,
                       double *out);
int aug_csv_get_long(const struct aug_csv *t, size_t row, const char *col, int flags,
                     long *out);
/* Error about a cell, formatted "file:line: column 'col': <msg>". Returns AUG_EDATA. */
int aug_csv_cell_error(const struct aug_csv *t, size_t row, const char *col, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));

/* ---- writing ---- */
struct aug_csv_writer;

/* Open a writer on `path` ("-" or NULL: stdout). With `atomic`, rows go to
 * "<path>.tmp.<pid>" and only aug_csv_writer_commit() renames it over `path`. */
int aug_csv_writer_open(const char *path, int atomic, struct aug_csv_writer **out);
/* A writer on a stream the caller owns (not closed by commit). */
int aug_csv_writer_fp(FILE *fp, struct aug_csv_writer **out);
/* "# <text>" line; only meaningful before the header. A control character in the text
 * (a newline from a file name) is written as a space, so the comment stays one line. */
void aug_csv_write_comment(struct aug_csv_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void aug_csv_write_str(struct aug_csv_writer *w, const char *s);
void aug_csv_write_num(struct aug_csv_writer *w, double v); /* %.10g; NaN -> empty */
void aug_csv_write_int(struct aug_csv_writer *w, long long v);
void aug_csv_write_empty(struct aug_csv_writer *w);
void aug_csv_end_row(struct aug_csv_writer *w);
/* Flush, fsync and rename into place; frees w. AUG_EIO when anything failed. */
int aug_csv_writer_commit(struct aug_csv_writer *w);
/* Drop the temporary file (atomic) and free w. */
void aug_csv_writer_abort(struct aug_csv_writer *w);

#ifdef __cplusplus
}
#endif
#endif
