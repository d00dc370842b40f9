/* Importers over the real outputs in tests/data/import and their malformed
 * variants (see tests/data/import/README). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/run.h"
#include "core/util.h"
#include "formats/import.h"
#include "store/store.h"

#define DATA "tests/data/import/"

static const char *one_label[] = {"L"};

static struct nf_run **parse(const char *file, const char *format, const char *const *labels,
                             size_t nlabels, size_t *n, char *err, size_t errlen)
{
    char *path = nf_xasprintf(DATA "%s", file);
    /* As import reads it: every byte (nf_read_file would drop the last
     * newline, which perf-stat files must have). */
    FILE *f = fopen(path, "rb");
    size_t len;
    char *buf = f ? nf_read_stream(f, (size_t)1 << 30, &len) : NULL;
    if (f)
        fclose(f);
    if (!buf)
        fail_msg("cannot read %s (run from the repository root)", path);
    struct nf_import_opts o = {
        .format = format, .name = file, .labels = labels, .nlabels = nlabels};
    struct nf_run **runs = NULL;
    int rc = nf_import_parse(buf, strlen(buf), &o, &runs, n, err, errlen);
    free(buf);
    free(path);
    return rc == 0 ? runs : NULL;
}

static struct nf_run **parse_ok(const char *file, const char *format, size_t *n)
{
    char err[512];
    struct nf_run **runs = parse(file, format, one_label, 1, n, err, sizeof(err));
    if (!runs)
        fail_msg("%s: %s", file, err);
    return runs;
}

static void expect_error(const char *file, const char *format, const char *want)
{
    char err[512] = "";
    size_t n;
    struct nf_run **runs = parse(file, format, one_label, 1, &n, err, sizeof(err));
    if (runs)
        fail_msg("%s parsed but should not", file);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("%s: got '%s', want it to start with '%s'", file, err, want);
    assert_null(strchr(err, '\n'));
}

static void test_perf_csv_r3(void **state)
{
    (void)state;
    size_t n;
    struct nf_run **runs = parse_ok("perf-stat-r3.csv", "perf-stat-csv", &n);
    assert_int_equal(n, 1);
    struct nf_run *r = runs[0];
    assert_string_equal(r->label, "L");
    assert_string_equal(r->workload, "perf-stat");
    assert_int_equal(r->nmetrics, 3);
    struct nf_metric *tc = nf_run_find(r, "task-clock");
    assert_string_equal(tc->unit, "msec");
    assert_int_equal(tc->n, 1);
    assert_true(tc->values[0] == 14.87);
    assert_true(tc->primary);
    assert_true(nf_run_find(r, "context-switches")->values[0] == 2001);
    struct nf_metric *cy = nf_run_find(r, "cycles");
    assert_int_equal(cy->supported, 0); /* <not supported>, never 0 */
    assert_int_equal(cy->n, 0);
    assert_non_null(strstr(r->note, "mean of one 'perf stat -r'"));
    nf_runs_free(runs, n);
}

static void test_perf_csv_single_and_o(void **state)
{
    (void)state;
    size_t n;
    struct nf_run **runs = parse_ok("perf-stat-single.csv", "perf-stat-csv", &n);
    assert_true(nf_run_find(runs[0], "task-clock")->values[0] == 11.59);
    assert_null(strstr(runs[0]->note, "perf stat -r"));
    nf_runs_free(runs, n);

    runs = parse_ok("perf-stat-o.csv", "perf-stat-csv", &n);
    assert_true(nf_run_find(runs[0], "task-clock")->values[0] == 11.87);
    assert_true(nf_run_find(runs[0], "context-switches")->values[0] == 2003);
    nf_runs_free(runs, n);
    runs = parse_ok("perf-stat-o-single.csv", "perf-stat-csv", &n);
    assert_true(nf_run_find(runs[0], "context-switches")->values[0] == 2000);
    nf_runs_free(runs, n);
}

/* Three appended invocations: three repetitions; the header dates the run. */
static void test_perf_csv_append(void **state)
{
    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    size_t n;
    struct nf_run **runs = parse_ok("perf-stat-append.csv", "perf-stat-csv", &n);
    struct nf_run *r = runs[0];
    struct nf_metric *tc = nf_run_find(r, "task-clock");
    assert_int_equal(tc->n, 3);
    assert_true(tc->values[0] == 29.27 && tc->values[1] == 18.58 && tc->values[2] == 25.17);
    assert_int_equal(nf_run_find(r, "context-switches")->n, 3);
    assert_int_equal(r->repeat, 3);
    assert_string_equal(r->started, "2026-11-30T03:25:58Z");
    nf_runs_free(runs, n);
}

