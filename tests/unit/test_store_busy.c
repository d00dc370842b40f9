/* A SQLite store waits long for another writer: a run waiting for the lock
 * holds a measured repetition, and an import of a large file keeps the lock
 * while it parses (about 20 s for 100 MB), so a short busy timeout lost
 * repetitions.  And while it waits it does wait: a writer holding the lock
 * briefly delays a commit, never fails it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/sqlite_int.h"
#include "store/store.h"

static char dir[] = "/tmp/nf-busy.XXXXXX";
static char path[64];

static int setup(void **st)
{
    (void)st;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/t.db", dir);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char b[96];
    const char *sfx[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(b, sizeof(b), "%s%s", path, sfx[i]);
        unlink(b);
    }
    rmdir(dir);
    return 0;
}

static void test_busy_timeout_long(void **st)
{
    (void)st;
    struct nf_store *s;
    char err[NF_ERR_LEN];
    assert_int_equal(nf_store_open(&s, path, NF_STORE_CREATE, err, sizeof(err)), 0);
    sqlite3_stmt *q;
    assert_int_equal(
        sqlite3_prepare_v2(((struct nf_sqlite *)s)->db, "PRAGMA busy_timeout", -1, &q, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    /* At least ten minutes, in ms. */
    assert_true(sqlite3_column_int(q, 0) >= 600000);
    sqlite3_finalize(q);
    nf_store_close(s);
}

/* Another connection holds the write lock for 300 ms. */
static void *hold(void *arg)
{
    sqlite3 *db = arg;
    usleep(300000);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return NULL;
}

static void test_commit_waits_for_a_writer(void **st)
{
    (void)st;
    struct nf_store *s;
    char err[NF_ERR_LEN];
    assert_int_equal(nf_store_open(&s, path, NF_STORE_CREATE, err, sizeof(err)), 0);
    struct nf_run *r = nf_run_new("busy", "command");
    nf_run_metric(r, "wall", "s", NF_BETTER_LOWER, 1);
    assert_int_equal(nf_store_begin_run(s, r), 0);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hold, other), 0);
    nf_metric_push(&r->metrics[0], 0.5, 100.0);
    /* The repetition and the run's end reach the database while the
     * other writer holds the lock: they wait for it. */
    assert_int_equal(nf_store_add_rep(s, r, 0), 0);
    assert_int_equal(nf_store_finish_run(s, r), 0);
    pthread_join(t, NULL);
    sqlite3_close(other);
    nf_run_free(r);
    nf_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busy_timeout_long),
        cmocka_unit_test(test_commit_waits_for_a_writer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
