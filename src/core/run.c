#include "core/run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

static struct nf_run *run_new(const char *label, const char *workload, size_t mcap)
{
    struct nf_run *r = nf_xcalloc(1, sizeof(*r));
    r->label = nf_xstrdup(label);
    r->workload = nf_xstrdup(workload);
    nf_run_set_state(r, NF_RUN_RUNNING);
    nf_iso_time(r->started, sizeof(r->started));
    /* Not cleared: nf_run_metric clears each entry as it takes it, and
     * nothing reads past nmetrics. */
    r->metrics = mcap ? nf_xmalloc(mcap * sizeof(struct nf_metric)) : NULL;
    r->mcap = mcap;
    return r;
}

struct nf_run *nf_run_new(const char *label, const char *workload)
{
    return run_new(label, workload, NF_RUN_MAX_METRICS);
}

struct nf_run *nf_run_new_growing(const char *label, const char *workload)
{
    return run_new(label, workload, 0);
}

static void metric_free(struct nf_metric *m)
{
    free(m->name);
    free(m->unit);
    free(m->values);
    free(m->running_pct);
}

void nf_run_clear_metrics(struct nf_run *run)
{
    for (size_t i = 0; i < run->nmetrics; i++)
        metric_free(&run->metrics[i]);
    run->nmetrics = 0;
}

void nf_run_free(struct nf_run *run)
{
    if (!run)
        return;
    free(run->label);
    free(run->workload);
    for (size_t i = 0; i < run->nargs; i++)
        free(run->args[i]);
    free(run->args);
    nf_free_words(run->key);
    free(run->session);
    free(run->note);
    if (run->env)
        json_decref(run->env);
    for (size_t i = 0; i < run->nmetrics; i++)
        metric_free(&run->metrics[i]);
    free(run->metrics);
    nf_run_hists_clear(run);
    free(run);
}

void nf_run_set_args(struct nf_run *run, int argc, char **argv)
{
    for (size_t i = 0; i < run->nargs; i++)
        free(run->args[i]);
    free(run->args);
    run->nargs = argc > 0 ? (size_t)argc : 0;
    run->args = nf_xcalloc(run->nargs, sizeof(char *));
    for (size_t i = 0; i < run->nargs; i++)
        run->args[i] = nf_xstrdup(argv[i]);
    nf_run_set_key(run, NULL, 0);
}

void nf_run_set_key(struct nf_run *run, char **key, size_t n)
{
    nf_free_words(run->key);
    run->key = key;
    run->nkey = key ? n : 0;
}

static const char *const status_names[] = {
    [NF_RUN_RUNNING] = "running",       [NF_RUN_COMPLETE] = "complete",
    [NF_RUN_INCOMPLETE] = "incomplete", [NF_RUN_INTERRUPTED] = "interrupted",
    [NF_RUN_FAILED] = "failed",         [NF_RUN_SUPERSEDED] = "superseded",
};
#define NSTATUS (sizeof(status_names) / sizeof(status_names[0]))

const char *nf_run_status_name(enum nf_run_status s)
{
    return (size_t)s < NSTATUS ? status_names[s] : "?";
}

int nf_run_status_parse(const char *s, enum nf_run_status *out)
{
    for (size_t i = 0; i < NSTATUS; i++)
        if (strcmp(s, status_names[i]) == 0) {
            *out = (enum nf_run_status)i;
            return 0;
        }
    return -1;
}

void nf_run_set_state(struct nf_run *run, enum nf_run_status state)
{
    run->state = state;
    run->status = nf_run_status_name(state);
}

int nf_run_set_status(struct nf_run *run, const char *name)
{
    enum nf_run_status s;
    if (nf_run_status_parse(name, &s))
        return -1;
    nf_run_set_state(run, s);
    return 0;
}

