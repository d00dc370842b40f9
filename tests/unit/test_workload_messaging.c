/* messaging: option parsing, a real small run in every mode, and the
 * failure path (a task that cannot be created) leaving no task behind. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "workload/workload.h"

static const struct nf_workload *wl(void)
{
    const struct nf_workload *w = nf_workload_find("messaging");
    assert_non_null(w);
    return w;
}

static int parse(char *err, void **cfg, ...)
{
    char *argv[16] = {"messaging"};
    int argc = 1;
    va_list ap;
    va_start(ap, cfg);
    for (char *a; (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    *cfg = NULL;
    return wl()->parse(argc, argv, cfg, err, 256);
}

static void no_children_left(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void test_metrics(void **state)
{
    (void)state;
    char err[256];
    void *cfg;
    assert_int_equal(parse(err, &cfg, NULL), 0);
    struct nf_metric_decl d[NF_MAX_METRICS];
    assert_int_equal(wl()->metrics(cfg, d), 2);
    assert_string_equal(d[0].name, "seconds");
    assert_int_equal(d[0].better, NF_BETTER_LOWER);
    assert_true(d[0].primary);
    assert_string_equal(d[1].name, "total-seconds");
    assert_string_equal(d[1].unit, "seconds");
    assert_int_equal(d[1].better, NF_BETTER_LOWER);
    assert_false(d[1].primary);
    wl()->free_cfg(cfg);
}

static void test_parse_errors(void **state)
{
    (void)state;
    char err[256];
    void *cfg;
    assert_int_equal(parse(err, &cfg, "-g", "0", NULL), -1);
    assert_non_null(strstr(err, "-g wants a group count"));
    assert_int_equal(parse(err, &cfg, "-l", "ten", NULL), -1);
    assert_non_null(strstr(err, "-l wants a loop count"));
    assert_int_equal(parse(err, &cfg, "-s", "0", NULL), -1);
    assert_int_equal(parse(err, &cfg, "-x", NULL), -1);
    assert_non_null(strstr(err, "unknown option '-x'"));
    assert_int_equal(parse(err, &cfg, "-g", NULL), -1);
    assert_non_null(strstr(err, "needs a value"));
    assert_int_equal(parse(err, &cfg, "extra", NULL), -1);
    assert_int_equal(parse(err, &cfg, "-g", "10000", "-f", "1000", NULL), -1);
    assert_non_null(strstr(err, "tasks"));
    assert_int_equal(
        parse(err, &cfg, "--group", "3", "--nr_loops", "7", "-s", "64", "-p", "-t", NULL), 0);
    wl()->free_cfg(cfg);
}

/* CLOCK_MONOTONIC in seconds. */
static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_mode(const char *p, const char *t)
{
    char err[256] = "";
    void *cfg;
    assert_int_equal(parse(err, &cfg, "-g", "2", "-f", "4", "-l", "20", "-s", "50", p ? p : t,
                           p ? t : NULL, NULL),
                     0);
    double v[NF_MAX_METRICS] = {0};
    double t0 = mono_s();
    int rc = wl()->run_once(cfg, v, err, sizeof(err));
    double took = mono_s() - t0;
    if (rc)
        print_error("run_once: %s\n", err);
    assert_int_equal(rc, 0);
    /* Its total-seconds lie within the time run_once took (on any machine). */
    assert_true(v[1] > 0 && v[1] <= took);
    /* seconds, the transfer, is inside the whole: setup, then transfer. */
    assert_true(v[0] > 0 && v[0] < v[1]);
    wl()->free_cfg(cfg);
    no_children_left();
}

static void test_run_processes(void **state)
{
    (void)state;
    run_mode(NULL, NULL);
}
static void test_run_pipes(void **state)
{
    (void)state;
    run_mode("-p", NULL);
}
static void test_run_threads(void **state)
{
    (void)state;
    run_mode(NULL, "-t");
}
static void test_run_threads_pipes(void **state)
{
    (void)state;
    run_mode("-p", "-t");
}

/* Threads: too few fds for the second group, when the first group's tasks
 * already wait at the start barrier; the repetition must fail with the
 * reason and stop them, not hang.  (Processes release each group's fds, so
 * this cannot happen to them; their failures are tested end to end.) */
static void fail_midway(const char *mode, const char *mode2)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {24, 24};
        if (setrlimit(RLIMIT_NOFILE, &rl))
            _exit(10);
        char err[256] = "";
        void *cfg;
        if (parse(err, &cfg, "-g", "4", "-f", "4", "-l", "100000000", mode, mode2, NULL))
            _exit(11);
        double v[NF_MAX_METRICS];
        if (wl()->run_once(cfg, v, err, sizeof(err)) != -1)
            _exit(12);
        if (!strstr(err, "Too many open files"))
            _exit(13);
        if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
            _exit(14);
        wl()->free_cfg(cfg);
        _exit(0);
    }
    int st;
    alarm(20);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    alarm(0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_fail_threads(void **state)
{
    (void)state;
    fail_midway("-t", NULL);
}
static void test_fail_threads_pipes(void **state)
{
    (void)state;
    fail_midway("-t", "-p");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics),       cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_run_processes), cmocka_unit_test(test_run_pipes),
        cmocka_unit_test(test_run_threads),   cmocka_unit_test(test_run_threads_pipes),
        cmocka_unit_test(test_fail_threads),  cmocka_unit_test(test_fail_threads_pipes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
