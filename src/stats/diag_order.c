/* The findings of the noise diagnosis in the repetitions' order and runs
 * (see diagnose.h, diag_find.h): a warm-up, found as a slowest cluster of
 * first repetitions or by the warm-up statistic; drift; serial
 * correlation; runs that differ more than their repetitions.  The findings
 * in the values' distribution and nf_diagnose itself are in diagnose.c. */
#include <math.h>
#include <stdlib.h>

#include "stats/autocorr.h"
#include "stats/diag_find.h"
#include "stats/diag_int.h"
#include "stats/summary.h"
#include "stats/verdict.h"

/* Is the slowest cluster exactly a prefix of every run it touches (and at
 * most half of each)?  Then it is a warm-up. */
static int prefix_cluster(const struct diag_ctx *c, unsigned char slow)
{
    size_t any = 0;
    for (size_t r = 0; r < c->nruns; r++) {
        size_t k = 0;
        while (k < c->len[r] && c->lab[c->off[r] + k] == slow)
            k++;
        for (size_t i = k; i < c->len[r]; i++)
            if (c->lab[c->off[r] + i] == slow)
                return 0;
        if (2 * k > c->len[r])
            return 0;
        any += k;
    }
    return any > 0;
}

/* Clusters of the values not marked warm; fills lab (0xff for warm ones). */
static int cluster_rest(struct diag_ctx *c, struct nf_clustering *cl)
{
    double *v = malloc(c->n * sizeof *v);
    unsigned char *l = malloc(c->n);
    int rc = -1;
    if (!v || !l)
        goto out;
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!c->warm[i])
            v[m++] = c->x[i];
    if (nf_clusters(v, m, cl, l) < 0)
        goto out;
    m = 0;
    for (size_t i = 0; i < c->n; i++)
        c->lab[i] = c->warm[i] ? 0xff : l[m++];
    rc = 0;
out:
    free(v);
    free(l);
    return rc;
}

int diag_find_warmup(struct diag_ctx *c, struct nf_clustering *cl)
{
    const struct nf_diag_opts *o = c->o;
    double worst = -INFINITY, worst_crit = NAN;
    size_t most = 0, flagged = 0;
    if (cl->k >= 2) {
        unsigned char slow = (unsigned char)(c->dir > 0 ? cl->k - 1 : 0);
        if (!prefix_cluster(c, slow))
            return 0;
        for (size_t r = 0; r < c->nruns; r++) {
            size_t k = 0;
            while (k < c->len[r] && c->lab[c->off[r] + k] == slow)
                c->warm[c->off[r] + k++] = 1;
            most = k > most ? k : most;
            flagged += k;
        }
        worst = cl->separation;
        worst_crit = cl->critical;
        if (cluster_rest(c, cl) < 0)
            return -1;
    } else {
        for (size_t r = 0; r < c->nruns; r++) {
            size_t w, len = c->len[r];
            double crit = nf_st_crit_warmup(len);
            double t = nf_st_warmup_stat(c->x + c->off[r], len, c->dir, crit, &w);
            if (!(t > crit) || w == 0)
                continue;
            for (size_t i = 0; i < w; i++)
                c->warm[c->off[r] + i] = 1;
            most = w > most ? w : most;
            flagged += w;
            if (t > worst) {
                worst = t;
                worst_crit = crit;
            }
        }
    }
    if (!flagged)
        return 0;
    struct nf_diag_finding *f = diag_add(c->d, NF_DIAG_WARMUP);
    double *slow = malloc(flagged * sizeof *slow), *rest = malloc(c->n * sizeof *rest);
    if (!f || !slow || !rest || !(f->reps = malloc(flagged * sizeof *f->reps))) {
        free(slow);
        free(rest);
        return -1;
    }
    size_t ns = 0, nr = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->warm[i]) {
            f->reps[ns] = i;
            slow[ns++] = c->x[i];
        } else {
            rest[nr++] = c->x[i];
        }
    }
    f->nreps = ns;
    f->u.warmup.count = most;
    f->u.warmup.slow_median = nf_quantile(slow, ns, 0.5);
    f->u.warmup.rest_median = nr ? nf_quantile(rest, nr, 0.5) : NAN;
    f->u.warmup.excess_pct = diag_pct(f->u.warmup.slow_median, f->u.warmup.rest_median);
    f->u.warmup.stat = worst;
    f->u.warmup.critical = worst_crit;
    free(slow);
    free(rest);
    if (most == 1)
        diag_text(f->summary, "the first repetition%s is slower", c->nruns > 1 ? " of a run" : "");
    else
        diag_text(f->summary, "the first %zu repetitions%s are slower", most,
                  c->nruns > 1 ? " of a run" : "");
    diag_more(f->summary, ": median %.4g vs %.4g (%+.1f%%)", f->u.warmup.slow_median,
              f->u.warmup.rest_median, f->u.warmup.excess_pct);
    diag_text(f->cause, "the first repetitions ran cold (caches, page faults, frequency ramp-up, "
                        "lazy initialisation)");
    if (o->ab_session)
        diag_text(f->fix,
                  "ab discards only its first round as warm-up, and these came later: warm "
                  "the command up inside it, or measure with run --warmup %u",
                  o->warmup + (unsigned)most);
    else
        diag_text(f->fix, "discard them: --warmup %u", o->warmup + (unsigned)most);
    return 0;
}

