/* SPDX-License-Identifier: Apache-2.0 */
/* engine.h - the engine presets' run-dependent limits (engine.c); the rest is public
 * (augur/serving.h). */
#ifndef AUG_INFER_ENGINE_H
#define AUG_INFER_ENGINE_H

#include "augur/serving.h"

/* Max batch (per replica) and max tokens per step the engine picks for a run: vLLM and SGLang
 * their fixed defaults; TensorRT-LLM trtllm-bench's heuristic from the GPU memory (GiB), the
 * parameter count and bytes per weight, the KV bytes of one token (whole model, with the
 * per-rank KV-head floor of tp), tp, pp and the mean input and output lengths. */
void aug_engine_auto_limits(const struct aug_serve_config *c, double gpu_mem_gib, double params,
                            double weight_bytes, double kv_bytes_per_token, long tp, long pp,
                            double isl, double osl, long *max_batch, long *max_tokens);

#endif
