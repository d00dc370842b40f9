/* The order of `history`'s runs and the keys of its series
 * (analysis/hist_keys.h). */
#include "analysis/hist_keys.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- ranks: a string's place in an order ---------------------------------- */

static int rank_cmp(const void *a, const void *b)
{
    return strcmp(((const struct nf_hist_rank *)a)->s, ((const struct nf_hist_rank *)b)->s);
}

/* Sort by string; of equal strings keep the smallest rank. */
size_t nf_hist_rank_table(struct nf_hist_rank *t, size_t n)
{
    qsort(t, n, sizeof(*t), rank_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && strcmp(t[k - 1].s, t[i].s) == 0) {
            if (t[i].rank < t[k - 1].rank)
                t[k - 1].rank = t[i].rank;
        } else {
            t[k++] = t[i];
        }
    }
    return k;
}

/* The place of s in t, or SIZE_MAX. */
size_t nf_hist_rank_of(const struct nf_hist_rank *t, size_t n, const char *s)
{
    if (!s)
        return SIZE_MAX;
    struct nf_hist_rank key = {s, 0};
    const struct nf_hist_rank *r = n ? bsearch(&key, t, n, sizeof(*t), rank_cmp) : NULL;
    return r ? r->rank : SIZE_MAX;
}

/* The words that tell a configuration apart (compare's): its key when
 * the command set one (a built-in workload's canonical words), else its
 * words as stored. */
char *const *nf_hist_key_words(const struct nf_pcfg *c, size_t *n)
{
    *n = c->key ? c->nkey : c->nargs;
    return c->key ? c->key : c->args;
}

char *nf_hist_words_text(char *const *w, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(w[i]) + 1;
    char *s = nf_xcalloc(len, 1), *p = s;
    for (size_t i = 0; i < n; i++) {
        if (i)
            *p++ = ' ';
        size_t k = strlen(w[i]);
        memcpy(p, w[i], k);
        p += k;
    }
    return s;
}

/* Per configuration its words as one text (a series' key), made once. */
char **nf_hist_cfg_texts(const struct nf_points *p)
{
    char **t = nf_xcalloc(p->ncfgs + 1, sizeof(char *));
    for (size_t i = 0; i < p->ncfgs; i++) {
        size_t nw;
        char *const *w = nf_hist_key_words(&p->cfgs[i], &nw);
        t[i] = nf_hist_words_text(w, nw);
    }
    return t;
}

static size_t group_hash(size_t cfg, const char *metric, const char *host)
{
    size_t h = cfg * 0x9e3779b97f4a7c15u;
    h ^= (size_t)(uintptr_t)metric * 0xff51afd7ed558ccdu;
    h ^= (size_t)(uintptr_t)host * 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 29);
}

static void groups_grow(struct nf_hist_groups *t)
{
    size_t n = t->nslot ? 2 * t->nslot : 64;
    size_t *s = nf_xcalloc(n, sizeof(*s));
    for (size_t i = 0; i < t->n; i++) {
        size_t k = group_hash(t->g[i].cfg, t->g[i].metric, t->g[i].host) & (n - 1);
        while (s[k])
            k = (k + 1) & (n - 1);
        s[k] = i + 1;
    }
    free(t->slot);
    t->slot = s;
    t->nslot = n;
}

size_t nf_hist_group_of(struct nf_hist_groups *t, const struct nf_points *p, char *const *texts,
                        const struct nf_prun *run, const char *metric)
{
    if (2 * (t->n + 1) > t->nslot)
        groups_grow(t);
    size_t k = group_hash(run->cfg, metric, run->host) & (t->nslot - 1);
    for (; t->slot[k]; k = (k + 1) & (t->nslot - 1)) {
        const struct nf_hist_group *g = &t->g[t->slot[k] - 1];
        if (g->cfg == run->cfg && g->metric == metric && g->host == run->host)
            return t->slot[k] - 1;
    }
    if (t->n == t->cap)
        t->g = nf_xrealloc(t->g, (t->cap = t->cap ? 2 * t->cap : 16) * sizeof(*t->g));
    t->g[t->n] =
        (struct nf_hist_group){run->cfg, metric, run->host,
                               nf_xasprintf("%s\x1f%s\x1f%s\x1f%s", p->cfgs[run->cfg].workload,
                                            texts[run->cfg], metric, run->host),
                               0};
    t->slot[k] = ++t->n;
    return t->n - 1;
}

static int group_cmp(const void *a, const void *b)
{
    return strcmp((*(struct nf_hist_group *const *)a)->text,
                  (*(struct nf_hist_group *const *)b)->text);
}

/* Each group's place in the order of the texts. */
void nf_hist_groups_place(struct nf_hist_groups *t)
{
    struct nf_hist_group **o = nf_xcalloc(t->n + 1, sizeof(*o));
    for (size_t i = 0; i < t->n; i++)
        o[i] = &t->g[i];
    qsort(o, t->n, sizeof(*o), group_cmp);
    size_t place = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (i && strcmp(o[i]->text, o[i - 1]->text) != 0)
            place++;
        o[i]->place = place;
    }
    free(o);
}

void nf_hist_groups_free(struct nf_hist_groups *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->g[i].text);
    free(t->g);
    free(t->slot);
}
