/* netsend: option parsing, metric names, and short real streams over
 * loopback (UDP and TCP) that leave no sink behind. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "workload/workload.h"

static const struct nf_workload *wl(void)
{
    const struct nf_workload *w = nf_workload_find("netsend");
    assert_non_null(w);
    return w;
}

static int parse(char *err, void **cfg, ...)
{
    char *argv[16] = {"netsend"};
    int argc = 1;
    va_list ap;
    va_start(ap, cfg);
    for (char *a; (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    *cfg = NULL;
    return wl()->parse(argc, argv, cfg, err, 256);
}

static void test_default_metrics(void **state)
{
    (void)state;
    char err[256];
    void *cfg;
    assert_int_equal(parse(err, &cfg, NULL), 0);
    struct nf_metric_decl d[NF_MAX_METRICS];
    size_t n = wl()->metrics(cfg, d);
    assert_int_equal(n, 18); /* mmtests' nine sizes, send and recv */
    assert_string_equal(d[0].name, "send-64");
    assert_string_equal(d[8].name, "send-16384");
    assert_string_equal(d[9].name, "recv-64");
    assert_string_equal(d[17].name, "recv-16384");
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(d[i].unit, "Mbit/s");
        assert_int_equal(d[i].better, NF_BETTER_HIGHER);
        assert_int_equal(d[i].primary, i == 0);
    }
    wl()->free_cfg(cfg);
    assert_int_equal(parse(err, &cfg, "--proto", "tcp", "-m", "1024,64", NULL), 0);
    assert_int_equal(wl()->metrics(cfg, d), 2);
    assert_string_equal(d[0].name, "send-1024");
    assert_true(d[0].primary);
    assert_string_equal(d[1].name, "send-64");
    wl()->free_cfg(cfg);
}

static void test_parse_errors(void **state)
{
    (void)state;
    char err[256];
    void *cfg;
    assert_int_equal(parse(err, &cfg, "-m", "0", NULL), -1);
    assert_non_null(strstr(err, "-m wants sizes"));
    assert_int_equal(parse(err, &cfg, "-m", "64,,128", NULL), -1);
    assert_int_equal(parse(err, &cfg, "-m", "64,", NULL), -1);
    assert_int_equal(parse(err, &cfg, "-m", "64,64", NULL), -1);
    assert_non_null(strstr(err, "twice"));
    assert_int_equal(parse(err, &cfg, "-m", "70000", NULL), -1);
    assert_non_null(strstr(err, "UDP message holds at most 65507"));
    assert_int_equal(parse(err, &cfg, "-d", "0", NULL), -1);
    /* Below a millisecond: -d 1e-10 was a window of 0 ns and a rate of 0/0. */
    assert_int_equal(parse(err, &cfg, "-d", "1e-10", NULL), -1);
    assert_non_null(strstr(err, "-d wants seconds in [0.001, 86400]"));
    assert_int_equal(parse(err, &cfg, "-d", "0.0009", NULL), -1);
    assert_int_equal(parse(err, &cfg, "-d", "0.001", NULL), 0);
    wl()->free_cfg(cfg);
    assert_int_equal(parse(err, &cfg, "-d", "soon", NULL), -1);
    assert_non_null(strstr(err, "-d wants seconds"));
    assert_int_equal(parse(err, &cfg, "--proto", "sctp", NULL), -1);
    assert_non_null(strstr(err, "'udp' or 'tcp'"));
    assert_int_equal(parse(err, &cfg, "-m", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", NULL), -1);
    assert_int_equal(parse(err, &cfg, "-m", "70000", "--proto", "tcp", NULL), 0);
    wl()->free_cfg(cfg);
}

static void no_children_left(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void test_udp_stream(void **state)
{
    (void)state;
    char err[256] = "";
    void *cfg;
    assert_int_equal(parse(err, &cfg, "-d", "0.05", "-m", "64,1024", NULL), 0);
    double v[NF_MAX_METRICS] = {0};
    int rc = wl()->run_once(cfg, v, err, sizeof(err));
    if (rc)
        print_error("run_once: %s\n", err);
    assert_int_equal(rc, 0);
    for (int i = 0; i < 2; i++) {
        assert_true(v[i] > 0);                      /* send */
        assert_true(v[2 + i] > 0);                  /* recv: the sink counted something */
        assert_true(v[2 + i] <= v[i] * (1 + 1e-9)); /* never more than was sent */
    }
    wl()->free_cfg(cfg);
    no_children_left();
}

static void test_tcp_stream(void **state)
{
    (void)state;
    char err[256] = "";
    void *cfg;
    assert_int_equal(parse(err, &cfg, "-d", "0.05", "-m", "64,16384", "-P", "tcp", NULL), 0);
    double v[NF_MAX_METRICS] = {0};
    int rc = wl()->run_once(cfg, v, err, sizeof(err));
    if (rc)
        print_error("run_once: %s\n", err);
    assert_int_equal(rc, 0);
    assert_true(v[0] > 0 && v[1] > 0);
    wl()->free_cfg(cfg);
    no_children_left();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_metrics),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_udp_stream),
        cmocka_unit_test(test_tcp_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
