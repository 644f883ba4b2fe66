/* SPDX-License-Identifier: Apache-2.0 */
/* test_import_nccl_tests.c - nccl-tests text output and the vTrain LUT tables: columns,
 * units, group size and placement, the collective, bad input with file:line, and the
 * real vTrain A100 files when ../shared is present. */
#include "aug_test.h"

#include "augur/status.h"
#include "device_match.h"
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
    expect_error("a.txt", buf, "a.txt:2: no measurements"); /* not a table row: skipped */
    snprintf(buf, sizeof buf, "%s   0  0 float none -1 5 0.3 0.3 0 13.0 0.3 0.3 0\n", hdr);
    expect_error("a.txt", buf, "no measurements"); /* size 0 rows are skipped */
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


/* ---- logs as users paste them, written here in the exact printf formats of nccl-tests
 * (src/common.cu and src/util.cu of 2.13-2.17: header "# %10s  %12s  %8s  %6s  %6s  %7s
 * %6s  %6s  %6s ...", rows "%12li  %12li  %8s  %6s  %6s  %7s  %6s  %6s  %6g ...") ---- */

static void put_header(char *b, size_t cap)
{
    size_t l = strlen(b);
    snprintf(b + l, cap - l,
             "#\n# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n"
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n"
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n",
             "", "", "", "", "", "size", "count", "type", "redop", "root", "time", "algbw",
             "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "", "",
             "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

static void put_row(char *b, size_t cap, long bytes, long elems, const char *type,
                    const char *redop, int root, const char *t0, const char *t1)
{
    size_t l = strlen(b);
    char rootname[16];
    snprintf(rootname, sizeof rootname, "%6i", root);
    snprintf(b + l, cap - l, "%12li  %12li  %8s  %6s  %6s  %7s  %6s  %6s  %6g  %7s  %6s  %6s  %6g\n",
             bytes, elems, type, redop, rootname, t0, "1.00", "1.00", 0.0, t1, "1.00", "1.00",
             0.0);
}

/* 2 nodes x 8 H100 under mpirun, NCCL_DEBUG=INFO chatter in between, the whole log pasted
 * inside a markdown fence, a size-0 first row (nccl-tests -b 0). */
static void multinode_pasted(void **state)
{
    (void)state;
    static char b[16384];
    b[0] = '\0';
    snprintf(b, sizeof b,
             "Here is our run:\n\n```\n"
             "# nccl-tests version 2.13.10 nccl-headers=22105 nccl-library=22105\n"
             "# Collective test starting: all_reduce_perf\n"
             "# nThread 1 nGpus 1 minBytes 0 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
             "#\n# Using devices\n");
    for (int r = 0; r < 16; r++) {
        size_t l = strlen(b);
        snprintf(b + l, sizeof b - l,
                 "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", r,
                 6899 + r, r < 8 ? "gpu-node-1" : "gpu-node-2", r % 8, 0, 4 + r % 8, 0,
                 "NVIDIA H100 80GB HBM3");
    }
    strcat(b, "gpu-node-1:6899:6899 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
              "gpu-node-1:6899:6899 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
              "10-0-0-2:6733:6790 [0] NCCL WARN NET/IB : GPU Direct RDMA disabled\n");
    put_header(b, sizeof b);
    put_row(b, sizeof b, 0, 0, "float", "sum", -1, "0.31", "0.29");
    strcat(b, "gpu-node-2:6740:6801 [7] NCCL INFO comm 0x5581 rank 15 nranks 16 - Init COMPLETE\n");
    put_row(b, sizeof b, 1048576, 262144, "float", "sum", -1, "61.20", "60.80");
    put_row(b, sizeof b, 8589934592L, 2147483648L, "float", "sum", -1, "93456", "93544");
    strcat(b, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 87.4118 \n#\n"
              "# Collective test concluded: all_reduce_perf\n```\n");
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("run.md", b, strlen(b), &o, &s), AUG_OK);
    assert_int_equal((int)s.n, 2);          /* the size-0 row is skipped */
    assert_string_equal(s.v[0].op, "all_reduce");
    assert_int_equal(s.v[0].ranks, 16);     /* sixteen Rank lines */
    assert_int_equal(s.v[0].ranks_per_node, 8); /* on two hosts */
    assert_string_equal(aug_sample_link(&s.v[0]), "network");
    assert_near(s.v[0].time_us, 61.0, 1e-12);   /* (61.20 + 60.80) / 2 */
    assert_near(s.v[1].size_bytes, 8589934592.0, 0);
    assert_near(s.v[1].time_us, 93500, 1e-9);
    assert_string_equal(s.device, "NVIDIA H100 80GB HBM3");
    aug_samples_free(&s);
}

/* alltoall_perf prints no redop: that column is blank, the row one field short. */
static void alltoall_blank_column(void **state)
{
    (void)state;
    static char b[8192];
    snprintf(b, sizeof b,
             "# nThread 1 nGpus 8 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
             "#\n# Using devices\n");
    for (int r = 0; r < 8; r++) {
        size_t l = strlen(b);
        snprintf(b + l, sizeof b - l,
                 "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x%02x] %s\n", r, 41, "dgx-a",
                 r, 7 + r, "NVIDIA A100-SXM4-80GB");
    }
    put_header(b, sizeof b);
    put_row(b, sizeof b, 1024, 32, "float", "", -1, "21.00", "23.00");
    put_row(b, sizeof b, 4096, 128, "float", "", -1, "30.00", "30.50");
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    if (aug_import_nccl_tests("alltoall_perf.log", b, strlen(b), &o, &s) != AUG_OK)
        fail_msg("%s", aug_last_error());
    assert_int_equal((int)s.n, 2);
    assert_string_equal(s.v[0].op, "all_to_all");
    assert_int_equal(s.v[0].ranks, 8);
    assert_int_equal(s.v[0].ranks_per_node, 8);
    assert_near(s.v[0].time_us, 22.0, 1e-12);
    assert_near(s.v[1].time_us_min, 30.0, 0);
    assert_near(s.v[1].time_us_max, 30.5, 0);
    assert_string_equal(s.device, "NVIDIA A100-SXM4-80GB");
    /* the same row cut short at the end is a truncated line, not a blank column */
    static char cut[8192];
    snprintf(cut, sizeof cut, "%s", b);
    cut[strlen(cut) - 16] = '\n';
    cut[strlen(cut) - 15] = '\0';
    aug_samples_free(&s);
    aug_samples_init(&s);
    assert_int_equal(aug_import_nccl_tests("alltoall_perf.log", cut, strlen(cut), &o, &s),
                     AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "alltoall_perf.log:17:"));
    assert_non_null(strstr(aug_last_error(), "truncated"));
    aug_samples_free(&s);
}

