/* Flat records of runs and their metrics' summaries, strings in a pool
 * (core/points.h). */
#include "core/points.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct nf_pool_chunk {
    struct nf_pool_chunk *next;
    size_t used, cap;
    char data[];
};

enum { CHUNK = 64 * 1024 };

void nf_points_init(struct nf_points *p)
{
    memset(p, 0, sizeof(*p));
}

static void free_words(char **w, size_t n)
{
    for (size_t i = 0; w && i < n; i++)
        free(w[i]);
    free(w);
}

void nf_points_free(struct nf_points *p)
{
    for (size_t i = 0; i < p->ncfgs; i++) {
        free_words(p->cfgs[i].args, p->cfgs[i].nargs);
        free_words(p->cfgs[i].key, p->cfgs[i].nkey);
    }
    for (struct nf_pool_chunk *c = p->chunk, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(p->runs);
    free(p->pts);
    free(p->cfgs);
    free(p->slots);
    free(p->cfg_slots);
    memset(p, 0, sizeof(*p));
}

static char *pool_alloc(struct nf_points *p, size_t n)
{
    struct nf_pool_chunk *c = p->chunk;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > CHUNK ? n : CHUNK;
        c = nf_xmalloc(sizeof(*c) + cap);
        c->cap = cap;
        c->used = 0;
        c->next = p->chunk;
        p->chunk = c;
    }
    char *s = c->data + c->used;
    c->used += n;
    return s;
}

const char *nf_points_copy(struct nf_points *p, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    return memcpy(pool_alloc(p, n), s, n);
}

static size_t hash(const char *s, const char *t)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    h = (h ^ 0x1f) * 1099511628211u;
    for (; t && *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211u;
    return h;
}

static void grow_slots(struct nf_points *p)
{
    size_t n = p->nslots ? 2 * p->nslots : 256;
    const char **s = nf_xcalloc(n, sizeof(*s));
    for (size_t i = 0; i < p->nslots; i++)
        if (p->slots[i]) {
            size_t k = hash(p->slots[i], NULL) & (n - 1);
            while (s[k])
                k = (k + 1) & (n - 1);
            s[k] = p->slots[i];
        }
    free(p->slots);
    p->slots = s;
    p->nslots = n;
}

const char *nf_points_intern(struct nf_points *p, const char *s)
{
    if (!s)
        return NULL;
    if (2 * (p->used + 1) > p->nslots)
        grow_slots(p);
    size_t k = hash(s, NULL) & (p->nslots - 1);
    for (; p->slots[k]; k = (k + 1) & (p->nslots - 1))
        if (strcmp(p->slots[k], s) == 0)
            return p->slots[k];
    p->used++;
    return p->slots[k] = nf_points_copy(p, s);
}

static void words_of(const char *text, char ***w, size_t *n)
{
    *w = NULL;
    *n = 0;
    json_t *a = text && *text && strcmp(text, "[]") != 0 ? json_loads(text, 0, NULL) : NULL;
    for (size_t i = 0; json_is_array(a) && i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        *w = nf_xrealloc(*w, (*n + 2) * sizeof(char *));
        (*w)[(*n)++] = nf_xstrdup(s ? s : "");
        (*w)[*n] = NULL;
    }
    json_decref(a);
}

static size_t cfg_find(struct nf_points *p, const char *workload, const char *args_text, int *found)
{
    if (2 * (p->ncfgs + 1) > p->ncfg_slots) {
        size_t n = p->ncfg_slots ? 2 * p->ncfg_slots : 64;
        size_t *s = nf_xcalloc(n, sizeof(*s));
        for (size_t i = 0; i < p->ncfgs; i++) {
            size_t k = hash(p->cfgs[i].workload, p->cfgs[i].args_text) & (n - 1);
            while (s[k])
                k = (k + 1) & (n - 1);
            s[k] = i + 1;
        }
        free(p->cfg_slots);
        p->cfg_slots = s;
        p->ncfg_slots = n;
    }
    size_t k = hash(workload, args_text) & (p->ncfg_slots - 1);
    for (; p->cfg_slots[k]; k = (k + 1) & (p->ncfg_slots - 1)) {
        const struct nf_pcfg *c = &p->cfgs[p->cfg_slots[k] - 1];
        if (strcmp(c->workload, workload) == 0 && strcmp(c->args_text, args_text) == 0) {
            *found = 1;
            return p->cfg_slots[k] - 1;
        }
    }
    *found = 0;
    if (p->ncfgs == p->ccap)
        p->cfgs = nf_xrealloc(p->cfgs, (p->ccap = p->ccap ? 2 * p->ccap : 16) * sizeof(*p->cfgs));
    struct nf_pcfg *c = &p->cfgs[p->ncfgs];
    memset(c, 0, sizeof(*c));
    c->workload = nf_points_intern(p, workload);
    c->args_text = nf_points_intern(p, args_text);
    p->cfg_slots[k] = ++p->ncfgs;
    return p->ncfgs - 1;
}

