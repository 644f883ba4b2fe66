/* SPDX-License-Identifier: Apache-2.0 */
/* test_measure.c - the repetition policy of every point (measure.c), driven by a fake
 * device with a fake clock: warm-up by time until the times are stable, an L2 flush before
 * every timed call of the points that need one, repetitions until the noise is small or
 * the budget is spent. */
#include "../aug_test.h"

#include <math.h>

#include "augur/status.h"
#include "measure.h"

struct dev {
    double clock_s;     /* fake monotonic clock: advances by each call's time */
    long calls;         /* calls so far (warm and timed) */
    long flushed;       /* timed calls preceded by a flush */
    long timed;         /* timed calls */
    double steady_us;   /* time of a warm call */
    double cold;        /* extra relative time of call i: cold * exp(-i / 200) */
    double jitter;      /* alternating relative noise: +jitter, -jitter */
};

static double call_us(struct dev *d) {
    double t = d->steady_us * (1.0 + d->cold * exp(-(double)d->calls / 200.0)) *
               (1.0 + ((d->calls & 1) ? d->jitter : -d->jitter));
    d->calls++;
    d->clock_s += t * 1e-6;
    return t;
}

static int warm(void *a, int n) {
    for (int i = 0; i < n; i++)
        call_us(a);
    return AUG_OK;
}

static int timed(void *a, int n, int flush, double *out) {
    struct dev *d = a;
    for (int i = 0; i < n; i++) {
        d->flushed += flush != 0;
        d->timed++;
        out[i] = call_us(d);
    }
    return AUG_OK;
}

static double now(void *a) {
    return ((struct dev *)a)->clock_s;
}

static struct aug_prof_run_cfg cfg_default(void) {
    struct aug_prof_run_cfg c;
    memset(&c, 0, sizeof c);
    c.warmup = 5;
    c.reps = 20;
    c.max_reps = 80;
    c.warmup_s = 0.02;
    c.max_noise = 0.005;
    c.budget_s = 1.0;
    return c;
}

static int run(struct dev *d, const struct aug_prof_run_cfg *c, int flush, double *buf, int cap,
               struct aug_prof_measure *m) {
    struct aug_prof_loop_ops ops = {d, warm, timed, now};
    memset(m, 0, sizeof *m);
    m->time_us = buf;
    m->cap = cap;
    return aug_prof_measure_loop(&ops, c, flush, m);
}

