/* SPDX-License-Identifier: Apache-2.0 */
/* device_match.h - does the GPU an input file reports (nccl-tests Rank lines: "NVIDIA
 * A100-SXM4-80GB") fit the kernels-db GPU it is imported into ("a100-80g", "A100 SXM4
 * 80GB")? Used by `augur calibrate` to refuse another GPU's measurements. */
#ifndef AUG_CAL_DEVICE_MATCH_H
#define AUG_CAL_DEVICE_MATCH_H

/* 1: same model (and same memory size where both say it), 0: a different GPU, -1: the
 * device name names no model augur can compare. gpu_name may be NULL. */
int aug_device_matches_gpu(const char *device, const char *gpu_id, const char *gpu_name);

#endif
