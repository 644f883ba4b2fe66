/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_import_neusight.c - libFuzzer target for calibrate/import_neusight.c: any input must
 * give AUG_OK or a recorded error, never a crash, a leak or undefined behaviour. The GPU
 * check runs too (--gpu t4-16g, without --force). Aborts on a failure without a message
 * and on an imported sample with a time or size that is not a positive finite number. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "augur/status.h"
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {NULL, 0, 0, "fuzz", "t4-16g", 0};
    int rc = aug_import_neusight("fuzz.csv", (const char *)data, size, &o, &s);
    if (rc != AUG_OK && !aug_last_error()[0])
        abort();
    for (size_t i = 0; rc == AUG_OK && i < s.n; i++) {
        const struct aug_sample *x = &s.v[i];
        double size_feature = x->family == AUG_FAMILY_GEMM ? x->m * x->n * x->k * x->batch
                                                           : x->size_bytes;
        if (!(isfinite(x->time_us) && x->time_us > 0 && isfinite(size_feature) &&
              size_feature > 0))
            abort();
    }
    aug_samples_free(&s);
    return 0;
}
