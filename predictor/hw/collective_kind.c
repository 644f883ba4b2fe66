/* SPDX-License-Identifier: Apache-2.0 */
/* collective_kind.c - the vocabulary of collectives: names and aliases of each collective,
 * algorithm and time source, and the nccl-tests bus-bandwidth factors (nccl-tests
 * doc/PERFORMANCE.md). kdb.c reads collective names from curves.csv with these, and
 * collective.c times them, so the names sit below both. */
#include <string.h>
#include <strings.h>

#include "augur/collective.h"
#include "augur/status.h"

static const char *const coll_names[] = {"all_reduce", "all_gather", "reduce_scatter",
                                         "all_to_all", "send_recv", "broadcast"};
_Static_assert(sizeof coll_names / sizeof *coll_names == AUG_COLL_COUNT, "coll names out of sync");
static const char *const algo_names[] = {"auto", "ring", "tree", "hierarchical"};
_Static_assert(sizeof algo_names / sizeof *algo_names == AUG_ALGO_COUNT, "algo names out of sync");
static const char *const source_names[] = {"curve", "fallback", "roofline"};
_Static_assert(sizeof source_names / sizeof *source_names == AUG_SOURCE_COUNT, "source names");

const char *aug_coll_name(enum aug_coll c) {
    return (unsigned)c < AUG_COLL_COUNT ? coll_names[c] : "?";
}
const char *aug_algo_name(enum aug_coll_algo a) {
    return (unsigned)a < AUG_ALGO_COUNT ? algo_names[a] : "?";
}
const char *aug_source_name(enum aug_source s) {
    return (unsigned)s < AUG_SOURCE_COUNT ? source_names[s] : "?";
}

int aug_coll_from_name(const char *name, enum aug_coll *out) {
    static const struct {
        const char *alias;
        enum aug_coll c;
    } aliases[] = {{"allreduce", AUG_COLL_ALL_REDUCE},  {"allgather", AUG_COLL_ALL_GATHER},
                   {"reducescatter", AUG_COLL_REDUCE_SCATTER}, {"alltoall", AUG_COLL_ALL_TO_ALL},
                   {"sendrecv", AUG_COLL_SEND_RECV},    {"p2p", AUG_COLL_SEND_RECV}};
    if (!name)
        return AUG_ENOTFOUND;
    for (int i = 0; i < AUG_COLL_COUNT; i++)
        if (strcasecmp(name, coll_names[i]) == 0) {
            *out = (enum aug_coll)i;
            return AUG_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcasecmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].c;
            return AUG_OK;
        }
    return aug_errorf(AUG_ENOTFOUND, "unknown collective '%s' (use all_reduce, all_gather, "
                                     "reduce_scatter, all_to_all, send_recv, broadcast)", name);
}

double aug_coll_busbw_factor(enum aug_coll c, int n) {
    if (n <= 1)
        return 1.0;
    double dn = (double)n;
    switch (c) {
    case AUG_COLL_ALL_REDUCE: return 2.0 * (dn - 1.0) / dn;
    case AUG_COLL_ALL_GATHER:
    case AUG_COLL_REDUCE_SCATTER:
    case AUG_COLL_ALL_TO_ALL: return (dn - 1.0) / dn;
    default: return 1.0;
    }
}
