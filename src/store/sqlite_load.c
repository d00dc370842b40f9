/* The SQLite backend, reading runs back.  Loading is three prepared
 * statements however many runs are asked for: the run rows, then each run's
 * metrics and its samples (compare over 1,000,000 samples must stay well
 * under a second). */
#include "store/sqlite_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void nf_sq_filter_bind(sqlite3_stmt *st, const struct nf_store_filter *f)
{
    int k = 1;
    if (!f)
        return;
    for (size_t i = 0; i < f->nlabels; i++)
        sqlite3_bind_text(st, k++, f->labels[i], -1, SQLITE_STATIC);
    if (f->workload)
        sqlite3_bind_text(st, k++, f->workload, -1, SQLITE_STATIC);
    if (f->session)
        sqlite3_bind_text(st, k++, f->session, -1, SQLITE_STATIC);
    if (f->id)
        sqlite3_bind_int64(st, k++, f->id);
    if (f->after)
        sqlite3_bind_int64(st, k++, f->after);
}

static int prepare_filtered(struct nf_sqlite *q, const char *head, const char *tail,
                            const struct nf_store_filter *f, sqlite3_stmt **st)
{
    char *where = nf_store_filter_sql(f, 0, 1);
    char *sql = nf_xasprintf("%s%s%s", head, where, tail);
    int rc = sqlite3_prepare_v2(q->db, sql, -1, st, NULL);
    free(where);
    free(sql);
    if (rc != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read runs");
    nf_sq_filter_bind(*st, f);
    return 0;
}

int nf_sq_find_runs(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids, size_t *n)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    if (prepare_filtered(q, "SELECT r.id FROM runs r", " ORDER BY r.id", f, &st))
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *ids = nf_xrealloc(*ids, cap * sizeof(int64_t));
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*ids);
        *ids = NULL;
        *n = 0;
        return nf_sq_dberr(q, "cannot read runs");
    }
    return 0;
}

/* Column 13: whether a later attempt of the run's job has taken it over.
 * Columns 14-16 (a load of summaries, which history alone asks for): the
 * environment's keys history reads (hostname, and the commit as
 * analysis/history.h takes it), in place of the whole environment, whose
 * parse is most of the time of loading 100,000 runs. */
#define RUN_COLS                                                                                   \
    "SELECT r.id, r.label, r.workload, r.args, r.started, r.repeat, r.warmup, r.status,"           \
    " r.session, r.note, r.env, r.pid, r.host, " NF_STORE_SUPERSEDED_SQL
static const char run_cols[] = RUN_COLS " FROM runs r";
static const char run_cols_keys[] =
    RUN_COLS ", CASE WHEN json_valid(r.env) THEN json_extract(r.env, '$.hostname') END,"
             " CASE WHEN json_valid(r.env) THEN json_extract(r.env, '$.commit') END,"
             " CASE WHEN json_valid(r.env) THEN json_extract(r.env, '$.git_describe') END"
             " FROM runs r";

/* The environment of columns 14-16: the keys that are strings. */
static json_t *env_keys(sqlite3_stmt *st)
{
    static const char *const keys[] = {"hostname", "commit", "git_describe"};
    json_t *env = json_object();
    for (int i = 0; i < 3; i++)
        if (sqlite3_column_type(st, 14 + i) == SQLITE_TEXT)
            json_object_set_new(env, keys[i],
                                json_string((const char *)sqlite3_column_text(st, 14 + i)));
    return env;
}

static struct nf_run *run_from_row(struct nf_sqlite *q, sqlite3_stmt *st, int keys)
{
    const char *text[13];
    for (int i = 0; i < 13; i++)
        text[i] = (const char *)sqlite3_column_text(st, i);
    enum nf_run_status state = nf_store_row_status(text[7]);
    /* A run stored as "running" whose writer is gone is incomplete: it was
     * killed (or its machine went down) before it could say otherwise.
     * Its journal says which, by the lock its writer holds on it, whatever
     * host name either side goes by.  Without one (a run that could not
     * make it), the pid and host name: a writer on another machine cannot
     * be asked, not ours to wait for. */
    int writing = 0;
    if (state == NF_RUN_RUNNING) {
        long long pid =
            sqlite3_column_type(st, 11) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 11);
        int lives = pid > 0 ? nf_sq_journal_writer(q, sqlite3_column_int64(st, 0), pid) : -1;
        writing = lives >= 0 ? lives : nf_store_writer_state(pid, text[12], 0) == 1;
        if (!writing)
            state = NF_RUN_INCOMPLETE;
    }
    if (sqlite3_column_int(st, 13))
        state = NF_RUN_SUPERSEDED; /* whatever its writer did or does */
    struct nf_run *run = nf_store_run_from_row(
        sqlite3_column_int64(st, 0), text[1], text[2], text[3], text[4], sqlite3_column_int(st, 5),
        sqlite3_column_int(st, 6), state, text[8], text[9], keys ? NULL : text[10]);
    run->writing = writing;
    if (keys)
        run->env = env_keys(st);
    return run;
}

