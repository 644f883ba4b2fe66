/* SPDX-License-Identifier: Apache-2.0 */
/* test_csvio.c - the CSV layer every table goes through: reading (comments, BOM, ragged
 * rows, quoted newlines, line numbers in errors), the typed getters and their messages,
 * and the writer (quoting that survives a round trip, atomic replace on commit). */
#include "aug_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "augur/csvio.h"
#include "augur/status.h"

static char tmp_root[256];

static int group_setup(void **state) {
    (void)state;
    snprintf(tmp_root, sizeof tmp_root, "/tmp/aug_csvio_test_XXXXXX");
    return mkdtemp(tmp_root) ? 0 : -1;
}

static int group_teardown(void **state) {
    (void)state;
    static const char *const names[] = {"round.csv", "atomic.csv", "commit.csv", "tab.csv",
                                        "empty1.csv", "file.csv"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", tmp_root, names[i]);
        remove(path);
    }
    rmdir(tmp_root);
    return 0;
}

static const char *tmp_path(const char *name) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_root, name);
    return path;
}

static struct aug_csv *load_ok(const char *text) {
    struct aug_csv *t = NULL;
    int st = aug_csv_load_mem("mem.csv", text, strlen(text), &t);
    if (st != AUG_OK)
        fail_msg("loading failed: %s", aug_last_error());
    return t;
}

static void assert_error_has(const char *needle) {
    const char *msg = aug_last_error();
    if (!strstr(msg, needle))
        fail_msg("error message '%s' lacks '%s'", msg, needle);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* ---- reading ---- */

static void test_basic_shape(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("a,b,c\n1,2,3\n4,5,6\n");
    assert_int_equal(aug_csv_cols(t), 3);
    assert_int_equal(aug_csv_rows(t), 2);
    assert_string_equal(aug_csv_name(t), "mem.csv");
    assert_string_equal(aug_csv_header(t, 2), "c");
    assert_string_equal(aug_csv_header(t, 3), ""); /* beyond the header */
    assert_int_equal(aug_csv_col(t, "b"), 1);
    assert_int_equal(aug_csv_col(t, "d"), -1);
    assert_string_equal(aug_csv_cell(t, 1, 2), "6");
    assert_string_equal(aug_csv_cell(t, 2, 0), "");  /* beyond the rows */
    assert_string_equal(aug_csv_cell(t, 0, -1), ""); /* missing column */
    assert_int_equal(aug_csv_line(t, 0), 2);
    assert_int_equal(aug_csv_line(t, 1), 3);
    aug_csv_free(t);
}

static void test_short_rows_and_empty_fields(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("a,b,c\n1\n,,\n7,,9\n");
    assert_int_equal(aug_csv_rows(t), 3);
    assert_string_equal(aug_csv_cell(t, 0, 0), "1");
    assert_string_equal(aug_csv_cell(t, 0, 1), ""); /* short row reads as empty */
    assert_string_equal(aug_csv_cell(t, 0, 2), "");
    for (int c = 0; c < 3; c++)
        assert_string_equal(aug_csv_cell(t, 1, c), "");
    assert_string_equal(aug_csv_cell(t, 2, 0), "7");
    assert_string_equal(aug_csv_cell(t, 2, 1), "");
    assert_string_equal(aug_csv_cell(t, 2, 2), "9");
    double v = -1;
    assert_int_equal(aug_csv_get_double(t, 0, "b", 0, &v), AUG_ENOTFOUND);
    assert_near(v, -1, 0); /* left alone */
    aug_csv_free(t);
}

static void test_too_many_cells_names_file_and_line(void **state) {
    (void)state;
    struct aug_csv *t = NULL;
    const char *text = "a,b\n1,2\n3,4\n5,6,7\n";
    assert_int_equal(aug_csv_load_mem("runs.csv", text, strlen(text), &t), AUG_EDATA);
    assert_null(t);
    assert_error_has("runs.csv:4:");
    assert_error_has("3 cells");
}

static void test_missing_final_newline(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("a,b\n1,2\n3,4");
    assert_int_equal(aug_csv_rows(t), 2);
    assert_string_equal(aug_csv_cell(t, 1, 0), "3");
    assert_string_equal(aug_csv_cell(t, 1, 1), "4");
    assert_int_equal(aug_csv_line(t, 1), 3);
    aug_csv_free(t);
    /* a quoted last cell without newline too */
    t = load_ok("a,b\n1,\"x,y\"");
    assert_int_equal(aug_csv_rows(t), 1);
    assert_string_equal(aug_csv_cell(t, 0, 1), "x,y");
    aug_csv_free(t);
}

static void test_comments_before_header(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("# source: somewhere\n#   measured 2024\na,b\n1,2\n");
    assert_int_equal(aug_csv_comments(t), 2);
    assert_string_equal(aug_csv_comment(t, 0), "source: somewhere");
    assert_string_equal(aug_csv_comment(t, 1), "measured 2024");
    assert_string_equal(aug_csv_comment(t, 2), "");
    assert_int_equal(aug_csv_cols(t), 2);
    assert_string_equal(aug_csv_header(t, 0), "a");
    assert_int_equal(aug_csv_rows(t), 1);
    assert_int_equal(aug_csv_line(t, 0), 4); /* comment lines still count */
    aug_csv_free(t);
}

static void test_nocomments_keeps_hash_header(void **state) {
    (void)state;
    const char *path = tmp_path("file.csv");
    write_text(path, "# GPUs,time\n8,1.5\n");
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load_nocomments(path, &t), AUG_OK);
    assert_int_equal(aug_csv_comments(t), 0);
    assert_int_equal(aug_csv_col(t, "# GPUs"), 0);
    assert_int_equal(aug_csv_rows(t), 1);
    assert_string_equal(aug_csv_name(t), path);
    aug_csv_free(t);
    /* the same file through aug_csv_load: the header line is a comment */
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    assert_int_equal(aug_csv_comments(t), 1);
    assert_int_equal(aug_csv_col(t, "8"), 0);
    aug_csv_free(t);
}

