/* The SQLite backend's point load (store.h, nf_store_load_points): one
 * statement, the runs with their metrics and summaries joined, stepped
 * onto flat records (store_points.c). */
#include "store/sqlite_int.h"

#include <stdlib.h>

#include "core/util.h"

static const char head[] =
    "SELECT r.id, r.label, r.workload, r.args, r.started, r.status, " NF_STORE_SUPERSEDED_SQL ","
    " CASE WHEN json_valid(r.env) THEN json_extract(r.env, '$.hostname') END,"
    " CASE WHEN json_valid(r.env) THEN json_extract(r.env, '$.commit') END,"
    " CASE WHEN json_valid(r.env) THEN json_extract(r.env, '$.git_describe') END,"
    " m.name, m.unit, m.better, m.is_primary, m.supported, u.n, u.mean, u.sd, u.rmean, u.rsd"
    " FROM runs r LEFT JOIN metrics m ON m.run_id = r.id"
    " LEFT JOIN summaries u ON u.run_id = m.run_id AND u.idx = m.idx";

/* Column c as text when it is (an environment's key that is a string). */
static const char *text_of(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, c)
                                                     : NULL;
}

int nf_sq_load_points(struct nf_store *s, const struct nf_store_filter *f, struct nf_store_pload *l)
{
    struct nf_sqlite *q = nf_sq(s);
    if (nf_sq_journal_flush_all(q)) /* what this handle wrote, read back whole */
        return -1;
    char *where = nf_store_filter_sql(f, 0, 1);
    char *sql = nf_xasprintf("%s%s ORDER BY r.id, m.idx", head, where);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(q->db, sql, -1, &st, NULL);
    free(where);
    free(sql);
    if (rc != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read runs");
    nf_sq_filter_bind(st, f);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct nf_store_prow r = {
            .id = sqlite3_column_int64(st, 0),
            .label = (const char *)sqlite3_column_text(st, 1),
            .workload = (const char *)sqlite3_column_text(st, 2),
            .args = (const char *)sqlite3_column_text(st, 3),
            .started = (const char *)sqlite3_column_text(st, 4),
            .status = (const char *)sqlite3_column_text(st, 5),
            .superseded = sqlite3_column_int(st, 6),
            .host = text_of(st, 7),
            .commit = text_of(st, 8),
            .describe = text_of(st, 9),
            .name = (const char *)sqlite3_column_text(st, 10),
            .unit = (const char *)sqlite3_column_text(st, 11),
            .better = (const char *)sqlite3_column_text(st, 12),
            .primary = sqlite3_column_int(st, 13),
            .supported = sqlite3_column_int(st, 14),
            .summed = sqlite3_column_type(st, 15) != SQLITE_NULL,
        };
        if (r.summed) {
            r.sum.n = (size_t)sqlite3_column_int64(st, 15);
            r.sum.mean = sqlite3_column_double(st, 16);
            r.sum.sd = sqlite3_column_double(st, 17);
            r.sum.recip = sqlite3_column_type(st, 18) != SQLITE_NULL;
            r.sum.rmean = sqlite3_column_double(st, 18);
            r.sum.rsd = sqlite3_column_double(st, 19);
        }
        nf_store_point_row(l, &r);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nf_sq_dberr(q, "cannot read runs");
    return 0;
}
