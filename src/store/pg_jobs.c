/* The PostgreSQL backend, the job queue (jobs.h).  Agents on many machines
 * claim jobs at once: the claim takes the oldest claimable row with
 * SELECT ... FOR UPDATE SKIP LOCKED, so each agent gets a different job and
 * none waits for another.  Leases run on the server's clock. */
#include "store/pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ISO(x) "to_char(" x " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
#define JOB_COLS                                                                                   \
    "id, grp, tag, words, state, " ISO("submitted") ", attempt, host, " ISO("started") ", " ISO(   \
        "finished") ", state = 'running' AND lease_until < now(), runs, error, max_attempts,"      \
                    " max_time, cancel"

static struct nf_job *job_from_row(PGresult *r, int row)
{
    const char *col[NF_JOB_COLS];
    for (int i = 0; i < NF_JOB_COLS; i++)
        col[i] = PQgetisnull(r, row, i) ? NULL : PQgetvalue(r, row, i);
    return nf_store_job_from_row(col);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int nf_pg_submit(struct nf_store *s, const char *tag, const char *words, int copies,
                 const struct nf_job_limits *lim, int64_t *ids)
{
    struct nf_pg *g = nf_pgs(s);
    if (nf_pg_begin(g))
        return -1;
    struct nf_pgp p = {0};
    nf_pgp_text(&p, tag);
    nf_pgp_text(&p, words);
    nf_pgp_int(&p, copies);
    nf_pgp_int(&p, lim->max_attempts);
    char mt[40];
    snprintf(mt, sizeof(mt), "%.17g", lim->max_time);
    nf_pgp_text(&p, lim->max_time > 0 ? mt : NULL);
    PGresult *r = nf_pg_query(g, "cannot queue the job",
                              "INSERT INTO jobs (tag, words, state, max_attempts, max_time)"
                              " SELECT $1, $2, 'queued', $4::integer, $5::double precision"
                              " FROM generate_series(1, $3::integer) RETURNING id",
                              &p);
    nf_pgp_free(&p);
    if (!r || PQntuples(r) != copies) {
        PQclear(r);
        nf_pg_rollback(g);
        return -1;
    }
    for (int i = 0; i < copies; i++)
        ids[i] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
    PQclear(r);
    qsort(ids, (size_t)copies, sizeof(*ids), cmp_id);
    struct nf_buf all = {0};
    nf_arr_open(&all);
    for (int i = 0; i < copies; i++)
        nf_arr_int(&all, ids[i]);
    nf_arr_close(&all);
    nf_pgp_int(&p, ids[0]);
    nf_pgp_text(&p, all.s);
    free(all.s);
    int rc = nf_pg_exec(g, "cannot queue the job",
                        "UPDATE jobs SET grp = $1 WHERE id = ANY($2::bigint[])", &p);
    nf_pgp_free(&p);
    if (rc || nf_pg_commit(g)) {
        nf_pg_rollback(g);
        return -1;
    }
    return 0;
}

int nf_pg_claim_job(struct nf_store *s, const char *const *tags, size_t ntags, const char *host,
                    double lease_s, struct nf_job **out)
{
    struct nf_pg *g = nf_pgs(s);
    *out = NULL;
    struct nf_buf t = {0};
    nf_arr_open(&t);
    for (size_t i = 0; i < ntags; i++)
        nf_arr_text(&t, tags[i]);
    nf_arr_close(&t);
    if (nf_pg_begin(g)) {
        free(t.s);
        return -1;
    }
    /* The agents of one host claim one at a time, so that two of them do
     * not take two copies of one group (the check below sees only what is
     * committed). */
    struct nf_pgp p = {0};
    nf_pgp_text(&p, host);
    char *lock = nf_xasprintf("SELECT pg_advisory_xact_lock(%d, hashtext($1))", NF_APPLICATION_ID);
    int rc = nf_pg_exec(g, "cannot claim a job", lock, &p);
    free(lock);
    nf_pgp_free(&p);
    /* A claimable job that has had its attempts fails instead. */
    if (rc == 0)
        rc = nf_pg_exec(g, "cannot claim a job",
                        "UPDATE jobs SET state = 'failed', error = " NF_JOB_GAVE_UP_SQL ","
                        " finished = now(), pid = NULL, lease_until = NULL, runs = '[]'"
                        " WHERE (state = 'queued' OR (state = 'running' AND lease_until < now()))"
                        " AND " NF_JOB_GIVE_UP_SQL,
                        NULL);
    PGresult *r = NULL;
    if (rc == 0) {
        char lease[32];
        snprintf(lease, sizeof(lease), "%.3f", lease_s);
        nf_pgp_text(&p, host);
        nf_pgp_int(&p, getpid());
        nf_pgp_text(&p, lease);
        nf_pgp_text(&p, t.s);
        r = nf_pg_query(
            g, "cannot claim a job",
            "UPDATE jobs SET state = 'running', attempt = attempt + 1, host = $1, pid = $2,"
            " started = now(), lease_until = now() + make_interval(secs => $3::double precision),"
            " finished = NULL, runs = NULL, error = NULL"
            " WHERE id = (SELECT j.id FROM jobs j"
            "  WHERE (j.state = 'queued' OR (j.state = 'running' AND j.lease_until < now()))"
            "  AND (j.tag IS NULL OR j.tag = ANY($4::text[]))"
            "  AND NOT EXISTS (SELECT 1 FROM jobs c WHERE c.grp = j.grp AND c.id <> j.id"
            "   AND c.host = $1)"
            "  ORDER BY j.id LIMIT 1 FOR UPDATE SKIP LOCKED)"
            " RETURNING " JOB_COLS,
            &p);
        nf_pgp_free(&p);
        rc = r ? 0 : -1;
    }
    free(t.s);
    if (rc == 0 && PQntuples(r) == 0) { /* none: what the give-up failed is kept */
        PQclear(r);
        if (nf_pg_commit(g)) {
            nf_pg_rollback(g);
            return -1;
        }
        return NF_STORE_NOTFOUND;
    }
    if (rc == 0)
        *out = job_from_row(r, 0);
    PQclear(r);
    if (rc || nf_pg_commit(g)) {
        nf_pg_rollback(g);
        nf_job_free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* Run an UPDATE of the claim (id, attempt) as $1, $2 and more params;
 * NF_STORE_NOTFOUND when no row matched. */
static int update_claim(struct nf_pg *g, const char *what, const char *sql, struct nf_pgp *p,
                        int64_t id, int attempt)
{
    PGresult *r = nf_pg_query(g, what, sql, p);
    nf_pgp_free(p);
    if (!r)
        return -1;
    int none = strcmp(PQcmdTuples(r), "0") == 0;
    PQclear(r);
    if (none) {
        nf_store_seterr(&g->base, "job %lld is no longer held by attempt %d", (long long)id,
                        attempt);
        return NF_STORE_NOTFOUND;
    }
    return 0;
}

static void claim_params(struct nf_pgp *p, int64_t id, int attempt)
{
    nf_pgp_int(p, id);
    nf_pgp_int(p, attempt);
}

int nf_pg_renew_job(struct nf_store *s, int64_t id, int attempt, double lease_s)
{
    struct nf_pgp p = {0};
    char lease[32];
    snprintf(lease, sizeof(lease), "%.3f", lease_s);
    claim_params(&p, id, attempt);
    nf_pgp_text(&p, lease);
    PGresult *r = nf_pg_query(nf_pgs(s), "cannot renew the lease",
                              "UPDATE jobs SET lease_until = now()"
                              " + make_interval(secs => $3::double precision)"
                              " WHERE id = $1 AND attempt = $2 AND state = 'running'"
                              " RETURNING cancel",
                              &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    int n = PQntuples(r), cancel = n && strcmp(PQgetvalue(r, 0, 0), "0") != 0;
    PQclear(r);
    if (n == 0) {
        nf_store_seterr(s, "job %lld is no longer held by attempt %d", (long long)id, attempt);
        return NF_STORE_NOTFOUND;
    }
    return cancel ? NF_STORE_JOB_CANCELLED : 0;
}

int nf_pg_cancel_job(struct nf_store *s, int64_t id, char *was, size_t wlen)
{
    struct nf_pg *g = nf_pgs(s);
    struct nf_pgp p = {0};
    nf_pgp_int(&p, id);
    if (nf_pg_begin(g)) {
        nf_pgp_free(&p);
        return -1;
    }
    PGresult *r = nf_pg_query(g, "cannot cancel the job",
                              "SELECT state, state = 'running' AND lease_until < now() FROM jobs"
                              " WHERE id = $1 FOR UPDATE",
                              &p);
    int rc = r ? 0 : -1;
    if (r && PQntuples(r) == 0) {
        nf_store_seterr(s, "no job %lld", (long long)id);
        rc = NF_STORE_NOTFOUND;
    }
    int expired = 0;
    if (rc == 0) {
        snprintf(was, wlen, "%s", PQgetvalue(r, 0, 0));
        expired = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
    }
    PQclear(r);
    const char *sql = NULL;
    if (rc == 0 && (strcmp(was, "queued") == 0 || (strcmp(was, "running") == 0 && expired)))
        sql = "UPDATE jobs SET state = 'failed', error = '" NF_JOB_CANCELLED_WHY "',"
              " finished = now(), pid = NULL, lease_until = NULL, runs = '[]' WHERE id = $1";
    else if (rc == 0 && strcmp(was, "running") == 0)
        sql = "UPDATE jobs SET cancel = 1 WHERE id = $1";
    else if (rc == 0)
        rc = NF_STORE_JOB_CANCELLED;
    if (sql)
        rc = nf_pg_exec(g, "cannot cancel the job", sql, &p);
    nf_pgp_free(&p);
    if (rc == 0 && nf_pg_commit(g) == 0) {
        if (strcmp(was, "running") == 0 && expired)
            snprintf(was, wlen, "running, its lease ran out");
        return 0;
    }
    nf_pg_rollback(g);
    return rc ? rc : -1;
}

int nf_pg_end_job(struct nf_store *s, int64_t id, int attempt, const char *state, const char *error)
{
    struct nf_pgp p = {0};
    claim_params(&p, id, attempt);
    if (strcmp(state, "queued") == 0)
        return update_claim(nf_pgs(s), "cannot give the job back",
                            "UPDATE jobs SET state = 'queued', host = NULL, pid = NULL,"
                            " started = NULL, lease_until = NULL"
                            " WHERE id = $1 AND attempt = $2 AND state = 'running'",
                            &p, id, attempt);
    nf_pgp_text(&p, state);
    nf_pgp_text(&p, error);
    return update_claim(nf_pgs(s), "cannot finish the job",
                        "UPDATE jobs SET state = $3, error = $4, finished = now(), pid = NULL,"
                        " lease_until = NULL, runs = (SELECT coalesce(json_agg(r.id ORDER BY"
                        "  r.id), '[]'::json) FROM runs r WHERE r.job = $1"
                        "  AND r.job_attempt = $2)"
                        " WHERE id = $1 AND attempt = $2 AND state = 'running'",
                        &p, id, attempt);
}

int nf_pg_list_jobs(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n)
{
    struct nf_pgp p = {0};
    nf_pgp_int(&p, id);
    PGresult *r =
        nf_pg_query(nf_pgs(s), "cannot read jobs",
                    "SELECT " JOB_COLS " FROM jobs WHERE $1 = 0 OR id = $1 ORDER BY id", &p);
    nf_pgp_free(&p);
    if (!r)
        return -1;
    *n = (size_t)PQntuples(r);
    *out = *n ? nf_xmalloc(*n * sizeof(**out)) : NULL;
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = job_from_row(r, (int)i);
    PQclear(r);
    return 0;
}
