/* The SQLite backend's schema (store/sqlite_int.h): the steps that take a
 * database from each schema version to the next, the check of what a file
 * holds before anything is written to it, and the migration, in one
 * transaction.  Opening the file around them: sqlite_open.c. */
#include "store/sqlite_int.h"

#include <stdlib.h>

#include "core/util.h"
#include "core/version.h"

/* migrations[v] takes a database from schema version v to v + 1, in the
 * transaction that also records v + 1.  Never edit a released step; the
 * next one goes at the end of this array (and of the one in pg_open.c, the
 * same version in PostgreSQL's types), with NF_SCHEMA_VERSION one higher
 * (store.h) and a test that opens a database of the version before it
 * (tests/unit/test_store_migrate.c). */
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
    /* 2 → 3: the job queue (noisefloor submit, agent, jobs).  A run stored
     * by a job's command names the job and the attempt. */
    "ALTER TABLE runs ADD COLUMN job INTEGER;\n"
    "ALTER TABLE runs ADD COLUMN job_attempt INTEGER;\n"
    "CREATE INDEX runs_job ON runs (job) WHERE job IS NOT NULL;\n"
    "CREATE TABLE jobs (\n"
    "  id          INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  grp         INTEGER,                   -- copies of one submit: the first's id\n"
    "  tag         TEXT,                      -- NULL: any agent\n"
    "  words       TEXT NOT NULL,             -- JSON array: [\"run\", \"-r\", \"10\", ...]\n"
    "  state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),\n"
    "  submitted   TEXT NOT NULL,             -- ISO 8601 UTC\n"
    "  attempt     INTEGER NOT NULL DEFAULT 0, -- claims so far\n"
    "  host        TEXT,                      -- the agent of the last claim\n"
    "  pid         INTEGER,\n"
    "  started     TEXT,                      -- the last claim\n"
    "  lease_until REAL,                      -- unix seconds; past it, claimable again\n"
    "  finished    TEXT,\n"
    "  runs        TEXT,                      -- JSON array of the runs the attempt stored\n"
    "  error       TEXT                       -- failed: why\n"
    ");\n"
    "CREATE INDEX jobs_state ON jobs (state, id);\n",
    /* 3 → 4: each profiled repetition's symbols (profdiff's intervals); a
     * repetition without samples has no rows. */
    "CREATE TABLE profile_rep_symbols (\n"
    "  run_id  INTEGER NOT NULL REFERENCES profiles (run_id) ON DELETE CASCADE,\n"
    "  rep     INTEGER NOT NULL,              -- 0-based among the profiled repetitions\n"
    "  symbol  TEXT NOT NULL,\n"
    "  dso     TEXT NOT NULL,\n"
    "  samples INTEGER NOT NULL,\n"
    "  period  INTEGER NOT NULL,\n"
    "  PRIMARY KEY (run_id, rep, symbol, dso)\n"
    ") WITHOUT ROWID;\n",
    /* 4 → 5: samples, one row per repetition (a commit appends to one page
     * rather than to one per metric); the values as blobs, built by the
     * aggregate nf_pack (sqlite_samples.c has the layout).  A metric's
     * samples cascade from its run now: the metrics rows do from it too. */
    "CREATE TABLE samples_v5 (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  rep    INTEGER NOT NULL,               -- 0-based repetition\n"
    "  vals   BLOB NOT NULL,                  -- per metric idx: a double, NaN for none\n"
    "  pcts   BLOB,                           -- running_pct the same way; NULL: none\n"
    "  PRIMARY KEY (run_id, rep)\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO samples_v5 (run_id, rep, vals, pcts)\n"
    "  SELECT run_id, rep, nf_pack(metric_idx, value), nf_pack(metric_idx, running_pct)\n"
    "  FROM samples WHERE run_id IN (SELECT id FROM runs) GROUP BY run_id, rep;\n"
    "DROP TABLE samples;\n"
    "ALTER TABLE samples_v5 RENAME TO samples;\n",
    /* 5 → 6: latency histograms, a row per histogram and repetition
     * (sqlite_hists.c has the layout of buckets). */
    "CREATE TABLE histograms (\n"
    "  run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  name    TEXT NOT NULL,                 -- the family: wakeup for wakeup-p99\n"
    "  rep     INTEGER NOT NULL,              -- 0-based repetition\n"
    "  buckets BLOB NOT NULL,                 -- per bucket: lo, count (uint64 LE)\n"
    "  PRIMARY KEY (run_id, name, rep)\n"
    ") WITHOUT ROWID;\n",
    /* 6 → 7: a job's limits: how many claims it may have, how long an
     * attempt may run (NULL: no limit); and `jobs cancel` of a running
     * job, for its agent to see at its next renewal. */
    "ALTER TABLE jobs ADD COLUMN max_attempts INTEGER NOT NULL DEFAULT 3;\n"
    "ALTER TABLE jobs ADD COLUMN max_time REAL;\n"
    "ALTER TABLE jobs ADD COLUMN cancel INTEGER NOT NULL DEFAULT 0;\n",
    /* 7 → 8: per run and metric (idx as in metrics) a summary of its
     * values, which history reads in place of the samples
     * (sqlite_summary.c writes them; filled here by migration_fill). */
    "CREATE TABLE summaries (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  idx    INTEGER NOT NULL,               -- the metric's, as in metrics\n"
    "  n      INTEGER NOT NULL,               -- how many values\n"
    "  mean   REAL,                           -- their mean, sd (n - 1); NULL: none\n"
    "  sd     REAL,\n"
    "  rmean  REAL,                           -- the same of 1/value; NULL when a\n"
    "  rsd    REAL,                           -- value is <= 0 (or none)\n"
    "  PRIMARY KEY (run_id, idx)\n"
    ") WITHOUT ROWID;\n",
    /* 8 → 9: kernel-mode bisections in progress (noisefloor bisect --boot),
     * one per repository, their state as JSON text (store.h). */
    "CREATE TABLE bisections (\n"
    "  id      INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  repo    TEXT NOT NULL UNIQUE,          -- the work tree's top\n"
    "  state   TEXT NOT NULL,                 -- JSON object (bisect/state.h)\n"
    "  created TEXT NOT NULL,                 -- ISO 8601 UTC\n"
    "  updated TEXT NOT NULL\n"
    ");\n",
    /* 9 -> 10: the points cache (store_pcache.c): the point rows of the
     * settled runs up to upto as one blob, which history replays before
     * reading the runs after it; the triggers delete it when a row it
     * holds would read otherwise (its run, metrics, summaries, or the job
     * that supersedes it changed). */
    nf_sq_pcache_schema,
    /* 10 -> 11: a metric stored without values that was opened but did
     * not count (core/run.h, not_counted), told apart before by its run's
     * note and set from it here (migration_fill); the points cache's blob
     * of 10 is dropped. */
    "ALTER TABLE metrics ADD COLUMN not_counted INTEGER NOT NULL DEFAULT 0;\n"
    "DELETE FROM points_cache;\n",
};

