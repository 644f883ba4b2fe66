/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_train.c - `augur train`: one training iteration of a model on a system under a
 * plan, printed as a table, JSON (DESIGN section 3 keys) or CSV. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "augur/framework.h"
#include "augur/matmulfree.h"
#include "cli.h"
#include "commands.h"
#include "train_cli.h"

static void help(void) {
    printf("usage: augur train --model M --system S --gpus N [--tp T] [--pp P] [--dp D] [--cp C]\n"
           "                   [--ep E] [--sp] [--interleave V] --micro-batch B --global-batch G\n"
           "                   [--seq L] [--recompute none|selective|full] [--zero 0|1|2|3]\n"
           "                   [--recompute-modules LIST] [--recompute-layers N]\n"
           "                   [--fsdp full|hybrid] [--dtype bf16|fp16|fp8|fp32] [--kdb DIR]\n"
           "                   [--attention fused|unfused] [--attention-kernel cudnn|fa3|fa2]\n"
           "                   [--cross-entropy fused|unfused|te] [--fp8-scaling delayed|current]\n"
           "                   [--fp8-params on|off]\n"
           "                   [--no-dp-overlap] [--uneven-pp] [--pp-embed-loss-slots] [--roofline]\n"
           "                   [--pp-first-layers N] [--pp-last-layers N]\n"
           "                   [--cp-algo ring|ulysses|allgather] [--etp E] [--ep-placement inner|outer]\n"
           "                   [--moe-capacity-factor C|dropless] [--moe-imbalance F]\n"
           "                   [--ternary-kernel accumulate|tensor] [--tp-overlap] [--pp-overlap]\n"
           "                   [--moe-overlap none|shared|batch] [--moe-overlap-realized F]\n"
           "                   [--moe-dispatcher alltoall|deepep]\n"
           "                   [--comm-slowdown F] [--compare-transformer] [--framework NAME]\n"
           "                   [--no-sp] [--dp-overlap] [--no-tp-overlap] [--no-pp-overlap]\n"
           "                   [--pp-scatter on|off] [--tp-async-allreduce on|off]\n"
           "                   [--main-grads dtype|fp32|fp32-copy]\n"
           "                   [--cuda-graphs on|off] [--bucket-params N]\n"
           "                   [--param-gather-overlap on|off] [--zero3-gather prefetch|serial]\n"
           "                   [--grad-reduce reduce-scatter|all-reduce]\n"
           "                   [--ops] [--format table|json|csv] [--output FILE]\n"
           "       augur train --plan FILE.json[#N] [options that override it]\n\n"
           "Predicts the time of one training iteration, tokens/s, MFU and HFU, the time\n"
           "breakdown, memory per GPU and whether it fits; a plan that does not fit also lists\n"
           "the memory per GPU after each option that would save some (--sp, --zero N,\n"
           "--recompute, --micro-batch 1, --fp8-params on), alone and together. --model takes\n"
           "a preset name (augur models), a Hugging Face config.json or an augur model JSON;\n"
           "--system a preset name (augur systems) or a system JSON. --dp defaults to\n"
           "gpus/(tp*pp*cp). Op times use the GPU's calibrated curves in kernels-db (--kdb DIR\n"
           "names another kernels-db root: it holds gpus.csv and <gpu>/curves.csv), documented\n"
           "default efficiencies where no curve exists, or pure roofline with --roofline;\n"
           "'provenance' gives each source's share of the predicted time. --ops adds every op\n"
           "of the iteration: its count, FLOPs and bytes, its time alone, the seconds it adds to\n"
           "the step and their share, and its source; the rows of the slowest pipeline stage add\n"
           "up to the step time (CSV: one row per op).\n\n"
           "  --plan FILE[#N]       start from a plan augur printed as JSON: plan N (from 0,\n"
           "                        default 0) of the \"top\" list of `augur sweep train --format\n"
           "                        json`, or the plan of `augur train --format json`; model and\n"
           "                        system come from it unless given; other options override it\n\n"
           "Beyond dense transformers:\n"
           "  --cp-algo A           how attention crosses the CP group: ring (K/V blocks passed by\n"
           "                        send/recv, overlapped with blockwise attention; default), ulysses\n"
           "                        (all-to-all of Q, K, V and O across heads), allgather (K, V\n"
           "                        gathered once per layer, attention on two local chunks, as\n"
           "                        Llama 3); ring refuses sliding-window or chunked layers\n"
           "                        shorter than the sequence, as Transformer Engine does\n"
           "  --etp E               expert tensor parallelism (default: --tp); ep*etp must divide\n"
           "                        tp*dp*cp\n"
           "  --ep-placement P      inner (default): EP peers next to the TP ranks, inside a node;\n"
           "                        outer: EP outside data parallelism, across nodes\n"
           "  --moe-capacity-factor C  pad every expert to C times its even share and drop the\n"
           "                        overflow (GShard/Switch); 0 or 'dropless' (default) processes\n"
           "                        every token\n"
           "  --moe-imbalance F     tokens on the busiest expert over the mean, >= 1 (default 1.08,\n"
           "                        calibrated on Mixtral 8x22B natural vs forced-balanced routing)\n"
           "  --ternary-kernel K    MatMul-free BitLinear layers: tensor (default: ternary values as\n"
           "                        16-bit tensor-core GEMMs, as the reference code runs them) or\n"
           "                        accumulate (additions on the CUDA cores at the non-tensor rate,\n"
           "                        2-bit weights)\n"
           "  --tp-overlap          split TP collectives into tp chunks overlapped with the GEMM\n"
           "                        beside them (T3 / Transformer Engine userbuffers)\n"
           "  --pp-overlap          overlap steady-state pipeline sends with the next chunk\n"
           "  --pp-embed-loss-slots the input embedding and the loss each take one layer's slot\n"
           "                        in the pipeline split: the first and last ranks hold a layer\n"
           "                        fewer, (layers + 2) must divide by pp*interleave (Megatron-Core\n"
           "                        --account-for-embedding/loss-in-pipeline-split; Llama 3)\n"
           "  --pp-first-layers N, --pp-last-layers N  layers on the first and the last\n"
           "                        pipeline rank, the other ranks splitting the rest evenly\n"
           "                        (Megatron-Core --decoder-first/last-pipeline-num-layers;\n"
           "                        NeMo's DeepSeek-V3 recipe: 64/pp - 1 and 64/pp - 2); with\n"
           "                        --interleave a rank's layers over all its chunks, as a\n"
           "                        pipeline_model_parallel_layout places them\n"
           "  --recompute-modules L what selective recomputation repeats (implies --recompute\n"
           "                        selective): Megatron-Core recompute_modules joined by commas,\n"
           "                        core_attn (default), mla_up_proj, layernorm, mlp, moe,\n"
           "                        moe_act, shared_experts; time repeats their forward, memory\n"
           "                        drops what each keeps\n"
           "  --recompute-layers N  full recomputation of only the first N layers of each\n"
           "                        pipeline chunk, the rest keeping their activations\n"
           "                        (implies --recompute full; Megatron-Core\n"
           "                        --recompute-method block --recompute-num-layers N)\n"
           "  --moe-overlap O       what hides the expert-parallel all-to-alls: none (default),\n"
           "                        shared (the shared expert beside dispatch and combine,\n"
           "                        Megatron-Core moe_shared_expert_overlap; needs shared\n"
           "                        experts and --ep) or batch (another\n"
           "                        micro-batch's layer: Megatron-Core\n"
           "                        overlap_moe_expert_parallel_comm, forward and backward\n"
           "                        merged in the steady 1F1B phase; needs --interleave with\n"
           "                        --pp, no full recomputation, no moe recompute module)\n"
           "  --moe-overlap-realized F  with --moe-overlap batch or shared, the share (0-1) of\n"
           "                        the schedule's hidden time a run shows (default 0.39,\n"
           "                        fitted on a published pair of runs with and without the\n"
           "                        batch overlap)\n"
           "  --moe-dispatcher D    how tokens reach their experts: alltoall (default, NCCL\n"
           "                        all-to-all, every token copy) or deepep (Megatron-Core's\n"
           "                        flex dispatcher on DeepEP: one copy per other NVLink\n"
           "                        domain holding an expert of the token, forwarded there\n"
           "                        over NVLink; dropless, --etp 1, no shared overlap)\n"
           "  --comm-slowdown F     compute slowdown while an overlapped collective shares the SMs,\n"
           "                        0..1 (default 0.19, arXiv 2507.03114)\n"
           "  --compare-transformer MatMul-free models: also predict the Transformer++ of the same\n"
           "                        size under the same plan and print the two side by side\n\n"
           "What the framework executes:\n"
           "  --framework NAME      none (default: the plan exactly as given), megatron-core\n"
           "                        (NeMo 2 / Megatron-Core recipes), megatron-lm-2022,\n"
           "                        megatron-deepspeed, deepspeed-zero, deepspeed-zero-2021\n"
           "                        (DeepSpeed's ZeRO-3 before 0.5.6), pytorch-fsdp or\n"
           "                        nemo1-launcher (NeMo 1 via its launcher 24.01-24.07:\n"
           "                        FlashAttention-2, unfused loss; else megatron-core): applies\n"
           "                        that framework's defaults (SP, attention, loss, overlaps,\n"
           "                        pipeline scatter/gather, sharding, gradient bytes, buckets,\n"
           "                        CUDA graphs) where no option sets them, and its host issue cost\n"
           "                        per kernel; the output lists what it applied\n"
           "  --attention-kernel K  the fused attention kernel: cudnn (default; Transformer\n"
           "                        Engine's backend on Hopper), fa3 or fa2 (flash-attn 2.x, PyTorch\n"
           "                        SDPA: Ampere instructions, about 0.6x the rate on H100)\n"
           "  --cross-entropy C     the loss over the vocabulary-parallel logits: fused (default;\n"
           "                        Megatron-Core's jit-fused passes, 32 B per bf16 logit),\n"
           "                        unfused (Megatron's PyTorch ops, 52 B) or te (Transformer\n"
           "                        Engine's Triton kernel, 10 B)\n"
           "  --fp8-scaling S       with --dtype fp8, where each operand's scale comes from:\n"
           "                        delayed (default; Transformer Engine's amax history) or\n"
           "                        current (the tensor itself: one more read of it before each\n"
           "                        cast; Megatron-Core fp8_recipe tensorwise)\n"
           "  --fp8-params on|off   with --dtype fp8: keep the layers' weights in fp8 and gather\n"
           "                        them in fp8 (Megatron-Core --fp8-param-gather; on in the\n"
           "                        megatron-core profile, as NeMo 2's and Megatron-Bridge's fp8\n"
           "                        recipes set it), or keep 16-bit weights beside Transformer\n"
           "                        Engine's cached fp8 copies (off, the default otherwise)\n"
           "  --no-sp, --dp-overlap, --no-tp-overlap, --no-pp-overlap  turn a default off / on\n"
           "  --tp-async-allreduce on|off  without SP, all-reduce a column-parallel linear's\n"
           "                        input gradient beside its weight-gradient GEMM (Megatron\n"
           "                        since 2021-08, Megatron-Core)\n"
           "  --pp-scatter on|off   without SP, send 1/tp of the activation per rank and\n"
           "                        all-gather it over TP after the send (Megatron-LM 2021)\n"
           "  --main-grads G        dtype (ZeRO paper: 16 B/param), fp32 (Megatron bf16: fp32\n"
           "                        gradients reduced in fp32, 18 B), fp32-copy (Megatron fp16, 20 B)\n"
           "  --cuda-graphs on|off  layers replayed as CUDA graphs: no per-kernel host issue\n"
           "  --bucket-params N     gradient bucket size in parameters (0: one per layer)\n"
           "  --param-gather-overlap on|off  ZeRO-1/2: all-gather the updated parameters behind\n"
           "                        the next iteration's first forward (Megatron-Core)\n"
           "  --zero3-gather G      ZeRO-3 weight gathers: prefetch (default: each layer's behind\n"
           "                        the previous layer's compute) or serial (DeepSpeed 0.3.13-\n"
           "                        0.5.5: tensor by tensor after the compute; dense layers, no\n"
           "                        --pp)\n"
           "  --grad-reduce G       ZeRO-1 gradient reduction: reduce-scatter (default; Megatron's\n"
           "                        distributed optimizer) or all-reduce (DeepSpeed's\n"
           "                        BF16_Optimizer, bf16 weights with fp32 gradients)\n");
}

