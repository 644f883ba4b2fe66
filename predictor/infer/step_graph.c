/* SPDX-License-Identifier: Apache-2.0 */
/* step_graph.c - the per-GPU shapes of a serving plan that every step graph is built
 * from: heads, KV heads and FFN width per TP rank, the bytes of a stored weight (with the
 * group scales of int4) and of a cached KV element, the compute and attention dtypes. */
#include <math.h>
#include <string.h>

#include "hw/topology.h"
#include "step_graph.h"

double aug_infer_weight_bytes(enum aug_dtype wdt) {
    if (wdt == AUG_DTYPE_INT4)
        return 0.5 + 2.0 / 128.0;
    return aug_dtype_bytes(wdt);
}

void aug_infer_dims(const struct aug_model *m, const struct aug_system *s,
                    const struct aug_infer_plan *p, struct aug_infer_dims *x) {
    memset(x, 0, sizeof *x);
    x->t = (double)p->tp;
    x->h = (double)m->hidden;
    x->d = (double)m->head_dim;
    /* attention data parallelism: every rank holds all heads for its own sequences */
    x->adp = p->attn_dp && p->tp > 1 ? (double)p->tp : 1.0;
    double ta = x->t / x->adp;
    x->a_t = (double)m->heads / ta;
    /* fewer KV heads than TP ranks: each rank keeps a copy of its group's KV head */
    x->kv_t = (double)m->kv_heads >= ta ? (double)m->kv_heads / ta : 1.0;
    x->f = (double)m->ffn_hidden;
    x->V = (double)m->vocab;
    x->E = (double)m->moe_experts;
    x->k = (double)m->moe_topk;
    x->L = (double)m->layers;
    x->ep = (double)(p->ep > 0 ? p->ep : 1);
    x->cdt = p->dtype;
    int wide = p->dtype == AUG_DTYPE_FP32 || p->dtype == AUG_DTYPE_TF32;
    x->e = wide ? 4.0 : 2.0;
    /* 8- and 4-bit recipes keep attention, the LM head and activations in 16 bits */
    x->adt = (wide || p->dtype == AUG_DTYPE_BF16 || p->dtype == AUG_DTYPE_FP16) ? p->dtype
                                                                                 : AUG_DTYPE_BF16;
    if (p->dtype == AUG_DTYPE_TF32)
        x->adt = AUG_DTYPE_FP32;
    enum aug_dtype wdt = p->weight_dtype < AUG_DTYPE_COUNT ? p->weight_dtype : p->dtype;
    enum aug_dtype kdt = p->kv_dtype < AUG_DTYPE_COUNT ? p->kv_dtype : p->dtype;
    x->wb = aug_infer_weight_bytes(wdt);
    x->kvb = aug_dtype_bytes(kdt);
    x->tp_ranks = (int)p->tp;
    x->tp_domain = s ? aug_ranks_per_domain(s, p->tp, 1) : (int)p->tp;
    x->qkv_cols = (x->a_t + 2.0 * x->kv_t) * x->d;
    x->out_k = x->a_t * x->d;
    x->kv_layer = 2.0 * x->kv_t * x->d;
    x->flops_per_key = 4.0 * x->d;
    x->d_qk = x->d_v = x->d;
    if (m->attention == AUG_ATTN_MLA) {
        double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
        double dn = (double)m->qk_nope_head_dim, dr = (double)m->qk_rope_head_dim;
        double dv = (double)m->v_head_dim;
        double q = rq > 0 ? x->h * rq + rq * x->a_t * (dn + dr) : x->h * x->a_t * (dn + dr);
        x->mla = 1;
        x->qkv_cols = (q + x->h * (rkv + dr) + rkv * x->a_t * (dn + dv)) / x->h;
        x->out_k = x->a_t * dv;
        x->kv_layer = rkv + dr;
        x->flops_per_key = 2.0 * (2.0 * rkv + dr);
        x->d_qk = dn + dr;
        x->d_v = dv;
    }
    x->moe_share = m->arch == AUG_ARCH_MOE && m->layers > 0
                       ? (double)aug_model_moe_layers(m) / (double)m->layers : 0.0;
    x->dense_f = (double)aug_model_dense_ffn(m);
    if (m->sliding_window > 0 && m->layers > 0) {
        x->win = (double)m->sliding_window;
        x->win_share = (double)aug_model_window_layers(m) / (double)m->layers;
        x->win_chunked = m->attn_chunked;
    }
}

long aug_infer_stage_layers(const struct aug_model *m, const struct aug_infer_plan *p) {
    long pp = p->pp > 0 ? p->pp : 1;
    return (m->layers + pp - 1) / pp;
}
