/* start.c — a new bisection's checks and state; reset (bisect/bisect.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect.h"
#include "bisect/git.h"
#include "bisect/tree.h"
#include "core/util.h"
#include "measure/variant.h"
#include "stats/bisect_rule.h"

int nf_bisect_in_file(const char *dir, char *err, size_t errlen)
{
    char top[PATH_MAX], ours[PATH_MAX + 32];
    int r = nf_git_repo(dir, top, sizeof(top), ours, sizeof(ours), err, errlen);
    if (r)
        return r;
    return nf_bstate_exists(ours);
}

int nf_bisect_open(const char *dir, struct nf_store *st, struct nf_bstate *s, char *err,
                   size_t errlen)
{
    char top[PATH_MAX], ours[PATH_MAX + 32];
    memset(s, 0, sizeof(*s));
    int r = nf_git_repo(dir, top, sizeof(top), ours, sizeof(ours), err, errlen);
    if (r)
        return r;
    if (nf_bstate_exists(ours) || !st)
        return nf_bstate_load(s, ours, err, errlen);
    return nf_bstate_load_store(s, st, top, ours, err, errlen);
}

int nf_bisect_start(const struct nf_bisect_start_opts *o, struct nf_bstate *s, char *err,
                    size_t errlen)
{
    memset(s, 0, sizeof(*s));
    int r = nf_git_repo(o->repo, s->repo, sizeof(s->repo), s->dir, sizeof(s->dir), err, errlen);
    if (r)
        return r;
    char *inst = NULL;
    if (nf_bstate_exists(s->dir) ||
        (o->store && nf_store_load_bisection(o->store, s->repo, &inst) == 0)) {
        int in_store = inst != NULL;
        free(inst);
        snprintf(err, errlen,
                 "a bisection is in progress in %s%s%s (bisect status shows it; bisect reset "
                 "ends it)",
                 s->repo, in_store ? " in the store " : "",
                 in_store ? nf_store_name(o->store) : "");
        return NF_EINPUT;
    }
    if ((r = nf_git_sha(s->repo, o->good, s->good, err, errlen)) ||
        (r = nf_git_sha(s->repo, o->bad, s->bad, err, errlen)))
        return r;
    if (strcmp(s->good, s->bad) == 0) {
        snprintf(err, errlen, "GOOD and BAD are the same commit %.12s", s->good);
        return NF_EINPUT;
    }
    r = nf_git_is_ancestor(s->repo, s->good, s->bad, err, errlen);
    if (r < 0)
        return -1;
    if (r == 0) {
        snprintf(err, errlen, "GOOD %s is not an ancestor of BAD %s", o->good, o->bad);
        return NF_EINPUT;
    }
    struct nf_bisect_opts bo;
    nf_bisect_opts_default(&bo);
    bo.alpha = o->alpha;
    bo.threshold_pct = o->threshold_pct;
    bo.candidates = 2;
    struct nf_bisect_plan *p = nf_xcalloc(1, sizeof(*p));
    r = nf_bisect_plan_init(p, &bo, err, errlen);
    free(p);
    if (r)
        return NF_EINPUT;
    s->spec = nf_xcalloc(o->nspec + 1, sizeof(char *));
    for (size_t i = 0; i < o->nspec; i++)
        s->spec[i] = nf_xstrdup(o->spec[i]);
    s->nspec = o->nspec;
    /* the SPEC, as it will be run in two revisions' trees */
    struct nf_variant *v[2] = {NULL, NULL};
    r = nf_btree_variant(s, s->good, s->repo, &v[0], err, errlen);
    if (r == 0)
        r = nf_btree_variant(s, s->bad, s->repo, &v[1], err, errlen);
    if (r == 0 && !o->boot) { /* kernel mode's SPEC is a run's: -r is its own */
        struct nf_variant two[2] = {*v[0], *v[1]};
        char e[NF_ERR_LEN];
        if (nf_variants_check(two, 2, o->metric, e, sizeof(e))) {
            snprintf(err, errlen, "SPEC: %s", e);
            r = NF_EINPUT;
        }
    }
    for (int i = 0; i < 2; i++)
        nf_variants_free(v[i], v[i] ? 1 : 0);
    if (r) {
        nf_bstate_free(s);
        return r;
    }
    s->build = o->build ? nf_xstrdup(o->build) : NULL;
    s->metric = o->metric ? nf_xstrdup(o->metric) : NULL;
    s->next_hook = o->next_hook ? nf_xstrdup(o->next_hook) : NULL;
    s->db = o->db ? nf_xstrdup(o->db) : NULL;
    s->alpha = o->alpha;
    s->threshold_pct = o->threshold_pct;
    s->boot = o->boot;
    s->rate = -1;
    s->seed = o->seed;
    s->higher = -1;
    s->store = o->boot ? o->store : NULL;
    for (size_t i = 0; i < o->nmarks; i++) {
        char sha[NF_SHA_LEN + 1];
        if ((r = nf_git_sha(s->repo, o->marks[i].sha, sha, err, errlen))) {
            nf_bstate_free(s);
            return r;
        }
        nf_bstate_add_mark(s, sha, o->marks[i].what);
    }
    if ((r = nf_bstate_create(s, err, errlen))) {
        nf_bstate_free(s);
        return r;
    }
    return 0;
}

int nf_bisect_reset(const char *dir, struct nf_store *st, char *err, size_t errlen)
{
    char top[PATH_MAX], ours[PATH_MAX + 32], wt[PATH_MAX + 64];
    int r = nf_git_repo(dir, top, sizeof(top), ours, sizeof(ours), err, errlen);
    if (r)
        return r;
    snprintf(wt, sizeof(wt), "%s/wt", ours);
    DIR *d = opendir(wt);
    r = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[PATH_MAX + 512], e2[NF_ERR_LEN];
            snprintf(path, sizeof(path), "%s/%s", wt, e->d_name);
            nf_git_worktree_remove(top, path, e2, sizeof(e2));
        }
        closedir(d);
    }
    char e2[NF_ERR_LEN];
    nf_git(top, (const char *[]){"worktree", "prune", NULL}, NULL, 0, NULL, e2, sizeof(e2));
    if (nf_rmtree(ours) != 0) {
        snprintf(err, errlen, "cannot remove %s", ours);
        r = -1;
    }
    int del = st ? nf_store_delete_bisection(st, top) : 0;
    if (del < 0 && r == 0) {
        snprintf(err, errlen, "%s", nf_store_error(st));
        r = -1;
    }
    return r;
}
