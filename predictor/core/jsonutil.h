/* SPDX-License-Identifier: Apache-2.0 */
/* jsonutil.h - strict typed reads of JSON fields over jansson, with messages that name
 * the file, the line and column (parse errors) or the field (value errors).
 *
 * `ctx` prefixes every message; callers pass "<file>: model 'x'" or similar. A JSON null
 * counts as absent (Hugging Face writes "n_inner": null for "use the default"). */
#ifndef AUG_JSONUTIL_H
#define AUG_JSONUTIL_H

#include <stddef.h>

#include <jansson.h>

enum {
    AUG_JSON_REQUIRED = 1, /* absent or null is an error (else AUG_ENOTFOUND, *out kept) */
    AUG_JSON_POSITIVE = 2, /* number must be > 0 */
    AUG_JSON_NONNEG = 4    /* number must be >= 0 */
};

/* Parse `text`; malformed JSON gives AUG_EDATA "<origin>:<line>:<column>: malformed JSON:
 * <why>". Duplicate keys are rejected. The root must be an object. */
int aug_json_parse(const char *origin, const char *text, json_t **out);

/* Read and parse the JSON file `path` and find its array `field` (a preset file's
 * "models" or "systems"): *root_out owns *arr and is released with json_decref. File,
 * parse and type errors name the file (and the field). */
int aug_json_load_array(const char *path, const char *field, json_t **root_out, json_t **arr);

/* Whether a command-line name is a file rather than a preset name: it holds a '/' or
 * ends in ".json" (any case). */
int aug_json_is_file_arg(const char *name);

/* The member `key`, or NULL when absent or null. */
json_t *aug_json_get(json_t *obj, const char *key);

/* Integer field (an integral real such as 4096.0 is accepted). */
int aug_json_long(const char *ctx, json_t *obj, const char *key, int flags, long *out);
/* Number field (integer or real). */
int aug_json_double(const char *ctx, json_t *obj, const char *key, int flags, double *out);
/* Boolean field: true/false, or the integers 0 and 1. */
int aug_json_bool(const char *ctx, json_t *obj, const char *key, int flags, int *out);
/* String field copied into buf (AUG_EDATA when it does not fit or is empty). */
int aug_json_string(const char *ctx, json_t *obj, const char *key, int flags, char *buf,
                    size_t n);

/* snprintf for messages, names and citations where cutting a long text short is acceptable
 * (the loaders build them from user-supplied paths of any length). */
void aug_fmt_trunc(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Name of a JSON value's type for messages ("string", "array", ...). */
const char *aug_json_type_name(const json_t *v);

/* Index of the object of `arr` whose "name" is `name` (exact match first, then ignoring
 * case); json_array_size(arr) when none is. */
size_t aug_json_find_named(json_t *arr, const char *name);

/* AUG_ENOTFOUND: "unknown <kind> '<name>' (did you mean: ...)" with the closest "name"
 * values of arr, or a hint to `augur <list_cmd>` when none is close. */
int aug_json_unknown_named(json_t *arr, const char *kind, const char *name, const char *list_cmd);

#endif
