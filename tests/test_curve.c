/* SPDX-License-Identifier: Apache-2.0 */
/* test_curve.c - the curve-form table: wave quantization, FLOP conventions, each form's
 * value, and the out-of-range policy (time held below x_min, extrapolated above, every
 * efficiency clamped to (0, 1]). */
#include "aug_test.h"

#include "augur/curve.h"

static void wave(void **state)
{
    (void)state;
    /* 108 SMs: 9 x 12 tiles of 128 = 108 tiles, one full wave */
    assert_near(aug_curve_wave(9 * 128, 12 * 128, 128, 128, 108), 1.0, 1e-15);
    /* 109 tiles need two waves: 109 / 216 */
    assert_near(aug_curve_wave(109 * 128, 128, 128, 128, 108), 109.0 / 216.0, 1e-15);
    /* a 1 x 1000 GEMV: 8 tiles on 108 SMs */
    assert_near(aug_curve_wave(1, 1000, 128, 128, 108), 8.0 / 108.0, 1e-15);
    /* bad arguments: no quantization */
    assert_near(aug_curve_wave(0, 10, 128, 128, 108), 1.0, 0);
}

static void wave_tiles(void **state)
{
    (void)state;
    /* whole tiles: the same as aug_curve_wave */
    assert_near(aug_curve_wave_tiles(9 * 128, 12 * 128, 128, 128, 108), 1.0, 1e-15);
    assert_near(aug_curve_wave_tiles(109 * 128, 128, 128, 128, 108), 109.0 / 216.0, 1e-15);
    /* 4097 x 4096 runs 33 x 32 = 1056 tiles of 128 x 128, 10 waves on 108 SMs: W =
     * 4097 x 4096 / (128^2 x 10 x 108), so F / W = 2k x 128^2 x 1080, the same as for
     * 4096 x 4096 (1024 tiles, also 10 waves); the tile-count W would make it smaller */
    assert_near(aug_curve_wave_tiles(4097, 4096, 128, 128, 108), 4097.0 * 4096 / (16384.0 * 1080),
                1e-15);
    double fw4096 = 4096.0 * 4096 / aug_curve_wave_tiles(4096, 4096, 128, 128, 108);
    assert_near(4097.0 * 4096 / aug_curve_wave_tiles(4097, 4096, 128, 128, 108), fw4096, 1e-3);
    assert_true(4097.0 * 4096 / aug_curve_wave(4097, 4096, 128, 128, 108) < fw4096);
    /* 4225 rows: 34 x 32 = 1088 tiles, 11 waves: F / W steps up by 11 / 10 */
    assert_near(4225.0 * 4096 / aug_curve_wave_tiles(4225, 4096, 128, 128, 108) / fw4096, 1.1,
                1e-12);
    /* a 1 x 1000 GEMV: a 1-row tile, 8 column tiles on 108 SMs: 1000 / (1 x 128 x 108) */
    assert_near(aug_curve_wave_tiles(1, 1000, 128, 128, 108), 1000.0 / (128.0 * 108.0), 1e-15);
    assert_near(aug_curve_wave_tiles(0, 10, 128, 128, 108), 1.0, 0);
}

static void flops(void **state)
{
    (void)state;
    assert_near(aug_curve_gemm_flops(2, 3, 4), 48, 0);
    /* forward: 4 * BH * Sq * Skv * d; causal square keeps half; backward 2.5x */
    assert_near(aug_curve_attention_flops(2, 1024, 1024, 128, 0, 0), 4.0 * 2 * 1024 * 1024 * 128, 0);
    assert_near(aug_curve_attention_flops(2, 1024, 1024, 128, 1, 0), 2.0 * 2 * 1024 * 1024 * 128, 0);
    assert_near(aug_curve_attention_flops(2, 1024, 1024, 128, 1, 1), 5.0 * 2 * 1024 * 1024 * 128, 0);
    /* decode step: one query against 4096 keys, causal = all keys visible minus 1/2 */
    assert_near(aug_curve_attention_flops(1, 1, 4096, 64, 1, 0), 4.0 * (4096 - 0.5) * 64, 0);
    struct aug_curve_point pt = aug_curve_gemm_point(10, 20, 30, 2);
    assert_near(pt.flops, 12000, 0);
    assert_near(pt.bytes, (10 * 30 + 30 * 20 + 10 * 20) * 2, 0);
    assert_near(pt.x, 12000, 0);
}

