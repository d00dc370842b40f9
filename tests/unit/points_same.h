/* Assertions that two point records (core/points.h) are the same, for the
 * tests of the point load and of its cache.  Include after cmocka.h. */
#ifndef NF_TEST_POINTS_SAME_H
#define NF_TEST_POINTS_SAME_H

#include <string.h>

#include "core/points.h"

/* The same text, or both NULL. */
static inline void nf_test_same_text(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

/* The same metric and summary, bit for bit; the reciprocals' mean and sd
 * only where they are kept (recip), unless all is set. */
static inline void nf_test_same_point(const struct nf_point *x, const struct nf_point *y, int all)
{
    nf_test_same_text(x->metric, y->metric);
    nf_test_same_text(x->unit, y->unit);
    assert_int_equal(x->better, y->better);
    assert_int_equal(x->primary, y->primary);
    assert_int_equal(x->supported, y->supported);
    assert_int_equal(x->sum.n, y->sum.n);
    assert_int_equal(x->sum.recip, y->sum.recip);
    assert_memory_equal(&x->sum.mean, &y->sum.mean, sizeof(double));
    assert_memory_equal(&x->sum.sd, &y->sum.sd, sizeof(double));
    if (all || x->sum.recip) {
        assert_memory_equal(&x->sum.rmean, &y->sum.rmean, sizeof(double));
        assert_memory_equal(&x->sum.rsd, &y->sum.rsd, sizeof(double));
    }
}

#endif
