/* SPDX-License-Identifier: Apache-2.0 */
/* test_kdb_transfer.c - curves for a GPU never profiled (predictor/hw/kdb_transfer.c):
 * which donors, which curves, and the rescaled parameters, derived by hand. */
#include "aug_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "augur/kdb.h"
#include "augur/status.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

static char root[256];

static void write_file(const char *rel, const char *text) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* gpu-a (profiled): 100 SMs, fp16 1000 TFLOP/s, 2000 GB/s, sm_90.
 * gpu-b: 80 SMs, fp16 500 TFLOP/s, 4000 GB/s, sm_90 -> compute x2, HBM x0.5.
 * gpu-c: as gpu-b but sm_arch not given; gpu-d: sm_80, no donor of its kind. */
static int setup(void **state) {
    (void)state;
    snprintf(root, sizeof root, "/tmp/aug_test_transfer_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    char d[300];
    snprintf(d, sizeof d, "%s/gpu-a", root);
    if (mkdir(d, 0755) != 0)
        return -1;
    write_file("gpus.csv",
               "gpu_id,name,sm_count,peak_tflops_fp32,peak_tflops_tf32,peak_tflops_bf16,"
               "peak_tflops_fp16,peak_tflops_fp8,peak_tflops_int8,peak_tflops_int4,hbm_gib,"
               "hbm_gbps,sm_arch,source\n"
               "gpu-a,A,100,50,500,1000,1000,0,0,0,80,2000,90,test\n"
               "gpu-b,B,80,25,250,500,500,0,0,0,80,4000,90,test\n"
               "gpu-c,C,80,25,250,500,500,0,0,0,80,4000,,test\n"
               "gpu-d,D,80,25,250,500,500,0,0,0,80,4000,80,test\n");
    write_file("gpu-a/curves.csv",
               "family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,n_points,"
               "rel_rmse,max_rel_err,cv_rel_err,source\n"
               "gemm,gemm,fp16,0,,gemm_roof,5,1e-9,2e-10,3e-7,4e-10,100,128,1000,1e6,1e13,50,"
               "0.05,0.1,0.05,sweep\n"
               "memory,elementwise,fp16,0,,linear,2,5e-7,,,,,,,1000,1e9,50,0.05,0.1,0.05,sweep\n"
               "collective,all_reduce,fp16,8,nvlink,linear,10,1e-6,,,,,,,1000,1e9,50,0.05,0.1,"
               "0.05,sweep\n");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char p[400];
    snprintf(p, sizeof p, "%s/gpu-a/curves.csv", root);
    remove(p);
    snprintf(p, sizeof p, "%s/gpu-a", root);
    rmdir(p);
    snprintf(p, sizeof p, "%s/gpus.csv", root);
    remove(p);
    return rmdir(root);
}

static const struct aug_curve *find(const struct aug_kdb *k, enum aug_family fam,
                                    enum aug_dtype dt) {
    for (int i = 0; i < aug_kdb_curve_count(k); i++) {
        const struct aug_curve *c = aug_kdb_curve_at(k, i);
        if (c->family == fam && c->dtype == dt)
            return c;
    }
    return NULL;
}

static void synthetic_rescale(void **state) {
    (void)state;
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open_predict(root, "gpu-b", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 2); /* the collective stays with gpu-a */
    assert_non_null(strstr(aug_kdb_origin(k), "kernels-db/gpu-a"));
    const struct aug_curve *g = find(k, AUG_FAMILY_GEMM, AUG_DTYPE_FP16);
    assert_non_null(g);
    assert_near(g->p[0], 5.0, 0);        /* fixed per-kernel cost kept */
    assert_near(g->p[1], 2e-9, 1e-24);   /* x 1000/500 */
    assert_near(g->p[2], 4e-10, 1e-24);
    assert_near(g->p[3], 1.5e-7, 1e-22); /* x 2000/4000 */
    assert_near(g->p[4], 8e-10, 1e-24);
    assert_near(g->p[5], 80, 0);         /* the target's SMs */
    assert_near(g->p[6], 128, 0);
    assert_near(g->p[7], 500, 0);        /* the target's peak */
    assert_non_null(strstr(g->source, "gpu-a rescaled"));
    /* memory: 2 + 5e-7 x 0.5 x 1e8 = 27 us (gpu-a: 52 us) */
    double t = 0;
    assert_int_equal(aug_kdb_memory_time_us(k, "elementwise", AUG_DTYPE_FP16, 1e8, &t), 1);
    assert_near(t, 27.0, 1e-9);
    assert_null(find(k, AUG_FAMILY_COLLECTIVE, AUG_DTYPE_FP16));
    aug_kdb_close(k);
    /* calibration's reader sees gpu-b as it is: no table */
    assert_int_equal(aug_kdb_open(root, "gpu-b", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 0);
    aug_kdb_close(k);
}

static void no_transfer_without_arch(void **state) {
    (void)state;
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open_predict(root, "gpu-c", &k), AUG_OK); /* sm_arch empty */
    assert_int_equal(aug_kdb_curve_count(k), 0);
    assert_string_equal(aug_kdb_origin(k), "");
    aug_kdb_close(k);
    assert_int_equal(aug_kdb_open_predict(root, "gpu-d", &k), AUG_OK); /* no sm_80 donor */
    assert_int_equal(aug_kdb_curve_count(k), 0);
    aug_kdb_close(k);
    assert_int_equal(aug_kdb_open_predict(root, "gpu-a", &k), AUG_OK); /* its own table */
    assert_int_equal(aug_kdb_curve_count(k), 3);
    assert_string_equal(aug_kdb_origin(k), "");
    aug_kdb_close(k);
    /* a GPU gpus.csv does not list (a system JSON's own) gets an empty kdb, no error */
    assert_int_equal(aug_kdb_open_predict(root, "gpu-z", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 0);
    aug_kdb_close(k);
}

/* The shipped tables: H200 (4800 GB/s) from H100 SXM (3350 GB/s), same SMs and peaks. The
 * fp16 GEMM is a gemm_tile curve: the fitted main-loop rate p1 carries over (same peak),
 * the fitted HBM bandwidth p2 scales by 4800 / 3350, SMs (132), L2 (50 MiB at 5120 B/clk x
 * 1980 MHz = 10137.6 GB/s), the peak and the kernel family are H200's own (5: sm_90's
 * tensor cores, stream-K and one CTA per SM; a donor's family would carry its own
 * architecture's kernels over). */
static void h200_from_h100(void **state) {
    (void)state;
    struct aug_kdb *h100 = NULL, *h200 = NULL;
    assert_int_equal(aug_kdb_open(KDB, "h100-80g", &h100), AUG_OK);
    assert_int_equal(aug_kdb_open_predict(KDB, "h200-141g", &h200), AUG_OK);
    assert_non_null(strstr(aug_kdb_origin(h200), "kernels-db/h100-80g"));
    const struct aug_curve *a = find(h100, AUG_FAMILY_GEMM, AUG_DTYPE_FP16);
    const struct aug_curve *b = find(h200, AUG_FAMILY_GEMM, AUG_DTYPE_FP16);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a->form, "gemm_tile");
    assert_rel(b->p[0], a->p[0], 1e-15);
    assert_rel(b->p[1], a->p[1], 1e-15);
    assert_rel(b->p[2], a->p[2] * 4800.0 / 3350.0, 1e-15);
    assert_near(b->p[3], 132, 0);
    assert_near(b->p[4], 50, 0);
    assert_rel(b->p[5], 10137.6, 1e-12);
    assert_near(b->p[6], 5, 0);
    assert_near(b->p[7], 989.4, 0);
    int mem = 0;
    for (int i = 0; i < aug_kdb_curve_count(h100); i++)
        mem += aug_kdb_curve_at(h100, i)->family == AUG_FAMILY_MEMORY;
    assert_int_equal(aug_kdb_curve_count(h200), mem + 1); /* memory curves + the fp16 GEMM */
    aug_kdb_close(h100);
    aug_kdb_close(h200);
}

/* A100 SXM 40 GB (1555 GB/s): the fp32 GEMM (gemm_roof) from A100 PCIe 40 GB (same SMs,
 * same HBM: the nearest donor, x1), the fp16 GEMM (gemm_tile) from A100 SXM 80 GB (2039
 * GB/s: its fitted HBM bandwidth x 1555/2039, the rate unchanged at the same peak);
 * Blackwell has no profiled GPU of its architecture. */
static void a100_40g_two_donors(void **state) {
    (void)state;
    struct aug_kdb *pcie = NULL, *sxm80 = NULL, *k = NULL;
    assert_int_equal(aug_kdb_open(KDB, "a100-pcie-40g", &pcie), AUG_OK);
    assert_int_equal(aug_kdb_open(KDB, "a100-80g", &sxm80), AUG_OK);
    assert_int_equal(aug_kdb_open_predict(KDB, "a100-40g", &k), AUG_OK);
    const struct aug_curve *f32 = find(k, AUG_FAMILY_GEMM, AUG_DTYPE_FP32);
    const struct aug_curve *f16 = find(k, AUG_FAMILY_GEMM, AUG_DTYPE_FP16);
    assert_non_null(f32);
    assert_non_null(f16);
    assert_rel(f32->p[3], find(pcie, AUG_FAMILY_GEMM, AUG_DTYPE_FP32)->p[3], 1e-15);
    const struct aug_curve *d16 = find(sxm80, AUG_FAMILY_GEMM, AUG_DTYPE_FP16);
    assert_rel(f16->p[1], d16->p[1], 1e-15);
    assert_rel(f16->p[2], d16->p[2] * 1555.0 / 2039.0, 1e-15);
    assert_near(f16->p[3], 108, 0);
    assert_non_null(strstr(f32->source, "a100-pcie-40g rescaled"));
    assert_non_null(strstr(f16->source, "a100-80g rescaled"));
    aug_kdb_close(pcie);
    aug_kdb_close(sxm80);
    aug_kdb_close(k);
    assert_int_equal(aug_kdb_open_predict(KDB, "b200-180g", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 0);
    aug_kdb_close(k);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synthetic_rescale),
        cmocka_unit_test(no_transfer_without_arch),
        cmocka_unit_test(h200_from_h100),
        cmocka_unit_test(a100_40g_two_donors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
