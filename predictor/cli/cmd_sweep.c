/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_sweep.c - `augur sweep train|infer|scaling|generations`: the options, and the
 * dispatch to each mode's runner (sweep_train_cli.c, sweep_infer_cli.c,
 * sweep_scaling_cli.c), which share the input loading of sweep_inputs.c. */
#include "cmd_sweep.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "augur/augur.h"
#include "augur/infer.h"
#include "augur/scaling.h"
#include "augur/sweep.h"
#include "cli.h"
#include "sweep_cli.h"
#include "sweep_mpi.h"
#include "sweep_opts.h"

static void help(void) {
    printf(
        "usage: augur sweep train --model M --system S --gpus N --global-batch G [--seq L]\n"
        "                   [--top K] [--threads N] [--format table|json|csv] [--output FILE]\n"
        "                   [--plot FILE.svg|FILE.png] [--scale LIST | --generation LIST]\n"
        "                   [pins: --tp T --pp P --dp D --cp C --ep E --sp|--no-sp --interleave V\n"
        "                    --micro-batch B --recompute R --zero Z --fsdp none|full|hybrid]\n"
        "                   [--recompute-modules LIST (what selective plans recompute)]\n"
        "                   [--moe-overlap none|shared|batch (every plan; plans it cannot\n"
        "                    run with are left out)] [--moe-dispatcher alltoall|deepep]\n"
        "                   [bounds: --max-tp T --max-pp P --max-cp C --max-ep E\n"
        "                    --max-interleave V --max-micro-batch B --uneven-pp]\n"
        "                   [--cp-algo ring|ulysses|allgather] [--dtype D] [--attention fused|unfused]\n"
        "                   [--attention-kernel cudnn|fa3|fa2] [--cross-entropy fused|unfused|te]\n"
        "                   [--fp8-scaling delayed|current] [--fp8-params on|off]\n"
        "                   [--no-dp-overlap] [--tp-overlap] [--pp-overlap] [--etp E]\n"
        "                   [--tp-async-allreduce on|off (without SP: the input-gradient\n"
        "                    all-reduce beside the weight gradient, as Megatron)]\n"
        "                   [--ep-placement inner|outer] [--moe-capacity-factor F|dropless]\n"
        "                   [--moe-imbalance X] [--ternary-kernel K] [--comm-slowdown X]\n"
        "                   [--kdb DIR] [--roofline] [--no-prune] [--progress|--no-progress]\n"
        "       augur sweep infer --model M --system S --gpus N [--batch B] --input-len I\n"
        "                   --output-len O [--min-throughput TOK_S] [--max-batch B] [--tp T]\n"
        "                   [--pp P] [--ep E] [--max-tp T] [--max-pp P] [--weight-dtype D]\n"
        "                   [--kv-dtype D] (and the common options above)\n"
        "       augur sweep infer --model M --system S --gpus N --input-len I --output-len O\n"
        "                   --slo-ttft-p99 SEC --slo-tpot-p99 SEC [--engine E]\n"
        "                   [--num-requests N] [--seed S] [--tp T] [--pp P] [--ep E]\n"
        "       augur sweep scaling --model M --system S --gpus N --global-batch G\n"
        "                   [--along RES[,RES] --factors F1,F2,.. | --systems S1,S2,.. |\n"
        "                    --generations G1,G2,..] [--improve K] (and the train options)\n"
        "       augur sweep generations\n\n"
        "train: every valid training plan (TP, PP, DP, CP and its algorithm, EP, SP,\n"
        "interleaving, micro-batch, recomputation, ZeRO/FSDP), dropped when it does not fit\n"
        "in memory, ranked by throughput; the top K, the Pareto front of step time against\n"
        "memory per GPU, and why the best plan beats the runner-up (their breakdowns side by\n"
        "side); the other plan fields (--etp, overlaps, MoE routing) are fixed. Knobs are open\n"
        "unless pinned; TP stays inside the NVLink domain unless --max-tp allows more. Plans\n"
        "are evaluated on --threads threads (default: every core), and over MPI ranks under\n"
        "mpirun -n K (same results as one process).\n"
        "infer: serving plans (TP, PP, EP inside TP, replicas) at --batch or, open, at powers of\n"
        "two up to what fits; ranked by end-to-end latency among plans reaching\n"
        "--min-throughput (output tokens/s over all GPUs); front of latency against memory.\n"
        "With --slo-ttft-p99 and/or --slo-tpot-p99: each plan's highest Poisson request rate\n"
        "whose p99 TTFT and TPOT meet the targets while the queue keeps up (a bisection of\n"
        "server simulations, augur infer --mode server, --engine preset, default trtllm),\n"
        "plans ranked by that rate.\n"
        "What-if hardware: --scale compute=2,hbm_bw=1.5,hbm_cap=2,nvlink_bw=2,net_bw=2,\n"
        "net_lat=0.5,... (all=K: every bandwidth and compute x K, latencies / K) or\n"
        "--generation hbm4,nvlink5,xdr,n3 (to a generation from the system's own) or\n"
        "from:to pairs such as hbm3e:hbm4; calibrated efficiencies carry over.\n"
        "scaling: a path of what-if systems (factors along resources, named generations or\n"
        "presets); at each point the best plan, and how much it gains when one resource alone\n"
        "improves --improve-fold (default 2): the largest gain names the bound resource.\n"
        "generations: the technology table the --generation names come from.\n");
}

