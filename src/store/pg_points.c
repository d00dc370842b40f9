/* The PostgreSQL backend's point load (store.h, nf_store_load_points), as
 * SQLite's (sqlite_points.c): one statement, the runs with their metrics
 * and summaries joined, onto flat records (store_points.c). */
#include "store/pg_int.h"

#include <stdlib.h>
#include <string.h>

/* An environment's key when it is a string (->> gives any other value as
 * its JSON text, which the loaders of runs leave out). */
#define KEY(k) "CASE WHEN json_typeof(r.env->'" k "') = 'string' THEN r.env->>'" k "' END"

static const char head[] =
    "SELECT r.id, r.label, r.workload, r.args, r.started, r.status,"
    " (" NF_STORE_SUPERSEDED_SQL ")::int,"
    " " KEY("hostname") ", " KEY("commit") ", " KEY(
        "git_describe") ","
                        " m.name, m.unit, m.better, m.is_primary::int, m.supported::int, u.n, "
                        "u.mean, u.sd,"
                        " u.rmean, u.rsd FROM runs r LEFT JOIN metrics m ON m.run_id = r.id"
                        " LEFT JOIN summaries u ON u.run_id = m.run_id AND u.idx = m.idx";

static const char *col(PGresult *r, int row, int c)
{
    return PQgetisnull(r, row, c) ? NULL : PQgetvalue(r, row, c);
}

static double num(PGresult *r, int row, int c)
{
    return PQgetisnull(r, row, c) ? 0 : strtod(PQgetvalue(r, row, c), NULL);
}

int nf_pg_load_points(struct nf_store *s, const struct nf_store_filter *f, struct nf_store_pload *l)
{
    struct nf_pg *g = nf_pgs(s);
    char *where = nf_store_filter_sql(f, 1, 1);
    char *sql = nf_xasprintf("%s%s ORDER BY r.id, m.idx", head, where);
    struct nf_pgp par = {0};
    nf_pg_filter_params(&par, f);
    PGresult *res = nf_pg_query(g, "cannot read runs", sql, &par);
    nf_pgp_free(&par);
    free(where);
    free(sql);
    if (!res)
        return -1;
    for (int i = 0; i < PQntuples(res); i++) {
        struct nf_store_prow r = {
            .id = strtoll(PQgetvalue(res, i, 0), NULL, 10),
            .label = col(res, i, 1),
            .workload = col(res, i, 2),
            .args = col(res, i, 3),
            .started = col(res, i, 4),
            .status = col(res, i, 5),
            .superseded = atoi(PQgetvalue(res, i, 6)) != 0,
            .host = col(res, i, 7),
            .commit = col(res, i, 8),
            .describe = col(res, i, 9),
            .name = col(res, i, 10),
            .unit = col(res, i, 11),
            .better = col(res, i, 12),
            .primary = atoi(PQgetvalue(res, i, 13)) != 0,
            .supported = atoi(PQgetvalue(res, i, 14)) != 0,
            .summed = !PQgetisnull(res, i, 15),
        };
        if (r.summed) {
            r.sum.n = (size_t)strtoll(PQgetvalue(res, i, 15), NULL, 10);
            r.sum.mean = num(res, i, 16);
            r.sum.sd = num(res, i, 17);
            r.sum.recip = !PQgetisnull(res, i, 18);
            r.sum.rmean = num(res, i, 18);
            r.sum.rsd = num(res, i, 19);
        }
        nf_store_point_row(l, &r);
    }
    PQclear(res);
    return 0;
}
