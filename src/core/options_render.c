/* nf_opts_render: the other direction of nf_opts_parse.  A base that a
 * table filled is written back as words, in one spelling, leaving out
 * what equals the defaults, so that two command lines asking for the same
 * values give the same words (compare groups a built-in workload's runs
 * by them: workload/parse.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/options_int.h"
#include "core/util.h"

struct render {
    const char *defaults; /* the defaults' base; a hit's base minus cfg gives the offset */
    const char *cfg;
    char **w; /* the words so far, NULL-terminated */
    size_t n;
    /* The fields already written (several entries may share one: a
     * --progress and a --no-progress), and the ones that differ from the
     * defaults but no FLAG entry seen so far sets their value. */
    const char **done;
    size_t ndone;
    struct nf_opts_hit *owed;
    size_t nowed;
    char *err;
    size_t errlen;
};

static void word(struct render *r, char *s)
{
    r->w = nf_xrealloc(r->w, (r->n + 2) * sizeof(char *));
    r->w[r->n++] = s;
    r->w[r->n] = NULL;
}

static void name_word(struct render *r, const struct nf_opts_hit *h)
{
    char name[64];
    word(r, nf_xstrdup(nf_opts_name(name, sizeof(name), h->o, h->flags)));
}

static int is_done(const struct render *r, const char *field)
{
    for (size_t i = 0; i < r->ndone; i++)
        if (r->done[i] == field)
            return 1;
    return 0;
}

static void mark_done(struct render *r, const char *field)
{
    r->done = nf_xrealloc(r->done, (r->ndone + 1) * sizeof(*r->done));
    r->done[r->ndone++] = field;
}

static int int_of(const char *p)
{
    int v;
    memcpy(&v, p, sizeof(v));
    return v;
}

/* The integer an INT entry's field holds, as the parser wrote it. */
static char *int_text(const struct nf_option *o, const char *p)
{
    switch (o->itype) {
    case NF_OPTT_INT: return nf_xasprintf("%d", int_of(p));
    case NF_OPTT_ULONG: return nf_xasprintf("%lu", *(const unsigned long *)p);
    default: return nf_xasprintf("%ld", *(const long *)p);
    }
}

static int int_same(const struct nf_option *o, const char *a, const char *b)
{
    switch (o->itype) {
    case NF_OPTT_INT: return int_of(a) == int_of(b);
    case NF_OPTT_ULONG: return *(const unsigned long *)a == *(const unsigned long *)b;
    default: return *(const long *)a == *(const long *)b;
    }
}

/* The fewest digits that read back as the same double: 0.5, not
 * 0.50000000000000000 (`-d .5`, `-d 0.50` and `-d 5e-1` are one value);
 * a whole number below 10^15 in full (86400, not 8.64e+04). */
static char *double_text(double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return nf_xasprintf("%.0f", v);
    for (int prec = 1; prec < 17; prec++) {
        char *s = nf_xasprintf("%.*g", prec, v);
        if (strtod(s, NULL) == v)
            return s;
        free(s);
    }
    return nf_xasprintf("%.17g", v);
}

