/* SPDX-License-Identifier: Apache-2.0 */
/* test_harness.c - the sweep driver and command line of augur-profile (harness.c, cli.c)
 * through a fake device backend defined here: rows written with the times the backend
 * measured (through CUPTI-style records summed per call), resume, a failing point skipped
 * without a row, a lost device stopping the sweep, periodic saves, interruption, dry runs
 * with their estimate, exit codes, and a synthetic backend never writing into kernels-db/.
 *
 * The fake device's GEMM takes t = 5 us + 2 m n k / 400 TFLOP/s, delivered as two kernels
 * (3/4 and 1/4 of t) of one measured call; the first repetition of every point is 3x
 * slower (a cold start), so the median is t, the minimum t and the maximum 3t. */
#include "../aug_test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/csvio.h"
#include "augur/status.h"
#include "bench.h"
#include "cli.h"
#include "correlate.h"
#include "harness.h"
#include "measure.h"

/* ---- the fake backend ---- */

struct fake {
    int no_device;
    int devices;
    const char *name;       /* device name (NULL: an H100 SXM) */
    int throttled;          /* clocks reported: 0 full; 1 power cap at 1410 MHz; 2 power cap
                             * at 1965 MHz; 3 hardware thermal slowdown at 1965 MHz */
    int policy;             /* measure through the repetition policy (measure.c) */
    long flushes, timed;    /* L2 flushes and timed calls it issued */
    double clock_s;         /* its fake clock */
    int cc_major;
    long setups, runs;
    long fail_m;            /* GEMMs with this m fail like an out-of-memory */
    long nan_m;             /* GEMMs with this m return a NaN repetition */
    long lose_at;           /* this run call reports a lost device (0: never) */
    long stop_at;           /* set *stop during this run call (0: never) */
    volatile sig_atomic_t *stop;
    const char *watch_path; /* file whose row count is sampled at run call watch_at */
    long watch_at, watched_rows;
    struct aug_prof_corr *corr;
    uint64_t next_ext;
    uint32_t next_corr;
};

static double gemm_true_us(long m, long n, long k) {
    return 5.0 + 2.0 * (double)m * (double)n * (double)k / 400e12 * 1e6;
}

/* What the records carry: whole nanoseconds. */
static double gemm_recorded_us(long m, long n, long k) {
    return (double)llround(gemm_true_us(m, n, k) * 1000.0) / 1000.0;
}

static int fake_query(void *ctx, struct aug_prof_device *d) {
    struct fake *f = ctx;
    if (f->no_device)
        return aug_errorf(AUG_ENODEV, "fake: no device");
    snprintf(d->name, sizeof d->name, "%s", f->name ? f->name : "NVIDIA H100 80GB HBM3");
    d->device_count = f->devices;
    d->nodes = 1;
    d->cc_major = f->cc_major;
    d->cc_minor = 0;
    d->sm_count = 132;
    d->sm_clock_mhz = 1980;
    d->mem_clock_mhz = 2619;
    d->memory_gib = 79.1;
    snprintf(d->driver, sizeof d->driver, "fake");
    d->is_writer = 1;
    return AUG_OK;
}

static int fake_setup(void *ctx, void **state) {
    struct fake *f = ctx;
    f->setups++;
    *state = f;
    return AUG_OK;
}

static void fake_teardown(void *state) {
    (void)state;
}

static long rows_in(const char *path) {
    struct aug_csv *t = NULL;
    if (aug_csv_load(path, &t) != AUG_OK)
        return -1;
    long n = (long)aug_csv_rows(t);
    aug_csv_free(t);
    return n;
}

/* Emit one call of `t_us` as two kernel records of one external range, the way CUPTI
 * reports a split-K GEMM, and read its time back through the aggregator. */
static double one_call(struct fake *f, double t_us, char *kernel, size_t cap) {
    uint64_t ext = ++f->next_ext;
    long long t_ns = llround(t_us * 1000.0);
    long long k1 = t_ns * 3 / 4; /* the second kernel runs the other quarter */
    uint64_t start = 1000000 + ext * 10000000ULL;
    uint32_t c1 = ++f->next_corr, c2 = ++f->next_corr;
    aug_prof_corr_add_kernel(f->corr, c2, 0, start + (uint64_t)k1 + 300,
                             start + (uint64_t)t_ns + 300, "fake_splitk_reduce");
    aug_prof_corr_add_external(f->corr, c1, ext);
    aug_prof_corr_add_kernel(f->corr, c1, 0, start, start + (uint64_t)k1, "fake_gemm_128x256");
    aug_prof_corr_add_external(f->corr, c2, ext);
    double got = -1;
    assert_int_equal(aug_prof_corr_time_us(f->corr, ext, &got, NULL), AUG_OK);
    if (kernel)
        assert_int_equal(aug_prof_corr_main_kernel(f->corr, ext, kernel, cap), AUG_OK);
    return got;
}

