/* SPDX-License-Identifier: Apache-2.0 */
/* validate_row_input.h - the input of the validation-row targets (fuzz_validate_row,
 * fuzz_validate_predict) as a CSV file. The first byte picks what precedes the rest of the
 * input, so that even an empty corpus reaches the row readers quickly: 0 nothing (the
 * header is fuzzed too), 1 the training header of DESIGN section 6, 2 the vTrain
 * ground-truth header, 3 the training header and one valid row, 4 the inference header
 * (with the optional serving columns), 5 it and a valid static row, 6 it and a valid
 * continuous-batching row. Inputs that name device or kernel files (/dev, /proc, /sys) are
 * not run: reading /dev/zero or a terminal as a model JSON is not a parser question.
 * Included by one target each. */
#ifndef AUG_VALIDATE_ROW_INPUT_H
#define AUG_VALIDATE_ROW_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Write the input as a CSV (the first byte picks what precedes it, see the targets) and
 * return its path; NULL when the input is not run. */
static const char *validate_row_input(const uint8_t *data, size_t size) {
    if (names_special_file(data, size))
        return NULL;
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/aug_fuzz_validate_%ld.csv", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    static const char accuracy[] =
        "id,source,source_locator,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,vocab,"
        "mlp,seq_len,moe_experts,moe_topk,system,gpu,num_gpus,tp,pp,dp,cp,ep,sp,interleave,"
        "microbatch,global_batch,recompute,zero_stage,dtype,metric,value,unit,notes,attention,"
        "dp_overlap\n";
    static const char vtrain[] = "# GPUs,global batch,micro batch,hidden size,attention heads,"
                                 "# layers,sequence length,tensor parallelism,data parallelism,"
                                 "pipeline parallelism,iteration time (ms)\n";
    static const char inference[] =
        "id,source,source_locator,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,vocab,"
        "mlp,system,gpu,num_gpus,tp,pp,ep,batch,input_len,output_len,dtype,weight_dtype,kv_dtype,"
        "framework,metric,value,unit,notes,mode,concurrency,request_rate,chunk_tokens,"
        "decode_attention\n";
    static const char static_row[] = "r1,s,,llama2-7b,,,,,,,,,dgx-h100,,2,2,1,,16,512,64,fp8,,,,"
                                     "throughput_tokens_per_s,3000,tokens/s,,,,,,per_head\n";
    static const char cont_row[] = "r2,s,,,,4,512,8,2,,1000,swiglu,dgx-a100-80g,,1,1,1,,8,300,40,"
                                   "bf16,int4,int8,,tpot_s,0.002,s,,continuous,8,2.5,128,\n";
    static const char seed_row[] = "r1,s,,llama2-7b,,,,,,,,,4096,,,dgx-h100,,8,1,1,,,,0,1,1,64,none,"
                              "0,bf16,step_time_s,2.5,s,,fused,1\n";
    int mode = size ? data[0] % 7 : 0;
    if (size) {
        data++;
        size--;
    }
    if (mode == 1 || mode == 3)
        fputs(accuracy, f);
    if (mode == 2)
        fputs(vtrain, f);
    if (mode == 3)
        fputs(seed_row, f);
    if (mode >= 4)
        fputs(inference, f);
    if (mode == 5)
        fputs(static_row, f);
    if (mode == 6)
        fputs(cont_row, f);
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return NULL;
    }
    fclose(f);
    return path;
}

#endif
