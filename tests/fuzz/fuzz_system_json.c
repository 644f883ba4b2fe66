/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_system_json.c - libFuzzer entry for the system JSON parser (presets format, inline
 * GPU objects, "base" GPU rows from the source tree's kernels-db/gpus.csv). Any input must
 * give AUG_OK or a recorded error, never a crash. Built with -DAUG_FUZZ=ON and CC=clang. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "augur/status.h"
#include "augur/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct aug_system s;
    int st = aug_system_from_json(NULL, "fuzz/system.json", text, &s);
    if (st == AUG_OK) {
        if (s.gpus_per_node <= 0 || s.nvlink_domain <= 0 ||
            !(s.link[AUG_LINK_NVLINK].bw_gbps > 0) || !(s.link[AUG_LINK_NETWORK].bw_gbps > 0) ||
            !(s.gpu.peak_tflops[AUG_DTYPE_FP32] > 0) || !(s.gpu.hbm_gbps > 0) ||
            !memchr(s.gpu.id, '\0', sizeof s.gpu.id))
            abort();
    } else if (aug_last_error()[0] == '\0') {
        abort();
    }
    aug_clear_error();
    free(text);
    return 0;
}
