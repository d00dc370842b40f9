/* What `run` makes of its input, at the edges: a rate metric with a value
 * of 0 or below summarised as compare summarises it; --metric over output
 * with NUL bytes and over output whose lines are too long to keep; the
 * --sysctl settings as the run's environment records them; -e given more
 * than once, -e '' and --pin given twice. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/capture.h"
#include "measure/env.h"
#include "measure/runspec.h"
#include "stats/summary.h"

static double mean_of(const double *x, size_t n, int rate)
{
    struct nf_summary s;
    assert_int_equal(nf_summarize(x, n, &s), 0);
    return nf_summary_mean(&s, rate);
}

/* A rate's mean is its harmonic mean; a value of 0 makes it 0 (its limit),
 * one below 0 leaves none; never the arithmetic mean in their place. */
static void test_rate_mean(void **state)
{
    (void)state;
    const double pos[] = {1, 2, 4}, zero[] = {1, 2, 0, 4}, neg[] = {-1, 1, -2, 2};
    /* 3 / (1 + 1/2 + 1/4) = 12/7; the arithmetic mean is 7/3. */
    assert_true(fabs(mean_of(pos, 3, 1) - 12.0 / 7.0) < 1e-15);
    assert_true(fabs(mean_of(pos, 3, 0) - 7.0 / 3.0) < 1e-15);
    assert_true(mean_of(zero, 4, 1) == 0.0);
    assert_true(mean_of(zero, 4, 0) == 1.75);
    assert_true(isnan(mean_of(neg, 4, 1)));
    assert_true(mean_of(neg, 4, 0) == 0.0);
    struct nf_summary none;
    assert_int_equal(nf_summarize(NULL, 0, &none), -1);
    assert_true(isnan(nf_summary_mean(&none, 1)));
    assert_true(isnan(nf_summary_mean(&none, 0)));
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        assert_true(w > 0);
        buf += w;
        len -= (size_t)w;
    }
}

/* A NUL byte in the output neither ends the search nor the excerpt of a
 * failed --metric. */
static void test_output_nul(void **state)
{
    (void)state;
    struct nf_output o;
    char err[1024];
    assert_int_equal(nf_output_open(&o, 1, err, sizeof(err)), 0);
    static const char text[] = "bin\0ary\nresult: 5\n";
    write_all(o.out, text, sizeof(text) - 1);
    nf_output_collect(&o);
    assert_int_equal(o.n, sizeof(text) - 1);
    struct nf_capture caps[2] = {{.name = "x", .regex = "^result: ([0-9]+)$"},
                                 {.name = "y", .regex = "^other: ([0-9]+)$"}};
    double v[2] = {0, 0};
    assert_int_equal(nf_output_captures(&o, caps, 1, "cmd", v, err, sizeof(err)), 0);
    assert_true(v[0] == 5);
    /* The NUL is a byte that '.' does not match, as in a C string. */
    struct nf_capture dot = {.name = "d", .regex = "bin.ary ([0-9]+)"};
    write_all(o.out, "bin\0ary 3\n", 10);
    nf_output_collect(&o);
    assert_int_equal(nf_output_captures(&o, &dot, 1, "cmd", v, err, sizeof(err)), -1);
    struct nf_capture after = {.name = "a", .regex = "ary ([0-9]+)"};
    assert_int_equal(nf_output_captures(&o, &after, 1, "cmd", v, err, sizeof(err)), 0);
    assert_true(v[0] == 3);
    /* The excerpt goes past it, shown as '?'. */
    write_all(o.out, text, sizeof(text) - 1);
    nf_output_collect(&o);
    assert_int_equal(nf_output_captures(&o, caps, 2, "cmd", v, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "found no number in the output of 'cmd'\n"
                                "    stdout| bin?ary\n"
                                "    stdout| result: 5"));
    nf_output_close(&o);
}

/* total bytes of output: the line "result: 45" and filler up to head_nl
 * (where the first line ends; total: the last byte), then 16-byte lines up
 * to the last line, which starts at last_start (0: no more lines). */
static char *long_lines(size_t total, size_t head_nl, size_t last_start)
{
    char *buf = malloc(total);
    assert_non_null(buf);
    for (size_t i = 0; i < total; i++)
        buf[i] = i > head_nl && (i - head_nl) % 16 == 0 ? '\n' : 'x';
    memcpy(buf, "result: 45", 10);
    buf[head_nl] = '\n';
    if (last_start) {
        for (size_t i = last_start; i < total; i++)
            buf[i] = 'x';
        buf[last_start - 1] = '\n';
    }
    buf[total - 1] = '\n';
    return buf;
}

