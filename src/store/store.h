/* The results store: every run, metric and sample, in one of two backends
 * behind this one interface.  A file path names a SQLite database (the
 * embedded default); a PostgreSQL connection string (postgresql://...,
 * postgres://..., or libpq's key=value form such as "host=/tmp dbname=nf")
 * names a database on a server, the shared store of a fleet.  The store
 * speaks struct nf_run (core/run.h) in both directions, and both backends
 * keep the same tables, schema versions and rules.
 *
 * Durability contract: `run` calls nf_store_begin_run once, then
 * nf_store_add_rep after every recorded repetition, then
 * nf_store_finish_run.  A repetition added survives the death of the
 * process (SIGKILL included): PostgreSQL commits each; SQLite keeps each in
 * a journal file beside the database and commits them together (see
 * sqlite_int.h), and the next open for writing takes in what a dead
 * writer's journal holds.  A process killed in between leaves a readable
 * database whose run has status "running" in the table; loaders report such a
 * run as "incomplete" once the process that wrote it is gone: the run row
 * keeps the writer's pid and host name for that check (on SQLite the
 * run's journal also records when the writer started, so a live process
 * holding its pid since is not taken for it), and on PostgreSQL also its
 * server session, which ends with the writer on any machine.
 *
 * Errors: nf_store_open returns 0, NF_STORE_NOTFOUND or -1 with one line in
 * the caller's (err, errlen).  Every other function returns 0 on success,
 * NF_STORE_NOTFOUND when the run or label asked for does not exist, -1 on any
 * other failure; the message (one line, no prefix) is then in
 * nf_store_error(), which the handle keeps in a char[NF_ERR_LEN]. */
#ifndef NF_STORE_STORE_H
#define NF_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/points.h"
#include "core/profile.h"
#include "core/run.h"

/* The schema this binary writes; databases with a newer one are refused,
 * older ones are migrated when opened (the steps: sqlite_schema.c and
 * pg_open.c, where the next one goes). */
#define NF_SCHEMA_VERSION 11
/* PRAGMA application_id of a noisefloor SQLite database ("NFLR"); the
 * schema_version table of a PostgreSQL one holds it too. */
#define NF_APPLICATION_ID 0x4e464c52

enum { NF_STORE_NOTFOUND = 1, NF_STORE_TAKEN = 2 };

/* nf_store_open flags. */
enum {
    NF_STORE_CREATE = 1, /* create the store when missing (run, import) */
    /* Only read (list, show, compare, export, report): also where nothing
     * can be written, a read-only directory or mount or a full disk (for
     * SQLite; a store that needs an upgrade still needs writing). */
    NF_STORE_READONLY = 2,
};

struct nf_store;

/* Whether db is a PostgreSQL connection string rather than a file path:
 * it starts with postgresql:// or postgres://, or its first word is
 * KEY=VALUE with a libpq keyword as KEY. */
int nf_store_is_postgres(const char *db);

/* Open (or with NF_STORE_CREATE create) the store db, migrating an older
 * schema.  Refused with one line in err, and nothing written: a file that is
 * not SQLite, a SQLite database that is not noisefloor's, a corrupt one, a
 * server that cannot be reached or refuses us (libpq's reason), a server
 * database that holds other tables than ours, one with a newer schema.
 * NF_STORE_NOTFOUND when the store does not exist and NF_STORE_CREATE was
 * not given (no such file, or a server database without our tables). */
int nf_store_open(struct nf_store **out, const char *db, int flags, char *err, size_t errlen);
void nf_store_close(struct nf_store *s);
const char *nf_store_error(const struct nf_store *s);
/* The store as messages name it: the file path, or the connection string
 * (rebuilt without its password when it had one). */
const char *nf_store_name(const struct nf_store *s);
/* "sqlite" or "postgresql". */
const char *nf_store_backend(const struct nf_store *s);
/* The schema version found when it was opened (0: a new store). */
int nf_store_opened_version(const struct nf_store *s);

/* --- writing a run as it is measured ------------------------------------ */

/* Insert the run (status "running", this pid and host) and its metrics;
 * sets run->id.  In a job's command (NOISEFLOOR_JOB, store/jobs.h) the run
 * is stored with the job and attempt, and its environment gets the key
 * NF_ENV_JOB (core/run.h). */
int nf_store_begin_run(struct nf_store *s, struct nf_run *run);
/* Commit repetition rep (0-based) of every metric that has it, the
 * metrics' supported flags, and the run's histograms of rep (core/run.h;
 * latency workloads only) in one transaction: usually one statement that
 * adds one row (the metric rows are rewritten only when a flag changed; a
 * repetition with a histogram adds its row too).  A value that is NaN is
 * refused (-1), and nothing of rep is stored. */
int nf_store_add_rep(struct nf_store *s, const struct nf_run *run, size_t rep);
/* Store the run's final status (and note). */
int nf_store_finish_run(struct nf_store *s, const struct nf_run *run);

/* --- whole runs ----------------------------------------------------------- */

/* Insert finished runs (import), histograms included, in one transaction:
 * all or nothing.  A run without an id (0) gets a new one; a run keeps its
 * id when it is free in this database.  One whose id is taken (by a run
 * stored before, or by one of runs before it) gets a new one when renumber
 * is set, and *clashed counts those; without renumber nothing is stored
 * and NF_STORE_TAKEN says so, *clashed the number of runs whose ids are
 * taken, the error the first of them ("run ID in STORE"; clashed may be
 * NULL).  run->id is set when stored. */
