/* SPDX-License-Identifier: Apache-2.0 */
/* curve.c - the table of curve forms (include/augur/curve.h): basis functions for the
 * linear forms, values and log-gradients for the non-linear ones, and the out-of-range
 * policy. Adding a form is one set of static functions plus one row in `forms`. */
#include "augur/curve.h"

#include "hw/gemm_model.h"

#include <math.h>
#include <string.h>

#define LN10 2.30258509299404568402

/* ---- helpers ---- */

double aug_curve_wave(double m, double n, double tile_m, double tile_n, double sms)
{
    if (!(m > 0) || !(n > 0) || !(tile_m > 0) || !(tile_n > 0) || !(sms >= 1))
        return 1.0;
    double tiles = ceil(m / tile_m) * ceil(n / tile_n);
    double waves = ceil(tiles / sms);
    return tiles / (waves * sms);
}

/* The useful fraction of the work the SMs do when partial tiles are charged in full:
 * F / F_q with F_q = 2 k a(m) a(n) waves SMs, every CTA of a wave running one tile's
 * whole main loop. a(x) = min(x, tile): a dimension spanning more than one tile pays for
 * its partial last tile in full (a 4097-row GEMM runs 33 row tiles, never faster than
 * 4096 rows); one smaller than a tile is served by a narrower tile (cuBLAS and CUTLASS
 * pick narrow tiles for skinny shapes). Tile and wave quantization as in NVIDIA's "Matrix
 * Multiplication Background User's Guide" (Deep Learning Performance docs, sections "Tile
 * Quantization" and "Wave Quantization"). F / W is non-decreasing in m and n and steps
 * up at tile and wave edges. */
double aug_curve_wave_tiles(double m, double n, double tile_m, double tile_n, double sms)
{
    if (!(m > 0) || !(n > 0) || !(tile_m > 0) || !(tile_n > 0) || !(sms >= 1))
        return 1.0;
    double waves = ceil(ceil(m / tile_m) * ceil(n / tile_n) / sms);
    return m * n / (fmin(m, tile_m) * fmin(n, tile_n) * waves * sms);
}

double aug_curve_gemm_flops(double m, double n, double k)
{
    return 2.0 * m * n * k;
}

double aug_curve_attention_flops(double batch_heads, double seq_q, double seq_kv,
                                 double head_dim, int causal, int backward)
{
    double pairs = seq_q * seq_kv;
    if (causal)
        pairs = seq_q <= seq_kv ? seq_q * seq_kv - 0.5 * seq_q * seq_q : 0.5 * seq_kv * seq_kv;
    double f = 4.0 * batch_heads * pairs * head_dim;
    return backward ? 2.5 * f : f;
}

struct aug_curve_point aug_curve_gemm_batched_point(double batch, double m, double n, double k,
                                                    double elt_bytes)
{
    struct aug_curve_point pt;
    memset(&pt, 0, sizeof pt);
    if (!(batch >= 1))
        batch = 1;
    pt.m = m;
    pt.n = n;
    pt.k = k;
    pt.batch = batch;
    pt.flops = batch * aug_curve_gemm_flops(m, n, k);
    pt.bytes = batch * (m * k + k * n + m * n) * elt_bytes;
    pt.x = pt.flops;
    return pt;
}

struct aug_curve_point aug_curve_gemm_point(double m, double n, double k, double elt_bytes)
{
    return aug_curve_gemm_batched_point(1, m, n, k, elt_bytes);
}

/* The rows of a batched point stacked into one GEMM: what the fitted forms other than
 * gemm_tile were fitted on. */
static double flat_m(const struct aug_curve_point *pt)
{
    return pt->batch > 1 ? pt->m * pt->batch : pt->m;
}

struct aug_curve_point aug_curve_attention_point(double batch_heads, double seq_q,
                                                 double seq_kv, double head_dim, int causal,
                                                 int backward)
{
    struct aug_curve_point pt;
    memset(&pt, 0, sizeof pt);
    pt.batch_heads = batch_heads;
    pt.seq_q = seq_q;
    pt.seq_kv = seq_kv;
    pt.head_dim = head_dim;
    pt.causal = causal;
    pt.backward = backward;
    pt.flops = aug_curve_attention_flops(batch_heads, seq_q, seq_kv, head_dim, causal, backward);
    pt.x = seq_kv;
    return pt;
}

