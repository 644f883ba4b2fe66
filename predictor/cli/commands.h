/* SPDX-License-Identifier: Apache-2.0 */
/* commands.h - the `augur` subcommands: one function per command, dispatched by the
 * table in main.c. Each takes the argv that starts at the command name and returns the
 * process exit code (0 ok, 1 failure, 2 usage). */
#ifndef AUG_CLI_COMMANDS_H
#define AUG_CLI_COMMANDS_H

int aug_cmd_train(int argc, char **argv);
int aug_cmd_infer(int argc, char **argv);
int aug_cmd_sweep(int argc, char **argv);
int aug_cmd_validate(int argc, char **argv);
int aug_cmd_models(int argc, char **argv);
int aug_cmd_systems(int argc, char **argv);

#endif