/* The repetition policy over a fake device: every call takes 20 us of its clock. */
static int loop_warm(void *a, int n) {
    ((struct fake *)a)->clock_s += 20e-6 * n;
    return AUG_OK;
}

static int loop_timed(void *a, int n, int flush, double *t) {
    struct fake *f = a;
    for (int i = 0; i < n; i++) {
        f->flushes += flush != 0;
        f->timed++;
        f->clock_s += 20e-6;
        t[i] = 20.0;
    }
    return AUG_OK;
}

static double loop_now(void *a) {
    return ((struct fake *)a)->clock_s;
}

static int fake_run(void *state, const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg,
                    struct aug_prof_measure *out) {
    struct fake *f = state;
    f->runs++;
    if (f->policy) {
        struct aug_prof_loop_ops ops = {f, loop_warm, loop_timed, loop_now};
        out->timing = AUG_PROF_TIMING_CUPTI;
        return aug_prof_measure_loop(&ops, cfg, aug_prof_point_wants_l2_flush(p, cfg), out);
    }
    if (f->watch_path && f->runs == f->watch_at)
        f->watched_rows = rows_in(f->watch_path);
    if (f->stop && f->runs == f->stop_at)
        *f->stop = 1;
    if (f->lose_at && f->runs == f->lose_at)
        return aug_errorf(AUG_ENODEV, "fake: illegal address");
    if (p->family == AUG_FAMILY_GEMM && p->m == f->fail_m)
        return aug_errorf(AUG_ENOMEM, "fake: out of memory for m=%ld", p->m);
    double t = p->family == AUG_FAMILY_GEMM ? gemm_true_us(p->m, p->n, p->k)
                                            : 10.0 + aug_prof_point_bytes(p) / 1e6;
    aug_prof_corr_reset(f->corr);
    for (int r = 0; r < cfg->reps; r++)
        out->time_us[r] = one_call(f, r == 0 ? 3.0 * t : t, out->kernel, sizeof out->kernel);
    if (p->family == AUG_FAMILY_GEMM && p->m == f->nan_m)
        out->time_us[cfg->reps - 1] = NAN;
    out->n = cfg->reps;
    out->timing = AUG_PROF_TIMING_CUPTI;
    snprintf(out->impl, sizeof out->impl, "fake");
    out->clocks.valid = 1;
    static const double sm_mhz[] = {1980, 1410, 1965, 1965};
    static const unsigned long long reasons[] = {0, 0x4 /* SwPowerCap */, 0x4,
                                                 0x40 /* HwThermalSlowdown */};
    out->clocks.sm_mhz = sm_mhz[f->throttled];
    out->clocks.mem_mhz = 2619;
    out->clocks.temp_c = f->throttled ? 87 : 55;
    out->clocks.power_w = 700;
    out->clocks.throttle = reasons[f->throttled];
    return AUG_OK;
}

static const struct aug_prof_bench_impl fake_impl = {fake_setup, fake_run, fake_teardown};

static struct fake fk;
static struct aug_prof_backend be;
static char tmpdir[256];

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

static int setup(void **state) {
    (void)state;
    memset(&fk, 0, sizeof fk);
    fk.devices = 1;
    fk.cc_major = 9;
    fk.fail_m = -1;
    fk.nan_m = -1;
    if (aug_prof_corr_new(&fk.corr) != AUG_OK)
        return -1;
    memset(&be, 0, sizeof be);
    be.name = "fake";
    be.synthetic = 1;
    be.ctx = &fk;
    be.query = fake_query;
    for (int f = 0; f < AUG_FAMILY_COUNT; f++)
        be.impl[f] = &fake_impl;
    be.build_versions = "no GPU libraries (test)";
    snprintf(tmpdir, sizeof tmpdir, "/tmp/augur_harness.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    aug_prof_corr_free(fk.corr);
    remove_tree(tmpdir);
    return 0;
}

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void out_dir(char *buf, size_t cap) {
    snprintf(buf, cap, "%s/raw", tmpdir);
}

/* Median of the row with shape (m, n, k) in a gemm file, or -1. */
static double gemm_median(const char *path, long m, long n, long k, char *timing, size_t cap) {
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    double med = -1;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        long rm, rn, rk;
        if (aug_csv_get_long(t, r, "m", AUG_CSV_REQUIRED, &rm) || aug_csv_get_long(t, r, "n", 0, &rn) ||
            aug_csv_get_long(t, r, "k", 0, &rk))
            fail_msg("%s", aug_last_error());
        if (rm == m && rn == n && rk == k) {
            assert_int_equal(aug_csv_get_double(t, r, "time_us_median", AUG_CSV_REQUIRED, &med),
                             AUG_OK);
            double mn, mx;
            assert_int_equal(aug_csv_get_double(t, r, "time_us_min", AUG_CSV_REQUIRED, &mn), AUG_OK);
            assert_int_equal(aug_csv_get_double(t, r, "time_us_max", AUG_CSV_REQUIRED, &mx), AUG_OK);
            assert_near(mn, med, 1e-3 + 1e-6 * med);
            assert_near(mx, 3.0 * med, 3e-3 + 1e-5 * mx); /* whole nanoseconds */
            if (timing)
                snprintf(timing, cap, "%s", aug_csv_cell(t, r, aug_csv_col(t, "timing")));
        }
    }
    aug_csv_free(t);
    return med;
}

