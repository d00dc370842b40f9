/* The storage interface: which backend a --db names, the checks of what
 * is written before either backend sees it, and the loaders built on
 * others.  What the backends share below it is in store_rows.c. */
#include "store/store_int.h"

#include <ctype.h>
#include "store/pq.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nf_store_is_postgres(const char *db)
{
    if (strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0)
        return 1;
    /* libpq's key=value form: the first word is KEY=... with a keyword libpq
     * knows, so that a file named "results=old.db" stays a file. */
    while (isspace((unsigned char)*db))
        db++;
    size_t klen = 0;
    while (db[klen] && (isalnum((unsigned char)db[klen]) || db[klen] == '_'))
        klen++;
    size_t eq = klen;
    while (db[eq] == ' ' || db[eq] == '\t')
        eq++;
    if (klen == 0 || db[eq] != '=')
        return 0;
    /* Without libpq its keywords are not known: taken as a connection
     * string, whose open then says that libpq is missing. */
    char e[NF_ERR_LEN];
    if (nf_pq_load(e, sizeof(e)))
        return 1;
    PQconninfoOption *opts = PQconndefaults();
    int known = 0;
    for (PQconninfoOption *o = opts; o && o->keyword && !known; o++)
        known = strlen(o->keyword) == klen && strncmp(o->keyword, db, klen) == 0;
    PQconninfoFree(opts);
    return known;
}

int nf_store_open(struct nf_store **out, const char *db, int flags, char *err, size_t errlen)
{
    *out = NULL;
    if (!db || !*db) {
        snprintf(err, errlen, "no database given (--db PATH or a PostgreSQL URI)");
        return -1;
    }
    int rc = nf_store_is_postgres(db) ? nf_pg_open(out, db, flags, err, errlen)
                                      : nf_sqlite_open(out, db, flags, err, errlen);
    /* Started by an agent for a job: the runs we begin belong to it. */
    const char *job = getenv(NF_JOB_ENV);
    long long id;
    int attempt;
    char end;
    if (rc == 0 && job && sscanf(job, "%lld.%d%c", &id, &attempt, &end) == 2 && id > 0 &&
        attempt > 0) {
        (*out)->job = id;
        (*out)->job_attempt = attempt;
    }
    return rc;
}

void nf_store_close(struct nf_store *s)
{
    if (s)
        s->ops->close(s);
}

const char *nf_store_error(const struct nf_store *s)
{
    return s->errmsg;
}

const char *nf_store_name(const struct nf_store *s)
{
    return s->name;
}

const char *nf_store_backend(const struct nf_store *s)
{
    return s->ops->backend;
}

int nf_store_opened_version(const struct nf_store *s)
{
    return s->opened_version;
}

/* --- writing -------------------------------------------------------------- */

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
    for (size_t i = 0; !what && i < run->nhists; i++)
        if (!text_ok(run->hists[i].name))
            what = "a histogram name";
    if (what)
        return nf_store_seterr(s, "%s is not UTF-8 text; not stored", what);
    return 0;
}

/* Values [from, to) of every metric are numbers: SQLite has no NaN (its
 * samples use one to mark a metric without a value in a repetition), and
 * both backends keep the same rules. */
static int check_values(struct nf_store *s, const struct nf_run *run, size_t from, size_t to)
{
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        for (size_t r = from; r < to && r < m->n; r++)
            if (isnan(m->values[r]) || (m->running_pct && isnan(m->running_pct[r])))
                return nf_store_seterr(s, "metric '%s': a value that is not a number; not stored",
                                       m->name);
    }
    return 0;
}

int nf_store_begin_run(struct nf_store *s, struct nf_run *run)
{
    if (check_text(s, run))
        return -1;
    /* A job's run says which job and attempt it is of where show and
     * export show it; the run row's columns are what the store goes by. */
    if (s->job > 0) {
        char job[48];
        snprintf(job, sizeof(job), "%lld.%d", (long long)s->job, s->job_attempt);
        if (!json_is_object(run->env)) {
            json_decref(run->env);
            run->env = json_object();
        }
        json_object_set_new(run->env, NF_ENV_JOB, json_string(job));
    }
    return s->ops->begin_run(s, run);
}

