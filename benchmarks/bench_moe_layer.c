/* SPDX-License-Identifier: Apache-2.0 */
/* bench_moe_layer.c - one DeepSeek-V3 MoE layer's compute as augur's layer graph times it,
 * against the kernels DeepSeek's own training ran for that layer on H800.
 *
 * Measurement: deepseek-ai/profile-data at 4496024, train.json, a PyTorch-profiler trace
 * of DeepSeek-V3 training (EP 64, TP 1, 4K-token sequences, routing forced to perfect
 * balance: the repository's README) on "NVIDIA H800" (132 SMs): one DualPipe forward chunk
 * and one backward chunk of 4 MoE layers each. The trace's user annotations name each
 * layer's phases, attn(F), mlp(F), attn(B), attn(W), mlp(B), mlp(W) (B: input gradients,
 * W: weight gradients); every kernel is attributed to the phase whose annotation launched it
 * (its cudaLaunchKernel correlation id) and classed by name:
 *   attention  FlashAttention-3 kernels of DeepSeek's fork (forward; backward preprocess,
 *              main and dQ conversion)
 *   GEMM       dpsk::grouped_gemm fp8 kernels: fp8_ptp128c (dense), m_grouped_fp8_ptp128c
 *              (the routed experts), fp8_dptp128c_acc (weight gradients accumulated in fp32)
 *   memory     the rest: fp8 casts and transposes (DeepSeek's 1 x 128 / 128 x 128 scaled
 *              quantization), layer norms, SwiGLU, rotary embedding, copies
 * and summed per layer (us, the four layers in trace order). DeepEP's dispatch and combine
 * kernels of the other chunk ran beside all of them on 20 SMs (their grid), so the model
 * runs h800-80g with 112 of its 132 SMs (rates scaled, memory and L2 whole).
 *
 * Model: deepseek-v3 with every layer MoE (the trace holds MoE layers only), one 4096-token
 * micro-batch, TP 1, EP 64, fp8, dropless with the imbalance at 1.0 (the trace's forced
 * balance), FlashAttention-3, and DeepSeek's recomputation of RMSNorm and the MLA up
 * projections in the backward (DeepSeek-V3 technical report, arXiv 2412.19437, sec. 3.2.3):
 * recompute_modules layernorm, mla_up_proj. The all-to-alls are not compared (DeepEP's
 * kernels wait on their peers in this trace). augur's fp8 is Transformer Engine's
 * per-tensor recipe (one cast-transpose per GEMM input and output gradient); DeepSeek's
 * fine-grained quantization is not modelled, which the memory-bound rows show.
 *
 *   bench_moe_layer [--kdb DIR] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "bench_gpu.h"
#include "model/layer_graph.h"

enum kind { K_ATTN, K_GEMM, K_WGRAD, K_MEM, K_N };
static const char *const kind_name[2][K_N] = {
    {"attention kernel", "GEMMs", "-", "memory-bound"},
    {"attention kernel", "GEMMs, dgrad", "GEMMs, wgrad", "memory-bound"}};

/* Per layer (us), the four layers of the trace; forward = attn(F) + mlp(F), backward =
 * attn(B) + attn(W) + mlp(B) + mlp(W); GEMMs: forward fp8_ptp128c + m_grouped, dgrad the
 * same kernels in attn(B) and mlp(B), wgrad fp8_dptp128c_acc in attn(W) and mlp(W). */
static const double trace_us[2][K_N][4] = {
    /* forward */
    {{1248, 1199, 1280, 1221},
     {4732, 4804, 5401, 4935},  /* dense 1660 1646 1684 1703 + 387 395 405 401, grouped
                                   2685 2763 3312 2831 */
     {0, 0, 0, 0},
     {2576, 2639, 2927, 2904}}, /* attn(F) 1398 1413 1469 1530, mlp(F) 1178 1226 1458 1374 */
    /* backward */
    {{4065, 4348, 4278, 4326},
     {5681, 5535, 5585, 5091},  /* attn(B) 2237 2275 2282 2296, mlp(B) 358 359 373 377 +
                                   3086 2901 2930 2418 */
     {8197, 7844, 9069, 7646},  /* attn(W) 2375 2382 2392 2405, mlp(W) 5822 5462 6677 5241 */
     {5563, 5454, 5591, 5381}}, /* attn(B) 2716 2745 2892 2903, mlp(B) 2249 2148 2104 1921,
                                   mlp(W) 598 561 595 557 */
};
#define SMS_FREE 112 /* 132 less DeepEP's 20 */

static enum kind kind_of(const struct aug_op *op)
{
    if (op->kind == AUG_OP_GEMM)
        return strstr(op->name, "_wgrad") ? K_WGRAD : K_GEMM;
    return op->kind == AUG_OP_ATTENTION ? K_ATTN : K_MEM;
}

/* Model time (us) of one list per kind: each op alone, times its executions per layer;
 * collectives are left out. */
