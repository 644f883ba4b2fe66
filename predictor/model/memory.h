/* SPDX-License-Identifier: Apache-2.0 */
/* memory.h - per-GPU parameter and activation accounting of a model under a plan
 * (memory.c), shared by the training and inference predictors (not public). */
#ifndef AUG_MODEL_MEMORY_H
#define AUG_MODEL_MEMORY_H

#include "augur/model.h"
#include "augur/plan.h"
#include "augur/system.h"
#include "graph_build.h"

/* Parameters of one transformer layer held by one GPU (TP/EP sharded), and the
 * replicated part (norms) that TP does not split. */
double aug_train_layer_params_per_gpu(const struct aug_model *m, const struct aug_plan *p);

/* Routed-expert parameters of one layer, and of pipeline rank `stage`, on one GPU. */
double aug_train_layer_expert_params_per_gpu(const struct aug_model *m, const struct aug_plan *p);
double aug_train_stage_expert_params_per_gpu(const struct aug_model *m, const struct aug_plan *p,
                                             long stage);

/* Parameters of the linear layers (Transformer Engine's modules: attention and MLP or
 * expert projections, not norms or the MoE router) of one layer, and of pipeline rank
 * `stage`, on one GPU: the weights an fp8 plan runs in fp8. */
double aug_train_layer_linear_params_per_gpu(const struct aug_model *m, const struct aug_plan *p);
double aug_train_stage_linear_params_per_gpu(const struct aug_model *m, const struct aug_plan *p,
                                             long stage);

/* Ranks that share (and, with ZeRO / FSDP, shard) dense parameters: dp * cp, or the ranks
 * of one node with FSDP hybrid sharding; and those of routed experts: edp. */
long aug_train_dense_shard_ranks(const struct aug_plan *p, const struct aug_system *s);
long aug_train_expert_shard_ranks(const struct aug_plan *p, const struct aug_system *s);

/* Parameters held by one GPU of pipeline stage `stage` (0 = first). */
double aug_train_stage_params_per_gpu(const struct aug_model *m, const struct aug_plan *p,
                                      long stage);

/* Activation bytes one layer keeps for one micro-batch on one GPU (Korthikanti et al.
 * 2022, sec. 4, generalized to GQA and gated MLPs). */
double aug_train_layer_activation_bytes(const struct aug_model *m, const struct aug_plan *p);

#endif
