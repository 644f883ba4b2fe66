/* SPDX-License-Identifier: Apache-2.0 */
/* test_import_neusight.c - NeuSight operator CSVs: GEMM shapes from B, M, N, K (linear
 * folds B into the rows, bmm is batched), memory-bound ops as fp32 bytes moved, ms -> us,
 * host_event timing; the Device column against --gpu; bad rows named with file, line and
 * column; the real files when ../shared is present. */
#include "aug_test.h"

#include "augur/status.h"
#include "import.h"

/* NeuSight's layout: the kernel names are quoted and hold commas, the dims come last. */
static const char *gemm_head = "OPName,Latency,Device,Kernel Name,Grid x,B,M,N,K\n";
static const char *mem_head = "OPName,Latency,Device,Kernel Name,B,H\n";

static int import(const char *text, const char *gpu, int force, struct aug_samples *s)
{
    struct aug_import_opts o = {NULL, 0, 0, "neusight@test", gpu, force};
    return aug_import_neusight("ns.csv", text, strlen(text), &o, s);
}

static void gemms(void **state)
{
    (void)state;
    char buf[1024];
    snprintf(buf, sizeof buf,
             "%s"
             "linear,0.052213333547115326,Tesla T4,volta_sgemm_32x128_tn,5,1,58,13,141\n"
             "linear,0.5,Tesla T4,\"void f<4, float>(int, float)\",5,2,100,64,32\n"
             "bmm,0.035466667264699936,Tesla T4,volta_sgemm_64x64_nn,1,13,27,15,29\n",
             gemm_head);
    struct aug_samples s;
    aug_samples_init(&s);
    assert_int_equal(import(buf, "t4-16g", 0, &s), AUG_OK);
    assert_int_equal((int)s.n, 3);
    /* nn.Linear(N = 13, K = 141) on a (1, 58, 13) input: C (58 x 141) over k = 13 */
    const struct aug_sample *a = &s.v[0];
    assert_int_equal(a->family, AUG_FAMILY_GEMM);
    assert_string_equal(a->op, "gemm");
    assert_int_equal(a->dtype, AUG_DTYPE_FP32);
    assert_near(a->m, 58, 0);
    assert_near(a->k, 13, 0);
    assert_near(a->n, 141, 0);
    assert_near(a->batch, 1, 0);
    assert_near(a->time_us, 52.213333547115326, 1e-9); /* ms x 1000 */
    assert_string_equal(a->timing, "host_event");
    assert_int_equal((int)a->line, 2);
    assert_string_equal(s.sources[a->source], "neusight@test:ns.csv linear");
    /* B = 2 folds into the rows: m = 2 x 100, k = 64, n = 32, unbatched; the quoted
     * kernel name with commas does not shift the columns */
    assert_near(s.v[1].m, 200, 0);
    assert_near(s.v[1].k, 64, 0);
    assert_near(s.v[1].n, 32, 0);
    assert_near(s.v[1].batch, 1, 0);
    assert_near(s.v[1].time_us, 500, 1e-9);
    /* torch.bmm of (13, 27, 15) and (13, 15, 29): 13 GEMMs of 27 x 29 over k = 15 */
    const struct aug_sample *b = &s.v[2];
    assert_near(b->batch, 13, 0);
    assert_near(b->m, 27, 0);
    assert_near(b->k, 15, 0);
    assert_near(b->n, 29, 0);
    assert_string_equal(s.sources[b->source], "neusight@test:ns.csv bmm");
    aug_samples_free(&s);
}

static void memory_ops(void **state)
{
    (void)state;
    char buf[1024];
    snprintf(buf, sizeof buf,
             "%s"
             "add,0.025945600494742392,Tesla T4,\"k<4, add>(int)\",127,168\n"
             "gelu,0.03,Tesla T4,g,127,168\n"
             "softmax,0.04,Tesla T4,s,1000,10\n"
             "ln,0.05,Tesla T4,l,60,272\n",
             mem_head);
    struct aug_samples s;
    aug_samples_init(&s);
    assert_int_equal(import(buf, "t4-16g", 0, &s), AUG_OK);
    assert_int_equal((int)s.n, 4);
    /* fp32, 4 bytes an element: add reads two (B, H) tensors and writes one */
    assert_int_equal(s.v[0].family, AUG_FAMILY_MEMORY);
    assert_string_equal(s.v[0].op, "elementwise");
    assert_near(s.v[0].size_bytes, 4.0 * 3 * 127 * 168, 0); /* 256,032 */
    assert_near(s.v[0].time_us, 25.945600494742392, 1e-9);
    /* one read and one write each */
    assert_string_equal(s.v[1].op, "activation");
    assert_near(s.v[1].size_bytes, 4.0 * 2 * 127 * 168, 0); /* 170,688 */
    assert_string_equal(s.v[2].op, "softmax");
    assert_near(s.v[2].size_bytes, 80000, 0); /* 4 x 2 x 1000 x 10 */
    assert_string_equal(s.v[3].op, "norm");
    assert_near(s.v[3].size_bytes, 130560, 0); /* 4 x 2 x 60 x 272 */
    assert_near(s.v[3].time_us, 50, 1e-9);
    assert_string_equal(s.v[3].timing, "host_event");
    assert_string_equal(s.sources[s.v[3].source], "neusight@test:ns.csv ln");
    aug_samples_free(&s);
}

