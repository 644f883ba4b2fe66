/* SPDX-License-Identifier: Apache-2.0 */
/* test_calibrate.c - `augur calibrate` end to end on fixtures written here: usage errors
 * exit 2, bad data exits 1 naming file and line, a good run writes curves.csv and raw/
 * into the kdb and merges with curves already there, a refused fit exits 1 unless
 * --force, --output - and --report. */
#include "aug_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "augur/csvio.h"
#include "augur/curve.h"
#include "augur/kdb.h"
#include "augur/system.h"
#include "augur/status.h"
#include "calibrate.h"
#include "fit.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/aug_test_cal_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cp '%s/kernels-db/gpus.csv' '%s/gpus.csv'", AUG_TEST_SOURCE_DIR, dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int run(int argc, const char **argv)
{
    return aug_cmd_calibrate(argc, (char **)argv);
}

static void put(const char *name, const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* nccl-tests text for an 8-GPU all-reduce: t = 20 us + S / 150 GB/s */
static void write_nccl(const char *name, double lat)
{
    char buf[8192];
    size_t n = (size_t)snprintf(buf, sizeof buf,
        "# nThread 1 nGpus 8 minBytes 1024 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "#   (B) (elements)            (us) (GB/s) (GB/s)        (us) (GB/s) (GB/s)\n");
    for (int i = 10; i <= 30; i++) {
        double s = (double)(1L << i);
        double t = lat + s / 150e3;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%.0f %.0f float sum -1 %.2f 0 0 0 %.2f 0 0 0\n",
                              s, s / 4, t * 1.002, t * 0.998);
    }
    put(name, buf);
}

static void usage_errors(void **state)
{
    (void)state;
    const char *a1[] = {"calibrate", "x.txt"};
    assert_int_equal(run(2, a1), 2); /* no --gpu */
    const char *a2[] = {"calibrate", "--gpu", "a100-80g"};
    assert_int_equal(run(3, a2), 2); /* no input */
    const char *a3[] = {"calibrate", "--gpu", "a100-80g", "--import", "csv9", "x"};
    assert_int_equal(run(6, a3), 2);
    const char *a4[] = {"calibrate", "--gpu", "a100-80g", "--bogus", "x"};
    assert_int_equal(run(5, a4), 2);
    const char *a5[] = {"calibrate", "--gpu", "a100-80g", "--folds", "1", "x"};
    assert_int_equal(run(6, a5), 2);
    const char *a6[] = {"calibrate", "--gpu", "../etc", "x"};
    assert_int_equal(run(4, a6), 2);
    const char *a7[] = {"calibrate", "--help"};
    assert_int_equal(run(2, a7), 0);
}

static void end_to_end(void **state)
{
    (void)state;
    char kdb[300], in[300], in2[300], curves[400], raw[400], rep[400];
    snprintf(kdb, sizeof kdb, "%s", dir);
    snprintf(in, sizeof in, "%s/all_reduce_perf.txt", dir);
    snprintf(in2, sizeof in2, "%s/all_gather_perf.txt", dir);
    snprintf(curves, sizeof curves, "%s/a100-80g/curves.csv", dir);
    snprintf(raw, sizeof raw, "%s/a100-80g/raw/collective.csv", dir);
    snprintf(rep, sizeof rep, "%s/report", dir);
    write_nccl("all_reduce_perf.txt", 20);
    const char *a[] = {"calibrate", "--gpu", "a100-80g", "--import", "nccl-tests", "--kdb", kdb,
                       "--report", rep, in};
    assert_int_equal(run(10, a), 0);
    struct stat st;
    assert_int_equal(stat(curves, &st), 0);
    assert_int_equal(stat(raw, &st), 0);
    char q[420];
    snprintf(q, sizeof q, "%s/fit_quality.csv", rep);
    assert_int_equal(stat(q, &st), 0);
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(kdb, "a100-80g", &k), AUG_OK);
    double t;
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 64e6, 8, "nvlink", &t), 1);
    assert_rel(t, 20 + 64e6 / 150e3, 0.01);
    aug_kdb_close(k);
    /* a second run with another collective keeps the all-reduce curve */
    write_nccl("all_gather_perf.txt", 30);
    const char *b[] = {"calibrate", "--gpu", "a100-80g", "--import", "nccl-tests", "--kdb", kdb, in2};
    assert_int_equal(run(8, b), 0);
    assert_int_equal(aug_kdb_open(kdb, "a100-80g", &k), AUG_OK);
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 64e6, 8, "nvlink", &t), 1);
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_GATHER, 64e6, 8, "nvlink", &t), 1);
    assert_rel(t, 30 + 64e6 / 150e3, 0.01);
    aug_kdb_close(k);
    /* raw/ holds both collectives' samples again, with provenance */
    FILE *fp = fopen(raw, "r");
    assert_non_null(fp);
    char line[512];
    int ar = 0, ag = 0, prov = 0;
    while (fgets(line, sizeof line, fp)) {
        ar += strncmp(line, "collective,all_reduce,", 22) == 0;
        ag += strncmp(line, "collective,all_gather,", 22) == 0;
        prov += line[0] == '#';
    }
    fclose(fp);
    assert_int_equal(ar, 21);
    assert_int_equal(ag, 21);
    assert_true(prov >= 2);
}

