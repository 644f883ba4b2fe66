/* SPDX-License-Identifier: Apache-2.0 */
/* test_attn_label.c - the `library` / `library_algo` cells and the provenance line of
 * attention rows, through the sweep driver (harness.c, cli.c) and a fake backend whose
 * attention family makes the choice the CUDA backend makes (gpu_attention.c: the probe of
 * libcudnn, its version, the GPU and the engine for each shape, aug_attn_choose, and
 * aug_attn_label). Fused rows are cudnn_sdpa with the engine id and knobs when cuDNN is
 * chosen and augur_flash_fallback with the reason otherwise; unfused rows are cuBLAS.
 *
 * The quick bf16 attention grid (bench_attention.c) has 70 points: fused_fwd and
 * unfused_fwd x head_dim {64, 128} x causal {0, 1} x seq {256, ..., 16384} (7) = 56, and
 * 7 fused_decode_fwd points per head_dim = 14. Fused rows: 28 + 14 = 42, 21 per head_dim. */
#include "../aug_test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/csvio.h"
#include "augur/status.h"
#include "cli.h"
#include "sdpa_layout.h"

struct fake {
    const char *cudnn;    /* version string the device query reports ("" none) */
    int cudnn_sdpa;       /* what the CUDA backend's query derives from it */
    struct aug_attn_probe probe;
    long no_engine_d;     /* head dimension no cuDNN engine takes (0: none) */
    long runs;
};

static struct fake fk;
static char tmpdir[256];

static int fake_query(void *ctx, struct aug_prof_device *d) {
    struct fake *f = ctx;
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
    d->device_count = 1;
    d->nodes = 1;
    d->cc_major = f->probe.cc_major;
    d->cc_minor = 0;
    d->sm_count = 132;
    d->sm_clock_mhz = 1980;
    d->mem_clock_mhz = 2619;
    d->memory_gib = 79.1;
    snprintf(d->cudnn, sizeof d->cudnn, "%s", f->cudnn);
    d->cudnn_sdpa = f->cudnn_sdpa;
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
    struct fake *f = state;
    f->runs++;
    for (int r = 0; r < cfg->reps; r++)
        out->time_us[r] = 50.0;
    out->n = cfg->reps;
    out->timing = AUG_PROF_TIMING_CUPTI;
    int fused = strcmp(p->op, "unfused_fwd") != 0;
    if (!fused) {
        snprintf(out->impl, sizeof out->impl, "cublas_softmax");
        return AUG_OK;
    }
    struct aug_attn_probe probe = f->probe;
    probe.engine_found = p->head_dim != f->no_engine_d;
    probe.engine_error = "none of 3 engine configs finalized (cudnnBackendFinalize(execution "
                         "plan): CUDNN_STATUS_NOT_SUPPORTED (3000))";
    char why[256];
    struct aug_sdpa_plan_info info = {.version = f->probe.version, .engine = 8, .n_knobs = 2,
                                      .knob_type = {17, 18}, .knob_value = {1, 0},
                                      .workspace = 0, .stats = p->seq_q >= p->seq_kv,
                                      .heur_index = 0};
    int use = aug_attn_choose(&probe, why, sizeof why);
    aug_attn_label(use ? &info : NULL, why, out->impl, sizeof out->impl, out->algo,
                   sizeof out->algo);
    return AUG_OK;
}

static const struct aug_prof_bench_impl fake_impl = {fake_setup, fake_run, fake_teardown};

static void remove_tree(const char *path) {
    struct stat st;
    DIR *d = lstat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (!d) {
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
    snprintf(tmpdir, sizeof tmpdir, "/tmp/augur_attn_label.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    remove_tree(tmpdir);
    return 0;
}

struct counts {
    int rows, cudnn, fallback, cublas, fallback_reason_ok, cudnn_algo_ok, source_ok;
    int provenance;
};

/* Sweep the quick bf16 attention grid with the fake and count the rows by library. */
static void sweep(const char *want_prov, const char *want_reason, const char *want_algo,
                  struct counts *c) {
    struct aug_prof_backend be;
    memset(&be, 0, sizeof be);
    be.name = "fake";
    be.synthetic = 1;
    be.ctx = &fk;
    be.query = fake_query;
    for (int f = 0; f < AUG_FAMILY_COUNT; f++)
        be.impl[f] = &fake_impl;
    be.build_versions = "no GPU libraries (test)";
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/raw", tmpdir);
    remove_tree(dir);
    char *argv[] = {"augur-profile", "--family", "attention", "--dtype", "bf16", "--reps", "3",
                    "--warmup", "0", "--output-dir", dir, "--quiet"};
    assert_int_equal(aug_prof_main((int)(sizeof argv / sizeof argv[0]), argv, &be, NULL), 0);
    snprintf(path, sizeof path, "%s/attention.csv", dir);
    struct aug_csv *t = NULL;
    assert_int_equal(aug_csv_load(path, &t), AUG_OK);
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < aug_csv_comments(t); i++)
        c->provenance += strstr(aug_csv_comment(t, i), want_prov) != NULL;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        const char *lib = aug_csv_cell(t, r, aug_csv_col(t, "library"));
        const char *algo = aug_csv_cell(t, r, aug_csv_col(t, "library_algo"));
        const char *source = aug_csv_cell(t, r, aug_csv_col(t, "source"));
        const char *op = aug_csv_cell(t, r, aug_csv_col(t, "op"));
        char want_source[64];
        snprintf(want_source, sizeof want_source, "augur-profile:%s", lib);
        c->rows++;
        c->source_ok += strcmp(source, want_source) == 0;
        if (strcmp(lib, "cudnn_sdpa") == 0) {
            c->cudnn++;
            c->cudnn_algo_ok += want_algo && strncmp(algo, want_algo, strlen(want_algo)) == 0 &&
                                strcmp(op, "unfused_fwd") != 0;
        } else if (strcmp(lib, "augur_flash_fallback") == 0) {
            c->fallback++;
            static const char head[] = "augur flash-style forward, not a production kernel; "
                                       "cuDNN SDPA not used: ";
            c->fallback_reason_ok += want_reason && strstr(algo, want_reason) != NULL &&
                                     strncmp(algo, head, strlen(head)) == 0;
        } else if (strcmp(lib, "cublas_softmax") == 0 && strcmp(op, "unfused_fwd") == 0) {
            c->cublas++;
        }
    }
    aug_csv_free(t);
}

