/* SPDX-License-Identifier: Apache-2.0 */
/* test_kdb.c - the kernels database: loading curves.csv, the four lookups and their
 * policies (pieces, dtype peers, misses), malformed files, the seeded tables, and the
 * atomic write of curves.csv (an interrupted writer leaves the old file intact). */
#include "aug_test.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "augur/curve.h"
#include "augur/kdb.h"
#include "augur/status.h"
#include "curves_out.h"

static char root[256];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/aug_test_kdb_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    char d[300];
    snprintf(d, sizeof d, "%s/gpu-x", root);
    return mkdir(d, 0755);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static struct aug_curve lin(enum aug_family fam, const char *op, enum aug_dtype dt, int ranks,
                            const char *link, double a, double b, double lo, double hi)
{
    struct aug_curve c;
    memset(&c, 0, sizeof c);
    c.family = fam;
    snprintf(c.op, sizeof c.op, "%s", op);
    c.dtype = dt;
    c.ranks = ranks;
    snprintf(c.link, sizeof c.link, "%s", link);
    snprintf(c.form, sizeof c.form, "linear");
    c.n_params = 2;
    c.p[0] = a;
    c.p[1] = b;
    c.x_min = lo;
    c.x_max = hi;
    c.n_points = 10;
    snprintf(c.source, sizeof c.source, "test");
    return c;
}

static void write_fixture(void)
{
    struct aug_curve c[6];
    c[0] = lin(AUG_FAMILY_MEMORY, "norm", AUG_DTYPE_FP16, 0, "", 4, 1e-6, 1e3, 1e8);
    c[1] = lin(AUG_FAMILY_COLLECTIVE, "all_reduce", AUG_DTYPE_FP16, 8, "nvlink", 20, 1e-5, 1e3, 1e6);
    c[2] = lin(AUG_FAMILY_COLLECTIVE, "all_reduce", AUG_DTYPE_FP16, 8, "nvlink", 15, 6e-6, 2e6, 1e8);
    c[3] = lin(AUG_FAMILY_COLLECTIVE, "all_reduce", AUG_DTYPE_FP16, 16, "network", 50, 5e-5, 1e3, 1e8);
    memset(&c[4], 0, sizeof c[4]);
    c[4].family = AUG_FAMILY_GEMM;
    snprintf(c[4].op, sizeof c[4].op, "gemm");
    c[4].dtype = AUG_DTYPE_FP16;
    snprintf(c[4].form, sizeof c[4].form, "gemm_roof");
    c[4].n_params = 8;
    double gp[8] = {5, 1e-8, 0, 1e-6, 0, 108, 128, 312};
    memcpy(c[4].p, gp, sizeof gp);
    c[4].x_min = 1e6;
    c[4].x_max = 1e13;
    memset(&c[5], 0, sizeof c[5]);
    c[5].family = AUG_FAMILY_ATTENTION;
    snprintf(c[5].op, sizeof c[5].op, "fwd_causal");
    c[5].dtype = AUG_DTYPE_BF16;
    snprintf(c[5].form, sizeof c[5].form, "attn_sat");
    c[5].n_params = 4;
    double ap[4] = {0.7, 3, 1, 128};
    memcpy(c[5].p, ap, sizeof ap);
    c[5].x_min = 128;
    c[5].x_max = 16384;
    char path[300];
    snprintf(path, sizeof path, "%s/gpu-x/curves.csv", root);
    const char *comments[] = {"gpu: gpu-x"};
    assert_int_equal(aug_curves_write(path, c, 6, comments, 1, NULL, NULL), AUG_OK);
}

