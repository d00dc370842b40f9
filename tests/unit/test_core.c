/* The run model, its JSON, the run options, counters and the pipe workload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "measure/counters.h"
#include "measure/runspec.h"
#include "workload/workload.h"

#include "burn.h"

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

/* <not counted> or <not supported>: what the run's note says of a metric
 * stored without values. */
static void test_not_counted(void **state)
{
    (void)state;
    struct nf_run *r = nf_run_new("lbl", "command");
    struct nf_metric *cyc = nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0);
    struct nf_metric *ref = nf_run_metric(r, "ref-cycles", "", NF_BETTER_LOWER, 0);
    struct nf_metric *irq = nf_run_metric(r, "cpu.irq", "", NF_BETTER_LOWER, 0);
    struct nf_metric *wall = nf_run_metric(r, "wall", "seconds", NF_BETTER_LOWER, 1);
    cyc->supported = ref->supported = irq->supported = 0;
    assert_false(nf_run_not_counted(r, cyc)); /* no note */
    r->note = nf_xstrdup("counters <not counted>, stored without values: 'x' is set-user-ID");
    assert_true(nf_run_not_counted(r, cyc));
    assert_true(nf_run_not_counted(r, ref));
    assert_false(nf_run_not_counted(r, irq));  /* a machine metric is no counter */
    assert_false(nf_run_not_counted(r, wall)); /* it has values */
    free(r->note);
    /* import's, per event: the name whole, at a part's start */
    r->note = nf_xstrdup("each value is the mean of one 'perf stat -r' invocation; "
                         "'ref-cycles' was <not counted> in 2 of 3 invocations: stored without "
                         "values");
    assert_true(nf_run_not_counted(r, ref));
    assert_false(nf_run_not_counted(r, cyc)); /* "-cycles'" is not "'cycles'" */
    free(r->note);
    r->note = nf_xstrdup("'cycles' was <not counted> in 1 of 3 invocations: stored without values");
    assert_true(nf_run_not_counted(r, cyc));
    assert_false(nf_run_not_counted(r, ref));
    free(r->note);
    r->note = nf_xstrdup("my note: x 'cycles' was <not counted> in 1 of 3"); /* not a part's start
                                                                              */
    assert_false(nf_run_not_counted(r, cyc));
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

static struct nf_run *sample_run(void)
{
    struct nf_run *r = nf_run_new("uclamp", "pipe");
    char *args[] = {"-l", "20000"};
    nf_run_set_args(r, 2, args);
    r->repeat = 3;
    r->warmup = 1;
    r->env = json_pack("{s:s, s:i}", "kernel", "6.1.0", "nr_cpus", 2);
    struct nf_metric *u = nf_run_metric(r, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    struct nf_metric *o = nf_run_metric(r, "ops/sec", "ops/sec", NF_BETTER_HIGHER, 0);
    struct nf_metric *c = nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0);
    struct nf_metric *t = nf_run_metric(r, "task-clock", "msec", NF_BETTER_LOWER, 0);
    c->supported = 0;
    double us[] = {6.1, 6.3, 0.1 + 0.2};
    for (int i = 0; i < 3; i++) {
        nf_metric_push(u, us[i], 100.0);
        nf_metric_push(o, 1e6 / us[i], 100.0);
        nf_metric_push(t, 100 + i, i == 1 ? 50.0 : 100.0);
    }
    nf_run_set_status(r, "complete");
    return r;
}