static void forms(void **state)
{
    (void)state;
    assert_non_null(aug_curve_form_find("linear"));
    assert_non_null(aug_curve_form_find("gemm_sat"));
    assert_non_null(aug_curve_form_find("gemm_time"));
    assert_non_null(aug_curve_form_find("gemm_roof"));
    assert_non_null(aug_curve_form_find("attn_sat"));
    assert_null(aug_curve_form_find("cubic"));
    assert_null(aug_curve_form_at(aug_curve_form_count()));
    for (int i = 0; i < aug_curve_form_count(); i++) {
        const struct aug_curve_form *f = aug_curve_form_at(i);
        assert_true(f->n_fit <= f->n_params && f->n_params <= AUG_CURVE_MAX_PARAMS);
        assert_true(f->linear ? f->basis != NULL : f->log_grad != NULL);
    }
    /* gemm_sat at F = F_half, W = 1: e_max / 2 */
    const struct aug_curve_form *f = aug_curve_form_find("gemm_sat");
    double p[8] = {0.8, 9, 1.2, 108, 128, 128};
    struct aug_curve_point pt = aug_curve_gemm_point(9 * 128, 12 * 128, 1e9 / (2.0 * 9 * 128 * 12 * 128), 2);
    assert_rel(f->eval(p, &pt), 0.4, 1e-12);
    /* its log-gradient agrees with finite differences */
    double g[3], lv = f->log_grad(p, &pt, g);
    for (int j = 0; j < 3; j++) {
        double q[8];
        memcpy(q, p, sizeof q);
        q[j] += 1e-6;
        assert_near((f->log_grad(q, &pt, NULL) - lv) / 1e-6, g[j], 1e-4);
    }
    /* gemm_roof: compute-bound and memory-bound regimes */
    f = aug_curve_form_find("gemm_roof");
    double r[8] = {5, 1e-8, 0, 1e-6, 0, 108, 128, 312};
    pt = aug_curve_gemm_point(9 * 128, 12 * 128, 4096, 2); /* F = 1.16e10, bytes ~ 2.5e7 */
    assert_rel(f->eval(r, &pt), 5 + 1e-8 * pt.flops, 1e-12);
    pt = aug_curve_gemm_point(1, 4096, 4096, 2);
    assert_rel(f->eval(r, &pt), 5 + 1e-6 * pt.bytes, 1e-12);
    /* compute-bound 4096^3 on 108 SMs: 10 waves of 128 x 128 tiles, t = 5 + 1e-8 x
     * (2 x 4096 x 128^2 x 1080) us; 4097 rows: 33 x 32 tiles, still 10 waves, the same
     * time (never less, as the tile-count W would give); 4225 rows: 11 waves */
    double t_full = 5 + 1e-8 * 2.0 * 4096 * 16384 * 1080;
    pt = aug_curve_gemm_point(4096, 4096, 4096, 2);
    assert_rel(f->eval(r, &pt), t_full, 1e-12);
    pt = aug_curve_gemm_point(4097, 4096, 4096, 2);
    assert_rel(f->eval(r, &pt), t_full, 1e-12);
    pt = aug_curve_gemm_point(4225, 4096, 4096, 2);
    assert_rel(f->eval(r, &pt), 5 + 1e-8 * 2.0 * 4096 * 16384 * 1188, 1e-12);
}

/* A batched point: 64 products of 64 x 64 x 64 in fp32 carry F and bytes of all 64. The
 * structural form times them as one batched SGEMM: with family 4 (SIMT, sm_80 batched
 * tiles), 16.575 TFLOP/s, 108 SMs, 40 MiB L2 at 7219 GB/s, 2.5 us overhead: one 128 x 128
 * tile per entry, 64 tiles at most one per SM, half a wave of 8 k steps: 2.5 + 0.5 x 2 x
 * 128 x 128 x 64 / (16.575e12 / 216) = 16.164 us (test_kernel_model derives the same).
 * As one GEMM of 4096 rows it runs 32 x 32 tiles in
 * about half that. gemm_roof reads the point as one GEMM of 4096 x 64 x 64 whose bytes are
 * the 64 entries' own operands (each its own B). */
