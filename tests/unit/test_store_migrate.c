/* The step from schema 4 to 5, on both backends: the samples, one row per
 * value until 4 and one row per repetition from 5, come back from a
 * migrated database as they were stored (a repetition missing for one
 * metric, running percentages stored as 100 and below, a metric without
 * samples, doubles to the last bit); a migration that fails changes
 * nothing; a migrated store takes new runs and deletes old ones whole.
 * The step from 5 to 6 (the histograms table) the same way: old runs as
 * they were, without histograms; new ones with theirs.  The step from 7
 * to 8 fills the summaries of every stored run, bit for bit those of its
 * values, which history's load reads back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/jobs.h"
#include "store/store.h"

#include "store_target.h"

/* Run "old" as a schema 4 database held it, metric by metric: idx, name,
 * and per repetition its value (a hole where it has none) and running
 * percentage (0 for NULL). */
enum { REPS = 4 };
static const struct {
    const char *name;
    int primary, supported;
    int has[REPS];
    double v[REPS], pct[REPS];
} old_metrics[] = {
    {"wall", 1, 1, {1, 1, 1, 1}, {1.5, 1.25, 1.125, 0.1}, {0}},
    {"task-clock", 0, 1, {1, 1, 1, 1}, {10, 11, 12, 13}, {100, 83.72, 0, 100}},
    {"cycles", 0, 0, {0}, {0}, {0}},
    {"max-rss", 0, 1, {1, 1, 0, 1}, {2048, 2050, 0, 2051}, {0}},
    {"extremes", 0, 1, {1, 1, 1, 0}, {DBL_MAX, DBL_TRUE_MIN, -1e-300, 0}, {0}},
};
#define NOLD (sizeof(old_metrics) / sizeof(old_metrics[0]))

/* The tables as schema 8 had them: without bisections (and the points
 * cache of 10). */
static void bisections_v8(void)
{
    tgt_points_cache_v9();
    tgt_exec("DROP TABLE bisections");
}

/* Schema 7: without the summaries of 8 (and the bisections of 9). */
static void summaries_v7(void)
{
    bisections_v8();
    tgt_exec("DROP TABLE summaries");
}

/* The jobs table as schema 6 had it: without the limits and cancel (and
 * the tables as schema 7 had them). */
static void jobs_v6(void)
{
    summaries_v7();
    tgt_exec("ALTER TABLE jobs DROP COLUMN max_attempts");
    tgt_exec("ALTER TABLE jobs DROP COLUMN max_time");
    tgt_exec("ALTER TABLE jobs DROP COLUMN cancel");
}

/* A store of schema 4 holding run "old" (above) and run "other" (one
 * metric, three repetitions); the id of "old". */
