/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h - shared pieces of the command-line front-end: diagnostics, strict number
 * options, output formats (table, JSON, CSV) from one JSON result object. */
#ifndef AUG_CLI_H
#define AUG_CLI_H

#include <jansson.h>
#include <stdio.h>

enum aug_format { AUG_FORMAT_TABLE, AUG_FORMAT_JSON, AUG_FORMAT_CSV };

/* "augur: <message>" on stderr (message from aug_last_error when NULL); returns exit code. */
int aug_cli_fail(int status, const char *msg);
/* Usage error: "augur <cmd>: <what>" and the hint line; returns 2. */
int aug_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse option values; on error print a usage error naming the option and return 2. */
int aug_cli_long(const char *cmd, const char *opt, const char *val, long lo, long hi, long *out);
int aug_cli_double(const char *cmd, const char *opt, const char *val, double *out);
int aug_cli_format(const char *cmd, const char *val, enum aug_format *out);

/* Load --model and --system (kdb_root: where gpus.csv lives, NULL = default). Returns the
 * exit code of the failure (message printed) or 0. */
struct aug_model;
struct aug_system;
/* Warn on stderr, by name, about the keys of a model file augur does not model. */
void aug_cli_warn_model_keys(const char *model_arg);
int aug_cli_load_model_system(const char *kdb_root, const char *model_arg, const char *system_arg,
                              struct aug_model *model, struct aug_system *sys);

/* Open --output (or stdout for NULL and "-"); NULL on failure (message printed). A file
 * is written to a temporary beside it; aug_cli_close_output() renames it over the old
 * one when every write succeeded (0), or prints why not and keeps the old file (1).
 * aug_cli_discard_output() drops a partial output (a failed command). */
FILE *aug_cli_open_output(const char *path);
int aug_cli_close_output(FILE *f, const char *path);
void aug_cli_discard_output(FILE *f);
/* Flush stdout at exit: 0, or 1 with a message when a write failed (disk full). */
int aug_cli_close_stdout(void);

/* Write a result object in the chosen format. Table: one "key  value" line per leaf,
 * nested objects as "parent.child"; CSV: a header of the flattened keys and one row. */
/* Version of the JSON and CSV outputs (the "schema_version" key and column, first), and
 * of the JSON Schemas in schemas/: raised when a key is renamed, removed or changes
 * meaning; adding a key keeps it. */
#define AUG_OUTPUT_SCHEMA_VERSION 1
int aug_cli_write(FILE *f, enum aug_format fmt, json_t *obj);
/* A JSON string of text read from input (a row id, a file name), or null for an empty
 * text or one that is not UTF-8: the key stays, never silently dropped. */
json_t *aug_cli_json_text(const char *text);

#endif
