/* SPDX-License-Identifier: Apache-2.0 */
/* zero3_serial.h - DeepSpeed's ZeRO-3 as it ran in 2021 (plan zero3_gather = serial).
 *
 * DeepSpeed 0.3.13-0.5.5 gathered every partitioned weight tensor on its own, and its
 * _allgather_param called torch.cuda.synchronize() before each all-gather
 * (runtime/zero/partition_parameters.py at 112ebff, 2021-04-12), so the prefetch of the
 * next weights waited for the compute before it: gathers and gradient reduce-scatters
 * add to the compute instead of hiding behind it. Collectives went through
 * torch.distributed's list forms, which copy every rank's partition, and through one
 * call per tensor: DeepSpeed#1188 (c0eeb69, 2021-10-31) and #1453 (4912e0ad, 2022-01-20)
 * replaced this with prefetching, batched and *_base collectives.
 *
 * Per micro-batch and weight tensor of at least stage3_param_persistence_threshold
 * elements (1e5; smaller ones stay whole on every rank): an all-gather in the forward,
 * one more for the recomputed forward of a checkpointed layer, one in the backward, and a
 * reduce-scatter of its gradient; each timed by the collective model (its ring latency
 * steps grow with the group, which is why gathering tensor by tensor does not scale) at
 * AUG_ZERO3_SERIAL_RATE of the rate NCCL's collectives reach (the list copies, the
 * per-call allocation and zero-fill, the synchronization between calls). */
#ifndef AUG_ZERO3_SERIAL_H
#define AUG_ZERO3_SERIAL_H

#include "augur/model.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "model/layer_graph.h"

/* DeepSpeed's stage3_param_persistence_threshold default (runtime/zero/constants.py). */
#define AUG_ZERO3_PERSIST_ELEMENTS 1e5

/* Share of the collective model's rate the serial path reaches: fitted on Narayanan et
 * al. SC21 Table 2's six ZeRO-3 runs (GPT-3 175B on 384-1536 and a 530B model on
 * 640-2240 A100s) by benchmarks/bench_zero3_fit.c, which reports it held out (each row
 * predicted from a fit on the other five: MAPE 5.17%; the 175B runs from a fit on the
 * 530B ones: 7.81%, the reverse 6.36%); the fit on all six is 0.324 (MAPE 4.28%). */
#define AUG_ZERO3_SERIAL_RATE 0.324

/* Seconds one micro-batch spends in ZeRO-3's serial gathers and reduce-scatters on a
 * rank of a `ranks`-wide sharding group (`per_domain` of them in an NVLink domain):
 * every weight tensor of the layer graph's forward GEMMs times `layers`, plus the
 * embedding (an untied output head, learned position embeddings). `rate` <= 0 takes AUG_ZERO3_SERIAL_RATE.
 * `recompute_share`: the share of layers whose forward is recomputed (a gather each).
 * The collective source in *src. AUG_OK, or the collective model's error. */
int aug_zero3_serial_s(const struct aug_op_ctx *ctx, const struct aug_model *m,
                       const struct aug_plan *p, const struct aug_graph *layer, double layers,
                       double recompute_share, long ranks, int per_domain, double wbytes,
                       double gbytes, double rate, double *seconds, enum aug_source *src);

#endif
