/* The PostgreSQL backend, writing runs: as they are measured (begin, one
 * transaction per repetition, finish), whole (import), and deleting them. */
#include "store/pg_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An import's samples go in statements of about this many values. */
#define SAMPLES_PER_STATEMENT 20000

/* Insert the run row; id 0 → a new one.  While it runs, the row names the
 * writer: pid and host, and its server session (pid and start), which
 * the loaders look for in pg_stat_activity.  The host stays, and so does
 * the job whose command stored it. */
static int insert_run_row(struct nf_pg *g, struct nf_run *run, int live)
{
    static const char sql[] =
        "INSERT INTO runs (id, label, workload, args, started, repeat, warmup, status,"
        " session, note, env, pid, host, job, job_attempt, conn_pid, conn_start)"
        " VALUES (COALESCE($1::bigint, nextval(pg_get_serial_sequence('runs', 'id'))),"
        " $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
        " CASE WHEN $12::integer IS NULL THEN NULL ELSE pg_backend_pid() END,"
        " CASE WHEN $12::integer IS NULL THEN NULL ELSE (SELECT backend_start"
        " FROM pg_stat_activity WHERE pid = pg_backend_pid()) END)"
        " RETURNING id";
    struct nf_pgp p = {0};
    char *args = nf_store_args_json(run);
    char *env = nf_store_env_json(run);
    if (run->id > 0)
        nf_pgp_int(&p, run->id);
    else
        nf_pgp_text(&p, NULL);
    nf_pgp_text(&p, run->label);
    nf_pgp_text(&p, run->workload);
    nf_pgp_text(&p, args);
    nf_pgp_text(&p, run->started);
    nf_pgp_int(&p, run->repeat);
    nf_pgp_int(&p, run->warmup);
    nf_pgp_text(&p, nf_run_status_name(run->state));
    nf_pgp_text(&p, run->session);
    nf_pgp_text(&p, run->note);
    nf_pgp_text(&p, env);
    if (live) {
        char host[256];
        nf_hostname(host, sizeof(host));
        nf_pgp_int(&p, getpid());
        nf_pgp_text(&p, host);
    } else {
        nf_pgp_text(&p, NULL);
        nf_pgp_text(&p, NULL);
    }
    if (live && g->base.job > 0) {
        nf_pgp_int(&p, g->base.job);
        nf_pgp_int(&p, g->base.job_attempt);
    } else {
        nf_pgp_text(&p, NULL);
        nf_pgp_text(&p, NULL);
    }
    PGresult *r = nf_pg_query(g, "cannot store the run", sql, &p);
    nf_pgp_free(&p);
    free(args);
    free(env);
    if (!r)
        return -1;
    run->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return 0;
}

/* Insert or update every metric row of the run (supported may change once
 * the counters have been opened, not_counted when the run finishes);
 * unless the rows are as last written. */
static int upsert_metrics(struct nf_pg *g, const struct nf_run *run)
{
    static const char sql[] =
        "INSERT INTO metrics (run_id, idx, name, unit, better, is_primary, supported,"
        " not_counted)"
        " SELECT $1, t.* FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[],"
        " $6::boolean[], $7::boolean[], $8::boolean[]) AS t"
        " ON CONFLICT (run_id, idx) DO UPDATE SET"
        " supported = excluded.supported, is_primary = excluded.is_primary,"
        " not_counted = excluded.not_counted";
    if (nf_store_metrics_same(&g->base, run))
        return 0;
    nf_store_metrics_forget(&g->base, run->id);
    struct nf_buf col[7] = {{0}};
    for (int c = 0; c < 7; c++)
        nf_arr_open(&col[c]);
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        nf_arr_int(&col[0], (long long)i);
        nf_arr_text(&col[1], m->name);
        nf_arr_text(&col[2], m->unit ? m->unit : "");
        nf_arr_text(&col[3], nf_better_name(m->better));
        nf_arr_text(&col[4], m->primary ? "t" : "f");
        nf_arr_text(&col[5], m->supported ? "t" : "f");
        nf_arr_text(&col[6], !m->supported && m->not_counted ? "t" : "f");
    }
    struct nf_pgp p = {0};
    nf_pgp_int(&p, run->id);
    nf_pgp_columns(&p, col, 7);
    PGresult *r = nf_pg_prepared(g, NF_PG_UPSERT_METRICS, "nf_upsert_metrics",
                                 "cannot store metrics", sql, &p);
    nf_pgp_free(&p);
    PQclear(r);
    return r ? 0 : -1;
}

/* Repetition r of the run as the array literals of its samples row (both
 * open), its values and, when np, its running percentages: element i is
 * metric idx i's, NULL where it has none. */
static void rep_arrays(const struct nf_run *run, size_t r, size_t nv, size_t np,
                       struct nf_buf *vals, struct nf_buf *pcts)
{
    nf_arr_open(vals);
    nf_arr_open(pcts);
    for (size_t i = 0; i < nv; i++) {
        const struct nf_metric *m = &run->metrics[i];
        if (r < m->n)
            nf_arr_double(vals, m->values[r]);
        else
            nf_arr_null(vals);
        if (i >= np)
            continue;
        if (r < m->n && m->running_pct)
            nf_arr_double(pcts, m->running_pct[r]);
        else
            nf_arr_null(pcts);
    }
    nf_arr_close(vals);
    nf_arr_close(pcts);
}

