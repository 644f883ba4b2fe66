/* SPDX-License-Identifier: Apache-2.0 */
/* host_time.h - host-visible time of one eagerly issued op (host_time.c). */
#ifndef AUG_HOST_TIME_H
#define AUG_HOST_TIME_H

#include "augur/op.h"

/* Per-call host overheads (us) of an eager framework around one op timed from the host
 * with synchronization: `pre`, the dispatch before the kernel starts, and `post`, the host
 * work after the launch before the closing event is recorded. */
void aug_host_overhead_us(const struct aug_op *op, double *pre_us, double *post_us);

/* Host-visible time of one call: pre + max(kernel, post). */
double aug_host_time_s(double kernel_s, double pre_us, double post_us);

#endif
