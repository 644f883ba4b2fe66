/* SPDX-License-Identifier: Apache-2.0 */
/* test_reliability.c - hostile inputs and failing disks: nothing from a file reaches a
 * shell, nothing unreadable is taken for absent, no non-finite number is printed, no
 * product of plan degrees overflows, outputs are replaced whole or not at all, and the
 * number, size, JSON and op-name parsers refuse what they cannot mean. */
#include "aug_cli_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/file.h>

#include "augur/data.h"
#include "augur/model.h"
#include "augur/plan.h"
#include "augur/status.h"
#include "augur/system.h"
#include "augur/train.h"
#include "augur/infer.h"
#include "augur/kdb.h"
#include "augur/units.h"
#include "calibrate.h"
#include "core/atomic_write.h"
#include "core/jsonutil.h"
#include "model/layer_graph.h"

static int setup(void **state) {
    (void)state;
    return aug_cli_run_setup("aug_rel_");
}

static int teardown(void **state) {
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/kdb '%s'/*.json '%s'/*.csv '%s'/*.txt '%s'/*.svg",
             tmp_root, tmp_root, tmp_root, tmp_root, tmp_root);
    int rc = system(cmd);
    aug_cli_run_teardown(NULL, 0);
    return rc == 0 ? 0 : -1;
}

static void put(const char *name, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_root, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int exists(const char *name) {
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", tmp_root, name);
    return lstat(path, &st) == 0;
}

static void slurp_file(const char *name, char *buf, size_t cap) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_root, name);
    read_into(path, buf, cap);
}

/* A Llama-2-7B shape (Touvron et al. 2023, Table 1) under a name that tries both gnuplot
 * injections: a double quote that ends the title and a `backquoted` command. */
static void test_plot_name_runs_nothing(void **state) {
    (void)state;
    char json[1024], model[256], svg[256], cwd[512];
    snprintf(json, sizeof json,
             "{\"name\": \"x\\\"; system \\\"touch PWN1\\\"; y=\\\"`touch PWN2`'\","
             " \"arch\": \"dense\", \"layers\": 32, \"hidden\": 4096, \"heads\": 32, "
             "\"kv_heads\": 32, \"head_dim\": 128, \"ffn_hidden\": 11008, \"vocab\": 32000, "
             "\"max_seq\": 4096, \"mlp\": \"swiglu\", \"norm\": \"rmsnorm\", \"pos\": \"rope\", "
             "\"source\": \"test\"}");
    put("evil.json", json);
    snprintf(model, sizeof model, "%s/evil.json", tmp_root);
    snprintf(svg, sizeof svg, "%s/front.svg", tmp_root);
    /* gnuplot and anything it would run start in the scratch folder */
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(tmp_root), 0);
    int rc = RUN("sweep", "train", "--model", model, "--system", "dgx-a100-80g", "--gpus", "8",
                 "--global-batch", "16", "--top", "2", "--plot", svg);
    assert_int_equal(chdir(cwd), 0);
    assert_false(exists("PWN1"));
    assert_false(exists("PWN2"));
    if (strstr(err_buf, "gnuplot is not installed"))
        return;
    expect_exit(rc, 0);
    slurp_file("front.svg", out_buf, sizeof out_buf);
    assert_non_null(strstr(out_buf, "<svg"));
    /* the quote, the semicolons' neighbours and the backquotes were replaced, not run */
    assert_non_null(strstr(out_buf, "x?; system ?touch"));
    assert_false(exists("front.svg.tmp.0")); /* never a temporary named after pid 0 */
}

/* curves.csv that is a link to itself cannot be opened (ELOOP): that is an error naming
 * the file, not a GPU without curves. */
static void test_kdb_unreadable_is_not_absent(void **state) {
    (void)state;
    char dir[256], link[300];
    snprintf(dir, sizeof dir, "%s/gpu-x", tmp_root);
    assert_int_equal(mkdir(dir, 0755), 0);
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(tmp_root, "gpu-x", &k), AUG_OK); /* absent: empty */
    assert_int_equal(aug_kdb_curve_count(k), 0);
    aug_kdb_close(k);
    snprintf(link, sizeof link, "%s/curves.csv", dir);
    assert_int_equal(symlink(link, link), 0);
    k = NULL;
    assert_int_equal(aug_kdb_open(tmp_root, "gpu-x", &k), AUG_EIO);
    assert_null(k);
    assert_non_null(strstr(aug_last_error(), "curves.csv"));
    remove(link);
    assert_int_equal(symlink("/nonexistent/curves.csv", link), 0); /* dangling */
    assert_int_equal(aug_kdb_open(tmp_root, "gpu-x", &k), AUG_EIO);
    remove(link);
    rmdir(dir);
}

