/* The results store, on both backends: schema, refusal of foreign files
 * and newer schemas, per-repetition commits, loaders, delete, import ids,
 * the incomplete-run rule.  What only PostgreSQL has is in
 * test_store_pg.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "store_target.h"

static struct nf_store *open_new(void)
{
    return tgt_open(NF_STORE_CREATE);
}

/* A run as `run` builds it: a workload metric, a counter, an unsupported one. */
static struct nf_run *sample_run(const char *label, size_t reps)
{
    struct nf_run *r = nf_run_new(label, "pipe");
    char *args[] = {"-l", "1000"};
    nf_run_set_args(r, 2, args);
    r->repeat = (int)reps;
    r->warmup = 1;
    r->env = json_pack("{s:s, s:i}", "kernel", "6.1.0", "nr_cpus", 4);
    /* nf_run_metric may move the array: look metrics up after declaring. */
    nf_run_metric(r, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    nf_run_metric(r, "ops/sec", "ops/sec", NF_BETTER_HIGHER, 0);
    nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0);
    nf_run_metric(r, "task-clock", "msec", NF_BETTER_LOWER, 0);
    struct nf_metric *u = &r->metrics[0], *o = &r->metrics[1], *t = &r->metrics[3];
    r->metrics[2].supported = 0;
    for (size_t i = 0; i < reps; i++) {
        nf_metric_push(u, 6.0 + 0.01 * (double)i, 100.0);
        nf_metric_push(o, 1e6 / (6.0 + 0.01 * (double)i), 100.0);
        nf_metric_push(t, 11.0 + (double)i, i == 1 ? 83.72 : 100.0);
    }
    return r;
}

static char *dump(const struct nf_run *r)
{
    json_t *j = nf_run_to_json(r);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    return s;
}

