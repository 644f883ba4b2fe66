/* SPDX-License-Identifier: Apache-2.0 */
/* test_rawcsv.c - the raw measurement file (rawcsv.c): exact kernels-db columns and cells,
 * provenance lines, reading back for resume, refusing another GPU's file, malformed or
 * duplicate rows and inconsistent statistics, and that `augur calibrate`'s reader
 * (calibrate/samples.c) accepts what the profiler writes. */
#include "../aug_test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/status.h"
#include "rawcsv.h"
#include "samples.h"

static char tmpdir[256];

static int setup(void **state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/augur_rawcsv.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    DIR *d = opendir(tmpdir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(tmpdir);
    return 0;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *const prov[] = {"augur raw kernel measurements: family gemm, preset quick",
                                   "gpu_name: NVIDIA H100 80GB HBM3", "date: 2025-01-01T00:00:00Z"};

static struct aug_prof_point gemm_point(long m, long n, long k) {
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_GEMM, "gemm", AUG_DTYPE_BF16);
    p.m = m;
    p.n = n;
    p.k = k;
    return p;
}

static void writes_exact_schema(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/gemm.csv", tmpdir);
    struct aug_prof_raw *r = NULL;
    assert_int_equal(aug_prof_raw_open(path, prov, 3, "NVIDIA H100 80GB HBM3", &r), AUG_OK);
    assert_int_equal(aug_prof_raw_loaded(r), 0);
    struct aug_prof_point p = gemm_point(1, 4096, 4096);
    struct aug_prof_stats s = {12.5, 12.0, 13.25, 20};
    assert_int_equal(aug_prof_raw_add(r, &p, &s, AUG_PROF_TIMING_CUPTI, "augur-profile:cublasLt"),
                     AUG_OK);
    struct aug_prof_point a = aug_prof_point_make(AUG_FAMILY_ATTENTION, "fused_fwd", AUG_DTYPE_FP16);
    a.batch = 8;
    a.heads = 32;
    a.seq_q = a.seq_kv = 2048;
    a.head_dim = 128;
    a.causal = 0;
    struct aug_prof_stats sa = {1500.0, 1490.0, 1700.0, 20};
    assert_int_equal(aug_prof_raw_add(r, &a, &sa, AUG_PROF_TIMING_EVENT, "augur-profile:own_flash"),
                     AUG_OK);
    struct aug_prof_point c = aug_prof_point_make(AUG_FAMILY_COLLECTIVE, "all_reduce",
                                                  AUG_DTYPE_BF16);
    c.size_bytes = 1073741824.0;
    c.ranks = 8;
    c.ranks_per_node = 8;
    snprintf(c.algo, sizeof c.algo, "ring/simple");
    struct aug_prof_stats sc = {4400.0, 4380.5, 4500.0, 20};
    assert_int_equal(aug_prof_raw_add(r, &c, &sc, AUG_PROF_TIMING_CUPTI, "augur-profile:nccl"),
                     AUG_OK);
    assert_int_equal(aug_prof_raw_rows(r), 3);
    assert_int_equal(aug_prof_raw_save(r), AUG_OK);
    aug_prof_raw_close(r);

    const char *expect =
        "# augur raw kernel measurements: family gemm, preset quick\n"
        "# gpu_name: NVIDIA H100 80GB HBM3\n"
        "# date: 2025-01-01T00:00:00Z\n"
        "family,op,dtype,m,n,k,batch,heads,seq_q,seq_kv,head_dim,causal,size_bytes,ranks,"
        "ranks_per_node,algo,time_us_median,time_us_min,time_us_max,reps,timing,source,"
        "library,library_algo,l2_flush,warmup_calls,noise,sm_clock_mhz,mem_clock_mhz,temp_c,"
        "power_w\n"
        "gemm,gemm,bf16,1,4096,4096,,,,,,,,,,,12.5,12,13.25,20,cupti_kernel,"
        "augur-profile:cublasLt,,,,,,,,,\n"
        "attention,fused_fwd,fp16,,,,8,32,2048,2048,128,0,,,,,1500,1490,1700,20,cuda_event,"
        "augur-profile:own_flash,,,,,,,,,\n"
        "collective,all_reduce,bf16,,,,,,,,,,1073741824,8,8,ring/simple,4400,4380.5,4500,20,"
        "cupti_kernel,augur-profile:nccl,,,,,,,,,\n";
    char *got = slurp(path);
    assert_non_null(got);
    assert_string_equal(got, expect);
    /* no temporary file is left next to it */
    DIR *d = opendir(tmpdir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        files += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 1);

    /* the columns constant is the same contract */
    assert_string_equal(aug_prof_raw_columns[0], "family");
    assert_string_equal(aug_prof_raw_columns[AUG_PROF_RAW_ID_COLS - 1], "algo");
    assert_string_equal(aug_prof_raw_columns[21], "source");
    assert_string_equal(aug_prof_raw_columns[AUG_PROF_RAW_NCOLS - 1], "power_w");

    /* calibrate reads it back with the same values */
    struct aug_samples smp;
    aug_samples_init(&smp);
    assert_int_equal(aug_samples_load_raw(path, &smp), AUG_OK);
    assert_int_equal(smp.n, 3);
    assert_int_equal(smp.v[0].family, AUG_FAMILY_GEMM);
    assert_near(smp.v[0].m, 1, 0);
    assert_near(smp.v[0].time_us, 12.5, 0);
    assert_near(smp.v[0].time_us_max, 13.25, 0);
    assert_string_equal(smp.v[1].op, "fused_fwd");
    assert_int_equal(smp.v[1].causal, 0);
    assert_near(smp.v[1].head_dim, 128, 0);
    assert_string_equal(smp.v[2].timing, "cupti_kernel");
    assert_int_equal(smp.v[2].ranks, 8);
    assert_string_equal(aug_sample_link(&smp.v[2]), "nvlink");
    aug_samples_free(&smp);
}

/* The run details of a measurement land in the trailing columns, and calibrate still reads
 * the row. */
static void writes_run_details(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/memory.csv", tmpdir);
    struct aug_prof_raw *r = NULL;
    assert_int_equal(aug_prof_raw_open(path, prov, 3, "NVIDIA H100 80GB HBM3", &r), AUG_OK);
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_MEMORY, "copy", AUG_DTYPE_BF16);
    p.size_bytes = 268435456.0;
    struct aug_prof_stats s = {95.5, 95.0, 97.0, 40};
    double t[1];
    struct aug_prof_measure m;
    memset(&m, 0, sizeof m);
    m.time_us = t;
    m.timing = AUG_PROF_TIMING_CUPTI;
    snprintf(m.impl, sizeof m.impl, "augur_memory");
    snprintf(m.algo, sizeof m.algo, "copy_kernel v4");
    m.l2_flush = 1;
    m.warmup_calls = 63;
    m.noise = 0.004;
    m.clocks.valid = 1;
    m.clocks.sm_mhz = 1980;
    m.clocks.mem_mhz = 2619;
    m.clocks.temp_c = 54;
    m.clocks.power_w = 412.25;
    assert_int_equal(aug_prof_raw_add_measure(r, &p, &s, &m, "augur-profile:augur_memory"), AUG_OK);
    assert_int_equal(aug_prof_raw_save(r), AUG_OK);
    aug_prof_raw_close(r);
    assert_non_null(strstr(slurp(path), "95.5,95,97,40,cupti_kernel,augur-profile:augur_memory,"
                                        "augur_memory,copy_kernel v4,1,63,0.004,1980,2619,54,"
                                        "412.2\n"));
    struct aug_samples smp;
    aug_samples_init(&smp);
    assert_int_equal(aug_samples_load_raw(path, &smp), AUG_OK);
    assert_int_equal(smp.n, 1);
    assert_near(smp.v[0].time_us, 95.5, 0);
    aug_samples_free(&smp);
}

