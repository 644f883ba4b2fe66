/* SPDX-License-Identifier: Apache-2.0 */
/* bench.h - the host side of each benchmark family: which points a sweep measures, how long
 * one call should take, and what a device must support. One file per family
 * (bench_gemm.c, bench_attention.c, bench_memory.c, bench_nccl.c), one row each in the
 * table of bench_table.c. The code that runs the points on a GPU is the backend's
 * (struct aug_prof_bench_impl in backend.h); nothing here needs CUDA. */
#ifndef AUG_PROF_BENCH_H
#define AUG_PROF_BENCH_H

#include <stddef.h>

#include "augur/dtype.h"
#include "augur/kdb.h"
#include "backend.h"
#include "point.h"
#include "shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

enum aug_prof_preset {
    AUG_PROF_PRESET_QUICK, /* a coarse grid: the whole sweep under 10 minutes on one H100 */
    AUG_PROF_PRESET_FULL,  /* dense grids for production curves (hours) */
    AUG_PROF_PRESET_COUNT
};
const char *aug_prof_preset_name(enum aug_prof_preset p); /* "quick", "full" */

#define AUG_PROF_DTYPE_BIT(d) (1u << (unsigned)(d))

struct aug_prof_grid_cfg {
    enum aug_prof_preset preset;
    unsigned dtypes;                  /* AUG_PROF_DTYPE_BIT mask; 0: the bench's defaults */
    int gpus;                         /* GPUs per node usable for collectives */
    int nodes;                        /* nodes of an MPI run (1: one process) */
    char algo[AUG_PROF_ALGO_LEN];     /* NCCL_ALGO / NCCL_PROTO of this run, "" if unset */
    const struct aug_prof_gemm_shapes *gemm_shapes; /* --shapes: these GEMMs instead of the
                                                       preset's grid (shapes.h); NULL: grid */
};

struct aug_prof_bench {
    enum aug_family family;
    const char *name;                 /* aug_family_name(family) */
    unsigned default_dtypes;          /* measured when --dtype does not say */
    unsigned allowed_dtypes;          /* what the backend implements */
    /* Append the points of cfg's preset for the dtypes in `dtypes` (already restricted to
     * allowed_dtypes and non-empty). */
    int (*grid)(const struct aug_prof_grid_cfg *cfg, unsigned dtypes,
                struct aug_prof_points *out);
    /* Expected time of one call on the reference GPU (H100 SXM), in microseconds: used for
     * --dry-run and progress estimates only. */
    double (*estimate_us)(const struct aug_prof_point *p);
    /* 1 when dev can run p; 0 with a reason in why (for example fp8 before sm_89). */
    int (*supported)(const struct aug_prof_point *p, const struct aug_prof_device *dev,
                     char *why, size_t cap);
    double setup_s;                   /* expected one-time setup (handles, communicators) */
    double per_point_s;               /* expected per-point overhead (buffers, flush) */
};

extern const struct aug_prof_bench aug_prof_bench_gemm;
extern const struct aug_prof_bench aug_prof_bench_attention;
extern const struct aug_prof_bench aug_prof_bench_memory;
extern const struct aug_prof_bench aug_prof_bench_collective;

/* The bench of family f (never NULL for a valid family). */
const struct aug_prof_bench *aug_prof_bench_get(enum aug_family f);

/* Points of family f for cfg: dtypes restricted to the bench's allowed set (defaults when
 * cfg->dtypes selects none of them; an empty intersection with an explicit selection
 * yields no points). */
int aug_prof_bench_points(enum aug_family f, const struct aug_prof_grid_cfg *cfg,
                          struct aug_prof_points *out);

/* Reference roofline used by the estimates: time of `flops` at dtype's H100 dense peak
 * times eff_c, or of `bytes` at H100 HBM bandwidth times eff_m, whichever is longer, plus a
 * launch latency. */
double aug_prof_reference_us(double flops, enum aug_dtype dt, double eff_c, double bytes,
                             double eff_m);

/* Powers of two from lo to hi (inclusive, both powers of two), multiplying by `step`
 * (2, 4, ...). Returns the count written to out (at most cap). */
int aug_prof_pow2_range(long lo, long hi, long step, long *out, int cap);

#ifdef __cplusplus
}
#endif
#endif
