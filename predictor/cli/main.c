/* SPDX-License-Identifier: Apache-2.0 */
/* main.c - `augur <command>`: the git-style front-end. One table row per command. */
#include <stdio.h>
#include <string.h>

#include "augur/augur.h"
#include "cli.h"
#include "commands.h"
#include "../../calibrate/calibrate.h"
#include "cmd_profile.h"
#include "cmd_kernel.h"
#include "progress_tty.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"train", aug_cmd_train, "predict one training iteration (time, MFU, memory)"},
    {"infer", aug_cmd_infer, "predict serving latency and throughput (TTFT, TPOT)"},
    {"sweep", aug_cmd_sweep, "search every parallelization plan; Pareto front; what-if hardware"},
    {"validate", aug_cmd_validate, "score predictions against measured runs (accuracy CSV)"},
    {"kernel", aug_cmd_kernel, "predict one kernel's time and say where it came from"},
    {"calibrate", aug_cmd_calibrate, "fit efficiency curves from measurements into kernels-db"},
    {"profile", aug_cmd_profile, "measure this machine's GPUs (runs augur-profile)"},
    {"models", aug_cmd_models, "list model presets"},
    {"systems", aug_cmd_systems, "list system presets"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: augur <command> [options]   (augur <command> --help for details)\n\n"
               "augur predicts how fast, and in how much memory, large language models train\n"
               "and serve on GPU systems: an analytical model corrected by efficiency curves\n"
               "calibrated on real GPUs.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nenvironment: AUGUR_DATA_DIR (presets), AUGUR_KDB (kernels-db root),\n"
               "  HF_HUB_CACHE or HF_HOME (Hugging Face cache for --model org/name)\n");
}

static int run(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("augur %s\n", AUG_VERSION_STRING);
        return 0;
    }
    aug_cli_progress_init();
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "augur: '%s' is not an augur command\nTry 'augur --help'\n", cmd);
    return 2;
}

int main(int argc, char **argv) {
    int rc = run(argc, argv);
    /* a full disk or a closed pipe on stdout is a failure, as in coreutils' close_stdout */
    if (aug_cli_close_stdout() != 0 && rc == 0)
        rc = 1;
    return rc;
}