static void resume_reads_back(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/gemm.csv", tmpdir);
    struct aug_prof_raw *r = NULL;
    assert_int_equal(aug_prof_raw_open(path, prov, 3, "NVIDIA H100 80GB HBM3", &r), AUG_OK);
    struct aug_prof_stats s = {10.0, 9.0, 11.0, 5};
    for (long m = 1; m <= 4; m++) {
        struct aug_prof_point p = gemm_point(m, 512, 512);
        assert_int_equal(aug_prof_raw_add(r, &p, &s, AUG_PROF_TIMING_CUPTI, "x"), AUG_OK);
    }
    assert_int_equal(aug_prof_raw_save(r), AUG_OK);
    aug_prof_raw_close(r);

    /* a later run: other date, same GPU */
    const char *prov2[] = {prov[0], prov[1], "date: 2025-02-02T00:00:00Z"};
    assert_int_equal(aug_prof_raw_open(path, prov2, 3, "NVIDIA H100 80GB HBM3", &r), AUG_OK);
    assert_int_equal(aug_prof_raw_loaded(r), 4);
    struct aug_prof_point p = gemm_point(3, 512, 512);
    assert_int_equal(aug_prof_raw_has(r, &p), 1);
    p.dtype = AUG_DTYPE_FP16;
    assert_int_equal(aug_prof_raw_has(r, &p), 0);
    p = gemm_point(5, 512, 512);
    assert_int_equal(aug_prof_raw_has(r, &p), 0);
    assert_int_equal(aug_prof_raw_add(r, &p, &s, AUG_PROF_TIMING_CUPTI, "x"), AUG_OK);
    p = gemm_point(2, 512, 512);
    assert_int_equal(aug_prof_raw_add(r, &p, &s, AUG_PROF_TIMING_CUPTI, "x"), AUG_EDATA);
    assert_int_equal(aug_prof_raw_save(r), AUG_OK);
    aug_prof_raw_close(r);
    const char *text = slurp(path);
    assert_non_null(strstr(text, "# date: 2025-02-02T00:00:00Z\n"));
    assert_non_null(strstr(text, "# earlier run: date: 2025-01-01T00:00:00Z\n"));
    /* the same gpu_name line is not repeated as an earlier run */
    assert_null(strstr(text, "earlier run: gpu_name"));
    assert_non_null(strstr(text, "gemm,gemm,bf16,5,512,512,"));

    /* a third run keeps the earlier-run line once */
    const char *prov3[] = {prov[0], prov[1], "date: 2025-03-03T00:00:00Z"};
    assert_int_equal(aug_prof_raw_open(path, prov3, 3, "NVIDIA H100 80GB HBM3", &r), AUG_OK);
    assert_int_equal(aug_prof_raw_loaded(r), 5);
    assert_int_equal(aug_prof_raw_save(r), AUG_OK);
    aug_prof_raw_close(r);
    text = slurp(path);
    const char *first = strstr(text, "earlier run: date: 2025-01-01");
    assert_non_null(first);
    assert_null(strstr(first + 1, "earlier run: date: 2025-01-01"));
    assert_non_null(strstr(text, "earlier run: date: 2025-02-02"));

    /* another GPU's file is refused */
    assert_int_equal(aug_prof_raw_open(path, prov, 3, "NVIDIA A100-SXM4-80GB", &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "NVIDIA H100 80GB HBM3"));
}