static void test_json_round_trip(void **state)
{
    (void)state;
    struct nf_run *r = sample_run();
    json_t *j = nf_run_to_json(r);
    char *s1 = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    /* Through text, as export/import does. */
    json_error_t je;
    json_t *back = json_loads(s1, 0, &je);
    char err[256];
    struct nf_run *r2 = nf_run_from_json(back, err, sizeof(err));
    assert_non_null(r2);
    json_t *j2 = nf_run_to_json(r2);
    char *s2 = json_dumps(j2, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    assert_string_equal(s1, s2);
    assert_true(r2->metrics[0].values[2] == 0.1 + 0.2);

    /* The schema's fields. */
    json_t *m0 = json_array_get(json_object_get(j, "metrics"), 0);
    assert_int_equal(json_integer_value(json_object_get(m0, "n")), 3);
    assert_true(fabs(json_real_value(json_object_get(m0, "mean")) - (6.1 + 6.3 + 0.3) / 3) < 1e-12);
    json_t *m1 = json_array_get(json_object_get(j, "metrics"), 1);
    /* ops/sec: harmonic mean = 1e6 / mean(usecs/op) */
    assert_true(fabs(json_real_value(json_object_get(m1, "mean")) - 1e6 / ((6.1 + 6.3 + 0.3) / 3)) <
                1e-6);
    json_t *m2 = json_array_get(json_object_get(j, "metrics"), 2);
    assert_true(json_is_false(json_object_get(m2, "supported")));
    assert_true(json_is_null(json_object_get(m2, "mean")));
    assert_int_equal(json_array_size(json_object_get(m2, "values")), 0);
    json_t *m3 = json_array_get(json_object_get(j, "metrics"), 3);
    assert_true(json_real_value(json_array_get(json_object_get(m3, "running_pct"), 1)) == 50.0);
    assert_true(json_is_null(json_object_get(j, "id")));

    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    json_decref(back);
    nf_run_free(r);
    nf_run_free(r2);
}

static void expect_bad(const char *text, const char *want)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    char err[256] = "";
    struct nf_run *r = nf_run_from_json(j, err, sizeof(err));
    assert_null(r);
    if (!strstr(err, want))
        fail_msg("error '%s' lacks '%s'", err, want);
    json_decref(j);
}

/* The fields every run must have, before those a test breaks. */
#define HEAD                                                                                       \
    "\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\",\"repeat\":2,"        \
    "\"warmup\":0,\"status\":\"failed\","

static void test_json_malformed(void **state)
{
    (void)state;
    expect_bad("[]", "JSON object");
    expect_bad("{\"workload\":\"pipe\",\"metrics\":[]}", "label");
    expect_bad("{\"label\":\"a\",\"metrics\":[]}", "workload");
    expect_bad("{" HEAD "\"x\":1}", "metrics");
    expect_bad("{" HEAD "\"metrics\":[{\"name\":\"x\",\"values\":[1,\"2\"]}]}",
               "value 2 is not a number");
    expect_bad("{" HEAD "\"metrics\":[{\"name\":\"x\",\"better\":\"up\"}]}", "\"better\"");
    expect_bad("{" HEAD "\"metrics\":[{\"name\":\"x\"},{\"name\":\"x\"}]}", "twice");
    expect_bad("{" HEAD "\"metrics\":[{\"name\":\"x\",\"supported\":false,\"values\":[1]}]}",
               "not supported");
    expect_bad("{" HEAD "\"args\":[1],\"metrics\":[]}", "args");
    /* Ids: null, or 1..2^53-1; nothing that would exhaust a store's ids. */
    const char *ids[] = {"0", "-3", "9223372036854775807", "9007199254740992", "1.5", "\"7\""};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        char *t = nf_xasprintf("{\"id\":%s," HEAD "\"metrics\":[]}", ids[i]);
        expect_bad(t, "\"id\" must be null or a whole number from 1 to 9007199254740991");
        free(t);
    }
    /* started, repeat, warmup, status: present and well-formed. */
    const char *bad_head[][2] = {
        {"\"label\":\"a\",\"workload\":\"w\",\"repeat\":2,\"warmup\":0,\"status\":\"failed\"",
         "\"started\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-02-30T00:00:00Z\",\"repeat\":2,"
         "\"warmup\":0,\"status\":\"failed\"",
         "\"started\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"yesterday\",\"repeat\":2,"
         "\"warmup\":0,\"status\":\"failed\"",
         "\"started\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\",\"repeat\":2,"
         "\"warmup\":-1,\"status\":\"failed\"",
         "\"warmup\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\",\"repeat\":2,"
         "\"status\":\"failed\"",
         "\"warmup\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\",\"repeat\":2.5,"
         "\"warmup\":0,\"status\":\"failed\"",
         "\"repeat\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\",\"repeat\":2,"
         "\"warmup\":0,\"status\":\"fine\"",
         "\"status\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\",\"repeat\":2,"
         "\"warmup\":0,\"status\":5",
         "\"status\""},
        {"\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\",\"repeat\":2,"
         "\"warmup\":0",
         "\"status\""},
    };
    for (size_t i = 0; i < sizeof(bad_head) / sizeof(bad_head[0]); i++) {
        char *t = nf_xasprintf("{%s,\"metrics\":[]}", bad_head[i][0]);
        expect_bad(t, bad_head[i][1]);
        free(t);
    }
    /* As many values as repetitions: all of them when complete, at most
     * that many when the run stopped early; unsupported metrics none. */
    expect_bad("{" HEAD "\"metrics\":[{\"name\":\"x\",\"values\":[1,2,3]}]}",
               "metric \"x\" has 3 values, but the failed run has 2 repetitions");
    expect_bad("{\"label\":\"a\",\"workload\":\"w\",\"started\":\"2026-01-01T00:00:00Z\","
               "\"repeat\":3,\"warmup\":0,\"status\":\"complete\","
               "\"metrics\":[{\"name\":\"x\",\"values\":[1,2,3]},{\"name\":\"y\",\"values\":[1]}]}",
               "metric \"y\" has 1 values, but the complete run has 3 repetitions");
    char err[256];
    json_error_t je;
    json_t *j = json_loads("{\"id\":null," HEAD "\"metrics\":[{\"name\":\"x\",\"values\":[1]},"
                           "{\"name\":\"c\",\"supported\":false}]}",
                           0, &je);
    struct nf_run *r = nf_run_from_json(j, err, sizeof(err));
    assert_non_null(r);
    assert_int_equal(r->id, 0);
    nf_run_free(r);
    json_decref(j);
    j = json_loads("{\"id\":9007199254740991," HEAD "\"metrics\":[]}", 0, &je);
    r = nf_run_from_json(j, err, sizeof(err));
    assert_non_null(r);
    assert_true(r->id == 9007199254740991LL);
    nf_run_free(r);
    json_decref(j);
}

