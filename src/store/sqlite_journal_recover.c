/* The recovery of the SQLite backend's repetition journals (see
 * sqlite_int.h; sqlite_journal.c has the file and its writer): on open,
 * each journal beside the database whose writer is gone goes into the
 * database and is removed; one that this handle cannot fold (it cannot
 * write, or the fold fails) is left on disk, its rows held in memory for
 * the loader. */
#include "store/sqlite_journal_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

/* ---- recovery ------------------------------------------------------------ */

enum { WRITER_GONE, WRITER_LIVES, RUN_DONE, RUN_UNKNOWN };

/* What became of run_id, whose journal (its writer gone: its lock was
 * taken) says its writer was pid. */
static int run_state(struct nf_sqlite *q, int64_t run_id, int64_t pid)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, "SELECT status, pid FROM runs WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return WRITER_LIVES; /* cannot tell: leave it */
    sqlite3_bind_int64(st, 1, run_id);
    int state = RUN_UNKNOWN;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(st, 0);
        if (!status || strcmp(status, "running") != 0)
            state = RUN_DONE; /* finished: its end flushed the journal */
        else if (sqlite3_column_int64(st, 1) != pid)
            state = RUN_UNKNOWN; /* a journal of another database's run */
        else
            state = WRITER_GONE;
    }
    sqlite3_finalize(st);
    return state;
}

/* The records of the journal mapped at map into the database, in a
 * transaction of their own; with them, the run's writer (pid) is known
 * gone: the row's pid is cleared, so that no reader, once the journal is
 * removed, takes a process that holds the pid since for the writer. */
static int fold(struct nf_sqlite *q, const unsigned char *map, int64_t run_id, int64_t pid)
{
    sqlite3_stmt *st = NULL;
    if (nf_sq_begin(q))
        return -1;
    int rc = nf_sq_insert_records(q, map, NF_SQ_JOURNAL_SIZE, NF_SQ_JOURNAL_HDR, NF_SQ_JOURNAL_SIZE,
                                  nf_sq_get64(map + 32), run_id);
    if (rc == 0 && sqlite3_prepare_v2(q->db,
                                      "UPDATE runs SET pid = NULL"
                                      " WHERE id = ? AND status = 'running' AND pid = ?",
                                      -1, &st, NULL) != SQLITE_OK)
        rc = nf_sq_dberr(q, "cannot store samples");
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, pid);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = nf_sq_dberr(q, "cannot store samples");
    }
    sqlite3_finalize(st);
    if (rc == 0)
        rc = nf_sq_summarise_run(q, run_id);
    if (rc || nf_sq_commit(q)) {
        nf_sq_rollback(q);
        return -1;
    }
    return 0;
}

/* ---- reading without folding -------------------------------------------- */

/* A dead writer's rows that this handle could not fold into the database
 * (it cannot write, or the fold failed): copied out of the journal, for
 * the loader to read with the database's (nf_sq_journal_held). */
struct nf_sq_held {
    int64_t run_id;
    unsigned char *bytes; /* the journal up to its last record that counts */
    struct nf_sq_jrow *rows;
    size_t n;
};

/* By rep; of two records of one rep, the one written first (the one the
 * fold's INSERT OR IGNORE keeps). */
static int by_rep(const void *a, const void *b)
{
    const struct nf_sq_jrow *x = a, *y = b;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    return x->vals < y->vals ? -1 : x->vals > y->vals;
}

/* Keep in memory the records of the journal mapped at map that the fold
 * would insert: those that count, by the same reading (nf_sq_record_at), taken
 * again from a copy so that what is kept is what was checked. */
static void hold(struct nf_sqlite *q, const unsigned char *map, int64_t run_id)
{
    uint64_t gen = nf_sq_get64(map + 32);
    size_t end = NF_SQ_JOURNAL_HDR;
    for (size_t len; (len = nf_sq_record_at(map, NF_SQ_JOURNAL_SIZE, end, gen)) != 0;)
        end += len;
    if (end == NF_SQ_JOURNAL_HDR)
        return;
    struct nf_sq_held h = {.run_id = run_id, .bytes = nf_xmalloc(end)};
    memcpy(h.bytes, map, end);
    h.rows = nf_xmalloc((end - NF_SQ_JOURNAL_HDR) / NF_SQ_JOURNAL_REC * sizeof(*h.rows));
    for (size_t off = NF_SQ_JOURNAL_HDR, len; (len = nf_sq_record_at(h.bytes, end, off, gen)) != 0;
         off += len) {
        const unsigned char *r = h.bytes + off;
        uint32_t vlen = nf_sq_get32(r + 16), plen = nf_sq_get32(r + 20);
        h.rows[h.n++] = (struct nf_sq_jrow){.rep = (int64_t)nf_sq_get64(r + 8),
                                            .vals = r + NF_SQ_JOURNAL_REC,
                                            .vlen = vlen,
                                            .pcts = plen ? r + NF_SQ_JOURNAL_REC + vlen : NULL,
                                            .plen = plen};
    }
    qsort(h.rows, h.n, sizeof(*h.rows), by_rep);
    size_t k = 0;
    for (size_t i = 0; i < h.n; i++)
        if (k == 0 || h.rows[i].rep != h.rows[k - 1].rep)
            h.rows[k++] = h.rows[i];
    h.n = k;
    q->held = nf_xrealloc(q->held, (q->nheld + 1) * sizeof(*q->held));
    q->held[q->nheld++] = h;
}

