/* dropped_flops.c - model FLOPs count the tokens actually processed (dropped_flops.h).
 *
 * MFU is model FLOPs over peak FLOPs (PaLM, Chowdhery et al. 2022, Appendix B). With a
 * capacity factor c, each expert takes at most c times its mean share of tokens and
 * drops the rest (GShard, Lepikhin et al. 2021, Sec. 2.2; Switch Transformer, Fedus et al.
 * 2022, Sec. 2.2): their expert MLP is never computed. Counting it anyway let MFU pass 1
 * (294% for Mixtral-8x7B at c = 0.01). The dropped share of the routed token-expert
 * assignments comes from moe.c; each assignment is one expert MLP of
 * 2 h f (x3 for SwiGLU, x2 otherwise) FLOPs per token, as in aug_layer_fwd_flops_per_seq. */
#include "train/dropped_flops.h"

#include "augur/dtype.h"
#include "augur/moe.h"

double aug_train_dropped_fwd_flops(const struct aug_model *m, const struct aug_plan *p) {
    if (m->arch != AUG_ARCH_MOE || p->moe_capacity_factor <= 0)
        return 0.0;
    struct aug_moe_routing r;
    aug_moe_routing(m, p, aug_dtype_bytes(p->dtype), &r);
    if (!(r.dropped_fraction > 0))
        return 0.0;
    double h = (double)m->hidden, f = (double)m->ffn_hidden, seq = (double)p->seq;
    double expert = 2.0 * seq * h * f * (m->mlp == AUG_MLP_SWIGLU ? 3.0 : 2.0);
    return (double)m->layers * expert * (double)m->moe_topk * r.dropped_fraction *
           (double)p->global_batch;
}