enum {
    OPT_MODEL = 256, OPT_SYSTEM, OPT_GPUS, OPT_GB, OPT_SEQ, OPT_TP, OPT_PP, OPT_DP, OPT_CP, OPT_EP,
    OPT_SP, OPT_NO_SP, OPT_INTERLEAVE, OPT_MB, OPT_RECOMPUTE, OPT_ZERO, OPT_FSDP, OPT_MAX_TP,
    OPT_MAX_PP, OPT_MAX_CP, OPT_MAX_EP, OPT_MAX_V, OPT_MAX_MB, OPT_UNEVEN, OPT_DTYPE, OPT_ATTENTION, OPT_ATTN_KERNEL, OPT_CROSS_ENTROPY,
    OPT_FP8_SCALING, OPT_FP8_PARAMS,
    OPT_NO_OVERLAP, OPT_KDB, OPT_ROOFLINE, OPT_SCALE, OPT_GENERATION, OPT_TOP, OPT_THREADS,
    OPT_NO_PRUNE, OPT_FORMAT, OPT_OUTPUT, OPT_PLOT, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_BATCH,
    OPT_INPUT, OPT_OUTPUT_LEN, OPT_MIN_TPUT, OPT_MAX_BATCH, OPT_WDTYPE, OPT_KVDTYPE, OPT_ALONG,
    OPT_FACTORS, OPT_SYSTEMS, OPT_GENERATIONS, OPT_IMPROVE, OPT_CP_ALGO, OPT_ETP, OPT_EP_PLACEMENT,
    OPT_MOE_CF, OPT_MOE_IMB, OPT_TERNARY, OPT_TP_OVERLAP, OPT_PP_OVERLAP, OPT_TP_ASYNC, OPT_COMM_SLOWDOWN, OPT_HELP,
    OPT_SLO_TTFT, OPT_SLO_TPOT, OPT_ENGINE, OPT_NREQ, OPT_SEED, OPT_RC_MODULES,
    OPT_MOE_OVERLAP,
    OPT_MOE_DISPATCHER
};

