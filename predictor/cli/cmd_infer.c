/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_infer.c - `augur infer`: serving latency (time to first token, time per output
 * token), throughput, memory per GPU and the largest batch of a model on a system, for
 * static batching, steady-state continuous batching or prefill/decode disaggregation;
 * --ops adds the per-op bound analysis. Table, JSON (DESIGN section 3 keys) or CSV. */
#include "cmd_infer.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "augur/infer.h"
#include "augur/serving.h"
#include "cli.h"
#include "infer_cli.h"
#include "serve_cli.h"


static void help(void) {
    printf(
        "usage: augur infer --model M --system S [--gpus N] [--tp T] [--pp P] [--ep E] --batch B\n"
        "                   --input-len I --output-len O [--dtype D] [--weight-dtype D]\n"
        "                   [--kv-dtype D] [--attention fused|unfused]\n"
        "                   [--decode-attention grouped|per-head] [--attn-dp] [--ops]\n"
        "                   [--mode static|continuous|disaggregated|offline|server]\n"
        "                   [--request-rate R]\n"
        "                   [--concurrency C] [--chunk-tokens K] [--prefill-gpus N]\n"
        "                   [--prefill-tp T] [--decode-gpus N] [--decode-tp T]\n"
        "                   [--kv-link nvlink|network] [--launch-us US] [--step-overhead-us US]\n"
        "                   [--workspace-gib G] [--kdb DIR] [--roofline]\n"
        "                   [--format table|json|csv] [--output FILE]\n"
        "       augur infer --mode offline|server --model M --system S [--gpus N] [--tp T]\n"
        "                   [--pp P] [--ep E] (--requests FILE.csv | --input-len DIST\n"
        "                   --output-len DIST [--num-requests N] [--seed S])\n"
        "                   [--request-rate R] [--engine trtllm|trtllm-trt|vllm|sglang]\n"
        "                   [--policy no-evict|max-util] [--kv-fraction F] [--max-batch B]\n"
        "                   [--max-num-tokens K] [--block-tokens T] [--no-chunked-prefill]\n"
        "                   [dtypes, floors, --kdb, --format, --output as above]\n\n"
        "Predicts serving of a batch of B sequences of I prompt tokens that each generate O\n"
        "tokens: time to first token (prefill of the batch), time per output token (mean and\n"
        "last decode step; each step reads every weight and the KV cache), end-to-end latency,\n"
        "output and total tokens/s, memory per GPU, whether it fits and the largest batch.\n"
        "--decode-attention per-head: the decode kernel reads each KV head once per query\n"
        "head (TensorRT-LLM masked MHA before XQA, vLLM PagedAttention) instead of once per\n"
        "GQA group (flash-decoding, XQA, FlashInfer: the default).\n"
        "One replica spans tp*pp GPUs; more --gpus are replicas that share the batch; --ep\n"
        "spreads MoE experts over the TP group (it must divide --tp). --attn-dp (MoE, ep = tp):\n"
        "attention data-parallel over the TP ranks, each holding all heads and the KV cache\n"
        "of its own sequences, experts reached by all-to-all (SGLang, TensorRT-LLM).\n"
        "Dtypes (fp32, bf16, fp16, fp8, int8, int4): --dtype is the GEMM compute dtype;\n"
        "--weight-dtype and --kv-dtype (default: --dtype) set the bytes stored and moved.\n"
        "Modes: static (one batch); continuous (steady state at --concurrency requests in\n"
        "flight, default B, or at --request-rate requests/s; --chunk-tokens splits prompts);\n"
        "disaggregated (prefill and decode on separate pools, Splitwise; the KV cache crosses\n"
        "--kv-link, default nvlink when both pools fit one NVLink domain).\n"
        "Floors: --launch-us per kernel (default: the GPU's launch_us in kernels-db/gpus.csv),\n"
        "--step-overhead-us per forward step (default %.0f). --ops prints every op of the\n"
        "prefill and of the mean decode step with its arithmetic intensity against the GPU's\n"
        "ridge point, its bound and its share of the step. --kdb names a kernels-db root;\n"
        "--roofline ignores curves, defaults and floors (peak rates).\n\n"
        "offline: every request is queued at once and an in-flight-batching scheduler runs\n"
        "them step by step (decode tokens plus prompt chunks up to --max-num-tokens, paged KV\n"
        "cache of --kv-fraction of the memory, at most --max-batch requests per replica):\n"
        "output and total tokens/s over the whole run, requests/s, mean batch, KV use and\n"
        "the time in prefill, decode and mixed steps (trtllm-bench throughput, vLLM\n"
        "benchmark_throughput, MLPerf Offline). server: requests arrive at --request-rate\n"
        "(Poisson) or at the file's arrival_s; TTFT, TPOT, inter-token and end-to-end latency\n"
        "as mean, p50, p90, p99, and whether the load is sustainable. Requests: --requests\n"
        "FILE.csv (columns input_len, output_len, optional arrival_s) or --input-len and\n"
        "--output-len as N, fixed:N, normal:MEAN,STD, uniform:LO,HI or lognormal:MEDIAN,SIGMA\n"
        "(--num-requests, default 1000; --seed, default 1: the same seed, the same list).\n"
        "--engine (default trtllm, TensorRT-LLM's PyTorch backend; trtllm-trt its TensorRT-\n"
        "engine backend) sets the scheduler policy, KV fraction and block size, runtime floors,\n"
        "max batch and max tokens, and the KV-cache dtype when --kv-dtype is not given\n"
        "(TensorRT-LLM: FP8 with FP8 weights, but 16-bit on trtllm for a model whose FP8\n"
        "checkpoint has no KV quantization, fp8_recipe per_channel_per_token; vLLM, SGLang:\n"
        "the 16-bit activation dtype).\n",
        AUG_INFER_DEFAULT_STEP_OVERHEAD_US);
}

