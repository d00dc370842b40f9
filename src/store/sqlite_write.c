/* The SQLite backend, writing runs: as they are measured (begin, one
 * transaction per repetition, finish), whole (import), and deleting them. */
#include "store/sqlite_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *s)
{
    if (s)
        sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, col);
}

/* Insert the run row; id 0 → a new one.  pid only while running; the host
 * stays (the machine that measured the run), and so does the job whose
 * command stored it. */
static int insert_run_row(struct nf_sqlite *q, struct nf_run *run, int live)
{
    static const char sql[] =
        "INSERT INTO runs (id, label, workload, args, started, repeat, warmup, status,"
        " session, note, env, pid, host, job, job_attempt)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    /* Kept: a prepare per run would compile the statement and the points
     * cache's trigger on runs (sqlite_pcache.c) again each time. */
    sqlite3_stmt *st = nf_sq_cached(q, &q->insert_run, sql);
    if (!st)
        return nf_sq_dberr(q, "cannot store the run");
    sqlite3_clear_bindings(st);
    char *args = nf_store_args_json(run);
    char *env = nf_store_env_json(run);
    if (run->id > 0)
        sqlite3_bind_int64(st, 1, run->id);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_text(st, 2, run->label, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, run->workload, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, args, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, run->started, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 6, run->repeat);
    sqlite3_bind_int(st, 7, run->warmup);
    sqlite3_bind_text(st, 8, nf_run_status_name(run->state), -1, SQLITE_STATIC);
    bind_text_or_null(st, 9, run->session);
    bind_text_or_null(st, 10, run->note);
    bind_text_or_null(st, 11, env);
    if (live) {
        char host[256];
        nf_hostname(host, sizeof(host));
        sqlite3_bind_int64(st, 12, getpid());
        sqlite3_bind_text(st, 13, host, -1, SQLITE_TRANSIENT);
        if (q->base.job > 0) {
            sqlite3_bind_int64(st, 14, q->base.job);
            sqlite3_bind_int(st, 15, q->base.job_attempt);
        }
    }
    int rc = sqlite3_step(st);
    free(args);
    free(env);
    if (rc != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot store the run");
        sqlite3_reset(st);
        return -1;
    }
    sqlite3_reset(st);
    run->id = sqlite3_last_insert_rowid(q->db);
    return 0;
}

/* Insert or update every metric row of the run (supported may change once
 * the counters have been opened, not_counted when the run finishes);
 * unless the rows are as last written. */
