/* SPDX-License-Identifier: Apache-2.0 */
/* test_scaling.c - technology scaling (predictor/explore/scaling.c): factor lists, named generations
 * (ratios from the per-stack / per-GPU figures of the table), what-if systems, calibrated
 * curves carried over to them (memory-bound and collective time curves rescaled, GEMM
 * efficiencies applied to the scaled peak), and the bottleneck study. */
#include "aug_test.h"

#include "augur/augur.h"
#include "augur/scaling.h"
#include "hw/gemm_model.h"

static void load(const char *name, struct aug_system *s) {
    if (aug_system_load(NULL, name, s) != AUG_OK)
        fail_msg("%s", aug_last_error());
}

static void test_parse_factors(void **state) {
    (void)state;
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_true(aug_scale_is_identity(&sc));
    assert_int_equal(aug_scale_parse("compute=2,hbm_bw=1.5,net_lat=0.5", &sc), AUG_OK);
    assert_true(sc.f[AUG_RES_COMPUTE] == 2.0);
    assert_true(sc.f[AUG_RES_HBM_BW] == 1.5);
    assert_true(sc.f[AUG_RES_NET_LAT] == 0.5);
    assert_true(sc.f[AUG_RES_HBM_CAP] == 1.0);
    /* lists multiply in */
    assert_int_equal(aug_scale_parse("compute=3", &sc), AUG_OK);
    assert_true(sc.f[AUG_RES_COMPUTE] == 6.0);
    /* all=2: compute and bandwidths x2, latencies / 2, capacity unchanged */
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_parse("all=2", &sc), AUG_OK);
    assert_true(sc.f[AUG_RES_COMPUTE] == 2.0 && sc.f[AUG_RES_NVLINK_BW] == 2.0 &&
                sc.f[AUG_RES_NET_BW] == 2.0 && sc.f[AUG_RES_HBM_BW] == 2.0);
    assert_true(sc.f[AUG_RES_NVLINK_LAT] == 0.5 && sc.f[AUG_RES_NET_LAT] == 0.5);
    assert_true(sc.f[AUG_RES_HBM_CAP] == 1.0);
    char buf[128];
    aug_scale_init(&sc);
    aug_scale_describe(&sc, buf, sizeof buf);
    assert_string_equal(buf, "none");
    aug_scale_improve(&sc, AUG_RES_NET_LAT, 4.0);
    aug_scale_improve(&sc, AUG_RES_HBM_CAP, 2.0);
    assert_true(sc.f[AUG_RES_NET_LAT] == 0.25 && sc.f[AUG_RES_HBM_CAP] == 2.0);
    aug_scale_describe(&sc, buf, sizeof buf);
    assert_string_equal(buf, "hbm_cap x2, net_lat x0.25");

    static const char *const bad[] = {"", "compute", "compute=0", "compute=-2", "warp=2",
                                      "compute=abc", "compute=2,,hbm_bw=2", "compute=nan"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        aug_scale_init(&sc);
        if (aug_scale_parse(bad[i], &sc) != AUG_EUSAGE)
            fail_msg("'%s' was accepted", bad[i]);
    }
    enum aug_resource r;
    assert_int_equal(aug_resource_from_name("network_bw", &r), AUG_OK);
    assert_int_equal(r, AUG_RES_NET_BW);
    assert_int_equal(aug_resource_from_name("HBM", &r), AUG_OK);
    assert_int_equal(r, AUG_RES_HBM_BW);
    assert_int_equal(aug_resource_from_name("tensor", &r), AUG_EUSAGE);
}

/* Generation steps are ratios of the table's figures: HBM3 -> HBM4 is 2048 / 819.2 = 2.5x
 * bandwidth and 64 / 24 GB = 2.667x capacity per stack; NVLink 4 -> 5 is 900 / 450 = 2x;
 * NDR -> XDR 100 / 50 = 2x; two logic steps (7 -> 5 -> 3 nm) (1 / 0.67)^2 = 2.2277x. */
