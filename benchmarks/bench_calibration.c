/* SPDX-License-Identifier: Apache-2.0 */
/* bench_calibration.c - accuracy of calibration, measured on the public data in
 * ../shared/external (skipped, exit 77, when absent):
 *  1. the cross-validated error of every seeded curve in kernels-db/<gpu>/curves.csv;
 *  2. GEMM time predicted for Vidur models held out of the fit: leave one model out (fit
 *     every GEMM form on the other models' mlp.csv, predict the held-out one), per GPU;
 *  3. the seeded A100 all-reduce curves (Vidur, fp16 kernel time) against vTrain's
 *     nccl-tests tables (fp32 wall time) at the sizes both cover and above;
 *  4. NeuSight's five PCIe GPUs (fp32, host-timed): curves fitted as kernels-db/regenerate.sh
 *     does (--import neusight, --force) on four fifths of every file's rows (row index mod 5
 *     != 0), the fifth predicted in the host view pre + max(kernel, post)
 *     (predictor/hw/host_time.c) from those curves and from the structural fallback with
 *     no curve, per operator.
 * Usage: bench_calibration [KDB_DIR]   (default: the source tree's kernels-db) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/augur.h"
#include "augur/curve.h"
#include "curves_out.h"
#include "fit.h"
#include "hw/host_time.h"
#include "import.h"

#define EXT AUG_SHARED_DIR "/external"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double pct(double *v, int n, double q) /* v sorted */
{
    if (n <= 0)
        return NAN;
    int i = (int)(q * (n - 1) + 0.5);
    return v[i];
}

static void seeded_curves(const char *kdb, const char *gpu)
{
    struct aug_kdb *k = NULL;
    if (aug_kdb_open(kdb, gpu, &k) != AUG_OK) {
        fprintf(stderr, "bench_calibration: %s\n", aug_last_error());
        return;
    }
    printf("\n## %s: seeded curves (%d rows)\n\n", gpu, aug_kdb_curve_count(k));
    printf("| family | op | dtype | ranks | link | form | x range | points | rel_rmse %% | cv_rel_err %% |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < aug_kdb_curve_count(k); i++) {
        const struct aug_curve *c = aug_kdb_curve_at(k, i);
        printf("| %s | %s | %s | %d | %s | %s | %.3g..%.3g | %d | %.2f | %.2f |\n",
               aug_family_name(c->family), c->op, aug_dtype_name(c->dtype), c->ranks,
               c->link[0] ? c->link : "-", c->form, c->x_min, c->x_max, c->n_points,
               100 * c->rel_rmse, 100 * c->cv_rel_err);
    }
    aug_kdb_close(k);
}

struct model_set {
    char path[32][512];
    int n;
};

static void find_models(const char *gpu_dir, struct model_set *ms)
{
    static const char *const models[] = {
        "Qwen/Qwen-72B", "codellama/CodeLlama-34b-Instruct-hf", "internlm/internlm-20b",
        "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-70b-hf", "meta-llama/Meta-Llama-3-8B",
        "meta-llama/Meta-Llama-3-70B", "microsoft/phi-2"};
    ms->n = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char p[512];
        snprintf(p, sizeof p, EXT "/vidur/data/profiling/compute/%s/%s/mlp.csv", gpu_dir, models[i]);
        FILE *fp = fopen(p, "r");
        if (fp) {
            fclose(fp);
            snprintf(ms->path[ms->n++], sizeof ms->path[0], "%s", p);
        }
    }
}

static const char *model_name(const char *path)
{
    static char buf[128];
    const char *end = strrchr(path, '/');
    const char *b = end;
    while (b > path && b[-1] != '/')
        b--;
    snprintf(buf, sizeof buf, "%.*s", (int)(end - b), b);
    return buf;
}

