/* SPDX-License-Identifier: Apache-2.0 */
/* infer_matmulfree.c - serving MatMul-free LMs (Zhu et al. 2024, arXiv 2406.02528; modules
 * as in matmulfree.c): prefill and decode with a constant-size recurrent state instead of
 * attention over a KV cache.
 *
 * Per layer and step of T tokens: attn_norm; the i, f, g BitLinears (fused RMSNorm + 8-bit
 * quantization, then T x h/t x h additions on the CUDA cores reading 2-bit packed weights:
 * a weight stream 8 times lighter than bf16 in decode); the gates; the MLGRU update: a
 * decode step reads and writes each sequence's fp32 state of h/t values (a prefill scans
 * its chunk from the state and leaves the last one); g_norm (with a one-float-per-token
 * TP all-reduce of its sum of squares); o BitLinear and the TP all-reduce; the residual;
 * mlp_norm; gate/up, SwiGLU and down BitLinears; TP all-reduce; residual. The LM head is a
 * BitLinear too (mmfreelm HGRNBitForCausalLM), the embedding a 16-bit table.
 * Every decode step costs the same: nothing grows with the context, so static batching
 * times one decode step and multiplies. The inference kernel of the paper is the ternary
 * one (2-bit weights); the tensor-core path of training (--ternary-kernel tensor) has no
 * counterpart here. */
#include "infer_matmulfree.h"

#include <math.h>
#include <string.h>

#include "augur/matmulfree.h"
#include "augur/status.h"
#include "augur/units.h"
#include "model/memory.h"

/* fp32 recurrent state (fla's fused recurrent kernel keeps and returns it in fp32) */
#define MMF_STATE_BYTES 4.0

int aug_infer_mmf_check_tp(const struct aug_model *m, long tp, const char *what) {
    if (m->hidden % tp != 0 || m->ffn_hidden % tp != 0)
        return aug_errorf(AUG_EUSAGE, "hidden %ld and FFN %ld channels of MatMul-free model '%s' "
                                      "are not divisible by %s %ld", m->hidden, m->ffn_hidden,
                          m->name, what, tp);
    return AUG_OK;
}

double aug_infer_mmf_state_bytes_per_seq(const struct aug_model *m) {
    struct aug_mmf_counts c;
    aug_mmf_counts(m, MMF_STATE_BYTES, &c);
    return c.state_bytes_per_seq;
}

static void add(struct aug_infer_gop *arr, int *n, int cap, struct aug_op op, enum aug_icat cat,
                int defaults_only, int stage) {
    if (*n >= cap)
        return; /* under the bounds: 20 layer ops, 7 head ops */
    memset(&arr[*n], 0, sizeof arr[*n]);
    arr[*n].op = op;
    arr[*n].cat = cat;
    arr[*n].defaults_only = defaults_only;
    arr[*n].stage = stage;
    (*n)++;
}

#define ADD_L(op, cat, d) add(g->layer, &g->n_layer, AUG_INFER_MAX_LAYER_OPS, op, cat, d, 0)
#define ADD_H(op, cat, st) add(g->head, &g->n_head, AUG_INFER_MAX_HEAD_OPS, op, cat, 0, st)

/* T x n outputs from k inputs with ternary weights: T n k additions on the CUDA cores,
 * 8-bit inputs, 2-bit weights, 16-bit outputs; no calibrated curve measures it. */
static struct aug_op ternary(const char *name, const struct aug_infer_dims *x, double T, double n,
                             double k) {
    struct aug_op op = aug_op_gemm(name, AUG_DTYPE_FP32, T, n, k, 1);
    op.flops = T * n * k;
    op.bytes = T * k + k * n * 0.25 + T * n * x->e;
    return op;
}

/* Append a ternary product. Up to 16 tokens (decode) it is a weight stream on the CUDA
 * cores: each packed weight is unpacked once (shift, mask, select: ~3 instructions) and
 * added once per token, so an addition costs 1 + 3/T instructions where a fused
 * multiply-add slot counts 2 FLOPs: a share 0.5 / (1 + 3/T) of the FP32 peak (1/8 at one
 * token); its bytes stream at AUG_INFER_STREAM_EFF. Larger T amortize the unpacking and
 * are timed like the training graph's ternary GEMMs (the FP32 peak at the GEMM default
 * efficiency). */
