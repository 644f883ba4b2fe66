/* SPDX-License-Identifier: Apache-2.0 */
/* topology.h - ranks on the machine's NVLink domains (topology.c). */
#ifndef AUG_HW_TOPOLOGY_H
#define AUG_HW_TOPOLOGY_H

#include "augur/system.h"

/* How many consecutive ranks of a group of `group` ranks, whose members are `stride`
 * ranks apart, share one NVLink domain (ranks map TP innermost, then CP, DP, PP). */
int aug_ranks_per_domain(const struct aug_system *s, long group, long stride);

#endif
