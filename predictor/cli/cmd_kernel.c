/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_kernel.c - `augur kernel gemm|attention|memory|collective --gpu ID ...`: one
 * kernel's predicted time and efficiency, whether it is compute- or memory-bound, and
 * whether the number came from a calibrated curve, a fallback default or the roofline. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "augur/augur.h"
#include "hw/gemm_model.h"
#include "hw/host_time.h"
#include "hw/kernel_model.h"
#include "cli.h"
#include "cmd_kernel.h"
#include "core/finite.h"

static void help(void) {
    printf("usage: augur kernel gemm      --gpu ID --m M --n N --k K [--batch B] [--dtype D]\n"
           "                              [--accumulator fast|split]\n"
           "       augur kernel attention --gpu ID --batch B --heads H --seq S --head-dim D\n"
           "                              [--kv-heads HKV] [--head-dim-v DV] [--seq-kv S]\n"
           "                              [--causal [--window W [--chunked]]]\n"
           "                              [--backward]\n"
           "                              [--dtype D] [--attention-kernel cudnn|fa3|fa2]\n"
           "       augur kernel memory    --gpu ID --bytes SIZE [--op elementwise|norm|softmax|...]\n"
           "       augur kernel collective --gpu ID --collective all_reduce|all_gather|...\n"
           "                              --bytes SIZE --ranks N [--ranks-per-node R] [--system S]\n"
           "       common: [--kdb DIR] [--roofline] [--timing kernel|host] [--host-us US]\n"
           "               [--format table|json|csv] [--output FILE]\n\n"
           "Predicts one kernel's time. The efficiency comes from the GPU's calibrated curve in\n"
           "kernels-db (source 'curve'), else from augur's documented defaults ('fallback'), or\n"
           "is 1 with --roofline ('roofline'). Without a curve, GEMMs and attention are timed by\n"
           "the structural tile/wave model at the GPU's achievable ceilings (kernels-db/gpus.csv;\n"
           "16-bit GEMM main loops at 0.89 of them, stream-K beside the tiles from sm_80 on);\n"
           "a GEMM also shows the model's tile, split, waves and rates (model_*).\n"
           "A curve used outside its measured range says 'extrapolated'; no time is ever below\n"
           "max(flops / peak, bytes / HBM bandwidth) ('clamped' when raised to it).\n"
           "--timing kernel (default): device time, as CUPTI or the profiler measure it.\n"
           "--timing host: as seen from the host timing one eager framework call with\n"
           "synchronization: pre + max(kernel, post), the framework's dispatch before the\n"
           "kernel and its remaining host work after the launch, fitted on NeuSight's\n"
           "event-timed PyTorch data (benchmarks/kernels.md); --host-us US sets pre, post 0.\n"
           "--accumulator (fp8 GEMMs): fast (default: fast accumulation, as Transformer\n"
           "Engine's forward GEMMs and augur-profile's fp8 points) or split (partial sums\n"
           "promoted to fp32, as TE's data- and weight-gradient GEMMs): 1/1.15 of the main-loop\n"
           "rate on Hopper and Ada, no difference on Blackwell.\n"
           "--attention-kernel: cudnn (default) and fa3 run the GPU's own tensor-core path; fa2\n"
           "(flash-attn 2.x) reaches about 34%% of the dense peak from Hopper on (causal).\n"
           "Without --causal a kernel runs faster per FLOP: 1.13x up to 4096 keys, 1.06x at\n"
           "16384 (causal kernels' masked diagonal and unequal CTAs).\n"
           "Heads narrower than 128 run at a lower rate per FLOP (model_head_dim_rate): each\n"
           "query-key pair adds a softmax step (an SFU exponential) that does not shrink with\n"
           "the head; head dim 64 runs at 0.74 of 128's rate on H100 with cudnn or fa3, at\n"
           "0.89-0.90 with fa2 and before Hopper. Wider heads run at 128's rate.\n"
           "--kv-heads: grouped-query attention, each KV head serving heads / HKV query heads\n"
           "and read once for its group (default: --heads, no grouping); it sets the bytes\n"
           "a decode kernel streams.\n"
           "--head-dim-v: the p.v (value) width where it differs from the q.k width of\n"
           "--head-dim, as in multi-head latent attention (DeepSeek-V2/V3: --head-dim 192\n"
           "--head-dim-v 128).\n"
           "--backward: 2.5x the forward's FLOPs at a share of its rate that grows with the\n"
           "query length as fixed per-CTA work amortizes (0.73 up to 2K tokens, 0.81 at 4K,\n"
           "0.90 at 64K; fitted on FlashAttention-2 kernel timings), 0.80 flat on Blackwell.\n"
           "--causal aligns the queries to the end of the keys (a prefill chunk after cached\n"
           "tokens); --window W lets each query see its last W keys (sliding-window layers):\n"
           "the kernel visits only the key blocks the window reaches; with --chunked each query\n"
           "sees the keys of its own chunk of W tokens up to itself (Llama 4).\n"
           "Sizes accept K, M, G, Ki, Mi, Gi suffixes.\n");
}

