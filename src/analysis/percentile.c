/* Percentile metrics: recognising a family, its event count, the tail note
 * (the grouping the renderers show is analysis/pct_family.c). */
#include "analysis/percentile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The units a latency is stored in (the workloads' usecs, and what a
 * command's --unit may say). */
static int time_unit(const char *u)
{
    static const char *const units[] = {"usecs", "usec", "us", "nsecs",   "nsec", "ns",
                                        "msecs", "msec", "ms", "seconds", "sec",  "s"};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(u, units[i]) == 0)
            return 1;
    return 0;
}

int nf_pct_parse(const char *name, const char *unit, char *prefix, size_t len, double *pct)
{
    if (!unit || !time_unit(unit))
        return 0;
    const char *dash = strrchr(name, '-');
    if (!dash || dash == name || (size_t)(dash - name) >= len)
        return 0;
    double p;
    if (strcmp(dash + 1, "max") == 0) {
        p = 100;
    } else {
        /* p, digits, at most one '.', digits: "p99.9", not "p1e2" or "p 5". */
        const char *s = dash + 1;
        if (*s++ != 'p' || *s < '0' || *s > '9')
            return 0;
        size_t dots = 0;
        for (const char *t = s; *t; t++) {
            if (*t == '.')
                dots++;
            else if (*t < '0' || *t > '9')
                return 0;
        }
        if (dots > 1 || s[strlen(s) - 1] == '.')
            return 0;
        p = strtod(s, NULL);
        if (!(p > 0 && p < 100))
            return 0;
    }
    memcpy(prefix, name, (size_t)(dash - name));
    prefix[dash - name] = 0;
    *pct = p;
    return 1;
}

int nf_pct_is_count(const struct nf_run *run, const struct nf_metric *m)
{
    size_t n = strlen(m->name);
    if (strcmp(m->unit, "count") != 0 || n < 2 || m->name[n - 1] != 's')
        return 0;
    for (size_t i = 0; i < run->nmetrics; i++) {
        char prefix[64];
        double pct;
        const struct nf_metric *x = &run->metrics[i];
        if (nf_pct_parse(x->name, x->unit, prefix, sizeof(prefix), &pct) && pct < 100 &&
            strlen(prefix) == n - 1 && strncmp(prefix, m->name, n - 1) == 0)
            return 1;
    }
    return 0;
}

double nf_pct_events(struct nf_run *const *runs, size_t n, const char *workload, const char *prefix)
{
    char *name = nf_xasprintf("%ss", prefix);
    double sum = 0;
    size_t k = 0;
    for (size_t r = 0; r < n; r++) {
        if (strcmp(runs[r]->workload, workload) != 0)
            continue;
        const struct nf_metric *m = nf_run_find(runs[r], name);
        if (!m || !m->supported || !nf_pct_is_count(runs[r], m))
            continue;
        for (size_t j = 0; j < m->n; j++, k++)
            sum += m->values[j];
    }
    free(name);
    return k ? sum / (double)k : NAN;
}

char *nf_pct_tail_note(const char *label, double pct, double events, const char *noun)
{
    if (!(pct < 100) || !isfinite(events))
        return NULL;
    /* (No rounding to call 1,000 x 10% fewer than 100.) */
    double beyond = events * (100 - pct) / 100;
    if (beyond > NF_PCT_MIN_TAIL * (1 - 1e-9))
        return NULL;
    return nf_xasprintf("%s: only the slowest %.3g of %.0f %s per repetition lie beyond it "
                        "(fewer than %d): single slow events move it; longer repetitions (more "
                        "%s) steady it",
                        label, beyond, events, noun, NF_PCT_MIN_TAIL, noun);
}

size_t nf_pct_sign_rounds(double level)
{
    size_t n = 1;
    while (n < 64 && ldexp(1, 1 - (int)n) > level)
        n++;
    return n;
}

size_t nf_pct_first_look(const struct nf_seq_design *d)
{
    for (size_t k = 0; k < d->nlooks; k++)
        if (ldexp(1, 1 - (int)d->rounds[k]) <= d->level_effect[k])
            return d->rounds[k];
    return 0;
}

/* A look's stop at the effect boundary that its rounds' signs could not
 * reach: undone (CONTINUE, or at the last look STOP_MAX, inconclusive). */
static int held_back(const struct nf_seq_design *d, size_t n, int final, struct nf_seq_look *l)
{
    if (l->action != NF_SEQ_STOP_EFFECT || ldexp(1, 1 - (int)n) <= l->level_effect)
        return 0;
    l->action = final || n >= d->o.max_rounds ? NF_SEQ_STOP_MAX : NF_SEQ_CONTINUE;
    l->verdict = NF_INCONCLUSIVE;
    l->significant = 0;
    l->negligible = 0;
    return 1;
}

int nf_pct_seq_replay(const struct nf_seq_design *d, const double *base, const double *var,
                      size_t n, int rate, enum nf_test test, enum nf_better better, int final,
                      struct nf_seq_look *out, size_t *held)
{
    *held = 0;
    if (!out || !d)
        return nf_seq_replay(d, base, var, n, rate, test, better, final, out);
    /* nf_seq_replay's loop: the looks before n in order, then n */
    for (size_t k = 0; k < d->nlooks && d->rounds[k] < n; k++) {
        if (nf_seq_evaluate(d, base, var, d->rounds[k], rate, test, better, 0, out) < 0)
            return -1;
        if (held_back(d, d->rounds[k], 0, out))
            *held = d->rounds[k];
        if (out->action != NF_SEQ_CONTINUE)
            return 0;
    }
    int rc = nf_seq_evaluate(d, base, var, n, rate, test, better, final, out);
    if (rc == 0 && out->is_look && held_back(d, n, final, out))
        *held = n;
    return rc;
}
