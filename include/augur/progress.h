/* SPDX-License-Identifier: Apache-2.0 */
/* progress.h - how long-running library loops report progress (validate's rows,
 * calibrate's fit groups, sweep scaling's points). The library only calls the hook; the
 * program decides whether and how to show it (the augur CLI: on a terminal only). */
#ifndef AUG_PROGRESS_H
#define AUG_PROGRESS_H

#ifdef __cplusplus
extern "C" {
#endif

/* `what` names the work ("validate rows"); done of total units are finished. */
typedef void (*aug_progress_fn)(void *user, const char *what, long done, long total);

/* Install (or with NULL remove) the hook for the whole process. Not thread-safe: set it
 * before starting work. */
void aug_progress_set(aug_progress_fn fn, void *user);

/* Report progress through the hook, if any (called from single-threaded loops). */
void aug_progress(const char *what, long done, long total);

#ifdef __cplusplus
}
#endif
#endif