/* Run r without its warm-up: its repetitions [*s, *e). */
static void run_rest(const struct diag_ctx *c, size_t r, size_t *s, size_t *e)
{
    *s = c->off[r];
    *e = *s + c->len[r];
    while (*s < *e && c->warm[*s])
        ++*s;
}

/* The shortest run tested for drift and serial correlation. */
static size_t min_run(const struct diag_ctx *c)
{
    return c->o->drift_min_n ? c->o->drift_min_n : 10;
}

/* A new finding of that kind over the repetitions [s, e) of a run, or NULL
 * when memory runs out. */
static struct nf_diag_finding *run_finding(struct diag_ctx *c, enum nf_diag_kind kind, size_t s,
                                           size_t e)
{
    struct nf_diag_finding *f = diag_add(c->d, kind);
    if (!f || !(f->reps = malloc((e - s) * sizeof *f->reps)))
        return NULL;
    for (size_t i = s; i < e; i++)
        f->reps[f->nreps++] = i;
    return f;
}

int diag_find_drift(struct diag_ctx *c, double alpha)
{
    size_t min_n = min_run(c);
    for (size_t r = 0; r < c->nruns; r++) {
        size_t s, e;
        run_rest(c, r, &s, &e);
        double rho, p;
        if (e - s < min_n || nf_drift_check(c->x + s, e - s, alpha, &rho, &p) != 1)
            continue;
        struct nf_diag_finding *f = run_finding(c, NF_DIAG_DRIFT, s, e);
        if (!f)
            return -1;
        f->u.drift.run = r;
        f->u.drift.rho = rho;
        f->u.drift.p = p;
        diag_text(f->summary, "values trend with repetition order (Spearman rho %.2f, p %.3g)", rho,
                  p);
        if (c->nruns > 1)
            diag_text(f->summary,
                      "values trend with repetition order in run %zu (Spearman rho "
                      "%.2f, p %.3g)",
                      r, rho, p);
        diag_text(f->cause, "the machine's state changed during the run (temperature, frequency, "
                            "background load)");
        if (c->o->interleaved)
            diag_text(f->fix, "the rounds of ab pair it out when the variants are compared (drift "
                              "cancels round by round); run doctor for a steadier machine");
        else
            diag_text(f->fix, "interleave the variants with ab (drift cancels round by round); run "
                              "doctor");
    }
    return 0;
}

/* Serial correlation per run (after its warm-up), where no drift explains
 * it: a trend raises the lag-1 r too. */
int diag_find_serial(struct diag_ctx *c, double alpha)
{
    size_t min_n = min_run(c);
    for (size_t r = 0; r < c->nruns; r++) {
        size_t s, e;
        run_rest(c, r, &s, &e);
        int drift = 0;
        for (size_t i = 0; i < c->d->n; i++)
            drift |= c->d->f[i].kind == NF_DIAG_DRIFT && c->d->f[i].u.drift.run == r;
        struct nf_autocorr ac;
        if (drift || e - s < min_n || nf_autocorr1(c->x + s, e - s, &ac) < 0 || !(ac.p_pos < alpha))
            continue;
        struct nf_diag_finding *f = run_finding(c, NF_DIAG_SERIAL, s, e);
        if (!f)
            return -1;
        f->u.serial.run = r;
        f->u.serial.r = ac.r;
        f->u.serial.p = ac.p_pos;
        diag_text(f->summary, "neighbouring repetitions are correlated (lag-1 r %.2f, p %.3g)",
                  ac.r, ac.p_pos);
        diag_text(f->cause,
                  "the machine's state carries over from one repetition to the next (caches, "
                  "frequency, background load)");
        if (c->o->interleaved)
            diag_text(f->fix,
                      "the rounds of ab pair out what both variants share; the paired CI is "
                      "widened for what remains");
        else
            diag_text(f->fix,
                      "interleave the variants with ab (its paired CI allows for it); compared "
                      "as independent repetitions, the CI is too narrow");
    }
    return 0;
}

int diag_find_runs_differ(struct diag_ctx *c, double alpha)
{
    if (c->nruns < 2)
        return 0;
    const double **g = malloc(c->nruns * sizeof *g);
    size_t *ng = malloc(c->nruns * sizeof *ng);
    int rc = -1;
    if (!g || !ng)
        goto out;
    for (size_t r = 0; r < c->nruns; r++) {
        size_t s, e;
        run_rest(c, r, &s, &e);
        g[r] = c->x + s;
        ng[r] = e - s;
    }
    double p = c->o->runs_p;
    rc = 0;
    if (c->o->runs_given ? !(p < alpha) : nf_runs_differ(g, ng, c->nruns, alpha, &p) != 1)
        goto out;
    rc = -1;
    struct nf_diag_finding *f = diag_add(c->d, NF_DIAG_RUNS_DIFFER);
    if (!f)
        goto out;
    f->u.runs.runs = c->nruns;
    f->u.runs.p = p;
    diag_text(f->summary, "the %zu runs differ more than their repetitions (ANOVA p %.3g)",
              c->nruns, p);
    diag_text(f->cause, "each run (process invocation) starts in a different state (memory layout, "
                        "CPU placement, frequency)");
    diag_text(f->fix, "make several runs per variant (their means become the units)%s%s",
              c->o->interleaved ? "" : " or interleave with ab", c->o->pinned ? "" : "; --pin");
    rc = 0;
out:
    free(g);
    free(ng);
    return rc;
}
