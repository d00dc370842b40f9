/* The run model (core/run.c: metrics, their running share, <not
 * counted>, the primary metric; labels and metric names, core/metric.c)
 * and core's parsers of numbers and words (core/util.c).  A run as JSON
 * is tests/unit/test_run_json.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"

static void test_metric_push_and_running(void **state)
{
    (void)state;
    struct nf_run *r = nf_run_new("lbl", "pipe");
    struct nf_metric *m = nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0);
    assert_ptr_equal(m, nf_run_metric(r, "cycles", "x", NF_BETTER_HIGHER, 1));
    for (int i = 0; i < 40; i++)
        nf_metric_push(m, i, 100.0);
    assert_null(m->running_pct);
    nf_metric_push(m, 40, 83.72);
    assert_non_null(m->running_pct);
    assert_int_equal(m->n, 41);
    assert_true(m->running_pct[0] == 100.0);
    assert_true(m->running_pct[40] == 83.72);
    assert_true(nf_metric_min_running(m) == 83.72);
    assert_true(m->values[39] == 39.0);
    nf_run_free(r);
}

/* <not counted> or <not supported> of a metric stored without values: its
 * flag, and what a run's note says (read for runs stored before it). */
static void test_not_counted(void **state)
{
    (void)state;
    struct nf_run *r = nf_run_new("lbl", "command");
    struct nf_metric *cyc = nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0);
    struct nf_metric *wall = nf_run_metric(r, "wall", "seconds", NF_BETTER_LOWER, 1);
    cyc->supported = 0;
    /* the flag decides, whatever the note says */
    assert_false(nf_metric_not_counted(cyc));
    cyc->not_counted = wall->not_counted = 1;
    assert_true(nf_metric_not_counted(cyc));
    assert_false(nf_metric_not_counted(wall)); /* it has values */
    /* the note's words, read for runs stored before the flag */
    assert_false(nf_note_not_counted(NULL, "cycles"));
    const char *run_note = "counters <not counted>, stored without values: 'x' is set-user-ID";
    assert_true(nf_note_not_counted(run_note, "cycles"));
    assert_true(nf_note_not_counted(run_note, "ref-cycles"));
    assert_false(nf_note_not_counted(run_note, "cpu.irq")); /* a machine metric is no counter */
    /* import's, per event: the name whole, at a part's start */
    const char *perf = "each value is the mean of one 'perf stat -r' invocation; "
                       "'ref-cycles' was <not counted> in 2 of 3 invocations: stored without "
                       "values";
    assert_true(nf_note_not_counted(perf, "ref-cycles"));
    assert_false(nf_note_not_counted(perf, "cycles")); /* "-cycles'" is not "'cycles'" */
    const char *one = "'cycles' was <not counted> in 1 of 3 invocations: stored without values";
    assert_true(nf_note_not_counted(one, "cycles"));
    assert_false(nf_note_not_counted(one, "ref-cycles"));
    /* not a part's start */
    assert_false(nf_note_not_counted("my note: x 'cycles' was <not counted> in 1 of 3", "cycles"));
    nf_run_free(r);
}

static void test_primary(void **state)
{
    (void)state;
    struct nf_run *r = nf_run_new("l", "w");
    assert_null(nf_run_primary(r));
    struct nf_metric *a = nf_run_metric(r, "a", "", NF_BETTER_LOWER, 0);
    struct nf_metric *b = nf_run_metric(r, "b", "", NF_BETTER_LOWER, 1);
    assert_ptr_equal(nf_run_primary(r), b);
    b->primary = 0;
    assert_ptr_equal(nf_run_primary(r), a);
    assert_false(nf_metric_is_rate(a));
    a->better = NF_BETTER_HIGHER;
    assert_true(nf_metric_is_rate(a));
    /* a count (wakeups) is higher-is-better but no rate */
    struct nf_metric *w = nf_run_metric(r, "wakeups", "count", NF_BETTER_HIGHER, 0);
    assert_false(nf_metric_is_rate(w));
    struct nf_metric *q = nf_run_metric(r, "requests/s", "requests/s", NF_BETTER_HIGHER, 0);
    assert_true(nf_metric_is_rate(q));
    nf_run_free(r);
}

