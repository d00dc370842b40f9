/* The SQLite backend's latency histograms (schema 6): one row per
 * histogram and repetition of a run,
 *
 *   histograms (run_id, name, rep, buckets BLOB NOT NULL)
 *
 * keyed (run_id, name, rep), deleted with their run.  buckets holds the
 * repetition's non-zero buckets ascending, 16 bytes each (store_int.h,
 * nf_store_pack_buckets): a wakeup repetition's few hundred buckets are a
 * few KiB in one row rather than a row per bucket.  A repetition's rows are
 * written in the commit of its samples row (sqlite_write.c); they are read
 * only on request (nf_store_load_hists), in key order, so without a sort. */
#include "store/sqlite_int.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/util.h"

int nf_sq_insert_hists(struct nf_sqlite *q, const struct nf_run *run, size_t from, size_t to)
{
    static const char sql[] =
        "INSERT INTO histograms (run_id, name, rep, buckets) VALUES (?,?,?,?)";
    sqlite3_stmt *st = nf_sq_cached(q, &q->insert_hist, sql);
    if (!st)
        return nf_sq_dberr(q, "cannot store histograms");
    int rc = 0;
    for (size_t i = 0; i < run->nhists && rc == 0; i++) {
        const struct nf_run_hist *h = &run->hists[i];
        for (size_t k = nf_store_hist_from(h, from); k < h->nreps && h->reps[k].rep < to && rc == 0;
             k++) {
            const struct nf_rep_hist *r = &h->reps[k];
            unsigned char *blob = nf_xmalloc(16 * r->n);
            nf_store_pack_buckets(blob, r);
            sqlite3_bind_int64(st, 1, run->id);
            sqlite3_bind_text(st, 2, h->name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 3, (sqlite3_int64)r->rep);
            sqlite3_bind_blob(st, 4, blob, (int)(16 * r->n), SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = nf_sq_dberr(q, "cannot store histograms");
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            free(blob);
        }
    }
    return rc;
}

int nf_sq_load_hists(struct nf_store *s, struct nf_run *const *runs, size_t n)
{
    static const char sql[] = "SELECT name, rep, buckets FROM histograms WHERE run_id = ?"
                              " ORDER BY name, rep";
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read histograms");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int step;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, runs[i]->id);
        while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            const void *blob = sqlite3_column_blob(st, 2);
            size_t len = (size_t)sqlite3_column_bytes(st, 2);
            rc = nf_store_unpack_hist(s, runs[i], name ? name : "", sqlite3_column_int64(st, 1),
                                      blob, len);
        }
        if (rc == 0 && step != SQLITE_DONE)
            rc = nf_sq_dberr(q, "cannot read histograms");
    }
    sqlite3_finalize(st);
    return rc;
}
