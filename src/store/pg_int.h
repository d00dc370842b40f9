/* The PostgreSQL backend's handle and helpers, shared by pg_*.c.
 *
 * Every parameter goes to the server as text and every result comes back
 * as text: numbers are printed with %.17g and the session asks for
 * extra_float_digits = 3, so a double makes the round trip exactly.  Lists
 * (a repetition's samples, a run's metrics) go as one array literal per
 * column and are unnested by the server: one statement, one round trip. */
#ifndef NF_STORE_PG_INT_H
#define NF_STORE_PG_INT_H

#include "store/pq.h"

#include "store/store_int.h"

/* Statements kept prepared on the connection (bits of nf_pg.prepared). */
enum {
    NF_PG_INSERT_SAMPLES = 1 << 0,
    NF_PG_UPSERT_METRICS = 1 << 1,
    NF_PG_LOAD_METRICS = 1 << 2,
    NF_PG_INSERT_HISTS = 1 << 3,
    NF_PG_LOAD_HISTS = 1 << 4,
    NF_PG_PCACHE_READ = 1 << 5,
};

struct nf_pg {
    struct nf_store base; /* first: a struct nf_store * is one of these */
    PGconn *conn;
    unsigned prepared;
    /* The server's last notice or warning since the statement began, one
     * line ("terminating connection because of ..." as a server shuts
     * down): said in our error line when the statement fails, never
     * printed by libpq on its own line. */
    char notice[NF_ERR_LEN / 2];
    int pc_locked; /* in a transaction that may write the points cache (pg_pcache.c) */
};

static inline struct nf_pg *nf_pgs(struct nf_store *s)
{
    return (struct nf_pg *)s;
}

/* Query parameters, all text (NULL: SQL NULL); each value is owned. */
struct nf_pgp {
    int n, cap;
    char **v;
};
void nf_pgp_text(struct nf_pgp *p, const char *s);
/* The ids of runs[0..n) as one bigint[] parameter. */
void nf_pgp_run_ids(struct nf_pgp *p, struct nf_run *const *runs, size_t n);
void nf_pgp_int(struct nf_pgp *p, long long v);
void nf_pgp_free(struct nf_pgp *p);

/* A growing string: array literals and SQL. */
struct nf_buf {
    char *s;
    size_t len, cap;
};
void nf_buf_add(struct nf_buf *b, const char *s, size_t n);
void nf_buf_printf(struct nf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Array literals: open, then elements (text quoted, numbers as they are,
 * NULL), then close ("{}" when empty). */
void nf_arr_open(struct nf_buf *b);
void nf_arr_text(struct nf_buf *b, const char *s);
void nf_arr_double(struct nf_buf *b, double v);
void nf_arr_int(struct nf_buf *b, long long v);
void nf_arr_null(struct nf_buf *b);
void nf_arr_close(struct nf_buf *b);
/* Close the array literals col[0..n), add each as a text parameter, and
 * free them (col[c] is left empty). */
void nf_pgp_columns(struct nf_pgp *p, struct nf_buf *col, int n);
/* The elements of a float8[] or an int4[] in binary format (len bytes at
 * data) into vals (NAN and isnull[i] = 1 for NULL); the count, or -1 when
 * malformed. */
long nf_arr_parse_doubles_bin(const char *data, size_t len, double **vals, unsigned char **isnull);
/* Integers and a double in binary format (network byte order). */
int64_t nf_pg_int8(const char *p);
double nf_pg_float8(const char *p);

/* One line from a libpq message (which may span several). */
void nf_pg_flatten(char *dst, size_t len, const char *msg);
/* libpq's notice processor: the notice into g->notice (ctx is g). */
void nf_pg_on_notice(void *ctx, const char *msg);

/* Run sql with params (NULL: none); the result when it succeeded (free
 * with PQclear), else NULL with "NAME: what: <server's message>" set.
 * Prepared under `name` on first use when prep is one of NF_PG_*. */
PGresult *nf_pg_query(struct nf_pg *g, const char *what, const char *sql, const struct nf_pgp *p);
PGresult *nf_pg_prepared(struct nf_pg *g, unsigned prep, const char *name, const char *what,
                         const char *sql, const struct nf_pgp *p);
/* As nf_pg_prepared, the results in binary format (one long float8[] as
 * 8 bytes a value rather than its text: loading a million samples). */
PGresult *nf_pg_prepared_bin(struct nf_pg *g, unsigned prep, const char *name, const char *what,
                             const char *sql, const struct nf_pgp *p);
/* As nf_pg_query, for statements without results: 0 or -1. */
int nf_pg_exec(struct nf_pg *g, const char *what, const char *sql, const struct nf_pgp *p);
int nf_pg_begin(struct nf_pg *g);
int nf_pg_commit(struct nf_pg *g);
void nf_pg_rollback(struct nf_pg *g);

/* The histograms of the run's repetitions [from, to), a row each
 * (pg_hists.c), in the caller's transaction. */
int nf_pg_insert_hists(struct nf_pg *g, const struct nf_run *run, size_t from, size_t to);

/* The metrics of runs[0..n) (ascending ids) with their values (pg_load.c). */
int nf_pg_load_values(struct nf_pg *g, struct nf_run **runs, size_t n);
/* The summaries table (pg_summary.c, store.h): the rows of the run's
 * metrics from its values in memory (import), or from what the database
 * holds (a run finished); every run's (the migration to schema 8).  In
 * the caller's transaction. */
int nf_pg_write_summaries(struct nf_pg *g, const struct nf_run *run);
int nf_pg_summarise_run(struct nf_pg *g, int64_t run_id);
int nf_pg_summarise_all(struct nf_pg *g);
/* The step to schema 11 (pg_write.c): each metric's not_counted from its
 * run's note, as the runs stored before it read (nf_note_not_counted). */
int nf_pg_not_counted_all(struct nf_pg *g);

/* The operations (pg_write.c, pg_load.c, pg_hists.c). */
int nf_pg_begin_run(struct nf_store *s, struct nf_run *run);
int nf_pg_add_rep(struct nf_store *s, const struct nf_run *run, size_t rep);
int nf_pg_finish_run(struct nf_store *s, const struct nf_run *run);
int nf_pg_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n, int renumber,
                      size_t *clashed);
