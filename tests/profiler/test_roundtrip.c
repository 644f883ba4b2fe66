/* SPDX-License-Identifier: Apache-2.0 */
/* test_roundtrip.c - profile -> calibrate -> predict through a fake device, to check that the
 * three tools' formats fit together.
 *
 * The fake device (defined only here, and synthetic, so it can never write into a
 * kernels-db/ folder) answers every point from a known model of an H100:
 *   GEMM       t = 6 us + max(F / (W(m, n) * 0.78 * peak), bytes / 3.0 TB/s)   (a roofline
 *              with wave quantization W over 128 x 128 tiles on 132 SMs)
 *   attention  fused prefill forward at eff(S) = 0.45 S^1.6 / (S^1.6 + 700^1.6) of the bf16
 *              peak, S = seq_kv; unfused forward at 0.2 S / (S + 2000) (clearly apart, so a
 *              lookup that took the wrong kind's curve fails); fused decode (one query row)
 *              bound by reading the KV cache: t = 4 us + bytes / 2.5 TB/s, which is an
 *              attn_sat curve with exponent 1 for a fixed batch (eff = F / (t peak) =
 *              a S / (b + S))
 *   memory     t = 2.5 us + bytes / 2.9 TB/s
 *   all-reduce and the other collectives: t = lat + S * busbw_factor(n) / busbw with
 *              lat 12 us / busbw 150 GB/s on 2 ranks, 25 us / 360 GB/s on 8.
 * augur-profile's sweep (the real harness and CLI) writes the raw CSVs into a temporary
 * folder; the `augur calibrate` binary ($AUGUR_BIN) fits them into a temporary kernels-db
 * that holds a copy of the project's gpus.csv; then the predictor's kdb lookups and the
 * `augur kernel` command must give back the model's numbers, every family and every
 * attention kind (prefill, causal, decode) from its own curve. The tolerances are those
 * of least squares on exact data plus rounding of the written times (6 digits). */
#include "../aug_test.h"

#include <dirent.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "augur/collective.h"
#include "augur/curve.h"
#include "augur/kdb.h"
#include "augur/status.h"
#include "augur/system.h"
#include "cli.h"

#define GPU_ID "h100-80g"

static char tmpdir[256];
static struct aug_gpu gpu; /* peaks of the reference GPU from the project's gpus.csv */

/* ---- the model ---- */

static double peak_flops(void) {
    return gpu.peak_tflops[AUG_DTYPE_BF16] * 1e12;
}

static double gemm_us(double m, double n, double k) {
    double f = 2.0 * m * n * k, bytes = (m * k + k * n + m * n) * 2.0;
    double w = aug_curve_wave(m, n, 128, 128, 132);
    double comp = f / (w * 0.78 * peak_flops()) * 1e6, mem = bytes / 3.0e12 * 1e6;
    return 6.0 + (comp > mem ? comp : mem);
}

static double attn_eff(double s) {
    double a = pow(s, 1.6);
    return 0.45 * a / (a + pow(700.0, 1.6));
}

static double unfused_eff(double s) {
    return 0.2 * s / (s + 2000.0);
}

static double decode_us(const struct aug_prof_point *p) {
    return 4.0 + aug_prof_point_bytes(p) / 2.5e12 * 1e6;
}

static double memory_us(double bytes) {
    return 2.5 + bytes / 2.9e12 * 1e6;
}

static double coll_us(enum aug_coll c, double size, int ranks) {
    double lat = ranks <= 2 ? 12.0 : 25.0, bw = ranks <= 2 ? 150e9 : 360e9;
    return lat + size * aug_coll_busbw_factor(c, ranks) / bw * 1e6;
}

static double model_us(const struct aug_prof_point *p) {
    switch (p->family) {
    case AUG_FAMILY_GEMM: return gemm_us((double)p->m, (double)p->n, (double)p->k);
    case AUG_FAMILY_ATTENTION:
        if (strcmp(p->op, "fused_decode_fwd") == 0)
            return decode_us(p);
        return aug_prof_point_flops(p) /
               ((strcmp(p->op, "unfused_fwd") == 0 ? unfused_eff((double)p->seq_kv)
                                                   : attn_eff((double)p->seq_kv)) *
                peak_flops()) * 1e6;
    case AUG_FAMILY_MEMORY: return memory_us(p->size_bytes);
    default: {
        enum aug_coll c;
        aug_coll_from_name(p->op, &c);
        return coll_us(c, p->size_bytes, p->ranks);
    }
    }
}

/* ---- the fake device ---- */

static int fake_query(void *ctx, struct aug_prof_device *d) {
    (void)ctx;
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
    d->device_count = 8;
    d->nodes = 1;
    d->cc_major = 9;
    d->sm_count = 132;
    d->is_writer = 1;
    return AUG_OK;
}

static int fake_setup(void *ctx, void **state) {
    *state = ctx;
    return AUG_OK;
}

static void fake_teardown(void *state) {
    (void)state;
}