/* Repetitions [from, to) of the run, a samples row each (those where no
 * metric has a value have none), in statements of at most about
 * SAMPLES_PER_STATEMENT values: the rows go as arrays of array literals. */
static int insert_samples(struct nf_pg *g, const struct nf_run *run, size_t from, size_t to)
{
    static const char sql[] =
        "INSERT INTO samples (run_id, rep, vals, pcts)"
        " SELECT $1, t.rep, t.vals::double precision[],"
        " t.pcts::double precision[]"
        " FROM unnest($2::integer[], $3::text[], $4::text[]) AS t (rep, vals, pcts)";
    size_t r = from;
    while (r < to) {
        struct nf_buf col[3] = {{0}};
        for (int c = 0; c < 3; c++)
            nf_arr_open(&col[c]);
        size_t values = 0, rows = 0;
        for (; r < to && values < SAMPLES_PER_STATEMENT; r++) {
            size_t nv, np;
            nf_store_rep_extent(run, r, &nv, &np);
            if (nv == 0)
                continue;
            struct nf_buf vals = {0}, pcts = {0};
            rep_arrays(run, r, nv, np, &vals, &pcts);
            nf_arr_int(&col[0], (long long)r);
            nf_arr_text(&col[1], vals.s);
            if (np)
                nf_arr_text(&col[2], pcts.s);
            else
                nf_arr_null(&col[2]);
            free(vals.s);
            free(pcts.s);
            values += nv;
            rows++;
        }
        int rc = 0;
        if (rows) {
            struct nf_pgp p = {0};
            nf_pgp_int(&p, run->id);
            for (int c = 0; c < 3; c++) {
                nf_arr_close(&col[c]);
                nf_pgp_text(&p, col[c].s);
            }
            PGresult *res = nf_pg_prepared(g, NF_PG_INSERT_SAMPLES, "nf_insert_samples",
                                           "cannot store samples", sql, &p);
            nf_pgp_free(&p);
            rc = res ? 0 : -1;
            PQclear(res);
        }
        for (int c = 0; c < 3; c++)
            free(col[c].s);
        if (rc)
            return -1;
    }
    return 0;
}

int nf_pg_begin_run(struct nf_store *s, struct nf_run *run)
{
    struct nf_pg *g = nf_pgs(s);
    if (nf_pg_begin(g))
        return -1;
    nf_run_set_state(run, NF_RUN_RUNNING);
    run->id = 0;
    if (insert_run_row(g, run, 1) || upsert_metrics(g, run) || nf_pg_commit(g)) {
        nf_pg_rollback(g);
        run->id = 0;
        return -1;
    }
    nf_store_metrics_written(s, run);
    return 0;
}

int nf_pg_add_rep(struct nf_store *s, const struct nf_run *run, size_t rep)
{
    struct nf_pg *g = nf_pgs(s);
    /* Usually the metric rows stand as they are and the repetition is one
     * statement, a transaction of its own: one round trip.  A latency
     * workload's repetition adds its histogram's row in the same
     * transaction. */
    int hist = nf_store_rep_has_hist(run, rep);
    if (!hist && nf_store_metrics_same(s, run))
        return insert_samples(g, run, rep, rep + 1);
    if (nf_pg_begin(g))
        return -1;
    if (upsert_metrics(g, run) || insert_samples(g, run, rep, rep + 1) ||
        (hist && nf_pg_insert_hists(g, run, rep, rep + 1)) || nf_pg_commit(g)) {
        nf_pg_rollback(g);
        return -1;
    }
    nf_store_metrics_written(s, run);
    return 0;
}

int nf_pg_finish_run(struct nf_store *s, const struct nf_run *run)
{
    struct nf_pg *g = nf_pgs(s);
    struct nf_pgp p = {0};
    nf_pgp_text(&p, nf_run_status_name(run->state));
    nf_pgp_text(&p, run->note);
    nf_pgp_int(&p, run->repeat);
    nf_pgp_int(&p, run->id);
    /* repeat too: ab learns how many rounds it ran only at the end.  The
     * summaries of its samples with the status: a finished run always has
     * them (pg_summary.c). */
    if (nf_pg_begin(g)) {
        nf_pgp_free(&p);
        return -1;
    }
    int rc = nf_pg_exec(g, "cannot finish the run",
                        "UPDATE runs SET status = $1, note = $2, repeat = $3, pid = NULL,"
                        " conn_pid = NULL, conn_start = NULL WHERE id = $4",
                        &p);
    nf_pgp_free(&p);
    /* The metric rows too when a flag changed: run's not_counted is set
     * with its note, at the end (measure/runner.h). */
    if (rc || upsert_metrics(g, run) || nf_pg_summarise_run(g, run->id) || nf_pg_commit(g)) {
        nf_pg_rollback(g);
        return -1;
    }
    nf_store_metrics_written(s, run);
    return 0;
}

