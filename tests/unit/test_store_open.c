/* Opening a store, on both backends: the schema a new one gets, readers
 * that do not create one, and what is refused with nothing written: a
 * file that is not SQLite, a corrupt one, another application's
 * database, a store of a newer schema. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "store_target.h"

static struct nf_store *open_new(void)
{
    return tgt_open(NF_STORE_CREATE);
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
    struct nf_run *r = tgt_sample_run("x", 2);
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
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

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest sqlite_tests[] = {
        BOTH(test_create_schema),          BOTH(test_missing_without_create),
        BOTH(test_refuses_text_file),      BOTH(test_refuses_corrupt),
        BOTH(test_refuses_foreign_sqlite), BOTH(test_refuses_newer_schema),
    };
    const struct CMUnitTest pg_tests[] = {
        BOTH(test_create_schema),
        BOTH(test_missing_without_create),
        BOTH(test_refuses_newer_schema),
    };
    int failed = cmocka_run_group_tests_name("store/sqlite", sqlite_tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("store/postgresql", pg_tests, tgt_group_pg, NULL);
    return failed;
}