static void test_generations(void **state) {
    (void)state;
    struct aug_system h100, a100, h800;
    load("dgx-h100", &h100);
    load("dgx-a100-80g", &a100);
    load("hgx-h800", &h800);
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_generation(&h100, "hbm3:hbm4", &sc), AUG_OK);
    assert_rel(sc.f[AUG_RES_HBM_BW], 2.5, 1e-12);
    assert_rel(sc.f[AUG_RES_HBM_CAP], 64.0 / 24.0, 1e-12);
    assert_true(sc.f[AUG_RES_COMPUTE] == 1.0);
    /* a name alone steps from the system's own generation (H100: HBM3, NVLink 4, NDR, 5 nm) */
    struct aug_scale sc2;
    aug_scale_init(&sc2);
    assert_int_equal(aug_scale_generation(&h100, "hbm4", &sc2), AUG_OK);
    assert_memory_equal(&sc, &sc2, sizeof sc);
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_generation(&h100, "nvlink4->nvlink5,ndr:xdr,n7:n3", &sc), AUG_OK);
    assert_rel(sc.f[AUG_RES_NVLINK_BW], 2.0, 1e-12);
    assert_rel(sc.f[AUG_RES_NET_BW], 2.0, 1e-12);
    assert_rel(sc.f[AUG_RES_COMPUTE], 1.0 / (0.67 * 0.67), 1e-12);
    assert_true(sc.f[AUG_RES_NVLINK_LAT] == 1.0 && sc.f[AUG_RES_NET_LAT] == 1.0);
    /* A100 80GB: HDR 25 GB/s -> XDR 100 GB/s is 4x; HBM2e -> HBM3e 1228.8 / 409.6 = 3x */
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_generation(&a100, "xdr,hbm3e", &sc), AUG_OK);
    assert_rel(sc.f[AUG_RES_NET_BW], 4.0, 1e-12);
    assert_rel(sc.f[AUG_RES_HBM_BW], 3.0, 1e-12);
    assert_rel(sc.f[AUG_RES_HBM_CAP], 36.0 / 16.0, 1e-12);
    assert_string_equal(aug_tech_of(&a100, AUG_TECH_LOGIC)->name, "n7");
    assert_string_equal(aug_tech_of(&h100, AUG_TECH_NVLINK)->name, "nvlink4");
    /* H800's cut NVLink (200 GB/s) is no listed generation: a bare name cannot step */
    assert_null(aug_tech_of(&h800, AUG_TECH_NVLINK));
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_generation(&h800, "nvlink5", &sc), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "from:nvlink5"));
    assert_int_equal(aug_scale_generation(&h100, "hbm3:nvlink5", &sc), AUG_EUSAGE);
    assert_int_equal(aug_scale_generation(&h100, "hbm9", &sc), AUG_EUSAGE);
    assert_int_equal(aug_scale_generation(&h100, "", &sc), AUG_EUSAGE);
    /* every table row names a source */
    for (int i = 0; i < aug_tech_count(); i++) {
        const struct aug_tech *t = aug_tech_at(i);
        assert_true(t->value > 0 && t->source && *t->source && t->what && *t->what);
        assert_ptr_equal(aug_tech_find(t->name), t);
    }
}

static void test_scale_system(void **state) {
    (void)state;
    struct aug_system h100, w;
    load("dgx-h100", &h100);
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_system(&h100, &sc, &w), AUG_OK);
    assert_memory_equal(&h100, &w, sizeof w);
    assert_int_equal(aug_scale_parse("compute=2,hbm_bw=1.5,hbm_cap=2,nvlink_bw=2,nvlink_lat=0.5,"
                                     "net_bw=4,net_lat=0.25", &sc), AUG_OK);
    assert_int_equal(aug_scale_system(&h100, &sc, &w), AUG_OK);
    assert_rel(w.gpu.peak_tflops[AUG_DTYPE_BF16], 2.0 * 989.4, 1e-12);
    assert_rel(w.gpu.peak_tflops[AUG_DTYPE_FP8], 2.0 * 1978.9, 1e-12);
    assert_rel(w.gpu.vector_tflops, 134.0, 1e-12);
    assert_rel(w.gpu.hbm_gbps, 5025.0, 1e-12);
    /* the achievable ceilings with them (gpus.csv: H100 792.1 bf16, 1280 fp8 TFLOP/s) */
    assert_rel(w.gpu.ach_tflops_bf16, 2.0 * 792.1, 1e-12);
    assert_rel(w.gpu.ach_tflops_fp8, 2.0 * 1280.0, 1e-12);
    assert_rel(w.gpu.hbm_gib, 2.0 * h100.gpu.hbm_gib, 1e-12);
    assert_rel(w.link[AUG_LINK_NVLINK].bw_gbps, 900.0, 1e-12);
    assert_rel(w.link[AUG_LINK_NVLINK].latency_us, 0.95, 1e-12);
    assert_rel(w.link[AUG_LINK_NETWORK].bw_gbps, 200.0, 1e-12);
    assert_rel(w.link[AUG_LINK_NETWORK].latency_us, 1.0, 1e-12);
    assert_string_equal(w.name, "dgx-h100*");
    assert_string_equal(w.gpu.id, "h100-80g"); /* its curves still apply */
    assert_non_null(strstr(w.source, "what-if from dgx-h100"));
    assert_int_equal(w.gpus_per_node, 8);
    sc.f[AUG_RES_COMPUTE] = 0.0;
    assert_int_equal(aug_scale_system(&h100, &sc, &w), AUG_EUSAGE);
}

