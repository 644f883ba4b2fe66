/* SPDX-License-Identifier: Apache-2.0 */
/* bench_nccl.c - NCCL collective sweep points: all-reduce, all-gather, reduce-scatter,
 * all-to-all (grouped send/recv) and send/recv (each rank sends to the next in a ring),
 * over message sizes and group sizes.
 *
 * Sizes follow nccl-tests (include/augur/collective.h): the full vector for all-reduce,
 * the gathered output for all-gather, the input for reduce-scatter, the per-rank send
 * buffer for all-to-all, the message for send/recv; sizes are rounded down so every rank
 * gets whole elements. On one node the groups are the first g local GPUs for g = 2, 4,
 * 8, ... and all of them; an MPI run measures the whole world (ranks_per_node = local
 * GPUs) so the curves see the network. NCCL_ALGO / NCCL_PROTO of the run go in `algo`
 * ("ring/ll128"; see cli.c), so runs with forced algorithms are separate points. */
#include "bench.h"

#include <stdio.h>

#include "augur/collective.h"
#include "augur/status.h"

static const enum aug_coll colls[] = {AUG_COLL_ALL_REDUCE, AUG_COLL_ALL_GATHER,
                                      AUG_COLL_REDUCE_SCATTER, AUG_COLL_ALL_TO_ALL,
                                      AUG_COLL_SEND_RECV};

/* Bytes granularity of collective c over n ranks for elements of e bytes. */
static double granule(enum aug_coll c, int n, double e) {
    switch (c) {
    case AUG_COLL_ALL_GATHER:
    case AUG_COLL_REDUCE_SCATTER:
    case AUG_COLL_ALL_TO_ALL: return e * n;
    default: return e;
    }
}

static int grid(const struct aug_prof_grid_cfg *cfg, unsigned dtypes,
                struct aug_prof_points *out) {
    int full = cfg->preset == AUG_PROF_PRESET_FULL;
    long sizes[32];
    int n_size = aug_prof_pow2_range(1024, 1L << 30, full ? 2 : 4, sizes, 32);
    int groups[16], n_groups = 0, per_node = cfg->gpus;
    if (cfg->nodes > 1) {
        groups[n_groups++] = cfg->nodes * cfg->gpus;
    } else {
        for (int g = 2; g <= cfg->gpus && n_groups < 15; g *= 2)
            if (full || g == 2 || g * 2 > cfg->gpus)
                groups[n_groups++] = g;
        if (cfg->gpus >= 2 && groups[n_groups - 1] != cfg->gpus)
            groups[n_groups++] = cfg->gpus;
    }
    int rc = AUG_OK;
    for (int d = 0; d < AUG_DTYPE_COUNT; d++) {
        if (!(dtypes & AUG_PROF_DTYPE_BIT(d)))
            continue;
        enum aug_dtype dt = (enum aug_dtype)d;
        double e = aug_dtype_bytes(dt);
        for (size_t c = 0; rc == AUG_OK && c < sizeof colls / sizeof colls[0]; c++)
            for (int g = 0; rc == AUG_OK && g < n_groups; g++)
                for (int s = 0; rc == AUG_OK && s < n_size; s++) {
                    double q = granule(colls[c], groups[g], e);
                    double size = (double)(long long)((double)sizes[s] / q) * q;
                    if (size <= 0)
                        continue;
                    struct aug_prof_point p =
                        aug_prof_point_make(AUG_FAMILY_COLLECTIVE, aug_coll_name(colls[c]), dt);
                    p.size_bytes = size;
                    p.ranks = groups[g];
                    p.ranks_per_node = groups[g] < per_node ? groups[g] : per_node;
                    snprintf(p.algo, sizeof p.algo, "%s", cfg->algo);
                    rc = aug_prof_points_push(out, &p);
                }
    }
    return rc;
}

static double estimate_us(const struct aug_prof_point *p) {
    int network = p->ranks > p->ranks_per_node;
    double busbw_gbps = network ? 40.0 : 350.0, latency_us = network ? 40.0 : 15.0;
    return latency_us + aug_prof_point_bytes(p) / (busbw_gbps * 1e3);
}

static int supported(const struct aug_prof_point *p, const struct aug_prof_device *dev,
                     char *why, size_t cap) {
    int have = dev->device_count * (dev->nodes > 0 ? dev->nodes : 1);
    if (p->ranks > have) {
        snprintf(why, cap, "%d ranks requested, %d GPUs available", p->ranks, have);
        return 0;
    }
    return 1;
}

const struct aug_prof_bench aug_prof_bench_collective = {
    .family = AUG_FAMILY_COLLECTIVE,
    .name = "collective",
    .default_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16),
    .allowed_dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP16) |
                      AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP32) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP8),
    .grid = grid,
    .estimate_us = estimate_us,
    .supported = supported,
    .setup_s = 5.0,
    .per_point_s = 0.02,
};
