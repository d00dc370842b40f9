/* The PostgreSQL backend, reading runs and profiles back.  A load is one
 * statement for the run rows and one per 1,000 runs for their metrics,
 * each metric's samples picked from the repetitions' rows and aggregated
 * by the server into one array (in
 * repetition order), which comes in binary format: a million samples cross
 * as a few arrays of 8-byte doubles, not a million rows of text. */
#include "store/pg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS_PER_STATEMENT 1000

void nf_pg_filter_params(struct nf_pgp *p, const struct nf_store_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nlabels; i++)
        nf_pgp_text(p, f->labels[i]);
    if (f->workload)
        nf_pgp_text(p, f->workload);
    if (f->session)
        nf_pgp_text(p, f->session);
    if (f->id)
        nf_pgp_int(p, f->id);
    if (f->after)
        nf_pgp_int(p, f->after);
}

static PGresult *query_filtered(struct nf_pg *g, const char *head, const char *tail,
                                const struct nf_store_filter *f)
{
    char *where = nf_store_filter_sql(f, 1, 1);
    char *sql = nf_xasprintf("%s%s%s", head, where, tail);
    struct nf_pgp p = {0};
    nf_pg_filter_params(&p, f);
    PGresult *r = nf_pg_query(g, "cannot read runs", sql, &p);
    nf_pgp_free(&p);
    free(where);
    free(sql);
    return r;
}

int nf_pg_find_runs(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids, size_t *n)
{
    PGresult *r = query_filtered(nf_pgs(s), "SELECT r.id FROM runs r", " ORDER BY r.id", f);
    if (!r)
        return -1;
    *n = (size_t)PQntuples(r);
    *ids = *n ? nf_xmalloc(*n * sizeof(int64_t)) : NULL;
    for (size_t i = 0; i < *n; i++)
        (*ids)[i] = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
    PQclear(r);
    return 0;
}

/* Column 13: whether the writer's server session still exists (only other
 * users' backend_start is hidden from us, then the pid alone decides).
 * Column 14: whether a later attempt of the run's job has taken it over.
 * Columns 15-17 (a load of summaries, which history alone asks for): the
 * environment's keys history reads (hostname, and the commit as
 * analysis/history.h takes it), in place of the whole environment. */
#define RUN_COLS                                                                                   \
    "SELECT r.id, r.label, r.workload, r.args, r.started, r.repeat, r.warmup, r.status,"           \
    " r.session, r.note, r.env, r.pid, r.host,"                                                    \
    " r.status = 'running' AND EXISTS (SELECT 1 FROM pg_stat_activity a"                           \
    "  WHERE a.pid = r.conn_pid AND (a.backend_start IS NULL OR a.backend_start = r.conn_start))," \
    " " NF_STORE_SUPERSEDED_SQL
static const char run_cols[] = RUN_COLS " FROM runs r";
static const char run_cols_keys[] =
    RUN_COLS ", r.env->>'hostname', r.env->>'commit', r.env->>'git_describe' FROM runs r";

static const char *col(PGresult *r, int row, int c)
{
    return PQgetisnull(r, row, c) ? NULL : PQgetvalue(r, row, c);
}

/* The environment of columns 15-17: the keys that are strings (->> gives
 * any other value as its JSON text: those are left out). */
static json_t *env_keys(PGresult *r, int row)
{
    static const char *const keys[] = {"hostname", "commit", "git_describe"};
    json_t *env = json_object();
    for (int i = 0; i < 3; i++)
        if (!PQgetisnull(r, row, 15 + i))
            json_object_set_new(env, keys[i], json_string(PQgetvalue(r, row, 15 + i)));
    return env;
}