struct aug_curve_point aug_curve_size_point(double size_bytes)
{
    struct aug_curve_point pt;
    memset(&pt, 0, sizeof pt);
    pt.x = size_bytes;
    pt.bytes = size_bytes;
    return pt;
}

/* log of the saturating factor s = x^a / (x^a + h^a) with h = 10^lh, and its derivatives
 * in lh and a: u = a (ln x - ln h), ln s = -log1p(exp(-u)), d ln s / du = 1 - s. */
static double log_sat(double x, double lh, double a, double *d_lh, double *d_a)
{
    double lnx = log(x > 0 ? x : 1e-300);
    double lnh = lh * LN10;
    double u = a * (lnx - lnh);
    double ls = u > 0 ? -log1p(exp(-u)) : u - log1p(exp(u));
    double s = exp(ls);
    if (d_lh)
        *d_lh = (1.0 - s) * (-a * LN10);
    if (d_a)
        *d_a = (1.0 - s) * (lnx - lnh);
    return ls;
}

/* ---- linear: t = p0 + p1 x ---- */

static void linear_basis(const double *p, const struct aug_curve_point *pt, double *row)
{
    (void)p;
    row[0] = 1.0;
    row[1] = pt->x;
}

static double linear_eval(const double *p, const struct aug_curve_point *pt)
{
    return p[0] + p[1] * pt->x;
}

/* ---- gemm_sat: eff = e_max W F^a / (F^a + h^a) ---- */

static double gemm_sat_log_grad(const double *p, const struct aug_curve_point *pt, double *g)
{
    double w = aug_curve_wave(pt->m, pt->n, p[4], p[5], p[3]);
    double d_lh, d_a;
    double emax = p[0] > 1e-12 ? p[0] : 1e-12;
    double ls = log_sat(pt->flops, p[1], p[2], &d_lh, &d_a);
    if (g) {
        g[0] = 1.0 / emax;
        g[1] = d_lh;
        g[2] = d_a;
    }
    return log(emax) + log(w) + ls;
}

static double gemm_sat_eval(const double *p, const struct aug_curve_point *pt)
{
    return exp(gemm_sat_log_grad(p, pt, NULL));
}

/* ---- gemm_time: t = p0 + p1 F / W + p2 bytes ---- */

static void gemm_time_basis(const double *p, const struct aug_curve_point *pt, double *row)
{
    double w = aug_curve_wave(flat_m(pt), pt->n, p[4], p[5], p[3]);
    row[0] = 1.0;
    row[1] = pt->flops / w;
    row[2] = pt->bytes;
}

static double gemm_time_eval(const double *p, const struct aug_curve_point *pt)
{
    double row[3];
    gemm_time_basis(p, pt, row);
    return p[0] * row[0] + p[1] * row[1] + p[2] * row[2];
}

/* ---- gemm_roof: t = p0 + max(p1 F/W + p2 F, p3 bytes + p4 F) ----
 * W charges partial tiles in full (aug_curve_wave_tiles), so the time never falls when a
 * dimension grows. On Vidur's sweeps this also fits better than the tile-count W of
 * gemm_sat and gemm_time (leave one model out, A100: median 5.24% -> 5.00%; H100: 6.53% ->
 * 6.18%; benchmarks/CALIBRATION.md), which keep theirs for the tables fitted with it. */

static void gemm_roof_terms(const double *p, const struct aug_curve_point *pt, double *comp,
                            double *mem, double *fw)
{
    double w = aug_curve_wave_tiles(flat_m(pt), pt->n, p[6], p[6], p[5]);
    *fw = pt->flops / w;
    *comp = p[1] * *fw + p[2] * pt->flops;
    *mem = p[3] * pt->bytes + p[4] * pt->flops;
}