enum {
    OPT_MODEL = 256, OPT_SYSTEM, OPT_GPUS, OPT_TP, OPT_PP, OPT_DP, OPT_CP, OPT_EP, OPT_SP,
    OPT_INTERLEAVE, OPT_MB, OPT_GB, OPT_SEQ, OPT_RECOMPUTE, OPT_ZERO, OPT_FSDP, OPT_DTYPE,
    OPT_KDB, OPT_ATTENTION, OPT_NO_OVERLAP, OPT_UNEVEN, OPT_ROOFLINE, OPT_FORMAT, OPT_OUTPUT, OPT_HELP,
    OPT_CP_ALGO, OPT_ETP, OPT_EP_PLACEMENT, OPT_MOE_CF, OPT_MOE_IMB, OPT_TERNARY, OPT_TP_OVERLAP,
    OPT_PP_OVERLAP, OPT_COMM_SLOWDOWN, OPT_COMPARE, OPT_MOE_OVERLAP, OPT_MOE_REALIZED, OPT_MOE_DISPATCHER, OPT_FRAMEWORK, OPT_NO_SP,
    OPT_DP_OVERLAP, OPT_NO_TP_OVERLAP, OPT_NO_PP_OVERLAP, OPT_PP_SCATTER, OPT_MAIN_GRADS, OPT_CUDA_GRAPHS,
    OPT_BUCKET, OPT_PARAM_GATHER, OPT_PLAN, OPT_ATTN_KERNEL, OPT_CROSS_ENTROPY, OPT_PP_SLOTS, OPT_RC_MODULES,
    OPT_RC_LAYERS, OPT_OPS, OPT_TP_ASYNC, OPT_ZERO3_GATHER, OPT_GRAD_REDUCE, OPT_PP_FIRST, OPT_PP_LAST,
    OPT_FP8_SCALING, OPT_FP8_PARAMS
};

