/* nf_opts_parse: glibc's getopt_long scans the words, the table says what
 * they mean.  Each parse flattens the table (includes followed, each entry
 * with its own base) into the optstring and the struct option array that
 * getopt_long reads, maps what getopt_long returns back to the entry, and
 * lets options.c check and store the value.  getopt_long prints nothing
 * (":" leads the optstring, opterr is 0): the one-line messages are made
 * here from what it returned. */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/options_int.h"
#include "core/util.h"

/* getopt_long's value for the long name of entry i; above any letter, so
 * the letter and the long name of an entry come back as different values
 * and an entry without a letter has one too. */
#define LONG_VAL(i) (UCHAR_MAX + 1 + (i))

struct flat {
    struct nf_opts_hit *hit; /* the options in the table's order, -h/--help last */
    int n;
    struct option *lo; /* the long names, {0}-terminated */
    int nlo;
    char *optstring; /* "+:" or ":", then "l:T..." */
    size_t nos;
    int letter[UCHAR_MAX + 1]; /* 1 + the index of the entry a letter names; 0: none */
};

static int count_visit(const struct nf_opts_hit *h, void *ctx)
{
    if (nf_opts_is_option(h->o))
        ++*(int *)ctx;
    return 0;
}

static int has_long(const struct flat *f, const char *name)
{
    for (int i = 0; i < f->nlo; i++)
        if (strcmp(f->lo[i].name, name) == 0)
            return 1;
    return 0;
}

/* Entry h: its letter into the optstring, its name into the long options.
 * A letter or a name two entries claim is the first one's, as for
 * nf_opts_find. */
static void add(struct flat *f, const struct nf_opts_hit *h)
{
    const struct nf_option *o = h->o;
    int i = f->n++, arg = nf_opts_takes_value(o);
    unsigned char c = (unsigned char)o->letter;
    f->hit[i] = *h;
    if (c && isalnum(c) && !f->letter[c]) {
        f->letter[c] = i + 1;
        f->optstring[f->nos++] = (char)c;
        if (arg)
            f->optstring[f->nos++] = ':';
    }
    if (o->name && !has_long(f, o->name))
        f->lo[f->nlo++] =
            (struct option){o->name, arg ? required_argument : no_argument, NULL, LONG_VAL(i)};
}

static int add_visit(const struct nf_opts_hit *h, void *ctx)
{
    if (nf_opts_is_option(h->o))
        add(ctx, h);
    return 0;
}

static void flatten(struct flat *f, const struct nf_opts *t, char *base)
{
    int n = 1; /* -h/--help */
    nf_opts_walk(t, base, count_visit, &n);
    f->hit = nf_xcalloc((size_t)n, sizeof(*f->hit));
    f->lo = nf_xcalloc((size_t)n + 1, sizeof(*f->lo));
    f->optstring = nf_xcalloc(2 * (size_t)n + 3, 1);
    /* "+": stop at the first word that is not an option; without it glibc
     * permutes (unless POSIXLY_CORRECT is set).  ":": a missing value is
     * told apart from an unknown option. */
    if (t->flags & (NF_OPTS_STOP | NF_OPTS_KEEP_DASHDASH))
        f->optstring[f->nos++] = '+';
    f->optstring[f->nos++] = ':';
    nf_opts_walk(t, base, add_visit, f);
    add(f, &(struct nf_opts_hit){&nf_opts_help_opt, base, t->flags});
}

static void flat_free(struct flat *f)
{
    free(f->hit);
    free(f->lo);
    free(f->optstring);
}

/* The entry getopt_long's return value c names, or NULL. */
static const struct nf_opts_hit *entry(const struct flat *f, int c)
{
    if (c >= LONG_VAL(0) && c < LONG_VAL(f->n))
        return &f->hit[c - LONG_VAL(0)];
    if (c > 0 && c <= UCHAR_MAX && f->letter[c])
        return &f->hit[f->letter[c] - 1];
    return NULL;
}

/* A long option word getopt_long found neither exactly nor as a unique
 * prefix: ambiguous when two or more long names start with it (glibc says
 * '?' with optopt 0 for both), unknown otherwise. */
static void unknown_long(const struct flat *f, const char *word, char *err, size_t errlen)
{
    const char *name = word + 2;
    int len = (int)strcspn(name, "="), k = 0;
    size_t at = 0;
    char names[256] = "";
    for (int i = 0; i < f->nlo; i++)
        if (strncmp(f->lo[i].name, name, (size_t)len) == 0 && at < sizeof(names))
            at += (size_t)snprintf(names + at, sizeof(names) - at, "%s--%s", k++ ? ", " : "",
                                   f->lo[i].name);
    if (len == 0) /* "--=x": every name starts with "" */
        snprintf(err, errlen, "unknown option '%s'", word);
    else if (k > 1)
        snprintf(err, errlen, "option '--%.*s' is ambiguous (%s)", len, name, names);
    else
        snprintf(err, errlen, "unknown option '--%.*s'", len, name);
}

/* getopt_long returned '?' or ':' (c): one line saying why.  For a long
 * option it has already stepped past the word, so that is argv[optind - 1]. */
static void refuse(const struct flat *f, int c, char **argv, char *err, size_t errlen)
{
    const char *word = optind > 0 ? argv[optind - 1] : "";
    int is_long = optopt >= LONG_VAL(0) || optopt == 0;
    if (is_long && strncmp(word, "--", 2) != 0) /* not expected from getopt_long */
        snprintf(err, errlen, "bad option word '%s'", word);
    else if (c == ':' && is_long)
        snprintf(err, errlen, "option '%s' needs a value", word);
    else if (c == ':')
        snprintf(err, errlen, "option '-%c' needs a value", optopt);
    else if (optopt >= LONG_VAL(0))
        snprintf(err, errlen, "option '%.*s' takes no value", (int)strcspn(word, "="), word);
    else if (optopt)
        snprintf(err, errlen, "unknown option '-%c'", optopt);
    else
        unknown_long(f, word, err, errlen);
}

int nf_opts_parse(const struct nf_opts *t, void *base, int argc, char **argv, int *first, char *err,
                  size_t errlen)
{
    struct flat f = {0};
    flatten(&f, t, base);
    /* argv[1..used-1]: the options and their values, so far. */
    int rc = 0, c, used = 1;
    /* glibc: optind 0 starts afresh (an earlier parse, of another table
     * perhaps, may have stopped anywhere, even inside a bundle). */
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, f.optstring, f.lo, NULL)) != -1) {
        const struct nf_opts_hit *h = c == '?' || c == ':' ? NULL : entry(&f, c);
        if (!h) {
            refuse(&f, c, argv, err, errlen);
            rc = -1;
            break;
        }
        if (h->o == &nf_opts_help_opt) {
            rc = NF_OPTS_HELP;
            break;
        }
        rc = nf_opts_apply(h, optarg, err, errlen);
        if (rc)
            break;
        used = optind;
    }
    if (rc == 0) {
        /* In order ("+"), getopt_long ends on the first word that is not an
         * option (optind == used) or steps over a "--" that ends them; a
         * "--" that was an option's value (--label --) is within used. */
        int i = optind < 1 ? 1 : optind;
        if ((t->flags & NF_OPTS_KEEP_DASHDASH) && i == used + 1 && strcmp(argv[used], "--") == 0)
            i = used;
        *first = i;
    }
    flat_free(&f);
    return rc;
}