/* GEMMs timed with cuBLAS 13 (the raw file's "# cublas: 13.1.0", as augur-profile writes
 * it) on an H100: the gemm_tile curve takes kernel family 6, Hopper's tiles sized to the
 * shape, and says so in the curves' provenance. The times are that model's own (overhead
 * 3 us, 700 TFLOP/s, 2,900 GB/s), so the family-6 form fits them exactly. The fixed
 * parameters follow the cuBLAS version: 5 (fixed tiles) without it, 2 on an A100, 5 for
 * tf32 (cuBLAS 13 runs it on fixed tiles). */
static void cublas13_tiles(void **state)
{
    (void)state;
    struct aug_gpu h100, a100;
    assert_int_equal(aug_gpu_lookup(dir, "h100-80g", &h100), AUG_OK);
    assert_int_equal(aug_gpu_lookup(dir, "a100-80g", &a100), AUG_OK);
    const struct aug_curve_form *f = aug_curve_form_find("gemm_tile");
    double p[AUG_CURVE_MAX_PARAMS];
    assert_int_equal(aug_fit_fixed_params(f, AUG_DTYPE_FP16, 0, &h100, 0, p), 1);
    assert_near(p[6], 5, 0);
    assert_int_equal(aug_fit_fixed_params(f, AUG_DTYPE_FP16, 0, &h100, 1, p), 1);
    assert_near(p[6], 6, 0);
    assert_int_equal(aug_fit_fixed_params(f, AUG_DTYPE_FP16, 0, &a100, 1, p), 1);
    assert_near(p[6], 2, 0);
    assert_int_equal(aug_fit_fixed_params(f, AUG_DTYPE_TF32, 0, &h100, 1, p), 1);
    assert_near(p[6], 5, 0); /* cuBLAS 13's tf32 kernels keep fixed tiles */
    /* the raw file: 120 shapes of m 64..4032, n and k from 1024 to 8192 */
    assert_int_equal(aug_fit_fixed_params(f, AUG_DTYPE_FP16, 0, &h100, 1, p), 1);
    p[0] = 3.0;
    p[1] = 700.0;
    p[2] = 2900.0;
    static char buf[1 << 16];
    size_t n = (size_t)snprintf(buf, sizeof buf,
        "# gpu_id: h100-80g\n# cublas: 13.1.0\n"
        "family,op,dtype,m,n,k,batch,heads,seq_q,seq_kv,head_dim,causal,size_bytes,ranks,"
        "ranks_per_node,algo,time_us_median,time_us_min,time_us_max,reps,timing,source\n");
    for (int i = 0; i < 120; i++) {
        double m = 64 + 32 * ((i * 37) % 124), nn = 1024 * (1 + i % 8);
        double k = 1024 * (1 + (i / 8) % 8);
        struct aug_curve_point pt = aug_curve_gemm_point(m, nn, k, 2);
        double t = f->eval(p, &pt);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "gemm,gemm,fp16,%.0f,%.0f,%.0f,,,,,,,,,,,"
                              "%.4f,,,10,cupti_kernel,test\n", m, nn, k, t);
    }
    put("gemm13.csv", buf);
    char in[300], out[300];
    snprintf(in, sizeof in, "%s/gemm13.csv", dir);
    snprintf(out, sizeof out, "%s/curves13.csv", dir);
    const char *a[] = {"calibrate", "--gpu", "h100-80g", "--kdb", dir, "--output", out, in};
    assert_int_equal(run(8, a), 0);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(out, &t), AUG_OK);
    int said = 0, tile6 = 0;
    for (size_t i = 0; i < aug_csv_comments(t); i++)
        said |= strstr(aug_csv_comment(t, i), "cuBLAS 13") != NULL;
    for (size_t r = 0; r < aug_csv_rows(t); r++)
        if (strcmp(aug_csv_cell(t, r, aug_csv_col(t, "form")), "gemm_tile") == 0) {
            double fam = -1, ov = 0;
            assert_int_equal(aug_csv_get_double(t, r, "p6", AUG_CSV_REQUIRED, &fam), AUG_OK);
            assert_int_equal(aug_csv_get_double(t, r, "p0", AUG_CSV_REQUIRED, &ov), AUG_OK);
            tile6 = fam == 6;
            assert_rel(ov, 3.0, 0.02);
        }
    aug_csv_free(t);
    assert_true(said);
    assert_true(tile6);
}

