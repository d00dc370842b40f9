/* The SQLite backend's plumbing, below everything else of it (as pg_conn.c
 * is the PostgreSQL backend's): one-line errors, statements run and kept
 * prepared, transactions. */
#include "store/sqlite_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "core/util.h"

/* The database's file (the database, its -wal or its -journal) that has
 * reached the file-size limit (RLIMIT_FSIZE, ulimit -f), or NULL; the
 * limit in *limit.  A write past the limit fails with EFBIG, but by the
 * time SQLite reports the I/O error its errno is often gone: a file
 * within the largest write SQLite makes (a WAL frame of the largest page)
 * of the limit tells it instead.  malloc'd. */
static char *at_size_limit(struct nf_sqlite *q, unsigned long long *limit)
{
    struct rlimit rl;
    const char *db = sqlite3_db_filename(q->db, "main");
    if (!db || !*db || getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return NULL;
    static const char *const tails[] = {"-wal", "-journal", ""};
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        char *path = nf_xasprintf("%s%s", db, tails[i]);
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
            (unsigned long long)sb.st_size + 65536 + 24 >= (unsigned long long)rl.rlim_cur) {
            *limit = (unsigned long long)rl.rlim_cur;
            return path;
        }
        free(path);
    }
    return NULL;
}

/* "NAME: WHAT: MSG" (WHAT NULL: "NAME: MSG"), MSG SQLite's message of the
 * connection's last error unless given; returns -1.  "disk I/O error"
 * says little; the system's reason (no space left, the file-size limit)
 * says what to do.  (After SQLITE_CANTOPEN it is of SQLite's last try,
 * often not the telling one.) */
static int sq_err(struct nf_sqlite *q, const char *what, const char *msg)
{
    const char *sep = what ? ": " : "";
    what = what ? what : "";
    msg = msg ? msg : sqlite3_errmsg(q->db);
    int code = sqlite3_errcode(q->db) & 0xff, sys = sqlite3_system_errno(q->db);
    int io = code == SQLITE_IOERR || code == SQLITE_FULL;
    unsigned long long limit;
    char *file;
    if (io && (sys == 0 || sys == EFBIG) && (file = at_size_limit(q, &limit)) != NULL) {
        nf_store_seterr(&q->base,
                        "%s: %s%sfile size limit reached writing %s (RLIMIT_FSIZE, ulimit -f: "
                        "%llu bytes)",
                        q->base.name, what, sep, file, limit);
        free(file);
        return -1;
    }
    if (io && sys)
        return nf_store_seterr(&q->base, "%s: %s%s%s (%s)", q->base.name, what, sep, msg,
                               strerror(sys));
    return nf_store_seterr(&q->base, "%s: %s%s%s", q->base.name, what, sep, msg);
}

int nf_sq_dberr(struct nf_sqlite *q, const char *what)
{
    return sq_err(q, what, NULL);
}

int nf_sq_exec(struct nf_sqlite *q, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        sq_err(q, NULL, msg);
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
        return sq_err(q, NULL, NULL);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        sq_err(q, NULL, NULL);
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
