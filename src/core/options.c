/* The option parser over the tables of core/options.h: lookup, taking a
 * value, the words of a command line.  One walk over a table (includes
 * followed, each with its own base and flags) serves the lookup here and
 * the help text in options_help.c. */
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

struct find {
    const char *name; /* long name (not NUL-terminated at len), or NULL */
    size_t len;
    char letter;
    int prefix; /* also unique prefixes of long names */
    struct nf_opts_hit exact, first;
    int nprefix; /* distinct entries the prefix matches */
    char names[256];
};

static int find_visit(const struct nf_opts_hit *h, void *ctx)
{
    struct find *f = ctx;
    const struct nf_option *o = h->o;
    if (!nf_opts_is_option(o))
        return 0;
    if (!f->name) {
        if (o->letter == f->letter) {
            f->exact = *h;
            return 1;
        }
        return 0;
    }
    if (!o->name || strncmp(o->name, f->name, f->len) != 0)
        return 0;
    if (o->name[f->len] == '\0') {
        f->exact = *h;
        return 1;
    }
    if (f->prefix && (f->nprefix == 0 || f->first.o != o)) {
        if (f->nprefix++ == 0)
            f->first = *h;
        size_t k = strlen(f->names);
        snprintf(f->names + k, sizeof(f->names) - k, "%s--%s", k ? ", " : "", o->name);
    }
    return 0;
}

/* Look up a long name (len bytes of name) or a letter.  0 and *h set; -1
 * unknown; -2 ambiguous (f->names lists the candidates). */
static int lookup(const struct nf_opts *t, char *base, struct find *f, struct nf_opts_hit *h)
{
    nf_opts_walk(t, base, find_visit, f);
    if (f->exact.o) {
        *h = f->exact;
        return 0;
    }
    int help = f->name ? f->len == 4 && strncmp(f->name, "help", 4) == 0 : f->letter == 'h';
    if (help) {
        *h = (struct nf_opts_hit){&nf_opts_help_opt, base, t->flags};
        return 0;
    }
    /* --he is --help when nothing else starts so, as getopt_long takes it. */
    if (f->name && f->prefix && f->len > 0 && f->len < 4 && strncmp("help", f->name, f->len) == 0) {
        if (f->nprefix == 0) {
            *h = (struct nf_opts_hit){&nf_opts_help_opt, base, t->flags};
            return 0;
        }
        size_t k = strlen(f->names);
        snprintf(f->names + k, sizeof(f->names) - k, ", --help");
        return -2;
    }
    if (f->nprefix == 1) {
        *h = f->first;
        return 0;
    }
    return f->nprefix > 1 ? -2 : -1;
}

const struct nf_option *nf_opts_find(const struct nf_opts *t, const char *word)
{
    struct find f = {0};
    struct nf_opts_hit h;
    if (word[0] != '-' || !word[1])
        return NULL;
    if (word[1] == '-') {
        f.name = word + 2;
        const char *eq = strchr(f.name, '=');
        f.len = eq ? (size_t)(eq - f.name) : strlen(f.name);
        if (f.len == 0)
            return NULL;
    } else {
        if (word[2])
            return NULL;
        f.letter = word[1];
    }
    return lookup(t, NULL, &f, &h) == 0 ? h.o : NULL;
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

/* --- parsing ------------------------------------------------------------- */

/* One word at argv[*i] that starts with '-' (and is not "-" or "--").
 * 0, NF_OPTS_HELP, or -1; *i is left at the last word used. */
static int parse_word(const struct nf_opts *t, char *base, int argc, char **argv, int *i, char *err,
                      size_t errlen)
{
    const char *a = argv[*i];
    struct nf_opts_hit h;
    if (a[1] == '-') {
        struct find f = {.name = a + 2, .prefix = 1};
        const char *eq = strchr(f.name, '=');
        f.len = eq ? (size_t)(eq - f.name) : strlen(f.name);
        int r = lookup(t, base, &f, &h);
        if (r == -2) {
            snprintf(err, errlen, "option '%.*s' is ambiguous (%s)", (int)(f.len + 2), a, f.names);
            return -1;
        }
        if (r) {
            snprintf(err, errlen, "unknown option '%.*s'", (int)(f.len + 2), a);
            return -1;
        }
        if (h.o == &nf_opts_help_opt)
            return NF_OPTS_HELP;
        const char *val = NULL;
        if (nf_opts_takes_value(h.o)) {
            if (eq)
                val = eq + 1;
            else if (*i + 1 < argc)
                val = argv[++*i];
            else {
                snprintf(err, errlen, "option '%s' needs a value", a);
                return -1;
            }
        } else if (eq) {
            snprintf(err, errlen, "option '%.*s' takes no value", (int)(f.len + 2), a);
            return -1;
        }
        return nf_opts_apply(&h, val, err, errlen);
    }
    for (const char *p = a + 1; *p; p++) {
        struct find f = {.letter = *p};
        if (lookup(t, base, &f, &h)) {
            snprintf(err, errlen, "unknown option '-%c'", *p);
            return -1;
        }
        if (h.o == &nf_opts_help_opt)
            return NF_OPTS_HELP;
        if (!nf_opts_takes_value(h.o)) {
            if (nf_opts_apply(&h, NULL, err, errlen))
                return -1;
            continue;
        }
        const char *val = p + 1;
        if (!*val) {
            if (*i + 1 >= argc) {
                snprintf(err, errlen, "option '-%c' needs a value", *p);
                return -1;
            }
            val = argv[++*i];
        }
        return nf_opts_apply(&h, val, err, errlen);
    }
    return 0;
}

int nf_opts_parse(const struct nf_opts *t, void *base, int argc, char **argv, int *first, char *err,
                  size_t errlen)
{
    /* Option words and the others, to put back in that order. */
    char **opt = nf_xcalloc((size_t)argc + 1, sizeof(char *));
    char **pos = nf_xcalloc((size_t)argc + 1, sizeof(char *));
    int nopt = 0, npos = 0, rc = 0, i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            if (!(t->flags & NF_OPTS_KEEP_DASHDASH))
                opt[nopt++] = argv[i++];
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (t->flags & NF_OPTS_STOP)
                break;
            pos[npos++] = argv[i];
            continue;
        }
        int start = i;
        rc = parse_word(t, base, argc, argv, &i, err, errlen);
        if (rc)
            break;
        for (int k = start; k <= i; k++)
            opt[nopt++] = argv[k];
    }
    if (rc == 0) {
        for (; i < argc; i++)
            pos[npos++] = argv[i];
        memcpy(argv + 1, opt, (size_t)nopt * sizeof(char *));
        memcpy(argv + 1 + nopt, pos, (size_t)npos * sizeof(char *));
        *first = 1 + nopt;
    }
    free(opt);
    free(pos);
    return rc;
}

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
        struct nf_opts_hit h;
        nf_opts_walk(t, base, find_visit, &f);
        if (!f.exact.o) {
            argv[out++] = argv[i];
            continue;
        }
        h = f.exact;
        const char *val = NULL;
        if (nf_opts_takes_value(h.o)) {
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
        if (nf_opts_apply(&h, val, err, errlen))
            return -1;
    }
    for (; i < argc; i++)
        argv[out++] = argv[i];
    argv[out] = NULL;
    return out;
}
