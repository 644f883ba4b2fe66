/* SPDX-License-Identifier: Apache-2.0 */
/* status.h - error codes and the last-error message of libaugur.
 *
 * Library functions return AUG_OK (0) or a negative enum aug_status and never exit.
 * aug_errorf() records a one-line message ("file:line: field 'x': why") in a
 * thread-local buffer; the front-end prints it as "augur: <message>". Only main()
 * turns a status into an exit code (aug_exit_code). */
#ifndef AUG_STATUS_H
#define AUG_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum aug_status {
    AUG_OK = 0,
    AUG_EUSAGE = -1,       /* bad command line or inconsistent options: exit 2 */
    AUG_EDATA = -2,        /* bad input data (file content, field value): exit 1 */
    AUG_EIO = -3,          /* cannot open/read/write a file: exit 1 */
    AUG_ENOMEM = -4,       /* allocation failed: exit 1 */
    AUG_ENOTFOUND = -5,    /* unknown preset, GPU, curve: exit 1 */
    AUG_EUNSUPPORTED = -6, /* valid input the model cannot predict (yet): exit 1 */
    AUG_ENODEV = -7,       /* no usable GPU (profiler): exit 77 */
    AUG_EFIT = -8,         /* a fit is too poor to keep: exit 1 */
    AUG_STATUS_COUNT_ = 9
};

/* Short name of a status ("usage error", "bad data", ...). */
const char *aug_status_str(int status);

/* Record a printf-style message as the last error of this thread and return status. */
int aug_errorf(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last recorded message of this thread ("" when none). */
const char *aug_last_error(void);

/* Forget the last message. */
void aug_clear_error(void);

/* Exit code for a status: 0 ok, 2 usage, 77 no device, 1 otherwise. */
int aug_exit_code(int status);

#ifdef __cplusplus
}
#endif
#endif