enum {
    OPT_GPU = 256, OPT_SYSTEM, OPT_M, OPT_N, OPT_K, OPT_BATCH, OPT_DTYPE, OPT_HEADS, OPT_SEQ,
    OPT_SEQKV, OPT_HD, OPT_CAUSAL, OPT_BACKWARD, OPT_BYTES, OPT_OP, OPT_COLL, OPT_RANKS, OPT_RPN,
    OPT_KDB, OPT_ROOF, OPT_FORMAT, OPT_OUTPUT, OPT_TIMING, OPT_HOSTUS, OPT_HELP, OPT_AKERNEL,
    OPT_ACCUM, OPT_WINDOW, OPT_CHUNKED, OPT_HDV, OPT_KVHEADS
};
static const struct option options[] = {
    {"gpu", required_argument, 0, OPT_GPU},       {"system", required_argument, 0, OPT_SYSTEM},
    {"m", required_argument, 0, OPT_M},           {"n", required_argument, 0, OPT_N},
    {"k", required_argument, 0, OPT_K},           {"batch", required_argument, 0, OPT_BATCH},
    {"dtype", required_argument, 0, OPT_DTYPE},   {"heads", required_argument, 0, OPT_HEADS},
    {"seq", required_argument, 0, OPT_SEQ},       {"seq-kv", required_argument, 0, OPT_SEQKV},
    {"head-dim", required_argument, 0, OPT_HD},   {"causal", no_argument, 0, OPT_CAUSAL},
    {"head-dim-v", required_argument, 0, OPT_HDV}, {"kv-heads", required_argument, 0, OPT_KVHEADS},
    {"backward", no_argument, 0, OPT_BACKWARD},   {"bytes", required_argument, 0, OPT_BYTES},
    {"op", required_argument, 0, OPT_OP},         {"collective", required_argument, 0, OPT_COLL},
    {"ranks", required_argument, 0, OPT_RANKS},   {"ranks-per-node", required_argument, 0, OPT_RPN},
    {"kdb", required_argument, 0, OPT_KDB},       {"roofline", no_argument, 0, OPT_ROOF},
    {"format", required_argument, 0, OPT_FORMAT}, {"output", required_argument, 0, OPT_OUTPUT},
    {"timing", required_argument, 0, OPT_TIMING}, {"host-us", required_argument, 0, OPT_HOSTUS},
    {"help", no_argument, 0, OPT_HELP},
    {"attention-kernel", required_argument, 0, OPT_AKERNEL},
    {"accumulator", required_argument, 0, OPT_ACCUM}, {"window", required_argument, 0, OPT_WINDOW},
    {"chunked", no_argument, 0, OPT_CHUNKED},
    {0, 0, 0, 0},
};

struct pick {
    const char *gpu;
    struct aug_system *out;
    int found;
};

static void pick_system(const struct aug_system *s, void *user) {
    struct pick *p = user;
    if (!p->found && strcmp(s->gpu.id, p->gpu) == 0) {
        *p->out = *s;
        p->found = 1;
    }
}

static int size_opt(const char *cmd, const char *opt, const char *val, double *out) {
    if (aug_parse_size(val, opt, out) != AUG_OK)
        return aug_cli_usage(cmd, "%s", aug_last_error());
    if (!(*out > 0))
        return aug_cli_usage(cmd, "%s must be positive", opt);
    return 0;
}

/* A memory op name the predictor's graphs use, or one with a curve in this GPU's table:
 * any other name would time nothing but the fallback, silently. */
static int known_mem_op(const struct aug_kdb *kdb, const char *name) {
    static const char *const ops[] = {"elementwise", "norm",      "rmsnorm", "layernorm",
                                      "softmax",     "activation", "rope",    "embedding",
                                      "copy",        "add",        "cross_entropy", "optimizer"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strcmp(ops[i], name) == 0)
            return 1;
    for (int i = 0; i < aug_kdb_curve_count(kdb); i++) {
        const struct aug_curve *c = aug_kdb_curve_at(kdb, i);
        if (c->family == AUG_FAMILY_MEMORY && strcmp(c->op, name) == 0)
            return 1;
    }
    return 0;
}

