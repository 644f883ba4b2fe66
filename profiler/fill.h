/* SPDX-License-Identifier: Apache-2.0 */
/* fill.h - host-generated input data for benchmarks: finite values of every dtype.
 *
 * Inputs must be ordinary numbers: zeros make tensor cores draw less power (and clock
 * higher) than real data, and random bits would include NaN and infinity. The pattern is
 * spread over [-1, 1] (fp8 e4m3: magnitudes 2^-6 .. 1.875), deterministic for a seed, and
 * produced without any GPU library (bf16, fp16 and fp8 e4m3 bits are built by hand), so
 * backends just copy it to the device. */
#ifndef AUG_PROF_FILL_H
#define AUG_PROF_FILL_H

#include <stddef.h>
#include <stdint.h>

#include "augur/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes per stored element: 4 (fp32, tf32), 2 (bf16, fp16), 1 (fp8, int8); 0 for int4. */
size_t aug_prof_elt_bytes(enum aug_dtype dt);

/* Fill `bytes` bytes (a multiple of the element size) of `buf` with finite values of `dt`
 * of magnitude below 2 (int8: [-127, 127]). AUG_EUNSUPPORTED for int4. */
int aug_prof_fill(enum aug_dtype dt, void *buf, size_t bytes, uint64_t seed);

/* Decode one element back to float (for tests and self-checks of device results). */
float aug_prof_decode(enum aug_dtype dt, const void *elt);

/* float -> bf16 / fp16 bits, round to nearest even (normal range; tiny values flush to 0). */
uint16_t aug_prof_float_to_bf16(float f);
uint16_t aug_prof_float_to_fp16(float f);

#ifdef __cplusplus
}
#endif
#endif
