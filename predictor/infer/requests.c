/* SPDX-License-Identifier: Apache-2.0 */
/* requests.c - request lists for the serving simulation (augur/serving.h): token-length
 * distributions, a seeded generator (xoshiro256**, Blackman and Vigna, "Scrambled linear
 * pseudorandom number generators", ACM TOMS 2021, seeded through splitmix64 as they
 * recommend), Poisson arrivals and request files. Draws use only integer arithmetic and
 * libm, so one seed gives one list on every platform. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "augur/csvio.h"
#include "augur/serving.h"
#include "augur/status.h"

/* Lengths beyond this are not a serving question (2^31 tokens, as in infer.c). */
#define AUG_REQ_MAX_LEN 2147483648.0

struct rng {
    unsigned long long s[4];
};

static unsigned long long splitmix64(unsigned long long *x) {
    unsigned long long z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, unsigned long long seed) {
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static unsigned long long rotl(unsigned long long x, int k) {
    return (x << k) | (x >> (64 - k));
}

static unsigned long long rng_next(struct rng *r) {
    unsigned long long *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

/* Uniform in (0, 1): the top 53 bits, never 0. */
static double rng_unit(struct rng *r) {
    return ((double)(rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal (Box-Muller, one of the pair). */
static double rng_normal(struct rng *r) {
    double u = rng_unit(r), v = rng_unit(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static const char *const kind_names[] = {"fixed", "normal", "uniform", "lognormal"};

int aug_len_dist_parse(const char *spec, struct aug_len_dist *out) {
    if (!spec || !spec[0])
        return aug_errorf(AUG_EUSAGE, "empty length distribution (use N, fixed:N, normal:MEAN,STD, "
                                      "uniform:LO,HI or lognormal:MEDIAN,SIGMA)");
    memset(out, 0, sizeof *out);
    const char *colon = strchr(spec, ':');
    const char *params = colon ? colon + 1 : spec;
    int k = AUG_LEN_FIXED;
    if (colon) {
        size_t len = (size_t)(colon - spec);
        for (k = 0; k < 4; k++)
            if (strlen(kind_names[k]) == len && strncasecmp(spec, kind_names[k], len) == 0)
                break;
        if (k == 4)
            return aug_errorf(AUG_EUSAGE, "length distribution '%.40s': unknown kind (use fixed, "
                                          "normal, uniform or lognormal)", spec);
    }
    double v[2] = {0, 0};
    int want = k == AUG_LEN_FIXED ? 1 : 2, got = 0;
    const char *p = params;
    while (got < 2) {
        char *end;
        double x = strtod(p, &end);
        if (end == p)
            break;
        v[got++] = x;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    if (got != want || *p != '\0')
        return aug_errorf(AUG_EUSAGE, "length distribution '%.40s': %s takes %s", spec, kind_names[k],
                          k == AUG_LEN_FIXED ? "one length (fixed:N)"
                          : k == AUG_LEN_NORMAL ? "MEAN,STD"
                          : k == AUG_LEN_UNIFORM ? "LO,HI"
                                                 : "MEDIAN,SIGMA");
    for (int i = 0; i < want; i++)
        if (!isfinite(v[i]) || v[i] < 0 || v[i] > AUG_REQ_MAX_LEN)
            return aug_errorf(AUG_EUSAGE, "length distribution '%.40s': parameter %g must be finite, "
                                          "not negative and at most 2^31", spec, v[i]);
    if ((k == AUG_LEN_FIXED || k == AUG_LEN_NORMAL || k == AUG_LEN_LOGNORMAL) && !(v[0] >= 1.0))
        return aug_errorf(AUG_EUSAGE, "length distribution '%.40s': a length of %g tokens; every "
                                      "request needs at least 1", spec, v[0]);
    if (k == AUG_LEN_UNIFORM && (v[0] < 1.0 || v[1] < v[0]))
        return aug_errorf(AUG_EUSAGE, "length distribution '%.40s': uniform needs 1 <= LO <= HI",
                          spec);
    out->kind = (enum aug_len_kind)k;
    out->a = v[0];
    out->b = v[1];
    return AUG_OK;
}

void aug_len_dist_format(const struct aug_len_dist *d, char *buf, size_t n) {
    if (d->kind == AUG_LEN_FIXED)
        snprintf(buf, n, "fixed:%.0f", d->a);
    else
        snprintf(buf, n, "%s:%g,%g", kind_names[d->kind], d->a, d->b);
}

double aug_len_dist_mean(const struct aug_len_dist *d) {
    switch (d->kind) {
    case AUG_LEN_UNIFORM: return 0.5 * (d->a + d->b);
    case AUG_LEN_LOGNORMAL: return d->a * exp(0.5 * d->b * d->b);
    default: return d->a;
    }
}

static long draw(const struct aug_len_dist *d, struct rng *r) {
    double x;
    switch (d->kind) {
    case AUG_LEN_NORMAL: x = d->a + d->b * rng_normal(r); break;
    case AUG_LEN_UNIFORM: /* integers LO..HI, each equally likely */
        x = d->a + floor(rng_unit(r) * (floor(d->b) - ceil(d->a) + 1.0));
        break;
    case AUG_LEN_LOGNORMAL: x = d->a * exp(d->b * rng_normal(r)); break;
    default: x = d->a; break;
    }
    x = floor(x + 0.5);
    if (!(x >= 1.0))
        x = 1.0;
    if (x > AUG_REQ_MAX_LEN)
        x = AUG_REQ_MAX_LEN;
    return (long)x;
}

int aug_requests_poisson(struct aug_requests *reqs, double rate, unsigned long long seed) {
    if (!(rate > 0) || !isfinite(rate))
        return aug_errorf(AUG_EUSAGE, "request rate %g: must be a positive number of requests/s",
                          rate);
    struct rng r;
    rng_seed(&r, seed ^ 0x5eed0fa77117a1ULL); /* a stream of its own: lengths stay put */
    double t = 0.0;
    for (long i = 0; i < reqs->n; i++) {
        reqs->r[i].arrival_s = t;
        t += -log(rng_unit(&r)) / rate; /* exponential gaps of mean 1/rate */
    }
    reqs->has_arrivals = 1;
    return AUG_OK;
}

int aug_requests_generate(const struct aug_len_dist *in, const struct aug_len_dist *out, long n,
                          double rate, unsigned long long seed, struct aug_requests *reqs) {
    memset(reqs, 0, sizeof *reqs);
    if (n < 1)
        return aug_errorf(AUG_EUSAGE, "number of requests %ld: must be at least 1", n);
    if (n > 10000000L)
        return aug_errorf(AUG_EUSAGE, "number of requests %ld: at most 10,000,000", n);
    if (!(rate >= 0) || !isfinite(rate))
        return aug_errorf(AUG_EUSAGE, "request rate %g: must be finite and not negative", rate);
    reqs->r = calloc((size_t)n, sizeof *reqs->r);
    if (!reqs->r)
        return aug_errorf(AUG_ENOMEM, "out of memory for %ld requests", n);
    reqs->n = n;
    struct rng r;
    rng_seed(&r, seed);
    for (long i = 0; i < n; i++) {
        reqs->r[i].input_len = draw(in, &r);
        reqs->r[i].output_len = draw(out, &r);
    }
    if (rate > 0)
        return aug_requests_poisson(reqs, rate, seed);
    return AUG_OK;
}

static const char *pick_col(const struct aug_csv *t, const char *a, const char *b) {
    if (aug_csv_col(t, a) >= 0)
        return a;
    if (aug_csv_col(t, b) >= 0)
        return b;
    return NULL;
}

int aug_requests_load(const char *path, struct aug_requests *reqs) {
    memset(reqs, 0, sizeof *reqs);
    struct aug_csv *t;
    int st = aug_csv_load_nocomments(path, &t);
    if (st != AUG_OK)
        return st;
    size_t rows = aug_csv_rows(t);
    const char *ci = pick_col(t, "input_len", "input_tokens");
    const char *co = pick_col(t, "output_len", "output_tokens");
    if (!ci || !co) {
        st = aug_errorf(AUG_EDATA, "%s: a request file needs the columns input_len and output_len "
                                   "(or input_tokens and output_tokens)", path);
        goto fail;
    }
    if (rows == 0) {
        st = aug_errorf(AUG_EDATA, "%s: no requests (the file has a header and no rows)", path);
        goto fail;
    }
    reqs->r = calloc(rows, sizeof *reqs->r);
    if (!reqs->r) {
        st = aug_errorf(AUG_ENOMEM, "out of memory for %zu requests", rows);
        goto fail;
    }
    reqs->n = (long)rows;
    reqs->has_arrivals = aug_csv_col(t, "arrival_s") >= 0;
    for (size_t i = 0; i < rows; i++) {
        struct aug_request *q = &reqs->r[i];
        if ((st = aug_csv_get_long(t, i, ci, AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &q->input_len)) ||
            (st = aug_csv_get_long(t, i, co, AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &q->output_len)))
            goto fail;
        if ((double)q->input_len > AUG_REQ_MAX_LEN || (double)q->output_len > AUG_REQ_MAX_LEN) {
            st = aug_csv_cell_error(t, i, ci, "lengths of at most 2^31 tokens");
            goto fail;
        }
        if (reqs->has_arrivals) {
            if ((st = aug_csv_get_double(t, i, "arrival_s", AUG_CSV_REQUIRED | AUG_CSV_NONNEG,
                                         &q->arrival_s)))
                goto fail;
            if (!isfinite(q->arrival_s) || (i > 0 && q->arrival_s < reqs->r[i - 1].arrival_s)) {
                st = aug_csv_cell_error(t, i, "arrival_s", "arrival times must be finite and "
                                                           "non-decreasing");
                goto fail;
            }
        }
    }
    aug_csv_free(t);
    return AUG_OK;
fail:
    aug_csv_free(t);
    aug_requests_free(reqs);
    return st;
}

void aug_requests_free(struct aug_requests *reqs) {
    if (!reqs)
        return;
    free(reqs->r);
    memset(reqs, 0, sizeof *reqs);
}
