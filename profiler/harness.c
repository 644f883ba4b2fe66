/* SPDX-License-Identifier: Apache-2.0 */
/* harness.c - the sweep driver (see harness.h): points -> backend -> statistics -> raw CSV.
 *
 * Per family: build the grid, open <dir>/<family>.csv (resume), set the family up, then for
 * every point not yet present: check the device supports it, measure it, summarize the
 * repetitions and append a row. A failing point is reported and skipped; a lost device
 * stops the sweep; rows are saved atomically every few points and at the end, so an
 * interruption loses at most the last few measurements. */
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "augur/status.h"
#include "gpuid.h"
#include "measure.h"
#include "rawcsv.h"
#include "stats.h"

#define N_PROV 32
#define PROV_LEN 512

static void logf_(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(FILE *log, const char *fmt, ...) {
    if (!log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("augur-profile: ", log);
    vfprintf(log, fmt, ap);
    va_end(ap);
    fputc('\n', log);
    fflush(log);
}

/* The kernel CUPTI timed goes into `library_algo` beside the library's own description
 * ("heuristic#0 ... kernel=nvjet_..."): a heuristic's tile and split say what it chose,
 * the kernel's name what ran. Cut at the column's length. */
static void append_kernel(struct aug_prof_measure *m) {
    if (!m->kernel[0])
        return;
    size_t used = strnlen(m->algo, sizeof m->algo);
    if (used + 1 >= sizeof m->algo)
        return;
    snprintf(m->algo + used, sizeof m->algo - used, "%skernel=%s", used ? " " : "", m->kernel);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fmt_duration(double s, char *buf, size_t cap) {
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
    else if (t >= 60)
        snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, cap, "%.1fs", s);
}

double aug_prof_point_estimate_s(const struct aug_prof_point *p, const struct aug_prof_run_cfg *cfg) {
    const struct aug_prof_bench *b = aug_prof_bench_get(p->family);
    if (!b)
        return 0.0;
    /* warm-up: its calls, then (warm-up by time) at least two batches of max(3, reps)
     * calls and at least warmup_s (measure.c); timed calls: the minimum count */
    double t = b->estimate_us(p) * 1e-6;
    double batches = cfg->warmup_s > 0 ? 2.0 * t * (cfg->reps > 3 ? cfg->reps : 3) : 0.0;
    double warm = batches > cfg->warmup_s ? batches : cfg->warmup_s;
    return t * (double)(cfg->warmup + cfg->reps) + warm + b->per_point_s;
}

int aug_prof_output_path(const char *dir, enum aug_family f, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "%s/%s.csv", dir, aug_family_name(f));
    if (n < 0 || (size_t)n >= cap)
        return aug_errorf(AUG_EUSAGE, "output path '%s/%s.csv' is too long", dir,
                          aug_family_name(f));
    return AUG_OK;
}

static int has_kdb_component(const char *path) {
    const char *s = path;
    while (*s) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        if ((size_t)(e - s) == strlen("kernels-db") && strncmp(s, "kernels-db", 10) == 0)
            return 1;
        s = e;
    }
    return 0;
}

int aug_prof_path_in_kdb(const char *path) {
    if (has_kdb_component(path))
        return 1;
    char resolved[PATH_MAX];
    if (realpath(path, resolved) && has_kdb_component(resolved))
        return 1;
    return 0;
}

/* mkdir -p */
static int make_dirs(const char *dir) {
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s", dir);
    if (n < 0 || (size_t)n >= sizeof buf)
        return aug_errorf(AUG_EUSAGE, "output folder '%s' is too long", dir);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return aug_errorf(AUG_EIO, "cannot create folder '%s': %s", buf, strerror(errno));
            *p = c;
            if (c == '\0')
                break;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return aug_errorf(AUG_EIO, "'%s' is not a folder", dir);
    return AUG_OK;
}

