/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_import_vidur_mlp.c - libFuzzer target for calibrate/import_vidur_mlp.c: any input must give
 * AUG_OK or a recorded error, never a crash, a leak or undefined behaviour. */
#include <stddef.h>
#include <stdint.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {"all_reduce", 8, 8, "fuzz", NULL, 0};
    (void)aug_import_vidur_mlp("fuzz.txt", (const char *)data, size, &o, &s);
    aug_samples_free(&s);
    return 0;
}
