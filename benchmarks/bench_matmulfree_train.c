/* SPDX-License-Identifier: Apache-2.0 */
/* bench_matmulfree_train.c - MatMul-free LM training on 8 H100 against what Zhu et al.
 * 2024 (arXiv 2406.02528, sec. 5) report for their runs: 370M on 15B tokens in 5 hours,
 * 1.3B and 2.7B on 100B tokens in 84 and 173 hours, each on 8 NVIDIA H100 GPUs. Those are
 * wall-clock averages of whole runs (evaluation, checkpoints and data loading included),
 * so the predicted steady-state throughput should lie somewhat above them.
 *
 *   build/benchmarks/bench_matmulfree_train
 *
 * Plan (not published in the paper; assumptions stated in the output): plain data
 * parallelism over the 8 GPUs, sequence 2048, 256 sequences (0.5M tokens) per step, the
 * largest micro-batch that fits in memory, bf16. Each model is predicted with the
 * reference implementation's tensor-core BitLinear (the default) and with accumulate-only
 * kernels, with the predicted memory per GPU of the chosen micro-batch. The paper gives
 * training memory only relative to its unfused baseline (up to 61% less), which augur does
 * not model, so no absolute memory comparison is made. */
#include <stdio.h>

#include "augur/augur.h"

static const struct {
    const char *model;
    double tokens, hours;
} runs[] = {
    {"matmulfree-370m", 15e9, 5.0},
    {"matmulfree-1.3b", 100e9, 84.0},
    {"matmulfree-2.7b", 100e9, 173.0},
};

static int predict(const struct aug_model *m, const struct aug_system *s, const struct aug_kdb *k,
                   enum aug_ternary_kernel kernel, long *mb_out, struct aug_train_result *out) {
    static const long mbs[] = {32, 16, 8, 4, 2, 1};
    for (size_t i = 0; i < sizeof mbs / sizeof *mbs; i++) {
        struct aug_plan p;
        aug_plan_init(&p);
        p.gpus = 8;
        p.micro_batch = mbs[i];
        p.global_batch = 256;
        p.seq = 2048;
        p.ternary = kernel;
        if (aug_plan_resolve(&p, m, s) != AUG_OK)
            continue;
        struct aug_train_options o = {k, 0, NULL, 0.0};
        if (aug_train_predict(m, s, &p, &o, out) != AUG_OK)
            return -1;
        if (out->fits_in_memory) {
            *mb_out = mbs[i];
            return 0;
        }
    }
    return -1;
}

int main(void) {
    struct aug_system s;
    if (aug_system_load(NULL, "dgx-h100", &s) != AUG_OK) {
        fprintf(stderr, "bench_matmulfree_train: %s\n", aug_last_error());
        return 1;
    }
    struct aug_kdb *k = NULL;
    if (aug_kdb_open(NULL, s.gpu.id, &k) != AUG_OK) {
        fprintf(stderr, "bench_matmulfree_train: %s\n", aug_last_error());
        return 1;
    }
    printf("# MatMul-free LM training, 8 x %s, dp 8, seq 2048, 256 sequences per step\n",
           s.gpu.name);
    printf("# published: Zhu et al. 2024 (arXiv 2406.02528) sec. 5, run tokens / wall-clock "
           "hours\n");
    printf("%-16s %12s %8s %12s %8s %9s %12s %8s\n", "model", "paper_tok/s", "kernel",
           "pred_tok/s", "error%", "mb", "mem_GiB/GPU", "MFU%");
    int rc = 0;
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        struct aug_model m;
        if (aug_model_load(NULL, runs[i].model, &m) != AUG_OK) {
            fprintf(stderr, "bench_matmulfree_train: %s\n", aug_last_error());
            rc = 1;
            break;
        }
        double paper = runs[i].tokens / (runs[i].hours * 3600.0);
        for (int kernel = AUG_TERNARY_TENSOR; kernel >= AUG_TERNARY_ACCUMULATE; kernel--) {
            struct aug_train_result r;
            long mb = 0;
            if (predict(&m, &s, k, (enum aug_ternary_kernel)kernel, &mb, &r) != 0) {
                printf("%-16s %12.0f %8s %12s\n", runs[i].model, paper,
                       aug_ternary_kernel_name((enum aug_ternary_kernel)kernel), "no fit");
                continue;
            }
            printf("%-16s %12.0f %8s %12.0f %+8.1f %9ld %12.1f %8.1f\n", runs[i].model, paper,
                   aug_ternary_kernel_name((enum aug_ternary_kernel)kernel), r.tokens_per_s,
                   100.0 * (r.tokens_per_s - paper) / paper, mb, r.memory.total_gib,
                   100.0 * r.mfu);
        }
    }
    aug_kdb_close(k);
    return rc;
}
