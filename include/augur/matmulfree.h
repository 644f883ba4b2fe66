/* SPDX-License-Identifier: Apache-2.0 */
/* matmulfree.h - MatMul-free language models (Zhu et al. 2024, "Scalable MatMul-free
 * Language Modeling", arXiv 2406.02528; reference code ridgerchu/matmulfreellm).
 *
 * A layer is an MLGRU token mixer (ternary BitLinear projections i, f, g and o of h x h,
 * element-wise recurrence h_t = f_t h_{t-1} + (1 - f_t) c_t with a constant-size state of
 * h values per sequence, no attention and no KV cache) and a GLU channel mixer (BitLinear
 * gate/up h -> 2f and down f -> h). BitLinear weights are ternary {-1, 0, 1}, stored in 2
 * bits; every BitLinear carries its own RMSNorm fused with the 8-bit activation
 * quantization; the LM head is a BitLinear too, the embedding a 16-bit table. */
#ifndef AUG_MATMULFREE_H
#define AUG_MATMULFREE_H

#include "augur/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_mmf_counts {
    double ternary_params;      /* BitLinear weights: layers' 4h^2 + 3hf and the head's Vh */
    double other_params;        /* embedding, RMSNorm weights, MLGRU lower bounds */
    double ternary_bytes;       /* packed at 2 bits per weight */
    double other_bytes;         /* 16-bit */
    double weight_bytes;        /* what inference keeps in memory for weights */
    double state_bytes_per_seq; /* recurrent state: layers x hidden values */
};

/* Counts for a MatMul-free model; `state_elem_bytes` is the size of one state value.
 * Zeros for other architectures. */
void aug_mmf_counts(const struct aug_model *m, double state_elem_bytes, struct aug_mmf_counts *out);

/* The Transformer++ of the same size the paper compares against (Llama-2 architecture:
 * the same layers, hidden size, SwiGLU FFN, vocabulary and untied head; heads of 128
 * dimensions, RoPE, RMSNorm, no biases). AUG_EDATA for a model that is not MatMul-free. */
int aug_mmf_transformer_twin(const struct aug_model *mmf, struct aug_model *out);

#ifdef __cplusplus
}
#endif
#endif
