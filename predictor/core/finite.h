/* SPDX-License-Identifier: Apache-2.0 */
/* finite.h - refuse non-finite results before they are printed.
 *
 * jansson refuses NaN and infinity (json_real returns NULL, so the key silently vanishes)
 * and a NaN compares false against every bar, so a prediction is checked where it is
 * made: a non-finite number is an AUG_EDATA error that names the input that produced it. */
#ifndef AUG_CORE_FINITE_H
#define AUG_CORE_FINITE_H

#include <stddef.h>

/* One named number of a result. */
struct aug_finite_field {
    const char *name;
    double value;
};

/* AUG_OK when every field is finite; else AUG_EDATA "<ctx>: <name> is <nan|inf|-inf>, not a
 * finite number" for the first that is not. `ctx` names the input (model, system, plan). */
int aug_finite_check(const char *ctx, const struct aug_finite_field *f, size_t n);

/* The same for `n` doubles laid out as an array (a struct of doubles): names[i] names v[i]. */
int aug_finite_check_array(const char *ctx, const char *const *names, const double *v, size_t n);

#endif