static int64_t make_v4(void)
{
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = nf_run_new("old", "command");
    for (size_t i = 0; i < NOLD; i++) {
        nf_run_metric(r, old_metrics[i].name, "", NF_BETTER_LOWER, old_metrics[i].primary);
        r->metrics[i].supported = old_metrics[i].supported;
    }
    struct nf_run *o = nf_run_new("other", "pipe");
    nf_run_metric(o, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    struct nf_run *both[2] = {r, o};
    assert_int_equal(nf_store_insert_runs(s, both, 2, 1, NULL), 0); /* metrics, no samples */
    nf_store_close(s);
    tgt_samples_v4();
    for (size_t i = 0; i < NOLD; i++)
        for (int k = 0; k < REPS; k++) {
            if (!old_metrics[i].has[k])
                continue;
            char pct[32] = "NULL";
            if (old_metrics[i].pct[k] > 0)
                snprintf(pct, sizeof(pct), "%.17g", old_metrics[i].pct[k]);
            tgt_exec("INSERT INTO samples VALUES (%lld, %zu, %d, %.17g, %s)", (long long)r->id, i,
                     k, old_metrics[i].v[k], pct);
        }
    for (int k = 0; k < 3; k++)
        tgt_exec("INSERT INTO samples VALUES (%lld, 0, %d, %d, NULL)", (long long)o->id, k, 7 + k);
    jobs_v6();
    tgt_exec("UPDATE schema_version SET version = 4");
    int64_t id = r->id;
    nf_run_free(r);
    nf_run_free(o);
    return id;
}

/* Run "old" as the loaders gave it under schema 4. */
static void check_old(struct nf_run *r)
{
    assert_int_equal(r->nmetrics, NOLD);
    for (size_t i = 0; i < NOLD; i++) {
        const struct nf_metric *m = &r->metrics[i];
        assert_string_equal(m->name, old_metrics[i].name);
        assert_int_equal(m->supported, old_metrics[i].supported);
        assert_int_equal(m->primary, old_metrics[i].primary);
        size_t n = 0;
        int scaled = 0;
        for (int k = 0; k < REPS; k++) {
            if (!old_metrics[i].has[k])
                continue;
            assert_true(n < m->n);
            assert_memory_equal(&m->values[n], &old_metrics[i].v[k], sizeof(double));
            if (old_metrics[i].pct[k] > 0)
                scaled = 1;
            if (m->running_pct) /* a NULL one reads as 100 */
                assert_true(m->running_pct[n] ==
                            (old_metrics[i].pct[k] > 0 ? old_metrics[i].pct[k] : 100.0));
            n++;
        }
        assert_int_equal(m->n, n);
        assert_int_equal(m->running_pct != NULL, scaled);
    }
}

static void test_migrate_v4(void **state)
{
    (void)state;
    int64_t id = make_v4();
    assert_int_equal(tgt_int("SELECT count(*) FROM samples"), 17);
    struct nf_store *s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 4);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
    /* One row per repetition: four of "old", three of "other". */
    assert_int_equal(tgt_int("SELECT count(*) FROM samples"), REPS + 3);
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    check_old(r);
    nf_run_free(r);
    struct nf_run **runs;
    size_t n;
    assert_int_equal(nf_store_load_label(s, "other", NULL, &runs, &n), 0);
    assert_int_equal(n, 1);
    struct nf_metric *m = nf_run_find(runs[0], "usecs/op");
    assert_int_equal(m->n, 3);
    assert_true(m->values[0] == 7 && m->values[2] == 9);
    assert_null(m->running_pct);
    nf_runs_free(runs, n);

    /* It takes new runs as a new store does, and deletes old ones whole. */
    struct nf_run *w = nf_run_new("new", "command");
    nf_run_metric(w, "wall", "seconds", NF_BETTER_LOWER, 1);
    assert_int_equal(nf_store_begin_run(s, w), 0);
    for (int k = 0; k < 3; k++) {
        nf_metric_push(&w->metrics[0], 0.5 + k, 100.0);
        assert_int_equal(nf_store_add_rep(s, w, (size_t)k), 0);
    }
    assert_int_equal(nf_store_delete_runs(s, &id, 1), 0);
    nf_store_close(s);
    assert_int_equal(tgt_int("SELECT count(*) FROM samples WHERE run_id = %lld", (long long)id), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM metrics WHERE run_id = %lld", (long long)id), 0);
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), NF_SCHEMA_VERSION);
    assert_int_equal(nf_store_load_run(s, w->id, &r), 0);
    assert_int_equal(nf_run_find(r, "wall")->n, 3);
    assert_true(nf_run_find(r, "wall")->values[2] == 2.5);
    nf_run_free(r);
    nf_run_free(w);
    nf_store_close(s);
}

/* Refused: the error says why, and the database is still of schema 4 with
 * its rows of samples. */
static void assert_not_migrated(const char *want, long long rows)
{
    char err[NF_ERR_LEN];
    struct nf_store *s;
    assert_int_equal(nf_store_open(&s, tgt.db, 0, err, sizeof(err)), -1);
    assert_null(s);
    if (!strstr(err, want))
        fail_msg("'%s' lacks '%s'", err, want);
    assert_null(strchr(err, '\n'));
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), 4);
    assert_int_equal(tgt_int("SELECT count(*) FROM samples WHERE metric_idx >= 0"), rows);
}

