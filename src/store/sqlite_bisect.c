/* The SQLite backend, kernel-mode bisections in progress (store.h): one
 * row per repository in the table bisections, each change one
 * transaction. */
#include "store/sqlite_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW_ISO "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

int nf_sq_load_bisection(struct nf_store *s, const char *repo, char **json)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, "SELECT state FROM bisections WHERE repo = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return nf_sq_dberr(q, "cannot read the bisection");
    sqlite3_bind_text(st, 1, repo, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        *json = nf_xstrdup(t ? t : "");
        rc = 0;
    } else if (rc == SQLITE_DONE) {
        nf_store_seterr(s, "no bisection in progress in %s", repo);
        rc = NF_STORE_NOTFOUND;
    } else {
        rc = nf_sq_dberr(q, "cannot read the bisection");
    }
    sqlite3_finalize(st);
    return rc;
}

/* One statement on repo (and json), in its own transaction: 0, or
 * NF_STORE_NOTFOUND when it changed no row. */
static int change(struct nf_sqlite *q, const char *sql, const char *repo, const char *json,
                  const char *what)
{
    sqlite3_stmt *st;
    if (nf_sq_begin(q))
        return -1;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK) {
        nf_sq_dberr(q, what);
        nf_sq_rollback(q);
        return -1;
    }
    sqlite3_bind_text(st, 1, repo, -1, SQLITE_STATIC);
    if (json)
        sqlite3_bind_text(st, 2, json, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc)
        nf_sq_dberr(q, what);
    else if (sqlite3_changes(q->db) == 0)
        rc = NF_STORE_NOTFOUND;
    sqlite3_finalize(st);
    if (rc == 0 && nf_sq_commit(q) == 0)
        return 0;
    nf_sq_rollback(q);
    return rc ? rc : -1;
}

int nf_sq_save_bisection(struct nf_store *s, const char *repo, const char *json, int create)
{
    struct nf_sqlite *q = nf_sq(s);
    int rc;
    if (create) {
        rc = change(q,
                    "INSERT INTO bisections (repo, state, created, updated) SELECT ?1, ?2, " NOW_ISO
                    ", " NOW_ISO " WHERE NOT EXISTS (SELECT 1 FROM bisections WHERE repo = ?1)",
                    repo, json, "cannot store the bisection");
        if (rc == NF_STORE_NOTFOUND) {
            nf_store_seterr(s, "a bisection is in progress in %s", repo);
            rc = NF_STORE_EXISTS;
        }
    } else {
        rc = change(q, "UPDATE bisections SET state = ?2, updated = " NOW_ISO " WHERE repo = ?1",
                    repo, json, "cannot store the bisection");
        if (rc == NF_STORE_NOTFOUND)
            nf_store_seterr(s, "no bisection in progress in %s", repo);
    }
    return rc;
}

int nf_sq_delete_bisection(struct nf_store *s, const char *repo)
{
    int rc = change(nf_sq(s), "DELETE FROM bisections WHERE repo = ?1", repo, NULL,
                    "cannot end the bisection");
    if (rc == NF_STORE_NOTFOUND)
        nf_store_seterr(s, "no bisection in progress in %s", repo);
    return rc;
}