int nf_store_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n, int renumber,
                         size_t *clashed);

/* Delete runs in one transaction; NF_STORE_NOTFOUND (nothing deleted) when
 * any id does not exist. */
int nf_store_delete_runs(struct nf_store *s, const int64_t *ids, size_t n);

/* Which runs: every run matching all given fields (NULL/0 = any). */
struct nf_store_filter {
    const char *const *labels; /* any of these labels */
    size_t nlabels;
    const char *workload;
    const char *session;
    int64_t id;    /* one run */
    int64_t after; /* only runs of a greater id (0: any) */
    int counted;   /* only runs compare counts: none superseded (core/run.h) */
    /* nf_store_load_runs only: each metric as its summary (nf_metric.summed,
     * core/run.h), not its values, and of the environment only the keys
     * history reads (hostname, commit, git_describe): what `history` needs
     * as run objects, from the summaries table (schema 8), written with a
     * run's samples.  (`history` itself reads nf_store_load_points.) */
    int summaries;
};

/* Ids of matching runs, ascending.  *ids is malloc'd (free it). */
int nf_store_find_runs(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids,
                       size_t *n);
/* Load one run with every metric and value, or NF_STORE_NOTFOUND. */
int nf_store_load_run(struct nf_store *s, int64_t id, struct nf_run **out);
/* Load every matching run (ascending id) with metrics and values: a few
 * prepared statements in all, however many runs and samples, and no sort
 * (1,000,000 samples in about 0.2 s).  Free with nf_runs_free. */
int nf_store_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                       size_t *n);
/* The matching runs as `history` reads them (core/points.h), into p
 * (nf_points_init'd): per run its record and per metric its summary (the
 * summaries table, schema 8), no samples and of the environment only
 * hostname, commit and git_describe; one statement on either backend.  A
 * run the flat rows cannot tell (one still "running", whose writer must be
 * asked, one with a metric not summarised, a messaging run that
 * nf_run_read_compat renames) is loaded whole and added with
 * nf_points_add_run.  Without the compare key (the caller's, workload/).
 * With labels and a workload at most in f, the rows of the settled runs up
 * to an id come from the points cache (schema 10, store_pcache.c), the
 * same rows the tables give; a load with no filter writes it when it is
 * missing or far behind (NF_POINTS_CACHE=off in the environment: the
 * tables alone). */
int nf_store_load_points(struct nf_store *s, const struct nf_store_filter *f, struct nf_points *p);
/* All runs of one label (optionally of one workload), as compare needs;
 * NF_STORE_NOTFOUND with a message when the label has no runs. */
int nf_store_load_label(struct nf_store *s, const char *label, const char *workload,
                        struct nf_run ***out, size_t *n);

/* --- latency histograms ---------------------------------------------------- */

/* The loaders above leave run->hists empty: most readers (compare, list)
 * need only the values, and a latency run's buckets outweigh them.  Load
 * the histograms of runs[0..n) (stored ones, by id; what the runs held is
 * dropped first), each run's in order of name, its repetitions ascending:
 * one statement for all the runs on PostgreSQL, one stepped per run on
 * SQLite.  A run without any keeps none (stored before schema 6, or not a
 * latency workload).  -1 when a stored histogram is malformed. */
int nf_store_load_hists(struct nf_store *s, struct nf_run *const *runs, size_t n);

/* --- profiles (noisefloor profile) ---------------------------------------- */

/* Store the profile of run_id (entries, event, freq, lost, and each
 * repetition's entries) in one transaction; -1 when the run does not exist
 * or already has one.  The loaders below give the repetitions back in
 * out->reps (run by run for a label; none for a profile stored before
 * schema 4). */
int nf_store_add_profile(struct nf_store *s, int64_t run_id, const struct nf_profile *p);
/* Load run_id's profile into out (initialised here; free with
 * nf_profile_free), or NF_STORE_NOTFOUND when the run has none. */
int nf_store_load_profile(struct nf_store *s, int64_t run_id, struct nf_profile *out);
/* The profiles of every run of label, summed into out (event: the events
 * seen, joined by ','); *nruns profiled runs.  NF_STORE_NOTFOUND with a
 * message when the label has no runs, or no run of it has a profile. */
int nf_store_load_label_profile(struct nf_store *s, const char *label, struct nf_profile *out,
                                size_t *nruns);

/* --- bisections in progress (noisefloor bisect --boot) --------------------- */

/* A kernel-mode bisection keeps its state in the store, which outlives the
 * boots between its steps: one row per repository (the work tree's top, as
 * git names it), its state a JSON object (bisect/state.h's) that the store
 * keeps as text and does not read.  The runs the bisection measures are
 * ordinary runs beside it. */
enum { NF_STORE_EXISTS = 3 };
/* The state of repo's bisection, malloc'd into *json; NF_STORE_NOTFOUND
 * when none is in progress there. */
int nf_store_load_bisection(struct nf_store *s, const char *repo, char **json);
/* create: begin repo's bisection with state json, NF_STORE_EXISTS (nothing
 * written) when one is in progress there; otherwise: replace the state of
 * the one in progress, NF_STORE_NOTFOUND when there is none. */
int nf_store_save_bisection(struct nf_store *s, const char *repo, const char *json, int create);
/* End repo's bisection (its row deleted; its runs stay);
 * NF_STORE_NOTFOUND when none was in progress. */
int nf_store_delete_bisection(struct nf_store *s, const char *repo);

#endif
