/* SPDX-License-Identifier: Apache-2.0 */
/* device_match.c - compare a CUDA device name with a kernels-db GPU id and name.
 *
 * CUDA device names (cudaDeviceProp.name) are "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB
 * HBM3", "NVIDIA H100 PCIe", "Tesla V100-SXM2-32GB", "NVIDIA GB200". Both sides are cut
 * into upper-case alphanumeric words; a model word is one or two letters then at least
 * two digits and optional letters (A100, H800, GB200, L40S; not SXM4, HBM3, NVL72), a
 * memory word is digits then G or GB (80GB, 80G). The device matches when it shares a
 * model word with the GPU's id or name, and their memory sizes agree where both give one. */
#include "device_match.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 16

struct words {
    char model[MAX_WORDS][16];
    int n_model;
    long mem_gb; /* 0: none */
};

static int is_model(const char *w)
{
    int i = 0;
    while (isalpha((unsigned char)w[i]))
        i++;
    if (i < 1 || i > 2)
        return 0;
    int d = 0;
    while (isdigit((unsigned char)w[i + d]))
        d++;
    if (d < 2)
        return 0;
    for (int j = i + d; w[j]; j++)
        if (!isalpha((unsigned char)w[j]))
            return 0;
    return 1;
}

static void scan(const char *s, struct words *out)
{
    char w[16];
    size_t n = 0;
    for (const char *p = s;; p++) {
        if (*p && isalnum((unsigned char)*p)) {
            if (n + 1 < sizeof w)
                w[n++] = (char)toupper((unsigned char)*p);
            continue;
        }
        w[n] = '\0';
        if (n > 0) {
            char *end;
            long v = strtol(w, &end, 10);
            if (end != w && (strcmp(end, "G") == 0 || strcmp(end, "GB") == 0) && v > 0)
                out->mem_gb = v;
            else if (is_model(w) && out->n_model < MAX_WORDS)
                memcpy(out->model[out->n_model++], w, n + 1);
        }
        n = 0;
        if (!*p)
            break;
    }
}

int aug_device_matches_gpu(const char *device, const char *gpu_id, const char *gpu_name)
{
    struct words d = {0}, g = {0};
    scan(device, &d);
    if (d.n_model == 0)
        return -1;
    scan(gpu_id, &g);
    if (gpu_name)
        scan(gpu_name, &g);
    int shared = 0;
    for (int i = 0; i < d.n_model && !shared; i++)
        for (int j = 0; j < g.n_model && !shared; j++)
            shared = strcmp(d.model[i], g.model[j]) == 0;
    if (!shared)
        return 0;
    if (d.mem_gb && g.mem_gb && d.mem_gb != g.mem_gb)
        return 0;
    return 1;
}
