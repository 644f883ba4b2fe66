/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_profiler_rawcsv.c - libFuzzer target for the profiler's resume reader
 * (profiler/rawcsv.c, aug_prof_raw_open on an existing <family>.csv): any bytes must load
 * or fail with a recorded message, never a crash, a leak or undefined behaviour; a loaded
 * file of a few rows saves back to a file that loads again with the same rows.
 * Seeds: raw files in the profiler's schema (tests/fuzz/make_corpus.sh). */
#include <stddef.h>
#include <stdint.h>

#include "augur/status.h"
#include "fuzz_file.h"
#include "rawcsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROUNDTRIP_ROWS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("gemm.csv", data, size);
    static const char *const prov[] = {"gpu_name: Fuzz GPU", "tool: fuzz"};
    struct aug_prof_raw *r = NULL;
    int st = aug_prof_raw_open(path, prov, 2, "Fuzz GPU", &r);
    if (st != AUG_OK) {
        if (r != NULL || aug_last_error()[0] == '\0')
            abort();
        aug_clear_error();
        return 0;
    }
    size_t n = aug_prof_raw_loaded(r);
    if (aug_prof_raw_rows(r) != n)
        abort();
    if (n > ROUNDTRIP_ROWS) { /* large seeds: the parse alone (a round trip doubles it) */
        aug_prof_raw_close(r);
        aug_clear_error();
        return 0;
    }
    if (aug_prof_raw_save(r) != AUG_OK)
        abort(); /* what was read can be written */
    aug_prof_raw_close(r);
    r = NULL;
    if (aug_prof_raw_open(path, prov, 2, "Fuzz GPU", &r) != AUG_OK || aug_prof_raw_loaded(r) != n)
        abort(); /* and read back to the same rows */
    aug_prof_raw_close(r);
    aug_clear_error();
    return 0;
}
