/* SPDX-License-Identifier: Apache-2.0 */
/* shapes.h - GEMM shapes read from a CSV file (`augur-profile --shapes FILE`), measured
 * instead of the GEMM grid: the kernels of one prediction, so that calibration sees the
 * shapes the prediction runs.
 *
 * The file is any CSV whose header has the columns m, n and k; optional columns are
 * dtype (fp32, tf32, bf16, fp16, fp8; empty: every dtype of --dtype), batch and kind.
 * `augur train|infer ... --ops --format csv` writes such a file. Where a kind column is
 * there, rows of another kind than "gemm" (attention, memory, collective, schedule) are
 * skipped; every other row must give m, n and k. The rules, each counted in the summary:
 * - m, n and k are rounded to whole rows and columns (a mean token count per expert is
 *   fractional); a row with a dimension that rounds to 0 is skipped;
 * - a batched or grouped GEMM (batch > 1) is measured as one GEMM of the batch:
 *   augur-profile times single GEMMs, and Transformer Engine's grouped GEMM of experts
 *   runs one cuBLAS GEMM per expert (transformer_engine/pytorch/module/grouped_linear.py);
 * - repeated shapes are measured once.
 * Everything else is an error naming the file, line and column. */
#ifndef AUG_PROF_SHAPES_H
#define AUG_PROF_SHAPES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest m, n or k accepted (2^24): beyond every GEMM of a model layer, and small
 * enough that the backend's buffer sizes cannot overflow. */
#define AUG_PROF_SHAPE_MAX_DIM 16777216L
/* The most distinct shapes one file may list. */
#define AUG_PROF_SHAPES_MAX 100000

struct aug_prof_gemm_shape {
    long m, n, k;
    int dtype;               /* enum aug_dtype, or -1: every dtype of the sweep */
};

struct aug_prof_gemm_shapes {
    struct aug_prof_gemm_shape *v;
    size_t n, cap;
    char path[512];          /* the file, for provenance and messages */
    long rows;               /* data rows read */
    long other_kind;         /* rows of another kind than gemm */
    long rounded;            /* rows with a fractional dimension */
    long too_small;          /* rows skipped: a dimension rounds to 0 */
    long batched;            /* rows with batch > 1, measured as one GEMM of the batch */
    long repeated;           /* rows whose shape an earlier row already gave */
};

/* Read `path` into `out` (released first by the caller or zeroed). AUG_EIO when the file
 * cannot be read, AUG_EDATA with "file:line: column 'c': why" for a bad cell or a missing
 * column, or when no GEMM shape is left. */
int aug_prof_gemm_shapes_load(const char *path, struct aug_prof_gemm_shapes *out);
void aug_prof_gemm_shapes_release(struct aug_prof_gemm_shapes *s);

/* One line saying what was read and what each rule did ("12 GEMM shapes from 96 rows of
 * ops.csv; 60 rows of other kinds skipped; ..."). */
void aug_prof_gemm_shapes_summary(const struct aug_prof_gemm_shapes *s, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