static const struct option options[] = {
    {"model", required_argument, 0, OPT_MODEL},
    {"system", required_argument, 0, OPT_SYSTEM},
    {"gpus", required_argument, 0, OPT_GPUS},
    {"global-batch", required_argument, 0, OPT_GB},
    {"seq", required_argument, 0, OPT_SEQ},
    {"tp", required_argument, 0, OPT_TP},
    {"pp", required_argument, 0, OPT_PP},
    {"dp", required_argument, 0, OPT_DP},
    {"cp", required_argument, 0, OPT_CP},
    {"ep", required_argument, 0, OPT_EP},
    {"sp", no_argument, 0, OPT_SP},
    {"no-sp", no_argument, 0, OPT_NO_SP},
    {"interleave", required_argument, 0, OPT_INTERLEAVE},
    {"micro-batch", required_argument, 0, OPT_MB},
    {"recompute", required_argument, 0, OPT_RECOMPUTE},
    {"recompute-modules", required_argument, 0, OPT_RC_MODULES},
    {"moe-overlap", required_argument, 0, OPT_MOE_OVERLAP},
    {"moe-dispatcher", required_argument, 0, OPT_MOE_DISPATCHER},
    {"zero", required_argument, 0, OPT_ZERO},
    {"fsdp", required_argument, 0, OPT_FSDP},
    {"max-tp", required_argument, 0, OPT_MAX_TP},
    {"max-pp", required_argument, 0, OPT_MAX_PP},
    {"max-cp", required_argument, 0, OPT_MAX_CP},
    {"max-ep", required_argument, 0, OPT_MAX_EP},
    {"max-interleave", required_argument, 0, OPT_MAX_V},
    {"max-micro-batch", required_argument, 0, OPT_MAX_MB},
    {"uneven-pp", no_argument, 0, OPT_UNEVEN},
    {"dtype", required_argument, 0, OPT_DTYPE},
    {"attention", required_argument, 0, OPT_ATTENTION},
    {"attention-kernel", required_argument, 0, OPT_ATTN_KERNEL},
    {"cross-entropy", required_argument, 0, OPT_CROSS_ENTROPY},
    {"fp8-scaling", required_argument, 0, OPT_FP8_SCALING},
    {"fp8-params", required_argument, 0, OPT_FP8_PARAMS},
    {"no-dp-overlap", no_argument, 0, OPT_NO_OVERLAP},
    {"kdb", required_argument, 0, OPT_KDB},
    {"roofline", no_argument, 0, OPT_ROOFLINE},
    {"scale", required_argument, 0, OPT_SCALE},
    {"generation", required_argument, 0, OPT_GENERATION},
    {"top", required_argument, 0, OPT_TOP},
    {"threads", required_argument, 0, OPT_THREADS},
    {"no-prune", no_argument, 0, OPT_NO_PRUNE},
    {"format", required_argument, 0, OPT_FORMAT},
    {"output", required_argument, 0, OPT_OUTPUT},
    {"plot", required_argument, 0, OPT_PLOT},
    {"progress", no_argument, 0, OPT_PROGRESS},
    {"no-progress", no_argument, 0, OPT_NO_PROGRESS},
    {"batch", required_argument, 0, OPT_BATCH},
    {"input-len", required_argument, 0, OPT_INPUT},
    {"output-len", required_argument, 0, OPT_OUTPUT_LEN},
    {"min-throughput", required_argument, 0, OPT_MIN_TPUT},
    {"max-batch", required_argument, 0, OPT_MAX_BATCH},
    {"weight-dtype", required_argument, 0, OPT_WDTYPE},
    {"kv-dtype", required_argument, 0, OPT_KVDTYPE},
    {"along", required_argument, 0, OPT_ALONG},
    {"factors", required_argument, 0, OPT_FACTORS},
    {"systems", required_argument, 0, OPT_SYSTEMS},
    {"generations", required_argument, 0, OPT_GENERATIONS},
    {"improve", required_argument, 0, OPT_IMPROVE},
    {"cp-algo", required_argument, 0, OPT_CP_ALGO},
    {"etp", required_argument, 0, OPT_ETP},
    {"ep-placement", required_argument, 0, OPT_EP_PLACEMENT},
    {"moe-capacity-factor", required_argument, 0, OPT_MOE_CF},
    {"moe-imbalance", required_argument, 0, OPT_MOE_IMB},
    {"ternary-kernel", required_argument, 0, OPT_TERNARY},
    {"tp-overlap", no_argument, 0, OPT_TP_OVERLAP},
    {"tp-async-allreduce", required_argument, 0, OPT_TP_ASYNC},
    {"pp-overlap", no_argument, 0, OPT_PP_OVERLAP},
    {"comm-slowdown", required_argument, 0, OPT_COMM_SLOWDOWN},
    {"help", no_argument, 0, OPT_HELP},
    {"slo-ttft-p99", required_argument, 0, OPT_SLO_TTFT},
    {"slo-tpot-p99", required_argument, 0, OPT_SLO_TPOT},
    {"engine", required_argument, 0, OPT_ENGINE},
    {"num-requests", required_argument, 0, OPT_NREQ},
    {"seed", required_argument, 0, OPT_SEED},
    {0, 0, 0, 0},
};

