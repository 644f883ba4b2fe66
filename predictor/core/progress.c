/* SPDX-License-Identifier: Apache-2.0 */
/* progress.c - the process-wide progress hook (augur/progress.h). */
#include "augur/progress.h"

#include <stddef.h>

static aug_progress_fn hook;
static void *hook_user;

void aug_progress_set(aug_progress_fn fn, void *user) {
    hook = fn;
    hook_user = user;
}

void aug_progress(const char *what, long done, long total) {
    if (hook)
        hook(hook_user, what, done, total);
}
