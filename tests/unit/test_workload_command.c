/* -- COMMAND: what --metric NAME=REGEX accepts and captures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "measure/runner_cmd.h"

static void test_capture_value(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(nf_capture_value("time: ([0-9.]+)", "x\ntime: 1.25 s\n", &v), 0);
    assert_true(v == 1.25);
    /* The first number inside the group, whatever else the group holds. */
    assert_int_equal(nf_capture_value("(took .*)", "it took about 12ms, or 13", &v), 0);
    assert_true(v == 12);
    assert_int_equal(nf_capture_value("delta=(.*)", "delta=-3.5e2 units", &v), 0);
    assert_true(v == -350);
    assert_int_equal(nf_capture_value("v=(.*)", "v=.5", &v), 0);
    assert_true(v == 0.5);
    /* The first match counts. */
    assert_int_equal(nf_capture_value("rps ([0-9]+)", "rps 10\nrps 20\n", &v), 0);
    assert_true(v == 10);
    /* Misses: no match, or no number in the group. */
    assert_int_equal(nf_capture_value("time: ([0-9.]+)", "nothing here", &v), -1);
    assert_int_equal(nf_capture_value("name: (.*)", "name: none", &v), -1);
    assert_int_equal(nf_capture_value("(x)", "", &v), -1);
}

static void test_capture_check(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(nf_capture_check("rps", "rps: ([0-9]+)", err, sizeof(err)), 0);
    assert_int_equal(nf_capture_check("rps", "rps: [0-9]+", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "needs a group"));
    assert_int_equal(nf_capture_check("rps", "rps: ([0-9]+", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "bad regular expression"));
    assert_int_equal(nf_capture_check("wall", "(1)", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "already a metric"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_value),
        cmocka_unit_test(test_capture_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