static void test_missing_file_is_eio(void **state) {
    (void)state;
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(tmp_path("does-not-exist.csv"), &t), AUG_EIO);
    assert_null(t);
    assert_error_has("does-not-exist.csv");
}

static void test_utf8_bom_and_header_trim(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("\xEF\xBB\xBFid , value\r\nx,1\r\n");
    assert_int_equal(aug_csv_col(t, "id"), 0);
    assert_int_equal(aug_csv_col(t, "value"), 1);
    assert_string_equal(aug_csv_header(t, 0), "id");
    assert_string_equal(aug_csv_cell(t, 0, 1), "1"); /* CRLF leaves no '\r' behind */
    aug_csv_free(t);
    /* a BOM followed by comment lines */
    t = load_ok("\xEF\xBB\xBF# note\nid\nx\n");
    assert_int_equal(aug_csv_comments(t), 1);
    assert_int_equal(aug_csv_col(t, "id"), 0);
    assert_int_equal(aug_csv_line(t, 0), 3);
    aug_csv_free(t);
}

static void test_quoted_newline_line_numbers(void **state) {
    (void)state;
    /* the second physical line of a quoted cell starts with '#': data, not a comment */
    struct aug_csv *t = load_ok("a,b\n1,\"x\n# y\"\n2,z\n");
    assert_int_equal(aug_csv_rows(t), 2);
    assert_string_equal(aug_csv_cell(t, 0, 1), "x\n# y");
    assert_int_equal(aug_csv_line(t, 0), 2);
    assert_int_equal(aug_csv_line(t, 1), 4);
    assert_int_equal(aug_csv_comments(t), 0);
    double v;
    assert_int_equal(aug_csv_get_double(t, 1, "b", 0, &v), AUG_EDATA);
    assert_error_has("mem.csv:4: column 'b'");
    aug_csv_free(t);
}

/* Classic Mac line endings: libcsv ends a row at a bare CR, so each CR starts a new
 * physical line and errors must name it ("a,b" line 1, "1,2" line 2, "3,x" line 3). */
static void test_cr_line_endings_line_numbers(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("a,b\r1,2\r3,x\r");
    assert_int_equal(aug_csv_rows(t), 2);
    assert_string_equal(aug_csv_cell(t, 1, 1), "x");
    double v;
    assert_int_equal(aug_csv_get_double(t, 1, "b", 0, &v), AUG_EDATA);
    long l0 = aug_csv_line(t, 0), l1 = aug_csv_line(t, 1);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", aug_last_error());
    aug_csv_free(t);
    if (l0 != 2 || l1 != 3 || !strstr(msg, "mem.csv:3: column 'b'"))
        fail_msg("CR-terminated rows: lines %ld and %ld (expected 2 and 3), error '%s'", l0, l1,
                 msg);
}