enum {
    OPT_MODEL = 256, OPT_SYSTEM, OPT_GPUS, OPT_TP, OPT_PP, OPT_EP, OPT_BATCH, OPT_IN, OPT_OUT,
    OPT_DTYPE, OPT_WDTYPE, OPT_KVDTYPE, OPT_ATTENTION, OPT_DECODE_ATT, OPT_OPS, OPT_MODE, OPT_RATE, OPT_CONC,
    OPT_CHUNK, OPT_PGPUS, OPT_PTP, OPT_DGPUS, OPT_DTP, OPT_LINK, OPT_LAUNCH, OPT_STEP, OPT_WS,
    OPT_KDB, OPT_ROOFLINE, OPT_FORMAT, OPT_OUTPUT, OPT_HELP, OPT_ATTN_DP, OPT_REQUESTS, OPT_NREQ,
    OPT_SEED, OPT_ENGINE, OPT_POLICY, OPT_KVFRAC, OPT_MAXBATCH, OPT_MAXTOK, OPT_BLOCK, OPT_NOCHUNK
};

static const struct option options[] = {
    {"model", required_argument, 0, OPT_MODEL},
    {"system", required_argument, 0, OPT_SYSTEM},
    {"gpus", required_argument, 0, OPT_GPUS},
    {"tp", required_argument, 0, OPT_TP},
    {"pp", required_argument, 0, OPT_PP},
    {"ep", required_argument, 0, OPT_EP},
    {"batch", required_argument, 0, OPT_BATCH},
    {"input-len", required_argument, 0, OPT_IN},
    {"output-len", required_argument, 0, OPT_OUT},
    {"dtype", required_argument, 0, OPT_DTYPE},
    {"weight-dtype", required_argument, 0, OPT_WDTYPE},
    {"kv-dtype", required_argument, 0, OPT_KVDTYPE},
    {"attention", required_argument, 0, OPT_ATTENTION},
    {"decode-attention", required_argument, 0, OPT_DECODE_ATT},
    {"attn-dp", no_argument, 0, OPT_ATTN_DP},
    {"ops", no_argument, 0, OPT_OPS},
    {"mode", required_argument, 0, OPT_MODE},
    {"request-rate", required_argument, 0, OPT_RATE},
    {"concurrency", required_argument, 0, OPT_CONC},
    {"chunk-tokens", required_argument, 0, OPT_CHUNK},
    {"prefill-gpus", required_argument, 0, OPT_PGPUS},
    {"prefill-tp", required_argument, 0, OPT_PTP},
    {"decode-gpus", required_argument, 0, OPT_DGPUS},
    {"decode-tp", required_argument, 0, OPT_DTP},
    {"kv-link", required_argument, 0, OPT_LINK},
    {"launch-us", required_argument, 0, OPT_LAUNCH},
    {"step-overhead-us", required_argument, 0, OPT_STEP},
    {"workspace-gib", required_argument, 0, OPT_WS},
    {"kdb", required_argument, 0, OPT_KDB},
    {"roofline", no_argument, 0, OPT_ROOFLINE},
    {"format", required_argument, 0, OPT_FORMAT},
    {"output", required_argument, 0, OPT_OUTPUT},
    {"help", no_argument, 0, OPT_HELP},
    {"requests", required_argument, 0, OPT_REQUESTS},
    {"num-requests", required_argument, 0, OPT_NREQ},
    {"seed", required_argument, 0, OPT_SEED},
    {"engine", required_argument, 0, OPT_ENGINE},
    {"policy", required_argument, 0, OPT_POLICY},
    {"kv-fraction", required_argument, 0, OPT_KVFRAC},
    {"max-batch", required_argument, 0, OPT_MAXBATCH},
    {"max-num-tokens", required_argument, 0, OPT_MAXTOK},
    {"block-tokens", required_argument, 0, OPT_BLOCK},
    {"no-chunked-prefill", no_argument, 0, OPT_NOCHUNK},
    {0, 0, 0, 0},
};

