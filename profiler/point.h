/* SPDX-License-Identifier: Apache-2.0 */
/* point.h - one measured point of a sweep, its measurement, and lists of points.
 *
 * A point is the identity of one row of a raw kernels-db CSV (DESIGN section 5): the
 * family, op, dtype and the shape columns that family uses. Two points are the same
 * measurement when their key (aug_prof_point_key) is equal; resuming a sweep relies on
 * that. The profiler's host side (grids, statistics, CSV, resume) and its device backends
 * share these types; nothing here knows about CUDA. */
#ifndef AUG_PROF_POINT_H
#define AUG_PROF_POINT_H

#include <stddef.h>

#include "augur/dtype.h"
#include "augur/kdb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a time was taken; written in the `timing` column of every row. */
enum aug_prof_timing {
    AUG_PROF_TIMING_CUPTI, /* "cupti_kernel": summed GPU kernel time from CUPTI records */
    AUG_PROF_TIMING_EVENT, /* "cuda_event": CUDA events around the call on its stream(s) */
    AUG_PROF_TIMING_WALL,  /* "wall": host clock around call + synchronize */
    AUG_PROF_TIMING_COUNT
};
const char *aug_prof_timing_name(enum aug_prof_timing t);
int aug_prof_timing_from_name(const char *name, enum aug_prof_timing *out);

/* An op name fits the curve name calibrate derives from it (aug_curve.op, 31 characters,
 * with "_causal" appended): attention ops are at most 24 characters. */
#define AUG_PROF_OP_LEN 32
#define AUG_PROF_ATTN_DECODE_OP "fused_decode_fwd"
#define AUG_PROF_ALGO_LEN 256
#define AUG_PROF_KERNEL_LEN 160 /* = AUG_PROF_KERNEL_NAME_LEN of correlate.h */

/* Shape columns are 0 when the family does not use them (written as empty cells),
 * except `causal`, which attention always writes (0 or 1) and others leave at -1. */
struct aug_prof_point {
    enum aug_family family;
    char op[AUG_PROF_OP_LEN];   /* gemm: "gemm"; attention: "fused_fwd",
                                   "fused_decode_fwd", "unfused_fwd";
                                   memory: "copy", "elementwise", "rmsnorm", "layernorm",
                                   "softmax"; collective: aug_coll_name() */
    enum aug_dtype dtype;
    long m, n, k;               /* gemm: C[m x n] = A[m x k] B[k x n]; norms: rows, cols */
    long batch, heads, seq_q, seq_kv, head_dim;
    int causal;
    double size_bytes;          /* memory: bytes moved (read + written); collective: the
                                   nccl-tests size S (see include/augur/collective.h) */
    int ranks, ranks_per_node;  /* collective only */
    char algo[AUG_PROF_ALGO_LEN]; /* e.g. "NCCL_ALGO=Ring;NCCL_PROTO=Simple"; "" = default */
};

/* A point with every shape column unused, of the given family, op and dtype. */
struct aug_prof_point aug_prof_point_make(enum aug_family f, const char *op,
                                          enum aug_dtype dt);

/* Identity key: the formatted identity cells joined by '|'. Returns AUG_EDATA when it
 * does not fit in `cap` bytes. */
int aug_prof_point_key(const struct aug_prof_point *p, char *buf, size_t cap);

/* One-line human description for progress and messages
 * ("gemm bf16 m=4096 n=4096 k=4096"), and its shape part alone ("m=4096 n=4096 k=4096"). */
void aug_prof_point_describe(const struct aug_prof_point *p, char *buf, size_t cap);
void aug_prof_point_shape(const struct aug_prof_point *p, char *buf, size_t cap);

/* Useful work of one call: floating-point operations and bytes the kernel must move
 * (HBM for compute families, link bytes for collectives: the nccl-tests busbw bytes). */
double aug_prof_point_flops(const struct aug_prof_point *p);
double aug_prof_point_bytes(const struct aug_prof_point *p);

