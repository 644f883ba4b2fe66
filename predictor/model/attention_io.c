/* SPDX-License-Identifier: Apache-2.0 */
/* attention_io.c - FlashAttention HBM traffic by its algorithms, line by line, and the
 * standard path it replaces (see attention.h for the theorem).
 *
 * Forward (FlashAttention-2, Dao 2023, Algorithm 1: the outer loop over query blocks):
 * every CTA reads its Q block once and writes its O block and log-sum-exp once; it
 * streams the K and V blocks it needs, so each K/V element is fetched by
 * (heads / kv_heads) * T_r CTAs; `concurrent` of them share one fetch, and with the
 * causal mask only the visited blocks beyond the first fetch count:
 *     K/V bytes = 2 g N_kv d e (1 + (R - 1) f),  R = max(1, ceil(a T_r / (g P))),
 * f = pairs / (N_q N_kv). With P = 1 and no mask, 2 a N_kv d T_r e = Theta(N^2 d^2 / M).
 * Backward (Algorithm 2: outer loop over key blocks, S recomputed from Q, K and the
 * log-sum-exp): D = rowsum(dO o O) first (read O, dO; write D), then each CTA reads its
 * K/V block once and writes dK/dV once (per query head and reduced when GQA), and
 * streams Q, dO, log-sum-exp and D and read-modify-writes fp32 dQ for every key block;
 * the fp32 dQ is zeroed before and converted after.
 * Block sizes: Dao et al. 2022, Algorithm 1, line 1: B_c = ceil(M / 4d),
 * B_r = min(ceil(M / 4d), d).
 * Standard attention (Dao et al. 2022, Algorithm 0 and Appendix B.3, Algorithm 3):
 * forward reads Q, K, writes S (N^2), reads S, writes P, reads P and V, writes O:
 * 2 N_q d + 2 N_kv d + 4 N_q N_kv elements per head; backward writes dV, dP, dS, dQ, dK
 * and reads P twice, dP once and dS twice: 4 N_q d + 4 N_kv d + 7 N_q N_kv. */
#include "augur/attention.h"

#include <math.h>
#include <string.h>

/* ceil() of a positive quotient without a libm call (values far below 2^62). */
static double ceil_pos(double q) {
    if (!(q < 4.0e18))
        return ceil(q);
    double f = (double)(long long)q;
    return f < q ? f + 1.0 : f;
}

/* The mask's pair counts (aug_attention_pairs, _chunk_pairs, _local_pairs, _local_keys)
 * live in hw/attention_model.c: the kernel model and hw/op.c need them, and hw/ may not
 * call into model/ (the layering test); these two name the common cases. */
double aug_attention_causal_pairs(double seq_q, double seq_kv) {
    return aug_attention_pairs(seq_q, seq_kv, 0.0);
}

double aug_attention_window_pairs(double n, double w) { return aug_attention_pairs(n, n, w); }

void aug_attention_io(const struct aug_attn_shape *a, double sram_bytes, double concurrent,
                      struct aug_attn_io *out) {
    memset(out, 0, sizeof *out);
    double B = a->batch, h = a->heads, g = a->kv_heads > 0 ? a->kv_heads : a->heads;
    double nq = a->seq_q, nk = a->seq_kv, d = a->head_dim, e = a->elem_bytes;
    if (!(B > 0 && h > 0 && nq > 0 && nk > 0 && d > 0 && e > 0))
        return;
    double P = concurrent >= 1 ? floor(concurrent) : 1.0;
    double M = sram_bytes > 0 ? sram_bytes / e : 4.0 * d;
    double bc = ceil_pos(M / (4.0 * d));
    if (bc < 1)
        bc = 1;
    double br = bc < d ? bc : d;
    out->sram_elems = M;
    out->block_r = br;
    out->block_c = bc;
    out->t_r = ceil_pos(nq / br);
    out->t_c = ceil_pos(nk / bc);
    double full = nq * nk;
    double pairs = a->pairs > 0 ? a->pairs : (a->causal ? aug_attention_causal_pairs(nq, nk) : full);
    if (pairs > full)
        pairs = full;
    double f = pairs / full;
    out->pairs = pairs;
    out->causal_frac = f;
    out->fwd_flops = 4.0 * B * h * pairs * d;
    out->bwd_flops = 2.5 * out->fwd_flops;

    /* forward */
    double rf = fmax(1.0, ceil_pos(h * out->t_r / (g * P)));
    out->kv_fetches = 1.0 + (rf - 1.0) * f;
    double q_o = 2.0 * B * h * nq * d * e;      /* Q read, O written */
    double lse = 4.0 * B * h * nq;              /* fp32 log-sum-exp written */
    double kv = 2.0 * B * g * nk * d * e;       /* K and V, once */
    out->fwd_bytes = q_o + lse + kv * out->kv_fetches;

    /* backward */
    double rb = fmax(1.0, ceil_pos(out->t_c / P));
    out->q_fetches = 1.0 + (rb - 1.0) * f;
    double kv_reads = kv * fmax(1.0, ceil_pos(h / (g * P)));
    double dkv = h > g ? 2.0 * (2.0 * B * h * nk * d * e) + kv : kv; /* expanded + reduced */
    double pre = 2.0 * B * h * nq * d * e + 4.0 * B * h * nq;        /* O, dO in; D out */
    double stream = B * h * nq * (2.0 * d * e + 2.0 * 4.0 + 2.0 * 4.0 * d); /* Q, dO, L, D, dQ rmw */
    double post = B * h * nq * d * (4.0 + 4.0 + e); /* dQ zeroed, read and converted */
    out->bwd_bytes = pre + kv_reads + dkv + stream * out->q_fetches + post;

    /* standard attention, per query head (K and V repeated per head under GQA) */
    out->unfused_fwd_bytes = B * h * e * (2.0 * nq * d + 2.0 * nk * d + 4.0 * nq * nk);
    out->unfused_bwd_bytes = B * h * e * (4.0 * nq * d + 4.0 * nk * d + 7.0 * nq * nk);
}
