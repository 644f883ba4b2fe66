/* fuzz_infer_row.c - libFuzzer entry for inference accuracy rows: the input is written
 * after the inference header of DESIGN section 6 (plus the optional serving columns) and
 * scored with aug_validate_file. Any input must give a report or a recorded error, never
 * a crash, a leak, undefined behaviour, a non-finite prediction or a skipped row without
 * a reason. The first byte picks what precedes the rest: 0 the header only, 1 the header
 * and one valid static row, 2 the header and one valid continuous row. Inputs that name
 * device or kernel files (/dev, /proc, /sys) are not run.
 * Built with -DAUG_FUZZ=ON and CC=clang. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "augur/status.h"
#include "augur/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int names_special_file(const uint8_t *data, size_t size) {
    static const char *const bad[] = {"/dev", "/proc", "/sys"};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        size_t n = strlen(bad[b]);
        for (size_t i = 0; i + n <= size; i++)
            if (memcmp(data + i, bad[b], n) == 0)
                return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (names_special_file(data, size))
        return 0;
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/aug_fuzz_infer_%ld.csv", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    static const char header[] =
        "id,source,source_locator,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,vocab,"
        "mlp,system,gpu,num_gpus,tp,pp,ep,batch,input_len,output_len,dtype,weight_dtype,kv_dtype,"
        "framework,metric,value,unit,notes,mode,concurrency,request_rate,chunk_tokens,"
        "decode_attention\n";
    static const char static_row[] = "r1,s,,llama2-7b,,,,,,,,,dgx-h100,,2,2,1,,16,512,64,fp8,,,,"
                                     "throughput_tokens_per_s,3000,tokens/s,,,,,,per_head\n";
    static const char cont_row[] = "r2,s,,,,4,512,8,2,,1000,swiglu,dgx-a100-80g,,1,1,1,,8,300,40,"
                                   "bf16,int4,int8,,tpot_s,0.002,s,,continuous,8,2.5,128,\n";
    int mode = size ? data[0] % 3 : 0;
    if (size) {
        data++;
        size--;
    }
    fputs(header, f);
    if (mode == 1)
        fputs(static_row, f);
    if (mode == 2)
        fputs(cont_row, f);
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    struct aug_validate_report *r = NULL;
    struct aug_validate_options opt = {NULL, 0};
    int st = aug_validate_file(path, AUG_VALIDATE_AUTO, &opt, &r);
    if (st == AUG_OK) {
        for (size_t i = 0; i < r->n_rows; i++) {
            const struct aug_validate_row *row = &r->rows[i];
            if (row->skipped) {
                if (!row->reason[0])
                    abort();
                continue;
            }
            if (!isfinite(row->predicted) || !(row->predicted > 0) || !isfinite(row->error_pct))
                abort();
        }
        if (!isfinite(r->mape_pct) || r->mape_pct < 0)
            abort();
        aug_validate_report_free(r);
    } else if (aug_last_error()[0] == '\0') {
        abort();
    }
    aug_clear_error();
    remove(path);
    return 0;
}
