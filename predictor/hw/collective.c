/* SPDX-License-Identifier: Apache-2.0 */
/* collective.c - collective communication time: alpha-beta models of ring, tree and
 * hierarchical algorithms with nccl-tests bus-bandwidth factors, replaced by the GPU's
 * calibrated curve when one covers the collective, group size and link.
 *
 * Ring (Patarasuk & Yuan 2009; nccl-tests doc/PERFORMANCE.md): n-1 steps for all-gather,
 * reduce-scatter and all-to-all, 2(n-1) for all-reduce, each paying the link latency,
 * plus S * factor(n) / busbw. Tree (NCCL double binary tree): 2 log2(n) latency steps
 * and the same bandwidth term. A group that spans N NVLink domains with r ranks in each
 * gets r NICs worth of network bandwidth (one NIC per GPU, NCCL rings per NIC rail), so
 * its bus bandwidth is min(nvlink, r * nic); hierarchical all-reduce is intra-domain
 * reduce-scatter + inter-domain all-reduce of S/r + intra-domain all-gather. All-to-all
 * across domains sends the off-domain share of every buffer through each GPU's own NIC. */
#include "augur/collective.h"

#include <math.h>
#include <string.h>

#include "augur/kdb.h"
#include "augur/status.h"
#include "augur/system.h"
#include "collective_internal.h"
#include "efficiency.h"

/* Latency steps of the ring form. */
static double ring_steps(enum aug_coll c, int n) {
    switch (c) {
    case AUG_COLL_ALL_REDUCE: return 2.0 * (n - 1);
    case AUG_COLL_SEND_RECV: return 1.0;
    case AUG_COLL_BROADCAST: return (double)(n - 1);
    default: return (double)(n - 1);
    }
}

/* Bus bandwidth (B/s) and per-step latency (s) of a group on the system, fallback model. */
static void group_link(const struct aug_system *s, int ranks, int per_domain, int ideal,
                       double *busbw, double *lat, int *crosses) {
    const struct aug_eff_defaults *d = aug_eff_defaults();
    double eff_nv = ideal ? 1.0 : d->coll_eff[AUG_LINK_NVLINK];
    double eff_net = ideal ? 1.0 : d->coll_eff[AUG_LINK_NETWORK];
    const struct aug_link_spec *nv = &s->link[AUG_LINK_NVLINK], *net = &s->link[AUG_LINK_NETWORK];
    if (per_domain >= ranks || ranks <= 1) {
        *busbw = nv->bw_gbps * 1e9 * eff_nv;
        *lat = ideal ? 0.0 : nv->latency_us * 1e-6;
        *crosses = 0;
        return;
    }
    double r = per_domain < 1 ? 1.0 : (double)per_domain;
    double net_bw = r * net->bw_gbps * 1e9 * eff_net;
    double nv_bw = nv->bw_gbps * 1e9 * eff_nv;
    *busbw = per_domain > 1 && nv_bw < net_bw ? nv_bw : net_bw;
    *lat = ideal ? 0.0 : net->latency_us * 1e-6;
    *crosses = 1;
}

static double flat_time(enum aug_coll c, double size, int n, double busbw, double lat, int tree) {
    double steps = ring_steps(c, n);
    if (tree && (c == AUG_COLL_ALL_REDUCE || c == AUG_COLL_BROADCAST))
        steps = (c == AUG_COLL_ALL_REDUCE ? 2.0 : 1.0) * ceil(log2((double)n));
    return steps * lat + size * aug_coll_busbw_factor(c, n) / busbw;
}

/* Calibrated time: the exact group size and link, else the nearest calibrated group on
 * the same link rescaled by the ratio of bus-bandwidth factors (busbw carries over). */
static int curve_time(const struct aug_kdb *kdb, enum aug_coll c, double size, int ranks,
                      const char *link, double *t_s, int *used_ranks) {
    double t_us;
    if (!kdb)
        return 0;
    *used_ranks = ranks;
    if (aug_kdb_collective_time_us(kdb, c, size, ranks, link, &t_us)) {
        *t_s = t_us * 1e-6;
        return 1;
    }
    static const int tries[] = {8, 4, 16, 2, 32, 64};
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        int r = tries[i];
        if (r == ranks || aug_coll_busbw_factor(c, r) <= 0)
            continue;
        if (aug_kdb_collective_time_us(kdb, c, size, r, link, &t_us)) {
            *t_s = t_us * 1e-6 * aug_coll_busbw_factor(c, ranks) / aug_coll_busbw_factor(c, r);
            *used_ranks = r;
            return 1;
        }
    }
    return 0;
}

