/* --format perf-stat: perf stat's own text output, over the real outputs in
 * tests/data/import (see its README) and written variants of them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/run.h"
#include "core/util.h"
#include "formats/import.h"

#define DATA "tests/data/import/"

static const char *one_label[] = {"L"};

/* Parse text (NUL-terminated) as --format perf-stat; NULL on failure,
 * with the message in err. */
static struct nf_run *parse_buf(const char *text, const char *name, struct nf_import_warnings *w,
                                char *err, size_t errlen)
{
    struct nf_import_opts o = {
        .format = "perf-stat", .name = name, .labels = one_label, .nlabels = 1, .warnings = w};
    struct nf_run **runs;
    size_t n;
    if (nf_import_parse(text, strlen(text), &o, &runs, &n, err, errlen))
        return NULL;
    assert_int_equal(n, 1);
    struct nf_run *r = runs[0];
    free(runs);
    return r;
}

static char *slurp(const char *file)
{
    char *path = nf_xasprintf(DATA "%s", file);
    FILE *f = fopen(path, "rb");
    size_t len;
    char *buf = f ? nf_read_stream(f, (size_t)1 << 30, &len) : NULL;
    if (f)
        fclose(f);
    if (!buf)
        fail_msg("cannot read %s (run from the repository root)", path);
    free(path);
    return buf;
}

static struct nf_run *parse_file(const char *file, struct nf_import_warnings *w)
{
    char *buf = slurp(file);
    char err[512];
    struct nf_run *r = parse_buf(buf, file, w, err, sizeof(err));
    if (!r)
        fail_msg("%s: %s", file, err);
    free(buf);
    return r;
}

/* The file fails with a message that starts with want. */
static void refused(const char *file, const char *want)
{
    char *buf = slurp(file);
    char err[512] = "";
    struct nf_run *r = parse_buf(buf, file, NULL, err, sizeof(err));
    if (r)
        fail_msg("%s parsed but should not", file);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("%s: got '%s', want it to start with '%s'", file, err, want);
    assert_null(strchr(err, '\n'));
    free(buf);
}

/* Text given inline fails with exactly want. */
static void refused_text(const char *text, const char *want)
{
    char err[512] = "";
    struct nf_run *r = parse_buf(text, "x", NULL, err, sizeof(err));
    if (r)
        fail_msg("'%s' parsed but should not", text);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("got '%s', want it to start with '%s'", err, want);
}

static double value(struct nf_run *r, const char *metric, size_t i)
{
    struct nf_metric *m = nf_run_find(r, metric);
    if (!m)
        fail_msg("no metric %s", metric);
    if (i >= m->n)
        fail_msg("%s has %zu values", metric, m->n);
    return m->values[i];
}

static const char *units(struct nf_run *r, const char *metric)
{
    return nf_run_find(r, metric)->unit;
}

/* perf stat -e ... -- CMD: the counts, <not supported> without values,
 * and the times as wall, user and sys in seconds. */
static void test_one_invocation(void **state)
{
    (void)state;
    struct nf_run *r = parse_file("perf-stat.txt", NULL);
    assert_string_equal(r->workload, "perf-stat");
    assert_int_equal(r->repeat, 1);
    assert_int_equal(r->nmetrics, 8);
    assert_true(value(r, "task-clock", 0) == 11.94);
    assert_string_equal(units(r, "task-clock"), "msec");
    assert_true(nf_run_find(r, "task-clock")->primary);
    assert_true(value(r, "context-switches", 0) == 2006);
    assert_string_equal(units(r, "context-switches"), "");
    assert_true(value(r, "page-faults", 0) == 1073);
    assert_int_equal(nf_run_find(r, "cycles")->supported, 0);
    assert_int_equal(nf_run_find(r, "instructions")->n, 0);
    assert_true(value(r, "wall", 0) == 0.028601266);
    assert_string_equal(units(r, "wall"), "seconds");
    assert_false(nf_run_find(r, "wall")->primary);
    assert_true(value(r, "user", 0) == 0.006157);
    assert_true(value(r, "sys", 0) == 0.007054);
    assert_null(strstr(r->note, "perf stat -r"));
    assert_string_equal(r->note, "imported from perf-stat.txt (perf-stat)");
    nf_run_free(r);
}