static int fake_run(void *state, const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
                    struct aug_prof_measure *out) {
    (void)state;
    double t = model_us(p);
    for (int r = 0; r < cfg->reps; r++) /* a little symmetric noise around the model */
        out->time_us[r] = t * (1.0 + 0.002 * (double)((r % 3) - 1));
    out->n = cfg->reps;
    out->timing = AUG_PROF_TIMING_CUPTI;
    snprintf(out->impl, sizeof out->impl, "model");
    return AUG_OK;
}

static const struct aug_prof_bench_impl fake_impl = {fake_setup, fake_run, fake_teardown};

/* ---- helpers ---- */

static void remove_tree(const char *path) {
    struct stat st;
    DIR *d = lstat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (!d) { /* a file or a symbolic link */
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        remove_tree(p);
    }
    closedir(d);
    rmdir(path);
}

static int copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    if (!in || !out) {
        if (in)
            fclose(in);
        return -1;
    }
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    return fclose(out);
}

/* Run argv with stdout and stderr into `log`; the exit status, or -1. */
static int run_cmd(char *const argv[], const char *log) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static const char *slurp(const char *path) {
    static char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/* `augur kernel ... --format json`: time_s and source. */
static void kernel_json(const char *augur, char *const extra[], int n_extra, double *time_s,
                        char *source, size_t cap) {
    char kdb[300], log[300];
    snprintf(kdb, sizeof kdb, "%s/kdb", tmpdir);
    snprintf(log, sizeof log, "%s/kernel.json", tmpdir);
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)augur;
    argv[n++] = "kernel";
    for (int i = 0; i < n_extra; i++)
        argv[n++] = extra[i];
    argv[n++] = "--gpu";
    argv[n++] = GPU_ID;
    argv[n++] = "--kdb";
    argv[n++] = kdb;
    argv[n++] = "--format";
    argv[n++] = "json";
    argv[n] = NULL;
    int rc = run_cmd(argv, log);
    if (rc != 0)
        fail_msg("augur kernel exited %d: %s", rc, slurp(log));
    json_error_t err;
    json_t *j = json_loads(slurp(log), 0, &err);
    if (!j)
        fail_msg("augur kernel output is not JSON (line %d): %s", err.line, err.text);
    *time_s = json_number_value(json_object_get(j, "time_s"));
    snprintf(source, cap, "%s", json_string_value(json_object_get(j, "source")) ?
             json_string_value(json_object_get(j, "source")) : "");
    json_decref(j);
}

static int setup(void **state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/augur_roundtrip.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    if (!getenv("AUGUR_TEST_KEEP")) /* keep the files to look at a failure */
        remove_tree(tmpdir);
    return 0;
}

