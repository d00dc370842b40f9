/* The SQLite backend, opening a database: refuse what is not ours, create
 * or migrate what is.
 *
 * The checks run in an order that changes nothing before the file is known
 * to be a noisefloor database of a schema we understand: the SQLite header is
 * read with plain I/O, then the schema is read without writing, and only then
 * is WAL switched on and a migration applied (in one transaction; the
 * schema's steps and the check: sqlite_schema.c). */
#include "store/sqlite_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/safefile.h"
#include "core/util.h"

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

/* SQLite's own files beside the database (-journal, -wal, -shm) are
 * opened by SQLite without O_NONBLOCK: a FIFO or a device planted at one
 * of those names would block it forever, or be written.  Refused first. */
static int check_siblings(const char *path, char *err, size_t errlen)
{
    static const char *const tails[] = {"-journal", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        char *name = nf_xasprintf("%s%s", path, tails[i]);
        struct stat sb;
        int bad = lstat(name, &sb) == 0 && !S_ISREG(sb.st_mode);
        if (bad)
            snprintf(err, errlen, "'%s' is not a regular file; refusing to use database '%s'", name,
                     path);
        free(name);
        if (bad)
            return -1;
    }
    return 0;
}

/* Close q->db, finalizing first the statements kept on it: with one left,
 * sqlite3_close refuses (SQLITE_BUSY) and the connection stays open for
 * good.  A failed migration leaves the BEGIN it prepared. */
static void sq_disconnect(struct nf_sqlite *q)
{
    sqlite3_stmt **kept[] = {&q->begin,         &q->commit,      &q->upsert_metrics,
                             &q->insert_sample, &q->insert_hist, &q->insert_journaled,
                             &q->put_summary,   &q->insert_run};
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        sqlite3_finalize(*kept[i]);
        *kept[i] = NULL;
    }
    sqlite3_close(q->db);
    q->db = NULL;
}

static void sq_close(struct nf_store *s)
{
    struct nf_sqlite *q = nf_sq(s);
    if (q->db)
        nf_sq_journal_close_all(q);
    nf_sq_journal_release(q);
    sq_disconnect(q);
    free(q->real);
    nf_store_base_free(s);
    free(q);
}

static const struct nf_store_ops sqlite_ops = {
    .backend = "sqlite",
    .close = sq_close,
    .begin_run = nf_sq_begin_run,
    .add_rep = nf_sq_add_rep,
    .finish_run = nf_sq_finish_run,
    .insert_runs = nf_sq_insert_runs,
    .delete_runs = nf_sq_delete_runs,
    .find_runs = nf_sq_find_runs,
    .load_runs = nf_sq_load_runs,
    .load_points = nf_sq_load_points,
    .pcache_txn = nf_sq_pcache_txn,
    .pcache_read = nf_sq_pcache_read,
    .pcache_write = nf_sq_pcache_write,
    .load_hists = nf_sq_load_hists,
    .add_profile = nf_sq_add_profile,
    .load_profiles = nf_sq_load_profiles,
    .submit = nf_sq_submit,
    .cancel_job = nf_sq_cancel_job,
    .claim_job = nf_sq_claim_job,
    .renew_job = nf_sq_renew_job,
    .end_job = nf_sq_end_job,
    .list_jobs = nf_sq_list_jobs,
    .load_bisection = nf_sq_load_bisection,
    .save_bisection = nf_sq_save_bisection,
    .delete_bisection = nf_sq_delete_bisection,
};

/* SQLite's URI for the file path with query params: the path escaped so
 * that any file name means that file ("file:x?mode=memory" given as a path
 * is a file of that name, not an in-memory database). */
static char *uri_of(const char *path, const char *params)
{
    char *u = nf_xmalloc(3 * strlen(path) + strlen(params) + 16), *o = u;
    o += sprintf(o, "file:");
    while (path[0] == '/' && path[1] == '/') /* "file://x" would name a host */
        path++;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f)
            o += sprintf(o, "%%%02X", *p);
        else
            *o++ = (char)*p;
    sprintf(o, "%s%s", *params ? "?" : "", params);
    return u;
}

/* Whether path's -wal file holds anything (a writer is at work, or one
 * died before its last checkpoint); *shm: whether the -shm file exists. */
static int wal_in_use(const char *path, int *shm)
{
    char *w = nf_xasprintf("%s-wal", path), *m = nf_xasprintf("%s-shm", path);
    struct stat sb;
    int used = stat(w, &sb) == 0 && sb.st_size > 0;
    *shm = stat(m, &sb) == 0;
    free(w);
    free(m);
    return used;
}

