/* SPDX-License-Identifier: Apache-2.0 */
/* bench_attention.c - accuracy of the structural fused-attention model
 * (predictor/hw/attention_model.c, timed through aug_op_time without curves, as every
 * prediction for a GPU without attention curves is) against single cuDNN SDPA kernels
 * timed on real GPUs.
 *
 *   bench_attention [--kdb DIR]
 *
 * 1. cuDNN's own SDPA benchmark, published by NVIDIA in NVIDIA/cudnn-frontend with the
 *    cuDNN version of each run (the tables below, cited per set): bf16, head dim 128,
 *    causal (top-left) and full masks, forward and backward, 2K to 64K tokens, on H200 with
 *    cuDNN 9.1.0 (2024) and 9.19.1 (2026) and on GB200 with cuDNN 9.22.0 (2026), and
 *    PyTorch's FlashAttention-2 kernel beside cuDNN 9.1 in the same 2024 run; gpt-oss
 *    attention (head dim 64, causal under a sliding window) on H200 (9.19.1) and GB200
 *    (9.22.0); and on GB200 the latent attention of DeepSeek-V3 and Kimi K2 (q.k 192, p.v
 *    128) and Qwen3.5's heads of 256.
 * 2. augur-profile's own fused attention points, kernels-db/{h100-80g,h200-141g}/raw/
 *    attention.csv (cuDNN 9.19.0, CUPTI kernel time; forward only: prefill `fused_fwd` and
 *    decode `fused_decode_fwd`), and their head-dim 64 / 128 pairs of equal FLOPs, on which
 *    fit_softmax() fits the softmax step of attention_model.c and checks it against the H200
 *    pairs and the FlashAttention-3 paper's and a Blackwell run's published rates.
 * 3. DeepSeek-V3's latent attention (q.k 192, p.v 128) as DeepSeek's own H800 training
 *    trace timed it (FlashAttention-3 kernels of its fork, four layers, forward and
 *    backward; see dsv3_h800 below).
 *
 * Errors are pred / meas - 1 (positive: the model is slower than the kernel); the report
 * gives, per set and pass, the median |error|, the mean signed error and the range, and the
 * error of the backward's share of the forward rate (bwd TFLOP/s over fwd TFLOP/s, which no
 * clock lock moves). The backward share law of attention_model.c was fitted on the FA2
 * set's five non-causal points, and its full-mask gain on the 2024 run's full/causal pairs,
 * which fit_full_gain() refits and prints; the 2026 sets and the own points are held out
 * from both (the own H100 points' head-dim pairs fit the softmax step, fit_softmax()). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "bench_gpu.h"
#include "hw/kernel_model.h"
#include "samples.h"

/* One published kernel pair: shape, mask, and the forward and backward times (ms) or,
 * where the source gives rates, TFLOP/s (`rates` in the set). */
struct sdpa_pt {
    double batch, q_heads, kv_heads, seq, head_dim;
    int causal;
    double fwd, bwd;
};

struct sdpa_set {
    const char *name, *gpu, *source;
    enum aug_attn_kernel kernel; /* the kernel the model times (cudnn or fa2) */
    int rates; /* 1: fwd/bwd are TFLOP/s with the source's FLOP count, 0: milliseconds */
    const struct sdpa_pt *pt;
    int n;
    double window;     /* sliding window of every point (0: none) */
    double head_dim_v; /* p.v width where it differs from the points' q.k width (0: same) */
};

/* NVIDIA/cudnn-frontend commit 505fcfe (2024-05-07), benchmark/benchmark_results.csv:
 * cuDNN 9.1.0 ("cudnn backend version : 90100"), the README's locked H200 clocks; TFLOP/s
 * with benchmark_flash_attention.py's count 4 b s^2 h d (halved when causal), 2.5x
 * backward. */
static const struct sdpa_pt cudnn91_h200[] = {
    {4, 16, 16, 4096, 128, 0, 654.15, 517.25},   {2, 16, 16, 8192, 128, 0, 668.70, 530.37},
    {1, 16, 16, 16384, 128, 0, 641.91, 538.46},  {1, 16, 16, 32768, 128, 0, 612.56, 536.23},
    {1, 16, 16, 65536, 128, 0, 602.15, 535.41},  {4, 16, 16, 4096, 128, 1, 542.32, 443.60},
    {2, 16, 16, 8192, 128, 1, 572.86, 463.54},   {1, 16, 16, 16384, 128, 1, 586.82, 497.68},
    {1, 16, 16, 32768, 128, 1, 577.35, 499.66},  {1, 16, 16, 65536, 128, 1, 567.02, 503.81},
};

/* The same run's PyTorch columns: torch.nn.functional.scaled_dot_product_attention on its
 * flash backend ("Is flash sdp enabled in Pytorch : True"), FlashAttention-2's kernels, in
 * the container nvcr.io/nvidia/pytorch:24.03-py3 of the benchmark's Dockerfile. */