static int str_same(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

static int list_same(const struct nf_optlist *a, const struct nf_optlist *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (!str_same(a->v[i], b->v[i]))
            return 0;
    return 1;
}

/* Does the field of entry o differ between cfg (p) and the defaults (d)? */
static int differs(const struct nf_option *o, const char *p, const char *d)
{
    switch (o->kind) {
    case NF_OPTK_FLAG:
    case NF_OPTK_COUNTER:
    case NF_OPTK_CHOICE: return int_of(p) != int_of(d);
    case NF_OPTK_INT: return !int_same(o, p, d);
    case NF_OPTK_DOUBLE: {
        double a = *(const double *)p, b = *(const double *)d;
        return !(a == b || (isnan(a) && isnan(b)));
    }
    case NF_OPTK_STRING: return !str_same(*(const char *const *)p, *(const char *const *)d);
    case NF_OPTK_LIST: return !list_same((const void *)p, (const void *)d);
    default: return 0;
    }
}

static int cannot(struct render *r, const struct nf_opts_hit *h, const char *why)
{
    char name[64];
    snprintf(r->err, r->errlen, "%s: %s", nf_opts_name(name, sizeof(name), h->o, h->flags), why);
    return -1;
}

/* A CALLBACK: its show function's word for cfg against the defaults'. */
static int render_callback(struct render *r, const struct nf_opts_hit *h, const char *dbase)
{
    const struct nf_option *o = h->o;
    char a[512], b[512];
    if (!o->show)
        return cannot(r, h, "a callback without a show function has no canonical form");
    if (o->show(o, h->base, a, sizeof(a)) || o->show(o, dbase, b, sizeof(b)))
        return cannot(r, h, "its value cannot be shown");
    if (strcmp(a, b) == 0)
        return 0;
    name_word(r, h);
    if (o->arg)
        word(r, nf_xstrdup(a));
    return 0;
}

static int render_visit(const struct nf_opts_hit *h, void *ctx)
{
    struct render *r = ctx;
    const struct nf_option *o = h->o;
    if (!nf_opts_is_option(o))
        return 0;
    /* The same field of the defaults: the hit's base is cfg + an include's
     * offset. */
    const char *dbase = r->defaults + (h->base - r->cfg);
    if (o->kind == NF_OPTK_CALLBACK)
        return render_callback(r, h, dbase);
    const char *p = h->base + o->off, *d = dbase + o->off;
    if (is_done(r, p) || !differs(o, p, d))
        return 0;
    switch (o->kind) {
    case NF_OPTK_FLAG:
        if (int_of(p) != (int)o->min) { /* another entry's value, maybe */
            r->owed = nf_xrealloc(r->owed, (r->nowed + 1) * sizeof(*r->owed));
            r->owed[r->nowed++] = *h;
            return 0;
        }
        name_word(r, h);
        break;
    case NF_OPTK_COUNTER:
        if (int_of(p) < int_of(d))
            return cannot(r, h, "a counter below its default");
        for (int i = int_of(d); i < int_of(p); i++)
            name_word(r, h);
        break;
    case NF_OPTK_INT:
        name_word(r, h);
        word(r, int_text(o, p));
        break;
    case NF_OPTK_DOUBLE:
        if (!isfinite(*(const double *)p)) /* a default meaning "not given", say */
            return cannot(r, h, "a value no word gives");
        name_word(r, h);
        word(r, double_text(*(const double *)p));
        break;
    case NF_OPTK_STRING: {
        const char *s = *(const char *const *)p;
        if (!s)
            return cannot(r, h, "no value where the default has one");
        name_word(r, h);
        word(r, nf_xstrdup(s));
        break;
    }
    case NF_OPTK_CHOICE: {
        size_t i = 0;
        while (o->choices[i].name && o->choices[i].value != int_of(p))
            i++;
        if (!o->choices[i].name)
            return cannot(r, h, "a value none of its choices names");
        name_word(r, h);
        word(r, nf_xstrdup(o->choices[i].name));
        break;
    }
    case NF_OPTK_LIST: {
        /* Given values add to the default's: those are a prefix. */
        const struct nf_optlist *l = (const void *)p, *dl = (const void *)d;
        if (l->n < dl->n)
            return cannot(r, h, "fewer values than its default");
        for (size_t i = 0; i < dl->n; i++)
            if (!str_same(l->v[i], dl->v[i]))
                return cannot(r, h, "values that do not extend its default");
        for (size_t i = dl->n; i < l->n; i++) {
            name_word(r, h);
            word(r, nf_xstrdup(l->v[i] ? l->v[i] : ""));
        }
        break;
    }
    default: return 0;
    }
    mark_done(r, p);
    return 0;
}

int nf_opts_render(const struct nf_opts *opts, const void *base, const void *defaults,
                   char ***words, size_t *n, char *err, size_t errlen)
{
    struct render r = {.defaults = defaults, .cfg = base, .err = err, .errlen = errlen};
    r.w = nf_xcalloc(1, sizeof(char *)); /* no words is an array too */
    int rc = nf_opts_walk(opts, (char *)base, render_visit, &r);
    /* A flag field that differs and that no entry wrote: it holds a value
     * no entry of the table sets (a parse hook's, say). */
    for (size_t i = 0; rc == 0 && i < r.nowed; i++)
        if (!is_done(&r, r.owed[i].base + r.owed[i].o->off))
            rc = cannot(&r, &r.owed[i], "a value no option sets");
    free(r.done);
    free(r.owed);
    if (rc) {
        nf_free_words(r.w);
        return -1;
    }
    *words = r.w;
    *n = r.n;
    return 0;
}
