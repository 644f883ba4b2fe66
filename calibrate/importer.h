/* SPDX-License-Identifier: Apache-2.0 */
/* importer.h - what an importer of a measurement format implements.
 *
 * Every importer parses a whole file held in memory (so the fuzzers can call it) and
 * appends checked samples in the raw schema to a sample set; a bad row is AUG_EDATA
 * naming file, line and field. */
#ifndef AUG_CAL_IMPORTER_H
#define AUG_CAL_IMPORTER_H

#include <stddef.h>

#include "samples.h"

struct aug_import_opts {
    const char *coll;    /* nccl-tests: the collective when the file does not name it */
    int ranks;           /* nccl-tests: group size when the file does not show it (0: unset) */
    int ranks_per_node;  /* nccl-tests: ranks per node when the file does not show it */
    const char *source;  /* prefix of every sample's `source` ("vidur@7d47513"); NULL none */
    const char *gpu;     /* raw, neusight: the GPU id the curves are for; a file whose
                            provenance (`# gpu_id: ...`) or Device column names another
                            is refused ... */
    int force;           /* ... unless this is set */
};

typedef int (*aug_import_fn)(const char *name, const char *buf, size_t len,
                             const struct aug_import_opts *o, struct aug_samples *out);

/* The importers (one file each). */
int aug_import_raw(const char *name, const char *buf, size_t len,
                   const struct aug_import_opts *o, struct aug_samples *out);
int aug_import_nccl_tests(const char *name, const char *buf, size_t len,
                          const struct aug_import_opts *o, struct aug_samples *out);
int aug_import_vidur_mlp(const char *name, const char *buf, size_t len,
                         const struct aug_import_opts *o, struct aug_samples *out);
int aug_import_vidur_network(const char *name, const char *buf, size_t len,
                             const struct aug_import_opts *o, struct aug_samples *out);
/* NeuSight operator CSVs (linear, bmm: fp32 GEMMs; add, gelu, softmax, ln: memory-bound),
 * host-timed; the Device column is checked against gpu unless force. */
int aug_import_neusight(const char *name, const char *buf, size_t len,
                        const struct aug_import_opts *o, struct aug_samples *out);
/* Vidur, either kind: chosen by the header (num_tokens: mlp; collective: network). */
int aug_import_vidur(const char *name, const char *buf, size_t len,
                     const struct aug_import_opts *o, struct aug_samples *out);

/* "<prefix>:<name>" or "<name>" (+ " <what>" when what is not NULL) into buf. */
const char *aug_import_source(const struct aug_import_opts *o, const char *name,
                              const char *what, char *buf, size_t cap);

#endif