static const struct sdpa_pt fa2_h200[] = {
    {4, 16, 16, 4096, 128, 0, 354.24, 287.36},   {2, 16, 16, 8192, 128, 0, 355.40, 303.29},
    {1, 16, 16, 16384, 128, 0, 357.15, 308.87},  {1, 16, 16, 32768, 128, 0, 349.25, 312.49},
    {1, 16, 16, 65536, 128, 0, 353.12, 321.91},  {4, 16, 16, 4096, 128, 1, 314.06, 248.76},
    {2, 16, 16, 8192, 128, 1, 325.14, 277.44},   {1, 16, 16, 16384, 128, 1, 324.77, 305.18},
    {1, 16, 16, 32768, 128, 1, 345.30, 317.28},  {1, 16, 16, 65536, 128, 1, 342.65, 323.16},
};

/* NVIDIA/cudnn-frontend commit df73764 (2026-03-09), benchmark/sdpa_benchmark_training/
 * results/h200_919_only_cudnn/llama3.1_20260227_034703.csv: cuDNN 9.19.1 (backend 91901)
 * on H200, Llama 3.1 attention (64 query heads, 8 KV heads), fwd_time_ms / bwd_time_ms. */
static const struct sdpa_pt cudnn919_h200[] = {
    {1, 64, 8, 32768, 128, 1, 25.566, 75.688}, {1, 64, 8, 32768, 128, 0, 50.769, 153.841},
    {1, 64, 8, 16384, 128, 1, 6.531, 19.002},  {1, 64, 8, 16384, 128, 0, 12.524, 35.947},
    {1, 64, 8, 8192, 128, 1, 1.708, 5.083},    {1, 64, 8, 8192, 128, 0, 3.182, 9.262},
    {1, 64, 8, 4096, 128, 1, 0.465, 1.450},    {1, 64, 8, 4096, 128, 0, 0.819, 2.453},
    {1, 64, 8, 2048, 128, 1, 0.142, 0.464},    {1, 64, 8, 2048, 128, 0, 0.217, 0.681},
};

/* NVIDIA/cudnn-frontend commit fb682ce (2026-04-29), benchmark/sdpa_benchmark_training/
 * results/llama3.1/gb200/llama3.1_20260424_100750.csv: cuDNN 9.22.0 (backend 92200) on
 * GB200, the same attention at batch 2, non-deterministic backward, time_ms per pass. */
static const struct sdpa_pt cudnn922_gb200[] = {
    {2, 64, 8, 32768, 128, 1, 21.692, 71.756}, {2, 64, 8, 32768, 128, 0, 43.056, 139.364},
    {2, 64, 8, 16384, 128, 1, 5.150, 16.554},  {2, 64, 8, 16384, 128, 0, 10.369, 32.014},
    {2, 64, 8, 8192, 128, 1, 1.397, 4.127},    {2, 64, 8, 8192, 128, 0, 2.483, 7.831},
    {2, 64, 8, 4096, 128, 1, 0.391, 1.198},    {2, 64, 8, 4096, 128, 0, 0.687, 2.037},
    {2, 64, 8, 2048, 128, 1, 0.125, 0.389},    {2, 64, 8, 2048, 128, 0, 0.192, 0.611},
};

#define N_OF(a) ((int)(sizeof a / sizeof *a))

/* The same commit's results/h200_919_only_cudnn/gpt_oss_20260227_034819.csv: cuDNN 9.19.1 on
 * H200, gpt-oss attention (64 query / 8 KV heads of 64, causal with a 1024-token sliding
 * window, batch 2), fwd_time_ms / bwd_time_ms: held out for the head-dim and window
 * models. */
static const struct sdpa_pt cudnn919_gptoss_h200[] = {
    {2, 64, 8, 32768, 64, 1, 3.021, 9.045}, {2, 64, 8, 16384, 64, 1, 1.499, 4.392},
    {2, 64, 8, 8192, 64, 1, 0.738, 2.149},  {2, 64, 8, 4096, 64, 1, 0.358, 1.042},
    {2, 64, 8, 2048, 64, 1, 0.166, 0.488},
};

/* NVIDIA/cudnn-frontend commit 3929da2 (2026), results/gpt_oss/gb200/
 * gpt_oss_20260424_100011.csv: cuDNN 9.22.0 on GB200, 128 heads of 64 (MHA), causal with a
 * 128-token sliding window, batch 2, time_ms per pass (non-deterministic backward). */
static const struct sdpa_pt cudnn922_gptoss_gb200[] = {
    {2, 128, 128, 32768, 64, 1, 2.634, 3.692}, {2, 128, 128, 16384, 64, 1, 0.822, 1.818},
    {2, 128, 128, 8192, 64, 1, 0.414, 0.911},  {2, 128, 128, 4096, 64, 1, 0.210, 0.465},
    {2, 128, 128, 2048, 64, 1, 0.109, 0.237},
};

/* The same commit's results/{dsv3,kimiK26,qwen35}/gb200 files (cuDNN 9.22.0, GB200, time_ms
 * per pass, non-deterministic backward): DeepSeek-V3's latent attention (128 heads, q.k
 * 192 / p.v 128; dsv3_20260424_101009.csv), Kimi K2's (64 heads, the same widths;
 * kimiK26_20260424_100953.csv) and Qwen3.5's (32 query / 2 KV heads of 256, causal, forward
 * only; qwen35_20260424_095249.csv). head_dim below is the q.k width. */
