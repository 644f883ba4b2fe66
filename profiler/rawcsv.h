/* SPDX-License-Identifier: Apache-2.0 */
/* rawcsv.h - one raw measurement file of kernels-db (<dir>/<family>.csv) being extended.
 *
 * The schema is the contract between augur-profile and augur calibrate (DESIGN section 5):
 * '#' provenance lines, then the columns of aug_prof_raw_columns in that order, one row
 * per measured point, unused shape cells empty. Opening an existing file loads and checks
 * it (same columns, same GPU, well-formed rows) so a re-run resumes: points already
 * present are skipped, rows already measured are kept. Saving rewrites the whole file
 * through a temporary file and a rename (aug_csv_writer_open(path, 1, ...)), so an
 * interrupted run never leaves a damaged file; the sweep saves periodically. */
#ifndef AUG_PROF_RAWCSV_H
#define AUG_PROF_RAWCSV_H

#include <stddef.h>

#include "point.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The columns, in file order: the 22 of the kernels-db raw schema, then what augur-profile
 * records about how each point ran (library, library_algo, l2_flush, warmup_calls, noise,
 * sm_clock_mhz, mem_clock_mhz, temp_c, power_w; empty when unknown; see kernels-db/README.md). */
#define AUG_PROF_RAW_NCOLS 31
extern const char *const aug_prof_raw_columns[AUG_PROF_RAW_NCOLS];
/* The first AUG_PROF_RAW_ID_COLS columns identify a point (family .. algo). */
#define AUG_PROF_RAW_ID_COLS 16

struct aug_prof_raw;

/* Open `path` for extension. `prov` holds the provenance lines of this run (without '#');
 * `gpu_name` is the measured device, compared with the file's "gpu_name:" line.
 * A missing file is an empty table. Errors: AUG_EDATA naming file, line and column for a
 * file with other columns, another GPU, a malformed or duplicate row; AUG_EIO; AUG_ENOMEM. */
int aug_prof_raw_open(const char *path, const char *const *prov, size_t n_prov,
                      const char *gpu_name, struct aug_prof_raw **out);
void aug_prof_raw_close(struct aug_prof_raw *r);

/* 1 when a row with p's identity is present. */
int aug_prof_raw_has(const struct aug_prof_raw *r, const struct aug_prof_point *p);

/* Append the row of a measured point; `source` fills the source column. AUG_EDATA when a
 * row with that identity exists or the statistics are not finite and positive. */
int aug_prof_raw_add(struct aug_prof_raw *r, const struct aug_prof_point *p,
                     const struct aug_prof_stats *s, enum aug_prof_timing timing,
                     const char *source);

/* The same with the measurement's run details (m: library, algorithm, L2 flush, warm-up,
 * noise, clocks) in the trailing columns; the timing comes from m. */
int aug_prof_raw_add_measure(struct aug_prof_raw *r, const struct aug_prof_point *p,
                             const struct aug_prof_stats *s, const struct aug_prof_measure *m,
                             const char *source);

/* Write every row (loaded and added) atomically to the path given to open. */
int aug_prof_raw_save(struct aug_prof_raw *r);

size_t aug_prof_raw_rows(const struct aug_prof_raw *r);   /* all rows */
size_t aug_prof_raw_loaded(const struct aug_prof_raw *r); /* rows found in the file */

/* Parse row `row` of a loaded raw table into a point (identity columns only), checking
 * every cell; errors name file, line and column. Used by resume and by tests. */
struct aug_csv;
int aug_prof_raw_parse_point(const struct aug_csv *t, size_t row, struct aug_prof_point *out);

#ifdef __cplusplus
}
#endif
#endif