/* Whether id is taken; -1 on error. */
static int id_taken(struct nf_pg *g, int64_t id)
{
    struct nf_pgp p = {0};
    nf_pgp_int(&p, id);
    PGresult *r = nf_pg_query(g, "cannot read runs", "SELECT 1 FROM runs WHERE id = $1", &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    int taken = PQntuples(r) > 0;
    PQclear(r);
    return taken;
}

/* After a run kept its own id: new ids continue above it, as SQLite's
 * AUTOINCREMENT does. */
static int bump_sequence(struct nf_pg *g, int64_t id)
{
    struct nf_pgp p = {0};
    nf_pgp_int(&p, id);
    int rc = nf_pg_exec(g, "cannot store the run",
                        "SELECT setval(pg_get_serial_sequence('runs', 'id'), $1)"
                        " FROM runs_id_seq WHERE NOT is_called OR last_value < $1",
                        &p);
    nf_pgp_free(&p);
    return rc;
}

int nf_pg_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n, int renumber,
                      size_t *clashed)
{
    struct nf_pg *g = nf_pgs(s);
    int64_t *old = nf_xcalloc(n ? n : 1, sizeof(int64_t)), first = 0;
    int rc = -1;
    if (nf_pg_begin(g)) {
        free(old);
        return -1;
    }
    /* Writers that begin runs meanwhile wait (their INSERT's lock conflicts
     * with this one), so the ids we check stay free and the sequence is
     * ours to move. */
    if (nf_pg_exec(g, "cannot lock runs", "LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE", NULL))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        struct nf_run *run = runs[i];
        old[i] = run->id;
        int keep = 0;
        if (run->id > 0) {
            int taken = id_taken(g, run->id);
            if (taken < 0)
                goto fail;
            keep = !taken;
            if (taken && ++*clashed == 1)
                first = run->id;
            if (taken && !renumber)
                continue; /* the others are counted, nothing is stored */
        }
        if (!keep)
            run->id = 0;
        if (insert_run_row(g, run, 0) || (keep && bump_sequence(g, run->id)) ||
            upsert_metrics(g, run) || insert_samples(g, run, 0, nf_store_max_reps(run)) ||
            nf_pg_insert_hists(g, run, 0, SIZE_MAX) || nf_pg_write_summaries(g, run))
            goto fail;
    }
    if (*clashed && !renumber) {
        nf_store_seterr(s, "run %lld in %s", (long long)first, s->name);
        rc = NF_STORE_TAKEN;
        goto fail;
    }
    if (nf_pg_commit(g))
        goto fail;
    free(old);
    return 0;
fail:
    nf_pg_rollback(g);
    for (size_t i = 0; i < n; i++)
        runs[i]->id = old[i];
    free(old);
    return rc;
}

int nf_pg_delete_runs(struct nf_store *s, const int64_t *ids, size_t n)
{
    struct nf_pg *g = nf_pgs(s);
    if (nf_pg_begin(g))
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct nf_pgp p = {0};
        nf_pgp_int(&p, ids[i]);
        PGresult *r = nf_pg_query(g, "cannot delete runs", "DELETE FROM runs WHERE id = $1", &p);
        nf_pgp_free(&p);
        if (!r)
            goto fail;
        int none = strcmp(PQcmdTuples(r), "0") == 0;
        PQclear(r);
        if (none) {
            nf_pg_rollback(g);
            nf_store_seterr(s, "no run %lld in %s", (long long)ids[i], s->name);
            return NF_STORE_NOTFOUND;
        }
    }
    if (nf_pg_commit(g))
        goto fail;
    return 0;
fail:
    nf_pg_rollback(g);
    return -1;
}

int nf_pg_not_counted_all(struct nf_pg *g)
{
    PGresult *r = nf_pg_query(g, "cannot upgrade the schema",
                              "SELECT m.run_id, m.idx, m.name, r.note FROM metrics m"
                              " JOIN runs r ON r.id = m.run_id"
                              " WHERE NOT m.supported AND strpos(r.note, '<not counted>') > 0",
                              NULL);
    if (!r)
        return -1;
    struct nf_buf col[2] = {{0}};
    for (int c = 0; c < 2; c++)
        nf_arr_open(&col[c]);
    size_t n = 0;
    for (int row = 0; row < PQntuples(r); row++)
        if (nf_note_not_counted(PQgetvalue(r, row, 3), PQgetvalue(r, row, 2))) {
            nf_arr_int(&col[0], strtoll(PQgetvalue(r, row, 0), NULL, 10));
            nf_arr_int(&col[1], strtoll(PQgetvalue(r, row, 1), NULL, 10));
            n++;
        }
    PQclear(r);
    struct nf_pgp p = {0};
    nf_pgp_columns(&p, col, 2);
    int rc = n ? nf_pg_exec(g, "cannot upgrade the schema",
                            "UPDATE metrics m SET not_counted = true"
                            " FROM unnest($1::bigint[], $2::integer[]) AS t (run_id, idx)"
                            " WHERE m.run_id = t.run_id AND m.idx = t.idx",
                            &p)
               : 0;
    nf_pgp_free(&p);
    return rc;
}