static void test_parse_numbers(void **state)
{
    (void)state;
    long v;
    double d;
    assert_int_equal(nf_parse_long("42", 0, 100, &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(nf_parse_long("-5", 1, 100, &v), -1);
    assert_int_equal(nf_parse_long("5x", 0, 100, &v), -1);
    assert_int_equal(nf_parse_long("", 0, 100, &v), -1);
    assert_int_equal(nf_parse_long("101", 0, 100, &v), -1);
    assert_int_equal(nf_parse_double("0.25", &d), 0);
    assert_true(d == 0.25);
    assert_int_equal(nf_parse_double("nan", &d), -1);
    assert_int_equal(nf_parse_double("1e", &d), -1);
}

static void test_split_words(void **state)
{
    (void)state;
    int n;
    char err[256];
    char **w = nf_split_words("  --pin 0 pipe  -l 20000 ", &n, err, sizeof(err));
    assert_int_equal(n, 5);
    assert_string_equal(w[0], "--pin");
    assert_string_equal(w[4], "20000");
    assert_null(w[5]);
    nf_free_words(w);
    w = nf_split_words("-- sh -c 'echo a b' \"x y\" a\\ b \"q\\\"q\"", &n, err, sizeof(err));
    assert_int_equal(n, 7);
    assert_string_equal(w[6], "q\"q");
    assert_string_equal(w[3], "echo a b");
    assert_string_equal(w[4], "x y");
    assert_string_equal(w[5], "a b");
    nf_free_words(w);
    w = nf_split_words("\"q\\\"q\" ''", &n, err, sizeof(err));
    assert_int_equal(n, 2);
    assert_string_equal(w[0], "q\"q");
    assert_string_equal(w[1], "");
    nf_free_words(w);
    w = nf_split_words("", &n, err, sizeof(err));
    assert_int_equal(n, 0);
    nf_free_words(w);
    assert_null(nf_split_words("pipe 'open", &n, err, sizeof(err)));
    assert_non_null(strstr(err, "unterminated ' quote"));
}

/* A label is one line of printable UTF-8; a refused one is shown escaped,
 * cut short without splitting a character. */
static void test_label_check(void **state)
{
    (void)state;
    char err[NF_ERR_LEN];
    assert_int_equal(nf_label_check("--label", "6.8.0-rc1 caf\xc3\xa9 (a b)", err, sizeof(err)), 0);
    assert_int_equal(nf_label_check("--label", "", err, sizeof(err)), -1);
    assert_string_equal(err, "--label: a label cannot be empty");
    assert_int_equal(nf_label_check("--label", "x\ny", err, sizeof(err)), -1);
    assert_string_equal(err, "--label 'x\\ny' contains a control character: a label is one "
                             "line of printable text");
    assert_int_equal(nf_label_check("v", "\\\t\r\x01\x7f\xc2\x85", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "v '\\\\\\t\\r\\x01\\x7f\\u0085' contains a control"));
    assert_int_equal(nf_label_check("v",
                                    "a\xff"
                                    "b",
                                    err, sizeof(err)),
                     -1);
    assert_string_equal(err, "v 'a\\xffb' is not UTF-8: a label is one line of printable text");
    char long_label[200];
    memset(long_label, 'a', sizeof(long_label));
    memcpy(long_label + 59, "\xe2\x82\xac", 3); /* a euro sign across byte 60 */
    long_label[150] = '\n';
    long_label[199] = 0;
    assert_int_equal(nf_label_check("v", long_label, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "v 'aaa"));
    assert_non_null(strstr(err, "\xe2\x82\xac...' contains a control character"));
    assert_null(strchr(err, '\n'));
}

/* A metric's name or unit is one word of printable UTF-8: no blank, no
 * control character, not empty; a refused one is shown escaped. */
static void test_metric_name_check(void **state)
{
    (void)state;
    char err[NF_ERR_LEN];
    assert_int_equal(nf_metric_name_check("--metric", "usecs/op", err, sizeof(err)), 0);
    assert_int_equal(nf_metric_name_check("--metric", "caf\xc3\xa9-p99.9", err, sizeof(err)), 0);
    assert_int_equal(nf_metric_name_check("--metric", "", err, sizeof(err)), -1);
    assert_string_equal(err, "--metric: a metric name cannot be empty");
    assert_int_equal(nf_metric_name_check("--metric", "x\ty", err, sizeof(err)), -1);
    assert_string_equal(err, "--metric 'x\\ty' contains a control character: a metric name is "
                             "one word of printable text");
    assert_int_equal(nf_metric_name_check("--metric", "a b", err, sizeof(err)), -1);
    assert_string_equal(err,
                        "--metric 'a b' contains a blank: a metric name is one word of printable "
                        "text");
    assert_int_equal(nf_metric_name_check("--metric",
                                          "a\xc2\xa0"
                                          "b",
                                          err, sizeof(err)),
                     -1);
    assert_non_null(strstr(err, "contains a blank"));
    assert_int_equal(nf_metric_name_check("--metric", "x\xc2\x85", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "'x\\u0085' contains a control character"));
    assert_int_equal(nf_metric_name_check("--metric", "x\xff", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "'x\\xff' is not UTF-8"));
    assert_int_equal(nf_metric_unit_check("--unit", "Mbit/s", err, sizeof(err)), 0);
    assert_int_equal(nf_metric_unit_check("--unit", "", err, sizeof(err)), -1);
    assert_string_equal(err, "--unit: a unit cannot be empty");
    assert_int_equal(nf_metric_unit_check("--unit", "m\ns", err, sizeof(err)), -1);
    assert_string_equal(err, "--unit 'm\\ns' contains a control character: a unit is one word "
                             "of printable text");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_push_and_running),
        cmocka_unit_test(test_not_counted),
        cmocka_unit_test(test_primary),
        cmocka_unit_test(test_parse_numbers),
        cmocka_unit_test(test_split_words),
        cmocka_unit_test(test_label_check),
        cmocka_unit_test(test_metric_name_check),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