int nf_pg_delete_runs(struct nf_store *s, const int64_t *ids, size_t n);
int nf_pg_find_runs(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids, size_t *n);
/* f's values as parameters (nf_store_filter_sql's order). */
void nf_pg_filter_params(struct nf_pgp *p, const struct nf_store_filter *f);
int nf_pg_load_points(struct nf_store *s, const struct nf_store_filter *f,
                      struct nf_store_pload *l);
/* The SQL of schema 10's step: the points cache and its triggers. */
extern const char nf_pg_pcache_schema[];
/* The points cache (pg_pcache.c; store_int.h has the contract). */
int nf_pg_pcache_txn(struct nf_store *s, int what);
int nf_pg_pcache_read(struct nf_store *s, int64_t *upto, int64_t *nruns, void **data, size_t *len);
int nf_pg_pcache_write(struct nf_store *s, int64_t upto, int64_t nruns, const void *data,
                       size_t len);
int nf_pg_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                    size_t *n);
int nf_pg_load_hists(struct nf_store *s, struct nf_run *const *runs, size_t n);
int nf_pg_add_profile(struct nf_store *s, int64_t run_id, const struct nf_profile *p);
long nf_pg_load_profiles(struct nf_store *s, int64_t run_id, const char *label,
                         struct nf_profile *out);
int nf_pg_submit(struct nf_store *s, const char *tag, const char *words, int copies,
                 const struct nf_job_limits *lim, int64_t *ids);
int nf_pg_reconnect(struct nf_store *s);
int nf_pg_cancel_job(struct nf_store *s, int64_t id, char *was, size_t wlen);
int nf_pg_claim_job(struct nf_store *s, const char *const *tags, size_t ntags, const char *host,
                    double lease_s, struct nf_job **out);
int nf_pg_renew_job(struct nf_store *s, int64_t id, int attempt, double lease_s);
int nf_pg_end_job(struct nf_store *s, int64_t id, int attempt, const char *state,
                  const char *error);
int nf_pg_list_jobs(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n);
int nf_pg_load_bisection(struct nf_store *s, const char *repo, char **json);
int nf_pg_save_bisection(struct nf_store *s, const char *repo, const char *json, int create);
int nf_pg_delete_bisection(struct nf_store *s, const char *repo);

#endif
