/* The PostgreSQL backend, opening a database: connect, refuse what is not
 * ours, create or migrate what is.
 *
 * As with SQLite, nothing is written before the database is known to be
 * empty or a noisefloor store of a schema we understand: the schema is read
 * first, and a creation or migration runs in one transaction under an
 * advisory lock, so that agents starting together on a new database create
 * it once.  The tables live in the connection's current schema (the first
 * of search_path), so one database can hold several stores. */
#include "store/pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"

/* migrations[v] takes a database from schema version v to v + 1; the same
 * versions as SQLite's (sqlite_schema.c), in PostgreSQL's types.  Never edit a
 * released step; the next one goes at the end of this array and of
 * SQLite's, with NF_SCHEMA_VERSION one higher (store.h). */
static const char *const migrations[NF_SCHEMA_VERSION] = {
    /* 0 → 1: the first schema.  conn_pid and conn_start name the writer's
     * server session while a run is "running": it ends when the writer
     * dies, on whatever machine. */
    "CREATE TABLE schema_version (\n"
    "  version        integer NOT NULL,\n"
    "  application_id integer NOT NULL\n"
    ");\n"
    "INSERT INTO schema_version VALUES (0, 1313229906);\n" /* NF_APPLICATION_ID */
    "CREATE TABLE runs (\n"
    "  id         bigserial PRIMARY KEY,\n"
    "  label      text NOT NULL,\n"
    "  workload   text NOT NULL,\n"
    "  args       json NOT NULL DEFAULT '[]',\n"
    "  started    text NOT NULL,               -- ISO 8601 UTC, as written\n"
    "  repeat     integer NOT NULL DEFAULT 0,\n"
    "  warmup     integer NOT NULL DEFAULT 0,\n"
    "  status     text NOT NULL,               -- running complete interrupted failed\n"
    "  session    text,\n"
    "  note       text,\n"
    "  env        json,\n"
    "  pid        integer,                     -- writer, while status is running\n"
    "  host       text,                        -- the machine that measured it\n"
    "  conn_pid   integer,                     -- writer's server session, while running\n"
    "  conn_start timestamptz\n"
    ");\n"
    "CREATE INDEX runs_label ON runs (label, workload);\n"
    "CREATE INDEX runs_session ON runs (session) WHERE session IS NOT NULL;\n"
    "CREATE TABLE metrics (\n"
    "  run_id     bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  idx        integer NOT NULL,\n"
    "  name       text NOT NULL,\n"
    "  unit       text NOT NULL,\n"
    "  better     text NOT NULL CHECK (better IN ('lower', 'higher')),\n"
    "  is_primary boolean NOT NULL DEFAULT false,\n"
    "  supported  boolean NOT NULL DEFAULT true,\n"
    "  PRIMARY KEY (run_id, idx),\n"
    "  UNIQUE (run_id, name)\n"
    ");\n"
    "CREATE TABLE samples (\n"
    "  run_id      bigint NOT NULL,\n"
    "  metric_idx  integer NOT NULL,\n"
    "  rep         integer NOT NULL,\n"
    "  value       double precision NOT NULL,\n"
    "  running_pct double precision,\n"
    "  PRIMARY KEY (run_id, metric_idx, rep),\n"
    "  FOREIGN KEY (run_id, metric_idx) REFERENCES metrics (run_id, idx) ON DELETE CASCADE\n"
    ");\n",
    /* 1 → 2: profiles (noisefloor profile). */
    "CREATE TABLE profiles (\n"
    "  run_id  bigint PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  event   text NOT NULL,\n"
    "  freq    bigint NOT NULL,\n"
    "  lost    bigint NOT NULL DEFAULT 0\n"
    ");\n"
    "CREATE TABLE profile_symbols (\n"
    "  run_id  bigint NOT NULL REFERENCES profiles (run_id) ON DELETE CASCADE,\n"
    "  symbol  text NOT NULL,\n"
    "  dso     text NOT NULL,\n"
    "  samples bigint NOT NULL,\n"
    "  period  bigint NOT NULL,\n"
    "  PRIMARY KEY (run_id, symbol, dso)\n"
    ");\n",
    /* 2 → 3: the job queue (noisefloor submit, agent, jobs).  A run stored
     * by a job's command names the job and the attempt.  Times are the
     * server's, so that the agents' clocks do not matter. */
    "ALTER TABLE runs ADD COLUMN job bigint, ADD COLUMN job_attempt integer;\n"
    "CREATE INDEX runs_job ON runs (job) WHERE job IS NOT NULL;\n"
    "CREATE TABLE jobs (\n"
    "  id          bigserial PRIMARY KEY,\n"
    "  grp         bigint,                     -- copies of one submit: the first's id\n"
    "  tag         text,                       -- NULL: any agent\n"
    "  words       json NOT NULL,              -- [\"run\", \"-r\", \"10\", ...]\n"
    "  state       text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),\n"
    "  submitted   timestamptz NOT NULL DEFAULT now(),\n"
    "  attempt     integer NOT NULL DEFAULT 0, -- claims so far\n"
    "  host        text,                       -- the agent of the last claim\n"
    "  pid         integer,\n"
    "  started     timestamptz,                -- the last claim\n"
    "  lease_until timestamptz,                -- past it, claimable again\n"
    "  finished    timestamptz,\n"
    "  runs        json,                       -- the runs the attempt stored\n"
    "  error       text                        -- failed: why\n"
    ");\n"
    "CREATE INDEX jobs_state ON jobs (state, id);\n",
    /* 3 → 4: each profiled repetition's symbols (profdiff's intervals). */
    "CREATE TABLE profile_rep_symbols (\n"
    "  run_id  bigint NOT NULL REFERENCES profiles (run_id) ON DELETE CASCADE,\n"
    "  rep     integer NOT NULL,\n"
    "  symbol  text NOT NULL,\n"
    "  dso     text NOT NULL,\n"
    "  samples bigint NOT NULL,\n"
    "  period  bigint NOT NULL,\n"
    "  PRIMARY KEY (run_id, rep, symbol, dso)\n"
    ");\n",
    /* 4 → 5: samples, one row per repetition (a commit inserts one row and
     * one index entry rather than one per metric): element idx + 1 of vals
     * is metric idx's value, NULL where it has none, and pcts its running
     * percentage (NULL: no metric of the repetition keeps one).  A
     * metric's samples cascade from its run now. */
    "CREATE TABLE samples_v5 (\n"
    "  run_id bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  rep    integer NOT NULL,\n"
    "  vals   double precision[] NOT NULL,\n"
    "  pcts   double precision[],\n"
    "  PRIMARY KEY (run_id, rep)\n"
    ");\n"
    "INSERT INTO samples_v5 (run_id, rep, vals, pcts)\n"
    "  SELECT k.run_id, k.rep, array_agg(s.value ORDER BY g.i),\n"
    "    CASE WHEN count(s.running_pct) > 0 THEN array_agg(s.running_pct ORDER BY g.i) END\n"
    "  FROM (SELECT run_id, rep, max(metric_idx) AS top FROM samples GROUP BY run_id, rep) k\n"
    "  CROSS JOIN LATERAL generate_series(0, k.top) AS g (i)\n"
    "  LEFT JOIN samples s ON s.run_id = k.run_id AND s.rep = k.rep AND s.metric_idx = g.i\n"
    "  GROUP BY k.run_id, k.rep;\n"
    "DROP TABLE samples;\n"
    "ALTER TABLE samples_v5 RENAME TO samples;\n"
    "ALTER TABLE samples RENAME CONSTRAINT samples_v5_pkey TO samples_pkey;\n"
    "ALTER TABLE samples RENAME CONSTRAINT samples_v5_run_id_fkey TO samples_run_id_fkey;\n",
    /* 5 → 6: latency histograms, a row per histogram and repetition;
     * buckets as SQLite's BLOB (pg_hists.c). */
    "CREATE TABLE histograms (\n"
    "  run_id  bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  name    text NOT NULL,\n"
    "  rep     integer NOT NULL,\n"
    "  buckets bytea NOT NULL,\n"
    "  PRIMARY KEY (run_id, name, rep)\n"
    ");\n",
    /* 6 → 7: a job's limits: how many claims it may have, how long an
     * attempt may run (NULL: no limit); and `jobs cancel` of a running
     * job, for its agent to see at its next renewal. */
    "ALTER TABLE jobs ADD COLUMN max_attempts integer NOT NULL DEFAULT 3,\n"
    "  ADD COLUMN max_time double precision,\n"
    "  ADD COLUMN cancel integer NOT NULL DEFAULT 0;\n",
    /* 7 → 8: per run and metric (idx as in metrics) a summary of its
     * values, which history reads in place of the samples (pg_summary.c
     * writes them; filled here by migration_fill). */
    "CREATE TABLE summaries (\n"
    "  run_id bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
    "  idx    integer NOT NULL,\n"
    "  n      bigint NOT NULL,\n"
    "  mean   double precision,\n"
    "  sd     double precision,\n"
    "  rmean  double precision,\n"
    "  rsd    double precision,\n"
    "  PRIMARY KEY (run_id, idx)\n"
    ");\n",
    /* 8 → 9: kernel-mode bisections in progress (noisefloor bisect --boot),
     * one per repository, their state as JSON text (store.h). */
    "CREATE TABLE bisections (\n"
    "  id      bigserial PRIMARY KEY,\n"
    "  repo    text NOT NULL UNIQUE,\n"
    "  state   text NOT NULL,\n"
    "  created timestamptz NOT NULL DEFAULT now(),\n"
    "  updated timestamptz NOT NULL DEFAULT now()\n"
    ");\n",
    /* 9 -> 10: the points cache, as SQLite's (sqlite_pcache.c): the table
     * and the triggers that delete its row when a row it holds would read
     * otherwise (pg_pcache.c writes it).  The function runs as the store's
     * owner: a role that may write runs but not the cache (an agent's,
     * noisefloor-agent(1)) still drops it. */
    nf_pg_pcache_schema,
    /* 10 -> 11: a metric's not_counted, as SQLite's (sqlite_schema.c): set
     * from its run's note (migration_fill); the cache's blob of 10 dropped. */
    "ALTER TABLE metrics ADD COLUMN not_counted boolean NOT NULL DEFAULT false;\n"
    "DELETE FROM points_cache;\n",
};