/* Leave one model out: fit `form` on the GEMMs of the others, predict the held-out. */
static void held_out(const char *gpu_id, const char *gpu_dir, const char *form_name)
{
    struct aug_gpu gpu;
    if (aug_gpu_lookup(NULL, gpu_id, &gpu) != AUG_OK) {
        fprintf(stderr, "bench_calibration: %s\n", aug_last_error());
        return;
    }
    struct model_set ms;
    find_models(gpu_dir, &ms);
    if (ms.n < 2)
        return;
    struct aug_samples s;
    aug_samples_init(&s);
    int *model_of = NULL;
    for (int i = 0; i < ms.n; i++) {
        size_t before = s.n;
        if (aug_import_file(aug_importer_find("vidur-mlp"), ms.path[i], NULL, &s) != AUG_OK) {
            fprintf(stderr, "bench_calibration: %s\n", aug_last_error());
            aug_samples_free(&s);
            free(model_of);
            return;
        }
        model_of = realloc(model_of, sizeof(int) * s.n);
        for (size_t j = before; j < s.n; j++)
            model_of[j] = i;
    }
    const struct aug_curve_form *f = aug_curve_form_find(form_name);
    size_t n = s.n;
    struct aug_curve_point *pt = malloc(sizeof *pt * n), *tp = malloc(sizeof *tp * n);
    double *ty = malloc(sizeof(double) * n), *err = malloc(sizeof(double) * n);
    double *all = malloc(sizeof(double) * n), *yv = malloc(sizeof(double) * n);
    int *mod = malloc(sizeof(int) * n);
    int g = 0;
    for (size_t i = 0; i < n; i++) {
        if (s.v[i].family != AUG_FAMILY_GEMM)
            continue;
        double t, e;
        aug_fit_sample_point(&s.v[i], &gpu, &pt[g], &t, &e);
        yv[g] = f->output == AUG_CURVE_EFF ? e : t;
        mod[g] = model_of[i];
        g++;
    }
    printf("\n## %s: GEMM time on held-out Vidur models, form %s\n\n", gpu_id, form_name);
    printf("| held-out model | points | median abs err %% | p90 abs err %% | mean signed err %% |\n");
    printf("| --- | --- | --- | --- | --- |\n");
    int n_all = 0;
    for (int h = 0; h < ms.n; h++) {
        int m = 0;
        for (int i = 0; i < g; i++)
            if (mod[i] != h) {
                tp[m] = pt[i];
                ty[m] = yv[i];
                m++;
            }
        double p[AUG_CURVE_MAX_PARAMS] = {0};
        if (!aug_fit_fixed_params(f, AUG_DTYPE_FP16, 0, &gpu, 0, p) ||
            aug_fit_form(f, tp, ty, m, p, NULL) != AUG_OK) {
            fprintf(stderr, "bench_calibration: %s\n", aug_last_error());
            continue;
        }
        int k = 0;
        double signed_sum = 0;
        for (int i = 0; i < g; i++) {
            if (mod[i] != h)
                continue;
            struct aug_curve c;
            memset(&c, 0, sizeof c);
            memcpy(c.p, p, sizeof p);
            c.n_params = f->n_params;
            c.x_min = 0;
            c.x_max = INFINITY;
            double pred = aug_curve_value(&c, f, &pt[i]);
            double e = aug_fit_rel_err(f, pred, yv[i]);
            signed_sum += e;
            err[k++] = fabs(e);
            all[n_all++] = fabs(e);
        }
        double med = median(err, k);
        printf("| %s | %d | %.2f | %.2f | %+.2f |\n", model_name(ms.path[h]), k, 100 * med,
               100 * pct(err, k, 0.9), 100 * signed_sum / (k ? k : 1));
    }
    double med = median(all, n_all);
    printf("| **all held-out points** | %d | **%.2f** | %.2f | |\n", n_all, 100 * med,
           100 * pct(all, n_all, 0.9));
    free(pt);
    free(tp);
    free(ty);
    free(err);
    free(all);
    free(yv);
    free(mod);
    free(model_of);
    aug_samples_free(&s);
}

static void vtrain_check(const char *kdb)
{
    struct aug_kdb *k = NULL;
    if (aug_kdb_open(kdb, "a100-80g", &k) != AUG_OK)
        return;
    printf("\n## a100-80g all-reduce curves (Vidur fp16 kernel time) against vTrain nccl-tests "
           "(fp32 wall time)\n\n");
    printf("| ranks | sizes | median (pred / measured - 1) %% | at 64 MiB %% | at 1 GiB %% |\n");
    printf("| --- | --- | --- | --- | --- |\n");
    static const int ranks[] = {2, 4, 8};
    for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++) {
        char p[512];
        snprintf(p, sizeof p, EXT "/vtrain/trace/a100/AR_GPU%d_1M_1024M_LUT", ranks[r]);
        struct aug_samples s;
        aug_samples_init(&s);
        if (aug_import_file(aug_importer_find("nccl-tests"), p, NULL, &s) != AUG_OK) {
            aug_samples_free(&s);
            continue;
        }
        double *e = malloc(sizeof(double) * s.n);
        double e64 = NAN, e1g = NAN;
        int n = 0;
        for (size_t i = 0; i < s.n; i++) {
            double t;
            if (!aug_kdb_collective_time_us(k, AUG_COLL_ALL_REDUCE, s.v[i].size_bytes, ranks[r],
                                            "nvlink", &t))
                continue;
            double d = t / s.v[i].time_us - 1;
            if (s.v[i].size_bytes == 67108864.0)
                e64 = d;
            if (s.v[i].size_bytes == 1073741824.0)
                e1g = d;
            e[n++] = d;
        }
        printf("| %d | 1 MiB..1 GiB (%d) | %+.1f | %+.1f | %+.1f |\n", ranks[r], n,
               100 * median(e, n), 100 * e64, 100 * e1g);
        free(e);
        aug_samples_free(&s);
    }
    aug_kdb_close(k);
}

