/* The SQLite backend's handle and helpers, shared by sqlite_*.c. */
#ifndef NF_STORE_SQLITE_INT_H
#define NF_STORE_SQLITE_INT_H

#include <sqlite3.h>

#include "store/store_int.h"

#define NF_SQ_MAX_JOURNALS 16

struct nf_sq_journal;
struct nf_sq_held;

/* How long a writer waits for another's transaction before it gives up
 * (SQLite's busy timeout), in ms.  Long: a run waiting for the lock has a
 * repetition measured and not yet stored, and an import of a large file
 * holds the lock for as long as it parses (about 20 s for 100 MB); giving
 * up would lose the repetition and fail the run.  Readers never wait (WAL). */
#define NF_SQ_BUSY_MS (10 * 60 * 1000)

struct nf_sqlite {
    struct nf_store base; /* first: a struct nf_store * is one of these */
    sqlite3 *db;
    /* Kept prepared across repetitions (finalized on close). */
    sqlite3_stmt *begin, *commit, *upsert_metrics, *insert_sample, *insert_hist, *insert_journaled,
        *put_summary, *insert_run;
    /* The journals of the runs this handle writes (sqlite_journal.c). */
    struct nf_sq_journal *journals[NF_SQ_MAX_JOURNALS];
    size_t njournals;
    /* Opened read-only (nf_sqlite_open's fallback): nothing is written,
     * and dead writers' journals are read instead of folded. */
    int readonly;
    /* Their rows, held in memory (sqlite_journal_recover.c). */
    struct nf_sq_held *held;
    size_t nheld;
    int refused; /* the schema says no: another application's, or newer */
    /* The database's real path (symlinks resolved): its journals are named
     * by it, so that every name of the file finds them (sqlite_journal.c). */
    char *real;
    /* A repetition's samples row as it is bound (sqlite_samples.c). */
    unsigned char row[2 * NF_RUN_MAX_METRICS * 8];
};

static inline struct nf_sqlite *nf_sq(struct nf_store *s)
{
    return (struct nf_sqlite *)s;
}

/* The plumbing (sqlite_conn.c).  The statement in *slot, prepared on
 * first use; reset after each use. */
sqlite3_stmt *nf_sq_cached(struct nf_sqlite *q, sqlite3_stmt **slot, const char *sql);
/* "path: what: <sqlite message>"; returns -1. */
int nf_sq_dberr(struct nf_sqlite *q, const char *what);
/* Run SQL without results; -1 with the message set on failure. */
int nf_sq_exec(struct nf_sqlite *q, const char *sql);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int nf_sq_begin(struct nf_sqlite *q);
int nf_sq_commit(struct nf_sqlite *q);
void nf_sq_rollback(struct nf_sqlite *q);

/* The samples table keeps one row per repetition of a run; its values are
 * blobs (sqlite_samples.c has the layout).  Repetition rep of run as the
 * blobs of its row, into buf (room for 2 * NF_RUN_MAX_METRICS doubles):
 * *vlen bytes of values, then *plen bytes of running percentages (0 when
 * no metric has them).  *vlen is 0 when no metric has a value at rep. */
void nf_sq_pack_rep(unsigned char *buf, const struct nf_run *run, size_t rep, size_t *vlen,
                    size_t *plen);
/* The value at position i of a blob of len bytes, or NaN (none). */
double nf_sq_unpack(const void *blob, size_t len, size_t i);
/* The SQL functions the migrations use, on a connection that writes. */
int nf_sq_add_functions(sqlite3 *db);

/* The histograms of the run's repetitions [from, to), a row each
 * (sqlite_hists.c has the layout), in the caller's transaction. */
int nf_sq_insert_hists(struct nf_sqlite *q, const struct nf_run *run, size_t from, size_t to);

/* The repetition journal (sqlite_journal.c; its recovery,
 * sqlite_journal_recover.c).  A repetition's row goes to a file mapped
 * shared beside the database, which survives our death as the page cache
 * holds it, and from there into the database in one transaction at most
 * every 100 ms, at the run's end and when the handle closes; the next
 * handle that opens the database for writing puts the rows of a writer
 * that died into it.  A commit per repetition cost more than the
 * repetition of a short command: two fcntl locks, a WAL frame, and the
 * file system's work for a growing file.
 *
 * journal_begin after the run's row is committed (without a journal, as
 * when the directory cannot be written, every repetition is committed on
 * its own); journal_add: 0 when the row is in the journal (and flushed
 * if it was time), 1 when the run has no journal, -1 with the message;
 * journal_flush: the run's rows into the database now (before a
 * transaction of its own for the run); flush_all: every run's (before
 * this handle reads what it wrote); journal_end: flushed and removed
 * (-1: left for recovery); close_all on close; recover on open.
 *
 * Recovery on a handle that cannot write (readonly), or whose fold
 * fails, changes nothing on disk: it holds the dead writer's rows in
 * memory, and the loader reads them with the database's, as if folded
 * (a row the database has already wins, as the fold's INSERT OR IGNORE
 * would have it).  journal_held: the rows held for run_id, by rep, one
 * per rep; journal_release frees them all (on close). */
