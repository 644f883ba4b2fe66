/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_calibrate.c - `augur calibrate`: import measurements, fit curves, write them into
 * kernels-db (curves.csv merged and replaced atomically, the imported samples as raw CSV
 * with provenance), print a fit-quality summary and optionally a --report folder. */
#include "calibrate.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "augur/augur.h"
#include "core/atomic_write.h"
#include "curves_out.h"
#include "device_match.h"
#include "fit.h"
#include "import.h"
#include "report.h"
#include "samples.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: augur calibrate --gpu ID [--import FORMAT] INPUT... [options]\n"
            "\n"
            "Fit efficiency and time curves to measured kernels and store them in\n"
            "<kdb>/<gpu>/curves.csv (rows of refitted groups are replaced, others kept);\n"
            "the imported samples go to <kdb>/<gpu>/raw/<family>.csv.\n"
            "\n"
            "options:\n"
            "  --gpu ID              GPU id (a kernels-db folder and a gpus.csv row)\n"
            "  --import FORMAT       input format (default raw):\n");
    for (int i = 0; i < aug_importer_count(); i++)
        fprintf(f, "                          %-14s %s\n", aug_importer_at(i)->name,
                aug_importer_at(i)->what);
    fprintf(f,
            "  --kdb DIR             kernels-db root (default: the installed or source one)\n"
            "  --output FILE         write the curves here instead ('-': stdout); no raw files\n"
            "  --report DIR          fit-quality table and plots (gnuplot SVG)\n"
            "  --force               keep curves whose cross-validated error is above the limit,\n"
            "                        and import measurements of another GPU than --gpu\n"
            "                        (raw files' gpu_id, nccl-tests Rank lines, NeuSight's\n"
            "                        Device column)\n"
            "  --max-cv-err X        that limit, relative (default %.2f)\n"
            "  --folds K             cross-validation folds (default %d)\n"
            "  --link nvlink|network keep only collectives on that link\n"
            "  --coll NAME           nccl-tests: collective when the file does not say\n"
            "  --ranks N             nccl-tests: group size when the file does not say\n"
            "  --ranks-per-node N    nccl-tests: ranks per node when the file does not say\n"
            "  --source TEXT         prefix of the samples' source column (e.g. repo@commit)\n"
            "  --no-raw              do not write raw/<family>.csv\n"
            "  --help                this text\n"
            "\n"
            "exit status: 0 ok, 1 bad data or a refused curve, 2 usage error\n",
            AUG_FIT_DEFAULT_MAX_CV, AUG_FIT_DEFAULT_FOLDS);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "augur calibrate: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'augur calibrate --help'\n");
    return 2;
}

static int fail(int status)
{
    fprintf(stderr, "augur: calibrate: %s\n", aug_last_error());
    return aug_exit_code(status);
}

static int ensure_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return aug_errorf(AUG_EIO, "cannot create '%s': %s", path, strerror(errno));
    return AUG_OK;
}

struct cal_opts {
    const char *gpu, *import, *kdb, *output, *report, *link, *source;
    int force, no_raw, folds;
    double max_cv;
    struct aug_import_opts io;
};

/* Drop collectives not on the requested link. */
static void filter_link(struct aug_samples *s, const char *link)
{
    size_t j = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct aug_sample *x = &s->v[i];
        if (x->family == AUG_FAMILY_COLLECTIVE && strcmp(aug_sample_link(x), link) != 0)
            continue;
        s->v[j++] = *x;
    }
    s->n = j;
}

/* Does sample x belong to a group refitted (and written) in this run? */
static int refit_group_of(const struct aug_fit_result *r, const struct aug_sample *x)
{
    for (size_t g = 0; g < r->n_groups; g++) {
        const struct aug_fit_group *grp = &r->groups[g];
        if (!aug_fit_group_written(grp) || grp->family != x->family || grp->dtype != x->dtype)
            continue;
        switch (x->family) {
        case AUG_FAMILY_GEMM:
            if (strcmp(aug_gemm_curve_op(x->op), grp->op) == 0)
                return 1;
            break;
        case AUG_FAMILY_ATTENTION: {
            char op[sizeof grp->op];
            if (aug_attn_curve_op(x->op, x->seq_q, x->causal, op, sizeof op) == AUG_OK &&
                strcmp(op, grp->op) == 0 && x->head_dim == grp->head_dim)
                return 1;
            break;
        }
        case AUG_FAMILY_COLLECTIVE:
            if (strcmp(x->op, grp->op) == 0 && x->ranks == grp->ranks &&
                strcmp(aug_sample_link(x), grp->link) == 0)
                return 1;
            break;
        default:
            if (strcmp(x->op, grp->op) == 0)
                return 1;
            break;
        }
    }
    return 0;
}

