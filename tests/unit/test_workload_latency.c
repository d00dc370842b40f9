/* wakeup and timer: option bounds, the declared metrics, and short real
 * runs whose every repetition must have p50 <= p90 <= p99 <= p99.9 <= max,
 * plausible values, and no thread left behind.  Nothing here asserts on
 * speed: the machine may be busy (make check runs beside other work). */
#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <cmocka.h>

#include "core/run.h"
#include "core/util.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "stats/hist.h"
#include "workload/latency.h"
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

static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The threads of this process once the joined ones are gone: a thread
 * pthread_join has returned for may still be listed in /proc/self/task
 * while the kernel finishes its exit, so wait (up to 30 s, far beyond any
 * exit; a leaked thread stays for ever) for the count to settle. */
static int threads_of_self(void)
{
    int n = count_threads();
    for (int i = 0; n > 1 && i < 30000; i++) {
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        n = count_threads();
    }
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

/* cyclictest's schedule: on time, the next target is one interval on; a
 * wakeup late by several intervals skips the targets that have passed
 * (one stall is one late sample, not a burst of them); the schedule stays
 * on the original grid. */
static void test_timer_next(void **state)
{
    (void)state;
    assert_int_equal(nf_timer_next(1000, 1010, 100), 1100); /* on time */
    assert_int_equal(nf_timer_next(1000, 1100, 100), 1100); /* woke at the next target */
    assert_int_equal(nf_timer_next(1000, 1101, 100), 1200); /* just past it */
    assert_int_equal(nf_timer_next(1000, 4550, 100), 4600); /* 35 targets passed */
    assert_int_equal(nf_timer_next(1000, 4600, 100), 4600); /* exactly on the grid */
    assert_int_equal(nf_timer_next(0, 3000000000u, 1), 3000000000u);
}

static void test_timer_options(void **state)
{
    (void)state;
    expect_bad("timer", "-i", "-i", "0", NULL);
    expect_bad("timer", "-i", "-i", "-5", NULL);
    expect_bad("timer", "-i", "-i", "2000000", NULL);
    expect_bad("timer", "-l", "-l", "0", NULL);
    expect_bad("timer", "-l", "-l", "x", NULL);
    expect_bad("timer", "would sleep 100000 s in one repetition; at most 86400 s", "-i", "1000000",
               "-l", "100000", NULL); /* 27 hours */
    /* Just past the day: the span as it is, never as the limit itself. */
    expect_bad("timer",
               "-i 1000000 -l 86401 would sleep 86401 s in one repetition; at most 86400 s", "-i",
               "1000000", "-l", "86401", NULL);
    expect_bad("timer", "would sleep 86400.001 s in one repetition; at most 86400 s", "-i", "1000",
               "-l", "86400001", NULL);
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
    /* A day exactly is allowed. */
    assert_int_equal(parse(err, &cfg, "timer", "-i", "1000000", "-l", "86400", NULL), 0);
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
    /* Below a millisecond: a window of 0 ns measured requests/s as n/0. */
    expect_bad("wakeup", "-r wants seconds in [0.001, 3600]", "-r", "1e-10", NULL);
    expect_bad("wakeup", "-r", "-r", "0.0009", NULL);
    expect_bad("wakeup", "-s", "-s", "-1", NULL);
    expect_bad("wakeup", "-c", "-c", "2000000", NULL);
    expect_bad("wakeup", "unexpected", "extra", NULL);
    char err[256];
    void *cfg;
    assert_int_equal(
        parse(err, &cfg, "wakeup", "-m", "2", "-t", "3", "-r", "0.5", "-s", "0", "-c", "0", NULL),
        0);
    wl("wakeup")->free_cfg(cfg);
    assert_int_equal(parse(err, &cfg, "wakeup", "-r", "0.001", NULL), 0);
    wl("wakeup")->free_cfg(cfg);
}

/* wakeup's default worker count is schbench's, (get_nprocs() + m - 1) / m:
 * the CPUs online, not the CPUs this process may run on, so a run pinned
 * to one CPU (run --pin 0, as taskset -c 0 schbench) starts as many. */
static void test_wakeup_default_workers(void **state)
{
    (void)state;
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
    long n = get_nprocs();
    long got1 = nf_wakeup_workers(1, 0), got2 = nf_wakeup_workers(2, 0);
    long got64 = nf_wakeup_workers(64, 0), given = nf_wakeup_workers(1, 3);
    assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
    if (n < 2)
        print_message("only one CPU online: pinned and unpinned counts agree anyway\n");
    assert_int_equal(got1, n);
    assert_int_equal(got2, (n + 1) / 2);
    assert_int_equal(got64, (n + 63) / 64);
    assert_int_equal(given, 3);                        /* -t wins */
    assert_int_equal(nf_wakeup_workers(2, 1000), 512); /* at most 1024 in all */
}

static void check_order(const double *v)
{
    if (!(v[0] >= 0 && v[0] <= v[1] && v[1] <= v[2] && v[2] <= v[3] && v[3] <= v[4])) {
        print_error("percentiles out of order: %g %g %g %g max %g\n", v[0], v[1], v[2], v[3], v[4]);
        fail();
    }
}

/* CLOCK_MONOTONIC in microseconds: a latency measured in run_once lies
 * within the time run_once took, on any machine. */
static double mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void test_timer_runs(void **state)
{
    (void)state;
    char err[256];
    void *cfg;
    assert_int_equal(parse(err, &cfg, "timer", "-i", "500", "-l", "300", NULL), 0);
    for (int rep = 0; rep < 3; rep++) {
        double v[NF_MAX_METRICS];
        double t0 = mono_us();
        int rc = wl("timer")->run_once(cfg, v, err, sizeof(err));
        double took = mono_us() - t0;
        if (rc)
            print_error("run_once: %s\n", err);
        assert_int_equal(rc, 0);
        check_order(v);
        assert_true(v[5] == 300);  /* one event per loop */
        assert_true(v[4] <= took); /* no latency beyond the run's own time */
    }
    wl("timer")->free_cfg(cfg);
    assert_int_equal(threads_of_self(), 1);
}

static void wakeup_once(void *cfg, double secs, int rep)
{
    char err[256];
    double v[NF_MAX_METRICS];
    double t0 = mono_us();
    int rc = wl("wakeup")->run_once(cfg, v, err, sizeof(err));
    double took = mono_us() - t0;
    if (rc)
        print_error("run_once %d: %s\n", rep, err);
    assert_int_equal(rc, 0);
    check_order(v);
    /* Every request finished in the window was preceded by a recorded
     * wakeup; the ones at the window's end add a few more. */
    double requests = v[6] * secs;
    assert_true(v[6] > 0);
    assert_true(v[5] >= floor(requests + 0.5));
    assert_true(v[4] <= took); /* no latency beyond the run's own time */
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
    /* The default worker count (the CPUs online). */
    assert_int_equal(parse(err, &cfg, "wakeup", "-r", "0.2", NULL), 0);
    wakeup_once(cfg, 0.2, 0);
    wl("wakeup")->free_cfg(cfg);
}

/* Through the runner, as run and ab measure: each recorded repetition
 * brings its histogram's non-zero buckets back from the child (warm-up
 * brings none), and they hold the events the percentiles came from. */
static void test_runner_keeps_buckets(void **state)
{
    (void)state;
    char err[NF_ERR_LEN] = "";
    char *argv[] = {"run", "-r", "2", "--warmup", "0", "timer", "-i", "200", "-l", "300", NULL};
    struct nf_runspec spec;
    int help = 0;
    assert_int_equal(nf_runspec_parse(&spec, 10, argv, &help, err, sizeof(err)), 0);
    struct nf_run *run = nf_run_new("t", "timer");
    nf_runner_declare(&spec, run);
    assert_int_equal(nf_runner_rep(&spec, run, 0, err, sizeof(err)), NF_REP_OK);
    assert_int_equal(run->nhists, 0);
    for (int i = 0; i < 2; i++) {
        enum nf_rep_status rc = nf_runner_rep(&spec, run, 1, err, sizeof(err));
        if (rc != NF_REP_OK)
            fail_msg("repetition %d: %s", i, err);
    }
    nf_runspec_free(&spec);
    assert_int_equal(run->nhists, 1);
    const struct nf_run_hist *h = nf_run_hist_find(run, "wakeup");
    assert_non_null(h);
    assert_int_equal(h->nreps, 2);
    for (size_t k = 0; k < 2; k++) {
        const struct nf_rep_hist *r = &h->reps[k];
        assert_int_equal(r->rep, k);
        /* Rebuild the histogram from the buckets: its percentiles are the
         * stored ones, within the bound (the exact min and max, which
         * clamp them, are not among the buckets). */
        struct nf_hist *x = calloc(1, sizeof(*x));
        assert_non_null(x);
        for (size_t i = 0; i < r->n; i++) {
            size_t idx = nf_hist_index(r->b[i].lo);
            uint64_t lo, hi;
            nf_hist_bucket_bounds(idx, &lo, &hi);
            assert_true(lo == r->b[i].lo); /* each is a bucket's first value */
            assert_true(r->b[i].count > 0);
            assert_true(i == 0 || r->b[i].lo > r->b[i - 1].lo);
            x->bucket[idx] = r->b[i].count;
            x->count += r->b[i].count;
            if (i == 0)
                x->min = lo;
            x->max = hi;
        }
        assert_true(x->count == 300);
        assert_true(run->metrics[5].values[k] == 300);
        const double pcts[] = {50, 90, 99, 99.9};
        for (size_t p = 0; p < 4; p++) {
            double want = run->metrics[p].values[k], got = nf_hist_percentile(x, pcts[p]) / 1000;
            if (fabs(got - want) > 2 * NF_HIST_REL_ERR * want + 1e-3)
                fail_msg("rep %zu p%g: %g from the buckets, %g stored", k, pcts[p], got, want);
        }
        double max = run->metrics[4].values[k] * 1000;
        assert_true(max >= (double)r->b[r->n - 1].lo && max <= (double)x->max);
        free(x);
    }
    nf_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_timer_options),
        cmocka_unit_test(test_timer_next),
        cmocka_unit_test(test_wakeup_options),
        cmocka_unit_test(test_wakeup_default_workers),
        cmocka_unit_test(test_timer_runs),
        cmocka_unit_test(test_wakeup_runs),
        cmocka_unit_test(test_runner_keeps_buckets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
