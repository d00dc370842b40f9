/* Noise diagnosis of one label's samples (stats/diagnose.h): nf_diagnose
 * and the findings in the values' distribution (clusters, outliers, a
 * noisy sample).  The findings in the repetitions' order and runs are in
 * diag_order.c (diag_find.h is what the two share); the robust advice for
 * an inconclusive comparison is in advice.c. */
#include "stats/diagnose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/diag_find.h"
#include "stats/diag_int.h"
#include "stats/robust.h"
#include "stats/summary.h"
#include "stats/tests_int.h"

const char *nf_diag_kind_name(enum nf_diag_kind k)
{
    switch (k) {
    case NF_DIAG_CLUSTERS: return "clusters";
    case NF_DIAG_WARMUP: return "warm-up";
    case NF_DIAG_OUTLIERS: return "outliers";
    case NF_DIAG_DRIFT: return "drift";
    case NF_DIAG_RUNS_DIFFER: return "runs-differ";
    case NF_DIAG_NOISY: return "noisy";
    case NF_DIAG_SERIAL: return "serial-correlation";
    }
    return "?";
}

/* -------------------------------------------------------------- findings */

struct nf_diag_finding *diag_add(struct nf_diagnosis *d, enum nf_diag_kind kind)
{
    struct nf_diag_finding *f = realloc(d->f, (d->n + 1) * sizeof *f);
    if (!f)
        return NULL;
    d->f = f;
    f = &d->f[d->n++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    return f;
}

void diag_text(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, NF_DIAG_TEXT, fmt, ap);
    va_end(ap);
}

void diag_more(char *buf, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= NF_DIAG_TEXT)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, NF_DIAG_TEXT - len, fmt, ap);
    va_end(ap);
}

double diag_pct(double v, double ref)
{
    return ref != 0 ? (v / ref - 1) * 100 : NAN;
}

static void clusters_text(struct nf_diag_finding *f, const struct nf_diag_opts *o)
{
    const struct nf_clustering *cl = &f->u.clusters.cl;
    diag_text(f->summary, "%zu clusters:", cl->k);
    for (size_t c = 0; c < cl->k; c++)
        diag_more(f->summary, "%s %zu around %.4g", c ? "," : "", cl->c[c].n, cl->c[c].center);
    if (isinf(cl->separation))
        diag_more(f->summary, " (each without spread)");
    else
        diag_more(f->summary, " (separation %.3g > %.3g)", cl->separation, cl->critical);
    switch (o->workload) {
    case NF_DIAG_PINGPONG:
        if (!o->pinned) {
            diag_text(f->cause, "task placement: the tasks sometimes share a CPU and sometimes "
                                "wake each other across CPUs");
            diag_text(f->fix, "pin them (--pin 0 for one CPU, --pin 0,1 for two); more repetitions "
                              "will not help");
        } else if (o->pinned == NF_DIAG_PINNED_ONE) {
            diag_text(f->cause,
                      "the one CPU the tasks are pinned to is sometimes shared with other "
                      "work (another process, interrupts, the hypervisor)");
            diag_text(f->fix,
                      "find the other load (doctor) or pin to an idle CPU; more repetitions "
                      "will not help");
        } else {
            diag_text(f->cause, "the pinned tasks still run in several states (placement among the "
                                "pinned CPUs, frequency, a busy SMT sibling)");
            diag_text(f->fix, "pin to one CPU (--pin 0) and run doctor; more repetitions will not "
                              "help");
        }
        return;
    case NF_DIAG_SPREAD:
        if (o->pinned == NF_DIAG_PINNED_ONE) {
            diag_text(f->cause,
                      "the one CPU the tasks are pinned to is sometimes shared with other "
                      "work (another process, interrupts, the hypervisor)");
            diag_text(f->fix, "find the other load (doctor); judge on the fast cluster (--test "
                              "shift); more repetitions will not help");
        } else {
            diag_text(f->cause, "task placement: the tasks' wake-ups cross CPUs more in some "
                                "repetitions than in others (or frequency, a busy SMT sibling)");
            diag_text(f->fix, "run doctor; judge on the fast cluster (--test shift); one CPU would "
                              "change the benchmark; more repetitions will not help");
        }
        return;
    case NF_DIAG_COMMAND:
        diag_text(f->cause, "the machine runs the command at several speeds (CPU frequency or "
                            "placement, a noisy neighbour, the hypervisor)");
        diag_text(f->fix,
                  "run doctor%s; judge on the fast cluster (--test shift); more "
                  "repetitions will not help",
                  o->pinned ? "" : " and pin it (--pin)");
        return;
    case NF_DIAG_GENERIC: break;
    }
    diag_text(f->cause, "the workload runs in several states (CPU placement, frequency, caches)");
    diag_text(f->fix,
              "find the state and fix it (%sdoctor); compare the clusters or use --test "
              "shift; more repetitions will not help",
              o->pinned ? "" : "--pin, ");
}