static void test_duplicate_and_missing_header(void **state) {
    (void)state;
    struct aug_csv *t = NULL;
    const char *dup = "# c\nx,y,x\n1,2,3\n";
    assert_int_equal(aug_csv_load_mem("d.csv", dup, strlen(dup), &t), AUG_EDATA);
    assert_error_has("d.csv:2: duplicate column 'x'");
    assert_int_equal(aug_csv_load_mem("e.csv", "", 0, &t), AUG_EDATA);
    assert_error_has("e.csv");
    assert_error_has("no header");
    const char *only = "# just a comment\n";
    assert_int_equal(aug_csv_load_mem("c.csv", only, strlen(only), &t), AUG_EDATA);
    assert_null(t);
}

static void test_malformed_quote(void **state) {
    (void)state;
    struct aug_csv *t = NULL;
    const char *bad = "a,b\n1,2\n3,\"x\"y\n";
    assert_int_equal(aug_csv_load_mem("q.csv", bad, strlen(bad), &t), AUG_EDATA);
    assert_error_has("q.csv:3:");
    assert_null(t);
}

/* A quote opened and never closed swallows the rest of the file into one cell: that is
 * malformed CSV and must be an error, not a silently merged row. */
static void test_unterminated_quote_is_error(void **state) {
    (void)state;
    struct aug_csv *t = NULL;
    const char *bad = "a,b\n1,\"x\n2,3\n4,5\n";
    int st = aug_csv_load_mem("u.csv", bad, strlen(bad), &t);
    if (st == AUG_OK) {
        size_t rows = aug_csv_rows(t);
        char cell[64];
        snprintf(cell, sizeof cell, "%s", aug_csv_cell(t, 0, 1));
        aug_csv_free(t);
        fail_msg("unterminated quote accepted: %zu row(s), cell b = '%s'", rows, cell);
    }
    assert_int_equal(st, AUG_EDATA);
    assert_error_has("u.csv:");
}

/* ---- typed getters ---- */

static void test_get_double(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("x,y\n1.5,-2\n nan ,abc\n0,inf\n,1e3\n");
    double v = 0;
    assert_int_equal(aug_csv_get_double(t, 0, "x", AUG_CSV_POSITIVE, &v), AUG_OK);
    assert_near(v, 1.5, 0);
    assert_int_equal(aug_csv_get_double(t, 0, "y", 0, &v), AUG_OK);
    assert_near(v, -2, 0);

    v = 7;
    assert_int_equal(aug_csv_get_double(t, 0, "y", AUG_CSV_POSITIVE, &v), AUG_EDATA);
    assert_near(v, 7, 0);
    assert_error_has("mem.csv:2: column 'y'");
    assert_int_equal(aug_csv_get_double(t, 0, "y", AUG_CSV_NONNEG, &v), AUG_EDATA);
    assert_error_has("mem.csv:2: column 'y'");

    assert_int_equal(aug_csv_get_double(t, 1, "x", 0, &v), AUG_EDATA); /* NaN */
    assert_error_has("mem.csv:3: column 'x'");
    assert_error_has("nan");
    assert_int_equal(aug_csv_get_double(t, 1, "y", 0, &v), AUG_EDATA);
    assert_error_has("mem.csv:3: column 'y'");
    assert_error_has("'abc'");
    assert_int_equal(aug_csv_get_double(t, 2, "y", 0, &v), AUG_EDATA); /* inf */
    assert_error_has("mem.csv:4: column 'y'");

    assert_int_equal(aug_csv_get_double(t, 2, "x", AUG_CSV_NONNEG, &v), AUG_OK);
    assert_near(v, 0, 0);
    assert_int_equal(aug_csv_get_double(t, 2, "x", AUG_CSV_POSITIVE, &v), AUG_EDATA);
    assert_error_has("mem.csv:4: column 'x'");

    v = 3;
    assert_int_equal(aug_csv_get_double(t, 3, "x", 0, &v), AUG_ENOTFOUND);
    assert_near(v, 3, 0);
    assert_int_equal(aug_csv_get_double(t, 3, "x", AUG_CSV_REQUIRED, &v), AUG_EDATA);
    assert_error_has("mem.csv:5: column 'x'");
    assert_int_equal(aug_csv_get_double(t, 3, "y", AUG_CSV_REQUIRED, &v), AUG_OK);
    assert_near(v, 1000, 0);

    assert_int_equal(aug_csv_get_double(t, 0, "z", 0, &v), AUG_ENOTFOUND);
    assert_int_equal(aug_csv_get_double(t, 0, "z", AUG_CSV_REQUIRED, &v), AUG_EDATA);
    assert_error_has("'z'");
    aug_csv_free(t);
}

