/* Internals shared by the store's files; not for other modules.
 *
 * The storage interface is a table of functions (struct nf_store_ops), one
 * per backend, behind the public nf_store_* functions in store.c.  A table
 * rather than a switch in every function: each backend is whole in its own
 * files (sqlite_*.c, pg_*.c), adding one touches no other, and what is the
 * same for both (argument checks, messages, the incomplete-run rule, the
 * loaders built on other loaders) is written once in store.c.  A backend's
 * handle embeds struct nf_store as its first member. */
#ifndef NF_STORE_INT_H
#define NF_STORE_INT_H

#include <stdarg.h>
#include <stdint.h>

#include "core/util.h"
#include "store/jobs.h"
#include "store/store.h"

struct nf_store_pload;

/* New runs read from the tables past the points cache's before it is
 * written again (store_pcache.c). */
#define NF_PCACHE_REFRESH 64

struct nf_store_ops {
    const char *backend; /* "sqlite", "postgresql" */
    void (*close)(struct nf_store *s);
    int (*begin_run)(struct nf_store *s, struct nf_run *run);
    int (*add_rep)(struct nf_store *s, const struct nf_run *run, size_t rep);
    int (*finish_run)(struct nf_store *s, const struct nf_run *run);
    int (*insert_runs)(struct nf_store *s, struct nf_run *const *runs, size_t n, int renumber,
                       size_t *clashed);
    int (*delete_runs)(struct nf_store *s, const int64_t *ids, size_t n);
    int (*find_runs)(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids, size_t *n);
    int (*load_runs)(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                     size_t *n);
    /* The flat rows of nf_store_load_points, each given to
     * nf_store_point_row(l) (the caller ends the load). */
    int (*load_points)(struct nf_store *s, const struct nf_store_filter *f,
                       struct nf_store_pload *l);
    /* The points cache (store_pcache.c; NULL: the backend keeps none).
     * pcache_txn: begin a transaction the reads and the write below share
     * (0: one that will not write, 3: one that may), 1 commit it, 2 roll
     * it back; -1 when the cache is not for this handle now.  pcache_read: the cached row, *data
     * NULL when there is none or its count of runs no longer holds (malloc'd). pcache_write:
     * replace it; 0, or -1 when it could not be written now (busy, a snapshot gone stale: the
     * caller rolls back and goes on). */
    int (*pcache_txn)(struct nf_store *s, int what);
    int (*pcache_read)(struct nf_store *s, int64_t *upto, int64_t *nruns, void **data, size_t *len);
    int (*pcache_write)(struct nf_store *s, int64_t upto, int64_t nruns, const void *data,
                        size_t len);
    /* runs[0..n) have ids; their hists are empty. */
    int (*load_hists)(struct nf_store *s, struct nf_run *const *runs, size_t n);
    int (*add_profile)(struct nf_store *s, int64_t run_id, const struct nf_profile *p);
    /* Add the profiles of run_id (label NULL) or of every run of label to
     * out; the number of profiled runs, or -1. */
    long (*load_profiles)(struct nf_store *s, int64_t run_id, const char *label,
                          struct nf_profile *out);
    /* The job queue (jobs.h); words as a JSON array.  A job row comes back
     * as text in the order of NF_JOB_COLS. */
    int (*submit)(struct nf_store *s, const char *tag, const char *words, int copies,
                  const struct nf_job_limits *lim, int64_t *ids);
    int (*cancel_job)(struct nf_store *s, int64_t id, char *was, size_t wlen);
    int (*claim_job)(struct nf_store *s, const char *const *tags, size_t ntags, const char *host,
                     double lease_s, struct nf_job **out);
    int (*renew_job)(struct nf_store *s, int64_t id, int attempt, double lease_s);
    int (*end_job)(struct nf_store *s, int64_t id, int attempt, const char *state,
                   const char *error);
    int (*list_jobs)(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n);
    /* Kernel-mode bisections (store.h) */
    int (*load_bisection)(struct nf_store *s, const char *repo, char **json);
    int (*save_bisection)(struct nf_store *s, const char *repo, const char *json, int create);
    int (*delete_bisection)(struct nf_store *s, const char *repo);
    /* Connect again if the connection was lost (NULL: never lost). */
    int (*reconnect)(struct nf_store *s);
};

