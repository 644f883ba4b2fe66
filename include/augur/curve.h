/* SPDX-License-Identifier: Apache-2.0 */
/* curve.h - the curve forms of kernels-db: names, parameters, evaluation and derivatives.
 *
 * One table (predictor/hw/curve.c) is shared by `augur calibrate`, which fits the forms, and by
 * the kdb lookups, which evaluate them, so the two can never disagree on what a parameter
 * means. A curve maps one measured case (a struct aug_curve_point) to either a time in
 * microseconds or an efficiency in (0, 1]:
 *
 *   linear     t_us = p0 + p1 * x                    x = size_bytes (memory, collectives)
 *              p0 latency (us), p1 inverse bandwidth (us per byte); piecewise in x by
 *              splitting one group into several rows with adjacent [x_min, x_max].
 *   gemm_sat   eff = p0 * W(m, n) * F^p2 / (F^p2 + (10^p1)^p2)          x = F = 2 m n k
 *              p0 e_max, p1 log10 of the FLOPs at half saturation, p2 steepness a;
 *              fixed: p3 SM count, p4 tile rows, p5 tile columns (wave quantization
 *              W = tiles / (ceil(tiles / SMs) * SMs), tiles = ceil(m/p4) * ceil(n/p5)).
 *   gemm_time  t_us = p0 + p1 * F / W(m, n) + p2 * bytes,  eff = F / (t * peak)   x = F
 *              p0 launch + prologue (us), p1 us per wave-quantized FLOP, p2 us per HBM byte
 *              (bytes = (m k + k n + m n) * dtype bytes); fixed: p3 SMs, p4 tile rows,
 *              p5 tile columns, p6 dense peak of the dtype (TFLOP/s).
 *   gemm_roof  t_us = p0 + max(p1 F / W(m, n) + p2 F,  p3 bytes + p4 F)      x = F
 *              a two-regime roofline: compute-bound (wave-quantized and plain FLOP terms)
 *              or memory-bound (bytes plus a small FLOP term), plus launch p0; fitted by
 *              alternating regime assignment and weighted dgelsd; fixed: p5 SMs, p6 square
 *              tile edge, p7 dense peak (TFLOP/s); eff = F / (t * peak).
 *   attn_sat   eff = p0 * S^p2 / (S^p2 + (10^p1)^p2)                     x = S = seq_kv
 *              p0 e_max, p1 log10 of the sequence length at half saturation, p2 steepness;
 *              fixed: p3 head dimension the curve was measured at.
 *
 * Efficiencies are against the dtype's dense tensor peak and the FLOPs conventions below
 * (aug_curve_gemm_flops, aug_curve_attention_flops). Outside [x_min, x_max] (the measured
 * range of the size feature) time curves extrapolate linearly above x_max and stay at
 * t(x_min) below x_min (small kernels are latency-bound: the time stops falling), and
 * efficiency curves are evaluated as they are (their shapes saturate) and clamped to
 * [AUG_CURVE_EFF_MIN, 1]. */
#ifndef AUG_CURVE_H
#define AUG_CURVE_H

#include "augur/kdb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default GEMM tile (rows x columns of C per thread block) used for wave quantization.
 * 128 x 128 is the CUTLASS/cuBLAS default tensor-core tile on A100 and H100. */
#define AUG_CURVE_GEMM_TILE_M 128
#define AUG_CURVE_GEMM_TILE_N 128
/* Lower clamp of every efficiency a curve returns. */
#define AUG_CURVE_EFF_MIN 1e-7

/* One case, with every feature a form may need (unused fields are 0). */
struct aug_curve_point {
    double x;                              /* the form's size feature */
    double m, n, k;                        /* GEMM shape (of one batch entry) */
    double batch;                          /* GEMM: independent products of that shape
                                            * (torch.bmm, grouped experts); 0 reads as 1 */
    double flops, bytes;                   /* GEMM or attention FLOPs, HBM bytes */
    double batch_heads, seq_q, seq_kv, head_dim;
    int causal, backward;
};

