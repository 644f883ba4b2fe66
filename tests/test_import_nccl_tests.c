/* test_import_nccl_tests.c - nccl-tests text output and the vTrain LUT tables: columns,
 * units, group size and placement, the collective, bad input with file:line, and the
 * real vTrain A100 files when ../shared is present. */
#include "aug_test.h"

#include "augur/status.h"
#include "import.h"

/* all_reduce_perf -b 8 -e 128M -f 2 -g 8 (nccl-tests 2.13 layout, shortened). */
static const char *allreduce_txt =
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid  41 on     node-a device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
    "#  Rank  1 Group  0 Pid  42 on     node-a device  1 [0x0f] NVIDIA A100-SXM4-80GB\n"
    "#  Rank  2 Group  0 Pid  43 on     node-b device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
    "#  Rank  3 Group  0 Pid  44 on     node-b device  1 [0x0f] NVIDIA A100-SXM4-80GB\n"
    "#\n"
    "#                                                              out-of-place                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
    "           8             2     float     sum      -1    30.00    0.00    0.00      0    34.00    0.00    0.00      0\n"
    "     1048576        262144     float     sum      -1    100.0   10.49   15.73      0    110.0    9.53   14.30      0\n"
    "   134217728      33554432     float     sum      -1   2000.0   67.11  100.66      0   2010.0   66.78  100.16      0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 38.5\n";

static void text_output(void **state)
{
    (void)state;
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("all_reduce_perf.txt", allreduce_txt,
                                           strlen(allreduce_txt), &o, &s), AUG_OK);
    assert_int_equal((int)s.n, 3);
    const struct aug_sample *x = &s.v[1];
    assert_int_equal(x->family, AUG_FAMILY_COLLECTIVE);
    assert_string_equal(x->op, "all_reduce");
    assert_int_equal(x->dtype, AUG_DTYPE_FP32);
    assert_near(x->size_bytes, 1048576, 0);
    assert_near(x->time_us, 105, 1e-12);   /* mean of out-of-place and in-place */
    assert_near(x->time_us_min, 100, 0);
    assert_near(x->time_us_max, 110, 0);
    assert_int_equal(x->ranks, 4);         /* four Rank lines */
    assert_int_equal(x->ranks_per_node, 2); /* on two hosts */
    assert_string_equal(aug_sample_link(x), "network");
    assert_int_equal((int)x->line, 13);
    assert_string_equal(x->timing, "wall");
    int prov = 0;
    for (size_t i = 0; i < s.n_prov; i++)
        prov |= strstr(s.prov[i], "nGpus 1") != NULL;
    assert_true(prov);
    aug_samples_free(&s);
}

static void other_collectives(void **state)
{
    (void)state;
    /* older layout without root, a 'Collective test starting' line, ns units, sendrecv */
    const char *txt =
        "# Collective test starting: sendrecv_perf\n"
        "# nThread 1 nGpus 2 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#       size         count      type   redop     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                        (ns)  (GB/s)  (GB/s)             (ns)  (GB/s)  (GB/s)\n"
        "        1024           256      half    none     8000    0.13    0.13    N/A     9000    0.11    0.11    N/A\n"
        "        2048           512      half    none     8500    0.24    0.24    N/A     9500    0.22    0.22    N/A\n";
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("out.txt", txt, strlen(txt), &o, &s), AUG_OK);
    assert_int_equal((int)s.n, 2);
    assert_string_equal(s.v[0].op, "send_recv");
    assert_int_equal(s.v[0].dtype, AUG_DTYPE_FP16);
    assert_near(s.v[0].time_us, 8.5, 1e-12); /* ns -> us */
    assert_int_equal(s.v[0].ranks, 2);       /* nThread x nGpus */
    assert_int_equal(s.v[0].ranks_per_node, 2);
    aug_samples_free(&s);
    /* no name anywhere: --coll decides; from the file name otherwise */
    const char *bare =
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "   4096  1024 float none   -1 12.0  0.3   0.3   0    13.0  0.3   0.3   0\n";
    aug_samples_init(&s);
    struct aug_import_opts o2 = {"all_gather", 8, 8, NULL, NULL, 0};
    assert_int_equal(aug_import_nccl_tests("run1.log", bare, strlen(bare), &o2, &s), AUG_OK);
    assert_string_equal(s.v[0].op, "all_gather");
    assert_int_equal(s.v[0].ranks, 8);
    assert_int_equal(aug_import_nccl_tests("reduce_scatter_perf.log", bare, strlen(bare), &o, &s),
                     AUG_EDATA); /* group size unknown */
    assert_non_null(strstr(aug_last_error(), "--ranks"));
    struct aug_import_opts o3 = {NULL, 4, 0, NULL, NULL, 0};
    assert_int_equal(aug_import_nccl_tests("reduce_scatter_perf.log", bare, strlen(bare), &o3, &s),
                     AUG_OK);
    assert_string_equal(s.v[1].op, "reduce_scatter");
    assert_int_equal(aug_import_nccl_tests("run1.log", bare, strlen(bare), &o3, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "--coll"));
    aug_samples_free(&s);
}