static int resolve_dir(const struct aug_prof_sweep_cfg *cfg, const char *gpu_id, char *buf,
                       size_t cap) {
    int n = cfg->output_dir ? snprintf(buf, cap, "%s", cfg->output_dir)
                            : snprintf(buf, cap, "kernels-db/%s/raw", gpu_id);
    if (n < 0 || (size_t)n >= cap)
        return aug_errorf(AUG_EUSAGE, "output folder name is too long");
    return AUG_OK;
}

/* Provenance lines of one family's file. */
static size_t provenance(const struct aug_prof_backend *be, const struct aug_prof_device *d,
                         const char *gpu_id, enum aug_family f,
                         const struct aug_prof_sweep_cfg *cfg, char lines[N_PROV][PROV_LEN]) {
    size_t n = 0;
    char date[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
#define LINE(...) snprintf(lines[n++], PROV_LEN, __VA_ARGS__)
    const struct aug_prof_gemm_shapes *listed =
        f == AUG_FAMILY_GEMM ? cfg->grid.gemm_shapes : NULL;
    LINE("augur raw kernel measurements: family %s, preset %s", aug_family_name(f),
         listed ? "shapes" : aug_prof_preset_name(cfg->grid.preset));
    if (listed) {
        char sum[PROV_LEN - 16];
        aug_prof_gemm_shapes_summary(listed, sum, sizeof sum);
        LINE("shapes: %s", sum);
    }
    LINE("tool: %s", cfg->tool ? cfg->tool : "augur-profile");
    if (cfg->command)
        LINE("command: %s", cfg->command);
    LINE("date: %s", date);
    LINE("gpu_name: %s", d->name);
    LINE("gpu_id: %s", gpu_id);
    LINE("compute_capability: %d.%d", d->cc_major, d->cc_minor);
    LINE("sm_count: %d", d->sm_count);
    LINE("sm_clock_mhz: %.0f", d->sm_clock_mhz);
    LINE("mem_clock_mhz: %.0f", d->mem_clock_mhz);
    LINE("memory_gib: %.2f", d->memory_gib);
    LINE("gpus: %d per node, %d node%s", d->device_count, d->nodes, d->nodes == 1 ? "" : "s");
    LINE("driver: %s", d->driver[0] ? d->driver : "unknown");
    LINE("cuda_driver: %s", d->cuda_driver);
    LINE("cuda_runtime: %s", d->cuda_runtime);
    LINE("cublas: %s", d->cublas);
    LINE("cupti: %s", d->cupti);
    LINE("nccl: %s", d->nccl);
    if (f == AUG_FAMILY_ATTENTION && d->cudnn_sdpa)
        LINE("cudnn: %s; fused attention rows time cuDNN's fused SDPA (library cudnn_sdpa, "
             "engine and knobs in library_algo) where an engine takes the shape, else augur's "
             "own flash-style kernel (library augur_flash_fallback, the reason in "
             "library_algo)", d->cudnn);
    else if (f == AUG_FAMILY_ATTENTION)
        LINE("cudnn: %s; fused attention rows time augur's own flash-style kernel (library "
             "augur_flash_fallback, the reason in library_algo), not cuDNN's fused SDPA",
             d->cudnn[0] ? d->cudnn : "not found");
    LINE("backend: %s", be->name);
    LINE("warmup: %d calls and at least %g s until stable within %g%%; reps: %d to %d, "
         "until the relative standard deviation is at most %g%%%s%s", cfg->run.warmup,
         cfg->run.warmup_s, 100 * AUG_PROF_WARM_TOL, cfg->run.reps,
         aug_prof_run_max_reps(&cfg->run), 100 * cfg->run.max_noise,
         cfg->run.budget_s > 0 ? " or the point's time budget is spent" : "",
         cfg->run.no_l2_flush ? "; L2 never flushed (--no-l2-flush)"
                              : "; L2 flushed before each timed call of memory-bound, decode "
                                "attention and decode GEMM points (l2_flush column): twice its "
                                "size written, then half of that read back, so that no dirty "
                                "line is left for the timed call to write back");
    LINE("units: time_us = GPU time of one call in microseconds (median, min, max over reps); "
         "size_bytes in bytes");
    if (be->synthetic)
        LINE("synthetic: yes, these numbers were not measured on a GPU");
#undef LINE
    return n;
}

struct family_run {
    const struct aug_prof_backend *be;
    const struct aug_prof_sweep_cfg *cfg;
    const struct aug_prof_device *dev;
    struct aug_prof_sweep_report *rep;
    const struct aug_prof_bench *bench;
    struct aug_prof_raw *raw;  /* writer only */
    double *times;
};

static int agree(const struct aug_prof_backend *be, int v) {
    return be->agree ? be->agree(be->ctx, v) : v;
}

/* Warn when the device slowed itself down during a point: the SM clock was below 90% of
 * the device's maximum (whatever the reason), or NVML reported a thermal or hardware
 * slowdown. The power cap alone at a clock within 10% of the maximum is the GPU's normal
 * state under a long kernel and gets no warning (point.h). */
static void warn_throttle(FILE *log, const struct aug_prof_device *dev, const char *fam,
                          const char *desc, const struct aug_prof_clocks *c) {
    if (!c->valid)
        return;
    int thermal = (c->throttle & AUG_PROF_THROTTLE_THERMAL_OR_HW) != 0;
    int slow = dev->sm_clock_mhz > 0 && c->sm_mhz > 0 && c->sm_mhz < 0.9 * dev->sm_clock_mhz;
    if (!thermal && !slow)
        return;
    const char *why = ", thermal or hardware slowdown";
    if (!thermal)
        why = c->throttle & AUG_PROF_THROTTLE_POWER_CAP ? ", at its power cap" : "";
    logf_(log, "%s: warning: %s ran throttled: SM clock %.0f MHz of %.0f, %.0f C, %.0f W%s "
          "(NVML reasons 0x%llx); its time is that of a slowed GPU", fam, desc, c->sm_mhz,
          dev->sm_clock_mhz, c->temp_c, c->power_w, why, c->throttle);
}

/* Measure the todo points of one family. Returns AUG_EIO on a save failure. */
static int measure_family(struct family_run *fr, const struct aug_prof_points *pts,
                          const struct aug_prof_bench_impl *impl, void *state, long todo) {
    const struct aug_prof_sweep_cfg *cfg = fr->cfg;
    struct aug_prof_sweep_report *rep = fr->rep;
    const char *fam = fr->bench->name;
    double est_left = 0.0, est_done = 0.0, t0 = now_s(), last_save = t0;
    long done = 0, since_save = 0, attempted = 0;
    char last_why[256] = "";
    for (size_t i = 0; i < pts->n; i++) {
        const struct aug_prof_point *p = &pts->v[i];
        char why[256];
        if (!(fr->raw && aug_prof_raw_has(fr->raw, p)) &&
            fr->bench->supported(p, fr->dev, why, sizeof why))
            est_left += aug_prof_point_estimate_s(p, &cfg->run);
    }
    for (size_t i = 0; i < pts->n; i++) {
        const struct aug_prof_point *p = &pts->v[i];
        if (cfg->stop && *cfg->stop) {
            rep->interrupted = 1;
            logf_(cfg->log, "%s: interrupted; saving what was measured", fam);
            break;
        }
        int present = agree(fr->be, fr->raw ? aug_prof_raw_has(fr->raw, p) : 0);
        if (present)
            continue;
        char why[256], desc[192];
        if (!fr->bench->supported(p, fr->dev, why, sizeof why)) {
            rep->unsupported++;
            if (strcmp(why, last_why) != 0)
                logf_(cfg->log, "%s: skipping points this GPU cannot run: %s", fam, why);
            snprintf(last_why, sizeof last_why, "%s", why);
            continue;
        }
        if (cfg->limit > 0 && attempted >= cfg->limit)
            break;
        attempted++;
        double est = aug_prof_point_estimate_s(p, &cfg->run);
        est_left -= est;
        est_done += est;
        aug_prof_point_describe(p, desc, sizeof desc);
        struct aug_prof_measure m;
        memset(&m, 0, sizeof m);
        m.time_us = fr->times;
        m.cap = aug_prof_run_max_reps(&cfg->run);
        m.noise = NAN;
        aug_clear_error();
        int rc = impl->run(state, p, &cfg->run, &m);
        if (rc == AUG_OK && (m.n < cfg->run.reps || m.n > m.cap))
            rc = aug_errorf(AUG_EDATA, "the backend timed %d repetitions, not %d to %d", m.n,
                            cfg->run.reps, m.cap);
        struct aug_prof_stats st;
        if (rc == AUG_OK)
            rc = aug_prof_stats_compute(m.time_us, m.n, &st);
        if (rc == AUG_ENODEV) {
            rep->device_lost = 1;
            logf_(cfg->log, "%s: %s: the device is no longer usable (%s); stopping", fam, desc,
                  aug_last_error());
            break;
        }
        if (rc != AUG_OK) {
            rep->failed++;
            logf_(cfg->log, "%s: skipped %s: %s", fam, desc,
                  aug_last_error()[0] ? aug_last_error() : aug_status_str(rc));
            continue;
        }
        append_kernel(&m);
        if (fr->raw) {
            char source[64];
            snprintf(source, sizeof source, "augur-profile:%s", m.impl[0] ? m.impl : fr->be->name);
            rc = aug_prof_raw_add_measure(fr->raw, p, &st, &m, source);
            if (rc != AUG_OK) {
                rep->failed++;
                logf_(cfg->log, "%s: skipped %s: %s", fam, desc, aug_last_error());
                continue;
            }
            since_save++;
        }
        rep->measured++;
        done++;
        double elapsed = now_s() - t0;
        double eta = est_done > 0 ? est_left * (elapsed / est_done) : est_left;
        char eta_s[32];
        fmt_duration(eta > 0 ? eta : 0, eta_s, sizeof eta_s);
        char bw[96] = "";
        if (p->family == AUG_FAMILY_COLLECTIVE) { /* nccl-tests: algbw = S / t, busbw */
            double algbw = p->size_bytes / (st.median_us * 1e3);
            snprintf(bw, sizeof bw, ", algbw %.4g GB/s, busbw %.4g GB/s", algbw,
                     aug_prof_point_bytes(p) / (st.median_us * 1e3));
        }
        logf_(cfg->log, "[%s %ld/%ld] %s: %.4g us (min %.4g, max %.4g, %d reps, %s%s)%s, eta %s",
              fam, done, todo, desc, st.median_us, st.min_us, st.max_us, m.n,
              aug_prof_timing_name(m.timing), m.l2_flush ? ", L2 flushed" : "", bw, eta_s);
        warn_throttle(cfg->log, fr->dev, fam, desc, &m.clocks);
        if (fr->raw && (since_save >= cfg->save_every || now_s() - last_save > 60.0)) {
            if ((rc = aug_prof_raw_save(fr->raw)) != AUG_OK)
                return rc;
            since_save = 0;
            last_save = now_s();
        }
    }
    return AUG_OK;
}

static int run_family(const struct aug_prof_backend *be, const struct aug_prof_sweep_cfg *cfg,
                      const struct aug_prof_device *dev, const char *gpu_id, const char *dir,
                      enum aug_family f, struct aug_prof_sweep_report *rep, double *times) {
    const struct aug_prof_bench *bench = aug_prof_bench_get(f);
    const struct aug_prof_bench_impl *impl = be->impl[f];
    struct family_run fr = {be, cfg, dev, rep, bench, NULL, times};
    struct aug_prof_points pts;
    char path[1200] = "";
    void *state = NULL;
    long todo = 0;
    int rc = AUG_OK, open_rc = AUG_OK;
    if (!impl) {
        logf_(cfg->log, "%s: not available in this build: %s", bench->name,
              be->missing[f] ? be->missing[f] : "no implementation");
        if (cfg->families != 0) /* asked for by name */
            rep->families_failed++;
        return AUG_OK;
    }
    aug_prof_points_init(&pts);
    if ((rc = aug_prof_bench_points(f, &cfg->grid, &pts)) != AUG_OK)
        goto out;
    rep->planned += (long)pts.n;
    if (pts.n == 0) {
        if (f == AUG_FAMILY_COLLECTIVE && cfg->grid.gpus * cfg->grid.nodes < 2)
            logf_(cfg->log, "collective: collectives need at least two GPUs and this run has "
                  "%d: none measured (run on a node with 2 to 8 GPUs, or across nodes with "
                  "mpirun ... --mpi)", cfg->grid.gpus * cfg->grid.nodes);
        else
            logf_(cfg->log, "%s: no points for this selection (dtypes, GPUs)", bench->name);
        goto out;
    }
    if (dev->is_writer) {
        char lines[N_PROV][PROV_LEN];
        const char *prov[N_PROV];
        size_t n = provenance(be, dev, gpu_id, f, cfg, lines);
        for (size_t i = 0; i < n; i++)
            prov[i] = lines[i];
        open_rc = aug_prof_output_path(dir, f, path, sizeof path);
        if (open_rc == AUG_OK)
            open_rc = aug_prof_raw_open(path, prov, n, dev->name, &fr.raw);
        if (open_rc != AUG_OK)
            logf_(cfg->log, "%s: %s", bench->name, aug_last_error());
    }
    if (agree(be, open_rc != AUG_OK)) {
        rc = open_rc != AUG_OK ? open_rc : AUG_EIO;
        rep->families_failed++;
        goto out;
    }
    for (size_t i = 0; i < pts.n; i++) {
        if (agree(be, fr.raw ? aug_prof_raw_has(fr.raw, &pts.v[i]) : 0))
            rep->present++;
        else
            todo++;
    }
    if (fr.raw && aug_prof_raw_loaded(fr.raw))
        logf_(cfg->log, "%s: resuming %s: %zu rows present, %ld of %zu points left", bench->name,
              path, aug_prof_raw_loaded(fr.raw), todo, pts.n);
    if (todo == 0) {
        logf_(cfg->log, "%s: all %zu points already measured", bench->name, pts.n);
        goto out_raw;
    }
    aug_clear_error();
    int setup_rc = impl->setup(be->ctx, &state);
    if (setup_rc != AUG_OK) {
        logf_(cfg->log, "%s: setup failed: %s", bench->name,
              aug_last_error()[0] ? aug_last_error() : aug_status_str(setup_rc));
        rep->families_failed++;
        if (setup_rc == AUG_ENODEV)
            rep->device_lost = 1;
        impl->teardown(state);
        goto out_raw;
    }
    logf_(cfg->log, "%s: measuring %ld points (%d warm-up + %d timed calls each)", bench->name,
          todo, cfg->run.warmup, cfg->run.reps);
    rc = measure_family(&fr, &pts, impl, state, todo);
    impl->teardown(state);
out_raw:
    if (fr.raw) {
        if (aug_prof_raw_rows(fr.raw) > aug_prof_raw_loaded(fr.raw)) {
            int save_rc = aug_prof_raw_save(fr.raw);
            if (save_rc != AUG_OK) {
                logf_(cfg->log, "%s: %s", bench->name, aug_last_error());
                rc = save_rc;
            } else {
                logf_(cfg->log, "%s: wrote %zu rows to %s", bench->name,
                      aug_prof_raw_rows(fr.raw), path);
            }
        }
        aug_prof_raw_close(fr.raw);
    }
out:
    aug_prof_points_release(&pts);
    return rc;
}

int aug_prof_sweep_run(const struct aug_prof_backend *be, const struct aug_prof_sweep_cfg *cfg,
                       struct aug_prof_sweep_report *rep) {
    memset(rep, 0, sizeof *rep);
    if (cfg->run.reps < 1 || cfg->run.warmup < 0)
        return aug_errorf(AUG_EUSAGE, "need at least one timed repetition");
    struct aug_prof_device dev;
    memset(&dev, 0, sizeof dev);
    dev.nodes = 1;
    dev.is_writer = 1;
    int rc = be->query(be->ctx, &dev);
    if (rc != AUG_OK)
        return rc;
    char gpu_id[64];
    if (cfg->gpu_id) {
        if ((rc = aug_prof_gpu_id_check(cfg->gpu_id)) != AUG_OK)
            return rc;
        snprintf(gpu_id, sizeof gpu_id, "%s", cfg->gpu_id);
    } else {
        int known = 0;
        if ((rc = aug_prof_gpu_id(dev.name, gpu_id, sizeof gpu_id, &known)) != AUG_OK)
            return rc;
        if (!known)
            logf_(cfg->log, "'%s' is not one of the GPUs augur knows (kernels-db/gpus.csv): "
                  "its measurements go under the generated id '%s'. Before `augur calibrate "
                  "--gpu %s`, add a row with gpu_id %s to kernels-db/gpus.csv (SM count, clock, "
                  "dense peaks per dtype, HBM size and bandwidth, L2, source: the columns its "
                  "header describes), and the device name to the table in profiler/gpuid.c; or "
                  "pass --gpu-id to use an existing row", dev.name, gpu_id, gpu_id, gpu_id);
    }
    if ((rc = resolve_dir(cfg, gpu_id, rep->out_dir, sizeof rep->out_dir)) != AUG_OK)
        return rc;
    if (be->synthetic && aug_prof_path_in_kdb(rep->out_dir))
        return aug_errorf(AUG_EUSAGE, "the %s backend does not measure a GPU: refusing to write "
                          "into '%s' (a kernels-db folder)", be->name, rep->out_dir);
    if (dev.is_writer) {
        rc = make_dirs(rep->out_dir);
        if (rc == AUG_OK && be->synthetic && aug_prof_path_in_kdb(rep->out_dir))
            rc = aug_errorf(AUG_EUSAGE, "the %s backend does not measure a GPU: refusing to "
                            "write into '%s' (it resolves into a kernels-db folder)", be->name,
                            rep->out_dir);
    }
    if (agree(be, rc != AUG_OK))
        return rc != AUG_OK ? rc : aug_errorf(AUG_EIO, "the writing process cannot use '%s'",
                                              rep->out_dir);
    /* a grid config completed from the device */
    struct aug_prof_sweep_cfg c = *cfg;
    if (c.grid.gpus <= 0 || c.grid.gpus > dev.device_count)
        c.grid.gpus = dev.device_count;
    c.grid.nodes = dev.nodes > 0 ? dev.nodes : 1;
    if (c.save_every <= 0)
        c.save_every = 10;
    logf_(cfg->log, "measuring %s (%s, %d GPU%s%s) into %s", dev.name, gpu_id, dev.device_count,
          dev.device_count == 1 ? "" : "s", dev.nodes > 1 ? ", MPI" : "", rep->out_dir);
    int cap = aug_prof_run_max_reps(&cfg->run);
    double *times = malloc((size_t)cap * sizeof *times);
    if (!times)
        return aug_errorf(AUG_ENOMEM, "out of memory for %d repetitions", cap);
    rc = AUG_OK;
    for (int f = 0; f < AUG_FAMILY_COUNT && rc == AUG_OK; f++) {
        if (c.families && !(c.families & AUG_PROF_FAMILY_BIT(f)))
            continue;
        if (rep->device_lost || rep->interrupted)
            break;
        rc = run_family(be, &c, &dev, gpu_id, rep->out_dir, (enum aug_family)f, rep, times);
        if (rc != AUG_OK && rc != AUG_EIO) {
            /* a family-level data problem (an unreadable old file): go on with the others */
            rc = AUG_OK;
        }
    }
    free(times);
    logf_(cfg->log, "done: %ld measured, %ld already present, %ld failed, %ld unsupported",
          rep->measured, rep->present, rep->failed, rep->unsupported);
    return rc;
}

int aug_prof_sweep_dry_run(const struct aug_prof_backend *be, const struct aug_prof_sweep_cfg *cfg,
                           FILE *out, double *total_s) {
    double total = 0.0;
    long n_points = 0, n_present = 0;
    char dir[1024] = "";
    if (cfg->output_dir)
        snprintf(dir, sizeof dir, "%s", cfg->output_dir);
    else if (cfg->gpu_id)
        snprintf(dir, sizeof dir, "kernels-db/%s/raw", cfg->gpu_id);
    struct aug_prof_grid_cfg grid = cfg->grid;
    if (grid.gpus <= 0)
        grid.gpus = 8;
    if (grid.nodes <= 0)
        grid.nodes = 1;
    fprintf(out, "# dry run: preset %s, %d GPUs per node, %d node%s, %d warm-up + %d timed calls "
            "per point; estimates on an H100 SXM reference\n",
            aug_prof_preset_name(grid.preset), grid.gpus, grid.nodes, grid.nodes == 1 ? "" : "s",
            cfg->run.warmup, cfg->run.reps);
    fprintf(out, "%-10s %-14s %-5s %-44s %12s %8s\n", "family", "op", "dtype", "shape",
            "est_call_us", "status");
    for (int f = 0; f < AUG_FAMILY_COUNT; f++) {
        if (cfg->families && !(cfg->families & AUG_PROF_FAMILY_BIT(f)))
            continue;
        const struct aug_prof_bench *b = aug_prof_bench_get((enum aug_family)f);
        if (be && !be->impl[f]) {
            fprintf(out, "# %s: not available in this build: %s\n", b->name,
                    be->missing[f] ? be->missing[f] : "no implementation");
            continue;
        }
        struct aug_prof_points pts;
        aug_prof_points_init(&pts);
        int rc = aug_prof_bench_points((enum aug_family)f, &grid, &pts);
        if (rc != AUG_OK) {
            aug_prof_points_release(&pts);
            return rc;
        }
        struct aug_prof_raw *raw = NULL;
        char path[1200];
        if (dir[0] && aug_prof_output_path(dir, (enum aug_family)f, path, sizeof path) == AUG_OK &&
            aug_prof_raw_open(path, NULL, 0, NULL, &raw) != AUG_OK) {
            fprintf(out, "# %s: %s\n", b->name, aug_last_error());
            raw = NULL;
        }
        double fam_s = 0.0;
        long fam_n = 0;
        for (size_t i = 0; i < pts.n; i++) {
            const struct aug_prof_point *p = &pts.v[i];
            char shape[192];
            aug_prof_point_shape(p, shape, sizeof shape);
            int present = raw && aug_prof_raw_has(raw, p);
            const char *status = present ? "present" : "measure";
            if (p->family == AUG_FAMILY_GEMM && p->dtype == AUG_DTYPE_FP8)
                status = present ? "present" : "sm_89+";
            fprintf(out, "%-10s %-14s %-5s %-44s %12.1f %8s\n", b->name, p->op,
                    aug_dtype_name(p->dtype), shape, b->estimate_us(p), status);
            if (present) {
                n_present++;
                continue;
            }
            fam_s += aug_prof_point_estimate_s(p, &cfg->run);
            fam_n++;
        }
        if (fam_n > 0)
            fam_s += b->setup_s;
        char d[32];
        fmt_duration(fam_s, d, sizeof d);
        fprintf(out, "# %s: %zu points, %ld to measure, estimated %s\n", b->name, pts.n, fam_n, d);
        total += fam_s;
        n_points += fam_n;
        aug_prof_raw_close(raw);
        aug_prof_points_release(&pts);
    }
    char d[32];
    fmt_duration(total, d, sizeof d);
    fprintf(out, "# total: %ld points to measure (%ld already present), estimated %s\n", n_points,
            n_present, d);
    if (cfg->run.budget_s > 0) {
        /* a point that never settles: warm-up up to its cap, repetitions up to the budget */
        double worst = total + (double)n_points * (cfg->run.budget_s +
                                                   (AUG_PROF_WARM_MAX_FACTOR - 1.0) *
                                                       cfg->run.warmup_s);
        fmt_duration(worst, d, sizeof d);
        fprintf(out, "# up to about %s if no point settles (warm-up capped at %g x --warmup-time, "
                "--point-budget %g s per point)\n", d, AUG_PROF_WARM_MAX_FACTOR, cfg->run.budget_s);
    }
    if (total_s)
        *total_s = total;
    return AUG_OK;
}