/* raw/<family>.csv: rows of groups not refitted now are kept, then the new samples. */
static int write_raw(const char *dir, const struct aug_samples *s, const struct aug_fit_result *r,
                     const char *const *prov, size_t n_prov)
{
    for (int fam = 0; fam < AUG_FAMILY_COUNT; fam++) {
        int any = 0;
        for (size_t i = 0; i < s->n && !any; i++)
            any = (int)s->v[i].family == fam;
        if (!any)
            continue;
        size_t cap = strlen(dir) + 32;
        char *path = malloc(cap);
        if (!path)
            return aug_errorf(AUG_ENOMEM, "out of memory");
        snprintf(path, cap, "%s/%s.csv", dir, aug_family_name((enum aug_family)fam));
        struct aug_samples merged;
        aug_samples_init(&merged);
        int rc = AUG_OK;
        /* only "does not exist" means no earlier samples: any other failure to read them
         * would rewrite the file with this run's rows alone */
        FILE *probe = fopen(path, "r");
        struct stat lst;
        if (!probe && (errno != ENOENT || lstat(path, &lst) == 0))
            rc = aug_errorf(AUG_EIO, "cannot read '%s': %s (its samples would be lost)", path,
                            strerror(errno));
        if (probe) {
            fclose(probe);
            struct aug_samples old;
            aug_samples_init(&old);
            rc = aug_samples_load_raw(path, &old);
            for (size_t i = 0; rc == AUG_OK && i < old.n; i++) {
                struct aug_sample x = old.v[i];
                if (refit_group_of(r, &x))
                    continue;
                x.file = aug_samples_file(&merged, old.files[old.v[i].file]);
                x.source = aug_samples_source(&merged, old.sources[old.v[i].source]);
                if (x.file < 0 || x.source < 0)
                    rc = AUG_ENOMEM;
                else
                    rc = aug_samples_add(&merged, &x);
            }
            for (size_t i = 0; rc == AUG_OK && i < old.n_prov; i++)
                rc = aug_samples_prov(&merged, old.prov[i]);
            aug_samples_free(&old);
        }
        for (size_t i = 0; rc == AUG_OK && i < s->n_prov; i++)
            rc = aug_samples_prov(&merged, s->prov[i]);
        for (size_t i = 0; rc == AUG_OK && i < s->n; i++) {
            struct aug_sample x = s->v[i];
            if ((int)x.family != fam)
                continue;
            x.file = aug_samples_file(&merged, s->files[s->v[i].file]);
            x.source = aug_samples_source(&merged, s->sources[s->v[i].source]);
            if (x.file < 0 || x.source < 0)
                rc = AUG_ENOMEM;
            else
                rc = aug_samples_add(&merged, &x);
        }
        if (rc == AUG_OK)
            rc = aug_samples_write_raw(path, &merged, fam, prov, n_prov);
        aug_samples_free(&merged);
        free(path);
        if (rc != AUG_OK)
            return rc;
    }
    return AUG_OK;
}

static void print_summary(FILE *f, const struct aug_fit_result *r)
{
    fprintf(f, "%-10s %-18s %-5s %5s %-7s %-9s %6s %7s %8s %8s %8s  %s\n", "family", "op",
            "dtype", "ranks", "link", "form", "pieces", "points", "rmse%", "cv%", "median%",
            "verdict");
    for (size_t i = 0; i < r->n_groups; i++) {
        const struct aug_fit_group *g = &r->groups[i];
        char op[40];
        if (g->family == AUG_FAMILY_ATTENTION)
            snprintf(op, sizeof op, "%.24s/d%g", g->op, g->head_dim);
        else
            snprintf(op, sizeof op, "%s", g->op);
        fprintf(f, "%-10s %-18s %-5s %5d %-7s %-9s %6d %7d %8.2f %8.2f %8.2f  %s%s%s\n",
                aug_family_name(g->family), op, aug_dtype_name(g->dtype), g->ranks,
                g->link[0] ? g->link : "-", g->form[0] ? g->form : "-", g->n_curves, g->n_idx,
                100 * g->rel_rmse, 100 * g->cv_rel_err, 100 * g->median_abs_err,
                aug_fit_verdict_name(g->verdict), g->note[0] ? ": " : "", g->note);
    }
}

