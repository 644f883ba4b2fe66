/* SPDX-License-Identifier: Apache-2.0 */
/* matmulfree.c - MatMul-free LMs (Zhu et al. 2024, arXiv 2406.02528): the layer graph,
 * activation memory, weight and state bytes, and the same-size Transformer++.
 *
 * Modules as in the reference code (ridgerchu/matmulfreellm, mmfreelm/layers/hgrn_bit.py,
 * models/hgrn_bit/modeling_hgrn_bit.py, ops/fusedbitnet.py):
 *   attn_norm -> i, f, g = BitLinear(h, h) x 3 -> f = sigmoid(f) (lower-bounded),
 *   i = swiglu(i, 1 - f) -> h_t = f_t h_{t-1} + i_t (fused recurrent scan) ->
 *   o = g_norm(g, h) (RMSNorm * swish gate) -> BitLinear o (h, h) -> residual;
 *   mlp_norm -> BitLinear gate (h, 2f) -> swiglu -> BitLinear down (f, h) -> residual.
 * BitLinear = RMSNorm fused with per-token absmax 8-bit quantization of the input, then
 * the product with ternary weights (absmean-quantized, straight-through estimator). Its
 * fused kernel (paper sec. 3.4; LayerNormLinearQuantFn) saves only the input and the
 * rstd, recomputing the normalized, quantized activations in the backward.
 *
 * Work: an accumulate-only BitLinear adds (or subtracts, or skips) one input per weight
 * and token: m n k additions on the CUDA cores, two per FP32-FMA slot (packed 16-bit
 * adds), i.e. m n k / peak_fp32 (gpus.csv: the fp32 peak is the non-tensor vector rate);
 * it reads 8-bit activations and 2-bit packed weights. The data gradient multiplies by
 * the same ternary weights (accumulate-only too); the weight gradient dW = dY^T X_q has
 * no ternary operand and runs as a 16-bit tensor-core GEMM. With plan->ternary = tensor
 * all three run as tensor-core GEMMs on 16-bit copies of the ternary values, as the
 * reference implementation's F.linear does, plus the weight quantization per call.
 * Tensor parallelism splits channels as in a Megatron MLP: i, f, g and gate are
 * column-parallel, o and down row-parallel (an all-reduce or SP reduce-scatter after
 * each), the recurrence is element-wise per channel, and g_norm's RMS over all channels
 * all-reduces one fp32 sum per token. */
#include "augur/matmulfree.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "augur/status.h"
#include "matmulfree_internal.h"
#include "memory.h"

void aug_mmf_linear_fwd(const struct aug_plan *p, const struct aug_dims *x, struct aug_graph *g,
                        const char *nq_name, const char *name, double m, double n, double k,
                        enum aug_cat cat, struct aug_mmf_linear *out) {
    int acc = p->ternary == AUG_TERNARY_ACCUMULATE;
    double q = acc ? 1.0 : x->e; /* int8 activations, or 16-bit quantized values */
    out->m = m;
    out->n = n;
    out->k = k;
    out->norm_quant = aug_op_memory(nq_name, "norm", x->dt, m * k * (x->e + q) + 8.0 * m, 10.0 * m * k);
    aug_gb_add(g->fwd, &g->n_fwd, out->norm_quant, cat, 0);
    if (acc) {
        struct aug_op op = aug_op_gemm(name, AUG_DTYPE_FP32, m, n, k, 1);
        op.flops = m * n * k;
        op.bytes = m * k * 1.0 + k * n * 0.25 + m * n * x->e;
        aug_gb_add(g->fwd, &g->n_fwd, op, cat, 0);
    } else {
        aug_gb_add(g->fwd, &g->n_fwd,
                   aug_op_memory("weight_quant", "elementwise", x->dt, 2.0 * k * n * x->e, 3.0 * k * n),
                   cat, 0);
        aug_gb_add(g->fwd, &g->n_fwd, aug_op_gemm(name, x->dt, m, n, k, 1), cat, 0);
    }
}