/* A GPU without curves runs its GEMMs on the structural model at the achievable rates of
 * gpus.csv, so a compute what-if must move them: B200's bf16 main loop from 0.89 x 0.75 x
 * 1745 = 1164.8 TFLOP/s to twice that, and its HBM stream (0.9 x 8000 GB/s, no achievable
 * figure) with hbm_bw. */
static void test_scale_system_structural(void **state) {
    (void)state;
    struct aug_system b200, w;
    load("dgx-b200", &b200);
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_parse("compute=2,hbm_bw=1.5", &sc), AUG_OK);
    assert_int_equal(aug_scale_system(&b200, &sc, &w), AUG_OK);
    struct aug_gemm_ceiling c0, c1;
    assert_int_equal(aug_gemm_ceiling_of(&b200.gpu, AUG_DTYPE_BF16, &c0), 1);
    assert_int_equal(aug_gemm_ceiling_of(&w.gpu, AUG_DTYPE_BF16, &c1), 1);
    assert_rel(c0.rate_tflops * c0.sustained, 0.89 * 0.75 * 1745.0, 1e-12);
    assert_rel(c1.rate_tflops * c1.sustained, 2.0 * 0.89 * 0.75 * 1745.0, 1e-12);
    assert_rel(c1.l2_gbps, 2.0 * c0.l2_gbps, 1e-12);
    assert_rel(c0.hbm_gbps, 0.9 * 8000.0, 1e-12);
    assert_rel(c1.hbm_gbps, 1.5 * 0.9 * 8000.0, 1e-12);
}

/* The largest x_max of the memory curves of op `name` (linear pieces beyond it extrapolate
 * the last piece, so two sizes above it see one p0 + p1 x). */
static double max_x(const struct aug_kdb *k, enum aug_family fam, const char *op) {
    double x = 0;
    for (int i = 0; i < aug_kdb_curve_count(k); i++) {
        const struct aug_curve *c = aug_kdb_curve_at(k, i);
        if (c->family == fam && strcmp(c->op, op) == 0 && c->x_max > x)
            x = c->x_max;
    }
    return x;
}

/* The system, kdb and curves of A100 under the what-if `factors`: *w and *scaled get the
 * scaled ones (*base the A100's own, NULL when kernels-db has no A100 curves). */
static void a100_what_if(const char *factors, struct aug_system *a100, struct aug_system *w,
                         struct aug_kdb **base, struct aug_kdb **scaled) {
    load("dgx-a100-80g", a100);
    assert_int_equal(aug_kdb_open(NULL, a100->gpu.id, base), AUG_OK);
    if (aug_kdb_curve_count(*base) == 0) {
        aug_kdb_close(*base);
        *base = NULL;
        return;
    }
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_parse(factors, &sc), AUG_OK);
    assert_int_equal(aug_scale_system(a100, &sc, w), AUG_OK);
    assert_int_equal(aug_scale_kdb(NULL, a100->gpu.id, &sc, scaled), AUG_OK);
}

/* The (first) GEMM curve of form `form` in k, or NULL. */
static const struct aug_curve *find_form(const struct aug_kdb *k, const char *form) {
    for (int i = 0; i < aug_kdb_curve_count(k); i++) {
        const struct aug_curve *c = aug_kdb_curve_at(k, i);
        if (c->family == AUG_FAMILY_GEMM && strcmp(c->form, form) == 0)
            return c;
    }
    return NULL;
}

/* A100 curves carried to a what-if A100: memory-bound kernels with 2x HBM bandwidth move a
 * byte in half the time (t = p0 + p1 x -> p0 + p1 x / 2: the slope halves); NVLink
 * all-reduce with 2x bandwidth and half the latency takes exactly half as long; a large
 * compute-bound GEMM at 2x compute keeps its launch term p0 and halves the rest. */
