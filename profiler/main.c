/* SPDX-License-Identifier: Apache-2.0 */
/* main.c - augur-profile: measure this machine's GPUs into raw kernels-db CSVs.
 *
 * Wires the CUDA backend into the command line of cli.c and turns SIGINT/SIGTERM into a
 * graceful stop (finish the current point, save, exit 1; a re-run resumes). Exit status:
 * 0 done, 1 failure, 2 usage error, 77 no usable GPU. */
#include <signal.h>
#include <string.h>

#include "backend_cuda.h"
#include "cli.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

int main(int argc, char **argv) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct aug_cuda_ctx ctx;
    struct aug_prof_backend be;
    aug_cuda_backend_init(&ctx, &be);
    int code = aug_prof_main(argc, argv, &be, &stop_requested);
    aug_cuda_backend_release(&ctx);
    return code;
}