/* 4. NeuSight: held-out rows of each operator file, curve against fallback (host view). */
#define NS_COLLECT EXT "/neusight/scripts/asplos/data/dataset/train/collect"

static double ns_host_us(const struct aug_op_ctx *ctx, const struct aug_sample *x)
{
    struct aug_op op = x->family == AUG_FAMILY_GEMM
                           ? aug_op_gemm("gemm", x->dtype, x->m, x->n, x->k, x->batch)
                           : aug_op_memory("memory", x->op, x->dtype, x->size_bytes, 0.0);
    struct aug_op_time t;
    if (aug_op_time(ctx, &op, &t) != AUG_OK)
        return NAN;
    double pre, post;
    aug_host_overhead_us(&op, &pre, &post);
    return aug_host_time_s(t.time_s, pre, post) * 1e6;
}

static void neusight_held_out(const char *gpu_id, const char *device)
{
    static const char *const ops[] = {"linear", "bmm", "add", "gelu", "softmax", "ln"};
    enum { N_OPS = 6 };
    struct aug_gpu gpu;
    if (aug_gpu_lookup(NULL, gpu_id, &gpu) != AUG_OK) {
        fprintf(stderr, "bench_calibration: %s\n", aug_last_error());
        return;
    }
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts io = {NULL, 0, 0, NULL, gpu_id, 0};
    size_t first[N_OPS + 1];
    for (int o = 0; o < N_OPS; o++) {
        char p[512];
        snprintf(p, sizeof p, NS_COLLECT "/%s/p2.1.0/%s.csv", ops[o], device);
        first[o] = s.n;
        if (aug_import_file(aug_importer_find("neusight"), p, &io, &s) != AUG_OK) {
            fprintf(stderr, "bench_calibration: %s\n", aug_last_error());
            aug_samples_free(&s);
            return;
        }
    }
    first[N_OPS] = s.n;
    /* held out: data rows 0, 5, 10, ... of every file (line 2 is row 0) */
    struct aug_sample *test = malloc(sizeof *test * (s.n ? s.n : 1));
    int *test_op = malloc(sizeof(int) * (s.n ? s.n : 1));
    size_t n_test = 0, n_train = 0;
    for (int o = 0; o < N_OPS; o++)
        for (size_t i = first[o]; i < first[o + 1]; i++) {
            if ((s.v[i].line - 2) % 5 == 0) {
                test_op[n_test] = o;
                test[n_test++] = s.v[i];
            } else {
                s.v[n_train++] = s.v[i];
            }
        }
    s.n = n_train;
    struct aug_fit_opts fo;
    aug_fit_opts_default(&fo);
    fo.force = 1;
    fo.gpu = &gpu;
    struct aug_fit_result r;
    memset(&r, 0, sizeof r);
    char dir[] = "/tmp/augur-bench-ns-XXXXXX", sub[600], path[700];
    struct aug_kdb *kdb = NULL;
    int ok = aug_fit_samples(&s, &fo, &r) == AUG_OK && mkdtemp(dir) != NULL;
    snprintf(sub, sizeof sub, "%s/%s", dir, gpu_id);
    snprintf(path, sizeof path, "%s/curves.csv", sub);
    if (ok) {
        struct aug_curve *c = malloc(sizeof *c * (r.n_curves ? r.n_curves : 1));
        size_t nc = 0;
        for (size_t g = 0; c && g < r.n_groups; g++)
            for (int i = 0; aug_fit_group_written(&r.groups[g]) && i < r.groups[g].n_curves; i++)
                c[nc++] = r.curves[r.groups[g].first_curve + i];
        ok = c && mkdir(sub, 0700) == 0 && aug_curves_write(path, c, nc, NULL, 0, NULL, NULL) == AUG_OK &&
             aug_kdb_open(dir, gpu_id, &kdb) == AUG_OK;
        free(c);
    }
    if (!ok) {
        fprintf(stderr, "bench_calibration: %s: %s\n", gpu_id, aug_last_error());
    } else {
        struct aug_system sys;
        memset(&sys, 0, sizeof sys);
        sys.gpu = gpu;
        struct aug_op_ctx with = {&sys, kdb, 0}, without = {&sys, NULL, 0};
        printf("| %s | fit (4/5) |", gpu_id);
        for (size_t g = 0; g < r.n_groups; g++)
            printf(" %s %s %.1f%%%s", r.groups[g].op, r.groups[g].form,
                   100 * r.groups[g].cv_rel_err, g + 1 < r.n_groups ? ";" : "");
        printf(" |\n");
        double *ec = malloc(sizeof(double) * (n_test ? n_test : 1));
        double *ef = malloc(sizeof(double) * (n_test ? n_test : 1));
        for (int o = 0; ec && ef && o < N_OPS; o++) {
            int n = 0;
            for (size_t i = 0; i < n_test; i++) {
                if (test_op[i] != o)
                    continue;
                double c = ns_host_us(&with, &test[i]), f = ns_host_us(&without, &test[i]);
                if (!isfinite(c) || !isfinite(f))
                    continue;
                ec[n] = fabs(c / test[i].time_us - 1);
                ef[n] = fabs(f / test[i].time_us - 1);
                n++;
            }
            printf("| %s | %s (%d held out) | curve %.1f%%, fallback %.1f%% |\n", gpu_id, ops[o],
                   n, 100 * median(ec, n), 100 * median(ef, n));
        }
        free(ec);
        free(ef);
    }
    aug_kdb_close(kdb);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
    aug_fit_result_free(&r);
    free(test);
    free(test_op);
    aug_samples_free(&s);
}

