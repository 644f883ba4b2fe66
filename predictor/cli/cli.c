/* SPDX-License-Identifier: Apache-2.0 */
/* cli.c - diagnostics, strict option parsing and output formatting for every command. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "augur/csvio.h"
#include "augur/model.h"
#include "augur/system.h"
#include "augur/status.h"
#include "augur/units.h"
#include "core/atomic_write.h"

int aug_cli_fail(int status, const char *msg) {
    fprintf(stderr, "augur: %s\n", msg ? msg : aug_last_error());
    return aug_exit_code(status);
}

int aug_cli_usage(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "augur %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'augur %s --help'\n", cmd);
    return 2;
}

int aug_cli_long(const char *cmd, const char *opt, const char *val, long lo, long hi, long *out) {
    if (aug_parse_long(val, opt, lo, hi, out) != AUG_OK)
        return aug_cli_usage(cmd, "%s", aug_last_error());
    return 0;
}

int aug_cli_double(const char *cmd, const char *opt, const char *val, double *out) {
    if (aug_parse_double(val, opt, out) != AUG_OK)
        return aug_cli_usage(cmd, "%s", aug_last_error());
    return 0;
}

int aug_cli_format(const char *cmd, const char *val, enum aug_format *out) {
    if (strcmp(val, "table") == 0)
        *out = AUG_FORMAT_TABLE;
    else if (strcmp(val, "json") == 0)
        *out = AUG_FORMAT_JSON;
    else if (strcmp(val, "csv") == 0)
        *out = AUG_FORMAT_CSV;
    else
        return aug_cli_usage(cmd, "--format: unknown format '%s' (use table, json or csv)", val);
    return 0;
}

void aug_cli_warn_model_keys(const char *model_arg) {
    static struct aug_model_record rec;
    struct aug_model m;
    if (aug_model_load_record(NULL, model_arg, &m, &rec) != AUG_OK)
        return;
    char list[512] = "";
    int n = 0;
    for (int i = 0; i < rec.n; i++) {
        if (rec.keys[i].use != AUG_KEY_UNMODELED)
            continue;
        size_t l = strlen(list);
        if (l + strlen(rec.keys[i].key) + 8 < sizeof list)
            snprintf(list + l, sizeof list - l, "%s%s", n ? ", " : "", rec.keys[i].key);
        n++;
    }
    if (n)
        fprintf(stderr, "augur: warning: %s: %d field%s augur does not model: %s (see `augur "
                "models --show %s`)\n", rec.path, n, n == 1 ? "" : "s", list, model_arg);
}

int aug_cli_load_model_system(const char *kdb_root, const char *model_arg, const char *system_arg,
                              struct aug_model *model, struct aug_system *sys) {
    int st = aug_model_load(NULL, model_arg, model);
    if (st == AUG_OK)
        aug_cli_warn_model_keys(model_arg);
    if (st == AUG_OK)
        st = aug_system_load(kdb_root, system_arg, sys);
    return st == AUG_OK ? 0 : aug_cli_fail(st, NULL);
}

/* The one --output file being written (commands write one output at a time). */
static struct aug_atomic cli_out;

FILE *aug_cli_open_output(const char *path) {
    if (!path || strcmp(path, "-") == 0)
        return stdout;
    if (cli_out.fp) {
        fprintf(stderr, "augur: cannot write '%s': another output is open\n", path);
        return NULL;
    }
    if (aug_atomic_open(&cli_out, path) != AUG_OK) {
        fprintf(stderr, "augur: %s\n", aug_last_error());
        return NULL;
    }
    return cli_out.fp;
}

