/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_profile.h - `augur profile`: runs the augur-profile binary (built only with CUDA). */
#ifndef AUG_CLI_CMD_PROFILE_H
#define AUG_CLI_CMD_PROFILE_H

/* argv[0] is "profile"; the rest goes to augur-profile unchanged. Looks for augur-profile
 * next to the running augur, then in the build tree's profiler folder, then on PATH, and
 * replaces this process with it. When it is not found, says how to build it and returns 1. */
int aug_cmd_profile(int argc, char **argv);

#endif