static void lookups(void **state)
{
    (void)state;
    write_fixture();
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(root, "gpu-x", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 6);
    assert_string_equal(aug_kdb_gpu(k), "gpu-x");
    double t, e;
    /* memory: exact op; bf16 falls back to the fp16 curve; unknown op misses */
    assert_int_equal(aug_kdb_memory_time_us(k, "norm", AUG_DTYPE_FP16, 1e6, &t), 1);
    assert_near(t, 4 + 1, 1e-9);
    assert_int_equal(aug_kdb_memory_time_us(k, "norm", AUG_DTYPE_BF16, 1e6, &t), 1);
    assert_int_equal(aug_kdb_memory_time_us(k, "softmax", AUG_DTYPE_FP16, 1e6, &t), 0);
    /* below the measured range the time is held at t(x_min) */
    assert_int_equal(aug_kdb_memory_time_us(k, "norm", AUG_DTYPE_FP16, 1, &t), 1);
    assert_near(t, 4 + 1e-3, 1e-9);
    /* collectives: pieces, the gap goes to the piece above, beyond the last extrapolates */
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 1e5, 8, "nvlink", &t), 1);
    assert_near(t, 20 + 1, 1e-9);
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 1.5e6, 8, "nvlink", &t), 1);
    assert_near(t, 15 + 12, 1e-9); /* gap: the piece above, held at its t(x_min) */
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 1e9, 8, "nvlink", &t), 1);
    assert_near(t, 15 + 6000, 1e-6);
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 1e6, 16, "network", &t), 1);
    assert_near(t, 50 + 50, 1e-9);
    /* other group size, link or collective: miss */
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 1e6, 4, "nvlink", &t), 0);
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 1e6, 8, "network", &t), 0);
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_GATHER, 1e6, 8, "nvlink", &t), 0);
    /* GEMM 1152 x 1536 x 4096 compute-bound: t = 5 + 1e-8 F us, eff = F / (t * 312 T) */
    double m = 9 * 128, n = 12 * 128, kk = 4096, F = 2 * m * n * kk;
    assert_int_equal(aug_kdb_gemm_eff(k, AUG_DTYPE_FP16, m, n, kk, &e), 1);
    assert_rel(e, F / ((5 + 1e-8 * F) * 1e-6 * 312e12), 1e-9);
    assert_int_equal(aug_kdb_gemm_eff(k, AUG_DTYPE_BF16, m, n, kk, &e), 1); /* peer dtype */
    assert_int_equal(aug_kdb_gemm_eff(k, AUG_DTYPE_FP8, m, n, kk, &e), 0);
    /* attention: direction and mask must match; head dim nearest */
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 1, 0, 32, 1e4, 1e4, 128, &e), 1);
    assert_rel(e, 0.7 * 1e4 / (1e4 + 1e3), 1e-9);
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 0, 0, 32, 1e4, 1e4, 128, &e), 0);
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 1, 1, 32, 1e4, 1e4, 128, &e), 0);
    aug_kdb_close(k);
    /* NULL kdb: every lookup misses */
    assert_int_equal(aug_kdb_gemm_eff(NULL, AUG_DTYPE_FP16, m, n, kk, &e), 0);
    assert_int_equal(aug_kdb_memory_time_us(NULL, "norm", AUG_DTYPE_FP16, 1, &t), 0);
    assert_int_equal(aug_kdb_collective_time_us(NULL, AUG_COLL_ALL_REDUCE, 1, 8, "nvlink", &t), 0);
    assert_int_equal(aug_kdb_attention_eff(NULL, AUG_DTYPE_BF16, 1, 0, 1, 1, 1, 1, &e), 0);
    assert_int_equal(aug_kdb_curve_count(NULL), 0);
    /* a GPU without a folder is an empty kdb */
    assert_int_equal(aug_kdb_open(root, "gpu-none", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 0);
    aug_kdb_close(k);
}

static void family_names(void **state)
{
    (void)state;
    enum aug_family f;
    for (int i = 0; i < AUG_FAMILY_COUNT; i++) {
        assert_int_equal(aug_family_from_name(aug_family_name((enum aug_family)i), &f), AUG_OK);
        assert_int_equal((int)f, i);
    }
    assert_int_equal(aug_family_from_name("conv", &f), AUG_ENOTFOUND);
}

static void write_text(const char *rel, const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static const char *head =
    "family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,n_points,rel_rmse,"
    "max_rel_err,cv_rel_err,source\n";

static void malformed(void **state)
{
    (void)state;
    static const struct {
        const char *row, *expect;
    } cases[] = {
        {"memory,norm,fp16,0,,cubic,1,2,,,,,,,1,2,3,0,0,0,x\n", "form"},
        {"memory,norm,fp99,0,,linear,1,2,,,,,,,1,2,3,0,0,0,x\n", "dtype"},
        {"memory,norm,fp16,0,,linear,1,,,,,,,,1,2,3,0,0,0,x\n", "p1"},
        {"memory,norm,fp16,0,,linear,1,2,3,,,,,,1,2,3,0,0,0,x\n", "p2"},
        {"memory,norm,fp16,0,,linear,1,nan,,,,,,,1,2,3,0,0,0,x\n", "p1"},
        {"collective,all_reduce,fp16,8,ib,linear,1,2,,,,,,,1,2,3,0,0,0,x\n", "link"},
        {"collective,allgatherv,fp16,8,nvlink,linear,1,2,,,,,,,1,2,3,0,0,0,x\n", "op"},
        {"gemm,gemm,fp16,0,,linear,1,2,,,,,,,1,2,3,0,0,0,x\n", "form"},
        {"memory,norm,fp16,0,,linear,1,2,,,,,,,5,2,3,0,0,0,x\n", "x_max"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "# comment\n%s%s", head, cases[i].row);
        write_text("gpu-x/curves.csv", text);
        struct aug_kdb *k = NULL;
        int rc = aug_kdb_open(root, "gpu-x", &k);
        if (rc != AUG_EDATA)
            fail_msg("case %zu: status %d", i, rc);
        assert_null(k);
        char want[64];
        snprintf(want, sizeof want, ":3: column '%s'", cases[i].expect);
        if (!strstr(aug_last_error(), want))
            fail_msg("case %zu: '%s' lacks '%s'", i, aug_last_error(), want);
    }
    write_text("gpu-x/curves.csv", "family,op\nmemory,norm\n");
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(root, "gpu-x", &k), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "column 'dtype'"));
    assert_int_equal(aug_kdb_open(root, "../x", &k), AUG_EUSAGE);
}