static const struct option options[] = {
    {"model", required_argument, 0, OPT_MODEL},
    {"system", required_argument, 0, OPT_SYSTEM},
    {"gpus", required_argument, 0, OPT_GPUS},
    {"tp", required_argument, 0, OPT_TP},
    {"pp", required_argument, 0, OPT_PP},
    {"dp", required_argument, 0, OPT_DP},
    {"cp", required_argument, 0, OPT_CP},
    {"ep", required_argument, 0, OPT_EP},
    {"sp", no_argument, 0, OPT_SP},
    {"interleave", required_argument, 0, OPT_INTERLEAVE},
    {"micro-batch", required_argument, 0, OPT_MB},
    {"global-batch", required_argument, 0, OPT_GB},
    {"seq", required_argument, 0, OPT_SEQ},
    {"recompute", required_argument, 0, OPT_RECOMPUTE},
    {"recompute-modules", required_argument, 0, OPT_RC_MODULES},
    {"recompute-layers", required_argument, 0, OPT_RC_LAYERS},
    {"zero", required_argument, 0, OPT_ZERO},
    {"fsdp", required_argument, 0, OPT_FSDP},
    {"dtype", required_argument, 0, OPT_DTYPE},
    {"kdb", required_argument, 0, OPT_KDB},
    {"attention", required_argument, 0, OPT_ATTENTION},
    {"attention-kernel", required_argument, 0, OPT_ATTN_KERNEL},
    {"cross-entropy", required_argument, 0, OPT_CROSS_ENTROPY},
    {"fp8-scaling", required_argument, 0, OPT_FP8_SCALING},
    {"fp8-params", required_argument, 0, OPT_FP8_PARAMS},
    {"zero3-gather", required_argument, 0, OPT_ZERO3_GATHER},
    {"grad-reduce", required_argument, 0, OPT_GRAD_REDUCE},
    {"no-dp-overlap", no_argument, 0, OPT_NO_OVERLAP},
    {"uneven-pp", no_argument, 0, OPT_UNEVEN},
    {"pp-embed-loss-slots", no_argument, 0, OPT_PP_SLOTS},
    {"roofline", no_argument, 0, OPT_ROOFLINE},
    {"format", required_argument, 0, OPT_FORMAT},
    {"output", required_argument, 0, OPT_OUTPUT},
    {"help", no_argument, 0, OPT_HELP},
    {"cp-algo", required_argument, 0, OPT_CP_ALGO},
    {"etp", required_argument, 0, OPT_ETP},
    {"ep-placement", required_argument, 0, OPT_EP_PLACEMENT},
    {"moe-capacity-factor", required_argument, 0, OPT_MOE_CF},
    {"moe-imbalance", required_argument, 0, OPT_MOE_IMB},
    {"ternary-kernel", required_argument, 0, OPT_TERNARY},
    {"tp-overlap", no_argument, 0, OPT_TP_OVERLAP},
    {"pp-overlap", no_argument, 0, OPT_PP_OVERLAP},
    {"moe-overlap", required_argument, 0, OPT_MOE_OVERLAP},
    {"moe-dispatcher", required_argument, 0, OPT_MOE_DISPATCHER},
    {"moe-overlap-realized", required_argument, 0, OPT_MOE_REALIZED},
    {"comm-slowdown", required_argument, 0, OPT_COMM_SLOWDOWN},
    {"compare-transformer", no_argument, 0, OPT_COMPARE},
    {"framework", required_argument, 0, OPT_FRAMEWORK},
    {"no-sp", no_argument, 0, OPT_NO_SP},
    {"dp-overlap", no_argument, 0, OPT_DP_OVERLAP},
    {"no-tp-overlap", no_argument, 0, OPT_NO_TP_OVERLAP},
    {"no-pp-overlap", no_argument, 0, OPT_NO_PP_OVERLAP},
    {"pp-scatter", required_argument, 0, OPT_PP_SCATTER},
    {"tp-async-allreduce", required_argument, 0, OPT_TP_ASYNC},
    {"pp-first-layers", required_argument, 0, OPT_PP_FIRST},
    {"pp-last-layers", required_argument, 0, OPT_PP_LAST},
    {"main-grads", required_argument, 0, OPT_MAIN_GRADS},
    {"cuda-graphs", required_argument, 0, OPT_CUDA_GRAPHS},
    {"bucket-params", required_argument, 0, OPT_BUCKET},
    {"param-gather-overlap", required_argument, 0, OPT_PARAM_GATHER},
    {"plan", required_argument, 0, OPT_PLAN},
    {"ops", no_argument, 0, OPT_OPS},
    {0, 0, 0, 0},
};

