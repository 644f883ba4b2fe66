/* SPDX-License-Identifier: Apache-2.0 */
/* overlap.h - communication overlapped with computation, as a resource model.
 *
 * Compute (C seconds alone) and communication (M seconds alone) running at the same time
 * share the GPU: the collective's kernels take SMs (and HBM bandwidth) from the compute,
 * which runs slower by a factor (1 + s) while they are both active; the link itself is
 * not shared. Started together, the pair takes
 *     pair(C, M) = max(M, C + M s / (1 + s))
 * (communication done first: it slowed M / (1 + s) of compute work by s; compute done
 * first: the link is the bottleneck). pair >= max(C, M): overlap never beats the slowest
 * resource, and with s <= 1 it never loses to running them one after the other.
 *
 * Chunked schedules add a fill: a ring of n steps (ring attention over a CP group of n,
 * a T3-style GEMM split into n chunks around a TP collective) computes one chunk before
 * the first transfer can be hidden; a trailing pipeline (gradient buckets after the
 * layers that produce them) leaves the last transfer exposed. */
#ifndef AUG_OVERLAP_H
#define AUG_OVERLAP_H

/* Concurrent compute c and communication m with compute slowdown s. */
double aug_ovl_pair(double c, double m, double s);

/* n compute steps of C/n with n-1 transfers of M/(n-1) between them, each transfer
 * hidden behind the next step: (n-1) pair(C/n, M/(n-1)) + C/n. n <= 1: C + M. */
double aug_ovl_ring(double C, double M, int n, double s);

/* n compute chunks each followed by a transfer of M/n that overlaps the next chunk:
 * C/n + (n-1) pair(C/n, M/n) + M/n. n <= 1: C + M. */
double aug_ovl_trail(double C, double M, double n, double s);

#endif
