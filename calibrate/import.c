/* SPDX-License-Identifier: Apache-2.0 */
/* import.c - the importer registry: one row per format (name -> parser), and reading a
 * file for the chosen importer. Adding a format is one file (implementing importer.h)
 * plus one row here. */
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
    {"neusight", "NeuSight <op>/p2.1.0/<Device>.csv (fp32 GEMMs and memory-bound ops, "
     "host-timed, ms)", aug_import_neusight},
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