static struct nf_run *run_from_row(PGresult *r, int row, int keys)
{
    enum nf_run_status state = nf_store_row_status(col(r, row, 7));
    /* A run stored as "running" is incomplete once its writer is gone:
     * its server session ended (the server sees that for any machine), or
     * it ran here and its process is no more. */
    int writing = 0;
    if (state == NF_RUN_RUNNING) {
        const char *pid = col(r, row, 11);
        int session = strcmp(PQgetvalue(r, row, 13), "t") == 0;
        int here = nf_store_writer_state(pid ? atoll(pid) : 0, col(r, row, 12), -1);
        writing = session && here != 0;
        if (!writing)
            state = NF_RUN_INCOMPLETE;
    }
    if (strcmp(PQgetvalue(r, row, 14), "t") == 0)
        state = NF_RUN_SUPERSEDED; /* whatever its writer did or does */
    struct nf_run *run = nf_store_run_from_row(
        strtoll(PQgetvalue(r, row, 0), NULL, 10), col(r, row, 1), col(r, row, 2), col(r, row, 3),
        col(r, row, 4), atoi(PQgetvalue(r, row, 5)), atoi(PQgetvalue(r, row, 6)), state,
        col(r, row, 8), col(r, row, 9), keys ? NULL : col(r, row, 10));
    run->writing = writing;
    if (keys)
        run->env = env_keys(r, row);
    return run;
}

static const double *sort_reps;

static int by_rep(const void *a, const void *b)
{
    double x = sort_reps[*(const long *)a], y = sort_reps[*(const long *)b];
    return x < y ? -1 : x > y;
}

/* The order of n samples by their repetitions: the three arrays of a
 * metric are aggregated from the same rows in the same (unspecified)
 * order, and the repetitions put them in theirs, without a sort on the
 * server (one per array, in PostgreSQL 15). */
static long *rep_order(const double *reps, long n)
{
    long *order = nf_xmalloc((size_t)(n ? n : 1) * sizeof(long));
    int direct = 1; /* reps are 0..n-1, as written: place each at its rep */
    for (long k = 0; k < n; k++)
        order[k] = -1;
    for (long k = 0; k < n && direct; k++) {
        long rep = (long)reps[k];
        if (reps[k] < 0 || rep >= n || (double)rep != reps[k] || order[rep] >= 0)
            direct = 0;
        else
            order[rep] = k;
    }
    if (!direct) {
        for (long k = 0; k < n; k++)
            order[k] = k;
        sort_reps = reps;
        qsort(order, (size_t)n, sizeof(long), by_rep);
    }
    return order;
}

/* The metrics of runs[0..n) (ascending ids), their samples in order.  A
 * metric's element of every repetition of its run comes back, NULL where
 * it has no value (skipped here: a filter on the server would take the
 * element a second time, which cost as much as taking it). */