int aug_mmf_linear_bwd(const struct aug_plan *p, const struct aug_dims *x, struct aug_graph *g,
                       const struct aug_mmf_linear *l, const char *dname, const char *wname,
                       const char *nq_bwd_name, enum aug_cat cat) {
    double m = l->m, n = l->n, k = l->k;
    int di;
    if (p->ternary == AUG_TERNARY_ACCUMULATE) {
        struct aug_op d = aug_op_gemm(dname, AUG_DTYPE_FP32, m, k, n, 1);
        d.flops = m * n * k;
        d.bytes = m * n * x->e + k * n * 0.25 + m * k * x->e;
        aug_gb_add(g->bwd, &g->n_bwd, d, cat, 0);
    } else {
        aug_gb_add(g->bwd, &g->n_bwd, aug_op_gemm(dname, x->dt, m, k, n, 1), cat, 0);
    }
    di = g->n_bwd - 1;
    aug_gb_add(g->bwd, &g->n_bwd, aug_op_gemm(wname, x->dt, k, n, m, 1), cat, 0);
    aug_gb_mem_bwd(g, &l->norm_quant, nq_bwd_name, cat);
    return di;
}

static void set_count(struct aug_graph_op *arr, int from, int to, double count) {
    for (int i = from; i < to; i++)
        arr[i].op.count = count;
}