/* What a step of migrations[] needs done in C (NULL: nothing), in its
 * transaction after the SQL of every step, as SQLite's (sqlite_schema.c). */
static int (*const migration_fill[NF_SCHEMA_VERSION])(struct nf_pg *g) = {
    [7] = nf_pg_summarise_all,    /* 7 → 8: every stored run's summaries */
    [10] = nf_pg_not_counted_all, /* 10 -> 11: not_counted from the notes */
};

_Static_assert(NF_APPLICATION_ID == 1313229906, "schema_version's application_id above");

/* What the current schema holds, read without writing. */
struct found {
    int ntables; /* tables, views, sequences... of the current schema */
    int ours;    /* a schema_version table with our application_id column */
    long long version, appid;
};

static int read_schema(struct nf_pg *g, struct found *f)
{
    memset(f, 0, sizeof(*f));
    PGresult *r = nf_pg_query(g, "cannot read the database",
                              "SELECT current_schema(),"
                              " (SELECT count(*) FROM pg_catalog.pg_class c"
                              "  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                              "  WHERE n.nspname = current_schema()),"
                              " (SELECT count(*) FROM information_schema.columns"
                              "  WHERE table_schema = current_schema()"
                              "  AND table_name = 'schema_version'"
                              "  AND column_name = 'application_id')",
                              NULL);
    if (!r)
        return -1;
    if (PQgetisnull(r, 0, 0)) {
        PQclear(r);
        return nf_store_seterr(&g->base,
                               "%s: no schema to keep the tables in (search_path names none "
                               "that exists)",
                               g->base.name);
    }
    f->ntables = atoi(PQgetvalue(r, 0, 1));
    f->ours = atoi(PQgetvalue(r, 0, 2)) > 0;
    PQclear(r);
    if (!f->ours)
        return 0;
    r = nf_pg_query(g, "cannot read the database",
                    "SELECT max(version), min(application_id) FROM schema_version", NULL);
    if (!r)
        return -1;
    f->version = PQgetisnull(r, 0, 0) ? -1 : atoll(PQgetvalue(r, 0, 0));
    f->appid = PQgetisnull(r, 0, 1) ? 0 : atoll(PQgetvalue(r, 0, 1));
    PQclear(r);
    return 0;
}

