/* The repetition journal of the SQLite backend (see sqlite_int.h): its
 * file and its writer.  The next handle's recovery of a dead writer's
 * journal is in sqlite_journal_recover.c.
 *
 * A file "<database>-nfj.<run id>" next to the database, owned by the
 * writer, mapped shared:
 *
 *   header (64 bytes): magic "NFJRNL1\0", u32 version 1, u32 0, i64 run
 *                      id, i64 writer pid, u64 generation, i64 the
 *                      writer's start in clock ticks since boot (0: not
 *                      known; for a reader's eyes, the lock below says
 *                      whether the writer lives), padding
 *   records from byte 64, one after another, each 8-byte aligned:
 *                      u64 generation, u64 rep, u32 vlen, u32 plen,
 *                      u64 check, then vlen + plen bytes (the samples
 *                      row's vals and pcts blobs), padded to 8
 *
 * check is a 64-bit FNV-1a of the record's other fields and bytes; it is
 * stored last.  A record counts when its generation is the header's and
 * its check matches; reading stops at the first that does not.  So a
 * record cut short by the writer's death (or, after a power loss, one
 * whose pages reached the disk in part) is not read, and neither is
 * anything after it.  After the records are in the database the writer
 * may start again at byte 64 under the next generation: what the old ones
 * left there no longer counts.
 *
 * Pages of a file mapped shared belong to the file, not to the process:
 * what the writer stored before a SIGKILL is in the file after it.
 *
 * The writer holds a write lock on the whole file (an open file
 * description's lock, F_OFD_SETLK) from before the file has its name
 * until after the name is gone; the kernel drops it when the writer dies,
 * however it dies.  So a reader knows the writer lives by failing to take
 * a read lock, and that it is gone by taking one: whatever host name
 * either recorded, and whatever pid namespace either runs in, on any
 * machine sharing the file system's locks. */
#include "store/sqlite_journal_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#define MAX_BLOB (NF_RUN_MAX_METRICS * 8)
/* The records wait at most this long for their transaction. */
#define FLUSH_NS 100000000ull

const char nf_sq_journal_magic[8] = "NFJRNL1";

struct nf_sq_journal {
    int64_t run_id;
    int fd;
    unsigned char *map;
    char *path;
    uint64_t gen;
    size_t tail;    /* where the next record goes */
    size_t flushed; /* the records before this are in the database */
    uint64_t last_flush;
};

uint64_t nf_sq_get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

uint32_t nf_sq_get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The check of the record at r (its first 24 bytes and its blobs). */
static uint64_t check_of(const unsigned char *r, size_t blobs)
{
    uint64_t h = fnv(0xcbf29ce484222325ull, r, 24);
    return fnv(h, r + NF_SQ_JOURNAL_REC, blobs);
}