static int upsert_metrics(struct nf_sqlite *q, const struct nf_run *run)
{
    static const char sql[] =
        "INSERT INTO metrics (run_id, idx, name, unit, better, is_primary, supported,"
        " not_counted) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (run_id, idx) DO UPDATE SET"
        " supported = excluded.supported, is_primary = excluded.is_primary,"
        " not_counted = excluded.not_counted";
    if (nf_store_metrics_same(&q->base, run))
        return 0;
    nf_store_metrics_forget(&q->base, run->id);
    sqlite3_stmt *st = nf_sq_cached(q, &q->upsert_metrics, sql);
    if (!st)
        return nf_sq_dberr(q, "cannot store metrics");
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        sqlite3_bind_int64(st, 1, run->id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_text(st, 3, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, m->unit, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, nf_better_name(m->better), -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, m->primary != 0);
        sqlite3_bind_int(st, 7, m->supported != 0);
        sqlite3_bind_int(st, 8, !m->supported && m->not_counted);
        if (sqlite3_step(st) != SQLITE_DONE) {
            nf_sq_dberr(q, "cannot store metrics");
            sqlite3_reset(st);
            return -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_clear_bindings(st);
    return 0;
}

/* Repetitions [from, to) of the run, a samples row each (those where
 * no metric has a value have none). */
static int insert_samples(struct nf_sqlite *q, const struct nf_run *run, size_t from, size_t to)
{
    static const char sql[] = "INSERT INTO samples (run_id, rep, vals, pcts) VALUES (?,?,?,?)";
    sqlite3_stmt *st = nf_sq_cached(q, &q->insert_sample, sql);
    if (!st)
        return nf_sq_dberr(q, "cannot store samples");
    int rc = 0;
    for (size_t r = from; r < to && rc == 0; r++) {
        size_t vlen, plen;
        nf_sq_pack_rep(q->row, run, r, &vlen, &plen);
        if (vlen == 0)
            continue;
        sqlite3_bind_int64(st, 1, run->id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)r);
        sqlite3_bind_blob(st, 3, q->row, (int)vlen, SQLITE_STATIC);
        if (plen)
            sqlite3_bind_blob(st, 4, q->row + vlen, (int)plen, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = nf_sq_dberr(q, "cannot store samples");
        sqlite3_reset(st);
    }
    sqlite3_clear_bindings(st); /* q->row is rewritten by the next use */
    return rc;
}

int nf_sq_begin_run(struct nf_store *s, struct nf_run *run)
{
    struct nf_sqlite *q = nf_sq(s);
    if (nf_sq_begin(q))
        return -1;
    nf_run_set_state(run, NF_RUN_RUNNING);
    run->id = 0;
    if (insert_run_row(q, run, 1) || upsert_metrics(q, run)) {
        nf_sq_rollback(q);
        run->id = 0;
        return -1;
    }
    /* The journal, with its lock, before the row is seen: a reader that
     * sees the run running finds its journal and knows by the lock
     * whether the writer lives (sqlite_journal.c).  A reader finding the
     * journal before the row leaves it alone while its lock is held. */
    nf_sq_journal_begin(q, run->id);
    if (nf_sq_commit(q)) {
        nf_sq_rollback(q);
        nf_sq_journal_end(q, run->id); /* nothing in it: removed */
        run->id = 0;
        return -1;
    }
    nf_store_metrics_written(s, run);
    return 0;
}

int nf_sq_add_rep(struct nf_store *s, const struct nf_run *run, size_t rep)
{
    struct nf_sqlite *q = nf_sq(s);
    /* Usually the metric rows stand as they are and the repetition is one
     * row: into the run's journal, or, without one, one INSERT committed
     * on its own (a statement outside a transaction takes the write lock
     * as BEGIN IMMEDIATE does, waiting for other writers under the busy
     * timeout, and commits when it is done).  A latency workload's
     * repetition adds its histogram's row in a transaction of its own,
     * after the journal's rows. */
    int hist = nf_store_rep_has_hist(run, rep);
    if (!hist && nf_store_metrics_same(s, run)) {
        int j = nf_sq_journal_add(q, run, rep);
        return j <= 0 ? j : insert_samples(q, run, rep, rep + 1);
    }
    if (nf_sq_journal_flush(q, run->id) || nf_sq_begin(q))
        return -1;
    if (upsert_metrics(q, run) || insert_samples(q, run, rep, rep + 1) ||
        (hist && nf_sq_insert_hists(q, run, rep, rep + 1)) || nf_sq_commit(q)) {
        nf_sq_rollback(q);
        return -1;
    }
    nf_store_metrics_written(s, run);
    return 0;
}

int nf_sq_finish_run(struct nf_store *s, const struct nf_run *run)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st;
    /* The journal's rows in, then the status, then the journal removed:
     * while the row says running, the journal's lock says the writer
     * lives. */
    if (nf_sq_journal_flush(q, run->id))
        return -1;
    /* The summaries of what the database now holds of the run, with its
     * status: a finished run always has them (sqlite_summary.c). */
    if (nf_sq_begin(q))
        return -1;
    /* repeat too: ab learns how many rounds it ran only at the end. */
    if (sqlite3_prepare_v2(q->db,
                           "UPDATE runs SET status = ?, note = ?, repeat = ?, pid = NULL "
                           "WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        nf_sq_dberr(q, "cannot finish the run");
        nf_sq_rollback(q);
        return -1;
    }
    sqlite3_bind_text(st, 1, nf_run_status_name(run->state), -1, SQLITE_STATIC);
    bind_text_or_null(st, 2, run->note);
    sqlite3_bind_int(st, 3, run->repeat);
    sqlite3_bind_int64(st, 4, run->id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot finish the run");
        nf_sq_rollback(q);
        return -1;
    }
    /* The metric rows too when a flag changed: run's not_counted is set
     * with its note, at the end (measure/runner.h). */
    if (upsert_metrics(q, run) || nf_sq_summarise_run(q, run->id) || nf_sq_commit(q)) {
        nf_sq_rollback(q);
        return -1;
    }
    nf_store_metrics_written(s, run);
    return nf_sq_journal_end(q, run->id);
}

static int id_taken(struct nf_sqlite *q, int64_t id, int *taken)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, "SELECT 1 FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, "cannot read runs");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return nf_sq_dberr(q, "cannot read runs");
    *taken = rc == SQLITE_ROW;
    return 0;
}

int nf_sq_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n, int renumber,
                      size_t *clashed)
{
    struct nf_sqlite *q = nf_sq(s);
    int64_t *old = nf_xcalloc(n ? n : 1, sizeof(int64_t)), first = 0;
    int rc = -1;
    if (nf_sq_begin(q)) {
        free(old);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct nf_run *run = runs[i];
        old[i] = run->id;
        int taken = 0;
        if (run->id > 0 && id_taken(q, run->id, &taken))
            goto fail;
        if (taken && ++*clashed == 1)
            first = run->id;
        if (taken && !renumber)
            continue; /* the others are counted, nothing is stored */
        if (taken)
            run->id = 0;
        if (insert_run_row(q, run, 0) || upsert_metrics(q, run) ||
            insert_samples(q, run, 0, nf_store_max_reps(run)) ||
            nf_sq_insert_hists(q, run, 0, SIZE_MAX) || nf_sq_write_summaries(q, run))
            goto fail;
    }
    if (*clashed && !renumber) {
        nf_store_seterr(s, "run %lld in %s", (long long)first, s->name);
        rc = NF_STORE_TAKEN;
        goto fail;
    }
    if (nf_sq_commit(q))
        goto fail;
    free(old);
    return 0;
fail:
    nf_sq_rollback(q);
    for (size_t i = 0; i < n; i++)
        runs[i]->id = old[i];
    free(old);
    return rc;
}

