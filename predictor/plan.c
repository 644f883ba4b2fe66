/* plan.c - parallelization plans: defaults, names, and the consistency rules that
 * every prediction relies on (products of degrees, divisibility). */
#include "augur/plan.h"

#include <string.h>
#include <strings.h>

#include "augur/model.h"
#include "augur/status.h"
#include "augur/system.h"

static const char *const recompute_names[] = {"none", "selective", "full"};
_Static_assert(sizeof recompute_names / sizeof *recompute_names == AUG_RECOMPUTE_COUNT,
               "recompute names out of sync");
static const char *const fsdp_names[] = {"none", "full", "hybrid"};
_Static_assert(sizeof fsdp_names / sizeof *fsdp_names == AUG_FSDP_COUNT, "fsdp names out of sync");

const char *aug_recompute_name(enum aug_recompute r) {
    return (unsigned)r < AUG_RECOMPUTE_COUNT ? recompute_names[r] : "?";
}

int aug_recompute_from_name(const char *s, enum aug_recompute *out) {
    for (int i = 0; i < AUG_RECOMPUTE_COUNT; i++)
        if (s && strcasecmp(s, recompute_names[i]) == 0) {
            *out = (enum aug_recompute)i;
            return AUG_OK;
        }
    return aug_errorf(AUG_EUSAGE, "unknown recompute '%s' (use none, selective or full)",
                      s ? s : "");
}

const char *aug_fsdp_name(enum aug_fsdp f) {
    return (unsigned)f < AUG_FSDP_COUNT ? fsdp_names[f] : "?";
}

int aug_fsdp_from_name(const char *s, enum aug_fsdp *out) {
    for (int i = 0; i < AUG_FSDP_COUNT; i++)
        if (s && strcasecmp(s, fsdp_names[i]) == 0) {
            *out = (enum aug_fsdp)i;
            return AUG_OK;
        }
    return aug_errorf(AUG_EUSAGE, "unknown fsdp mode '%s' (use full or hybrid)", s ? s : "");
}

void aug_plan_init(struct aug_plan *p) {
    memset(p, 0, sizeof *p);
    p->tp = p->pp = p->cp = p->ep = 1;
    p->dp = 0;
    p->interleave = 1;
    p->micro_batch = 1;
    p->recompute = AUG_RECOMPUTE_NONE;
    p->dtype = AUG_DTYPE_BF16;
    p->flash_attention = 1;
    p->dp_overlap = 1;
}

long aug_plan_stage_layers(const struct aug_plan *p, const struct aug_model *m) {
    long chunks = p->pp * (p->interleave > 0 ? p->interleave : 1);
    return (m->layers + chunks - 1) / chunks * (p->interleave > 0 ? p->interleave : 1);
}

long aug_plan_microbatches(const struct aug_plan *p) {
    long per = p->micro_batch * p->dp;
    return per > 0 ? p->global_batch / per : 0;
}

