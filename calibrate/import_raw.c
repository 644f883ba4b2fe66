/* SPDX-License-Identifier: Apache-2.0 */
/* import_raw.c - the kernels-db raw CSV (the schema augur-profile writes), passed through
 * the raw-schema reader of samples.c, after checking that the file was measured on the GPU
 * the curves are for: its provenance line `# gpu_id: ID` (augur-profile writes it) must
 * name --gpu, or --force must say that mixing GPUs is meant. A file without that line
 * (written by hand or by another tool) is read as it is. */
#include "importer.h"

#include <stdio.h>
#include <string.h>

#include "augur/status.h"

/* The value of the first leading "# gpu_id:" comment line, into id; 1 when found. */
static int provenance_gpu_id(const char *buf, size_t len, char *id, size_t cap, long *line)
{
    size_t i = 0;
    long ln = 1;
    while (i < len && buf[i] == '#') {
        size_t e = i;
        while (e < len && buf[e] != '\n')
            e++;
        const char *p = buf + i + 1;
        while (p < buf + e && *p == ' ')
            p++;
        static const char key[] = "gpu_id:";
        if ((size_t)(buf + e - p) >= sizeof key - 1 && memcmp(p, key, sizeof key - 1) == 0) {
            p += sizeof key - 1;
            while (p < buf + e && *p == ' ')
                p++;
            const char *q = buf + e;
            while (q > p && (q[-1] == ' ' || q[-1] == '\r'))
                q--;
            size_t n = (size_t)(q - p) < cap - 1 ? (size_t)(q - p) : cap - 1;
            memcpy(id, p, n);
            id[n] = '\0';
            *line = ln;
            return 1;
        }
        i = e + 1;
        ln++;
    }
    return 0;
}

int aug_import_raw(const char *name, const char *buf, size_t len,
                   const struct aug_import_opts *o, struct aug_samples *out)
{
    char id[64];
    long line = 0;
    if (o && o->gpu && !o->force && provenance_gpu_id(buf, len, id, sizeof id, &line) &&
        strcmp(id, o->gpu) != 0)
        return aug_errorf(AUG_EDATA, "%s:%ld: measured on GPU '%s', not '%s': its curves would "
                          "describe another GPU (calibrate it with --gpu %s, or pass --force "
                          "to mix them on purpose)", name, line, id, o->gpu, id);
    return aug_samples_load_raw_mem(name, buf, len, out);
}
