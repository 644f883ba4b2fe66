/* import_raw.c - the kernels-db raw CSV (the schema augur-profile writes), passed through
 * the raw-schema reader of samples.c. */
#include "importer.h"

int aug_import_raw(const char *name, const char *buf, size_t len,
                   const struct aug_import_opts *o, struct aug_samples *out)
{
    (void)o;
    return aug_samples_load_raw_mem(name, buf, len, out);
}
