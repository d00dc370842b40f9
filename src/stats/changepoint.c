/* Change points of a series of runs: the detection's steps in order
 * (changepoint.h lists them), the results, BH across series and the tip.
 * The split search is cp_search.c's, outliers and drift cp_shape.c's. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint.h"
#include "stats/cp_int.h"
#include "stats/tests.h"

void nf_cp_opts_default(struct nf_cp_opts *o)
{
    o->alpha = 0.01;
    o->min_seg = 5;
    o->threshold_pct = 1.0;
    o->outlier_k = 5.0;
    o->drift = 1;
    o->serial = 1;
    o->test = NF_CP_TTEST;
    o->permutations = 199;
    o->seed = 1;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void nf_cp_free(struct nf_cp_result *r)
{
    if (!r)
        return;
    free(r->cp);
    free(r->seg);
    free(r->drift);
    free(r->outlier);
    memset(r, 0, sizeof *r);
}

static void ctx_free(struct cp_ctx *c)
{
    free(c->y);
    free(c->sem2);
    free(c->orig);
    free(c->p1);
    free(c->p2);
    free(c->pe);
    free(c->pi);
    free(c->vi);
    free(c->rank);
    free(c->fc);
    free(c->fs);
    free(c->wl);
    free(c->wr);
    free(c->q);
    free(c->pidx);
}

/* The kept points (all but the outliers, which are sorted) and their
 * prefix sums. */
static int ctx_init(struct cp_ctx *c, const struct nf_cp_opts *o, const struct nf_cp_point *pts,
                    size_t n, const size_t *out, size_t no)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    size_t N = n - no, N1 = N + 1;
    c->y = malloc(N1 * sizeof *c->y);
    c->sem2 = malloc(N1 * sizeof *c->sem2);
    c->orig = malloc(N1 * sizeof *c->orig);
    c->p1 = malloc(N1 * sizeof *c->p1);
    c->p2 = malloc(N1 * sizeof *c->p2);
    c->pe = malloc(N1 * sizeof *c->pe);
    c->pi = malloc(N1 * sizeof *c->pi);
    c->vi = malloc(N1 * sizeof *c->vi);
    c->rank = malloc(N1 * sizeof *c->rank);
    c->fc = calloc(N1, sizeof *c->fc);
    c->fs = calloc(N1, sizeof *c->fs);
    c->wl = malloc(N1 * sizeof *c->wl);
    c->wr = malloc(N1 * sizeof *c->wr);
    c->q = malloc(N1 * sizeof *c->q);
    c->pidx = malloc(N1 * sizeof *c->pidx);
    if (!c->y || !c->sem2 || !c->orig || !c->p1 || !c->p2 || !c->pe || !c->pi || !c->vi ||
        !c->rank || !c->fc || !c->fs || !c->wl || !c->wr || !c->q || !c->pidx)
        return -1;
    size_t k = 0, j = 0;
    for (size_t i = 0; i < n; i++) {
        if (j < no && out[j] == i) {
            j++;
            continue;
        }
        if (!k)
            c->centre = pts[i].mean;
        c->y[k] = pts[i].mean - c->centre;
        c->sem2[k] = pts[i].n >= 2 ? pts[i].sd * pts[i].sd / (double)pts[i].n : 0;
        c->orig[k++] = i;
    }
    c->N = N;
    c->p1[0] = c->p2[0] = c->pe[0] = c->pi[0] = 0;
    for (size_t i = 0; i < N; i++) {
        c->p1[i + 1] = c->p1[i] + c->y[i];
        c->p2[i + 1] = c->p2[i] + c->y[i] * c->y[i];
        c->pe[i + 1] = c->pe[i] + c->sem2[i];
        c->pi[i + 1] = c->pi[i] + (double)i * c->y[i];
    }
    /* Every point's rank among all kept points (distinct: ties by
     * position), once: the energy's Fenwick tree is indexed by them. */
    for (size_t i = 0; i < N; i++) {
        c->vi[i].v = c->y[i];
        c->vi[i].i = i;
    }
    nf_st_sort_vi(c->vi, N);
    for (size_t i = 0; i < N; i++)
        c->rank[c->vi[i].i] = i;
    nf_mt_seed(&c->mt, o->seed);
    return 0;
}