static int parse(int argc, char **argv, struct aug_sweep_opts *o) {
    const char *cmd = "sweep";
    int rc;
    long v;
    memset(o, 0, sizeof *o);
    o->mode = argv[0];
    o->top = 10;
    o->seed = 1;
    o->fmt = AUG_FORMAT_TABLE;
    aug_plan_init(&o->base);
    aug_sweep_space_init(&o->space);
    aug_infer_plan_init(&o->ibase);
    o->ibase.gpus = 0;
    o->ibase.batch = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (c) {
        case OPT_MODEL: o->model = optarg; break;
        case OPT_SYSTEM: o->system = optarg; break;
        case OPT_GPUS:
            if ((rc = aug_cli_long(cmd, "--gpus", optarg, 1, 100000000, &o->base.gpus))) return rc;
            o->ibase.gpus = o->base.gpus;
            o->have_gpus = 1;
            break;
        case OPT_GB:
            if ((rc = aug_cli_long(cmd, "--global-batch", optarg, 1, 1L << 40, &o->base.global_batch))) return rc;
            o->have_gb = 1;
            o->train_only = 1;
            break;
        case OPT_SEQ: if ((rc = aug_cli_long(cmd, "--seq", optarg, 1, 1L << 30, &o->base.seq))) return rc; break;
        case OPT_TP: if ((rc = aug_cli_long(cmd, "--tp", optarg, 1, 1 << 20, &o->space.tp))) return rc; break;
        case OPT_PP: if ((rc = aug_cli_long(cmd, "--pp", optarg, 1, 1 << 20, &o->space.pp))) return rc; break;
        case OPT_DP: if ((rc = aug_cli_long(cmd, "--dp", optarg, 1, 1 << 26, &o->space.dp))) return rc; break;
        case OPT_CP: if ((rc = aug_cli_long(cmd, "--cp", optarg, 1, 1 << 20, &o->space.cp))) return rc; break;
        case OPT_EP: if ((rc = aug_cli_long(cmd, "--ep", optarg, 1, 1 << 20, &o->space.ep))) return rc; break;
        case OPT_SP: o->space.sp = 1; break;
        case OPT_NO_SP: o->space.sp = 0; break;
        case OPT_INTERLEAVE:
            if ((rc = aug_cli_long(cmd, "--interleave", optarg, 1, 1024, &o->space.interleave))) return rc;
            break;
        case OPT_MB:
            if ((rc = aug_cli_long(cmd, "--micro-batch", optarg, 1, 1L << 30, &o->space.micro_batch))) return rc;
            break;
        case OPT_RECOMPUTE: {
            enum aug_recompute r;
            if (aug_recompute_from_name(optarg, &r) != AUG_OK)
                return aug_cli_usage(cmd, "--recompute: %s", aug_last_error());
            o->space.recompute = (int)r;
            break;
        }
        case OPT_ZERO:
            if ((rc = aug_cli_long(cmd, "--zero", optarg, 0, 3, &v))) return rc;
            o->space.zero = (int)v;
            break;
        case OPT_RC_MODULES:
            if (aug_rc_modules_parse(optarg, &o->base.recompute_modules) != AUG_OK)
                return aug_cli_usage(cmd, "--recompute-modules: %s", aug_last_error());
            break;
        case OPT_MOE_OVERLAP:
            if (aug_moe_overlap_from_name(optarg, &o->base.moe_overlap) != AUG_OK)
                return aug_cli_usage(cmd, "--moe-overlap: %s", aug_last_error());
            break;
        case OPT_MOE_DISPATCHER:
            if (aug_moe_dispatcher_from_name(optarg, &o->base.moe_dispatcher) != AUG_OK)
                return aug_cli_usage(cmd, "--moe-dispatcher: %s", aug_last_error());
            break;
        case OPT_FSDP: {
            enum aug_fsdp f;
            if (aug_fsdp_from_name(optarg, &f) != AUG_OK)
                return aug_cli_usage(cmd, "--fsdp: unknown mode '%s' (use none, full or hybrid)", optarg);
            o->space.fsdp = (int)f;
            break;
        }
        case OPT_MAX_TP: if ((rc = aug_cli_long(cmd, "--max-tp", optarg, 1, 1 << 20, &o->space.max_tp))) return rc; break;
        case OPT_MAX_PP: if ((rc = aug_cli_long(cmd, "--max-pp", optarg, 1, 1 << 20, &o->space.max_pp))) return rc; break;
        case OPT_MAX_CP: if ((rc = aug_cli_long(cmd, "--max-cp", optarg, 1, 1 << 20, &o->space.max_cp))) return rc; break;
        case OPT_MAX_EP: if ((rc = aug_cli_long(cmd, "--max-ep", optarg, 1, 1 << 20, &o->space.max_ep))) return rc; break;
        case OPT_MAX_V:
            if ((rc = aug_cli_long(cmd, "--max-interleave", optarg, 1, 1024, &o->space.max_interleave))) return rc;
            break;
        case OPT_MAX_MB:
            if ((rc = aug_cli_long(cmd, "--max-micro-batch", optarg, 1, 1L << 30, &o->space.max_micro_batch))) return rc;
            break;
        case OPT_UNEVEN: o->space.uneven_pp = 1; break;
        case OPT_DTYPE:
            if (aug_dtype_from_name(optarg, &o->base.dtype) != AUG_OK)
                return aug_cli_usage(cmd, "--dtype: unknown dtype '%s'", optarg);
            o->ibase.dtype = o->base.dtype;
            break;
        case OPT_ATTENTION:
            if (strcmp(optarg, "fused") == 0 || strcmp(optarg, "flash") == 0)
                o->base.flash_attention = 1;
            else if (strcmp(optarg, "unfused") == 0)
                o->base.flash_attention = 0;
            else
                return aug_cli_usage(cmd, "--attention: use fused or unfused, not '%s'", optarg);
            o->ibase.flash_attention = o->base.flash_attention;
            break;
        case OPT_ATTN_KERNEL:
            if (aug_attn_kernel_from_name(optarg, &o->base.attn_kernel) != AUG_OK)
                return aug_cli_usage(cmd, "--attention-kernel: %s", aug_last_error());
            break;
        case OPT_CROSS_ENTROPY:
            if (aug_cross_entropy_from_name(optarg, &o->base.cross_entropy) != AUG_OK)
                return aug_cli_usage(cmd, "--cross-entropy: %s", aug_last_error());
            break;
        case OPT_FP8_SCALING:
            if (aug_fp8_scaling_from_name(optarg, &o->base.fp8_scaling) != AUG_OK)
                return aug_cli_usage(cmd, "--fp8-scaling: %s", aug_last_error());
            o->train_only = 1;
            break;
        case OPT_FP8_PARAMS: /* on|off, as augur train takes it */
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0)
                return aug_cli_usage(cmd, "--fp8-params: use on or off, not '%s'", optarg);
            o->base.fp8_params = strcmp(optarg, "on") == 0;
            o->train_only = 1;
            break;
        case OPT_NO_OVERLAP: o->base.dp_overlap = 0; break;
        case OPT_KDB: o->kdb = optarg; break;
        case OPT_ROOFLINE: o->roofline = 1; break;
        case OPT_SCALE: o->scale = optarg; break;
        case OPT_GENERATION: o->generation = optarg; break;
        case OPT_TOP:
            if ((rc = aug_cli_long(cmd, "--top", optarg, 1, AUG_SWEEP_MAX_TOP, &v))) return rc;
            o->top = (int)v;
            break;
        case OPT_THREADS:
            if ((rc = aug_cli_long(cmd, "--threads", optarg, 0, 4096, &v))) return rc;
            o->threads = (int)v;
            break;
        case OPT_NO_PRUNE: o->no_prune = 1; break;
        case OPT_FORMAT: if ((rc = aug_cli_format(cmd, optarg, &o->fmt))) return rc; break;
        case OPT_OUTPUT: o->output = optarg; break;
        case OPT_PLOT: o->plot = optarg; break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_NO_PROGRESS: o->progress = -1; break;
        case OPT_BATCH:
            if ((rc = aug_cli_long(cmd, "--batch", optarg, 1, 1L << 30, &o->ibase.batch))) return rc;
            o->infer_only = 1;
            break;
        case OPT_INPUT:
            if ((rc = aug_cli_long(cmd, "--input-len", optarg, 1, 1L << 30, &o->ibase.input_len))) return rc;
            o->infer_only = 1;
            break;
        case OPT_OUTPUT_LEN:
            if ((rc = aug_cli_long(cmd, "--output-len", optarg, 1, 1L << 30, &o->ibase.output_len))) return rc;
            o->infer_only = 1;
            break;
        case OPT_SLO_TTFT:
        case OPT_SLO_TPOT: {
            double *dst = c == OPT_SLO_TTFT ? &o->slo_ttft : &o->slo_tpot;
            if ((rc = aug_cli_double(cmd, c == OPT_SLO_TTFT ? "--slo-ttft-p99" : "--slo-tpot-p99",
                                     optarg, dst))) return rc;
            if (!(*dst > 0))
                return aug_cli_usage(cmd, "%s: %s is not a positive number of seconds",
                                     c == OPT_SLO_TTFT ? "--slo-ttft-p99" : "--slo-tpot-p99", optarg);
            o->infer_only = 1;
            break;
        }
        case OPT_ENGINE: o->engine = optarg; o->infer_only = 1; break;
        case OPT_NREQ:
            if ((rc = aug_cli_long(cmd, "--num-requests", optarg, 1, 10000000, &o->num_requests))) return rc;
            o->infer_only = 1;
            break;
        case OPT_SEED:
            if ((rc = aug_cli_long(cmd, "--seed", optarg, 0, 0x7fffffffffffffffL, &o->seed))) return rc;
            o->infer_only = 1;
            break;
        case OPT_MIN_TPUT:
            if ((rc = aug_cli_double(cmd, "--min-throughput", optarg, &o->min_throughput))) return rc;
            if (o->min_throughput < 0 || o->min_throughput > 1e15)
                return aug_cli_usage(cmd, "--min-throughput must be in [0, 1e15] tokens/s");
            o->infer_only = 1;
            break;
        case OPT_MAX_BATCH:
            if ((rc = aug_cli_long(cmd, "--max-batch", optarg, 1, 1L << 30, &o->max_batch))) return rc;
            o->infer_only = 1;
            break;
        case OPT_WDTYPE:
            if (aug_dtype_from_name(optarg, &o->ibase.weight_dtype) != AUG_OK)
                return aug_cli_usage(cmd, "--weight-dtype: unknown dtype '%s'", optarg);
            o->infer_only = 1;
            break;
        case OPT_KVDTYPE:
            if (aug_dtype_from_name(optarg, &o->ibase.kv_dtype) != AUG_OK)
                return aug_cli_usage(cmd, "--kv-dtype: unknown dtype '%s'", optarg);
            o->infer_only = 1;
            break;
        case OPT_ALONG: o->along = optarg; break;
        case OPT_FACTORS: o->factors = optarg; break;
        case OPT_SYSTEMS: o->systems = optarg; break;
        case OPT_GENERATIONS: o->generations = optarg; break;
        case OPT_IMPROVE:
            if ((rc = aug_cli_double(cmd, "--improve", optarg, &o->improve))) return rc;
            if (!(o->improve > 1.0) || o->improve > 1e6)
                return aug_cli_usage(cmd, "--improve must be above 1");
            break;
        case OPT_CP_ALGO: {
            enum aug_cp_algo a;
            if (aug_cp_algo_from_name(optarg, &a) != AUG_OK)
                return aug_cli_usage(cmd, "--cp-algo: %s", aug_last_error());
            o->space.cp_algo = (int)a;
            o->train_only = 1;
            break;
        }
        case OPT_ETP:
            if ((rc = aug_cli_long(cmd, "--etp", optarg, 1, 1 << 20, &o->base.etp))) return rc;
            o->train_only = 1;
            break;
        case OPT_EP_PLACEMENT:
            if (strcmp(optarg, "inner") == 0 || strcmp(optarg, "intra-node") == 0)
                o->base.ep_outer = 0;
            else if (strcmp(optarg, "outer") == 0 || strcmp(optarg, "inter-node") == 0)
                o->base.ep_outer = 1;
            else
                return aug_cli_usage(cmd, "--ep-placement: use inner or outer, not '%s'", optarg);
            o->train_only = 1;
            break;
        case OPT_MOE_CF:
            if (strcmp(optarg, "dropless") == 0)
                o->base.moe_capacity_factor = 0.0;
            else if ((rc = aug_cli_double(cmd, "--moe-capacity-factor", optarg,
                                          &o->base.moe_capacity_factor)))
                return rc;
            o->train_only = 1;
            break;
        case OPT_MOE_IMB:
            if ((rc = aug_cli_double(cmd, "--moe-imbalance", optarg, &o->base.moe_imbalance))) return rc;
            o->train_only = 1;
            break;
        case OPT_TERNARY:
            if (aug_ternary_kernel_from_name(optarg, &o->base.ternary) != AUG_OK)
                return aug_cli_usage(cmd, "--ternary-kernel: %s", aug_last_error());
            o->train_only = 1;
            break;
        case OPT_TP_OVERLAP: o->base.tp_overlap = 1; o->train_only = 1; break;
        case OPT_PP_OVERLAP: o->base.pp_overlap = 1; o->train_only = 1; break;
        case OPT_TP_ASYNC:
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0)
                return aug_cli_usage(cmd, "--tp-async-allreduce: use on or off, not '%s'", optarg);
            o->base.tp_async_allreduce = strcmp(optarg, "on") == 0;
            o->train_only = 1;
            break;
        case OPT_COMM_SLOWDOWN:
            if ((rc = aug_cli_double(cmd, "--comm-slowdown", optarg, &o->base.comm_slowdown))) return rc;
            o->train_only = 1;
            break;
        case 'h':
        case OPT_HELP: help(); return -1;
        case ':': return aug_cli_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return aug_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return aug_cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    if (o->base.fp8_scaling != AUG_FP8_DELAYED && o->base.dtype != AUG_DTYPE_FP8)
        return aug_cli_usage(cmd, "--fp8-scaling current needs --dtype fp8 (not %s)",
                             aug_dtype_name(o->base.dtype));
    if (o->base.fp8_params && o->base.dtype != AUG_DTYPE_FP8)
        return aug_cli_usage(cmd, "--fp8-params on needs --dtype fp8 (not %s)",
                             aug_dtype_name(o->base.dtype));
    int scaling = strcmp(o->mode, "scaling") == 0;
    if (!scaling && (o->along || o->factors || o->systems || o->generations || o->improve > 0))
        return aug_cli_usage(cmd, "--along, --factors, --systems, --generations and --improve "
                                  "belong to 'augur sweep scaling'");
    if (!o->model)
        return aug_cli_usage(cmd, "--model is required");
    if (!o->system && !(scaling && o->systems))
        return aug_cli_usage(cmd, "--system is required");
    if (!o->have_gpus)
        return aug_cli_usage(cmd, "--gpus is required");
    return 0;
}