static int sum_list(const struct aug_op_ctx *ctx, const struct aug_graph_op *ops, int n,
                    double k, double out[K_N])
{
    for (int i = 0; i < n; i++) {
        const struct aug_op *op = &ops[i].op;
        if (op->kind == AUG_OP_COLLECTIVE || !(op->count > 0))
            continue;
        struct aug_op_time t;
        if (aug_op_time(ctx, op, &t) != AUG_OK)
            return 1;
        out[kind_of(op)] += k * t.time_s * 1e6 * op->count;
    }
    return 0;
}

static double mean4(const double v[4]) { return (v[0] + v[1] + v[2] + v[3]) / 4.0; }

int main(int argc, char **argv)
{
    const char *kdb_dir = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 < argc && !strcmp(argv[i], "--kdb"))
            kdb_dir = argv[i + 1];
        else {
            fprintf(stderr, "bench_moe_layer: unknown option '%s' (--kdb DIR)\n", argv[i]);
            return 2;
        }
    }
    struct aug_model m;
    struct aug_system s;
    if (aug_model_load(NULL, "deepseek-v3", &m) != AUG_OK ||
        aug_system_load(NULL, "hgx-h800", &s) != AUG_OK) {
        fprintf(stderr, "bench_moe_layer: %s\n", aug_last_error());
        return 1;
    }
    m.moe_dense_layers = 0; /* MoE layers only, as the trace */
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = 512;
    p.tp = 1;
    p.pp = 8;
    p.ep = 64;
    p.etp = 1;
    p.uneven_pp = 1;
    p.micro_batch = 1;
    p.global_batch = 4096;
    p.seq = 4096;
    p.dtype = AUG_DTYPE_FP8;
    p.attn_kernel = AUG_ATTN_KERNEL_FA3;
    p.moe_imbalance = 1.0;
    p.recompute = AUG_RECOMPUTE_SELECTIVE;
    p.recompute_modules = AUG_RC_MLA_UP_PROJ | AUG_RC_LAYERNORM;
    struct aug_kdb *kdb = NULL;
    if (aug_plan_resolve(&p, &m, &s) != AUG_OK ||
        aug_kdb_open(kdb_dir, s.gpu.id, &kdb) != AUG_OK) {
        fprintf(stderr, "bench_moe_layer: %s\n", aug_last_error());
        return 1;
    }
    struct aug_graph layer, first, last;
    aug_graph_all(&m, &p, &s, &layer, &first, &last);
    struct aug_gpu whole = s.gpu;
    double model[2][2][K_N]; /* [SMs: 112, 132][fwd, bwd][kind] */
    memset(model, 0, sizeof model);
    for (int w = 0; w < 2; w++) {
        s.gpu = w ? whole : aug_bench_gpu_with_sms(whole, SMS_FREE);
        struct aug_op_ctx ctx = {&s, kdb, 0};
        int rc = sum_list(&ctx, layer.fwd, layer.n_fwd, 1.0, model[w][0]);
        rc = rc || sum_list(&ctx, layer.bwd, layer.n_bwd, 1.0, model[w][1]);
        /* the recomputed forward ops run in the backward */
        for (int i = 0; !rc && i < layer.n_fwd; i++)
            if (layer.fwd[i].rc & p.recompute_modules)
                rc = sum_list(&ctx, &layer.fwd[i], 1, 1.0, model[w][1]);
        if (rc) {
            fprintf(stderr, "bench_moe_layer: %s\n", aug_last_error());
            aug_kdb_close(kdb);
            return 1;
        }
    }
    aug_kdb_close(kdb);
    printf("DeepSeek-V3 MoE layer on H800, fp8, 4096 tokens, TP 1, EP 64: kernel time per "
           "layer (deepseek-ai/profile-data@4496024 train.json, mean of 4 layers) against "
           "augur (h800-80g on %d SMs; on all %d in brackets)\n", SMS_FREE, whole.sm_count);
    printf("  %-8s %-17s %9s %9s %7s %11s\n", "pass", "kind", "trace us", "model us", "error",
           "(132 SMs)");
    for (int pass = 0; pass < 2; pass++) {
        double tt = 0, mt = 0, mw = 0;
        for (int k = 0; k < K_N; k++) {
            if (!pass && k == K_WGRAD)
                continue;
            double t = mean4(trace_us[pass][k]), md = model[0][pass][k];
            tt += t;
            mt += md;
            mw += model[1][pass][k];
            printf("  %-8s %-17s %9.0f %9.0f %+6.1f%% %11.0f\n", pass ? "backward" : "forward",
                   kind_name[pass][k], t, md, 100 * (md / t - 1), model[1][pass][k]);
        }
        printf("  %-8s %-17s %9.0f %9.0f %+6.1f%% %11.0f\n", pass ? "backward" : "forward",
               "total", tt, mt, 100 * (mt / tt - 1), mw);
    }
    return 0;
}