/* nccl-tests text of an 8-GPU all-reduce, t = 20 us + S / 150 GB/s (bus bandwidth). */
static void write_nccl(const char *name) {
    char buf[8192];
    size_t n = (size_t)snprintf(buf, sizeof buf,
        "# nThread 1 nGpus 8 minBytes 1024 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "#   (B) (elements)            (us) (GB/s) (GB/s)        (us) (GB/s) (GB/s)\n");
    for (int i = 10; i <= 30; i++) {
        double s = (double)(1L << i), t = 20 + s / 150e3;
        n += (size_t)snprintf(buf + n, sizeof buf - n,
                              "%.0f %.0f float sum -1 %.2f 0 0 0 %.2f 0 0 0\n", s, s / 4,
                              t * 1.002, t * 0.998);
    }
    put(name, buf);
}

/* An existing raw/collective.csv that cannot be read stops calibration with its name:
 * before, it was taken for absent and rewritten with this run's rows only. */
static void test_calibrate_unreadable_raw_is_error(void **state) {
    (void)state;
    char cmd[600], kdb[256], in[256], raw[300], curves[300];
    snprintf(kdb, sizeof kdb, "%s/kdb", tmp_root);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/a100-80g/raw' && cp '%s/kernels-db/gpus.csv' '%s/'",
             kdb, AUG_TEST_SOURCE_DIR, kdb);
    assert_int_equal(system(cmd), 0);
    write_nccl("all_reduce_perf.txt");
    snprintf(in, sizeof in, "%s/all_reduce_perf.txt", tmp_root);
    snprintf(raw, sizeof raw, "%s/a100-80g/raw/collective.csv", kdb);
    snprintf(curves, sizeof curves, "%s/a100-80g/curves.csv", kdb);
    assert_int_equal(symlink(raw, raw), 0);
    const char *a[] = {"calibrate", "--gpu", "a100-80g", "--import", "nccl-tests", "--kdb", kdb, in};
    assert_int_equal(aug_cmd_calibrate(8, (char **)a), 1);
    assert_non_null(strstr(aug_last_error(), "collective.csv"));
    struct stat st;
    assert_int_equal(lstat(raw, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* left as it was */
    assert_int_not_equal(stat(curves, &st), 0); /* no curves newer than their data */
    remove(raw);
    /* readable again: the run succeeds and leaves no temporary behind */
    assert_int_equal(aug_cmd_calibrate(8, (char **)a), 0);
    assert_int_equal(stat(raw, &st), 0);
    assert_int_equal(stat(curves, &st), 0);
    snprintf(cmd, sizeof cmd, "ls '%s/a100-80g' '%s/a100-80g/raw' | grep -c '[.]tmp[.]'", kdb, kdb);
    assert_int_not_equal(system(cmd), 0); /* grep found nothing */
}

/* The GPU folder lock excludes a second holder until released. */
static void test_dir_lock_excludes(void **state) {
    (void)state;
    int fd = aug_dir_lock(tmp_root);
    assert_true(fd >= 0);
    int other = open(tmp_root, O_RDONLY);
    assert_true(other >= 0);
    assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
    assert_int_equal(errno, EWOULDBLOCK);
    aug_dir_unlock(fd);
    assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
    close(other);
}

/* A link bandwidth of zero makes the roofline TP all-reduce take S / 0 = infinite time:
 * the prediction is an error naming the model and the field, never "inf" with exit 0. */
static void test_nonfinite_prediction_is_error(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    assert_int_equal(aug_model_load(NULL, "llama2-7b", &m), AUG_OK);
    assert_int_equal(aug_system_load(NULL, "dgx-a100-80g", &s), AUG_OK);
    s.link[AUG_LINK_NVLINK].bw_gbps = 0;
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.tp = 8;
    p.micro_batch = 1;
    p.global_batch = 8;
    assert_int_equal(aug_plan_resolve(&p, &m, &s), AUG_OK);
    struct aug_train_options opt = {NULL, 1, NULL, 0.0};
    struct aug_train_result r;
    assert_int_equal(aug_train_predict(&m, &s, &p, &opt, &r), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "llama2-7b"));
    assert_non_null(strstr(aug_last_error(), "not a finite number"));

    struct aug_infer_plan ip;
    aug_infer_plan_init(&ip);
    ip.gpus = 8;
    ip.tp = 8;
    ip.batch = 1;
    ip.input_len = 128;
    ip.output_len = 8;
    assert_int_equal(aug_infer_plan_resolve(&ip, &m, &s), AUG_OK);
    struct aug_infer_options iopt = {NULL, 1};
    struct aug_infer_result ir;
    assert_int_equal(aug_infer_predict(&m, &s, &ip, &iopt, &ir), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "not a finite number"));
}