/* nccl-tests 2.0-2.9: no "Group" in Rank lines, no root column, Tesla names; run under
 * mpirun --tag-output, so every line carries "[1,r]<stdout>:". */
static void old_version_tagged(void **state)
{
    (void)state;
    const char *txt =
        "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 4(factor) warmup iters: 5 iters: 20 validation: 1\n"
        "[1,0]<stdout>:#\n"
        "[1,0]<stdout>:# Using devices\n"
        "[1,0]<stdout>:#   Rank  0 Pid  12001 on     host-a device  0 [0x1a] Tesla V100-SXM2-32GB\n"
        "[1,0]<stdout>:#   Rank  1 Pid  12002 on     host-a device  1 [0x1b] Tesla V100-SXM2-32GB\n"
        "[1,0]<stdout>:#   Rank  2 Pid  13001 on     host-b device  0 [0x1a] Tesla V100-SXM2-32GB\n"
        "[1,0]<stdout>:#   Rank  3 Pid  13002 on     host-b device  1 [0x1b] Tesla V100-SXM2-32GB\n"
        "[1,0]<stdout>:#\n"
        "[1,0]<stdout>:#                                                     out-of-place                       in-place          \n"
        "[1,0]<stdout>:#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "[1,0]<stdout>:#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
        "[1,0]<stdout>:           8             2   float     sum    40.00    0.00    0.00  0e+00    41.00    0.00    0.00  0e+00\n"
        "[1,2]<stderr>:host-b:13001:13001 [0] NCCL INFO Launch mode Parallel\n"
        "[1,0]<stdout>:     1048576        262144   float     sum    300.0    3.50    5.24  0e+00    302.0    3.47    5.21  0e+00\n"
        "[1,0]<stdout>:# Out of bounds values : 0 OK\n";
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("allreduce-2node.out", txt, strlen(txt), &o, &s),
                     AUG_OK);
    assert_int_equal((int)s.n, 2);
    assert_string_equal(s.v[1].op, "all_reduce"); /* from the file name */
    assert_int_equal(s.v[1].ranks, 4);
    assert_int_equal(s.v[1].ranks_per_node, 2);
    assert_near(s.v[1].time_us, 301.0, 1e-12);
    assert_string_equal(s.device, "Tesla V100-SXM2-32GB");
    aug_samples_free(&s);
}

/* nccl-tests 2.16+ with -S 1: a "timestamp" column whose cells are a date and a time (two
 * fields under one name), its format "%Y-%m-%d %H:%M:%S" on the units line; -C 1 prints
 * "cputime" for "time". */