/* A run's histograms: repetitions ascend, buckets ascend by lo with counts
 * from 1; the JSON carries them and gives back the same run. */
static void test_run_hists(void **state)
{
    (void)state;
    struct nf_run *r = sample_run();
    const struct nf_bucket b0[] = {{1000, 3}, {1008, 1}, {250000, 2}};
    const struct nf_bucket b2[] = {{0, 1}, {9007199254740991ull, 5}};
    const struct nf_bucket down[] = {{1008, 1}, {1000, 3}};
    const struct nf_bucket zero[] = {{1000, 0}};
    assert_int_equal(nf_run_hist_add(r, "wakeup", 0, b0, 3), 0);
    assert_int_equal(nf_run_hist_add(r, "wakeup", 0, b0, 3), -1); /* rep not past the last */
    assert_int_equal(nf_run_hist_add(r, "wakeup", 2, down, 2), -1);
    assert_int_equal(nf_run_hist_add(r, "wakeup", 2, zero, 1), -1);
    assert_int_equal(nf_run_hist_add(r, "wakeup", 2, b2, 0), -1);
    assert_int_equal(nf_run_hist_add(r, "wakeup", 2, b2, 2), 0);
    assert_int_equal(r->nhists, 1);
    const struct nf_run_hist *h = nf_run_hist_find(r, "wakeup");
    assert_non_null(h);
    assert_null(nf_run_hist_find(r, "other"));
    assert_int_equal(h->nreps, 2);
    assert_null(nf_run_hist_rep(h, 1));
    assert_true(nf_run_hist_rep(h, 2)->b[1].count == 5);
    assert_true(nf_run_hist_rep(h, 0)->b[2].lo == 250000);

    json_t *j = nf_run_to_json(r);
    char *s1 = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    assert_non_null(strstr(s1, "\"histograms\": [{\"name\": \"wakeup\", \"reps\": [{\"buckets\": "
                               "[[1000, 3], [1008, 1], [250000, 2]], \"rep\": 1}"));
    json_error_t je;
    json_t *back = json_loads(s1, 0, &je);
    char err[256];
    struct nf_run *r2 = nf_run_from_json(back, err, sizeof(err));
    assert_non_null(r2);
    json_t *j2 = nf_run_to_json(r2);
    char *s2 = json_dumps(j2, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    assert_string_equal(s1, s2);
    assert_true(nf_run_hist_rep(nf_run_hist_find(r2, "wakeup"), 2)->b[1].lo == 9007199254740991ull);
    /* Without histograms, no key. */
    nf_run_hists_clear(r2);
    json_t *j3 = nf_run_to_json(r2);
    assert_null(json_object_get(j3, "histograms"));
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    json_decref(j3);
    json_decref(back);
    nf_run_free(r);
    nf_run_free(r2);
}

/* Repetitions are numbered from 1 in the JSON, as show numbers them; an
 * export written when they were numbered from 0 (a "rep" of 0) is read
 * as it was meant: the same run either way. */
static void test_json_hists_numbering(void **state)
{
    (void)state;
#define RUN(r0, r1)                                                                                \
    "{" HEAD "\"metrics\":[],\"histograms\":[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":["           \
    "{\"rep\":" #r0 ",\"buckets\":[[5,1]]},{\"rep\":" #r1 ",\"buckets\":[[7,2]]}]}]}"
    const char *text[2] = {RUN(1, 2), RUN(0, 1)};
#undef RUN
    char *out[2];
    for (int i = 0; i < 2; i++) {
        json_error_t je;
        json_t *j = json_loads(text[i], 0, &je);
        char err[256] = "";
        struct nf_run *r = nf_run_from_json(j, err, sizeof(err));
        assert_non_null(r);
        const struct nf_run_hist *h = nf_run_hist_find(r, "w");
        assert_true(h->nreps == 2 && h->reps[0].rep == 0 && h->reps[1].rep == 1);
        assert_true(h->reps[1].b[0].lo == 7);
        json_t *back = nf_run_to_json(r);
        out[i] = json_dumps(json_object_get(back, "histograms"), JSON_SORT_KEYS);
        json_decref(back);
        json_decref(j);
        nf_run_free(r);
    }
    assert_string_equal(out[0],
                        "[{\"name\": \"w\", \"reps\": [{\"buckets\": [[5, 1]], \"rep\": 1}, "
                        "{\"buckets\": [[7, 2]], \"rep\": 2}], \"unit\": \"ns\"}]");
    assert_string_equal(out[0], out[1]);
    free(out[0]);
    free(out[1]);
}

static void test_json_bad_hists(void **state)
{
    (void)state;
#define H(x) "{" HEAD "\"metrics\":[],\"histograms\":" x "}"
    expect_bad(H("{}"), "\"histograms\" must be an array");
    expect_bad(H("[{\"unit\":\"ns\",\"reps\":[]}]"), "histogram 1 has no \"name\"");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"us\",\"reps\":[]}]"), "\"unit\" must be \"ns\"");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[]}]"), "no \"reps\"");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":3,\"buckets\":[[1,1]]}]}]"),
               "\"rep\" must be a repetition of the run (1 to 2)");
    /* A 0 anywhere in the run: numbered from 0, as exports used to be. */
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":2,\"buckets\":[[1,1]]}]},"
                 "{\"name\":\"v\",\"unit\":\"ns\",\"reps\":[{\"rep\":0,\"buckets\":[[1,1]]}]}]"),
               "\"rep\" must be a repetition of the run (0 to 1)");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":0,\"buckets\":[]}]}]"),
               "no \"buckets\"");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":0,\"buckets\":[[1,0]]}]}]"),
               "bucket 1 must be [lo, count]");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":0,\"buckets\":[[1,2,3]]}]}]"),
               "bucket 1 must be [lo, count]");
    expect_bad(
        H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":0,\"buckets\":[[1,1],[-5,1]]}]}]"),
        "bucket 2 must be [lo, count]");
    expect_bad(
        H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":0,\"buckets\":[[9,1],[5,1]]}]}]"),
        "buckets ascend by lo");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":1,\"buckets\":[[1,1]]},"
                 "{\"rep\":0,\"buckets\":[[1,1]]}]}]"),
               "repetitions must ascend");
    expect_bad(H("[{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":0,\"buckets\":[[1,1]]}]},"
                 "{\"name\":\"w\",\"unit\":\"ns\",\"reps\":[{\"rep\":1,\"buckets\":[[1,1]]}]}]"),
               "histogram \"w\" appears twice");
