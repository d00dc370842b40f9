/* The PostgreSQL backend's latency histograms (schema 6): one row per
 * histogram and repetition of a run, keyed (run_id, name, rep), deleted
 * with their run; buckets is a bytea of the same layout as SQLite's BLOB
 * (store_int.h, nf_store_pack_buckets: per bucket lo then count, uint64
 * little-endian).  They go to the server as hex text (decoded there) and
 * come back in binary format, as they are stored. */
#include "store/pg_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An import's histograms go in statements of about this many bytes of hex. */
#define HEX_PER_STATEMENT (4 << 20)
#define RUNS_PER_STATEMENT 1000

static void arr_hex(struct nf_buf *b, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *hex = nf_xmalloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[p[i] >> 4];
        hex[2 * i + 1] = digits[p[i] & 15];
    }
    hex[2 * n] = 0;
    nf_arr_text(b, hex);
    free(hex);
}

/* One statement: the rows collected in col (name, rep, hex buckets). */
static int flush(struct nf_pg *g, const struct nf_run *run, struct nf_buf col[3])
{
    static const char sql[] =
        "INSERT INTO histograms (run_id, name, rep, buckets)"
        " SELECT $1, t.name, t.rep, decode(t.b, 'hex')"
        " FROM unnest($2::text[], $3::integer[], $4::text[]) AS t (name, rep, b)";
    struct nf_pgp p = {0};
    nf_pgp_int(&p, run->id);
    nf_pgp_columns(&p, col, 3);
    for (int c = 0; c < 3; c++)
        nf_arr_open(&col[c]); /* for the next batch */
    PGresult *r = nf_pg_prepared(g, NF_PG_INSERT_HISTS, "nf_insert_hists",
                                 "cannot store histograms", sql, &p);
    nf_pgp_free(&p);
    PQclear(r);
    return r ? 0 : -1;
}

int nf_pg_insert_hists(struct nf_pg *g, const struct nf_run *run, size_t from, size_t to)
{
    struct nf_buf col[3] = {{0}};
    for (int c = 0; c < 3; c++)
        nf_arr_open(&col[c]);
    size_t rows = 0;
    int rc = 0;
    for (size_t i = 0; i < run->nhists && rc == 0; i++) {
        const struct nf_run_hist *h = &run->hists[i];
        for (size_t k = nf_store_hist_from(h, from); k < h->nreps && h->reps[k].rep < to && rc == 0;
             k++) {
            const struct nf_rep_hist *r = &h->reps[k];
            unsigned char *blob = nf_xmalloc(16 * r->n);
            nf_store_pack_buckets(blob, r);
            nf_arr_text(&col[0], h->name);
            nf_arr_int(&col[1], (long long)r->rep);
            arr_hex(&col[2], blob, 16 * r->n);
            free(blob);
            rows++;
            if (col[2].len >= HEX_PER_STATEMENT) {
                rc = flush(g, run, col);
                rows = 0;
            }
        }
    }
    if (rc == 0 && rows)
        rc = flush(g, run, col);
    for (int c = 0; c < 3; c++)
        free(col[c].s);
    return rc;
}

static int32_t int4(const char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | (unsigned char)p[i];
    return (int32_t)v;
}

/* runs[0..n): their rows in one statement, in the order of the ids (the
 * runs ascend, as the loaders give them; a run out of order is looked up). */
static int load_some(struct nf_pg *g, struct nf_run *const *runs, size_t n)
{
    static const char sql[] = "SELECT run_id, name, rep, buckets FROM histograms"
                              " WHERE run_id = ANY($1::bigint[])"
                              " ORDER BY run_id, name COLLATE \"C\", rep";
    struct nf_pgp p = {0};
    nf_pgp_run_ids(&p, runs, n);
    PGresult *r =
        nf_pg_prepared_bin(g, NF_PG_LOAD_HISTS, "nf_load_hists", "cannot read histograms", sql, &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    size_t ri = 0;
    int rc = 0;
    for (int row = 0; row < PQntuples(r) && rc == 0; row++) {
        int64_t id = nf_pg_int8(PQgetvalue(r, row, 0));
        if (ri == n || runs[ri]->id != id)
            for (ri = 0; ri < n && runs[ri]->id != id; ri++)
                ;
        if (ri == n)
            continue; /* cannot happen: only these ids were asked for */
        rc = nf_store_unpack_hist(
            &g->base, runs[ri], PQgetvalue(r, row, 1), int4(PQgetvalue(r, row, 2)),
            (const unsigned char *)PQgetvalue(r, row, 3), (size_t)PQgetlength(r, row, 3));
    }
    PQclear(r);
    return rc;
}

int nf_pg_load_hists(struct nf_store *s, struct nf_run *const *runs, size_t n)
{
    for (size_t i = 0; i < n; i += RUNS_PER_STATEMENT)
        if (load_some(nf_pgs(s), runs + i, n - i < RUNS_PER_STATEMENT ? n - i : RUNS_PER_STATEMENT))
            return -1;
    return 0;
}