static void outliers_text(struct nf_diag_finding *f, const double *x, const struct nf_diag_opts *o)
{
    diag_text(f->summary, "%zu outlier%s:", f->nreps, f->nreps == 1 ? "" : "s");
    size_t show = f->nreps < 6 ? f->nreps : 5;
    for (size_t i = 0; i < show; i++) {
        size_t r = f->reps[i];
        diag_more(f->summary, "%s repetition %zu (%.4g, %+.1f%%)", i ? "," : "", r, x[r],
                  diag_pct(x[r], f->u.outliers.center));
    }
    if (show < f->nreps)
        diag_more(f->summary, ", ...");
    diag_more(f->summary, " beyond median %.4g -+ %.3g robust SDs", f->u.outliers.center,
              f->u.outliers.critical);
    if (o->workload == NF_DIAG_PINGPONG && !o->pinned) {
        diag_text(f->cause, "a migration or a cross-CPU wake-up during those repetitions");
        diag_text(f->fix, "pin the tasks (--pin 0); --test yuen or utest are not driven by a few "
                          "outliers");
    } else {
        diag_text(f->cause, "a disturbance during those repetitions (other load, interrupts, a "
                            "migration)");
        diag_text(f->fix, "run doctor to find the source; --test yuen or utest are not driven by a "
                          "few outliers");
    }
}

/* ----------------------------------------------------------------- parts */

static int find_clusters(struct diag_ctx *c, const struct nf_clustering *cl)
{
    struct nf_diag_finding *f = diag_add(c->d, NF_DIAG_CLUSTERS);
    if (!f || !(f->reps = malloc(c->n * sizeof *f->reps)))
        return -1;
    f->u.clusters.cl = *cl;
    for (size_t k = 0; k < cl->k; k++) {
        f->u.clusters.first[k] = f->nreps;
        for (size_t i = 0; i < c->n; i++)
            if (c->lab[i] == k)
                f->reps[f->nreps++] = i;
    }
    c->d->multimodal = 1;
    clusters_text(f, c->o);
    return 0;
}

static int find_outliers(struct diag_ctx *c, const struct nf_clustering *cl)
{
    double *v = malloc(c->n * sizeof *v);
    size_t *idx = malloc(c->n * sizeof *idx);
    int rc = -1;
    if (!v || !idx)
        goto out;
    for (size_t k = 0; k < cl->k; k++) {
        size_t m = 0;
        for (size_t i = 0; i < c->n; i++)
            if (c->lab[i] == k) {
                idx[m] = i;
                v[m++] = c->x[i];
            }
        if (m < 5)
            continue;
        double crit = nf_st_crit_outlier(m);
        nf_st_sort(v, m);
        double med = nf_quantile_sorted(v, m, 0.5), sc = nf_st_robust_scale(v, m, med);
        /* On values rounded to a grid (nf_cluster_resolution) the scale is
         * combined with the step as for clusters, and each fence moves out by
         * half a step, a value's own rounding: one step off a tied median
         * is no outlier. */
        double res = nf_cluster_resolution(v, m);
        sc = hypot(sc, res);
        double lo = med - crit * sc - res / 2, hi = med + crit * sc + res / 2;
        size_t bad = 0;
        for (size_t j = 0; j < m; j++) {
            double y = c->x[idx[j]];
            if (y < lo || y > hi)
                idx[bad++] = idx[j];
        }
        if (!bad)
            continue;
        struct nf_diag_finding *f = diag_add(c->d, NF_DIAG_OUTLIERS);
        if (!f || !(f->reps = malloc(bad * sizeof *f->reps)))
            goto out;
        memcpy(f->reps, idx, bad * sizeof *idx);
        f->nreps = bad;
        f->u.outliers.center = med;
        f->u.outliers.scale = sc;
        f->u.outliers.lo_fence = lo;
        f->u.outliers.hi_fence = hi;
        f->u.outliers.critical = crit;
        f->u.outliers.group_n = m;
        outliers_text(f, c->x, c->o);
    }
    rc = 0;
out:
    free(v);
    free(idx);
    return rc;
}

/* The step of the grid the values lie on (nf_cluster_resolution), as a
 * percentage of their median; 0 when they are not rounded. */
static double step_pct(const double *x, size_t n)
{
    double *s = nf_st_sorted_copy(x, n);
    if (!s)
        return 0;
    double res = nf_cluster_resolution(s, n), med = fabs(nf_quantile_sorted(s, n, 0.5));
    free(s);
    return res > 0 && med > 0 ? 100 * res / med : 0;
}

