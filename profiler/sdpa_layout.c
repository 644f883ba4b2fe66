/* SPDX-License-Identifier: Apache-2.0 */
/* sdpa_layout.c - see sdpa_layout.h. */
#include "sdpa_layout.h"

#include <stdio.h>
#include <string.h>

#include "augur/status.h"

#define LIMIT ((int64_t)1 << 62)

/* a * b, or -1 when either is negative or the product exceeds 2^62 */
static int64_t mul(int64_t a, int64_t b) {
    if (a < 0 || b < 0 || (a > 0 && b > LIMIT / a))
        return -1;
    return a * b;
}

static void set(struct aug_sdpa_dims *t, int64_t d0, int64_t d1, int64_t d2, int64_t d3,
                int64_t s0, int64_t s1, int64_t s2, int64_t s3) {
    t->dim[0] = d0;
    t->dim[1] = d1;
    t->dim[2] = d2;
    t->dim[3] = d3;
    t->stride[0] = s0;
    t->stride[1] = s1;
    t->stride[2] = s2;
    t->stride[3] = s3;
}

int aug_sdpa_layout(const struct aug_sdpa_shape *sh, struct aug_sdpa_layout *out) {
    const struct {
        const char *name;
        long v;
    } f[] = {{"batch", sh->b}, {"heads", sh->h_q}, {"kv_heads", sh->h_kv},
             {"seq_q", sh->s_q}, {"seq_kv", sh->s_kv}, {"head_dim", sh->d}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v <= 0)
            return aug_errorf(AUG_EDATA, "attention shape: field '%s' is %ld, not positive",
                              f[i].name, f[i].v);
    if (sh->h_q % sh->h_kv != 0)
        return aug_errorf(AUG_EDATA, "attention shape: field 'kv_heads' (%ld) does not divide "
                          "'heads' (%ld)", sh->h_kv, sh->h_q);
    int64_t b = sh->b, hq = sh->h_q, hk = sh->h_kv, sq = sh->s_q, skv = sh->s_kv, d = sh->d;
    int64_t q_head = mul(sq, d), kv_head = mul(skv, d), s_head = mul(sq, skv);
    int64_t q_batch = mul(hq, q_head), kv_batch = mul(hk, kv_head), s_batch = mul(hq, s_head);
    if (mul(b, q_batch) < 0 || mul(b, kv_batch) < 0 || mul(b, s_batch) < 0)
        return aug_errorf(AUG_EDATA, "attention shape: batch %ld x heads %ld x seq_q %ld x "
                          "seq_kv %ld x head_dim %ld exceeds 2^62 elements", sh->b, sh->h_q,
                          sh->s_q, sh->s_kv, sh->d);
    set(&out->q, b, hq, sq, d, q_batch, q_head, d, 1);
    set(&out->kt, b, hk, d, skv, kv_batch, kv_head, 1, d);
    set(&out->v, b, hk, skv, d, kv_batch, kv_head, d, 1);
    out->o = out->q;
    set(&out->s, b, hq, sq, skv, s_batch, s_head, skv, 1);
    set(&out->row, b, hq, sq, 1, hq * sq, sq, 1, 1);
    return AUG_OK;
}

void aug_cudnn_version_format(size_t v, char *buf, size_t cap) {
    /* cudnn_version.h: CUDNN_VERSION = MAJOR*10000 + MINOR*100 + PATCH from 9.0; 8.x used
     * MAJOR*1000 + MINOR*100 + PATCH */
    if (v >= 90000)
        snprintf(buf, cap, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
    else
        snprintf(buf, cap, "%zu.%zu.%zu", v / 1000, v / 100 % 10, v % 100);
}

int aug_attn_choose(const struct aug_attn_probe *p, char *why, size_t cap) {
    char ver[32];
    if (!p->loaded) {
        snprintf(why, cap, "%s", p->load_error && p->load_error[0] ? p->load_error
                                                                   : "libcudnn not loaded");
        return 0;
    }
    aug_cudnn_version_format(p->version, ver, sizeof ver);
    if (p->version < AUG_CUDNN_MIN_VERSION) {
        snprintf(why, cap, "cuDNN %s is older than 9.0 (the backend graph SDPA this build "
                 "uses)", ver);
        return 0;
    }
    if (p->cc_major < AUG_CUDNN_MIN_CC_MAJOR) {
        snprintf(why, cap, "compute capability %d.%d: cuDNN's fused SDPA needs sm80 or later",
                 p->cc_major, p->cc_minor);
        return 0;
    }
    if (!p->engine_found) {
        snprintf(why, cap, "cuDNN %s has no engine for this shape: %s", ver,
                 p->engine_error && p->engine_error[0] ? p->engine_error : "none finalized");
        return 0;
    }
    if (cap)
        why[0] = '\0';
    return 1;
}

void aug_attn_label(const struct aug_sdpa_plan_info *info, const char *why, char *impl,
                    size_t impl_cap, char *algo, size_t algo_cap) {
    if (!info) {
        snprintf(impl, impl_cap, "%s", AUG_ATTN_IMPL_FALLBACK);
        snprintf(algo, algo_cap, "augur flash-style forward, not a production kernel; cuDNN "
                 "SDPA not used: %s", why && why[0] ? why : "unknown reason");
        return;
    }
    char ver[32], knobs[160];
    size_t n = 0;
    knobs[0] = '\0';
    for (int i = 0; i < info->n_knobs && i < AUG_SDPA_MAX_KNOBS && n < sizeof knobs; i++) {
        int w = snprintf(knobs + n, sizeof knobs - n, "%s%d:%lld", i ? "," : "",
                         info->knob_type[i], info->knob_value[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    aug_cudnn_version_format(info->version, ver, sizeof ver);
    snprintf(impl, impl_cap, "%s", AUG_ATTN_IMPL_CUDNN);
    snprintf(algo, algo_cap, "cudnn=%s engine=%lld knobs=%s heur=A#%d stats=%d workspace=%lld",
             ver, info->engine, knobs[0] ? knobs : "none", info->heur_index, info->stats,
             info->workspace);
}
