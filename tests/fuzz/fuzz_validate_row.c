/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_validate_row.c - libFuzzer entry for the readers of `augur validate`: the input
 * (validate_row_input.h) is read with aug_validate_file_check, which parses every row of
 * the training, inference or vTrain schema (detected from the columns) and resolves its
 * model, system, plan and request list without predicting, so it runs thousands of times
 * a second (fuzz_validate_predict adds the predictions). Any input must give a report or a
 * recorded error, never a crash, a leak, undefined behaviour or a skipped row without a
 * reason. Built with -DAUG_FUZZ=ON and CC=clang. */
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
    int st = aug_validate_file_check(path, AUG_VALIDATE_AUTO, &opt, &r);
    if (st == AUG_OK) {
        for (size_t i = 0; i < r->n_rows; i++) {
            const struct aug_validate_row *row = &r->rows[i];
            if ((row->skipped && !row->reason[0]) || row->predicted != 0.0 || row->line < 1)
                abort();
        }
        if (r->predicted_rows != 0)
            abort();
        aug_validate_report_free(r);
    } else if (aug_last_error()[0] == '\0') {
        abort();
    }
    aug_clear_error();
    remove(path);
    return 0;
}
