/* SPDX-License-Identifier: Apache-2.0 */
/* bench_kernels.c - accuracy of the structural kernel models (predictor/hw/gemm_model.c,
 * memop_model.c) against single kernels timed by others, and the physics check.
 *
 *   bench_kernels [--shared DIR] [--kdb DIR]
 *                 [--only neusight|neusight-power|vidur|profiled|physics]
 *                 [--residuals DIR]
 *
 * 1. NeuSight's training split (DIR/external/neusight/..., five PCIe GPUs, fp32 SGEMM
 *    `linear` and `bmm`, memory-bound `add`, `gelu`, `softmax`, `ln`; CUDA events around one
 *    PyTorch call: host-visible time). Prediction: t = h + t_kernel, h the per-call host
 *    overhead of the op kind (hw/host_time.c), t_kernel the model at the GPU's ceilings.
 *    Fitted parameters: the fp32 rate as a fraction of the fp32 peak, the HBM bandwidth as a
 *    fraction of the datasheet, h for GEMMs and h for memory-bound ops. Fit: grid search on
 *    the median |log(pred / meas)| of the training part.
 *    a. spec only: the documented defaults, no fit;
 *    b. within a GPU: 5-fold (row index mod 5), fit on four folds, report the fifth;
 *    c. leave one GPU out: fit one set of fractions on four GPUs, predict the fifth from its
 *       gpus.csv spec row;
 *    d. the same for GEMMs with each board's power limit (neusight_power; alone with
 *       --only neusight-power).
 *    Errors are |pred / meas - 1|; GEMMs are reported for kernels of at least 10 us (measured
 *    minus the fitted host overhead) and below that separately. Before the fits, without a
 *    model: the SGEMM rate each GPU reaches by decade of kernel time (sustained_rate).
 * 2. Vidur's A100 and H100 fp16 GEMM sweeps (DIR/external/vidur, CUPTI kernel time): the
 *    parameters calibrate's gemm_tile form fits (main-loop rate, operand bandwidth,
 *    overhead) per GPU (5-fold), and A100 <-> H100 (fit on one, predict the other from its
 *    spec row).
 * 2b. augur-profile's own H100 and H200 runs (kernels-db/<gpu>/raw/gemm*.csv, bf16 and fp8,
 *    CUPTI kernel time with each point's SM clock): the same fit within each GPU, as
 *    measured and with compute-bound points scaled to the maximum clock (how much of the
 *    error is the clock the point happened to run at); H100 <-> H200; Vidur's H100 sweep
 *    <-> the own H100 points.
 * 3. Physics: every GPU of gpus.csv x every dtype with a peak x a grid of GEMM shapes, memory
 *    sizes and attention shapes through aug_op_time() with the GPU's curves: the count of
 *    predictions faster than max(flops / peak, bytes / HBM bandwidth) (must be 0). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "augur/csvio.h"
#include "core/atomic_write.h"
#include "hw/gemm_model.h"
#include "hw/host_time.h"
#include "hw/kernel_model.h"
#include "import.h"
#include "samples.h"

#define NS_DIR "/external/neusight/scripts/asplos/data/dataset/train/collect"

struct pt {
    int gemm;          /* 1 GEMM, 0 memory-bound */
    double m, n, k, b; /* GEMM */
    double bytes;      /* memory-bound */
    double t_us;       /* measured */
    double clk_mhz;    /* SM clock while it ran (augur-profile rows), 0 when unknown */
};

struct set {
    struct pt *v;
    int n, cap;
};

static void push(struct set *s, struct pt p)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->v = realloc(s->v, sizeof *s->v * (size_t)s->cap);
        if (!s->v) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    s->v[s->n++] = p;
}

/* One NeuSight CSV. `Kernel Name` and `Kernels` are quoted and hold commas, so the shape
 * is read from the end of the line (linear/bmm: B, M, N, K; the others: B, H, never
 * quoted) and the latency (ms) from the second field (OPName and Latency come first). */
static int read_neusight(const char *path, const char *op, struct set *s)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[16384];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    int gemm = !strcmp(op, "linear") || !strcmp(op, "bmm");
    int nd = gemm ? 4 : 2;
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\r\n");
        line[len] = 0;
        double d[4] = {0};
        char *end = line + len;
        int ok = 1;
        for (int i = nd - 1; i >= 0; i--) {
            char *c = end;
            while (c > line && c[-1] != ',')
                c--;
            if (c == line) {
                ok = 0;
                break;
            }
            d[i] = strtod(c, NULL);
            end = c - 1;
            *end = 0;
        }
        char *comma = strchr(line, ',');
        if (!ok || !comma)
            continue;
        struct pt q;
        memset(&q, 0, sizeof q);
        q.gemm = gemm;
        q.t_us = strtod(comma + 1, NULL) * 1e3;
        if (gemm) {
            /* linear: (B, M, N) x Linear(N, K): C is M x K over k = N; bmm the same */
            q.b = d[0] > 0 ? d[0] : 1;
            q.m = d[1];
            q.k = d[2];
            q.n = d[3];
            if (!(q.m > 0 && q.n > 0 && q.k > 0))
                continue;
        } else {
            double e = d[0] * d[1] * 4.0;
            q.bytes = !strcmp(op, "add") ? 3 * e : 2 * e;
            if (!(q.bytes > 0))
                continue;
        }
        if (q.t_us > 0)
            push(s, q);
    }
    fclose(f);
    return 0;
}

struct params {
    double rate_frac, hbm_frac, h_gemm, h_mem;
};

/* The GPU's ceiling for dtype dt with the fitted fractions of p and the overhead in place
 * of its own; 0 when the GPU has no peak for dt. */
/* 1 while the points at hand were timed with cuBLAS 13 (augur-profile's own runs): Hopper
 * GEMMs then take the tiles sized to the shape of its nvjet kernels (gemm_model.c). */
static int cublas13;

static int fitted_ceiling(const struct aug_gpu *g, enum aug_dtype dt, const struct params *p,
                          double overhead_us, struct aug_gemm_ceiling *c)
{
    if (!aug_gemm_ceiling_of(g, dt, c))
        return 0;
    c->adaptive_tiles = cublas13;
    c->rate_tflops = p->rate_frac * c->peak_tflops;
    c->sustained = 1.0; /* the fitted fraction is the main-loop rate itself */
    c->hbm_gbps = p->hbm_frac * c->peak_hbm_gbps;
    c->overhead_us = overhead_us;
    return 1;
}