/* One connection to path as SQLite's URI with params (NULL: path itself,
 * for ":memory:"), with our settings; NULL with err. */
static sqlite3 *sq_connect(const char *path, const char *params, int oflags, char *err,
                           size_t errlen)
{
    char *name = params ? uri_of(path, params) : nf_xstrdup(path);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(name, &db, oflags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(name);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open database '%s': %s", path,
                 db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, NF_SQ_BUSY_MS);
    return db;
}

/* Refuse a file that is not ours before anything can change it: read it
 * through a connection that writes nothing, not even to the -wal and -shm
 * files (a read-write connection to another application's WAL database
 * would run recovery into its -shm and checkpoint its -wal on close).
 * Without a -wal in use the file itself is the whole database and is read
 * as immutable; with one, through SQLite's read-only -shm mode.  0 when
 * nothing says no (what the file holds is checked again when it is really
 * opened); -1 with err when it is another application's or newer. */
static int inspect(const char *path, char *err, size_t errlen)
{
    int shm;
    int whole = !(wal_in_use(path, &shm) && shm);
    char why[NF_ERR_LEN];
    struct nf_sqlite q = {.base.name = (char *)path};
    q.db = sq_connect(path, whole ? "immutable=1" : "mode=ro&readonly_shm=1", SQLITE_OPEN_READONLY,
                      why, sizeof(why));
    int rc = 0;
    if (q.db && nf_sq_check_schema(&q)) {
        /* The file alone unreadable is a corrupt file (a writer would have
         * a -wal in use); through a live -shm it may be a passing state. */
        int code = sqlite3_errcode(q.db) & 0xff;
        rc = q.refused || (whole && (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)) ? -1 : 0;
    }
    if (rc)
        snprintf(err, errlen, "%s", q.base.errmsg);
    sqlite3_close(q.db);
    return rc;
}

static const int no_ckpt = SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE;

/* Switch to WAL.  Two processes opening a new database at once can both
 * find it in rollback mode; the switch of one then fails SQLITE_BUSY at
 * once in the other, without the busy handler (the pager refuses the
 * switch while the file has another reader).  Try again until the busy
 * timeout has gone: by then the other has switched or given up. */
