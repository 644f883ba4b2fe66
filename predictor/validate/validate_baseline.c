/* SPDX-License-Identifier: Apache-2.0 */
/* validate_baseline.c - a saved `augur validate --format json` report read back as a
 * baseline, and the row-by-row comparison of a new run with it (augur/validate.h).
 *
 * Rows are matched by id. Both lists are sorted by id once (qsort) and looked up by binary
 * search, so a set of n rows costs n log n, whatever the files hold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "core/jsonutil.h"

/* the report a baseline is: validate.schema.json */
#define REPORT_SCHEMA_VERSION 1
/* a saved report of 100,000 rows is about 40 MB */
#define BASELINE_FILE_MAX (256L << 20)
/* `augur validate --format json` writes 10 significant digits (cli.c, JSON_REAL_PRECISION):
 * errors below 10,000% come back within 1e-6 points, so smaller shifts are the rounding of
 * the saved report, not a change */
#define SAVED_ROUNDING_PTS 1e-6

static int cmp_row_id(const void *a, const void *b) {
    return strcmp(((const struct aug_validate_baseline_row *)a)->id,
                  ((const struct aug_validate_baseline_row *)b)->id);
}

/* One row of "rows" (predicted: id, error_pct and, in reports that have it, fits_in_memory)
 * or of "skipped" (id only). */
static int read_row(const char *path, const char *list, size_t k, json_t *o, int predicted,
                    struct aug_validate_baseline_row *row) {
    char ctx[700];
    aug_fmt_trunc(ctx, sizeof ctx, "%s: %s[%zu]", path, list, k);
    if (!json_is_object(o))
        return aug_errorf(AUG_EDATA, "%s: an object was expected, not %s", ctx,
                          aug_json_type_name(o));
    int st = aug_json_string(ctx, o, "id", AUG_JSON_REQUIRED, row->id, sizeof row->id);
    if (st != AUG_OK)
        return st;
    row->error_pct = NAN;
    row->fits_in_memory = -1;
    if (!predicted)
        return AUG_OK;
    if ((st = aug_json_double(ctx, o, "error_pct", AUG_JSON_REQUIRED, &row->error_pct)) != AUG_OK)
        return st;
    if (!isfinite(row->error_pct))
        return aug_errorf(AUG_EDATA, "%s: field 'error_pct' is not a finite number", ctx);
    /* absent (reports before it) or null (a row kind without a memory count): unknown */
    json_t *fits = json_object_get(o, "fits_in_memory");
    if (fits && !json_is_null(fits) && !json_is_boolean(fits))
        return aug_errorf(AUG_EDATA, "%s: field 'fits_in_memory' must be true, false or null "
                                     "(got %s)", ctx, aug_json_type_name(fits));
    if (fits && json_is_boolean(fits))
        row->fits_in_memory = json_is_true(fits);
    return AUG_OK;
}

static int load(const char *path, json_t *root, struct aug_validate_baseline *b) {
    long version = 0;
    int st = aug_json_long(path, root, "schema_version", AUG_JSON_REQUIRED, &version);
    if (st != AUG_OK)
        return st;
    if (version != REPORT_SCHEMA_VERSION)
        return aug_errorf(AUG_EDATA, "%s: schema_version %ld: this augur reads reports of version "
                                     "%d (write the baseline again with this augur)",
                          path, version, REPORT_SCHEMA_VERSION);
    json_t *rows = aug_json_get(root, "rows"), *skipped = aug_json_get(root, "skipped");
    if (!json_is_array(rows) || !json_is_array(skipped))
        return aug_errorf(AUG_EDATA, "%s: 'rows' and 'skipped' must be arrays (a report of "
                                     "`augur validate FILE --format json`)", path);
    long predicted = 0;
    if ((st = aug_json_long(path, root, "predicted_rows", AUG_JSON_REQUIRED | AUG_JSON_NONNEG,
                            &predicted)) != AUG_OK ||
        (st = aug_json_double(path, root, "mape_pct", AUG_JSON_REQUIRED | AUG_JSON_NONNEG,
                              &b->mape_pct)) != AUG_OK)
        return st;
    if ((size_t)predicted != json_array_size(rows))
        return aug_errorf(AUG_EDATA, "%s: %ld rows predicted but %zu listed: a report written "
                                     "with --summary lists none and cannot be a baseline",
                          path, predicted, json_array_size(rows));
    size_t n = json_array_size(rows) + json_array_size(skipped);
    b->rows = calloc(n ? n : 1, sizeof *b->rows);
    if (!b->rows)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    size_t k;
    json_t *o;
    json_array_foreach(rows, k, o) {
        if ((st = read_row(path, "rows", k, o, 1, &b->rows[b->n_rows])) != AUG_OK)
            return st;
        b->n_rows++;
    }
    json_array_foreach(skipped, k, o) {
        if ((st = read_row(path, "skipped", k, o, 0, &b->rows[b->n_rows])) != AUG_OK)
            return st;
        b->n_rows++;
    }
    /* ids must be unique: sort a copy and look at neighbours */
    struct aug_validate_baseline_row *sorted = malloc(n ? n * sizeof *sorted : 1);
    if (!sorted)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    memcpy(sorted, b->rows, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_row_id);
    for (size_t i = 1; i < n; i++)
        if (strcmp(sorted[i - 1].id, sorted[i].id) == 0) {
            st = aug_errorf(AUG_EDATA, "%s: row id '%s' appears twice (ids must be unique)", path,
                            sorted[i].id);
            break;
        }
    free(sorted);
    return st;
}

