/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_model_json.c - libFuzzer entry for the model JSON parser (augur keys and Hugging Face
 * config.json keys): any input must give AUG_OK or a recorded error, never a crash, a leak
 * or undefined behaviour. Built with -DAUG_FUZZ=ON and CC=clang. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "augur/model.h"
#include "augur/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct aug_model m;
    int st = aug_model_from_json("fuzz/config.json", text, &m);
    if (st == AUG_OK) {
        /* a model that loads must satisfy the invariants aug_model_finish promises */
        if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.kv_heads <= 0 ||
            m.heads % m.kv_heads != 0 || m.head_dim <= 0 || m.ffn_hidden <= 0 ||
            m.vocab <= 0 || m.max_seq <= 0 || !memchr(m.name, '\0', sizeof m.name) ||
            !memchr(m.source, '\0', sizeof m.source))
            abort();
    } else if (aug_last_error()[0] == '\0') {
        abort(); /* every failure explains itself */
    }
    aug_clear_error();
    free(text);
    return 0;
}
