/* SPDX-License-Identifier: Apache-2.0 */
/* collective_internal.h - collective timing with ideal links (pure roofline). */
#ifndef AUG_COLLECTIVE_INTERNAL_H
#define AUG_COLLECTIVE_INTERNAL_H

#include "augur/collective.h"

/* aug_coll_time(), and with `ideal` set: nominal bandwidth, no latency, no curves
 * (source "roofline"). */
int aug_coll_time_ideal(const struct aug_system *sys, const struct aug_kdb *kdb, enum aug_coll c,
                        double size_bytes, int ranks, int ranks_per_domain,
                        enum aug_coll_algo algo, int ideal, struct aug_coll_time *out);

#endif
