/* SPDX-License-Identifier: Apache-2.0 */
/* topology.c - how ranks map onto the machine: Megatron's order puts TP innermost, then
 * CP, DP and PP outermost, so a group whose members are `stride` ranks apart shares an
 * NVLink domain with as many of its members as fit in one. */
#include "topology.h"

int aug_ranks_per_domain(const struct aug_system *s, long group, long stride) {
    long domain = s->nvlink_domain > 0 ? s->nvlink_domain : s->gpus_per_node;
    if (stride < 1)
        stride = 1;
    if (stride >= domain)
        return 1;
    long fit = domain / stride;
    return (int)(fit < group ? fit : group);
}