static void test_create_schema(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    assert_int_equal(nf_store_opened_version(s), 0);
    assert_string_equal(nf_store_backend(s), tgt.pg ? "postgresql" : "sqlite");
    nf_store_close(s);
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), NF_SCHEMA_VERSION);
    nf_store_close(s);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), NF_SCHEMA_VERSION);

    if (tgt.pg) {
        assert_int_equal(tgt_int("SELECT application_id FROM schema_version"), NF_APPLICATION_ID);
        return;
    }
    sqlite3 *db;
    assert_int_equal(sqlite3_open(tgt.db, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* Readers do not create a store: no file, or no tables in the database. */
static void test_missing_without_create(void **state)
{
    (void)state;
    char err[NF_ERR_LEN];
    struct nf_store *s = (struct nf_store *)&err; /* must be reset to NULL */
    assert_int_equal(nf_store_open(&s, tgt.db, 0, err, sizeof(err)), NF_STORE_NOTFOUND);
    assert_null(s);
    assert_null(strchr(err, '\n'));
    if (tgt.pg) {
        assert_non_null(strstr(err, "no noisefloor store in"));
        assert_int_equal(
            tgt_int("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"), 0);
    } else {
        assert_non_null(strstr(err, "no database"));
        assert_int_equal(access(tgt.db, F_OK), -1);
    }
}

static char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    char *buf = nf_xmalloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void write_file(const char *p, const char *data, size_t len)
{
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Refused, and byte for byte what it was, with no -wal/-shm left behind. */
static void assert_refused_unchanged(const char *want)
{
    size_t l0, l1;
    char *before = slurp(tgt.db, &l0);
    char err[NF_ERR_LEN];
    struct nf_store *s;
    assert_int_equal(nf_store_open(&s, tgt.db, NF_STORE_CREATE, err, sizeof(err)), -1);
    assert_null(s);
    assert_non_null(strstr(err, want));
    assert_null(strchr(err, '\n'));
    char *after = slurp(tgt.db, &l1);
    assert_int_equal(l0, l1);
    assert_memory_equal(before, after, l0);
    char *wal = nf_xasprintf("%s-wal", tgt.db);
    assert_int_equal(access(wal, F_OK), -1);
    free(wal);
    free(before);
    free(after);
}

static void test_refuses_text_file(void **state)
{
    (void)state;
    const char text[] = "these are my notes, not a database\n";
    write_file(tgt.db, text, sizeof(text) - 1);
    assert_refused_unchanged("not a SQLite database");
}

static void test_refuses_corrupt(void **state)
{
    (void)state;
    char buf[8192];
    memset(buf, 0xa5, sizeof(buf));
    memcpy(buf, "SQLite format 3", 16);
    write_file(tgt.db, buf, sizeof(buf));
    assert_refused_unchanged(tgt.db);
}

static void test_refuses_foreign_sqlite(void **state)
{
    (void)state;
    tgt_exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
    assert_refused_unchanged("not a noisefloor database");
}

/* A store of a newer noisefloor: refused, and nothing written to it. */
static void test_refuses_newer_schema(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *r = sample_run("x", 2);
    assert_int_equal(nf_store_insert_runs(s, &r, 1), 0);
    nf_store_close(s);
    nf_run_free(r);
    if (!tgt.pg) {
        tgt_exec("PRAGMA journal_mode = DELETE; UPDATE schema_version SET version = 99");
        assert_refused_unchanged("schema version 99");
        return;
    }
    tgt_exec("UPDATE schema_version SET version = 99");
    /* The newer version would have its own tables: one more here. */
    tgt_exec("CREATE TABLE from_the_future (x integer)");
    const char *digest = "SELECT (SELECT count(*) FROM runs) * 1000000"
                         " + (SELECT count(*) FROM samples) * 1000"
                         " + (SELECT count(*) FROM pg_class c JOIN pg_namespace n"
                         "    ON n.oid = c.relnamespace WHERE n.nspname = current_schema())";
    long long before = tgt_int("%s", digest);
    char err[NF_ERR_LEN];
    for (int flags = 0; flags <= NF_STORE_CREATE; flags++) {
        assert_int_equal(nf_store_open(&s, tgt.db, flags, err, sizeof(err)), -1);
        assert_null(s);
        assert_non_null(strstr(err, "schema version 99, newer than"));
        assert_null(strchr(err, '\n'));
    }
    assert_int_equal(tgt_int("%s", digest), before);
    assert_int_equal(tgt_int("SELECT max(version) FROM schema_version"), 99);
}

static void test_begin_add_finish_load(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *full = sample_run("aa", 3);
    /* Replay it as `run` does: declare, begin, push and commit each rep. */
    struct nf_run *r = nf_run_new("aa", "pipe");
    char *args[] = {"-l", "1000"};
    nf_run_set_args(r, 2, args);
    r->repeat = 3;
    r->warmup = 1;
    snprintf(r->started, sizeof(r->started), "%s", full->started);
    r->env = json_deep_copy(full->env);
    for (size_t i = 0; i < full->nmetrics; i++) {
        struct nf_metric *m = &full->metrics[i];
        nf_run_metric(r, m->name, m->unit, m->better, m->primary);
    }
    assert_int_equal(nf_store_begin_run(s, r), 0);
    assert_true(r->id > 0);
    for (size_t rep = 0; rep < 3; rep++) {
        for (size_t i = 0; i < full->nmetrics; i++) {
            struct nf_metric *m = &full->metrics[i];
            r->metrics[i].supported = m->supported;
            if (m->n > rep)
                nf_metric_push(&r->metrics[i], m->values[rep],
                               m->running_pct ? m->running_pct[rep] : 100.0);
        }
        assert_int_equal(nf_store_add_rep(s, r, rep), 0);
        struct nf_run *mid;
        assert_int_equal(nf_store_load_run(s, r->id, &mid), 0);
        assert_string_equal(mid->status, "running"); /* our own pid: alive */
        assert_int_equal(nf_run_find(mid, "usecs/op")->n, rep + 1);
        nf_run_free(mid);
    }
    nf_run_set_status(r, "complete");
    assert_int_equal(nf_store_finish_run(s, r), 0);

    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
    full->id = r->id;
    nf_run_set_status(full, "complete");
    char *a = dump(full), *b = dump(back);
    assert_string_equal(a, b);
    struct nf_metric *c = nf_run_find(back, "cycles");
    assert_int_equal(c->supported, 0);
    assert_int_equal(c->n, 0);
    assert_null(nf_run_find(back, "usecs/op")->running_pct);
    assert_non_null(nf_run_find(back, "task-clock")->running_pct);
    assert_true(nf_run_find(back, "task-clock")->running_pct[1] == 83.72);
    free(a);
    free(b);
    nf_run_free(back);
    nf_run_free(r);
    nf_run_free(full);

    assert_int_equal(nf_store_load_run(s, 12345, &back), NF_STORE_NOTFOUND);
    assert_non_null(strstr(nf_store_error(s), "no run 12345"));
    nf_store_close(s);
}

/* A run left "running" by a process that is gone reads as incomplete. */
static void test_dead_writer_is_incomplete(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *r = sample_run("aa", 0);
    struct nf_metric *u = nf_run_find(r, "usecs/op");
    assert_int_equal(nf_store_begin_run(s, r), 0);
    nf_metric_push(u, 5.0, 100.0);
    assert_int_equal(nf_store_add_rep(s, r, 0), 0);
    int64_t id = r->id;
    nf_store_close(s);
    nf_run_free(r);

    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0); /* a pid that certainly is gone now */
    tgt_exec("UPDATE runs SET pid = %d WHERE id = %lld", (int)child, (long long)id);

    s = open_new();
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, id, &back), 0);
    assert_string_equal(back->status, "incomplete");
    assert_int_equal(nf_run_find(back, "usecs/op")->n, 1);
    nf_run_free(back);
    nf_store_close(s);
}