/* perf stat --null: nothing but the times; wall is the primary. */
static void test_null(void **state)
{
    (void)state;
    struct nf_run *r = parse_file("perf-stat-null.txt", NULL);
    assert_int_equal(r->nmetrics, 3);
    assert_true(value(r, "wall", 0) == 0.001739417);
    assert_true(nf_run_find(r, "wall")->primary);
    assert_true(value(r, "sys", 0) == 0);
    nf_run_free(r);

    /* -r 3 --table: the table is skipped, the mean is the value. */
    r = parse_file("perf-stat-null-r3-table.txt", NULL);
    assert_int_equal(r->nmetrics, 1);
    assert_int_equal(nf_run_find(r, "wall")->n, 1);
    assert_true(value(r, "wall", 0) == 0.01856);
    assert_non_null(strstr(r->note, "each value is the mean of one 'perf stat -r' invocation"));
    nf_run_free(r);

    /* A mail's lines of "N seconds time elapsed ( +- x% )" (grep'd from
     * three perf stat --null -r 10 invocations): three repetitions. */
    r = parse_file("perf-stat-elapsed.txt", NULL);
    assert_int_equal(r->repeat, 3);
    assert_true(value(r, "wall", 0) == 13.384416727 && value(r, "wall", 2) == 13.387434890);
    assert_non_null(strstr(r->note, "perf stat -r"));
    nf_run_free(r);
}

/* -r: the mean, with the same note as -x, gives; invocations appended
 * to one file (2>>, or -o --append) are repetitions. */
static void test_repeat_and_append(void **state)
{
    (void)state;
    struct nf_run *r = parse_file("perf-stat-r3.txt", NULL);
    assert_int_equal(r->repeat, 1);
    assert_true(value(r, "task-clock", 0) == 14.20);
    assert_true(value(r, "context-switches", 0) == 2005);
    assert_true(value(r, "wall", 0) == 0.0343);
    assert_null(nf_run_find(r, "user")); /* perf prints no user, sys with -r */
    assert_non_null(strstr(r->note, "each value is the mean of one 'perf stat -r' invocation"));
    nf_run_free(r);

    r = parse_file("perf-stat-3x.txt", NULL);
    assert_int_equal(r->repeat, 3);
    assert_true(value(r, "task-clock", 0) == 11.81 && value(r, "task-clock", 1) == 9.72 &&
                value(r, "task-clock", 2) == 10.93);
    assert_true(value(r, "wall", 2) == 0.016381053 && value(r, "user", 2) == 0);
    assert_null(strstr(r->note, "perf stat -r"));
    nf_run_free(r);

    setenv("TZ", "UTC", 1);
    tzset();
    r = parse_file("perf-stat-append.txt", NULL);
    assert_int_equal(r->repeat, 3);
    assert_true(value(r, "task-clock", 0) == 10.74 && value(r, "task-clock", 2) == 9.53);
    assert_true(value(r, "wall", 1) == 0.02774);
    assert_int_equal(nf_run_find(r, "cycles")->supported, 0);
    assert_string_equal(r->started, "2026-12-01T03:11:00Z");
    assert_non_null(strstr(r->note, "perf stat -r"));
    nf_run_free(r);
}

/* perf prints numbers in the locale's LC_NUMERIC (real outputs of five
 * locales). */
static void test_locales(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double task_clock, switches, faults, wall;
    } cases[] = {
        {"perf-stat-en_US.txt", 1267.69, 800362, 1070, 2.80560237},
        {"perf-stat-de_DE.txt", 848.45, 400189, 1080, 3.56},
        {"perf-stat-fr_FR.txt", 1486.36, 800480, 1077, 2.509125615},
        {"perf-stat-de_CH.txt", 1277.74, 800332, 1075, 2.901407383},
        {"perf-stat-en_IN.txt", 1275.06, 800295, 1080, 2.583294057},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct nf_run *r = parse_file(cases[i].file, NULL);
        if (value(r, "task-clock", 0) != cases[i].task_clock ||
            value(r, "context-switches", 0) != cases[i].switches ||
            value(r, "page-faults", 0) != cases[i].faults || value(r, "wall", 0) != cases[i].wall)
            fail_msg("%s: %g %g %g %g", cases[i].file, value(r, "task-clock", 0),
                     value(r, "context-switches", 0), value(r, "page-faults", 0),
                     value(r, "wall", 0));
        nf_run_free(r);
    }
    /* Counts end in groups of three; two decimals (six before perf 4.x)
     * follow the point. */
    static const struct {
        const char *count;
        double want;
    } counts[] = {
        {"1,234,567", 1234567},
        {"1.234.567,89", 1234567.89},
        {"12,34,567", 1234567},
        {"1'234", 1234},
        {"0,37", 0.37},
        {"12020.049593", 12020.049593},
        {"12,020.049593", 12020.049593},
        {"999", 999},
        {"1.234", 1234},
    };
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        char *text =
            nf_xasprintf(" Performance counter stats for 'x':\n\n %s ev\n", counts[i].count);
        char err[256];
        struct nf_run *r = parse_buf(text, "x", NULL, err, sizeof(err));
        if (!r)
            fail_msg("%s: %s", counts[i].count, err);
        if (value(r, "ev", 0) != counts[i].want)
            fail_msg("%s read as %.17g", counts[i].count, value(r, "ev", 0));
        nf_run_free(r);
        free(text);
    }
    static const char *const bad[] = {"1,234,56", "1,23,4",       "1.234.56",
                                      "0,123",    "1.234,567.89", "1'23"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *text = nf_xasprintf(" Performance counter stats for 'x':\n\n %s ev\n", bad[i]);
        char *want = nf_xasprintf("x:3: expected a line of perf stat's output ('COUNT [UNIT] "
                                  "EVENT'), got '%s ev'",
                                  bad[i]);
        refused_text(text, want);
        free(want);
        free(text);
    }
}