/* tp = pp = cp = 2^20 and dp = 16: tp*pp*cp*dp = 2^64 wraps a 64-bit long to 0, which
 * equalled the "derived" GPU count of 0 and passed. It is refused. */
static void test_plan_product_overflow(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_load(NULL, "llama2-7b", &m), AUG_OK);
    m.heads = m.kv_heads = 1L << 20;
    m.layers = 1L << 20;
    m.max_seq = 1L << 20;
    struct aug_plan p;
    aug_plan_init(&p);
    p.tp = p.pp = p.cp = 1L << 20;
    p.dp = 16;
    p.seq = 1L << 20;
    p.micro_batch = 1;
    p.global_batch = 16;
    assert_int_equal(aug_plan_resolve(&p, &m, NULL), AUG_EUSAGE);
    assert_non_null(strstr(aug_last_error(), "GPUs"));
}

/* --output replaces the old file whole: a stale temporary of a killed run (a pid that
 * cannot exist) is removed, and none of ours is left. */
static void test_output_atomic_and_stale_cleanup(void **state) {
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/r.json", tmp_root);
    put("r.json", "old");
    put("r.json.tmp.2147483646", "left by a killed run");
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-a100-80g", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--format", "json", "--output",
                    out), 0);
    assert_false(exists("r.json.tmp.2147483646"));
    slurp_file("r.json", out_buf, sizeof out_buf);
    assert_non_null(strstr(out_buf, "\"step_time_s\""));
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '[.]tmp[.]'", tmp_root);
    assert_int_not_equal(system(cmd), 0);
}

/* Run augur with stdout on /dev/full: the write fails, which must be said and exit 1. */
static int run_to_dev_full(char *const *args) {
    if (!bin || access(bin, X_OK) != 0)
        skip();
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)bin;
    for (int i = 0; args[i] && n < 15; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/full", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    read_into(err_path, err_buf, sizeof err_buf);
    assert_true(WIFEXITED(ws));
    return WEXITSTATUS(ws);
}

static void test_full_disk_fails(void **state) {
    (void)state;
    struct stat st;
    if (stat("/dev/full", &st) != 0)
        skip();
    assert_int_equal(run_to_dev_full((char *[]){"models", NULL}), 1);
    err_has("No space left");
    assert_int_equal(run_to_dev_full((char *[]){"train", "--model", "llama2-7b", "--system",
                                                "dgx-a100-80g", "--gpus", "8", "--micro-batch",
                                                "1", "--global-batch", "8", NULL}), 1);
    err_has("No space left");
    /* --output on a device is written in place (never renamed over) and fails the same */
    expect_exit(RUN("train", "--model", "llama2-7b", "--system", "dgx-a100-80g", "--gpus", "8",
                    "--micro-batch", "1", "--global-batch", "8", "--output", "/dev/full"), 1);
    err_has("/dev/full");
}

/* /dev/zero never ends: the model reader stops at its limit instead of reading 4 GiB. */
static void test_model_file_size_limit(void **state) {
    (void)state;
    struct aug_model m;
    assert_int_equal(aug_model_load(NULL, "/dev/zero", &m), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "16 MiB"));
    char *text = NULL;
    long len = 0;
    put("big.json", "{\"name\": \"0123456789\"}");
    char path[256];
    snprintf(path, sizeof path, "%s/big.json", tmp_root);
    assert_int_equal(aug_read_file_max(path, 8, &text, &len), AUG_EDATA); /* 22 bytes > 8 */
    assert_int_equal(aug_read_file_max(path, 22, &text, &len), AUG_OK);  /* exactly fits */
    assert_int_equal(len, 22);
    free(text);
}

/* Integers and sizes are decimal and whole; strtod alone reads "0x10" as 16. */
static void test_numbers_refuse_hex_and_fractions(void **state) {
    (void)state;
    long l = 0;
    double d = 0;
    assert_int_equal(aug_parse_long("0x10", "n", 0, 100, &l), AUG_EDATA);
    assert_int_equal(aug_parse_long("8.5", "n", 0, 100, &l), AUG_EDATA);
    assert_int_equal(aug_parse_long("1e1", "n", 0, 100, &l), AUG_OK); /* spreadsheets */
    assert_int_equal(l, 10);
    assert_int_equal(aug_parse_double("0x1p4", "x", &d), AUG_EDATA);
    assert_int_equal(aug_parse_size("0x10", "s", &d), AUG_EDATA);
    assert_int_equal(aug_parse_size("0.5", "s", &d), AUG_EDATA);
    assert_int_equal(aug_parse_size("1.5Ki", "s", &d), AUG_OK); /* 1.5 * 1024 = 1536 bytes */
    assert_true(d == 1536.0);
    assert_int_equal(aug_parse_size("1e30T", "s", &d), AUG_EDATA);
}