static size_t padded(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* The record at off in a journal of size bytes under generation gen: its
 * length, or 0 when it does not count. */
size_t nf_sq_record_at(const unsigned char *map, size_t size, size_t off, uint64_t gen)
{
    if (off + NF_SQ_JOURNAL_REC > size)
        return 0;
    const unsigned char *r = map + off;
    uint32_t vlen = nf_sq_get32(r + 16), plen = nf_sq_get32(r + 20);
    if (nf_sq_get64(r) != gen || vlen == 0 || vlen > MAX_BLOB || plen > MAX_BLOB || vlen % 8 ||
        plen % 8 || nf_sq_get64(r + 8) > INT32_MAX)
        return 0;
    size_t len = NF_SQ_JOURNAL_REC + padded(vlen + plen);
    if (off + len > size || nf_sq_get64(r + 24) != check_of(r, vlen + plen))
        return 0;
    return len;
}

static char *journal_path(const char *db, int64_t run_id)
{
    return nf_xasprintf("%s-nfj.%" PRId64, db, run_id);
}

/* A journal to read: never through a symlink, and without waiting (a FIFO
 * planted at its name would block open and read forever); the callers
 * then take only a regular file of ours. */
int nf_sq_open_journal(const char *path)
{
    return open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

#ifdef F_OFD_SETLK
#define LOCK_OFD F_OFD_SETLK
#else
#define LOCK_OFD F_SETLK
#endif

/* A lock of type (F_WRLCK, F_RDLCK) on the whole of fd's file, without
 * waiting: 0, or -1 (EAGAIN/EACCES: another holds a lock that conflicts).
 * An open file description's lock, so that two handles in one process
 * conflict as two processes do; on a kernel without them (before Linux
 * 3.15: EINVAL), a process's lock, which a reader in the writer's own
 * process does not see (and drops when it closes the file). */
static int lock_file(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET};
    if (fcntl(fd, LOCK_OFD, &fl) == 0)
        return 0;
    if (LOCK_OFD != F_SETLK && errno == EINVAL)
        return fcntl(fd, F_SETLK, &fl);
    return -1;
}

/* Whether the writer of the journal open at fd lives: 1 (it holds its
 * lock), 0 (the lock could be taken: it is gone), -1 (cannot tell). */
int nf_sq_writer_lives(int fd)
{
    if (lock_file(fd, F_RDLCK) == 0)
        return 0; /* held until fd and any mapping of it are closed */
    return errno == EAGAIN || errno == EACCES ? 1 : -1;
}

static struct nf_sq_journal *find(struct nf_sqlite *q, int64_t run_id)
{
    for (size_t i = 0; i < q->njournals; i++)
        if (q->journals[i]->run_id == run_id)
            return q->journals[i];
    return NULL;
}

static void drop(struct nf_sqlite *q, struct nf_sq_journal *j, int remove)
{
    /* Removed while its lock is held (so no reader takes it for a dead
     * writer's), and only if the name is still ours. */
    struct stat mine, now;
    if (remove && fstat(j->fd, &mine) == 0 && lstat(j->path, &now) == 0 &&
        mine.st_dev == now.st_dev && mine.st_ino == now.st_ino)
        unlink(j->path);
    munmap(j->map, NF_SQ_JOURNAL_SIZE);
    close(j->fd);
    free(j->path);
    for (size_t i = 0; i < q->njournals; i++)
        if (q->journals[i] == j) {
            q->journals[i] = q->journals[--q->njournals];
            break;
        }
    free(j);
}

void nf_sq_journal_begin(struct nf_sqlite *q, int64_t run_id)
{
    if (!q->real || q->njournals == NF_SQ_MAX_JOURNALS || find(q, run_id))
        return;
    /* Made under a fresh name (O_EXCL: nothing planted there is opened),
     * then renamed into place: a reader of the directory never sees it
     * half made. */
    char *path = journal_path(q->real, run_id);
    char *tmp = nf_xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    unsigned char *map = MAP_FAILED;
    /* Locked before it has its name: a reader never finds it unlocked
     * while we live (lock_file cannot fail on a file no one else has
     * open, short of a file system without locks: then no journal).
     * The space reserved, not a sparse file: a page of a mapping the
     * file system cannot back (a full disk) would kill us with SIGBUS
     * when first written.  Where it cannot be reserved (no space, a
     * file-size limit: EFBIG, SIGXFSZ being ignored), no journal. */
    if (fd >= 0 && lock_file(fd, F_WRLCK) == 0 && posix_fallocate(fd, 0, NF_SQ_JOURNAL_SIZE) == 0)
        map = mmap(NULL, NF_SQ_JOURNAL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        free(path);
        return; /* no journal: each repetition is committed on its own */
    }
    int64_t pid = getpid();
    long long ticks = nf_store_start_ticks(pid);
    int64_t born = ticks > 0 ? ticks : 0; /* with pid: this process, not a recycled pid */
    uint64_t gen = 1;
    memcpy(map, nf_sq_journal_magic, 8);
    uint32_t version = 1, zero = 0;
    memcpy(map + 8, &version, 4);
    memcpy(map + 12, &zero, 4);
    memcpy(map + 16, &run_id, 8);
    memcpy(map + 24, &pid, 8);
    memcpy(map + 32, &gen, 8);
    memcpy(map + 40, &born, 8);
    if (rename(tmp, path) != 0) {
        munmap(map, NF_SQ_JOURNAL_SIZE);
        close(fd);
        unlink(tmp);
        free(tmp);
        free(path);
        return;
    }
    free(tmp);
    struct nf_sq_journal *j = nf_xcalloc(1, sizeof(*j));
    *j = (struct nf_sq_journal){.run_id = run_id,
                                .fd = fd,
                                .map = map,
                                .path = path,
                                .gen = gen,
                                .tail = NF_SQ_JOURNAL_HDR,
                                .flushed = NF_SQ_JOURNAL_HDR,
                                .last_flush = nf_now_ns()};
    q->journals[q->njournals++] = j;
}

/* Insert the records [from, to) of a journal mapped at map, under
 * generation gen, for run_id (OR IGNORE: a record already in the
 * database, from a flush before a death, is the same row).  In the
 * caller's transaction. */
int nf_sq_insert_records(struct nf_sqlite *q, const unsigned char *map, size_t size, size_t from,
                         size_t to, uint64_t gen, int64_t run_id)
{
    static const char sql[] =
        "INSERT OR IGNORE INTO samples (run_id, rep, vals, pcts) VALUES (?,?,?,?)";
    sqlite3_stmt *st = nf_sq_cached(q, &q->insert_journaled, sql);
    if (!st)
        return nf_sq_dberr(q, "cannot store samples");
    int rc = 0;
    for (size_t off = from, len;
         off < to && rc == 0 && (len = nf_sq_record_at(map, size, off, gen)); off += len) {
        const unsigned char *r = map + off;
        uint32_t vlen = nf_sq_get32(r + 16), plen = nf_sq_get32(r + 20);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)nf_sq_get64(r + 8));
        sqlite3_bind_blob(st, 3, r + NF_SQ_JOURNAL_REC, (int)vlen, SQLITE_STATIC);
        if (plen)
            sqlite3_bind_blob(st, 4, r + NF_SQ_JOURNAL_REC + vlen, (int)plen, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = nf_sq_dberr(q, "cannot store samples");
        sqlite3_reset(st);
    }
    sqlite3_clear_bindings(st);
    return rc;
}