int aug_cli_close_output(FILE *f, const char *path) {
    if (f == stdout) {
        errno = 0;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "augur: cannot write to standard output: %s\n",
                    errno ? strerror(errno) : "write error");
            return 1;
        }
        return 0;
    }
    if (!f || f != cli_out.fp) {
        fprintf(stderr, "augur: cannot write '%s': not open\n", path ? path : "");
        return 1;
    }
    if (aug_atomic_commit(&cli_out) != AUG_OK) {
        fprintf(stderr, "augur: %s\n", aug_last_error());
        return 1;
    }
    return 0;
}

void aug_cli_discard_output(FILE *f) {
    if (f && f == cli_out.fp)
        aug_atomic_abort(&cli_out);
    else if (f == stdout)
        fflush(stdout);
}

int aug_cli_close_stdout(void) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "augur: cannot write to standard output: %s\n",
                errno ? strerror(errno) : "write error");
        return 1;
    }
    return 0;
}

static void leaf_text(json_t *v, char *buf, size_t n) {
    if (json_is_real(v)) {
        double d = json_real_value(v);
        snprintf(buf, n, "%.6g", d);
    } else if (json_is_integer(v)) {
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    } else if (json_is_string(v)) {
        snprintf(buf, n, "%s", json_string_value(v));
    } else if (json_is_true(v)) {
        snprintf(buf, n, "true");
    } else if (json_is_false(v)) {
        snprintf(buf, n, "false");
    } else if (json_is_null(v)) {
        buf[0] = '\0';
    } else {
        char *s = json_dumps(v, JSON_COMPACT);
        snprintf(buf, n, "%s", s ? s : "");
        free(s);
    }
}

/* Visit every leaf with its dotted key. */
static void flatten(json_t *obj, const char *prefix, void (*fn)(const char *, json_t *, void *),
                    void *user) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        char full[256];
        if (prefix[0])
            snprintf(full, sizeof full, "%s.%s", prefix, key);
        else
            snprintf(full, sizeof full, "%s", key);
        if (json_is_object(v))
            flatten(v, full, fn, user);
        else
            fn(full, v, user);
    }
}

static void table_leaf(const char *key, json_t *v, void *user) {
    char buf[1024];
    leaf_text(v, buf, sizeof buf);
    fprintf((FILE *)user, "%-40s %s\n", key, buf);
}

static void csv_head(const char *key, json_t *v, void *user) {
    (void)v;
    aug_csv_write_str(user, key);
}

static void csv_cell(const char *key, json_t *v, void *user) {
    (void)key;
    char buf[1024];
    leaf_text(v, buf, sizeof buf);
    aug_csv_write_str(user, buf);
}

json_t *aug_cli_json_text(const char *text) {
    json_t *v = text && text[0] ? json_string(text) : NULL;
    return v ? v : json_null();
}

int aug_cli_write(FILE *f, enum aug_format fmt, json_t *obj_in) {
    /* schema_version first (predictor/schemas/README.md): it changes when a key is renamed or
     * removed or changes meaning, not when one is added */
    json_t *obj = json_object();
    if (!obj || json_object_set_new(obj, "schema_version",
                                    json_integer(AUG_OUTPUT_SCHEMA_VERSION)) != 0 ||
        json_object_update(obj, obj_in) != 0) {
        json_decref(obj);
        return 1;
    }
    int rc = 0;
    if (fmt == AUG_FORMAT_JSON) {
        if (json_dumpf(obj, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0)
            rc = 1;
        else
            fputc('\n', f);
        json_decref(obj);
        return rc;
    }
    if (fmt == AUG_FORMAT_TABLE) {
        flatten(obj_in, "", table_leaf, f);
        json_decref(obj);
        return 0;
    }
    struct aug_csv_writer *w;
    if (aug_csv_writer_fp(f, &w) != AUG_OK) {
        json_decref(obj);
        return 1;
    }
    flatten(obj, "", csv_head, w);
    aug_csv_end_row(w);
    flatten(obj, "", csv_cell, w);
    aug_csv_end_row(w);
    json_decref(obj);
    return aug_csv_writer_commit(w) == AUG_OK ? 0 : 1;
}
