/* SPDX-License-Identifier: Apache-2.0 */
/* test_shapes.c - the GEMM shape list of `augur-profile --shapes FILE` (profiler/shapes.c):
 * what each rule keeps, skips, rounds and merges, and the file:line message of each kind of
 * bad input. */
#include "../aug_test.h"

#include <stdio.h>
#include <unistd.h>

#include "augur/dtype.h"
#include "augur/status.h"
#include "shapes.h"

static char path[64];

static void write_file(const char *text) {
    snprintf(path, sizeof path, "/tmp/augur_shapes.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int load(const char *text, struct aug_prof_gemm_shapes *s) {
    write_file(text);
    int rc = aug_prof_gemm_shapes_load(path, s);
    unlink(path);
    return rc;
}

/* The head of an `augur train --ops --format csv` listing: the attention and schedule rows
 * are skipped by kind; a mean of 4236.4 tokens per expert becomes 4236 rows; the expert
 * GEMM of a batch of 2 experts is measured as one of them; the weight-gradient GEMM that
 * repeats the forward's shape (qkv_wgrad = qkv) is measured once; a decode expert GEMM of
 * 0.3 tokens has nothing to measure. Sorted by (dtype, m, n, k). */
static void ops_listing(void **state) {
    (void)state;
    struct aug_prof_gemm_shapes s;
    assert_int_equal(
        load("list,op,kind,count,source,dtype,m,n,k,batch\n"
             "fwd,qkv,gemm,256,curve,bf16,4096,6144,4096,1\n"
             "fwd,attn_fwd,attention,256,fallback,bf16,,,,\n"
             "fwd,expert_up,gemm,256,fallback,fp8,4236.4,28672,4096,2\n"
             "bwd,qkv_wgrad,gemm,256,curve,bf16,4096,6144,4096,1\n"
             "fwd,expert_down,gemm,256,fallback,fp8,0.3,4096,14336,2\n"
             "iteration,optimizer,schedule,1,schedule,,,,,\n",
             &s),
        AUG_OK);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.rows, 6);
    assert_int_equal(s.other_kind, 2);
    assert_int_equal(s.repeated, 1);
    assert_int_equal(s.rounded, 2);
    assert_int_equal(s.too_small, 1);
    assert_int_equal(s.batched, 1);
    assert_true(s.v[0].dtype == AUG_DTYPE_BF16 && s.v[0].m == 4096 && s.v[0].n == 6144 &&
                s.v[0].k == 4096);
    assert_true(s.v[1].dtype == AUG_DTYPE_FP8 && s.v[1].m == 4236 && s.v[1].n == 28672 &&
                s.v[1].k == 4096);
    char line[512];
    aug_prof_gemm_shapes_summary(&s, line, sizeof line);
    assert_non_null(strstr(line, "2 GEMM shapes from 6 rows"));
    assert_non_null(strstr(line, "1 batched, measured as one GEMM of the batch"));
    aug_prof_gemm_shapes_release(&s);
}

/* A bare list: no kind column (every row a GEMM), no dtype (every dtype of the sweep). */
static void bare_list(void **state) {
    (void)state;
    struct aug_prof_gemm_shapes s;
    assert_int_equal(load("m,n,k\n648,6144,4096\n640,6144,4096\n", &s), AUG_OK);
    assert_int_equal(s.n, 2);
    assert_true(s.v[0].m == 640 && s.v[1].m == 648 && s.v[0].dtype == -1);
    aug_prof_gemm_shapes_release(&s);
}

/* Each bad input is refused with its file, line and column, and leaves nothing behind. */
static void refused(const char *text, const char *msg) {
    struct aug_prof_gemm_shapes s;
    assert_int_equal(load(text, &s), AUG_EDATA);
    if (!strstr(aug_last_error(), msg))
        fail_msg("expected '%s' in: %s", msg, aug_last_error());
    assert_null(s.v);
    assert_int_equal(s.n, 0);
}

static void bad_input(void **state) {
    (void)state;
    refused("x,n,k\n1,2,3\n", ":1: column 'm': missing");
    refused("m,n,k\n1,2\n", ":2: column 'k': empty");
    refused("m,n,k\n1,2,-3\n", ":2: column 'k': '-3' must not be negative");
    refused("m,n,k\n1,2,abc\n", ":2: column 'k'");
    refused("m,n,k\n1,2,3e9\n", ":2: column 'k': 3e+09 is above 16777216");
    refused("m,n,k\n1,2,nan\n", ":2: column 'k'");
    refused("m,n,k,dtype\n1,2,3,int8\n", ":2: column 'dtype': 'int8' is not a GEMM dtype");
    refused("m,n,k,dtype\n1,2,3,bf17\n", ":2: column 'dtype': 'bf17'");
    refused("m,n,k,batch\n1,2,3,0.5\n", ":2: column 'batch': 0.5 is not a GEMM count");
    refused("kind,m,n,k\nattention,,,\n", "no GEMM shape to measure");
    refused("m,n,k\n0.2,2,3\n", "no GEMM shape to measure (1 rows: 0 of other kinds, 1 with");
    refused("m,n,k\n", "no GEMM shape to measure");
}

static void unreadable(void **state) {
    (void)state;
    struct aug_prof_gemm_shapes s;
    assert_int_equal(aug_prof_gemm_shapes_load("/nonexistent/shapes.csv", &s), AUG_EIO);
    assert_null(s.v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ops_listing),
        cmocka_unit_test(bare_list),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(unreadable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