static void gemm_roof_basis(const double *p, const struct aug_curve_point *pt, double *row)
{
    double comp, mem, fw;
    gemm_roof_terms(p, pt, &comp, &mem, &fw);
    int c = comp >= mem;
    row[0] = 1.0;
    row[1] = c ? fw : 0;
    row[2] = c ? pt->flops : 0;
    row[3] = c ? 0 : pt->bytes;
    row[4] = c ? 0 : pt->flops;
}

static double gemm_roof_eval(const double *p, const struct aug_curve_point *pt)
{
    double comp, mem, fw;
    gemm_roof_terms(p, pt, &comp, &mem, &fw);
    return p[0] + (comp > mem ? comp : mem);
}

/* Start: 70% of the peak when compute-bound; memory-bound below 150 FLOP per byte. */
static void gemm_roof_init(double *p)
{
    double us_per_flop = p[7] > 0 ? 1e6 / (p[7] * 1e12 * 0.7) : 1e-8;
    p[0] = 5.0;
    p[1] = us_per_flop;
    p[2] = 0;
    p[3] = us_per_flop * 150;
    p[4] = 0;
}

/* ---- attn_sat: eff = e_max S^a / (S^a + h^a) ---- */

static double attn_sat_log_grad(const double *p, const struct aug_curve_point *pt, double *g)
{
    double d_lh, d_a;
    double emax = p[0] > 1e-12 ? p[0] : 1e-12;
    double ls = log_sat(pt->seq_kv, p[1], p[2], &d_lh, &d_a);
    if (g) {
        g[0] = 1.0 / emax;
        g[1] = d_lh;
        g[2] = d_a;
    }
    return log(emax) + ls;
}

static double attn_sat_eval(const double *p, const struct aug_curve_point *pt)
{
    return exp(attn_sat_log_grad(p, pt, NULL));
}

/* ---- gemm_tile: the structural model (hw/gemm_model.c) with fitted ceilings ----
 * p0 overhead (us), p1 main-loop rate (TFLOP/s), p2 HBM bandwidth (GB/s); fixed p3 SMs,
 * p4 L2 (MiB), p5 L2 bandwidth (GB/s), p6 the kernel family (0 tensor-core tiles, 1 SIMT
 * fp32 tiles, 2 tensor-core tiles with stream-K kernels beside them: sm_80 and newer;
 * tables fitted before stream-K was modelled hold 0 and keep their meaning; 3 and 4 SIMT
 * tiles whose batched SGEMMs take cuBLAS's sm_70/75 and sm_80+ batched families,
 * hw/gemm_model.c; 1 takes the whole family without split-K; 5 as 2 with Hopper's one
 * CTA per SM: sm_90; 6 Hopper's tiles sized to the shape, cuBLAS 13's nvjet kernels),
 * p7 dense peak. */

static double gemm_tile_eval(const double *p, const struct aug_curve_point *pt)
{
    struct aug_gemm_ceiling c;
    memset(&c, 0, sizeof c);
    double batch = pt->batch > 1 ? pt->batch : 1;
    double elems = batch * (pt->m * pt->k + pt->k * pt->n + pt->m * pt->n);
    c.elt_bytes = elems > 0 && pt->bytes > 0 ? pt->bytes / elems : 2.0;
    c.out_bytes = c.elt_bytes >= 4 ? 4.0 : 2.0;
    c.overhead_us = p[0] > 0 ? p[0] : 0.0;
    c.rate_tflops = p[1] < p[7] ? p[1] : p[7];
    c.peak_tflops = p[7];
    c.hbm_gbps = p[2];
    c.peak_hbm_gbps = p[2];
    c.sms = p[3] >= 1 ? (int)p[3] : 1;
    c.l2_bytes = p[4] * 1048576.0;
    c.l2_gbps = p[5];
    int family = (int)lround(p[6]);
    c.simt = family == 1 || family == 3 || family == 4;
    c.stream_k = family == 2 || family == 5;
    c.sm_arch = family == 5 || family == 6 ? 90 : family == 4 ? 80 : family == 3 ? 70 : 0;
    c.adaptive_tiles = family == 6;
    if (!(c.rate_tflops > 0) || !(c.hbm_gbps > 0) || !(c.l2_gbps > 0))
        return INFINITY;
    return aug_gemm_model_us(&c, pt->m, pt->n, pt->k, batch, NULL);
}

