/* SPDX-License-Identifier: Apache-2.0 */
/* bench_moe_breakdown.c - where one training step of an MoE model goes, by op family:
 * every op of the layer graph (model/layer_graph.c) timed alone with the GPU's calibrated
 * curves (or the documented defaults), times its count, the layers of the slowest pipeline
 * stage and the micro-batches; then augur's whole-step prediction (with overlap, bubble,
 * data-parallel and pipeline traffic) for comparison. The default plan is NeMo's
 * DeepSeek-V3 H100 recipe of NVIDIA dgxc-benchmarking v25.05.05 (512 GPUs, TP 2, PP 8,
 * EP 64, ETP 1, capacity factor 1.0, selective recompute of the MLA up projections
 * (recompute_modules mla_up_proj), global batch 4096, seq 4096).
 * Run: ./build/benchmarks/bench_moe_breakdown [model system gpus tp pp ep global_batch] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "model/layer_graph.h"

struct fam {
    const char *label, *prefixes[6];
    double s;
};

static struct fam fams[] = {
    {"attention core (FlashAttention fwd+bwd)",
     {"attn_fwd", "attn_bwd", "attn_qk", "attn_av", "attn_soft", NULL}, 0},
    {"attention projections (MLA/QKV, out, rope)", {"mla_", "qkv", "attn_out", "rope", NULL}, 0},
    {"routed experts (grouped GEMMs, act)", {"expert_", NULL}, 0},
    {"shared expert and dense-layer MLP", {"mlp_", NULL}, 0},
    {"router, top-k", {"router", NULL}, 0},
    {"token permute / unpermute", {"moe_permute", "moe_unpermute", NULL}, 0},
    {"EP all-to-all dispatch + combine", {"moe_dispatch", "moe_combine", "moe_etp", NULL}, 0},
    {"TP/SP collectives", {"sp_", "tp_", NULL}, 0},
    {"norms, residuals", {"norm", "residual", NULL}, 0},
};
#define NF (sizeof fams / sizeof *fams)

static void add(const struct aug_op_ctx *ctx, const struct aug_graph_op *ops, int n, double k) {
    for (int i = 0; i < n; i++) {
        struct aug_op_time t;
        if (aug_op_time(ctx, &ops[i].op, &t) != AUG_OK)
            continue;
        for (size_t f = 0; f < NF; f++)
            for (int j = 0; fams[f].prefixes[j]; j++) {
                const char *pre = fams[f].prefixes[j];
                if (strncmp(ops[i].op.name, pre, strlen(pre)) == 0) {
                    fams[f].s += k * t.time_s * ops[i].op.count;
                    goto next;
                }
            }
    next:;
    }
}

int main(int argc, char **argv) {
    const char *model = argc > 1 ? argv[1] : "deepseek-v3";
    const char *system = argc > 2 ? argv[2] : "dgx-h100";
    struct aug_model m;
    struct aug_system s;
    if (aug_model_load(NULL, model, &m) != AUG_OK || aug_system_load(NULL, system, &s) != AUG_OK) {
        fprintf(stderr, "bench_moe_breakdown: %s\n", aug_last_error());
        return 1;
    }
    struct aug_plan p;
    aug_plan_init(&p);
    p.gpus = argc > 3 ? atol(argv[3]) : 512;
    p.tp = argc > 4 ? atol(argv[4]) : 2;
    p.pp = argc > 5 ? atol(argv[5]) : 8;
    p.ep = argc > 6 ? atol(argv[6]) : 64;
    p.global_batch = argc > 7 ? atol(argv[7]) : 4096;
    p.etp = 1;
    p.sp = p.tp > 1;
    p.micro_batch = 1;
    p.seq = 4096;
    p.recompute = AUG_RECOMPUTE_SELECTIVE;
    p.recompute_modules = AUG_RC_MLA_UP_PROJ;
    p.zero = 1;
    p.moe_capacity_factor = 1.0;
    p.uneven_pp = 1;
    struct aug_kdb *kdb = NULL;
    if (aug_plan_resolve(&p, &m, &s) != AUG_OK || aug_kdb_open(NULL, s.gpu.id, &kdb) != AUG_OK) {
        fprintf(stderr, "bench_moe_breakdown: %s\n", aug_last_error());
        return 1;
    }
    struct aug_op_ctx ctx = {&s, kdb, 0};
    struct aug_graph layer, first, last;
    aug_graph_all(&m, &p, &s, &layer, &first, &last);
    double per = (double)aug_plan_stage_layers(&p, &m) * (double)aug_plan_microbatches(&p);
    add(&ctx, layer.fwd, layer.n_fwd, per);
    add(&ctx, layer.bwd, layer.n_bwd, per);
    struct aug_train_options opt = {kdb, 0, NULL, 0.0};
    struct aug_train_result r;
    if (aug_train_predict(&m, &s, &p, &opt, &r) != AUG_OK) {
        fprintf(stderr, "bench_moe_breakdown: %s\n", aug_last_error());
        return 1;
    }
    printf("%s on %ld x %s: tp %ld pp %ld ep %ld, %ld micro-batches of %ld layers on the slowest "
           "stage\n", m.name, p.gpus, s.gpu.name, p.tp, p.pp, p.ep, aug_plan_microbatches(&p),
           aug_plan_stage_layers(&p, &m));
    printf("layer ops of one step, each timed alone (no overlap):\n");
    for (size_t f = 0; f < NF; f++)
        printf("  %-44s %9.2f s\n", fams[f].label, fams[f].s);
    const struct aug_train_breakdown *b = &r.breakdown;
    printf("whole step: %.2f s (compute %.2f, attention %.2f, embedding+head+loss %.2f, "
           "EP exposed %.2f, TP %.2f, PP %.2f, DP exposed %.2f, bubble %.2f, optimizer %.2f)\n",
           r.step_time_s, b->compute_s, b->attention_s, b->embedding_s, b->ep_comm_s,
           b->tp_comm_s, b->pp_comm_s, b->dp_comm_s, b->pipeline_bubble_s, b->optimizer_s);
    printf("recompute %.2f s; memory per GPU %.2f GiB of %.2f (activations %.2f)\n",
           b->recompute_s, r.memory.total_gib, r.memory_capacity_gib, r.memory.activations_gib);
    aug_kdb_close(kdb);
    return 0;
}