/* The metrics of a run (in order of idx), then its samples: one row per
 * repetition, in order of the primary key (run_id, rep), so no sort. */
static const char metrics_sql[] =
    "SELECT idx, name, unit, better, is_primary, supported, not_counted"
    " FROM metrics WHERE run_id = ? ORDER BY idx";
static const char samples_sql[] =
    "SELECT vals, pcts, rep FROM samples WHERE run_id = ? ORDER BY rep";

/* The metrics of run; their idx into idx[], their place in run->metrics into at[]; how many. */
static int load_metric_rows(sqlite3_stmt *st, struct nf_run *run, int64_t *idx, size_t *at,
                            size_t *n)
{
    int rc;
    *n = 0;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        enum nf_better b = NF_BETTER_LOWER;
        const char *better = (const char *)sqlite3_column_text(st, 3);
        if (better)
            nf_better_parse(better, &b);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *unit = (const char *)sqlite3_column_text(st, 2);
        /* Names are unique per run (schema), so this adds one. */
        struct nf_metric *m =
            nf_run_metric(run, name ? name : "", unit, b, sqlite3_column_int(st, 4));
        if (!m)
            continue; /* more than a run can hold */
        m->supported = sqlite3_column_int(st, 5);
        m->not_counted = sqlite3_column_int(st, 6);
        idx[*n] = sqlite3_column_int64(st, 0);
        at[(*n)++] = (size_t)(m - run->metrics);
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

/* One repetition's samples row onto the run's metrics. */
static void add_sample_row(struct nf_run *run, const int64_t *idx, const size_t *at, size_t n,
                           const void *vals, size_t vlen, const void *pcts, size_t plen)
{
    for (size_t k = 0; k < n; k++) {
        if (idx[k] < 0)
            continue;
        double v = nf_sq_unpack(vals, vlen, (size_t)idx[k]);
        if (isnan(v))
            continue; /* no value of this metric in this repetition */
        double pct = nf_sq_unpack(pcts, plen, (size_t)idx[k]);
        struct nf_metric *m = &run->metrics[at[k]];
        int scaled = !isnan(pct);
        nf_metric_push(m, v, scaled ? pct : 100.0);
        /* A stored 100 is kept as such so the round trip is exact
         * (nf_metric_push only makes the array below 100). */
        if (scaled && !m->running_pct) {
            m->running_pct = nf_xmalloc(m->cap * sizeof(double));
            for (size_t i = 0; i < m->n; i++)
                m->running_pct[i] = 100.0;
        }
    }
}

/* The run's samples rows in order of rep: the database's, and among them
 * the rows of a dead writer's journal that this handle holds instead of
 * folding them (sqlite_int.h); of one rep, the database's. */
static int load_sample_rows(struct nf_sqlite *q, sqlite3_stmt *st, struct nf_run *run,
                            const int64_t *idx, const size_t *at, size_t n)
{
    const struct nf_sq_jrow *held;
    size_t nheld = nf_sq_journal_held(q, run->id, &held), h = 0;
    int rc;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rep = sqlite3_column_int64(st, 2);
        for (; h < nheld && held[h].rep <= rep; h++)
            if (held[h].rep < rep)
                add_sample_row(run, idx, at, n, held[h].vals, held[h].vlen, held[h].pcts,
                               held[h].plen);
        add_sample_row(run, idx, at, n, sqlite3_column_blob(st, 0),
                       (size_t)sqlite3_column_bytes(st, 0), sqlite3_column_blob(st, 1),
                       (size_t)sqlite3_column_bytes(st, 1));
    }
    for (; rc == SQLITE_DONE && h < nheld; h++)
        add_sample_row(run, idx, at, n, held[h].vals, held[h].vlen, held[h].pcts, held[h].plen);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Every metric of the runs with its samples: two statements, prepared once
 * and stepped per run. */
int nf_sq_load_values(struct nf_sqlite *q, struct nf_run **runs, size_t n)
{
    sqlite3_stmt *ms = NULL, *ss = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(q->db, metrics_sql, -1, &ms, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(q->db, samples_sql, -1, &ss, NULL) == SQLITE_OK) {
        int64_t idx[NF_RUN_MAX_METRICS];
        size_t at[NF_RUN_MAX_METRICS], nm;
        rc = 0;
        for (size_t ri = 0; ri < n && rc == 0; ri++)
            rc = load_metric_rows(ms, runs[ri], idx, at, &nm) ||
                         load_sample_rows(q, ss, runs[ri], idx, at, nm)
                     ? -1
                     : 0;
    }
    if (rc)
        nf_sq_dberr(q, "cannot read samples");
    sqlite3_finalize(ms);
    sqlite3_finalize(ss);
    return rc;
}

/* The metrics of the runs (ascending ids) with their summaries in place
 * of samples (store.h): one statement for all; a run with a metric that
 * has no summary (one being written, or a dead writer's whose journal is
 * not folded) gets its samples instead. */
static int load_summaries(struct nf_sqlite *q, const struct nf_store_filter *f,
                          struct nf_run **runs, size_t n)
{
    sqlite3_stmt *st;
    if (prepare_filtered(q,
                         "SELECT m.run_id, m.name, m.unit, m.better, m.is_primary, m.supported,"
                         " u.n, u.mean, u.sd, u.rmean, u.rsd, m.not_counted"
                         " FROM metrics m LEFT JOIN summaries u"
                         " ON u.run_id = m.run_id AND u.idx = m.idx"
                         " WHERE m.run_id IN (SELECT r.id FROM runs r",
                         ") ORDER BY m.run_id, m.idx", f, &st))
        return -1;
    unsigned char *whole = nf_xcalloc(n, 1); /* 1: every metric summarised */
    memset(whole, 1, n);
    size_t ri = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        while (ri < n && runs[ri]->id < id)
            ri++;
        if (ri == n || runs[ri]->id != id)
            continue; /* a run stored since its row was read */
        enum nf_better b = NF_BETTER_LOWER;
        const char *better = (const char *)sqlite3_column_text(st, 3);
        if (better)
            nf_better_parse(better, &b);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        struct nf_metric *m =
            nf_run_metric(runs[ri], name ? name : "", (const char *)sqlite3_column_text(st, 2), b,
                          sqlite3_column_int(st, 4));
        if (!m)
            continue;
        m->supported = sqlite3_column_int(st, 5);
        m->not_counted = sqlite3_column_int(st, 11);
        if (sqlite3_column_type(st, 6) == SQLITE_NULL) {
            whole[ri] = 0;
            continue;
        }
        m->summed = 1;
        m->sum.n = (size_t)sqlite3_column_int64(st, 6);
        m->sum.mean = sqlite3_column_double(st, 7);
        m->sum.sd = sqlite3_column_double(st, 8);
        m->sum.recip = sqlite3_column_type(st, 9) != SQLITE_NULL;
        m->sum.rmean = sqlite3_column_double(st, 9);
        m->sum.rsd = sqlite3_column_double(st, 10);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(whole);
        return nf_sq_dberr(q, "cannot read summaries");
    }
    rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (whole[i])
            continue;
        nf_run_clear_metrics(runs[i]);
        rc = nf_sq_load_values(q, &runs[i], 1);
    }
    free(whole);
    return rc;
}

int nf_sq_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                    size_t *n)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    if (nf_sq_journal_flush_all(q)) /* what this handle wrote, read back whole */
        return -1;
    int keys = f && f->summaries;
    if (prepare_filtered(q, keys ? run_cols_keys : run_cols, " ORDER BY r.id", f, &st))
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = nf_xrealloc(*out, cap * sizeof(**out));
        }
        (*out)[(*n)++] = run_from_row(q, st, keys);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot read runs");
        goto fail;
    }
    /* One read transaction for the statements stepped per run: in
     * autocommit each step takes and drops SQLite's locks (four fcntl
     * calls and two fstat a run, most of the time of 100,000 small runs).
     * (A caller's own transaction is left as it is.) */
    int own = *n && sqlite3_get_autocommit(q->db) &&
              sqlite3_exec(q->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    int bad =
        *n && (f && f->summaries ? load_summaries(q, f, *out, *n) : nf_sq_load_values(q, *out, *n));
    if (own)
        sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL);
    if (bad)
        goto fail;
    return 0;
fail:
    nf_runs_free(*out, *n);
    *out = NULL;
    *n = 0;
    return -1;
}
