/* A metric's not_counted (core/run.h: opened but did not count, perf
 * stat's <not counted>), on both backends: stored as it is and read back
 * by every loader, whatever the run's note says since; written by a run
 * finished as measured (run sets it with its note, at the end); and the
 * step from schema 10, which had no such column and told the two apart by
 * the note alone: it sets the flag by the note's words, as 10 read them,
 * and drops the points cache's blob of 10. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/points.h"
#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "store_target.h"

#define SUID_NOTE "counters <not counted>, stored without values: '/tmp/x' is set-user-ID"
#define PERF_NOTE                                                                                  \
    "imported from x (perf-stat); 'cycles' was <not counted> in 2 of 5 invocations: stored "       \
    "without values"

/* A finished run of five repetitions: wall with values, then each of
 * names without values, not_counted as flags[i]; its id. */
static int64_t add_run(struct nf_store *s, const char *label, const char *note,
                       const char *const *names, const int *flags, size_t n)
{
    struct nf_run *r = nf_run_new(label, "command");
    struct nf_metric *w = nf_run_metric(r, "wall", "seconds", NF_BETTER_LOWER, 1);
    for (int i = 0; i < 5; i++)
        nf_metric_push(w, 1.0 + 0.01 * i, 100);
    for (size_t i = 0; i < n; i++) {
        struct nf_metric *m = nf_run_metric(r, names[i], "", NF_BETTER_LOWER, 0);
        m->supported = 0;
        m->not_counted = flags[i];
    }
    r->repeat = 5;
    r->note = note ? nf_xstrdup(note) : NULL;
    nf_run_set_state(r, NF_RUN_COMPLETE);
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    int64_t id = r->id;
    nf_run_free(r);
    return id;
}

/* The flag of metric name of run id as the store's loaders give it: one
 * run, and every run with summaries (history's); both must agree. */
static int flag(struct nf_store *s, int64_t id, const char *name)
{
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    struct nf_metric *m = nf_run_find(r, name);
    assert_non_null(m);
    int f = nf_metric_not_counted(m);
    nf_run_free(r);
    struct nf_store_filter filt = {.id = id, .summaries = 1};
    struct nf_run **runs;
    size_t n;
    assert_int_equal(nf_store_load_runs(s, &filt, &runs, &n), 0);
    assert_int_equal(n, 1);
    m = nf_run_find(runs[0], name);
    assert_non_null(m);
    assert_int_equal(nf_metric_not_counted(m), f);
    nf_runs_free(runs, n);
    return f;
}

static const char *const counters[] = {"task-clock", "cycles", "cpu.irq"};

/* Stored as given, whatever the note says then or later. */
static void test_flag_stored(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t a = add_run(s, "a", SUID_NOTE, counters, (const int[]){0, 1, 0}, 3);
    int64_t b = add_run(s, "b", NULL, counters, (const int[]){1, 0, 0}, 3);
    assert_false(flag(s, a, "task-clock")); /* the note would say so: the flag decides */
    assert_true(flag(s, a, "cycles"));
    assert_true(flag(s, b, "task-clock"));
    assert_false(flag(s, b, "wall"));
    tgt_exec("UPDATE runs SET note = 'edited' WHERE id = %lld", (long long)a);
    tgt_exec("UPDATE runs SET note = 'counters <not counted>, stored without values: x'"
             " WHERE id = %lld",
             (long long)b);
    assert_true(flag(s, a, "cycles"));
    assert_false(flag(s, b, "cycles"));
    assert_int_equal(tgt_int("SELECT count(*) FROM metrics WHERE not_counted"), 2);
    nf_store_close(s);
}

/* A run as `run` writes it: the flags set with the note at the end, which
 * nf_store_finish_run stores with the status. */
static void test_flag_finished(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = nf_run_new("live", "command");
    struct nf_metric *w = nf_run_metric(r, "wall", "seconds", NF_BETTER_LOWER, 1);
    nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0);
    assert_int_equal(nf_store_begin_run(s, r), 0);
    for (size_t i = 0; i < 3; i++) {
        nf_metric_push(w, 1.0 + (double)i, 100);
        nf_run_find(r, "cycles")->supported = 0;
        assert_int_equal(nf_store_add_rep(s, r, i), 0);
    }
    assert_false(flag(s, r->id, "cycles"));
    r->repeat = 3;
    r->note = nf_xstrdup(SUID_NOTE);
    nf_run_find(r, "cycles")->not_counted = 1;
    nf_run_set_state(r, NF_RUN_COMPLETE);
    assert_int_equal(nf_store_finish_run(s, r), 0);
    assert_true(flag(s, r->id, "cycles"));
    assert_false(flag(s, r->id, "wall"));
    nf_store_close(s);
    s = tgt_open(0);
    assert_true(flag(s, r->id, "cycles"));
    nf_store_close(s);
    nf_run_free(r);
}

/* 10 -> 11: the flag from the note, as schema 10 read it (run's note: each
 * counter, a machine metric aside; import's: the event it names); the
 * points cache's blob of 10 gone. */
static void test_migrate_v10(void **state)
{
    (void)state;
    static const char *const perf[] = {"cycles", "ref-cycles"};
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    /* flags as 10 could not store them: the step sets them anew */
    int64_t suid = add_run(s, "suid", SUID_NOTE, counters, (const int[]){0, 0, 1}, 3);
    int64_t imp = add_run(s, "perf", PERF_NOTE, perf, (const int[]){0, 1}, 2);
    int64_t none = add_run(s, "none", NULL, counters, (const int[]){1, 1, 1}, 3);
    struct nf_points p;
    nf_points_init(&p);
    assert_int_equal(nf_store_load_points(s, NULL, &p), 0); /* writes the cache */
    nf_points_free(&p);
    nf_store_close(s);
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 1);
    tgt_not_counted_v10();
    tgt_exec("UPDATE schema_version SET version = 10");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 10);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 0);
    assert_true(flag(s, suid, "task-clock"));
    assert_true(flag(s, suid, "cycles"));
    assert_false(flag(s, suid, "cpu.irq"));
    assert_false(flag(s, suid, "wall"));
    assert_true(flag(s, imp, "cycles"));
    assert_false(flag(s, imp, "ref-cycles"));
    assert_false(flag(s, none, "cycles"));
    assert_int_equal(tgt_int("SELECT count(*) FROM metrics WHERE not_counted"), 3);
    /* a note edited after the step changes nothing */
    tgt_exec("UPDATE runs SET note = NULL");
    assert_true(flag(s, suid, "cycles"));
    nf_store_close(s);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_flag_stored),
        BOTH(test_flag_finished),
        BOTH(test_migrate_v10),
    };
    int failed =
        cmocka_run_group_tests_name("store not_counted/sqlite", tests, tgt_group_sqlite, NULL);
    failed +=
        cmocka_run_group_tests_name("store not_counted/postgresql", tests, tgt_group_pg, NULL);
    return failed;
}