static int list_generations(void) {
    static const char *const kinds[] = {"logic", "hbm", "nvlink", "network"};
    printf("# technology generations for --generation (from:to pairs of one kind, or a name alone\n"
           "# to step from the system's own): logic = compute at the same die area and power\n"
           "# (relative to 12 nm); hbm = GB/s and GB per stack; nvlink, network = GB/s per GPU\n"
           "# and direction\n");
    printf("%-8s %-8s %10s %8s  %s  [%s]\n", "name", "kind", "value", "GB", "what", "source");
    for (int i = 0; i < aug_tech_count(); i++) {
        const struct aug_tech *t = aug_tech_at(i);
        printf("%-8s %-8s %10.4g %8.4g  %s  [%s]\n", t->name, kinds[t->kind], t->value,
               t->capacity_gb, t->what, t->source);
    }
    return 0;
}

int aug_cmd_sweep(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (argc < 2) {
            fprintf(stderr, "augur sweep: say what to sweep: train, infer, scaling or generations\n"
                            "Try 'augur sweep --help'\n");
            return 2;
        }
        help();
        return 0;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "generations") == 0)
        return list_generations();
    if (strcmp(mode, "train") != 0 && strcmp(mode, "infer") != 0 && strcmp(mode, "scaling") != 0)
        return aug_cli_usage("sweep", "unknown mode '%s' (use train, infer, scaling or "
                                      "generations)", mode);
    struct aug_sweep_opts o;
    int rc = parse(argc - 1, argv + 1, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    int rank = 0, size = 1;
    rc = aug_sweep_mpi_init(&argc, &argv, &rank, &size);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (strcmp(mode, "train") == 0) {
        rc = aug_sweep_run_train(&o, rank, size);
    } else if (strcmp(mode, "infer") == 0) {
        rc = aug_sweep_run_infer(&o, rank, size);
    } else if (rank == 0) {
        rc = aug_sweep_run_scaling(&o);
    }
    aug_sweep_mpi_finalize();
    return rc;
}