/* The energy at a given split of [a, b). */
static double energy_at(struct cp_ctx *c, size_t a, size_t tau, size_t b)
{
    size_t t, L = c->o->min_seg;
    double qm;
    if (tau < a + L || tau + L > b || cp_best_split(c, a, b, &t, &qm))
        return NAN;
    return c->q[tau - a - L];
}

static int cmp_size(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return (a > b) - (a < b);
}

/* Steps 2 and 3: binary segmentation from [0, N); the change points
 * (kept-point indices, ascending) into cps, their count the return. */
static size_t segment(struct cp_ctx *c, size_t *cps, size_t *stack)
{
    size_t k = 0, top = 0;
    stack[top++] = 0;
    stack[top++] = c->N;
    while (top) {
        size_t b = stack[--top], a = stack[--top], tau;
        double qm, t, df;
        if (cp_best_split(c, a, b, &tau, &qm))
            continue;
        if (!(cp_split_p(c, a, tau, b, qm, &t, &df) <= c->o->alpha)) {
            double p;
            if (cp_seeded_split(c, a, b, &tau, &p) || !(p <= c->o->alpha))
                continue;
        }
        cps[k++] = tau;
        stack[top++] = a;
        stack[top++] = tau;
        stack[top++] = tau;
        stack[top++] = b;
    }
    qsort(cps, k, sizeof *cps, cmp_size);
    return k;
}

/* The neighbourhood [*a, *b) of change point j: from the change point
 * before to the one after, less any drift on either side (a level next to
 * a drift is the flat part, not the ramp's average); at least min_seg
 * points a side. */
static void neighbours(const struct cp_ctx *c, const size_t *cps, size_t k, size_t j, size_t *a,
                       size_t *b)
{
    size_t tau = cps[j], L = c->o->min_seg;
    *a = j ? cps[j - 1] : 0;
    *b = j + 1 < k ? cps[j + 1] : c->N;
    for (size_t d = 0; d < c->nkd; d++) {
        size_t f = c->kd[d].from, t = c->kd[d].to;
        if (t <= tau && t > *a && tau - t >= L)
            *a = t;
        if (f >= tau && f < *b && f - tau >= L)
            *b = f;
    }
}

/* The p of change point j between its neighbours. */
static double cp_p(struct cp_ctx *c, const size_t *cps, size_t k, size_t j)
{
    size_t a, b;
    neighbours(c, cps, k, j, &a, &b);
    double t, df, q = 0;
    if (c->o->test == NF_CP_PERMUTATION)
        q = energy_at(c, a, cps[j], b);
    return cp_split_p(c, a, cps[j], b, q, &t, &df);
}

/* Step 4: while some change point has p > alpha between its neighbours,
 * the one with the largest p goes.  p[] keeps each one's p. */
static size_t merge(struct cp_ctx *c, size_t *cps, size_t k, double *p)
{
    for (size_t j = 0; j < k; j++)
        p[j] = cp_p(c, cps, k, j);
    while (k) {
        size_t w = 0;
        for (size_t j = 1; j < k; j++)
            if (p[j] > p[w] || (isnan(p[j]) && !isnan(p[w])))
                w = j;
        if (p[w] <= c->o->alpha)
            break;
        memmove(cps + w, cps + w + 1, (k - w - 1) * sizeof *cps);
        memmove(p + w, p + w + 1, (k - w - 1) * sizeof *p);
        k--;
        if (w > 0)
            p[w - 1] = cp_p(c, cps, k, w - 1);
        if (w < k)
            p[w] = cp_p(c, cps, k, w);
    }
    return k;
}