/* log time and its gradient by central differences (the model is piecewise smooth: tiles
 * and waves are fixed within a small step) */
static double gemm_tile_log_grad(const double *p, const struct aug_curve_point *pt, double *g)
{
    double v = log(gemm_tile_eval(p, pt));
    if (g) {
        for (int j = 0; j < 3; j++) {
            double q[AUG_CURVE_MAX_PARAMS];
            memcpy(q, p, sizeof q);
            double h = 1e-4 * (fabs(p[j]) > 1e-3 ? fabs(p[j]) : 1e-3);
            q[j] = p[j] + h;
            double up = log(gemm_tile_eval(q, pt));
            q[j] = p[j] - h > 0 ? p[j] - h : p[j];
            double dn = log(gemm_tile_eval(q, pt));
            g[j] = (up - dn) / (p[j] + h - q[j]);
        }
    }
    return v;
}

/* Start: 2.5 us overhead, 80% of the peak; p2 (HBM) is set from the GPU by the caller. */
static void gemm_tile_init(double *p)
{
    p[0] = AUG_GEMM_OVERHEAD_US;
    p[1] = 0.8 * p[7];
    if (!(p[2] > 0))
        p[2] = 1000.0;
}

static const struct aug_curve_form forms[] = {
    {"linear", AUG_FAMILY_MEMORY, 2, 2, 1, AUG_CURVE_TIME, linear_basis, linear_eval, NULL,
     NULL},
    {"gemm_sat", AUG_FAMILY_GEMM, 6, 3, 0, AUG_CURVE_EFF, NULL, gemm_sat_eval, NULL,
     gemm_sat_log_grad},
    {"gemm_time", AUG_FAMILY_GEMM, 7, 3, 1, AUG_CURVE_TIME, gemm_time_basis, gemm_time_eval,
     NULL, NULL},
    {"gemm_roof", AUG_FAMILY_GEMM, 8, 5, 1, AUG_CURVE_TIME, gemm_roof_basis, gemm_roof_eval,
     gemm_roof_init, NULL},
    {"attn_sat", AUG_FAMILY_ATTENTION, 4, 3, 0, AUG_CURVE_EFF, NULL, attn_sat_eval, NULL,
     attn_sat_log_grad},
    {"gemm_tile", AUG_FAMILY_GEMM, 8, 3, 0, AUG_CURVE_TIME, NULL, gemm_tile_eval,
     gemm_tile_init, gemm_tile_log_grad},
};

int aug_curve_form_count(void)
{
    return (int)(sizeof forms / sizeof forms[0]);
}

const struct aug_curve_form *aug_curve_form_at(int i)
{
    if (i < 0 || i >= aug_curve_form_count())
        return NULL;
    return &forms[i];
}

const struct aug_curve_form *aug_curve_form_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < aug_curve_form_count(); i++)
        if (strcmp(forms[i].name, name) == 0)
            return &forms[i];
    return NULL;
}

/* ---- evaluation with the range policy ---- */

double aug_curve_value(const struct aug_curve *c, const struct aug_curve_form *f,
                       const struct aug_curve_point *pt)
{
    if (f->output == AUG_CURVE_TIME) {
        double v;
        if (pt->x < c->x_min && f->eval == linear_eval) {
            struct aug_curve_point lo = *pt;
            lo.x = c->x_min;
            v = f->eval(c->p, &lo);
        } else {
            v = f->eval(c->p, pt);
        }
        return v > 1e-3 ? v : 1e-3; /* never below a nanosecond */
    }
    double e = f->eval(c->p, pt);
    if (!(e >= AUG_CURVE_EFF_MIN))
        e = AUG_CURVE_EFF_MIN;
    if (e > 1.0)
        e = 1.0;
    return e;
}

double aug_curve_time_us(const struct aug_curve *c, const struct aug_curve_form *f,
                         const struct aug_curve_point *pt, double peak_tflops)
{
    double v = aug_curve_value(c, f, pt);
    if (f->output == AUG_CURVE_TIME)
        return v;
    if (!(peak_tflops > 0))
        return 0.0;
    return pt->flops / (v * peak_tflops * 1e12) * 1e6;
}
