/* Where a store test writes: a SQLite file in a new directory, or a new
 * database on the test PostgreSQL server (tests/pg/with-server.sh sets
 * NF_TEST_PG; `make unit-tests` and `make check` run the tests under it).
 * The same test functions run once per backend: each group's setup picks
 * the backend, each test's setup makes a fresh store location.  Raw SQL on
 * the store's database (to age a schema, fake a dead writer) goes through
 * tgt_exec and tgt_int.  Included by the store tests; not a library. */
#ifndef NF_TESTS_STORE_TARGET_H
#define NF_TESTS_STORE_TARGET_H

#include <libpq-fe.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "store/store.h"

static struct {
    int pg;          /* the backend of the group running */
    char dir[64];    /* a scratch directory (the SQLite file lives here) */
    char db[640];    /* what nf_store_open gets */
    char dbname[64]; /* PostgreSQL: the test's database */
} tgt;

/* The groups' setups (inline: a file may run only one of the groups). */
static inline int tgt_group_sqlite(void **state)
{
    (void)state;
    tgt.pg = 0;
    return 0;
}

static inline int tgt_group_pg(void **state)
{
    (void)state;
    tgt.pg = 1;
    return 0;
}

/* A connection to the test server, to database dbname. */
static PGconn *tgt_pg_connect(const char *dbname)
{
    const char *base = getenv("NF_TEST_PG");
    if (!base || !*base)
        fail_msg("NF_TEST_PG is not set: run the store tests under tests/pg/with-server.sh "
                 "(make unit-tests does)");
    char *ci = nf_xasprintf("%s dbname=%s", base, dbname);
    PGconn *c = PQconnectdb(ci);
    free(ci);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("test server: %s", PQerrorMessage(c));
    return c;
}

