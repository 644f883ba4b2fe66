/* SPDX-License-Identifier: Apache-2.0 */
/* status.c - status names and the thread-local last-error message. */
#include "augur/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];

const char *aug_status_str(int status) {
    switch (status) {
    case AUG_OK: return "ok";
    case AUG_EUSAGE: return "usage error";
    case AUG_EDATA: return "bad data";
    case AUG_EIO: return "i/o error";
    case AUG_ENOMEM: return "out of memory";
    case AUG_ENOTFOUND: return "not found";
    case AUG_EUNSUPPORTED: return "unsupported";
    case AUG_ENODEV: return "no usable GPU";
    case AUG_EFIT: return "poor fit";
    default: return "unknown status";
    }
}

int aug_errorf(int status, const char *fmt, ...) {
    /* format into a scratch buffer first: callers may pass aug_last_error() itself as an
     * argument to wrap the previous message */
    char msg[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(last_error, msg, sizeof last_error);
    return status;
}

const char *aug_last_error(void) { return last_error; }

void aug_clear_error(void) { last_error[0] = '\0'; }

int aug_exit_code(int status) {
    if (status == AUG_OK)
        return 0;
    if (status == AUG_EUSAGE)
        return 2;
    if (status == AUG_ENODEV)
        return 77;
    return 1;
}