static void expect(const char *head, const char *rows, const char *gpu, const char *needle)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s%s", head, rows);
    struct aug_samples s;
    aug_samples_init(&s);
    int rc = import(buf, gpu, 0, &s);
    if (rc != AUG_EDATA)
        fail_msg("%s: status %d", needle, rc);
    if (!strstr(aug_last_error(), needle))
        fail_msg("'%s' lacks '%s'", aug_last_error(), needle);
    aug_samples_free(&s);
}

static void devices(void **state)
{
    (void)state;
    const char *a100 = "bmm,0.1,NVIDIA A100-PCIE-40GB,k,1,1,64,64,64\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s", gemm_head, a100);
    struct aug_samples s;
    /* the A100 PCIe file into the T4's table: refused, naming the GPU it belongs to */
    expect(gemm_head, a100, "t4-16g", "ns.csv:2: column 'Device': measured on "
           "'NVIDIA A100-PCIE-40GB' (GPU 'a100-pcie-40g'), not 't4-16g'");
    /* ... kept with --force, and into its own table */
    aug_samples_init(&s);
    assert_int_equal(import(buf, "t4-16g", 1, &s), AUG_OK);
    assert_int_equal((int)s.n, 1);
    aug_samples_free(&s);
    aug_samples_init(&s);
    assert_int_equal(import(buf, "a100-pcie-40g", 0, &s), AUG_OK);
    assert_string_equal(s.device, ""); /* known: checked here, not by name in calibrate */
    aug_samples_free(&s);
    /* one file, two GPUs */
    expect(gemm_head, "bmm,0.1,Tesla T4,k,1,1,64,64,64\nbmm,0.1,Tesla P4,k,1,1,64,64,64\n",
           "t4-16g", "ns.csv:3: column 'Device': 'Tesla P4', but earlier rows say 'Tesla T4'");
    expect(gemm_head, "bmm,0.1,,k,1,1,64,64,64\n", "t4-16g", "ns.csv:2: column 'Device'");
    /* a GPU NeuSight did not measure: left to calibrate's name check (device_match.c) */
    const char *h100 = "bmm,0.1,NVIDIA H100 80GB HBM3,k,1,1,64,64,64\n";
    snprintf(buf, sizeof buf, "%s%s", gemm_head, h100);
    aug_samples_init(&s);
    assert_int_equal(import(buf, "t4-16g", 0, &s), AUG_OK);
    assert_string_equal(s.device, "NVIDIA H100 80GB HBM3");
    /* a second input of yet another GPU in the same run */
    const char *other = "OPName,Latency,Device,B,M,N,K\nbmm,0.1,NVIDIA L4,1,64,64,64\n";
    assert_int_equal(import(other, "t4-16g", 0, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "ns.csv:2: column 'Device': 'NVIDIA L4', but "
                                             "another input says 'NVIDIA H100 80GB HBM3'"));
    aug_samples_free(&s);
}