static void batched_point(void **state)
{
    (void)state;
    struct aug_curve_point pt = aug_curve_gemm_batched_point(64, 64, 64, 64, 4);
    assert_near(pt.batch, 64, 0);
    assert_rel(pt.flops, 64 * 2.0 * 64 * 64 * 64, 1e-15);
    assert_rel(pt.bytes, 64 * 3.0 * 64 * 64 * 4, 1e-15);
    assert_rel(pt.x, pt.flops, 1e-15);
    const struct aug_curve_form *f = aug_curve_form_find("gemm_tile");
    double p[8] = {2.5, 0.85 * 19.5, 1795, 108, 40, 7219, 4, 19.5};
    double t = f->eval(p, &pt);
    assert_rel(t, 2.5 + 0.5 * 2.0 * 128 * 128 * 64 / (0.85 * 19.5e12 / 216) * 1e6, 1e-12);
    assert_rel(t, 16.164, 1e-4);
    struct aug_curve_point flat = aug_curve_gemm_point(64 * 64, 64, 64, 4);
    assert_true(f->eval(p, &flat) < 0.75 * t);
    const struct aug_curve_form *r = aug_curve_form_find("gemm_roof");
    double q[8] = {5, 1e-8, 0, 1e-6, 0, 108, 128, 19.5};
    assert_true(r->eval(q, &pt) > r->eval(q, &flat)); /* memory-bound: 64 B operands */
    flat.bytes = pt.bytes;
    assert_rel(r->eval(q, &pt), r->eval(q, &flat), 1e-15);
    /* batch 0 or below reads as one product */
    pt = aug_curve_gemm_batched_point(0, 64, 64, 64, 4);
    assert_near(pt.batch, 1, 0);
    assert_rel(pt.flops, 2.0 * 64 * 64 * 64, 1e-15);
}

static void range_policy(void **state)
{
    (void)state;
    struct aug_curve c;
    memset(&c, 0, sizeof c);
    snprintf(c.form, sizeof c.form, "linear");
    c.n_params = 2;
    c.p[0] = 10;
    c.p[1] = 0.001;
    c.x_min = 1000;
    c.x_max = 1e6;
    const struct aug_curve_form *f = aug_curve_form_find("linear");
    struct aug_curve_point pt = aug_curve_size_point(5000);
    assert_near(aug_curve_value(&c, f, &pt), 15, 1e-12);
    pt = aug_curve_size_point(10); /* below: held at t(x_min) = 11 */
    assert_near(aug_curve_value(&c, f, &pt), 11, 1e-12);
    pt = aug_curve_size_point(1e7); /* above: extrapolated */
    assert_near(aug_curve_value(&c, f, &pt), 10010, 1e-9);
    /* efficiencies are clamped into (0, 1] */
    struct aug_curve e;
    memset(&e, 0, sizeof e);
    snprintf(e.form, sizeof e.form, "attn_sat");
    e.p[0] = 1.7;
    e.p[1] = 2;
    e.p[2] = 1;
    e.p[3] = 128;
    f = aug_curve_form_find("attn_sat");
    pt = aug_curve_attention_point(8, 1e6, 1e6, 128, 0, 0);
    assert_near(aug_curve_value(&e, f, &pt), 1.0, 0);
    e.p[0] = 1e-9;
    assert_near(aug_curve_value(&e, f, &pt), AUG_CURVE_EFF_MIN, 0);
    /* time from an efficiency form: F / (eff * peak) */
    e.p[0] = 0.5;
    e.p[1] = -3; /* saturated */
    double t = aug_curve_time_us(&e, f, &pt, 100);
    assert_rel(t, pt.flops / (0.5 * 100e12) * 1e6, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(wave), cmocka_unit_test(wave_tiles), cmocka_unit_test(flops),
                                       cmocka_unit_test(forms), cmocka_unit_test(batched_point),
                                       cmocka_unit_test(range_policy)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