/* A job row as the backends select it: id, grp, tag, words (JSON), state,
 * submitted, attempt, host, started, finished, lease_expired (0/1 or f/t),
 * runs (JSON), error, max_attempts, max_time, cancel (0/1 or f/t); times
 * as ISO 8601 UTC. */
#define NF_JOB_COLS 16
struct nf_job *nf_store_job_from_row(const char *const col[NF_JOB_COLS]);
/* A claimable job that is not to be claimed again, as an SQL condition
 * both backends evaluate over its row: it has had its attempts, or `jobs
 * cancel` asked its agent to stop it and the agent is gone; and the
 * reason it then fails with. */
#define NF_JOB_GIVE_UP_SQL "(attempt >= max_attempts OR cancel = 1)"
#define NF_JOB_GAVE_UP_SQL                                                                         \
    "CASE WHEN cancel = 1 THEN '" NF_JOB_CANCELLED_WHY "'"                                         \
    " ELSE 'gave up after ' || attempt || ' attempts: none finished the job (its agents died or"   \
    " were stopped on it)' END"

/* The metric rows of one run as committed: supported | primary << 1 |
 * not_counted << 2. */
struct nf_store_metrics_seen {
    int64_t run;
    size_t n;
    unsigned char flags[NF_RUN_MAX_METRICS];
};

struct nf_store {
    const struct nf_store_ops *ops;
    char *name; /* for messages; see nf_store_name */
    int opened_version;
    char errmsg[NF_ERR_LEN];
    /* The metric rows as last committed, per run this handle writes (ab
     * writes several in turn): a repetition rewrites them only when a flag
     * changed (the counters are opened by then). */
    struct nf_store_metrics_seen *seen;
    size_t nseen;
    /* The job this process runs for an agent ($NOISEFLOOR_JOB; 0: none):
     * the runs it begins are stored with it. */
    int64_t job;
    int job_attempt;
};

/* The backends' constructors (sqlite_open.c, pg_open.c), as nf_store_open. */
int nf_sqlite_open(struct nf_store **out, const char *path, int flags, char *err, size_t errlen);
int nf_pg_open(struct nf_store **out, const char *conninfo, int flags, char *err, size_t errlen);