/* ---- tests ---- */

static void sweep_writes_measured_rows(void **state) {
    (void)state;
    char dir[512], path[600];
    out_dir(dir, sizeof dir);
    char *argv[] = {"augur-profile", "--family", "gemm", "--dtype", "bf16", "--reps", "5",
                    "--warmup", "1", "--output-dir", dir, "--quiet"};
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, NULL), 0);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    assert_int_equal(rows_in(path), 42); /* the quick bf16 grid */
    assert_int_equal(fk.runs, 42);
    assert_int_equal(fk.setups, 1);
    char timing[32] = "";
    /* 5 + 2 * 4096^3 / 400e12 s = 348.597 us */
    assert_rel(gemm_median(path, 4096, 4096, 4096, timing, sizeof timing),
               gemm_recorded_us(4096, 4096, 4096), 1e-5);
    assert_string_equal(timing, "cupti_kernel");
    assert_rel(gemm_median(path, 1, 16384, 4096, NULL, 0), gemm_recorded_us(1, 16384, 4096), 1e-5);
    /* provenance names the device, the backend and the fact that it is synthetic */
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    int gpu = 0, synthetic = 0, source_ok = 1;
    for (size_t i = 0; i < aug_csv_comments(t); i++) {
        gpu |= strstr(aug_csv_comment(t, i), "gpu_name: NVIDIA H100 80GB HBM3") != NULL;
        synthetic |= strstr(aug_csv_comment(t, i), "synthetic: yes") != NULL;
    }
    /* the kernel that ran: the longer of the call's two, the main loop, not the reduction */
    int kernel_ok = 1;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        source_ok &= strcmp(aug_csv_cell(t, r, aug_csv_col(t, "source")), "augur-profile:fake") == 0;
        kernel_ok &= strcmp(aug_csv_cell(t, r, aug_csv_col(t, "library_algo")),
                            "kernel=fake_gemm_128x256") == 0;
    }
    aug_csv_free(t);
    assert_true(gpu && synthetic && source_ok);
    assert_true(kernel_ok);
}

/* --shapes: the sweep measures exactly the GEMMs a list gives (an --ops listing here), an
 * fp8 one with both accumulators, a fractional mean rounded, a batch as one of its GEMMs,
 * says so in the provenance, and measures no other family; --dtype still selects. The
 * list's name holds a newline, which the provenance lines (command, shapes) must not
 * carry into the file as a line of its own. */
static void shapes_replace_the_grid(void **state) {
    (void)state;
    char dir[512], path[600], list[600];
    out_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    snprintf(list, sizeof list, "%s/ops\nm,n,k.csv", tmpdir);
    FILE *f = fopen(list, "w");
    assert_non_null(f);
    fputs("list,op,kind,dtype,m,n,k,batch\n"
          "fwd,qkv,gemm,bf16,648,6144,4096,1\n"
          "fwd,attn_fwd,attention,bf16,,,,\n"
          "fwd,expert_up,gemm,fp8,4236.4,28672,4096,2\n", f);
    fclose(f);
    char *argv[] = {"augur-profile", "--shapes", list, "-r", "3", "-w", "0", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, NULL), 0);
    assert_int_equal(rows_in(path), 3); /* bf16 once, fp8 fast and split accumulators */
    assert_int_equal(fk.runs, 3);
    assert_rel(gemm_median(path, 648, 6144, 4096, NULL, 0), gemm_recorded_us(648, 6144, 4096),
               1e-5);
    assert_rel(gemm_median(path, 4236, 28672, 4096, NULL, 0),
               gemm_recorded_us(4236, 28672, 4096), 1e-5);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    int preset = 0, summary = 0;
    for (size_t i = 0; i < aug_csv_comments(t); i++) {
        preset |= strstr(aug_csv_comment(t, i), "family gemm, preset shapes") != NULL;
        summary |= strstr(aug_csv_comment(t, i), "shapes: 2 GEMM shapes from 3 rows") != NULL;
    }
    aug_csv_free(t);
    assert_true(preset && summary);
    char other[640];
    snprintf(other, sizeof other, "%s/attention.csv", dir);
    assert_int_equal(access(other, F_OK), -1);
    char *attn[] = {"augur-profile", "--shapes", list, "--family", "attention", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(attn), attn, &be, NULL), 2);
    char dir2[512];
    snprintf(dir2, sizeof dir2, "%s/bf16", tmpdir);
    char *bf16[] = {"augur-profile", "--shapes", list, "--dtype", "bf16", "-r", "3", "-w", "0",
                    "-o", dir2, "-q"};
    assert_int_equal(aug_prof_main(ARGC(bf16), bf16, &be, NULL), 0);
    snprintf(path, sizeof path, "%s/gemm.csv", dir2);
    assert_int_equal(rows_in(path), 1);
}

