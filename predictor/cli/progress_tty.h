/* SPDX-License-Identifier: Apache-2.0 */
/* progress_tty.h - progress on stderr when it is a terminal. */
#ifndef AUG_CLI_PROGRESS_TTY_H
#define AUG_CLI_PROGRESS_TTY_H

/* Install the library's progress hook if stderr is a terminal. */
void aug_cli_progress_init(void);

#endif
