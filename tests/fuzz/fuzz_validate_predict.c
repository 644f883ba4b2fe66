/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_validate_predict.c - libFuzzer entry for `augur validate` end to end: the input
 * (validate_row_input.h) is scored with aug_validate_file, so every row is predicted (an
 * offline-serving row simulates its request list). Any input must give a report or a
 * recorded error, never a crash, a leak, undefined behaviour, a non-finite prediction or a
 * skipped row without a reason. Each execution is a whole prediction (tenths of a second
 * under the sanitizers): this target explores the models behind the rows, which
 * fuzz_validate_row parses at full speed. Built with -DAUG_FUZZ=ON and CC=clang. */
#include <math.h>
#include <stdlib.h>

#include "augur/status.h"
#include "augur/validate.h"
#include "validate_row_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = validate_row_input(data, size);
    if (!path)
        return 0;
    struct aug_validate_report *r = NULL;
    struct aug_validate_options opt = {NULL, 0, NULL, NULL, 0.0};
    int st = aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r);
    if (st == AUG_OK) {
        size_t predicted = 0;
        for (size_t i = 0; i < r->n_rows; i++) {
            const struct aug_validate_row *row = &r->rows[i];
            if (row->skipped) {
                if (!row->reason[0])
                    abort();
                continue;
            }
            predicted++;
            if (!isfinite(row->predicted) || !(row->predicted > 0) || !isfinite(row->error_pct) ||
                !(row->measured > 0))
                abort();
        }
        if (predicted != r->predicted_rows || !isfinite(r->mape_pct) || r->mape_pct < 0 ||
            r->max_abs_error_pct < r->median_abs_error_pct)
            abort();
        aug_validate_report_free(r);
    } else if (aug_last_error()[0] == '\0') {
        abort();
    }
    aug_clear_error();
    remove(path);
    return 0;
}
