/* SPDX-License-Identifier: Apache-2.0 */
/* matmulfree_internal.h - the MatMul-free LM pieces the layer graph calls (matmulfree.c). */
#ifndef AUG_MATMULFREE_INTERNAL_H
#define AUG_MATMULFREE_INTERNAL_H

#include "graph_build.h"

/* One BitLinear layer as the graph sees it: the fused RMSNorm + quantization kernel and
 * the ternary product (accumulate-only or tensor-core, by plan->ternary). */
struct aug_mmf_linear {
    struct aug_op norm_quant;
    double m, n, k;  /* tokens, output and input features */
};

/* Append the forward of a BitLinear of m tokens, n outputs and k inputs to g->fwd. */
void aug_mmf_linear_fwd(const struct aug_plan *p, const struct aug_dims *x, struct aug_graph *g,
                        const char *nq_name, const char *name, double m, double n, double k,
                        enum aug_cat cat, struct aug_mmf_linear *out);
/* Append its backward to g->bwd: data gradient (ternary weights: accumulate-only too),
 * weight gradient (a real GEMM of 16-bit gradients and 8-bit activations: tensor cores),
 * and the norm + quantization backward that recomputes the normalized input. Returns the
 * index of the data gradient. */
int aug_mmf_linear_bwd(const struct aug_plan *p, const struct aug_dims *x, struct aug_graph *g,
                       const struct aug_mmf_linear *l, const char *dname, const char *wname,
                       const char *nq_bwd_name, enum aug_cat cat);

/* One MatMul-free layer (MLGRU token mixer + GLU channel mixer) on one GPU. */
void aug_mmf_graph_layer(const struct aug_model *m, const struct aug_plan *p,
                         const struct aug_system *s, struct aug_graph *g);

/* Activation bytes one MatMul-free layer keeps for one micro-batch on one GPU. */
double aug_mmf_layer_activation_bytes(const struct aug_model *m, const struct aug_plan *p);

#endif
