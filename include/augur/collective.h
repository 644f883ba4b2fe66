/* SPDX-License-Identifier: Apache-2.0 */
/* collective.h - collectives: bytes per rank, nccl-tests bus-bandwidth factors, and
 * time on a system (ring, tree, hierarchical), corrected by calibrated curves.
 *
 * Conventions follow nccl-tests (doc/PERFORMANCE.md): `size_bytes` is the buffer size
 * S that nccl-tests prints (the full vector for all-reduce, the gathered output for
 * all-gather, the input for reduce-scatter, the per-rank send buffer for all-to-all,
 * the message for send/recv). algbw = S / t and busbw = algbw * factor(n):
 *   all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n, all-to-all (n-1)/n,
 *   send/recv and broadcast 1. */
#ifndef AUG_COLLECTIVE_H
#define AUG_COLLECTIVE_H

#ifdef __cplusplus
extern "C" {
#endif

struct aug_system;
struct aug_kdb;

enum aug_coll {
    AUG_COLL_ALL_REDUCE,
    AUG_COLL_ALL_GATHER,
    AUG_COLL_REDUCE_SCATTER,
    AUG_COLL_ALL_TO_ALL,
    AUG_COLL_SEND_RECV,
    AUG_COLL_BROADCAST,
    AUG_COLL_COUNT
};

enum aug_coll_algo {
    AUG_ALGO_AUTO, /* what NCCL would pick: ring for bandwidth, tree when latency wins */
    AUG_ALGO_RING,
    AUG_ALGO_TREE,
    AUG_ALGO_HIER, /* intra-node reduce-scatter, inter-node all-reduce, intra all-gather */
    AUG_ALGO_COUNT
};

/* "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv", "broadcast". */
const char *aug_coll_name(enum aug_coll c);
int aug_coll_from_name(const char *name, enum aug_coll *out); /* also "allreduce", "sendrecv" */
const char *aug_algo_name(enum aug_coll_algo a);

/* nccl-tests bus-bandwidth factor for n ranks (1 for n <= 1). */
double aug_coll_busbw_factor(enum aug_coll c, int n);

/* Where a time came from (shared with every op). */
enum aug_source { AUG_SOURCE_CURVE, AUG_SOURCE_FALLBACK, AUG_SOURCE_ROOFLINE, AUG_SOURCE_COUNT };
const char *aug_source_name(enum aug_source s); /* "curve", "fallback", "roofline" */

struct aug_coll_time {
    double time_s;
    double busbw_gbps;          /* achieved bus bandwidth implied by time_s */
    enum aug_coll_algo algo;    /* the algorithm used */
    enum aug_source source;
    int crosses_network;        /* 1 when the group spans more than one NVLink domain */
    int extrapolated;           /* 1: a curve was used outside its measured size range */
};

/* Time of one collective of `size_bytes` over `ranks` ranks, `ranks_per_domain` of which
 * share an NVLink domain (ranks_per_domain >= ranks: all on NVLink). kdb may be NULL. */
int aug_coll_time(const struct aug_system *sys, const struct aug_kdb *kdb, enum aug_coll c,
                  double size_bytes, int ranks, int ranks_per_domain, enum aug_coll_algo algo,
                  struct aug_coll_time *out);

/* Time of a DeepEP dispatch or combine (the normal kernels of deepseek-ai/DeepEP,
 * csrc/kernels/internode.cu and intranode.cu): `size_bytes` is the rank's all-to-all buffer
 * as NCCL would move it (every token copy), net_share in (0, 1] the share of its off-domain
 * copies that cross the network once deduplicated per destination domain. The network part
 * and the NVLink forwarding run at once (the larger binds); never from a curve (an NCCL
 * table does not describe DeepEP), source "fallback" (or "roofline" with `ideal`). */
int aug_coll_deepep_time(const struct aug_system *sys, double size_bytes, int ranks,
                         int ranks_per_domain, double net_share, int ideal,
                         struct aug_coll_time *out);

#ifdef __cplusplus
}
#endif
#endif