int nf_store_add_rep(struct nf_store *s, const struct nf_run *run, size_t rep)
{
    if (run->id <= 0)
        return nf_store_seterr(s, "internal: the run was not begun in the store");
    if (check_values(s, run, rep, rep + 1))
        return -1;
    return s->ops->add_rep(s, run, rep);
}

int nf_store_finish_run(struct nf_store *s, const struct nf_run *run)
{
    return s->ops->finish_run(s, run);
}

int nf_store_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n, int renumber,
                         size_t *clashed)
{
    size_t own;
    if (!clashed)
        clashed = &own;
    *clashed = 0;
    for (size_t i = 0; i < n; i++)
        if (check_text(s, runs[i]) || check_values(s, runs[i], 0, nf_store_max_reps(runs[i])))
            return -1;
    return s->ops->insert_runs(s, runs, n, renumber, clashed);
}

int nf_store_delete_runs(struct nf_store *s, const int64_t *ids, size_t n)
{
    return s->ops->delete_runs(s, ids, n);
}

/* --- reading -------------------------------------------------------------- */

int nf_store_find_runs(struct nf_store *s, const struct nf_store_filter *f, int64_t **ids,
                       size_t *n)
{
    *ids = NULL;
    *n = 0;
    return s->ops->find_runs(s, f, ids, n);
}

int nf_store_load_runs(struct nf_store *s, const struct nf_store_filter *f, struct nf_run ***out,
                       size_t *n)
{
    *out = NULL;
    *n = 0;
    int rc = s->ops->load_runs(s, f, out, n);
    if (rc)
        return rc;
    for (size_t i = 0; i < *n; i++)
        nf_run_read_compat((*out)[i]);
    return 0;
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
        nf_store_seterr(s, "no run %lld in %s", (long long)id, s->name);
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
        free(*out);
        *out = NULL;
        if (workload)
            nf_store_seterr(s, "no runs of workload '%s' with label '%s' in %s", workload, label,
                            s->name);
        else
            nf_store_seterr(s, "no runs with label '%s' in %s", label, s->name);
        return NF_STORE_NOTFOUND;
    }
    return 0;
}

int nf_store_load_hists(struct nf_store *s, struct nf_run *const *runs, size_t n)
{
    struct nf_run **stored = nf_xcalloc(n ? n : 1, sizeof(*stored));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        nf_run_hists_clear(runs[i]);
        if (runs[i]->id > 0)
            stored[k++] = runs[i];
    }
    int rc = k ? s->ops->load_hists(s, stored, k) : 0;
    for (size_t i = 0; rc && i < k; i++)
        nf_run_hists_clear(stored[i]); /* none rather than some */
    free(stored);
    return rc ? -1 : 0;
}

/* --- profiles ------------------------------------------------------------- */

int nf_store_add_profile(struct nf_store *s, int64_t run_id, const struct nf_profile *p)
{
    return s->ops->add_profile(s, run_id, p);
}

int nf_store_load_profile(struct nf_store *s, int64_t run_id, struct nf_profile *out)
{
    nf_profile_init(out);
    long n = s->ops->load_profiles(s, run_id, NULL, out);
    if (n < 0) {
        nf_profile_free(out);
        return -1;
    }
    if (n == 0) {
        nf_store_seterr(s, "run %lld has no profile in %s", (long long)run_id, s->name);
        return NF_STORE_NOTFOUND;
    }
    nf_profile_sort(out);
    return 0;
}