static void timestamps_and_cputime(void **state)
{
    (void)state;
    static char b[4096];
    snprintf(b, sizeof b,
             "# Collective test starting: all_gather_perf\n"
             "# nThread 1 nGpus 4 minBytes 65536 maxBytes 131072 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n"
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n",
             "size", "count", "type", "redop", "root", "cputime", "algbw", "busbw", "#wrong",
             "cputime", "algbw", "busbw", "#wrong", 19, "timestamp", "(B)", "(elements)", "", "",
             "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 19,
             "%%Y-%%m-%%d %%H:%%M:%%S");
    for (int i = 0; i < 2; i++) {
        size_t l = strlen(b);
        snprintf(b + l, sizeof b - l,
                 "%12li  %12li  %8s  %6s  %6s  %7s  %6s  %6s  %6g  %7s  %6s  %6s  %6g%21s\n",
                 65536L << i, 4096L << i, "half", "none", "    -1", i ? "14.00" : "12.00", "1.00",
                 "1.00", 0.0, i ? "16.00" : "13.00", "1.00", "1.00", 0.0, "2025-03-04 05:06:07");
    }
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    if (aug_import_nccl_tests("ag.log", b, strlen(b), &o, &s) != AUG_OK)
        fail_msg("%s", aug_last_error());
    assert_int_equal((int)s.n, 2);
    assert_string_equal(s.v[1].op, "all_gather");
    assert_int_equal(s.v[1].ranks, 4);          /* nThread 1 x nGpus 4 */
    assert_near(s.v[0].time_us, 12.5, 1e-12);
    assert_near(s.v[1].time_us, 15.0, 1e-12);
    assert_int_equal(s.v[1].dtype, AUG_DTYPE_FP16);
    aug_samples_free(&s);
}

/* A log pasted with the command that ran it: the *_perf binary names the collective. */
static void collective_from_command_line(void **state)
{
    (void)state;
    const char *txt =
        "$ mpirun -np 2 -x NCCL_DEBUG=INFO /opt/nccl-tests/build/alltoall_perf -b 1M -e 1M -g 1\n"
        "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  Rank  0 Group  0 Pid 1 on a device  0 [0x07] NVIDIA H100 80GB HBM3\n"
        "#  Rank  1 Group  0 Pid 2 on a device  1 [0x0f] NVIDIA H100 80GB HBM3\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "   1048576  262144 float none -1 20.0 52.4 26.2 0 22.0 47.7 23.8 0\n";
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("run.txt", txt, strlen(txt), &o, &s), AUG_OK);
    assert_string_equal(s.v[0].op, "all_to_all");
    assert_int_equal(s.v[0].ranks, 2);
    assert_near(s.v[0].time_us, 21.0, 1e-12);
    aug_samples_free(&s);
}

/* Ranks on different GPU models cannot go into one kernels-db folder. */
static void mixed_gpus(void **state)
{
    (void)state;
    const char *txt =
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  Rank  0 Group  0 Pid 1 on a device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
        "#  Rank  1 Group  0 Pid 2 on b device  0 [0x07] NVIDIA A100-SXM4-40GB\n";
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("all_reduce.log", txt, strlen(txt), &o, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "all_reduce.log:3:"));
    assert_non_null(strstr(aug_last_error(), "A100-SXM4-40GB"));
    aug_samples_free(&s);
}

/* -J FILE (nccl-tests 2.15+, JSON_FILE_VERSION 2, src/util.cu): one "devices" entry per
 * process, nthreads x ngpus ranks each; 2 processes x 4 GPUs here on two hosts. */