static void rerun_resumes(void **state) {
    (void)state;
    char dir[512], path[600];
    out_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    char *first[] = {"augur-profile", "-f", "gemm", "-t", "bf16", "-r", "3", "-w", "0", "-o", dir,
                     "--limit", "30", "-q"};
    assert_int_equal(aug_prof_main(ARGC(first), first, &be, NULL), 0);
    assert_int_equal(rows_in(path), 30);
    assert_int_equal(fk.runs, 30);
    char *again[] = {"augur-profile", "-f", "gemm", "-t", "bf16", "-r", "3", "-w", "0", "-o", dir,
                     "-q"};
    assert_int_equal(aug_prof_main(ARGC(again), again, &be, NULL), 0);
    assert_int_equal(rows_in(path), 42);
    assert_int_equal(fk.runs, 42); /* only the 12 missing points were measured */
    assert_int_equal(aug_prof_main(ARGC(again), again, &be, NULL), 0);
    assert_int_equal(fk.runs, 42); /* nothing left */
    assert_int_equal(fk.setups, 2); /* no setup when everything is present */

    /* the dry run sees what is present */
    struct aug_prof_sweep_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.families = AUG_PROF_FAMILY_BIT(AUG_FAMILY_GEMM);
    cfg.grid.dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16) | AUG_PROF_DTYPE_BIT(AUG_DTYPE_FP16);
    cfg.run.warmup = 0;
    cfg.run.reps = 3;
    cfg.output_dir = dir;
    FILE *out = tmpfile();
    double total = -1;
    assert_int_equal(aug_prof_sweep_dry_run(&be, &cfg, out, &total), AUG_OK);
    rewind(out);
    char line[512];
    int present = 0, measure = 0, summary = 0;
    while (fgets(line, sizeof line, out)) {
        present += strstr(line, " present") != NULL && line[0] != '#';
        measure += strstr(line, " measure") != NULL && line[0] != '#';
        summary += strstr(line, "# total: 42 points to measure (42 already present)") != NULL;
    }
    fclose(out);
    assert_int_equal(present, 42);
    assert_int_equal(measure, 42);
    assert_int_equal(summary, 1);
}

static void failing_points_are_skipped(void **state) {
    (void)state;
    char dir[512], path[600];
    out_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    fk.fail_m = 256; /* 256^3 square and three m = 256 layer shapes */
    fk.nan_m = 2;    /* three m = 2 decode shapes */
    char *argv[] = {"augur-profile", "-f", "gemm", "-t", "bf16", "-r", "4", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, NULL), 0);
    assert_int_equal(fk.runs, 42);
    assert_int_equal(rows_in(path), 42 - 4 - 3);
    assert_near(gemm_median(path, 256, 256, 256, NULL, 0), -1, 0);
    assert_near(gemm_median(path, 256, 4096, 4096, NULL, 0), -1, 0);
    assert_near(gemm_median(path, 2, 4096, 4096, NULL, 0), -1, 0);
    assert_rel(gemm_median(path, 4, 4096, 4096, NULL, 0), gemm_recorded_us(4, 4096, 4096), 1e-5);

    /* the failures are measured on the next run, once the device allows them */
    fk.fail_m = fk.nan_m = -1;
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, NULL), 0);
    assert_int_equal(fk.runs, 42 + 7);
    assert_int_equal(rows_in(path), 42);

    /* when every attempted point fails, the run fails */
    char dir2[600];
    snprintf(dir2, sizeof dir2, "%s/raw2", tmpdir);
    fk.fail_m = 256; /* the first fp16 point is the 256^3 square */
    char *first_only[] = {"augur-profile", "-f", "gemm", "-t", "fp16", "-r", "2", "-o", dir2,
                          "-q", "--limit", "1"};
    assert_int_equal(aug_prof_main(ARGC(first_only), first_only, &be, NULL), 1);
    fk.fail_m = -1;
    assert_int_equal(aug_prof_main(ARGC(first_only), first_only, &be, NULL), 0);
}

