/* SPDX-License-Identifier: Apache-2.0 */
/* host_dispatch.h - the host timeline beside the GPU timeline of one list of kernels.
 *
 * An eager framework issues kernels one after the other from one CPU thread, each
 * costing it h seconds (Python module code, autograd, the dispatcher and the CUDA
 * launch); the GPU runs them in order, each for d seconds. Kernel i is issued at
 * host_i = host_{i-1} + h and starts at max(GPU free, host_i): host time shows up only
 * where kernels are shorter than their issue cost and the host has no lead left.
 * (PyTorch CUDA semantics: launches are asynchronous, the stream executes in order.) */
#ifndef AUG_HOST_DISPATCH_H
#define AUG_HOST_DISPATCH_H

struct aug_host_tl {
    double host;  /* when the host has issued everything so far */
    double gpu;   /* when the GPU finishes everything so far */
    double busy;  /* GPU seconds of the kernels so far */
};

void aug_host_tl_init(struct aug_host_tl *t);

/* n kernels of d seconds each, each issued at a host cost of h seconds. n >= 1 in closed
 * form: the last finishes at max(gpu + n d, host + h + n d, host + n h + d) (kernel i
 * starts at max(previous end, host + i h); the maximum over i of host + i h + (n - i + 1) d
 * is at i = 1 or i = n). A fractional n below 1 counts as one kernel scaled by n. */
void aug_host_tl_kernels(struct aug_host_tl *t, double n, double d, double h);

/* The host blocks until the GPU has run everything issued so far (a device-to-host
 * copy the host needs, cudaStreamSynchronize): it has no lead left. */
void aug_host_tl_sync(struct aug_host_tl *t);

/* Seconds the GPU has waited for the host so far (finish time minus busy time). */
double aug_host_tl_idle(const struct aug_host_tl *t);

#endif
