/* wakeup and timer: option bounds, the declared metrics, and short real
 * runs whose every repetition must have p50 <= p90 <= p99 <= p99.9 <= max,
 * plausible values, and no thread left behind.  Nothing here asserts on
 * speed: the machine may be busy (make check runs beside other work). */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workload/workload.h"

static const struct nf_workload *wl(const char *name)
{
    const struct nf_workload *w = nf_workload_find(name);
    assert_non_null(w);
    return w;
}

/* parse(err, &cfg, "timer", "-i", "5", NULL) */
static int parse(char *err, void **cfg, const char *name, ...)
{
    char *argv[16] = {(char *)name};
    int argc = 1;
    va_list ap;
    va_start(ap, name);
    for (char *a; (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    *cfg = NULL;
    err[0] = 0;
    int rc = wl(name)->parse(argc, argv, cfg, err, 256);
    if (rc == 0 && !*cfg)
        fail_msg("parse succeeded without a config");
    return rc;
}

static int threads_of_self(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void expect_bad(const char *name, const char *want, ...)
{
    char *argv[16] = {(char *)name};
    int argc = 1;
    va_list ap;
    va_start(ap, want);
    for (char *a; (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    char err[256] = "";
    void *cfg = NULL;
    int rc = wl(name)->parse(argc, argv, &cfg, err, sizeof(err));
    if (rc != -1 || !strstr(err, want) || strchr(err, '\n')) {
        print_error("%s %s...: rc %d, err '%s', want '%s'\n", name, argc > 1 ? argv[1] : "", rc,
                    err, want);
        fail();
    }
    assert_null(cfg);
}

static void test_metrics(void **state)
{
    (void)state;
    static const char *const lat[] = {"wakeup-p50",   "wakeup-p90", "wakeup-p99",
                                      "wakeup-p99.9", "wakeup-max", "wakeups"};
    char err[256];
    void *cfg;
    struct nf_metric_decl d[NF_MAX_METRICS];
    const char *names[] = {"timer", "wakeup"};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(parse(err, &cfg, names[k], NULL), 0);
        size_t n = wl(names[k])->metrics(cfg, d);
        assert_int_equal(n, k == 0 ? 6 : 7);
        int primaries = 0;
        for (size_t i = 0; i < 6; i++) {
            assert_string_equal(d[i].name, lat[i]);
            assert_string_equal(d[i].unit, i < 5 ? "usecs" : "count");
            assert_int_equal(d[i].better, i < 5 ? NF_BETTER_LOWER : NF_BETTER_HIGHER);
            primaries += d[i].primary;
        }
        assert_true(d[2].primary);
        if (k == 1) {
            assert_string_equal(d[6].name, "requests/s");
            assert_int_equal(d[6].better, NF_BETTER_HIGHER);
            assert_false(d[6].primary);
        }
        assert_int_equal(primaries, 1);
        wl(names[k])->free_cfg(cfg);
    }
}

static void test_timer_options(void **state)
{
    (void)state;
    expect_bad("timer", "-i", "-i", "0", NULL);
    expect_bad("timer", "-i", "-i", "-5", NULL);
    expect_bad("timer", "-i", "-i", "2000000", NULL);
    expect_bad("timer", "-l", "-l", "0", NULL);
    expect_bad("timer", "-l", "-l", "x", NULL);
    expect_bad("timer", "24", "-i", "1000000", "-l", "100000", NULL); /* 27 hours */
    expect_bad("timer", "--policy", "--policy", "rr", NULL);
    expect_bad("timer", "--prio", "--prio", "0", NULL);
    expect_bad("timer", "--prio", "--prio", "100", NULL);
    expect_bad("timer", "--policy fifo", "--prio", "5", NULL);
    expect_bad("timer", "unknown option", "-z", NULL);
    expect_bad("timer", "needs a value", "-i", NULL);
    char err[256];
    void *cfg;
    assert_int_equal(
        parse(err, &cfg, "timer", "--interval", "500", "-l", "10", "--policy", "fifo", NULL), 0);
    wl("timer")->free_cfg(cfg);
    assert_int_equal(parse(err, &cfg, "timer", "--policy", "other", NULL), 0);
    wl("timer")->free_cfg(cfg);
}

static void test_wakeup_options(void **state)
{
    (void)state;
    expect_bad("wakeup", "-m", "-m", "0", NULL);
    expect_bad("wakeup", "-m", "-m", "-1", NULL);
    expect_bad("wakeup", "-t", "-t", "0", NULL);
    expect_bad("wakeup", "-t", "-t", "5000", NULL);
    expect_bad("wakeup", "workers", "-m", "64", "-t", "1000", NULL);
    expect_bad("wakeup", "-r", "-r", "0", NULL);
    expect_bad("wakeup", "-r", "-r", "-2", NULL);
    expect_bad("wakeup", "-r", "-r", "nan", NULL);
    expect_bad("wakeup", "-r", "-r", "100000", NULL);
    expect_bad("wakeup", "-s", "-s", "-1", NULL);
    expect_bad("wakeup", "-c", "-c", "2000000", NULL);
    expect_bad("wakeup", "unexpected", "extra", NULL);
    char err[256];
    void *cfg;
    assert_int_equal(
        parse(err, &cfg, "wakeup", "-m", "2", "-t", "3", "-r", "0.5", "-s", "0", "-c", "0", NULL),
        0);
    wl("wakeup")->free_cfg(cfg);
}

static void check_order(const double *v)
{
    if (!(v[0] >= 0 && v[0] <= v[1] && v[1] <= v[2] && v[2] <= v[3] && v[3] <= v[4])) {
        print_error("percentiles out of order: %g %g %g %g max %g\n", v[0], v[1], v[2], v[3], v[4]);
        fail();
    }
}

static void test_timer_runs(void **state)
{
    (void)state;
    char err[256];
    void *cfg;
    assert_int_equal(parse(err, &cfg, "timer", "-i", "500", "-l", "300", NULL), 0);
    for (int rep = 0; rep < 3; rep++) {
        double v[NF_MAX_METRICS];
        int rc = wl("timer")->run_once(cfg, v, err, sizeof(err));
        if (rc)
            print_error("run_once: %s\n", err);
        assert_int_equal(rc, 0);
        check_order(v);
        assert_true(v[5] == 300);            /* one event per loop */
        assert_true(v[4] < 300 * 500 + 6e7); /* no latency beyond the run (+ a minute) */
    }
    wl("timer")->free_cfg(cfg);
    assert_int_equal(threads_of_self(), 1);
}

static void wakeup_once(void *cfg, double secs, int rep)
{
    char err[256];
    double v[NF_MAX_METRICS];
    int rc = wl("wakeup")->run_once(cfg, v, err, sizeof(err));
    if (rc)
        print_error("run_once %d: %s\n", rep, err);
    assert_int_equal(rc, 0);
    check_order(v);
    /* Every request finished in the window was preceded by a recorded
     * wakeup; the ones at the window's end add a few more. */
    double requests = v[6] * secs;
    assert_true(v[6] > 0);
    assert_true(v[5] >= floor(requests + 0.5));
    assert_true(v[4] < secs * 1e6 + 6e7);
    assert_int_equal(threads_of_self(), 1);
}

static void test_wakeup_runs(void **state)
{
    (void)state;
    char err[256];
    void *cfg;
    assert_int_equal(
        parse(err, &cfg, "wakeup", "-m", "2", "-t", "2", "-r", "0.3", "-s", "50", "-c", "50", NULL),
        0);
    for (int rep = 0; rep < 3; rep++)
        wakeup_once(cfg, 0.3, rep);
    wl("wakeup")->free_cfg(cfg);
    /* No sleep, no work: a ping-pong between the threads. */
    assert_int_equal(parse(err, &cfg, "wakeup", "-t", "3", "-r", "0.2", "-s", "0", "-c", "0", NULL),
                     0);
    wakeup_once(cfg, 0.2, 0);
    wl("wakeup")->free_cfg(cfg);
    /* The default worker count (the CPUs we may use). */
    assert_int_equal(parse(err, &cfg, "wakeup", "-r", "0.2", NULL), 0);
    wakeup_once(cfg, 0.2, 0);
    wl("wakeup")->free_cfg(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics),        cmocka_unit_test(test_timer_options),
        cmocka_unit_test(test_wakeup_options), cmocka_unit_test(test_timer_runs),
        cmocka_unit_test(test_wakeup_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