static void test_get_long(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("n\n8\n8.0\n2.5\n-3\n12abc\n99999999999999999999\n\" 16 \"\n");
    long v = 0;
    assert_int_equal(aug_csv_get_long(t, 0, "n", AUG_CSV_POSITIVE, &v), AUG_OK);
    assert_int_equal(v, 8);
    v = 0;
    assert_int_equal(aug_csv_get_long(t, 1, "n", 0, &v), AUG_OK); /* spreadsheet style */
    assert_int_equal(v, 8);
    assert_int_equal(aug_csv_get_long(t, 2, "n", 0, &v), AUG_EDATA);
    assert_error_has("mem.csv:4: column 'n'");
    assert_int_equal(aug_csv_get_long(t, 3, "n", 0, &v), AUG_OK);
    assert_int_equal(v, -3);
    assert_int_equal(aug_csv_get_long(t, 3, "n", AUG_CSV_POSITIVE, &v), AUG_EDATA);
    assert_error_has("mem.csv:5: column 'n'");
    assert_int_equal(aug_csv_get_long(t, 3, "n", AUG_CSV_NONNEG, &v), AUG_EDATA);
    assert_int_equal(aug_csv_get_long(t, 4, "n", 0, &v), AUG_EDATA);
    assert_error_has("mem.csv:6: column 'n'");
    assert_int_equal(aug_csv_get_long(t, 5, "n", 0, &v), AUG_EDATA); /* overflow */
    assert_error_has("mem.csv:7: column 'n'");
    assert_int_equal(aug_csv_get_long(t, 6, "n", 0, &v), AUG_OK); /* blanks trimmed */
    assert_int_equal(v, 16);
    aug_csv_free(t);
}

static void test_cell_error_format(void **state) {
    (void)state;
    struct aug_csv *t = load_ok("# c\na\n1\n2\n");
    assert_int_equal(aug_csv_cell_error(t, 1, "a", "value %d is odd", 2), AUG_EDATA);
    assert_string_equal(aug_last_error(), "mem.csv:4: column 'a': value 2 is odd");
    aug_csv_free(t);
}

/* ---- writing ---- */

static const char *const tricky[] = {
    "plain", "with,comma", "say \"hi\"", "two\nlines", " lead", "trail ", "#hash", "",
    "crlf\r\nend", "x,\"y\",\nz", "# not a comment",
};
#define N_TRICKY (sizeof tricky / sizeof *tricky)

/* A control character in a comment's text (a newline in a path a provenance line
 * quotes) is written as a space: the comment stays one line and no row appears. */
static void test_comment_stays_one_line(void **state) {
    (void)state;
    const char *path = tmp_path("comment.csv");
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_open(path, 0, &w), AUG_OK);
    aug_csv_write_comment(w, "source: %s", "dir\na,b\r\n");
    aug_csv_write_str(w, "a");
    aug_csv_write_str(w, "b");
    aug_csv_end_row(w);
    assert_int_equal(aug_csv_writer_commit(w), AUG_OK);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    assert_int_equal(aug_csv_comments(t), 1);
    assert_string_equal(aug_csv_comment(t, 0), "source: dir a,b  "); /* \r\n: two spaces */
    assert_int_equal(aug_csv_rows(t), 0);
    assert_string_equal(aug_csv_header(t, 0), "a");
    aug_csv_free(t);
}

