/* The pipe workload (workload/pipe.c): its options, its metrics, one
 * repetition. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "workload/workload.h"

static void test_pipe_workload(void **state)
{
    (void)state;
    void *cfg;
    char err[256];
    char *argv[] = {"pipe", "-l", "500", NULL};
    assert_int_equal(nf_workload_pipe.parse(3, argv, &cfg, err, sizeof(err)), 0);
    struct nf_metric_decl d[NF_MAX_METRICS];
    assert_int_equal(nf_workload_pipe.metrics(cfg, d), 2);
    assert_string_equal(d[0].name, "usecs/op");
    assert_true(d[0].primary);
    double v[NF_MAX_METRICS];
    assert_int_equal(nf_workload_pipe.run_once(cfg, v, err, sizeof(err)), 0);
    assert_true(v[0] > 0);
    assert_true(fabs(v[0] * v[1] / 1e6 - 1) < 1e-9);
    nf_workload_pipe.free_cfg(cfg);

    char *bad[] = {"pipe", "-l", "0", NULL};
    assert_int_equal(nf_workload_pipe.parse(3, bad, &cfg, err, sizeof(err)), -1);
    char *bad2[] = {"pipe", "-x", NULL};
    assert_int_equal(nf_workload_pipe.parse(2, bad2, &cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "unknown option '-x'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipe_workload),
    };
    return cmocka_run_group_tests_name("workload_pipe", tests, NULL, NULL);
}