/* SQLite: a live noisefloor process holding a "running" run's pid is its
 * writer only if it started when the writer did, as the run's journal
 * records; one that started at another time holds a recycled pid, and the
 * run is incomplete.  (PostgreSQL asks the server about the writer's
 * session instead.) */
static void test_recycled_writer_pid(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *r = sample_run("aa", 0);
    assert_int_equal(nf_store_begin_run(s, r), 0);
    pid_t twin = tgt_twin();
    tgt_exec("UPDATE runs SET pid = %d WHERE id = %lld", (int)twin, (long long)r->id);
    char *journal = nf_xasprintf("%s-nfj.%lld", tgt.db, (long long)r->id);
    int fd = open(journal, O_WRONLY); /* the header: writer pid at 24, its start at 40 */
    assert_true(fd >= 0);
    int64_t pid = twin, born = tgt_start_ticks(twin);
    assert_int_equal(pwrite(fd, &pid, 8, 24), 8);
    assert_int_equal(pwrite(fd, &born, 8, 40), 8);

    struct nf_store *o = open_new();
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(o, r->id, &back), 0);
    assert_string_equal(back->status, "running"); /* the journal's writer, alive */
    nf_run_free(back);
    born = tgt_start_ticks(twin) - 1; /* a writer that started a tick earlier than the twin */
    assert_int_equal(pwrite(fd, &born, 8, 40), 8);
    assert_int_equal(nf_store_load_run(o, r->id, &back), 0);
    assert_string_equal(back->status, "incomplete");
    nf_run_free(back);

    close(fd);
    free(journal);
    tgt_twin_end(twin);
    nf_store_close(o);
    nf_store_close(s);
    nf_run_free(r);
}

