/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_numbers.c - libFuzzer target for the number and size parsers every CLI option and
 * CSV cell goes through (predictor/core/units.c): any text must parse or be refused with a
 * message; what parses is finite, decimal, in range, and a size is a whole, non-negative
 * byte count. Seeds: the numeric cells of kernels-db (tests/fuzz/make_corpus.sh). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "augur/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char s[256];
    if (size >= sizeof s)
        size = sizeof s - 1;
    memcpy(s, data, size);
    s[size] = '\0';
    double d;
    long l;
    int st = aug_parse_double(s, "x", &d);
    if (st == AUG_OK && !isfinite(d))
        abort();
    if (st != AUG_OK && (st != AUG_EDATA || aug_last_error()[0] == '\0'))
        abort();
    if (st == AUG_OK && (strchr(s, 'x') || strchr(s, 'X')))
        abort(); /* hexadecimal is never a number of ours */
    st = aug_parse_long(s, "n", -1000000, 1000000, &l);
    if (st == AUG_OK && (l < -1000000 || l > 1000000))
        abort();
    if (st != AUG_OK && (st != AUG_EDATA || aug_last_error()[0] == '\0'))
        abort();
    st = aug_parse_size(s, "s", &d);
    if (st == AUG_OK && (!isfinite(d) || d < 0 || d != floor(d)))
        abort();
    if (st != AUG_OK && (st != AUG_EDATA || aug_last_error()[0] == '\0'))
        abort();
    aug_clear_error();
    return 0;
}