/* As a mail quotes it: "> ", multiplexed counters, and the second metric
 * of instructions on a line of its own that carries its running
 * percentage. */
static void test_mail(void **state)
{
    (void)state;
    struct nf_run *r = parse_file("perf-stat-mail.txt", NULL);
    assert_int_equal(r->nmetrics, 11);
    assert_true(value(r, "task-clock:u", 0) == 16839.74);
    assert_true(nf_run_find(r, "task-clock:u")->primary);
    assert_null(nf_run_find(r, "task-clock:u")->running_pct);
    struct nf_metric *cy = nf_run_find(r, "cycles:u");
    assert_true(cy->values[0] == 333773107 && cy->running_pct[0] == 83.72);
    struct nf_metric *in = nf_run_find(r, "instructions:u");
    assert_true(in->values[0] == 84456137 && in->running_pct[0] == 83.01);
    assert_true(nf_run_find(r, "branches:u")->running_pct[0] == 83.52);
    assert_true(value(r, "wall", 0) == 14.5464);
    assert_non_null(strstr(r->note, "perf stat -r"));
    nf_run_free(r);

    /* Before perf 4.x: the unit after the event, the running percentage in
     * brackets; with --no-merge an event is "NAME [PMU]". */
    const char old[] = " Performance counter stats for 'x':\n\n"
                       "     12020.049593 task-clock (msec)   #    0.999 CPUs utilized\n"
                       "    1,234,567,890 cycles [cpu]        #    3.000 GHz   [83.72%]\n"
                       "       1.001301370 seconds time elapsed\n";
    char err[256];
    r = parse_buf(old, "x", NULL, err, sizeof(err));
    if (!r)
        fail_msg("%s", err);
    assert_true(value(r, "task-clock", 0) == 12020.049593);
    assert_string_equal(units(r, "task-clock"), "msec");
    struct nf_metric *c = nf_run_find(r, "cycles [cpu]");
    assert_non_null(c);
    assert_true(c->values[0] == 1234567890 && c->running_pct[0] == 83.72);
    nf_run_free(r);
}

/* perf stat -D 100: "Events disabled/enabled" skipped; <not counted> in
 * one invocation of three stored without values, with a warning. */
static void test_not_counted(void **state)
{
    (void)state;
    struct nf_import_warnings w = {0};
    struct nf_run *r = parse_file("perf-stat-delay.txt", &w);
    assert_int_equal(r->repeat, 3);
    assert_int_equal(nf_run_find(r, "task-clock")->supported, 0);
    assert_int_equal(nf_run_find(r, "task-clock")->n, 0);
    assert_true(value(r, "wall", 1) == 0.000002932);
    assert_true(nf_run_find(r, "wall")->primary);
    assert_int_equal(w.n, 2);
    assert_non_null(strstr(w.v[0], "'task-clock' was <not counted> in 1 of 3 invocations"));
    nf_import_warnings_free(&w);
    nf_run_free(r);
}

