/* SPDX-License-Identifier: Apache-2.0 */
/* kdb.h - the kernels database: calibrated efficiency curves of one GPU.
 *
 * <root>/<gpu_id>/curves.csv holds fitted curves (DESIGN section 5); raw/ holds the
 * measurements they came from. A kdb with no curves is valid: every lookup misses
 * and the predictor falls back to its documented defaults. Lookups never allocate
 * and are safe on a NULL kdb (they miss). */
#ifndef AUG_KDB_H
#define AUG_KDB_H

#include <stddef.h>

#include "augur/collective.h"
#include "augur/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

enum aug_family {
    AUG_FAMILY_GEMM,
    AUG_FAMILY_ATTENTION,
    AUG_FAMILY_MEMORY,
    AUG_FAMILY_COLLECTIVE,
    AUG_FAMILY_COUNT
};
const char *aug_family_name(enum aug_family f); /* "gemm", "attention", "memory", "collective" */
int aug_family_from_name(const char *name, enum aug_family *out);

#define AUG_CURVE_MAX_PARAMS 8

struct aug_curve {
    enum aug_family family;
    char op[32];          /* gemm: "gemm"; memory: "copy", "elementwise", ...; collective: aug_coll_name */
    enum aug_dtype dtype;
    int ranks;            /* collectives: group size; 0 otherwise */
    char link[16];        /* collectives: "nvlink" or "network"; "" otherwise */
    char form[24];        /* curve form name, see curve.c */
    int n_params;
    double p[AUG_CURVE_MAX_PARAMS];
    double x_min, x_max;  /* domain of the size feature that was measured */
    int n_points;
    double rel_rmse, max_rel_err, cv_rel_err;
    char source[128];
};

struct aug_kdb;

/* Open <root>/<gpu_id>/ (root NULL: aug_kdb_dir()). A missing folder or curves.csv
 * gives an empty kdb; a malformed curves.csv is AUG_EDATA with file and line. */
int aug_kdb_open(const char *root, const char *gpu_id, struct aug_kdb **out);
void aug_kdb_close(struct aug_kdb *kdb);
const char *aug_kdb_gpu(const struct aug_kdb *kdb);
/* What the predictor times a GPU with (predictor/hw/kdb_transfer.c): its own curves.csv
 * when it has one; otherwise, when gpus.csv gives its sm_arch, the GEMM and memory-bound
 * curves of the profiled GPUs of the same sm_arch, rescaled by the spec ratios of the two
 * rows; otherwise an empty kdb. Calibration reads tables with aug_kdb_open, never this. */
int aug_kdb_open_predict(const char *root, const char *gpu_id, struct aug_kdb **out);
/* "" for a GPU's own table; else the sentence saying where the curves came from. */
const char *aug_kdb_origin(const struct aug_kdb *kdb);
int aug_kdb_curve_count(const struct aug_kdb *kdb);
const struct aug_curve *aug_kdb_curve_at(const struct aug_kdb *kdb, int i);

/* GEMM curve op names: "gemm" for every GEMM measured as it normally runs (fp8 with fast
 * accumulation), AUG_GEMM_SPLIT_ACC_OP for fp8 GEMMs measured with the split accumulator
 * (cuBLASLt fast accumulation off: Transformer Engine's data- and weight-gradient GEMMs).
 * aug_gemm_curve_op maps a measurement's op name to its curve's: the split-accumulator
 * name stays itself, every other GEMM name ("linear", "bmm", ...) is "gemm". */
#define AUG_GEMM_OP "gemm"
#define AUG_GEMM_SPLIT_ACC_OP "gemm_split_acc"
const char *aug_gemm_curve_op(const char *op);

/* Lookups: return 1 and fill the output when a curve covers the case, 0 otherwise.
 * gemm: efficiency (0..1] of an (m x k) * (k x n) GEMM against the dtype's dense peak,
 * from the "gemm" curves; aug_kdb_gemm_op_eff from the curves of GEMM op `op`. */
int aug_kdb_gemm_eff(const struct aug_kdb *kdb, enum aug_dtype dt, double m, double n, double k,
                     double *eff);
int aug_kdb_gemm_op_eff(const struct aug_kdb *kdb, const char *op, enum aug_dtype dt, double m,
                        double n, double k, double *eff);
/* The same for batch products of that shape (efficiency of all of them together). */
int aug_kdb_gemm_batched_op_eff(const struct aug_kdb *kdb, const char *op, enum aug_dtype dt,
                                double batch, double m, double n, double k, double *eff);
/* attention: efficiency of the fused kernel against the dense peak (fused curves only;
 * decode curves for decode shapes, prefill curves otherwise). */
int aug_kdb_attention_eff(const struct aug_kdb *kdb, enum aug_dtype dt, int causal,
                          int backward, double batch_heads, double seq_q, double seq_kv,
                          double head_dim, double *eff);
/* Attention kernel kinds, read from op and curve names (predictor/hw/attention_kind.c,
 * kernels-db/README.md "Attention op names"). A lookup for a fused kernel never uses an
 * unfused curve; a decode query uses only decode curves, a prefill query only prefill
 * curves. Decode: fewer query rows per (sequence, KV head) than one query tile of
 * AUG_ATTN_TILE_Q rows (flash-attention 2.x csrc/flash_attn/src/flash_fwd_launch_template.h,
 * run_mha_fwd_hdim128: kBlockM = 64 or 128), so the tile is partly idle and the kernel is
 * bound by reading K and V: one new token per sequence, with its GQA group folded into the
 * query rows as FlashAttention-2's flash_api.cpp does (seq_q = heads / KV heads). */
#define AUG_ATTN_TILE_Q 64
struct aug_attn_kind {
    int unfused, decode, backward, causal;
};
void aug_attn_kind_of(const char *name, struct aug_attn_kind *out);
int aug_attn_is_decode(double seq_q);
/* The curve op of attention samples named `op`: op, "_decode" when seq_q is a decode
 * shape and op does not say so, "_causal" when causal. AUG_EDATA (never truncated) when
 * it does not fit `cap`. */
int aug_attn_curve_op(const char *op, double seq_q, int causal, char *buf, size_t cap);
/* memory-bound kernel `op` moving `bytes`: time in microseconds. */
int aug_kdb_memory_time_us(const struct aug_kdb *kdb, const char *op, enum aug_dtype dt,
                           double bytes, double *time_us);
/* collective `c` of `size_bytes` (nccl-tests convention) over `ranks` on `link`. */
int aug_kdb_collective_time_us(const struct aug_kdb *kdb, enum aug_coll c, double size_bytes,
                               int ranks, const char *link, double *time_us);

/* Measured range [x_min, x_max] of the curve a lookup of the same arguments would use (the
 * union of its pieces; x: GEMM FLOPs, attention seq_kv, memory and collective bytes).
 * Returns 1 when there is such a curve, else 0. op: memory op name (NULL for GEMM and
 * attention); attention: backward and causal select the kernel. */
int aug_kdb_curve_range(const struct aug_kdb *kdb, enum aug_family fam, const char *op,
                        enum aug_dtype dt, int backward, int causal, double *x_min,
                        double *x_max);
int aug_kdb_collective_range(const struct aug_kdb *kdb, enum aug_coll c, int ranks,
                             const char *link, double *x_min, double *x_max);

#ifdef __cplusplus
}
#endif
#endif
