/* SPDX-License-Identifier: Apache-2.0 */
/* jsonutil.c - typed, strict JSON field reads shared by the model and system loaders.
 *
 * Every input file is user-facing, so every failure says where: parse errors carry the
 * line and column jansson reports, value errors the field name and what was found. */
#include "jsonutil.h"
#include "suggest.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "augur/data.h"
#include "augur/status.h"

int aug_json_parse(const char *origin, const char *text, json_t **out) {
    json_error_t err;
    *out = NULL;
    /* a UTF-8 byte order mark (Windows editors) is skipped, as the CSV reader does */
    if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        text += 3;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return aug_errorf(AUG_EDATA, "%s:%d:%d: malformed JSON: %s", origin, err.line,
                          err.column, err.text);
    if (!json_is_object(root)) {
        int st = aug_errorf(AUG_EDATA, "%s:1:1: expected a JSON object at the top, got %s",
                            origin, aug_json_type_name(root));
        json_decref(root);
        return st;
    }
    *out = root;
    return AUG_OK;
}

void aug_fmt_trunc(char *dst, size_t n, const char *fmt, ...) {
    if (n == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

const char *aug_json_type_name(const json_t *v) {
    if (!v)
        return "nothing";
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

json_t *aug_json_get(json_t *obj, const char *key) {
    json_t *v = json_object_get(obj, key);
    return (v && !json_is_null(v)) ? v : NULL;
}

static int absent(const char *ctx, const char *key, int flags) {
    if (flags & AUG_JSON_REQUIRED)
        return aug_errorf(AUG_EDATA, "%s: field '%s' is missing", ctx, key);
    return AUG_ENOTFOUND;
}

static int check_sign(const char *ctx, const char *key, int flags, double v) {
    if ((flags & AUG_JSON_POSITIVE) && !(v > 0))
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be positive (got %g)", ctx, key, v);
    if ((flags & AUG_JSON_NONNEG) && !(v >= 0))
        return aug_errorf(AUG_EDATA, "%s: field '%s' must not be negative (got %g)", ctx, key,
                          v);
    return AUG_OK;
}

int aug_json_long(const char *ctx, json_t *obj, const char *key, int flags, long *out) {
    json_t *v = aug_json_get(obj, key);
    if (!v)
        return absent(ctx, key, flags);
    double d;
    if (json_is_integer(v)) {
        d = (double)json_integer_value(v);
    } else if (json_is_real(v)) {
        d = json_real_value(v);
        if (d != floor(d))
            return aug_errorf(AUG_EDATA, "%s: field '%s' must be an integer (got %g)", ctx, key,
                              d);
    } else {
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be an integer (got %s)", ctx, key,
                          aug_json_type_name(v));
    }
    if (!(fabs(d) < 9.0e15)) /* exactly representable, far beyond any real size */
        return aug_errorf(AUG_EDATA, "%s: field '%s' is out of range (got %g)", ctx, key, d);
    int st = check_sign(ctx, key, flags, d);
    if (st)
        return st;
    *out = (long)d;
    return AUG_OK;
}

int aug_json_double(const char *ctx, json_t *obj, const char *key, int flags, double *out) {
    json_t *v = aug_json_get(obj, key);
    if (!v)
        return absent(ctx, key, flags);
    if (!json_is_number(v))
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be a number (got %s)", ctx, key,
                          aug_json_type_name(v));
    double d = json_number_value(v);
    if (!isfinite(d))
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be finite", ctx, key);
    int st = check_sign(ctx, key, flags, d);
    if (st)
        return st;
    *out = d;
    return AUG_OK;
}

int aug_json_bool(const char *ctx, json_t *obj, const char *key, int flags, int *out) {
    json_t *v = aug_json_get(obj, key);
    if (!v)
        return absent(ctx, key, flags);
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return AUG_OK;
    }
    if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1)) {
        *out = (int)json_integer_value(v);
        return AUG_OK;
    }
    return aug_errorf(AUG_EDATA, "%s: field '%s' must be true or false (got %s)", ctx, key,
                      aug_json_type_name(v));
}

int aug_json_string(const char *ctx, json_t *obj, const char *key, int flags, char *buf,
                    size_t n) {
    json_t *v = aug_json_get(obj, key);
    if (!v)
        return absent(ctx, key, flags);
    if (!json_is_string(v))
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be a string (got %s)", ctx, key,
                          aug_json_type_name(v));
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len == 0)
        return aug_errorf(AUG_EDATA, "%s: field '%s' is empty", ctx, key);
    if (len >= n || strlen(s) != len)
        return aug_errorf(AUG_EDATA, "%s: field '%s' is longer than %zu bytes or holds NUL",
                          ctx, key, n - 1);
    memcpy(buf, s, len + 1);
    return AUG_OK;
}

size_t aug_json_find_named(json_t *arr, const char *name) {
    size_t n = json_array_size(arr);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            json_t *nm = json_object_get(json_array_get(arr, i), "name");
            if (!json_is_string(nm))
                continue;
            const char *s = json_string_value(nm);
            if (pass == 0 ? strcmp(s, name) == 0 : strcasecmp(s, name) == 0)
                return i;
        }
    return n;
}

int aug_json_unknown_named(json_t *arr, const char *kind, const char *name, const char *list_cmd) {
    struct aug_suggest sg;
    char hint[256];
    aug_suggest_init(&sg, name);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *nm = json_object_get(json_array_get(arr, i), "name");
        if (json_is_string(nm))
            aug_suggest_add(&sg, json_string_value(nm));
    }
    aug_suggest_format(&sg, hint, sizeof hint);
    if (hint[0])
        return aug_errorf(AUG_ENOTFOUND, "unknown %s '%s'%s", kind, name, hint);
    return aug_errorf(AUG_ENOTFOUND, "unknown %s '%s' (not a preset; 'augur %s' lists them, and "
                                     "a path must contain '/' or end in .json)", kind, name, list_cmd);
}

int aug_json_load_array(const char *path, const char *field, json_t **root_out, json_t **arr) {
    char *text;
    int st = aug_read_file(path, &text, NULL);
    if (st)
        return st;
    json_t *root;
    st = aug_json_parse(path, text, &root);
    free(text);
    if (st)
        return st;
    *arr = json_object_get(root, field);
    if (!json_is_array(*arr)) {
        json_decref(root);
        return aug_errorf(AUG_EDATA, "%s: field '%s' must be an array", path, field);
    }
    *root_out = root;
    return AUG_OK;
}

int aug_json_is_file_arg(const char *name) {
    size_t n = strlen(name);
    return strchr(name, '/') != NULL || (n >= 5 && strcasecmp(name + n - 5, ".json") == 0);
}