static void test_curves_carry_over(void **state) {
    (void)state;
    struct aug_system a100, w;
    struct aug_kdb *base, *scaled;
    a100_what_if("hbm_bw=2,nvlink_bw=2,nvlink_lat=0.5,compute=2", &a100, &w, &base, &scaled);
    if (!base)
        skip();
    assert_int_equal(aug_kdb_curve_count(base), aug_kdb_curve_count(scaled));

    double x = max_x(base, AUG_FAMILY_MEMORY, "elementwise");
    assert_true(x > 0);
    {
        double b1, b2, s1, s2;
        assert_true(aug_kdb_memory_time_us(base, "elementwise", AUG_DTYPE_FP16, 2 * x, &b1));
        assert_true(aug_kdb_memory_time_us(base, "elementwise", AUG_DTYPE_FP16, 4 * x, &b2));
        assert_true(aug_kdb_memory_time_us(scaled, "elementwise", AUG_DTYPE_FP16, 2 * x, &s1));
        assert_true(aug_kdb_memory_time_us(scaled, "elementwise", AUG_DTYPE_FP16, 4 * x, &s2));
        assert_rel(s2 - s1, 0.5 * (b2 - b1), 1e-9);
        /* the latency term stays: t(2x) - (t(4x) - t(2x)) = p0 in both */
        assert_near(b1 - (b2 - b1), s1 - (s2 - s1), 1e-6 * b1);
    }
    double t_base, t_scaled;
    assert_true(aug_kdb_collective_time_us(base, AUG_COLL_ALL_REDUCE, 64e6, 8, "nvlink", &t_base));
    assert_true(aug_kdb_collective_time_us(scaled, AUG_COLL_ALL_REDUCE, 64e6, 8, "nvlink", &t_scaled));
    assert_rel(t_scaled, 0.5 * t_base, 1e-9);
    /* factors that touch no curve family leave it as it was: HBM capacity and the network */
    struct aug_scale cap;
    aug_scale_init(&cap);
    assert_int_equal(aug_scale_parse("hbm_cap=2,net_bw=3", &cap), AUG_OK);
    struct aug_kdb *same;
    assert_int_equal(aug_scale_kdb(NULL, a100.gpu.id, &cap, &same), AUG_OK);
    assert_true(aug_kdb_collective_time_us(same, AUG_COLL_ALL_REDUCE, 64e6, 8, "nvlink", &t_scaled));
    assert_true(t_scaled == t_base);
    aug_kdb_close(same);
    /* an 8192^3 fp16 GEMM through the op model */
    const struct aug_curve *g = find_form(base, "gemm_tile");
    assert_non_null(g);
    {
        struct aug_op op = aug_op_gemm("gemm", AUG_DTYPE_FP16, 8192, 8192, 8192, 1);
        struct aug_op_ctx cb = {&a100, base, 0}, cs = {&w, scaled, 0};
        struct aug_op_time tb, ts;
        assert_int_equal(aug_op_time(&cb, &op, &tb), AUG_OK);
        assert_int_equal(aug_op_time(&cs, &op, &ts), AUG_OK);
        assert_int_equal(tb.source, AUG_SOURCE_CURVE);
        assert_int_equal(ts.source, AUG_SOURCE_CURVE);
        assert_true(tb.compute_bound && ts.compute_bound);
        /* a calibrated GEMM time is the curve's alone (its p0 is the launch term) */
        double p0 = g->p[0] * 1e-6;
        double curve_b = tb.time_s, curve_s = ts.time_s;
        assert_rel(curve_s, p0 + (curve_b - p0) / 2.0, 1e-9);
    }
    aug_kdb_close(base);
    aug_kdb_close(scaled);
}

/* The A100 gemm_tile curve under a what-if of 2x HBM bandwidth alone: its fitted HBM
 * bandwidth p2 doubles and nothing else moves (a curve is used through its efficiency
 * against the calibration peak, so p2 scales by hbm / compute: 2 / 1), and a large
 * compute-bound GEMM (8192^3) takes the same time. With compute x2 as well, p0 doubles
 * (the whole curve divides by 2 and its fixed cost must not) and p2 stays. */
