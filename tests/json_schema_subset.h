/* SPDX-License-Identifier: Apache-2.0 */
/* json_schema_subset.h - a validator of the part of JSON Schema (draft 2020-12) that the
 * schemas in schemas/ use: type (one name or a list; "integer" also satisfies "number"),
 * properties, required, additionalProperties (false or a schema), items, minimum, maximum, const and
 * enum. Debian packages no C JSON Schema validator, and the test suite is C on jansson,
 * so this one is written here; a schema keyword outside the subset is reported as an
 * error rather than ignored, so a schema cannot silently ask for more than is checked. */
#ifndef AUG_JSON_SCHEMA_SUBSET_H
#define AUG_JSON_SCHEMA_SUBSET_H

#include <stdio.h>
#include <string.h>

#include <jansson.h>

static int aug_js_type_is(const json_t *v, const char *t) {
    if (strcmp(t, "object") == 0) return json_is_object(v);
    if (strcmp(t, "array") == 0) return json_is_array(v);
    if (strcmp(t, "string") == 0) return json_is_string(v);
    if (strcmp(t, "integer") == 0) return json_is_integer(v);
    if (strcmp(t, "number") == 0) return json_is_number(v);
    if (strcmp(t, "boolean") == 0) return json_is_boolean(v);
    if (strcmp(t, "null") == 0) return json_is_null(v);
    return 0;
}

/* 0 when `v` satisfies `schema`; else 1 with the first violation, naming its JSON path,
 * in err[n]. */
static int aug_js_validate(const json_t *schema, const json_t *v, const char *path, char *err,
                           size_t n) {
    static const char *const known[] = {"$schema", "$id", "title", "description", "type",
                                        "properties", "required", "additionalProperties",
                                        "items", "minimum", "maximum", "const", "enum", NULL};
    const char *key;
    json_t *kw;
    json_object_foreach((json_t *)schema, key, kw) {
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, key) == 0;
        if (!ok) {
            snprintf(err, n, "%s: schema keyword '%s' is outside the checked subset", path, key);
            return 1;
        }
    }
    json_t *type = json_object_get(schema, "type");
    if (type) {
        int ok = 0;
        if (json_is_string(type))
            ok = aug_js_type_is(v, json_string_value(type));
        for (size_t i = 0; json_is_array(type) && i < json_array_size(type) && !ok; i++)
            ok = aug_js_type_is(v, json_string_value(json_array_get(type, i)));
        if (!ok) {
            char *t = json_dumps(type, JSON_COMPACT | JSON_ENCODE_ANY);
            snprintf(err, n, "%s: expected type %s", path, t ? t : "?");
            free(t);
            return 1;
        }
    }
    json_t *c = json_object_get(schema, "const");
    if (c && !json_equal(c, (json_t *)v)) {
        snprintf(err, n, "%s: not the constant the schema requires", path);
        return 1;
    }
    json_t *en = json_object_get(schema, "enum");
    if (en) {
        int ok = 0;
        for (size_t i = 0; i < json_array_size(en) && !ok; i++)
            ok = json_equal(json_array_get(en, i), (json_t *)v);
        if (!ok) {
            snprintf(err, n, "%s: not one of the enumerated values", path);
            return 1;
        }
    }
    json_t *mn = json_object_get(schema, "minimum"), *mx = json_object_get(schema, "maximum");
    if (json_is_number(v) && mn && json_number_value(v) < json_number_value(mn)) {
        snprintf(err, n, "%s: %g is below the minimum %g", path, json_number_value(v),
                 json_number_value(mn));
        return 1;
    }
    if (json_is_number(v) && mx && json_number_value(v) > json_number_value(mx)) {
        snprintf(err, n, "%s: %g is above the maximum %g", path, json_number_value(v),
                 json_number_value(mx));
        return 1;
    }
    char sub[400];
    if (json_is_object(v)) {
        json_t *req = json_object_get(schema, "required");
        for (size_t i = 0; i < json_array_size(req); i++) {
            const char *r = json_string_value(json_array_get(req, i));
            if (r && !json_object_get(v, r)) {
                snprintf(err, n, "%s: required key '%s' is missing", path, r);
                return 1;
            }
        }
        json_t *props = json_object_get(schema, "properties");
        json_t *addl = json_object_get(schema, "additionalProperties");
        json_t *val;
        json_object_foreach((json_t *)v, key, val) {
            json_t *ps = props ? json_object_get(props, key) : NULL;
            snprintf(sub, sizeof sub, "%.300s.%.90s", path, key);
            if (!ps && json_is_false(addl)) {
                snprintf(err, n, "%.400s: key not allowed by the schema", sub);
                return 1;
            }
            if (!ps && json_is_object(addl))
                ps = addl; /* a map: every other key's value has this schema */
            if (ps && aug_js_validate(ps, val, sub, err, n))
                return 1;
        }
    }
    json_t *items = json_object_get(schema, "items");
    if (json_is_array(v) && items) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            snprintf(sub, sizeof sub, "%.300s[%zu]", path, i);
            if (aug_js_validate(items, json_array_get(v, i), sub, err, n))
                return 1;
        }
    }
    return 0;
}

#endif