static void add_ternary(struct aug_infer_graph *g, struct aug_op op, int stage_head) {
    double T = op.m;
    struct aug_infer_gop *arr = stage_head ? g->head : g->layer;
    int *n = stage_head ? &g->n_head : &g->n_layer;
    int cap = stage_head ? AUG_INFER_MAX_HEAD_OPS : AUG_INFER_MAX_LAYER_OPS;
    add(arr, n, cap, op, stage_head ? AUG_ICAT_HEAD : AUG_ICAT_GEMM, 1, stage_head);
    if (T <= 16.0 && *n > 0 && *n <= cap) {
        arr[*n - 1].stream = 1;
        arr[*n - 1].core_eff = 0.5 / (1.0 + 3.0 / T);
    }
}

/* The fused RMSNorm + absmax quantization in front of a BitLinear. */
static struct aug_op norm_quant(const char *name, const struct aug_infer_dims *x, double T, double k) {
    return aug_op_memory(name, "norm", x->adt, T * k * (x->e + 1.0) + 8.0 * T, 10.0 * T * k);
}

void aug_infer_mmf_graph(const struct aug_model *m, const struct aug_system *s,
                         const struct aug_infer_plan *p, const struct aug_infer_step *st,
                         struct aug_infer_graph *g) {
    struct aug_infer_dims x;
    aug_infer_dims(m, s, p, &x);
    g->n_layer = g->n_head = 0;
    g->decode_attn = -1;
    double T = st->decode_seqs + st->prefill_seqs * st->prefill_len;
    if (!(T > 0))
        return;
    double hl = x.h / x.t, fl = x.f / x.t, e = x.e;
    double seqs = st->decode_seqs + st->prefill_seqs;
    struct aug_op norm = aug_op_memory("norm", "rmsnorm", x.adt, 2.0 * T * x.h * e, 8.0 * T * x.h);
    struct aug_op resid = aug_op_memory("residual", "elementwise", x.adt, 3.0 * T * x.h * e, T * x.h);
    struct aug_op ar = aug_op_collective("tp_all_reduce", AUG_COLL_ALL_REDUCE, T * x.h * e,
                                         x.tp_ranks, x.tp_domain);

    ADD_L(norm, AUG_ICAT_MEMORY, 0);
    struct aug_op nq = norm_quant("ifg_norm_quant", &x, T, x.h);
    nq.count = 3;
    ADD_L(nq, AUG_ICAT_MEMORY, 0);
    struct aug_op ifg = ternary("mlgru_ifg", &x, T, hl, x.h);
    ifg.count = 3;
    add_ternary(g, ifg, 0);
    ADD_L(aug_op_memory("mlgru_gates", "elementwise", x.adt, 4.0 * T * hl * e, 12.0 * T * hl),
          AUG_ICAT_MEMORY, 0);
    /* read i', f' and write h for every token; read and write each sequence's state once */
    ADD_L(aug_op_memory("mlgru_scan", "elementwise", x.adt,
                        3.0 * T * hl * e + 2.0 * seqs * hl * MMF_STATE_BYTES, 2.0 * T * hl),
          AUG_ICAT_ATTENTION, 1);
    ADD_L(aug_op_memory("mlgru_gnorm", "rmsnorm", x.adt, 3.0 * T * hl * e, 12.0 * T * hl),
          AUG_ICAT_MEMORY, 0);
    if (x.tp_ranks > 1)
        ADD_L(aug_op_collective("gnorm_all_reduce", AUG_COLL_ALL_REDUCE, 4.0 * T, x.tp_ranks,
                                x.tp_domain), AUG_ICAT_TP, 0);
    ADD_L(norm_quant("o_norm_quant", &x, T, hl), AUG_ICAT_MEMORY, 0);
    add_ternary(g, ternary("mlgru_o", &x, T, x.h, hl), 0);
    if (x.tp_ranks > 1)
        ADD_L(ar, AUG_ICAT_TP, 0);
    ADD_L(resid, AUG_ICAT_MEMORY, 0);
    ADD_L(norm, AUG_ICAT_MEMORY, 0);
    ADD_L(norm_quant("gate_norm_quant", &x, T, x.h), AUG_ICAT_MEMORY, 0);
    add_ternary(g, ternary("glu_gate_up", &x, T, 2.0 * fl, x.h), 0);
    ADD_L(aug_op_memory("glu_act", "activation", x.adt, 3.0 * T * fl * e, 8.0 * T * fl),
          AUG_ICAT_MEMORY, 0);
    ADD_L(norm_quant("down_norm_quant", &x, T, fl), AUG_ICAT_MEMORY, 0);
    add_ternary(g, ternary("glu_down", &x, T, x.h, fl), 0);
    if (x.tp_ranks > 1)
        ADD_L(ar, AUG_ICAT_TP, 0);
    ADD_L(resid, AUG_ICAT_MEMORY, 0);

    /* the two ends: embedding rows; final norm, BitLinear head and sampling of the rows
     * that emit a token */
    ADD_H(aug_op_memory("embedding", "embedding", x.adt, 2.0 * T * x.h * e, 0.0), AUG_ICAT_HEAD, 0);
    if (x.tp_ranks > 1)
        ADD_H(aug_op_collective("emb_all_reduce", AUG_COLL_ALL_REDUCE, T * x.h * e, x.tp_ranks,
                                x.tp_domain), AUG_ICAT_TP, 0);
    double S = st->sample_seqs;
    if (S > 0) {
        ADD_H(aug_op_memory("final_norm", "rmsnorm", x.adt, 2.0 * S * x.h * e, 8.0 * S * x.h),
              AUG_ICAT_HEAD, 1);
        ADD_H(norm_quant("lm_head_norm_quant", &x, S, x.h), AUG_ICAT_HEAD, 1);
        add_ternary(g, ternary("lm_head", &x, S, x.V / x.t, x.h), 1);
        if (x.tp_ranks > 1)
            ADD_H(aug_op_collective("logits_all_gather", AUG_COLL_ALL_GATHER, S * x.V * 4.0,
                                    x.tp_ranks, x.tp_domain), AUG_ICAT_TP, 1);
        ADD_H(aug_op_memory("sampling", "softmax", x.adt, 2.0 * S * x.V * 4.0, 5.0 * S * x.V),
              AUG_ICAT_HEAD, 1);
    }
}

