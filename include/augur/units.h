/* SPDX-License-Identifier: Apache-2.0 */
/* units.h - unit constants and strict number parsing shared by every parser.
 *
 * Quantities carry their unit in their name: _s, _us, _bytes, _gbps (1e9 B/s, as in
 * nccl-tests), _gib (2^30 bytes), _tflops (1e12 FLOP/s), _eff (0..1). */
#ifndef AUG_UNITS_H
#define AUG_UNITS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AUG_GIB 1073741824.0
#define AUG_MIB 1048576.0
#define AUG_GB 1e9
#define AUG_TERA 1e12

/* Parse a whole string as a finite double (no trailing text, no NaN/inf).
 * Returns AUG_OK or AUG_EDATA (message names `what`). */
int aug_parse_double(const char *s, const char *what, double *out);

/* Parse a whole string as an integer in [lo, hi]. */
int aug_parse_long(const char *s, const char *what, long lo, long hi, long *out);

/* Parse a size with an optional suffix: K M G T (powers of 1000) or Ki Mi Gi Ti
 * (powers of 1024), optionally followed by B. "64Mi" -> 67108864. */
int aug_parse_size(const char *s, const char *what, double *out_bytes);

#ifdef __cplusplus
}
#endif
#endif
