/* The SQLite backend, the job queue (jobs.h).  Every change is one
 * BEGIN IMMEDIATE transaction, which SQLite serialises: two agents of one
 * machine never claim the same job.  Times: ISO 8601 text, and the lease
 * as unix seconds. */
#include "store/sqlite_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOW_ISO "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
#define NOW_UNIX "((julianday('now') - 2440587.5) * 86400.0)"

static const char job_cols[] =
    "SELECT id, grp, tag, words, state, submitted, attempt, host, started, finished,"
    " state = 'running' AND lease_until < " NOW_UNIX ", runs, error, max_attempts, max_time, cancel"
    " FROM jobs";

static struct nf_job *job_from_row(sqlite3_stmt *st)
{
    const char *col[NF_JOB_COLS];
    for (int i = 0; i < NF_JOB_COLS; i++)
        col[i] = (const char *)sqlite3_column_text(st, i);
    return nf_store_job_from_row(col);
}

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *s)
{
    if (s)
        sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, col);
}

int nf_sq_submit(struct nf_store *s, const char *tag, const char *words, int copies,
                 const struct nf_job_limits *lim, int64_t *ids)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *ins = NULL, *grp = NULL;
    if (nf_sq_begin(q))
        return -1;
    if (sqlite3_prepare_v2(q->db,
                           "INSERT INTO jobs (grp, tag, words, state, submitted, max_attempts,"
                           " max_time) VALUES (?, ?, ?, 'queued', " NOW_ISO ", ?, ?)",
                           -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(q->db, "UPDATE jobs SET grp = id WHERE id = ?", -1, &grp, NULL) !=
            SQLITE_OK) {
        nf_sq_dberr(q, "cannot queue the job");
        goto fail;
    }
    for (int i = 0; i < copies; i++) {
        sqlite3_reset(ins);
        if (i)
            sqlite3_bind_int64(ins, 1, ids[0]);
        else
            sqlite3_bind_null(ins, 1);
        bind_text_or_null(ins, 2, tag);
        sqlite3_bind_text(ins, 3, words, -1, SQLITE_STATIC);
        sqlite3_bind_int(ins, 4, lim->max_attempts);
        if (lim->max_time > 0)
            sqlite3_bind_double(ins, 5, lim->max_time);
        else
            sqlite3_bind_null(ins, 5);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            nf_sq_dberr(q, "cannot queue the job");
            goto fail;
        }
        ids[i] = sqlite3_last_insert_rowid(q->db);
    }
    sqlite3_bind_int64(grp, 1, ids[0]);
    if (sqlite3_step(grp) != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot queue the job");
        goto fail;
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(grp);
    if (nf_sq_commit(q)) {
        nf_sq_rollback(q);
        return -1;
    }
    return 0;
fail:
    sqlite3_finalize(ins);
    sqlite3_finalize(grp);
    nf_sq_rollback(q);
    return -1;
}

int nf_sq_claim_job(struct nf_store *s, const char *const *tags, size_t ntags, const char *host,
                    double lease_s, struct nf_job **out)
{
    struct nf_sqlite *q = nf_sq(s);
    /* A claimable job that has had its attempts fails instead. */
    static const char give_up[] =
        "UPDATE jobs SET state = 'failed', error = " NF_JOB_GAVE_UP_SQL ", finished = " NOW_ISO ","
        " pid = NULL, lease_until = NULL, runs = '[]'"
        " WHERE (state = 'queued' OR (state = 'running' AND lease_until < " NOW_UNIX "))"
        " AND " NF_JOB_GIVE_UP_SQL;
    static const char pick[] =
        "SELECT j.id FROM jobs j"
        " WHERE (j.state = 'queued' OR (j.state = 'running' AND j.lease_until < " NOW_UNIX "))"
        " AND (j.tag IS NULL OR j.tag IN (SELECT value FROM json_each(?1)))"
        " AND NOT EXISTS (SELECT 1 FROM jobs c WHERE c.grp = j.grp AND c.id <> j.id"
        "  AND c.host = ?2)"
        " ORDER BY j.id LIMIT 1";
    static const char take[] =
        "UPDATE jobs SET state = 'running', attempt = attempt + 1, host = ?2, pid = ?3,"
        " started = " NOW_ISO ", lease_until = " NOW_UNIX " + ?4, finished = NULL,"
        " runs = NULL, error = NULL WHERE id = ?1";
    json_t *t = json_array();
    for (size_t i = 0; i < ntags; i++)
        json_array_append_new(t, json_string(tags[i]));
    char *tj = json_dumps(t, JSON_COMPACT);
    json_decref(t);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    *out = NULL;
    if (nf_sq_begin(q)) {
        free(tj);
        return -1;
    }
    if (sqlite3_prepare_v2(q->db, give_up, -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_DONE)
        goto dberr;
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(q->db, pick, -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_text(st, 1, tj, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, host, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) { /* none: what give_up failed is kept */
        sqlite3_finalize(st);
        st = NULL;
        rc = nf_sq_commit(q) ? -1 : NF_STORE_NOTFOUND;
        goto out;
    }
    if (step != SQLITE_ROW)
        goto dberr;
    int64_t id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(q->db, take, -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, host, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, getpid());
    sqlite3_bind_double(st, 4, lease_s);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto dberr;
    sqlite3_finalize(st);
    st = NULL;
    char *sql = nf_xasprintf("%s WHERE id = ?", job_cols);
    int prc = sqlite3_prepare_v2(q->db, sql, -1, &st, NULL);
    free(sql);
    if (prc != SQLITE_OK)
        goto dberr;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_ROW)
        goto dberr;
    *out = job_from_row(st);
    sqlite3_finalize(st);
    st = NULL;
    if (nf_sq_commit(q)) {
        nf_job_free(*out);
        *out = NULL;
        goto out;
    }
    rc = 0;
    goto out;
dberr:
    nf_sq_dberr(q, "cannot claim a job");
out:
    sqlite3_finalize(st);
    if (rc != 0 && rc != NF_STORE_NOTFOUND)
        nf_sq_rollback(q);
    free(tj);
    return rc;
}

/* Run an UPDATE of the claim (id, attempt) bound as ?1, ?2, and then
 * state and error as ?3, ?4 when state is given, else the lease as ?3 when
 * the statement has it; NF_STORE_NOTFOUND when no row matched. */
static int update_claim(struct nf_sqlite *q, const char *what, const char *sql, int64_t id,
                        int attempt, double lease_s, const char *state, const char *error)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, what);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, attempt);
    if (state) {
        bind_text_or_null(st, 3, state);
        bind_text_or_null(st, 4, error);
    } else if (sqlite3_bind_parameter_count(st) >= 3) {
        sqlite3_bind_double(st, 3, lease_s);
    }
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nf_sq_dberr(q, what);
    if (sqlite3_changes(q->db) == 0) {
        nf_store_seterr(&q->base, "job %lld is no longer held by attempt %d", (long long)id,
                        attempt);
        return NF_STORE_NOTFOUND;
    }
    return 0;
}

