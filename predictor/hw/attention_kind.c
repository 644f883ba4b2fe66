/* SPDX-License-Identifier: Apache-2.0 */
/* attention_kind.c - the kernel kind an attention op or curve name stands for, and the
 * curve name `augur calibrate` gives a group of attention samples (kernels-db/README.md,
 * "Attention op names"). Names are plain strings so that the profiler, the fitter and the
 * predictor agree on them without sharing code beyond this file:
 *   unfused   the name starts with "unfused" (QK^T GEMM, softmax, PV GEMM as separate
 *             kernels); every other name is a fused kernel (FlashAttention, cuDNN SDPA);
 *   decode    the name contains "decode" (a few query rows against a KV cache: split-KV
 *             kernels); otherwise prefill / training;
 *   backward  the name contains "bwd" or "backward";
 *   causal    the name ends in "_causal" (curve names only; raw rows use the column). */
#include <stdio.h>
#include <string.h>

#include "augur/kdb.h"
#include "augur/status.h"

void aug_attn_kind_of(const char *name, struct aug_attn_kind *out) {
    size_t len = name ? strlen(name) : 0;
    memset(out, 0, sizeof *out);
    if (!name)
        return;
    out->unfused = strncmp(name, "unfused", 7) == 0;
    out->decode = strstr(name, "decode") != NULL;
    out->backward = strstr(name, "bwd") != NULL || strstr(name, "backward") != NULL;
    out->causal = len >= 7 && strcmp(name + len - 7, "_causal") == 0;
}

int aug_attn_is_decode(double seq_q) {
    return seq_q > 0 && seq_q < AUG_ATTN_TILE_Q;
}

int aug_attn_curve_op(const char *op, double seq_q, int causal, char *buf, size_t cap) {
    struct aug_attn_kind k;
    aug_attn_kind_of(op, &k);
    /* a measurement of a few query rows is a decode point even when its file did not
     * name it so: it must never share a curve with prefill points */
    const char *dec = !k.decode && aug_attn_is_decode(seq_q) ? "_decode" : "";
    int n = snprintf(buf, cap, "%s%s%s", op ? op : "", dec, causal ? "_causal" : "");
    if (n < 0 || (size_t)n >= cap)
        return aug_errorf(AUG_EDATA, "attention op '%s': its curve name '%s%s%s' is longer "
                          "than %zu characters (shorten the op name)", op ? op : "", op ? op : "",
                          dec, causal ? "_causal" : "", cap ? cap - 1 : 0);
    return AUG_OK;
}