/* Decide from what was found: 0 (opened_version set), or -1. */
static int judge(struct nf_pg *g, const struct found *f)
{
    const char *name = g->base.name;
    if (!f->ours && f->ntables == 0) {
        g->base.opened_version = 0;
        return 0;
    }
    if (!f->ours || f->appid != NF_APPLICATION_ID)
        return nf_store_seterr(&g->base,
                               "%s holds tables that are not noisefloor's; refusing to use it "
                               "(give an empty database, or another schema in search_path)",
                               name);
    if (f->version > NF_SCHEMA_VERSION)
        return nf_store_seterr(&g->base,
                               "%s has database schema version %lld, newer than "
                               "this noisefloor (%s) knows (%d); use a newer noisefloor",
                               name, f->version, nf_version, NF_SCHEMA_VERSION);
    if (f->version < 0)
        return nf_store_seterr(&g->base, "%s: invalid schema version %lld", name, f->version);
    g->base.opened_version = (int)f->version;
    return 0;
}

static int migrate(struct nf_pg *g)
{
    if (nf_pg_begin(g))
        return -1;
    /* One migrator at a time; the others find the work done. */
    char *lock = nf_xasprintf("SELECT pg_advisory_xact_lock(%d)", NF_APPLICATION_ID);
    int rc = nf_pg_exec(g, "cannot lock the schema", lock, NULL);
    free(lock);
    struct found f;
    if (rc || read_schema(g, &f) || judge(g, &f))
        goto fail;
    for (int v = g->base.opened_version; v < NF_SCHEMA_VERSION; v++) {
        char *step =
            nf_xasprintf("%s\nUPDATE schema_version SET version = %d;", migrations[v], v + 1);
        /* Several statements: the simple protocol, inside our transaction. */
        PGresult *r = PQexec(g->conn, step);
        free(step);
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
            char line[NF_ERR_LEN];
            const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
            nf_pg_flatten(line, sizeof(line), m ? m : PQerrorMessage(g->conn));
            nf_store_seterr(&g->base, "%s: cannot create the tables: %s", g->base.name, line);
            PQclear(r);
            goto fail;
        }
        PQclear(r);
    }
    for (int v = g->base.opened_version; v < NF_SCHEMA_VERSION; v++)
        if (migration_fill[v] && migration_fill[v](g))
            goto fail;
    if (nf_pg_commit(g))
        goto fail;
    return 0;