/* cuDNN 9.19 on an H100; no engine takes head_dim 64 (a stand-in for a shape cuDNN
 * refuses): the 21 fused rows of d=128 are cuDNN's, the 21 of d=64 fall back. */
static void cudnn_chosen_where_an_engine_exists(void **state) {
    (void)state;
    fk.cudnn = "9.19.0";
    fk.cudnn_sdpa = 1;
    fk.probe = (struct aug_attn_probe){.loaded = 1, .version = 91900, .cc_major = 9};
    fk.no_engine_d = 64;
    struct counts c;
    sweep("cudnn: 9.19.0; fused attention rows time cuDNN's fused SDPA (library cudnn_sdpa, "
          "engine and knobs in library_algo) where an engine takes the shape",
          "cuDNN 9.19.0 has no engine for this shape: none of 3 engine configs finalized",
          "cudnn=9.19.0 engine=8 knobs=17:1,18:0 heur=A#0 stats=", &c);
    assert_int_equal(c.rows, 70);
    assert_int_equal(c.cudnn, 21);
    assert_int_equal(c.cudnn_algo_ok, 21);
    assert_int_equal(c.fallback, 21);
    assert_int_equal(c.fallback_reason_ok, 21);
    assert_int_equal(c.cublas, 28);
    assert_int_equal(c.source_ok, 70);
    assert_int_equal(c.provenance, 1);
}

/* No libcudnn on the node: every fused row is the fallback, with the loader's reason. */
static void fallback_without_cudnn(void **state) {
    (void)state;
    fk.cudnn = "";
    fk.cudnn_sdpa = 0;
    fk.probe = (struct aug_attn_probe){
        .loaded = 0, .cc_major = 9,
        .load_error = "cannot open libcudnn.so.9 (libcudnn.so.9: cannot open shared object "
                      "file: No such file or directory)"};
    fk.no_engine_d = 0;
    struct counts c;
    sweep("cudnn: not found; fused attention rows time augur's own flash-style kernel (library "
          "augur_flash_fallback, the reason in library_algo), not cuDNN's fused SDPA",
          "cuDNN SDPA not used: cannot open libcudnn.so.9 (libcudnn.so.9: cannot open", NULL, &c);
    assert_int_equal(c.rows, 70);
    assert_int_equal(c.cudnn, 0);
    assert_int_equal(c.fallback, 42);
    assert_int_equal(c.fallback_reason_ok, 42);
    assert_int_equal(c.cublas, 28);
    assert_int_equal(c.provenance, 1);
}

/* cuDNN 8.9 is found but is older than the backend graph this build uses. */
static void fallback_with_old_cudnn(void **state) {
    (void)state;
    fk.cudnn = "8.9.7";
    fk.cudnn_sdpa = 0;
    fk.probe = (struct aug_attn_probe){.loaded = 1, .version = 8907, .cc_major = 8};
    fk.no_engine_d = 0;
    struct counts c;
    sweep("cudnn: 8.9.7; fused attention rows time augur's own flash-style kernel",
          "cuDNN 8.9.7 is older than 9.0", NULL, &c);
    assert_int_equal(c.fallback, 42);
    assert_int_equal(c.fallback_reason_ok, 42);
    assert_int_equal(c.cudnn, 0);
    assert_int_equal(c.provenance, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(cudnn_chosen_where_an_engine_exists, setup, teardown),
        cmocka_unit_test_setup_teardown(fallback_without_cudnn, setup, teardown),
        cmocka_unit_test_setup_teardown(fallback_with_old_cudnn, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