static void test_round_trip(void **state) {
    (void)state;
    const char *path = tmp_path("round.csv");
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_open(path, 0, &w), AUG_OK);
    aug_csv_write_comment(w, "written by %s", "test_csvio");
    aug_csv_write_str(w, "text");
    aug_csv_write_str(w, "num");
    aug_csv_write_str(w, "int");
    aug_csv_end_row(w);
    for (size_t i = 0; i < N_TRICKY; i++) {
        aug_csv_write_str(w, tricky[i]);
        aug_csv_write_num(w, i == 3 ? NAN : 0.1 * (double)i);
        aug_csv_write_int(w, -(long long)i * 1000000000000LL);
        aug_csv_end_row(w);
    }
    /* a row whose first cell (and so its line) starts with '#' */
    aug_csv_write_str(w, "#first");
    aug_csv_write_empty(w);
    aug_csv_write_num(w, 1e-300);
    aug_csv_end_row(w);
    assert_int_equal(aug_csv_writer_commit(w), AUG_OK);

    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    assert_int_equal(aug_csv_comments(t), 1);
    assert_string_equal(aug_csv_comment(t, 0), "written by test_csvio");
    assert_int_equal(aug_csv_cols(t), 3);
    assert_int_equal(aug_csv_rows(t), N_TRICKY + 1);
    for (size_t i = 0; i < N_TRICKY; i++) {
        if (strcmp(aug_csv_cell(t, i, 0), tricky[i]) != 0)
            fail_msg("row %zu: read back '%s', wrote '%s'", i, aug_csv_cell(t, i, 0), tricky[i]);
        double v = -1;
        if (i == 3) {
            assert_string_equal(aug_csv_cell(t, i, 1), ""); /* NaN is written empty */
            assert_int_equal(aug_csv_get_double(t, i, "num", 0, &v), AUG_ENOTFOUND);
        } else {
            assert_int_equal(aug_csv_get_double(t, i, "num", 0, &v), AUG_OK);
            assert_rel(v, 0.1 * (double)i, 1e-10); /* %.10g */
        }
        long n = 1;
        assert_int_equal(aug_csv_get_long(t, i, "int", 0, &n), AUG_OK);
        assert_true(n == -(long)i * 1000000000000L);
    }
    assert_string_equal(aug_csv_cell(t, N_TRICKY, 0), "#first");
    assert_string_equal(aug_csv_cell(t, N_TRICKY, 1), "");
    double tiny;
    assert_int_equal(aug_csv_get_double(t, N_TRICKY, "int", 0, &tiny), AUG_OK);
    assert_rel(tiny, 1e-300, 1e-9);
    /* line numbers account for the quoted newlines: rows 3, 8 and 9 span two lines */
    assert_int_equal(aug_csv_line(t, 0), 3);
    assert_int_equal(aug_csv_line(t, 4), 4 + 4);
    aug_csv_free(t);
}

/* libcsv trims blanks (space and tab) around unquoted cells, so the writer must quote a
 * cell that starts or ends with a tab just as it does for a space. */
static void test_round_trip_tabs(void **state) {
    (void)state;
    const char *path = tmp_path("tab.csv");
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_open(path, 0, &w), AUG_OK);
    aug_csv_write_str(w, "a");
    aug_csv_write_str(w, "b");
    aug_csv_end_row(w);
    aug_csv_write_str(w, "\tlead");
    aug_csv_write_str(w, "trail\t");
    aug_csv_end_row(w);
    assert_int_equal(aug_csv_writer_commit(w), AUG_OK);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    char a[32], b[32];
    snprintf(a, sizeof a, "%s", aug_csv_cell(t, 0, 0));
    snprintf(b, sizeof b, "%s", aug_csv_cell(t, 0, 1));
    aug_csv_free(t);
    if (strcmp(a, "\tlead") != 0 || strcmp(b, "trail\t") != 0)
        fail_msg("tabs lost in the round trip: wrote '\\tlead','trail\\t', read '%s','%s' "
                 "(file: %s)", a, b, slurp(path));
}

/* A one-column table whose value is empty: the row must not vanish (an empty line is
 * skipped by the reader, so the writer has to write "" for it). */
static void test_round_trip_single_empty_cell(void **state) {
    (void)state;
    const char *path = tmp_path("empty1.csv");
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_open(path, 0, &w), AUG_OK);
    aug_csv_write_str(w, "note");
    aug_csv_end_row(w);
    aug_csv_write_str(w, "");
    aug_csv_end_row(w);
    aug_csv_write_str(w, "last");
    aug_csv_end_row(w);
    assert_int_equal(aug_csv_writer_commit(w), AUG_OK);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    size_t rows = aug_csv_rows(t);
    aug_csv_free(t);
    if (rows != 2)
        fail_msg("wrote 2 rows ('' and 'last'), read back %zu", rows);
}

