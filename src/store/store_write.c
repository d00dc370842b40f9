/* Writing runs: as they are measured (begin, one transaction per
 * repetition, finish), whole (import), and deleting them. */
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "store/import.h"

static int text_ok(const char *s)
{
    return !s || nf_utf8_valid(s, strlen(s), NULL);
}

/* Everything stored as text is UTF-8, so that every export is valid JSON. */
static int check_text(struct nf_store *s, const struct nf_run *run)
{
    const char *what = NULL;
    if (!text_ok(run->label))
        what = "the label";
    else if (!text_ok(run->workload))
        what = "the workload name";
    else if (!text_ok(run->note) || !text_ok(run->session))
        what = "the note or session";
    for (size_t i = 0; !what && i < run->nargs; i++)
        if (!text_ok(run->args[i]))
            what = "an argument";
    for (size_t i = 0; !what && i < run->nmetrics; i++)
        if (!text_ok(run->metrics[i].name) || !text_ok(run->metrics[i].unit))
            what = "a metric name or unit";
    if (what)
        return nf_store_seterr(s, "%s is not UTF-8 text; not stored", what);
    return 0;
}

static char *args_json(const struct nf_run *run)
{
    json_t *a = json_array();
    for (size_t i = 0; i < run->nargs; i++)
        json_array_append_new(a, json_string(run->args[i]));
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return s;
}

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *s)
{
    if (s)
        sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, col);
}