int nf_sq_renew_job(struct nf_store *s, int64_t id, int attempt, double lease_s)
{
    struct nf_sqlite *q = nf_sq(s);
    int rc = update_claim(q, "cannot renew the lease",
                          "UPDATE jobs SET lease_until = " NOW_UNIX " + ?3"
                          " WHERE id = ?1 AND attempt = ?2 AND state = 'running'",
                          id, attempt, lease_s, NULL, NULL);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, "SELECT cancel FROM jobs WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return nf_sq_dberr(q, "cannot renew the lease");
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st), cancel = step == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (step != SQLITE_ROW)
        return nf_sq_dberr(q, "cannot renew the lease");
    return cancel ? NF_STORE_JOB_CANCELLED : 0;
}

int nf_sq_cancel_job(struct nf_store *s, int64_t id, char *was, size_t wlen)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (nf_sq_begin(q))
        return -1;
    if (sqlite3_prepare_v2(q->db,
                           "SELECT state, state = 'running' AND lease_until < " NOW_UNIX
                           " FROM jobs WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        nf_store_seterr(s, "no job %lld", (long long)id);
        rc = NF_STORE_NOTFOUND;
        goto out;
    }
    if (step != SQLITE_ROW)
        goto dberr;
    snprintf(was, wlen, "%s", (const char *)sqlite3_column_text(st, 0));
    int expired = sqlite3_column_int(st, 1);
    sqlite3_finalize(st);
    st = NULL;
    const char *sql;
    if (strcmp(was, "queued") == 0 || (strcmp(was, "running") == 0 && expired))
        sql = "UPDATE jobs SET state = 'failed', error = '" NF_JOB_CANCELLED_WHY "',"
              " finished = " NOW_ISO ", pid = NULL, lease_until = NULL, runs = '[]'"
              " WHERE id = ?";
    else if (strcmp(was, "running") == 0)
        sql = "UPDATE jobs SET cancel = 1 WHERE id = ?";
    else {
        rc = NF_STORE_JOB_CANCELLED;
        goto out;
    }
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
        goto dberr;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto dberr;
    sqlite3_finalize(st);
    st = NULL;
    if (strcmp(was, "running") == 0 && expired)
        snprintf(was, wlen, "running, its lease ran out");
    rc = nf_sq_commit(q) ? -1 : 0;
    goto out;
dberr:
    nf_sq_dberr(q, "cannot cancel the job");
out:
    sqlite3_finalize(st);
    if (rc != 0)
        nf_sq_rollback(q);
    return rc;
}

int nf_sq_end_job(struct nf_store *s, int64_t id, int attempt, const char *state, const char *error)
{
    if (strcmp(state, "queued") == 0)
        return update_claim(nf_sq(s), "cannot give the job back",
                            "UPDATE jobs SET state = 'queued', host = NULL, pid = NULL,"
                            " started = NULL, lease_until = NULL"
                            " WHERE id = ?1 AND attempt = ?2 AND state = 'running'",
                            id, attempt, 0, NULL, NULL);
    return update_claim(nf_sq(s), "cannot finish the job",
                        "UPDATE jobs SET state = ?3, error = ?4, finished = " NOW_ISO ","
                        " pid = NULL, lease_until = NULL,"
                        " runs = (SELECT json_group_array(id) FROM (SELECT id FROM runs"
                        "  WHERE job = ?1 AND job_attempt = ?2 ORDER BY id))"
                        " WHERE id = ?1 AND attempt = ?2 AND state = 'running'",
                        id, attempt, 0, state, error);
}

int nf_sq_list_jobs(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n)
{
    struct nf_sqlite *q = nf_sq(s);
    char *sql = nf_xasprintf("%s WHERE ?1 = 0 OR id = ?1 ORDER BY id", job_cols);
    sqlite3_stmt *st;
    int prc = sqlite3_prepare_v2(q->db, sql, -1, &st, NULL);
    free(sql);
    if (prc != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read jobs");
    sqlite3_bind_int64(st, 1, id);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = nf_xrealloc(*out, cap * sizeof(**out));
        }
        (*out)[(*n)++] = job_from_row(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        nf_jobs_free(*out, *n);
        *out = NULL;
        *n = 0;
        return nf_sq_dberr(q, "cannot read jobs");
    }
    return 0;
}