static void lost_device_stops(void **state) {
    (void)state;
    char dir[512], path[600];
    out_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    fk.lose_at = 10;
    char *argv[] = {"augur-profile", "-f", "gemm,memory", "-t", "bf16", "-r", "2", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, NULL), 1);
    assert_int_equal(fk.runs, 10);      /* stopped at the lost device */
    assert_int_equal(rows_in(path), 9); /* what was measured before is saved */
    char mem[600];
    snprintf(mem, sizeof mem, "%s/memory.csv", dir);
    assert_int_equal(access(mem, F_OK), -1); /* the next family never started */
}

static void saves_periodically_and_stops_cleanly(void **state) {
    (void)state;
    char dir[512], path[600];
    out_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    volatile sig_atomic_t stop = 0;
    fk.watch_path = path;
    fk.watch_at = 13; /* after 12 rows with --save-every 5, 10 are on disk */
    fk.stop = &stop;
    fk.stop_at = 20;
    char *argv[] = {"augur-profile", "-f", "gemm", "-t", "bf16", "-r", "2", "-o", dir, "-q",
                    "--save-every", "5"};
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, &stop), 1); /* interrupted */
    assert_int_equal(fk.watched_rows, 10);
    assert_int_equal(fk.runs, 20);      /* the point in progress is finished */
    assert_int_equal(rows_in(path), 20); /* and everything measured is saved */
    stop = 0;
    fk.stop = NULL;
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, &stop), 0);
    assert_int_equal(fk.runs, 42);
    assert_int_equal(rows_in(path), 42);
}

static void exit_codes(void **state) {
    (void)state;
    char dir[512];
    out_dir(dir, sizeof dir);
    char *help[] = {"augur-profile", "--help"};
    char *version[] = {"augur-profile", "--version"};
    char *bad_family[] = {"augur-profile", "--family", "fft", "-o", dir};
    char *bad_reps[] = {"augur-profile", "--reps", "0", "-o", dir};
    char *junk_reps[] = {"augur-profile", "--reps", "5x", "-o", dir};
    char *bad_dtype[] = {"augur-profile", "--dtype", "int4", "-o", dir};
    char *bad_timing[] = {"augur-profile", "--timing", "guess", "-o", dir};
    char *bad_id[] = {"augur-profile", "--gpu-id", "../x", "-o", dir};
    char *stray[] = {"augur-profile", "gemm"};
    char *unknown[] = {"augur-profile", "--frobnicate"};
    char *missing[] = {"augur-profile", "--output-dir"};
    char *mpi_gemm[] = {"augur-profile", "--mpi", "--family", "gemm", "-o", dir};
    char *few_max[] = {"augur-profile", "--reps", "5", "--max-reps", "3", "-o", dir};
    char *bad_noise[] = {"augur-profile", "--max-noise", "-1", "-o", dir};
    char *nan_budget[] = {"augur-profile", "--point-budget", "nan", "-o", dir};
    char *bad_warm[] = {"augur-profile", "--warmup-time", "1e9", "-o", dir};
    assert_int_equal(aug_prof_main(ARGC(few_max), few_max, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(bad_noise), bad_noise, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(nan_budget), nan_budget, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(bad_warm), bad_warm, &be, NULL), 2);
    /* an NCCL setting too long for the algo column is refused, not cut short */
    char long_algo[400];
    memset(long_algo, 'r', sizeof long_algo - 1);
    long_algo[sizeof long_algo - 1] = '\0';
    setenv("NCCL_ALGO", long_algo, 1);
    char *coll[] = {"augur-profile", "--family", "collective", "-o", dir};
    assert_int_equal(aug_prof_main(ARGC(coll), coll, &be, NULL), 2);
    unsetenv("NCCL_ALGO");
    assert_int_equal(fk.runs, 0);
    assert_int_equal(aug_prof_main(ARGC(help), help, &be, NULL), 0);
    assert_int_equal(aug_prof_main(ARGC(version), version, &be, NULL), 0);
    assert_int_equal(aug_prof_main(ARGC(bad_family), bad_family, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(bad_reps), bad_reps, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(junk_reps), junk_reps, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(bad_dtype), bad_dtype, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(bad_timing), bad_timing, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(bad_id), bad_id, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(stray), stray, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(unknown), unknown, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(missing), missing, &be, NULL), 2);
    assert_int_equal(aug_prof_main(ARGC(mpi_gemm), mpi_gemm, &be, NULL), 2);
    assert_int_equal(fk.runs, 0);

    /* no device: 77, nothing created */
    fk.no_device = 1;
    char *run[] = {"augur-profile", "-f", "gemm", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(run), run, &be, NULL), 77);
    assert_int_equal(access(dir, F_OK), -1);
    /* a dry run needs no device */
    char *dry[] = {"augur-profile", "--dry-run", "-f", "collective", "--gpus", "4"};
    assert_int_equal(aug_prof_main(ARGC(dry), dry, &be, NULL), 0);
    assert_int_equal(aug_prof_main(ARGC(dry), dry, NULL, NULL), 0);
    fk.no_device = 0;

    /* a family that was not built: a failure when asked for by name, a note otherwise */
    be.impl[AUG_FAMILY_ATTENTION] = NULL;
    be.missing[AUG_FAMILY_ATTENTION] = "not built in this test";
    char *attn[] = {"augur-profile", "-f", "attention", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(attn), attn, &be, NULL), 1);
    char *all[] = {"augur-profile", "-o", dir, "-q", "-r", "1", "-w", "0"};
    assert_int_equal(aug_prof_main(ARGC(all), all, &be, NULL), 0);
    /* gemm (5 dtypes x 42, fp8 twice: 252) + memory (70) measured; collectives need 2
     * GPUs and this one has 1 */
    assert_int_equal(fk.runs, 252 + 70);
    be.impl[AUG_FAMILY_ATTENTION] = &fake_impl;
}