void aug_mmf_graph_layer(const struct aug_model *m, const struct aug_plan *p,
                         const struct aug_system *s, struct aug_graph *g) {
    struct aug_dims x;
    aug_dims_init(m, p, s, &x);
    g->n_fwd = g->n_bwd = g->n_groups = 0;
    double hl = x.h / x.t, fl = x.f / x.t, T = x.T;
    enum aug_coll c_out = x.sp ? AUG_COLL_REDUCE_SCATTER : AUG_COLL_ALL_REDUCE;
    const char *n_out = x.sp ? "sp_reduce_scatter" : "tp_all_reduce";
    const char *n_out_b = x.sp ? "sp_reduce_scatter_bwd" : "tp_all_reduce_bwd";
    struct aug_op norm = aug_op_memory("norm", "rmsnorm", x.dt, 2.0 * x.Tsp * x.h * x.e,
                                       8.0 * x.Tsp * x.h);
    struct aug_op resid = aug_op_memory("residual", "elementwise", x.dt, 3.0 * x.Tsp * x.h * x.e,
                                        2.0 * x.Tsp * x.h);
    /* sigmoid(f), its lower bound, swiglu(i, 1 - f): read i, f; write i', f' */
    struct aug_op gates = aug_op_memory("mlgru_gates", "elementwise", x.dt, 4.0 * T * hl * x.e,
                                        12.0 * T * hl);
    /* h_t = f_t h_{t-1} + i'_t over the sequence: read i', f'; write h (fp32 state) */
    struct aug_op scan = aug_op_memory("mlgru_scan", "elementwise", x.dt, 3.0 * T * hl * x.e,
                                       2.0 * T * hl);
    /* o = RMSNorm(h) * swish(g): read g, h; write o */
    struct aug_op gnorm = aug_op_memory("mlgru_gnorm", "rmsnorm", x.dt, 3.0 * T * hl * x.e,
                                        12.0 * T * hl);
    struct aug_op act = aug_op_memory("glu_act", "activation", x.dt, 3.0 * T * fl * x.e, 8.0 * T * fl);
    struct aug_op gn_ar = aug_op_collective("gnorm_all_reduce", AUG_COLL_ALL_REDUCE, 4.0 * T,
                                            x.tp_ranks, x.tp_domain);
    struct aug_mmf_linear ifg, o, gate, down;

    /* ---- forward ---- */
    aug_gb_add(g->fwd, &g->n_fwd, norm, AUG_CAT_COMPUTE, 0);
    if (x.sp)
        aug_gb_tp_coll(g->fwd, &g->n_fwd, "sp_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    int i0 = g->n_fwd;
    aug_mmf_linear_fwd(p, &x, g, "ifg_norm_quant", "mlgru_ifg", T, hl, x.h, AUG_CAT_COMPUTE, &ifg);
    set_count(g->fwd, i0, g->n_fwd, 3.0); /* i, f and g: three BitLinears of one shape */
    aug_gb_add(g->fwd, &g->n_fwd, gates, AUG_CAT_COMPUTE, 0);
    aug_gb_add(g->fwd, &g->n_fwd, scan, AUG_CAT_ATTENTION, 0);
    aug_gb_add(g->fwd, &g->n_fwd, gnorm, AUG_CAT_COMPUTE, 0);
    if (x.tp_ranks > 1)
        aug_gb_add(g->fwd, &g->n_fwd, gn_ar, AUG_CAT_TP, 0);
    aug_mmf_linear_fwd(p, &x, g, "o_norm_quant", "mlgru_o", T, x.h, hl, AUG_CAT_COMPUTE, &o);
    aug_gb_tp_coll(g->fwd, &g->n_fwd, n_out, c_out, &x, AUG_CAT_TP);
    aug_gb_add(g->fwd, &g->n_fwd, resid, AUG_CAT_COMPUTE, 0);
    aug_gb_add(g->fwd, &g->n_fwd, norm, AUG_CAT_COMPUTE, 0);
    if (x.sp)
        aug_gb_tp_coll(g->fwd, &g->n_fwd, "sp_all_gather", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    aug_mmf_linear_fwd(p, &x, g, "gate_norm_quant", "glu_gate_up", T, 2.0 * fl, x.h,
                       AUG_CAT_COMPUTE, &gate);
    aug_gb_add(g->fwd, &g->n_fwd, act, AUG_CAT_COMPUTE, 0);
    aug_mmf_linear_fwd(p, &x, g, "down_norm_quant", "glu_down", T, x.h, fl, AUG_CAT_COMPUTE, &down);
    aug_gb_tp_coll(g->fwd, &g->n_fwd, n_out, c_out, &x, AUG_CAT_TP);
    aug_gb_add(g->fwd, &g->n_fwd, resid, AUG_CAT_COMPUTE, 0);

    /* ---- backward ---- */
    aug_gb_mem_bwd(g, &resid, "residual_bwd", AUG_CAT_COMPUTE);
    if (x.sp)
        aug_gb_tp_coll(g->bwd, &g->n_bwd, "sp_all_gather_bwd", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    aug_mmf_linear_bwd(p, &x, g, &down, "glu_down_dgrad", "glu_down_wgrad", "down_norm_quant_bwd",
                       AUG_CAT_COMPUTE);
    aug_gb_mem_bwd(g, &act, "glu_act_bwd", AUG_CAT_COMPUTE);
    aug_mmf_linear_bwd(p, &x, g, &gate, "glu_gate_up_dgrad", "glu_gate_up_wgrad",
                       "gate_norm_quant_bwd", AUG_CAT_COMPUTE);
    aug_gb_tp_coll(g->bwd, &g->n_bwd, n_out_b, c_out, &x, AUG_CAT_TP);
    aug_gb_mem_bwd(g, &norm, "norm_bwd", AUG_CAT_COMPUTE);
    aug_gb_mem_bwd(g, &resid, "residual_bwd", AUG_CAT_COMPUTE);
    if (x.sp)
        aug_gb_tp_coll(g->bwd, &g->n_bwd, "sp_all_gather_bwd", AUG_COLL_ALL_GATHER, &x, AUG_CAT_TP);
    aug_mmf_linear_bwd(p, &x, g, &o, "mlgru_o_dgrad", "mlgru_o_wgrad", "o_norm_quant_bwd",
                       AUG_CAT_COMPUTE);
    if (x.tp_ranks > 1) {
        struct aug_op b = gn_ar;
        b.name = "gnorm_all_reduce_bwd";
        aug_gb_add(g->bwd, &g->n_bwd, b, AUG_CAT_TP, 0);
    }
    aug_gb_mem_bwd(g, &gnorm, "mlgru_gnorm_bwd", AUG_CAT_COMPUTE);
    /* the reverse scan reads h, f', dh and writes di', df' */
    aug_gb_add(g->bwd, &g->n_bwd,
               aug_op_memory("mlgru_scan_bwd", "elementwise", x.dt, 5.0 * T * hl * x.e, 4.0 * T * hl),
               AUG_CAT_ATTENTION, 0);
    aug_gb_mem_bwd(g, &gates, "mlgru_gates_bwd", AUG_CAT_COMPUTE);
    int b0 = g->n_bwd;
    aug_mmf_linear_bwd(p, &x, g, &ifg, "mlgru_ifg_dgrad", "mlgru_ifg_wgrad", "ifg_norm_quant_bwd",
                       AUG_CAT_COMPUTE);
    set_count(g->bwd, b0, g->n_bwd, 3.0);
    aug_gb_tp_coll(g->bwd, &g->n_bwd, n_out_b, c_out, &x, AUG_CAT_TP);
    aug_gb_mem_bwd(g, &norm, "norm_bwd", AUG_CAT_COMPUTE);
}

/* Per token: replicated over TP unless SP: the two norms' inputs and outputs (4 e h) and
 * the fp32 rstd of the nine RMSNorms (36 bytes); split over TP: i, 1 - f, sigmoid(f), the
 * scan output, g and the o_proj input (6 e h), gate and up outputs and the down input
 * (3 e f). Full recomputation keeps the layer input. */
double aug_mmf_layer_activation_bytes(const struct aug_model *m, const struct aug_plan *p) {
    double sb = (double)(p->seq / p->cp) * (double)p->micro_batch;
    double h = (double)m->hidden, f = (double)m->ffn_hidden, t = (double)p->tp;
    double e = aug_train_act_bytes(p);
    int sp = p->sp && p->tp > 1;
    if (p->recompute == AUG_RECOMPUTE_FULL)
        return e * sb * h / (sp ? t : 1.0);
    double whole = sb * (4.0 * e * h + 36.0);
    double split = sb * e * (6.0 * h + 3.0 * f);
    /* every BitLinear call saves the quantized weight it multiplied by for its backward
     * (LayerNormLinearQuantFn: ctx.save_for_backward(..., linear_weight, ...) after
     * weight_quant): a 16-bit copy of the layer's 4 h^2 + 3 h f ternary weights per
     * micro-batch on the tensor path, the 2-bit packed one on the accumulate path; TP
     * splits them, SP does not */
    double wq = (4.0 * h * h + 3.0 * h * f) / t * (p->ternary == AUG_TERNARY_TENSOR ? e : 0.25);
    if (sp)
        return (whole + split) / t + wq;
    return whole + split / t + wq;
}

void aug_mmf_counts(const struct aug_model *m, double state_elem_bytes, struct aug_mmf_counts *out) {
    memset(out, 0, sizeof *out);
    if (m->arch != AUG_ARCH_MATMULFREE)
        return;
    double h = (double)m->hidden, f = (double)m->ffn_hidden, L = (double)m->layers;
    double V = (double)m->vocab;
    out->ternary_params = L * (4.0 * h * h + 3.0 * h * f) + V * h;
    out->other_params = aug_model_params(m) - out->ternary_params;
    out->ternary_bytes = out->ternary_params * 2.0 / 8.0;
    out->other_bytes = out->other_params * 2.0;
    out->weight_bytes = out->ternary_bytes + out->other_bytes;
    out->state_bytes_per_seq = L * h * state_elem_bytes;
}

int aug_mmf_transformer_twin(const struct aug_model *mmf, struct aug_model *out) {
    if (mmf->arch != AUG_ARCH_MATMULFREE)
        return aug_errorf(AUG_EDATA, "model '%s' is not a MatMul-free model", mmf->name);
    struct aug_model t;
    aug_model_init(&t);
    snprintf(t.name, sizeof t.name, "transformer++-%.48s", mmf->name);
    t.arch = AUG_ARCH_DENSE;
    t.layers = mmf->layers;
    t.hidden = mmf->hidden;
    t.head_dim = 128;
    t.heads = mmf->hidden / 128 > 0 ? mmf->hidden / 128 : 1;
    if (mmf->hidden % 128 != 0)
        t.head_dim = mmf->hidden / t.heads;
    t.kv_heads = t.heads;
    t.ffn_hidden = mmf->ffn_hidden;
    t.vocab = mmf->vocab;
    t.max_seq = mmf->max_seq;
    t.mlp = AUG_MLP_SWIGLU;
    t.norm = AUG_NORM_RMSNORM;
    t.pos = AUG_POS_ROPE;
    t.tied_embeddings = mmf->tied_embeddings;
    t.linear_bias = 0;
    snprintf(t.source, sizeof t.source,
             "Transformer++ (Llama-2 architecture) of the size of %.60s, as compared in Zhu et al. "
             "2024 (arXiv 2406.02528): same layers, hidden, SwiGLU FFN and vocabulary; 128-wide "
             "heads", mmf->name);
    int st = aug_model_finish(&t, "transformer++");
    if (st != AUG_OK)
        return st;
    *out = t;
    return AUG_OK;
}