/* The change point at kept index cps[j], in the caller's indexing. */
static void fill_change(struct cp_ctx *c, const size_t *cps, size_t k, size_t j,
                        struct nf_cp_change *x)
{
    const struct nf_cp_opts *o = c->o;
    size_t a, tau = cps[j], b;
    neighbours(c, cps, k, j, &a, &b);
    struct cp_seg l, r;
    cp_seg_stat(c, a, tau, &l);
    cp_seg_stat(c, tau, b, &r);
    x->index = c->orig[tau];
    x->prev = c->orig[tau - 1];
    x->before = c->centre + l.mean;
    x->after = c->centre + r.mean;
    x->change_pct = x->before != 0 ? 100 * (x->after / x->before - 1) : NAN;
    x->energy = energy_at(c, a, tau, b);
    x->p = cp_split_p(c, a, tau, b, x->energy, &x->t, &x->df);
    x->q = NAN;
    /* Fieller's df from the effective counts, the spread scaled so that
     * the variance of each mean stays var / m. */
    size_t el = c->rho > 0 ? cp_seg_neff(&l) : l.m, er = c->rho > 0 ? cp_seg_neff(&r) : r.m;
    double sl = sqrt(l.var * (double)el / (double)l.m), sr = sqrt(r.var * (double)er / (double)r.m);
    double lo, hi;
    if (nf_fieller(x->before, sl, el, x->after, sr, er, o->alpha, &lo, &hi) == 0) {
        x->ci_low_pct = 100 * (lo - 1);
        x->ci_high_pct = 100 * (hi - 1);
    } else
        x->ci_low_pct = x->ci_high_pct = NAN;
    double thr = o->threshold_pct;
    x->beyond_threshold = x->ci_low_pct > thr || x->ci_high_pct < -thr;
    x->within_threshold = x->ci_low_pct >= -thr && x->ci_high_pct <= thr;
}

/* The segments between the change points; each one's best split not
 * taken, and the drift it lies in. */
static void fill_segments(struct cp_ctx *c, const size_t *cps, size_t k, size_t n,
                          struct nf_cp_result *r)
{
    for (size_t j = 0; j <= k; j++) {
        size_t a = j ? cps[j - 1] : 0, b = j < k ? cps[j] : c->N;
        struct nf_cp_segment *s = &r->seg[j];
        struct cp_seg g;
        cp_seg_stat(c, a, b, &g);
        s->from = j ? c->orig[a] : 0;
        s->to = j < k ? c->orig[b] : n;
        s->runs = g.m;
        s->mean = c->centre + g.mean;
        s->sd = g.m > 1 ? sqrt(g.ss / (double)(g.m - 1)) : 0;
        s->sem_floor = sqrt(g.floor);
        s->split_p = s->split_q = NAN;
        size_t tau;
        double qm, t, df;
        if (cp_best_split(c, a, b, &tau, &qm) == 0)
            s->split_p = cp_split_p(c, a, tau, b, qm, &t, &df);
        s->drift = -1;
        for (size_t d = 0; d < r->ndrift; d++)
            if (r->drift[d].from < s->to && s->from < r->drift[d].to) {
                s->drift = (int)d;
                break;
            }
    }
}

/* Steps 2 to 5 (and 4 again after a drift): the change points into
 * cps[0..*k-1], the drifts (kept indices) into drift[0..*nd-1] and a copy
 * the neighbours see in *kd (c->kd).  -1 when memory runs out. */
static int pass(struct cp_ctx *c, size_t *cps, size_t *stack, double *p, struct nf_cp_drift *drift,
                struct nf_cp_drift **kd, size_t *k, size_t *nd)
{
    const struct nf_cp_opts *o = c->o;
    c->kd = NULL;
    c->nkd = 0;
    *nd = 0;
    *k = c->N < 2 * o->min_seg ? 0 : segment(c, cps, stack);
    *k = merge(c, cps, *k, p);
    if (!o->drift || !*k)
        return 0;
    int d = cp_drift(c, cps, k, drift);
    if (d < 0)
        return -1;
    *nd = (size_t)d;
    /* The change points left are tested again between their new
     * neighbours (those of the staircases are gone). */
    free(*kd);
    *kd = malloc((d ? (size_t)d : 1) * sizeof **kd);
    if (!*kd)
        return -1;
    memcpy(*kd, drift, (size_t)d * sizeof **kd);
    c->kd = *kd;
    c->nkd = (size_t)d;
    if (d)
        *k = merge(c, cps, *k, p);
    return 0;
}

