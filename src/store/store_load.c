/* Reading runs back.  Loading is two prepared statements however many runs
 * are asked for: the run rows, then each run's metrics with their samples
 * (compare over 1,000,000 samples must stay well under a second). */
#include "store/store_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

/* The WHERE clause of a filter over runs aliased r, with its parameters
 * bound from index 1.  Returns a malloc'd clause ("" when no filter). */
static char *filter_sql(const struct nf_store_filter *f)
{
    size_t cap = 160 + (f ? f->nlabels * 2 : 0);
    char *w = nf_xmalloc(cap);
    w[0] = 0;
    if (!f)
        return w;
    const char *and = " WHERE ";
    if (f->nlabels) {
        strcat(w, and);
        strcat(w, "r.label IN (");
        for (size_t i = 0; i < f->nlabels; i++)
            strcat(w, i ? ",?" : "?");
        strcat(w, ")");
        and = " AND ";
    }
    if (f->workload) {
        strcat(w, and);
        strcat(w, "r.workload = ?");
        and = " AND ";
    }
    if (f->session) {
        strcat(w, and);
        strcat(w, "r.session = ?");
        and = " AND ";
    }
    if (f->id) {
        strcat(w, and);
        strcat(w, "r.id = ?");
    }
    return w;
}

static void filter_bind(sqlite3_stmt *st, const struct nf_store_filter *f)
{
    int k = 1;
    if (!f)
        return;
    for (size_t i = 0; i < f->nlabels; i++)
        sqlite3_bind_text(st, k++, f->labels[i], -1, SQLITE_STATIC);
    if (f->workload)
        sqlite3_bind_text(st, k++, f->workload, -1, SQLITE_STATIC);
    if (f->session)
        sqlite3_bind_text(st, k++, f->session, -1, SQLITE_STATIC);
    if (f->id)
        sqlite3_bind_int64(st, k++, f->id);
}

static int prepare_filtered(struct nf_store *s, const char *head, const char *tail,
                            const struct nf_store_filter *f, sqlite3_stmt **st)
{
    char *where = filter_sql(f);
    char *sql = nf_xasprintf("%s%s%s", head, where, tail);
    int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
    free(where);
    free(sql);
    if (rc != SQLITE_OK)
        return nf_store_dberr(s, "cannot read runs");
    filter_bind(*st, f);
    return 0;
}

int nf_store_find_runs(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids,
                       size_t *n)
{
    sqlite3_stmt *st;
    *ids = NULL;
    *n = 0;
    if (prepare_filtered(s, "SELECT r.id FROM runs r", " ORDER BY r.id", f, &st))
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *ids = nf_xrealloc(*ids, cap * sizeof(int64_t));
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*ids);
        *ids = NULL;
        *n = 0;
        return nf_store_dberr(s, "cannot read runs");
    }
    return 0;
}

/* A run stored as "running" whose writer is gone is incomplete: it was
 * killed (or its machine went down) before it could say otherwise. */
static int writer_alive(sqlite3_stmt *st, int pidcol, int hostcol)
{
    if (sqlite3_column_type(st, pidcol) == SQLITE_NULL)
        return 0;
    pid_t pid = (pid_t)sqlite3_column_int64(st, pidcol);
    const char *host = (const char *)sqlite3_column_text(st, hostcol);
    char me[256] = "";
    gethostname(me, sizeof(me) - 1);
    if (!host || strcmp(host, me) != 0)
        return 0; /* another machine: cannot tell; not ours to wait for */
    if (pid == getpid())
        return 1;
    if (pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM))
        return 0;
    /* A recycled pid belongs to some other program. */
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    char *comm = nf_read_file(path);
    int ours = comm && strstr(comm, "noisefloor") != NULL;
    free(comm);
    return ours;
}

static const char run_cols[] =
    "SELECT r.id, r.label, r.workload, r.args, r.started, r.repeat, r.warmup, r.status,"
    " r.session, r.note, r.env, r.pid, r.host FROM runs r";

static struct nf_run *run_from_row(sqlite3_stmt *st)
{
    const char *text[13];
    for (int i = 0; i < 13; i++)
        text[i] = (const char *)sqlite3_column_text(st, i);
    struct nf_run *run = nf_run_new(text[1] ? text[1] : "", text[2] ? text[2] : "");
    run->id = sqlite3_column_int64(st, 0);
    json_t *args = text[3] ? json_loads(text[3], 0, NULL) : NULL;
    for (size_t i = 0; json_is_array(args) && i < json_array_size(args); i++) {
        const char *a = json_string_value(json_array_get(args, i));
        run->args = nf_xrealloc(run->args, (run->nargs + 1) * sizeof(char *));
        run->args[run->nargs++] = nf_xstrdup(a ? a : "");
    }
    json_decref(args);
    snprintf(run->started, sizeof(run->started), "%s", text[4] ? text[4] : "");
    run->repeat = sqlite3_column_int(st, 5);
    run->warmup = sqlite3_column_int(st, 6);
    const char *status = text[7] ? text[7] : "incomplete";
    if (strcmp(status, "running") == 0 && !writer_alive(st, 11, 12))
        status = "incomplete";
    nf_run_set_status(run, status);
    if (text[8])
        run->session = nf_xstrdup(text[8]);
    if (text[9])
        run->note = nf_xstrdup(text[9]);
    if (text[10]) {
        run->env = json_loads(text[10], JSON_DECODE_ANY, NULL);
        if (run->env && !json_is_object(run->env)) {
            json_decref(run->env);
            run->env = NULL;
        }
    }
    return run;
}