int aug_coll_time(const struct aug_system *sys, const struct aug_kdb *kdb, enum aug_coll c,
                  double size_bytes, int ranks, int ranks_per_domain, enum aug_coll_algo algo,
                  struct aug_coll_time *out) {
    return aug_coll_time_ideal(sys, kdb, c, size_bytes, ranks, ranks_per_domain, algo, 0, out);
}

int aug_coll_time_ideal(const struct aug_system *sys, const struct aug_kdb *kdb, enum aug_coll c,
                        double size_bytes, int ranks, int ranks_per_domain,
                        enum aug_coll_algo algo, int ideal, struct aug_coll_time *out) {
    memset(out, 0, sizeof *out);
    if ((unsigned)c >= AUG_COLL_COUNT)
        return aug_errorf(AUG_EDATA, "unknown collective %d", (int)c);
    if (ranks < 1 || !(size_bytes >= 0) || !isfinite(size_bytes))
        return aug_errorf(AUG_EDATA, "collective %s: ranks %d and size %g must be positive",
                          aug_coll_name(c), ranks, size_bytes);
    if (ranks_per_domain < 1)
        ranks_per_domain = 1;
    if (c == AUG_COLL_SEND_RECV && ranks < 2)
        ranks = 2;
    out->algo = algo == AUG_ALGO_AUTO ? AUG_ALGO_RING : algo;
    out->source = ideal ? AUG_SOURCE_ROOFLINE : AUG_SOURCE_FALLBACK;
    if (ranks <= 1 && c != AUG_COLL_SEND_RECV)
        return AUG_OK; /* a group of one moves nothing */
    if (size_bytes == 0)
        return AUG_OK;

    double busbw, lat;
    int crosses;
    group_link(sys, ranks, ranks_per_domain, ideal, &busbw, &lat, &crosses);
    out->crosses_network = crosses;
    const char *link = aug_link_name(crosses ? AUG_LINK_NETWORK : AUG_LINK_NVLINK);

    double t_cal;
    int used = ranks;
    if (!ideal && algo == AUG_ALGO_AUTO &&
        curve_time(kdb, c, size_bytes, ranks, link, &t_cal, &used)) {
        out->time_s = t_cal;
        out->source = AUG_SOURCE_CURVE;
        double lo, hi;
        if (aug_kdb_collective_range(kdb, c, used, link, &lo, &hi) &&
            (size_bytes < lo || size_bytes > hi)) {
            out->extrapolated = 1;
            /* beyond the measured sizes the curve tends to the link's achievable bus
             * bandwidth (busbw above: nominal x coll_eff), never above it */
            double f = aug_coll_busbw_factor(c, ranks);
            if (size_bytes > hi && busbw > 0 && f > 0 && out->time_s < size_bytes * f / busbw)
                out->time_s = size_bytes * f / busbw;
        }
    } else {
        double ring = flat_time(c, size_bytes, ranks, busbw, lat, 0);
        if (c == AUG_COLL_ALL_TO_ALL && crosses) {
            /* all-to-all is point-to-point: each rank sends (r-1)/n of its buffer over
             * NVLink and (n-r)/n through its own NIC, both at once */
            const struct aug_eff_defaults *d = aug_eff_defaults();
            double r = (double)ranks_per_domain, n = (double)ranks;
            double nv = sys->link[AUG_LINK_NVLINK].bw_gbps * 1e9 * (ideal ? 1.0 : d->coll_eff[AUG_LINK_NVLINK]);
            double net = sys->link[AUG_LINK_NETWORK].bw_gbps * 1e9 *
                         (ideal ? 1.0 : d->coll_eff[AUG_LINK_NETWORK]);
            double t_nv = r > 1 ? size_bytes * (r - 1.0) / n / nv : 0.0;
            double t_net = size_bytes * (n - r) / n / net;
            ring = (n - 1.0) * lat + (t_nv > t_net ? t_nv : t_net);
        }
        /* NCCL builds trees across nodes only; inside an NVLink domain it rings */
        double tree = crosses && (c == AUG_COLL_ALL_REDUCE || c == AUG_COLL_BROADCAST)
                          ? flat_time(c, size_bytes, ranks, busbw, lat, 1)
                          : INFINITY;
        double hier = INFINITY;
        if (crosses && c == AUG_COLL_ALL_REDUCE && ranks_per_domain > 1 &&
            ranks % ranks_per_domain == 0) {
            int r = ranks_per_domain, nodes = ranks / ranks_per_domain;
            double nv_bw, nv_lat, net_bw, net_lat;
            int x;
            group_link(sys, r, r, ideal, &nv_bw, &nv_lat, &x);
            group_link(sys, nodes, 1, ideal, &net_bw, &net_lat, &x);
            hier = flat_time(AUG_COLL_REDUCE_SCATTER, size_bytes, r, nv_bw, nv_lat, 0) +
                   flat_time(AUG_COLL_ALL_REDUCE, size_bytes / r, nodes, net_bw, net_lat, 0) +
                   flat_time(AUG_COLL_ALL_GATHER, size_bytes, r, nv_bw, nv_lat, 0);
        }
        switch (algo) {
        case AUG_ALGO_RING: out->time_s = ring; break;
        case AUG_ALGO_TREE: out->time_s = isfinite(tree) ? tree : flat_time(c, size_bytes, ranks, busbw, lat, 1); break;
        case AUG_ALGO_HIER: out->time_s = isfinite(hier) ? hier : ring; break;
        default:
            out->time_s = ring;
            out->algo = AUG_ALGO_RING;
            if (tree < out->time_s) {
                out->time_s = tree;
                out->algo = AUG_ALGO_TREE;
            }
            if (hier < out->time_s) {
                out->time_s = hier;
                out->algo = AUG_ALGO_HIER;
            }
        }
    }
    if (out->time_s > 0)
        out->busbw_gbps = size_bytes * aug_coll_busbw_factor(c, ranks) / out->time_s / 1e9;
    return AUG_OK;
}

