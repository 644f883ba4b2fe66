/* SPDX-License-Identifier: Apache-2.0 */
/* scaling.h - technology scaling: what-if systems derived from a preset, and studies of
 * which resource bounds a workload as technology moves.
 *
 * A what-if system multiplies a system's resources by factors: compute peak (every dtype,
 * tensor and vector), HBM bandwidth and capacity, NVLink and network bandwidth and
 * latency. Factors come from `name=value` lists or from named technology generations
 * (HBM2 .. HBM4, NVLink 2 .. 6, EDR .. XDR InfiniBand, logic nodes 12 nm .. 1 nm as in
 * Optimus, Kundu et al. IISWC 2024 / its DeepFlow base). The GPU keeps its id, so its
 * calibrated kernels-db curves carry over: efficiencies against the peak stay as they
 * are, and the time curves of memory-bound kernels and collectives are rescaled (their
 * bandwidth terms by the bandwidth factor, their latency terms by the latency factor;
 * GEMM time curves keep their launch term and move their byte term with HBM bandwidth).
 * Outputs say so. */
#ifndef AUG_SCALING_H
#define AUG_SCALING_H

#include <stddef.h>

#include "augur/kdb.h"
#include "augur/sweep.h"
#include "augur/system.h"

#ifdef __cplusplus
extern "C" {
#endif

enum aug_resource {
    AUG_RES_COMPUTE,    /* peak FLOP/s of every dtype */
    AUG_RES_HBM_BW,     /* HBM bandwidth */
    AUG_RES_HBM_CAP,    /* HBM capacity */
    AUG_RES_NVLINK_BW,  /* scale-up bandwidth per GPU */
    AUG_RES_NVLINK_LAT, /* scale-up latency per step (factor < 1 is better) */
    AUG_RES_NET_BW,     /* scale-out bandwidth per GPU */
    AUG_RES_NET_LAT,    /* scale-out latency per step (factor < 1 is better) */
    AUG_RES_COUNT
};

/* "compute", "hbm_bw", "hbm_cap", "nvlink_bw", "nvlink_lat", "net_bw", "net_lat". */
const char *aug_resource_name(enum aug_resource r);
/* Also accepts "hbm" (bandwidth and capacity are separate: hbm = hbm_bw), "network_bw",
 * "network_lat". */
int aug_resource_from_name(const char *name, enum aug_resource *out);
/* 1 for the latencies (smaller is better), 0 for the others. */
int aug_resource_is_latency(enum aug_resource r);

/* Multiplicative factors on each resource's quantity (latency 0.5 = half the latency). */
struct aug_scale {
    double f[AUG_RES_COUNT];
};

void aug_scale_init(struct aug_scale *sc);
int aug_scale_is_identity(const struct aug_scale *sc);

/* Multiply in "compute=2,hbm_bw=1.5,net_lat=0.5" (also "all=2": every bandwidth and
 * compute x2, latencies /2, capacity unchanged). AUG_EUSAGE names the bad item. */
int aug_scale_parse(const char *spec, struct aug_scale *sc);

/* Improve one resource k-fold (bandwidth, compute, capacity x k; latency / k). */
void aug_scale_improve(struct aug_scale *sc, enum aug_resource r, double k);

/* "compute x2, hbm_bw x1.5" (or "none"). */
void aug_scale_describe(const struct aug_scale *sc, char *buf, size_t n);

/* Technology generations. */
enum aug_tech_kind {
    AUG_TECH_LOGIC,   /* process node: compute at the same die area and power */
    AUG_TECH_HBM,     /* HBM generation: bandwidth and capacity per stack */
    AUG_TECH_NVLINK,  /* NVLink generation: bandwidth per GPU */
    AUG_TECH_NETWORK, /* InfiniBand generation: bandwidth per port (one per GPU) */
    AUG_TECH_KIND_COUNT
};

struct aug_tech {
    const char *name;     /* "hbm3e", "nvlink5", "xdr", "n3" */
    enum aug_tech_kind kind;
    double value;         /* logic: relative compute; HBM: GB/s per stack; links: GB/s per
                             GPU and direction */
    double capacity_gb;   /* HBM: GB per stack (0 otherwise) */
    const char *what;     /* one line: how the figure is made up */
    const char *source;
};

int aug_tech_count(void);
const struct aug_tech *aug_tech_at(int i);
const struct aug_tech *aug_tech_find(const char *name);

/* The generation a system is built from, when it can be told (GPU id for HBM and logic,
 * link bandwidth for NVLink and the network); NULL otherwise. */
const struct aug_tech *aug_tech_of(const struct aug_system *s, enum aug_tech_kind kind);

/* Multiply in generation steps: a comma-separated list of "from:to" (or "from->to") or
 * "to" alone (from = aug_tech_of(s)). Logic steps multiply compute, HBM steps bandwidth
 * and capacity per stack (same stack count), link steps bandwidth; latencies stay. */
int aug_scale_generation(const struct aug_system *s, const char *spec, struct aug_scale *sc);

/* The what-if system: resources scaled, name suffixed with "*", source extended with the
 * factors. The GPU id is kept (its calibrated curves apply through aug_scale_kdb). */
int aug_scale_system(const struct aug_system *in, const struct aug_scale *sc,
                     struct aug_system *out);

/* Open the kernels-db of `gpu_id` under root (NULL: default) with its time curves
 * rescaled for `sc` (see the top of this file). With factors that touch no curve this is
 * aug_kdb_open(). The rescaled copy is built in a private temporary folder, removed before
 * returning. */
int aug_scale_kdb(const char *root, const char *gpu_id, const struct aug_scale *sc,
                  struct aug_kdb **out);

/* ---- bottleneck study ----------------------------------------------------------------
 * A path of what-if systems (factors along one or more resources, named generations, or
 * other presets); at each point the best plan (a full sweep) and the speed-up of the best
 * plan when each resource alone improves `improve`-fold (a sweep each): the resource with
 * the largest speed-up bounds the workload there. */
struct aug_scaling_point {
    char label[96];
    struct aug_system preset;          /* input: the system this point starts from */
    struct aug_scale scale;            /* input: factors applied to it */
    struct aug_system system;          /* the what-if system (preset scaled) */
    int found;                         /* some plan fits */
    struct aug_sweep_entry best;
    double speedup;                    /* base best time / this best time */
    double sensitivity[AUG_RES_COUNT]; /* this best time / best time with r improved */
    enum aug_resource bound;
    uint64_t plans_evaluated;
};

struct aug_scaling_study {
    struct aug_sweep_config sweep;     /* model, base plan, space, top_k, threads */
    const char *kdb_root;              /* NULL: default; used with kdb_enabled */
    int kdb_enabled;                   /* 1: calibrated curves of each point's GPU */
    double improve;                    /* sensitivity step, > 1 (default 2) */
};

/* Evaluate the points (label, preset and scale filled by the caller; the rest here). The
 * first point is the reference of the speed-ups. */
int aug_scaling_run(const struct aug_scaling_study *st, struct aug_scaling_point *pts, int n);

#ifdef __cplusplus
}
#endif
#endif