fail:
    nf_pg_rollback(g);
    return -1;
}

/* One line into the caller's err; a long one is cut. */
static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* The store's name in messages: the string as given, or, when it holds a
 * password, its options again without it.  NULL when libpq cannot parse
 * it (err then says why). */
static char *display_name(const char *conninfo, char *err, size_t errlen)
{
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo, &perr);
    if (!opts) {
        char line[NF_ERR_LEN];
        nf_pg_flatten(line, sizeof(line), perr ? perr : "out of memory");
        set_err(err, errlen, "invalid PostgreSQL connection string: %s", line);
        PQfreemem(perr);
        return NULL;
    }
    int secret = 0;
    for (PQconninfoOption *o = opts; o->keyword; o++)
        secret |= o->val && strcmp(o->keyword, "password") == 0;
    char *name;
    if (!secret) {
        name = nf_xstrdup(conninfo);
    } else {
        struct nf_buf b = {0};
        for (PQconninfoOption *o = opts; o->keyword; o++) {
            if (!o->val || strcmp(o->keyword, "password") == 0)
                continue;
            nf_buf_printf(&b, "%s%s='", b.len ? " " : "", o->keyword);
            for (const char *p = o->val; *p; p++) {
                if (*p == '\'' || *p == '\\')
                    nf_buf_add(&b, "\\", 1);
                nf_buf_add(&b, p, 1);
            }
            nf_buf_add(&b, "'", 1);
        }
        name = b.s ? b.s : nf_xstrdup("postgresql");
    }
    PQconninfoFree(opts);
    return name;
}

/* What every connection of ours sets first. */
static int session_setup(struct nf_pg *g)
{
    return nf_pg_exec(g, "cannot set up the session",
                      "SELECT set_config('extra_float_digits', '3', false),"
                      " set_config('TimeZone', 'UTC', false)",
                      NULL);
}

/* A connection the server ended (a restart) is made again, with the same
 * parameters; one that works is left alone. */
