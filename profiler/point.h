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
#define AUG_PROF_ALGO_LEN 64

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
struct aug_prof_measure {
    double *time_us;            /* caller's array of `cap` entries, one per repetition */
    int cap;
    int n;                      /* repetitions filled */
    enum aug_prof_timing timing;
    char impl[32];              /* implementation, for the `source` column ("cublasLt") */
};

/* Repetition counts a backend must honour. */
struct aug_prof_run_cfg {
    int warmup;                 /* untimed calls first */
    int reps;                   /* timed calls */
};

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