static void test_refused(void **state)
{
    (void)state;
    refused("perf-stat-interval.txt",
            "perf-stat-interval.txt:3: perf stat interval output (-I: a column of times) is not "
            "one measurement per invocation; run perf stat without -I, -A, -G and --per-*");
    refused("perf-stat-percpu.txt", "perf-stat-percpu.txt:6: perf stat per-CPU output (-A");
    refused("perf-stat-per-core.txt", "perf-stat-per-core.txt:6: perf stat per-core output");
    refused("perf-stat-per-thread.txt", "perf-stat-per-thread.txt:6: perf stat per-thread output");
    refused("perf-stat-cgroup.txt", "perf-stat-cgroup.txt:6: perf stat per-cgroup output (-G");
    refused_text(" Performance counter stats for 'x':\n\n 5 context-switches /\n",
                 "x:3: perf stat per-cgroup output");
    refused_text("     1,001301370              20,23 msec task-clock\n",
                 "x:1: perf stat interval output (-I: the first column is a time in seconds)");

    refused("bad-perf-stat-value.txt",
            "bad-perf-stat-value.txt:5: expected a line of perf stat's output ('COUNT [UNIT] "
            "EVENT'), got '20x6      context-switches");
    /* The command's own output in the file (2>&1). */
    refused("bad-perf-stat-mixed.txt",
            "bad-perf-stat-mixed.txt:1: expected a line of perf stat's output (perf stat -o FILE "
            "keeps the command's own output out of FILE), got '# Running 'sched/pipe' benchmark:'");
    refused_text("     Total time: 0.028 [sec]\n",
                 "x:1: expected a line of perf stat's output ('COUNT [UNIT] EVENT')");
    /* A count outside perf's "Performance counter stats" section. */
    refused_text("1000 ops\n", "x:1: expected perf's 'Performance counter stats for' line before "
                               "a count, got '1000 ops'");
    refused_text(" Performance counter stats for 'x':\n\n 1 a\n 2 seconds time elapsed\n 3 a\n",
                 "x:5: expected perf's 'Performance counter stats for' line before a count");
    /* A derived metric's line not right after its event's. */
    refused_text(" Performance counter stats for 'x':\n\n 1 a\n\n   #  0.83 stalled\n",
                 "x:5: expected a derived metric's line ('# N UNIT') right after its event's");
    refused_text(" Performance counter stats for 'x' (3 runs)\n",
                 "x:1: expected perf's \"Performance counter stats for '...':\"");
    refused_text(" Performance counter stats for 'x':\n\n 1 a  ( +- 1.x% )\n",
                 "x:3: expected '(NN.NN%)' or '( +- N.NN% )', got '( +- 1.x% )'");
    refused_text(" Performance counter stats for 'x':\n\n 1 a  (150.00%)\n",
                 "x:3: expected '(NN.NN%)' or '( +- N.NN% )', got '(150.00%)'");
    refused_text(" Performance counter stats for 'x':\n\n 1 a b c d\n",
                 "x:3: expected a line of perf stat's output ('COUNT [UNIT] EVENT')");
    refused_text(" Performance counter stats for 'x':\n\n <not here> a\n",
                 "x:3: expected <not supported> or <not counted>");
    refused_text("x seconds time elapsed\n",
                 "x:1: expected 'N seconds time elapsed' (N a number of seconds)");
    refused_text("1.5 seconds time elapsed (50.00%)\n",
                 "x:1: expected nothing after 'seconds time elapsed' but '( +- N.NN% )'");
    refused_text("1.5 seconds time elapsed", "x:1: expected a whole line, ending with a newline");
    refused_text("\n\n", "x:2: expected at least one line of perf stat's output (a count, or 'N "
                         "seconds time elapsed')");
    /* Every invocation counts the same events. */
    refused_text(" Performance counter stats for 'x':\n\n 1 a\n 1 b\n"
                 " Performance counter stats for 'x':\n\n 2 a\n",
                 "x:7: expected event 'b' in the block starting at line 7");
}

/* The formats that are not text say where text belongs. */
static void test_other_formats_hint(void **state)
{
    (void)state;
    char *buf = slurp("perf-stat.txt");
    char err[512];
    struct nf_import_opts o = {
        .format = "perf-stat-csv", .name = "t", .labels = one_label, .nlabels = 1};
    struct nf_run **runs;
    size_t n;
    assert_int_equal(nf_import_parse(buf, strlen(buf), &o, &runs, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "t:2: expected 'value,unit,event,...' (perf stat -x,)"));
    assert_non_null(strstr(err, "(perf stat's text output: --format perf-stat)"));
    o.format = "perf-stat-json";
    assert_int_equal(nf_import_parse(buf, strlen(buf), &o, &runs, &n, err, sizeof(err)), -1);
    assert_string_equal(err, "t:2: expected one JSON object per line (perf stat -j) (perf stat's "
                             "text output: --format perf-stat)");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_invocation),
        cmocka_unit_test(test_null),
        cmocka_unit_test(test_repeat_and_append),
        cmocka_unit_test(test_locales),
        cmocka_unit_test(test_mail),
        cmocka_unit_test(test_not_counted),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_other_formats_hint),
    };
    return cmocka_run_group_tests_name("import_perf_text", tests, NULL, NULL);
}
