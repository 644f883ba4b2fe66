/* SPDX-License-Identifier: Apache-2.0 */
/* cli.c - options, help, version and exit codes of augur-profile (see cli.h).
 *
 * getopt_long with coreutils conventions: --help to stdout with exit 0, a bad option or
 * value gives one line plus "Try 'augur-profile --help'" on stderr and exit 2. Every number
 * is parsed strictly (include/augur/units.h). */
#include "cli.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "augur/status.h"
#include "augur/units.h"
#include "bench.h"
#include "gpuid.h"
#include "harness.h"

#define PROG "augur-profile"

enum {
    OPT_QUICK = CHAR_MAX + 1,
    OPT_FULL,
    OPT_GPU_ID,
    OPT_TIMING,
    OPT_MPI,
    OPT_LIMIT,
    OPT_SAVE_EVERY,
    OPT_VERSION,
    OPT_MAX_REPS,
    OPT_MAX_NOISE,
    OPT_BUDGET,
    OPT_WARMUP_TIME,
    OPT_NO_L2_FLUSH,
    OPT_SHAPES,
};

static const struct option long_opts[] = {
    {"family", required_argument, NULL, 'f'},
    {"dtype", required_argument, NULL, 't'},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"full", no_argument, NULL, OPT_FULL},
    {"dry-run", no_argument, NULL, 'n'},
    {"output-dir", required_argument, NULL, 'o'},
    {"gpu-id", required_argument, NULL, OPT_GPU_ID},
    {"reps", required_argument, NULL, 'r'},
    {"warmup", required_argument, NULL, 'w'},
    {"max-reps", required_argument, NULL, OPT_MAX_REPS},
    {"max-noise", required_argument, NULL, OPT_MAX_NOISE},
    {"point-budget", required_argument, NULL, OPT_BUDGET},
    {"warmup-time", required_argument, NULL, OPT_WARMUP_TIME},
    {"no-l2-flush", no_argument, NULL, OPT_NO_L2_FLUSH},
    {"shapes", required_argument, NULL, OPT_SHAPES},
    {"gpus", required_argument, NULL, 'g'},
    {"timing", required_argument, NULL, OPT_TIMING},
    {"mpi", no_argument, NULL, OPT_MPI},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"save-every", required_argument, NULL, OPT_SAVE_EVERY},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out) {
    fprintf(out,
"Usage: " PROG " [OPTION]...\n"
"Measure kernels on this machine's GPUs and write raw kernels-db CSVs for `augur calibrate`.\n"
"\n"
"  -f, --family LIST     gemm, attention, memory, collective (comma list or repeated;\n"
"                        default: all)\n"
"  -t, --dtype LIST      fp32, tf32, bf16, fp16, fp8 (default per family: gemm all five,\n"
"                        attention bf16, memory bf16+fp32, collective bf16)\n"
"      --quick           coarse grids, under 10 minutes on one H100 (default)\n"
"      --full            dense grids for production curves (hours)\n"
"      --shapes FILE     measure the GEMMs FILE lists instead of the GEMM grid: a CSV with\n"
"                        columns m, n, k and optionally dtype, batch and kind, such as\n"
"                        `augur train|infer ... --ops --format csv --output FILE` (rows\n"
"                        of other kinds skipped; dimensions rounded to whole numbers; a\n"
"                        batched GEMM measured as one GEMM of its batch; implies\n"
"                        --family gemm)\n"
"  -n, --dry-run         list the points and the estimated duration; no GPU is used\n"
"  -o, --output-dir DIR  write DIR/<family>.csv (default kernels-db/<gpu-id>/raw)\n"
"      --gpu-id ID       kernels-db id of the GPU (default: from the device name,\n"
"                        \"NVIDIA H100 80GB HBM3\" -> h100-80g)\n"
"  -r, --reps N          timed calls per point, at least (default 20, --full 50)\n"
"      --max-reps N      ... and at most: more are taken while the relative standard\n"
"                        deviation is above --max-noise (default 4 x --reps)\n"
"      --max-noise PCT   stop adding repetitions at this relative standard deviation,\n"
"                        in percent (default 0.5, as nvbench)\n"
"      --point-budget S  stop adding repetitions to a point after S seconds (default 0.5,\n"
"                        --full 5)\n"
"  -w, --warmup N        untimed calls before them, at least (default 5)\n"
"      --warmup-time S   warm up at least S seconds and until two batches agree within\n"
"                        2%% (default 0.02, --full 0.1; 0: by count alone)\n"
"      --no-l2-flush     never flush L2 between timed calls (the hot-cache case); by\n"
"                        default memory-bound, decode attention and decode GEMM points\n"
"                        overwrite a buffer of twice the L2 size before each call\n"
"  -g, --gpus N          local GPUs for collectives (default all; dry run 8)\n"
"      --timing MODE     auto (CUPTI kernel records, CUDA events if CUPTI is unavailable),\n"
"                        cupti or event (default auto)\n"
"      --mpi             one process per node under mpirun: collectives across the\n"
"                        nodes (implies --family collective)\n"
"      --limit N         measure at most N points per family (smoke tests)\n"
"      --save-every N    save the CSV after every N new rows (default 10)\n"
"  -q, --quiet           no progress lines\n"
"  -h, --help            this help\n"
"      --version         version and the CUDA, cuBLAS, CUPTI and NCCL versions built with\n"
"\n"
"Re-running the same command resumes: points already in the output files are skipped.\n"
"A point that fails (out of memory, an NCCL error) is skipped with a message; no number is\n"
"written for it. Exit status: 0 done, 1 failure, 2 usage error, 77 no usable GPU.\n");
}

