/* SPDX-License-Identifier: Apache-2.0 */
/* host_dispatch.c - the host issue timeline of host_dispatch.h. */
#include "host_dispatch.h"

#include <math.h>

void aug_host_tl_init(struct aug_host_tl *t) { t->host = t->gpu = t->busy = 0.0; }

void aug_host_tl_kernels(struct aug_host_tl *t, double n, double d, double h) {
    if (!(n > 0))
        return;
    if (!(d >= 0))
        d = 0.0;
    if (!(h >= 0))
        h = 0.0;
    if (n < 1.0) {
        t->host += n * h;
        t->gpu = fmax(t->gpu, t->host) + n * d;
    } else {
        double end = fmax(t->gpu + n * d, fmax(t->host + h + n * d, t->host + n * h + d));
        t->host += n * h;
        t->gpu = end;
    }
    t->busy += n * d;
}

double aug_host_tl_idle(const struct aug_host_tl *t) {
    double idle = t->gpu - t->busy;
    return idle > 0 ? idle : 0.0;
}

void aug_host_tl_sync(struct aug_host_tl *t) {
    if (t->gpu > t->host)
        t->host = t->gpu;
}
