/* The difference of two profiles, per symbol, as perf diff shows it. */
#include "profile/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const char *nf_prof_dso_short(const char *dso)
{
    if (dso[0] == '[')
        return dso;
    const char *slash = strrchr(dso, '/');
    return slash && slash[1] ? slash + 1 : dso;
}

/* The profile re-keyed by short dso names (entries of two paths of one
 * basename summed). */
static void by_short_dso(const struct nf_profile *p, struct nf_profile *out)
{
    nf_profile_init(out);
    for (size_t i = 0; i < p->n; i++)
        nf_profile_add(out, p->e[i].symbol, nf_prof_dso_short(p->e[i].dso), p->e[i].samples,
                       p->e[i].period);
}

static double base_of(const struct nf_profdiff_row *r)
{
    return r->means ? r->mean_base_pct : r->base_pct;
}

static double other_of(const struct nf_profdiff_row *r)
{
    return r->means ? r->mean_other_pct : r->other_pct;
}

static double sort_key(const struct nf_profdiff_row *r)
{
    return r->in_base ? base_of(r) : other_of(r);
}

static double delta_of(const struct nf_profdiff_row *r)
{
    return other_of(r) - base_of(r);
}

static int by_baseline(const void *a, const void *b)
{
    const struct nf_profdiff_row *x = a, *y = b;
    double kx = sort_key(x), ky = sort_key(y);
    if (kx != ky)
        return kx > ky ? -1 : 1;
    double dx = fabs(delta_of(x)), dy = fabs(delta_of(y));
    if (dx != dy)
        return dx > dy ? -1 : 1;
    int c = strcmp(x->symbol, y->symbol);
    return c ? c : strcmp(x->dso, y->dso);
}

void nf_profile_diff(const struct nf_profile *base, const struct nf_profile *other, double min_pct,
                     struct nf_profdiff *out)
{
    struct nf_profile b, o;
    by_short_dso(base, &b);
    by_short_dso(other, &o);
    out->rows = nf_xcalloc(b.n + o.n, sizeof(*out->rows));
    out->n = 0;
    for (int side = 0; side < 2; side++) {
        const struct nf_profile *p = side ? &o : &b, *q = side ? &b : &o;
        for (size_t i = 0; i < p->n; i++) {
            const struct nf_prof_entry *e = &p->e[i];
            const struct nf_prof_entry *f = nf_profile_find(q, e->symbol, e->dso);
            if (side == 1 && f)
                continue; /* already a row from the baseline's side */
            const struct nf_prof_entry *be = side ? f : e, *oe = side ? e : f;
            struct nf_profdiff_row r = {0};
            r.in_base = be != NULL;
            r.in_other = oe != NULL;
            r.base_pct = be ? nf_profile_pct(&b, be) : 0.0;
            r.other_pct = oe ? nf_profile_pct(&o, oe) : 0.0;
            r.delta = r.other_pct - r.base_pct;
            r.base_samples = be ? be->samples : 0;
            r.other_samples = oe ? oe->samples : 0;
            if (r.base_pct < min_pct && r.other_pct < min_pct)
                continue;
            r.symbol = nf_xstrdup(e->symbol);
            r.dso = nf_xstrdup(e->dso);
            out->rows[out->n++] = r;
        }
    }
    if (out->n)
        qsort(out->rows, out->n, sizeof(*out->rows), by_baseline);
    nf_profile_free(&b);
    nf_profile_free(&o);
}

void nf_profdiff_order(struct nf_profdiff *d, const double *base, const double *other,
                       double min_pct)
{
    size_t out = 0;
    for (size_t i = 0; i < d->n; i++) {
        struct nf_profdiff_row *r = &d->rows[i];
        r->means = base && other;
        if (r->means) {
            r->mean_base_pct = base[i];
            r->mean_other_pct = other[i];
        }
        if (base_of(r) < min_pct && other_of(r) < min_pct) {
            free(r->symbol);
            free(r->dso);
            continue;
        }
        d->rows[out++] = *r;
    }
    d->n = out;
    if (d->n)
        qsort(d->rows, d->n, sizeof(*d->rows), by_baseline);
}

void nf_profdiff_free(struct nf_profdiff *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->rows[i].symbol);
        free(d->rows[i].dso);
    }
    free(d->rows);
    d->rows = NULL;
    d->n = 0;
}

size_t nf_profile_rep_shares(const struct nf_profile *p, const struct nf_profdiff *d, size_t nrows,
                             double **out)
{
    *out = NULL;
    size_t n = 0;
    for (size_t r = 0; r < p->nreps; r++) {
        if (!p->reps[r].period)
            continue;
        struct nf_profile q;
        by_short_dso(&p->reps[r], &q);
        *out = nf_xrealloc(*out, (n + 1) * (nrows ? nrows : 1) * sizeof(double));
        for (size_t i = 0; i < nrows; i++) {
            const struct nf_prof_entry *e = nf_profile_find(&q, d->rows[i].symbol, d->rows[i].dso);
            (*out)[n * nrows + i] = e ? nf_profile_pct(&q, e) : 0.0;
        }
        nf_profile_free(&q);
        n++;
    }
    return n;
}
