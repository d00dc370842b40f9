/* A run as JSON (core/run_json.c): the round trip, a malformed run
 * refused with what is wrong, and a run's histograms through it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"

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

/* The run written as s1 (the export's text), read back and written again:
 * the same text.  The run read, which the caller frees. */
static struct nf_run *through_text(const char *s1)
{
    json_error_t je;
    json_t *back = json_loads(s1, 0, &je);
    assert_non_null(back);
    char err[256];
    struct nf_run *r2 = nf_run_from_json(back, err, sizeof(err));
    assert_non_null(r2);
    json_t *j2 = nf_run_to_json(r2);
    char *s2 = json_dumps(j2, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    assert_string_equal(s1, s2);
    free(s2);
    json_decref(j2);
    json_decref(back);
    return r2;
}

static void test_json_round_trip(void **state)
{
    (void)state;
    struct nf_run *r = sample_run();
    json_t *j = nf_run_to_json(r);
    char *s1 = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    /* Through text, as export/import does. */
    struct nf_run *r2 = through_text(s1);
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
    json_decref(j);
    nf_run_free(r);
    nf_run_free(r2);
}

/* not_counted: exported with each metric without values and read back
 * as it is, whatever the note says; with no such field (an export
 * written before it) taken from the note, as the store's step to schema
 * 11 takes it. */
static void test_json_not_counted(void **state)
{
    (void)state;
    struct nf_run *r = sample_run();
    nf_run_metric(r, "page-faults", "", NF_BETTER_LOWER, 0)->supported = 0;
    nf_run_find(r, "cycles")->not_counted = 1;
    r->note = nf_xstrdup("counters <not counted>, stored without values: 'x' is set-user-ID");
    json_t *j = nf_run_to_json(r);
    json_t *ms = json_object_get(j, "metrics");
    assert_null(json_object_get(json_array_get(ms, 0), "not_counted")); /* it has values */
    assert_true(json_is_true(json_object_get(json_array_get(ms, 2), "not_counted")));
    assert_true(json_is_false(json_object_get(json_array_get(ms, 4), "not_counted")));
    char *s1 = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    struct nf_run *r2 = through_text(s1);
    assert_true(nf_metric_not_counted(nf_run_find(r2, "cycles")));
    assert_false(nf_metric_not_counted(nf_run_find(r2, "page-faults"))); /* the note aside */
    nf_run_free(r2);
    free(s1);
    char err[256];
    json_object_set_new(j, "note", json_string("edited"));
    r2 = nf_run_from_json(j, err, sizeof(err));
    assert_non_null(r2);
    assert_true(nf_metric_not_counted(nf_run_find(r2, "cycles")));
    nf_run_free(r2);
    /* without the field: the note's word, for every counter */
    json_object_set_new(j, "note", json_string(r->note));
    json_object_del(json_array_get(ms, 2), "not_counted");
    json_object_del(json_array_get(ms, 4), "not_counted");
    r2 = nf_run_from_json(j, err, sizeof(err));
    assert_non_null(r2);
    assert_true(nf_metric_not_counted(nf_run_find(r2, "cycles")));
    assert_true(nf_metric_not_counted(nf_run_find(r2, "page-faults")));
    assert_false(nf_run_find(r2, "usecs/op")->not_counted);
    nf_run_free(r2);
    json_decref(j);
    nf_run_free(r);
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
    expect_bad("{" HEAD "\"metrics\":[{\"name\":\"x\",\"not_counted\":true}]}",
               "\"x\" is not counted but supported");
    expect_bad("{" HEAD "\"metrics\":[{\"name\":\"x\",\"supported\":false,\"not_counted\":1}]}",
               "must be true or false");
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
    struct nf_run *r2 = through_text(s1);
    assert_true(nf_run_hist_rep(nf_run_hist_find(r2, "wakeup"), 2)->b[1].lo == 9007199254740991ull);
    /* Without histograms, no key. */
    nf_run_hists_clear(r2);
    json_t *j3 = nf_run_to_json(r2);
    assert_null(json_object_get(j3, "histograms"));
    free(s1);
    json_decref(j);
    json_decref(j3);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_json_malformed),
        cmocka_unit_test(test_run_hists),       cmocka_unit_test(test_json_hists_numbering),
        cmocka_unit_test(test_json_bad_hists),  cmocka_unit_test(test_json_not_counted),
    };
    return cmocka_run_group_tests_name("run_json", tests, NULL, NULL);
}
