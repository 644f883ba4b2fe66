/* SPDX-License-Identifier: Apache-2.0 */
/* test_system.c - GPU rows of kernels-db/gpus.csv, system presets and user system JSON.
 *
 * Expected numbers are the datasheet ones: per-GPU, per-direction link bandwidth in 1e9 B/s
 * (NVLink4 900 GB/s bidirectional -> 450, NDR 400 Gb/s -> 50) and dense tensor peaks. */
#include "aug_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "augur/status.h"
#include "augur/system.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

static char tmp_root[256];
static char created[16][512];
static int n_created;

static int group_setup(void **state) {
    (void)state;
    snprintf(tmp_root, sizeof tmp_root, "/tmp/aug_system_test_XXXXXX");
    return mkdtemp(tmp_root) ? 0 : -1;
}

static int group_teardown(void **state) {
    (void)state;
    for (int i = n_created - 1; i >= 0; i--)
        remove(created[i]);
    rmdir(tmp_root);
    return 0;
}

static const char *write_fixture(const char *name, const char *text) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_root, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    int seen = 0;
    for (int i = 0; i < n_created; i++)
        seen |= strcmp(created[i], path) == 0;
    if (!seen && n_created < 16)
        snprintf(created[n_created++], sizeof created[0], "%s", path);
    return path;
}

static void assert_error_has(const char *needle) {
    const char *msg = aug_last_error();
    if (!strstr(msg, needle))
        fail_msg("error message '%s' lacks '%s'", msg, needle);
}

static struct aug_system load_ok(const char *name) {
    struct aug_system s;
    int st = aug_system_load(KDB, name, &s);
    if (st != AUG_OK)
        fail_msg("loading '%s': %s", name, aug_last_error());
    return s;
}

static void test_dgx_h100(void **state) {
    (void)state;
    struct aug_system s = load_ok("dgx-h100");
    assert_string_equal(s.name, "dgx-h100");
    assert_int_equal(s.gpus_per_node, 8);
    assert_int_equal(s.nvlink_domain, 8);
    assert_near(s.link[AUG_LINK_NVLINK].bw_gbps, 450, 0);   /* 900 GB/s bidirectional */
    assert_near(s.link[AUG_LINK_NETWORK].bw_gbps, 50, 0);   /* 400 Gb/s NDR per GPU */
    assert_near(s.link[AUG_LINK_NVLINK].latency_us, 1.9, 1e-12);
    assert_near(s.link[AUG_LINK_NETWORK].latency_us, 4.0, 1e-12);
    assert_string_equal(s.gpu.id, "h100-80g");
    assert_int_equal(s.gpu.sm_count, 132);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16], 989.4, 1e-9);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_FP16], 989.4, 1e-9);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_FP8], 1978.9, 1e-9);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_TF32], 494.7, 1e-9);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_FP32], 67, 1e-9);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_INT4], 0, 0); /* no INT4 tensor path on Hopper */
    assert_near(s.gpu.vector_tflops, 67, 1e-9);
    assert_near(s.gpu.hbm_gbps, 3350, 0);
    assert_near(s.gpu.hbm_gib, 81559.0 / 1024, 1e-4); /* nvidia-smi memory.total */
    assert_near(s.gpu.launch_us, 4, 0);
    assert_non_null(strstr(s.source, "DGX H100"));
}

