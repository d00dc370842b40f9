/* The PostgreSQL backend's summaries (schema 8), as SQLite's
 * (sqlite_summary.c): per run and metric the count, mean and sd of its
 * values and of their reciprocals (core/run.h, nf_metric_summarise),
 * which `history` reads in place of the samples; written on import, when
 * a run is finished, and for every stored run by the migration from 7. */
#include "store/pg_int.h"

#include <stdlib.h>

#include "core/util.h"

/* The rows of runs[0..n) in one statement. */
static int write_many(struct nf_pg *g, const struct nf_run *const *runs, size_t n)
{
    struct nf_buf col[7] = {{0}};
    for (int c = 0; c < 7; c++)
        nf_arr_open(&col[c]);
    size_t rows = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r]->nmetrics; i++, rows++) {
            struct nf_metric_summary u;
            nf_metric_summary_of(&runs[r]->metrics[i], &u);
            nf_arr_int(&col[0], (long long)runs[r]->id);
            nf_arr_int(&col[1], (long long)i); /* idx: the metrics' order (pg_write.c) */
            nf_arr_int(&col[2], (long long)u.n);
            if (u.n) {
                nf_arr_double(&col[3], u.mean);
                nf_arr_double(&col[4], u.sd);
            } else {
                nf_arr_null(&col[3]);
                nf_arr_null(&col[4]);
            }
            if (u.n && u.recip) {
                nf_arr_double(&col[5], u.rmean);
                nf_arr_double(&col[6], u.rsd);
            } else {
                nf_arr_null(&col[5]);
                nf_arr_null(&col[6]);
            }
        }
    struct nf_pgp p = {0};
    nf_pgp_columns(&p, col, 7);
    int rc = rows ? nf_pg_exec(g, "cannot store summaries",
                               "INSERT INTO summaries (run_id, idx, n, mean, sd, rmean, rsd)"
                               " SELECT * FROM unnest($1::bigint[], $2::integer[], $3::bigint[],"
                               " $4::double precision[], $5::double precision[],"
                               " $6::double precision[], $7::double precision[])"
                               " ON CONFLICT (run_id, idx) DO UPDATE SET n = excluded.n,"
                               " mean = excluded.mean, sd = excluded.sd, rmean = excluded.rmean,"
                               " rsd = excluded.rsd",
                               &p)
                  : 0;
    nf_pgp_free(&p);
    return rc;
}

int nf_pg_write_summaries(struct nf_pg *g, const struct nf_run *run)
{
    return write_many(g, &run, 1);
}

/* The summaries of runs[0..n) from the values the database holds. */
static int summarise(struct nf_pg *g, struct nf_run **runs, size_t n)
{
    if (nf_pg_load_values(g, runs, n))
        return -1;
    return write_many(g, (const struct nf_run *const *)runs, n);
}

int nf_pg_summarise_run(struct nf_pg *g, int64_t run_id)
{
    struct nf_run *run = nf_run_new_growing("", "");
    run->id = run_id;
    int rc = summarise(g, &run, 1);
    nf_run_free(run);
    return rc;
}

#define CHUNK 1000

int nf_pg_summarise_all(struct nf_pg *g)
{
    PGresult *r = nf_pg_query(g, "cannot store summaries", "SELECT id FROM runs ORDER BY id", NULL);
    if (!r)
        return -1;
    size_t n = (size_t)PQntuples(r);
    int rc = 0;
    struct nf_run *runs[CHUNK];
    for (size_t i = 0; i < n && rc == 0; i += CHUNK) {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        for (size_t j = 0; j < k; j++) {
            runs[j] = nf_run_new_growing("", "");
            runs[j]->id = strtoll(PQgetvalue(r, (int)(i + j), 0), NULL, 10);
        }
        rc = summarise(g, runs, k);
        for (size_t j = 0; j < k; j++)
            nf_run_free(runs[j]);
    }
    PQclear(r);
    return rc;
}
