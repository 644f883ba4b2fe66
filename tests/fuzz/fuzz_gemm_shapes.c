/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_gemm_shapes.c - libFuzzer target for the GEMM shape list of `augur-profile --shapes
 * FILE` (profiler/shapes.c): any bytes must load or fail with a recorded message, never a
 * crash, a leak or undefined behaviour; a loaded list holds at least one shape, each of
 * whole dimensions from 1 to AUG_PROF_SHAPE_MAX_DIM in a dtype augur-profile measures (or
 * none), sorted and without repeats, and its summary line is a string.
 * Seeds: raw GEMM files and hand-written lists (tests/fuzz/make_corpus.sh). */
#include <stddef.h>
#include <stdint.h>

#include "augur/dtype.h"
#include "augur/status.h"
#include "fuzz_file.h"
#include "shapes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int ok_dim(long v) { return v >= 1 && v <= AUG_PROF_SHAPE_MAX_DIM; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("shapes.csv", data, size);
    struct aug_prof_gemm_shapes s;
    int st = aug_prof_gemm_shapes_load(path, &s);
    if (st != AUG_OK) {
        if (s.v != NULL || s.n != 0 || aug_last_error()[0] == '\0')
            abort();
        aug_clear_error();
        return 0;
    }
    if (s.n == 0 || s.n > AUG_PROF_SHAPES_MAX)
        abort();
    for (size_t i = 0; i < s.n; i++) {
        const struct aug_prof_gemm_shape *g = &s.v[i];
        if (!ok_dim(g->m) || !ok_dim(g->n) || !ok_dim(g->k) || g->dtype < -1 ||
            g->dtype >= AUG_DTYPE_COUNT || g->dtype == AUG_DTYPE_INT8 ||
            g->dtype == AUG_DTYPE_INT4)
            abort();
        if (i > 0 && g->dtype == s.v[i - 1].dtype && g->m == s.v[i - 1].m &&
            g->n == s.v[i - 1].n && g->k == s.v[i - 1].k)
            abort(); /* repeats are merged */
    }
    char line[512];
    aug_prof_gemm_shapes_summary(&s, line, sizeof line);
    if (memchr(line, '\0', sizeof line) == NULL)
        abort();
    aug_prof_gemm_shapes_release(&s);
    aug_clear_error();
    return 0;
}