int nf_store_load_label_profile(struct nf_store *s, const char *label, struct nf_profile *out,
                                size_t *nruns)
{
    nf_profile_init(out);
    *nruns = 0;
    long n = s->ops->load_profiles(s, 0, label, out);
    if (n < 0) {
        nf_profile_free(out);
        return -1;
    }
    if (n == 0) {
        const char *labels[1] = {label};
        struct nf_store_filter f = {.labels = labels, .nlabels = 1};
        int64_t *ids = NULL;
        size_t nids = 0;
        if (nf_store_find_runs(s, &f, &ids, &nids))
            return -1;
        free(ids);
        if (nids == 0)
            nf_store_seterr(s, "no runs with label '%s' in %s", label, s->name);
        else
            nf_store_seterr(s,
                            "label '%s' has %zu run%s but no profile (record one with "
                            "'noisefloor profile -L %s ...')",
                            label, nids, nids == 1 ? "" : "s", label);
        return NF_STORE_NOTFOUND;
    }
    *nruns = (size_t)n;
    nf_profile_sort(out);
    return 0;
}

/* --- the job queue ---------------------------------------------------------- */

int nf_store_submit(struct nf_store *s, const char *tag, char *const *words, size_t nwords,
                    int copies, int64_t *ids)
{
    return nf_store_submit_limited(s, tag, words, nwords, copies, NULL, ids);
}

int nf_store_submit_limited(struct nf_store *s, const char *tag, char *const *words, size_t nwords,
                            int copies, const struct nf_job_limits *lim, int64_t *ids)
{
    struct nf_job_limits l = {NF_JOB_MAX_ATTEMPTS, 0};
    if (lim && lim->max_attempts > 0)
        l.max_attempts = lim->max_attempts;
    if (lim && lim->max_time > 0)
        l.max_time = lim->max_time;
    if (nwords == 0 || copies < 1)
        return nf_store_seterr(s, "internal: a job needs words and at least one copy");
    if (!text_ok(tag))
        return nf_store_seterr(s, "the tag is not UTF-8 text; not stored");
    json_t *a = json_array();
    for (size_t i = 0; i < nwords; i++) {
        if (!text_ok(words[i])) {
            json_decref(a);
            return nf_store_seterr(s, "a word of the job is not UTF-8 text; not stored");
        }
        json_array_append_new(a, json_string(words[i]));
    }
    char *w = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    int rc = s->ops->submit(s, tag, w, copies, &l, ids);
    free(w);
    return rc;
}

int nf_store_claim_job(struct nf_store *s, const char *const *tags, size_t ntags, const char *host,
                       double lease_s, struct nf_job **out)
{
    *out = NULL;
    return s->ops->claim_job(s, tags, ntags, host, lease_s, out);
}

int nf_store_renew_job(struct nf_store *s, int64_t id, int attempt, double lease_s)
{
    return s->ops->renew_job(s, id, attempt, lease_s);
}

int nf_store_end_job(struct nf_store *s, int64_t id, int attempt, const char *state,
                     const char *error)
{
    if (strcmp(state, "done") != 0 && strcmp(state, "failed") != 0 && strcmp(state, "queued") != 0)
        return nf_store_seterr(s, "internal: a job cannot end as '%s'", state);
    if (error && !text_ok(error))
        error = "(the reason is not UTF-8 text)";
    return s->ops->end_job(s, id, attempt, state, error);
}

int nf_store_reconnect(struct nf_store *s)
{
    return s->ops->reconnect ? s->ops->reconnect(s) : 0;
}

int nf_store_cancel_job(struct nf_store *s, int64_t id, char *was, size_t wlen)
{
    if (wlen)
        was[0] = 0;
    return s->ops->cancel_job(s, id, was, wlen);
}

int nf_store_list_jobs(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return s->ops->list_jobs(s, id, out, n);
}

int nf_store_load_bisection(struct nf_store *s, const char *repo, char **json)
{
    *json = NULL;
    return s->ops->load_bisection(s, repo, json);
}

int nf_store_save_bisection(struct nf_store *s, const char *repo, const char *json, int create)
{
    if (!text_ok(repo) || !text_ok(json) || !repo[0])
        return nf_store_seterr(s, "the bisection's repository or state is not UTF-8 text; not "
                                  "stored");
    return s->ops->save_bisection(s, repo, json, create);
}

int nf_store_delete_bisection(struct nf_store *s, const char *repo)
{
    return s->ops->delete_bisection(s, repo);
}
