/* Aggregation of samples per (symbol, dso).  A profile of a long run holds
 * tens of thousands of distinct symbols at most, but receives an add per
 * sample, so entries are found through a small open-addressing hash index
 * rather than a scan. */
#include "core/profile.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void nf_profile_init(struct nf_profile *p)
{
    memset(p, 0, sizeof(*p));
}

void nf_profile_free(struct nf_profile *p)
{
    for (size_t r = 0; r < p->nreps; r++)
        nf_profile_free(&p->reps[r]);
    free(p->reps);
    for (size_t i = 0; i < p->n; i++) {
        free(p->e[i].symbol);
        free(p->e[i].dso);
    }
    free(p->e);
    free(p->slot);
    free(p->event);
    memset(p, 0, sizeof(*p));
}

/* FNV-1a over both names, with a separator so ("ab","c") != ("a","bc"). */
static size_t hash2(const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *s = (const unsigned char *)a; *s; s++)
        h = (h ^ *s) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
    for (const unsigned char *s = (const unsigned char *)b; *s; s++)
        h = (h ^ *s) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

/* The slot holding (symbol, dso), or the empty slot where it would go. */
static size_t *find_slot(const struct nf_profile *p, const char *symbol, const char *dso)
{
    size_t mask = p->nslot - 1;
    for (size_t i = hash2(symbol, dso) & mask;; i = (i + 1) & mask) {
        size_t *s = &p->slot[i];
        if (*s == 0)
            return s;
        const struct nf_prof_entry *e = &p->e[*s - 1];
        if (strcmp(e->symbol, symbol) == 0 && strcmp(e->dso, dso) == 0)
            return s;
    }
}

static void reindex(struct nf_profile *p)
{
    size_t want = 64;
    while (want < p->n * 2 + 2)
        want *= 2;
    free(p->slot);
    p->nslot = want;
    p->slot = nf_xcalloc(want, sizeof(*p->slot));
    for (size_t i = 0; i < p->n; i++)
        *find_slot(p, p->e[i].symbol, p->e[i].dso) = i + 1;
}

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, or a surrogate */
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0; /* overlong, or beyond U+10FFFF */
    return n;
}

static char *text_dup(const char *s)
{
    char *d = nf_xstrdup(s);
    for (unsigned char *q = (unsigned char *)d; *q;) {
        size_t n = utf8_len(q);
        if (n == 0) {
            *q++ = '?';
        } else {
            q += n;
        }
    }
    return d;
}

static int is_text(const char *s)
{
    for (const unsigned char *q = (const unsigned char *)s; *q;) {
        size_t n = utf8_len(q);
        if (n == 0)
            return 0;
        q += n;
    }
    return 1;
}

void nf_profile_add(struct nf_profile *p, const char *symbol, const char *dso, uint64_t samples,
                    uint64_t period)
{
    if (p->nslot == 0)
        reindex(p);
    size_t *s = find_slot(p, symbol, dso);
    if (*s == 0 && (!is_text(symbol) || !is_text(dso))) {
        /* Stored under the cleaned names (which may exist already). */
        char *sym = text_dup(symbol), *d = text_dup(dso);
        nf_profile_add(p, sym, d, samples, period);
        free(sym);
        free(d);
        return;
    }
    if (*s == 0) {
        if (p->n == p->cap) {
            p->cap = p->cap ? p->cap * 2 : 64;
            p->e = nf_xrealloc(p->e, p->cap * sizeof(*p->e));
        }
        struct nf_prof_entry *e = &p->e[p->n++];
        e->symbol = nf_xstrdup(symbol);
        e->dso = nf_xstrdup(dso);
        e->samples = 0;
        e->period = 0;
        *s = p->n;
        if (p->n * 2 + 2 > p->nslot)
            reindex(p);
        s = find_slot(p, symbol, dso);
    }
    p->e[*s - 1].samples += samples;
    p->e[*s - 1].period += period;
    p->samples += samples;
    p->period += period;
}

const struct nf_prof_entry *nf_profile_find(const struct nf_profile *p, const char *symbol,
                                            const char *dso)
{
    if (p->nslot == 0)
        return NULL;
    size_t *s = find_slot(p, symbol, dso);
    return *s ? &p->e[*s - 1] : NULL;
}

struct nf_profile *nf_profile_add_rep(struct nf_profile *p)
{
    p->reps = nf_xrealloc(p->reps, (p->nreps + 1) * sizeof(*p->reps));
    nf_profile_init(&p->reps[p->nreps]);
    return &p->reps[p->nreps++];
}

void nf_profile_merge(struct nf_profile *dst, const struct nf_profile *src)
{
    for (size_t i = 0; i < src->n; i++)
        nf_profile_add(dst, src->e[i].symbol, src->e[i].dso, src->e[i].samples, src->e[i].period);
    for (size_t r = 0; r < src->nreps; r++)
        nf_profile_merge(nf_profile_add_rep(dst), &src->reps[r]);
    dst->lost += src->lost;
    if (!dst->event && src->event)
        dst->event = nf_xstrdup(src->event);
    if (!dst->freq)
        dst->freq = src->freq;
}

void nf_profile_add_event(struct nf_profile *p, const char *event)
{
    size_t len = strlen(event);
    for (const char *s = p->event; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
        if (strncmp(s, event, len) == 0 && (s[len] == ',' || s[len] == 0))
            return; /* listed already (a whole name: not "cycles" in "ref-cycles") */
    char *both = p->event ? nf_xasprintf("%s,%s", p->event, event) : nf_xstrdup(event);
    free(p->event);
    p->event = both;
}

static int by_weight(const void *a, const void *b)
{
    const struct nf_prof_entry *x = a, *y = b;
    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    int c = strcmp(x->symbol, y->symbol);
    return c ? c : strcmp(x->dso, y->dso);
}

void nf_profile_sort(struct nf_profile *p)
{
    if (p->n)
        qsort(p->e, p->n, sizeof(*p->e), by_weight);
    reindex(p);
}

double nf_profile_pct(const struct nf_profile *p, const struct nf_prof_entry *e)
{
    return p->period ? 100.0 * (double)e->period / (double)p->period : 0.0;
}
