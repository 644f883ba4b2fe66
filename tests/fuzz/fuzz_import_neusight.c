/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_import_neusight.c - libFuzzer target for calibrate/import_neusight.c: any input must
 * give AUG_OK or a recorded error, never a crash, a leak or undefined behaviour. The GPU
 * check runs too (--gpu t4-16g, without --force). */
#include <stddef.h>
#include <stdint.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {NULL, 0, 0, "fuzz", "t4-16g", 0};
    (void)aug_import_neusight("fuzz.csv", (const char *)data, size, &o, &s);
    aug_samples_free(&s);
    return 0;
}
