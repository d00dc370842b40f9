/* The results store where only PostgreSQL has something to test: which
 * strings name a PostgreSQL database, a database holding somebody else's
 * tables, unreachable servers and malformed strings, the password kept out
 * of messages, a writer's server session deciding whether its run is still
 * running, and writers creating the tables at once.  What both backends
 * share is in test_store.c and test_store_open.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "store_target.h"

/* A run of the pipe workload: reps repetitions of its one metric. */
static struct nf_run *pipe_run(const char *label, size_t reps)
{
    struct nf_run *r = nf_run_new(label, "pipe");
    r->repeat = (int)reps;
    nf_run_metric(r, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    for (size_t i = 0; i < reps; i++)
        nf_metric_push(&r->metrics[0], 6.0 + 0.01 * (double)i, 100.0);
    return r;
}

static void test_is_postgres(void **state)
{
    (void)state;
    assert_true(nf_store_is_postgres("postgresql://db.example/nf"));
    assert_true(nf_store_is_postgres("postgres://u@h:5433/nf?sslmode=require"));
    assert_true(nf_store_is_postgres("host=/tmp/x dbname=nf"));
    assert_true(nf_store_is_postgres("  dbname = nf"));
    assert_true(nf_store_is_postgres("service=fleet"));
    assert_false(nf_store_is_postgres("results=old.db"));
    assert_false(nf_store_is_postgres("noisefloor.db"));
    assert_false(nf_store_is_postgres("./postgresql.db"));
    assert_false(nf_store_is_postgres("/data/host=1.db"));
    assert_false(nf_store_is_postgres(":memory:"));
}

/* A database that holds somebody else's tables is not ours to fill. */
static void test_pg_refuses_foreign_tables(void **state)
{
    (void)state;
    tgt_exec("CREATE TABLE t (x integer); INSERT INTO t VALUES (1)");
    char err[NF_ERR_LEN];
    struct nf_store *s;
    assert_int_equal(nf_store_open(&s, tgt.db, NF_STORE_CREATE, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "holds tables that are not noisefloor's"));
    assert_null(strchr(err, '\n'));
    assert_int_equal(tgt_int("SELECT count(*) FROM pg_class c JOIN pg_namespace n"
                             " ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"),
                     1);
    assert_int_equal(tgt_int("SELECT x FROM t"), 1);
}

/* Unreachable servers and malformed strings: -1 and libpq's reason, one line. */
static void test_pg_bad_connections(void **state)
{
    (void)state;
    char *nodb = nf_xasprintf("%s dbname=nf_no_such_db", getenv("NF_TEST_PG"));
    const struct {
        const char *db, *want;
    } cases[] = {
        {"host=/nonexistent/nf dbname=x", "No such file or directory"},
        {"dbname='unterminated", "invalid PostgreSQL connection string: unterminated quoted"},
        {"postgresql://localhost/nf?nosuchoption=1", "invalid URI query parameter"},
        {"postgresql://localhost:notaport/nf", "notaport"},
        {nodb, "database \"nf_no_such_db\" does not exist"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[NF_ERR_LEN];
        struct nf_store *s;
        assert_int_equal(nf_store_open(&s, cases[i].db, NF_STORE_CREATE, err, sizeof(err)), -1);
        assert_null(s);
        if (!strstr(err, cases[i].want))
            fail_msg("%s: '%s' lacks '%s'", cases[i].db, err, cases[i].want);
        assert_null(strchr(err, '\n'));
    }
    free(nodb);
}

/* Messages name the store without its password. */
static void test_pg_password_hidden(void **state)
{
    (void)state;
    char *db = nf_xasprintf("%s password=hunter2", tgt.db);
    char err[NF_ERR_LEN];
    struct nf_store *s;
    assert_int_equal(nf_store_open(&s, db, NF_STORE_CREATE, err, sizeof(err)), 0); /* trust: ignored
                                                                                    */
    assert_null(strstr(nf_store_name(s), "hunter2"));
    assert_non_null(strstr(nf_store_name(s), tgt.dbname));
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, 5, &r), NF_STORE_NOTFOUND);
    assert_null(strstr(nf_store_error(s), "hunter2"));
    nf_store_close(s);
    free(db);
}

static const char *status_of(int64_t id)
{
    static char status[32];
    struct nf_store *s = tgt_open(0);
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    snprintf(status, sizeof(status), "%s", r->status);
    nf_run_free(r);
    nf_store_close(s);
    return status;
}

/* On PostgreSQL a running run is alive while its writer's server session
 * is, whatever machine the writer is on; on this machine its pid must
 * also be alive. */
static void test_pg_writer_session(void **state)
{
    (void)state;
    struct nf_store *w = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = pipe_run("aa", 0);
    assert_int_equal(nf_store_begin_run(w, r), 0);
    int64_t id = r->id;
    assert_string_equal(status_of(id), "running");

    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    tgt_exec("UPDATE runs SET pid = %d WHERE id = %lld", (int)child, (long long)id);
    assert_string_equal(status_of(id), "incomplete"); /* here, and its pid is gone */
    tgt_exec("UPDATE runs SET pid = %d, host = 'elsewhere' WHERE id = %lld", (int)child,
             (long long)id);
    assert_string_equal(status_of(id), "running"); /* elsewhere: its session decides */

    nf_store_close(w); /* the writer's session ends */
    const char *st = "running";
    for (int i = 0; i < 200 && strcmp(st, "running") == 0; i++) {
        usleep(50000); /* the server reaps the session soon after */
        st = status_of(id);
    }
    assert_string_equal(st, "incomplete");
    tgt_exec("UPDATE runs SET pid = %d, host = NULL WHERE id = %lld", (int)getpid(), (long long)id);
    assert_string_equal(status_of(id), "incomplete");
    nf_run_free(r);
}

/* Writers starting together on a new database create the tables once. */
static void test_pg_concurrent_create(void **state)
{
    (void)state;
    enum { N = 4 };
    pid_t kids[N];
    for (int i = 0; i < N; i++) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            char err[NF_ERR_LEN];
            struct nf_store *s;
            if (nf_store_open(&s, tgt.db, NF_STORE_CREATE, err, sizeof(err)) != 0) {
                fprintf(stderr, "child: %s\n", err);
                _exit(1);
            }
            struct nf_run *r = pipe_run("c", 2);
            int rc = nf_store_insert_runs(s, &r, 1, 1, NULL);
            nf_run_free(r);
            nf_store_close(s);
            _exit(rc ? 2 : 0);
        }
    }
    for (int i = 0; i < N; i++) {
        int st;
        assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    assert_int_equal(tgt_int("SELECT count(*) FROM runs"), N);
    assert_int_equal(tgt_int("SELECT count(*) FROM schema_version"), 1);
    assert_int_equal(tgt_int("SELECT version FROM schema_version"), NF_SCHEMA_VERSION);
}

/* Each test on a new database of the test server (test_is_postgres needs
 * none). */
#define ON_PG(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_postgres), ON_PG(test_pg_refuses_foreign_tables),
        ON_PG(test_pg_bad_connections),     ON_PG(test_pg_password_hidden),
        ON_PG(test_pg_writer_session),      ON_PG(test_pg_concurrent_create),
    };
    return cmocka_run_group_tests_name("store/postgresql only", tests, tgt_group_pg, NULL);
}
