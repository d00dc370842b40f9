/* Opening the database: refuse what is not ours, create or migrate what is.
 *
 * The checks run in an order that changes nothing before the file is known
 * to be a noisefloor database of a schema we understand: the SQLite header is
 * read with plain I/O, then the schema is read without writing, and only then
 * is WAL switched on and a migration applied (in one transaction). */
#include "store/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

/* migrations[v] takes a database from schema version v to v + 1.  Never edit
 * a released step; append a new one and bump NF_SCHEMA_VERSION. */
static const char *const migrations[NF_SCHEMA_VERSION] = {
    /* 0 → 1: the first schema. */
    "CREATE TABLE schema_version (version INTEGER NOT NULL);\n"
    "INSERT INTO schema_version VALUES (0);\n"
    "CREATE TABLE runs (\n"
    "  id       INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  label    TEXT NOT NULL,\n"
    "  workload TEXT NOT NULL,\n"
    "  args     TEXT NOT NULL DEFAULT '[]',   -- JSON array of strings\n"
    "  started  TEXT NOT NULL,                -- ISO 8601 UTC\n"
    "  repeat   INTEGER NOT NULL DEFAULT 0,\n"
    "  warmup   INTEGER NOT NULL DEFAULT 0,\n"
    "  status   TEXT NOT NULL,                -- running complete interrupted failed incomplete\n"
    "  session  TEXT,\n"
    "  note     TEXT,\n"
    "  env      TEXT,                         -- JSON object\n"
    "  pid      INTEGER,                      -- writer, while status is running\n"
    "  host     TEXT\n"
    ");\n"
    "CREATE INDEX runs_label ON runs (label, workload);\n"
    "CREATE INDEX runs_session ON runs (session) WHERE session IS NOT NULL;\n"
    "CREATE TABLE metrics (\n"
    "  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  idx        INTEGER NOT NULL,           -- order within the run\n"
    "  name       TEXT NOT NULL,\n"
    "  unit       TEXT NOT NULL,\n"
    "  better     TEXT NOT NULL CHECK (better IN ('lower', 'higher')),\n"
    "  is_primary INTEGER NOT NULL DEFAULT 0,\n"
    "  supported  INTEGER NOT NULL DEFAULT 1,\n"
    "  PRIMARY KEY (run_id, idx),\n"
    "  UNIQUE (run_id, name)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE samples (\n"
    "  run_id      INTEGER NOT NULL,\n"
    "  metric_idx  INTEGER NOT NULL,\n"
    "  rep         INTEGER NOT NULL,          -- 0-based repetition\n"
    "  value       REAL NOT NULL,\n"
    "  running_pct REAL,                      -- NULL: counter never multiplexed\n"
    "  PRIMARY KEY (run_id, metric_idx, rep),\n"
    "  FOREIGN KEY (run_id, metric_idx) REFERENCES metrics (run_id, idx) ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n",
    /* 1 → 2: profiles (noisefloor profile).  A row in profiles marks a run
     * as profiled, also when it got no samples; its symbols hang off it. */
    "CREATE TABLE profiles (\n"
    "  run_id  INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  event   TEXT NOT NULL,                 -- cycles or cpu-clock\n"
    "  freq    INTEGER NOT NULL,              -- sampling frequency asked for (Hz)\n"
    "  lost    INTEGER NOT NULL DEFAULT 0     -- records the kernel dropped\n"
    ");\n"
    "CREATE TABLE profile_symbols (\n"
    "  run_id  INTEGER NOT NULL REFERENCES profiles (run_id) ON DELETE CASCADE,\n"
    "  symbol  TEXT NOT NULL,\n"
    "  dso     TEXT NOT NULL,                 -- ELF path, [kernel.kallsyms], [vdso], ...\n"
    "  samples INTEGER NOT NULL,\n"
    "  period  INTEGER NOT NULL,              -- sum of sample periods: the overhead's weight\n"
    "  PRIMARY KEY (run_id, symbol, dso)\n"
    ") WITHOUT ROWID;\n",
};

int nf_store_seterr(struct nf_store *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
    va_end(ap);
    return -1;
}