static int bad_usage(void) {
    fprintf(stderr, PROG ": %s\nTry '" PROG " --help' for more information.\n", aug_last_error());
    return 2;
}

static int parse_families(const char *arg, unsigned *mask) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    int any = 0;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        enum aug_family f;
        if (aug_family_from_name(w, &f) != AUG_OK)
            return aug_errorf(AUG_EUSAGE, "unknown family '%s' (gemm, attention, memory, "
                              "collective)", w);
        *mask |= 1u << (unsigned)f;
        any = 1;
    }
    return any ? AUG_OK : aug_errorf(AUG_EUSAGE, "--family needs at least one name");
}

static int parse_dtypes(const char *arg, unsigned *mask) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    int any = 0;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        enum aug_dtype d;
        if (aug_dtype_from_name(w, &d) != AUG_OK || d == AUG_DTYPE_INT4 || d == AUG_DTYPE_INT8)
            return aug_errorf(AUG_EUSAGE, "unknown dtype '%s' (fp32, tf32, bf16, fp16, fp8)", w);
        *mask |= AUG_PROF_DTYPE_BIT(d);
        any = 1;
    }
    return any ? AUG_OK : aug_errorf(AUG_EUSAGE, "--dtype needs at least one name");
}

static int parse_count(const char *arg, const char *opt, long lo, long hi, long *out) {
    int rc = aug_parse_long(arg, opt, lo, hi, out);
    return rc == AUG_OK ? AUG_OK : AUG_EUSAGE;
}

static int parse_real(const char *arg, const char *opt, double lo, double hi, double *out) {
    double v = 0;
    if (aug_parse_double(arg, opt, &v) != AUG_OK || !(v >= lo && v <= hi))
        return aug_errorf(AUG_EUSAGE, "%s: '%s' is not a number from %g to %g", opt, arg, lo, hi);
    *out = v;
    return AUG_OK;
}

/* NCCL_ALGO / NCCL_PROTO of this run, as recorded in the algo column: "<algo>/<proto>"
 * lowercased ("ring/ll128"), "<algo>" or "any/<proto>" when only one is set, "" when
 * neither is (NCCL's own choice). */