/* Set the store's message; returns -1. */
int nf_store_seterr(struct nf_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free what struct nf_store itself holds (not the handle). */
void nf_store_base_free(struct nf_store *s);

/* Whether the metric rows of run are as last committed (nothing to write). */
int nf_store_metrics_same(const struct nf_store *s, const struct nf_run *run);
/* Before writing the run's metric rows: what was committed is not known
 * until the transaction commits. */
void nf_store_metrics_forget(struct nf_store *s, int64_t run_id);
/* After a commit that wrote the run's metric rows: remember them. */
void nf_store_metrics_written(struct nf_store *s, const struct nf_run *run);

/* The run's args as a JSON array and env as a JSON object (NULL when it has
 * none), as stored; malloc'd. */
char *nf_store_args_json(const struct nf_run *run);
char *nf_store_env_json(const struct nf_run *run);
/* The largest repetition count of the run's metrics. */
size_t nf_store_max_reps(const struct nf_run *run);
/* What the samples row of repetition rep holds (one row per repetition,
 * metric idx i at position i): *nv positions, up to the last metric with
 * a value at rep (0: no row), and *np of running percentages, up to the
 * last of those metrics that keeps them (0: none). */
void nf_store_rep_extent(const struct nf_run *run, size_t rep, size_t *nv, size_t *np);

/* Whether the run has a histogram of repetition rep: a repetition that
 * has none commits as it did before schema 6, one statement. */
int nf_store_rep_has_hist(const struct nf_run *run, size_t rep);
/* A repetition's buckets as both backends store them (a BLOB, a bytea):
 * per bucket lo then count, each a uint64 in little-endian byte order, 16
 * bytes a bucket.  Packed into buf (room for 16 * r->n bytes). */
void nf_store_pack_buckets(unsigned char *buf, const struct nf_rep_hist *r);
/* The index of h's first repetition at or after rep from (h->nreps: none). */
size_t nf_store_hist_from(const struct nf_run_hist *h, size_t from);
/* Repetition rep of histogram name from len bytes as packed above, added
 * to run (nf_run_hist_add); -1 with the message set when they are not
 * whole buckets, or not a histogram nf_run_hist_add takes. */
int nf_store_unpack_hist(struct nf_store *s, struct nf_run *run, const char *name, long long rep,
                         const unsigned char *blob, size_t len);

/* Whether the run aliased r was made for a job by an attempt that can no
 * longer finish it (core/run.h's "superseded"): a later attempt has taken
 * the job over, or the attempt gave it back (the job is queued again, so
 * every attempt it counts so far has ended without finishing it), as an
 * SQL condition both backends evaluate.  Derived from the job's row at
 * every read rather than stored with the run: whatever the old attempt's
 * command writes later (repetitions, its final status, a new run) cannot
 * make it count again, and runs stored before this rule are judged by it
 * too. */
#define NF_STORE_SUPERSEDED_SQL                                                                    \
    "(r.job IS NOT NULL AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.job"                       \
    " AND (j.attempt > r.job_attempt OR j.state = 'queued')))"

/* The WHERE clause of a filter over runs aliased r ("" for none), with
 * placeholders "?" (dollar 0) or "$first", "$first+1", ... (dollar 1), in
 * the order labels, workload, session, id.  malloc'd. */
char *nf_store_filter_sql(const struct nf_store_filter *f, int dollar, int first);

/* Whether the process that wrote a "running" row is alive: 1 alive, 0 gone,
 * -1 cannot tell (another machine, or no pid stored).  start: the writer's
 * start time as nf_store_start_ticks gave it, which with the pid names it
 * exactly (a live process with the pid that started at another time holds
 * a recycled pid); 0 if not known (then a live process counts only if it
 * is called noisefloor); -1 when the caller knows the writer otherwise
 * (PostgreSQL: its server session), so that only a pid that is gone, or a
 * zombie, counts as gone. */
int nf_store_writer_state(long long pid, const char *host, long long start);

/* When process pid started, in clock ticks since boot (field 22 of
 * /proc/PID/stat): with the pid, it names one process for the life of the
 * machine's boot.  -1 if it cannot be read. */
long long nf_store_start_ticks(long long pid);

/* A point load's rows (nf_store_load_points), one per run and metric (a
 * run without metrics: one row, name NULL), by run id then metric idx, as
 * both backends read them. */
struct nf_store_prow {
    int64_t id;
    const char *label, *workload, *args, *started, *status;
    int superseded;
    const char *host, *commit, *describe;
    const char *name, *unit, *better; /* name NULL: no metric */
    int primary, supported;
    int summed; /* 0: no summary row (the run is loaded whole) */
    struct nf_metric_summary sum;
};
struct nf_pc_enc;
struct nf_store_pload {
    struct nf_points *p;
    int64_t cur; /* the run of the rows so far, 0 before the first */
    int skip;    /* the current run goes to whole */
    int64_t *whole;
    size_t nwhole, wcap;
    struct nf_pc_enc *enc; /* each row also kept for the points cache (store_pcache.c) */
};
void nf_store_point_row(struct nf_store_pload *l, const struct nf_store_prow *r);
/* Keep r for the points cache (store_pcache.c). */
void nf_pc_enc_row(struct nf_pc_enc *e, const struct nf_store_prow *r);
/* After the last row. */
void nf_store_point_end(struct nf_store_pload *l);

/* The status a runs row stores as a word ("running", "complete", ...,
 * core/run.h's names); NF_RUN_INCOMPLETE for NULL or a word that is none. */
enum nf_run_status nf_store_row_status(const char *word);
/* A run from the columns of a runs row (args and env as JSON text, NULL
 * where the column is NULL); metrics are added by the caller. */
struct nf_run *nf_store_run_from_row(int64_t id, const char *label, const char *workload,
                                     const char *args, const char *started, int repeat, int warmup,
                                     enum nf_run_status state, const char *session,
                                     const char *note, const char *env);

#endif