/* --plan FILE[#N]: the plan, model and system of a JSON file augur printed. */
static int load_plan_file(const char *cmd, const char *arg, struct aug_plan *plan, char *model,
                          size_t mn, char *system, size_t sn) {
    char path[4096];
    snprintf(path, sizeof path, "%s", arg);
    long index = 0;
    char *hash = strrchr(path, '#');
    if (hash) {
        *hash = '\0';
        int rc = aug_cli_long(cmd, "--plan #N", hash + 1, 0, 1L << 30, &index);
        if (rc)
            return rc;
    }
    char *text;
    int st = aug_read_file_max(path, AUG_JSON_FILE_MAX, &text, NULL);
    if (st == AUG_OK) {
        st = aug_plan_from_json(path, text, index, plan, model, mn, system, sn);
        free(text);
    }
    return st == AUG_OK ? 0 : aug_cli_fail(st, NULL);
}

int aug_cmd_train(int argc, char **argv) {
    const char *model_arg = NULL, *system_arg = NULL, *kdb_arg = NULL, *output = NULL;
    enum aug_format fmt = AUG_FORMAT_TABLE;
    int roofline = 0, have_mb = 0, have_gb = 0, compare = 0, want_ops = 0, rc, framework = AUG_FW_NONE;
    int rec_given = 0, mods_given = 0, layers_given = 0, fp8_scaling_given = 0;
    unsigned set = 0; /* plan fields given explicitly (a framework profile leaves them) */
    struct aug_plan plan;
    aug_plan_init(&plan);
    const char *cmd = "train";
    /* --plan first, wherever it stands: the other options override what it sets */
    static char plan_model[1024], plan_system[1024];
    for (int i = 1; i < argc; i++) {
        const char *a = NULL;
        if (strcmp(argv[i], "--plan") == 0 && i + 1 < argc)
            a = argv[i + 1];
        else if (strncmp(argv[i], "--plan=", 7) == 0)
            a = argv[i] + 7;
        if (!a)
            continue;
        if ((rc = load_plan_file(cmd, a, &plan, plan_model, sizeof plan_model, plan_system,
                                 sizeof plan_system)))
            return rc;
        have_mb = have_gb = 1;
        if (plan_model[0])
            model_arg = plan_model;
        if (plan_system[0])
            system_arg = plan_system;
    }
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        long v;
        switch (c) {
        case OPT_MODEL: model_arg = optarg; break;
        case OPT_SYSTEM: system_arg = optarg; break;
        case OPT_GPUS:
            if ((rc = aug_cli_long(cmd, "--gpus", optarg, 1, 100000000, &plan.gpus))) return rc;
            break;
        case OPT_TP: if ((rc = aug_cli_long(cmd, "--tp", optarg, 1, 1 << 20, &plan.tp))) return rc; break;
        case OPT_PP: if ((rc = aug_cli_long(cmd, "--pp", optarg, 1, 1 << 20, &plan.pp))) return rc; break;
        case OPT_DP: if ((rc = aug_cli_long(cmd, "--dp", optarg, 1, 1 << 26, &plan.dp))) return rc; break;
        case OPT_CP: if ((rc = aug_cli_long(cmd, "--cp", optarg, 1, 1 << 20, &plan.cp))) return rc; break;
        case OPT_EP: if ((rc = aug_cli_long(cmd, "--ep", optarg, 1, 1 << 20, &plan.ep))) return rc; break;
        case OPT_SP: plan.sp = 1; set |= AUG_FWSET_SP; break;
        case OPT_NO_SP: plan.sp = 0; set |= AUG_FWSET_SP; break;
        case OPT_INTERLEAVE:
            if ((rc = aug_cli_long(cmd, "--interleave", optarg, 1, 1024, &plan.interleave))) return rc;
            break;
        case OPT_MB:
            if ((rc = aug_cli_long(cmd, "--micro-batch", optarg, 1, 1L << 30, &plan.micro_batch))) return rc;
            have_mb = 1;
            break;
        case OPT_GB:
            if ((rc = aug_cli_long(cmd, "--global-batch", optarg, 1, 1L << 40, &plan.global_batch))) return rc;
            have_gb = 1;
            break;
        case OPT_SEQ: if ((rc = aug_cli_long(cmd, "--seq", optarg, 1, 1L << 30, &plan.seq))) return rc; break;
        case OPT_RECOMPUTE:
            if (aug_recompute_from_name(optarg, &plan.recompute) != AUG_OK)
                return aug_cli_usage(cmd, "--recompute: %s", aug_last_error());
            rec_given = 1;
            break;
        case OPT_RC_MODULES:
            if (aug_rc_modules_parse(optarg, &plan.recompute_modules) != AUG_OK)
                return aug_cli_usage(cmd, "--recompute-modules: %s", aug_last_error());
            mods_given = 1;
            break;
        case OPT_RC_LAYERS:
            if ((rc = aug_cli_long(cmd, "--recompute-layers", optarg, 1, 1L << 20,
                                   &plan.recompute_layers)))
                return rc;
            layers_given = 1;
            break;
        case OPT_PP_FIRST:
            if ((rc = aug_cli_long(cmd, "--pp-first-layers", optarg, 1, 1L << 20,
                                   &plan.pp_first_layers)))
                return rc;
            break;
        case OPT_PP_LAST:
            if ((rc = aug_cli_long(cmd, "--pp-last-layers", optarg, 1, 1L << 20,
                                   &plan.pp_last_layers)))
                return rc;
            break;
        case OPT_ZERO:
            if ((rc = aug_cli_long(cmd, "--zero", optarg, 0, 3, &v))) return rc;
            plan.zero = (int)v;
            set |= AUG_FWSET_SHARDING;
            break;
        case OPT_FSDP:
            if (aug_fsdp_from_name(optarg, &plan.fsdp) != AUG_OK || plan.fsdp == AUG_FSDP_NONE)
                return aug_cli_usage(cmd, "--fsdp: unknown mode '%s' (use full or hybrid)", optarg);
            set |= AUG_FWSET_SHARDING;
            break;
        case OPT_DTYPE:
            if (aug_dtype_from_name(optarg, &plan.dtype) != AUG_OK)
                return aug_cli_usage(cmd, "--dtype: %s", aug_last_error());
            break;
        case OPT_KDB: kdb_arg = optarg; break;
        case OPT_ATTENTION:
            if (strcmp(optarg, "fused") == 0 || strcmp(optarg, "flash") == 0)
                plan.flash_attention = 1;
            else if (strcmp(optarg, "unfused") == 0)
                plan.flash_attention = 0;
            else
                return aug_cli_usage(cmd, "--attention: use fused or unfused, not '%s'", optarg);
            set |= AUG_FWSET_ATTENTION;
            break;
        case OPT_ATTN_KERNEL:
            if (aug_attn_kernel_from_name(optarg, &plan.attn_kernel) != AUG_OK)
                return aug_cli_usage(cmd, "--attention-kernel: %s", aug_last_error());
            set |= AUG_FWSET_ATTN_KERNEL;
            break;
        case OPT_GRAD_REDUCE:
            if (aug_grad_reduce_from_name(optarg, &plan.grad_reduce) != AUG_OK)
                return aug_cli_usage(cmd, "--grad-reduce: %s", aug_last_error());
            set |= AUG_FWSET_GRAD_REDUCE;
            break;
        case OPT_ZERO3_GATHER:
            if (aug_zero3_gather_from_name(optarg, &plan.zero3_gather) != AUG_OK)
                return aug_cli_usage(cmd, "--zero3-gather: %s", aug_last_error());
            set |= AUG_FWSET_ZERO3_GATHER;
            break;
        case OPT_CROSS_ENTROPY:
            if (aug_cross_entropy_from_name(optarg, &plan.cross_entropy) != AUG_OK)
                return aug_cli_usage(cmd, "--cross-entropy: %s", aug_last_error());
            set |= AUG_FWSET_CROSS_ENTROPY;
            break;
        case OPT_FP8_SCALING:
            if (aug_fp8_scaling_from_name(optarg, &plan.fp8_scaling) != AUG_OK)
                return aug_cli_usage(cmd, "--fp8-scaling: %s", aug_last_error());
            fp8_scaling_given = 1;
            break;
        case OPT_NO_OVERLAP: plan.dp_overlap = 0; set |= AUG_FWSET_DP_OVERLAP; break;
        case OPT_DP_OVERLAP: plan.dp_overlap = 1; set |= AUG_FWSET_DP_OVERLAP; break;
        case OPT_UNEVEN: plan.uneven_pp = 1; break;
        case OPT_PP_SLOTS: plan.pp_embed_loss_slots = 1; break;
        case OPT_ROOFLINE: roofline = 1; break;
        case OPT_CP_ALGO:
            if (aug_cp_algo_from_name(optarg, &plan.cp_algo) != AUG_OK)
                return aug_cli_usage(cmd, "--cp-algo: %s", aug_last_error());
            break;
        case OPT_ETP: if ((rc = aug_cli_long(cmd, "--etp", optarg, 1, 1 << 20, &plan.etp))) return rc; break;
        case OPT_EP_PLACEMENT:
            if (strcmp(optarg, "inner") == 0 || strcmp(optarg, "intra-node") == 0)
                plan.ep_outer = 0;
            else if (strcmp(optarg, "outer") == 0 || strcmp(optarg, "inter-node") == 0)
                plan.ep_outer = 1;
            else
                return aug_cli_usage(cmd, "--ep-placement: use inner or outer, not '%s'", optarg);
            break;
        case OPT_MOE_CF:
            if (strcmp(optarg, "dropless") == 0)
                plan.moe_capacity_factor = 0.0;
            else if ((rc = aug_cli_double(cmd, "--moe-capacity-factor", optarg,
                                          &plan.moe_capacity_factor)))
                return rc;
            break;
        case OPT_MOE_IMB:
            if ((rc = aug_cli_double(cmd, "--moe-imbalance", optarg, &plan.moe_imbalance))) return rc;
            break;
        case OPT_TERNARY:
            if (aug_ternary_kernel_from_name(optarg, &plan.ternary) != AUG_OK)
                return aug_cli_usage(cmd, "--ternary-kernel: %s", aug_last_error());
            break;
        case OPT_TP_OVERLAP: plan.tp_overlap = 1; set |= AUG_FWSET_TP_OVERLAP; break;
        case OPT_NO_TP_OVERLAP: plan.tp_overlap = 0; set |= AUG_FWSET_TP_OVERLAP; break;
        case OPT_PP_OVERLAP: plan.pp_overlap = 1; set |= AUG_FWSET_PP_OVERLAP; break;
        case OPT_NO_PP_OVERLAP: plan.pp_overlap = 0; set |= AUG_FWSET_PP_OVERLAP; break;
        case OPT_FRAMEWORK:
            if (aug_framework_from_name(optarg, &framework) != AUG_OK)
                return aug_cli_usage(cmd, "--framework: %s", aug_last_error());
            break;
        case OPT_PP_SCATTER:
        case OPT_TP_ASYNC:
        case OPT_PARAM_GATHER:
        case OPT_FP8_PARAMS:
        case OPT_CUDA_GRAPHS: {
            int on;
            if (strcmp(optarg, "on") == 0)
                on = 1;
            else if (strcmp(optarg, "off") == 0)
                on = 0;
            else
                return aug_cli_usage(cmd, "--%s: use on or off, not '%s'",
                                     c == OPT_PP_SCATTER     ? "pp-scatter"
                                     : c == OPT_TP_ASYNC     ? "tp-async-allreduce"
                                     : c == OPT_PARAM_GATHER ? "param-gather-overlap"
                                     : c == OPT_FP8_PARAMS   ? "fp8-params"
                                                             : "cuda-graphs",
                                     optarg);
            if (c == OPT_PP_SCATTER) {
                plan.pp_scatter = on;
                set |= AUG_FWSET_PP_SCATTER;
            } else if (c == OPT_TP_ASYNC) {
                plan.tp_async_allreduce = on;
                set |= AUG_FWSET_TP_ASYNC;
            } else if (c == OPT_PARAM_GATHER) {
                plan.param_gather_overlap = on;
                set |= AUG_FWSET_PARAM_GATHER;
            } else if (c == OPT_FP8_PARAMS) {
                plan.fp8_params = on;
                set |= AUG_FWSET_FP8_PARAMS;
            } else {
                plan.cuda_graphs = on;
                set |= AUG_FWSET_CUDA_GRAPHS;
            }
            break;
        }
        case OPT_MAIN_GRADS:
            if (aug_main_grads_from_name(optarg, &plan.main_grads) != AUG_OK)
                return aug_cli_usage(cmd, "--main-grads: %s", aug_last_error());
            set |= AUG_FWSET_GRADS;
            break;
        case OPT_BUCKET:
            if ((rc = aug_cli_double(cmd, "--bucket-params", optarg, &plan.bucket_params))) return rc;
            set |= AUG_FWSET_BUCKET;
            break;
        case OPT_MOE_REALIZED:
            if ((rc = aug_cli_double(cmd, "--moe-overlap-realized", optarg,
                                     &plan.moe_overlap_realized)))
                return rc;
            break;
        case OPT_MOE_DISPATCHER:
            if (aug_moe_dispatcher_from_name(optarg, &plan.moe_dispatcher) != AUG_OK)
                return aug_cli_usage(cmd, "--moe-dispatcher: %s", aug_last_error());
            break;
        case OPT_MOE_OVERLAP:
            if (aug_moe_overlap_from_name(optarg, &plan.moe_overlap) != AUG_OK)
                return aug_cli_usage(cmd, "--moe-overlap: %s", aug_last_error());
            break;
        case OPT_COMM_SLOWDOWN:
            if ((rc = aug_cli_double(cmd, "--comm-slowdown", optarg, &plan.comm_slowdown))) return rc;
            break;
        case OPT_COMPARE: compare = 1; break;
        case OPT_OPS: want_ops = 1; break;
        case OPT_PLAN: break; /* read above */
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
    if (fp8_scaling_given && plan.dtype != AUG_DTYPE_FP8)
        return aug_cli_usage(cmd, "--fp8-scaling needs --dtype fp8 (not %s)",
                             aug_dtype_name(plan.dtype));
    if (plan.fp8_params && plan.dtype != AUG_DTYPE_FP8)
        return aug_cli_usage(cmd, "--fp8-params on needs --dtype fp8 (not %s)",
                             aug_dtype_name(plan.dtype));
    if (layers_given) {
        if (rec_given && plan.recompute != AUG_RECOMPUTE_FULL)
            return aug_cli_usage(cmd, "--recompute-layers needs --recompute full (not %s)",
                                 aug_recompute_name(plan.recompute));
        if (mods_given)
            return aug_cli_usage(cmd, "--recompute-layers (full recomputation) and "
                                      "--recompute-modules (selective) exclude each other");
        plan.recompute = AUG_RECOMPUTE_FULL;
    }
    if (mods_given) {
        if (rec_given && plan.recompute != AUG_RECOMPUTE_SELECTIVE)
            return aug_cli_usage(cmd, "--recompute-modules needs --recompute selective (not %s)",
                                 aug_recompute_name(plan.recompute));
        plan.recompute = AUG_RECOMPUTE_SELECTIVE;
    }
    if (!model_arg)
        return aug_cli_usage(cmd, "--model is required");
    if (!system_arg)
        return aug_cli_usage(cmd, "--system is required");
    if (!have_mb)
        return aug_cli_usage(cmd, "--micro-batch is required");
    if (!have_gb)
        return aug_cli_usage(cmd, "--global-batch is required");

    struct aug_model model;
    struct aug_system sys;
    if ((rc = aug_cli_load_model_system(kdb_arg, model_arg, system_arg, &model, &sys)))
        return rc;
    int st;
    if (compare && model.arch != AUG_ARCH_MATMULFREE)
        return aug_cli_usage(cmd, "--compare-transformer needs a MatMul-free model ('%s' is %s)",
                             model.name, aug_arch_name(model.arch));
    struct aug_plan plan0 = plan;
    st = aug_plan_resolve(&plan, &model, &sys);
    /* the framework's defaults need the resolved degrees (dp for bucket sizes); the plan
     * is checked again with them */
    char applied[512] = "";
    if (st == AUG_OK && framework != AUG_FW_NONE) {
        aug_framework_apply(framework, &plan, set, applied, sizeof applied);
        st = aug_plan_resolve(&plan, &model, &sys);
    }
    if (st != AUG_OK)
        return st == AUG_EUSAGE ? aug_cli_usage(cmd, "%s", aug_last_error()) : aug_cli_fail(st, NULL);
    struct aug_model twin;
    struct aug_plan twin_plan = plan0;
    if (compare) {
        if ((st = aug_mmf_transformer_twin(&model, &twin)) != AUG_OK)
            return aug_cli_fail(st, NULL);
        st = aug_plan_resolve(&twin_plan, &twin, &sys);
        if (st == AUG_OK && framework != AUG_FW_NONE) {
            aug_framework_apply(framework, &twin_plan, set, NULL, 0);
            st = aug_plan_resolve(&twin_plan, &twin, &sys);
        }
        if (st != AUG_OK)
            return aug_cli_usage(cmd, "--compare-transformer: the plan does not fit %s: %s",
                                 twin.name, aug_last_error());
    }
    struct aug_kdb *kdb = NULL;
    if (!roofline && (st = aug_kdb_open_predict(kdb_arg, sys.gpu.id, &kdb)) != AUG_OK)
        return aug_cli_fail(st, NULL);
    struct aug_train_options opt = {kdb, roofline, NULL, 0.0};
    struct aug_train_result res;
    static struct aug_train_op_report ops[AUG_TRAIN_OPS_MAX];
    int n_ops = 0;
    st = want_ops ? aug_train_ops(&model, &sys, &plan, &opt, &res, ops, AUG_TRAIN_OPS_MAX, &n_ops)
                  : aug_train_predict(&model, &sys, &plan, &opt, &res);
    if (st != AUG_OK) {
        aug_kdb_close(kdb);
        return aug_cli_fail(st, NULL);
    }
    struct aug_train_result twin_res;
    if (compare && (st = aug_train_predict(&twin, &sys, &twin_plan, &opt, &twin_res)) != AUG_OK) {
        aug_kdb_close(kdb);
        return aug_cli_fail(st, NULL);
    }
    FILE *f = aug_cli_open_output(output);
    if (!f) {
        aug_kdb_close(kdb);
        return 1;
    }
    json_t *obj = aug_cli_train_json(&model, &sys, &plan, &res, kdb);
    json_object_set_new(obj, "framework", aug_cli_train_framework_json(&plan, &sys, applied));
    /* a plan that does not fit: what each memory-saving change would need */
    struct aug_train_memory_option mopt[AUG_TRAIN_MEMORY_OPTIONS_MAX];
    int n_mopt = res.fits_in_memory ? 0
                                    : aug_train_memory_options(&model, &sys, &plan, mopt,
                                                               AUG_TRAIN_MEMORY_OPTIONS_MAX);
    json_object_set_new(obj, "memory_options", aug_cli_train_memory_options_json(mopt, n_mopt));
    if (compare)
        json_object_set_new(obj, "compare",
                            aug_cli_train_json(&twin, &sys, &twin_plan, &twin_res, kdb));
    if (want_ops)
        json_object_set_new(obj, "ops", aug_cli_train_ops_json(ops, n_ops));
    if (fmt == AUG_FORMAT_TABLE) {
        aug_cli_train_table(f, &model, &sys, &plan, &res, kdb);
        if (!res.fits_in_memory)
            aug_cli_train_memory_options_table(f, mopt, n_mopt);
        if (framework != AUG_FW_NONE)
            fprintf(f, "# framework %s set: %s (options given on the command line win)\n",
                    aug_framework_name(framework), applied[0] ? applied : "nothing");
        if (compare)
            aug_cli_train_compare(f, &model, &res, &twin, &twin_res, &plan);
        if (want_ops)
            aug_cli_train_ops_table(f, &res, ops, n_ops);
    } else if (fmt == AUG_FORMAT_CSV && want_ops) {
        if (aug_cli_train_ops_csv(f, ops, n_ops) != 0) /* one row per op */
            st = AUG_EIO;
    } else if (aug_cli_write(f, fmt, obj) != 0) {
        st = AUG_EIO;
    }
    json_decref(obj);
    aug_kdb_close(kdb);
    if (st != AUG_OK) {
        aug_cli_discard_output(f);
        return 1;
    }
    if (aug_cli_close_output(f, output) != 0)
        return 1;
    return 0;
}
