/* The SQLite backend, reading runs back.  Loading is two prepared
 * statements however many runs are asked for: the run rows, then each run's
 * metrics with their samples (compare over 1,000,000 samples must stay well
 * under a second). */
#include "store/sqlite_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static void filter_bind(sqlite3_stmt *st, const struct nf_store_filter *f)
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
    filter_bind(*st, f);
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

static const char run_cols[] =
    "SELECT r.id, r.label, r.workload, r.args, r.started, r.repeat, r.warmup, r.status,"
    " r.session, r.note, r.env, r.pid, r.host FROM runs r";

static struct nf_run *run_from_row(sqlite3_stmt *st)
{
    const char *text[13];
    for (int i = 0; i < 13; i++)
        text[i] = (const char *)sqlite3_column_text(st, i);
    enum nf_run_status state = nf_store_row_status(text[7]);
    /* A run stored as "running" whose writer is gone is incomplete: it was
     * killed (or its machine went down) before it could say otherwise.  A
     * writer on another machine cannot be asked: not ours to wait for. */
    if (state == NF_RUN_RUNNING) {
        long long pid =
            sqlite3_column_type(st, 11) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 11);
        if (nf_store_writer_state(pid, text[12]) != 1)
            state = NF_RUN_INCOMPLETE;
    }
    return nf_store_run_from_row(sqlite3_column_int64(st, 0), text[1], text[2], text[3], text[4],
                                 sqlite3_column_int(st, 5), sqlite3_column_int(st, 6), state,
                                 text[8], text[9], text[10]);
}

/* Every metric of the runs with its samples: one statement, prepared once
 * and stepped per run.  Per run, the primary keys of metrics (run_id, idx)
 * and samples (run_id, metric_idx, rep) give the rows in order with no sort
 * (a single join over all runs of a label needs a temporary B-tree for its
 * ORDER BY, which doubled the time over 1,000,000 samples). */
static int load_metrics(struct nf_sqlite *q, struct nf_run **runs, size_t n)
{
    static const char sql[] = "SELECT m.idx, m.name, m.unit, m.better, m.is_primary, m.supported,"
                              " s.value, s.running_pct FROM metrics m"
                              " LEFT JOIN samples s ON s.run_id = m.run_id AND s.metric_idx = m.idx"
                              " WHERE m.run_id = ? ORDER BY m.idx, s.rep";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read samples");
    int rc = SQLITE_DONE;
    for (size_t ri = 0; ri < n && rc == SQLITE_DONE; ri++) {
        struct nf_run *run = runs[ri];
        struct nf_metric *m = NULL;
        int64_t cur_idx = -1;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run->id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t idx = sqlite3_column_int64(st, 0);
            if (idx != cur_idx) {
                enum nf_better b = NF_BETTER_LOWER;
                const char *better = (const char *)sqlite3_column_text(st, 3);
                if (better)
                    nf_better_parse(better, &b);
                const char *name = (const char *)sqlite3_column_text(st, 1);
                const char *unit = (const char *)sqlite3_column_text(st, 2);
                /* Names are unique per run (schema), so this adds one. */
                m = nf_run_metric(run, name ? name : "", unit, b, sqlite3_column_int(st, 4));
                m->supported = sqlite3_column_int(st, 5);
                cur_idx = idx;
            }
            if (sqlite3_column_type(st, 6) == SQLITE_NULL)
                continue;
            int scaled = sqlite3_column_type(st, 7) != SQLITE_NULL;
            nf_metric_push(m, sqlite3_column_double(st, 6),
                           scaled ? sqlite3_column_double(st, 7) : 100.0);
            /* A stored 100 is kept as such so the round trip is exact
             * (nf_metric_push only makes the array below 100). */
            if (scaled && !m->running_pct) {
                m->running_pct = nf_xmalloc(m->cap * sizeof(double));
                for (size_t i = 0; i < m->n; i++)
                    m->running_pct[i] = 100.0;
            }
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nf_sq_dberr(q, "cannot read samples");
    return 0;
}

int nf_sq_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                    size_t *n)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    if (prepare_filtered(q, run_cols, " ORDER BY r.id", f, &st))
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = nf_xrealloc(*out, cap * sizeof(**out));
        }
        (*out)[(*n)++] = run_from_row(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot read runs");
        goto fail;
    }
    if (*n && load_metrics(q, *out, *n))
        goto fail;
    return 0;
fail:
    nf_runs_free(*out, *n);
    *out = NULL;
    *n = 0;
    return -1;
}
