/* SPDX-License-Identifier: Apache-2.0 */
/* dtype.h - numeric formats: names, storage bytes, and the peak-table index. */
#ifndef AUG_DTYPE_H
#define AUG_DTYPE_H

#ifdef __cplusplus
extern "C" {
#endif

enum aug_dtype {
    AUG_DTYPE_FP32,
    AUG_DTYPE_TF32,
    AUG_DTYPE_BF16,
    AUG_DTYPE_FP16,
    AUG_DTYPE_FP8,
    AUG_DTYPE_INT8,
    AUG_DTYPE_INT4,
    AUG_DTYPE_COUNT
};

/* "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4". */
const char *aug_dtype_name(enum aug_dtype d);

/* Parse a name (also accepts "float32", "float16", "bfloat16", "e4m3"); AUG_ENOTFOUND else. */
int aug_dtype_from_name(const char *name, enum aug_dtype *out);

/* Storage bytes per element (tf32 is stored as fp32; int4 is 0.5). */
double aug_dtype_bytes(enum aug_dtype d);

#ifdef __cplusplus
}
#endif
#endif
