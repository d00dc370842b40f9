/* The PostgreSQL backend, kernel-mode bisections in progress (store.h):
 * one row per repository in the table bisections. */
#include "store/pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nf_pg_load_bisection(struct nf_store *s, const char *repo, char **json)
{
    struct nf_pg *g = nf_pgs(s);
    struct nf_pgp p = {0};
    nf_pgp_text(&p, repo);
    PGresult *r = nf_pg_query(g, "cannot read the bisection",
                              "SELECT state FROM bisections WHERE repo = $1", &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    int rc = 0;
    if (PQntuples(r) == 0) {
        nf_store_seterr(s, "no bisection in progress in %s", repo);
        rc = NF_STORE_NOTFOUND;
    } else {
        *json = nf_xstrdup(PQgetvalue(r, 0, 0));
    }
    PQclear(r);
    return rc;
}

/* One statement on repo (and json) that returns the rows it changed: 0,
 * NF_STORE_NOTFOUND when none, -1. */
static int change(struct nf_pg *g, const char *sql, const char *repo, const char *json,
                  const char *what)
{
    struct nf_pgp p = {0};
    nf_pgp_text(&p, repo);
    if (json)
        nf_pgp_text(&p, json);
    PGresult *r = nf_pg_query(g, what, sql, &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    int rc = PQntuples(r) == 0 ? NF_STORE_NOTFOUND : 0;
    PQclear(r);
    return rc;
}

int nf_pg_save_bisection(struct nf_store *s, const char *repo, const char *json, int create)
{
    struct nf_pg *g = nf_pgs(s);
    int rc;
    if (create) {
        rc = change(g,
                    "INSERT INTO bisections (repo, state) VALUES ($1, $2)"
                    " ON CONFLICT (repo) DO NOTHING RETURNING id",
                    repo, json, "cannot store the bisection");
        if (rc == NF_STORE_NOTFOUND) {
            nf_store_seterr(s, "a bisection is in progress in %s", repo);
            rc = NF_STORE_EXISTS;
        }
    } else {
        rc = change(g,
                    "UPDATE bisections SET state = $2, updated = now() WHERE repo = $1"
                    " RETURNING id",
                    repo, json, "cannot store the bisection");
        if (rc == NF_STORE_NOTFOUND)
            nf_store_seterr(s, "no bisection in progress in %s", repo);
    }
    return rc;
}

int nf_pg_delete_bisection(struct nf_store *s, const char *repo)
{
    int rc = change(nf_pgs(s), "DELETE FROM bisections WHERE repo = $1 RETURNING id", repo, NULL,
                    "cannot end the bisection");
    if (rc == NF_STORE_NOTFOUND)
        nf_store_seterr(s, "no bisection in progress in %s", repo);
    return rc;
}