static int load_metrics(struct nf_pg *g, struct nf_run **runs, size_t n)
{
    static const char sql[] =
        "SELECT m.run_id, m.name, m.unit, m.better, m.is_primary, m.supported, v.vals, v.pcts,"
        " v.reps, m.not_counted FROM metrics m"
        " LEFT JOIN LATERAL (SELECT array_agg(s.vals[m.idx + 1]) AS vals,"
        "  array_agg(s.pcts[m.idx + 1]) AS pcts, array_agg(s.rep) AS reps FROM samples s"
        "  WHERE s.run_id = m.run_id) v ON true"
        " WHERE m.run_id = ANY($1::bigint[]) ORDER BY m.run_id, m.idx";
    struct nf_pgp p = {0};
    nf_pgp_run_ids(&p, runs, n);
    PGresult *r = nf_pg_prepared_bin(g, NF_PG_LOAD_METRICS, "nf_load_metrics",
                                     "cannot read samples", sql, &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    size_t ri = 0;
    int rc = 0;
    for (int row = 0; row < PQntuples(r) && rc == 0; row++) {
        int64_t id = nf_pg_int8(PQgetvalue(r, row, 0)); /* binary results */
        while (ri < n && runs[ri]->id != id)
            ri++;
        if (ri == n)
            break; /* cannot happen: rows come in the order of the ids */
        enum nf_better b = NF_BETTER_LOWER;
        nf_better_parse(PQgetvalue(r, row, 3), &b);
        struct nf_metric *m = nf_run_metric(runs[ri], PQgetvalue(r, row, 1), PQgetvalue(r, row, 2),
                                            b, PQgetvalue(r, row, 4)[0] != 0);
        if (!m)
            continue;
        m->supported = PQgetvalue(r, row, 5)[0] != 0;
        m->not_counted = PQgetvalue(r, row, 9)[0] != 0;
        if (PQgetisnull(r, row, 6))
            continue; /* no samples */
        double *vals, *pcts, *reps;
        unsigned char *vnull, *pnull, *rnull;
        long nv = nf_arr_parse_doubles_bin(PQgetvalue(r, row, 6), (size_t)PQgetlength(r, row, 6),
                                           &vals, &vnull);
        long np = nf_arr_parse_doubles_bin(PQgetvalue(r, row, 7), (size_t)PQgetlength(r, row, 7),
                                           &pcts, &pnull);
        long nr = nf_arr_parse_doubles_bin(PQgetvalue(r, row, 8), (size_t)PQgetlength(r, row, 8),
                                           &reps, &rnull);
        if (nv < 0 || np != nv || nr != nv) {
            rc = nf_store_seterr(
                &g->base, "%s: cannot read samples: malformed array from the server", g->base.name);
        } else {
            long *order = rep_order(reps, nv);
            for (long i = 0; i < nv; i++) {
                long k = order[i];
                if (vnull[k])
                    continue; /* no value of this metric in this repetition */
                nf_metric_push(m, vals[k], pnull[k] ? 100.0 : pcts[k]);
                /* A stored 100 is kept as such so the round trip is exact
                 * (nf_metric_push only makes the array below 100). */
                if (!pnull[k] && !m->running_pct) {
                    m->running_pct = nf_xmalloc(m->cap * sizeof(double));
                    for (size_t j = 0; j < m->n; j++)
                        m->running_pct[j] = 100.0;
                }
            }
            free(order);
        }
        free(vals);
        free(vnull);
        free(pcts);
        free(pnull);
        free(reps);
        free(rnull);
    }
    PQclear(r);
    return rc;
}

int nf_pg_load_values(struct nf_pg *g, struct nf_run **runs, size_t n)
{
    for (size_t i = 0; i < n; i += RUNS_PER_STATEMENT) {
        size_t k = n - i < RUNS_PER_STATEMENT ? n - i : RUNS_PER_STATEMENT;
        if (load_metrics(g, runs + i, k))
            return -1;
    }
    return 0;
}

/* The metrics of runs[0..n) (ascending ids) with their summaries in place
 * of samples (store.h): one statement per 1,000 runs; a run with a metric
 * that has no summary (one being written) gets its samples instead. */
static int load_summaries(struct nf_pg *g, struct nf_run **runs, size_t n)
{
    static const char sql[] =
        "SELECT m.run_id, m.name, m.unit, m.better, m.is_primary::int, m.supported::int, u.n,"
        " u.mean, u.sd, u.rmean, u.rsd, m.not_counted::int FROM metrics m LEFT JOIN summaries u"
        " ON u.run_id = m.run_id AND u.idx = m.idx"
        " WHERE m.run_id = ANY($1::bigint[]) ORDER BY m.run_id, m.idx";
    struct nf_pgp p = {0};
    nf_pgp_run_ids(&p, runs, n);
    PGresult *r = nf_pg_query(g, "cannot read summaries", sql, &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    unsigned char *whole = nf_xmalloc(n ? n : 1); /* 1: every metric summarised */
    memset(whole, 1, n);
    size_t ri = 0;
    for (int row = 0; row < PQntuples(r); row++) {
        int64_t id = strtoll(PQgetvalue(r, row, 0), NULL, 10);
        while (ri < n && runs[ri]->id < id)
            ri++;
        if (ri == n || runs[ri]->id != id)
            continue;
        enum nf_better b = NF_BETTER_LOWER;
        nf_better_parse(PQgetvalue(r, row, 3), &b);
        struct nf_metric *m = nf_run_metric(runs[ri], PQgetvalue(r, row, 1), PQgetvalue(r, row, 2),
                                            b, atoi(PQgetvalue(r, row, 4)) != 0);
        if (!m)
            continue;
        m->supported = atoi(PQgetvalue(r, row, 5)) != 0;
        m->not_counted = atoi(PQgetvalue(r, row, 11)) != 0;
        if (PQgetisnull(r, row, 6)) {
            whole[ri] = 0;
            continue;
        }
        m->summed = 1;
        m->sum.n = (size_t)strtoll(PQgetvalue(r, row, 6), NULL, 10);
        m->sum.mean = PQgetisnull(r, row, 7) ? 0 : strtod(PQgetvalue(r, row, 7), NULL);
        m->sum.sd = PQgetisnull(r, row, 8) ? 0 : strtod(PQgetvalue(r, row, 8), NULL);
        m->sum.recip = !PQgetisnull(r, row, 9);
        m->sum.rmean = m->sum.recip ? strtod(PQgetvalue(r, row, 9), NULL) : 0;
        m->sum.rsd = PQgetisnull(r, row, 10) ? 0 : strtod(PQgetvalue(r, row, 10), NULL);
    }
    PQclear(r);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (whole[i])
            continue;
        nf_run_clear_metrics(runs[i]);
        rc = load_metrics(g, &runs[i], 1);
    }
    free(whole);
    return rc;
}

int nf_pg_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                    size_t *n)
{
    struct nf_pg *g = nf_pgs(s);
    int keys = f && f->summaries;
    PGresult *r = query_filtered(g, keys ? run_cols_keys : run_cols, " ORDER BY r.id", f);
    if (!r)
        return -1;
    *n = (size_t)PQntuples(r);
    *out = *n ? nf_xmalloc(*n * sizeof(**out)) : NULL;
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = run_from_row(r, (int)i, keys);
    PQclear(r);
    for (size_t i = 0; i < *n; i += RUNS_PER_STATEMENT) {
        size_t k = *n - i < RUNS_PER_STATEMENT ? *n - i : RUNS_PER_STATEMENT;
        if (keys ? load_summaries(g, *out + i, k) : load_metrics(g, *out + i, k)) {
            nf_runs_free(*out, *n);
            *out = NULL;
            *n = 0;
            return -1;
        }
    }
    return 0;
}