static void bad_input(void **state)
{
    (void)state;
    /* missing columns: named with the header line */
    expect("OPName,Device,B,M,N,K\n", "bmm,Tesla T4,1,2,3,4\n", NULL,
           "ns.csv:1: column 'Latency': missing");
    expect("OPName,Latency,Device,B,M,N\n", "bmm,0.1,Tesla T4,1,2,3\n", NULL,
           "ns.csv:1: column 'K': missing");
    expect("OPName,Latency,Device,B\n", "add,0.1,Tesla T4,1\n", NULL,
           "ns.csv:1: column 'H': missing");
    expect("Latency,Device,B,H\n", "0.1,Tesla T4,1,2\n", NULL, "ns.csv:1: column 'OPName'");
    /* latencies: not a number, NaN, negative, zero, empty, absurd */
    expect(mem_head, "add,fast,Tesla T4,k,1,2\n", NULL, "ns.csv:2: column 'Latency'");
    expect(mem_head, "add,nan,Tesla T4,k,1,2\n", NULL, "ns.csv:2: column 'Latency'");
    expect(mem_head, "add,0.1,Tesla T4,k,1,2\nadd,-0.1,Tesla T4,k,1,2\n", NULL,
           "ns.csv:3: column 'Latency'");
    expect(mem_head, "add,0,Tesla T4,k,1,2\n", NULL, "ns.csv:2: column 'Latency'");
    expect(mem_head, "add,,Tesla T4,k,1,2\n", NULL, "ns.csv:2: column 'Latency'");
    expect(mem_head, "add,1e9,Tesla T4,k,1,2\n", NULL,
           "ns.csv:2: column 'Latency': 1e+09 ms (over an hour)");
    /* sizes: zero, fractional, infinite, beyond cuBLAS's int, over 1 TiB */
    expect(gemm_head, "bmm,0.1,Tesla T4,k,1,0,2,3,4\n", NULL, "ns.csv:2: column 'B'");
    expect(gemm_head, "bmm,0.1,Tesla T4,k,1,1,2.5,3,4\n", NULL,
           "ns.csv:2: column 'M': 2.5 is not a whole dimension");
    expect(gemm_head, "bmm,0.1,Tesla T4,k,1,1,inf,3,4\n", NULL, "ns.csv:2: column 'M'");
    expect(gemm_head, "bmm,0.1,Tesla T4,k,1,1,2,3,4e12\n", NULL, "ns.csv:2: column 'K'");
    /* 2^20 x 2^20 x 4 bytes = 4 TiB for the (B, N, K) operand of a bmm */
    expect(gemm_head, "bmm,0.1,Tesla T4,k,1,1,2,1048576,1048576\n", NULL,
           "ns.csv:2: column 'N': a tensor of");
    expect(mem_head, "ln,0.1,Tesla T4,k,1048576,1048576\n", NULL,
           "ns.csv:2: column 'H': a tensor of");
    /* linear: B x M rows beyond cuBLAS's int */
    expect(gemm_head, "linear,0.1,Tesla T4,k,1,65536,65536,1,1\n", NULL,
           "ns.csv:2: column 'M': B x M");
    /* an operator augur does not import */
    expect(gemm_head, "conv,0.1,Tesla T4,k,1,1,2,3,4\n", NULL,
           "ns.csv:2: column 'OPName': 'conv' is not an operator");
    /* a row cut short */
    expect(gemm_head, "bmm,0.1,Tesla T4,k,1,1,2\n", NULL, "ns.csv:2: column 'N'");
}

/* The published T4 files (../shared/external/neusight), when present: every row imports. */
static void real_files(void **state)
{
    (void)state;
    static const struct {
        const char *op;
        int rows; /* ../shared/external/PROVENANCE.md, section 5, row counts of Tesla T4 */
    } files[] = {{"linear", 6458}, {"bmm", 17697}, {"softmax", 1750},
                 {"ln", 1400},     {"gelu", 1750}, {"add", 1750}};
    char path[512];
    snprintf(path, sizeof path, "%s/external/neusight/scripts/asplos/data/dataset/train/"
             "collect/linear/p2.1.0/Tesla T4.csv", AUG_SHARED_DIR);
    FILE *fp = fopen(path, "r");
    if (!fp)
        skip();
    fclose(fp);
    struct aug_import_opts o = {NULL, 0, 0, NULL, "t4-16g", 0};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/external/neusight/scripts/asplos/data/dataset/train/"
                 "collect/%s/p2.1.0/Tesla T4.csv", AUG_SHARED_DIR, files[i].op);
        struct aug_samples s;
        aug_samples_init(&s);
        int rc = aug_import_file(aug_importer_find("neusight"), path, &o, &s);
        if (rc != AUG_OK)
            fail_msg("%s: %s", path, aug_last_error());
        assert_int_equal((int)s.n, files[i].rows);
        if (i == 0) {
            /* first row: linear 0.052213333547115326 ms, B 1, M 58, N 13, K 141 */
            assert_near(s.v[0].m, 58, 0);
            assert_near(s.v[0].k, 13, 0);
            assert_near(s.v[0].n, 141, 0);
            assert_near(s.v[0].time_us, 52.213333547115326, 1e-9);
        }
        aug_samples_free(&s);
    }
    /* the same file is refused for another GPU */
    struct aug_samples s;
    aug_samples_init(&s);
    o.gpu = "p4-8g";
    assert_int_equal(aug_import_file(aug_importer_find("neusight"), path, &o, &s), AUG_EDATA);
    aug_samples_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(gemms), cmocka_unit_test(memory_ops),
                                       cmocka_unit_test(devices), cmocka_unit_test(bad_input),
                                       cmocka_unit_test(real_files)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