static int find_noisy(struct diag_ctx *c)
{
    double limit = c->o->noisy_cv_pct > 0 ? c->o->noisy_cv_pct : 5;
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++)
        m += !c->warm[i];
    double *v = malloc((m ? m : 1) * sizeof *v); /* without the warm-up */
    if (!v)
        return -1;
    m = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!c->warm[i])
            v[m++] = c->x[i];
    double cv = m < c->n ? nf_robust_cv_pct(v, m) : c->d->robust_cv_pct;
    double step = cv > limit ? step_pct(v, m) : 0;
    free(v);
    if (!(cv > limit))
        return 0;
    struct nf_diag_finding *f = diag_add(c->d, NF_DIAG_NOISY);
    if (!f)
        return -1;
    f->u.noisy.cv_pct = cv;
    f->u.noisy.limit_pct = limit;
    f->u.noisy.step_pct = step;
    diag_text(f->summary, "noisy: robust CV %.1f%% > %.3g%%", cv, limit);
    /* Rounding to a step h adds a spread of h/sqrt(12) (Sheppard): when
     * that alone is half the limit, the measurement's resolution is the
     * noise, and neither pinning nor a quieter machine removes it. */
    if (step / sqrt(12) >= limit / 2) {
        diag_text(f->cause,
                  "the measurement's resolution: the values are rounded to steps of %.3g%% "
                  "of the median",
                  step);
        diag_text(f->fix,
                  "make one repetition longer (more loops), so that a step is a smaller part "
                  "of it");
        return 0;
    }
    if (c->o->workload == NF_DIAG_PINGPONG && !c->o->pinned) {
        diag_text(f->cause, "task placement (the tasks share a CPU or wake each other across CPUs, "
                            "and migrate), or a noisy machine");
        diag_text(f->fix, "pin the tasks (--pin 0); run doctor (doctor --tune applies its fixes)");
        return 0;
    }
    diag_text(f->cause, "a noisy machine (other load, frequency scaling, virtualisation)");
    diag_text(f->fix, "run doctor (doctor --tune applies its fixes), or use a quieter machine");
    return 0;
}

int nf_diagnose(const double *x, size_t n, const size_t *run_len, size_t nruns,
                const struct nf_diag_opts *o, struct nf_diagnosis *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    out->robust_cv_pct = NAN;
    if (!x || !o || n == 0 || !nf_st_all_finite(x, n) || (run_len && nruns == 0))
        return -1;
    size_t one = n;
    if (!run_len) {
        run_len = &one;
        nruns = 1;
    }
    size_t total = 0;
    for (size_t r = 0; r < nruns; r++)
        total += run_len[r];
    if (total != n)
        return -1;

    struct diag_ctx c = {.x = x, .n = n, .nruns = nruns, .len = run_len, .o = o, .d = out};
    c.dir = o->higher_better ? -1 : 1;
    double alpha = o->alpha > 0 && o->alpha < 1 ? o->alpha : 0.05;
    c.off = malloc(nruns * sizeof *c.off);
    c.warm = calloc(n, 1);
    c.lab = malloc(n);
    int rc = -1;
    if (!c.off || !c.warm || !c.lab)
        goto out;
    for (size_t r = 0, s = 0; r < nruns; s += run_len[r++])
        c.off[r] = s;

    out->robust_cv_pct = nf_robust_cv_pct(x, n);
    struct nf_clustering cl;
    if (nf_clusters(x, n, &cl, c.lab) < 0)
        goto out;
    if (diag_find_warmup(&c, &cl) < 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (c.warm[i])
            c.lab[i] = 0xff; /* judged as warm-up, not as outliers */
    if ((cl.k >= 2 && find_clusters(&c, &cl) < 0) || find_outliers(&c, &cl) < 0 ||
        diag_find_drift(&c, alpha) < 0 || diag_find_serial(&c, alpha) < 0 ||
        diag_find_runs_differ(&c, alpha) < 0 || (cl.k < 2 && find_noisy(&c) < 0))
        goto out;
    /* in the order of enum nf_diag_kind: the most telling first (stable) */
    for (size_t i = 1; i < out->n; i++)
        for (size_t j = i; j > 0 && out->f[j].kind < out->f[j - 1].kind; j--) {
            struct nf_diag_finding t = out->f[j];
            out->f[j] = out->f[j - 1];
            out->f[j - 1] = t;
        }
    rc = 0;
out:
    free(c.off);
    free(c.warm);
    free(c.lab);
    if (rc < 0)
        nf_diagnosis_free(out);
    return rc;
}

void nf_diagnosis_free(struct nf_diagnosis *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->f[i].reps);
    free(d->f);
    d->f = NULL;
    d->n = 0;
}