/* SPDX-License-Identifier: Apache-2.0 */
/* bench_serving.c - speed of the serving simulation: 10,000 requests of 2,000 output
 * tokens (and 1,000 prompt tokens) offline through TensorRT-LLM's in-flight batching, for
 * Llama-3-70B on one H200 in FP8 and Llama-3-8B on one H100 (a larger batch), with the
 * calibrated curves of kernels-db, each repeated for about a second on one core; and a
 * server run of the same requests with Poisson arrivals at 2 requests/s. Prints the wall
 * time per simulation, the steps simulated and the step compositions timed.
 * Run: ./build/benchmarks/bench_serving [seconds] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "augur/augur.h"
#include "augur/serving.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench(const char *label, const char *model, const char *system, double rate,
                 double seconds) {
    struct aug_model m;
    struct aug_system s;
    struct aug_kdb *kdb = NULL;
    if (aug_model_load(NULL, model, &m) != AUG_OK || aug_system_load(NULL, system, &s) != AUG_OK) {
        fprintf(stderr, "bench_serving: %s\n", aug_last_error());
        return 1;
    }
    if (aug_kdb_open(NULL, s.gpu.id, &kdb) != AUG_OK)
        kdb = NULL;
    struct aug_infer_plan p;
    aug_infer_plan_init(&p);
    p.input_len = 1000;
    p.output_len = 2000;
    p.dtype = AUG_DTYPE_FP8;
    p.kv_dtype = AUG_DTYPE_FP8;
    struct aug_len_dist in = {AUG_LEN_FIXED, 1000, 0}, out = {AUG_LEN_FIXED, 2000, 0};
    struct aug_requests r;
    struct aug_serve_config c;
    aug_serve_config_init(&c, AUG_ENGINE_TRTLLM);
    struct aug_infer_options opt = {kdb, 0};
    struct aug_serve_result res;
    int rc = 1;
    if (aug_infer_plan_resolve(&p, &m, &s) != AUG_OK ||
        aug_requests_generate(&in, &out, 10000, rate, 1, &r) != AUG_OK) {
        fprintf(stderr, "bench_serving: %s\n", aug_last_error());
        aug_kdb_close(kdb);
        return 1;
    }
    long n = 0;
    double t0 = now(), t;
    do {
        if (aug_serve_simulate(&m, &s, &p, &opt, &c, &r,
                               rate > 0 ? AUG_SCENARIO_SERVER : AUG_SCENARIO_OFFLINE, &res) != AUG_OK) {
            fprintf(stderr, "bench_serving: %s\n", aug_last_error());
            goto done;
        }
        n++;
        t = now() - t0;
    } while (t < seconds);
    printf("%-40s %9.2f ms per simulation (%ld runs): %ld steps, %ld timed, %.0f output tokens/s\n",
           label, 1e3 * t / (double)n, n, res.steps, res.distinct_steps, res.output_tokens_per_s);
    rc = 0;
done:
    aug_requests_free(&r);
    aug_kdb_close(kdb);
    return rc;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    printf("10,000 requests x (1,000 prompt + 2,000 output tokens), TensorRT-LLM preset\n");
    return bench("offline llama3-70b fp8, 1 x H200", "llama3-70b", "dgx-h200", 0.0, seconds) ||
           bench("offline llama3-8b fp8, 1 x H100", "llama3-8b", "dgx-h100", 0.0, seconds) ||
           bench("server 2 req/s llama3-70b fp8, 1 x H200", "llama3-70b", "dgx-h200", 2.0, seconds);
}
