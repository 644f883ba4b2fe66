/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_gpus_csv.c - libFuzzer target for kernels-db/gpus.csv rows (predictor/hw/system.c,
 * aug_gpu_lookup): any bytes must give a GPU or a recorded error, never a crash, a leak or
 * undefined behaviour; a GPU found has NUL-terminated names and finite numbers. The id
 * looked up is the first cell of the first data row, so the fuzzer reaches every row
 * check. Seeds: kernels-db/gpus.csv (tests/fuzz/make_corpus.sh). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "augur/dtype.h"
#include "augur/status.h"
#include "augur/system.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* First cell of the first line that is neither a comment nor the header. */
static void first_id(const uint8_t *data, size_t size, char *id, size_t cap) {
    size_t i = 0;
    int line = 0;
    id[0] = '\0';
    while (i < size) {
        size_t e = i;
        while (e < size && data[e] != '\n')
            e++;
        if (e > i && data[i] != '#' && line++ == 1) {
            size_t j = 0;
            while (i + j < e && data[i + j] != ',' && data[i + j] != '\r' && j + 1 < cap) {
                id[j] = (char)data[i + j];
                j++;
            }
            id[j] = '\0';
            return;
        }
        i = e + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_write("gpus.csv", data, size);
    char id[64];
    first_id(data, size, id, sizeof id);
    const char *ids[] = {id, "a100-80g", "h100-80g"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        struct aug_gpu g;
        int st = aug_gpu_lookup(fuzz_root(), ids[i], &g);
        if (st == AUG_OK) {
            if (!memchr(g.id, '\0', sizeof g.id) || !memchr(g.name, '\0', sizeof g.name) ||
                !memchr(g.source, '\0', sizeof g.source) || !isfinite(g.hbm_gbps) ||
                !isfinite(g.hbm_gib) || !isfinite(g.clock_mhz) || !isfinite(g.launch_us))
                abort();
            for (int d = 0; d < AUG_DTYPE_COUNT; d++)
                if (!isfinite(g.peak_tflops[d]))
                    abort();
        } else if (aug_last_error()[0] == '\0') {
            abort();
        }
        aug_clear_error();
    }
    return 0;
}
