/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_validate_baseline.c - libFuzzer entry for the baseline reader of `augur validate
 * --baseline` (a saved validate report, predictor/validate/validate_baseline.c). Any input
 * must give AUG_OK with unique, non-empty ids and finite errors on predicted rows, or a
 * recorded error; never a crash. Built with -DAUG_FUZZ=ON and CC=clang. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "augur/validate.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("baseline.json", data, size);
    struct aug_validate_baseline *b = NULL;
    int st = aug_validate_baseline_load(path, &b);
    if (st == AUG_OK) {
        if (!b || !(b->mape_pct >= 0))
            abort();
        for (size_t i = 0; i < b->n_rows; i++) {
            const struct aug_validate_baseline_row *r = &b->rows[i];
            if (!memchr(r->id, '\0', sizeof r->id) || !r->id[0] || isinf(r->error_pct))
                abort();
            for (size_t k = 0; k < i; k++)
                if (strcmp(b->rows[k].id, r->id) == 0)
                    abort();
        }
    } else if (b || aug_last_error()[0] == '\0') {
        abort();
    }
    aug_validate_baseline_free(b);
    aug_clear_error();
    return 0;
}
