/* SPDX-License-Identifier: Apache-2.0 */
/* dtype.c - numeric format names and sizes. */
#include "augur/dtype.h"

#include <string.h>
#include <strings.h>

#include "augur/status.h"

static const struct {
    const char *name;
    double bytes;
} dtypes[] = {
    [AUG_DTYPE_FP32] = {"fp32", 4.0}, [AUG_DTYPE_TF32] = {"tf32", 4.0},
    [AUG_DTYPE_BF16] = {"bf16", 2.0}, [AUG_DTYPE_FP16] = {"fp16", 2.0},
    [AUG_DTYPE_FP8] = {"fp8", 1.0},   [AUG_DTYPE_INT8] = {"int8", 1.0},
    [AUG_DTYPE_INT4] = {"int4", 0.5},
};
_Static_assert(sizeof dtypes / sizeof dtypes[0] == AUG_DTYPE_COUNT, "dtype table out of sync");

static const struct {
    const char *alias;
    enum aug_dtype d;
} aliases[] = {
    {"float32", AUG_DTYPE_FP32}, {"float", AUG_DTYPE_FP32},     {"float16", AUG_DTYPE_FP16},
    {"half", AUG_DTYPE_FP16},    {"bfloat16", AUG_DTYPE_BF16},  {"e4m3", AUG_DTYPE_FP8},
    {"fp8_e4m3", AUG_DTYPE_FP8}, {"float8", AUG_DTYPE_FP8},     {"w4", AUG_DTYPE_INT4},
};

const char *aug_dtype_name(enum aug_dtype d) {
    return (unsigned)d < AUG_DTYPE_COUNT ? dtypes[d].name : "?";
}

int aug_dtype_from_name(const char *name, enum aug_dtype *out) {
    if (!name)
        return AUG_ENOTFOUND;
    for (int i = 0; i < AUG_DTYPE_COUNT; i++)
        if (strcasecmp(name, dtypes[i].name) == 0) {
            *out = (enum aug_dtype)i;
            return AUG_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].d;
            return AUG_OK;
        }
    return aug_errorf(AUG_ENOTFOUND, "unknown dtype '%s' (use fp32, tf32, bf16, fp16, fp8, int8, int4)",
                      name);
}

double aug_dtype_bytes(enum aug_dtype d) {
    return (unsigned)d < AUG_DTYPE_COUNT ? dtypes[d].bytes : 0.0;
}
