/* SPDX-License-Identifier: Apache-2.0 */
/* test_samples.c - the kernels-db raw schema: a round trip through write and load, and
 * the named errors for missing columns, non-numbers, NaN, non-positive sizes and times,
 * unknown timings and truncated rows. */
#include "aug_test.h"

#include <unistd.h>

#include "augur/status.h"
#include "samples.h"

static const char *head =
    "# gpu: test\n"
    "family,op,dtype,m,n,k,batch,heads,seq_q,seq_kv,head_dim,causal,size_bytes,ranks,"
    "ranks_per_node,algo,time_us_median,time_us_min,time_us_max,reps,timing,source\n";

static void round_trip(void **state)
{
    (void)state;
    char buf[4096];
    snprintf(buf, sizeof buf,
             "%sgemm,gemm,bf16,4096,4096,4096,,,,,,,,,,,180.5,179,182,50,cupti_kernel,prof\n"
             "attention,fwd,bf16,,,,4,32,2048,2048,128,1,,,,,900,,,10,cupti_kernel,prof\n"
             "memory,norm,bf16,,,,,,,,,,67108864,,,,70,,,,cuda_event,prof\n"
             "collective,allreduce,bf16,,,,,,,,,,1048576,16,8,ring,120,,,20,cupti_kernel,prof\n",
             head);
    struct aug_samples s;
    aug_samples_init(&s);
    assert_int_equal(aug_samples_load_raw_mem("in.csv", buf, strlen(buf), &s), AUG_OK);
    assert_int_equal((int)s.n, 4);
    assert_near(s.v[0].batch, 1, 0); /* empty batch: unbatched */
    assert_near(s.v[0].time_us_min, 179, 0);
    assert_int_equal(s.v[1].causal, 1);
    assert_near(s.v[1].head_dim, 128, 0);
    assert_true(isnan(s.v[1].time_us_min));
    assert_string_equal(s.v[3].op, "all_reduce"); /* one spelling */
    assert_string_equal(s.v[3].algo, "ring");
    assert_string_equal(aug_sample_link(&s.v[3]), "network");
    assert_int_equal((int)s.v[2].line, 5);
    assert_string_equal(s.prov[0], "gpu: test");
    char path[] = "/tmp/aug_test_samples_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    const char *extra[] = {"tool: test"};
    assert_int_equal(aug_samples_write_raw(path, &s, AUG_FAMILY_COUNT, extra, 1), AUG_OK);
    struct aug_samples t;
    aug_samples_init(&t);
    assert_int_equal(aug_samples_load_raw(path, &t), AUG_OK);
    assert_int_equal((int)t.n, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(t.v[i].family, s.v[i].family);
        assert_string_equal(t.v[i].op, s.v[i].op);
        assert_near(t.v[i].time_us, s.v[i].time_us, 0);
        assert_near(t.v[i].size_bytes, s.v[i].size_bytes, 0);
        assert_near(t.v[i].m, s.v[i].m, 0);
        assert_int_equal(t.v[i].ranks, s.v[i].ranks);
    }
    assert_string_equal(t.prov[0], "tool: test");
    /* one family only */
    assert_int_equal(aug_samples_write_raw(path, &s, AUG_FAMILY_MEMORY, NULL, 0), AUG_OK);
    aug_samples_free(&t);
    aug_samples_init(&t);
    assert_int_equal(aug_samples_load_raw(path, &t), AUG_OK);
    assert_int_equal((int)t.n, 1);
    aug_samples_free(&t);
    aug_samples_free(&s);
    unlink(path);
}

static void expect(const char *rows, const char *needle, int with_head)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s", with_head ? head : "", rows);
    struct aug_samples s;
    aug_samples_init(&s);
    int rc = aug_samples_load_raw_mem("bad.csv", buf, strlen(buf), &s);
    if (rc != AUG_EDATA)
        fail_msg("%s: status %d", needle, rc);
    if (!strstr(aug_last_error(), needle))
        fail_msg("'%s' lacks '%s'", aug_last_error(), needle);
    aug_samples_free(&s);
}

static void bad_rows(void **state)
{
    (void)state;
    expect("gemm,gemm,bf16,4096,4096,,,,,,,,,,,,180,,,,wall,x\n", "bad.csv:3: column 'k'", 1);
    expect("gemm,gemm,bf16,4096,-4096,4096,,,,,,,,,,,180,,,,wall,x\n", "bad.csv:3: column 'n'", 1);
    expect("gemm,gemm,bf16,4096,4096,4096,,,,,,,,,,,nan,,,,wall,x\n",
           "bad.csv:3: column 'time_us_median'", 1);
    expect("gemm,gemm,bf16,4096,4096,4096,,,,,,,,,,,abc,,,,wall,x\n",
           "bad.csv:3: column 'time_us_median'", 1);
    expect("gemm,gemm,bf16,4096,4096,4096,,,,,,,,,,,0,,,,wall,x\n",
           "bad.csv:3: column 'time_us_median'", 1);
    expect("gemm,gemm,bf16,4096,4096,4096,,,,,,,,,,,10,12,,,wall,x\n",
           "bad.csv:3: column 'time_us_min'", 1);
    expect("memory,norm,bf16,,,,,,,,,,0,,,,10,,,,wall,x\n", "bad.csv:3: column 'size_bytes'", 1);
    expect("memory,norm,bf16,,,,,,,,,,-5,,,,10,,,,wall,x\n", "bad.csv:3: column 'size_bytes'", 1);
    expect("memory,norm,bf16,,,,,,,,,,64,,,,10,,,,stopwatch,x\n", "bad.csv:3: column 'timing'", 1);
    expect("memory,norm,fp64,,,,,,,,,,64,,,,10,,,,wall,x\n", "bad.csv:3: column 'dtype'", 1);
    expect("conv,x,bf16,,,,,,,,,,64,,,,10,,,,wall,x\n", "bad.csv:3: column 'family'", 1);
    expect("collective,all_reduce,bf16,,,,,,,,,,64,,,,10,,,,wall,x\n", "bad.csv:3: column 'ranks'", 1);
    expect("collective,allgatherv,bf16,,,,,,,,,,64,8,8,,10,,,,wall,x\n", "bad.csv:3: column 'op'", 1);
    expect("attention,fwd,bf16,,,,4,32,2048,2048,128,2,,,,,900,,,,wall,x\n",
           "bad.csv:3: column 'causal'", 1);
    /* truncated row: the later cells are empty, so the time is missing */
    expect("memory,norm,bf16,,,,,,,,,,64,,,\n", "bad.csv:3: column 'time_us_median'", 1);
    /* a header without time_us_median */
    expect("family,op,dtype,m,n,k,batch,heads,seq_q,seq_kv,head_dim,causal,size_bytes,ranks,"
           "ranks_per_node,algo,time_us,time_us_min,time_us_max,reps,timing,source\n",
           "bad.csv:1: column 'time_us_median': missing", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(round_trip), cmocka_unit_test(bad_rows)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
