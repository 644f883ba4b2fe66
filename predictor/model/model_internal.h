/* SPDX-License-Identifier: Apache-2.0 */
/* model_internal.h - what the model loaders share (model_load.c: presets and augur model
 * JSON; hf_config.c: Hugging Face config.json): names from paths, source notes, and the
 * record of the keys a config used and ignored. */
#ifndef AUG_MODEL_INTERNAL_H
#define AUG_MODEL_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "augur/model.h"

/* Enum names (model_names.c), indexed by the enum; sized so a table can count them. */
extern const char *const aug_model_arch_names[AUG_ARCH_COUNT];
extern const char *const aug_model_mlp_names[AUG_MLP_COUNT];
extern const char *const aug_model_norm_names[AUG_NORM_COUNT];
extern const char *const aug_model_pos_names[AUG_POS_COUNT];
extern const char *const aug_model_attn_names[AUG_ATTN_COUNT];
extern const char *const aug_model_fp8_recipe_names[AUG_FP8_RECIPE_COUNT];

/* Last component of a path-like string (no trailing '/'), into buf. */
void aug_model_last_component(const char *s, char *buf, size_t n);
/* "dir/Llama-2-7b-hf/config.json" -> "Llama-2-7b-hf"; "x/gpt2.json" -> "gpt2". */
void aug_model_name_from_origin(const char *origin, char *buf, size_t n);
/* Append "; note" to a source string. */
void aug_model_add_note(char *src, size_t n, const char *note);
/* A caveat: appended to the model's source and to its caveats. */
void aug_model_caveat(struct aug_model *m, const char *note);

/* Record `key` as used (once); no-op when keys is NULL. */
void aug_model_keys_use(struct aug_model_keys *keys, const char *key);
/* After a parse: every key of obj not recorded as used is ignored. */
void aug_model_keys_finish(struct aug_model_keys *keys, json_t *obj);

/* Hugging Face readers (hf_config.c): GPT-2 keys (n_embd, n_layer, ...) and Llama-style
 * keys (hidden_size, num_hidden_layers, ...). */
int aug_hf_parse_gpt2(const char *origin, json_t *obj, struct aug_model *out,
                      struct aug_model_keys *keys);
int aug_hf_parse_llama(const char *origin, json_t *obj, struct aug_model *out,
                       struct aug_model_keys *keys);

#endif