/* A "# started on" date whose year is not four digits is no run's start
 * (a run's JSON is read back only with one): the import time stays. */
static void test_perf_started_year(void **state)
{
    (void)state;
    const char csv[] = "# started on Mon Nov 30 03:25:58 0226\n\n1,,a,10,100.00,,\n";
    char err[256];
    struct nf_import_opts o = {
        .format = "perf-stat-csv", .name = "x", .labels = one_label, .nlabels = 1};
    struct nf_run **runs;
    size_t n;
    assert_int_equal(nf_import_parse(csv, strlen(csv), &o, &runs, &n, err, sizeof(err)), 0);
    json_t *j = nf_run_to_json(runs[0]);
    struct nf_run *back = nf_run_from_json(j, err, sizeof(err));
    if (!back)
        fail_msg("started '%s': %s", runs[0]->started, err);
    assert_string_equal(back->started, runs[0]->started);
    assert_int_equal(strncmp(runs[0]->started, "20", 2), 0);
    nf_run_free(back);
    json_decref(j);
    nf_runs_free(runs, n);
}

/* perf stat -x, and -j in a locale with a decimal comma (real, de_DE):
 * -x, splits "100,00" into two fields (read as -G before), -j is not
 * JSON.  Both are refused with the reason. */
static void test_perf_comma_locale(void **state)
{
    (void)state;
    const char *want = "expected numbers with a decimal point: perf stat -x, ran in a locale "
                       "with a decimal comma (100,00), which it does not quote; run it with "
                       "LC_ALL=C";
    char *full = nf_xasprintf("perf-stat-de_DE.csv:1: %s", want);
    expect_error("perf-stat-de_DE.csv", "perf-stat-csv", full);
    free(full);
    full = nf_xasprintf("perf-stat-de_DE-counts.csv:1: %s", want);
    expect_error("perf-stat-de_DE-counts.csv", "perf-stat-csv", full);
    free(full);
    expect_error("perf-stat-de_DE.json", "perf-stat-json",
                 "perf-stat-de_DE.json:1: expected numbers with a decimal point: perf stat -j "
                 "ran in a locale with a decimal comma");
}

static void test_perf_json(void **state)
{
    (void)state;
    size_t n;
    struct nf_run **runs = parse_ok("perf-stat-r3.json", "perf-stat-json", &n);
    assert_true(nf_run_find(runs[0], "task-clock")->values[0] == 13.122428);
    assert_true(nf_run_find(runs[0], "context-switches")->values[0] == 2002);
    assert_int_equal(nf_run_find(runs[0], "cycles")->supported, 0);
    assert_non_null(strstr(runs[0]->note, "perf stat -r"));
    nf_runs_free(runs, n);

    runs = parse_ok("perf-stat-3x.json", "perf-stat-json", &n);
    assert_int_equal(nf_run_find(runs[0], "task-clock")->n, 3);
    assert_int_equal(runs[0]->repeat, 3); /* a repeated event starts a block */
    assert_null(strstr(runs[0]->note, "perf stat -r"));
    nf_runs_free(runs, n);
    runs = parse_ok("perf-stat-single.json", "perf-stat-json", &n);
    assert_true(nf_run_find(runs[0], "task-clock")->values[0] == 13.046094);
    nf_runs_free(runs, n);
}

/* Multiplexed counters: the running percentage is kept. */
static void test_perf_scaled(void **state)
{
    (void)state;
    const char csv[] = "100,,instructions,50000,62.50,,\n200,,branches,50000,100.00,,\n"
                       "110,,instructions,50000,100.00,,\n210,,branches,50000,100.00,,\n";
    struct nf_import_opts o = {
        .format = "perf-stat-csv", .name = "x", .labels = one_label, .nlabels = 1};
    struct nf_run **runs;
    size_t n;
    char err[256];
    assert_int_equal(nf_import_parse(csv, strlen(csv), &o, &runs, &n, err, sizeof(err)), 0);
    struct nf_metric *m = nf_run_find(runs[0], "instructions");
    assert_int_equal(m->n, 2);
    assert_non_null(m->running_pct);
    assert_true(m->running_pct[0] == 62.5 && m->running_pct[1] == 100.0);
    assert_null(nf_run_find(runs[0], "branches")->running_pct);
    assert_true(nf_run_find(runs[0], "instructions")->primary);
    nf_runs_free(runs, n);

    /* Without headers, an event seen again starts the next invocation, which
     * must count every event again. */
    const char two[] = "1,,a,10,100.00,,\n2,,b,10,100.00,,\n3,,a,10,100.00,,\n";
    assert_int_equal(nf_import_parse(two, strlen(two), &o, &runs, &n, err, sizeof(err)), -1);
    assert_string_equal(err, "x:3: expected event 'b' in the block starting at line 3 "
                             "(every invocation must count the same events)");
}