static void data_errors_and_refusal(void **state)
{
    (void)state;
    char kdb[300], in[300];
    snprintf(kdb, sizeof kdb, "%s", dir);
    snprintf(in, sizeof in, "%s/bad.txt", dir);
    put("bad.txt", "#  size count type redop root time algbw busbw #wrong\n"
                   "   4096  1024 float sum -1 -3 0.3 0.3 0\n");
    const char *a[] = {"calibrate", "--gpu", "a100-80g", "--import", "nccl-tests", "--coll",
                       "all_reduce", "--ranks", "8", "--kdb", kdb, in};
    assert_int_equal(run(12, a), 1);
    assert_non_null(strstr(aug_last_error(), "bad.txt:2"));
    const char *missing[] = {"calibrate", "--gpu", "a100-80g", "--kdb", kdb, "/nonexistent.csv"};
    assert_int_equal(run(6, missing), 1);
    /* noise: refused (exit 1, nothing written), kept with --force */
    char buf[8192];
    size_t n = (size_t)snprintf(buf, sizeof buf,
        "family,op,dtype,m,n,k,batch,heads,seq_q,seq_kv,head_dim,causal,size_bytes,ranks,"
        "ranks_per_node,algo,time_us_median,time_us_min,time_us_max,reps,timing,source\n");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n,
                              "memory,softmax,bf16,,,,,,,,,,%d,,,,%d,,,,cuda_event,t\n",
                              1000 * (i + 1), (i % 2) ? 10 : 50);
    put("noise.csv", buf);
    snprintf(in, sizeof in, "%s/noise.csv", dir);
    const char *b[] = {"calibrate", "--gpu", "gpu-y", "--kdb", kdb, in};
    assert_int_equal(run(6, b), 1);
    assert_non_null(strstr(aug_last_error(), "refused"));
    struct aug_kdb *k = NULL;
    double t;
    assert_int_equal(aug_kdb_open(kdb, "gpu-y", &k), AUG_OK);
    assert_int_equal(aug_kdb_memory_time_us(k, "softmax", AUG_DTYPE_BF16, 5000, &t), 0);
    aug_kdb_close(k);
    const char *c[] = {"calibrate", "--gpu", "gpu-y", "--kdb", kdb, "--force", in};
    assert_int_equal(run(7, c), 0);
    assert_int_equal(aug_kdb_open(kdb, "gpu-y", &k), AUG_OK);
    assert_int_equal(aug_kdb_memory_time_us(k, "softmax", AUG_DTYPE_BF16, 5000, &t), 1);
    aug_kdb_close(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usage_errors),
        cmocka_unit_test_setup_teardown(end_to_end, setup, teardown),
        cmocka_unit_test_setup_teardown(data_errors_and_refusal, setup, teardown),
        cmocka_unit_test_setup_teardown(cublas13_tiles, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
