/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_curves_csv.c - libFuzzer target for a GPU's curves.csv (predictor/hw/kdb.c): any
 * bytes must load or fail with a recorded message, and every lookup of a loaded table
 * must run without a crash, a leak or undefined behaviour. Seeds: kernels-db/<gpu>/curves.csv
 * (tests/fuzz/make_corpus.sh). */
#include <stddef.h>
#include <stdint.h>

#include "augur/collective.h"
#include "augur/kdb.h"
#include "augur/status.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        fuzz_mkdir("gpu-f");
        ready = 1;
    }
    fuzz_write("gpu-f/curves.csv", data, size);
    struct aug_kdb *k = NULL;
    int st = aug_kdb_open(fuzz_root(), "gpu-f", &k);
    if (st != AUG_OK) {
        if (k != NULL || aug_last_error()[0] == '\0')
            abort(); /* failures leave nothing behind and explain themselves */
        aug_clear_error();
        return 0;
    }
    int n = aug_kdb_curve_count(k);
    for (int i = 0; i < n; i++)
        if (!aug_kdb_curve_at(k, i))
            abort();
    /* lookups across the size range, each dtype and family */
    static const double sizes[] = {1, 4096, 1e6, 1e9, 1e12};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        double x = sizes[s], v;
        for (int dt = 0; dt < AUG_DTYPE_COUNT; dt++) {
            aug_kdb_gemm_eff(k, (enum aug_dtype)dt, x, 1024, 1024, &v);
            aug_kdb_attention_eff(k, (enum aug_dtype)dt, dt & 1, dt & 2, 32, x, x, 128, &v);
            aug_kdb_memory_time_us(k, "elementwise", (enum aug_dtype)dt, x, &v);
        }
        for (int c = 0; c < AUG_COLL_COUNT; c++) {
            aug_kdb_collective_time_us(k, (enum aug_coll)c, x, 8, "nvlink", &v);
            aug_kdb_collective_time_us(k, (enum aug_coll)c, x, 16, "network", &v);
        }
    }
    aug_kdb_close(k);
    aug_clear_error();
    return 0;
}