int aug_validate_baseline_load(const char *path, struct aug_validate_baseline **out) {
    *out = NULL;
    char *text = NULL;
    long len = 0;
    int st = aug_read_file_max(path, BASELINE_FILE_MAX, &text, &len);
    if (st != AUG_OK)
        return st;
    json_t *root = NULL;
    st = aug_json_parse(path, text, &root);
    free(text);
    if (st != AUG_OK)
        return st;
    struct aug_validate_baseline *b = calloc(1, sizeof *b);
    if (!b) {
        json_decref(root);
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    st = load(path, root, b);
    json_decref(root);
    if (st != AUG_OK) {
        aug_validate_baseline_free(b);
        return st;
    }
    *out = b;
    return AUG_OK;
}

void aug_validate_baseline_free(struct aug_validate_baseline *b) {
    if (!b)
        return;
    free(b->rows);
    free(b);
}

static const struct aug_validate_baseline_row *find(const struct aug_validate_baseline_row *sorted,
                                                    size_t n, const char *id) {
    struct aug_validate_baseline_row key;
    memset(&key, 0, sizeof key);
    snprintf(key.id, sizeof key.id, "%s", id);
    return bsearch(&key, sorted, n, sizeof *sorted, cmp_row_id);
}

/* Sorted copy of the run's rows (id and error, NAN when skipped); AUG_EDATA on an id twice. */
static int sorted_run(const struct aug_validate_report *r, struct aug_validate_baseline_row **out) {
    size_t n = r->n_rows;
    struct aug_validate_baseline_row *s = calloc(n ? n : 1, sizeof *s);
    if (!s)
        return aug_errorf(AUG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        snprintf(s[i].id, sizeof s[i].id, "%s", r->rows[i].id);
        s[i].error_pct = r->rows[i].skipped ? NAN : r->rows[i].error_pct;
    }
    qsort(s, n, sizeof *s, cmp_row_id);
    for (size_t i = 1; i < n; i++)
        if (strcmp(s[i - 1].id, s[i].id) == 0) {
            int st = aug_errorf(AUG_EDATA, "row id '%s' appears twice in the set: ids must be "
                                           "unique to be compared with a baseline", s[i].id);
            free(s);
            return st;
        }
    *out = s;
    return AUG_OK;
}

int aug_validate_compare(const struct aug_validate_report *r, const struct aug_validate_baseline *b,
                         struct aug_validate_comparison *out) {
    memset(out, 0, sizeof *out);
    struct aug_validate_baseline_row *run = NULL, *base = NULL;
    int st = sorted_run(r, &run);
    if (st != AUG_OK)
        return st;
    base = malloc(b->n_rows ? b->n_rows * sizeof *base : 1);
    out->shifts = calloc(r->n_rows + b->n_rows ? r->n_rows + b->n_rows : 1, sizeof *out->shifts);
    if (!base || !out->shifts) {
        free(run);
        free(base);
        free(out->shifts);
        out->shifts = NULL;
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    memcpy(base, b->rows, b->n_rows * sizeof *base);
    qsort(base, b->n_rows, sizeof *base, cmp_row_id);
    out->mape_before_pct = b->mape_pct;
    out->mape_pct = r->mape_pct;
    double sum_before = 0.0, sum_now = 0.0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct aug_validate_row *row = &r->rows[i];
        const struct aug_validate_baseline_row *was = find(base, b->n_rows, row->id);
        struct aug_validate_shift *s = &out->shifts[out->n_shifts++];
        snprintf(s->id, sizeof s->id, "%s", row->id);
        s->error_before_pct = was ? was->error_pct : NAN;
        s->error_pct = row->skipped ? NAN : row->error_pct;
        s->shift_pct = NAN;
        int before = was && isfinite(was->error_pct), now = !row->skipped;
        s->change = !was               ? AUG_CHANGE_NEW
                    : before && now    ? AUG_CHANGE_KEPT
                    : before           ? AUG_CHANGE_NOW_SKIPPED
                    : now              ? AUG_CHANGE_NOW_PREDICTED
                                       : AUG_CHANGE_SKIPPED;
        if (s->change == AUG_CHANGE_NOW_SKIPPED)
            out->now_skipped++;
        if (s->change != AUG_CHANGE_KEPT)
            continue;
        s->now_over_memory = was->fits_in_memory == 1 && aug_validate_over_memory(row);
        out->now_over_memory += (size_t)s->now_over_memory;
        s->shift_pct = fabs(s->error_pct) - fabs(s->error_before_pct);
        if (fabs(s->shift_pct) < SAVED_ROUNDING_PTS)
            s->shift_pct = 0.0;
        sum_before += fabs(s->error_before_pct);
        sum_now += fabs(s->error_pct);
        out->kept++;
        if (s->shift_pct > out->max_shift_pct) {
            out->max_shift_pct = s->shift_pct;
            snprintf(out->max_shift_id, sizeof out->max_shift_id, "%s", s->id);
        }
    }
    for (size_t i = 0; i < b->n_rows; i++) { /* the baseline's rows this run lacks */
        if (find(run, r->n_rows, b->rows[i].id))
            continue;
        struct aug_validate_shift *s = &out->shifts[out->n_shifts++];
        snprintf(s->id, sizeof s->id, "%s", b->rows[i].id);
        s->change = AUG_CHANGE_GONE;
        s->error_before_pct = b->rows[i].error_pct;
        s->error_pct = NAN;
        s->shift_pct = NAN;
    }
    if (out->kept) {
        out->kept_mape_before_pct = sum_before / (double)out->kept;
        out->kept_mape_pct = sum_now / (double)out->kept;
    }
    free(run);
    free(base);
    return AUG_OK;
}

void aug_validate_comparison_free(struct aug_validate_comparison *c) {
    if (!c)
        return;
    free(c->shifts);
    c->shifts = NULL;
    c->n_shifts = 0;
}