static int dtype_opt(const char *cmd, const char *opt, const char *val, enum aug_dtype *out) {
    if (aug_dtype_from_name(val, out) != AUG_OK)
        return aug_cli_usage(cmd, "%s: unknown dtype '%s' (use fp32, bf16, fp16, fp8, int8 or int4)",
                             opt, val);
    return 0;
}

/* A number in [0, max]: the ceilings are far above any real value, so that an extra
 * digit or a unit slip is a usage error instead of a silently absurd prediction. */
static int nonneg(const char *cmd, const char *opt, const char *val, double max, double *out) {
    int rc = aug_cli_double(cmd, opt, val, out);
    if (rc)
        return rc;
    if (*out < 0)
        return aug_cli_usage(cmd, "%s: %s must not be negative", opt, val);
    if (*out > max)
        return aug_cli_usage(cmd, "%s: %s is above %g", opt, val, max);
    return 0;
}

enum { SV_NONE, SV_OFFLINE, SV_SERVER };

struct serve_args {
    int scenario;
    const char *file;
    long num_requests, seed, max_batch, max_tokens, block;
    double kv_fraction;
    enum aug_engine engine;
    enum aug_sched_policy policy;
    int have_policy, have_rate, no_chunk;
};

/* `augur infer --mode offline|server`: the request list, the engine's settings, the
 * simulation and its report. */
