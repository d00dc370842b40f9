/* The PostgreSQL backend's points cache (store_pcache.c has what it holds
 * and when): schema 10's table points_cache and its triggers, read and
 * written.
 *
 * The cache is written only in a transaction that took, before its
 * snapshot, SHARE locks on the tables a point row reads: every writer of
 * them has committed by then and none starts until this commits, so the
 * rows written are the rows the tables hold, and a writer after it sees
 * the row its trigger must drop.  Such a transaction is begun only when
 * the cache is missing or far behind (store_int.h, NF_PCACHE_REFRESH), and
 * waits at most LOCK_WAIT for the locks (else the load goes on without
 * writing). */
#include "store/pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOCK_WAIT "200ms"

/* Schema 10's step (migrations[9] in pg_open.c). */
const char nf_pg_pcache_schema[] =
    "CREATE TABLE points_cache (\n"
    "  id    integer PRIMARY KEY CHECK (id = 1),\n"
    "  upto  bigint NOT NULL,\n"
    "  nruns bigint NOT NULL,\n"
    "  data  bytea NOT NULL\n"
    ");\n"
    "CREATE FUNCTION points_cache_drop() RETURNS trigger LANGUAGE plpgsql\n"
    "  SECURITY DEFINER SET search_path FROM CURRENT AS $f$\n"
    "DECLARE lim bigint := (SELECT upto FROM points_cache WHERE id = 1);\n"
    "  o bigint; n bigint;\n"
    "BEGIN\n"
    "  IF lim IS NULL THEN RETURN NULL; END IF;\n"
    "  IF TG_OP <> 'INSERT' THEN o := (to_jsonb(OLD) ->> TG_ARGV[0])::bigint; END IF;\n"
    "  IF TG_OP <> 'DELETE' THEN n := (to_jsonb(NEW) ->> TG_ARGV[0])::bigint; END IF;\n"
    "  IF TG_TABLE_NAME = 'jobs' THEN\n"
    "    IF EXISTS (SELECT 1 FROM runs r WHERE r.job IN (o, n) AND r.id <= lim) THEN\n"
    "      DELETE FROM points_cache;\n"
    "    END IF;\n"
    "  ELSIF o <= lim OR n <= lim THEN\n"
    "    DELETE FROM points_cache;\n"
    "  END IF;\n"
    "  RETURN NULL;\n"
    "END $f$;\n"
    "CREATE TRIGGER points_cache_runs AFTER INSERT OR UPDATE OR DELETE ON runs\n"
    "  FOR EACH ROW EXECUTE FUNCTION points_cache_drop('id');\n"
    "CREATE TRIGGER points_cache_metrics AFTER INSERT OR UPDATE OR DELETE ON metrics\n"
    "  FOR EACH ROW EXECUTE FUNCTION points_cache_drop('run_id');\n"
    "CREATE TRIGGER points_cache_summaries AFTER INSERT OR UPDATE OR DELETE ON summaries\n"
    "  FOR EACH ROW EXECUTE FUNCTION points_cache_drop('run_id');\n"
    "CREATE TRIGGER points_cache_jobs AFTER INSERT OR DELETE OR UPDATE OF id, attempt, state\n"
    "  ON jobs FOR EACH ROW EXECUTE FUNCTION points_cache_drop('id');\n";