/* Existing curves of the GPU that this run does not replace, then the new ones. */
static int merged_curves(const struct cal_opts *o, const struct aug_fit_result *r,
                         struct aug_curve **out, size_t *n_out)
{
    struct aug_kdb *old = NULL;
    int n_old = 0;
    if (!o->output) {
        int rc = aug_kdb_open(o->kdb, o->gpu, &old);
        if (rc != AUG_OK)
            return rc;
        n_old = aug_kdb_curve_count(old);
    }
    struct aug_curve *v = calloc((size_t)n_old + r->n_curves + 1, sizeof *v);
    if (!v) {
        aug_kdb_close(old);
        return aug_errorf(AUG_ENOMEM, "out of memory");
    }
    size_t n = 0;
    for (int i = 0; i < n_old; i++) {
        const struct aug_curve *c = aug_kdb_curve_at(old, i);
        int replaced = 0;
        for (size_t g = 0; g < r->n_groups && !replaced; g++) {
            const struct aug_fit_group *grp = &r->groups[g];
            if (aug_fit_group_written(grp) && grp->n_curves > 0)
                replaced = aug_curves_same_group(c, &r->curves[grp->first_curve]);
        }
        if (!replaced)
            v[n++] = *c;
    }
    aug_kdb_close(old);
    for (size_t g = 0; g < r->n_groups; g++) {
        const struct aug_fit_group *grp = &r->groups[g];
        if (!aug_fit_group_written(grp))
            continue;
        for (int i = 0; i < grp->n_curves; i++)
            v[n++] = r->curves[grp->first_curve + i];
    }
    aug_curves_sort(v, n);
    *out = v;
    *n_out = n;
    return AUG_OK;
}

/* The major version of the oldest cuBLAS the inputs' provenance names (augur-profile's
 * "# cublas: 13.1.0"), 0 when none does. cuBLAS 13's Hopper GEMMs size their tiles to the
 * shape (hw/gemm_model.c); one input from an older cuBLAS keeps the fixed tiles. */
static int oldest_cublas_major(const struct aug_samples *s)
{
    int oldest = 0;
    for (size_t i = 0; i < s->n_prov; i++) {
        const char *l = s->prov[i];
        if (strncmp(l, "cublas:", 7) != 0)
            continue;
        l += 7;
        while (*l == ' ')
            l++;
        char *end = NULL;
        long v = strtol(l, &end, 10);
        if (end != l && v > 0 && v < 1000 && (oldest == 0 || v < oldest))
            oldest = (int)v;
    }
    return oldest;
}