static void neusight_all(void)
{
    static const char *const gpus[][2] = {{"a100-pcie-40g", "NVIDIA A100-PCIE-40GB"},
                                          {"v100-pcie-32g", "Tesla V100-PCIE-32GB"},
                                          {"t4-16g", "Tesla T4"},
                                          {"p100-pcie-16g", "Tesla P100-PCIE-16GB"},
                                          {"p4-8g", "Tesla P4"}};
    FILE *probe = fopen(NS_COLLECT "/add/p2.1.0/Tesla T4.csv", "r");
    if (!probe) {
        fprintf(stderr, "bench_calibration: NeuSight data absent: its check skipped\n");
        return;
    }
    fclose(probe);
    printf("\n## NeuSight, fp32, host view: held-out rows (row mod 5 = 0), median |pred / "
           "measured - 1|\n\n");
    printf("| GPU | operator | curve (fitted on the other rows) and structural fallback |\n");
    printf("| --- | --- | --- |\n");
    for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
        neusight_held_out(gpus[g][0], gpus[g][1]);
}

int main(int argc, char **argv)
{
    const char *kdb = argc > 1 ? argv[1] : aug_kdb_dir();
    FILE *probe = fopen(EXT "/PROVENANCE.md", "r");
    printf("# augur calibration accuracy\n\nkernels-db: %s\n", kdb);
    seeded_curves(kdb, "a100-80g");
    seeded_curves(kdb, "h100-80g");
    static const char *const ns_gpus[] = {"a100-pcie-40g", "v100-pcie-32g", "t4-16g",
                                          "p100-pcie-16g", "p4-8g"};
    for (size_t i = 0; i < sizeof ns_gpus / sizeof ns_gpus[0]; i++)
        seeded_curves(kdb, ns_gpus[i]);
    if (!probe) {
        fprintf(stderr, "bench_calibration: %s absent: held-out and vTrain checks skipped\n", EXT);
        return 77;
    }
    fclose(probe);
    held_out("a100-80g", "a100", "gemm_tile");
    held_out("h100-80g", "h100", "gemm_tile");
    held_out("a100-80g", "a100", "gemm_roof");
    held_out("h100-80g", "h100", "gemm_roof");
    held_out("a100-80g", "a100", "gemm_time");
    held_out("a100-80g", "a100", "gemm_sat");
    vtrain_check(kdb);
    neusight_all();
    return 0;
}