int aug_cmd_kernel(int argc, char **argv) {
    const char *cmd = "kernel";
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        help();
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-')
        return aug_cli_usage(cmd, "a kernel family is required: gemm, attention, memory or collective");
    const char *family = argv[1];
    int fam;
    if (strcmp(family, "gemm") == 0) fam = AUG_OP_GEMM;
    else if (strcmp(family, "attention") == 0) fam = AUG_OP_ATTENTION;
    else if (strcmp(family, "memory") == 0) fam = AUG_OP_MEMORY;
    else if (strcmp(family, "collective") == 0) fam = AUG_OP_COLLECTIVE;
    else return aug_cli_usage(cmd, "unknown kernel family '%s' (use gemm, attention, memory or collective)", family);

    const char *gpu = NULL, *system = NULL, *kdb_dir = NULL, *output = NULL, *mem_op = "elementwise";
    double m = 0, n = 0, k = 0, batch = 1, heads = 0, seq = 0, seq_kv = 0, hd = 0, hdv = 0,
           bytes = 0, kv_heads = 0;
    double window = 0;
    int chunked = 0;
    long ranks = 0, rpn = 0;
    int causal = 0, backward = 0, roof = 0, host = 0, split_acc = -1, rc, c;
    enum aug_attn_kernel akernel = AUG_ATTN_KERNEL_CUDNN;
    double host_us = -1;
    enum aug_dtype dt = AUG_DTYPE_BF16;
    enum aug_coll coll = AUG_COLL_ALL_REDUCE;
    int have_coll = 0;
    enum aug_format fmt = AUG_FORMAT_TABLE;
    optind = 2;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (c) {
        case OPT_GPU: gpu = optarg; break;
        case OPT_SYSTEM: system = optarg; break;
        case OPT_M: if ((rc = size_opt(cmd, "--m", optarg, &m))) return rc; break;
        case OPT_N: if ((rc = size_opt(cmd, "--n", optarg, &n))) return rc; break;
        case OPT_K: if ((rc = size_opt(cmd, "--k", optarg, &k))) return rc; break;
        case OPT_BATCH: if ((rc = size_opt(cmd, "--batch", optarg, &batch))) return rc; break;
        case OPT_HEADS: if ((rc = size_opt(cmd, "--heads", optarg, &heads))) return rc; break;
        case OPT_KVHEADS:
            if ((rc = size_opt(cmd, "--kv-heads", optarg, &kv_heads))) return rc;
            break;
        case OPT_SEQ: if ((rc = size_opt(cmd, "--seq", optarg, &seq))) return rc; break;
        case OPT_SEQKV: if ((rc = size_opt(cmd, "--seq-kv", optarg, &seq_kv))) return rc; break;
        case OPT_HD: if ((rc = size_opt(cmd, "--head-dim", optarg, &hd))) return rc; break;
        case OPT_HDV: if ((rc = size_opt(cmd, "--head-dim-v", optarg, &hdv))) return rc; break;
        case OPT_WINDOW: if ((rc = size_opt(cmd, "--window", optarg, &window))) return rc; break;
        case OPT_CHUNKED: chunked = 1; break;
        case OPT_BYTES: if ((rc = size_opt(cmd, "--bytes", optarg, &bytes))) return rc; break;
        case OPT_CAUSAL: causal = 1; break;
        case OPT_AKERNEL:
            if (aug_attn_kernel_from_name(optarg, &akernel) != AUG_OK)
                return aug_cli_usage(cmd, "--attention-kernel: %s", aug_last_error());
            break;
        case OPT_BACKWARD: backward = 1; break;
        case OPT_ACCUM:
            if (strcmp(optarg, "fast") == 0) split_acc = 0;
            else if (strcmp(optarg, "split") == 0) split_acc = 1;
            else return aug_cli_usage(cmd, "--accumulator: '%s' is not fast or split", optarg);
            break;
        case OPT_OP: mem_op = optarg; break;
        case OPT_DTYPE:
            if (aug_dtype_from_name(optarg, &dt) != AUG_OK)
                return aug_cli_usage(cmd, "--dtype: %s", aug_last_error());
            break;
        case OPT_COLL:
            if (aug_coll_from_name(optarg, &coll) != AUG_OK)
                return aug_cli_usage(cmd, "--collective: %s", aug_last_error());
            have_coll = 1;
            break;
        case OPT_RANKS: if ((rc = aug_cli_long(cmd, "--ranks", optarg, 1, 1 << 24, &ranks))) return rc; break;
        case OPT_RPN: if ((rc = aug_cli_long(cmd, "--ranks-per-node", optarg, 1, 1 << 20, &rpn))) return rc; break;
        case OPT_KDB: kdb_dir = optarg; break;
        case OPT_ROOF: roof = 1; break;
        case OPT_FORMAT: if ((rc = aug_cli_format(cmd, optarg, &fmt))) return rc; break;
        case OPT_OUTPUT: output = optarg; break;
        case OPT_TIMING:
            if (strcmp(optarg, "kernel") == 0) host = 0;
            else if (strcmp(optarg, "host") == 0) host = 1;
            else return aug_cli_usage(cmd, "--timing: '%s' is not kernel or host", optarg);
            break;
        case OPT_HOSTUS:
            if (aug_parse_double(optarg, "--host-us", &host_us) != AUG_OK)
                return aug_cli_usage(cmd, "%s", aug_last_error());
            if (!(host_us >= 0) || host_us > 1e6)
                return aug_cli_usage(cmd, "--host-us must be in [0, 1e6]");
            host = 1;
            break;
        case 'h':
        case OPT_HELP: help(); return 0;
        case ':': return aug_cli_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return aug_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return aug_cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    if (!gpu)
        return aug_cli_usage(cmd, "--gpu is required (a GPU id of kernels-db/gpus.csv, e.g. h100-80g)");

    struct aug_system sys;
    memset(&sys, 0, sizeof sys);
    int st;
    if (system) {
        if ((st = aug_system_load(kdb_dir, system, &sys)) != AUG_OK)
            return aug_cli_fail(st, NULL);
        if (strcmp(sys.gpu.id, gpu) != 0)
            return aug_cli_usage(cmd, "--system %s has GPU %s, not --gpu %s", system, sys.gpu.id, gpu);
    } else {
        struct pick pk = {gpu, &sys, 0};
        if ((st = aug_gpu_lookup(kdb_dir, gpu, &sys.gpu)) != AUG_OK)
            return aug_cli_fail(st, NULL);
        aug_system_foreach(kdb_dir, pick_system, &pk);
        if (!pk.found && fam == AUG_OP_COLLECTIVE)
            return aug_cli_usage(cmd, "no system preset uses GPU %s: give --system for its links", gpu);
        if (!pk.found)
            snprintf(sys.name, sizeof sys.name, "%s", gpu);
    }

    if (split_acc >= 0 && fam != AUG_OP_GEMM)
        return aug_cli_usage(cmd, "--accumulator applies to gemm only");
    struct aug_op op;
    switch (fam) {
    case AUG_OP_GEMM:
        if (!(m > 0 && n > 0 && k > 0))
            return aug_cli_usage(cmd, "gemm needs --m, --n and --k");
        if (split_acc >= 0 && dt != AUG_DTYPE_FP8)
            return aug_cli_usage(cmd, "--accumulator applies to fp8 GEMMs only (--dtype %s "
                                 "accumulates in its own way)", aug_dtype_name(dt));
        op = aug_op_gemm("gemm", dt, m, n, k, batch);
        op.split_acc = split_acc > 0;
        break;
    case AUG_OP_ATTENTION: {
        if (!(heads > 0 && seq > 0 && hd > 0))
            return aug_cli_usage(cmd, "attention needs --heads, --seq and --head-dim (and --batch)");
        if (seq_kv <= 0)
            seq_kv = seq;
        /* grouped-query attention: each KV head serves heads / kv_heads query heads, and
         * the kernel reads it once per group (the IO count of op.c) */
        if (kv_heads <= 0)
            kv_heads = heads;
        if (kv_heads > heads || fmod(heads, kv_heads) != 0 || kv_heads != floor(kv_heads))
            return aug_cli_usage(cmd, "--kv-heads %.17g must be a whole divisor of --heads "
                                 "%.17g (query heads share KV heads in equal groups)",
                                 kv_heads, heads);
        if (window > 0 && !causal)
            return aug_cli_usage(cmd, "--window needs --causal (a sliding window over the "
                                 "keys before each query)");
        if (chunked && !(window > 0))
            return aug_cli_usage(cmd, "--chunked needs --window W (the chunk size)");
        /* a value width apart from the q.k width (MLA): op.h, aug_op_attention_widths */
        op = aug_op_attention_widths("attention", dt, batch, heads, kv_heads, seq, seq_kv, hd,
                                     hdv, causal, window, chunked, backward);
        op.attn_kernel = (int)akernel;
        break;
    }
    case AUG_OP_MEMORY:
        if (!(bytes > 0))
            return aug_cli_usage(cmd, "memory needs --bytes");
        op = aug_op_memory("memory", mem_op, dt, bytes, 0.0);
        break;
    default:
        if (!have_coll || !(bytes > 0) || ranks < 1)
            return aug_cli_usage(cmd, "collective needs --collective, --bytes and --ranks");
        if (rpn <= 0)
            rpn = ranks < sys.gpus_per_node ? ranks : sys.gpus_per_node;
        op = aug_op_collective("collective", coll, bytes, (int)ranks, (int)rpn);
        break;
    }

    struct aug_kdb *kdb = NULL;
    if (!roof && (st = aug_kdb_open_predict(kdb_dir, gpu, &kdb)) != AUG_OK)
        return aug_cli_fail(st, NULL);
    if (fam == AUG_OP_MEMORY && !known_mem_op(kdb, mem_op)) {
        aug_kdb_close(kdb);
        return aug_cli_usage(cmd, "--op: unknown memory op '%s' (the predictor's are "
                             "elementwise, norm, rmsnorm, layernorm, softmax, activation, rope, "
                             "embedding, copy, add, cross_entropy, optimizer; or a memory curve "
                             "of the GPU's kernels-db)", mem_op);
    }
    struct aug_op_ctx ctx = {&sys, kdb, roof};
    struct aug_op_time t;
    st = aug_op_time(&ctx, &op, &t);
    char origin[192]; /* a GPU never profiled: where its curves came from */
    snprintf(origin, sizeof origin, "%s", aug_kdb_origin(kdb));
    aug_kdb_close(kdb);
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);
    /* a zero or non-finite time would print "inf" or lose its JSON keys (jansson refuses
     * them); it is an error naming the kernel instead */
    const struct aug_finite_field tf[] = {{"time_s", t.time_s}, {"efficiency", t.eff}};
    char what[96];
    snprintf(what, sizeof what, "%s kernel on %s", family, gpu);
    if ((st = aug_finite_check(what, tf, 2)) != AUG_OK)
        return aug_cli_fail(st, NULL);
    if (!(t.time_s > 0))
        return aug_cli_fail(aug_errorf(AUG_EDATA, "%s: predicted time %g s is not positive", what,
                                       t.time_s), NULL);

    double peak = sys.gpu.peak_tflops[dt] * 1e12, bw = sys.gpu.hbm_gbps * 1e9;
    double kernel_s = t.time_s;
    double pre_us = 0, post_us = 0;
    if (host) {
        aug_host_overhead_us(&op, &pre_us, &post_us);
        if (host_us >= 0) {
            pre_us = host_us;
            post_us = 0;
        }
        t.time_s = aug_host_time_s(kernel_s, pre_us, post_us);
    }
    json_t *o = json_object();
    json_object_set_new(o, "family", json_string(family));
    json_object_set_new(o, "gpu", json_string(gpu));
    json_object_set_new(o, "timing", json_string(host ? "host" : "kernel"));
    json_object_set_new(o, "time_s", json_real(t.time_s));
    if (host) {
        json_object_set_new(o, "kernel_time_s", json_real(kernel_s));
        json_object_set_new(o, "host_pre_us", json_real(pre_us));
        json_object_set_new(o, "host_post_us", json_real(post_us));
    }
    json_object_set_new(o, "efficiency", json_real(t.eff));
    json_object_set_new(o, "source", json_string(aug_source_name(t.source)));
    if (fam == AUG_OP_ATTENTION) {
        json_object_set_new(o, "attention_kernel", json_string(aug_attn_kernel_name(akernel)));
        if (kv_heads < heads) /* grouped-query attention: the KV heads its bytes count */
            json_object_set_new(o, "kv_heads", json_real(kv_heads));
        if (op.window > 0)
            json_object_set_new(o, "window", json_real(op.window));
        if (op.chunked)
            json_object_set_new(o, "chunked", json_true());
        /* the head dim the structural model's main loop runs on (flash-attn pads to its
         * builds); a roofline has no main loop */
        struct aug_gemm_ceiling ac;
        if (!roof && aug_gemm_ceiling_of(&sys.gpu, dt, &ac)) {
            double w = aug_attention_kernel_width((int)akernel, op.head_dim, op.head_dim_v);
            double e = aug_attention_softmax_cols(&ac, sys.gpu.sm_arch, (int)akernel);
            json_object_set_new(o, "model_head_dim", json_real(w));
            /* the main loop's rate at that width against head dim 128 (softmax step) */
            json_object_set_new(o, "model_head_dim_rate",
                                json_real(aug_attention_head_dim_factor(w, e)));
        }
    }
    if (t.source == AUG_SOURCE_CURVE && origin[0])
        json_object_set_new(o, "curve_origin", json_string(origin));
    json_object_set_new(o, "extrapolated", json_boolean(t.extrapolated));
    json_object_set_new(o, "clamped", json_boolean(t.clamped));
    struct aug_gemm_ceiling ceil_c;
    if (fam == AUG_OP_GEMM && dt == AUG_DTYPE_FP8)
        json_object_set_new(o, "accumulator", json_string(op.split_acc ? "split" : "fast"));
    if (fam == AUG_OP_GEMM && !roof && aug_gemm_ceiling_of(&sys.gpu, dt, &ceil_c)) {
        /* the structural model's choice, shown for every GEMM (it times those without a
         * curve) */
        if (op.split_acc)
            aug_gemm_ceiling_split_acc(&ceil_c, dt, sys.gpu.sm_arch);
        struct aug_gemm_plan gp;
        if (aug_gemm_model_us(&ceil_c, m, n, k, batch, &gp) > 0) {
            char tile[64];
            snprintf(tile, sizeof tile, "%gx%gx%g", gp.tile_m, gp.tile_n, gp.tile_k);
            json_object_set_new(o, "model_tile", json_string(tile));
            json_object_set_new(o, "model_ctas_per_sm", json_real(gp.ctas_per_sm));
            json_object_set_new(o, "model_split_k", json_real(gp.split_k));
            json_object_set_new(o, "model_tiles", json_real(gp.tiles));
            json_object_set_new(o, "model_waves", json_real(gp.waves));
            /* what the last wave costs as a share of a full one (SIMT: the busiest SM's) */
            json_object_set_new(o, "model_last_wave", json_real(gp.last_wave));
            json_object_set_new(o, "model_stream_k", json_boolean(gp.stream_k));
            json_object_set_new(o, "model_time_s", json_real(gp.t_us * 1e-6));
            json_object_set_new(o, "model_ceiling_tflops", json_real(ceil_c.rate_tflops));
            json_object_set_new(o, "model_mainloop_tflops",
                                json_real(aug_gemm_mainloop_tflops(&ceil_c)));
            /* a GEMM share fitted on published runs (gpus.csv gemm_scale) says so */
            if (!ceil_c.simt && sys.gpu.gemm_scale > 0) {
                json_object_set_new(o, "model_gemm_scale", json_real(sys.gpu.gemm_scale));
                json_object_set_new(o, "model_gemm_scale_origin",
                                    json_string("fitted on published training runs "
                                                "(kernels-db/gpus.csv gemm_scale, "
                                                "benchmarks/blackwell_fit.sh)"));
            }
        }
    }
    if (fam == AUG_OP_COLLECTIVE) {
        json_object_set_new(o, "bound", json_string("network"));
        json_object_set_new(o, "busbw_gbps",
                            json_real(bytes * aug_coll_busbw_factor(coll, (int)ranks) / t.time_s / 1e9));
    } else {
        json_object_set_new(o, "bound", json_string(t.compute_bound ? "compute" : "memory"));
        json_object_set_new(o, "flops", json_real(op.flops));
        json_object_set_new(o, "bytes", json_real(op.bytes));
        json_object_set_new(o, "intensity_flops_per_byte", json_real(op.bytes > 0 ? op.flops / op.bytes : 0));
        json_object_set_new(o, "ridge_flops_per_byte", json_real(bw > 0 ? peak / bw : 0));
        json_object_set_new(o, "achieved_tflops", json_real(op.flops / t.time_s / 1e12));
    }
    FILE *f = aug_cli_open_output(output);
    if (!f) {
        json_decref(o);
        return 1;
    }
    int out = aug_cli_write(f, fmt, o);
    if (!out && fmt == AUG_FORMAT_TABLE && t.extrapolated)
        fprintf(f, "note: the calibrated curve was used outside its measured size range "
                   "(extrapolated)\n");
    json_decref(o);
    if (out) {
        aug_cli_discard_output(f);
        return 1;
    }
    return aug_cli_close_output(f, output) ? 1 : 0;
}
