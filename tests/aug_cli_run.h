/* SPDX-License-Identifier: Apache-2.0 */
/* aug_cli_run.h - running the `augur` binary ($AUGUR_BIN) as a subprocess from a cmocka
 * test: stdout and stderr captured into out_buf / err_buf, exit status returned, and the
 * assertions every CLI test makes. One test file includes it once; a test whose binary is
 * not built is skipped. */
#ifndef AUG_CLI_RUN_H
#define AUG_CLI_RUN_H

#include "aug_test.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *bin;
static char tmp_root[64], out_path[128], err_path[128];
static char out_buf[1 << 17], err_buf[1 << 14];

/* Make the test's scratch folder /tmp/<prefix>XXXXXX and find the binary. */
static int aug_cli_run_setup(const char *prefix) {
    bin = getenv("AUGUR_BIN");
    snprintf(tmp_root, sizeof tmp_root, "/tmp/%sXXXXXX", prefix);
    if (!mkdtemp(tmp_root))
        return -1;
    snprintf(out_path, sizeof out_path, "%s/stdout", tmp_root);
    snprintf(err_path, sizeof err_path, "%s/stderr", tmp_root);
    return 0;
}

/* Remove the captured streams, the named extra files and the folder. */
static void aug_cli_run_teardown(const char *const *files, size_t n) {
    char p[192];
    remove(out_path);
    remove(err_path);
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", tmp_root, files[i]);
        remove(p);
    }
    rmdir(tmp_root);
}

static void read_into(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    size_t n = 0;
    if (f) {
        n = fread(buf, 1, cap - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
}

/* Run augur with the NULL-terminated argument list; returns the exit status. */
static int run_argv(char *const *args) {
    if (!bin || access(bin, X_OK) != 0)
        skip();
    char *argv[48];
    int n = 0;
    argv[n++] = (char *)bin;
    for (int i = 0; args[i] && n < 47; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int st = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (st != 0)
        fail_msg("cannot run %s", bin);
    int ws = 0;
    if (waitpid(pid, &ws, 0) != pid)
        fail_msg("waitpid failed");
    read_into(out_path, out_buf, sizeof out_buf);
    read_into(err_path, err_buf, sizeof err_buf);
    if (!WIFEXITED(ws))
        fail_msg("augur died (signal %d); stderr: %s", WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, err_buf);
    return WEXITSTATUS(ws);
}

#define RUN(...) run_argv((char *const[]){__VA_ARGS__, NULL})

static void expect_exit(int got, int want) {
    if (got != want)
        fail_msg("exit %d, expected %d\nstdout: %.2000s\nstderr: %.2000s", got, want, out_buf,
                 err_buf);
}

static void err_has(const char *needle) {
    if (!strstr(err_buf, needle))
        fail_msg("stderr lacks '%s':\n%s", needle, err_buf);
}

static void out_has(const char *needle) {
    if (!strstr(out_buf, needle))
        fail_msg("stdout lacks '%s':\n%.4000s", needle, out_buf);
}

#endif
