/* SPDX-License-Identifier: Apache-2.0 */
/* validate_explain_cli.h - one accuracy-set row's prediction printed in full
 * (`augur validate FILE --explain ID`). */
#ifndef AUG_VALIDATE_EXPLAIN_CLI_H
#define AUG_VALIDATE_EXPLAIN_CLI_H

#include <stdio.h>

#include "augur/augur.h"
#include "cli.h"

/* Predict the case e again (curves of kdb_root unless fallback_only) and write the row's
 * score and the prediction in the output of the command that predicts such a plan; JSON
 * adds "validate_row". A skipped row prints its reason. An AUG_* status. */
int aug_cli_validate_explain(FILE *f, enum aug_format fmt, const char *path,
                             const struct aug_validate_explained *e, const char *kdb_root,
                             int fallback_only, int want_ops);

#endif