enum aug_curve_output {
    AUG_CURVE_TIME, /* the form returns microseconds */
    AUG_CURVE_EFF   /* the form returns an efficiency in (0, 1] */
};

struct aug_curve_form {
    const char *name;
    enum aug_family family;      /* family it applies to (linear: memory and collective) */
    int n_params;                /* stored parameters */
    int n_fit;                   /* fitted parameters: p0 .. p(n_fit-1); the rest are fixed */
    int linear;                  /* 1: value is basis . p (fitted by weighted dgelsd) */
    enum aug_curve_output output;
    /* linear forms: row[0..n_fit) of the basis at pt (fixed params may be used) */
    void (*basis)(const double *p, const struct aug_curve_point *pt, double *row);
    /* value (time_us or eff) before clamping */
    double (*eval)(const double *p, const struct aug_curve_point *pt);
    /* linear forms whose basis depends on the parameters (regimes): starting values of
     * the fitted parameters from the fixed ones; the fit alternates basis and solve */
    void (*init)(double *p);
    /* non-linear forms: log(value) and its gradient in p0 .. p(n_fit-1) */
    double (*log_grad)(const double *p, const struct aug_curve_point *pt, double *grad);
};

/* Form by name, or NULL. */
const struct aug_curve_form *aug_curve_form_find(const char *name);
int aug_curve_form_count(void);
const struct aug_curve_form *aug_curve_form_at(int i);

/* Wave-quantization factor W(m, n) in (0, 1]. */
double aug_curve_wave(double m, double n, double tile_m, double tile_n, double sms);
/* The same with partial tiles charged in full: m n / (a(m) a(n) waves SMs), a(x) =
 * min(x, tile), so F / W never decreases when m or n grows (gemm_roof uses it). */
double aug_curve_wave_tiles(double m, double n, double tile_m, double tile_n, double sms);

/* FLOPs conventions used for efficiencies. GEMM: 2 m n k. Attention forward:
 * 4 * batch_heads * pairs * head_dim (QK^T and PV), pairs = seq_q * seq_kv, or with a
 * causal mask (queries aligned to the end of the keys) seq_q * seq_kv - seq_q^2 / 2 when
 * seq_q <= seq_kv and seq_kv^2 / 2 otherwise; backward is 2.5x forward (FlashAttention-2
 * counting: five matmuls against two). */
double aug_curve_gemm_flops(double m, double n, double k);
double aug_curve_attention_flops(double batch_heads, double seq_q, double seq_kv,
                                 double head_dim, int causal, int backward);

/* Fill a point for the form's family (GEMM: F, bytes and x = F of all batch entries;
 * attention: x = seq_kv). A batched point is batch products of m x k by k x n: the
 * structural form (gemm_tile) times them as one batched kernel, the others as one GEMM of
 * batch x m rows, as they were fitted. */
struct aug_curve_point aug_curve_gemm_point(double m, double n, double k, double elt_bytes);
struct aug_curve_point aug_curve_gemm_batched_point(double batch, double m, double n, double k,
                                                    double elt_bytes);
struct aug_curve_point aug_curve_attention_point(double batch_heads, double seq_q,
                                                 double seq_kv, double head_dim, int causal,
                                                 int backward);
struct aug_curve_point aug_curve_size_point(double size_bytes);

/* Evaluate curve c at pt with the range policy above: microseconds for time forms,
 * efficiency for efficiency forms (f->output says which). */
double aug_curve_value(const struct aug_curve *c, const struct aug_curve_form *f,
                       const struct aug_curve_point *pt);

/* Time in microseconds that curve c predicts at pt (efficiency forms are converted with
 * their FLOPs and `peak_tflops`; gemm_time carries its own peak). */
double aug_curve_time_us(const struct aug_curve *c, const struct aug_curve_form *f,
                         const struct aug_curve_point *pt, double peak_tflops);

#ifdef __cplusplus
}
#endif
#endif