static void json_output(void **state)
{
    (void)state;
    const char *js =
        "{\"version\":2,\"start_time\":\"2025-06-01 10:00:00\","
        "\"args\":[\"./build/reduce_scatter_perf\",\"-b\",\"0\",\"-e\",\"64M\",\"-g\",\"4\",\"-J\",\"rs.json\"],"
        "\"env\":[\"NCCL_DEBUG=WARN\"],\"nccl_version\":22703,"
        "\"config\":{\"nthreads\":1,\"ngpus\":4,\"minimum_bytes\":0,\"maximum_bytes\":67108864,"
        "\"step_factor\":2,\"warmup_iters\":5,\"iterations\":20,\"aggregated_iterations\":1,"
        "\"validation\":1,\"graph\":0,\"blocking_collectives\":\"false\",\"per_iter_timing\":\"false\","
        "\"parallel_init\":\"false\",\"devices\":["
        "{\"rank\":0,\"group\":0,\"pid\":10,\"hostname\":\"n1\",\"device\":0,\"device_hex\":\"0000:07:00\",\"device_info\":\"NVIDIA H100 80GB HBM3\"},"
        "{\"rank\":4,\"group\":0,\"pid\":11,\"hostname\":\"n2\",\"device\":0,\"device_hex\":\"0000:07:00\",\"device_info\":\"NVIDIA H100 80GB HBM3\"}]},"
        "\"results\":["
        "{\"size\":0,\"count\":0,\"type\":\"bfloat16\",\"redop\":\"sum\",\"root\":\"    -1\","
        "\"out_of_place\":{\"time\":0.3,\"alg_bw\":0,\"bus_bw\":0,\"nwrong\":0},"
        "\"in_place\":{\"time\":0.2,\"alg_bw\":0,\"bus_bw\":0,\"nwrong\":0},\"actual_iterations\":20,\"experiment_name\":\"\"},"
        "{\"size\":67108864,\"count\":4194304,\"type\":\"bfloat16\",\"redop\":\"sum\",\"root\":\"    -1\","
        "\"out_of_place\":{\"time\":1200.0,\"alg_bw\":55.9,\"bus_bw\":52.4,\"nwrong\":0},"
        "\"in_place\":{\"time\":1300.0,\"alg_bw\":51.6,\"bus_bw\":48.4,\"nwrong\":0},\"actual_iterations\":20,\"experiment_name\":\"\"}],"
        "\"out_of_bounds\":{\"count\":0,\"okay\":\"true\"},"
        "\"average_bus_bandwidth\":{\"bandwidth\":25.2,\"okay\":\"unchecked\"},\"errors\":[],"
        "\"end_time\":\"2025-06-01 10:00:05\"}\n";
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {0};
    assert_int_equal(aug_import_nccl_tests("rs.json", js, strlen(js), &o, &s), AUG_OK);
    assert_int_equal((int)s.n, 1);
    assert_string_equal(s.v[0].op, "reduce_scatter");
    assert_int_equal(s.v[0].dtype, AUG_DTYPE_BF16);
    assert_int_equal(s.v[0].ranks, 8);          /* 2 processes x 1 thread x 4 GPUs */
    assert_int_equal(s.v[0].ranks_per_node, 4); /* on two hosts */
    assert_near(s.v[0].time_us, 1250.0, 1e-9);
    assert_string_equal(s.device, "NVIDIA H100 80GB HBM3");
    /* bus bandwidth by hand: 64 MiB * 7/8 / 1250 us = 46.98 GB/s, between the file's two */
    assert_rel(67108864.0 * 7 / 8 / (s.v[0].time_us * 1e-6) / 1e9, 46.98, 0.001);
    aug_samples_free(&s);
    /* a time that is not a number, and a file that is JSON but not nccl-tests' */
    const char *bad = "{\"config\":{},\"results\":[{\"size\":8,\"type\":\"float\","
                      "\"out_of_place\":{\"time\":\"nan\"}}]}";
    aug_samples_init(&s);
    struct aug_import_opts o2 = {"all_reduce", 8, 8, NULL, NULL, 0};
    assert_int_equal(aug_import_nccl_tests("x.json", bad, strlen(bad), &o2, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "results[0].out_of_place.time"));
    assert_int_equal(aug_import_nccl_tests("y.json", "{\"a\":1}", 7, &o2, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "not nccl-tests -J output"));
    assert_int_equal(aug_import_nccl_tests("z.json", "{\"a\":", 5, &o2, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "z.json:1:"));
    aug_samples_free(&s);
}

/* The GPU check of `augur calibrate`: CUDA device names against kernels-db ids/names. */
static void device_names(void **state)
{
    (void)state;
    assert_int_equal(aug_device_matches_gpu("NVIDIA A100-SXM4-80GB", "a100-80g", "A100 SXM4 80GB"), 1);
    assert_int_equal(aug_device_matches_gpu("NVIDIA A100-SXM4-40GB", "a100-80g", "A100 SXM4 80GB"), 0);
    assert_int_equal(aug_device_matches_gpu("NVIDIA H100 80GB HBM3", "h100-80g", "H100 SXM5 80GB"), 1);
    assert_int_equal(aug_device_matches_gpu("NVIDIA H100 80GB HBM3", "a100-80g", "A100 SXM4 80GB"), 0);
    assert_int_equal(aug_device_matches_gpu("NVIDIA H100 PCIe", "h100-80g", NULL), 1);
    assert_int_equal(aug_device_matches_gpu("NVIDIA GB200", "gb200-186g", "B200 in GB200 NVL72 186GB"), 1);
    assert_int_equal(aug_device_matches_gpu("Tesla V100-SXM2-32GB", "h100-80g", NULL), 0);
    assert_int_equal(aug_device_matches_gpu("Graphics Device", "h100-80g", NULL), -1);
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
        cmocka_unit_test(real_vtrain), cmocka_unit_test(multinode_pasted),
        cmocka_unit_test(alltoall_blank_column), cmocka_unit_test(old_version_tagged),
        cmocka_unit_test(mixed_gpus), cmocka_unit_test(json_output),
        cmocka_unit_test(device_names), cmocka_unit_test(timestamps_and_cputime),
        cmocka_unit_test(collective_from_command_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