#undef H
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

/* A fake sysfs with CPUs 0-3 and 6 online. */
static char *fake_root(void)
{
    char *root = strdup("/tmp/nf-unit-root.XXXXXX");
    assert_non_null(mkdtemp(root));
    char path[512];
    const char *dirs[] = {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/cpu"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
    FILE *f = fopen(path, "w");
    fputs("0-3,6\n", f);
    fclose(f);
    return root;
}

static void test_parse_cpus(void **state)
{
    (void)state;
    char *root = fake_root();
    cpu_set_t set;
    char err[256];
    assert_int_equal(nf_parse_cpus("0", root, &set, err, sizeof(err)), 0);
    assert_int_equal(CPU_COUNT(&set), 1);
    assert_int_equal(nf_parse_cpus("0,2", root, &set, err, sizeof(err)), 0);
    assert_true(CPU_ISSET(2, &set) && !CPU_ISSET(1, &set));
    assert_int_equal(nf_parse_cpus("1-3,6", root, &set, err, sizeof(err)), 0);
    assert_int_equal(CPU_COUNT(&set), 4);
    assert_int_equal(nf_parse_cpus("4", root, &set, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "CPU 4 is not online"));
    assert_int_equal(nf_parse_cpus("3-1", root, &set, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a CPU list"));
    assert_int_equal(nf_parse_cpus("a", root, &set, err, sizeof(err)), -1);
    assert_int_equal(nf_parse_cpus("", root, &set, err, sizeof(err)), -1);
    /* Single commas between numbers and ranges, the numbers as the kernel
     * writes them: nothing is folded away. */
    const char *bad[] = {",",  ",0", "0,", "0,,1", " 0",    "0 ",   "+1",  "-1",  "00",
                         "01", "0-", "-0", "0--1", "0-1-2", "1-+2", "0;1", "0x1", "1.0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        if (nf_parse_cpus(bad[i], root, &set, err, sizeof(err)) != -1)
            fail_msg("'%s' was taken as a CPU list", bad[i]);
        char want[64];
        snprintf(want, sizeof(want), "--pin: '%s' is not a CPU list", bad[i]);
        if (!strstr(err, want))
            fail_msg("'%s': %s", bad[i], err);
    }
    assert_int_equal(nf_parse_cpus("99999999999", root, &set, err, sizeof(err)), -1);
    assert_string_equal(err,
                        "--pin: CPU 99999999999 is past 1023, the largest CPU number accepted");
    assert_int_equal(nf_parse_cpus("7-1000000", root, &set, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "CPU 7 is not online"));
    /* One set, one form: the kernel's list, ascending, runs as ranges. */
    const char *same[][2] = {{"0", "0"},         {"0-0", "0"},      {"0,0", "0"},
                             {"2,0,1", "0-2"},   {"0,1", "0-1"},    {"6,3,1-2", "1-3,6"},
                             {"0-3,1-2", "0-3"}, {"0,2,6", "0,2,6"}};
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        assert_int_equal(nf_parse_cpus(same[i][0], root, &set, err, sizeof(err)), 0);
        char *list = nf_cpus_list(&set);
        assert_string_equal(list, same[i][1]);
        free(list);
    }
    CPU_ZERO(&set);
    char *none = nf_cpus_list(&set);
    assert_string_equal(none, "");
    free(none);
    for (int c = 0; c < CPU_SETSIZE; c += 2)
        CPU_SET(c, &set);
    char *every_other = nf_cpus_list(&set);
    assert_int_equal(strncmp(every_other, "0,2,4,", 6), 0);
    char last[32];
    snprintf(last, sizeof(last), ",%d,%d", CPU_SETSIZE - 4, CPU_SETSIZE - 2);
    assert_int_equal(strcmp(every_other + strlen(every_other) - strlen(last), last), 0);
    free(every_other);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
    free(root);
}

static void test_runspec(void **state)
{
    (void)state;
    struct nf_runspec s;
    char err[256];
    int help;
    char *a1[] = {"run", "-r",         "3",    "--warmup", "0", "-L", "x",
                  "-e",  "task-clock", "pipe", "-l",       "7", "-T", NULL};
    assert_int_equal(nf_runspec_parse(&s, 13, a1, &help, err, sizeof(err)), 0);
    assert_int_equal(help, 0);
    assert_int_equal(s.repeat, 3);
    assert_int_equal(s.warmup, 0);
    assert_string_equal(s.label, "x");
    assert_ptr_equal(s.wl, &nf_workload_pipe);
    assert_int_equal(s.wl_argc, 3);
    assert_string_equal(s.wl_argv[0], "-l");
    assert_int_equal(s.counters.n, 1);
    nf_runspec_free(&s);

    char *a2[] = {"run", "--timeout", "2.5", "--", "/bin/echo", "-r", "hi", NULL};
    assert_int_equal(nf_runspec_parse(&s, 7, a2, &help, err, sizeof(err)), 0);
    assert_null(s.wl);
    assert_int_equal(s.ncmd, 3);
    assert_string_equal(s.cmd[1], "-r");
    assert_true(s.timeout == 2.5);
    assert_int_equal(s.counters.n, 0); /* none unless asked */
    nf_runspec_free(&s);

    char *a3[] = {"run", "--sysctl", "kernel.x=1", "--sysctl", "novalue", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 6, a3, &help, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--sysctl wants KEY=VALUE"));
    nf_runspec_free(&s);

    char *a4[] = {"run", "--metric", "t=([0-9.]+)", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 4, a4, &help, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "built-in workload"));
    nf_runspec_free(&s);

    char *a5[] = {"run", "pipe", "--help", NULL};
    assert_int_equal(nf_runspec_parse(&s, 3, a5, &help, err, sizeof(err)), 0);
    assert_int_equal(help, 2);
    nf_runspec_free(&s);
}

static void test_counters(void **state)
{
    (void)state;
    struct nf_counters cs;
    char err[512];
    assert_int_equal(
        nf_counters_parse(&cs, "task-clock,context-switches,task-clock", err, sizeof(err)), 0);
    assert_int_equal(cs.n, 2);
    assert_int_equal(nf_counters_parse(&cs, "task-clock,bogus", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "unknown event 'bogus'"));
    /* "default" is the four software events, once however often named. */
    assert_int_equal(nf_counters_parse(&cs, "cycles,default,task-clock,default", err, sizeof(err)),
                     0);
    assert_int_equal(cs.n, 5);
    assert_string_equal(cs.c[0].name, "cycles");
    assert_string_equal(cs.c[1].name, "task-clock");
    assert_string_equal(cs.c[4].name, "page-faults");
    assert_int_equal(nf_counters_parse(&cs, "", err, sizeof(err)), 0);
    assert_int_equal(cs.n, 0);
    /* an empty name between commas is a typo, not "nothing" */
    const char *bad[] = {",", ",task-clock", "task-clock,", "task-clock,,page-faults"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        assert_int_equal(nf_counters_parse(&cs, bad[i], err, sizeof(err)), -1);
        assert_non_null(strstr(err, "empty event name"));
    }
    /* a list longer than any fixed buffer is read whole */
    char longlist[3000];
    size_t len = 0;
    for (int i = 0; i < 200; i++)
        len += (size_t)snprintf(longlist + len, sizeof(longlist) - len, "task-clock,");
    snprintf(longlist + len, sizeof(longlist) - len, "page-faults");
    assert_int_equal(nf_counters_parse(&cs, longlist, err, sizeof(err)), 0);
    assert_int_equal(cs.n, 2);

    /* Count ourselves: task-clock must advance by the 5 ms of CPU time we
     * spin (measured by the thread's CPU clock: on any machine). */
    assert_int_equal(nf_counters_parse(&cs, "task-clock,page-faults", err, sizeof(err)), 0);
    assert_int_equal(nf_counters_open(&cs, 0, 0), 2);
    nf_counters_enable(&cs);
    burn_cpu_ms(5);
    volatile char *p =
        mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    for (size_t off = 0; off < (1 << 20); off += 4096)
        p[off] = 1; /* a fresh page each: a page fault each */
    munmap((void *)p, 1 << 20);
    nf_counters_disable(&cs);
    nf_counters_read_close(&cs);
    assert_int_equal(cs.c[0].state, NF_CTR_OK);
    assert_true(cs.c[0].value > 4.0); /* msec */
    assert_true(cs.c[0].running_pct == 100.0);
    assert_true(cs.c[1].value >= 256);
    assert_int_equal(cs.c[0].fd, -1);
}

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
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_json_malformed),
        cmocka_unit_test(test_run_hists),
        cmocka_unit_test(test_json_hists_numbering),
        cmocka_unit_test(test_json_bad_hists),
        cmocka_unit_test(test_parse_numbers),
        cmocka_unit_test(test_parse_cpus),
        cmocka_unit_test(test_runspec),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_pipe_workload),
        cmocka_unit_test(test_split_words),
        cmocka_unit_test(test_label_check),
        cmocka_unit_test(test_metric_name_check),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