/* ---- atomic writes ---- */

static int stop_at_row(size_t row, void *user)
{
    return row == *(size_t *)user;
}

static int die_at_row(size_t row, void *user)
{
    (void)user;
    if (row == 1)
        _exit(3); /* the process dies half-way through the new file */
    return 0;
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    char *out = malloc(n + 1);
    memcpy(out, buf, n + 1);
    return out;
}

static void interrupted_write(void **state)
{
    (void)state;
    write_fixture();
    char path[300];
    snprintf(path, sizeof path, "%s/gpu-x/curves.csv", root);
    char *before = slurp(path);
    assert_non_null(before);
    struct aug_curve c[3];
    c[0] = lin(AUG_FAMILY_MEMORY, "copy", AUG_DTYPE_FP16, 0, "", 1, 1e-6, 1, 10);
    c[1] = c[0];
    c[2] = c[0];
    /* abandoned by the writer itself */
    size_t stop = 1;
    assert_int_equal(aug_curves_write(path, c, 3, NULL, 0, stop_at_row, &stop), AUG_EIO);
    char *after = slurp(path);
    assert_string_equal(before, after);
    free(after);
    /* killed half-way: fork a writer that exits inside the write */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        aug_curves_write(path, c, 3, NULL, 0, die_at_row, NULL);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    after = slurp(path);
    assert_string_equal(before, after);
    free(after);
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(root, "gpu-x", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 6);
    aug_kdb_close(k);
    /* a completed write replaces the file */
    assert_int_equal(aug_curves_write(path, c, 1, NULL, 0, NULL, NULL), AUG_OK);
    assert_int_equal(aug_kdb_open(root, "gpu-x", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 1);
    assert_string_equal(aug_kdb_curve_at(k, 0)->op, "copy");
    aug_kdb_close(k);
    free(before);
}

/* The seeded A100 table against the published measurements it came from:
 * Vidur a100_dgx all-reduce, 8 ranks, 64 MiB: ~174 GB/s bus bandwidth (PROVENANCE.md),
 * t = S * 2 (n-1)/n / busbw = 67108864 * 1.75 / 174e9 = 675 us. */
static void seeded_tables(void **state)
{
    (void)state;
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(AUG_TEST_SOURCE_DIR "/kernels-db", "a100-80g", &k), AUG_OK);
    if (aug_kdb_curve_count(k) == 0) {
        aug_kdb_close(k);
        skip();
    }
    double t, e;
    assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, 67108864, 8, "nvlink", &t), 1);
    assert_rel(t, 67108864 * 1.75 / 174e9 * 1e6, 0.08);
    /* a large square fp16 GEMM runs at a high but physical efficiency */
    assert_int_equal(aug_kdb_gemm_eff(k, AUG_DTYPE_FP16, 4096, 4096, 4096, &e), 1);
    assert_true(e > 0.6 && e <= 1.0);
    /* decode-size GEMM (m = 1) is memory-bound: efficiency far below 10% */
    assert_int_equal(aug_kdb_gemm_eff(k, AUG_DTYPE_FP16, 1, 4096, 4096, &e), 1);
    assert_true(e < 0.05);
    assert_int_equal(aug_kdb_memory_time_us(k, "norm", AUG_DTYPE_BF16, 64e6, &t), 1);
    assert_true(t > 64e6 / 2039e9 * 1e6 * 0.9); /* not faster than HBM */
    aug_kdb_close(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lookups, setup, teardown),
        cmocka_unit_test(family_names),
        cmocka_unit_test_setup_teardown(malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(interrupted_write, setup, teardown),
        cmocka_unit_test(seeded_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
