/* SPDX-License-Identifier: Apache-2.0 */
/* hf_cache.h - Hugging Face model names ("meta-llama/Llama-3.1-8B") resolved from the
 * local Hugging Face hub cache, without a network. */
#ifndef AUG_MODEL_HF_CACHE_H
#define AUG_MODEL_HF_CACHE_H

#include <stddef.h>

/* Is `s` shaped like a hub repository id "org/name" (one '/', no path syntax)? */
int aug_hf_repo_id(const char *s);

/* Path of the cached config.json of repository `repo_id` into path[n]. AUG_ENOTFOUND with
 * a message naming every folder looked in when no snapshot holds one. */
int aug_hf_cache_config(const char *repo_id, char *path, size_t n);

#endif
