/* SPDX-License-Identifier: Apache-2.0 */
/* gpuid.h - the kernels-db folder name of a GPU, derived from its device name.
 *
 * kernels-db/<gpu-id>/ is keyed by short ids such as "h100-80g" and "a100-40g" (the ids
 * of kernels-db/gpus.csv and the system presets). The CUDA device name carries the same
 * information in a longer form: "NVIDIA H100 80GB HBM3" -> "h100-80g",
 * "NVIDIA A100-SXM4-40GB" -> "a100-40g", "NVIDIA H200" -> "h200-141g". Users can always
 * override the result with --gpu-id. */
#ifndef AUG_PROF_GPUID_H
#define AUG_PROF_GPUID_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The id of a device: the kernels-db/gpus.csv id when the name is in the table of known
 * GPUs (gpuid.c; case and separators ignored): "NVIDIA H200" -> "h200-141g"; otherwise a
 * generated id (aug_prof_gpu_id_generate) and *known = 0 (known may be NULL): such a GPU
 * has no spec row yet, and the caller tells the user how to add one. */
int aug_prof_gpu_id(const char *device_name, char *buf, size_t cap, int *known);

/* Generate an id: lowercase; split on spaces, '-' and '_'; drop vendor and brand words
 * (nvidia, geforce, tesla, quadro), memory technology (hbm*, gddr*) and the default SXM
 * form factor; keep the model and variant words in order; turn a "<N>GB" word into
 * "<N>g" and put it last. AUG_EDATA when nothing is left (or it does not fit). */
int aug_prof_gpu_id_generate(const char *device_name, char *buf, size_t cap);

/* The table of known GPUs, for tests and messages: count and i-th device name. */
int aug_prof_gpu_known_count(void);
const char *aug_prof_gpu_known_name(int i);

/* A valid id: 1..31 characters of [a-z0-9.-], starting with a letter or digit (it becomes
 * a folder name). AUG_EUSAGE with a message otherwise. */
int aug_prof_gpu_id_check(const char *id);

/* The NVIDIA kernel driver's version ("580.159.04") from the first line of
 * /proc/driver/nvidia/version: the first word after "Kernel Module" that starts with a digit
 * and holds a '.', so both "... x86_64 Kernel Module  580.65.06  ..." (proprietary module)
 * and "... Open Kernel Module for x86_64  580.159.04  ..." (open module) give the number.
 * buf is "" when the line has none (the provenance then says "unknown"). */
void aug_prof_driver_version(const char *line, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