int nf_pg_reconnect(struct nf_store *s)
{
    struct nf_pg *g = nf_pgs(s);
    if (PQstatus(g->conn) == CONNECTION_OK)
        return 0;
    PQreset(g->conn);
    g->prepared = 0; /* the server's new session has none of them */
    g->notice[0] = 0;
    if (PQstatus(g->conn) != CONNECTION_OK) {
        char line[NF_ERR_LEN];
        nf_pg_flatten(line, sizeof(line), PQerrorMessage(g->conn));
        return nf_store_seterr(s, "cannot connect to %s: %s", g->base.name, line);
    }
    return session_setup(g);
}

static void pg_close(struct nf_store *s)
{
    struct nf_pg *g = nf_pgs(s);
    PQfinish(g->conn);
    nf_store_base_free(s);
    free(g);
}

static const struct nf_store_ops pg_ops = {
    .backend = "postgresql",
    .close = pg_close,
    .begin_run = nf_pg_begin_run,
    .add_rep = nf_pg_add_rep,
    .finish_run = nf_pg_finish_run,
    .insert_runs = nf_pg_insert_runs,
    .delete_runs = nf_pg_delete_runs,
    .find_runs = nf_pg_find_runs,
    .load_runs = nf_pg_load_runs,
    .load_points = nf_pg_load_points,
    .pcache_txn = nf_pg_pcache_txn,
    .pcache_read = nf_pg_pcache_read,
    .pcache_write = nf_pg_pcache_write,
    .load_hists = nf_pg_load_hists,
    .add_profile = nf_pg_add_profile,
    .load_profiles = nf_pg_load_profiles,
    .submit = nf_pg_submit,
    .cancel_job = nf_pg_cancel_job,
    .reconnect = nf_pg_reconnect,
    .claim_job = nf_pg_claim_job,
    .renew_job = nf_pg_renew_job,
    .end_job = nf_pg_end_job,
    .list_jobs = nf_pg_list_jobs,
    .load_bisection = nf_pg_load_bisection,
    .save_bisection = nf_pg_save_bisection,
    .delete_bisection = nf_pg_delete_bisection,
};

int nf_pg_open(struct nf_store **out, const char *conninfo, int flags, char *err, size_t errlen)
{
    *out = NULL;
    if (nf_pq_load(err, errlen))
        return -1;
    char *name = display_name(conninfo, err, errlen);
    if (!name)
        return -1;
    struct nf_pg *g = nf_xcalloc(1, sizeof(*g));
    g->base.ops = &pg_ops;
    g->base.name = name;
    /* Keywords in order, the last value winning: our defaults, then the
     * user's string (expanded), then what we insist on. */
    const char *const kw[] = {"connect_timeout", "application_name", "dbname", "client_encoding",
                              NULL};
    const char *const val[] = {"10", "noisefloor", conninfo, "UTF8", NULL};
    g->conn = PQconnectdbParams(kw, val, 1);
    if (g->conn)
        PQsetNoticeProcessor(g->conn, nf_pg_on_notice, g);
    if (!g->conn || PQstatus(g->conn) != CONNECTION_OK) {
        char line[NF_ERR_LEN];
        nf_pg_flatten(line, sizeof(line), g->conn ? PQerrorMessage(g->conn) : "out of memory");
        set_err(err, errlen, "cannot connect to %s: %s", name, line);
        pg_close(&g->base);
        return -1;
    }
    if (PQserverVersion(g->conn) < 90500) {
        set_err(err, errlen, "%s: PostgreSQL %d.%d is too old (9.5 or newer needed)", name,
                PQserverVersion(g->conn) / 10000, PQserverVersion(g->conn) / 100 % 100);
        pg_close(&g->base);
        return -1;
    }
    struct found f;
    if (session_setup(g) || read_schema(g, &f) || judge(g, &f))
        goto fail;
    if (g->base.opened_version == 0 && !(flags & NF_STORE_CREATE)) {
        snprintf(err, errlen,
                 "no noisefloor store in %s (run something first, or give another --db)", name);
        pg_close(&g->base);
        return NF_STORE_NOTFOUND;
    }
    if (g->base.opened_version < NF_SCHEMA_VERSION && migrate(g))
        goto fail;
    *out = &g->base;
    return 0;
fail:
    set_err(err, errlen, "%s", g->base.errmsg);
    pg_close(&g->base);
    return -1;
}
