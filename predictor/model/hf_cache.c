/* SPDX-License-Identifier: Apache-2.0 */
/* hf_cache.c - find a model's config.json in the local Hugging Face hub cache.
 *
 * Layout and environment as huggingface_hub (constants.py, file_download.py, 0.2x) uses
 * them: the hub cache is $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE (older name), else
 * $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub. A
 * repository "org/name" lives in models--org--name/; refs/main holds the commit of the
 * revision last downloaded, and snapshots/<commit>/config.json the file (a symlink into
 * blobs/). When refs/main is missing or names no snapshot with a config.json, the most
 * recently modified snapshot that has one is taken. */
#include "model/hf_cache.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "augur/status.h"

int aug_hf_repo_id(const char *s)
{
    const char *slash = strchr(s, '/');
    if (!slash || slash == s || !slash[1] || strchr(slash + 1, '/'))
        return 0;
    if (s[0] == '.' || slash[1] == '.')
        return 0;
    size_t n = strlen(s);
    if (n >= 5 && strcmp(s + n - 5, ".json") == 0)
        return 0;
    for (const char *p = s; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.' || *p == '/'))
            return 0;
    return 1;
}

static int is_file(const char *p, struct stat *sb)
{
    return stat(p, sb) == 0 && S_ISREG(sb->st_mode);
}

/* The hub cache folder into buf; its origin (which variable) into why. */
static int hub_dir(char *buf, size_t n, char *why, size_t wn)
{
    const char *v;
    int w;
    if ((v = getenv("HF_HUB_CACHE")) && *v) {
        w = snprintf(buf, n, "%s", v);
        snprintf(why, wn, "$HF_HUB_CACHE");
    } else if ((v = getenv("HUGGINGFACE_HUB_CACHE")) && *v) {
        w = snprintf(buf, n, "%s", v);
        snprintf(why, wn, "$HUGGINGFACE_HUB_CACHE");
    } else if ((v = getenv("HF_HOME")) && *v) {
        w = snprintf(buf, n, "%s/hub", v);
        snprintf(why, wn, "$HF_HOME/hub");
    } else if ((v = getenv("XDG_CACHE_HOME")) && *v) {
        w = snprintf(buf, n, "%s/huggingface/hub", v);
        snprintf(why, wn, "$XDG_CACHE_HOME/huggingface/hub");
    } else if ((v = getenv("HOME")) && *v) {
        w = snprintf(buf, n, "%s/.cache/huggingface/hub", v);
        snprintf(why, wn, "~/.cache/huggingface/hub");
    } else {
        return 0;
    }
    return w > 0 && (size_t)w < n;
}

int aug_hf_cache_config(const char *repo_id, char *path, size_t n)
{
    char hub[PATH_MAX], why[64];
    if (!hub_dir(hub, sizeof hub, why, sizeof why))
        return aug_errorf(AUG_ENOTFOUND, "model '%s': not a preset or a file, and no Hugging Face "
                          "cache to look in (HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME "
                          "are unset)", repo_id);
    /* models--org--name */
    char folder[PATH_MAX];
    int w = snprintf(folder, sizeof folder, "%s/models--", hub);
    for (const char *p = repo_id; *p && w > 0 && (size_t)w + 3 < sizeof folder; p++) {
        if (*p == '/') {
            folder[w++] = '-';
            folder[w++] = '-';
        } else {
            folder[w++] = *p;
        }
    }
    if (w <= 0 || (size_t)w + 3 >= sizeof folder)
        return aug_errorf(AUG_EUSAGE, "model '%s': name too long", repo_id);
    folder[w] = '\0';
    struct stat sb;
    char cand[PATH_MAX + 300];
    /* refs/main -> snapshots/<commit>/config.json */
    snprintf(cand, sizeof cand, "%s/refs/main", folder);
    FILE *f = fopen(cand, "r");
    if (f) {
        char commit[128] = "";
        if (fgets(commit, sizeof commit, f)) {
            commit[strcspn(commit, "\r\n")] = '\0';
            if (commit[0] && !strchr(commit, '/') && strcmp(commit, "..") != 0) {
                snprintf(cand, sizeof cand, "%s/snapshots/%s/config.json", folder, commit);
                if (is_file(cand, &sb)) {
                    fclose(f);
                    if ((size_t)snprintf(path, n, "%s", cand) >= n)
                        return aug_errorf(AUG_EUSAGE, "model '%s': path too long", repo_id);
                    return AUG_OK;
                }
            }
        }
        fclose(f);
    }
    /* else the newest snapshot holding a config.json */
    snprintf(cand, sizeof cand, "%s/snapshots", folder);
    DIR *d = opendir(cand);
    char best[PATH_MAX + 300] = "";
    time_t best_t = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(cand, sizeof cand, "%s/snapshots/%.200s/config.json", folder, e->d_name);
            if (is_file(cand, &sb) && (!best[0] || sb.st_mtime > best_t)) {
                best_t = sb.st_mtime;
                snprintf(best, sizeof best, "%s", cand);
            }
        }
        closedir(d);
    }
    if (best[0]) {
        if ((size_t)snprintf(path, n, "%s", best) >= n)
            return aug_errorf(AUG_EUSAGE, "model '%s': path too long", repo_id);
        return AUG_OK;
    }
    return aug_errorf(AUG_ENOTFOUND,
                      "model '%s': not a preset or a file, and not in the Hugging Face cache: "
                      "looked for %s/snapshots/*/config.json (%s; set HF_HOME or HF_HUB_CACHE "
                      "to look elsewhere, or download it with `huggingface-cli download %s "
                      "config.json`)", repo_id, folder, why, repo_id);
}