static int nccl_env(char *buf, size_t cap) {
    const char *algo = getenv("NCCL_ALGO"), *proto = getenv("NCCL_PROTO");
    int has_a = algo && *algo, has_p = proto && *proto, n = 0;
    if (has_a && has_p)
        n = snprintf(buf, cap, "%s/%s", algo, proto);
    else if (has_a)
        n = snprintf(buf, cap, "%s", algo);
    else if (has_p)
        n = snprintf(buf, cap, "any/%s", proto);
    else
        buf[0] = '\0';
    if (n < 0 || (size_t)n >= cap) /* never cut short: two settings must not look alike */
        return aug_errorf(AUG_EUSAGE, "NCCL_ALGO / NCCL_PROTO together are longer than %zu "
                          "characters, more than the algo column of augur-profile holds",
                          cap - 1);
    for (char *c = buf; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
        else if (*c == ',' || *c == ' ')
            *c = '+'; /* a list such as "Tree,Ring" stays one CSV cell without quoting */
    return AUG_OK;
}

static void join_args(int argc, char **argv, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && len < cap; i++) {
        int w = snprintf(buf + len, cap - len, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static int prof_main(int argc, char **argv, const struct aug_prof_backend *be,
                     volatile sig_atomic_t *stop, struct aug_prof_gemm_shapes *shapes) {
    struct aug_prof_sweep_cfg cfg;
    const char *shapes_path = NULL;
    struct aug_prof_backend_opts bopts = {AUG_PROF_PREF_AUTO, 0, 0};
    memset(&cfg, 0, sizeof cfg);
    cfg.grid.preset = AUG_PROF_PRESET_QUICK;
    cfg.run.warmup = 5;
    cfg.run.reps = -1;
    cfg.run.max_reps = -1;
    cfg.run.max_noise = 0.005;
    cfg.run.budget_s = -1;
    cfg.run.warmup_s = -1;
    cfg.save_every = 10;
    cfg.tool = PROG " " AUG_VERSION_STRING;
    cfg.log = stderr;
    cfg.stop = stop;
    int dry_run = 0, opt;
    long v;
    aug_clear_error();
    optind = 0; /* full re-initialisation: aug_prof_main may run more than once */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":f:t:no:r:w:g:qh", long_opts, NULL)) != -1) {
        int rc = AUG_OK;
        switch (opt) {
        case 'f': rc = parse_families(optarg, &cfg.families); break;
        case 't': rc = parse_dtypes(optarg, &cfg.grid.dtypes); break;
        case OPT_QUICK: cfg.grid.preset = AUG_PROF_PRESET_QUICK; break;
        case OPT_FULL: cfg.grid.preset = AUG_PROF_PRESET_FULL; break;
        case 'n': dry_run = 1; break;
        case 'o': cfg.output_dir = optarg; break;
        case OPT_GPU_ID: cfg.gpu_id = optarg; break;
        case 'r':
            rc = parse_count(optarg, "--reps", 1, 100000, &v);
            cfg.run.reps = (int)v;
            break;
        case 'w':
            rc = parse_count(optarg, "--warmup", 0, 100000, &v);
            cfg.run.warmup = (int)v;
            break;
        case OPT_MAX_REPS:
            rc = parse_count(optarg, "--max-reps", 1, 100000, &v);
            cfg.run.max_reps = (int)v;
            break;
        case OPT_MAX_NOISE:
            rc = parse_real(optarg, "--max-noise", 0.0, 100.0, &cfg.run.max_noise);
            cfg.run.max_noise /= 100.0;
            break;
        case OPT_BUDGET:
            rc = parse_real(optarg, "--point-budget", 0.0, 3600.0, &cfg.run.budget_s);
            break;
        case OPT_WARMUP_TIME:
            rc = parse_real(optarg, "--warmup-time", 0.0, 60.0, &cfg.run.warmup_s);
            break;
        case OPT_NO_L2_FLUSH: cfg.run.no_l2_flush = 1; break;
        case OPT_SHAPES: shapes_path = optarg; break;
        case 'g':
            rc = parse_count(optarg, "--gpus", 1, 4096, &v);
            cfg.grid.gpus = bopts.gpus = (int)v;
            break;
        case OPT_TIMING:
            if (strcmp(optarg, "auto") == 0)
                bopts.timing = AUG_PROF_PREF_AUTO;
            else if (strcmp(optarg, "cupti") == 0)
                bopts.timing = AUG_PROF_PREF_CUPTI;
            else if (strcmp(optarg, "event") == 0)
                bopts.timing = AUG_PROF_PREF_EVENT;
            else
                rc = aug_errorf(AUG_EUSAGE, "--timing: '%s' is not auto, cupti or event", optarg);
            break;
        case OPT_MPI: bopts.use_mpi = 1; break;
        case OPT_LIMIT:
            rc = parse_count(optarg, "--limit", 1, LONG_MAX, &v);
            cfg.limit = v;
            break;
        case OPT_SAVE_EVERY:
            rc = parse_count(optarg, "--save-every", 1, 1000000, &v);
            cfg.save_every = (int)v;
            break;
        case 'q': cfg.log = NULL; break;
        case 'h':
            usage(stdout);
            return 0;
        case OPT_VERSION:
            printf(PROG " %s\nbuilt with %s\n", AUG_VERSION_STRING,
                   be && be->build_versions ? be->build_versions : "no GPU libraries");
            return 0;
        case ':':
            rc = aug_errorf(AUG_EUSAGE, "option '%s' needs a value", argv[optind - 1]);
            break;
        default:
            rc = aug_errorf(AUG_EUSAGE, "unknown option '%s'", argv[optind - 1]);
            break;
        }
        if (rc != AUG_OK)
            return bad_usage();
    }
    if (optind < argc) {
        aug_errorf(AUG_EUSAGE, "unexpected argument '%s'", argv[optind]);
        return bad_usage();
    }
    if (bopts.use_mpi) {
        /* across nodes only collectives differ from a single-node run */
        if (cfg.families == 0)
            cfg.families = AUG_PROF_FAMILY_BIT(AUG_FAMILY_COLLECTIVE);
        if (cfg.families != AUG_PROF_FAMILY_BIT(AUG_FAMILY_COLLECTIVE)) {
            aug_errorf(AUG_EUSAGE, "--mpi measures collectives only (--family collective)");
            return bad_usage();
        }
    }
    if (shapes_path) {
        /* a shape list is GEMMs: it selects that family, and cannot go with others */
        unsigned gemm = AUG_PROF_FAMILY_BIT(AUG_FAMILY_GEMM);
        if (cfg.families == 0)
            cfg.families = gemm;
        if (cfg.families != gemm) {
            aug_errorf(AUG_EUSAGE, "--shapes lists GEMMs: it goes with --family gemm only");
            return bad_usage();
        }
        int rc = aug_prof_gemm_shapes_load(shapes_path, shapes);
        if (rc != AUG_OK) {
            fprintf(stderr, PROG ": %s\n", aug_last_error());
            return rc == AUG_EIO ? 1 : 2;
        }
        cfg.grid.gemm_shapes = shapes;
        if (cfg.log) {
            char line[1024];
            aug_prof_gemm_shapes_summary(shapes, line, sizeof line);
            fprintf(cfg.log, PROG ": --shapes: %s\n", line);
        }
    }
    int full = cfg.grid.preset == AUG_PROF_PRESET_FULL;
    if (cfg.run.reps < 0)
        cfg.run.reps = full ? 50 : 20;
    if (cfg.run.max_reps < 0)
        cfg.run.max_reps = 4 * cfg.run.reps;
    if (cfg.run.max_reps < cfg.run.reps) {
        aug_errorf(AUG_EUSAGE, "--max-reps %d is below --reps %d", cfg.run.max_reps,
                   cfg.run.reps);
        return bad_usage();
    }
    if (cfg.run.budget_s < 0)
        cfg.run.budget_s = full ? 5.0 : 0.5;
    if (cfg.run.warmup_s < 0)
        cfg.run.warmup_s = full ? 0.1 : 0.02;
    if (cfg.gpu_id && aug_prof_gpu_id_check(cfg.gpu_id) != AUG_OK)
        return bad_usage();
    if (nccl_env(cfg.grid.algo, sizeof cfg.grid.algo) != AUG_OK)
        return bad_usage();
    char command[2048];
    join_args(argc, argv, command, sizeof command);
    cfg.command = command;

    if (dry_run) {
        int rc = aug_prof_sweep_dry_run(be, &cfg, stdout, NULL);
        if (rc != AUG_OK) {
            fprintf(stderr, PROG ": %s\n", aug_last_error());
            return aug_exit_code(rc);
        }
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (!be) {
        fprintf(stderr, PROG ": this build has no GPU backend\n");
        return 77;
    }
    if (be->configure) {
        int rc = be->configure(be->ctx, &bopts);
        if (rc == AUG_EUSAGE)
            return bad_usage();
        if (rc != AUG_OK) {
            fprintf(stderr, PROG ": %s\n", aug_last_error());
            return aug_exit_code(rc);
        }
    }
    struct aug_prof_sweep_report rep;
    int rc = aug_prof_sweep_run(be, &cfg, &rep);
    if (rc == AUG_ENODEV) {
        fprintf(stderr, PROG ": no usable GPU: %s\n", aug_last_error());
        return 77;
    }
    if (rc == AUG_EUSAGE)
        return bad_usage();
    if (rc != AUG_OK) {
        fprintf(stderr, PROG ": %s\n", aug_last_error());
        return 1;
    }
    if (rep.interrupted) {
        fprintf(stderr, PROG ": interrupted; run the same command again to resume\n");
        return 1;
    }
    if (rep.device_lost || rep.families_failed > 0)
        return 1;
    if (rep.measured == 0 && rep.failed > 0)
        return 1;
    return 0;
}

int aug_prof_main(int argc, char **argv, const struct aug_prof_backend *be,
                  volatile sig_atomic_t *stop) {
    struct aug_prof_gemm_shapes shapes;
    memset(&shapes, 0, sizeof shapes);
    int rc = prof_main(argc, argv, be, stop, &shapes);
    aug_prof_gemm_shapes_release(&shapes);
    return rc;
}