static const struct sdpa_pt cudnn922_dsv3_gb200[] = {
    {2, 128, 128, 32768, 192, 1, 50.456, 212.546}, {2, 128, 128, 32768, 192, 0, 111.031, 421.194},
    {2, 128, 128, 16384, 192, 1, 13.103, 50.424},  {2, 128, 128, 16384, 192, 0, 24.27, 105.115},
    {2, 128, 128, 8192, 192, 1, 3.47, 11.984},     {2, 128, 128, 8192, 192, 0, 6.249, 25.403},
    {2, 128, 128, 4096, 192, 1, 0.977, 3.383},     {2, 128, 128, 4096, 192, 0, 1.65, 6.085},
    {2, 128, 128, 2048, 192, 1, 0.321, 1.056},     {2, 128, 128, 2048, 192, 0, 0.461, 1.706},
};
static const struct sdpa_pt cudnn922_kimi_gb200[] = {
    {2, 64, 64, 32768, 192, 1, 25.72, 105.445}, {2, 64, 64, 32768, 192, 0, 51.776, 213.066},
    {2, 64, 64, 16384, 192, 1, 6.398, 24.921},  {2, 64, 64, 16384, 192, 0, 12.457, 50.963},
    {2, 64, 64, 8192, 192, 1, 1.733, 6.005},    {2, 64, 64, 8192, 192, 0, 3.087, 11.719},
    {2, 64, 64, 4096, 192, 1, 0.518, 1.698},    {2, 64, 64, 4096, 192, 0, 0.841, 3.009},
    {2, 64, 64, 2048, 192, 1, 0.167, 0.536},    {2, 64, 64, 2048, 192, 0, 0.237, 0.879},
};
static const struct sdpa_pt cudnn922_qwen35_gb200[] = {
    {1, 32, 2, 32768, 256, 1, 10.148, NAN}, {1, 32, 2, 16384, 256, 1, 2.438, NAN},
    {1, 32, 2, 8192, 256, 1, 0.644, NAN},   {1, 32, 2, 4096, 256, 1, 0.191, NAN},
    {1, 32, 2, 2048, 256, 1, 0.061, NAN},
};

static const struct sdpa_set sets[] = {
    {"cuDNN 9.1.0, H200", "h200-141g", "cudnn-frontend@505fcfe benchmark_results.csv",
     AUG_ATTN_KERNEL_CUDNN, 1, cudnn91_h200, N_OF(cudnn91_h200), 0, 0},
    {"FlashAttention-2 (PyTorch flash SDPA), H200", "h200-141g",
     "cudnn-frontend@505fcfe benchmark_results.csv, pytorch columns", AUG_ATTN_KERNEL_FA2, 1,
     fa2_h200, N_OF(fa2_h200), 0, 0},
    {"cuDNN 9.19.1, H200", "h200-141g",
     "cudnn-frontend@df73764 results/h200_919_only_cudnn/llama3.1", AUG_ATTN_KERNEL_CUDNN, 0,
     cudnn919_h200, N_OF(cudnn919_h200), 0, 0},
    {"cuDNN 9.22.0, GB200", "gb200-186g", "cudnn-frontend@fb682ce results/llama3.1/gb200",
     AUG_ATTN_KERNEL_CUDNN, 0, cudnn922_gb200, N_OF(cudnn922_gb200), 0, 0},
    {"cuDNN 9.19.1, gpt-oss (64 / 8 heads of 64, window 1024), H200", "h200-141g",
     "cudnn-frontend@df73764 results/h200_919_only_cudnn/gpt_oss", AUG_ATTN_KERNEL_CUDNN, 0,
     cudnn919_gptoss_h200, N_OF(cudnn919_gptoss_h200), 1024, 0},
    {"cuDNN 9.22.0, gpt-oss (128 heads of 64, window 128), GB200", "gb200-186g",
     "cudnn-frontend@3929da2 results/gpt_oss/gb200", AUG_ATTN_KERNEL_CUDNN, 0,
     cudnn922_gptoss_gb200, N_OF(cudnn922_gptoss_gb200), 128, 0},
    {"cuDNN 9.22.0, DeepSeek-V3 (128 heads, q.k 192 / p.v 128), GB200", "gb200-186g",
     "cudnn-frontend@3929da2 results/dsv3/gb200", AUG_ATTN_KERNEL_CUDNN, 0, cudnn922_dsv3_gb200,
     N_OF(cudnn922_dsv3_gb200), 0, 128},
    {"cuDNN 9.22.0, Kimi K2 (64 heads, q.k 192 / p.v 128), GB200", "gb200-186g",
     "cudnn-frontend@3929da2 results/kimiK26/gb200", AUG_ATTN_KERNEL_CUDNN, 0,
     cudnn922_kimi_gb200, N_OF(cudnn922_kimi_gb200), 0, 128},
    {"cuDNN 9.22.0, Qwen3.5 (32 / 2 heads of 256), GB200, forward only", "gb200-186g",
     "cudnn-frontend@3929da2 results/qwen35/gb200", AUG_ATTN_KERNEL_CUDNN, 0,
     cudnn922_qwen35_gb200, N_OF(cudnn922_qwen35_gb200), 0, 0},
};