static int serve(const struct serve_args *a, struct aug_infer_plan *plan, const char *in_spec,
                 const char *out_spec, const char *model_arg, const char *system_arg,
                 const char *kdb_arg, int roofline, enum aug_format fmt, const char *output) {
    const char *cmd = "infer";
    int server = a->scenario == SV_SERVER, st, rc;
    if (fmt == AUG_FORMAT_CSV)
        return aug_cli_usage(cmd, "--format csv: use table or json with --mode offline or server");
    if (plan->mode != AUG_SERVE_STATIC)
        return aug_cli_usage(cmd, "--mode offline|server replaces static, continuous and "
                                  "disaggregated");
    if (server && !a->have_rate && !a->file)
        return aug_cli_usage(cmd, "--mode server needs --request-rate R (requests/s) or a --requests "
                                  "file with arrival_s");
    if (server && a->have_rate && !(plan->request_rate > 0))
        return aug_cli_usage(cmd, "--request-rate 0: a server needs a positive rate of requests/s");
    if (!server && a->have_rate)
        return aug_cli_usage(cmd, "--request-rate applies to --mode server (offline queues every "
                                  "request at once)");
    if (a->file && (in_spec || out_spec))
        return aug_cli_usage(cmd, "--requests FILE gives the lengths: drop --input-len and "
                                  "--output-len");
    if (!a->file && (!in_spec || !out_spec))
        return aug_cli_usage(cmd, "--mode %s needs --requests FILE.csv or both --input-len and "
                                  "--output-len (a length or a distribution)",
                             server ? "server" : "offline");
    struct aug_requests reqs;
    struct aug_serve_run_info info;
    memset(&info, 0, sizeof info);
    info.seed = (unsigned long long)a->seed;
    if (a->file) {
        if ((st = aug_requests_load(a->file, &reqs)) != AUG_OK)
            return aug_cli_fail(st, NULL);
        info.requests_source = a->file;
        info.input_spec = info.output_spec = "from the file";
        info.arrivals_from_file = reqs.has_arrivals && !a->have_rate;
        if (server && !reqs.has_arrivals && !a->have_rate) {
            aug_requests_free(&reqs);
            return aug_cli_usage(cmd, "%s has no arrival_s column: give --request-rate", a->file);
        }
        if (server && a->have_rate &&
            (st = aug_requests_poisson(&reqs, plan->request_rate, info.seed)) != AUG_OK) {
            aug_requests_free(&reqs);
            return aug_cli_usage(cmd, "%s", aug_last_error());
        }
    } else {
        struct aug_len_dist din, dout;
        if (aug_len_dist_parse(in_spec, &din) != AUG_OK)
            return aug_cli_usage(cmd, "--input-len: %s", aug_last_error());
        if (aug_len_dist_parse(out_spec, &dout) != AUG_OK)
            return aug_cli_usage(cmd, "--output-len: %s", aug_last_error());
        if ((st = aug_requests_generate(&din, &dout, a->num_requests, server ? plan->request_rate : 0.0,
                                        info.seed, &reqs)) != AUG_OK)
            return st == AUG_EUSAGE ? aug_cli_usage(cmd, "%s", aug_last_error()) : aug_cli_fail(st, NULL);
        info.requests_source = "generated";
        info.input_spec = in_spec;
        info.output_spec = out_spec;
    }
    struct aug_model model;
    struct aug_system sys;
    if ((rc = aug_cli_load_model_system(kdb_arg, model_arg, system_arg, &model, &sys))) {
        aug_requests_free(&reqs);
        return rc;
    }
    /* the plan's own checks at the longest request; one sequence per replica */
    long max_in = 1, max_out = 1;
    for (long i = 0; i < reqs.n; i++) {
        if (reqs.r[i].input_len > max_in)
            max_in = reqs.r[i].input_len;
        if (reqs.r[i].output_len > max_out)
            max_out = reqs.r[i].output_len;
    }
    plan->input_len = max_in;
    plan->output_len = max_out;
    long rep = plan->tp * plan->pp;
    plan->batch = plan->gpus > 0 && plan->gpus % rep == 0 ? plan->gpus / rep : 1;
    if ((unsigned)plan->kv_dtype >= AUG_DTYPE_COUNT)
        plan->kv_dtype = aug_engine_kv_dtype(a->engine, plan->dtype, plan->weight_dtype,
                                             model.fp8_recipe, &info.kv_dtype_why);
    if ((st = aug_infer_plan_resolve(plan, &model, &sys)) != AUG_OK) {
        aug_requests_free(&reqs);
        return st == AUG_EUSAGE ? aug_cli_usage(cmd, "%s", aug_last_error()) : aug_cli_fail(st, NULL);
    }
    struct aug_serve_config cfg;
    aug_serve_config_init(&cfg, a->engine);
    if (a->have_policy)
        cfg.policy = a->policy;
    if (a->kv_fraction > 0)
        cfg.kv_fraction = a->kv_fraction;
    cfg.max_batch = a->max_batch;
    cfg.max_num_tokens = a->max_tokens;
    if (a->block > 0)
        cfg.block_tokens = a->block;
    if (a->no_chunk)
        cfg.chunked_prefill = 0;
    info.max_batch_given = a->max_batch > 0;
    info.max_tokens_given = a->max_tokens > 0;
    info.kv_fraction_given = a->kv_fraction > 0;
    info.step_overhead_us = aug_cli_serve_step_overhead_us(&cfg, &model, plan, roofline);
    struct aug_kdb *kdb = NULL;
    if (!roofline && (st = aug_kdb_open_predict(kdb_arg, sys.gpu.id, &kdb)) != AUG_OK) {
        aug_requests_free(&reqs);
        return aug_cli_fail(st, NULL);
    }
    struct aug_infer_options opt = {kdb, roofline};
    struct aug_serve_result res;
    st = aug_serve_simulate(&model, &sys, plan, &opt, &cfg, &reqs,
                            server ? AUG_SCENARIO_SERVER : AUG_SCENARIO_OFFLINE, &res);
    aug_kdb_close(kdb);
    aug_requests_free(&reqs);
    if (st != AUG_OK)
        return st == AUG_EUSAGE ? aug_cli_usage(cmd, "%s", aug_last_error()) : aug_cli_fail(st, NULL);
    FILE *f = aug_cli_open_output(output);
    if (!f)
        return 1;
    rc = 0;
    if (fmt == AUG_FORMAT_TABLE) {
        aug_cli_serve_table(f, &model, &sys, plan, &info, &res);
    } else {
        json_t *obj = aug_cli_serve_json(&model, &sys, plan, &info, &res);
        rc = aug_cli_write(f, fmt, obj);
        json_decref(obj);
    }
    if (aug_cli_close_output(f, output) != 0 || rc != 0)
        return 1;
    return 0;
}