/* What a step of migrations[] needs done in C (NULL: nothing), in its
 * transaction after the SQL of every step: the C is this version's, which
 * reads and writes the tables as the last step leaves them. */
static int (*const migration_fill[NF_SCHEMA_VERSION])(struct nf_sqlite *q) = {
    [7] = nf_sq_summarise_all,    /* 7 → 8: every stored run's summaries */
    [10] = nf_sq_not_counted_all, /* 10 -> 11: not_counted from the notes */
};

/* One integer from a query, or -1 with the message set. */
static int query_int(struct nf_sqlite *q, const char *sql, long long *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read the database");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return nf_sq_dberr(q, "cannot read the database");
    return 0;
}

/* Read what the file holds and decide whether we may use it.  A refusal
 * (another application's database, a newer schema) sets q->refused: no
 * other way of opening the file would make it usable. */
int nf_sq_check_schema(struct nf_sqlite *q)
{
    const char *path = q->base.name;
    long long ntables, appid, version = 0;
    if (query_int(q, "SELECT count(*) FROM sqlite_master", &ntables) ||
        query_int(q, "PRAGMA application_id", &appid))
        return -1;
    if (ntables == 0 && appid == 0) {
        q->base.opened_version = 0;
        return 0;
    }
    q->refused = appid != NF_APPLICATION_ID;
    if (appid != NF_APPLICATION_ID)
        return nf_store_seterr(&q->base,
                               "'%s' is a SQLite database but not a noisefloor "
                               "database; refusing to use it",
                               path);
    if (query_int(q, "SELECT max(version) FROM schema_version", &version))
        return -1;
    q->refused = version > NF_SCHEMA_VERSION || version < 0;
    if (version > NF_SCHEMA_VERSION)
        return nf_store_seterr(&q->base,
                               "'%s' has database schema version %lld, newer than "
                               "this noisefloor (%s) knows (%d); use a newer noisefloor",
                               path, version, nf_version, NF_SCHEMA_VERSION);
    if (version < 0)
        return nf_store_seterr(&q->base, "'%s': invalid schema version %lld", path, version);
    q->base.opened_version = (int)version;
    return 0;
}

int nf_sq_migrate(struct nf_sqlite *q)
{
    if (nf_sq_begin(q))
        return -1;
    /* Another process may have migrated between our check and the lock. */
    long long version = 0, ntables;
    if (query_int(q, "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'", &ntables))
        goto fail;
    if (ntables && query_int(q, "SELECT max(version) FROM schema_version", &version))
        goto fail;
    for (long long v = version; v < NF_SCHEMA_VERSION; v++) {
        if (nf_sq_exec(q, migrations[v]))
            goto fail;
        char *sql = nf_xasprintf("UPDATE schema_version SET version = %lld", v + 1);
        int rc = nf_sq_exec(q, sql);
        free(sql);
        if (rc)
            goto fail;
    }
    for (long long v = version; v < NF_SCHEMA_VERSION; v++)
        if (migration_fill[v] && migration_fill[v](q))
            goto fail;
    char *sql = nf_xasprintf("PRAGMA application_id = %d", NF_APPLICATION_ID);
    int rc = nf_sq_exec(q, sql);
    free(sql);
    if (rc || nf_sq_commit(q))
        goto fail;
    return 0;
fail:
    nf_sq_rollback(q);
    return -1;
}