static double kernel_us(const struct aug_gpu *g, enum aug_dtype dt, const struct params *p,
                        const struct pt *q, double overhead_us)
{
    struct aug_gemm_ceiling c;
    if (!fitted_ceiling(g, dt, p, overhead_us, &c))
        return NAN;
    if (q->gemm)
        return aug_gemm_model_us(&c, q->m, q->n, q->k, q->b, NULL);
    return aug_memop_model_us(&c, q->bytes, NULL);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The SGEMM rate one GPU holds, by how long its kernels run: GEMMs whose output and k are
 * at least 512 (enough tiles and k steps that partial tiles and waves cost little, so the
 * rate is close to the main loop's), timed from the host, in decades of measured time from
 * 0.1 ms up; the last column is the 90th percentile of the 10-100 ms decade, whose kernels
 * carry under 1% of host overhead (25-80 us a call, hw/host_time.c). A board whose power
 * limit is below what its FMA pipes draw at the boost clock loses clock as its kernels run
 * on, so its rate falls from decade to decade; a GPU with headroom holds it
 * (benchmarks/kernels.md, "SGEMM rate by kernel time"). */
static void sustained_rate(const char *id, const struct set *s, double peak_tflops)
{
    enum { N_DEC = 4, DEC_LONG = 2 }; /* DEC_LONG: the 10-100 ms decade */
    static const double lo_ms[N_DEC] = {0.1, 1, 10, 100};
    double *v = malloc(sizeof(double) * (size_t)(s->n ? s->n : 1));
    double *longk = malloc(sizeof(double) * (size_t)(s->n ? s->n : 1));
    if (!v || !longk)
        exit(1);
    int nl = 0;
    printf("  %-14s", id);
    for (int d = 0; d < N_DEC; d++) {
        int n = 0;
        for (int i = 0; i < s->n; i++) {
            const struct pt *q = &s->v[i];
            double ms = q->t_us * 1e-3;
            if (q->m < 512 || q->n < 512 || q->k < 512 || ms < lo_ms[d] ||
                (d + 1 < N_DEC && ms >= lo_ms[d + 1]))
                continue;
            v[n] = 2.0 * q->b * q->m * q->n * q->k / (q->t_us * 1e-6) / 1e12 / peak_tflops;
            if (d == DEC_LONG)
                longk[nl++] = v[n];
            n++;
        }
        if (n)
            printf("  %6.2f (%4d)", median(v, n), n);
        else
            printf("  %6s (%4d)", "-", 0);
    }
    qsort(longk, (size_t)nl, sizeof *longk, cmpd);
    if (nl)
        printf("  | %.2f x %.1f = %.2f TFLOP/s\n", longk[(int)(0.9 * (nl - 1))], peak_tflops,
               longk[(int)(0.9 * (nl - 1))] * peak_tflops);
    else
        printf("  | -\n");
    free(v);
    free(longk);
}

/* Host-timed NeuSight points of one GPU with kernel times precomputed per rate (GEMMs) or
 * per HBM fraction (memory) on the fitting grid. */
#define N_RATE 81   /* 0.20 .. 1.00 (T4 and P4 run near 0.40) */
#define N_HBM 71    /* 0.30 .. 1.00 */
#define N_HOST 161  /* 0 .. 80 us in 0.5 */
#define N_POST 81   /* 0 .. 40 us in 0.5 */
static double rate_at(int i) { return 0.20 + 0.01 * i; }
static double hbm_at(int i) { return 0.30 + 0.01 * i; }
static double host_at(int i) { return 0.5 * i; }

/* kinds: 0 GEMM (linear and bmm), 1.. the memory-bound ops, each with its own host
 * overhead (nn.LayerNorm and nn.Softmax do more on the host than torch.add) */
#define N_KIND 5
static const char *const kind_names[N_KIND] = {"gemm", "add", "gelu", "softmax", "ln"};

struct gpu_data {
    const char *file, *id;
    struct aug_gpu g;
    struct set s[N_KIND];
    double *tk[N_KIND]; /* [grid][n]: kernel time per grid value of the fitted fraction */
    int rate_cap;       /* highest fp32 rate index the board's power allows (N_RATE - 1: none) */
};

/* The fp32 rate index GPU `d` runs at when the fit says `a`: its power cap binds above it. */
static int capped(const struct gpu_data *d, int kd, int a)
{
    return kd == 0 && a > d->rate_cap ? d->rate_cap : a;
}

static void precompute(struct gpu_data *d)
{
    for (int kd = 0; kd < N_KIND; kd++) {
        int na = kd == 0 ? N_RATE : N_HBM;
        d->tk[kd] = malloc(sizeof(double) * (size_t)na * (size_t)(d->s[kd].n ? d->s[kd].n : 1));
        if (!d->tk[kd])
            exit(1);
        for (int a = 0; a < na; a++) {
            /* GEMMs: fp32, the HBM at the default 0.90 (operands of SGEMMs rarely bind) */
            struct params p = {kd == 0 ? rate_at(a) : 0.85, kd == 0 ? 0.90 : hbm_at(a), 0, 0};
            for (int i = 0; i < d->s[kd].n; i++)
                d->tk[kd][(size_t)a * d->s[kd].n + i] =
                    kernel_us(&d->g, AUG_DTYPE_FP32, &p, &d->s[kd].v[i], 0.0);
        }
    }
}

/* fold: -1 all points; >= 0 the points with i % 5 != fold (train) or == fold (test) */
static int in_part(int i, int fold, int test)
{
    if (fold < 0)
        return 1;
    return test ? i % 5 == fold : i % 5 != fold;
}

/* Median |log error| of (grid index a, host index h) over the training parts of the GPUs
 * in `use`. */
/* host view of one call (hw/host_time.c): pre + max(kernel, post) */
static double host_view(double pre, double post, double tk)
{
    return pre + (tk > post ? tk : post);
}

/* Which GEMM points a fit reads: all of them, the nn.Linear calls (batch 1) or the
 * torch.bmm ones; each op has its own host overhead (hw/host_time.c). */
enum ops { OPS_ALL, OPS_LINEAR, OPS_BMM };

static int op_in(const struct pt *q, enum ops o)
{
    return o == OPS_ALL || (o == OPS_BMM) == (q->b > 1);
}

static double cost(struct gpu_data *gd, int ng, const int *use, int kd, int a, int h, int h2,
                   int fold, enum ops o, double *scratch)
{
    int n = 0;
    for (int gi = 0; gi < ng; gi++) {
        if (!use[gi])
            continue;
        struct gpu_data *d = &gd[gi];
        const struct set *s = &d->s[kd];
        const double *tk = d->tk[kd];
        int ai = capped(d, kd, a);
        for (int i = 0; i < s->n; i++) {
            if (!in_part(i, fold, 0) || !op_in(&s->v[i], o))
                continue;
            double pred = host_view(host_at(h), host_at(h2), tk[(size_t)ai * s->n + i]);
            scratch[n++] = fabs(log(pred / s->v[i].t_us));
        }
    }
    return median(scratch, n);
}

/* Grid search of the rate (or HBM) index a and the host pre and post indices minimising
 * the cost of op `o`'s points: a coarse grid, then a finer one around its best. a_fixed >= 0
 * holds a there (GEMMs: one rate per GPU, a host overhead per op) and refines the host in
 * steps of one instead of two. */
static void fit_grid(struct gpu_data *gd, int ng, const int *use, int kd, int fold, enum ops o,
                     int a_fixed, double *scratch, int *best_a, int *best_h, int *best_h2)
{
    double best = INFINITY;
    int a_lo = a_fixed >= 0 ? a_fixed : 0;
    int a_hi = a_fixed >= 0 ? a_fixed + 1 : kd == 0 ? N_RATE : N_HBM;
    int fine = a_fixed >= 0 ? 1 : 2;
    *best_a = a_lo;
    for (int a = a_lo; a < a_hi; a += 4)
        for (int h = 0; h < N_HOST; h += 8)
            for (int h2 = 0; h2 < N_POST; h2 += 8) {
                double c = cost(gd, ng, use, kd, a, h, h2, fold, o, scratch);
                if (c < best) {
                    best = c;
                    *best_a = a;
                    *best_h = h;
                    *best_h2 = h2;
                }
            }
    int a0 = *best_a, h0 = *best_h, p0 = *best_h2;
    for (int a = a0 - 4; a <= a0 + 4; a++)
        for (int h = h0 - 8; h <= h0 + 8; h += fine)
            for (int h2 = p0 - 8; h2 <= p0 + 8; h2 += fine) {
                if (a < a_lo || a >= a_hi || h < 0 || h >= N_HOST || h2 < 0 || h2 >= N_POST)
                    continue;
                double c = cost(gd, ng, use, kd, a, h, h2, fold, o, scratch);
                if (c < best) {
                    best = c;
                    *best_a = a;
                    *best_h = h;
                    *best_h2 = h2;
                }
            }
}

/* Host overhead grid indices of nn.Linear [0] and torch.bmm [1] (memory ops: [0]). */
struct hosts {
    int pre[2], post[2];
};

/* Fit the rate (or HBM fraction) and the host overhead of kind kd; GEMMs then refit the
 * host overhead of each op at that rate. */
static void fit_all(struct gpu_data *gd, int ng, const int *use, int kd, int fold,
                    double *scratch, int *a, struct hosts *hs)
{
    int h = 0, h2 = 0, a_op;
    fit_grid(gd, ng, use, kd, fold, OPS_ALL, -1, scratch, a, &h, &h2);
    hs->pre[0] = hs->pre[1] = h;
    hs->post[0] = hs->post[1] = h2;
    if (kd != 0)
        return;
    fit_grid(gd, ng, use, kd, fold, OPS_LINEAR, *a, scratch, &a_op, &hs->pre[0], &hs->post[0]);
    fit_grid(gd, ng, use, kd, fold, OPS_BMM, *a, scratch, &a_op, &hs->pre[1], &hs->post[1]);
}

struct errs {
    double *big, *small;
    double *big_bmm; /* GEMMs: the batched ones (torch.bmm) of `big` apart */
    int nb, ns, nbb;
};

static void report(const char *what, struct errs *e)
{
    int nbb = e->nbb;
    double mbb = median(e->big_bmm, nbb);
    double mb = median(e->big, e->nb), ms = median(e->small, e->ns);
    printf("  %-44s >=10us: n %6d median |err| %5.1f%%   <10us: n %6d median |err| %5.1f%%",
           what, e->nb, 100 * mb, e->ns, 100 * ms);
    if (nbb > 0)
        printf("   (>=10us bmm: n %6d %5.1f%%)", nbb, 100 * mbb);
    printf("\n");
}

static void collect(struct gpu_data *d, int kd, int a, const struct hosts *hs, int fold,
                    struct errs *e)
{
    const struct set *s = &d->s[kd];
    const double *tk = d->tk[kd];
    a = capped(d, kd, a);
    for (int i = 0; i < s->n; i++) {
        if (!in_part(i, fold, 1))
            continue;
        double k = tk[(size_t)a * s->n + i];
        int b = s->v[i].gemm && s->v[i].b > 1;
        double pred = host_view(host_at(hs->pre[b]), host_at(hs->post[b]), k);
        double err = fabs(pred / s->v[i].t_us - 1);
        /* kernels of at least 10 us as the model times them */
        if (k >= 10.0) {
            e->big[e->nb++] = err;
            if (s->v[i].gemm && s->v[i].b > 1)
                e->big_bmm[e->nbb++] = err;
        }
        else
            e->small[e->ns++] = err;
    }
}

/* One fitted line: the GPU, what it was fitted on, the rate or HBM fraction and the host
 * overheads (GEMMs: nn.Linear's and torch.bmm's). */
static void report_fit(const char *id, const char *on, int kd, int a, const struct hosts *hs,
                       struct errs *e)
{
    char what[400];
    if (kd == 0)
        snprintf(what, sizeof what, "%s gemm (%s: fp32 %.2f, host linear %.1f + max(k, %.1f), "
                 "bmm %.1f + max(k, %.1f))", id, on, rate_at(a), host_at(hs->pre[0]),
                 host_at(hs->post[0]), host_at(hs->pre[1]), host_at(hs->post[1]));
    else
        snprintf(what, sizeof what, "%s %s (%s: HBM %.2f, host %.1f + max(k, %.1f))", id,
                 kind_names[kd], on, hbm_at(a), host_at(hs->pre[0]), host_at(hs->post[0]));
    report(what, e);
}

/* Board power and process node of NeuSight's five GPUs, in `neusight()`'s order: the
 * datasheets' maximum board power (NVIDIA A100 PCIe 40GB, V100 PCIe, T4, P100 PCIe, P4
 * datasheets; the P4 runs at 50 or 75 W, 75 taken) and the node of the whitepapers (GA100
 * TSMC 7 nm, GV100 and TU104 TSMC 12 nm FFN, GP100 and GP104 TSMC 16 nm FinFET). */
static const struct {
    double board_w;
    int node_nm;
} board[] = {{250, 7}, {250, 12}, {70, 12}, {250, 16}, {75, 16}};

/* Joules per fp32 FLOP of process node `nm`: the most FLOP/s per watt of board power any GPU
 * in `use` of that node reached at its own fitted rate (a board below its power limit only
 * bounds the node's energy from above); INFINITY when `use` holds none of the node. */
static double node_joules(const struct gpu_data *gd, int ng, const int *use, const int *own,
                          int nm)
{
    double best = INFINITY;
    for (int q = 0; q < ng; q++) {
        if (!use[q] || board[q].node_nm != nm)
            continue;
        double flops = rate_at(own[q]) * gd[q].g.peak_tflops[AUG_DTYPE_FP32] * 1e12;
        double j = board[q].board_w / flops;
        if (j < best)
            best = j;
    }
    return best;
}

/* Leave one GPU out with the board's power limit: power is energy per FLOP times FLOP/s,
 * and the energy of an operation depends on the process node (Horowitz, "Computing's Energy
 * Problem (and what we can do about it)", ISSCC 2014), so a board sustains at most
 * board_w / J FLOP/s, J its node's energy per FLOP (all-in: board power over the rate).
 * That caps its fp32 rate below the fraction of the peak the fit shares. J comes from the
 * four GPUs of the fit (node_joules), the shared fraction and host overheads are fitted on
 * them with their own caps in place, and the fifth runs at the smaller of the two. GEMMs
 * only: the memory-bound kernels do not run into the limit. `board` follows neusight()'s
 * order of the five GPUs. */
static void neusight_power(struct gpu_data *gd, int ng, double *scratch, struct errs *e)
{
    int own[8];
    struct hosts hs;
    for (int g = 0; g < ng; g++) {
        int use[8] = {0};
        use[g] = 1;
        fit_all(gd, ng, use, 0, -1, scratch, &own[g], &hs);
    }
    printf(" d. leave one GPU out with the board's power limit (GEMMs; J per fp32 FLOP of "
           "each node from the four)\n");
    for (int g = 0; g < ng; g++) {
        int use[8];
        for (int q = 0; q < ng; q++)
            use[q] = q != g;
        for (int q = 0; q < ng; q++) {
            double j = node_joules(gd, ng, use, own, board[q].node_nm);
            double peak = gd[q].g.peak_tflops[AUG_DTYPE_FP32] * 1e12;
            long idx = isfinite(j) ? lround((board[q].board_w / j / peak - 0.20) / 0.01)
                                   : N_RATE - 1;
            gd[q].rate_cap = (int)(idx < 0 ? 0 : idx > N_RATE - 1 ? N_RATE - 1 : idx);
        }
        int a = 0;
        fit_all(gd, ng, use, 0, -1, scratch, &a, &hs);
        e->nb = e->ns = e->nbb = 0;
        collect(&gd[g], 0, a, &hs, -1, e);
        double j = node_joules(gd, ng, use, own, board[g].node_nm);
        char on[160];
        if (isfinite(j))
            snprintf(on, sizeof on, "4 others; %d nm at %.1f pJ/FLOP caps %.0f W at %.2f, shared",
                     board[g].node_nm, j * 1e12, board[g].board_w,
                     rate_at(capped(&gd[g], 0, a)));
        else
            snprintf(on, sizeof on, "4 others; no %d nm GPU among them, shared",
                     board[g].node_nm);
        report_fit(gd[g].id, on, 0, a, &hs, e);
        for (int q = 0; q < ng; q++)
            gd[q].rate_cap = N_RATE - 1;
    }
}

static int neusight(const char *shared, const char *kdb, int power_only)
{
    static const char *const files[][2] = {{"NVIDIA A100-PCIE-40GB.csv", "a100-pcie-40g"},
                                           {"Tesla V100-PCIE-32GB.csv", "v100-pcie-32g"},
                                           {"Tesla T4.csv", "t4-16g"},
                                           {"Tesla P100-PCIE-16GB.csv", "p100-pcie-16g"},
                                           {"Tesla P4.csv", "p4-8g"}};
    static const char *const gemm_ops[] = {"linear", "bmm"};
    static const char *const mem_ops[] = {"add", "gelu", "softmax", "ln"};
    enum { NG = 5 };
    struct gpu_data gd[NG];
    memset(gd, 0, sizeof gd);
    size_t maxn = 0;
    for (int g = 0; g < NG; g++) {
        gd[g].file = files[g][0];
        gd[g].id = files[g][1];
        gd[g].rate_cap = N_RATE - 1;
        if (aug_gpu_lookup(kdb, gd[g].id, &gd[g].g) != AUG_OK) {
            fprintf(stderr, "bench_kernels: %s\n", aug_last_error());
            return 1;
        }
        char path[1024];
        for (int o = 0; o < 2; o++) {
            snprintf(path, sizeof path, "%s%s/%s/p2.1.0/%s", shared, NS_DIR, gemm_ops[o],
                     files[g][0]);
            if (read_neusight(path, gemm_ops[o], &gd[g].s[0]) != 0) {
                printf("NeuSight data absent (%s): skipped\n", path);
                return 0;
            }
        }
        for (int o = 0; o < 4; o++) {
            snprintf(path, sizeof path, "%s%s/%s/p2.1.0/%s", shared, NS_DIR, mem_ops[o],
                     files[g][0]);
            if (read_neusight(path, mem_ops[o], &gd[g].s[1 + o]) != 0)
                return 1;
        }
        precompute(&gd[g]);
        for (int kd = 0; kd < N_KIND; kd++)
            maxn += (size_t)gd[g].s[kd].n;
    }
    double *scratch = malloc(sizeof(double) * maxn);
    struct errs e = {malloc(sizeof(double) * maxn), malloc(sizeof(double) * maxn),
                     malloc(sizeof(double) * maxn), 0, 0, 0};
    if (!scratch || !e.big || !e.small || !e.big_bmm)
        return 1;
    printf("NeuSight training split (host-visible, CUDA events; fp32 SGEMM and memory-bound)\n");
    if (power_only) {
        neusight_power(gd, NG, scratch, &e);
        goto done;
    }
    printf(" SGEMM rate by kernel time (m, n, k >= 512): median fraction of the fp32 peak (points)"
           "\n  %-14s  %13s  %13s  %13s  %13s  | p90 of 10-100 ms\n", "GPU", "0.1-1 ms",
           "1-10 ms", "10-100 ms", ">= 100 ms");
    for (int g = 0; g < NG; g++)
        sustained_rate(gd[g].id, &gd[g].s[0], gd[g].g.peak_tflops[AUG_DTYPE_FP32]);
    printf(" a. spec only (default fractions: fp32 0.85, HBM 0.90; host: hw/host_time.c)\n");
    int a_def = (int)lround((0.85 - 0.20) / 0.01), hbm_def = (int)lround((0.90 - 0.30) / 0.01);
    for (int g = 0; g < NG; g++)
        for (int kd = 0; kd < N_KIND; kd++) {
            char what[128];
            e.nb = e.ns = e.nbb = 0;
            struct hosts hs;
            for (int b = 0; b < 2; b++) { /* nn.Linear, torch.bmm */
                struct aug_op op;
                memset(&op, 0, sizeof op);
                op.kind = kd == 0 ? AUG_OP_GEMM : AUG_OP_MEMORY;
                op.batch = b ? 2 : 1;
                double pre, post;
                aug_host_overhead_us(&op, &pre, &post);
                hs.pre[b] = (int)lround(pre / 0.5);
                hs.post[b] = (int)lround(post / 0.5);
            }
            collect(&gd[g], kd, kd == 0 ? a_def : hbm_def, &hs, -1, &e);
            snprintf(what, sizeof what, "%s %s", gd[g].id, kind_names[kd]);
            report(what, &e);
        }
    printf(" b. within a GPU, 5-fold (fit the rate or HBM fraction and the host overhead)\n");
    for (int g = 0; g < NG; g++) {
        int use[NG] = {0};
        use[g] = 1;
        for (int kd = 0; kd < N_KIND; kd++) {
            e.nb = e.ns = e.nbb = 0;
            int a = 0;
            struct hosts hs;
            for (int fold = 0; fold < 5; fold++) {
                fit_all(gd, NG, use, kd, fold, scratch, &a, &hs);
                collect(&gd[g], kd, a, &hs, fold, &e);
            }
            fit_all(gd, NG, use, kd, -1, scratch, &a, &hs);
            report_fit(gd[g].id, "all", kd, a, &hs, &e);
        }
    }
    printf(" c. leave one GPU out (fit on four, predict the fifth from its spec row)\n");
    for (int g = 0; g < NG; g++) {
        int use[NG];
        for (int q = 0; q < NG; q++)
            use[q] = q != g;
        for (int kd = 0; kd < N_KIND; kd++) {
            int a = 0;
            struct hosts hs;
            fit_all(gd, NG, use, kd, -1, scratch, &a, &hs);
            e.nb = e.ns = e.nbb = 0;
            collect(&gd[g], kd, a, &hs, -1, &e);
            report_fit(gd[g].id, "4 others", kd, a, &hs, &e);
        }
    }
    neusight_power(gd, NG, scratch, &e);
    /* the per-call host overhead over all five GPUs (hw/host_time.c) */
    int all[NG] = {1, 1, 1, 1, 1};
    printf(" all five GPUs:");
    for (int kd = 0; kd < N_KIND; kd++) {
        int a = 0;
        struct hosts hs;
        fit_all(gd, NG, all, kd, -1, scratch, &a, &hs);
        if (kd == 0)
            printf(" gemm (fp32 %.2f) nn.Linear host %.1f + max(k, %.1f) us, bmm host %.1f + "
                   "max(k, %.1f) us,", rate_at(a), host_at(hs.pre[0]), host_at(hs.post[0]),
                   host_at(hs.pre[1]), host_at(hs.post[1]));
        else
            printf(" %s host %.1f + max(k, %.1f) us (HBM %.2f)%s", kind_names[kd],
                   host_at(hs.pre[0]), host_at(hs.post[0]), hbm_at(a),
                   kd + 1 < N_KIND ? "," : "\n");
    }
done:
    for (int g = 0; g < NG; g++)
        for (int kd = 0; kd < N_KIND; kd++) {
            free(gd[g].s[kd].v);
            free(gd[g].tk[kd]);
        }
    free(scratch);
    free(e.big);
    free(e.small);
    free(e.big_bmm);
    return 0;
}

/* ---- Vidur (CUPTI kernel time, fp16 GEMMs) ---- */

static int vidur_load(const char *shared, const char *gpu_dir, struct set *s)
{
    char dir[1024];
    const struct aug_importer *im = aug_importer_find("vidur-mlp");
    if (!im)
        return -1;
    snprintf(dir, sizeof dir, "%s/external/vidur/data/profiling/compute/%s", shared, gpu_dir);
    DIR *d1 = opendir(dir);
    if (!d1)
        return -1;
    struct dirent *a;
    while ((a = readdir(d1))) {
        if (a->d_name[0] == '.')
            continue;
        char d2p[2048];
        snprintf(d2p, sizeof d2p, "%s/%s", dir, a->d_name);
        DIR *d2 = opendir(d2p);
        if (!d2)
            continue;
        struct dirent *b;
        while ((b = readdir(d2))) {
            if (b->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s/mlp.csv", d2p, b->d_name);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            fclose(f);
            struct aug_samples smp;
            aug_samples_init(&smp);
            struct aug_import_opts o;
            memset(&o, 0, sizeof o);
            if (aug_import_file(im, path, &o, &smp) == AUG_OK) {
                for (size_t i = 0; i < smp.n; i++) {
                    const struct aug_sample *x = &smp.v[i];
                    if (x->family != AUG_FAMILY_GEMM || !(x->time_us > 0))
                        continue;
                    struct pt q = {1, x->m, x->n, x->k, x->batch > 0 ? x->batch : 1, 0,
                                   x->time_us, 0};
                    push(s, q);
                }
            }
            aug_samples_free(&smp);
        }
        closedir(d2);
    }
    closedir(d1);
    return s->n > 0 ? 0 : -1;
}

static int cmp_shape(const void *a, const void *b)
{
    const struct pt *x = a, *y = b;
    double d[5] = {x->m - y->m, x->n - y->n, x->k - y->k, x->b - y->b, x->t_us - y->t_us};
    for (int i = 0; i < 5; i++)
        if (d[i] != 0)
            return d[i] < 0 ? -1 : 1;
    return 0;
}

/* Order of shapes alone (m, n, k, batch), without the time. */
static int cmp_dims(const struct pt *x, const struct pt *y)
{
    double d[4] = {x->m - y->m, x->n - y->n, x->k - y->k, x->b - y->b};
    for (int i = 0; i < 4; i++)
        if (d[i] != 0)
            return d[i] < 0 ? -1 : 1;
    return 0;
}

/* Collapse repeated shapes to one point at their median time (the set is sorted by shape
 * and time, so a run's middle element is its median). */
static void unique_shapes(struct set *s)
{
    qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_shape);
    int n = 0;
    for (int a = 0; a < s->n;) {
        int b = a;
        while (b < s->n && s->v[b].m == s->v[a].m && s->v[b].n == s->v[a].n &&
               s->v[b].k == s->v[a].k && s->v[b].b == s->v[a].b)
            b++;
        struct pt q = s->v[a + (b - a - 1) / 2];
        if ((b - a) % 2 == 0)
            q.t_us = 0.5 * (s->v[a + (b - a) / 2 - 1].t_us + s->v[a + (b - a) / 2].t_us);
        s->v[n++] = q;
        a = b;
    }
    s->n = n;
}

/* The fitted parameters of the structural GEMM model, as calibrate's gemm_tile form fits
 * them (hw/curve.c): the main-loop rate and the operand bandwidth as fractions of the
 * datasheet peaks, and the kernel's fixed device overhead. */
struct gemm_fit {
    double frac, hbm, ov;
};

/* Median |log error| (training part) or |error| (test part) of the points of one fold. */
static double vidur_err(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s,
                        const struct gemm_fit *x, int fold, int test, double *scratch)
{
    int n = 0;
    struct params p = {x->frac, x->hbm, 0, 0};
    for (int i = 0; i < s->n; i += 1) {
        if (!in_part(i, fold, test))
            continue;
        double t = kernel_us(g, dt, &p, &s->v[i], x->ov);
        scratch[n++] = test ? fabs(t / s->v[i].t_us - 1) : fabs(log(t / s->v[i].t_us));
    }
    return median(scratch, n);
}

/* Keep candidate t in *x when its training error beats *best. */
static void try_fit(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s, int fold,
                    double *scratch, const struct gemm_fit *t, double *best, struct gemm_fit *x)
{
    double c = vidur_err(g, dt, s, t, fold, 0, scratch);
    if (c < *best) {
        *best = c;
        *x = *t;
    }
}

/* Grid search of the rate fraction and the overhead at x->hbm (coarse 0.40..1.00 x 0..10 us,
 * then fine around the best), or only the fine grid around x when `fine_only`. */
static void fit_rate_ov(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s,
                        int fold, double *scratch, struct gemm_fit *x, int fine_only)
{
    double best = INFINITY;
    struct gemm_fit t = *x;
    if (!fine_only)
        for (t.frac = 0.40; t.frac <= 1.0001; t.frac += 0.04)
            for (t.ov = 0; t.ov <= 10.0001; t.ov += 1.0)
                try_fit(g, dt, s, fold, scratch, &t, &best, x);
    double f0 = x->frac, o0 = x->ov;
    for (t.frac = f0 - 0.04; t.frac <= f0 + 0.04001; t.frac += 0.01)
        for (t.ov = o0 - 1; t.ov <= o0 + 1.0001; t.ov += 0.25)
            if (t.frac >= 0.3 && t.frac <= 1 && t.ov >= 0)
                try_fit(g, dt, s, fold, scratch, &t, &best, x);
}

/* The operand bandwidth fraction from lo to hi by step (within 0.3..1) at x's rate and
 * overhead. */
static void fit_hbm(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s, int fold,
                    double *scratch, struct gemm_fit *x, double lo, double hi, double step)
{
    double best = INFINITY;
    struct gemm_fit t = *x;
    for (t.hbm = lo; t.hbm <= hi + 1e-9; t.hbm += step)
        if (t.hbm >= 0.3 && t.hbm <= 1.0 + 1e-9)
            try_fit(g, dt, s, fold, scratch, &t, &best, x);
}

/* GEMMs of one dtype: rate and overhead at the default bandwidth (0.90 of the datasheet),
 * then the bandwidth (0.50..1.00), the rate and overhead again around the fit, and the
 * bandwidth finely: coordinate descent on the median |log error| of the training part. */
static void vidur_fit(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s, int fold,
                      double *scratch, struct gemm_fit *x)
{
    x->hbm = 0.90;
    fit_rate_ov(g, dt, s, fold, scratch, x, 0);
    fit_hbm(g, dt, s, fold, scratch, x, 0.50, 1.00, 0.05);
    fit_rate_ov(g, dt, s, fold, scratch, x, 1);
    fit_hbm(g, dt, s, fold, scratch, x, x->hbm - 0.04, x->hbm + 0.04, 0.01);
}

/* Room for n errors of each kind (exits on out of memory, as push does). */
static struct errs errs_new(int n)
{
    struct errs e = {malloc(sizeof(double) * (size_t)n), malloc(sizeof(double) * (size_t)n),
                     NULL, 0, 0, 0};
    if (!e.big || !e.small) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return e;
}

/* |predicted / measured - 1| of one point, filed by its measured time. */
static void errs_add(struct errs *e, double pred_us, double meas_us)
{
    double err = fabs(pred_us / meas_us - 1);
    if (meas_us >= 10)
        e->big[e->nb++] = err;
    else
        e->small[e->ns++] = err;
}

/* One line of medians, then the arrays are freed. */
static void errs_print(struct errs *e, const char *what)
{
    printf("  %s: >=10us n %d median |err| %.1f%%, <10us n %d median %.1f%%\n", what, e->nb,
           100 * median(e->big, e->nb), e->ns, 100 * median(e->small, e->ns));
    free(e->big);
    free(e->small);
}

/* --residuals DIR: where each within-GPU GEMM fit writes its points, NULL for nowhere */
static const char *residuals_dir;

/* One CSV per within-GPU fit, DIR/<set>-<name>-<dtype>.csv (every character of the name
 * outside [a-z0-9.] becomes '-'): each point's shape, measured and predicted time under
 * the fit on all points, and the model's plan for it (tile, split-K, stream-K, waves, and
 * the compute and memory times of max(compute, memory)), to read the error by shape. */
static int write_residuals(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s,
                           const char *set, const char *name, const struct gemm_fit *x)
{
    char slug[160], path[4096];
    int w = snprintf(slug, sizeof slug, "%s-%s-%s", set, name, aug_dtype_name(dt));
    if (w < 0 || (size_t)w >= sizeof slug)
        return -1;
    for (char *c = slug; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.'))
            *c = (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : '-';
    w = snprintf(path, sizeof path, "%s/%s.csv", residuals_dir, slug);
    if (w < 0 || (size_t)w >= sizeof path)
        return -1;
    struct aug_gemm_ceiling c;
    struct params p = {x->frac, x->hbm, 0, 0};
    if (!fitted_ceiling(g, dt, &p, x->ov, &c))
        return -1;
    struct aug_atomic a;
    if (aug_atomic_open(&a, path) != AUG_OK) {
        fprintf(stderr, "bench_kernels: %s\n", aug_last_error());
        return -1;
    }
    fprintf(a.fp, "m,n,k,batch,measured_us,predicted_us,error,tile_m,tile_n,split_k,stream_k,"
                  "waves,tiles,t_compute_us,t_memory_us\n");
    for (int i = 0; i < s->n; i++) {
        const struct pt *q = &s->v[i];
        struct aug_gemm_plan pl;
        double t = aug_gemm_model_us(&c, q->m, q->n, q->k, q->b, &pl);
        fprintf(a.fp, "%.0f,%.0f,%.0f,%.0f,%.4g,%.4g,%.4f,%.0f,%.0f,%.0f,%d,%.4g,%.0f,%.4g,%.4g\n",
                q->m, q->n, q->k, q->b, q->t_us, t, t / q->t_us - 1, pl.tile_m, pl.tile_n,
                pl.split_k, pl.stream_k, pl.waves, pl.tiles, pl.t_compute_us, pl.t_memory_us);
    }
    if (aug_atomic_commit(&a) != AUG_OK) {
        fprintf(stderr, "bench_kernels: %s\n", aug_last_error());
        return -1;
    }
    printf("  residuals: %s\n", path);
    return 0;
}

/* Within one GPU: 5-fold (fit on four folds, report the fifth), then the fit on all
 * points, returned in *x (and its residuals written under --residuals, `set` naming the
 * data). */
static void within_gpu(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s,
                       const char *set, const char *name, double *scratch, struct gemm_fit *x)
{
    struct errs e = errs_new(s->n);
    for (int fold = 0; fold < 5; fold++) {
        struct gemm_fit f;
        vidur_fit(g, dt, s, fold, scratch, &f);
        struct params p = {f.frac, f.hbm, 0, 0};
        for (int j = 0; j < s->n; j++)
            if (in_part(j, fold, 1))
                errs_add(&e, kernel_us(g, dt, &p, &s->v[j], f.ov), s->v[j].t_us);
    }
    vidur_fit(g, dt, s, -1, scratch, x);
    char what[192];
    snprintf(what, sizeof what,
             "%-10s %s within, 5-fold (all: rate %.2f of peak, operands at %.2f of HBM, "
             "overhead %.2f us)",
             name, aug_dtype_name(dt), x->frac, x->hbm, x->ov);
    errs_print(&e, what);
    if (residuals_dir && write_residuals(g, dt, s, set, name, x) != 0)
        exit(1);
}

/* A GPU's points predicted with another GPU's fitted fractions and overhead. */
static void transfer(const struct aug_gpu *g, enum aug_dtype dt, const struct set *s,
                     const struct gemm_fit *x, const char *from, const char *to)
{
    struct errs e = errs_new(s->n);
    struct params p = {x->frac, x->hbm, 0, 0};
    for (int q = 0; q < s->n; q++)
        errs_add(&e, kernel_us(g, dt, &p, &s->v[q], x->ov), s->v[q].t_us);
    char what[160];
    snprintf(what, sizeof what, "%-10s -> %-10s %s (transfer fractions and overhead)", from, to,
             aug_dtype_name(dt));
    errs_print(&e, what);
}

static int vidur(const char *shared, const char *kdb)
{
    struct set s[2];
    memset(s, 0, sizeof s);
    struct aug_gpu g[2];
    static const char *const ids[] = {"a100-80g", "h100-80g"}, *const dirs[] = {"a100", "h100"};
    for (int i = 0; i < 2; i++) {
        if (aug_gpu_lookup(kdb, ids[i], &g[i]) != AUG_OK)
            return 1;
        if (vidur_load(shared, dirs[i], &s[i]) != 0) {
            printf("Vidur data absent: skipped\n");
            return 0;
        }
    }
    /* one point per distinct shape, at the median of its measurements: Vidur times the
     * same shape for several models and tensor-parallel degrees (a fixed stride would keep
     * one of the four GEMMs of each row only, as the importer emits them in turn) */
    for (int i = 0; i < 2; i++)
        unique_shapes(&s[i]);
    double *scratch = malloc(sizeof(double) * (size_t)(s[0].n > s[1].n ? s[0].n : s[1].n));
    if (!scratch)
        return 1;
    printf("Vidur fp16 GEMM sweeps (CUPTI kernel time, one point per distinct shape)\n");
    for (int i = 0; i < 2; i++) {
        struct gemm_fit x;
        within_gpu(&g[i], AUG_DTYPE_FP16, &s[i], "vidur", ids[i], scratch, &x);
        double f = x.frac;
        /* the main-loop rate over the sweep against the best-shape achievable rate of
         * gpus.csv: the share AUG_GEMM_SUSTAINED (hw/gemm_model.h) takes */
        if (g[i].ach_tflops_bf16 > 0)
            printf("  %-10s fitted rate %.1f TFLOP/s = %.3f of the best-shape achievable %.1f\n",
                   ids[i], f * g[i].peak_tflops[AUG_DTYPE_FP16],
                   f * g[i].peak_tflops[AUG_DTYPE_FP16] / g[i].ach_tflops_bf16,
                   g[i].ach_tflops_bf16);
        /* the other GPU predicted with this GPU's fraction and overhead */
        transfer(&g[1 - i], AUG_DTYPE_FP16, &s[1 - i], &x, ids[i], ids[1 - i]);
    }
    free(scratch);
    free(s[0].v);
    free(s[1].v);
    return 0;
}

/* ---- augur-profile's own runs ---- */

/* GEMM rows of one dtype and op (gemm; gemm_split_acc, fp8's split accumulator) from the
 * files `files` (NULL-terminated) of <kdb>/<gpu>/raw:
 * CUPTI kernel time and the SM clock each point ran at. -1 when a file is absent or
 * they hold none. */
static int profiled_load_files(const char *kdb, const char *gpu, enum aug_dtype dt,
                               const char *op, const char *const *files, struct set *s)
{
    for (int i = 0; files[i]; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s/raw/%s", kdb ? kdb : aug_kdb_dir(), gpu, files[i]);
        struct aug_csv *t = NULL;
        if (aug_csv_load(path, &t) != AUG_OK)
            return -1;
        int cdt = aug_csv_col(t, "dtype"), cop = aug_csv_col(t, "op");
        for (size_t r = 0; cdt >= 0 && cop >= 0 && r < aug_csv_rows(t); r++) {
            const char *d = aug_csv_cell(t, r, cdt), *o = aug_csv_cell(t, r, cop);
            if (!d || strcmp(d, aug_dtype_name(dt)) != 0 || !o || strcmp(o, op) != 0)
                continue;
            struct pt q = {1, 0, 0, 0, 1, 0, 0, 0};
            if (aug_csv_get_double(t, r, "m", AUG_CSV_REQUIRED, &q.m) != AUG_OK ||
                aug_csv_get_double(t, r, "n", AUG_CSV_REQUIRED, &q.n) != AUG_OK ||
                aug_csv_get_double(t, r, "k", AUG_CSV_REQUIRED, &q.k) != AUG_OK ||
                aug_csv_get_double(t, r, "time_us_median", AUG_CSV_REQUIRED, &q.t_us) != AUG_OK ||
                aug_csv_get_double(t, r, "sm_clock_mhz", AUG_CSV_REQUIRED, &q.clk_mhz) != AUG_OK) {
                aug_csv_free(t);
                return -1;
            }
            if (q.t_us > 0)
                push(s, q);
        }
        aug_csv_free(t);
    }
    return s->n > 0 ? 0 : -1;
}

/* The quick and the full grid: raw/gemm.csv and gemm-full.csv. */
static int profiled_load(const char *kdb, const char *gpu, enum aug_dtype dt, struct set *s)
{
    static const char *const files[] = {"gemm.csv", "gemm-full.csv", NULL};
    return profiled_load_files(kdb, gpu, dt, "gemm", files, s);
}

/* The points at the GPU's maximum SM clock: a compute-bound point's time scaled by
 * clock / maximum (its main loop runs at the SM clock); memory-bound points (intensity
 * below the ridge of the dtype's peak and the HBM bandwidth) keep theirs. */
static void at_max_clock(const struct aug_gpu *g, enum aug_dtype dt, const struct set *in,
                         struct set *out)
{
    double e = aug_dtype_bytes(dt), ridge = g->peak_tflops[dt] * 1e12 / (g->hbm_gbps * 1e9);
    for (int i = 0; i < in->n; i++) {
        struct pt q = in->v[i];
        double bytes = e * (q.m * q.k + q.n * q.k) + 2.0 * q.m * q.n;
        if (q.clk_mhz > 0 && 2.0 * q.m * q.n * q.k / bytes > ridge)
            q.t_us *= q.clk_mhz / g->clock_mhz;
        push(out, q);
    }
}

/* t_a / t_b of each shape both sets hold (sorted by shape, one point a shape), in shape
 * order, into q (room for a->n); longk[i] says whether t_b is at least 10 us. Returns the
 * count. */
static int pair_ratios(const struct set *a, const struct set *b, double *q, int *longk)
{
    int nq = 0;
    for (int i = 0, j = 0; i < a->n; i++) {
        const struct pt *f = &a->v[i];
        while (j < b->n && cmp_dims(&b->v[j], f) < 0)
            j++;
        if (j < b->n && cmp_dims(&b->v[j], f) == 0 && b->v[j].t_us > 0) {
            longk[nq] = b->v[j].t_us >= 10;
            q[nq++] = f->t_us / b->v[j].t_us;
        }
    }
    return nq;
}

static double *doubles(int n)
{
    double *v = malloc(sizeof(double) * (size_t)(n + 1));
    if (!v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return v;
}

/* fp8's split accumulator against fast accumulation, shape by shape (both times of one
 * shape in raw/gemm-vidur-shapes-fp8.csv): the share of the fast rate the split one keeps
 * is t_fast / t_split; its median over the even shapes (sorted) is checked on the odd
 * ones, beside the model's AUG_FP8_SPLIT_ACC_SHARE. */
static void split_acc_share(const struct set *fast, const struct set *split)
{
    double *q = doubles(fast->n), *r = doubles(fast->n), *e = doubles(fast->n);
    double *em = doubles(fast->n);
    int *longk = malloc(sizeof(int) * (size_t)(fast->n + 1));
    if (!longk) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    int nq = pair_ratios(fast, split, q, longk), nr = 0, ne = 0;
    for (int i = 0; i < nq; i += 2)
        r[nr++] = q[i];
    double share = median(r, nr);
    for (int i = 1; i < nq; i += 2) {
        em[ne] = fabs(q[i] / AUG_FP8_SPLIT_ACC_SHARE - 1);
        e[ne++] = fabs(q[i] / share - 1);
    }
    printf("  fp8 split accumulator: share of the fast rate %.3f (median t_fast / t_split, %d "
           "even shapes); odd shapes (%d) predicted from their fast time: median |err| %.1f%% "
           "(the model's %.3f: %.1f%%)\n", share, nr, ne, 100 * median(e, ne),
           AUG_FP8_SPLIT_ACC_SHARE, 100 * median(em, ne));
    free(q);
    free(r);
    free(e);
    free(em);
    free(longk);
}

/* The same shapes timed twice (raw/gemm-vidur-shapes-repeat.csv against the first fp16
 * run): how far one measurement of a point is from another, the floor under any model's
 * error. */
static void repeatability(const char *kdb, const struct set *first)
{
    static const char *const files[] = {"gemm-vidur-shapes-repeat.csv", NULL};
    struct set again;
    memset(&again, 0, sizeof again);
    if (profiled_load_files(kdb, "h200-141g", AUG_DTYPE_FP16, "gemm", files, &again) != 0) {
        free(again.v);
        return;
    }
    unique_shapes(&again);
    double *q = doubles(again.n), *d = doubles(again.n), *dl = doubles(again.n);
    int *longk = malloc(sizeof(int) * (size_t)(again.n + 1));
    if (!longk) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    int nq = pair_ratios(&again, first, q, longk), nd = 0, nl = 0;
    for (int i = 0; i < nq; i++) {
        d[nd++] = fabs(q[i] - 1);
        if (longk[i])
            dl[nl++] = fabs(q[i] - 1);
    }
    double med_d = median(d, nd), med_dl = median(dl, nl), med_q = median(q, nq);
    printf("  fp16 timed again (%d shapes): median second / first %.3f, median |difference| "
           "%.1f%% (GEMMs >= 10 us, %d: %.1f%%)\n", nq, med_q, 100 * med_d, nl, 100 * med_dl);
    free(q);
    free(d);
    free(dl);
    free(longk);
    free(again.v);
}

/* Vidur's fp16 shapes against Vidur's own H100 fit (2024 software, cuBLAS 12) and back:
 * the same shapes on the same architecture, two cuBLAS generations apart. */
static void vidur_generations(const char *shared, const char *kdb, const struct aug_gpu *h200,
                              const struct set *s, const struct gemm_fit *own)
{
    struct aug_gpu h100;
    struct set v;
    memset(&v, 0, sizeof v);
    if (aug_gpu_lookup(kdb, "h100-80g", &h100) == AUG_OK && vidur_load(shared, "h100", &v) == 0) {
        unique_shapes(&v);
        double *scratch = doubles(v.n);
        struct gemm_fit vx;
        cublas13 = 0; /* Vidur's H100 ran 2024's cuBLAS 12 */
        vidur_fit(&h100, AUG_DTYPE_FP16, &v, -1, scratch, &vx);
        transfer(&h100, AUG_DTYPE_FP16, &v, own, "own h200", "Vidur h100");
        cublas13 = 1;
        transfer(h200, AUG_DTYPE_FP16, s, &vx, "Vidur h100", "own h200");
        cublas13 = 0;
        free(scratch);
    }
    free(v.v);
}

/* Vidur's H100 shapes measured again on an H200 with cuBLAS 13.1 (raw/gemm-vidur-shapes*.csv,
 * augur-profile --shapes), per dtype within the H200 (5-fold): 16-bit and fp8 with the
 * fixed tiles, then with cuBLAS 13's sized tiles (tf32 and SIMT fp32 have none to size);
 * fp16 also against Vidur's own sweep and against itself timed again, fp8's split
 * accumulator against its fast one. */
static int profiled_vidur_shapes(const char *shared, const char *kdb, const struct aug_gpu *h200)
{
    static const char *const f16[] = {"gemm-vidur-shapes.csv", NULL};
    static const char *const bf[] = {"gemm-vidur-shapes-bf16.csv", NULL};
    static const char *const f8[] = {"gemm-vidur-shapes-fp8.csv", NULL};
    static const char *const f32[] = {"gemm-vidur-shapes-fp32.csv", NULL};
    static const struct {
        enum aug_dtype dt;
        const char *const *files;
    } sets[] = {{AUG_DTYPE_FP16, f16}, {AUG_DTYPE_BF16, bf}, {AUG_DTYPE_FP8, f8},
                {AUG_DTYPE_TF32, f32}, {AUG_DTYPE_FP32, f32}};
    printf("  Vidur's H100 GEMM shapes on an H200, cuBLAS 13.1 (raw/gemm-vidur-shapes*.csv)\n");
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        enum aug_dtype dt = sets[i].dt;
        struct set s;
        memset(&s, 0, sizeof s);
        if (profiled_load_files(kdb, "h200-141g", dt, "gemm", sets[i].files, &s) != 0) {
            printf("  %s on Vidur's shapes: no h200-141g/raw/%s: skipped\n", aug_dtype_name(dt),
                   sets[i].files[0]);
            free(s.v);
            continue;
        }
        unique_shapes(&s);
        double *scratch = doubles(s.n);
        struct gemm_fit x;
        if (dt == AUG_DTYPE_FP16 || dt == AUG_DTYPE_BF16 || dt == AUG_DTYPE_FP8) {
            cublas13 = 0; /* the fixed tiles first, as the model had them */
            within_gpu(h200, dt, &s, "profiled", "h200-141g on Vidur's shapes, fixed tiles",
                       scratch, &x);
        }
        cublas13 = 1;
        within_gpu(h200, dt, &s, "profiled", "h200-141g on Vidur's shapes", scratch, &x);
        cublas13 = 0;
        if (dt == AUG_DTYPE_FP16) {
            vidur_generations(shared, kdb, h200, &s, &x);
            repeatability(kdb, &s);
        }
        if (dt == AUG_DTYPE_FP8) {
            struct set sp;
            memset(&sp, 0, sizeof sp);
            if (profiled_load_files(kdb, "h200-141g", dt, "gemm_split_acc", sets[i].files,
                                    &sp) == 0) {
                unique_shapes(&sp);
                split_acc_share(&s, &sp);
            }
            free(sp.v);
        }
        free(scratch);
        free(s.v);
    }
    return 0;
}

/* Within each GPU (as measured, then at the maximum clock), H100 <-> H200, and Vidur's
 * H100 sweep <-> the own H100 points, with the same structural model and fit as above. */
static int profiled(const char *shared, const char *kdb)
{
    static const char *const ids[] = {"h100-80g", "h200-141g"};
    static const enum aug_dtype dts[] = {AUG_DTYPE_BF16, AUG_DTYPE_FP8};
    struct aug_gpu g[2];
    for (int i = 0; i < 2; i++)
        if (aug_gpu_lookup(kdb, ids[i], &g[i]) != AUG_OK)
            return 1;
    printf("augur-profile's own GEMM runs (kernels-db/<gpu>/raw, CUPTI kernel time, one point "
           "per distinct shape)\n");
    for (int d = 0; d < 2; d++) {
        cublas13 = 1; /* cuBLAS 13.1 (the raw files' provenance) */
        struct set s[2], c[2];
        memset(s, 0, sizeof s);
        memset(c, 0, sizeof c);
        struct gemm_fit fo[2];
        int ok = 1;
        for (int i = 0; i < 2 && ok; i++)
            ok = profiled_load(kdb, ids[i], dts[d], &s[i]) == 0;
        if (!ok) {
            printf("  %s: no augur-profile rows: skipped\n", aug_dtype_name(dts[d]));
            free(s[0].v);
            free(s[1].v);
            continue;
        }
        double *scratch = malloc(sizeof(double) * (size_t)(s[0].n > s[1].n ? s[0].n : s[1].n));
        if (!scratch)
            return 1;
        for (int i = 0; i < 2; i++) {
            unique_shapes(&s[i]);
            within_gpu(&g[i], dts[d], &s[i], "profiled", ids[i], scratch, &fo[i]);
            at_max_clock(&g[i], dts[d], &s[i], &c[i]);
            char name[64];
            snprintf(name, sizeof name, "%s at %.0f MHz", ids[i], g[i].clock_mhz);
            struct gemm_fit x;
            within_gpu(&g[i], dts[d], &c[i], "profiled", name, scratch, &x);
        }
        for (int i = 0; i < 2; i++)
            transfer(&g[1 - i], dts[d], &s[1 - i], &fo[i], ids[i], ids[1 - i]);
        if (dts[d] == AUG_DTYPE_BF16) {
            /* Vidur's fp16 sweep of an H100 (2024 software) against these points: the two
             * 16-bit dtypes share the tensor-core rate */
            struct set v;
            memset(&v, 0, sizeof v);
            if (vidur_load(shared, "h100", &v) == 0) {
                unique_shapes(&v);
                double *sv = malloc(sizeof(double) * (size_t)v.n);
                struct gemm_fit vx;
                if (!sv) {
                    fprintf(stderr, "out of memory\n");
                    exit(1);
                }
                cublas13 = 0; /* Vidur's sweep: 2024's cuBLAS 12 */
                vidur_fit(&g[0], AUG_DTYPE_FP16, &v, -1, sv, &vx);
                transfer(&g[0], AUG_DTYPE_FP16, &v, &fo[0], "own h100",
                         "Vidur h100");
                cublas13 = 1;
                transfer(&g[0], AUG_DTYPE_BF16, &s[0], &vx, "Vidur h100", "own h100");
                free(sv);
            }
            free(v.v);
        }
        free(scratch);
        for (int i = 0; i < 2; i++) {
            free(s[i].v);
            free(c[i].v);
        }
    }
    return profiled_vidur_shapes(shared, kdb, &g[1]);
}

/* ---- physics ---- */

struct phys {
    const char *kdb;
    long checked, faster;
};

/* Time one op and count it, and whether it beats max(flops / peak, bytes / HBM). */
static void phys_check(struct phys *ph, const struct aug_op_ctx *ctx, const struct aug_op *op,
                       double peak, double peak_bw)
{
    struct aug_op_time t;
    if (aug_op_time(ctx, op, &t) != AUG_OK)
        return;
    ph->checked++;
    if (t.time_s < fmax(op->flops / peak, op->bytes / peak_bw) * (1 - 1e-12))
        ph->faster++;
}

static void phys_gpu(const struct aug_system *sys, void *user)
{
    struct phys *ph = user;
    struct aug_kdb *k = NULL;
    if (aug_kdb_open(ph->kdb, sys->gpu.id, &k) != AUG_OK)
        return;
    struct aug_op_ctx ctx = {sys, k, 0};
    static const double dims[] = {1, 2, 7, 16, 63, 128, 129, 255, 1000, 4095, 4096, 4097,
                                  8192, 12288, 16385, 65536};
    const int nd = (int)(sizeof dims / sizeof *dims);
    double peak_bw = sys->gpu.hbm_gbps * 1e9;
    for (int dt = 0; dt < AUG_DTYPE_COUNT; dt++) {
        double peak = sys->gpu.peak_tflops[dt] * 1e12;
        if (!(peak > 0))
            continue;
        for (int a = 0; a < nd; a++)
            for (int b = 0; b < nd; b++)
                for (int c = 0; c < nd; c++) {
                    struct aug_op op = aug_op_gemm("g", (enum aug_dtype)dt, dims[a], dims[b],
                                                   dims[c], 1);
                    phys_check(ph, &ctx, &op, peak, peak_bw);
                    /* Hopper's tiles sized to the shape (cuBLAS 13, curves of kernel family
                     * 6): the structural model itself, before the op layer's clamp */
                    struct aug_gemm_ceiling gc;
                    if (sys->gpu.sm_arch == 90 &&
                        aug_gemm_ceiling_of(&sys->gpu, (enum aug_dtype)dt, &gc) && !gc.simt) {
                        gc.adaptive_tiles = 1;
                        double t = aug_gemm_model_us(&gc, dims[a], dims[b], dims[c], 1, NULL);
                        ph->checked++;
                        if (t * 1e-6 < fmax(op.flops / peak, op.bytes / peak_bw) * (1 - 1e-12))
                            ph->faster++;
                    }
                }
        for (double by = 1; by < 1e12; by *= 3.7) {
            struct aug_op op = aug_op_memory("m", "elementwise", (enum aug_dtype)dt, by, 0);
            phys_check(ph, &ctx, &op, peak, peak_bw);
        }
        /* full, causal, sliding-window (128 keys) and chunked (128) masks, both passes */
        static const struct { int causal, chunked; double window; } masks[] = {
            {0, 0, 0}, {1, 0, 0}, {1, 0, 128}, {1, 1, 128}};
        for (int s = 0; s < nd; s++)
            for (size_t mk = 0; mk < sizeof masks / sizeof *masks; mk++)
                for (int bwd = 0; bwd < 2; bwd++) {
                    struct aug_op op = aug_op_attention("a", (enum aug_dtype)dt, 1, 32, 32,
                                                        dims[s], dims[s], 128, masks[mk].causal,
                                                        masks[mk].window, masks[mk].chunked, bwd);
                    phys_check(ph, &ctx, &op, peak, peak_bw);
                }
    }
    aug_kdb_close(k);
}

int main(int argc, char **argv)
{
    const char *shared = AUG_SHARED_DIR, *kdb = NULL, *only = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_kernels: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--shared"))
            shared = argv[i + 1];
        else if (!strcmp(argv[i], "--kdb"))
            kdb = argv[i + 1];
        else if (!strcmp(argv[i], "--residuals"))
            residuals_dir = argv[i + 1];
        else if (!strcmp(argv[i], "--only") &&
                 (!strcmp(argv[i + 1], "neusight") || !strcmp(argv[i + 1], "neusight-power") ||
                  !strcmp(argv[i + 1], "vidur") ||
                  !strcmp(argv[i + 1], "profiled") || !strcmp(argv[i + 1], "physics")))
            only = argv[i + 1];
        else {
            fprintf(stderr, "bench_kernels: unknown option '%s' (--shared DIR, --kdb DIR, "
                            "--only neusight|neusight-power|vidur|profiled|physics, "
                            "--residuals DIR)\n",
                    argv[i]);
            return 2;
        }
    }
    int rc = 0;
    if (!only || !strcmp(only, "neusight") || !strcmp(only, "neusight-power"))
        rc = neusight(shared, kdb, only && !strcmp(only, "neusight-power"));
    if (!rc && (!only || !strcmp(only, "vidur")))
        rc = vidur(shared, kdb);
    if (!rc && (!only || !strcmp(only, "profiled")))
        rc = profiled(shared, kdb);
    if (only && strcmp(only, "physics"))
        return rc;
    struct phys ph = {kdb, 0, 0};
    /* every GPU row of gpus.csv */
    char path[2048];
    snprintf(path, sizeof path, "%s/gpus.csv", kdb ? kdb : aug_kdb_dir());
    FILE *f = fopen(path, "r");
    char line[4096];
    int header = 0, n_gpus = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !header++)
            continue;
        char *comma = strchr(line, ',');
        if (!comma)
            continue;
        *comma = 0;
        struct aug_system sys;
        memset(&sys, 0, sizeof sys);
        if (aug_gpu_lookup(kdb, line, &sys.gpu) != AUG_OK)
            continue;
        phys_gpu(&sys, &ph);
        n_gpus++;
    }
    if (f)
        fclose(f);
    printf("physics: %ld predictions on a grid of GEMM, memory and attention shapes, all dtypes "
           "of the %d GPUs of gpus.csv: %ld faster than max(flops / peak, bytes / HBM)\n",
           ph.checked, n_gpus, ph.faster);
    return rc || ph.faster ? 1 : 0;
}