/* --- profiles ------------------------------------------------------------- */

int nf_pg_add_profile(struct nf_store *s, int64_t run_id, const struct nf_profile *prof)
{
    struct nf_pg *g = nf_pgs(s);
    if (nf_pg_begin(g))
        return -1;
    struct nf_pgp p = {0};
    nf_pgp_int(&p, run_id);
    nf_pgp_text(&p, prof->event ? prof->event : "");
    nf_pgp_int(&p, prof->freq);
    nf_pgp_int(&p, (long long)prof->lost);
    int rc =
        nf_pg_exec(g, "cannot store the profile",
                   "INSERT INTO profiles (run_id, event, freq, lost) VALUES ($1,$2,$3,$4)", &p);
    nf_pgp_free(&p);
    if (rc == 0 && prof->n) {
        struct nf_buf col[4] = {{0}};
        for (int c = 0; c < 4; c++)
            nf_arr_open(&col[c]);
        for (size_t i = 0; i < prof->n; i++) {
            nf_arr_text(&col[0], prof->e[i].symbol);
            nf_arr_text(&col[1], prof->e[i].dso);
            nf_arr_int(&col[2], (long long)prof->e[i].samples);
            nf_arr_int(&col[3], (long long)prof->e[i].period);
        }
        nf_pgp_int(&p, run_id);
        nf_pgp_columns(&p, col, 4);
        rc = nf_pg_exec(g, "cannot store the profile",
                        "INSERT INTO profile_symbols (run_id, symbol, dso, samples, period)"
                        " SELECT $1, t.* FROM unnest($2::text[], $3::text[], $4::bigint[],"
                        " $5::bigint[]) AS t",
                        &p);
        nf_pgp_free(&p);
    }
    size_t nrep = 0;
    for (size_t r = 0; r < prof->nreps; r++)
        nrep += prof->reps[r].n;
    if (rc == 0 && nrep) {
        struct nf_buf col[5] = {{0}};
        for (int c = 0; c < 5; c++)
            nf_arr_open(&col[c]);
        for (size_t r = 0; r < prof->nreps; r++)
            for (size_t i = 0; i < prof->reps[r].n; i++) {
                const struct nf_prof_entry *e = &prof->reps[r].e[i];
                nf_arr_int(&col[0], (long long)r);
                nf_arr_text(&col[1], e->symbol);
                nf_arr_text(&col[2], e->dso);
                nf_arr_int(&col[3], (long long)e->samples);
                nf_arr_int(&col[4], (long long)e->period);
            }
        nf_pgp_int(&p, run_id);
        nf_pgp_columns(&p, col, 5);
        rc = nf_pg_exec(g, "cannot store the profile",
                        "INSERT INTO profile_rep_symbols (run_id, rep, symbol, dso, samples,"
                        " period) SELECT $1, t.* FROM unnest($2::integer[], $3::text[],"
                        " $4::text[], $5::bigint[], $6::bigint[]) AS t",
                        &p);
        nf_pgp_free(&p);
    }
    if (rc || nf_pg_commit(g)) {
        nf_pg_rollback(g);
        return -1;
    }
    return 0;
}