/* A step that fails (here: a table in the way) is rolled back whole; once
 * the obstacle is gone, the same database migrates. */
static void test_migrate_v4_fails_whole(void **state)
{
    (void)state;
    int64_t id = make_v4();
    tgt_exec("CREATE TABLE samples_v5 (x integer)");
    assert_not_migrated("samples_v5", 17);
    assert_int_equal(tgt_int("SELECT count(*) FROM samples_v5"), 0);
    tgt_exec("DROP TABLE samples_v5");
    if (!tgt.pg) {
        /* A metric index no run can have (SQLite packs the values). */
        tgt_exec("INSERT INTO metrics (run_id, idx, name, unit, better)"
                 " VALUES (%lld, 500, 'x', '', 'lower');"
                 "INSERT INTO samples VALUES (%lld, 500, 0, 1.0, NULL)",
                 (long long)id, (long long)id);
        assert_not_migrated("out of range", 18);
        tgt_exec("DELETE FROM samples WHERE metric_idx = 500; DELETE FROM metrics WHERE idx = 500");
    }
    struct nf_store *s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 4);
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    check_old(r);
    nf_run_free(r);
    nf_store_close(s);
}

/* A store of schema 5 holding run "old" (above, its values as schema 5
 * keeps them); its id. */
static int64_t make_v5(void)
{
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = nf_run_new("old", "timer");
    for (size_t i = 0; i < NOLD; i++) {
        struct nf_metric *m =
            nf_run_metric(r, old_metrics[i].name, "", NF_BETTER_LOWER, old_metrics[i].primary);
        m->supported = old_metrics[i].supported;
        for (int k = 0; k < REPS; k++)
            if (old_metrics[i].has[k])
                nf_metric_push(m, old_metrics[i].v[k],
                               old_metrics[i].pct[k] > 0 ? old_metrics[i].pct[k] : 100.0);
    }
    r->repeat = REPS;
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    nf_store_close(s);
    tgt_hists_v5();
    jobs_v6();
    tgt_exec("UPDATE schema_version SET version = 5");
    int64_t id = r->id;
    nf_run_free(r);
    return id;
}

/* A run whose repetitions 0 and 1 have a histogram. */
static struct nf_run *hist_run(void)
{
    struct nf_run *w = nf_run_new("new", "timer");
    nf_run_metric(w, "wakeup-p99", "usecs", NF_BETTER_LOWER, 1);
    for (size_t k = 0; k < 2; k++) {
        struct nf_bucket b[2] = {{1000 + k, 3}, {(1ULL << 43) + k, 1ULL << 40}};
        assert_int_equal(nf_run_hist_add(w, "wakeup", k, b, 2), 0);
    }
    return w;
}

static void test_migrate_v5(void **state)
{
    (void)state;
    int64_t id = make_v5();
    struct nf_store *s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 5);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
    assert_int_equal(tgt_int("SELECT count(*) FROM histograms"), 0);
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    check_old(r);
    assert_int_equal(nf_store_load_hists(s, &r, 1), 0);
    assert_int_equal(r->nhists, 0);
    nf_run_free(r);

    /* New runs store their histograms, as they are measured and whole. */
    struct nf_run *w = hist_run();
    assert_int_equal(nf_store_begin_run(s, w), 0);
    for (size_t k = 0; k < 2; k++) {
        nf_metric_push(&w->metrics[0], 10.0 + (double)k, 100.0);
        assert_int_equal(nf_store_add_rep(s, w, k), 0);
    }
    struct nf_run *imp = hist_run();
    nf_metric_push(&imp->metrics[0], 1.0, 100.0);
    nf_metric_push(&imp->metrics[0], 2.0, 100.0);
    imp->repeat = 2;
    assert_int_equal(nf_store_insert_runs(s, &imp, 1, 1, NULL), 0);
    assert_int_equal(nf_store_delete_runs(s, &id, 1), 0);
    nf_store_close(s);

    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), NF_SCHEMA_VERSION);
    struct nf_run *back[2];
    assert_int_equal(nf_store_load_run(s, w->id, &back[0]), 0);
    assert_int_equal(nf_store_load_run(s, imp->id, &back[1]), 0);
    assert_int_equal(nf_store_load_hists(s, back, 2), 0);
    for (int i = 0; i < 2; i++) {
        const struct nf_run_hist *h = nf_run_hist_find(back[i], "wakeup");
        assert_non_null(h);
        assert_int_equal(h->nreps, 2);
        assert_int_equal(h->reps[1].rep, 1);
        assert_int_equal(h->reps[1].n, 2);
        assert_true(h->reps[1].b[1].lo == (1ULL << 43) + 1);
        assert_true(h->reps[1].b[1].count == 1ULL << 40);
        nf_run_free(back[i]);
    }
    nf_run_free(w);
    nf_run_free(imp);
    nf_store_close(s);
}