int nf_store_dberr(struct nf_store *s, const char *what)
{
    return nf_store_seterr(s, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

int nf_store_exec(struct nf_store *s, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        nf_store_seterr(s, "%s: %s", s->path, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

sqlite3_stmt *nf_store_cached(struct nf_store *s, sqlite3_stmt **slot, const char *sql)
{
    if (!*slot &&
        sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL) != SQLITE_OK) {
        sqlite3_finalize(*slot);
        *slot = NULL;
    }
    return *slot;
}

/* Run a kept statement without results, as nf_store_exec. */
static int exec_cached(struct nf_store *s, sqlite3_stmt **slot, const char *sql)
{
    sqlite3_stmt *st = nf_store_cached(s, slot, sql);
    if (!st)
        return nf_store_seterr(s, "%s: %s", s->path, sqlite3_errmsg(s->db));
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        nf_store_seterr(s, "%s: %s", s->path, sqlite3_errmsg(s->db));
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int nf_store_tx_begin(struct nf_store *s)
{
    return exec_cached(s, &s->begin, "BEGIN IMMEDIATE");
}
int nf_store_tx_commit(struct nf_store *s)
{
    return exec_cached(s, &s->commit, "COMMIT");
}

void nf_store_tx_rollback(struct nf_store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

const char *nf_store_error(const struct nf_store *s)
{
    return s->errmsg;
}
int nf_store_opened_version(const struct nf_store *s)
{
    return s->opened_version;
}

/* One integer from a query, or -1 with the message set. */
static int query_int(struct nf_store *s, const char *sql, long long *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nf_store_dberr(s, "cannot read the database");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return nf_store_dberr(s, "cannot read the database");
    return 0;
}

/* Plain I/O before SQLite sees the file: a non-empty file must start with
 * the SQLite magic, or we refuse it without touching it. */
static int check_header(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open database '%s': %s", path, strerror(errno));
        return -1;
    }
    char magic[16];
    ssize_t r = read(fd, magic, sizeof(magic));
    close(fd);
    if (r == 0)
        return 0; /* empty: becomes a new database */
    if (r != (ssize_t)sizeof(magic) || memcmp(magic, "SQLite format 3", 16) != 0) {
        snprintf(err, errlen,
                 "'%s' is not a SQLite database (not a noisefloor "
                 "database); refusing to use it",
                 path);
        return -1;
    }
    return 0;
}

/* Read what the file holds and decide whether we may use it. */
static int check_schema(struct nf_store *s)
{
    long long ntables, appid, version = 0;
    if (query_int(s, "SELECT count(*) FROM sqlite_master", &ntables) ||
        query_int(s, "PRAGMA application_id", &appid))
        return -1;
    if (ntables == 0 && appid == 0) {
        s->opened_version = 0;
        return 0;
    }
    if (appid != NF_APPLICATION_ID)
        return nf_store_seterr(s,
                               "'%s' is a SQLite database but not a noisefloor "
                               "database; refusing to use it",
                               s->path);
    if (query_int(s, "SELECT max(version) FROM schema_version", &version))
        return -1;
    if (version > NF_SCHEMA_VERSION)
        return nf_store_seterr(s,
                               "'%s' has database schema version %lld, newer than "
                               "this noisefloor (%s) knows (%d); use a newer noisefloor",
                               s->path, version, NF_VERSION, NF_SCHEMA_VERSION);
    if (version < 0)
        return nf_store_seterr(s, "'%s': invalid schema version %lld", s->path, version);
    s->opened_version = (int)version;
    return 0;
}

static int migrate(struct nf_store *s)
{
    if (nf_store_tx_begin(s))
        return -1;
    /* Another process may have migrated between our check and the lock. */
    long long version = 0, ntables;
    if (query_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'", &ntables))
        goto fail;
    if (ntables && query_int(s, "SELECT max(version) FROM schema_version", &version))
        goto fail;
    for (long long v = version; v < NF_SCHEMA_VERSION; v++) {
        if (nf_store_exec(s, migrations[v]))
            goto fail;
        char *sql = nf_xasprintf("UPDATE schema_version SET version = %lld", v + 1);
        int rc = nf_store_exec(s, sql);
        free(sql);
        if (rc)
            goto fail;
    }
    char *sql = nf_xasprintf("PRAGMA application_id = %d", NF_APPLICATION_ID);
    int rc = nf_store_exec(s, sql);
    free(sql);
    if (rc || nf_store_tx_commit(s))
        goto fail;
    return 0;
fail:
    nf_store_tx_rollback(s);
    return -1;
}

struct nf_store *nf_store_open(const char *path, int flags, int *notfound, char *err, size_t errlen)
{
    struct stat sb;
    if (notfound)
        *notfound = 0;
    int exists = stat(path, &sb) == 0;
    if (!exists && errno != ENOENT) {
        snprintf(err, errlen, "cannot open database '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (!exists && !(flags & NF_STORE_CREATE)) {
        if (notfound)
            *notfound = 1;
        snprintf(err, errlen, "no database at '%s' (run something first, or give --db PATH)", path);
        return NULL;
    }
    if (exists && S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "database '%s' is a directory", path);
        return NULL;
    }
    if (exists && check_header(path, err, errlen))
        return NULL;

    struct nf_store *s = nf_xcalloc(1, sizeof(*s));
    s->path = nf_xstrdup(path);
    int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                 (flags & NF_STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &s->db, oflags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open database '%s': %s", path,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        nf_store_close(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, 10000);
    if (check_schema(s))
        goto fail;
    /* WAL: readers (compare, list) never block the writer (run).  NORMAL
     * sync in WAL mode survives the death of the process at any point (the
     * contract: kill -9 keeps finished repetitions); only a power loss may
     * lose the last commits, and it costs no fsync per repetition. */
    if (nf_store_exec(s, "PRAGMA journal_mode = WAL") ||
        nf_store_exec(s, "PRAGMA synchronous = NORMAL") ||
        nf_store_exec(s, "PRAGMA foreign_keys = ON"))
        goto fail;
    if (s->opened_version < NF_SCHEMA_VERSION && migrate(s))
        goto fail;
    return s;
fail:
    snprintf(err, errlen, "%s", s->errmsg);
    nf_store_close(s);
    return NULL;
}

void nf_store_close(struct nf_store *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->begin);
    sqlite3_finalize(s->commit);
    sqlite3_finalize(s->upsert_metrics);
    sqlite3_finalize(s->insert_sample);
    sqlite3_close(s->db);
    free(s->metrics_flags);
    free(s->path);
    free(s);
}
