/* What both backends share below the storage interface: the error
 * message, the metric rows a run already has, the row codecs (a run's
 * args and environment as JSON, a run from its row, a job from its row,
 * a repetition's histogram as a blob), the filter's WHERE clause, and the
 * rule that decides whether a run's writer is still alive. */
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void nf_store_base_free(struct nf_store *s)
{
    free(s->seen);
    free(s->name);
}

int nf_store_seterr(struct nf_store *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
    va_end(ap);
    return -1;
}

static unsigned char metric_flags(const struct nf_metric *m)
{
    return (unsigned char)((m->supported != 0) | (m->primary != 0) << 1 |
                           (!m->supported && m->not_counted) << 2);
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

size_t nf_store_hist_from(const struct nf_run_hist *h, size_t from)
{
    /* From the end: a repetition's commit wants the last one. */
    size_t k = h->nreps;
    while (k > 0 && h->reps[k - 1].rep >= from)
        k--;
    return k;
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

static void add_param(char **w, size_t *len, int dollar, int *k)
{
    if (dollar)
        *len += (size_t)sprintf(*w + *len, "$%d", (*k)++);
    else
        (*w)[(*len)++] = '?', (*w)[*len] = 0;
}

char *nf_store_filter_sql(const struct nf_store_filter *f, int dollar, int first)
{
    size_t cap = 160 + sizeof(NF_STORE_SUPERSEDED_SQL) + (f ? f->nlabels * 16 : 0);
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
        and = " AND ";
    }
    if (f->after) {
        len += (size_t)sprintf(w + len, "%sr.id > ", and);
        add_param(&w, &len, dollar, &k);
        and = " AND ";
    }
    if (f->counted)
        len += (size_t)sprintf(w + len,
                               "%sr.status <> 'superseded' AND NOT " NF_STORE_SUPERSEDED_SQL, and);
    return w;
}

/* The start time (field 22) in a /proc/PID/stat text; -1 if none. */
static long long start_in(const char *stat)
{
    const char *p = stat ? strrchr(stat, ')') : NULL; /* "pid (comm) S ppid ..." */
    unsigned long long ticks = 0;
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    int ok = p && sscanf(p + 1, "%llu", &ticks) == 1 && ticks > 0 && ticks <= LLONG_MAX;
    return ok ? (long long)ticks : -1;
}

long long nf_store_start_ticks(long long pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
    char *stat = nf_read_file(path);
    long long ticks = start_in(stat);
    free(stat);
    return ticks;
}

int nf_store_writer_state(long long pid, const char *host, long long start)
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
    long long now = start_in(stat);
    free(stat);
    if (zombie)
        return 0;
    if (start < 0)
        return 1; /* the caller knows the writer otherwise: only a dead pid counts */
    /* The pid and the start time name the writer exactly: a process
     * started at another time holds a recycled pid, whatever its name,
     * and one started then is the writer, whatever its binary is called. */
    if (start > 0 && now > 0)
        return now == start;
    /* Start not known (a run without a journal, or a journal of an older
     * build): a recycled pid most likely belongs to some other program,
     * and ours has noisefloor in its name or its argv[0] (an agent starts
     * /proc/self/exe).  A noisefloor installed under another name fails
     * this test. */
    snprintf(path, sizeof(path), "/proc/%lld/comm", pid);
    char *comm = nf_read_file(path);
    int ours = comm && strstr(comm, "noisefloor") != NULL;
    free(comm);
    if (!ours) {
        snprintf(path, sizeof(path), "/proc/%lld/cmdline", pid);
        char *cmdline = nf_read_file_max(path, NF_READ_FILE_LARGE); /* argv[0] up to its NUL */
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
    /* Its metrics are added once, by the loader (store_int.h): room for
     * those only. */
    struct nf_run *run = nf_run_new_growing(label ? label : "", workload ? workload : "");
    run->id = id;
    /* No words (most runs): nothing to parse. */
    json_t *a = args && strcmp(args, "[]") != 0 ? json_loads(args, 0, NULL) : NULL;
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
    j->max_attempts = col[13] ? atoi(col[13]) : NF_JOB_MAX_ATTEMPTS;
    j->max_time = col[14] ? strtod(col[14], NULL) : 0;
    j->cancel = col[15] && (strcmp(col[15], "1") == 0 || strcmp(col[15], "t") == 0);
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