static int flush(struct nf_sqlite *q, struct nf_sq_journal *j)
{
    if (j->flushed < j->tail) {
        if (nf_sq_begin(q))
            return -1;
        if (nf_sq_insert_records(q, j->map, NF_SQ_JOURNAL_SIZE, j->flushed, j->tail, j->gen,
                                 j->run_id) ||
            nf_sq_commit(q)) {
            nf_sq_rollback(q);
            return -1;
        }
        j->flushed = j->tail;
    }
    j->last_flush = nf_now_ns();
    if (j->tail > NF_SQ_JOURNAL_SIZE / 2) {
        /* Start again at the top: the new generation is stored before
         * any record of it. */
        uint64_t gen = j->gen + 1;
        __atomic_store_n((uint64_t *)(void *)(j->map + 32), gen, __ATOMIC_RELEASE);
        j->gen = gen;
        j->tail = j->flushed = NF_SQ_JOURNAL_HDR;
    }
    return 0;
}

int nf_sq_journal_add(struct nf_sqlite *q, const struct nf_run *run, size_t rep)
{
    struct nf_sq_journal *j = find(q, run->id);
    if (!j)
        return 1;
    size_t vlen, plen;
    nf_sq_pack_rep(q->row, run, rep, &vlen, &plen);
    if (vlen == 0)
        return 0;
    size_t len = NF_SQ_JOURNAL_REC + padded(vlen + plen);
    if (j->tail + len > NF_SQ_JOURNAL_SIZE && flush(q, j))
        return -1;
    if (j->tail + len > NF_SQ_JOURNAL_SIZE)
        return 1; /* cannot happen: a record is far smaller than half */
    unsigned char *r = j->map + j->tail;
    uint64_t r64 = rep;
    uint32_t v32 = (uint32_t)vlen, p32 = (uint32_t)plen;
    memcpy(r, &j->gen, 8);
    memcpy(r + 8, &r64, 8);
    memcpy(r + 16, &v32, 4);
    memcpy(r + 20, &p32, 4);
    memcpy(r + NF_SQ_JOURNAL_REC, q->row, vlen + plen);
    uint64_t check = check_of(r, vlen + plen);
    /* The check last: a record is whole before it counts. */
    __atomic_store_n((uint64_t *)(void *)(r + 24), check, __ATOMIC_RELEASE);
    j->tail += len;
    if (nf_now_ns() - j->last_flush >= FLUSH_NS)
        return flush(q, j);
    return 0;
}

int nf_sq_journal_flush(struct nf_sqlite *q, int64_t run_id)
{
    struct nf_sq_journal *j = find(q, run_id);
    return j ? flush(q, j) : 0;
}

int nf_sq_journal_flush_all(struct nf_sqlite *q)
{
    for (size_t i = 0; i < q->njournals; i++)
        if (flush(q, q->journals[i]))
            return -1;
    return 0;
}

int nf_sq_journal_end(struct nf_sqlite *q, int64_t run_id)
{
    struct nf_sq_journal *j = find(q, run_id);
    if (!j)
        return 0;
    int rc = flush(q, j);
    drop(q, j, rc == 0); /* one that cannot be flushed is left for recovery */
    return rc;
}

void nf_sq_journal_close_all(struct nf_sqlite *q)
{
    while (q->njournals) {
        struct nf_sq_journal *j = q->journals[0];
        drop(q, j, flush(q, j) == 0);
    }
}

int nf_sq_journal_writer(struct nf_sqlite *q, int64_t run_id, int64_t pid)
{
    if (!q->real)
        return -1;
    char *path = journal_path(q->real, run_id);
    int fd = nf_sq_open_journal(path);
    free(path);
    if (fd < 0)
        return -1;
    struct stat sb;
    unsigned char h[NF_SQ_JOURNAL_HDR];
    int lives = -1;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
        sb.st_size == NF_SQ_JOURNAL_SIZE &&
        pread(fd, h, NF_SQ_JOURNAL_HDR, 0) == NF_SQ_JOURNAL_HDR &&
        memcmp(h, nf_sq_journal_magic, 8) == 0 && nf_sq_get32(h + 8) == 1 &&
        (int64_t)nf_sq_get64(h + 16) == run_id && (int64_t)nf_sq_get64(h + 24) == pid)
        lives = nf_sq_writer_lives(fd);
    close(fd);
    return lives;
}
