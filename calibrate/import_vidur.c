/* SPDX-License-Identifier: Apache-2.0 */
/* import_vidur.c - either Vidur profiling file, recognised by its header: mlp.csv has a
 * `num_tokens` column, the network files a `collective` column. */
#include <string.h>

#include "augur/status.h"
#include "importer.h"

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