int nf_sq_delete_runs(struct nf_store *s, const int64_t *ids, size_t n)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *st = NULL;
    if (nf_sq_begin(q))
        return -1;
    if (sqlite3_prepare_v2(q->db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
        nf_sq_dberr(q, "cannot delete runs");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, ids[i]);
        if (sqlite3_step(st) != SQLITE_DONE) {
            nf_sq_dberr(q, "cannot delete runs");
            goto fail;
        }
        if (sqlite3_changes(q->db) == 0) {
            nf_store_seterr(s, "no run %lld in %s", (long long)ids[i], s->name);
            sqlite3_finalize(st);
            nf_sq_rollback(q);
            return NF_STORE_NOTFOUND;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (nf_sq_commit(q))
        goto fail;
    return 0;
fail:
    sqlite3_finalize(st);
    nf_sq_rollback(q);
    return -1;
}

int nf_sq_not_counted_all(struct nf_sqlite *q)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db,
                           "SELECT m.run_id, m.idx, m.name, r.note FROM metrics m"
                           " JOIN runs r ON r.id = m.run_id"
                           " WHERE m.supported = 0 AND instr(r.note, '<not counted>') > 0",
                           -1, &st, NULL) != SQLITE_OK)
        return nf_sq_dberr(q, "cannot upgrade the schema");
    /* Read whole before writing: no update under the scan. */
    int64_t *set = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 2);
        if (!name || !nf_note_not_counted((const char *)sqlite3_column_text(st, 3), name))
            continue;
        if (n + 2 > cap)
            set = nf_xrealloc(set, (cap = 2 * cap + 64) * sizeof(*set));
        set[n++] = sqlite3_column_int64(st, 0);
        set[n++] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE ||
        sqlite3_prepare_v2(q->db, "UPDATE metrics SET not_counted = 1 WHERE run_id = ? AND idx = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        free(set);
        return nf_sq_dberr(q, "cannot upgrade the schema");
    }
    for (size_t i = 0; i < n && rc != -1; i += 2) {
        sqlite3_bind_int64(st, 1, set[i]);
        sqlite3_bind_int64(st, 2, set[i + 1]);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = nf_sq_dberr(q, "cannot upgrade the schema");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    free(set);
    return rc == -1 ? -1 : 0;
}
