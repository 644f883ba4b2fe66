/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_hf_config.c - libFuzzer target for Hugging Face config.json files read through
 * `--model path/config.json` (predictor/model/model_load.c, aug_model_load): the whole
 * path from the file (size limit, BOM, JSON, the GPT-2 / Llama / Mixtral / DeepSeek / Qwen
 * key sets) must give a model or a recorded error, never a crash, a leak or undefined
 * behaviour. Seeds: public config.json files (tests/fuzz/make_corpus.sh). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "augur/model.h"
#include "augur/status.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("config.json", data, size);
    struct aug_model m;
    int st = aug_model_load(NULL, path, &m);
    if (st == AUG_OK) {
        if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.kv_heads <= 0 ||
            m.heads % m.kv_heads != 0 || m.head_dim <= 0 || m.ffn_hidden <= 0 || m.vocab <= 0 ||
            !memchr(m.name, '\0', sizeof m.name))
            abort();
    } else if (aug_last_error()[0] == '\0') {
        abort();
    }
    aug_clear_error();
    return 0;
}