static void test_other_presets(void **state) {
    (void)state;
    struct aug_system s = load_ok("dgx-a100-80g");
    assert_near(s.link[AUG_LINK_NVLINK].bw_gbps, 300, 0); /* NVLink3 600 bidirectional */
    assert_near(s.link[AUG_LINK_NETWORK].bw_gbps, 25, 0); /* HDR 200 Gb/s */
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16], 312, 0);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_INT8], 624, 0);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_INT4], 1248, 0);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_FP8], 0, 0); /* Ampere has no FP8 */
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_FP32], 19.5, 1e-12);
    assert_near(s.gpu.hbm_gib, 80, 0);
    assert_near(s.gpu.hbm_gbps, 2039, 0);
    s = load_ok("dgx-a100-40g");
    assert_near(s.gpu.hbm_gib, 40, 0);
    assert_near(s.gpu.hbm_gbps, 1555, 0);
    s = load_ok("dgx-h200");
    assert_near(s.gpu.hbm_gbps, 4800, 0);
    assert_near(s.gpu.hbm_gib, 143771.0 / 1024, 1e-4);
    assert_near(s.link[AUG_LINK_NVLINK].bw_gbps, 450, 0);
    s = load_ok("dgx-b200");
    assert_near(s.link[AUG_LINK_NVLINK].bw_gbps, 900, 0); /* NVLink5 1.8 TB/s */
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16], 2250, 0);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_FP8], 4500, 0);
    assert_near(s.gpu.hbm_gbps, 8000, 0);
    s = load_ok("hgx-h800");
    assert_near(s.link[AUG_LINK_NVLINK].bw_gbps, 200, 0); /* 400 GB/s bidirectional */
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16], 989.4, 1e-9);
    s = load_ok("gb200-nvl72");
    assert_int_equal(s.gpus_per_node, 4);
    assert_int_equal(s.nvlink_domain, 72);
    assert_near(s.link[AUG_LINK_NVLINK].bw_gbps, 900, 0);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16], 2500, 0);
    /* Grace hosts: dgxc-benchmarking v25.10 cpu_overhead, us per torch.matmul call over
     * sizes 4..512: GB200 116.4 / 8, H100 61.3 / 8; 116.4 / 61.3 = 1.899 */
    assert_near(aug_system_host_issue_scale(&s), 1.9, 0);
    s = load_ok("dgx-b200"); /* an x86 DGX host: 61.2 / 8 us, as H100's */
    assert_near(aug_system_host_issue_scale(&s), 1.0, 0);
    /* ridge point of H100 bf16: 989.4 TFLOP/s over 3.35 TB/s = 295 FLOP/byte */
    s = load_ok("DGX-H100");
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16] * 1e12 / (s.gpu.hbm_gbps * 1e9), 295.34,
                0.01);
}

struct seen {
    int n, short_source;
    char names[16][64];
};

static void collect(const struct aug_system *s, void *user) {
    struct seen *v = user;
    if (v->n < 16)
        snprintf(v->names[v->n], sizeof v->names[0], "%s", s->name);
    v->n++;
    if (strlen(s->source) < 40 || strlen(s->gpu.source) < 40)
        v->short_source++;
}

static void test_foreach(void **state) {
    (void)state;
    struct seen v = {0};
    int st = aug_system_foreach(KDB, collect, &v);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_int_equal(v.n, 7);
    assert_int_equal(v.short_source, 0);
    static const char *const required[] = {"dgx-a100-40g", "dgx-a100-80g", "dgx-h100",
                                           "dgx-h200",     "dgx-b200",     "hgx-h800",
                                           "gb200-nvl72",  NULL};
    for (const char *const *r = required; *r; r++) {
        int found = 0;
        for (int i = 0; i < v.n; i++)
            found |= strcmp(v.names[i], *r) == 0;
        if (!found)
            fail_msg("required system '%s' is missing", *r);
    }
    struct seen v2 = {0};
    assert_int_equal(aug_system_foreach(NULL, collect, &v2), AUG_OK); /* default kernels-db */
    assert_int_equal(v2.n, 7);
}

static void test_gpu_lookup(void **state) {
    (void)state;
    struct aug_gpu g;
    assert_int_equal(aug_gpu_lookup(KDB, "a100-40g", &g), AUG_OK);
    assert_string_equal(g.name, "A100 SXM4 40GB");
    assert_int_equal(g.sm_count, 108);
    assert_near(g.clock_mhz, 1410, 0);
    assert_near(g.peak_tflops[AUG_DTYPE_TF32], 156, 0);
    assert_near(g.l2_mib, 40, 0);
    assert_near(g.smem_kib_per_sm, 164, 0);
    assert_non_null(strstr(g.source, "A100 Tensor Core GPU Architecture"));
    assert_int_equal(aug_gpu_lookup(NULL, "b200-180g", &g), AUG_OK);
    assert_int_equal(g.sm_count, 148);
    assert_near(g.hbm_gib, 183359.0 / 1024, 1e-4);
    /* compute capability x 10 (CUDA C++ Programming Guide, "Compute Capabilities") */
    assert_int_equal(g.sm_arch, 100);
    assert_int_equal(aug_gpu_lookup(KDB, "h200-141g", &g), AUG_OK);
    assert_int_equal(g.sm_arch, 90);
    assert_int_equal(aug_gpu_lookup(KDB, "t4-16g", &g), AUG_OK);
    assert_int_equal(g.sm_arch, 75);
    assert_int_equal(aug_gpu_lookup(KDB, "h100", &g), AUG_ENOTFOUND);
    assert_error_has("unknown GPU 'h100'");
    assert_error_has("h100-80g");
    assert_int_equal(aug_gpu_lookup(KDB, "", &g), AUG_EUSAGE);
}