int nf_pg_pcache_txn(struct nf_store *s, int what)
{
    struct nf_pg *g = nf_pgs(s);
    if (what == 1 || what == 2) {
        g->pc_locked = 0;
        if (what == 1)
            return nf_pg_commit(g);
        nf_pg_rollback(g);
        return 0;
    }
    if (PQtransactionStatus(g->conn) != PQTRANS_IDLE)
        return -1; /* in a transaction of its own: the tables as they are */
    int want = 0;
    if (what == 3) {
        char sql[256];
        snprintf(sql, sizeof(sql),
                 "SELECT NOT EXISTS (SELECT 1 FROM points_cache WHERE id = 1) OR"
                 " (SELECT count(*) FROM runs WHERE id > (SELECT upto FROM points_cache"
                 " WHERE id = 1)) >= %d",
                 NF_PCACHE_REFRESH);
        PGresult *r = nf_pg_query(g, "cannot read the points cache", sql, NULL);
        if (!r)
            return -1;
        want = PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
        PQclear(r);
    }
    if (nf_pg_exec(g, "cannot begin a transaction", "BEGIN ISOLATION LEVEL REPEATABLE READ", NULL))
        return -1;
    if (want &&
        nf_pg_exec(g, "cannot lock runs", "SET LOCAL lock_timeout = '" LOCK_WAIT "'", NULL) == 0 &&
        nf_pg_exec(g, "cannot lock runs", "LOCK TABLE runs, metrics, summaries, jobs IN SHARE MODE",
                   NULL) == 0 &&
        nf_pg_exec(g, "cannot lock runs", "SET LOCAL lock_timeout = 0", NULL) == 0) {
        g->pc_locked = 1;
        return 0;
    }
    if (want) { /* busy: read without writing */
        nf_pg_rollback(g);
        if (nf_pg_exec(g, "cannot begin a transaction", "BEGIN ISOLATION LEVEL REPEATABLE READ",
                       NULL))
            return -1;
    }
    return 0;
}

int nf_pg_pcache_read(struct nf_store *s, int64_t *upto, int64_t *nruns, void **data, size_t *len)
{
    struct nf_pg *g = nf_pgs(s);
    *data = NULL;
    PGresult *r =
        nf_pg_prepared_bin(g, NF_PG_PCACHE_READ, "nf_pcache_read", "cannot read the points cache",
                           "SELECT c.upto, c.nruns, c.data,"
                           " (SELECT count(*) FROM runs r WHERE r.id <= c.upto)"
                           " FROM points_cache c WHERE c.id = 1",
                           NULL);
    if (!r)
        return -1;
    if (PQntuples(r) == 1 && PQgetlength(r, 0, 0) == 8 && PQgetlength(r, 0, 1) == 8 &&
        PQgetlength(r, 0, 3) == 8 && PQgetlength(r, 0, 2) > 0 &&
        nf_pg_int8(PQgetvalue(r, 0, 1)) == nf_pg_int8(PQgetvalue(r, 0, 3))) {
        *upto = nf_pg_int8(PQgetvalue(r, 0, 0));
        *nruns = nf_pg_int8(PQgetvalue(r, 0, 1));
        *len = (size_t)PQgetlength(r, 0, 2);
        *data = nf_xmalloc(*len);
        memcpy(*data, PQgetvalue(r, 0, 2), *len);
    }
    PQclear(r);
    return 0;
}

int nf_pg_pcache_write(struct nf_store *s, int64_t upto, int64_t nruns, const void *data,
                       size_t len)
{
    struct nf_pg *g = nf_pgs(s);
    if (!g->pc_locked)
        return -1; /* not this transaction's to write */
    static const char hex[] = "0123456789abcdef";
    char *h = nf_xmalloc(2 * len + 1);
    const unsigned char *d = data;
    for (size_t i = 0; i < len; i++) {
        h[2 * i] = hex[d[i] >> 4];
        h[2 * i + 1] = hex[d[i] & 15];
    }
    h[2 * len] = 0;
    struct nf_pgp p = {0};
    nf_pgp_int(&p, upto);
    nf_pgp_int(&p, nruns);
    nf_pgp_text(&p, h);
    free(h);
    int rc = nf_pg_exec(g, "cannot write the points cache",
                        "INSERT INTO points_cache (id, upto, nruns, data)"
                        " VALUES (1, $1, $2, decode($3, 'hex')) ON CONFLICT (id) DO UPDATE"
                        " SET upto = EXCLUDED.upto, nruns = EXCLUDED.nruns, data = EXCLUDED.data",
                        &p);
    nf_pgp_free(&p);
    return rc;
}
