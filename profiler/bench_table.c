/* SPDX-License-Identifier: Apache-2.0 */
/* bench_table.c - the table of benchmark families, and helpers every bench shares: dtype
 * selection, power-of-two ranges and the reference roofline used for estimates. Adding a
 * family is one bench_<family>.c plus one row here (and one in the backend). */
#include "bench.h"

#include "augur/status.h"

static const struct aug_prof_bench *const table[] = {
    [AUG_FAMILY_GEMM] = &aug_prof_bench_gemm,
    [AUG_FAMILY_ATTENTION] = &aug_prof_bench_attention,
    [AUG_FAMILY_MEMORY] = &aug_prof_bench_memory,
    [AUG_FAMILY_COLLECTIVE] = &aug_prof_bench_collective,
};
_Static_assert(sizeof table / sizeof table[0] == AUG_FAMILY_COUNT,
               "one bench per kernel family");

static const char *const preset_names[AUG_PROF_PRESET_COUNT] = {"quick", "full"};

const char *aug_prof_preset_name(enum aug_prof_preset p) {
    return (unsigned)p < AUG_PROF_PRESET_COUNT ? preset_names[p] : "?";
}

const struct aug_prof_bench *aug_prof_bench_get(enum aug_family f) {
    return (unsigned)f < AUG_FAMILY_COUNT ? table[f] : NULL;
}

int aug_prof_bench_points(enum aug_family f, const struct aug_prof_grid_cfg *cfg,
                          struct aug_prof_points *out) {
    const struct aug_prof_bench *b = aug_prof_bench_get(f);
    if (!b)
        return aug_errorf(AUG_EUSAGE, "unknown kernel family %d", (int)f);
    unsigned dt = cfg->dtypes ? (cfg->dtypes & b->allowed_dtypes) : b->default_dtypes;
    if (dt == 0)
        return AUG_OK;
    return b->grid(cfg, dt, out);
}

/* H100 SXM5 dense peaks (TFLOP/s) and HBM3 bandwidth: the reference of every estimate. */
static double reference_peak_tflops(enum aug_dtype dt) {
    switch (dt) {
    case AUG_DTYPE_FP32: return 67.0;
    case AUG_DTYPE_TF32: return 494.7;
    case AUG_DTYPE_BF16:
    case AUG_DTYPE_FP16: return 989.4;
    case AUG_DTYPE_FP8:
    case AUG_DTYPE_INT8: return 1978.9;
    default: return 67.0;
    }
}
#define REFERENCE_HBM_GBPS 3350.0
#define REFERENCE_LAUNCH_US 5.0

double aug_prof_reference_us(double flops, enum aug_dtype dt, double eff_c, double bytes,
                             double eff_m) {
    double tc = flops > 0 ? flops / (reference_peak_tflops(dt) * 1e12 * eff_c) : 0.0;
    double tm = bytes > 0 ? bytes / (REFERENCE_HBM_GBPS * 1e9 * eff_m) : 0.0;
    return (tc > tm ? tc : tm) * 1e6 + REFERENCE_LAUNCH_US;
}

int aug_prof_pow2_range(long lo, long hi, long step, long *out, int cap) {
    int n = 0;
    if (lo < 1 || step < 2)
        return 0;
    for (long v = lo; v <= hi && n < cap; v *= step)
        out[n++] = v;
    return n;
}
