/* SPDX-License-Identifier: Apache-2.0 */
/* gpuid.c - device name -> kernels-db GPU id (see gpuid.h): the table of known GPUs first,
 * an id generated from the name otherwise. */
#include "gpuid.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "augur/status.h"

static int dropped(const char *w) {
    static const char *const words[] = {"nvidia", "geforce", "tesla", "quadro", "graphics"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(w, words[i]) == 0)
            return 1;
    if (strncmp(w, "hbm", 3) == 0 || strncmp(w, "gddr", 4) == 0)
        return 1;
    if (strncmp(w, "sxm", 3) == 0) { /* "sxm", "sxm4", "sxm5": the default form factor */
        const char *d = w + 3;
        while (isdigit((unsigned char)*d))
            d++;
        return *d == '\0';
    }
    return 0;
}

/* "80gb" -> 1 and digits in *mem */
static int memory_word(const char *w, char *mem, size_t cap) {
    size_t nd = 0;
    while (isdigit((unsigned char)w[nd]))
        nd++;
    if (nd == 0 || strcmp(w + nd, "gb") != 0 || nd + 2 > cap)
        return 0;
    memcpy(mem, w, nd);
    mem[nd] = 'g';
    mem[nd + 1] = '\0';
    return 1;
}

/* CUDA device names (cudaDeviceProp.name, as nvidia-smi prints them) of the GPUs that have
 * a row in kernels-db/gpus.csv. A GPU whose row is added there gets its name here too
 * (tests/profiler/test_gpuid.c checks that every row is reachable). */
static const struct {
    const char *device_name;
    const char *gpu_id;
} known_gpus[] = {
    {"NVIDIA A100-SXM4-40GB", "a100-40g"},
    {"NVIDIA A100-SXM4-80GB", "a100-80g"},
    {"NVIDIA H100 80GB HBM3", "h100-80g"}, /* H100 SXM5 */
    {"NVIDIA H800", "h800-80g"},
    {"NVIDIA H800 80GB HBM3", "h800-80g"},
    {"NVIDIA H200", "h200-141g"},          /* H200 SXM (the NVL part says "H200 NVL") */
    {"NVIDIA B200", "b200-180g"},
    {"NVIDIA GB200", "gb200-186g"},
    {"NVIDIA A100-PCIE-40GB", "a100-pcie-40g"},
    {"NVIDIA A100 80GB PCIe", "a100-pcie-80g"},
    {"NVIDIA H100 PCIe", "h100-pcie-80g"},
    {"Tesla V100-SXM2-32GB", "v100-sxm2-32g"},
    {"Tesla V100-PCIE-32GB", "v100-pcie-32g"},
    {"Tesla T4", "t4-16g"},
    {"NVIDIA L4", "l4-24g"},
    {"NVIDIA A10", "a10-24g"},
    {"Tesla P100-PCIE-16GB", "p100-pcie-16g"},
    {"Tesla P4", "p4-8g"},
};

/* Equal ignoring case, and runs of ' ', '-', '_' count as one separator. */
static int same_name(const char *a, const char *b) {
#define SEP(c) ((c) == ' ' || (c) == '-' || (c) == '_')
    while (SEP(*a))
        a++;
    while (SEP(*b))
        b++;
    while (*a && *b) {
        if (SEP(*a) && SEP(*b)) {
            while (SEP(*a))
                a++;
            while (SEP(*b))
                b++;
            continue;
        }
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
        a++;
        b++;
    }
    while (SEP(*a))
        a++;
    while (SEP(*b))
        b++;
    return *a == '\0' && *b == '\0';
#undef SEP
}

int aug_prof_gpu_known_count(void) {
    return (int)(sizeof known_gpus / sizeof known_gpus[0]);
}

const char *aug_prof_gpu_known_name(int i) {
    return i >= 0 && i < aug_prof_gpu_known_count() ? known_gpus[i].device_name : NULL;
}

int aug_prof_gpu_id(const char *device_name, char *buf, size_t cap, int *known) {
    if (known)
        *known = 0;
    for (int i = 0; device_name && i < aug_prof_gpu_known_count(); i++)
        if (same_name(device_name, known_gpus[i].device_name)) {
            if (strlen(known_gpus[i].gpu_id) >= cap)
                return aug_errorf(AUG_EDATA, "GPU id '%s' does not fit", known_gpus[i].gpu_id);
            snprintf(buf, cap, "%s", known_gpus[i].gpu_id);
            if (known)
                *known = 1;
            return AUG_OK;
        }
    return aug_prof_gpu_id_generate(device_name, buf, cap);
}

int aug_prof_gpu_id_generate(const char *device_name, char *buf, size_t cap) {
    char lower[256], mem[16] = "";
    size_t len = 0, n = 0;
    if (!device_name)
        return aug_errorf(AUG_EDATA, "no device name");
    for (; device_name[n] && n + 1 < sizeof lower; n++)
        lower[n] = (char)tolower((unsigned char)device_name[n]);
    lower[n] = '\0';
    if (cap)
        buf[0] = '\0';
    char *save = NULL;
    for (char *w = strtok_r(lower, " -_/", &save); w; w = strtok_r(NULL, " -_/", &save)) {
        if (dropped(w) || (!mem[0] && memory_word(w, mem, sizeof mem)))
            continue;
        for (char *c = w; *c; c++) /* keep only id characters */
            if (!(isalnum((unsigned char)*c) || *c == '.'))
                *c = '.';
        int wr = snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? "-" : "", w);
        len += (size_t)(wr > 0 ? wr : 0);
    }
    if (mem[0]) {
        int wr = snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? "-" : "", mem);
        len += (size_t)(wr > 0 ? wr : 0);
    }
    if (len == 0 || len >= cap)
        return aug_errorf(AUG_EDATA, "cannot derive a GPU id from device name '%s' (use --gpu-id)",
                          device_name);
    return AUG_OK;
}

int aug_prof_gpu_id_check(const char *id) {
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > 31 || !isalnum((unsigned char)id[0]))
        return aug_errorf(AUG_EUSAGE, "GPU id '%s' must be 1 to 31 characters starting with a "
                          "letter or digit", id ? id : "");
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)id[i]) || isdigit((unsigned char)id[i]) || id[i] == '-' ||
              id[i] == '.'))
            return aug_errorf(AUG_EUSAGE, "GPU id '%s' may only hold a-z, 0-9, '.' and '-'", id);
    return AUG_OK;
}

void aug_prof_driver_version(const char *line, char *buf, size_t cap) {
    if (cap == 0)
        return;
    buf[0] = '\0';
    const char *p = line ? strstr(line, "Kernel Module") : NULL;
    if (!p)
        return;
    p += strlen("Kernel Module");
    for (;;) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, " \t\r\n");
        if (n == 0)
            return;
        if (isdigit((unsigned char)p[0]) && memchr(p, '.', n) && n < cap) {
            memcpy(buf, p, n);
            buf[n] = '\0';
            return;
        }
        p += n;
    }
}