static void malformed_files(void **state) {
    (void)state;
    char path[512];
    struct aug_prof_raw *r = NULL;
    snprintf(path, sizeof path, "%s/bad.csv", tmpdir);
    const char *hdr = "family,op,dtype,m,n,k,batch,heads,seq_q,seq_kv,head_dim,causal,size_bytes,"
                      "ranks,ranks_per_node,algo,time_us_median,time_us_min,time_us_max,reps,"
                      "timing,source,library,library_algo,l2_flush,warmup_calls,noise,"
                      "sm_clock_mhz,mem_clock_mhz,temp_c,power_w\n";
    /* other columns */
    write_text(path, "family,op,dtype\ngemm,gemm,bf16\n");
    assert_int_equal(aug_prof_raw_open(path, prov, 3, NULL, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "columns"));
    char text[2048];
    /* a non-number in m on line 3 */
    snprintf(text, sizeof text, "# x\n%sgemm,gemm,bf16,4x,8,8,,,,,,,,,,,1,1,1,3,cupti_kernel,s,,,,,,,,,\n",
             hdr);
    write_text(path, text);
    assert_int_equal(aug_prof_raw_open(path, prov, 3, NULL, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), ":3: column 'm'"));
    /* median above max */
    snprintf(text, sizeof text, "%sgemm,gemm,bf16,4,8,8,,,,,,,,,,,5,1,2,3,cupti_kernel,s,,,,,,,,,\n", hdr);
    write_text(path, text);
    assert_int_equal(aug_prof_raw_open(path, prov, 3, NULL, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "time_us_median"));
    /* unknown timing */
    snprintf(text, sizeof text, "%sgemm,gemm,bf16,4,8,8,,,,,,,,,,,1,1,1,3,guess,s,,,,,,,,,\n", hdr);
    write_text(path, text);
    assert_int_equal(aug_prof_raw_open(path, prov, 3, NULL, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "timing"));
    /* the same point twice (line 3) */
    snprintf(text, sizeof text,
             "%sgemm,gemm,bf16,4,8,8,,,,,,,,,,,1,1,1,3,cupti_kernel,s,,,,,,,,,\n"
             "gemm,gemm,bf16,4,8,8,,,,,,,,,,,2,2,2,3,cupti_kernel,s,,,,,,,,,\n", hdr);
    write_text(path, text);
    assert_int_equal(aug_prof_raw_open(path, prov, 3, NULL, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), ":3: duplicate"));
    /* causal must be 0 or 1 */
    snprintf(text, sizeof text,
             "%sattention,fused_fwd,bf16,,,,1,2,3,3,64,2,,,,,1,1,1,3,cupti_kernel,s,,,,,,,,,\n", hdr);
    write_text(path, text);
    assert_int_equal(aug_prof_raw_open(path, prov, 3, NULL, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "causal"));
    unlink(path);
}

static void refuses_inconsistent_stats(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/none.csv", tmpdir);
    struct aug_prof_raw *r = NULL;
    assert_int_equal(aug_prof_raw_open(path, prov, 3, NULL, &r), AUG_OK);
    struct aug_prof_point p = gemm_point(8, 8, 8);
    struct aug_prof_stats bad[] = {{5.0, 6.0, 7.0, 3}, {NAN, 1.0, 2.0, 3}, {1.0, 0.0, 2.0, 3},
                                   {1.0, 1.0, 1.0, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(aug_prof_raw_add(r, &p, &bad[i], AUG_PROF_TIMING_CUPTI, "x"), AUG_EDATA);
    assert_int_equal(aug_prof_raw_rows(r), 0);
    aug_prof_raw_close(r);
    assert_int_equal(access(path, F_OK), -1); /* nothing saved, nothing written */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(writes_exact_schema, setup, teardown),
        cmocka_unit_test_setup_teardown(writes_run_details, setup, teardown),
        cmocka_unit_test_setup_teardown(resume_reads_back, setup, teardown),
        cmocka_unit_test_setup_teardown(malformed_files, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_inconsistent_stats, setup, teardown),
    };
    return cmocka_run_group_tests_name("profiler raw csv", tests, NULL, NULL);
}