int aug_cmd_infer(int argc, char **argv) {
    const char *model_arg = NULL, *system_arg = NULL, *kdb_arg = NULL, *output = NULL;
    enum aug_format fmt = AUG_FORMAT_TABLE;
    int roofline = 0, want_ops = 0, have_batch = 0, have_in = 0, have_out = 0, rc;
    const char *in_spec = NULL, *out_spec = NULL;
    struct serve_args sv;
    memset(&sv, 0, sizeof sv);
    sv.num_requests = 1000;
    sv.seed = 1;
    sv.engine = AUG_ENGINE_TRTLLM;
    struct aug_infer_plan plan;
    aug_infer_plan_init(&plan);
    const char *cmd = "infer";
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (c) {
        case OPT_MODEL: model_arg = optarg; break;
        case OPT_SYSTEM: system_arg = optarg; break;
        case OPT_GPUS: if ((rc = aug_cli_long(cmd, "--gpus", optarg, 1, 100000000, &plan.gpus))) return rc; break;
        case OPT_TP: if ((rc = aug_cli_long(cmd, "--tp", optarg, 1, 1 << 20, &plan.tp))) return rc; break;
        case OPT_PP: if ((rc = aug_cli_long(cmd, "--pp", optarg, 1, 1 << 20, &plan.pp))) return rc; break;
        case OPT_EP: if ((rc = aug_cli_long(cmd, "--ep", optarg, 1, 1 << 20, &plan.ep))) return rc; break;
        case OPT_BATCH:
            if ((rc = aug_cli_long(cmd, "--batch", optarg, 1, 1L << 40, &plan.batch))) return rc;
            have_batch = 1;
            break;
        case OPT_IN: in_spec = optarg; have_in = 1; break;
        case OPT_OUT: out_spec = optarg; have_out = 1; break;
        case OPT_DTYPE: if ((rc = dtype_opt(cmd, "--dtype", optarg, &plan.dtype))) return rc; break;
        case OPT_WDTYPE: if ((rc = dtype_opt(cmd, "--weight-dtype", optarg, &plan.weight_dtype))) return rc; break;
        case OPT_KVDTYPE: if ((rc = dtype_opt(cmd, "--kv-dtype", optarg, &plan.kv_dtype))) return rc; break;
        case OPT_ATTENTION:
            if (strcmp(optarg, "fused") == 0 || strcmp(optarg, "flash") == 0)
                plan.flash_attention = 1;
            else if (strcmp(optarg, "unfused") == 0)
                plan.flash_attention = 0;
            else
                return aug_cli_usage(cmd, "--attention: use fused or unfused, not '%s'", optarg);
            break;
        case OPT_ATTN_DP: plan.attn_dp = 1; break;
        case OPT_DECODE_ATT:
            if (strcmp(optarg, "grouped") == 0)
                plan.decode_per_head = 0;
            else if (strcmp(optarg, "per-head") == 0 || strcmp(optarg, "per_head") == 0)
                plan.decode_per_head = 1;
            else
                return aug_cli_usage(cmd, "--decode-attention: use grouped or per-head, not '%s'",
                                     optarg);
            break;
        case OPT_OPS: want_ops = 1; break;
        case OPT_MODE:
            if (strcmp(optarg, "offline") == 0 || strcmp(optarg, "server") == 0)
                sv.scenario = strcmp(optarg, "offline") == 0 ? SV_OFFLINE : SV_SERVER;
            else if (aug_serve_mode_from_name(optarg, &plan.mode) != AUG_OK)
                return aug_cli_usage(cmd, "--mode: %s (or offline, server)", aug_last_error());
            else
                sv.scenario = SV_NONE;
            break;
        case OPT_RATE:
            if ((rc = nonneg(cmd, "--request-rate", optarg, 1e9, &plan.request_rate))) return rc;
            sv.have_rate = 1;
            break;
        case OPT_REQUESTS: sv.file = optarg; break;
        case OPT_NREQ:
            if ((rc = aug_cli_long(cmd, "--num-requests", optarg, 1, 10000000, &sv.num_requests))) return rc;
            break;
        case OPT_SEED:
            if ((rc = aug_cli_long(cmd, "--seed", optarg, 0, 0x7fffffffffffffffL, &sv.seed))) return rc;
            break;
        case OPT_ENGINE:
            if (aug_engine_from_name(optarg, &sv.engine) != AUG_OK)
                return aug_cli_usage(cmd, "--engine: %s", aug_last_error());
            break;
        case OPT_POLICY:
            if (aug_sched_policy_from_name(optarg, &sv.policy) != AUG_OK)
                return aug_cli_usage(cmd, "--policy: %s", aug_last_error());
            sv.have_policy = 1;
            break;
        case OPT_KVFRAC:
            if ((rc = aug_cli_double(cmd, "--kv-fraction", optarg, &sv.kv_fraction))) return rc;
            if (!(sv.kv_fraction > 0 && sv.kv_fraction <= 1))
                return aug_cli_usage(cmd, "--kv-fraction: %s is not in (0, 1]", optarg);
            break;
        case OPT_MAXBATCH:
            if ((rc = aug_cli_long(cmd, "--max-batch", optarg, 1, 1L << 30, &sv.max_batch))) return rc;
            break;
        case OPT_MAXTOK:
            if ((rc = aug_cli_long(cmd, "--max-num-tokens", optarg, 1, 1L << 30, &sv.max_tokens))) return rc;
            break;
        case OPT_BLOCK:
            if ((rc = aug_cli_long(cmd, "--block-tokens", optarg, 1, 1L << 20, &sv.block))) return rc;
            break;
        case OPT_NOCHUNK: sv.no_chunk = 1; break;
        case OPT_CONC:
            if ((rc = aug_cli_long(cmd, "--concurrency", optarg, 1, 1L << 40, &plan.concurrency))) return rc;
            break;
        case OPT_CHUNK:
            if ((rc = aug_cli_long(cmd, "--chunk-tokens", optarg, 1, 1L << 40, &plan.chunk_tokens))) return rc;
            break;
        case OPT_PGPUS: if ((rc = aug_cli_long(cmd, "--prefill-gpus", optarg, 1, 100000000, &plan.prefill_gpus))) return rc; break;
        case OPT_PTP: if ((rc = aug_cli_long(cmd, "--prefill-tp", optarg, 1, 1 << 20, &plan.prefill_tp))) return rc; break;
        case OPT_DGPUS: if ((rc = aug_cli_long(cmd, "--decode-gpus", optarg, 1, 100000000, &plan.decode_gpus))) return rc; break;
        case OPT_DTP: if ((rc = aug_cli_long(cmd, "--decode-tp", optarg, 1, 1 << 20, &plan.decode_tp))) return rc; break;
        case OPT_LINK:
            if (strcmp(optarg, "nvlink") == 0)
                plan.kv_link = AUG_LINK_NVLINK;
            else if (strcmp(optarg, "network") == 0)
                plan.kv_link = AUG_LINK_NETWORK;
            else
                return aug_cli_usage(cmd, "--kv-link: use nvlink or network, not '%s'", optarg);
            break;
        case OPT_LAUNCH: if ((rc = nonneg(cmd, "--launch-us", optarg, 1e6, &plan.launch_us))) return rc; break;
        case OPT_STEP: if ((rc = nonneg(cmd, "--step-overhead-us", optarg, 1e7, &plan.step_overhead_us))) return rc; break;
        case OPT_WS: if ((rc = nonneg(cmd, "--workspace-gib", optarg, 1e5, &plan.workspace_gib))) return rc; break;
        case OPT_KDB: kdb_arg = optarg; break;
        case OPT_ROOFLINE: roofline = 1; break;
        case OPT_FORMAT: if ((rc = aug_cli_format(cmd, optarg, &fmt))) return rc; break;
        case OPT_OUTPUT: output = optarg; break;
        case 'h':
        case OPT_HELP: help(); return 0;
        case ':': return aug_cli_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return aug_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return aug_cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    if (!model_arg)
        return aug_cli_usage(cmd, "--model is required");
    if (!system_arg)
        return aug_cli_usage(cmd, "--system is required");
    if (sv.scenario != SV_NONE)
        return serve(&sv, &plan, in_spec, out_spec, model_arg, system_arg, kdb_arg, roofline, fmt,
                     output);
    if (!have_batch)
        return aug_cli_usage(cmd, "--batch is required");
    if (!have_in)
        return aug_cli_usage(cmd, "--input-len is required");
    if (!have_out)
        return aug_cli_usage(cmd, "--output-len is required");
    if ((rc = aug_cli_long(cmd, "--input-len", in_spec, 1, 1L << 40, &plan.input_len)) ||
        (rc = aug_cli_long(cmd, "--output-len", out_spec, 1, 1L << 40, &plan.output_len)))
        return rc;
    if (sv.file || sv.max_batch || sv.max_tokens || sv.kv_fraction > 0 || sv.no_chunk || sv.block)
        return aug_cli_usage(cmd, "--requests, --max-batch, --max-num-tokens, --kv-fraction, "
                                  "--block-tokens and --no-chunked-prefill need --mode offline or "
                                  "server");

    struct aug_model model;
    struct aug_system sys;
    if ((rc = aug_cli_load_model_system(kdb_arg, model_arg, system_arg, &model, &sys)))
        return rc;
    int st;
    if ((st = aug_infer_plan_resolve(&plan, &model, &sys)) != AUG_OK)
        return st == AUG_EUSAGE ? aug_cli_usage(cmd, "%s", aug_last_error()) : aug_cli_fail(st, NULL);
    struct aug_kdb *kdb = NULL;
    if (!roofline && (st = aug_kdb_open_predict(kdb_arg, sys.gpu.id, &kdb)) != AUG_OK)
        return aug_cli_fail(st, NULL);
    struct aug_infer_options opt = {kdb, roofline};
    struct aug_infer_result res;
    static struct aug_infer_op_report ops[AUG_CLI_INFER_OPS_MAX];
    int n_ops = 0;
    st = aug_infer_predict(&model, &sys, &plan, &opt, &res);
    if (st == AUG_OK && want_ops)
        st = aug_infer_ops(&model, &sys, &plan, &opt, ops, AUG_CLI_INFER_OPS_MAX, &n_ops);
    if (st != AUG_OK) {
        aug_kdb_close(kdb);
        return aug_cli_fail(st, NULL);
    }
    FILE *f = aug_cli_open_output(output);
    if (!f) {
        aug_kdb_close(kdb);
        return 1;
    }
    rc = aug_cli_infer_emit(f, fmt, &model, &sys, &plan, &res, kdb, roofline, ops, n_ops,
                            want_ops, NULL, NULL);
    aug_kdb_close(kdb);
    if (rc != 0) {
        aug_cli_discard_output(f);
        return 1;
    }
    if (aug_cli_close_output(f, output) != 0)
        return 1;
    return 0;
}