/* Every metric of the runs with its samples: one statement, prepared once
 * and stepped per run.  Per run, the primary keys of metrics (run_id, idx)
 * and samples (run_id, metric_idx, rep) give the rows in order with no sort
 * (a single join over all runs of a label needs a temporary B-tree for its
 * ORDER BY, which doubled the time over 1,000,000 samples). */
static int load_metrics(struct nf_store *s, struct nf_run **runs, size_t n)
{
    static const char sql[] = "SELECT m.idx, m.name, m.unit, m.better, m.is_primary, m.supported,"
                              " s.value, s.running_pct FROM metrics m"
                              " LEFT JOIN samples s ON s.run_id = m.run_id AND s.metric_idx = m.idx"
                              " WHERE m.run_id = ? ORDER BY m.idx, s.rep";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nf_store_dberr(s, "cannot read samples");
    int rc = SQLITE_DONE;
    for (size_t ri = 0; ri < n && rc == SQLITE_DONE; ri++) {
        struct nf_run *run = runs[ri];
        struct nf_metric *m = NULL;
        int64_t cur_idx = -1;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run->id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t idx = sqlite3_column_int64(st, 0);
            if (idx != cur_idx) {
                enum nf_better b = NF_BETTER_LOWER;
                const char *better = (const char *)sqlite3_column_text(st, 3);
                if (better)
                    nf_better_parse(better, &b);
                const char *name = (const char *)sqlite3_column_text(st, 1);
                const char *unit = (const char *)sqlite3_column_text(st, 2);
                /* Names are unique per run (schema), so this adds one. */
                m = nf_run_metric(run, name ? name : "", unit, b, sqlite3_column_int(st, 4));
                m->supported = sqlite3_column_int(st, 5);
                cur_idx = idx;
            }
            if (sqlite3_column_type(st, 6) == SQLITE_NULL)
                continue;
            int scaled = sqlite3_column_type(st, 7) != SQLITE_NULL;
            nf_metric_push(m, sqlite3_column_double(st, 6),
                           scaled ? sqlite3_column_double(st, 7) : 100.0);
            /* A stored 100 is kept as such so the round trip is exact
             * (nf_metric_push only makes the array below 100). */
            if (scaled && !m->running_pct) {
                m->running_pct = nf_xmalloc(m->cap * sizeof(double));
                for (size_t i = 0; i < m->n; i++)
                    m->running_pct[i] = 100.0;
            }
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nf_store_dberr(s, "cannot read samples");
    return 0;
}

int nf_store_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                       size_t *n)
{
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (prepare_filtered(s, run_cols, " ORDER BY r.id", f, &st))
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = nf_xrealloc(*out, cap * sizeof(**out));
        }
        (*out)[(*n)++] = run_from_row(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        nf_store_dberr(s, "cannot read runs");
        goto fail;
    }
    if (*n && load_metrics(s, *out, *n))
        goto fail;
    return 0;
fail:
    nf_runs_free(*out, *n);
    *out = NULL;
    *n = 0;
    return -1;
}

int nf_store_load_run(struct nf_store *s, int64_t id, struct nf_run **out)
{
    struct nf_store_filter f = {.id = id};
    struct nf_run **runs;
    size_t n;
    *out = NULL;
    if (nf_store_load_runs(s, &f, &runs, &n))
        return -1;
    if (n == 0) {
        free(runs);
        nf_store_seterr(s, "no run %lld in %s", (long long)id, s->path);
        return NF_STORE_NOTFOUND;
    }
    *out = runs[0];
    free(runs);
    return 0;
}

int nf_store_load_label(struct nf_store *s, const char *label, const char *workload,
                        struct nf_run ***out, size_t *n)
{
    const char *labels[1] = {label};
    struct nf_store_filter f = {.labels = labels, .nlabels = 1, .workload = workload};
    if (nf_store_load_runs(s, &f, out, n))
        return -1;
    if (*n == 0) {
        if (workload)
            nf_store_seterr(s, "no runs of workload '%s' with label '%s' in %s", workload, label,
                            s->path);
        else
            nf_store_seterr(s, "no runs with label '%s' in %s", label, s->path);
        return NF_STORE_NOTFOUND;
    }
    return 0;
}

void nf_runs_free(struct nf_run **runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        nf_run_free(runs[i]);
    free(runs);
}