int nf_cp_detect(const struct nf_cp_point *pts, size_t n, const struct nf_cp_opts *o,
                 struct nf_cp_result *out, char *err, size_t errlen)
{
    if (!out)
        return fail(err, errlen, "changepoint: no result");
    memset(out, 0, sizeof *out);
    if (!o || (!pts && n))
        return fail(err, errlen, "changepoint: no points or options");
    if (!(o->alpha > 0 && o->alpha < 1))
        return fail(err, errlen, "changepoint: alpha %g is not in (0, 1)", o->alpha);
    if (o->min_seg < 2)
        return fail(err, errlen, "changepoint: a segment needs at least 2 points");
    if (!(o->threshold_pct >= 0))
        return fail(err, errlen, "changepoint: threshold %g%% is not >= 0", o->threshold_pct);
    if (o->test == NF_CP_PERMUTATION && !o->permutations)
        return fail(err, errlen, "changepoint: the permutation test needs permutations");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(pts[i].mean) || !isfinite(pts[i].sd) || pts[i].sd < 0)
            return fail(err, errlen, "changepoint: point %zu has mean %g, sd %g", i, pts[i].mean,
                        pts[i].sd);
    out->n = n;
    out->noise_sd = NAN;
    if (!n)
        return 0;
    out->outlier = malloc(n * sizeof *out->outlier);
    if (!out->outlier)
        return fail(err, errlen, "changepoint: out of memory");
    double var;
    size_t no = cp_outliers(pts, n, o->outlier_k, out->outlier, &var);
    if (no == (size_t)-1)
        return fail(err, errlen, "changepoint: out of memory");
    out->noutlier = no;
    out->noise_sd = sqrt(var);

    struct cp_ctx c;
    struct nf_cp_drift *kd = NULL;
    size_t *cps = NULL, *stack = NULL;
    double *p = NULL;
    int rc = -1;
    if (ctx_init(&c, o, pts, n, out->outlier, no))
        goto oom;
    c.noise_var = var;
    size_t N = c.N, maxk = N / o->min_seg + 1;
    cps = malloc(maxk * sizeof *cps);
    stack = malloc(4 * (maxk + 1) * sizeof *stack);
    p = malloc(maxk * sizeof *p);
    out->drift = malloc(maxk * sizeof *out->drift);
    if (!cps || !stack || !p || !out->drift)
        goto oom;
    out->too_short = N < 2 * o->min_seg;
    size_t k, nd;
    out->serial_r = out->serial_p = NAN;
    if (pass(&c, cps, stack, p, out->drift, &kd, &k, &nd))
        goto oom;
    if (o->serial && !out->too_short) {
        /* The points around that fit: when they are serially correlated,
         * the search again with every test knowing it. */
        double rho = cp_serial(&c, cps, k, out->drift, nd, &out->serial_r, &out->serial_p);
        if (rho < 0)
            goto oom;
        out->serial_rho = rho;
        c.rho = rho;
        if (rho > 0 && (k || nd) && pass(&c, cps, stack, p, out->drift, &kd, &k, &nd))
            goto oom;
    }
    out->ndrift = nd;
    for (size_t d = 0; d < nd; d++) {
        struct nf_cp_drift *x = &out->drift[d];
        x->steps = 0;
        for (size_t j = 0; j < k; j++)
            x->steps += cps[j] > x->from && cps[j] < x->to;
        x->from = x->from ? c.orig[x->from] : 0;
        x->to = x->to < N ? c.orig[x->to] : n;
    }
    out->cp = malloc((k ? k : 1) * sizeof *out->cp);
    out->seg = malloc((k + 1) * sizeof *out->seg);
    if (!out->cp || !out->seg)
        goto oom;
    out->ncp = k;
    for (size_t j = 0; j < k; j++)
        fill_change(&c, cps, k, j, &out->cp[j]);
    out->nseg = k + 1;
    fill_segments(&c, cps, k, n, out);
    rc = 0;