static double median(double *v, int n) {
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A kernel 2x slow when cold that settles over ~1000 calls: 5 calls of warm-up would
 * time it cold; warming by time until two batches agree measures it warm. */
static void warmup_until_stable(void **state) {
    (void)state;
    double buf[80];
    struct aug_prof_measure m;
    struct dev d = {0};
    d.steady_us = 10.0;
    d.cold = 1.0;
    struct aug_prof_run_cfg c = cfg_default();
    assert_int_equal(run(&d, &c, 0, buf, 80, &m), AUG_OK);
    /* 20 ms of 10..20 us calls is over 1000 calls: exp(-1000/200) < 1% of cold left */
    assert_true(m.warmup_calls > 1000);
    assert_rel(median(buf, m.n), 10.0, 0.02);
    /* by count alone (--warmup-time 0): 5 calls, and the times are those of a cold GPU */
    struct dev d2 = {0};
    d2.steady_us = 10.0;
    d2.cold = 1.0;
    c.warmup_s = 0;
    assert_int_equal(run(&d2, &c, 0, buf, 80, &m), AUG_OK);
    assert_int_equal(m.warmup_calls, 5);
    assert_true(median(buf, m.n) > 17.0); /* calls 5..25: 10 (1 + e^-0.075) = 19.3 us */
}

/* Every timed call of a flushing point is preceded by a flush (warm-up batches too, so the
 * warm-up sees the same cold-cache state); none with flush off. */
static void flush_before_each_timed_call(void **state) {
    (void)state;
    double buf[80];
    struct aug_prof_measure m;
    struct dev d = {0};
    d.steady_us = 50.0;
    struct aug_prof_run_cfg c = cfg_default();
    assert_int_equal(run(&d, &c, 1, buf, 80, &m), AUG_OK);
    assert_int_equal(m.l2_flush, 1);
    assert_int_equal(d.flushed, d.timed);
    assert_true(d.timed >= m.n);
    struct dev d2 = {0};
    d2.steady_us = 50.0;
    assert_int_equal(run(&d2, &c, 0, buf, 80, &m), AUG_OK);
    assert_int_equal(m.l2_flush, 0);
    assert_int_equal(d2.flushed, 0);
}

/* Which points flush: memory-bound, decode attention, decode GEMMs; not compute-bound
 * GEMMs, prefill attention or collectives; none with --no-l2-flush. */
static void flush_rules(void **state) {
    (void)state;
    struct aug_prof_run_cfg c = cfg_default();
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_MEMORY, "copy", AUG_DTYPE_BF16);
    p.size_bytes = 1 << 20;
    assert_int_equal(aug_prof_point_wants_l2_flush(&p, &c), 1);
    p = aug_prof_point_make(AUG_FAMILY_GEMM, "gemm", AUG_DTYPE_BF16);
    p.m = 4096;
    p.n = 4096;
    p.k = 4096;
    assert_int_equal(aug_prof_point_wants_l2_flush(&p, &c), 0);
    p.m = 16; /* 16 tokens through a 4096 x 4096 weight */
    assert_int_equal(aug_prof_point_wants_l2_flush(&p, &c), 1);
    p = aug_prof_point_make(AUG_FAMILY_ATTENTION, "fused_decode_fwd", AUG_DTYPE_BF16);
    p.seq_q = 1;
    p.seq_kv = 4096;
    assert_int_equal(aug_prof_point_wants_l2_flush(&p, &c), 1);
    p = aug_prof_point_make(AUG_FAMILY_ATTENTION, "fused_fwd", AUG_DTYPE_BF16);
    p.seq_q = p.seq_kv = 4096;
    assert_int_equal(aug_prof_point_wants_l2_flush(&p, &c), 0);
    p = aug_prof_point_make(AUG_FAMILY_COLLECTIVE, "all_reduce", AUG_DTYPE_BF16);
    assert_int_equal(aug_prof_point_wants_l2_flush(&p, &c), 0);
    c.no_l2_flush = 1;
    p = aug_prof_point_make(AUG_FAMILY_MEMORY, "copy", AUG_DTYPE_BF16);
    assert_int_equal(aug_prof_point_wants_l2_flush(&p, &c), 0);
}

/* Quiet kernel: the minimum of repetitions. Noisy: more, up to the maximum, or until the
 * budget is spent. */
static void repetitions_until_quiet_or_budget(void **state) {
    (void)state;
    double buf[80];
    struct aug_prof_measure m;
    struct aug_prof_run_cfg c = cfg_default();
    struct dev d = {0};
    d.steady_us = 100.0;
    d.jitter = 0.001; /* relative stdev ~0.1% < 0.5% */
    assert_int_equal(run(&d, &c, 0, buf, 80, &m), AUG_OK);
    assert_int_equal(m.n, 20);
    assert_true(m.noise < 0.002);
    struct dev d2 = {0};
    d2.steady_us = 100.0;
    d2.jitter = 0.05; /* 5%: never quiet */
    assert_int_equal(run(&d2, &c, 0, buf, 80, &m), AUG_OK);
    assert_int_equal(m.n, 80); /* 20, then 20 more, then 40 more */
    assert_rel(m.noise, 0.05, 0.05);
    /* 1 ms calls and a 30 ms budget: 20 calls (20 ms), 20 more (40 ms), stop */
    struct dev d3 = {0};
    d3.steady_us = 1000.0;
    d3.jitter = 0.05;
    c.budget_s = 0.03;
    assert_int_equal(run(&d3, &c, 0, buf, 80, &m), AUG_OK);
    assert_int_equal(m.n, 40);
    /* more repetitions than the caller has room for: refused before any call */
    struct dev d4 = {0};
    d4.steady_us = 1.0;
    assert_int_equal(run(&d4, &c, 0, buf, 40, &m), AUG_EUNSUPPORTED);
    assert_int_equal(d4.calls, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(warmup_until_stable),
        cmocka_unit_test(flush_before_each_timed_call),
        cmocka_unit_test(flush_rules),
        cmocka_unit_test(repetitions_until_quiet_or_budget),
    };
    return cmocka_run_group_tests_name("profiler repetition policy", tests, NULL, NULL);
}