/* The fused attention op `augur kernel attention` times (op.h, aug_op_attention_widths),
 * with a sliding window of `window` keys (0: none) and a p.v width `d_v` apart from the
 * q.k width `d` (0: the same). */
static struct aug_op attn_op_mla(double b, double hq, double hkv, double sq, double skv,
                                 double d, double d_v, int causal, double window, int backward)
{
    return aug_op_attention_widths("attention", AUG_DTYPE_BF16, b, hq, hkv, sq, skv, d, d_v,
                                   causal, window, 0, backward);
}

static struct aug_op attn_op_win(double b, double hq, double hkv, double sq, double skv,
                                 double d, int causal, double window, int backward)
{
    return attn_op_mla(b, hq, hkv, sq, skv, d, 0, causal, window, backward);
}

static struct aug_op attn_op(double b, double hq, double hkv, double sq, double skv,
                             double d, int causal, int backward)
{
    return attn_op_win(b, hq, hkv, sq, skv, d, causal, 0, backward);
}

/* Model time (ms) of one op on a GPU without curves; NaN when it cannot be timed. */
static double model_ms(const struct aug_system *sys, const struct aug_op *op)
{
    struct aug_op_ctx ctx = {sys, NULL, 0};
    struct aug_op_time t;
    return aug_op_time(&ctx, op, &t) == AUG_OK ? t.time_s * 1e3 : NAN;
}

struct stats {
    double e[256];
    int n;
};

static void add(struct stats *s, double pred, double meas)
{
    if (s->n < (int)(sizeof s->e / sizeof *s->e) && isfinite(pred) && meas > 0)
        s->e[s->n++] = pred / meas - 1.0;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_stats(const char *what, const struct stats *s)
{
    if (s->n == 0) {
        printf("  %-28s no points\n", what);
        return;
    }
    double a[256], mean = 0, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < s->n; i++) {
        a[i] = fabs(s->e[i]);
        mean += s->e[i] / s->n;
        lo = fmin(lo, s->e[i]);
        hi = fmax(hi, s->e[i]);
    }
    qsort(a, (size_t)s->n, sizeof *a, cmpd);
    double med = s->n % 2 ? a[s->n / 2] : 0.5 * (a[s->n / 2 - 1] + a[s->n / 2]);
    printf("  %-28s n %3d  median |err| %5.1f%%  mean %+6.1f%%  range %+6.1f%% .. %+6.1f%%\n",
           what, s->n, 100 * med, 100 * mean, 100 * lo, 100 * hi);
}

/* The system a set's GPU row gives (no curves: the structural model). */
static int set_system(const char *kdb, const struct sdpa_set *st, struct aug_system *sys)
{
    memset(sys, 0, sizeof *sys);
    if (aug_gpu_lookup(kdb, st->gpu, &sys->gpu) != AUG_OK) {
        fprintf(stderr, "bench_attention: %s\n", aug_last_error());
        return 1;
    }
    return 0;
}

/* A published point's time (ms) of one pass. */
static double meas_ms(const struct sdpa_set *st, const struct sdpa_pt *p, int bw)
{
    double v = bw ? p->bwd : p->fwd;
    if (st->rates) { /* the source's FLOP count over its rate */
        double f = 4.0 * p->batch * p->seq * p->seq * p->q_heads * p->head_dim /
                   (p->causal ? 2.0 : 1.0) * (bw ? 2.5 : 1.0);
        v = f / (v * 1e12) * 1e3;
    }
    return v;
}

/* The full-mask gain of attention_model.c (ATTN_FULL_GAIN): over the pairs of a full and a
 * causal point of the same shape in the 2024 run (the first two sets, cuDNN 9.1 and FA2,
 * forward and backward), r = (causal time per FLOP / full time per FLOP) measured over the
 * same ratio of the model without the gain (its full time times the gain back; the
 * kernels' fixed overhead is under 1% of these times), fitted as ln r = a sqrt(2048 / s)
 * through the origin by least squares. */
static int fit_full_gain(const char *kdb)
{
    double sxy = 0, sxx = 0;
    int n = 0;
    for (size_t k = 0; k < 2; k++) {
        const struct sdpa_set *st = &sets[k];
        struct aug_system sys;
        if (set_system(kdb, st, &sys) != 0)
            return 1;
        for (int i = 0; i < st->n; i++) {
            const struct sdpa_pt *f = &st->pt[i];
            for (int j = 0; j < st->n && !f->causal; j++) {
                const struct sdpa_pt *c = &st->pt[j];
                if (!c->causal || c->seq != f->seq || c->batch != f->batch ||
                    c->q_heads != f->q_heads)
                    continue;
                for (int bw = 0; bw < 2; bw++) {
                    struct aug_op of = attn_op(f->batch, f->q_heads, f->kv_heads, f->seq,
                                               f->seq, f->head_dim, 0, bw);
                    struct aug_op oc = attn_op(c->batch, c->q_heads, c->kv_heads, c->seq,
                                               c->seq, c->head_dim, 1, bw);
                    of.attn_kernel = oc.attn_kernel = st->kernel;
                    double mf = model_ms(&sys, &of) * aug_attention_full_gain(f->seq);
                    double mc = model_ms(&sys, &oc);
                    double r = (meas_ms(st, c, bw) / meas_ms(st, f, bw)) / (mc / mf);
                    double x = sqrt(2048.0 / f->seq);
                    if (!(r > 0) || !isfinite(r))
                        continue;
                    sxy += x * log(r);
                    sxx += x * x;
                    n++;
                }
            }
        }
    }
    printf("full-mask gain fitted on the 2024 run's %d full/causal pairs (cuDNN 9.1 and FA2, "
           "both passes): ln r = %.4f sqrt(2048 / s) (attention_model.c ATTN_FULL_GAIN)\n", n,
           sxx > 0 ? sxy / sxx : NAN);
    return 0;
}