/* A memory op nobody measures or models is refused, not timed by the fallback. */
static void test_unknown_memory_op(void **state) {
    (void)state;
    expect_exit(RUN("kernel", "memory", "--gpu", "a100-80g", "--op", "bogus", "--bytes", "1Mi"), 2);
    err_has("unknown memory op 'bogus'");
    expect_exit(RUN("kernel", "memory", "--gpu", "a100-80g", "--op", "rmsnorm", "--bytes", "1Mi"), 0);
}

/* A UTF-8 byte order mark before JSON is skipped, as it is before CSV. */
static void test_json_bom(void **state) {
    (void)state;
    json_t *root = NULL;
    assert_int_equal(aug_json_parse("bom.json", "\xEF\xBB\xBF{\"a\": 1}", &root), AUG_OK);
    assert_int_equal(json_integer_value(json_object_get(root, "a")), 1);
    json_decref(root);
}

/* A --max-mape bar fails when no row has a finite prediction (a NaN MAPE passed every
 * bar); options with a floor also have a ceiling. */
static void test_validate_bar_and_ceilings(void **state) {
    (void)state;
    put("sys.json", "{\"name\": \"slow\", \"gpu\": \"a100-80g\", \"gpus_per_node\": 8, "
                    "\"nvlink\": {\"bw_gbps\": 1e-300, \"latency_us\": 1}, "
                    "\"network\": {\"bw_gbps\": 1e-300, \"latency_us\": 1}, \"source\": \"t\"}");
    put("acc.csv", "id,source,model,system,num_gpus,tp,pp,dp,microbatch,global_batch,seq_len,"
                   "dtype,metric,value,unit\n"
                   "r1,test,llama2-7b,sys.json,8,8,1,1,1,8,4096,bf16,step_time_s,1.0,s\n");
    char csv[256];
    snprintf(csv, sizeof csv, "%s/acc.csv", tmp_root);
    int rc = RUN("validate", csv, "--max-mape", "1000");
    assert_int_not_equal(rc, 0);
    expect_exit(RUN("validate", csv, "--max-mape", "1e300"), 2);
    expect_exit(RUN("infer", "--model", "llama2-7b", "--system", "dgx-a100-80g", "--gpus", "1",
                    "--batch", "1", "--input-len", "8", "--output-len", "8", "--launch-us",
                    "1e300"), 2);
    out_has("");
}

/* Mixtral-8x7B (32 layers, h 4096, f 14336 SwiGLU, 8 experts, top-2; Jiang et al. 2024)
 * at capacity factor c = 0.01 drops 1 - c = 99% of the routed token-expert assignments
 * (every expert's load, f for the busiest and (E - f)/(E - 1) for the others, is above c,
 * so sum(load - c) / E = (E - E c) / E). Their expert MLPs, 2 s h f x 3 FLOPs per token
 * and expert, are not computed: model FLOPs drop by 3 (forward + backward) x 32 layers x
 * 2 x 4096 x 4096 x 14336 x 3 x top-2 x 0.99 x 64 sequences, and MFU (238.9% before)
 * stays below 1. */
static void test_mfu_counts_processed_tokens(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    assert_int_equal(aug_model_load(NULL, "mixtral-8x7b", &m), AUG_OK);
    assert_int_equal(aug_system_load(NULL, "dgx-h100", &s), AUG_OK);
    struct aug_train_result r[2];
    for (int i = 0; i < 2; i++) {
        struct aug_plan p;
        aug_plan_init(&p);
        p.gpus = 8;
        p.ep = 8;
        p.micro_batch = 1;
        p.global_batch = 64;
        p.seq = 4096;
        p.moe_capacity_factor = i ? 0.01 : 0.0;
        assert_int_equal(aug_plan_resolve(&p, &m, &s), AUG_OK);
        struct aug_train_options opt = {NULL, 0, NULL, 0.0};
        assert_int_equal(aug_train_predict(&m, &s, &p, &opt, &r[i]), AUG_OK);
    }
    double dropped = 32.0 * 2 * 4096 * 4096 * 14336 * 3 * 2 * 0.99 * 64;
    assert_rel(r[1].model_flops, r[0].model_flops - 3.0 * dropped, 1e-9);
    assert_true(r[1].mfu > 0 && r[1].mfu <= 1.0);
}