static void test_hyperfine(void **state)
{
    (void)state;
    char err[256];
    size_t n;
    struct nf_run **runs =
        parse("hyperfine-2cmd.json", "hyperfine-json", NULL, 0, &n, err, sizeof(err));
    assert_non_null(runs);
    assert_int_equal(n, 2);
    assert_string_equal(runs[0]->label, "perf bench sched pipe -l 1000");
    assert_string_equal(runs[1]->label, "perf bench sched pipe -l 2000");
    assert_string_equal(runs[0]->workload, "command");
    assert_int_equal(runs[0]->nargs, 1);
    struct nf_metric *w = nf_run_find(runs[0], "wall");
    assert_string_equal(w->unit, "seconds");
    assert_int_equal(w->n, 5);
    assert_true(w->values[0] == 0.015228143000000001);
    assert_true(w->primary);
    nf_runs_free(runs, n);

    const char *two[] = {"base", "patched"};
    runs = parse("hyperfine-2cmd.json", "hyperfine-json", two, 2, &n, err, sizeof(err));
    assert_string_equal(runs[1]->label, "patched");
    nf_runs_free(runs, n);
    const char *three[] = {"a", "b", "c"};
    assert_null(parse("hyperfine-2cmd.json", "hyperfine-json", three, 3, &n, err, sizeof(err)));
    assert_non_null(strstr(err, "expected 2 --label"));
}

static void test_values(void **state)
{
    (void)state;
    size_t n;
    struct nf_run **runs = parse_ok("values.txt", "values", &n);
    struct nf_metric *m = nf_run_find(runs[0], "value");
    assert_int_equal(m->n, 4);
    assert_true(m->values[2] == 6.08 && m->values[3] == 6.11);
    nf_runs_free(runs, n);

    const char text[] = "1\n2\n";
    struct nf_import_opts o = {.format = "values",
                               .name = "v",
                               .labels = one_label,
                               .nlabels = 1,
                               .metric = "usecs/op",
                               .unit = "usecs/op",
                               .better = NF_BETTER_HIGHER};
    char err[256];
    assert_int_equal(nf_import_parse(text, strlen(text), &o, &runs, &n, err, sizeof(err)), 0);
    m = nf_run_find(runs[0], "usecs/op");
    assert_non_null(m);
    assert_int_equal(m->better, NF_BETTER_HIGHER);
    nf_runs_free(runs, n);
    const char *bad[] = {"nan\n", "0x10\n", "1e999\n", "inf\n", "1,5\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(nf_import_parse(bad[i], strlen(bad[i]), &o, &runs, &n, err, sizeof(err)),
                         -1);
        assert_true(strncmp(err, "v:1: expected one number per line, got '", 40) == 0);
    }
}

static void test_json_roundtrip(void **state)
{
    (void)state;
    size_t n;
    char err[256];
    struct nf_run **runs = parse("noisefloor-export.json", "json", NULL, 0, &n, err, sizeof(err));
    assert_non_null(runs);
    assert_int_equal(n, 2);
    assert_string_equal(runs[0]->label, "aa");
    assert_int_equal(runs[1]->id, 2);
    assert_non_null(runs[0]->env);
    /* Parsed → JSON equals the file's runs exactly. */
    char *buf = nf_read_file(DATA "noisefloor-export.json");
    json_t *file = json_loads(buf, 0, NULL);
    for (size_t i = 0; i < n; i++) {
        json_t *j = nf_run_to_json(runs[i]);
        assert_true(json_equal(j, json_array_get(json_object_get(file, "runs"), i)));
        json_decref(j);
    }
    json_decref(file);
    free(buf);
    nf_runs_free(runs, n);
}