static void fp8_skipped_on_older_gpus(void **state) {
    (void)state;
    char dir[512], path[600];
    out_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    fk.cc_major = 8;
    char *argv[] = {"augur-profile", "-f", "gemm", "-t", "fp8,bf16", "-r", "1", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, NULL), 0);
    assert_int_equal(fk.runs, 42); /* bf16 only */
    assert_int_equal(rows_in(path), 42);
}

static void synthetic_never_writes_into_kernels_db(void **state) {
    (void)state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/kernels-db/h100-80g/raw", tmpdir);
    char *argv[] = {"augur-profile", "-f", "gemm", "-o", dir, "-q"};
    assert_int_equal(aug_prof_main(ARGC(argv), argv, &be, NULL), 2);
    assert_int_equal(fk.runs, 0);
    assert_int_equal(access(dir, F_OK), -1);
    /* the default folder is kernels-db/<gpu-id>/raw: refused too */
    char *dflt[] = {"augur-profile", "-f", "gemm", "-q"};
    assert_int_equal(aug_prof_main(ARGC(dflt), dflt, &be, NULL), 2);
    /* a symbolic link that leads into a kernels-db folder */
    char kdb[600], link[600];
    snprintf(kdb, sizeof kdb, "%s/kernels-db", tmpdir);
    assert_int_equal(mkdir(kdb, 0777), 0);
    snprintf(link, sizeof link, "%s/innocent", tmpdir);
    assert_int_equal(symlink(kdb, link), 0);
    char *via_link[] = {"augur-profile", "-f", "gemm", "-o", link, "-q"};
    assert_int_equal(aug_prof_main(ARGC(via_link), via_link, &be, NULL), 2);
    assert_int_equal(fk.runs, 0);
    assert_int_equal(aug_prof_path_in_kdb("/a/kernels-db"), 1);
    assert_int_equal(aug_prof_path_in_kdb("kernels-db/x"), 1);
    assert_int_equal(aug_prof_path_in_kdb("/a/kernels-dbx/y"), 0);
    assert_int_equal(aug_prof_path_in_kdb("/a/my-kernels-db/y"), 0);
}

static void dry_run_estimate(void **state) {
    (void)state;
    struct aug_prof_sweep_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.families = AUG_PROF_FAMILY_BIT(AUG_FAMILY_GEMM) | AUG_PROF_FAMILY_BIT(AUG_FAMILY_COLLECTIVE);
    cfg.grid.dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16);
    cfg.grid.gpus = 4;
    cfg.run.warmup = 5;
    cfg.run.reps = 20;
    FILE *out = tmpfile();
    double total = 0;
    assert_int_equal(aug_prof_sweep_dry_run(&be, &cfg, out, &total), AUG_OK);
    /* expected: every point's estimate x 25 calls + per-point cost, + each family's setup */
    double expect = 0;
    long lines = 0;
    for (int f = 0; f < AUG_FAMILY_COUNT; f++) {
        if (!(cfg.families & AUG_PROF_FAMILY_BIT(f)))
            continue;
        const struct aug_prof_bench *b = aug_prof_bench_get((enum aug_family)f);
        struct aug_prof_points pts;
        aug_prof_points_init(&pts);
        struct aug_prof_grid_cfg g = cfg.grid;
        g.nodes = 1;
        assert_int_equal(aug_prof_bench_points((enum aug_family)f, &g, &pts), AUG_OK);
        for (size_t i = 0; i < pts.n; i++)
            expect += b->estimate_us(&pts.v[i]) * 25e-6 + b->per_point_s;
        expect += b->setup_s;
        lines += (long)pts.n;
        aug_prof_points_release(&pts);
    }
    assert_rel(total, expect, 1e-12);
    /* 42 GEMMs + collectives on 4 GPUs: groups {2, 4}, 11 sizes, 5 collectives = 110 */
    assert_int_equal(lines, 42 + 110);
    rewind(out);
    char line[512];
    long listed = 0;
    while (fgets(line, sizeof line, out))
        listed += line[0] != '#' && strncmp(line, "family", 6) != 0;
    fclose(out);
    assert_int_equal(listed, lines);
    assert_int_equal(fk.runs, 0);
    assert_int_equal(fk.setups, 0);
}

