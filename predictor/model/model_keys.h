/* SPDX-License-Identifier: Apache-2.0 */
/* model_keys.h - model_load.c and model_keys.c share the resolution of a model argument. */
#ifndef AUG_MODEL_KEYS_H
#define AUG_MODEL_KEYS_H

#include <stddef.h>

/* The file a path-like model argument names: a folder means its config.json, "org/name"
 * the Hugging Face cache. AUG_ENOTFOUND, without a message, for a preset name. */
int aug_model_file(const char *name_or_path, char *path, size_t n);

#endif
