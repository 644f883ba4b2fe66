/* SPDX-License-Identifier: Apache-2.0 */
/* attention.h - the IO model of attention: exact FLOPs with the causal mask and the HBM
 * traffic of FlashAttention (Dao et al. 2022, arXiv 2205.14135; FlashAttention-2, Dao
 * 2023, arXiv 2307.08691) against the standard path that writes the score matrix.
 *
 * Dao et al. 2022, Theorem 2: with N tokens, head dimension d and an on-chip SRAM of M
 * elements (M between d and Nd), standard attention makes Theta(Nd + N^2) HBM accesses
 * and FlashAttention Theta(N^2 d^2 / M): K and V (or Q, dO in the backward) are
 * streamed once per block of B_r = min(ceil(M / 4d), d) query rows. `concurrent` CTAs
 * that work on the same head at the same time share each fetch through L2, so a GPU
 * with P SMs fetches a block once per P of them; concurrent = 1 is the theorem's count. */
#ifndef AUG_ATTENTION_H
#define AUG_ATTENTION_H

#ifdef __cplusplus
extern "C" {
#endif

struct aug_attn_shape {
    double batch;      /* sequences */
    double heads;      /* query heads */
    double kv_heads;   /* key/value heads (GQA; = heads for MHA) */
    double seq_q;      /* queries per sequence */
    double seq_kv;     /* keys per sequence */
    double head_dim;   /* d */
    int causal;
    double pairs;      /* computed (query, key) pairs per head and sequence; 0: derive
                          (seq_q * seq_kv, or the causal triangle with the queries last) */
    double elem_bytes; /* bytes of one Q/K/V/O element (2 for 16-bit) */
};

struct aug_attn_io {
    double sram_elems;       /* M */
    double block_r, block_c; /* B_r (query rows), B_c (key columns) per tile */
    double t_r, t_c;         /* query and key blocks per head */
    double pairs;            /* (query, key) pairs computed per head and sequence */
    double causal_frac;      /* pairs / (seq_q * seq_kv) */
    double kv_fetches;       /* forward: HBM fetches of each K/V element */
    double q_fetches;        /* backward: HBM fetches of each Q/dO/dQ element */
    double fwd_flops;        /* 4 d per pair and head: QK^T and PV */
    double bwd_flops;        /* 2.5 x forward: S recomputed, then dV, dP, dQ, dK */
    double fwd_bytes;        /* FlashAttention-2 forward HBM traffic */
    double bwd_bytes;        /* backward with recomputation, D = rowsum(dO o O) and fp32 dQ */
    double unfused_fwd_bytes; /* standard attention: S and P written (Dao 2022, Alg. 0) */
    double unfused_bwd_bytes; /* standard backward: P, dP, dS through HBM (Alg. 3) */
};

/* Fill `out` for shape `a` on an SRAM of `sram_bytes` per SM with `concurrent` CTAs
 * sharing fetches (1 = no sharing, Theorem 2). Non-positive inputs give zeros. */
void aug_attention_io(const struct aug_attn_shape *a, double sram_bytes, double concurrent,
                      struct aug_attn_io *out);

/* Causal (query, key) pairs per head when the seq_q queries are the last of seq_kv keys:
 * seq_q (seq_kv - seq_q) + seq_q (seq_q + 1) / 2. */
double aug_attention_causal_pairs(double seq_q, double seq_kv);

/* Causal (query, key) pairs per head of a sequence of n tokens whose queries see at most
 * the last w keys (w <= 0 or w >= n: no window): sum over i = 1..n of min(i, w). */
double aug_attention_window_pairs(double n, double w);

/* Both at once: the seq_q queries are the last of seq_kv keys (a prefill chunk after
 * seq_kv - seq_q cached tokens) and each sees at most its last w keys (w <= 0: all). */
double aug_attention_pairs(double seq_q, double seq_kv, double w);

/* The same queries under chunked local attention (Llama 4's attention_chunk_size c): each
 * sees the keys of its own chunk of c tokens up to itself, (p mod c) + 1 at position p
 * (c <= 0 or c >= seq_kv: plain causal). */
double aug_attention_chunk_pairs(double seq_q, double seq_kv, double c);

/* A local mask of w keys (w <= 0: none), sliding or, with `chunked`, chunked: its pairs per
 * head (one of the two above) and the keys its queries reach, which a kernel reads: the
 * last seq_q and the w - 1 before them, or those from the first query's chunk on. */
double aug_attention_local_pairs(double seq_q, double seq_kv, double w, int chunked);
double aug_attention_local_keys(double seq_q, double seq_kv, double w, int chunked);

#ifdef __cplusplus
}
#endif
#endif