int nf_run_perf_repeat(const struct nf_run *run, const char *metric, size_t *n, double *sem_pct)
{
    const json_t *r = run->env ? json_object_get(run->env, NF_ENV_PERF_REPEAT) : NULL;
    const json_t *runs = json_object_get(r, "runs");
    const json_t *sem = json_object_get(json_object_get(r, "sem_pct"), metric);
    if (!json_is_integer(runs) || json_integer_value(runs) < 1 || !json_is_number(sem) ||
        !(json_number_value(sem) >= 0))
        return -1;
    *n = (size_t)json_integer_value(runs);
    *sem_pct = json_number_value(sem);
    return 0;
}

struct nf_metric *nf_run_find(struct nf_run *run, const char *name)
{
    for (size_t i = 0; i < run->nmetrics; i++)
        if (strcmp(run->metrics[i].name, name) == 0)
            return &run->metrics[i];
    return NULL;
}

int nf_metric_not_counted(const struct nf_metric *m)
{
    return !m->supported && m->not_counted;
}

/* The notes' words (measure/runner.c, formats/import_perf_acc.c). */
#define NOT_COUNTED_RUN "counters <not counted>, stored without values: "
#define NOT_COUNTED_EVENT "' was <not counted> in "

int nf_note_not_counted(const char *note, const char *name)
{
    if (!note)
        return 0;
    if (!nf_metric_is_machine(name) && strstr(note, NOT_COUNTED_RUN))
        return 1;
    /* "'NAME' was <not counted> in": a note's part begins the note or
     * follows "; " (notes are joined so). */
    size_t len = strlen(name);
    const char *s = note;
    for (const char *p = strstr(s, NOT_COUNTED_EVENT); p; p = strstr(p + 1, NOT_COUNTED_EVENT)) {
        size_t at = (size_t)(p - s); /* the name's closing quote */
        if (at < len + 1)
            continue;
        size_t q = at - len - 1; /* its opening one */
        if (s[q] == '\'' && memcmp(s + q + 1, name, len) == 0 &&
            (q == 0 || (q >= 2 && s[q - 2] == ';' && s[q - 1] == ' ')))
            return 1;
    }
    return 0;
}

/* messaging stored two intervals under other names from one version to the
 * next: `seconds` (setup included, primary) and `transfer-seconds` (from the
 * start barrier).  The barrier interval is the one hackbench and perf
 * report, and the one runs stored before that version hold as `seconds`;
 * it is `seconds` again and the setup-inclusive one `total-seconds`.  A
 * messaging run that has `transfer-seconds` is of the middle kind: swap
 * the two names (and which is primary) and the positions, so the run reads
 * as one of this version. */
void nf_run_read_compat(struct nf_run *run)
{
    if (!run->workload || strcmp(run->workload, "messaging") != 0)
        return;
    struct nf_metric *total = nf_run_find(run, "seconds");
    struct nf_metric *barrier = nf_run_find(run, "transfer-seconds");
    if (!barrier || !total || nf_run_find(run, "total-seconds"))
        return;
    free(total->name);
    total->name = nf_xstrdup("total-seconds");
    free(barrier->name);
    barrier->name = nf_xstrdup("seconds");
    int p = total->primary;
    total->primary = barrier->primary;
    barrier->primary = p;
    struct nf_metric t = *total;
    *total = *barrier;
    *barrier = t;
}

struct nf_metric *nf_run_metric(struct nf_run *run, const char *name, const char *unit,
                                enum nf_better better, int primary)
{
    struct nf_metric *m = nf_run_find(run, name);
    if (m)
        return m;
    if (run->nmetrics == NF_RUN_MAX_METRICS)
        return NULL;
    if (run->nmetrics == run->mcap) { /* a growing run (nf_run_new_growing) */
        /* From one: a loaded run of one metric (history's 100,000) holds
         * no room it does not use. */
        run->mcap = run->mcap ? 2 * run->mcap : 1;
        if (run->mcap > NF_RUN_MAX_METRICS)
            run->mcap = NF_RUN_MAX_METRICS;
        run->metrics = nf_xrealloc(run->metrics, run->mcap * sizeof(struct nf_metric));
    }
    m = &run->metrics[run->nmetrics++];
    memset(m, 0, sizeof(*m));
    m->name = nf_xstrdup(name);
    m->unit = nf_xstrdup(unit ? unit : "");
    m->better = better;
    m->primary = primary;
    m->supported = 1;
    return m;
}

