/* SPDX-License-Identifier: Apache-2.0 */
/* kdb_build.h - a kernels database built in memory rather than read from curves.csv
 * (kdb_transfer.c builds one for a GPU that was never profiled). */
#ifndef AUG_KDB_BUILD_H
#define AUG_KDB_BUILD_H

#include "augur/kdb.h"

/* An empty kdb for gpu_id; origin says where its curves will come from. */
int aug_kdb_new(const char *gpu_id, const char *origin, struct aug_kdb **out);
/* Append one GEMM, attention or memory curve (already validated: taken from a loaded
 * table); AUG_EUSAGE for a collective or a form that does not match. */
int aug_kdb_add_curve(struct aug_kdb *k, const struct aug_curve *c);

#endif
