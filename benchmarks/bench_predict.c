/* SPDX-License-Identifier: Apache-2.0 */
/* bench_predict.c - speed of one training prediction: GPT-3 175B on 1,024 A100 (tp 8,
 * pp 16, dp 8, interleave 2, global batch 1536, full recomputation), repeated for about a
 * second on one core, with and without the calibrated curves of kernels-db.
 * Run: ./build/benchmarks/bench_predict [seconds] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "augur/augur.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run(const char *label, const struct aug_model *m, const struct aug_system *s,
               const struct aug_plan *p, const struct aug_kdb *kdb, double seconds) {
    struct aug_train_options opt = {kdb, 0, NULL, 0.0};
    struct aug_train_result r;
    long n = 0;
    double sink = 0, t0 = now(), t;
    do {
        for (int i = 0; i < 1000; i++) {
            if (aug_train_predict(m, s, p, &opt, &r) != AUG_OK) {
                fprintf(stderr, "bench_predict: %s\n", aug_last_error());
                return 1;
            }
            sink += r.step_time_s;
        }
        n += 1000;
        t = now() - t0;
    } while (t < seconds);
    printf("%-34s %10.3f us per prediction  %12.0f predictions/s  (step %.4f s, %ld runs)\n", label,
           1e6 * t / (double)n, (double)n / t, sink / (double)n, n);
    return 0;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    struct aug_model m;
    struct aug_system s;
    struct aug_plan p;
    if (aug_model_load(NULL, "gpt3-175b", &m) != AUG_OK ||
        aug_system_load(NULL, "dgx-a100-80g", &s) != AUG_OK) {
        fprintf(stderr, "bench_predict: %s\n", aug_last_error());
        return 1;
    }
    aug_plan_init(&p);
    p.gpus = 1024;
    p.tp = 8;
    p.pp = 16;
    p.interleave = 2;
    p.micro_batch = 1;
    p.global_batch = 1536;
    p.recompute = AUG_RECOMPUTE_FULL;
    if (aug_plan_resolve(&p, &m, &s) != AUG_OK) {
        fprintf(stderr, "bench_predict: %s\n", aug_last_error());
        return 1;
    }
    struct aug_kdb *kdb = NULL;
    if (aug_kdb_open(NULL, s.gpu.id, &kdb) != AUG_OK)
        kdb = NULL;
    printf("# one training prediction, GPT-3 175B on 1024 x A100 (one core)\n");
    int rc = run("fallback defaults only", &m, &s, &p, NULL, seconds);
    if (!rc && kdb)
        rc = run("with calibrated kernels-db curves", &m, &s, &p, kdb, seconds);
    aug_kdb_close(kdb);
    return rc;
}
