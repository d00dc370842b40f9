/* The storage interface: which backend a --db names, and what both
 * backends share (argument checks, messages, the loaders built on others,
 * the rule that decides a run is incomplete). */
#include "store/store_int.h"

#include <ctype.h>
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/import.h"

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
    PQconninfoOption *opts = PQconndefaults();
    int known = 0;
    for (PQconninfoOption *o = opts; o && o->keyword && !known; o++)
        known = strlen(o->keyword) == klen && strncmp(o->keyword, db, klen) == 0;
    PQconninfoFree(opts);
    return known;
}

int nf_store_open(struct nf_store **out, const char *db, int flags, char *err)
{
    *out = NULL;
    if (!db || !*db) {
        snprintf(err, NF_ERR_LEN, "no database given (--db PATH or a PostgreSQL URI)");
        return -1;
    }
    int rc = nf_store_is_postgres(db) ? nf_pg_open(out, db, flags, err)
                                      : nf_sqlite_open(out, db, flags, err);
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

void nf_store_base_free(struct nf_store *s)
{
    free(s->seen);
    free(s->name);
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

int nf_store_seterr(struct nf_store *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
    va_end(ap);
    return -1;
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

int nf_store_insert_runs(struct nf_store *s, struct nf_run *const *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (check_text(s, runs[i]) || check_values(s, runs[i], 0, nf_store_max_reps(runs[i])))
            return -1;
    return s->ops->insert_runs(s, runs, n);
}

int nf_store_delete_runs(struct nf_store *s, const int64_t *ids, size_t n)
{
    return s->ops->delete_runs(s, ids, n);
}

static unsigned char metric_flags(const struct nf_metric *m)
{
    return (unsigned char)((m->supported != 0) | (m->primary != 0) << 1);
}

static struct nf_store_metrics_seen *seen_of(const struct nf_store *s, int64_t run_id)
{
    for (size_t i = 0; i < s->nseen; i++)
        if (s->seen[i].run == run_id)
            return &s->seen[i];
    return NULL;
}

int nf_store_metrics_same(const struct nf_store *s, const struct nf_run *run)
{
    const struct nf_store_metrics_seen *m = seen_of(s, run->id);
    int same = m && m->n == run->nmetrics;
    for (size_t i = 0; same && i < run->nmetrics; i++)
        same = m->flags[i] == metric_flags(&run->metrics[i]);
    return same;
}

void nf_store_metrics_forget(struct nf_store *s, int64_t run_id)
{
    struct nf_store_metrics_seen *m = seen_of(s, run_id);
    if (m)
        m->run = 0;
}

void nf_store_metrics_written(struct nf_store *s, const struct nf_run *run)
{
    struct nf_store_metrics_seen *m = seen_of(s, run->id);
    if (!m)
        m = seen_of(s, 0); /* a slot forgotten */
    if (!m) {
        s->seen = nf_xrealloc(s->seen, (s->nseen + 1) * sizeof(*s->seen));
        m = &s->seen[s->nseen++];
    }
    m->run = run->id;
    m->n = run->nmetrics;
    for (size_t i = 0; i < run->nmetrics; i++)
        m->flags[i] = metric_flags(&run->metrics[i]);
}

char *nf_store_args_json(const struct nf_run *run)
{
    json_t *a = json_array();
    for (size_t i = 0; i < run->nargs; i++)
        json_array_append_new(a, json_string(run->args[i]));
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return s;
}

char *nf_store_env_json(const struct nf_run *run)
{
    return run->env ? json_dumps(run->env, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
}

size_t nf_store_max_reps(const struct nf_run *run)
{
    size_t maxn = 0;
    for (size_t k = 0; k < run->nmetrics; k++)
        if (run->metrics[k].n > maxn)
            maxn = run->metrics[k].n;
    return maxn;
}

void nf_store_rep_extent(const struct nf_run *run, size_t rep, size_t *nv, size_t *np)
{
    *nv = *np = 0;
    for (size_t i = 0; i < run->nmetrics; i++)
        if (rep < run->metrics[i].n) {
            *nv = i + 1;
            if (run->metrics[i].running_pct)
                *np = i + 1;
        }
}

int nf_store_rep_has_hist(const struct nf_run *run, size_t rep)
{
    for (size_t i = 0; i < run->nhists; i++)
        if (nf_run_hist_rep(&run->hists[i], rep))
            return 1;
    return 0;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

void nf_store_pack_buckets(unsigned char *buf, const struct nf_rep_hist *r)
{
    for (size_t i = 0; i < r->n; i++) {
        put_u64(buf + 16 * i, r->b[i].lo);
        put_u64(buf + 16 * i + 8, r->b[i].count);
    }
}

int nf_store_unpack_hist(struct nf_store *s, struct nf_run *run, const char *name, long long rep,
                         const unsigned char *blob, size_t len)
{
    size_t n = len / 16;
    int ok = blob && n > 0 && len % 16 == 0 && rep >= 0;
    struct nf_bucket *b = ok ? nf_xmalloc(n * sizeof(*b)) : NULL;
    for (size_t i = 0; ok && i < n; i++) {
        b[i].lo = get_u64(blob + 16 * i);
        b[i].count = get_u64(blob + 16 * i + 8);
    }
    ok = ok && nf_run_hist_add(run, name, (size_t)rep, b, n) == 0;
    free(b);
    if (!ok)
        return nf_store_seterr(s,
                               "%s: run %lld: the stored histogram '%s' of repetition %lld is "
                               "malformed",
                               s->name, (long long)run->id, name, rep);
    return 0;
}

/* --- reading -------------------------------------------------------------- */

static void add_param(char **w, size_t *len, int dollar, int *k)
{
    if (dollar)
        *len += (size_t)sprintf(*w + *len, "$%d", (*k)++);
    else
        (*w)[(*len)++] = '?', (*w)[*len] = 0;
}

char *nf_store_filter_sql(const struct nf_store_filter *f, int dollar, int first)
{
    size_t cap = 160 + (f ? f->nlabels * 16 : 0);
    char *w = nf_xmalloc(cap);
    size_t len = 0;
    int k = first;
    w[0] = 0;
    if (!f)
        return w;
    const char *and = " WHERE ";
    if (f->nlabels) {
        len += (size_t)sprintf(w + len, "%sr.label IN (", and);
        for (size_t i = 0; i < f->nlabels; i++) {
            if (i)
                w[len++] = ',';
            add_param(&w, &len, dollar, &k);
        }
        len += (size_t)sprintf(w + len, ")");
        and = " AND ";
    }
    if (f->workload) {
        len += (size_t)sprintf(w + len, "%sr.workload = ", and);
        add_param(&w, &len, dollar, &k);
        and = " AND ";
    }
    if (f->session) {
        len += (size_t)sprintf(w + len, "%sr.session = ", and);
        add_param(&w, &len, dollar, &k);
        and = " AND ";
    }
    if (f->id) {
        len += (size_t)sprintf(w + len, "%sr.id = ", and);
        add_param(&w, &len, dollar, &k);
    }
    return w;
}

int nf_store_writer_state(long long pid, const char *host)
{
    if (pid <= 0 || !host)
        return -1;
    char me[256];
    nf_hostname(me, sizeof(me));
    if (strcmp(host, me) != 0)
        return -1; /* another machine */
    if (pid == getpid())
        return 1;
    if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
        return 0;
    /* Killed but not yet reaped: as good as gone. */
    char path[64];
    snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
    char *stat = nf_read_file(path);
    const char *end = stat ? strrchr(stat, ')') : NULL; /* "pid (comm) S ..." */
    int zombie = end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
    free(stat);
    if (zombie)
        return 0;
    /* A recycled pid belongs to some other program: ours has noisefloor
     * in its name or its argv[0] (an agent starts /proc/self/exe). */
    snprintf(path, sizeof(path), "/proc/%lld/comm", pid);
    char *comm = nf_read_file(path);
    int ours = comm && strstr(comm, "noisefloor") != NULL;
    free(comm);
    if (!ours) {
        snprintf(path, sizeof(path), "/proc/%lld/cmdline", pid);
        char *cmdline = nf_read_file(path); /* argv[0] up to its NUL */
        ours = cmdline && strstr(cmdline, "noisefloor") != NULL;
        free(cmdline);
    }
    return ours;
}

enum nf_run_status nf_store_row_status(const char *word)
{
    enum nf_run_status state;
    return word && nf_run_status_parse(word, &state) == 0 ? state : NF_RUN_INCOMPLETE;
}

struct nf_run *nf_store_run_from_row(int64_t id, const char *label, const char *workload,
                                     const char *args, const char *started, int repeat, int warmup,
                                     enum nf_run_status state, const char *session,
                                     const char *note, const char *env)
{
    struct nf_run *run = nf_run_new(label ? label : "", workload ? workload : "");
    run->id = id;
    json_t *a = args ? json_loads(args, 0, NULL) : NULL;
    for (size_t i = 0; json_is_array(a) && i < json_array_size(a); i++) {
        const char *w = json_string_value(json_array_get(a, i));
        run->args = nf_xrealloc(run->args, (run->nargs + 1) * sizeof(char *));
        run->args[run->nargs++] = nf_xstrdup(w ? w : "");
    }
    json_decref(a);
    snprintf(run->started, sizeof(run->started), "%s", started ? started : "");
    run->repeat = repeat;
    run->warmup = warmup;
    nf_run_set_state(run, state);
    if (session)
        run->session = nf_xstrdup(session);
    if (note)
        run->note = nf_xstrdup(note);
    if (env) {
        run->env = json_loads(env, JSON_DECODE_ANY, NULL);
        if (run->env && !json_is_object(run->env)) {
            json_decref(run->env);
            run->env = NULL;
        }
    }
    return run;
}

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
    return s->ops->load_runs(s, f, out, n);
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

void nf_runs_free(struct nf_run **runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        nf_run_free(runs[i]);
    free(runs);
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

static int64_t *ids_from_json(const char *text, size_t *n)
{
    *n = 0;
    json_t *a = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
    int64_t *ids = NULL;
    if (json_is_array(a) && json_array_size(a)) {
        ids = nf_xmalloc(json_array_size(a) * sizeof(int64_t));
        for (size_t i = 0; i < json_array_size(a); i++)
            if (json_is_integer(json_array_get(a, i)))
                ids[(*n)++] = json_integer_value(json_array_get(a, i));
    }
    json_decref(a);
    return ids;
}

struct nf_job *nf_store_job_from_row(const char *const col[NF_JOB_COLS])
{
    struct nf_job *j = nf_xcalloc(1, sizeof(*j));
    j->id = col[0] ? strtoll(col[0], NULL, 10) : 0;
    j->group = col[1] ? strtoll(col[1], NULL, 10) : j->id;
    j->tag = col[2] ? nf_xstrdup(col[2]) : NULL;
    json_t *w = col[3] ? json_loads(col[3], JSON_DECODE_ANY, NULL) : NULL;
    for (size_t i = 0; json_is_array(w) && i < json_array_size(w); i++) {
        const char *s = json_string_value(json_array_get(w, i));
        j->words = nf_xrealloc(j->words, (j->nwords + 2) * sizeof(char *));
        j->words[j->nwords++] = nf_xstrdup(s ? s : "");
        j->words[j->nwords] = NULL;
    }
    json_decref(w);
    j->state = nf_xstrdup(col[4] ? col[4] : "queued");
    snprintf(j->submitted, sizeof(j->submitted), "%s", col[5] ? col[5] : "");
    j->attempt = col[6] ? atoi(col[6]) : 0;
    j->host = col[7] ? nf_xstrdup(col[7]) : NULL;
    snprintf(j->started, sizeof(j->started), "%s", col[8] ? col[8] : "");
    snprintf(j->finished, sizeof(j->finished), "%s", col[9] ? col[9] : "");
    j->lease_expired = col[10] && (strcmp(col[10], "1") == 0 || strcmp(col[10], "t") == 0);
    j->runs = ids_from_json(col[11], &j->nruns);
    j->error = col[12] ? nf_xstrdup(col[12]) : NULL;
    return j;
}

void nf_job_free(struct nf_job *j)
{
    if (!j)
        return;
    free(j->tag);
    for (size_t i = 0; i < j->nwords; i++)
        free(j->words[i]);
    free(j->words);
    free(j->state);
    free(j->host);
    free(j->runs);
    free(j->error);
    free(j);
}

void nf_jobs_free(struct nf_job **jobs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        nf_job_free(jobs[i]);
    free(jobs);
}

int nf_store_submit(struct nf_store *s, const char *tag, char *const *words, size_t nwords,
                    int copies, int64_t *ids)
{
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
    int rc = s->ops->submit(s, tag, w, copies, ids);
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

int nf_store_list_jobs(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return s->ops->list_jobs(s, id, out, n);
}