/* Insert the run row; id 0 → a new one.  pid/host only while running. */
static int insert_run_row(struct nf_store *s, struct nf_run *run, int live)
{
    static const char sql[] =
        "INSERT INTO runs (id, label, workload, args, started, repeat, warmup, status,"
        " session, note, env, pid, host) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (check_text(s, run))
        return -1;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nf_store_dberr(s, "cannot store the run");
    char *args = args_json(run);
    char *env = run->env ? json_dumps(run->env, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
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
    sqlite3_bind_text(st, 8, run->status, -1, SQLITE_TRANSIENT);
    bind_text_or_null(st, 9, run->session);
    bind_text_or_null(st, 10, run->note);
    bind_text_or_null(st, 11, env);
    if (live) {
        char host[256] = "";
        gethostname(host, sizeof(host) - 1);
        sqlite3_bind_int64(st, 12, getpid());
        sqlite3_bind_text(st, 13, host, -1, SQLITE_TRANSIENT);
    }
    int rc = sqlite3_step(st);
    free(args);
    free(env);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nf_store_dberr(s, "cannot store the run");
    run->id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

/* Insert or update every metric row of the run (supported may change once
 * the counters have been opened); unless the rows are as last written. */
static int upsert_metrics(struct nf_store *s, const struct nf_run *run)
{
    static const char sql[] =
        "INSERT INTO metrics (run_id, idx, name, unit, better, is_primary, supported)"
        " VALUES (?,?,?,?,?,?,?) ON CONFLICT (run_id, idx) DO UPDATE SET"
        " supported = excluded.supported, is_primary = excluded.is_primary";
    int same = s->metrics_run == run->id && s->metrics_n == run->nmetrics;
    for (size_t i = 0; same && i < run->nmetrics; i++)
        same = s->metrics_flags[i] ==
               ((run->metrics[i].supported != 0) | (run->metrics[i].primary != 0) << 1);
    if (same)
        return 0;
    s->metrics_run = 0; /* until this transaction commits */
    sqlite3_stmt *st = nf_store_cached(s, &s->upsert_metrics, sql);
    if (!st)
        return nf_store_dberr(s, "cannot store metrics");
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        sqlite3_bind_int64(st, 1, run->id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_text(st, 3, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, m->unit, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, nf_better_name(m->better), -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, m->primary != 0);
        sqlite3_bind_int(st, 7, m->supported != 0);
        if (sqlite3_step(st) != SQLITE_DONE) {
            nf_store_dberr(s, "cannot store metrics");
            sqlite3_reset(st);
            return -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_clear_bindings(st);
    return 0;
}

/* After a commit that wrote the run's metric rows: remember them. */
static void metrics_written(struct nf_store *s, const struct nf_run *run)
{
    s->metrics_flags = nf_xrealloc(s->metrics_flags, run->nmetrics ? run->nmetrics : 1);
    for (size_t i = 0; i < run->nmetrics; i++)
        s->metrics_flags[i] =
            (unsigned char)((run->metrics[i].supported != 0) | (run->metrics[i].primary != 0) << 1);
    s->metrics_n = run->nmetrics;
    s->metrics_run = run->id;
}

/* Samples [from, to) of every metric that has them. */
static int insert_samples(struct nf_store *s, const struct nf_run *run, size_t from, size_t to)
{
    static const char sql[] =
        "INSERT INTO samples (run_id, metric_idx, rep, value, running_pct) VALUES (?,?,?,?,?)";
    sqlite3_stmt *st = nf_store_cached(s, &s->insert_sample, sql);
    if (!st)
        return nf_store_dberr(s, "cannot store samples");
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        for (size_t r = from; r < to && r < m->n; r++) {
            sqlite3_bind_int64(st, 1, run->id);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
            sqlite3_bind_int64(st, 3, (sqlite3_int64)r);
            sqlite3_bind_double(st, 4, m->values[r]);
            if (m->running_pct)
                sqlite3_bind_double(st, 5, m->running_pct[r]);
            else
                sqlite3_bind_null(st, 5);
            if (sqlite3_step(st) != SQLITE_DONE) {
                nf_store_dberr(s, "cannot store samples");
                sqlite3_reset(st);
                return -1;
            }
            sqlite3_reset(st);
        }
    }
    sqlite3_clear_bindings(st);
    return 0;
}

int nf_store_begin_run(struct nf_store *s, struct nf_run *run)
{
    if (nf_store_tx_begin(s))
        return -1;
    nf_run_set_status(run, "running");
    run->id = 0;
    if (insert_run_row(s, run, 1) || upsert_metrics(s, run) || nf_store_tx_commit(s)) {
        nf_store_tx_rollback(s);
        run->id = 0;
        return -1;
    }
    metrics_written(s, run);
    return 0;
}

int nf_store_add_rep(struct nf_store *s, const struct nf_run *run, size_t rep)
{
    if (run->id <= 0)
        return nf_store_seterr(s, "internal: the run was not begun in the store");
    if (nf_store_tx_begin(s))
        return -1;
    if (upsert_metrics(s, run) || insert_samples(s, run, rep, rep + 1) || nf_store_tx_commit(s)) {
        nf_store_tx_rollback(s);
        return -1;
    }
    metrics_written(s, run);
    return 0;
}

int nf_store_finish_run(struct nf_store *s, const struct nf_run *run)
{
    sqlite3_stmt *st;
    /* repeat too: ab learns how many rounds it ran only at the end. */
    if (sqlite3_prepare_v2(s->db,
                           "UPDATE runs SET status = ?, note = ?, repeat = ?, "
                           "pid = NULL, host = NULL WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return nf_store_dberr(s, "cannot finish the run");
    sqlite3_bind_text(st, 1, run->status, -1, SQLITE_STATIC);
    bind_text_or_null(st, 2, run->note);
    sqlite3_bind_int(st, 3, run->repeat);
    sqlite3_bind_int64(st, 4, run->id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nf_store_dberr(s, "cannot finish the run");
    return 0;
}

static int id_taken(struct nf_store *s, int64_t id, int *taken)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return nf_store_dberr(s, "cannot read runs");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return nf_store_dberr(s, "cannot read runs");
    *taken = rc == SQLITE_ROW;
    return 0;
}

int nf_store_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n)
{
    int64_t *old = nf_xcalloc(n ? n : 1, sizeof(int64_t));
    if (nf_store_tx_begin(s)) {
        free(old);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct nf_run *run = runs[i];
        old[i] = run->id;
        int taken = 1;
        if (run->id > 0 && id_taken(s, run->id, &taken))
            goto fail;
        if (taken)
            run->id = 0;
        size_t maxn = 0;
        for (size_t k = 0; k < run->nmetrics; k++)
            if (run->metrics[k].n > maxn)
                maxn = run->metrics[k].n;
        if (insert_run_row(s, run, 0) || upsert_metrics(s, run) || insert_samples(s, run, 0, maxn))
            goto fail;
    }
    if (nf_store_tx_commit(s))
        goto fail;
    free(old);
    return 0;
fail:
    nf_store_tx_rollback(s);
    for (size_t i = 0; i < n; i++)
        runs[i]->id = old[i];
    free(old);
    return -1;
}

int nf_store_delete_runs(struct nf_store *s, const int64_t *ids, size_t n)
{
    sqlite3_stmt *st = NULL;
    if (nf_store_tx_begin(s))
        return -1;
    if (sqlite3_prepare_v2(s->db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
        nf_store_dberr(s, "cannot delete runs");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, ids[i]);
        if (sqlite3_step(st) != SQLITE_DONE) {
            nf_store_dberr(s, "cannot delete runs");
            goto fail;
        }
        if (sqlite3_changes(s->db) == 0) {
            nf_store_seterr(s, "no run %lld in %s", (long long)ids[i], s->path);
            sqlite3_finalize(st);
            nf_store_tx_rollback(s);
            return NF_STORE_NOTFOUND;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (nf_store_tx_commit(s))
        goto fail;
    return 0;
fail:
    sqlite3_finalize(st);
    nf_store_tx_rollback(s);
    return -1;
}
