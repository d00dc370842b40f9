/* out.c — a bisection's rows and result (bisect/out.h, bisect/bisect.h). */
#include "bisect/out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/git.h"
#include "core/util.h"

const char *nf_bresult_name(enum nf_bresult r)
{
    static const char *const n[] = {"found", "nothing", "between", "inconclusive"};
    return (unsigned)r < 4 ? n[r] : "?";
}

void nf_bisect_out_free(struct nf_bisect_out *o)
{
    free(o->rows);
    o->rows = NULL;
    o->nrows = 0;
}

struct nf_brow *nf_bisect_row(struct nf_bisect_out *out, const char *repo, enum nf_btest_kind kind,
                              const char *sha)
{
    out->rows = nf_xrealloc(out->rows, (out->nrows + 1) * sizeof(*out->rows));
    struct nf_brow *r = &out->rows[out->nrows++];
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    snprintf(r->sha, sizeof(r->sha), "%s", sha);
    if (repo)
        nf_git_subject(repo, sha, r->subject, sizeof(r->subject));
    r->change_pct = r->ci_low_pct = r->ci_high_pct = r->ci_level_pct = NAN;
    r->base_mean = r->mean = r->means_pct = r->means_better_pct = NAN;
    return r;
}

void nf_bisect_subjects(struct nf_bisect_out *out, const char *repo)
{
    for (size_t i = 0; i < out->nrows; i++)
        nf_git_subject(repo, out->rows[i].sha, out->rows[i].subject, sizeof(out->rows[i].subject));
}

void nf_brow_endpoint(struct nf_brow *r, const struct nf_bep *ep, size_t rounds)
{
    r->rounds = rounds;
    r->change_pct = ep->change_pct;
    r->ci_low_pct = ep->ci_low_pct;
    r->ci_high_pct = ep->ci_high_pct;
    r->ci_level_pct = isfinite(ep->ci_low_pct) ? 100 * (1 - ep->look.level_effect) : NAN;
    r->decision = nf_bep_result_name(ep->result);
}

void nf_brow_step(struct nf_brow *r, const struct nf_bstep_look *k)
{
    r->rounds = k->rounds;
    r->change_pct = k->change_pct;
    r->ci_low_pct = k->ci_low_pct;
    r->ci_high_pct = k->ci_high_pct;
    r->ci_level_pct = k->ci_level_pct;
    r->decision = nf_bstep_decision_name(k->decision);
}

void nf_brow_confirm(struct nf_brow *r, const struct nf_bcf_look *c, struct nf_bisect_out *out)
{
    r->rounds = out->confirm_rounds = c->rounds;
    r->change_pct = out->change_pct = c->change_pct;
    r->ci_low_pct = out->ci_low_pct = c->ci_low_pct;
    r->ci_high_pct = out->ci_high_pct = c->ci_high_pct;
    r->ci_level_pct = c->ci_level_pct;
    r->decision = nf_bcf_result_name(c->result);
}

void nf_bmeans_add(struct nf_bmeans *m, double base, double x, int rate)
{
    if (!(isfinite(base) && base > 0 && isfinite(x) && x > 0))
        return;
    m->base += rate ? 1 / base : base;
    m->x += rate ? 1 / x : x;
    m->n++;
}

void nf_bmeans_set(const struct nf_bmeans *m, const struct nf_bstate *s, struct nf_brow *r)
{
    if (!m->n)
        return;
    double n = (double)m->n;
    int rate = s->rate == 1;
    r->base_mean = rate ? n / m->base : m->base / n;
    r->mean = rate ? n / m->x : m->x / n;
    r->means_pct = (r->mean / r->base_mean - 1) * 100;
    if (s->higher >= 0)
        r->means_better_pct = s->higher ? r->means_pct : -r->means_pct;
}

void nf_brevs_init(struct nf_brevs *r, size_t room)
{
    r->sha = nf_xcalloc(room, sizeof(*r->sha));
    r->v = nf_xcalloc(room, sizeof(*r->v));
    for (size_t i = 0; i < room; i++)
        r->v[i] = r->sha[i];
    r->n = 0;
}

void nf_brevs_add(struct nf_brevs *r, const char *sha)
{
    snprintf(r->sha[r->n++], NF_SHA_LEN + 1, "%s", sha);
}

void nf_brevs_free(struct nf_brevs *r)
{
    free(r->sha);
    free(r->v);
    *r = (struct nf_brevs){0};
}

void nf_bisect_marks(const struct nf_bstate *s, struct nf_bisect_out *out, const char *repo,
                     struct nf_brevs *goods, struct nf_brevs *skips, char bad[NF_SHA_LEN + 1])
{
    for (size_t i = 0; i < s->nmarks; i++) {
        const struct nf_bmark *m = &s->marks[i];
        if (m->what == 'g')
            nf_brevs_add(goods, m->sha);
        else if (m->what == 'b')
            snprintf(bad, NF_SHA_LEN + 1, "%s", m->sha);
        else if (skips)
            nf_brevs_add(skips, m->sha);
        struct nf_brow *r = nf_bisect_row(out, repo, NF_BTEST_STEP, m->sha);
        r->decision = m->what == 'g' ? "good" : m->what == 'b' ? "bad" : "skip";
        r->given = 1;
    }
}