static void tgt_pg_admin(const char *sql)
{
    PGconn *c = tgt_pg_connect("postgres");
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        fail_msg("test server: %s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

static int tgt_setup(void **state)
{
    (void)state;
    static int seq;
    snprintf(tgt.dir, sizeof(tgt.dir), "/tmp/nf-test-store.XXXXXX");
    assert_non_null(mkdtemp(tgt.dir));
    if (!tgt.pg) {
        snprintf(tgt.db, sizeof(tgt.db), "%s/t.db", tgt.dir);
        return 0;
    }
    snprintf(tgt.dbname, sizeof(tgt.dbname), "nf_unit_%d_%d", (int)getpid(), ++seq);
    char *sql = nf_xasprintf("CREATE DATABASE %s", tgt.dbname);
    tgt_pg_admin(sql);
    free(sql);
    snprintf(tgt.db, sizeof(tgt.db), "%s dbname=%s", getenv("NF_TEST_PG"), tgt.dbname);
    return 0;
}

static int tgt_teardown(void **state)
{
    (void)state;
    char *cmd = nf_xasprintf("rm -rf '%s'", tgt.dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    if (tgt.pg) {
        char *sql = nf_xasprintf("DROP DATABASE %s WITH (FORCE)", tgt.dbname);
        tgt_pg_admin(sql);
        free(sql);
    }
    return 0;
}

/* Run SQL (printf-style) on the store's database; fail the test on error. */
static void tgt_exec(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tgt_exec(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql;
    assert_true(vasprintf(&sql, fmt, ap) >= 0);
    va_end(ap);
    if (tgt.pg) {
        PGconn *c = tgt_pg_connect(tgt.dbname);
        PGresult *r = PQexec(c, sql);
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
            fail_msg("%s: %s", sql, PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
    } else {
        sqlite3 *db;
        assert_int_equal(sqlite3_open(tgt.db, &db), SQLITE_OK);
        char *msg = NULL;
        if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
            fail_msg("%s: %s", sql, msg);
        sqlite3_close(db);
    }
    free(sql);
}

/* The integer a query (printf-style) returns. */
static long long tgt_int(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static long long tgt_int(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql;
    assert_true(vasprintf(&sql, fmt, ap) >= 0);
    va_end(ap);
    long long v = 0;
    if (tgt.pg) {
        PGconn *c = tgt_pg_connect(tgt.dbname);
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
            fail_msg("%s: %s", sql, PQerrorMessage(c));
        v = atoll(PQgetvalue(r, 0, 0));
        PQclear(r);
        PQfinish(c);
    } else {
        sqlite3 *db;
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_open(tgt.db, &db), SQLITE_OK);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            fail_msg("%s: %s", sql, sqlite3_errmsg(db));
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
    free(sql);
    return v;
}

/* The tables as schema 10 had them: metrics without not_counted (what a
 * test of an older schema drops first). */
static inline void tgt_not_counted_v10(void)
{
    tgt_exec("ALTER TABLE metrics DROP COLUMN not_counted");
}

/* The tables as schema 9 had them: without the points cache and its
 * triggers (and what 10 had not either). */
static inline void tgt_points_cache_v9(void)
{
    tgt_not_counted_v10();
    if (tgt.pg) {
        tgt_exec("SET client_min_messages = warning;"
                 " DROP FUNCTION points_cache_drop() CASCADE; RESET client_min_messages");
    } else {
        static const char *const trig[] = {"runs", "metrics", "summaries", "jobs"};
        for (size_t i = 0; i < 4; i++)
            tgt_exec("DROP TRIGGER points_cache_%s_i; DROP TRIGGER points_cache_%s_u;"
                     " DROP TRIGGER points_cache_%s_d",
                     trig[i], trig[i], trig[i]);
    }
    tgt_exec("DROP TABLE points_cache");
}

/* Make the store's database one of schema 5: without the histograms
 * table (what 6 added).  The test sets the version. */
static inline void tgt_hists_v5(void)
{
    tgt_exec("DROP TABLE histograms");
}

/* Make the store's database one of schema 4 as far as the samples go:
 * their table as it was then (one row per value), empty, and no
 * histograms.  The test adds the rows it needs and sets the version (what
 * came after 4 is only the samples' new shape and the histograms). */
static inline void tgt_samples_v4(void)
{
    tgt_hists_v5();
    if (tgt.pg)
        tgt_exec("DROP TABLE samples; CREATE TABLE samples ("
                 " run_id bigint NOT NULL, metric_idx integer NOT NULL, rep integer NOT NULL,"
                 " value double precision NOT NULL, running_pct double precision,"
                 " PRIMARY KEY (run_id, metric_idx, rep),"
                 " FOREIGN KEY (run_id, metric_idx) REFERENCES metrics (run_id, idx)"
                 " ON DELETE CASCADE)");
    else
        tgt_exec("DROP TABLE samples; CREATE TABLE samples ("
                 " run_id INTEGER NOT NULL, metric_idx INTEGER NOT NULL, rep INTEGER NOT NULL,"
                 " value REAL NOT NULL, running_pct REAL,"
                 " PRIMARY KEY (run_id, metric_idx, rep),"
                 " FOREIGN KEY (run_id, metric_idx) REFERENCES metrics (run_id, idx)"
                 " ON DELETE CASCADE) WITHOUT ROWID");
}

/* A run as `run` builds it: a workload metric, a counter, an unsupported one. */
static inline struct nf_run *tgt_sample_run(const char *label, size_t reps)
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

/* Open the store under test; fail the test when it cannot be. */
static struct nf_store *tgt_open(int flags)
{
    char err[NF_ERR_LEN];
    struct nf_store *s;
    if (nf_store_open(&s, tgt.db, flags, err, sizeof(err)) != 0)
        fail_msg("open %s: %s", tgt.db, err);
    return s;
}

/* A live process named "noisefloor" (as a writer's pid recycled by another
 * noisefloor process would be); tgt_twin_end stops it. */
static inline pid_t tgt_twin(void)
{
    int p[2];
    if (pipe(p) != 0)
        fail_msg("pipe");
    pid_t pid = fork();
    if (pid < 0)
        fail_msg("fork");
    if (pid == 0) {
        close(p[0]);
        prctl(PR_SET_NAME, "noisefloor");
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(p[1]);
    char c;
    if (read(p[0], &c, 1) != 1)
        fail_msg("twin did not start");
    close(p[0]);
    return pid;
}

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks
 * since boot (what a journal header records of its writer). */
static inline long long tgt_start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        fail_msg("no start time in %s", path);
    return atoll(p + 1);
}

static inline void tgt_twin_end(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

#endif
