/* SPDX-License-Identifier: Apache-2.0 */
/* calibrate.h - the `augur calibrate` subcommand (argv[0] is "calibrate"; returns the
 * process exit code: 0 ok, 1 data or fit errors, 2 usage errors). */
#ifndef AUG_CAL_CALIBRATE_H
#define AUG_CAL_CALIBRATE_H

int aug_cmd_calibrate(int argc, char **argv);

#endif