/* ---- what a backend returns for one point ---- */

/* Device state while a point ran (NVML, loaded at run time; valid 0 when unavailable). */
struct aug_prof_clocks {
    int valid;
    double sm_mhz, mem_mhz;     /* current SM and memory clocks */
    double temp_c, power_w;     /* GPU temperature, board power */
    unsigned long long throttle;/* NVML clocks-event reasons (AUG_PROF_THROTTLE_* bits) */
};
/* NVML's clocks-event reason bits (nvml.h). SwPowerCap 0x4 is how a Hopper GPU runs any
 * long kernel at its power limit: on the first H100 and H200 sweeps it was set on most
 * points, many of them within 1% of the maximum clock, so alone it is no reason to
 * distrust a time (the clock itself is compared with 90% of the maximum). The others are:
 * HwSlowdown 0x8, SwThermalSlowdown 0x20, HwThermalSlowdown 0x40, HwPowerBrakeSlowdown
 * 0x80. Idle (0x1) and application clocks (0x2) are not slowdowns. */
#define AUG_PROF_THROTTLE_POWER_CAP 0x4ULL
#define AUG_PROF_THROTTLE_THERMAL_OR_HW 0xE8ULL

struct aug_prof_measure {
    double *time_us;            /* caller's array of `cap` entries, one per repetition */
    int cap;
    int n;                      /* repetitions filled */
    enum aug_prof_timing timing;
    char impl[32];              /* library that ran the point, for the `library` column and
                                   `source` ("cublasLt", "nccl", "cudnn_sdpa",
                                   "augur_flash_fallback") */
    char algo[AUG_PROF_ALGO_LEN]; /* the library's algorithm, for `library_algo` ("" unknown) */
    char kernel[AUG_PROF_KERNEL_LEN]; /* the longest kernel of the last timed call, as CUPTI
                                         names it ("" unknown: timed with events); appended
                                         to `library_algo` as " kernel=NAME" */
    int l2_flush;               /* 1: L2 was flushed before every timed call */
    int warmup_calls;           /* untimed calls made before the timed ones */
    double noise;               /* relative standard deviation of the kept repetitions */
    struct aug_prof_clocks clocks;
};

/* Repetition policy a backend must honour (nvbench's stopping rule: at least `reps`
 * samples, then until the noise is small or the budget is spent). */
struct aug_prof_run_cfg {
    int warmup;                 /* untimed calls first, at least */
    int reps;                   /* timed calls, at least */
    int max_reps;               /* timed calls, at most (0: reps) */
    double warmup_s;            /* warm up at least this long, then until two successive
                                   batches agree (0: by count alone) */
    double max_noise;           /* stop once the relative standard deviation is at most this
                                   (0: always run max_reps) */
    double budget_s;            /* stop a point's timed calls after this long (0: no limit) */
    int no_l2_flush;            /* 1: never flush L2 (the hot-cache case) */
};

/* The most repetitions cfg allows (max_reps, at least reps). */
int aug_prof_run_max_reps(const struct aug_prof_run_cfg *cfg);

/* Does point p flush L2 before each timed call? Memory-bound kernels, decode attention and
 * skinny (decode) GEMMs re-read operands that a previous repetition left in L2, so their
 * times would be cache times: yes, unless --no-l2-flush. Compute-bound GEMMs, prefill
 * attention and collectives: no. */
int aug_prof_point_wants_l2_flush(const struct aug_prof_point *p,
                                  const struct aug_prof_run_cfg *cfg);

/* ---- growable list of points ---- */
struct aug_prof_points {
    struct aug_prof_point *v;
    size_t n, cap;
};
void aug_prof_points_init(struct aug_prof_points *l);
void aug_prof_points_release(struct aug_prof_points *l);
/* Append a copy; AUG_ENOMEM on allocation failure. */
int aug_prof_points_push(struct aug_prof_points *l, const struct aug_prof_point *p);

#ifdef __cplusplus
}
#endif
#endif
