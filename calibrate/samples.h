/* SPDX-License-Identifier: Apache-2.0 */
/* samples.h - measured kernel samples in the kernels-db raw schema (DESIGN section 5).
 *
 * A sample set is what importers produce and what the fitter consumes: one row per
 * measured point, each remembering the file and line it came from (for messages) and its
 * `source` text (for provenance). Raw CSVs are read and written with these exact columns:
 *   family, op, dtype, m, n, k, batch, heads, seq_q, seq_kv, head_dim, causal, size_bytes,
 *   ranks, ranks_per_node, algo, time_us_median, time_us_min, time_us_max, reps, timing,
 *   source
 * preceded by '#' provenance lines "key: value". */
#ifndef AUG_CAL_SAMPLES_H
#define AUG_CAL_SAMPLES_H

#include <stddef.h>

#include "augur/kdb.h"

struct aug_sample {
    enum aug_family family;
    char op[32];
    enum aug_dtype dtype;
    double m, n, k, batch;                        /* GEMM (batch 1 when unbatched) */
    double heads, seq_q, seq_kv, head_dim;        /* attention (batch above) */
    int causal;
    double size_bytes;                            /* memory, collective */
    int ranks, ranks_per_node;                    /* collective */
    const char *algo;                             /* NCCL algorithm / protocol when recorded,
                                                     any length: interned in set->algos
                                                     ("" when not recorded) */
    double time_us, time_us_min, time_us_max;     /* median; min/max NaN when unknown */
    long reps;                                    /* 0 when unknown */
    char timing[16];                              /* cupti_kernel | cuda_event | wall */
    int file;                                     /* index in set->files */
    long line;                                    /* 1-based line in that file */
    int source;                                   /* index in set->sources */
};

struct aug_samples {
    struct aug_sample *v;
    size_t n, cap;
    char **files;    /* names used in messages */
    size_t n_files;
    char **sources;  /* interned `source` texts */
    size_t n_sources;
    char **prov;     /* provenance lines "key: value", deduplicated */
    size_t n_prov;
    char **algos;    /* interned `algo` texts (samples point into them) */
    size_t n_algos;
    char device[128]; /* GPU name the input reports ("NVIDIA A100-SXM4-80GB"); "" unknown */
};

void aug_samples_init(struct aug_samples *s);
void aug_samples_free(struct aug_samples *s);

/* Intern a file name / source text / provenance line; returns its index or a negative
 * status (AUG_ENOMEM). */
int aug_samples_file(struct aug_samples *s, const char *name);
int aug_samples_source(struct aug_samples *s, const char *text);
int aug_samples_prov(struct aug_samples *s, const char *line);

/* A zeroed sample with NaN min/max, ready to fill. */
struct aug_sample aug_sample_blank(void);

/* Check one sample (positive finite times and sizes per family, min <= median <= max,
 * known timing, collective names) and append it. Errors name file and line. */
int aug_samples_add(struct aug_samples *s, const struct aug_sample *x);

/* "nvlink" when every rank of a collective sits on one node, else "network". */
const char *aug_sample_link(const struct aug_sample *x);

/* The timing methods the raw schema knows. */
int aug_timing_valid(const char *timing);

/* Load a raw CSV (from memory; `name` for messages) and append its rows. Missing
 * columns, non-numbers, NaN, non-positive sizes and times, unknown families, dtypes,
 * collectives and timings are AUG_EDATA with file:line: column. */
int aug_samples_load_raw_mem(const char *name, const char *buf, size_t len,
                             struct aug_samples *s);
int aug_samples_load_raw(const char *path, struct aug_samples *s);

/* Write the samples of `family` (AUG_FAMILY_COUNT: all) as a raw CSV with provenance
 * lines, atomically. `extra_prov` lines (may be NULL) come first. */
int aug_samples_write_raw(const char *path, const struct aug_samples *s, int family,
                          const char *const *extra_prov, size_t n_extra);

#endif
