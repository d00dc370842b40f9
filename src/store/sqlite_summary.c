/* The SQLite backend's summaries (schema 8): per run and metric, the count,
 * mean and sd of its values and of their reciprocals (core/run.h,
 * nf_metric_summarise), which `history` reads in place of the samples.
 * A row is written with the run's samples: the run's all at once on
 * import, from what the database holds when a run is finished or a dead
 * writer's journal is folded in, and for every stored run by the
 * migration from schema 7; rm's deletion cascades to them. */
#include "store/sqlite_int.h"

#include <stdlib.h>

#include "core/util.h"

static int put(struct nf_sqlite *q, sqlite3_stmt *st, int64_t run_id, int64_t idx,
               const struct nf_metric_summary *u)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, idx);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)u->n);
    for (int c = 4; c <= 7; c++)
        sqlite3_bind_null(st, c);
    if (u->n) {
        sqlite3_bind_double(st, 4, u->mean);
        sqlite3_bind_double(st, 5, u->sd);
        if (u->recip) {
            sqlite3_bind_double(st, 6, u->rmean);
            sqlite3_bind_double(st, 7, u->rsd);
        }
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : nf_sq_dberr(q, "cannot store summaries");
}

static sqlite3_stmt *put_stmt(struct nf_sqlite *q)
{
    static const char sql[] = "INSERT OR REPLACE INTO summaries (run_id, idx, n, mean, sd, rmean,"
                              " rsd) VALUES (?,?,?,?,?,?,?)";
    sqlite3_stmt *st = nf_sq_cached(q, &q->put_summary, sql);
    if (!st)
        nf_sq_dberr(q, "cannot store summaries");
    return st;
}

int nf_sq_write_summaries(struct nf_sqlite *q, const struct nf_run *run)
{
    sqlite3_stmt *st = put_stmt(q);
    if (!st)
        return -1;
    for (size_t i = 0; i < run->nmetrics; i++) {
        struct nf_metric_summary u;
        nf_metric_summary_of(&run->metrics[i], &u);
        if (put(q, st, run->id, (int64_t)i, &u))
            return -1;
    }
    return 0;
}

/* The summaries of runs[0..n) as the database holds them: their values
 * loaded, and each metric's row under its stored idx. */
static int summarise(struct nf_sqlite *q, struct nf_run **runs, size_t n)
{
    if (nf_sq_load_values(q, runs, n))
        return -1;
    sqlite3_stmt *ix = NULL, *st = put_stmt(q);
    if (!st || sqlite3_prepare_v2(q->db, "SELECT idx FROM metrics WHERE run_id = ? ORDER BY idx",
                                  -1, &ix, NULL) != SQLITE_OK)
        return st ? nf_sq_dberr(q, "cannot store summaries") : -1;
    int rc = 0;
    for (size_t r = 0; r < n && rc == 0; r++) {
        sqlite3_reset(ix);
        sqlite3_bind_int64(ix, 1, runs[r]->id);
        size_t k = 0;
        int step;
        while (rc == 0 && (step = sqlite3_step(ix)) == SQLITE_ROW && k < runs[r]->nmetrics) {
            struct nf_metric_summary u;
            nf_metric_summary_of(&runs[r]->metrics[k++], &u);
            rc = put(q, st, runs[r]->id, sqlite3_column_int64(ix, 0), &u);
        }
        if (rc == 0 && step != SQLITE_ROW && step != SQLITE_DONE)
            rc = nf_sq_dberr(q, "cannot store summaries");
    }
    sqlite3_finalize(ix);
    return rc;
}

int nf_sq_summarise_run(struct nf_sqlite *q, int64_t run_id)
{
    struct nf_run *run = nf_run_new_growing("", "");
    run->id = run_id;
    int rc = summarise(q, &run, 1);
    nf_run_free(run);
    return rc;
}

#define CHUNK 1000

int nf_sq_summarise_all(struct nf_sqlite *q)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, "SELECT id FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, "cannot store summaries");
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap)
            ids = nf_xrealloc(ids, (cap = cap ? 2 * cap : 1024) * sizeof(*ids));
        ids[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(ids);
        return nf_sq_dberr(q, "cannot store summaries");
    }
    struct nf_run *runs[CHUNK];
    rc = 0;
    for (size_t i = 0; i < n && rc == 0; i += CHUNK) {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        for (size_t j = 0; j < k; j++) {
            runs[j] = nf_run_new_growing("", "");
            runs[j]->id = ids[i + j];
        }
        rc = summarise(q, runs, k);
        for (size_t j = 0; j < k; j++)
            nf_run_free(runs[j]);
    }
    free(ids);
    return rc;
}