static void test_malformed(void **state)
{
    (void)state;
    expect_error("bad-perf-stat-value.csv", "perf-stat-csv",
                 "bad-perf-stat-value.csv:2: expected a count or <not supported> in field 1, "
                 "got '20x1'");
    expect_error("bad-perf-stat-pct.csv", "perf-stat-csv",
                 "bad-perf-stat-pct.csv:2: expected the running percentage");
    expect_error("bad-perf-stat-block.csv", "perf-stat-csv",
                 "bad-perf-stat-block.csv:7: expected event 'cycles'");
    expect_error("bad-perf-stat-line.json", "perf-stat-json",
                 "bad-perf-stat-line.json:2: expected one JSON object per line");
    expect_error("bad-perf-stat-value.json", "perf-stat-json",
                 "bad-perf-stat-value.json:2: expected \"counter-value\" a number");
    expect_error("bad-hyperfine-times.json", "hyperfine-json",
                 "bad-hyperfine-times.json:3: expected \"times\" of result 1");
    expect_error("bad-hyperfine-truncated.json", "hyperfine-json",
                 "bad-hyperfine-truncated.json:15: expected JSON");
    expect_error("bad-values.txt", "values",
                 "bad-values.txt:4: expected one number per line, got 'six point one'");
    expect_error("bad-export.json", "json",
                 "bad-export.json:166: expected a run as noisefloor exports it (run 2: ");
    /* Right file, wrong format: still one clear line. */
    expect_error("perf-stat-r3.csv", "perf-stat-json", "perf-stat-r3.csv:1: expected one JSON");
    expect_error("perf-stat-r3.json", "perf-stat-csv", "perf-stat-r3.json:1: expected");
    expect_error("hyperfine-2cmd.json", "json", "hyperfine-2cmd.json:1: expected {\"runs\"");
    expect_error("values.txt", "hyperfine-json", "values.txt:1: expected JSON");
}

static struct nf_run **parse_text(const char *text, const char *format, char *err, size_t errlen)
{
    struct nf_import_opts o = {.format = format, .name = "x", .labels = one_label, .nlabels = 1};
    struct nf_run **runs;
    size_t n;
    if (nf_import_parse(text, strlen(text), &o, &runs, &n, err, errlen))
        return NULL;
    assert_int_equal(n, 1);
    return runs;
}

/* perf writes a second derived metric of an event on a line of its own
 * (-x,: empty fields first; -j: an object of only the metric): skipped,
 * the events are kept. */
static void test_perf_metric_lines(void **state)
{
    (void)state;
    size_t n;
    struct nf_run **runs = parse_ok("perf-stat-metrics.csv", "perf-stat-csv", &n);
    struct nf_run *r = runs[0];
    assert_int_equal(r->nmetrics, 10);
    struct nf_metric *in = nf_run_find(r, "instructions:u");
    assert_true(in->values[0] == 84456137 && in->running_pct[0] == 83.01);
    assert_true(nf_run_find(r, "branches:u")->values[0] == 34097544);
    assert_null(nf_run_find(r, "stalled cycles per insn"));
    assert_true(nf_run_find(r, "task-clock:u")->primary);
    assert_non_null(strstr(r->note, "perf stat -r"));
    nf_runs_free(runs, n);

    runs = parse_ok("perf-stat-metrics.json", "perf-stat-json", &n);
    assert_int_equal(runs[0]->nmetrics, 5);
    assert_true(nf_run_find(runs[0], "instructions:u")->values[0] == 84456137);
    assert_true(nf_run_find(runs[0], "branch-misses:u")->values[0] == 8038902);
    nf_runs_free(runs, n);

    char err[256];
    /* Fewer leading fields (another perf version), a metric perf could
     * not print (empty value), two blocks. */
    const char csv[] = "100,,instructions,50,100.00,1.00,insn per cycle\n"
                       ",,,,0.50,stalled cycles per insn\n"
                       ",,,,,,,stalled cycles per insn\n"
                       "110,,instructions,50,100.00,1.00,insn per cycle\n"
                       ",,,,0.50,stalled cycles per insn\n";
    runs = parse_text(csv, "perf-stat-csv", err, sizeof(err));
    assert_non_null(runs);
    assert_int_equal(nf_run_find(runs[0], "instructions")->n, 2);
    assert_int_equal(runs[0]->repeat, 2);
    nf_runs_free(runs, 1);
    /* Not after an event: refused. */
    assert_null(
        parse_text(",,,,,,0.83,stalled cycles per insn\n", "perf-stat-csv", err, sizeof(err)));
    assert_string_equal(err, "x:1: expected a derived metric's line right after its event's line");
    assert_null(
        parse_text("1,,a,10,100.00,,\n\n,,,,,,0.83,x\n", "perf-stat-csv", err, sizeof(err)));
    assert_string_equal(err, "x:3: expected a derived metric's line right after its event's line");
    assert_null(parse_text("# started on Mon Nov 30 03:25:58 2026\n,,,,,,0.83,x\n", "perf-stat-csv",
                           err, sizeof(err)));
    assert_non_null(strstr(err, "x:2: expected a derived metric's line"));
    /* Too few fields for perf's metric line, or no unit: malformed. */
    assert_null(parse_text("1,,a,10,100.00,,\n,,,0.83,x\n", "perf-stat-csv", err, sizeof(err)));
    assert_non_null(strstr(err, "x:2: expected 'value,unit,event,...'"));
    assert_null(parse_text("1,,a,10,100.00,,\n,,,,,0.83,\n", "perf-stat-csv", err, sizeof(err)));
    assert_non_null(strstr(err, "x:2: expected"));
    assert_null(parse_text("{\"metric-value\" : 0.83, \"metric-unit\" : \"x\"}\n", "perf-stat-json",
                           err, sizeof(err)));
    assert_string_equal(err, "x:1: expected a derived metric's line right after its event's line");
}

