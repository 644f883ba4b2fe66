/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_sweep.h - `augur sweep`: every parallelization plan of a model on a system, the
 * Pareto front, and what-if hardware (technology scaling). */
#ifndef AUG_CMD_SWEEP_H
#define AUG_CMD_SWEEP_H

/* argv[0] is "sweep"; argv[1] the mode: train, infer, scaling or generations. */
int aug_cmd_sweep(int argc, char **argv);

#endif