/* DeepEP's normal kernels, on the links of the system:
 * - network: each token goes once to the rank of the same local index in every other
 *   domain that holds one of its experts (deduplicated), so the network carries
 *   size x (n - r) / n x net_share per rank, at the network efficiency of the fallback model
 *   (coll_eff: DeepEP's internode kernels reach 43-58 GB/s of a ~50 GB/s CX7 NIC in its
 *   published tests, deepseek-ai/DeepEP docs/legacy.md, where the figures also count some
 *   local traffic);
 * - NVLink: the copies for the other GPUs of the domain, first hand or forwarded from the
 *   network, size x (r - 1) / r per rank, at 153 of the ~160 GB/s NVLink of an H800 (the
 *   same table's intranode kernels: DEEPEP_NVLINK_EFF);
 * both pipelined, so the larger binds, after one latency of each link (every peer is
 * written at once, not in n - 1 ring steps). */
#define DEEPEP_NVLINK_EFF (153.0 / 160.0)

int aug_coll_deepep_time(const struct aug_system *sys, double size_bytes, int ranks,
                         int ranks_per_domain, double net_share, int ideal,
                         struct aug_coll_time *out) {
    memset(out, 0, sizeof *out);
    if (ranks < 1 || !(size_bytes >= 0) || !isfinite(size_bytes) || !(net_share > 0) ||
        net_share > 1.0)
        return aug_errorf(AUG_EDATA, "DeepEP dispatch: ranks %d, size %g and network share %g "
                                     "are out of range", ranks, size_bytes, net_share);
    out->algo = AUG_ALGO_RING;
    out->source = ideal ? AUG_SOURCE_ROOFLINE : AUG_SOURCE_FALLBACK;
    if (ranks <= 1 || size_bytes == 0)
        return AUG_OK;
    const struct aug_eff_defaults *d = aug_eff_defaults();
    double n = (double)ranks;
    double r = ranks_per_domain < 1 ? 1.0 : ranks_per_domain > ranks ? n : (double)ranks_per_domain;
    const struct aug_link_spec *nv = &sys->link[AUG_LINK_NVLINK], *net = &sys->link[AUG_LINK_NETWORK];
    double nv_bw = nv->bw_gbps * 1e9 * (ideal ? 1.0 : DEEPEP_NVLINK_EFF);
    double net_bw = net->bw_gbps * 1e9 * (ideal ? 1.0 : d->coll_eff[AUG_LINK_NETWORK]);
    double t_nv = r > 1 ? size_bytes * (r - 1.0) / r / nv_bw : 0.0;
    double t_net = r < n ? size_bytes * (n - r) / n * net_share / net_bw : 0.0;
    double lat = ideal ? 0.0
                       : (r > 1 ? nv->latency_us * 1e-6 : 0.0) + (r < n ? net->latency_us * 1e-6 : 0.0);
    out->crosses_network = r < n;
    out->time_s = lat + (t_nv > t_net ? t_nv : t_net);
    if (out->time_s > 0)
        out->busbw_gbps = size_bytes * aug_coll_busbw_factor(AUG_COLL_ALL_TO_ALL, ranks) /
                          out->time_s / 1e9;
    return AUG_OK;
}
