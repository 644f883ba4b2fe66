/* SPDX-License-Identifier: Apache-2.0 */
/* finite.c - non-finite results are errors that name their input (finite.h). */
#include "core/finite.h"

#include <math.h>

#include "augur/status.h"

static int refuse(const char *ctx, const char *name, double v) {
    const char *what = isnan(v) ? "NaN" : v > 0 ? "+infinity" : "-infinity";
    return aug_errorf(AUG_EDATA, "%s: %s is %s, not a finite number (an input value is out of "
                      "range: check the model, system and plan)", ctx, name, what);
}

int aug_finite_check(const char *ctx, const struct aug_finite_field *f, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(f[i].value))
            return refuse(ctx, f[i].name, f[i].value);
    return AUG_OK;
}

int aug_finite_check_array(const char *ctx, const char *const *names, const double *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return refuse(ctx, names[i], v[i]);
    return AUG_OK;
}
