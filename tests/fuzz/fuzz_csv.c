/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_csv.c - libFuzzer entry for the CSV reader (predictor/core/csvio.c over libcsv) and its
 * typed getters: any bytes must load or fail with a recorded message, and every cell of a
 * loaded table must go through the getters without a crash, a leak or undefined
 * behaviour. Built with -DAUG_FUZZ=ON and CC=clang. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "augur/csvio.h"
#include "augur/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The typed getters on one cell, with one flag combination picked by the cell's place
 * (every combination is reached across cells and inputs). */
static void check_cell(const struct aug_csv *t, size_t r, size_t c, const char *h) {
    static const int flags[] = {0, AUG_CSV_REQUIRED, AUG_CSV_POSITIVE, AUG_CSV_NONNEG,
                                AUG_CSV_REQUIRED | AUG_CSV_POSITIVE};
    int fl = flags[(r + c) % (sizeof flags / sizeof *flags)];
    double d = 0;
    long l = 0;
    int st = aug_csv_get_double(t, r, h, fl, &d);
    if (st == AUG_OK) {
        if (!isfinite(d))
            abort();
        if ((fl & AUG_CSV_POSITIVE) && !(d > 0))
            abort();
        if ((fl & AUG_CSV_NONNEG) && d < 0)
            abort();
    } else if (st != AUG_ENOTFOUND && st != AUG_EDATA) {
        abort();
    } else if (st == AUG_EDATA && aug_last_error()[0] == '\0') {
        abort();
    }
    st = aug_csv_get_long(t, r, h, fl, &l);
    if (st == AUG_OK && (fl & AUG_CSV_POSITIVE) && l <= 0)
        abort();
    if (st != AUG_OK && st != AUG_ENOTFOUND && st != AUG_EDATA)
        abort();
}

/* Linear in the table's size: every cell is read, but the getters (which look their
 * column up by name) run on the first GETTER_ROWS rows and GETTER_COLS columns only, so a
 * large seed (a 1 MB raw file) costs one parse, not rows x columns^2 name lookups. Eight
 * rows reach every flag combination on every column ((r + c) mod 5); more rows repeat
 * the same getter paths and made the getters most of an execution's time. */
#define GETTER_ROWS 8
#define GETTER_COLS 48

static void check_table(const struct aug_csv *t) {
    size_t rows = aug_csv_rows(t), cols = aug_csv_cols(t);
    if (cols == 0)
        abort(); /* a loaded table always has a header */
    long prev_line = 0;
    for (size_t i = 0; i < aug_csv_comments(t); i++)
        if (!aug_csv_comment(t, i))
            abort();
    for (size_t c = 0; c < cols; c++) {
        const char *h = aug_csv_header(t, c);
        if (!h)
            abort();
        /* the column index of a non-empty header finds the first column of that name */
        if (c < GETTER_COLS && h[0] && aug_csv_col(t, h) < 0)
            abort();
    }
    for (size_t r = 0; r < rows; r++) {
        long line = aug_csv_line(t, r);
        if (line < 1 || line < prev_line)
            abort(); /* rows start on non-decreasing physical lines (a bare CR ends a row
                      * inside one line: test_csvio covers what line it should report) */
        prev_line = line;
        for (size_t c = 0; c < cols; c++) {
            const char *cell = aug_csv_cell(t, r, (int)c);
            const char *h = aug_csv_header(t, c);
            if (!cell)
                abort();
            if (h[0] && r < GETTER_ROWS && c < GETTER_COLS)
                check_cell(t, r, c, h);
        }
        if (r < GETTER_ROWS)
            aug_csv_cell_error(t, r, aug_csv_header(t, 0), "fuzz %zu", r);
    }
    /* out-of-range accesses are harmless */
    if (aug_csv_cell(t, rows, 0)[0] != '\0' || aug_csv_cell(t, 0, -1)[0] != '\0' ||
        aug_csv_header(t, cols)[0] != '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct aug_csv *t = NULL;
    int st = aug_csv_load_mem("fuzz.csv", (const char *)data, size, &t);
    if (st == AUG_OK) {
        check_table(t);
        aug_csv_free(t);
    } else if (t != NULL || aug_last_error()[0] == '\0') {
        abort(); /* failures leave no table behind and explain themselves */
    }
    aug_clear_error();
    return 0;
}