size_t nf_sq_journal_held(struct nf_sqlite *q, int64_t run_id, const struct nf_sq_jrow **rows)
{
    for (size_t i = 0; i < q->nheld; i++)
        if (q->held[i].run_id == run_id) {
            *rows = q->held[i].rows;
            return q->held[i].n;
        }
    *rows = NULL;
    return 0;
}

void nf_sq_journal_release(struct nf_sqlite *q)
{
    for (size_t i = 0; i < q->nheld; i++) {
        free(q->held[i].bytes);
        free(q->held[i].rows);
    }
    free(q->held);
    q->held = NULL;
    q->nheld = 0;
}

/* One journal at path, for run_id: folded into the database if its
 * writer is gone, removed once it says nothing the database lacks; a
 * gone writer's rows that cannot be folded are held in memory. */
static void recover_one(struct nf_sqlite *q, const char *path, int64_t run_id)
{
    int fd = nf_sq_open_journal(path);
    if (fd < 0)
        return;
    struct stat sb;
    unsigned char *map = MAP_FAILED;
    /* Only a file of ours, of the size we make, whose writer is gone: a
     * live writer holds its lock (a journal being made has it before it
     * has its name), whatever host name it runs under.  The read lock
     * taken here lasts while the file is mapped. */
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
        sb.st_size == NF_SQ_JOURNAL_SIZE && nf_sq_writer_lives(fd) == 0)
        map = mmap(NULL, NF_SQ_JOURNAL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return;
    int64_t id, pid;
    memcpy(&id, map + 16, 8);
    memcpy(&pid, map + 24, 8);
    if (memcmp(map, nf_sq_journal_magic, 8) != 0 || nf_sq_get32(map + 8) != 1 || id != run_id) {
        munmap(map, NF_SQ_JOURNAL_SIZE);
        return;
    }
    int state = run_state(q, run_id, pid);
    /* A handle that cannot write changes nothing: it reads the rows it
     * would have folded, and leaves the journal to a later open. */
    int remove = !q->readonly && (state == RUN_DONE || state == RUN_UNKNOWN);
    if (state == WRITER_GONE) {
        if (!q->readonly && fold(q, map, run_id, pid) == 0)
            remove = 1;
        else
            hold(q, map, run_id);
    }
    munmap(map, NF_SQ_JOURNAL_SIZE);
    /* The name may have been given to another file meanwhile: remove only
     * the one read. */
    struct stat now;
    if (remove && lstat(path, &now) == 0 && now.st_dev == sb.st_dev && now.st_ino == sb.st_ino)
        unlink(path);
}

/* A journal still under its temporary name is a writer's for the instant
 * between making it and renaming it into place; one a minute old was left
 * by a death in that instant.  Ours only, not through a symlink. */
static void remove_stale_tmp(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
        time(NULL) - sb.st_mtime > 60)
        unlink(path);
}

void nf_sq_journal_recover(struct nf_sqlite *q)
{
    const char *db = q->real;
    if (!db)
        return;
    const char *slash = strrchr(db, '/');
    char *dir = slash ? nf_xasprintf("%.*s", (int)(slash - db + 1), db) : nf_xstrdup("./");
    const char *base = slash ? slash + 1 : db;
    char *prefix = nf_xasprintf("%s-nfj.", base);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        const char *digits = e->d_name + plen;
        char *end;
        errno = 0;
        long long id = strtoll(digits, &end, 10);
        if (errno || end == digits || id <= 0 || digits[0] == '0')
            continue; /* not ours */
        char *path = nf_xasprintf("%s%s", dir, e->d_name);
        if (!*end)
            recover_one(q, path, id);
        else if (strncmp(end, ".tmp.", 5) == 0 && !q->readonly)
            remove_stale_tmp(path);
        free(path);
    }
    if (d)
        closedir(d);
    free(prefix);
    free(dir);
}
