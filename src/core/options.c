/* The tables of core/options.h: the walk, exact lookup, taking a value,
 * and main's global options taken out of argv.  One walk over a table
 * (includes followed, each with its own base and flags) serves the lookup
 * here, the flattening for getopt_long in options_parse.c and the help
 * text in options_help.c. */
#include "core/options.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/options_int.h"
#include "core/util.h"

/* -h/--help, accepted by every table and listed last in its --help. */
const struct nf_option nf_opts_help_opt = {
    .kind = NF_OPTK_FLAG, .letter = 'h', .name = "help", .help = "this help"};

int nf_opts_walk(const struct nf_opts *t, char *base, nf_opts_visit_fn fn, void *ctx)
{
    for (const struct nf_option *o = t->options; o && o->kind != NF_OPTK_END; o++) {
        int r;
        if (o->kind == NF_OPTK_INCLUDE)
            r = nf_opts_walk(o->sub, base ? base + o->off : NULL, fn, ctx);
        else
            r = fn(&(struct nf_opts_hit){o, base, t->flags}, ctx);
        if (r)
            return r;
    }
    return 0;
}

int nf_opts_is_option(const struct nf_option *o)
{
    return o->kind != NF_OPTK_GROUP && o->kind != NF_OPTK_INCLUDE && o->kind != NF_OPTK_END;
}

const char *nf_opts_name(char *buf, size_t len, const struct nf_option *o, unsigned flags)
{
    if (o->letter && (!o->name || (flags & NF_OPTS_LETTERS)))
        snprintf(buf, len, "-%c", o->letter);
    else
        snprintf(buf, len, "--%s", o->name);
    return buf;
}

void nf_optlist_add(struct nf_optlist *l, const char *s)
{
    l->v = nf_xrealloc(l->v, (l->n + 2) * sizeof(*l->v));
    l->v[l->n++] = s;
    l->v[l->n] = NULL;
}