/* Llama-3-8B (32 layers, 32 heads of 128, h 4096) at 262,144 tokens with CP 8 and pure
 * roofline: every kernel runs at peak, so HFU can only fall short of 1 by what is not
 * FLOPs. The attention core then dominates: per layer and sequence the full s^2 count is
 * 4 s^2 h = 1.126e15 FLOPs against the causal 2 s (s + 1) h = 5.63e14 a causal kernel does,
 * so counting s^2 gave MFU 156.6%. Model FLOPs count the causal pairs: MFU <= HFU <= 1,
 * and the full-attention count (published MFUs' convention) is larger by exactly
 * 3 x 32 x 2 s (s - 1) h per sequence. */
static void test_mfu_at_long_context_under_roofline(void **state) {
    (void)state;
    struct aug_model m;
    struct aug_system s;
    assert_int_equal(aug_model_load(NULL, "llama3-8b", &m), AUG_OK);
    assert_int_equal(aug_system_load(NULL, "dgx-h100", &s), AUG_OK);
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 8;
    p.cp = 8;
    p.micro_batch = 1;
    p.global_batch = 8;
    p.seq = 262144;
    assert_int_equal(aug_plan_resolve(&p, &m, &s), AUG_OK);
    struct aug_train_options opt = {NULL, 1, NULL, 0.0};
    struct aug_train_result r;
    assert_int_equal(aug_train_predict(&m, &s, &p, &opt, &r), AUG_OK);
    assert_true(r.mfu > 0.5 && r.mfu <= 1.0);
    assert_true(r.hfu >= r.mfu && r.hfu <= 1.0);
    double sq = 262144.0, h = 4096.0;
    double full = aug_model_fwd_flops_full_attention(&m, &p, sq);
    double causal = aug_model_fwd_flops_processed(&m, &p, sq);
    assert_rel(full - causal, 32.0 * 2.0 * sq * (sq - 1.0) * h, 1e-12);
    assert_rel(r.model_flops, 3.0 * 8.0 * causal, 1e-12);
}

/* A name with an escape sequence (ESC [ 2 J clears a terminal) is refused on load: names
 * reach terminals, CSV cells and plot titles. */
static void test_names_without_control_characters(void **state) {
    (void)state;
    struct aug_model m;
    const char *model = "{\"name\": \"x\\u001b[2J\", \"arch\": \"dense\", \"layers\": 2, "
                        "\"hidden\": 64, \"heads\": 2, \"kv_heads\": 2, \"head_dim\": 32, "
                        "\"ffn_hidden\": 256, \"vocab\": 100, \"max_seq\": 128, "
                        "\"mlp\": \"gelu\", \"norm\": \"layernorm\", \"pos\": \"learned\"}";
    assert_int_equal(aug_model_from_json("m.json", model, &m), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "control character"));
    struct aug_system s;
    const char *sys = "{\"name\": \"y\\u0007\", \"gpu\": \"a100-80g\", \"gpus_per_node\": 8, "
                      "\"nvlink\": {\"bw_gbps\": 300, \"latency_us\": 1}, "
                      "\"network\": {\"bw_gbps\": 25, \"latency_us\": 4}}";
    assert_int_equal(aug_system_from_json(NULL, "s.json", sys, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "control character"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_name_runs_nothing),
        cmocka_unit_test(test_kdb_unreadable_is_not_absent),
        cmocka_unit_test(test_calibrate_unreadable_raw_is_error),
        cmocka_unit_test(test_dir_lock_excludes),
        cmocka_unit_test(test_nonfinite_prediction_is_error),
        cmocka_unit_test(test_plan_product_overflow),
        cmocka_unit_test(test_output_atomic_and_stale_cleanup),
        cmocka_unit_test(test_full_disk_fails),
        cmocka_unit_test(test_model_file_size_limit),
        cmocka_unit_test(test_numbers_refuse_hex_and_fractions),
        cmocka_unit_test(test_unknown_memory_op),
        cmocka_unit_test(test_json_bom),
        cmocka_unit_test(test_validate_bar_and_ceilings),
        cmocka_unit_test(test_mfu_counts_processed_tokens),
        cmocka_unit_test(test_mfu_at_long_context_under_roofline),
        cmocka_unit_test(test_names_without_control_characters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
