/* SPDX-License-Identifier: Apache-2.0 */
/* aug_test.h - what every cmocka test includes: cmocka's include order, a double
 * comparison (cmocka 1.1.5's assert_float_equal casts to float), and fixture paths. */
#ifndef AUG_TEST_H
#define AUG_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* |a - b| <= tol (absolute). */
#define assert_near(a, b, tol)                                                               \
    do {                                                                                     \
        double aug_a_ = (double)(a), aug_b_ = (double)(b), aug_t_ = (double)(tol);           \
        if (!(fabs(aug_a_ - aug_b_) <= aug_t_))                                              \
            fail_msg("%s = %.12g, expected %.12g (+- %.3g)", #a, aug_a_, aug_b_, aug_t_);    \
    } while (0)

/* |a - b| <= rel * |b| (relative). */
#define assert_rel(a, b, rel)                                                                \
    do {                                                                                     \
        double aug_a_ = (double)(a), aug_b_ = (double)(b), aug_r_ = (double)(rel);           \
        if (!(fabs(aug_a_ - aug_b_) <= aug_r_ * fabs(aug_b_)))                               \
            fail_msg("%s = %.12g, expected %.12g (rel %.3g)", #a, aug_a_, aug_b_, aug_r_);   \
    } while (0)

#endif
