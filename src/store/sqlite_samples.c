/* The SQLite backend's samples: one row per repetition of a run (schema 5).
 *
 *   samples (run_id, rep, vals BLOB NOT NULL, pcts BLOB)
 *
 * vals holds the repetition's value of the metric with idx i (the metrics
 * table) at bytes 8i to 8i + 7, an IEEE 754 double in little-endian byte
 * order; a NaN there means that metric has no value in this repetition,
 * and the blob ends after the last metric that has one.  pcts holds each
 * value's running percentage (a counter multiplexed by the kernel) the
 * same way, a NaN where the metric keeps none; NULL when no metric of the
 * repetition keeps one.  The store refuses a NaN as a value, so the marker
 * cannot be mistaken for one.
 *
 * Why not one row per value (schema 1 to 4, keyed (run_id, metric_idx,
 * rep)): a repetition's commit then inserted a row into every metric's
 * range of the key, each on a page of its own, and WAL mode writes every
 * page a commit changes: about 8 pages (32 KiB) per repetition of a
 * command.  One row per repetition appends to one page.  Loading stays one
 * pass over the run's rows in key order. */
#include "store/sqlite_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static void put(unsigned char *p, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    for (int k = 0; k < 8; k++)
        p[k] = (unsigned char)(u >> (8 * k));
}

double nf_sq_unpack(const void *blob, size_t len, size_t i)
{
    if (!blob || i >= len / 8)
        return NAN;
    const unsigned char *p = (const unsigned char *)blob + 8 * i;
    uint64_t u = 0;
    for (int k = 7; k >= 0; k--)
        u = u << 8 | p[k];
    double v;
    memcpy(&v, &u, sizeof(v));
    return v;
}

void nf_sq_pack_rep(unsigned char *buf, const struct nf_run *run, size_t rep, size_t *vlen,
                    size_t *plen)
{
    size_t nv, np;
    nf_store_rep_extent(run, rep, &nv, &np);
    unsigned char *p = buf + 8 * nv;
    for (size_t i = 0; i < nv; i++) {
        const struct nf_metric *m = &run->metrics[i];
        int has = rep < m->n;
        put(buf + 8 * i, has ? m->values[rep] : NAN);
        if (i < np)
            put(p + 8 * i, has && m->running_pct ? m->running_pct[rep] : NAN);
    }
    *vlen = 8 * nv;
    *plen = 8 * np;
}

/* nf_pack(idx, value): the aggregate that builds a blob as above from rows
 * of (metric index, value or NULL); NULL when every value was NULL.  The
 * step from schema 4 (one row per value) to 5 uses it. */
struct pack {
    size_t n; /* positions filled so far (NaN where no row said) */
    int any;  /* a value that is not NULL */
    double v[NF_RUN_MAX_METRICS];
};

static void pack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct pack *a = sqlite3_aggregate_context(ctx, sizeof(*a));
    if (!a) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_int64 i = sqlite3_value_int64(argv[0]);
    if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER || i < 0 || i >= NF_RUN_MAX_METRICS) {
        sqlite3_result_error(ctx, "nf_pack: a metric index out of range", -1);
        return;
    }
    for (; a->n <= (size_t)i; a->n++)
        a->v[a->n] = NAN;
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
        a->v[i] = sqlite3_value_double(argv[1]);
        a->any = 1;
    }
}

static void pack_final(sqlite3_context *ctx)
{
    struct pack *a = sqlite3_aggregate_context(ctx, 0);
    if (!a || !a->any) {
        sqlite3_result_null(ctx);
        return;
    }
    size_t n = a->n;
    while (n > 0 && isnan(a->v[n - 1]))
        n--;
    unsigned char buf[8 * NF_RUN_MAX_METRICS];
    for (size_t i = 0; i < n; i++)
        put(buf + 8 * i, a->v[i]);
    sqlite3_result_blob(ctx, buf, (int)(8 * n), SQLITE_TRANSIENT);
}

int nf_sq_add_functions(sqlite3 *db)
{
    return sqlite3_create_function_v2(db, "nf_pack", 2,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
                                      NULL, pack_step, pack_final, NULL) == SQLITE_OK
               ? 0
               : -1;
}
