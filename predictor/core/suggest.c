/* SPDX-License-Identifier: Apache-2.0 */
/* suggest.c - edit distance and the "did you mean" list behind every unknown-name error.
 *
 * An unknown preset, GPU id or JSON key is a typo more often than not; naming the closest
 * known names turns a dead end into a one-character fix. */
#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define DIST_MAX_LEN 255

int aug_edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > DIST_MAX_LEN || lb > DIST_MAX_LEN)
        return DIST_MAX_LEN + 1;
    int row[DIST_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0]; /* d[i-1][j-1] */
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j]; /* d[i-1][j] */
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* Case-insensitive "needle occurs in hay". */
static int contains_ci(const char *hay, const char *needle) {
    size_t nl = strlen(needle);
    if (nl == 0)
        return 0;
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < nl && hay[k] &&
               tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == nl)
            return 1;
    }
    return 0;
}

void aug_suggest_init(struct aug_suggest *s, const char *query) {
    memset(s, 0, sizeof *s);
    s->query = query ? query : "";
    int third = (int)(strlen(s->query) / 3);
    s->max_dist = third > 2 ? third : 2;
}

void aug_suggest_add(struct aug_suggest *s, const char *candidate) {
    if (!candidate || !*candidate)
        return;
    int d = aug_edit_distance(s->query, candidate);
    if (d > s->max_dist) {
        /* "h100" -> "h100-80g", "dgx-h100-80gb" -> "dgx-h100": rank after true typos */
        if (strlen(s->query) >= 3 &&
            (contains_ci(candidate, s->query) || contains_ci(s->query, candidate)))
            d = s->max_dist;
        else
            return;
    }
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], candidate) == 0)
            return;
    /* insertion into the sorted (distance, then arrival) list of at most MAX entries */
    int pos = s->n;
    while (pos > 0 && s->dist[pos - 1] > d)
        pos--;
    if (pos >= AUG_SUGGEST_MAX)
        return;
    int last = s->n < AUG_SUGGEST_MAX ? s->n : AUG_SUGGEST_MAX - 1;
    for (int i = last; i > pos; i--) {
        s->dist[i] = s->dist[i - 1];
        memcpy(s->names[i], s->names[i - 1], AUG_SUGGEST_NAME);
    }
    s->dist[pos] = d;
    snprintf(s->names[pos], AUG_SUGGEST_NAME, "%s", candidate);
    if (s->n < AUG_SUGGEST_MAX)
        s->n++;
}

const char *aug_suggest_format(const struct aug_suggest *s, char *buf, size_t n) {
    if (n == 0)
        return buf;
    buf[0] = '\0';
    if (s->n == 0)
        return buf;
    size_t used = 0;
    int w = snprintf(buf, n, " (did you mean: ");
    if (w < 0 || (size_t)w >= n)
        return buf;
    used = (size_t)w;
    for (int i = 0; i < s->n; i++) {
        w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", s->names[i]);
        if (w < 0 || (size_t)w >= n - used)
            return buf;
        used += (size_t)w;
    }
    snprintf(buf + used, n - used, "?)");
    return buf;
}