void nf_optlist_free(struct nf_optlist *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int nf_opts_takes_value(const struct nf_option *o)
{
    switch (o->kind) {
    case NF_OPTK_INT:
    case NF_OPTK_DOUBLE:
    case NF_OPTK_STRING:
    case NF_OPTK_CHOICE:
    case NF_OPTK_LIST: return 1;
    case NF_OPTK_CALLBACK: return o->arg != NULL;
    default: return 0;
    }
}

/* --- lookup -------------------------------------------------------------- */

/* An exact name or letter (nf_opts_find, nf_opts_take); the prefixes and
 * bundles of a command line are getopt_long's, in options_parse.c. */
struct find {
    const char *name; /* long name (not NUL-terminated at len), or NULL */
    size_t len;
    char letter;
    struct nf_opts_hit hit;
};

static int find_visit(const struct nf_opts_hit *h, void *ctx)
{
    struct find *f = ctx;
    const struct nf_option *o = h->o;
    if (!nf_opts_is_option(o))
        return 0;
    if (f->name ? o->name && strncmp(o->name, f->name, f->len) == 0 && o->name[f->len] == '\0'
                : o->letter == f->letter) {
        f->hit = *h;
        return 1;
    }
    return 0;
}

const struct nf_option *nf_opts_find(const struct nf_opts *t, const char *word)
{
    struct find f = {0};
    if (word[0] != '-' || !word[1])
        return NULL;
    if (word[1] == '-') {
        f.name = word + 2;
        f.len = strcspn(f.name, "=");
        if (f.len == 0)
            return NULL;
    } else {
        if (word[2])
            return NULL;
        f.letter = word[1];
    }
    if (nf_opts_walk(t, NULL, find_visit, &f))
        return f.hit.o;
    if (f.name ? f.len == 4 && strncmp(f.name, "help", 4) == 0 : f.letter == 'h')
        return &nf_opts_help_opt;
    return NULL;
}

/* --- taking a value ------------------------------------------------------ */

static void fmt_bound(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.15g", v);
}

/* "in (0, 0.5)", ">= 0", "above 0", "" (no bounds). */
static void double_range(char *buf, size_t len, const struct nf_option *o)
{
    char lo[40], hi[40];
    fmt_bound(lo, sizeof(lo), o->lo);
    fmt_bound(hi, sizeof(hi), o->hi);
    int has_lo = isfinite(o->lo), has_hi = isfinite(o->hi);
    int lo_open = (o->flags & NF_OPTF_LO_OPEN) != 0, hi_open = (o->flags & NF_OPTF_HI_OPEN) != 0;
    if (has_lo && has_hi)
        snprintf(buf, len, " in %c%s, %s%c", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
    else if (has_lo)
        snprintf(buf, len, " %s %s", lo_open ? "above" : ">=", lo);
    else if (has_hi)
        snprintf(buf, len, " %s %s", hi_open ? "below" : "<=", hi);
    else
        buf[0] = '\0';
}

static int in_range(const struct nf_option *o, double d)
{
    if (isfinite(o->lo) && ((o->flags & NF_OPTF_LO_OPEN) ? !(d > o->lo) : !(d >= o->lo)))
        return 0;
    if (isfinite(o->hi) && ((o->flags & NF_OPTF_HI_OPEN) ? !(d < o->hi) : !(d <= o->hi)))
        return 0;
    return 1;
}

static int set_int(const struct nf_opts_hit *h, const char *arg, const char *name, char *err,
                   size_t errlen)
{
    const struct nf_option *o = h->o;
    long v, lo = o->min, hi = o->max;
    if (o->itype == NF_OPTT_INT) { /* the field's own range, whatever the table says */
        lo = lo < INT_MIN ? INT_MIN : lo;
        hi = hi > INT_MAX ? INT_MAX : hi;
    } else if (o->itype == NF_OPTT_ULONG && lo < 0) {
        lo = 0;
    }
    if (nf_parse_long(arg, lo, hi, &v)) {
        const char *what = o->what ? o->what : "a number";
        if (o->max == LONG_MAX) /* no bound but the field's */
            snprintf(err, errlen, "%s wants %s >= %ld, not '%s'", name, what, lo, arg);
        else
            snprintf(err, errlen, "%s wants %s from %ld to %ld, not '%s'", name, what, lo, hi, arg);
        return -1;
    }
    void *p = h->base + o->off;
    switch (o->itype) {
    case NF_OPTT_INT: *(int *)p = (int)v; break;
    case NF_OPTT_ULONG: *(unsigned long *)p = (unsigned long)v; break;
    default: *(long *)p = v; break;
    }
    return 0;
}

static int set_choice(const struct nf_opts_hit *h, const char *arg, const char *name, char *err,
                      size_t errlen)
{
    const struct nf_opt_choice *c = h->o->choices;
    for (size_t i = 0; c[i].name; i++)
        if (strcmp(c[i].name, arg) == 0) {
            int v = c[i].value;
            memcpy(h->base + h->o->off, &v, sizeof(v));
            return 0;
        }
    size_t k = (size_t)snprintf(err, errlen, "%s wants ", name);
    for (size_t i = 0; c[i].name && k < errlen; i++)
        k += (size_t)snprintf(err + k, errlen - k, "%s'%s'",
                              i == 0          ? ""
                              : c[i + 1].name ? ", "
                                              : " or ",
                              c[i].name);
    if (k < errlen)
        snprintf(err + k, errlen - k, ", not '%s'", arg);
    return -1;
}

int nf_opts_apply(const struct nf_opts_hit *h, const char *arg, char *err, size_t errlen)
{
    const struct nf_option *o = h->o;
    char name[64];
    nf_opts_name(name, sizeof(name), o, h->flags);
    void *p = h->base + o->off;
    if ((o->flags & NF_OPTF_NOEMPTY) && arg && !*arg) {
        snprintf(err, errlen, "%s must not be empty", name);
        return -1;
    }
    switch (o->kind) {
    case NF_OPTK_FLAG: *(int *)p = (int)o->min; return 0;
    case NF_OPTK_COUNTER: (*(int *)p)++; return 0;
    case NF_OPTK_INT: return set_int(h, arg, name, err, errlen);
    case NF_OPTK_DOUBLE: {
        double d;
        if (nf_parse_double(arg, &d) || !in_range(o, d)) {
            char range[100];
            double_range(range, sizeof(range), o);
            snprintf(err, errlen, "%s wants %s%s, not '%s'", name, o->what ? o->what : "a number",
                     range, arg);
            return -1;
        }
        *(double *)p = d;
        return 0;
    }
    case NF_OPTK_STRING: *(const char **)p = arg; return 0;
    case NF_OPTK_CHOICE: return set_choice(h, arg, name, err, errlen);
    case NF_OPTK_LIST: {
        struct nf_optlist *l = p;
        if (o->max > 0 && l->n >= (size_t)o->max) {
            snprintf(err, errlen, "too many %s (at most %ld)", name, o->max);
            return -1;
        }
        nf_optlist_add(l, arg);
        return 0;
    }
    case NF_OPTK_CALLBACK: return o->fn(o, h->base, arg, err, errlen);
    default: snprintf(err, errlen, "%s: not an option", name); return -1;
    }
}

/* --- defaults ------------------------------------------------------------ */

struct defaults_ctx {
    char *err;
    size_t errlen;
};

static int default_visit(const struct nf_opts_hit *h, void *ctx)
{
    struct defaults_ctx *e = ctx;
    const struct nf_option *o = h->o;
    if (!nf_opts_is_option(o) || !o->def || o->def_text)
        return 0;
    char name[64];
    switch (o->kind) {
    case NF_OPTK_INT:
    case NF_OPTK_DOUBLE:
    case NF_OPTK_STRING:
    case NF_OPTK_CHOICE:
    case NF_OPTK_CALLBACK: break;
    default:
        snprintf(e->err, e->errlen, "%s: a default of this kind is NF_DEF_TEXT",
                 nf_opts_name(name, sizeof(name), o, h->flags));
        return -1;
    }
    return nf_opts_apply(h, o->def, e->err, e->errlen) ? -1 : 0;
}

int nf_opts_defaults(const struct nf_opts *t, void *base, char *err, size_t errlen)
{
    struct defaults_ctx e = {err, errlen};
    return nf_opts_walk(t, base, default_visit, &e) ? -1 : 0;
}

/* --- main's global options ------------------------------------------------ */

int nf_opts_take(const struct nf_opts *t, void *base, int argc, char **argv, char *err,
                 size_t errlen)
{
    int out = 1, i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        struct find f = {0};
        const char *eq = NULL;
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            f.name = a + 2;
            eq = strchr(f.name, '=');
            f.len = eq ? (size_t)(eq - f.name) : strlen(f.name);
        } else if (a[0] == '-' && a[1] && a[1] != '-' && !a[2]) {
            f.letter = a[1];
        } else {
            argv[out++] = argv[i];
            continue;
        }
        if (!nf_opts_walk(t, base, find_visit, &f)) {
            argv[out++] = argv[i];
            continue;
        }
        const char *val = NULL;
        if (nf_opts_takes_value(f.hit.o)) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else {
                snprintf(err, errlen, "option '%s' needs a value", a);
                return -1;
            }
        } else if (eq) {
            snprintf(err, errlen, "option '%.*s' takes no value", (int)(f.len + 2), a);
            return -1;
        }
        if (nf_opts_apply(&f.hit, val, err, errlen))
            return -1;
    }
    for (; i < argc; i++)
        argv[out++] = argv[i];
    argv[out] = NULL;
    return out;
}
