/* SPDX-License-Identifier: Apache-2.0 */
/* suggest.h - "did you mean" lists for unknown names (presets, GPU ids, JSON keys).
 *
 * Candidates are offered one at a time; the closest few by case-insensitive edit distance
 * are kept (copied, so the caller may free its candidate strings afterwards) and formatted
 * as "a, b, c". Used by model_load.c and system.c. */
#ifndef AUG_SUGGEST_H
#define AUG_SUGGEST_H

#include <stddef.h>

#define AUG_SUGGEST_MAX 3
#define AUG_SUGGEST_NAME 64

struct aug_suggest {
    const char *query;
    int max_dist;                                /* farther candidates are dropped */
    int n;
    int dist[AUG_SUGGEST_MAX];
    char names[AUG_SUGGEST_MAX][AUG_SUGGEST_NAME];
};

/* Levenshtein distance, ASCII case folded; strings longer than 255 bytes compare as far. */
int aug_edit_distance(const char *a, const char *b);

/* Start a list for `query`: candidates within max(2, strlen(query) / 3) edits are kept,
 * as are candidates that contain the query or that the query contains. */
void aug_suggest_init(struct aug_suggest *s, const char *query);

/* Offer one candidate name. */
void aug_suggest_add(struct aug_suggest *s, const char *candidate);

/* " (did you mean: a, b?)" or "" when nothing is close; written into buf. */
const char *aug_suggest_format(const struct aug_suggest *s, char *buf, size_t n);

#endif