static int published(const char *kdb)
{
    printf("1. cuDNN SDPA kernels published in NVIDIA/cudnn-frontend (bf16, head dim 128 unless "
           "named)\n");
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
        const struct sdpa_set *st = &sets[k];
        struct aug_system sys;
        if (set_system(kdb, st, &sys) != 0)
            return 1;
        printf("%s (%s; model: %s)\n", st->name, st->source, st->gpu);
        printf("  %6s %6s %5s | %9s %9s %6s | %9s %9s %6s\n", "seq", "b x h", "mask",
               "fwd ms", "model", "err", "bwd ms", "model", "err");
        struct stats sf = {.n = 0}, sb = {.n = 0}, share[2] = {{.n = 0}, {.n = 0}};
        for (int i = 0; i < st->n; i++) {
            const struct sdpa_pt *p = &st->pt[i];
            double meas[2] = {meas_ms(st, p, 0), meas_ms(st, p, 1)};
            /* a p.v width apart from q.k (MLA), as `augur kernel attention --head-dim-v` */
            struct aug_op of = attn_op_mla(p->batch, p->q_heads, p->kv_heads, p->seq, p->seq,
                                           p->head_dim, st->head_dim_v, p->causal, st->window, 0);
            struct aug_op ob = attn_op_mla(p->batch, p->q_heads, p->kv_heads, p->seq, p->seq,
                                           p->head_dim, st->head_dim_v, p->causal, st->window, 1);
            of.attn_kernel = ob.attn_kernel = st->kernel;
            double mf = model_ms(&sys, &of), mb = model_ms(&sys, &ob);
            add(&sf, mf, meas[0]);
            add(&sb, mb, meas[1]);
            /* rate shares: (2.5 F / t_bwd) / (F / t_fwd) = 2.5 t_fwd / t_bwd */
            add(&share[p->causal], mf / mb, meas[0] / meas[1]);
            printf("  %6.0f %6.0f %5s | %9.3f %9.3f %+5.1f%% | ", p->seq, p->batch * p->q_heads,
                   p->causal ? "causal" : "full", meas[0], mf, 100 * (mf / meas[0] - 1));
            if (isfinite(meas[1])) /* a set without backward points prints the model alone */
                printf("%9.3f %9.3f %+5.1f%%\n", meas[1], mb, 100 * (mb / meas[1] - 1));
            else
                printf("%9s %9.3f %6s\n", "-", mb, "-");
        }
        print_stats("forward", &sf);
        print_stats("backward", &sb);
        print_stats("bwd/fwd share, full", &share[0]);
        print_stats("bwd/fwd share, causal", &share[1]);
    }
    return 0;
}

/* DeepSeek-V3's multi-head latent attention in DeepSeek's own training trace: PyTorch
 * profiler trace deepseek-ai/profile-data@4496024 train.json (H800, "NVIDIA H800", 132 SMs;
 * EP 64, TP 1, 4K tokens; one DualPipe forward and backward chunk of 4 MoE layers each).
 * Each layer's attention is one sequence of 4096 tokens, 128 heads, q.k 192 wide (128 +
 * 64 rope) and p.v 128, causal: FlashAttention-3's Hopper kernels in DeepSeek's fork
 * (flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, ...>>, grid 32 x 128 =
 * query blocks of 128 x heads; the backward is FlashAttnBwdPreprocess, FlashAttnBwd and
 * FlashAttnBwdPostprocessConvertdQ, summed here). Every one of these kernels ran beside a
 * DeepEP dispatch or combine kernel of the other chunk (grid 20: DeepEP's 20 SMs), so the
 * attention had 112 of the 132 SMs (dur in us, in trace order). */
struct mla_pt {
    double fwd_us, bwd_pre_us, bwd_us, bwd_post_us;
};
static const struct mla_pt dsv3_h800[] = {
    {1248, 267, 3583, 215},
    {1199, 269, 3863, 216},
    {1280, 246, 3809, 223},
    {1221, 243, 3860, 223},
};
#define MLA_SMS_FREE 112 /* 132 SMs less DeepEP's 20 */