/* A step from 5 that fails (a table in the way of the new one) changes
 * nothing; once the obstacle is gone, the same database migrates. */
static void test_migrate_v5_fails_whole(void **state)
{
    (void)state;
    int64_t id = make_v5();
    tgt_exec("CREATE TABLE histograms (x integer); INSERT INTO histograms VALUES (42)");
    char err[NF_ERR_LEN];
    struct nf_store *s;
    assert_int_equal(nf_store_open(&s, tgt.db, 0, err, sizeof(err)), -1);
    assert_null(s);
    if (!strstr(err, "histograms"))
        fail_msg("'%s' does not name the table", err);
    assert_null(strchr(err, '\n'));
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), 5);
    assert_int_equal(tgt_int("SELECT x FROM histograms"), 42);
    tgt_exec("DROP TABLE histograms");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 5);
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    check_old(r);
    nf_run_free(r);
    nf_store_close(s);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
}

/* 6 -> 7: a queued job of schema 6 keeps its words, gets the default
 * attempts and no time limit, and can be claimed and cancelled. */
static void test_migrate_v6(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    char *words[] = {"run", "pipe"};
    int64_t ids[2];
    assert_int_equal(nf_store_submit(s, NULL, words, 2, 1, ids), 0);
    assert_int_equal(nf_store_submit(s, NULL, words, 2, 1, ids + 1), 0);
    nf_store_close(s);
    jobs_v6();
    tgt_exec("UPDATE schema_version SET version = 6");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 6);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
    struct nf_job **jobs;
    size_t n;
    assert_int_equal(nf_store_list_jobs(s, 0, &jobs, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(jobs[0]->nwords, 2);
    assert_string_equal(jobs[0]->words[1], "pipe");
    assert_int_equal(jobs[0]->max_attempts, NF_JOB_MAX_ATTEMPTS);
    assert_true(jobs[0]->max_time == 0);
    assert_int_equal(jobs[0]->cancel, 0);
    nf_jobs_free(jobs, n);
    char was[32];
    assert_int_equal(nf_store_cancel_job(s, ids[0], was, sizeof(was)), 0);
    assert_string_equal(was, "queued");
    struct nf_job *j;
    assert_int_equal(nf_store_claim_job(s, NULL, 0, "h", 60, &j), 0);
    assert_int_equal(j->id, ids[1]); /* the cancelled one is never claimed */
    nf_job_free(j);
    nf_store_close(s);
}

/* 8 -> 9: the bisections table, empty; a kernel-mode bisection's state
 * is stored, replaced, refused a second time, read back and ended.  (7 ->
 * 8 is reserved and empty: test_migrate_v6 goes through it.) */
static void test_migrate_v8(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    nf_store_close(s);
    bisections_v8();
    tgt_exec("UPDATE schema_version SET version = 8");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 8);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
    assert_int_equal(tgt_int("SELECT count(*) FROM bisections"), 0);
    char *j = NULL;
    assert_int_equal(nf_store_load_bisection(s, "/r", &j), NF_STORE_NOTFOUND);
    assert_null(j);
    assert_int_equal(nf_store_save_bisection(s, "/r", "{\"boots\": []}", 0), NF_STORE_NOTFOUND);
    assert_int_equal(nf_store_save_bisection(s, "/r", "{\"boots\": []}", 1), 0);
    assert_int_equal(nf_store_save_bisection(s, "/r", "{\"other\": 1}", 1), NF_STORE_EXISTS);
    assert_non_null(strstr(nf_store_error(s), "in progress in /r"));
    assert_int_equal(nf_store_save_bisection(s, "/q", "{}", 1), 0);
    assert_int_equal(nf_store_save_bisection(s, "/r", "{\"boots\": [1]}", 0), 0);
    assert_int_equal(nf_store_load_bisection(s, "/r", &j), 0);
    assert_string_equal(j, "{\"boots\": [1]}");
    free(j);
    assert_int_equal(nf_store_delete_bisection(s, "/r"), 0);
    assert_int_equal(nf_store_delete_bisection(s, "/r"), NF_STORE_NOTFOUND);
    assert_int_equal(nf_store_load_bisection(s, "/q", &j), 0);
    assert_string_equal(j, "{}");
    free(j);
    assert_int_equal(tgt_int("SELECT count(*) FROM bisections"), 1);
    nf_store_close(s);
}

