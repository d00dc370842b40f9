/* The SQLite backend's plumbing, below everything else of it (as pg_conn.c
 * is the PostgreSQL backend's): one-line errors, statements run and kept
 * prepared, transactions. */
#include "store/sqlite_int.h"

#include <string.h>

int nf_sq_dberr(struct nf_sqlite *q, const char *what)
{
    /* "disk I/O error" says little; the system's reason (no space left)
     * says what to do.  (After SQLITE_CANTOPEN it is of SQLite's last try,
     * often not the telling one.) */
    int code = sqlite3_errcode(q->db) & 0xff, sys = sqlite3_system_errno(q->db);
    if (sys && (code == SQLITE_IOERR || code == SQLITE_FULL))
        return nf_store_seterr(&q->base, "%s: %s: %s (%s)", q->base.name, what,
                               sqlite3_errmsg(q->db), strerror(sys));
    return nf_store_seterr(&q->base, "%s: %s: %s", q->base.name, what, sqlite3_errmsg(q->db));
}

int nf_sq_exec(struct nf_sqlite *q, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        nf_store_seterr(&q->base, "%s: %s", q->base.name, msg ? msg : sqlite3_errmsg(q->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

sqlite3_stmt *nf_sq_cached(struct nf_sqlite *q, sqlite3_stmt **slot, const char *sql)
{
    if (!*slot &&
        sqlite3_prepare_v3(q->db, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL) != SQLITE_OK) {
        sqlite3_finalize(*slot);
        *slot = NULL;
    }
    return *slot;
}

/* Run a kept statement without results, as nf_sq_exec. */
static int exec_cached(struct nf_sqlite *q, sqlite3_stmt **slot, const char *sql)
{
    sqlite3_stmt *st = nf_sq_cached(q, slot, sql);
    if (!st)
        return nf_store_seterr(&q->base, "%s: %s", q->base.name, sqlite3_errmsg(q->db));
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        nf_store_seterr(&q->base, "%s: %s", q->base.name, sqlite3_errmsg(q->db));
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int nf_sq_begin(struct nf_sqlite *q)
{
    return exec_cached(q, &q->begin, "BEGIN IMMEDIATE");
}

int nf_sq_commit(struct nf_sqlite *q)
{
    return exec_cached(q, &q->commit, "COMMIT");
}

void nf_sq_rollback(struct nf_sqlite *q)
{
    if (!sqlite3_get_autocommit(q->db))
        sqlite3_exec(q->db, "ROLLBACK", NULL, NULL, NULL);
}