static int mla(const char *kdb)
{
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    if (aug_gpu_lookup(kdb, "h800-80g", &sys.gpu) != AUG_OK) {
        fprintf(stderr, "bench_attention: %s\n", aug_last_error());
        return 1;
    }
    struct aug_gpu whole = sys.gpu;
    /* q.k 192 and p.v 128: the op's head_dim is their mean (op.h) */
    struct aug_op of = attn_op(1, 128, 128, 4096, 4096, 160, 1, 0);
    struct aug_op ob = attn_op(1, 128, 128, 4096, 4096, 160, 1, 1);
    of.head_dim_v = ob.head_dim_v = 128;
    of.attn_kernel = ob.attn_kernel = AUG_ATTN_KERNEL_FA3;
    sys.gpu = aug_bench_gpu_with_sms(whole, MLA_SMS_FREE);
    double mf = model_ms(&sys, &of), mb = model_ms(&sys, &ob);
    sys.gpu = whole;
    double wf = model_ms(&sys, &of), wb = model_ms(&sys, &ob);
    printf("  model on %d SMs: fwd %.3f ms, bwd %.3f ms (on all %d: %.3f, %.3f)\n",
           MLA_SMS_FREE, mf, mb, whole.sm_count, wf, wb);
    printf("  %5s | %9s %6s | %9s %6s\n", "layer", "fwd ms", "err", "bwd ms", "err");
    struct stats sf = {.n = 0}, sb = {.n = 0};
    for (int i = 0; i < N_OF(dsv3_h800); i++) {
        const struct mla_pt *p = &dsv3_h800[i];
        double f = p->fwd_us * 1e-3, b = (p->bwd_pre_us + p->bwd_us + p->bwd_post_us) * 1e-3;
        add(&sf, mf, f);
        add(&sb, mb, b);
        printf("  %5d | %9.3f %+5.1f%% | %9.3f %+5.1f%%\n", i, f, 100 * (mf / f - 1), b,
               100 * (mb / b - 1));
    }
    print_stats("forward", &sf);
    print_stats("backward", &sb);
    return 0;
}

/* Head dim 64 against 128 (attention_model.c, aug_attention_softmax_cols): the softmax step
 * of one pair is worth e = k F / 64 head-dim columns, F the GPU's dense FLOPs per clock per
 * SM, k the exposed share. */
static double softmax_cols_at(const struct aug_gpu *g, double k)
{
    return k * g->peak_tflops[AUG_DTYPE_BF16] * 1e12 / (g->sm_count * g->clock_mhz * 1e6) / 64.0;
}

/* Device time (us) of a prefill op whose softmax step is worth e columns: the structural
 * model with the head-dim factor of that e (the fit below varies e). */
static double device_us_at(const struct aug_gpu *g, const struct aug_op *op, double e)
{
    struct aug_gemm_ceiling c;
    if (!aug_gemm_ceiling_of(g, op->dtype, &c))
        return NAN;
    c.rate_tflops *= aug_attention_head_dim_factor(op->head_dim, e);
    return aug_attention_model_us(&c, op->batch_heads, op->seq_q, op->seq_kv, op->head_dim,
                                  op->causal, 0, 0, 0, op->bytes, NULL);
}

/* The pairs of one GPU's own fused forward points at head dims 64 and 128 with the same
 * tokens and mask (equal FLOPs), 512 tokens and more (256 is launch-bound): measured
 * t64 / t128 into meas[], the ops into o64[] / o128[]. */
static int own_pairs(const struct aug_samples *s, double *meas, struct aug_op *o64,
                     struct aug_op *o128, int max)
{
    int n = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct aug_sample *a = &s->v[i];
        if (strcmp(a->op, "fused_fwd") || a->dtype != AUG_DTYPE_BF16 || a->head_dim != 64 ||
            a->seq_q < 512)
            continue;
        for (size_t j = 0; j < s->n && n < max; j++) {
            const struct aug_sample *b = &s->v[j];
            if (strcmp(b->op, "fused_fwd") || b->dtype != AUG_DTYPE_BF16 ||
                b->head_dim != 128 || b->seq_q != a->seq_q || b->seq_kv != a->seq_kv ||
                b->causal != a->causal)
                continue;
            meas[n] = a->time_us / b->time_us;
            o64[n] = attn_op(a->batch, a->heads, a->heads, a->seq_q, a->seq_kv, 64, a->causal, 0);
            o128[n] = attn_op(b->batch, b->heads, b->heads, b->seq_q, b->seq_kv, 128, b->causal,
                              0);
            n++;
        }
    }
    return n;
}

/* Sum of squared log errors of the pairs' model ratio under exposed share k. */
static double pairs_sse(const struct aug_gpu *g, const double *meas, const struct aug_op *o64,
                        const struct aug_op *o128, int n, double k, struct stats *st)
{
    double e = softmax_cols_at(g, k), sse = 0;
    for (int i = 0; i < n; i++) {
        double r = device_us_at(g, &o64[i], e) / device_us_at(g, &o128[i], e);
        sse += pow(log(r / meas[i]), 2);
        if (st)
            add(st, r, meas[i]);
    }
    return sse;
}

/* FlashAttention-3 paper (Shah et al. 2024, arXiv 2407.08608, Fig. 5; the flash-attention
 * repository's assets/flash3_fp16_fwd.png): forward TFLOP/s on H100 SXM5, fp16, at 512, 1k,
 * 2k, 4k, 8k, 16k tokens with batch x tokens = 16k and heads x head dim = 2048, head dims
 * 64 and 128, without and with the causal mask. */
