/* SPDX-License-Identifier: Apache-2.0 */
/* import.h - the registry of importers of measurement formats users already have, by
 * name (import.c). Each importer implements importer.h; adding a format is one file plus
 * one row in the table in import.c. */
#ifndef AUG_CAL_IMPORT_H
#define AUG_CAL_IMPORT_H

#include <stddef.h>

#include "importer.h"

struct aug_importer {
    const char *name;    /* --import NAME */
    const char *what;    /* one line for --help */
    aug_import_fn parse;
};

const struct aug_importer *aug_importer_find(const char *name);
int aug_importer_count(void);
const struct aug_importer *aug_importer_at(int i);

/* Read `path` and run the importer on it. */
int aug_import_file(const struct aug_importer *im, const char *path,
                    const struct aug_import_opts *o, struct aug_samples *out);

#endif