static int run(const struct cal_opts *o, char **inputs, int n_inputs)
{
    const struct aug_importer *im = aug_importer_find(o->import);
    struct aug_gpu gpu;
    int have_gpu = aug_gpu_lookup(o->kdb, o->gpu, &gpu) == AUG_OK;
    if (!have_gpu)
        fprintf(stderr, "augur: calibrate: warning: %s; GEMM and attention efficiencies and the "
                "efficiency-above-1 check need the GPU's row in gpus.csv\n", aug_last_error());
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_fit_result r;
    memset(&r, 0, sizeof r);
    struct aug_curve *curves = NULL;
    size_t n_curves = 0;
    int rc = AUG_OK, lock_fd = -1;
    for (int i = 0; i < n_inputs && rc == AUG_OK; i++)
        rc = aug_import_file(im, inputs[i], &o->io, &s);
    if (rc != AUG_OK)
        goto out;
    if (s.device[0]) {
        int m = aug_device_matches_gpu(s.device, o->gpu, have_gpu ? gpu.name : NULL);
        if (m == 0 && !o->force) {
            rc = aug_errorf(AUG_EDATA, "the input was measured on a '%s', which is not GPU '%s'%s%s%s "
                            "(--gpu names the kernels-db folder to write; --force imports "
                            "anyway)", s.device, o->gpu, have_gpu ? " (" : "",
                            have_gpu ? gpu.name : "", have_gpu ? ")" : "");
            goto out;
        }
        if (m != 1)
            fprintf(stderr, "augur: calibrate: warning: the input was measured on a '%s'; "
                    "imported into '%s' %s\n", s.device, o->gpu,
                    m == 0 ? "as --force asks" : "(cannot tell whether that is the same GPU)");
        char dp[200];
        snprintf(dp, sizeof dp, "device: %s", s.device);
        if ((rc = aug_samples_prov(&s, dp)) != AUG_OK)
            goto out;
    }
    if (o->link)
        filter_link(&s, o->link);
    if (s.n == 0) {
        rc = aug_errorf(AUG_EDATA, "no samples to fit%s", o->link ? " on that link" : "");
        goto out;
    }
    struct aug_fit_opts fo;
    aug_fit_opts_default(&fo);
    fo.adaptive_tiles = oldest_cublas_major(&s) >= 13;
    fo.folds = o->folds;
    fo.max_cv_rel_err = o->max_cv;
    fo.force = o->force;
    fo.gpu = have_gpu ? &gpu : NULL;
    if ((rc = aug_fit_samples(&s, &fo, &r)) != AUG_OK)
        goto out;
    for (size_t i = 0; i < r.n_warnings; i++)
        fprintf(stderr, "augur: calibrate: warning: %s\n", r.warnings[i]);
    int to_stdout = o->output && strcmp(o->output, "-") == 0;
    print_summary(to_stdout ? stderr : stdout, &r);

    /* the GPU folder is read, merged and rewritten under an exclusive lock, so that two
     * calibrations into one folder queue instead of losing one run's data */
    if (!o->output) {
        size_t lcap = strlen(o->kdb ? o->kdb : aug_kdb_dir()) + strlen(o->gpu) + 8;
        char *ldir = malloc(lcap);
        if (!ldir) {
            rc = aug_errorf(AUG_ENOMEM, "out of memory");
            goto out;
        }
        snprintf(ldir, lcap, "%s/%s", o->kdb ? o->kdb : aug_kdb_dir(), o->gpu);
        rc = ensure_dir(ldir);
        if (rc == AUG_OK && (lock_fd = aug_dir_lock(ldir)) < 0)
            rc = AUG_EIO;
        free(ldir);
        if (rc != AUG_OK)
            goto out;
    }
    if ((rc = merged_curves(o, &r, &curves, &n_curves)) != AUG_OK)
        goto out;
    char c0[128], c1[160], c2[192];
    snprintf(c0, sizeof c0, "gpu: %s%s%s", o->gpu, have_gpu ? " (" : "",
             have_gpu ? gpu.name : "");
    if (have_gpu)
        snprintf(c0 + strlen(c0), sizeof c0 - strlen(c0), ", %d SMs)", gpu.sm_count);
    snprintf(c1, sizeof c1, "tool: augur calibrate %s (forms in predictor/hw/curve.c, "
             "columns in kernels-db/README.md)", AUG_VERSION_STRING);
    snprintf(c2, sizeof c2, "fit: %d-fold cross-validation, refuse above %.0f%%%s%s", fo.folds,
             100 * fo.max_cv_rel_err, o->force ? " (forced)" : "",
             fo.adaptive_tiles ? "; GEMMs timed with cuBLAS 13 or later: Hopper gemm_tile "
                                 "curves size their tiles to the shape (kernel family 6)" : "");
    const char *comments[] = {c0, c1, c2};

    size_t root_cap = strlen(o->kdb ? o->kdb : aug_kdb_dir()) + strlen(o->gpu) + 32;
    char *dir = malloc(root_cap);
    if (!dir) {
        rc = aug_errorf(AUG_ENOMEM, "out of memory");
        goto out;
    }
    snprintf(dir, root_cap, "%s/%s", o->kdb ? o->kdb : aug_kdb_dir(), o->gpu);
    if (o->output) {
        rc = aug_curves_write(o->output, curves, n_curves, comments, 3, NULL, NULL);
    } else {
        char *path = malloc(root_cap);
        if (!path) {
            free(dir);
            rc = aug_errorf(AUG_ENOMEM, "out of memory");
            goto out;
        }
        rc = ensure_dir(dir);
        /* raw samples first: a crash between the two never leaves curves newer than the
         * data they were fitted on */
        if (rc == AUG_OK && !o->no_raw) {
            snprintf(path, root_cap, "%s/raw", dir);
            rc = ensure_dir(path);
            if (rc == AUG_OK)
                rc = write_raw(path, &s, &r, comments, 2);
        }
        snprintf(path, root_cap, "%s/curves.csv", dir);
        if (rc == AUG_OK)
            rc = aug_curves_write(path, curves, n_curves, comments, 3, NULL, NULL);
        free(path);
    }
    free(dir);
    if (rc != AUG_OK)
        goto out;
    if (o->report) {
        char note[512];
        if ((rc = aug_report_write(o->report, &s, &r, have_gpu ? &gpu : NULL, note,
                                   sizeof note)) != AUG_OK)
            goto out;
        if (note[0])
            fprintf(stderr, "augur: calibrate: %s\n", note);
    }
    int refused = 0, failed = 0;
    for (size_t g = 0; g < r.n_groups; g++) {
        refused += r.groups[g].verdict == AUG_FIT_REFUSED;
        failed += r.groups[g].verdict == AUG_FIT_FAILED;
    }
    if (refused || failed)
        rc = aug_errorf(refused ? AUG_EFIT : AUG_EDATA,
                        "%d group(s) refused (cross-validated error above %.0f%%; --force keeps "
                        "them) and %d could not be fitted; the others were written",
                        refused, 100 * fo.max_cv_rel_err, failed);
out:
    aug_dir_unlock(lock_fd);
    free(curves);
    aug_fit_result_free(&r);
    aug_samples_free(&s);
    return rc;
}