struct fa3_fig {
    const char *kernel;
    enum aug_attn_kernel k;
    double full64[6], full128[6], causal64[6], causal128[6];
    double full256[6], causal256[6]; /* NAN: label hidden in the figure */
};
static const struct fa3_fig fa3_fig5[] = {
    {"FA2", AUG_ATTN_KERNEL_FA2,
     {282, 306, 318, 321, 322, 324}, {309, 350, 362, 366, 370, 370},
     {180, 229, 262, 284, 295, 299}, {191, 260, 298, 319, 333, 335},
     {275, 313, 321, 323, 324, 326}, {208, 251, 278, 293, 297, 298}},
    {"cuDNN", AUG_ATTN_KERNEL_CUDNN,
     {335, 373, 395, 408, 412, 413}, {497, 574, 617, 609, 600, 595},
     {225, 288, 334, 363, 379, 388}, {315, 410, 484, 518, 529, 539},
     {470, 546, 580, 581, 580, 581}, {308, 391, 450, 483, 497, 509}},
    {"FA3", AUG_ATTN_KERNEL_FA3,
     {333, 392, 460, 476, 496, 497}, {467, 565, 625, 638, 646, 648},
     {197, 265, 371, 420, 460, 473}, {292, 423, 521, 579, 602, 616},
     {482, NAN, 707, 736, 746, 756}, {286, 427, 537, 612, 628, 642}},
};

/* The model's rate at head dim `hd` (64 or 256) over its rate at 128 against the figure's,
 * per kernel and mask, at its sizes (batch x tokens = 16k, heads x head dim = 2048: equal
 * FLOPs, so the rate ratio is the time ratio inverted). */
static void fig5_ratios(const struct aug_system *sys, double hd)
{
    static const double toks[6] = {512, 1024, 2048, 4096, 8192, 16384};
    for (size_t i = 0; i < N_OF(fa3_fig5); i++) {
        const struct fa3_fig *f = &fa3_fig5[i];
        for (int causal = 0; causal < 2; causal++) {
            struct stats st = {.n = 0};
            const double *rd = hd == 64 ? (causal ? f->causal64 : f->full64)
                                        : (causal ? f->causal256 : f->full256);
            const double *r128 = causal ? f->causal128 : f->full128;
            for (int j = 0; j < 6; j++) {
                double b = 16384 / toks[j];
                struct aug_op a = attn_op(b, 2048 / hd, 2048 / hd, toks[j], toks[j], hd, causal,
                                          0);
                struct aug_op c = attn_op(b, 16, 16, toks[j], toks[j], 128, causal, 0);
                a.attn_kernel = c.attn_kernel = f->k;
                add(&st, model_ms(sys, &c) / model_ms(sys, &a), rd[j] / r128[j]);
            }
            char what[96];
            snprintf(what, sizeof what, "%s %s (16k %.2f)", f->kernel,
                     causal ? "causal" : "full", rd[5] / r128[5]);
            print_stats(what, &st);
        }
    }
}

/* ATTN_SOFTMAX_EXPOSED_NATIVE of attention_model.c: k minimizing the squared log error of
 * t64 / t128 over augur-profile's own H100 pairs (golden-section search on [0, 4]); then the
 * held-out checks through aug_op_time (the compiled constant): the H200 pairs and the
 * FlashAttention-3 paper's H100 rate ratios. */