static void profile_calibrate_predict(void **state) {
    (void)state;
    const char *augur = getenv("AUGUR_BIN");
    if (!augur || access(augur, X_OK) != 0) {
        fprintf(stderr, "AUGUR_BIN is not set to an executable augur: skipping\n");
        skip();
    }
    char src[600], kdb[300], gdir[400], dst[600];
    snprintf(src, sizeof src, "%s/kernels-db/gpus.csv", AUG_TEST_SOURCE_DIR);
    snprintf(kdb, sizeof kdb, "%s/kdb", tmpdir);
    snprintf(gdir, sizeof gdir, "%s/%s", kdb, GPU_ID);
    snprintf(dst, sizeof dst, "%s/gpus.csv", kdb);
    assert_int_equal(mkdir(kdb, 0777), 0);
    if (copy_file(src, dst) != 0 || aug_gpu_lookup(kdb, GPU_ID, &gpu) != AUG_OK) {
        fprintf(stderr, "no %s row in %s: skipping\n", GPU_ID, src);
        skip();
    }
    assert_true(gpu.peak_tflops[AUG_DTYPE_BF16] > 0);

    /* 1. profile */
    struct aug_prof_backend be;
    memset(&be, 0, sizeof be);
    be.name = "model";
    be.synthetic = 1;
    be.query = fake_query;
    for (int f = 0; f < AUG_FAMILY_COUNT; f++)
        be.impl[f] = &fake_impl;
    char raw[400];
    snprintf(raw, sizeof raw, "%s/raw", tmpdir);
    char *prof[] = {"augur-profile", "--dtype", "bf16", "--reps", "3", "--warmup", "0",
                    "--output-dir", raw, "--quiet"};
    assert_int_equal(aug_prof_main((int)(sizeof prof / sizeof prof[0]), prof, &be, NULL), 0);

    /* 2. calibrate (the binary, as a user runs it) */
    char files[4][500], log[400];
    const char *fams[4] = {"gemm", "attention", "memory", "collective"};
    for (int i = 0; i < 4; i++)
        snprintf(files[i], sizeof files[i], "%s/%s.csv", raw, fams[i]);
    snprintf(log, sizeof log, "%s/calibrate.log", tmpdir);
    char *cal[] = {(char *)augur, "calibrate", "--gpu", GPU_ID, "--kdb", kdb, files[0], files[1],
                   files[2], files[3], NULL};
    int rc = run_cmd(cal, log);
    if (rc != 0)
        fail_msg("augur calibrate exited %d:\n%s", rc, slurp(log));

    /* 3. predict: the kdb lookups the predictor uses */
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(kdb, GPU_ID, &k), AUG_OK);
    assert_true(aug_kdb_curve_count(k) > 0);
    const double shapes[][3] = {{4096, 4096, 4096}, {16384, 4096, 4096}, {64, 4096, 16384},
                                {2048, 16384, 4096}, {1000, 3000, 5000}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        double m = shapes[i][0], n = shapes[i][1], kk = shapes[i][2], eff = 0;
        assert_int_equal(aug_kdb_gemm_eff(k, AUG_DTYPE_BF16, m, n, kk, &eff), 1);
        double truth = 2.0 * m * n * kk / (gemm_us(m, n, kk) * 1e-6 * peak_flops());
        if (fabs(eff - truth) > 0.05 * truth)
            fail_msg("GEMM %gx%gx%g: calibrated efficiency %.4f, model %.4f", m, n, kk, eff, truth);
    }
    const double seqs[] = {512, 2048, 8192};
    for (int causal = 0; causal <= 1; causal++)
        for (size_t i = 0; i < 3; i++) {
            double eff = 0;
            assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, causal, 0, 8.0 * 32, seqs[i],
                                                   seqs[i], 128, &eff), 1);
            assert_rel(eff, attn_eff(seqs[i]), 0.03);
        }
    /* decode: 16 sequences, one query row each, against caches of S tokens; the decode
     * curve, not the prefill one (whose efficiency at these S is 10x higher) */
    const double caches[] = {1000, 4096, 20000};
    const long dims[] = {64, 128};
    for (size_t h = 0; h < 2; h++)
        for (size_t i = 0; i < 3; i++) {
            struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_ATTENTION,
                                                          "fused_decode_fwd", AUG_DTYPE_BF16);
            p.batch = 16;
            p.heads = 4096 / dims[h];
            p.seq_q = 1;
            p.seq_kv = (long)caches[i];
            p.head_dim = dims[h];
            p.causal = 0;
            double truth = aug_prof_point_flops(&p) / (decode_us(&p) * 1e-6 * peak_flops());
            double eff = 0;
            assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 0, 0, 16.0 * p.heads, 1,
                                                   caches[i], (double)dims[h], &eff), 1);
            assert_rel(eff, truth, 0.03);
        }
    /* the unfused measurements have their own curve, which a fused lookup never takes */
    int unfused_curves = 0;
    for (int i = 0; i < aug_kdb_curve_count(k); i++)
        unfused_curves += strncmp(aug_kdb_curve_at(k, i)->op, "unfused_fwd", 11) == 0;
    assert_true(unfused_curves > 0);
    /* no backward measurements: a backward lookup misses rather than borrow a curve */
    double eb = 0;
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 1, 1, 256, 2048, 2048, 128, &eb), 0);
    const double sizes[] = {4.0 * 1048576, 64.0 * 1048576, 1024.0 * 1048576};
    for (size_t i = 0; i < 3; i++) {
        double t = 0;
        assert_int_equal(aug_kdb_memory_time_us(k, "elementwise", AUG_DTYPE_BF16, sizes[i], &t), 1);
        assert_rel(t, memory_us(sizes[i]), 0.02);
        assert_int_equal(aug_kdb_memory_time_us(k, "softmax", AUG_DTYPE_BF16, sizes[i], &t), 1);
        assert_rel(t, memory_us(sizes[i]), 0.02);
        assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, sizes[i], 8, "nvlink",
                                                    &t), 1);
        assert_rel(t, coll_us(AUG_COLL_ALL_REDUCE, sizes[i], 8), 0.02);
        assert_int_equal(aug_kdb_collective_time_us(k, AUG_COLL_ALL_GATHER, sizes[i], 2, "nvlink",
                                                    &t), 1);
        assert_rel(t, coll_us(AUG_COLL_ALL_GATHER, sizes[i], 2), 0.02);
    }
    aug_kdb_close(k);

    /* ... and the `augur kernel` command on the same kernels-db */
    double time_s = 0;
    char source[32];
    char *g[] = {"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "bf16"};
    kernel_json(augur, g, 9, &time_s, source, sizeof source);
    assert_string_equal(source, "curve");
    assert_rel(time_s * 1e6, gemm_us(4096, 4096, 4096), 0.05);
    char *c[] = {"collective", "--collective", "all_reduce", "--bytes", "64Mi", "--ranks", "8",
                 "--ranks-per-node", "8"};
    kernel_json(augur, c, 9, &time_s, source, sizeof source);
    assert_string_equal(source, "curve");
    assert_rel(time_s * 1e6, coll_us(AUG_COLL_ALL_REDUCE, 64.0 * 1048576, 8), 0.03);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(profile_calibrate_predict, setup, teardown),
    };
    return cmocka_run_group_tests_name("profile -> calibrate -> predict", tests, NULL, NULL);
}
