/* The SQLite backend's points cache (store_pcache.c has what it holds and
 * when): schema 10's table points_cache and its triggers, read and written. */
#include "store/sqlite_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Schema 10's step (migrations[9] in sqlite_schema.c). */
const char nf_sq_pcache_schema[] =
    "CREATE TABLE points_cache (\n"
    "  id    INTEGER PRIMARY KEY CHECK (id = 1),\n"
    "  upto  INTEGER NOT NULL,               -- the runs of ids up to it ...\n"
    "  nruns INTEGER NOT NULL,               -- ... this many when it was written\n"
    "  data  BLOB NOT NULL                   -- their rows (store_pcache.c)\n"
    ");\n"
    "CREATE TRIGGER points_cache_runs_i AFTER INSERT ON runs\n"
    "  WHEN NEW.id <= (SELECT upto FROM points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_runs_u AFTER UPDATE ON runs\n"
    "  WHEN OLD.id <= (SELECT upto FROM points_cache) OR NEW.id <= (SELECT upto FROM "
    "points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_runs_d AFTER DELETE ON runs\n"
    "  WHEN OLD.id <= (SELECT upto FROM points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_metrics_i AFTER INSERT ON metrics\n"
    "  WHEN NEW.run_id <= (SELECT upto FROM points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_metrics_u AFTER UPDATE ON metrics\n"
    "  WHEN OLD.run_id <= (SELECT upto FROM points_cache) OR NEW.run_id <= (SELECT upto FROM "
    "points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_metrics_d AFTER DELETE ON metrics\n"
    "  WHEN OLD.run_id <= (SELECT upto FROM points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_summaries_i AFTER INSERT ON summaries\n"
    "  WHEN NEW.run_id <= (SELECT upto FROM points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_summaries_u AFTER UPDATE ON summaries\n"
    "  WHEN OLD.run_id <= (SELECT upto FROM points_cache) OR NEW.run_id <= (SELECT upto FROM "
    "points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_summaries_d AFTER DELETE ON summaries\n"
    "  WHEN OLD.run_id <= (SELECT upto FROM points_cache)\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_jobs_i AFTER INSERT ON jobs\n"
    "  WHEN EXISTS (SELECT 1 FROM runs r WHERE r.job = NEW.id AND r.id <= (SELECT upto FROM "
    "points_cache))\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_jobs_u AFTER UPDATE OF id, attempt, state ON jobs\n"
    "  WHEN EXISTS (SELECT 1 FROM runs r WHERE r.job = OLD.id AND r.id <= (SELECT upto FROM "
    "points_cache)) OR EXISTS (SELECT 1 FROM runs r WHERE r.job = NEW.id AND r.id <= (SELECT upto "
    "FROM points_cache))\n"
    "  BEGIN DELETE FROM points_cache; END;\n"
    "CREATE TRIGGER points_cache_jobs_d AFTER DELETE ON jobs\n"
    "  WHEN EXISTS (SELECT 1 FROM runs r WHERE r.job = OLD.id AND r.id <= (SELECT upto FROM "
    "points_cache))\n"
    "  BEGIN DELETE FROM points_cache; END;\n";

int nf_sq_pcache_txn(struct nf_store *s, int what)
{
    struct nf_sqlite *q = nf_sq(s);
    if (what == 0 || what == 3) {
        /* A handle that reads dead writers' rows from memory, or one in a
         * transaction of its own, reads the tables as they are. */
        if (q->readonly || q->nheld || !sqlite3_get_autocommit(q->db) || nf_sq_journal_flush_all(q))
            return -1;
        return sqlite3_exec(q->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    }
    if (what == 1 && sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    nf_sq_rollback(q);
    return what == 1 ? nf_sq_dberr(q, "cannot read runs") : 0;
}

int nf_sq_pcache_read(struct nf_store *s, int64_t *upto, int64_t *nruns, void **data, size_t *len)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    *data = NULL;
    if (sqlite3_prepare_v2(q->db,
                           "SELECT c.upto, c.nruns, c.data,"
                           " (SELECT count(*) FROM runs r WHERE r.id <= c.upto)"
                           " FROM points_cache c WHERE c.id = 1",
                           -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read the points cache");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_int64(st, 1) == sqlite3_column_int64(st, 3) &&
        sqlite3_column_bytes(st, 2) > 0) {
        *upto = sqlite3_column_int64(st, 0);
        *nruns = sqlite3_column_int64(st, 1);
        *len = (size_t)sqlite3_column_bytes(st, 2);
        *data = nf_xmalloc(*len);
        memcpy(*data, sqlite3_column_blob(st, 2), *len);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return nf_sq_dberr(q, "cannot read the points cache");
    return 0;
}

int nf_sq_pcache_write(struct nf_store *s, int64_t upto, int64_t nruns, const void *data,
                       size_t len)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    /* In the load's read transaction: it becomes a write one only if no
     * other commit came since the load's snapshot (else SQLITE_BUSY), so
     * the rows written are the rows the tables hold. */
    if (sqlite3_prepare_v2(q->db,
                           "INSERT OR REPLACE INTO points_cache (id, upto, nruns, data)"
                           " VALUES (1, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, upto);
    sqlite3_bind_int64(st, 2, nruns);
    sqlite3_bind_blob64(st, 3, data, len, SQLITE_STATIC);
    /* Not worth waiting for another writer: it commits, and this
     * snapshot is stale then anyway. */
    sqlite3_busy_timeout(q->db, 0);
    int rc = sqlite3_step(st);
    sqlite3_busy_timeout(q->db, NF_SQ_BUSY_MS);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}