/* The run of id as history loads it (summaries), and as compare does
 * (values): the same metrics, each summary that of the values. */
static void check_summaries(struct nf_store *s, int64_t id, int want_summed)
{
    struct nf_store_filter f = {.id = id, .summaries = 1}, g = {.id = id};
    struct nf_run **a, **b;
    size_t na, nb;
    assert_int_equal(nf_store_load_runs(s, &f, &a, &na), 0);
    assert_int_equal(nf_store_load_runs(s, &g, &b, &nb), 0);
    assert_int_equal(na, 1);
    assert_int_equal(nb, 1);
    assert_int_equal(a[0]->nmetrics, b[0]->nmetrics);
    for (size_t i = 0; i < a[0]->nmetrics; i++) {
        const struct nf_metric *m = &a[0]->metrics[i];
        assert_string_equal(m->name, b[0]->metrics[i].name);
        assert_int_equal(m->summed, want_summed);
        struct nf_metric_summary u, v;
        nf_metric_summary_of(m, &u);
        nf_metric_summarise(b[0]->metrics[i].values, b[0]->metrics[i].n, &v);
        assert_int_equal(u.n, v.n);
        assert_int_equal(u.recip, v.recip);
        assert_memory_equal(&u.mean, &v.mean, sizeof(double));
        assert_memory_equal(&u.sd, &v.sd, sizeof(double));
        if (v.recip) {
            assert_memory_equal(&u.rmean, &v.rmean, sizeof(double));
            assert_memory_equal(&u.rsd, &v.rsd, sizeof(double));
        }
    }
    /* Of the environment, the keys history reads. */
    const json_t *h = json_object_get(a[0]->env, "hostname");
    assert_true(json_is_string(h));
    assert_string_equal(json_string_value(h), "box");
    assert_null(json_object_get(a[0]->env, "kernel"));
    nf_runs_free(a, na);
    nf_runs_free(b, nb);
}

/* 7 → 8: a store of schema 7 with runs gets their summaries; a run
 * imported since gets its own; rm takes them with the run. */
static void test_migrate_v7(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = nf_run_new("old", "command");
    r->env = json_pack("{s:s, s:s}", "hostname", "box", "kernel", "6.1");
    struct nf_metric *m = nf_run_metric(r, "ops", "ops/s", NF_BETTER_HIGHER, 1);
    const double v[] = {1000.5, 999.25, 1001.125, 0.1};
    for (size_t i = 0; i < 4; i++)
        nf_metric_push(m, v[i], 100);
    m = nf_run_metric(r, "delta", "", NF_BETTER_LOWER, 0);
    nf_metric_push(m, -1.5, 100);
    nf_metric_push(m, 2.0, 100);
    nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0)->supported = 0;
    nf_run_set_state(r, NF_RUN_COMPLETE);
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    nf_store_close(s);
    summaries_v7();
    tgt_exec("UPDATE schema_version SET version = 7");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 7);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
    assert_int_equal(tgt_int("SELECT count(*) FROM summaries"), 3);
    assert_int_equal(tgt_int("SELECT count(*) FROM summaries WHERE rmean IS NULL"), 2);
    check_summaries(s, r->id, 1);
    int64_t old = r->id;
    r->id = 0;
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    assert_int_equal(
        tgt_int("SELECT count(*) FROM summaries WHERE run_id = %lld", (long long)r->id), 3);
    check_summaries(s, r->id, 1);
    assert_int_equal(nf_store_delete_runs(s, &old, 1), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM summaries"), 3);
    /* A run without summaries (one whose writer died) reads its values. */
    tgt_exec("DELETE FROM summaries");
    check_summaries(s, r->id, 0);
    nf_run_free(r);
    nf_store_close(s);
}