int aug_cmd_calibrate(int argc, char **argv)
{
    enum { O_KDB = 256, O_REPORT, O_FORCE, O_MAXCV, O_FOLDS, O_LINK, O_COLL, O_RANKS, O_RPN,
           O_SOURCE, O_NORAW };
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},     {"import", required_argument, NULL, 'i'},
        {"output", required_argument, NULL, 'o'},  {"kdb", required_argument, NULL, O_KDB},
        {"report", required_argument, NULL, O_REPORT}, {"force", no_argument, NULL, O_FORCE},
        {"max-cv-err", required_argument, NULL, O_MAXCV},
        {"folds", required_argument, NULL, O_FOLDS}, {"link", required_argument, NULL, O_LINK},
        {"coll", required_argument, NULL, O_COLL}, {"ranks", required_argument, NULL, O_RANKS},
        {"ranks-per-node", required_argument, NULL, O_RPN},
        {"source", required_argument, NULL, O_SOURCE}, {"no-raw", no_argument, NULL, O_NORAW},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    struct cal_opts o;
    memset(&o, 0, sizeof o);
    o.import = "raw";
    o.folds = AUG_FIT_DEFAULT_FOLDS;
    o.max_cv = AUG_FIT_DEFAULT_MAX_CV;
    long lv;
    double dv;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":g:i:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': o.gpu = optarg; break;
        case 'i': o.import = optarg; break;
        case 'o': o.output = optarg; break;
        case O_KDB: o.kdb = optarg; break;
        case O_REPORT: o.report = optarg; break;
        case O_FORCE: o.force = 1; break;
        case O_NORAW: o.no_raw = 1; break;
        case O_SOURCE: o.io.source = optarg; break;
        case O_COLL: {
            enum aug_coll cc;
            if (aug_coll_from_name(optarg, &cc) != AUG_OK)
                return usage_error("--coll: unknown collective '%s'", optarg);
            o.io.coll = optarg;
            break;
        }
        case O_LINK:
            if (strcmp(optarg, "nvlink") != 0 && strcmp(optarg, "network") != 0)
                return usage_error("--link: '%s' is not nvlink or network", optarg);
            o.link = optarg;
            break;
        case O_MAXCV:
            if (aug_parse_double(optarg, "--max-cv-err", &dv) != AUG_OK || !(dv > 0) || dv > 10)
                return usage_error("--max-cv-err: '%s' is not a relative error in (0, 10]", optarg);
            o.max_cv = dv;
            break;
        case O_FOLDS:
            if (aug_parse_long(optarg, "--folds", 2, 100, &lv) != AUG_OK)
                return usage_error("--folds: '%s' is not an integer in 2..100", optarg);
            o.folds = (int)lv;
            break;
        case O_RANKS:
        case O_RPN:
            if (aug_parse_long(optarg, c == O_RANKS ? "--ranks" : "--ranks-per-node", 1,
                               1 << 20, &lv) != AUG_OK)
                return usage_error("'%s' is not a positive group size", optarg);
            if (c == O_RANKS)
                o.io.ranks = (int)lv;
            else
                o.io.ranks_per_node = (int)lv;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!o.gpu)
        return usage_error("%s", "--gpu ID is required");
    if (!*o.gpu || strchr(o.gpu, '/'))
        return usage_error("--gpu: '%s' is not a GPU id", o.gpu);
    if (!aug_importer_find(o.import))
        return usage_error("--import: unknown format '%s'", o.import);
    o.io.gpu = o.gpu;
    o.io.force = o.force;
    if (optind >= argc)
        return usage_error("%s", "no INPUT files");
    int rc = run(&o, argv + optind, argc - optind);
    if (rc != AUG_OK)
        return fail(rc);
    return 0;
}