struct nf_metric *nf_run_primary(struct nf_run *run)
{
    for (size_t i = 0; i < run->nmetrics; i++)
        if (run->metrics[i].primary)
            return &run->metrics[i];
    for (size_t i = 0; i < run->nmetrics; i++)
        if (run->metrics[i].supported)
            return &run->metrics[i];
    return NULL;
}

void nf_metric_push(struct nf_metric *m, double value, double running_pct)
{
    /* -0 is 0 (SQLite would store it so, and an export must round-trip). */
    if (value == 0)
        value = 0;
    if (running_pct == 0)
        running_pct = 0;
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->values = nf_xrealloc(m->values, m->cap * sizeof(double));
        if (m->running_pct)
            m->running_pct = nf_xrealloc(m->running_pct, m->cap * sizeof(double));
    }
    if (running_pct < 100.0 && !m->running_pct) {
        m->running_pct = nf_xmalloc(m->cap * sizeof(double));
        for (size_t i = 0; i < m->n; i++)
            m->running_pct[i] = 100.0;
    }
    m->values[m->n] = value;
    if (m->running_pct)
        m->running_pct[m->n] = running_pct;
    m->n++;
}

void nf_metric_summarise(const double *v, size_t n, struct nf_metric_summary *out)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    if (!n)
        return;
    double s = 0, rs = 0, ss = 0, rss = 0;
    int recip = 1;
    for (size_t i = 0; i < n; i++) {
        s += v[i];
        if (v[i] > 0)
            rs += 1.0 / v[i];
        else
            recip = 0;
    }
    double m = s / (double)n, rm = rs / (double)n;
    for (size_t i = 0; i < n; i++) {
        ss += (v[i] - m) * (v[i] - m);
        if (recip)
            rss += (1.0 / v[i] - rm) * (1.0 / v[i] - rm);
    }
    out->mean = m;
    out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    out->recip = recip;
    if (recip) {
        out->rmean = rm;
        out->rsd = n > 1 ? sqrt(rss / (double)(n - 1)) : 0;
    }
}

void nf_metric_summary_of(const struct nf_metric *m, struct nf_metric_summary *out)
{
    if (m->summed)
        *out = m->sum;
    else
        nf_metric_summarise(m->values, m->n, out);
}

double nf_metric_min_running(const struct nf_metric *m)
{
    double lo = 100.0;
    if (m->running_pct)
        for (size_t i = 0; i < m->n; i++)
            if (m->running_pct[i] < lo)
                lo = m->running_pct[i];
    return lo;
}

int nf_metric_is_rate(const struct nf_metric *m)
{
    /* A count (wakeup's and timer's "wakeups": the events a repetition
     * recorded) is higher-is-better but no quantity per unit of time: its
     * mean is the arithmetic one, as the percentiles' "Events per
     * repetition" shows it. */
    return m->better == NF_BETTER_HIGHER && strcmp(m->unit, "count") != 0;
}

const struct nf_run_hist *nf_run_hist_find(const struct nf_run *run, const char *name)
{
    for (size_t i = 0; i < run->nhists; i++)
        if (strcmp(run->hists[i].name, name) == 0)
            return &run->hists[i];
    return NULL;
}

const struct nf_rep_hist *nf_run_hist_rep(const struct nf_run_hist *h, size_t rep)
{
    /* Ascending: a binary search. */
    size_t lo = 0, hi = h->nreps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->reps[mid].rep < rep)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->nreps && h->reps[lo].rep == rep ? &h->reps[lo] : NULL;
}

