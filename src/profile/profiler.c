/* The repetition hook of `profile`: attach, detach, resolve, sum. */
#include "profile/profiler.h"

#include <string.h>

#include "core/util.h"
#include "profile/resolve.h"

int nf_profiler_init(struct nf_profiler *p, unsigned freq, char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    nf_symcache_init(&p->syms);
    nf_profile_init(&p->prof);
    nf_prof_events_init(&p->ev);
    if (nf_sampler_probe(&p->cfg, freq, err, errlen))
        return -1;
    p->prof.event = nf_xstrdup(p->cfg.event);
    p->prof.freq = freq;
    return 0;
}

void nf_profiler_free(struct nf_profiler *p)
{
    nf_sampler_stop(p->cur);
    nf_symcache_free(&p->syms);
    nf_profile_free(&p->prof);
    nf_prof_events_free(&p->ev);
    memset(p, 0, sizeof(*p));
}

int nf_profiler_attach(void *ctx, pid_t pid, int on_exec, char *err, size_t errlen)
{
    struct nf_profiler *p = ctx;
    nf_prof_events_clear(&p->ev);
    p->cur = nf_sampler_start(&p->cfg, pid, on_exec, &p->ev, err, errlen);
    return p->cur ? 0 : -1;
}

/* Once per file: its samples are there, but not under its functions. */
static void warn_changed(struct nf_symcache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        struct nf_symtab *t = c->t[i];
        if (t->changed && !t->warned) {
            t->warned = 1;
            nf_warn("%s changed on disk during the profile: its samples are not named (shown "
                    "as [unknown] in [%s])",
                    t->path, nf_prof_dso_short(t->shown));
        }
    }
}

void nf_profiler_detach(void *ctx, int keep)
{
    struct nf_profiler *p = ctx;
    nf_sampler_stop(p->cur);
    p->cur = NULL;
    if (keep) {
        /* the repetition on its own, then into the run's sum */
        struct nf_profile *rep = nf_profile_add_rep(&p->prof);
        nf_prof_resolve(&p->ev, &p->syms, rep);
        warn_changed(&p->syms);
        for (size_t i = 0; i < rep->n; i++)
            nf_profile_add(&p->prof, rep->e[i].symbol, rep->e[i].dso, rep->e[i].samples,
                           rep->e[i].period);
        p->prof.lost += rep->lost;
        rep->lost = 0;
        p->reps++;
    }
    nf_prof_events_clear(&p->ev);
}