void nf_sq_journal_begin(struct nf_sqlite *q, int64_t run_id);
int nf_sq_journal_add(struct nf_sqlite *q, const struct nf_run *run, size_t rep);
int nf_sq_journal_flush(struct nf_sqlite *q, int64_t run_id);
int nf_sq_journal_flush_all(struct nf_sqlite *q);
int nf_sq_journal_end(struct nf_sqlite *q, int64_t run_id);
void nf_sq_journal_close_all(struct nf_sqlite *q);
void nf_sq_journal_recover(struct nf_sqlite *q);

/* A row of a dead writer's journal held in memory: the samples row's
 * columns (pcts NULL when plen is 0). */
struct nf_sq_jrow {
    int64_t rep;
    const unsigned char *vals, *pcts;
    size_t vlen, plen;
};
size_t nf_sq_journal_held(struct nf_sqlite *q, int64_t run_id, const struct nf_sq_jrow **rows);
void nf_sq_journal_release(struct nf_sqlite *q);

/* Whether the writer of run_id's journal, if the journal is ours and
 * names pid, lives: 1 (it holds the journal's lock), 0 (gone: the lock
 * could be taken), -1 (no such journal: cannot tell from it). */
int nf_sq_journal_writer(struct nf_sqlite *q, int64_t run_id, int64_t pid);

/* The operations (sqlite_write.c, sqlite_load.c, sqlite_hists.c,
 * sqlite_profile.c). */
/* The metrics of runs[0..n) with their values (sqlite_load.c). */
int nf_sq_load_values(struct nf_sqlite *q, struct nf_run **runs, size_t n);
/* The summaries table (sqlite_summary.c, store.h): the rows of the run's
 * metrics from its values in memory (import), or from what the database
 * holds of it (a run finished, a journal folded); every run's (the
 * migration to schema 8). */
int nf_sq_write_summaries(struct nf_sqlite *q, const struct nf_run *run);
int nf_sq_summarise_run(struct nf_sqlite *q, int64_t run_id);
int nf_sq_summarise_all(struct nf_sqlite *q);
/* The step to schema 11 (sqlite_write.c): each metric's not_counted from
 * its run's note, as the runs stored before it read (nf_note_not_counted). */
int nf_sq_not_counted_all(struct nf_sqlite *q);

/* The schema (sqlite_schema.c).  Read what the open file holds and decide
 * whether we may use it, setting base.opened_version; a refusal (another
 * application's database, a newer schema) sets q->refused. */
int nf_sq_check_schema(struct nf_sqlite *q);
/* Take the database to NF_SCHEMA_VERSION in one transaction (rolled back
 * on failure). */
int nf_sq_migrate(struct nf_sqlite *q);

int nf_sq_begin_run(struct nf_store *s, struct nf_run *run);
int nf_sq_add_rep(struct nf_store *s, const struct nf_run *run, size_t rep);
int nf_sq_finish_run(struct nf_store *s, const struct nf_run *run);
int nf_sq_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n, int renumber,
                      size_t *clashed);
int nf_sq_delete_runs(struct nf_store *s, const int64_t *ids, size_t n);
int nf_sq_find_runs(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids, size_t *n);
int nf_sq_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                    size_t *n);
/* Bind f's values to st's placeholders (nf_store_filter_sql's order). */
void nf_sq_filter_bind(sqlite3_stmt *st, const struct nf_store_filter *f);
int nf_sq_load_points(struct nf_store *s, const struct nf_store_filter *f,
                      struct nf_store_pload *l);
/* The SQL of schema 10's step: the points cache and its triggers. */
extern const char nf_sq_pcache_schema[];
/* The points cache (sqlite_pcache.c; store_int.h has the contract). */
int nf_sq_pcache_txn(struct nf_store *s, int what);
int nf_sq_pcache_read(struct nf_store *s, int64_t *upto, int64_t *nruns, void **data, size_t *len);
int nf_sq_pcache_write(struct nf_store *s, int64_t upto, int64_t nruns, const void *data,
                       size_t len);
int nf_sq_load_hists(struct nf_store *s, struct nf_run *const *runs, size_t n);
int nf_sq_add_profile(struct nf_store *s, int64_t run_id, const struct nf_profile *p);
long nf_sq_load_profiles(struct nf_store *s, int64_t run_id, const char *label,
                         struct nf_profile *out);
int nf_sq_submit(struct nf_store *s, const char *tag, const char *words, int copies,
                 const struct nf_job_limits *lim, int64_t *ids);
int nf_sq_cancel_job(struct nf_store *s, int64_t id, char *was, size_t wlen);
int nf_sq_claim_job(struct nf_store *s, const char *const *tags, size_t ntags, const char *host,
                    double lease_s, struct nf_job **out);
int nf_sq_renew_job(struct nf_store *s, int64_t id, int attempt, double lease_s);
int nf_sq_end_job(struct nf_store *s, int64_t id, int attempt, const char *state,
                  const char *error);
int nf_sq_list_jobs(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n);
int nf_sq_load_bisection(struct nf_store *s, const char *repo, char **json);
int nf_sq_save_bisection(struct nf_store *s, const char *repo, const char *json, int create);
int nf_sq_delete_bisection(struct nf_store *s, const char *repo);

#endif