int nf_run_hist_add(struct nf_run *run, const char *name, size_t rep, const struct nf_bucket *b,
                    size_t n)
{
    if (!n)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (b[i].count == 0 || (i && b[i].lo <= b[i - 1].lo))
            return -1;
    struct nf_run_hist *h = (struct nf_run_hist *)nf_run_hist_find(run, name);
    if (h && h->nreps && h->reps[h->nreps - 1].rep >= rep)
        return -1;
    if (!h) {
        run->hists = nf_xrealloc(run->hists, (run->nhists + 1) * sizeof(*h));
        h = &run->hists[run->nhists++];
        memset(h, 0, sizeof(*h));
        h->name = nf_xstrdup(name);
    }
    if (h->nreps == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 16;
        h->reps = nf_xrealloc(h->reps, h->cap * sizeof(*h->reps));
    }
    struct nf_rep_hist *r = &h->reps[h->nreps++];
    r->rep = rep;
    r->n = n;
    r->b = nf_xmalloc(n * sizeof(*b));
    memcpy(r->b, b, n * sizeof(*b));
    return 0;
}

void nf_run_hists_clear(struct nf_run *run)
{
    for (size_t i = 0; i < run->nhists; i++) {
        for (size_t k = 0; k < run->hists[i].nreps; k++)
            free(run->hists[i].reps[k].b);
        free(run->hists[i].reps);
        free(run->hists[i].name);
    }
    free(run->hists);
    run->hists = NULL;
    run->nhists = 0;
}

void nf_runs_free(struct nf_run **runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        nf_run_free(runs[i]);
    free(runs);
}

void nf_label_escape(char *out, size_t outlen, const char *label, int utf8)
{
    const unsigned char *s = (const unsigned char *)label;
    size_t k = 0;
    for (size_t i = 0; s[i] && k + 8 < outlen; i++) {
        unsigned c = s[i];
        if (k >= 60 && (c & 0xc0) != 0x80) { /* not inside a UTF-8 character */
            k += (size_t)snprintf(out + k, outlen - k, "...");
            break;
        }
        if (c == '\n' || c == '\t' || c == '\r' || c == '\\')
            k += (size_t)snprintf(out + k, outlen - k, "\\%c",
                                  c == '\n'   ? 'n'
                                  : c == '\t' ? 't'
                                  : c == '\r' ? 'r'
                                              : '\\');
        else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8))
            k += (size_t)snprintf(out + k, outlen - k, "\\x%02x", c);
        else if (c == 0xc2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
            k += (size_t)snprintf(out + k, outlen - k, "\\u%04x", s[++i]);
        else if (utf8 && nf_invisible_at(s + i)) {
            unsigned cp = ((c & 0x0fu) << 12) | ((s[i + 1] & 0x3fu) << 6) | (s[i + 2] & 0x3fu);
            k += (size_t)snprintf(out + k, outlen - k, "\\u%04x", cp);
            i += 2;
        } else
            out[k++] = (char)c;
    }
    out[k] = 0;
}

int nf_label_check(const char *what, const char *label, char *err, size_t errlen)
{
    size_t len = strlen(label);
    if (len == 0) {
        snprintf(err, errlen, "%s: a label cannot be empty", what);
        return -1;
    }
    int utf8 = nf_utf8_valid(label, len, NULL);
    int control = 0, invisible = 0;
    for (const unsigned char *p = (const unsigned char *)label; *p; p++) {
        /* C0, DEL, and C1 (U+0080..U+009F: 0xc2 0x80..0x9f in UTF-8) */
        control |= *p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
        invisible |= utf8 && nf_invisible_at(p) != 0;
    }
    if (utf8 && !control && !invisible)
        return 0;
    char shown[96];
    nf_label_escape(shown, sizeof(shown), label, utf8);
    snprintf(err, errlen, "%s '%s' %s: a label is one line of printable text", what, shown,
             !utf8     ? "is not UTF-8"
             : control ? "contains a control character"
                       : "contains an invisible or bidirectional control character");
    return -1;
}