static void test_writer_fp_quotes(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_fp(f, &w), AUG_OK);
    aug_csv_write_str(w, "a,b");
    aug_csv_write_str(w, "plain");
    aug_csv_write_num(w, 0.5);
    aug_csv_write_int(w, 42);
    aug_csv_write_empty(w);
    aug_csv_write_str(w, "q\"q");
    aug_csv_end_row(w);
    assert_int_equal(aug_csv_writer_commit(w), AUG_OK); /* does not close f */
    assert_int_equal(fputs("tail\n", f) >= 0, 1);
    fclose(f);
    assert_string_equal(buf, "\"a,b\",plain,0.5,42,,\"q\"\"q\"\ntail\n");
    free(buf);
}

static void test_atomic_abort_keeps_old(void **state) {
    (void)state;
    const char *p = tmp_path("atomic.csv");
    char path[512];
    snprintf(path, sizeof path, "%s", p);
    write_text(path, "old,file\n1,2\n");
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_open(path, 1, &w), AUG_OK);
    aug_csv_write_str(w, "new");
    aug_csv_end_row(w);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    struct stat sb;
    assert_int_equal(stat(tmp, &sb), 0); /* rows go to the temporary file */
    assert_string_equal(slurp(path), "old,file\n1,2\n");
    aug_csv_writer_abort(w);
    assert_int_equal(stat(tmp, &sb), -1); /* dropped */
    assert_string_equal(slurp(path), "old,file\n1,2\n");
}

static void test_atomic_commit_replaces(void **state) {
    (void)state;
    const char *p = tmp_path("commit.csv");
    char path[512];
    snprintf(path, sizeof path, "%s", p);
    write_text(path, "old,file\n1,2\n");
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_open(path, 1, &w), AUG_OK);
    aug_csv_write_str(w, "new");
    aug_csv_write_str(w, "file");
    aug_csv_end_row(w);
    aug_csv_write_int(w, 3);
    aug_csv_write_num(w, 4.25);
    aug_csv_end_row(w);
    assert_string_equal(slurp(path), "old,file\n1,2\n"); /* untouched until commit */
    assert_int_equal(aug_csv_writer_commit(w), AUG_OK);
    assert_string_equal(slurp(path), "new,file\n3,4.25\n");
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    struct stat sb;
    assert_int_equal(stat(tmp, &sb), -1);
}

static void test_writer_open_fails_in_missing_dir(void **state) {
    (void)state;
    struct aug_csv_writer *w = NULL;
    assert_int_equal(aug_csv_writer_open(tmp_path("no/such/dir.csv"), 1, &w), AUG_EIO);
    assert_error_has("no/such/dir.csv");
    assert_int_equal(aug_csv_writer_open(tmp_path("no/such/dir.csv"), 0, &w), AUG_EIO);
    aug_csv_writer_abort(NULL); /* harmless */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_shape),
        cmocka_unit_test(test_short_rows_and_empty_fields),
        cmocka_unit_test(test_too_many_cells_names_file_and_line),
        cmocka_unit_test(test_missing_final_newline),
        cmocka_unit_test(test_comments_before_header),
        cmocka_unit_test(test_nocomments_keeps_hash_header),
        cmocka_unit_test(test_missing_file_is_eio),
        cmocka_unit_test(test_utf8_bom_and_header_trim),
        cmocka_unit_test(test_quoted_newline_line_numbers),
        cmocka_unit_test(test_cr_line_endings_line_numbers),
        cmocka_unit_test(test_duplicate_and_missing_header),
        cmocka_unit_test(test_malformed_quote),
        cmocka_unit_test(test_unterminated_quote_is_error),
        cmocka_unit_test(test_get_double),
        cmocka_unit_test(test_get_long),
        cmocka_unit_test(test_cell_error_format),
        cmocka_unit_test(test_comment_stays_one_line),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_tabs),
        cmocka_unit_test(test_round_trip_single_empty_cell),
        cmocka_unit_test(test_writer_fp_quotes),
        cmocka_unit_test(test_atomic_abort_keeps_old),
        cmocka_unit_test(test_atomic_commit_replaces),
        cmocka_unit_test(test_writer_open_fails_in_missing_dir),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