size_t nf_points_cfg(struct nf_points *p, const char *workload, const char *args_text)
{
    int found;
    size_t i = cfg_find(p, workload ? workload : "", args_text ? args_text : "", &found);
    if (!found)
        words_of(args_text, &p->cfgs[i].args, &p->cfgs[i].nargs);
    return i;
}

size_t nf_points_run(struct nf_points *p, int64_t id, size_t cfg, const char *label,
                     const char *started, const char *host, const char *commit,
                     const char *describe, enum nf_run_status state)
{
    if (p->nruns == p->rcap)
        p->runs = nf_xrealloc(p->runs, (p->rcap = p->rcap ? 2 * p->rcap : 64) * sizeof(*p->runs));
    struct nf_prun *r = &p->runs[p->nruns];
    r->id = id;
    r->cfg = cfg;
    r->label = nf_points_intern(p, label ? label : "");
    r->started = nf_points_copy(p, started ? started : "");
    r->host = nf_points_intern(p, host ? host : "");
    r->commit = nf_points_copy(p, commit);
    r->describe = nf_points_copy(p, describe);
    r->state = state;
    r->first = p->npts;
    r->npts = 0;
    return p->nruns++;
}

struct nf_point *nf_points_metric(struct nf_points *p, const char *name, const char *unit,
                                  enum nf_better better, int primary, int supported)
{
    if (p->npts == p->pcap)
        p->pts = nf_xrealloc(p->pts, (p->pcap = p->pcap ? 2 * p->pcap : 64) * sizeof(*p->pts));
    struct nf_point *m = &p->pts[p->npts++];
    memset(m, 0, sizeof(*m));
    m->run = p->nruns - 1;
    m->metric = nf_points_intern(p, name ? name : "");
    m->unit = nf_points_intern(p, unit ? unit : "");
    m->better = better;
    m->primary = primary;
    m->supported = supported;
    p->runs[p->nruns - 1].npts++;
    return m;
}

void nf_points_end_run(struct nf_points *p)
{
    struct nf_prun *r = &p->runs[p->nruns - 1];
    struct nf_point *m = p->pts + r->first;
    size_t pick = r->npts;
    for (size_t i = 0; i < r->npts && pick == r->npts; i++)
        if (m[i].primary)
            pick = i;
    for (size_t i = 0; i < r->npts && pick == r->npts; i++)
        if (m[i].supported)
            pick = i;
    for (size_t i = 0; i < r->npts; i++)
        m[i].primary = i == pick;
}

void nf_points_drop_run(struct nf_points *p)
{
    p->npts = p->runs[p->nruns - 1].first;
    p->nruns--;
}

static const char *env_text(const struct nf_run *run, const char *key)
{
    const json_t *v = run->env ? json_object_get(run->env, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static char *words_json(char *const *w, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(w[i]));
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return s;
}

static char **words_copy(char *const *w, size_t n)
{
    char **c = nf_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        c[i] = nf_xstrdup(w[i]);
    return c;
}

void nf_points_add_run(struct nf_points *p, const struct nf_run *run)
{
    /* The configuration by its words and key (a run from memory may carry
     * a key no stored one has). */
    char *a = words_json(run->args, run->nargs);
    char *k = run->key ? words_json(run->key, run->nkey) : NULL;
    char *text = nf_xasprintf("%s%s%s", a ? a : "[]", k ? "\x1e" : "", k ? k : "");
    int found;
    size_t cfg = cfg_find(p, run->workload, text, &found);
    if (!found) {
        struct nf_pcfg *c = &p->cfgs[cfg];
        c->args = words_copy(run->args, run->nargs);
        c->nargs = run->nargs;
        if (run->key) {
            c->key = words_copy(run->key, run->nkey);
            c->nkey = run->nkey;
        }
    }
    free(a);
    free(k);
    free(text);
    nf_points_run(p, run->id, cfg, run->label, run->started, env_text(run, "hostname"),
                  env_text(run, "commit"), env_text(run, "git_describe"), run->state);
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        struct nf_point *pt =
            nf_points_metric(p, m->name, m->unit, m->better, m->primary, m->supported);
        nf_metric_summary_of(m, &pt->sum);
    }
    nf_points_end_run(p);
}
