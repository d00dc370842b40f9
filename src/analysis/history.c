/* Building the series of `history` from stored runs, ordering them, and
 * running the change-point statistics over each (analysis/history.h). */
#include "analysis/history.h"

#include "analysis/hist_keys.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- a run's commit ------------------------------------------------------- */

static int all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* The commit of a run whose environment records commit and describe
 * (git_describe), as nf_hist_run_commit takes it. */
static const char *commit_of(const char *commit, const char *describe, char *buf, size_t len)
{
    if (commit && *commit) {
        snprintf(buf, len, "%s", commit);
        return buf;
    }
    /* git describe --always --dirty --tags: TAG-N-gSHA, SHA or TAG, each
     * perhaps with -dirty. */
    if (!describe || !*describe)
        return NULL;
    snprintf(buf, len, "%s", describe);
    size_t n = strlen(buf);
    if (n > 6 && strcmp(buf + n - 6, "-dirty") == 0)
        buf[n -= 6] = 0;
    char *g = strrchr(buf, '-');
    if (g && g[1] == 'g' && strlen(g + 2) >= 7 && all_hex(g + 2, strlen(g + 2)))
        memmove(buf, g + 2, strlen(g + 2) + 1);
    return *buf ? buf : NULL;
}

static const char *env_text(const struct nf_run *run, const char *key)
{
    const json_t *v = run->env ? json_object_get(run->env, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *nf_hist_run_commit(const struct nf_run *run, char *buf, size_t len)
{
    return commit_of(env_text(run, NF_ENV_COMMIT), env_text(run, "git_describe"), buf, len);
}

const char *nf_hist_prun_commit(const struct nf_prun *run, char *buf, size_t len)
{
    return commit_of(run->commit, run->describe, buf, len);
}

/* ---- entries: one (run, metric) each --------------------------------------- */

struct entry {
    size_t key; /* the place of its series' key (workload \x1f arguments \x1f metric \x1f host) */
    size_t run;
    const struct nf_point *m;
    size_t rank; /* commit or label place; 0 by time */
    const char *started;
    int64_t id;
    char *commit;
};

static int entry_cmp(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if ((c = strcmp(x->started, y->started)) != 0)
        return c;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* ---- notes -------------------------------------------------------------------- */

static void note(struct nf_hist_series *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct nf_hist_series *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *t = NULL;
    if (vasprintf(&t, fmt, ap) < 0)
        t = NULL;
    va_end(ap);
    if (!t)
        return;
    s->notes = nf_xrealloc(s->notes, (s->nnotes + 1) * sizeof(char *));
    s->notes[s->nnotes++] = t;
}

/* ---- the scale ------------------------------------------------------------------ */

/* A change in % of the tested scale (a rate's reciprocals) on the
 * metric's own scale. */
static double own_pct(int rate, double pct)
{
    return rate && isfinite(pct) ? 100.0 * (1.0 / (1.0 + pct / 100.0) - 1.0) : pct;
}

static void own_ci(int rate, double lo, double hi, double *olo, double *ohi)
{
    *olo = rate ? own_pct(1, hi) : lo;
    *ohi = rate ? own_pct(1, lo) : hi;
}

static double own_mean(int rate, double m)
{
    return rate ? 1.0 / m : m;
}

/* A point's mean and sd on the tested scale (tp) and on its own (pt), from
 * the metric's summary (core/run.h).  0, or -1 when a rate holds a value
 * <= 0 (it has no reciprocal). */
static int point_of(const struct nf_point *m, int rate, struct nf_cp_point *tp,
                    struct nf_hist_point *pt)
{
    const struct nf_metric_summary *u = &m->sum;
    if (rate && !u->recip)
        return -1;
    tp->mean = rate ? u->rmean : u->mean;
    tp->n = u->n;
    tp->sd = rate ? u->rsd : u->sd;
    pt->mean = own_mean(rate, tp->mean);
    pt->n = u->n;
    pt->sd = u->sd;
    return 0;
}

/* Whether a metric of this direction and unit is a rate (nf_metric_is_rate). */
static int is_rate(const struct nf_point *m)
{
    struct nf_metric t = {.better = m->better, .unit = (char *)m->unit};
    return nf_metric_is_rate(&t);
}

/* ---- building -------------------------------------------------------------------- */

/* Each run's place in the order asked for (SIZE_MAX: left out), in rk. */
static void run_ranks(const struct nf_hist_query *q, const struct nf_prun *runs, size_t n,
                      char **commits, size_t *rk)
{
    if (q->by == NF_HIST_BY_TIME) {
        memset(rk, 0, n * sizeof(*rk));
        return;
    }
    struct nf_hist_rank *t = nf_xcalloc(n + q->nlabels + q->ncommits + 1, sizeof(*t));
    size_t nt = 0;
    if (q->by == NF_HIST_BY_LABEL && q->nlabels) {
        for (size_t i = 0; i < q->nlabels; i++)
            t[nt++] = (struct nf_hist_rank){q->labels[i], i};
    } else if (q->by == NF_HIST_BY_COMMIT && q->ncommits) {
        for (size_t i = 0; i < q->ncommits; i++)
            t[nt++] = (struct nf_hist_rank){q->commits[i], q->commit_rank[i]};
    } else {
        /* The order of first appearance: each run's place in time, the
         * smallest of those with its label (commit). */
        struct entry *e = nf_xcalloc(n ? n : 1, sizeof(*e));
        for (size_t i = 0; i < n; i++)
            e[i] = (struct entry){.key = 0, .run = i, .started = runs[i].started, .id = runs[i].id};
        qsort(e, n, sizeof(*e), entry_cmp);
        for (size_t i = 0; i < n; i++) {
            const char *s = q->by == NF_HIST_BY_LABEL ? runs[e[i].run].label : commits[e[i].run];
            if (s)
                t[nt++] = (struct nf_hist_rank){s, i};
        }
        free(e);
    }
    nt = nf_hist_rank_table(t, nt);
    for (size_t i = 0; i < n; i++)
        rk[i] = nf_hist_rank_of(t, nt, q->by == NF_HIST_BY_LABEL ? runs[i].label : commits[i]);
    free(t);
}

static void series_init(struct nf_hist_series *s, const struct nf_points *p,
                        const struct nf_prun *run, const struct nf_point *m)
{
    const struct nf_pcfg *c = &p->cfgs[run->cfg];
    s->workload = nf_xstrdup(c->workload);
    size_t nw;
    char *const *w = nf_hist_key_words(c, &nw);
    s->argtext = nf_hist_words_text(w, nw);
    s->args = nf_xcalloc(nw + 1, sizeof(char *));
    for (size_t i = 0; i < nw; i++)
        s->args[i] = nf_xstrdup(w[i]);
    s->nargs = nw;
    s->metric = nf_xstrdup(m->metric);
    s->unit = nf_xstrdup(m->unit);
    s->host = nf_xstrdup(run->host);
    s->better = m->better;
    s->rate = is_rate(m);
}

/* The statistics of one series, and its numbers on the own scale. */
static int detect(struct nf_hist_series *s, const struct nf_cp_point *tp,
                  const struct nf_cp_opts *o, char *err, size_t errlen)
{
    if (nf_cp_detect(tp, s->n, o, &s->cp, err, errlen))
        return -1;
    if (s->cp.serial_rho > 0)
        note(s,
             "the tests allow for serial correlation of the runs (lag-1 r %.2f around the "
             "segments, p %.3g): AR(1) with coefficient %.2f (doc/statistics.md)",
             s->cp.serial_r, s->cp.serial_p, s->cp.serial_rho);
    s->chg = nf_xcalloc(s->cp.ncp + 1, sizeof(*s->chg));
    s->seg_mean = nf_xcalloc(s->cp.nseg + 1, sizeof(double));
    s->drift_pct = nf_xcalloc(s->cp.ndrift + 1, sizeof(double));
    s->drift_lo = nf_xcalloc(s->cp.ndrift + 1, sizeof(double));
    s->drift_hi = nf_xcalloc(s->cp.ndrift + 1, sizeof(double));
    return 0;
}

static void own_scale(struct nf_hist_series *s, const struct nf_cp_opts *o)
{
    int rate = s->rate;
    for (size_t j = 0; j < s->cp.nseg; j++)
        s->seg_mean[j] = own_mean(rate, s->cp.seg[j].mean);
    for (size_t i = 0; i < s->cp.ncp; i++) {
        const struct nf_cp_change *c = &s->cp.cp[i];
        struct nf_hist_change *h = &s->chg[i];
        h->cp = c;
        h->before = own_mean(rate, c->before);
        h->after = own_mean(rate, c->after);
        h->change_pct = own_pct(rate, c->change_pct);
        own_ci(rate, c->ci_low_pct, c->ci_high_pct, &h->ci_low_pct, &h->ci_high_pct);
        h->significant = (isfinite(c->q) ? c->q : c->p) <= o->alpha;
    }
    for (size_t i = 0; i < s->cp.ndrift; i++) {
        const struct nf_cp_drift *d = &s->cp.drift[i];
        s->drift_pct[i] = own_pct(rate, d->change_pct);
        own_ci(rate, d->ci_low_pct, d->ci_high_pct, &s->drift_lo[i], &s->drift_hi[i]);
    }
    nf_cp_tip(&s->cp, o, &s->tip);
    s->tip_pct = own_pct(rate, s->tip.change_pct);
    own_ci(rate, s->tip.ci_low_pct, s->tip.ci_high_pct, &s->tip_lo, &s->tip_hi);
}

/* The entries of the selection: one per run and metric a series takes. */
static size_t collect(const struct nf_hist_query *q, const struct nf_points *p, char **commits,
                      const size_t *rk, struct entry **out)
{
    size_t cap = p->nruns + 1, k = 0;
    struct entry *e = nf_xcalloc(cap, sizeof(*e));
    char **texts = nf_hist_cfg_texts(p);
    struct nf_hist_groups g = {0};
    for (size_t r = 0; r < p->nruns; r++) {
        const struct nf_prun *run = &p->runs[r];
        if (run->state == NF_RUN_SUPERSEDED || rk[r] == SIZE_MAX)
            continue;
        for (size_t mi = 0; mi < run->npts; mi++) {
            const struct nf_point *m = &p->pts[run->first + mi];
            int take = q->metric        ? strcmp(m->metric, q->metric) == 0
                       : q->all_metrics ? 1
                                        : m->primary;
            if (!take || !m->supported || !m->sum.n)
                continue;
            if (k == cap)
                e = nf_xrealloc(e, (cap *= 2) * sizeof(*e));
            e[k++] = (struct entry){.key = nf_hist_group_of(&g, p, texts, run, m->metric),
                                    .run = r,
                                    .m = m,
                                    .rank = rk[r],
                                    .started = run->started,
                                    .id = run->id,
                                    .commit = commits[r]};
        }
    }
    for (size_t i = 0; i < p->ncfgs; i++)
        free(texts[i]);
    free(texts);
    nf_hist_groups_place(&g);
    for (size_t i = 0; i < k; i++)
        e[i].key = g.g[e[i].key].place;
    nf_hist_groups_free(&g);
    qsort(e, k, sizeof(*e), entry_cmp);
    *out = e;
    return k;
}

static int build_series(struct nf_history *h, const struct nf_points *p, const struct entry *e,
                        size_t k, char *err, size_t errlen)
{
    struct nf_hist_series *s = &h->s[h->n++];
    const struct nf_prun *first = &p->runs[e[0].run];
    series_init(s, p, first, e[0].m);
    s->pts = nf_xcalloc(k, sizeof(*s->pts));
    struct nf_cp_point *tp = nf_xcalloc(k, sizeof(*tp));
    for (size_t i = 0; i < k; i++) {
        const struct nf_prun *run = &p->runs[e[i].run];
        const struct nf_point *m = e[i].m;
        if (strcmp(m->unit, s->unit) != 0) {
            snprintf(err, errlen,
                     "%s %s: run %lld stores it in '%s', run %lld in '%s'; one series has one "
                     "unit (select the runs with -L or -w)",
                     s->workload, s->metric, (long long)first->id, s->unit, (long long)run->id,
                     m->unit);
            free(tp);
            return NF_EINPUT;
        }
        if (run->state != NF_RUN_COMPLETE) {
            note(s, "run %lld left out: %s", (long long)run->id, nf_run_status_name(run->state));
            continue;
        }
        struct nf_hist_point *pt = &s->pts[s->n];
        if (point_of(m, s->rate, &tp[s->n], pt)) {
            note(s, "run %lld left out: a value <= 0 in a rate (no harmonic mean)",
                 (long long)run->id);
            continue;
        }
        pt->run = run->id;
        pt->label = run->label;
        pt->started = run->started;
        pt->commit = e[i].commit ? nf_xstrdup(e[i].commit) : NULL;
        s->n++;
    }
    int rc = detect(s, tp, &h->q.cp, err, errlen);
    free(tp);
    return rc;
}

int nf_history_build_points(struct nf_history *h, const struct nf_points *p,
                            const struct nf_hist_query *q, char *err, size_t errlen)
{
    memset(h, 0, sizeof(*h));
    h->q = *q;
    size_t n = p->nruns;
    char **commits = nf_xcalloc(n ? n : 1, sizeof(char *));
    size_t *rk = nf_xcalloc(n ? n : 1, sizeof(size_t));
    for (size_t i = 0; i < n; i++) {
        char buf[256];
        const char *c = nf_hist_prun_commit(&p->runs[i], buf, sizeof(buf));
        commits[i] = c ? nf_xstrdup(c) : NULL;
    }
    run_ranks(q, p->runs, n, commits, rk);
    struct entry *e;
    size_t ne = collect(q, p, commits, rk, &e);
    int rc = 0;
    if (ne == 0) {
        snprintf(err, errlen, "no runs %s%s%s%s", q->metric ? "with metric '" : "",
                 q->metric ? q->metric : "", q->metric ? "'" : "",
                 q->by == NF_HIST_BY_COMMIT ? " that record a commit (run --source DIR records it)"
                 : q->by == NF_HIST_BY_LABEL && q->nlabels ? " with the labels given"
                                                           : " in the selection");
        rc = NF_EINPUT;
    }
    size_t nseries = 0;
    for (size_t i = 0; i < ne; i++)
        nseries += i == 0 || e[i].key != e[i - 1].key;
    h->s = nf_xcalloc(nseries + 1, sizeof(*h->s));
    for (size_t i = 0; rc == 0 && i < ne;) {
        size_t j = i + 1;
        while (j < ne && e[j].key == e[i].key)
            j++;
        rc = build_series(h, p, e + i, j - i, err, errlen);
        h->runs_used += h->s[h->n - 1].n;
        i = j;
    }
    free(e);
    for (size_t i = 0; i < n; i++)
        free(commits[i]);
    free(commits);
    free(rk);
    if (rc)
        return rc;
    struct nf_cp_result **all = nf_xcalloc(h->n + 1, sizeof(*all));
    for (size_t i = 0; i < h->n; i++)
        all[i] = &h->s[i].cp;
    if (nf_cp_fdr(all, h->n)) {
        free(all);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    free(all);
    for (size_t i = 0; i < h->n; i++)
        own_scale(&h->s[i], &q->cp);
    return 0;
}

int nf_history_build(struct nf_history *h, struct nf_run *const *runs, size_t n,
                     const struct nf_hist_query *q, char *err, size_t errlen)
{
    struct nf_points own; /* the history points into its pool: kept with it */
    nf_points_init(&own);
    for (size_t i = 0; i < n; i++)
        nf_points_add_run(&own, runs[i]);
    int rc = nf_history_build_points(h, &own, q, err, errlen);
    h->own = own;
    return rc;
}

void nf_history_free(struct nf_history *h)
{
    for (size_t i = 0; i < h->n; i++) {
        struct nf_hist_series *s = &h->s[i];
        free(s->workload);
        free(s->argtext);
        free(s->metric);
        free(s->unit);
        free(s->host);
        for (size_t a = 0; a < s->nargs; a++)
            free(s->args[a]);
        free(s->args);
        for (size_t p = 0; p < s->n; p++)
            free(s->pts[p].commit);
        free(s->pts);
        nf_cp_free(&s->cp);
        free(s->chg);
        free(s->seg_mean);
        free(s->drift_pct);
        free(s->drift_lo);
        free(s->drift_hi);
        for (size_t k = 0; k < s->nnotes; k++)
            free(s->notes[k]);
        free(s->notes);
    }
    free(h->s);
    nf_points_free(&h->own);
    memset(h, 0, sizeof(*h));
}

int nf_history_tip_moved(const struct nf_history *h)
{
    for (size_t i = 0; i < h->n; i++)
        if (h->s[i].tip.moved)
            return 1;
    return 0;
}

const char *nf_hist_verdict(const struct nf_hist_series *s, size_t j)
{
    if (j == 0 || j >= s->cp.nseg)
        return "-";
    const struct nf_hist_change *c = &s->chg[j - 1];
    int d = s->cp.seg[j].drift;
    if (d >= 0 && d == s->cp.seg[j - 1].drift)
        return "drift";
    if (!c->significant)
        return "inconclusive";
    if (c->cp->beyond_threshold) {
        int up = c->change_pct > 0;
        return up == (s->better == NF_BETTER_HIGHER) ? "improved" : "regressed";
    }
    if (c->cp->within_threshold)
        return "equivalent";
    return "changed";
}