/* <not counted> in some invocations (perf stat -D 100 of commands that
 * ended before and after the delay): the event is stored without values,
 * as unsupported, never 0, with a warning and a note. */
static void test_perf_not_counted(void **state)
{
    (void)state;
    char *buf = nf_read_file(DATA "perf-stat-not-counted.csv");
    assert_non_null(buf);
    size_t len = strlen(buf);
    buf = nf_xrealloc(buf, len + 2);
    strcpy(buf + len, "\n"); /* nf_read_file drops the last newline */
    struct nf_import_warnings w = {0};
    struct nf_import_opts o = {.format = "perf-stat-csv",
                               .name = "nc.csv",
                               .labels = one_label,
                               .nlabels = 1,
                               .warnings = &w};
    struct nf_run **runs;
    size_t n;
    char err[256];
    assert_int_equal(nf_import_parse(buf, strlen(buf), &o, &runs, &n, err, sizeof(err)), 0);
    struct nf_run *r = runs[0];
    assert_int_equal(r->repeat, 5);
    struct nf_metric *tc = nf_run_find(r, "task-clock");
    assert_int_equal(tc->supported, 0);
    assert_int_equal(tc->n, 0);
    assert_null(tc->running_pct);
    assert_int_equal(nf_run_find(r, "page-faults")->supported, 0);
    struct nf_metric *d = nf_run_find(r, "duration_time");
    assert_int_equal(d->n, 5);
    assert_true(d->values[1] == 3083);
    assert_true(d->primary);
    assert_non_null(strstr(r->note, "'task-clock' was <not counted> in 2 of 5 invocations: "
                                    "stored without values"));
    assert_int_equal(w.n, 2);
    assert_string_equal(w.v[0], "nc.csv: 'task-clock' was <not counted> in 2 of 5 invocations (it "
                                "never ran in them: multiplexed out, or enabled too late); "
                                "stored without values, as unsupported");
    assert_non_null(strstr(w.v[1], "'page-faults' was <not counted> in 2 of 5"));
    nf_runs_free(runs, n);

    /* <not counted> in every invocation: said too; -j the same way. */
    const char json[] = "{\"counter-value\" : \"<not counted>\", \"unit\" : \"\", "
                        "\"event\" : \"a\"}\n{\"counter-value\" : \"1.000000\", \"event\" : "
                        "\"b\"}\n{\"counter-value\" : \"<not counted>\", \"event\" : \"a\"}\n"
                        "{\"counter-value\" : \"2.000000\", \"event\" : \"b\"}\n";
    o.format = "perf-stat-json";
    assert_int_equal(nf_import_parse(json, strlen(json), &o, &runs, &n, err, sizeof(err)), 0);
    assert_int_equal(nf_run_find(runs[0], "a")->supported, 0);
    assert_int_equal(nf_run_find(runs[0], "b")->n, 2);
    assert_int_equal(w.n, 3);
    assert_non_null(strstr(w.v[2], "'a' was <not counted> in 2 of 2 invocations"));
    nf_runs_free(runs, n);

    /* A failed parse adds no warning. */
    const char bad[] = "<not counted>,,a,0,100.00,,\n1,,b,10,100.00,,\nx,,a,0,100.00,,\n";
    o.format = "perf-stat-csv";
    assert_int_equal(nf_import_parse(bad, strlen(bad), &o, &runs, &n, err, sizeof(err)), -1);
    assert_int_equal(w.n, 3);

    /* <not supported> in some invocations and counted in others is not one
     * machine's output: refused, either way round. */
    const char mix1[] = "<not supported>,,a,0,100.00,,\n1,,a,10,100.00,,\n";
    assert_int_equal(nf_import_parse(mix1, strlen(mix1), &o, &runs, &n, err, sizeof(err)), -1);
    assert_string_equal(err, "nc.csv:2: expected 'a' to be <not supported> in every block or in "
                             "none (output of one machine)");
    const char mix2[] = "1,,a,10,100.00,,\n<not counted>,,a,0,100.00,,\n"
                        "<not supported>,,a,0,100.00,,\n";
    assert_int_equal(nf_import_parse(mix2, strlen(mix2), &o, &runs, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "nc.csv:3: expected 'a' to be <not supported>"));
    nf_import_warnings_free(&w);
    assert_int_equal(w.n, 0);
    free(buf);
}

