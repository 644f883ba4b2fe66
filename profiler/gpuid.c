/* gpuid.c - device name -> kernels-db GPU id (see gpuid.h). */
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

int aug_prof_gpu_id(const char *device_name, char *buf, size_t cap) {
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