static int set_wal(struct nf_sqlite *q)
{
    for (int waited = 0;; waited += 10) {
        int rc = sqlite3_exec(q->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if ((rc & 0xff) != SQLITE_BUSY || waited >= NF_SQ_BUSY_MS)
            return nf_sq_dberr(q, "cannot switch to WAL mode");
        sqlite3_sleep(10);
    }
}

/* The normal way: read-write (created with NF_STORE_CREATE), WAL, migrated. */
static int open_rw(struct nf_sqlite *q, const char *path, int flags, char *err, size_t errlen)
{
    int oflags = SQLITE_OPEN_READWRITE | (flags & NF_STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
    int shm, wal = strcmp(path, ":memory:") != 0 && wal_in_use(path, &shm);
    q->db = sq_connect(path, strcmp(path, ":memory:") == 0 ? NULL : "", oflags, err, errlen);
    if (!q->db)
        return -1;
    /* A -wal in use holds commits that are not ours to checkpoint (nor its
     * -shm ours to delete) until the file is known to be ours.  Without
     * one, closing checkpoints nothing and removes the -wal and -shm this
     * connection made. */
    if (wal)
        sqlite3_db_config(q->db, no_ckpt, 1, NULL);
    if (nf_sq_check_schema(q))
        goto fail;
    sqlite3_db_config(q->db, no_ckpt, 0, NULL);
    /* WAL: readers (compare, list) never block the writer (run).  NORMAL
     * sync in WAL mode survives the death of the process at any point (the
     * contract: kill -9 keeps finished repetitions); only a power loss may
     * lose the last commits, and it costs no fsync per repetition.  What
     * syncs is a checkpoint (two fdatasyncs); at SQLite's default of 1000
     * pages, a run of `-- true` under schema 4 (about 8 pages a repetition)
     * took one every ~125 repetitions, ~60 us a repetition on a virtual
     * disk.  At 16384 pages (a WAL of 64 MiB at most, removed when the last
     * connection closes) it is one per ~12,000 repetitions of schema 5
     * (about 1.3 pages each); a commit is as safe either way. */
    if (set_wal(q) || nf_sq_exec(q, "PRAGMA synchronous = NORMAL") ||
        nf_sq_exec(q, "PRAGMA foreign_keys = ON") ||
        nf_sq_exec(q, "PRAGMA wal_autocheckpoint = 16384"))
        goto fail;
    if (q->base.opened_version < NF_SCHEMA_VERSION &&
        (nf_sq_add_functions(q->db) ? nf_sq_dberr(q, "cannot upgrade the schema")
                                    : nf_sq_migrate(q)))
        goto fail;
    return 0;
fail:
    snprintf(err, errlen, "%s", q->base.errmsg);
    sq_disconnect(q);
    return -1;
}

/* For reading where the database cannot be written (a read-only directory
 * or mount, a full disk), where a read-write connection fails to create the
 * -wal or -shm file: with no -wal in use the file is the whole database,
 * read as immutable; with one (a writer at work, or one that died), through
 * a read-only connection to the -shm that exists.  Neither creates a file.
 * The schema must be the current one (an older one needs writing to be
 * upgraded). */
static int open_ro(struct nf_sqlite *q, const char *path)
{
    int shm;
    int wal = wal_in_use(path, &shm);
    if (wal && !shm)
        return -1;
    char err[NF_ERR_LEN];
    q->db =
        sq_connect(path, wal ? "mode=ro" : "immutable=1", SQLITE_OPEN_READONLY, err, sizeof(err));
    if (q->db && nf_sq_check_schema(q) == 0 && q->base.opened_version == NF_SCHEMA_VERSION)
        return 0;
    sqlite3_close(q->db);
    q->db = NULL;
    return -1;
}

/* A new database starts as an empty file we create ourselves (safefile:
 * under a fresh name, then linked into place), never through a symlink
 * someone planted at its name: SQLite would create the file the link
 * points to, anywhere.  SQLite takes the empty file as a new database, and
 * opens its -wal and -shm with O_NOFOLLOW itself. */
static int create_file(const char *path, char *err, size_t errlen)
{
    char why[NF_ERR_LEN];
    struct nf_newfile nf;
    if (nf_newfile_open(&nf, path, 0644, why, sizeof(why)) == 0 &&
        nf_newfile_commit(&nf, NF_NEWFILE_NOREPLACE, why, sizeof(why)) == 0)
        return 0;
    struct stat sb;
    if (errno == EEXIST && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        snprintf(err, errlen,
                 "'%s' is a symbolic link to nothing; not creating a database through it", path);
        return -1;
    }
    if (errno == EEXIST) /* created meanwhile by another noisefloor */
        return 0;
    snprintf(err, errlen, "%s", why);
    return -1;
}

int nf_sqlite_open(struct nf_store **out, const char *path, int flags, char *err, size_t errlen)
{
    struct stat sb;
    *out = NULL;
    int memory = strcmp(path, ":memory:") == 0; /* for tests; the CLI refuses it */
    int exists = !memory && stat(path, &sb) == 0;
    if (!memory && !exists && errno != ENOENT) {
        snprintf(err, errlen, "cannot open database '%s': %s", path, strerror(errno));
        return -1;
    }
    if (!memory && !exists && !(flags & NF_STORE_CREATE)) {
        snprintf(err, errlen, "no database at '%s' (run something first, or give --db PATH)", path);
        return NF_STORE_NOTFOUND;
    }
    if (!memory && !exists && create_file(path, err, errlen))
        return -1;
    exists = exists || (!memory && stat(path, &sb) == 0);
    if (exists && S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "database '%s' is a directory", path);
        return -1;
    }
    /* A device or a FIFO: SQLite would fail on it (or block on a FIFO
     * forever) after making a "-journal" file beside it. */
    if (exists && !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "database '%s' is not a regular file", path);
        return -1;
    }
    if (exists && check_header(path, err, errlen))
        return -1;
    if (!memory && check_siblings(path, err, errlen))
        return -1;
    if (exists && sb.st_size > 0 && inspect(path, err, errlen))
        return -1;

    struct nf_sqlite *q = nf_xcalloc(1, sizeof(*q));
    q->base.ops = &sqlite_ops;
    q->base.name = nf_xstrdup(path);
    int rw = open_rw(q, path, flags, err, errlen) == 0;
    if (!rw && (!(flags & NF_STORE_READONLY) || q->refused || !exists || open_ro(q, path) != 0)) {
        sq_close(&q->base);
        return -1;
    }
    /* The rows of writers that died: folded into the database, or where
     * it cannot be written, read into memory. */
    q->readonly = !rw;
    q->real = memory ? NULL : realpath(path, NULL);
    if (!memory && !q->real)
        q->real = nf_xstrdup(path);
    nf_sq_journal_recover(q);
    *out = &q->base;
    return 0;
}
