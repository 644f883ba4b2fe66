/* SPDX-License-Identifier: Apache-2.0 */
/* report.h - the --report folder of `augur calibrate`: a fit-quality table
 * (fit_quality.csv) and, per fitted group, the measured and fitted times (<group>.csv)
 * with a gnuplot script (<group>.gp) rendered to <group>.svg when gnuplot is installed. */
#ifndef AUG_CAL_REPORT_H
#define AUG_CAL_REPORT_H

#include <stddef.h>

#include "fit.h"

/* Write the report into `dir` (created if missing). `note` receives a one-line remark
 * for the user (for instance that gnuplot is absent and plots were skipped). */
int aug_report_write(const char *dir, const struct aug_samples *s,
                     const struct aug_fit_result *r, const struct aug_gpu *gpu, char *note,
                     size_t note_cap);

/* File-name stem of a group: family_op_dtype[_r<ranks>_<link>][_d<head_dim>]. */
void aug_report_group_stem(const struct aug_fit_group *g, char *buf, size_t cap);

/* Time in us that the group's curves predict for sample x (the piece holding its size). */
double aug_report_predict_us(const struct aug_fit_result *r, const struct aug_fit_group *g,
                             const struct aug_sample *x, const struct aug_gpu *gpu);

#endif
