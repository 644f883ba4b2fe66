/* import.c - the importer registry (name -> parser) and the pieces every importer
 * shares: reading a file, the raw-schema pass-through and the Vidur auto-detection. */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/data.h"
#include "augur/status.h"

static const struct aug_importer importers[] = {
    {"raw", "kernels-db raw CSV (the schema augur-profile writes)", aug_import_raw},
    {"nccl-tests", "nccl-tests *_perf text output, or its CSV tables (size(B),...,time(ns))",
     aug_import_nccl_tests},
    {"vidur-mlp", "Vidur profiling mlp.csv (GEMMs and memory-bound ops, times in ms)",
     aug_import_vidur_mlp},
    {"vidur-network", "Vidur profiling all_reduce.csv / send_recv.csv (times in ms)",
     aug_import_vidur_network},
    {"vidur", "either Vidur file, recognised by its header", aug_import_vidur},
};

int aug_importer_count(void)
{
    return (int)(sizeof importers / sizeof importers[0]);
}

const struct aug_importer *aug_importer_at(int i)
{
    return i >= 0 && i < aug_importer_count() ? &importers[i] : NULL;
}

const struct aug_importer *aug_importer_find(const char *name)
{
    for (int i = 0; name && i < aug_importer_count(); i++)
        if (strcmp(importers[i].name, name) == 0)
            return &importers[i];
    return NULL;
}

int aug_import_file(const struct aug_importer *im, const char *path,
                    const struct aug_import_opts *o, struct aug_samples *out)
{
    char *buf = NULL;
    long len = 0;
    int rc = aug_read_file(path, &buf, &len);
    if (rc != AUG_OK)
        return rc;
    rc = im->parse(path, buf, (size_t)len, o, out);
    free(buf);
    return rc;
}

const char *aug_import_source(const struct aug_import_opts *o, const char *name,
                              const char *what, char *buf, size_t cap)
{
    const char *prefix = o && o->source && *o->source ? o->source : NULL;
    snprintf(buf, cap, "%s%s%s%s%s", prefix ? prefix : "", prefix ? ":" : "", name,
             what ? " " : "", what ? what : "");
    return buf;
}

int aug_import_raw(const char *name, const char *buf, size_t len,
                   const struct aug_import_opts *o, struct aug_samples *out)
{
    (void)o;
    return aug_samples_load_raw_mem(name, buf, len, out);
}

int aug_import_vidur(const char *name, const char *buf, size_t len,
                     const struct aug_import_opts *o, struct aug_samples *out)
{
    /* look at the first line only */
    size_t end = 0;
    while (end < len && buf[end] != '\n')
        end++;
    char head[4096];
    size_t n = end < sizeof head - 1 ? end : sizeof head - 1;
    memcpy(head, buf, n);
    head[n] = '\0';
    if (strstr(head, "num_tokens"))
        return aug_import_vidur_mlp(name, buf, len, o, out);
    if (strstr(head, "collective"))
        return aug_import_vidur_network(name, buf, len, o, out);
    return aug_errorf(AUG_EDATA, "%s:1: neither a Vidur mlp.csv (no 'num_tokens' column) nor "
                      "a network file (no 'collective' column)", name);
}