/* Output cut in lines longer than what is kept: the message says which part
 * could not be searched, as only whole lines are. */
static void test_output_long_lines(void **state)
{
    (void)state;
    struct nf_output o;
    char err[1024];
    assert_int_equal(nf_output_open(&o, 1, err, sizeof(err)), 0);
    struct nf_capture cap = {.name = "r", .regex = "result: ([0-9]+)"};
    double v = 0;
    size_t total = NF_OUTPUT_MAX + (2u << 20);

    /* One line of it all: nothing is kept. */
    char *buf = long_lines(total, total - 1, 0);
    write_all(o.out, buf, total);
    nf_output_collect(&o);
    assert_int_equal(o.cut, 1);
    assert_int_equal(o.n, 0);
    assert_int_equal(nf_output_captures(&o, &cap, 1, "cmd", &v, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "of which the first 16 MiB and the last 1 MiB are searched, whole "
                                "lines only, and it has none there: its first line runs past 16 "
                                "MiB and its last line starts before the last 1 MiB"));
    free(buf);

    /* The first line runs past 16 MiB; short lines after it. */
    buf = long_lines(total, NF_OUTPUT_MAX + 100, 0);
    write_all(o.out, buf, total);
    nf_output_collect(&o);
    assert_int_equal(o.head, 0);
    assert_true(o.n > 0);
    assert_int_equal(nf_output_captures(&o, &cap, 1, "cmd", &v, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "are searched, whole lines only: its first line runs past 16 MiB, "
                                "so only the last 1 MiB is\n"));
    free(buf);

    /* Short lines first; the last line starts before the last 1 MiB. */
    buf = long_lines(total, 100, total - NF_OUTPUT_LAST - 100);
    memcpy(buf, "nothing:", 8);
    write_all(o.out, buf, total);
    nf_output_collect(&o);
    assert_true(o.head > 0);
    assert_int_equal(o.n, o.head);
    assert_int_equal(nf_output_captures(&o, &cap, 1, "cmd", &v, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "are searched, whole lines only: its last line starts before the "
                                "last 1 MiB, so only the first 16 MiB is\n"));
    free(buf);
    nf_output_close(&o);
}

/* The --sysctl settings as the environment's "sysctl". */
static void test_env_sysctls(void **state)
{
    (void)state;
    assert_null(nf_env_sysctls(NULL, 0));
    struct nf_sysctl s[2] = {{"kernel.msgmax", "9000"}, {"vm/swappiness", "10"}};
    json_t *j = nf_env_sysctls(s, 2);
    assert_non_null(j);
    char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(text, "{\"kernel.msgmax\":\"9000\",\"vm/swappiness\":\"10\"}");
    free(text);
    json_decref(j);
}

/* -e accumulates, as perf stat's; -e '' is refused; --pin, as every option
 * of one value, keeps the last one given. */
static void test_runspec_repeats(void **state)
{
    (void)state;
    struct nf_runspec s;
    char err[256];
    int help;
    char *a1[] = {"run", "-e", "task-clock", "-e", "context-switches,task-clock", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 6, a1, &help, err, sizeof(err)), 0);
    assert_string_equal(s.events, "task-clock,context-switches,task-clock");
    assert_int_equal(s.counters.n, 2);
    assert_string_equal(s.counters.c[0].name, "task-clock");
    assert_string_equal(s.counters.c[1].name, "context-switches");
    nf_runspec_free(&s);

    char *a2[] = {"run", "-e", "", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 4, a2, &help, err, sizeof(err)), -1);
    assert_string_equal(err, "-e: an empty event name in ''");
    nf_runspec_free(&s);

    char *a3[] = {"run", "-e", "task-clock", "--events=", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 5, a3, &help, err, sizeof(err)), -1);
    assert_string_equal(err, "-e: an empty event name in ''");
    nf_runspec_free(&s);

    char *a4[] = {"run", "--pin", "0", "-r", "2", "-r", "3", "--pin", "0-0", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 10, a4, &help, err, sizeof(err)), 0);
    assert_string_equal(s.pin, "0");
    assert_int_equal(s.repeat, 3);
    nf_runspec_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_mean),         cmocka_unit_test(test_output_nul),
        cmocka_unit_test(test_output_long_lines), cmocka_unit_test(test_env_sysctls),
        cmocka_unit_test(test_runspec_repeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
