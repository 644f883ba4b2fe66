/* SPDX-License-Identifier: Apache-2.0 */
/* importer.c - what every importer shares: the `source` tag of its samples. */
#include "importer.h"

#include <stdio.h>

const char *aug_import_source(const struct aug_import_opts *o, const char *name,
                              const char *what, char *buf, size_t cap)
{
    const char *prefix = o && o->source && *o->source ? o->source : NULL;
    snprintf(buf, cap, "%s%s%s%s%s", prefix ? prefix : "", prefix ? ":" : "", name,
             what ? " " : "", what ? what : "");
    return buf;
}