static void test_unknown_system(void **state) {
    (void)state;
    struct aug_system s;
    assert_int_equal(aug_system_load(KDB, "dgx-h10", &s), AUG_ENOTFOUND);
    assert_error_has("unknown system 'dgx-h10' (did you mean: dgx-h100");
    assert_int_equal(aug_system_load(KDB, "qqqqzzzz", &s), AUG_ENOTFOUND);
    assert_error_has("augur systems");
}

static const char custom_inline[] =
    "{\n"
    "  \"name\": \"lab-box\",\n"
    "  \"gpu\": {\"gpu_id\": \"x1\", \"sm_count\": 100, \"peak_tflops_fp32\": 50,\n"
    "          \"peak_tflops_tf32\": 400, \"peak_tflops_bf16\": 800, \"peak_tflops_fp16\": 800,\n"
    "          \"peak_tflops_fp8\": 1600, \"peak_tflops_int8\": 1600, \"peak_tflops_int4\": 0,\n"
    "          \"hbm_gib\": 96, \"hbm_gbps\": 4000},\n"
    "  \"gpus_per_node\": 4,\n"
    "  \"nvlink_domain\": 2,\n"
    "  \"nvlink\": {\"bw_gbps\": 100, \"latency_us\": 2.5},\n"
    "  \"network\": {\"bw_gbps\": 12.5, \"latency_us\": 6}\n"
    "}\n";

static void test_custom_system_inline_gpu(void **state) {
    (void)state;
    const char *path = write_fixture("lab.json", custom_inline);
    struct aug_system s;
    int st = aug_system_load(KDB, path, &s);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_string_equal(s.name, "lab-box");
    assert_string_equal(s.gpu.id, "x1");
    assert_string_equal(s.gpu.name, "x1"); /* name defaults to the id */
    assert_int_equal(s.gpus_per_node, 4);
    assert_int_equal(s.nvlink_domain, 2); /* NVLink in pairs */
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16], 800, 0);
    assert_near(s.gpu.vector_tflops, 50, 0); /* defaults to peak fp32 */
    assert_near(s.gpu.launch_us, 4, 0);      /* documented default */
    assert_near(s.link[AUG_LINK_NETWORK].bw_gbps, 12.5, 0);
    assert_near(s.link[AUG_LINK_NETWORK].latency_us, 6, 0);
    assert_non_null(strstr(s.source, "lab.json"));
}

static void test_custom_system_base_gpu(void **state) {
    (void)state;
    const char *text =
        "{\"gpu\": {\"base\": \"h100-80g\", \"gpu_id\": \"h100-2xbw\", \"hbm_gbps\": 6700},"
        " \"gpus_per_node\": 8, \"nvlink\": {\"bw_gbps\": 450, \"latency_us\": 1.9},"
        " \"network\": {\"bw_gbps\": 50, \"latency_us\": 4}}";
    struct aug_system s;
    int st = aug_system_from_json(KDB, "whatif/fast-memory.json", text, &s);
    if (st)
        fail_msg("%s", aug_last_error());
    assert_string_equal(s.name, "fast-memory"); /* from the file name */
    assert_string_equal(s.gpu.id, "h100-2xbw");
    assert_near(s.gpu.hbm_gbps, 6700, 0);
    assert_near(s.gpu.peak_tflops[AUG_DTYPE_BF16], 989.4, 1e-9); /* from the base row */
    assert_int_equal(s.gpu.sm_count, 132);
    assert_int_equal(s.nvlink_domain, 8); /* defaults to gpus_per_node */
    assert_non_null(strstr(s.gpu.source, "base 'h100-80g'"));
}

/* An 8-GPU H100 system JSON with `extra` (members ending in a comma) before its links. */
static int h100_system_with(const char *origin, const char *extra, struct aug_system *s) {
    char text[512];
    snprintf(text, sizeof text,
             "{\"name\": \"x\", \"gpu\": \"h100-80g\", \"gpus_per_node\": 8, %s"
             " \"nvlink\": {\"bw_gbps\": 450, \"latency_us\": 1.9},"
             " \"network\": {\"bw_gbps\": 50, \"latency_us\": 4}}",
             extra);
    return aug_system_from_json(KDB, origin, text, s);
}