static int fit_softmax(const char *kdb)
{
    enum { MAXP = 64 };
    static const char *gpus[] = {"h100-80g", "h200-141g"};
    for (int gi = 0; gi < 2; gi++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s/raw/attention.csv", kdb ? kdb : aug_kdb_dir(),
                 gpus[gi]);
        struct aug_samples s;
        aug_samples_init(&s);
        struct aug_gpu g;
        if (aug_samples_load_raw(path, &s) != AUG_OK || aug_gpu_lookup(kdb, gpus[gi], &g)) {
            printf("  %s: %s\n", gpus[gi], aug_last_error());
            aug_samples_free(&s);
            continue;
        }
        double meas[MAXP];
        struct aug_op o64[MAXP], o128[MAXP];
        int n = own_pairs(&s, meas, o64, o128, MAXP);
        aug_samples_free(&s);
        double lo = 0, hi = 4, gr = (sqrt(5.0) - 1) / 2;
        for (int it = 0; gi == 0 && it < 80; it++) {
            double a = hi - gr * (hi - lo), b = lo + gr * (hi - lo);
            if (pairs_sse(&g, meas, o64, o128, n, a, NULL) <
                pairs_sse(&g, meas, o64, o128, n, b, NULL))
                hi = b;
            else
                lo = a;
        }
        struct aug_gemm_ceiling c;
        aug_gemm_ceiling_of(&g, AUG_DTYPE_BF16, &c);
        double k = gi == 0 ? 0.5 * (lo + hi)
                           : aug_attention_softmax_cols(&c, g.sm_arch, AUG_ATTN_KERNEL_CUDNN) /
                                 softmax_cols_at(&g, 1.0);
        struct stats st = {.n = 0};
        pairs_sse(&g, meas, o64, o128, n, k, &st);
        char what[96];
        snprintf(what, sizeof what, "%s (%s)", gpus[gi], gi == 0 ? "fit" : "held out");
        print_stats(what, &st);
        if (gi == 0)
            printf("  exposed softmax share fitted on %d %s pairs: k = %.3f, e = %.1f columns "
                   "(attention_model.c ATTN_SOFTMAX_EXPOSED_NATIVE)\n", n, gpus[gi], k,
                   softmax_cols_at(&g, k));
    }
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    if (aug_gpu_lookup(kdb, "h100-80g", &sys.gpu) != AUG_OK)
        return 1;
    printf("  FlashAttention-3 paper, H100 SXM5, rate at head dim 64 over 128 (held out):\n");
    fig5_ratios(&sys, 64);
    /* the figure's panels e and f: the model runs heads wider than 128 at 128's rate
     * (attention_model.c) */
    printf("  the same figure, rate at head dim 256 over 128:\n");
    fig5_ratios(&sys, 256);
    /* Dao-AILab/flash-attention pull request #2605 (2026), its benchmark's cuDNN columns on a
     * Blackwell GPU whose MFU column implies a 2.5 PFLOP/s bf16 peak (GB200's row): forward,
     * no mask, batch 32 x 1024 tokens, heads x head dim = 2048: 979 TFLOP/s at head dim 64,
     * 1428 at 128; the only pair its table shows for both */
    if (aug_gpu_lookup(kdb, "gb200-186g", &sys.gpu) != AUG_OK)
        return 1;
    struct aug_op a = attn_op(32, 32, 32, 1024, 1024, 64, 0, 0);
    struct aug_op b = attn_op(32, 16, 16, 1024, 1024, 128, 0, 0);
    struct stats st = {.n = 0};
    add(&st, model_ms(&sys, &b) / model_ms(&sys, &a), 979.0 / 1428.0);
    printf("  Blackwell cuDNN, 1k tokens, no mask (flash-attention PR #2605): measured %.3f, "
           "model %.3f (%+.1f%%)\n", 979.0 / 1428.0, (st.e[0] + 1) * 979.0 / 1428.0,
           100 * st.e[0]);
    return 0;
}

/* augur-profile's fused forward rows of one GPU (prefill and decode apart). */
static int own(const char *kdb, const char *gpu)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/raw/attention.csv", kdb ? kdb : aug_kdb_dir(), gpu);
    struct aug_samples s;
    aug_samples_init(&s);
    if (aug_samples_load_raw(path, &s) != AUG_OK) {
        printf("  %s: no raw/attention.csv (%s)\n", gpu, aug_last_error());
        aug_samples_free(&s);
        return 0;
    }
    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    if (aug_gpu_lookup(kdb, gpu, &sys.gpu) != AUG_OK) {
        fprintf(stderr, "bench_attention: %s\n", aug_last_error());
        aug_samples_free(&s);
        return 1;
    }
    struct stats pre[2] = {{.n = 0}, {.n = 0}}, dec = {.n = 0};
    for (size_t i = 0; i < s.n; i++) {
        const struct aug_sample *x = &s.v[i];
        if (x->family != AUG_FAMILY_ATTENTION || strncmp(x->op, "fused", 5) != 0 ||
            x->dtype != AUG_DTYPE_BF16)
            continue;
        struct aug_op op = attn_op(x->batch, x->heads, x->heads, x->seq_q, x->seq_kv,
                                   x->head_dim, x->causal, 0);
        double m = model_ms(&sys, &op);
        if (strstr(x->op, "decode"))
            add(&dec, m, x->time_us * 1e-3);
        else
            add(&pre[x->causal ? 1 : 0], m, x->time_us * 1e-3);
    }
    char what[64];
    snprintf(what, sizeof what, "%s prefill, full", gpu);
    print_stats(what, &pre[0]);
    snprintf(what, sizeof what, "%s prefill, causal", gpu);
    print_stats(what, &pre[1]);
    snprintf(what, sizeof what, "%s decode", gpu);
    print_stats(what, &dec);
    aug_samples_free(&s);
    return 0;
}

int main(int argc, char **argv)
{
    const char *kdb = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 < argc && !strcmp(argv[i], "--kdb"))
            kdb = argv[i + 1];
        else {
            fprintf(stderr, "bench_attention: unknown option '%s' (--kdb DIR)\n", argv[i]);
            return 2;
        }
    }
    int rc = published(kdb) || fit_full_gain(kdb);
    printf("2. augur-profile's own fused forward points (cuDNN 9.19.0, bf16)\n");
    rc = rc || own(kdb, "h100-80g") || own(kdb, "h200-141g");
    printf("   head dim 64 against 128 on the same FLOPs\n");
    rc = rc || fit_softmax(kdb);
    printf("3. DeepSeek-V3 latent attention (q.k 192, p.v 128, 128 heads, 4K causal) in "
           "DeepSeek's H800 training trace (deepseek-ai/profile-data@4496024 train.json, "
           "FlashAttention-3 kernels of DeepSeek's fork; model: h800-80g, --attention-kernel "
           "fa3)\n");
    rc = rc || mla(kdb);
    return rc;
}