int aug_plan_resolve(struct aug_plan *p, const struct aug_model *m, const struct aug_system *s) {
    if (p->tp < 1 || p->pp < 1 || p->cp < 1 || p->ep < 1 || p->dp < 0)
        return aug_errorf(AUG_EUSAGE, "parallel degrees must be positive (tp %ld, pp %ld, dp %ld, "
                                      "cp %ld, ep %ld)", p->tp, p->pp, p->dp, p->cp, p->ep);
    long model_par = p->tp * p->pp * p->cp;
    if (p->gpus <= 0) {
        if (p->dp <= 0)
            return aug_errorf(AUG_EUSAGE, "--gpus is required (or give --dp with the other degrees)");
        p->gpus = model_par * p->dp;
    }
    if (p->dp == 0) {
        if (p->gpus % model_par != 0)
            return aug_errorf(AUG_EUSAGE, "--gpus %ld is not divisible by tp*pp*cp = %ld*%ld*%ld = %ld",
                              p->gpus, p->tp, p->pp, p->cp, model_par);
        p->dp = p->gpus / model_par;
    }
    if (model_par * p->dp != p->gpus)
        return aug_errorf(AUG_EUSAGE, "tp*pp*dp*cp = %ld*%ld*%ld*%ld = %ld does not equal --gpus %ld",
                          p->tp, p->pp, p->dp, p->cp, model_par * p->dp, p->gpus);
    if (p->seq <= 0)
        p->seq = m->max_seq;
    if (p->seq <= 0)
        return aug_errorf(AUG_EUSAGE, "--seq must be positive");
    if (m->max_seq > 0 && p->seq > m->max_seq && m->pos == AUG_POS_LEARNED)
        return aug_errorf(AUG_EUSAGE, "--seq %ld exceeds the model's %ld learned positions",
                          p->seq, m->max_seq);
    if (p->micro_batch <= 0)
        return aug_errorf(AUG_EUSAGE, "--micro-batch must be positive");
    if (p->global_batch <= 0)
        return aug_errorf(AUG_EUSAGE, "--global-batch must be positive");
    if (p->global_batch % (p->micro_batch * p->dp) != 0)
        return aug_errorf(AUG_EUSAGE,
                          "--global-batch %ld is not divisible by micro-batch*dp = %ld*%ld = %ld",
                          p->global_batch, p->micro_batch, p->dp, p->micro_batch * p->dp);
    if (m->heads % p->tp != 0)
        return aug_errorf(AUG_EUSAGE, "heads %ld are not divisible by --tp %ld", m->heads, p->tp);
    if (m->kv_heads % p->tp != 0 && p->tp % m->kv_heads != 0)
        return aug_errorf(AUG_EUSAGE, "KV heads %ld and --tp %ld: neither divides the other",
                          m->kv_heads, p->tp);
    if (m->layers < p->pp * p->interleave)
        return aug_errorf(AUG_EUSAGE, "layers %ld are fewer than pp*interleave = %ld", m->layers,
                          p->pp * p->interleave);
    if (m->layers % p->pp != 0 && !p->uneven_pp)
        return aug_errorf(AUG_EUSAGE, "layers %ld are not divisible by --pp %ld", m->layers, p->pp);
    if (p->interleave < 1)
        return aug_errorf(AUG_EUSAGE, "--interleave must be at least 1");
    if (p->interleave > 1) {
        if (p->pp < 2)
            return aug_errorf(AUG_EUSAGE, "--interleave %ld needs --pp of at least 2", p->interleave);
        if (m->layers % (p->pp * p->interleave) != 0 && !p->uneven_pp)
            return aug_errorf(AUG_EUSAGE, "layers %ld are not divisible by pp*interleave = %ld",
                              m->layers, p->pp * p->interleave);
        if (aug_plan_microbatches(p) % p->pp != 0)
            return aug_errorf(AUG_EUSAGE, "interleaved schedule needs micro-batches (%ld) to be a "
                                          "multiple of --pp %ld", aug_plan_microbatches(p), p->pp);
    }
    if (p->seq % p->cp != 0)
        return aug_errorf(AUG_EUSAGE, "--seq %ld is not divisible by --cp %ld", p->seq, p->cp);
    if (p->sp && p->tp > 1 && (p->seq / p->cp) % p->tp != 0)
        return aug_errorf(AUG_EUSAGE, "sequence parallelism needs seq/cp (%ld) divisible by --tp %ld",
                          p->seq / p->cp, p->tp);
    if (p->ep > 1) {
        if (m->arch != AUG_ARCH_MOE)
            return aug_errorf(AUG_EUSAGE, "--ep %ld needs a mixture-of-experts model", p->ep);
        if ((p->dp * p->cp) % p->ep != 0)
            return aug_errorf(AUG_EUSAGE, "--ep %ld must divide dp*cp = %ld", p->ep, p->dp * p->cp);
        if (m->moe_experts % p->ep != 0)
            return aug_errorf(AUG_EUSAGE, "experts %ld are not divisible by --ep %ld",
                              m->moe_experts, p->ep);
    }
    if (p->zero < 0 || p->zero > 3)
        return aug_errorf(AUG_EUSAGE, "--zero must be 0, 1, 2 or 3");
    if (p->fsdp != AUG_FSDP_NONE && p->zero != 0 && p->zero != 3)
        return aug_errorf(AUG_EUSAGE, "--fsdp shards like ZeRO-3; it cannot be combined with --zero %d",
                          p->zero);
    if (p->fsdp == AUG_FSDP_HYBRID && s && p->tp * p->cp < s->gpus_per_node &&
        s->gpus_per_node % (p->tp * p->cp) != 0)
        return aug_errorf(AUG_EUSAGE, "--fsdp hybrid shards within a node: tp*cp must divide %d",
                          s->gpus_per_node);
    if (s && s->gpu.peak_tflops[p->dtype] <= 0)
        return aug_errorf(AUG_EUSAGE, "%s cannot compute in %s (no peak for that dtype)", s->gpu.name,
                          aug_dtype_name(p->dtype));
    return AUG_OK;
}