static void test_system_errors(void **state) {
    (void)state;
    struct aug_system s;
    const char *unknown_gpu = "{\"name\": \"x\", \"gpu\": \"h100\", \"gpus_per_node\": 8,"
                              " \"nvlink\": {\"bw_gbps\": 450, \"latency_us\": 1.9},"
                              " \"network\": {\"bw_gbps\": 50, \"latency_us\": 4}}";
    assert_int_equal(aug_system_from_json(KDB, "u.json", unknown_gpu, &s), AUG_ENOTFOUND);
    assert_error_has("u.json: system 'x': field 'gpu': unknown GPU 'h100'");
    assert_error_has("did you mean: h100-80g");

    const char *no_gpn = "{\"name\": \"x\", \"gpu\": \"h100-80g\","
                         " \"nvlink\": {\"bw_gbps\": 450, \"latency_us\": 1.9},"
                         " \"network\": {\"bw_gbps\": 50, \"latency_us\": 4}}";
    assert_int_equal(aug_system_from_json(KDB, "g.json", no_gpn, &s), AUG_EDATA);
    assert_error_has("field 'gpus_per_node' is missing");

    const char *zero_bw = "{\"name\": \"x\", \"gpu\": \"h100-80g\", \"gpus_per_node\": 8,"
                          " \"nvlink\": {\"bw_gbps\": 0, \"latency_us\": 1.9},"
                          " \"network\": {\"bw_gbps\": 50, \"latency_us\": 4}}";
    assert_int_equal(aug_system_from_json(KDB, "b.json", zero_bw, &s), AUG_EDATA);
    assert_error_has("nvlink: field 'bw_gbps' must be positive");

    const char *no_net = "{\"name\": \"x\", \"gpu\": \"h100-80g\", \"gpus_per_node\": 8,"
                         " \"nvlink\": {\"bw_gbps\": 450, \"latency_us\": 1.9}}";
    assert_int_equal(aug_system_from_json(KDB, "n.json", no_net, &s), AUG_EDATA);
    assert_error_has("field 'network' is missing");

    assert_int_equal(h100_system_with("d.json", "\"nvlink_domain\": 3,", &s), AUG_EDATA);
    assert_error_has("'nvlink_domain' = 3 must be a multiple or a divisor of gpus_per_node = 8");

    /* "sm_arch": 9 is compute capability 9.0 written without the x 10 */
    const char *cc = "{\"name\": \"x\", \"gpu\": {\"gpu_id\": \"y\", \"sm_count\": 10,"
                     " \"peak_tflops_fp32\": 1, \"peak_tflops_tf32\": 0,"
                     " \"peak_tflops_bf16\": 10, \"peak_tflops_fp16\": 10,"
                     " \"peak_tflops_fp8\": 0, \"peak_tflops_int8\": 0,"
                     " \"peak_tflops_int4\": 0, \"hbm_gib\": 16, \"hbm_gbps\": 500,"
                     " \"sm_arch\": 9},"
                     " \"gpus_per_node\": 1,"
                     " \"nvlink\": {\"bw_gbps\": 1, \"latency_us\": 1},"
                     " \"network\": {\"bw_gbps\": 1, \"latency_us\": 1}}";
    assert_int_equal(aug_system_from_json(KDB, "c.json", cc, &s), AUG_EDATA);
    assert_error_has("field 'sm_arch' = 9: give the compute capability x 10 (90 for 9.0)");

    assert_int_equal(h100_system_with("h.json", "\"host_issue_scale\": 0,", &s), AUG_EDATA);
    assert_error_has("h.json: system 'x': field 'host_issue_scale' must be positive");
    assert_int_equal(h100_system_with("h.json", "\"host_issue_scale\": 250,", &s), AUG_EDATA);
    assert_error_has("field 'host_issue_scale' = 250");
    assert_int_equal(h100_system_with("ok.json", "\"host_issue_scale\": 2.5,", &s), AUG_OK);
    assert_near(aug_system_host_issue_scale(&s), 2.5, 0);
    assert_int_equal(h100_system_with("ok.json", "", &s), AUG_OK); /* absent: an x86 DGX */
    assert_near(aug_system_host_issue_scale(&s), 1.0, 0);

    const char *typo = "{\"name\": \"x\", \"gpu\": \"h100-80g\", \"gpus_per_nod\": 8}";
    assert_int_equal(aug_system_from_json(KDB, "t.json", typo, &s), AUG_EDATA);
    assert_error_has("unknown field 'gpus_per_nod' (did you mean: gpus_per_node");

    const char *inline_missing = "{\"name\": \"x\", \"gpu\": {\"gpu_id\": \"y\", \"sm_count\": 10,"
                                 " \"peak_tflops_fp32\": 1, \"peak_tflops_tf32\": 0,"
                                 " \"peak_tflops_bf16\": 10, \"peak_tflops_fp16\": 10,"
                                 " \"peak_tflops_fp8\": 0, \"peak_tflops_int8\": 0,"
                                 " \"peak_tflops_int4\": 0, \"hbm_gib\": 16},"
                                 " \"gpus_per_node\": 1,"
                                 " \"nvlink\": {\"bw_gbps\": 1, \"latency_us\": 1},"
                                 " \"network\": {\"bw_gbps\": 1, \"latency_us\": 1}}";
    assert_int_equal(aug_system_from_json(KDB, "i.json", inline_missing, &s), AUG_EDATA);
    assert_error_has("i.json: system 'x': gpu: field 'hbm_gbps' is missing");

    const char *bad = "{\n  \"name\": \"x\",\n  \"gpu\": \"h100-80g\"\n  \"gpus_per_node\": 8\n}";
    assert_int_equal(aug_system_from_json(KDB, "sys.json", bad, &s), AUG_EDATA);
    assert_error_has("sys.json:4:");
    assert_error_has("malformed JSON");

    assert_int_equal(aug_system_from_json(KDB, "l.json", "{\"systems\": [{}, {}]}", &s),
                     AUG_EDATA);
    assert_error_has("list of 2 systems");
}