/* Run a sweep with cfg-like options directly, its log into a string. */
static const char *sweep_log(const char *family_bit_name, int fam, char *buf, size_t cap,
                             struct aug_prof_sweep_report *rep) {
    (void)family_bit_name;
    char dir[512];
    out_dir(dir, sizeof dir);
    struct aug_prof_sweep_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.families = AUG_PROF_FAMILY_BIT(fam);
    cfg.grid.dtypes = AUG_PROF_DTYPE_BIT(AUG_DTYPE_BF16);
    cfg.run.warmup = 1;
    cfg.run.reps = 3;
    cfg.limit = 2;
    cfg.output_dir = dir;
    cfg.log = tmpfile();
    assert_int_equal(aug_prof_sweep_run(&be, &cfg, rep), AUG_OK);
    rewind(cfg.log);
    size_t n = fread(buf, 1, cap - 1, cfg.log);
    buf[n] = '\0';
    fclose(cfg.log);
    return buf;
}

/* Clocks, temperature and power go in every row; a throttled point is warned about. */
static void clocks_logged_and_throttle_warned(void **state) {
    (void)state;
    static char log[1 << 16];
    struct aug_prof_sweep_report rep;
    sweep_log("gemm", AUG_FAMILY_GEMM, log, sizeof log, &rep);
    assert_int_equal(rep.measured, 2);
    assert_null(strstr(log, "throttled"));
    char path[600], dir[512];
    out_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    double v = 0;
    assert_int_equal(aug_csv_get_double(t, 0, "sm_clock_mhz", AUG_CSV_REQUIRED, &v), AUG_OK);
    assert_near(v, 1980, 0);
    assert_int_equal(aug_csv_get_double(t, 0, "temp_c", AUG_CSV_REQUIRED, &v), AUG_OK);
    assert_near(v, 55, 0);
    assert_int_equal(aug_csv_get_double(t, 0, "power_w", AUG_CSV_REQUIRED, &v), AUG_OK);
    assert_near(v, 700, 0);
    assert_string_equal(aug_csv_cell(t, 0, aug_csv_col(t, "library")), "fake");
    aug_csv_free(t);
    /* 1410 MHz is below 90% of the device's 1980, and NVML says SwPowerCap */
    fk.throttled = 1;
    sweep_log("memory", AUG_FAMILY_MEMORY, log, sizeof log, &rep);
    assert_int_equal(rep.measured, 2);
    assert_non_null(strstr(log, "ran throttled: SM clock 1410 MHz of 1980, 87 C, 700 W, at its "
                                "power cap (NVML reasons 0x4)"));
    /* the power cap at 1965 MHz (99% of 1980) is a GPU under load, not a slowed one: the
     * first H200 sweep warned on nearly every point this way */
    fk.throttled = 2;
    sweep_log("attention", AUG_FAMILY_ATTENTION, log, sizeof log, &rep);
    assert_true(rep.measured > 0);
    assert_null(strstr(log, "throttled"));
    /* a thermal slowdown is warned about at any clock (the same points again: their file
     * is removed so that the sweep does not resume past them) */
    snprintf(path, sizeof path, "%s/attention.csv", dir);
    assert_int_equal(remove(path), 0);
    fk.throttled = 3;
    sweep_log("attention", AUG_FAMILY_ATTENTION, log, sizeof log, &rep);
    fk.throttled = 0;
    assert_true(rep.measured > 0);
    assert_non_null(strstr(log, "ran throttled: SM clock 1965 MHz of 1980, 87 C, 700 W, thermal "
                                "or hardware slowdown (NVML reasons 0x40)"));
}

/* One GPU: collectives need two; nothing is measured and the log says why. */
static void collectives_need_two_gpus(void **state) {
    (void)state;
    static char log[1 << 16];
    struct aug_prof_sweep_report rep;
    fk.devices = 1;
    sweep_log("collective", AUG_FAMILY_COLLECTIVE, log, sizeof log, &rep);
    assert_int_equal(rep.planned, 0);
    assert_int_equal(rep.measured, 0);
    assert_int_equal(fk.runs, 0);
    assert_non_null(strstr(log, "collectives need at least two GPUs and this run has 1: none "
                                "measured"));
    /* two GPUs: measured, with the nccl-tests bandwidths in the progress lines */
    fk.devices = 2;
    sweep_log("collective", AUG_FAMILY_COLLECTIVE, log, sizeof log, &rep);
    assert_int_equal(rep.measured, 2);
    assert_non_null(strstr(log, "algbw "));
    assert_non_null(strstr(log, "busbw "));
}

