/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_kernel.h - `augur kernel`: one kernel's predicted time. */
#ifndef AUG_CMD_KERNEL_H
#define AUG_CMD_KERNEL_H
int aug_cmd_kernel(int argc, char **argv);
#endif