static void test_bad_gpus_csv(void **state) {
    (void)state;
    static const char header[] =
        "gpu_id,name,sm_count,clock_mhz,peak_tflops_fp32,peak_tflops_tf32,peak_tflops_bf16,"
        "peak_tflops_fp16,peak_tflops_fp8,peak_tflops_int8,peak_tflops_int4,vector_tflops,"
        "hbm_gib,hbm_gbps,l2_mib,smem_kib_per_sm,launch_us,source\n";
    char text[2048];
    snprintf(text, sizeof text,
             "# test table\n%s"
             "g1,G one,10,1000,1,2,4,4,0,0,0,1,16,100,1,1,4,src\n"
             "g2,G two,10,1000,1,2,4,4,0,0,0,1,16,-100,1,1,4,src\n"
             "g1,G dup,10,1000,1,2,4,4,0,0,0,1,16,100,1,1,4,src\n",
             header);
    write_fixture("gpus.csv", text);
    struct aug_gpu g;
    assert_int_equal(aug_gpu_lookup(tmp_root, "g2", &g), AUG_EDATA);
    assert_error_has("gpus.csv:5: column 'gpu_id': 'g1' repeats line 3"); /* '#' is line 1 */
    snprintf(text, sizeof text,
             "%s"
             "g1,G one,10,1000,1,2,4,4,0,0,0,1,16,100,1,1,4,src\n"
             "g2,G two,10,1000,1,2,4,4,0,0,0,1,16,-100,1,1,4,src\n",
             header);
    write_fixture("gpus.csv", text);
    assert_int_equal(aug_gpu_lookup(tmp_root, "g1", &g), AUG_OK);
    assert_near(g.peak_tflops[AUG_DTYPE_BF16], 4, 0);
    assert_int_equal(aug_gpu_lookup(tmp_root, "g2", &g), AUG_EDATA);
    assert_error_has("gpus.csv:3");
    assert_error_has("hbm_gbps");
    /* a missing peak column is named */
    write_fixture("gpus.csv", "gpu_id,name,sm_count,peak_tflops_fp32,hbm_gib,hbm_gbps\n"
                              "g1,G,10,1,16,100\n");
    assert_int_equal(aug_gpu_lookup(tmp_root, "g1", &g), AUG_EDATA);
    assert_error_has("peak_tflops_tf32");
    /* absurd values are rejected */
    snprintf(text, sizeof text, "%sg1,G,10,1000,1,2,4,4,0,0,0,1,16,100,1,1,4e9,src\n", header);
    write_fixture("gpus.csv", text);
    assert_int_equal(aug_gpu_lookup(tmp_root, "g1", &g), AUG_EDATA);
    assert_error_has("launch_us");
    assert_error_has("beyond any real GPU");
}

static void test_link_names(void **state) {
    (void)state;
    assert_string_equal(aug_link_name(AUG_LINK_NVLINK), "nvlink");
    assert_string_equal(aug_link_name(AUG_LINK_NETWORK), "network");
    assert_string_equal(aug_link_name(AUG_LINK_COUNT), "unknown");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dgx_h100),
        cmocka_unit_test(test_other_presets),
        cmocka_unit_test(test_foreach),
        cmocka_unit_test(test_gpu_lookup),
        cmocka_unit_test(test_unknown_system),
        cmocka_unit_test(test_custom_system_inline_gpu),
        cmocka_unit_test(test_custom_system_base_gpu),
        cmocka_unit_test(test_system_errors),
        cmocka_unit_test(test_bad_gpus_csv),
        cmocka_unit_test(test_link_names),
    };
    return cmocka_run_group_tests_name("system", tests, group_setup, group_teardown);
}
