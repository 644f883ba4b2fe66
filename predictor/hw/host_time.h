/* host_time.h - host-visible time of one eagerly issued op (host_time.c). */
#ifndef AUG_HOST_TIME_H
#define AUG_HOST_TIME_H

#include "augur/op.h"

/* Per-call host overhead (us) an eager framework adds around one op timed from the host
 * with synchronization (CUDA events around the call, or wall clock). */
double aug_host_overhead_us(const struct aug_op *op);

/* Host-visible time of one call: max(kernel, host overhead) when the host issues the op
 * while the GPU is idle is not what events measure; they measure the dispatch and the
 * kernel in sequence: kernel_s + host_us. */
double aug_host_time_s(double kernel_s, double host_us);

#endif
