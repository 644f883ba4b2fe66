/* SPDX-License-Identifier: Apache-2.0 */
/* fill.c - finite input patterns per dtype (see fill.h). */
#include "fill.h"

#include <math.h>
#include <string.h>

#include "augur/status.h"

size_t aug_prof_elt_bytes(enum aug_dtype dt) {
    switch (dt) {
    case AUG_DTYPE_FP32:
    case AUG_DTYPE_TF32: return 4;
    case AUG_DTYPE_BF16:
    case AUG_DTYPE_FP16: return 2;
    case AUG_DTYPE_FP8:
    case AUG_DTYPE_INT8: return 1;
    default: return 0;
    }
}

/* xorshift64*: deterministic, fast, good enough for benchmark inputs. */
static uint64_t next(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [-1, 1). */
static float unit(uint64_t *s) {
    return (float)((double)(next(s) >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
}

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

uint16_t aug_prof_float_to_bf16(float f) {
    uint32_t u = float_bits(f);
    if ((u & 0x7f800000u) == 0x7f800000u) /* inf / NaN: keep class, quiet NaN */
        return (uint16_t)((u >> 16) | ((u & 0x007fffffu) ? 0x40u : 0u));
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

uint16_t aug_prof_float_to_fp16(float f) {
    uint32_t u = float_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    int exp = (int)((u >> 23) & 0xff) - 127 + 15;
    uint32_t mant = u & 0x007fffffu;
    if (exp <= 0) /* below the fp16 normal range: flush to signed zero */
        return sign;
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t half = ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent, which is the right rounding */
    return (uint16_t)(sign | half);
}

int aug_prof_fill(enum aug_dtype dt, void *buf, size_t bytes, uint64_t seed) {
    size_t e = aug_prof_elt_bytes(dt);
    if (e == 0)
        return aug_errorf(AUG_EUNSUPPORTED, "no input pattern for dtype %s", aug_dtype_name(dt));
    if (bytes % e)
        return aug_errorf(AUG_EDATA, "%zu bytes is not a whole number of %s elements", bytes,
                          aug_dtype_name(dt));
    uint64_t s = seed ? seed : 0x9E3779B97F4A7C15ULL;
    unsigned char *p = buf;
    size_t n = bytes / e;
    for (size_t i = 0; i < n; i++) {
        switch (dt) {
        case AUG_DTYPE_FP32:
        case AUG_DTYPE_TF32: {
            float f = unit(&s);
            memcpy(p + 4 * i, &f, 4);
            break;
        }
        case AUG_DTYPE_BF16: {
            uint16_t h = aug_prof_float_to_bf16(unit(&s));
            memcpy(p + 2 * i, &h, 2);
            break;
        }
        case AUG_DTYPE_FP16: {
            uint16_t h = aug_prof_float_to_fp16(unit(&s));
            memcpy(p + 2 * i, &h, 2);
            break;
        }
        case AUG_DTYPE_FP8: {
            /* e4m3, bias 7: sign, exponent field 1..7 (2^-6 .. 2^0), any mantissa; never
             * the all-ones NaN pattern. */
            uint64_t r = next(&s);
            unsigned sign = (unsigned)(r & 1u), ex = 1u + (unsigned)((r >> 1) % 7u);
            unsigned man = (unsigned)((r >> 8) & 7u);
            p[i] = (unsigned char)((sign << 7) | (ex << 3) | man);
            break;
        }
        case AUG_DTYPE_INT8: {
            int v = (int)(next(&s) % 255u) - 127;
            p[i] = (unsigned char)(signed char)v;
            break;
        }
        default:
            return aug_errorf(AUG_EUNSUPPORTED, "no input pattern for dtype %s",
                              aug_dtype_name(dt));
        }
    }
    return AUG_OK;
}

float aug_prof_decode(enum aug_dtype dt, const void *elt) {
    const unsigned char *p = elt;
    switch (dt) {
    case AUG_DTYPE_FP32:
    case AUG_DTYPE_TF32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case AUG_DTYPE_BF16: {
        uint16_t h;
        memcpy(&h, p, 2);
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case AUG_DTYPE_FP16: {
        uint16_t h;
        memcpy(&h, p, 2);
        int ex = (h >> 10) & 0x1f;
        float man = (float)(h & 0x3ff);
        float v;
        if (ex == 0)
            v = ldexpf(man, -24);
        else if (ex == 31)
            v = man ? NAN : INFINITY;
        else
            v = ldexpf(1.0f + man / 1024.0f, ex - 15);
        return (h & 0x8000) ? -v : v;
    }
    case AUG_DTYPE_FP8: {
        unsigned b = p[0];
        int ex = (int)((b >> 3) & 0xf);
        float man = (float)(b & 7u);
        float v;
        if (ex == 15 && (b & 7u) == 7u)
            v = NAN;
        else if (ex == 0)
            v = ldexpf(man / 8.0f, -6);
        else
            v = ldexpf(1.0f + man / 8.0f, ex - 7);
        return (b & 0x80u) ? -v : v;
    }
    case AUG_DTYPE_INT8:
        return (float)(signed char)p[0];
    default:
        return NAN;
    }
}