static void test_gemm_tile_hbm_scale(void **state) {
    (void)state;
    struct aug_system a100, w;
    struct aug_kdb *base, *scaled;
    a100_what_if("hbm_bw=2", &a100, &w, &base, &scaled);
    if (!base)
        skip();
    const struct aug_curve *g = find_form(base, "gemm_tile");
    assert_non_null(g);
    const struct aug_curve *h = find_form(scaled, "gemm_tile");
    assert_non_null(h);
    assert_rel(h->p[0], g->p[0], 1e-15);
    assert_rel(h->p[1], g->p[1], 1e-15);
    assert_rel(h->p[2], 2.0 * g->p[2], 1e-15);
    struct aug_op_ctx cb = {&a100, base, 0}, cs = {&w, scaled, 0};
    struct aug_op_time tb, ts;
    struct aug_op big = aug_op_gemm("gemm", AUG_DTYPE_FP16, 8192, 8192, 8192, 1);
    assert_int_equal(aug_op_time(&cb, &big, &tb), AUG_OK);
    assert_int_equal(aug_op_time(&cs, &big, &ts), AUG_OK);
    assert_true(tb.compute_bound);
    assert_rel(ts.time_s, tb.time_s, 1e-12);
    aug_kdb_close(scaled);
    struct aug_scale sc;
    aug_scale_init(&sc);
    assert_int_equal(aug_scale_parse("hbm_bw=2,compute=2", &sc), AUG_OK);
    assert_int_equal(aug_scale_kdb(NULL, a100.gpu.id, &sc, &scaled), AUG_OK);
    h = find_form(scaled, "gemm_tile");
    assert_non_null(h);
    assert_rel(h->p[0], 2.0 * g->p[0], 1e-15);
    assert_rel(h->p[2], g->p[2], 1e-15);
    aug_kdb_close(base);
    aug_kdb_close(scaled);
}

/* The study on Llama 2 7B, 8 A100, batch 16: the point with compute x2 is the reference
 * with compute improved 2x, so its speed-up equals the reference's compute gain; more HBM
 * capacity never makes the best plan slower (more plans fit). */
static void test_bottleneck_study(void **state) {
    (void)state;
    struct aug_model m;
    if (aug_model_load(NULL, "llama2-7b", &m) != AUG_OK)
        fail_msg("%s", aug_last_error());
    struct aug_scaling_point pts[2];
    memset(pts, 0, sizeof pts);
    load("dgx-a100-80g", &pts[0].preset);
    pts[1].preset = pts[0].preset;
    aug_scale_init(&pts[0].scale);
    aug_scale_init(&pts[1].scale);
    aug_scale_improve(&pts[1].scale, AUG_RES_COMPUTE, 2.0);
    struct aug_scaling_study st;
    memset(&st, 0, sizeof st);
    st.sweep.model = &m;
    aug_plan_init(&st.sweep.base);
    st.sweep.base.gpus = 8;
    st.sweep.base.global_batch = 16;
    aug_sweep_space_init(&st.sweep.space);
    st.sweep.top_k = 1;
    st.sweep.threads = 2;
    st.kdb_enabled = 1;
    st.improve = 2.0;
    if (aug_scaling_run(&st, pts, 2) != AUG_OK)
        fail_msg("%s", aug_last_error());
    assert_true(pts[0].found && pts[1].found);
    assert_true(pts[0].speedup == 1.0);
    assert_rel(pts[1].speedup, pts[0].sensitivity[AUG_RES_COMPUTE], 1e-12);
    assert_true(pts[1].speedup > 1.0 && pts[1].speedup <= 2.0 + 1e-9);
    for (int i = 0; i < 2; i++) {
        assert_true(pts[i].sensitivity[AUG_RES_HBM_CAP] >= 1.0);
        for (int r = 0; r < AUG_RES_COUNT; r++)
            assert_true(pts[i].sensitivity[r] >= 1.0 - 1e-12); /* improving never hurts */
        for (int r = 0; r < AUG_RES_COUNT; r++)
            assert_true(pts[i].sensitivity[pts[i].bound] >= pts[i].sensitivity[r]);
    }
    /* a dense 7B model training on one node is compute-bound */
    assert_int_equal(pts[0].bound, AUG_RES_COMPUTE);
    assert_string_equal(pts[1].system.name, "dgx-a100-80g*");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_factors),
        cmocka_unit_test(test_generations),
        cmocka_unit_test(test_scale_system),
        cmocka_unit_test(test_scale_system_structural),
        cmocka_unit_test(test_curves_carry_over),
        cmocka_unit_test(test_gemm_tile_hbm_scale),
        cmocka_unit_test(test_bottleneck_study),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
