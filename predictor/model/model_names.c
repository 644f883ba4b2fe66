/* SPDX-License-Identifier: Apache-2.0 */
/* model_names.c - the names of the model enums, as model JSON spells them and as augur
 * prints them. Below the loaders (model_load.c, hf_config.c) and model_finish.c, which all
 * use them. */
#include "augur/model.h"

/* Defined unsized and counted before model_internal.h declares them sized by the enums:
 * a table that misses a name fails the assertions, and the header then checks the types. */
const char *const aug_model_arch_names[] = {"dense", "moe", "matmulfree"};
const char *const aug_model_mlp_names[] = {"gelu", "swiglu"};
const char *const aug_model_norm_names[] = {"layernorm", "rmsnorm"};
const char *const aug_model_pos_names[] = {"learned", "rope"};
const char *const aug_model_attn_names[] = {"gqa", "mla"};
const char *const aug_model_fp8_recipe_names[] = {"per_tensor", "per_channel_per_token"};
#define COUNT(a) (sizeof a / sizeof *a)
_Static_assert(COUNT(aug_model_arch_names) == AUG_ARCH_COUNT, "arch names");
_Static_assert(COUNT(aug_model_mlp_names) == AUG_MLP_COUNT, "mlp names");
_Static_assert(COUNT(aug_model_norm_names) == AUG_NORM_COUNT, "norm names");
_Static_assert(COUNT(aug_model_pos_names) == AUG_POS_COUNT, "pos names");
_Static_assert(COUNT(aug_model_attn_names) == AUG_ATTN_COUNT, "attention names");
_Static_assert(COUNT(aug_model_fp8_recipe_names) == AUG_FP8_RECIPE_COUNT, "fp8 recipe names");

#include "model/model_internal.h"

const char *aug_arch_name(enum aug_arch a) {
    return (unsigned)a < AUG_ARCH_COUNT ? aug_model_arch_names[a] : "unknown";
}

const char *aug_mlp_name(enum aug_mlp m) {
    return (unsigned)m < AUG_MLP_COUNT ? aug_model_mlp_names[m] : "unknown";
}

const char *aug_attn_name(enum aug_attn a) {
    return (unsigned)a < AUG_ATTN_COUNT ? aug_model_attn_names[a] : "unknown";
}

const char *aug_fp8_recipe_name(enum aug_fp8_recipe r) {
    return (unsigned)r < AUG_FP8_RECIPE_COUNT ? aug_model_fp8_recipe_names[r] : "unknown";
}