void aug_infer_mmf_memory_at(const struct aug_model *m, const struct aug_system *s,
                             const struct aug_infer_plan *p, double seqs, double prefill_tokens,
                             struct aug_infer_memory *out) {
    struct aug_infer_dims x;
    aug_infer_dims(m, s, p, &x);
    memset(out, 0, sizeof *out);
    double h = x.h, f = x.f, t = x.t, Ls = (double)aug_infer_stage_layers(m, p);
    /* per layer: ternary 4 h^2 + 3 h f split over TP at 2 bits; 9 h + f of 16-bit norms and
     * lower bounds (split with their matrices, or replicated: counted whole here) */
    double layer = (4.0 * h * h + 3.0 * h * f) / t * 0.25 + (9.0 * h + f) * x.e;
    double emb = x.V * h / t * x.e;
    double head = x.V * h / t * 0.25 + 2.0 * h * x.e; /* BitLinear head + its and the final norm */
    double first = Ls * layer + emb + (p->pp == 1 ? head : 0.0);
    double last = Ls * layer + head;
    double state = Ls * (h / t) * MMF_STATE_BYTES * seqs;
    double wide = fmax(3.0 * h / t + h / t, 3.0 * f / t);
    double act = prefill_tokens * (2.0 * h + wide) * x.e;
    double logits = seqs * x.V * 4.0 * (1.0 + 1.0 / t);
    out->weights_gib = fmax(first, last) / AUG_GIB;
    out->kv_cache_gib = state / AUG_GIB;
    out->activations_gib = (act + logits) / AUG_GIB;
    out->workspace_gib = p->workspace_gib >= 0 ? p->workspace_gib : AUG_INFER_DEFAULT_WORKSPACE_GIB;
    out->total_gib = out->weights_gib + out->kv_cache_gib + out->activations_gib + out->workspace_gib;
}
