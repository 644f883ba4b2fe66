/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h - the command line of augur-profile, independent of the device backend.
 *
 * profiler/main.c hands the real CUDA backend to aug_prof_main; tests hand it a fake one and
 * run the same options, dry runs and exit codes without a GPU. */
#ifndef AUG_PROF_CLI_H
#define AUG_PROF_CLI_H

#include <signal.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse argv (argv[0] is the program name), then print help or version, list a dry run,
 * or run the sweep through `be`. `stop` (may be NULL) is polled between points. Returns
 * the process exit code: 0 done, 1 failure (a family that could not run, a lost device,
 * nothing measured), 2 usage error, 77 no usable GPU. Diagnostics and progress go to
 * stderr; --help, --version and the dry-run listing go to stdout. */
int aug_prof_main(int argc, char **argv, const struct aug_prof_backend *be,
                  volatile sig_atomic_t *stop);

#ifdef __cplusplus
}
#endif
#endif