static void test_filters_label_delete(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *runs[4] = {sample_run("a", 3), sample_run("b", 2), sample_run("a", 4),
                              sample_run("c", 1)};
    free(runs[3]->workload);
    runs[3]->workload = nf_xstrdup("messaging");
    assert_int_equal(nf_store_insert_runs(s, runs, 4), 0);

    const char *ab[] = {"a", "c"};
    struct nf_store_filter f = {.labels = ab, .nlabels = 2};
    int64_t *ids;
    size_t n;
    assert_int_equal(nf_store_find_runs(s, &f, &ids, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(ids[0], runs[0]->id);
    assert_int_equal(ids[1], runs[2]->id);
    assert_int_equal(ids[2], runs[3]->id);
    free(ids);
    f.workload = "pipe";
    assert_int_equal(nf_store_find_runs(s, &f, &ids, &n), 0);
    assert_int_equal(n, 2);
    free(ids);

    struct nf_run **got;
    assert_int_equal(nf_store_load_label(s, "a", NULL, &got, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(nf_run_find(got[0], "usecs/op")->n, 3);
    assert_int_equal(nf_run_find(got[1], "usecs/op")->n, 4);
    assert_true(nf_run_find(got[1], "usecs/op")->values[3] == 6.03);
    nf_runs_free(got, n);
    assert_int_equal(nf_store_load_label(s, "zz", NULL, &got, &n), NF_STORE_NOTFOUND);
    assert_non_null(strstr(nf_store_error(s), "'zz'"));

    /* Delete: all or nothing. */
    int64_t del[2] = {runs[1]->id, 999};
    assert_int_equal(nf_store_delete_runs(s, del, 2), NF_STORE_NOTFOUND);
    struct nf_run *still;
    assert_int_equal(nf_store_load_run(s, runs[1]->id, &still), 0);
    nf_run_free(still);
    assert_int_equal(nf_store_delete_runs(s, del, 1), 0);
    assert_int_equal(nf_store_load_run(s, runs[1]->id, &still), NF_STORE_NOTFOUND);
    assert_int_equal(tgt_int("SELECT (SELECT count(*) FROM samples WHERE run_id = %lld) + "
                             "(SELECT count(*) FROM metrics WHERE run_id = %lld)",
                             (long long)runs[1]->id, (long long)runs[1]->id),
                     0); /* cascaded */
    for (int i = 0; i < 4; i++)
        nf_run_free(runs[i]);
    nf_store_close(s);
}

/* Imported runs keep free ids; taken ones get new ids; failures change
 * nothing. */
static void test_insert_ids_and_atomicity(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *a = sample_run("a", 2), *b = sample_run("b", 2);
    a->id = 7;
    b->id = 7;
    struct nf_run *both[2] = {a, b};
    assert_int_equal(nf_store_insert_runs(s, both, 2), 0);
    assert_int_equal(a->id, 7);
    assert_true(b->id != 7 && b->id > 0);

    /* A run that cannot be stored (metric name not UTF-8) rolls back all. */
    struct nf_run *c = sample_run("c", 2), *d = sample_run("d", 2);
    free(d->metrics[0].name);
    d->metrics[0].name = nf_xstrdup("bad\xff");
    c->id = 50;
    struct nf_run *cd[2] = {c, d};
    assert_int_equal(nf_store_insert_runs(s, cd, 2), -1);
    assert_non_null(strstr(nf_store_error(s), "UTF-8"));
    assert_int_equal(c->id, 50);
    struct nf_run *x;
    assert_int_equal(nf_store_load_run(s, 50, &x), NF_STORE_NOTFOUND);
    int64_t *ids;
    size_t n;
    assert_int_equal(nf_store_find_runs(s, NULL, &ids, &n), 0);
    assert_int_equal(n, 2);
    free(ids);
    nf_run_free(a);
    nf_run_free(b);
    nf_run_free(c);
    nf_run_free(d);
    nf_store_close(s);
}

/* Many runs and samples come back whole and in order from the loader
 * (speed is measured by bench/, not here). */
static void test_load_many(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    enum { RUNS = 20, REPS = 500 };
    struct nf_run *runs[RUNS];
    for (int i = 0; i < RUNS; i++) {
        runs[i] = nf_run_new(i % 2 ? "odd" : "even", "pipe");
        nf_run_metric(runs[i], "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
        nf_run_metric(runs[i], "page-faults", "", NF_BETTER_LOWER, 0);
        struct nf_metric *m = &runs[i]->metrics[0], *k = &runs[i]->metrics[1];
        for (int r = 0; r < REPS; r++) {
            nf_metric_push(m, i * 1000.0 + r, 100.0);
            nf_metric_push(k, -r, 100.0);
        }
    }
    assert_int_equal(nf_store_insert_runs(s, runs, RUNS), 0);
    struct nf_run **got;
    size_t n;
    assert_int_equal(nf_store_load_label(s, "odd", "pipe", &got, &n), 0);
    assert_int_equal(n, RUNS / 2);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i]->id, runs[2 * i + 1]->id);
        struct nf_metric *m = nf_run_find(got[i], "usecs/op");
        assert_int_equal(m->n, REPS);
        for (int r = 0; r < REPS; r++)
            assert_true(m->values[r] == (2 * i + 1) * 1000.0 + r);
        assert_true(nf_run_find(got[i], "page-faults")->values[REPS - 1] == -(REPS - 1));
    }
    nf_runs_free(got, n);
    for (int i = 0; i < RUNS; i++)
        nf_run_free(runs[i]);
    nf_store_close(s);
}

/* Samples come back in repetition order whatever order the database keeps
 * them in (an updated row moves to the end of a PostgreSQL table's page),
 * and with a repetition missing. */
static void test_rep_order(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *r = nf_run_new("o", "pipe");
    nf_run_metric(r, "a", "", NF_BETTER_LOWER, 1);
    nf_run_metric(r, "b", "", NF_BETTER_LOWER, 0);
    for (int i = 0; i < 5; i++) {
        nf_metric_push(&r->metrics[0], 10.0 + i, 100.0);
        nf_metric_push(&r->metrics[1], 20.0 + i, i == 3 ? 50.0 : 100.0);
    }
    assert_int_equal(nf_store_insert_runs(s, &r, 1), 0);
    tgt_exec("UPDATE samples SET vals = vals WHERE rep IN (0, 2)");
    /* Metric 1 without its value of repetition 1. */
    if (tgt.pg)
        tgt_exec("UPDATE samples SET vals[2] = NULL WHERE rep = 1");
    else /* a NaN (little-endian) in its place */
        tgt_exec("UPDATE samples SET vals = substr(vals, 1, 8) || X'000000000000F87F'"
                 " WHERE rep = 1");
    if (tgt.pg) /* statistics: a small table is scanned, in its physical order */
        tgt_exec("ANALYZE samples");
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
    struct nf_metric *a = nf_run_find(back, "a"), *b = nf_run_find(back, "b");
    assert_int_equal(a->n, 5);
    for (int i = 0; i < 5; i++)
        assert_true(a->values[i] == 10.0 + i);
    assert_null(a->running_pct);
    assert_int_equal(b->n, 4);
    const double want[] = {20, 22, 23, 24}, pct[] = {100, 100, 50, 100};
    assert_non_null(b->running_pct);
    for (int i = 0; i < 4; i++) {
        assert_true(b->values[i] == want[i]);
        assert_true(b->running_pct[i] == pct[i]);
    }
    nf_run_free(back);
    nf_run_free(r);
    nf_store_close(s);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest sqlite_tests[] = {
        BOTH(test_create_schema),
        BOTH(test_missing_without_create),
        BOTH(test_refuses_text_file),
        BOTH(test_refuses_corrupt),
        BOTH(test_refuses_foreign_sqlite),
        BOTH(test_refuses_newer_schema),
        BOTH(test_begin_add_finish_load),
        BOTH(test_dead_writer_is_incomplete),
        BOTH(test_recycled_writer_pid),
        BOTH(test_filters_label_delete),
        BOTH(test_insert_ids_and_atomicity),
        BOTH(test_load_many),
        BOTH(test_rep_order),
    };
    const struct CMUnitTest pg_tests[] = {
        BOTH(test_create_schema),
        BOTH(test_missing_without_create),
        BOTH(test_refuses_newer_schema),
        BOTH(test_begin_add_finish_load),
        BOTH(test_dead_writer_is_incomplete),
        BOTH(test_filters_label_delete),
        BOTH(test_insert_ids_and_atomicity),
        BOTH(test_load_many),
        BOTH(test_rep_order),
    };
    int failed = cmocka_run_group_tests_name("store/sqlite", sqlite_tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("store/postgresql", pg_tests, tgt_group_pg, NULL);
    return failed;
}