oom:
    if (rc)
        fail(err, errlen, "changepoint: out of memory");
    ctx_free(&c);
    free(kd);
    free(cps);
    free(stack);
    free(p);
    return rc;
}

/* -------------------------------------------------------------- BH, tip */

struct pidx {
    double p;
    size_t i;
};

static int cmp_pidx(const void *pa, const void *pb)
{
    const struct pidx *a = pa, *b = pb;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

int nf_bh(const double *p, size_t m, double *q)
{
    if ((!p || !q) && m)
        return -1;
    struct pidx *s = malloc((m ? m : 1) * sizeof *s);
    if (!s)
        return -1;
    size_t mf = 0;
    for (size_t i = 0; i < m; i++)
        if (!isnan(p[i])) {
            s[mf].p = p[i];
            s[mf++].i = i;
        }
    for (size_t i = 0; i < m; i++)
        if (isnan(p[i]))
            q[i] = NAN;
    qsort(s, mf, sizeof *s, cmp_pidx);
    double run = 1;
    for (size_t j = mf; j-- > 0;) {
        double v = s[j].p * (double)mf / (double)(j + 1);
        if (v < run)
            run = v;
        q[s[j].i] = run;
    }
    free(s);
    return 0;
}

int nf_cp_fdr(struct nf_cp_result *const *r, size_t k)
{
    size_t m = 0;
    for (size_t s = 0; s < k; s++)
        m += r[s]->ncp + r[s]->ndrift + r[s]->nseg;
    double *p = calloc(m ? m : 1, sizeof *p);
    if (!p)
        return -1;
    size_t i = 0;
    for (size_t s = 0; s < k; s++) {
        for (size_t j = 0; j < r[s]->ncp; j++)
            p[i++] = r[s]->cp[j].p;
        for (size_t j = 0; j < r[s]->ndrift; j++)
            p[i++] = r[s]->drift[j].p;
        for (size_t j = 0; j < r[s]->nseg; j++)
            p[i++] = r[s]->seg[j].split_p;
    }
    if (nf_bh(p, m, p)) {
        free(p);
        return -1;
    }
    i = 0;
    for (size_t s = 0; s < k; s++) {
        for (size_t j = 0; j < r[s]->ncp; j++)
            r[s]->cp[j].q = p[i++];
        for (size_t j = 0; j < r[s]->ndrift; j++)
            r[s]->drift[j].q = p[i++];
        for (size_t j = 0; j < r[s]->nseg; j++)
            r[s]->seg[j].split_q = p[i++];
    }
    free(p);
    return 0;
}

int nf_cp_tip(const struct nf_cp_result *r, const struct nf_cp_opts *o, struct nf_cp_tip *tip)
{
    if (!r || !o || !tip)
        return -1;
    memset(tip, 0, sizeof *tip);
    tip->change_pct = tip->ci_low_pct = tip->ci_high_pct = tip->p = tip->q = NAN;
    if (!r->nseg)
        return 0;
    const struct nf_cp_segment *s = &r->seg[r->nseg - 1];
    tip->from = s->from;
    tip->runs = s->runs;
    tip->drifting = s->drift >= 0;
    if (!r->ncp)
        return 0;
    const struct nf_cp_change *x = &r->cp[r->ncp - 1];
    tip->has_change = 1;
    tip->since = x->prev;
    tip->change_pct = x->change_pct;
    tip->ci_low_pct = x->ci_low_pct;
    tip->ci_high_pct = x->ci_high_pct;
    tip->p = x->p;
    tip->q = x->q;
    double level = isnan(x->q) ? x->p : x->q;
    tip->moved = level <= o->alpha && x->beyond_threshold;
    return 0;
}