long nf_pg_load_profiles(struct nf_store *s, int64_t run_id, const char *label,
                         struct nf_profile *out)
{
    struct nf_pg *g = nf_pgs(s);
    const char *where = label ? "r.label = $1" : "r.id = $1";
    struct nf_pgp p = {0};
    if (label)
        nf_pgp_text(&p, label);
    else
        nf_pgp_int(&p, run_id);
    char *qh = nf_xasprintf("SELECT p.event, p.freq, p.lost FROM profiles p JOIN runs r"
                            " ON r.id = p.run_id WHERE %s ORDER BY r.id",
                            where);
    char *qs = nf_xasprintf("SELECT ps.symbol, ps.dso, ps.samples, ps.period FROM"
                            " profile_symbols ps JOIN runs r ON r.id = ps.run_id WHERE %s",
                            where);
    char *qr = nf_xasprintf("SELECT rs.run_id, rs.rep, rs.symbol, rs.dso, rs.samples, rs.period"
                            " FROM profile_rep_symbols rs JOIN runs r ON r.id = rs.run_id"
                            " WHERE %s ORDER BY rs.run_id, rs.rep",
                            where);
    long runs = -1;
    PGresult *h = nf_pg_query(g, "cannot read profiles", qh, &p);
    PGresult *y = h ? nf_pg_query(g, "cannot read profiles", qs, &p) : NULL;
    PGresult *z = y ? nf_pg_query(g, "cannot read profiles", qr, &p) : NULL;
    if (h && y && z) {
        for (int i = 0; i < PQntuples(h); i++) {
            nf_profile_add_event(out, PQgetvalue(h, i, 0));
            if (!out->freq)
                out->freq = (unsigned)strtoll(PQgetvalue(h, i, 1), NULL, 10);
            out->lost += (uint64_t)strtoll(PQgetvalue(h, i, 2), NULL, 10);
        }
        for (int i = 0; i < PQntuples(y); i++)
            nf_profile_add(out, PQgetvalue(y, i, 0), PQgetvalue(y, i, 1),
                           (uint64_t)strtoll(PQgetvalue(y, i, 2), NULL, 10),
                           (uint64_t)strtoll(PQgetvalue(y, i, 3), NULL, 10));
        /* each (run, rep) one repetition, in order */
        struct nf_profile *rep = NULL;
        for (int i = 0; i < PQntuples(z); i++) {
            if (!rep || strcmp(PQgetvalue(z, i, 0), PQgetvalue(z, i - 1, 0)) != 0 ||
                strcmp(PQgetvalue(z, i, 1), PQgetvalue(z, i - 1, 1)) != 0)
                rep = nf_profile_add_rep(out);
            nf_profile_add(rep, PQgetvalue(z, i, 2), PQgetvalue(z, i, 3),
                           (uint64_t)strtoll(PQgetvalue(z, i, 4), NULL, 10),
                           (uint64_t)strtoll(PQgetvalue(z, i, 5), NULL, 10));
        }
        runs = PQntuples(h);
    }
    PQclear(h);
    PQclear(y);
    PQclear(z);
    nf_pgp_free(&p);
    free(qh);
    free(qs);
    free(qr);
    return runs;
}