/* A finished run of workload wl with one summarised metric. */
static int64_t add_run(struct nf_store *s, const char *wl, double v)
{
    struct nf_run *r = nf_run_new("nightly", wl);
    struct nf_metric *m = nf_run_metric(r, "ms", "ms", NF_BETTER_LOWER, 1);
    for (size_t i = 0; i < 3; i++)
        nf_metric_push(m, v + (double)i, 100);
    nf_run_set_state(r, NF_RUN_COMPLETE);
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    int64_t id = r->id;
    nf_run_free(r);
    return id;
}

/* The ids nf_store_load_points gives, and the first mean of each. */
static size_t load_ids(struct nf_store *s, int64_t *ids, double *means, size_t cap)
{
    struct nf_points p;
    nf_points_init(&p);
    assert_int_equal(nf_store_load_points(s, NULL, &p), 0);
    assert_true(p.nruns <= cap);
    for (size_t i = 0; i < p.nruns; i++) {
        ids[i] = p.runs[i].id;
        assert_int_equal(p.runs[i].npts, 1);
        means[i] = p.pts[p.runs[i].first].sum.mean;
    }
    size_t n = p.nruns;
    nf_points_free(&p);
    return n;
}

/* 9 -> 10: the points cache, empty; the first load of every run writes
 * it, a run deleted drops it, runs added after it leave it; each load
 * gives the runs the tables hold. */
static void test_migrate_v9(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t a = add_run(s, "a", 10), b = add_run(s, "b", 20);
    nf_store_close(s);
    tgt_points_cache_v9();
    tgt_exec("UPDATE schema_version SET version = 9");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 9);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 0);
    int64_t ids[8];
    double means[8];
    assert_int_equal(load_ids(s, ids, means, 8), 2);
    assert_int_equal(ids[0], a);
    assert_int_equal(ids[1], b);
    assert_true(means[1] == 21);
    assert_int_equal(tgt_int("SELECT upto FROM points_cache"), b);
    assert_int_equal(tgt_int("SELECT nruns FROM points_cache"), 2);
    int64_t c = add_run(s, "c", 30);
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 1); /* c is past it */
    assert_int_equal(load_ids(s, ids, means, 8), 3);
    assert_int_equal(ids[2], c);
    assert_true(means[2] == 31);
    assert_int_equal(nf_store_delete_runs(s, &a, 1), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 0);
    assert_int_equal(load_ids(s, ids, means, 8), 2);
    assert_int_equal(ids[0], b);
    assert_int_equal(ids[1], c);
    assert_int_equal(tgt_int("SELECT upto FROM points_cache"), c);
    tgt_exec("UPDATE summaries SET mean = 5 WHERE run_id = %lld", (long long)b);
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 0);
    assert_int_equal(load_ids(s, ids, means, 8), 2);
    assert_true(means[0] == 5);
    nf_store_close(s);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_migrate_v4), BOTH(test_migrate_v4_fails_whole),
        BOTH(test_migrate_v5), BOTH(test_migrate_v5_fails_whole),
        BOTH(test_migrate_v6), BOTH(test_migrate_v7),
        BOTH(test_migrate_v8), BOTH(test_migrate_v9),
    };
    int failed =
        cmocka_run_group_tests_name("store migration/sqlite", tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("store migration/postgresql", tests, tgt_group_pg, NULL);
    return failed;
}