/* A GPU without a gpus.csv row: a generated id and how to add its row. */
static void unknown_gpu_is_explained(void **state) {
    (void)state;
    static char log[1 << 16];
    struct aug_prof_sweep_report rep;
    fk.name = "NVIDIA H200 NVL";
    sweep_log("gemm", AUG_FAMILY_GEMM, log, sizeof log, &rep);
    assert_non_null(strstr(log, "'NVIDIA H200 NVL' is not one of the GPUs augur knows"));
    assert_non_null(strstr(log, "generated id 'h200-nvl'"));
    assert_non_null(strstr(log, "add a row with gpu_id h200-nvl to kernels-db/gpus.csv"));
    fk.name = "NVIDIA H200";
    sweep_log("gemm", AUG_FAMILY_GEMM, log, sizeof log, &rep);
    assert_null(strstr(log, "not one of the GPUs"));
    assert_non_null(strstr(log, "(h200-141g, "));
}

/* Through the command line: memory-bound points flush L2 before every timed call, GEMMs of
 * 4096^3 do not; --no-l2-flush turns the flushes off; the l2_flush column says which. */
static void l2_flush_through_the_sweep(void **state) {
    (void)state;
    char dir[512], path[600];
    out_dir(dir, sizeof dir);
    fk.policy = 1;
    char *mem[] = {"augur-profile", "--family", "memory", "--dtype", "bf16", "--limit", "3",
                   "--output-dir", dir, "--quiet"};
    assert_int_equal(aug_prof_main(ARGC(mem), mem, &be, NULL), 0);
    assert_true(fk.timed > 0);
    assert_int_equal(fk.flushes, fk.timed);
    snprintf(path, sizeof path, "%s/memory.csv", dir);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    assert_int_equal(aug_csv_rows(t), 3);
    assert_string_equal(aug_csv_cell(t, 0, aug_csv_col(t, "l2_flush")), "1");
    /* quiet 20 us calls: the minimum 20 repetitions; warm-up 5 calls + >= 20 ms of batches */
    assert_string_equal(aug_csv_cell(t, 0, aug_csv_col(t, "reps")), "20");
    long warm = 0;
    assert_int_equal(aug_csv_get_long(t, 0, "warmup_calls", AUG_CSV_REQUIRED, &warm), AUG_OK);
    assert_true(warm >= 5 + 1000); /* 0.02 s / 20 us */
    aug_csv_free(t);
    fk.flushes = fk.timed = 0;
    char *big[] = {"augur-profile", "--family", "gemm", "--dtype", "bf16", "--limit", "50",
                   "--output-dir", dir, "--quiet"};
    assert_int_equal(aug_prof_main(ARGC(big), big, &be, NULL), 0);
    snprintf(path, sizeof path, "%s/gemm.csv", dir);
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    int seen_flush = 0, seen_none = 0;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        long m = 0, n = 0;
        assert_int_equal(aug_csv_get_long(t, r, "m", AUG_CSV_REQUIRED, &m), AUG_OK);
        assert_int_equal(aug_csv_get_long(t, r, "n", AUG_CSV_REQUIRED, &n), AUG_OK);
        const char *fl = aug_csv_cell(t, r, aug_csv_col(t, "l2_flush"));
        assert_string_equal(fl, m <= 256 || n <= 256 ? "1" : "0");
        seen_flush |= fl[0] == '1';
        seen_none |= fl[0] == '0';
    }
    assert_true(seen_flush && seen_none);
    aug_csv_free(t);
    /* --no-l2-flush: none */
    fk.flushes = fk.timed = 0;
    snprintf(path, sizeof path, "%s/hot", dir);
    char *hot[] = {"augur-profile", "--family", "memory", "--dtype", "bf16", "--limit", "2",
                   "--no-l2-flush", "--output-dir", path, "--quiet"};
    assert_int_equal(aug_prof_main(ARGC(hot), hot, &be, NULL), 0);
    assert_true(fk.timed > 0);
    assert_int_equal(fk.flushes, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(l2_flush_through_the_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(clocks_logged_and_throttle_warned, setup, teardown),
        cmocka_unit_test_setup_teardown(collectives_need_two_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_gpu_is_explained, setup, teardown),
        cmocka_unit_test_setup_teardown(sweep_writes_measured_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(shapes_replace_the_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(rerun_resumes, setup, teardown),
        cmocka_unit_test_setup_teardown(failing_points_are_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(lost_device_stops, setup, teardown),
        cmocka_unit_test_setup_teardown(saves_periodically_and_stops_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(exit_codes, setup, teardown),
        cmocka_unit_test_setup_teardown(fp8_skipped_on_older_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(synthetic_never_writes_into_kernels_db, setup, teardown),
        cmocka_unit_test_setup_teardown(dry_run_estimate, setup, teardown),
    };
    return cmocka_run_group_tests_name("profiler harness", tests, NULL, NULL);
}
