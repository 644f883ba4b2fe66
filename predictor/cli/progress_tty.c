/* SPDX-License-Identifier: Apache-2.0 */
/* progress_tty.c - progress of long commands on stderr, only when stderr is a terminal
 * (never in pipes, files or CI logs): one line rewritten in place at most ten times a
 * second, erased when the work is done. */
#include "progress_tty.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "augur/progress.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void show(void *user, const char *what, long done, long total) {
    static double last;
    (void)user;
    if (done >= total) {
        fputs("\r\033[K", stderr);
        last = 0;
        return;
    }
    double t = now_s();
    if (t - last < 0.1)
        return;
    last = t;
    fprintf(stderr, "\r\033[Kaugur: %s %ld/%ld (%.0f%%)", what, done, total,
            total > 0 ? 100.0 * (double)done / (double)total : 0.0);
}

void aug_cli_progress_init(void) {
    if (isatty(STDERR_FILENO))
        aug_progress_set(show, NULL);
}
