/* SPDX-License-Identifier: Apache-2.0 */
/* units.c - strict parsing of numbers and sizes (every CLI number and CSV cell). */
#include "augur/units.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"

/* strtod also reads hexadecimal ("0x10", "0x1p4"): no input of ours is written that way,
 * and a hex value where a decimal is meant is a typo to report, not a number to use. */
static int has_hex(const char *s) {
    return strchr(s, 'x') != NULL || strchr(s, 'X') != NULL;
}

int aug_parse_double(const char *s, const char *what, double *out) {
    char *end = NULL;
    if (!s || !*s)
        return aug_errorf(AUG_EDATA, "%s: empty value, expected a number", what);
    if (has_hex(s))
        return aug_errorf(AUG_EDATA, "%s: '%s' is not a decimal number", what, s);
    errno = 0;
    double v = strtod(s, &end);
    while (end && (*end == ' ' || *end == '\t'))
        end++;
    if (end == s || *end != '\0')
        return aug_errorf(AUG_EDATA, "%s: '%s' is not a number", what, s);
    if (errno == ERANGE || !isfinite(v))
        return aug_errorf(AUG_EDATA, "%s: '%s' is out of range or not finite", what, s);
    *out = v;
    return AUG_OK;
}

int aug_parse_long(const char *s, const char *what, long lo, long hi, long *out) {
    char *end = NULL;
    if (!s || !*s)
        return aug_errorf(AUG_EDATA, "%s: empty value, expected an integer", what);
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0') {
        /* accept integral floats such as "8.0" or "1e3" written by spreadsheets */
        double d;
        if (aug_parse_double(s, what, &d) == AUG_OK && d == floor(d) && fabs(d) < 9e15) {
            v = (long)d;
        } else {
            return aug_errorf(AUG_EDATA, "%s: '%s' is not an integer", what, s);
        }
    } else if (errno == ERANGE) {
        return aug_errorf(AUG_EDATA, "%s: '%s' is out of range", what, s);
    }
    if (v < lo || v > hi)
        return aug_errorf(AUG_EDATA, "%s: %ld is outside [%ld, %ld]", what, v, lo, hi);
    *out = v;
    return AUG_OK;
}

int aug_parse_size(const char *s, const char *what, double *out_bytes) {
    char *end = NULL;
    if (!s || !*s)
        return aug_errorf(AUG_EDATA, "%s: empty size", what);
    if (has_hex(s))
        return aug_errorf(AUG_EDATA, "%s: '%s' is not a decimal size", what, s);
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v))
        return aug_errorf(AUG_EDATA, "%s: '%s' is not a size", what, s);
    double mult = 1.0;
    const char *suf = end;
    if (*suf) {
        static const char units[] = "KMGT";
        const char *u = strchr(units, *suf);
        if (!u || !*suf)
            return aug_errorf(AUG_EDATA, "%s: '%s' has an unknown suffix (use K M G T, Ki Mi Gi Ti)",
                              what, s);
        int power = (int)(u - units) + 1;
        suf++;
        double base = 1000.0;
        if (*suf == 'i') {
            base = 1024.0;
            suf++;
        }
        if (*suf == 'B')
            suf++;
        if (*suf)
            return aug_errorf(AUG_EDATA, "%s: '%s' has trailing text after the size", what, s);
        mult = pow(base, power);
    }
    if (v < 0)
        return aug_errorf(AUG_EDATA, "%s: size '%s' is negative", what, s);
    if (!isfinite(v * mult) || v * mult > 9e18)
        return aug_errorf(AUG_EDATA, "%s: size '%s' is out of range", what, s);
    /* "1.5Ki" is 1536; "0.5" is no count of bytes, heads or rows */
    if (v * mult != floor(v * mult))
        return aug_errorf(AUG_EDATA, "%s: size '%s' is not a whole number", what, s);
    *out_bytes = v * mult;
    return AUG_OK;
}