/* More events than a run holds metrics: refused with the line, not a crash. */
static void test_perf_too_many_events(void **state)
{
    (void)state;
    char *csv = nf_xstrdup("");
    for (int i = 1; i <= NF_RUN_MAX_METRICS + 1; i++) {
        char *next = nf_xasprintf("%s%d,,ev%d,100,100.00,,\n", csv, i, i);
        free(csv);
        csv = next;
    }
    struct nf_import_opts o = {
        .format = "perf-stat-csv", .name = "x", .labels = one_label, .nlabels = 1};
    struct nf_run **runs;
    size_t n;
    char err[256];
    assert_int_equal(nf_import_parse(csv, strlen(csv), &o, &runs, &n, err, sizeof(err)), -1);
    assert_string_equal(err, "x:129: expected at most 128 events (a run holds no more metrics)");
    free(csv);
}

static void test_not_text(void **state)
{
    (void)state;
    const char bin[] = "1\n2\n\xff\xfe\n";
    struct nf_import_opts o = {.format = "values", .name = "b", .labels = one_label, .nlabels = 1};
    struct nf_run **runs;
    size_t n;
    char err[256];
    assert_int_equal(nf_import_parse(bin, sizeof(bin) - 1, &o, &runs, &n, err, sizeof(err)), -1);
    assert_string_equal(err, "b:3: expected UTF-8 text without NUL bytes (byte 5 is not)");
    const char nul[] = "1\n\0002\n";
    assert_int_equal(nf_import_parse(nul, sizeof(nul) - 1, &o, &runs, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "b:2: expected UTF-8"));
    /* Found by the fuzzer: jansson quotes the bad escape, newline and all. */
    const char hf[] = "{\"results\": [{\"command\": \"me\\\n\n\"}]}";
    o.format = "hyperfine-json";
    assert_int_equal(nf_import_parse(hf, strlen(hf), &o, &runs, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, ": expected JSON: "));
    assert_null(strchr(err, '\n'));
    o.format = "values";
    const char empty[] = "# nothing\n";
    assert_int_equal(nf_import_parse(empty, strlen(empty), &o, &runs, &n, err, sizeof(err)), -1);
    assert_string_equal(err, "b:1: expected at least one number (one per line)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf_csv_r3),
        cmocka_unit_test(test_perf_csv_single_and_o),
        cmocka_unit_test(test_perf_csv_append),
        cmocka_unit_test(test_perf_json),
        cmocka_unit_test(test_perf_scaled),
        cmocka_unit_test(test_hyperfine),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_not_text),
        cmocka_unit_test(test_perf_too_many_events),
        cmocka_unit_test(test_perf_metric_lines),
        cmocka_unit_test(test_perf_not_counted),
        cmocka_unit_test(test_perf_started_year),
        cmocka_unit_test(test_perf_comma_locale),
    };
    return cmocka_run_group_tests_name("import", tests, NULL, NULL);
}