static void lut_table(void **state)
{
    (void)state;
    const char *lut = "size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)\n"
                      "1048576,262144,float,92790,19.78,92150,19.91\n"
                      "2097152,524288,float,93250,39.36,92970,39.47\n";
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("trace/a100/AR_GPU8_1M_1024M_LUT", lut, strlen(lut), &o, &s),
                     AUG_OK);
    assert_int_equal((int)s.n, 2);
    assert_string_equal(s.v[0].op, "all_reduce");
    assert_int_equal(s.v[0].ranks, 8);
    assert_int_equal(s.v[0].ranks_per_node, 8);
    assert_near(s.v[0].time_us, (92.790 + 92.150) / 2, 1e-9);
    /* busbw check by hand: 1 MiB * 2 * 7/8 / 92.47 us = 19.84 GB/s, as the file says */
    assert_rel(1048576 * 1.75 / (s.v[0].time_us * 1e-6) / 1e9, 19.84, 0.005);
    aug_samples_free(&s);
}

static void expect_error(const char *name, const char *txt, const char *needle)
{
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {"all_reduce", 8, 8, NULL, NULL, 0};
    int rc = aug_import_nccl_tests(name, txt, strlen(txt), &o, &s);
    if (rc != AUG_EDATA)
        fail_msg("%s: status %d (%s)", needle, rc, aug_last_error());
    if (!strstr(aug_last_error(), needle))
        fail_msg("'%s' lacks '%s'", aug_last_error(), needle);
    aug_samples_free(&s);
}

static void bad_files(void **state)
{
    (void)state;
    const char *hdr = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%s   4096  1024 float none -1 12.0 0.3 0.3 0 13.0 0.3\n", hdr);
    expect_error("a.txt", buf, "a.txt:2: 11 fields where the header has 13");
    snprintf(buf, sizeof buf, "%s   4096  1024 float none -1 nan 0.3 0.3 0 13.0 0.3 0.3 0\n", hdr);
    expect_error("a.txt", buf, "a.txt:2: column 'time'");
    snprintf(buf, sizeof buf, "%s   4096  1024 float none -1 -5 0.3 0.3 0 13.0 0.3 0.3 0\n", hdr);
    expect_error("a.txt", buf, "not a positive time");
    snprintf(buf, sizeof buf, "%s   -4096  1024 float none -1 5 0.3 0.3 0 13.0 0.3 0.3 0\n", hdr);
    expect_error("a.txt", buf, "a.txt:2: unexpected line");
    snprintf(buf, sizeof buf, "%s   0  1024 float none -1 5 0.3 0.3 0 13.0 0.3 0.3 0\n", hdr);
    expect_error("a.txt", buf, "column 'size'");
    snprintf(buf, sizeof buf, "%s   64  16 double none -1 5 0.3 0.3 0 13.0 0.3 0.3 0\n", hdr);
    expect_error("a.txt", buf, "unknown data type 'double'");
    snprintf(buf, sizeof buf, "%s#  (B) (elements) (fortnights) (GB/s) (GB/s)\n", hdr);
    expect_error("a.txt", buf, "a.txt:2: column 'time': unknown unit '(fortnights)'");
    expect_error("a.txt", "   4096  1024 float none -1 5 0.3 0.3 0\n", "before the '# size");
    expect_error("empty.txt", "# nothing here\n", "no measurements");
    expect_error("AR_GPU4_LUT", "size(B),count,type,time(ms),busbw(GB/s)\n1,1,float,x,1\n",
                 "AR_GPU4_LUT:2: column 'time'");
    expect_error("AR_GPU4_LUT", "size(KB),count,type,time(ns)\n", "column 'size': unknown unit");
    expect_error("AR_GPU4_LUT", "size(B),count,type,time(ns),busbw(GB/s)\n1024,256,float\n",
                 "AR_GPU4_LUT:2: 3 fields");
}

static void real_vtrain(void **state)
{
    (void)state;
    const char *path = AUG_SHARED_DIR "/external/vtrain/trace/a100/AR_GPU8_1M_1024M_LUT";
    FILE *fp = fopen(path, "r");
    if (!fp)
        skip();
    fclose(fp);
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_file(aug_importer_find("nccl-tests"), path, &o, &s), AUG_OK);
    assert_int_equal((int)s.n, 1024);
    /* the last row: 1 GiB at 229.3 GB/s bus bandwidth (PROVENANCE.md) */
    const struct aug_sample *x = &s.v[1023];
    assert_near(x->size_bytes, 1073741824.0, 0);
    assert_rel(x->size_bytes * 1.75 / (x->time_us * 1e-6) / 1e9, 229.3, 0.002);
    aug_samples_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_output), cmocka_unit_test(other_collectives),
        cmocka_unit_test(lut_table),   cmocka_unit_test(bad_files),
        cmocka_unit_test(real_vtrain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
