#include "analysis/ab_stop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "stats/stopping.h"

int nf_ab_compare(const struct nf_ab_stop *a, const char *const *names, struct nf_run **runs,
                  size_t n, struct nf_comparison *cmp, char *err, size_t errlen)
{
    struct nf_label_runs *in = nf_xcalloc(n, sizeof(*in));
    for (size_t i = 0; i < n; i++) {
        in[i].label = names[i];
        in[i].runs = &runs[i];
        in[i].nruns = 1;
    }
    int rc = nf_compare_build(cmp, in, n, NULL, a->metric, &a->opts, err, errlen);
    free(in);
    return rc;
}

/* May the session stop?  Every deciding row must say so. */
static enum nf_stop should_stop(const struct nf_ab_stop *a, const struct nf_comparison *cmp)
{
    struct nf_stop_opts so = {a->opts.alpha, a->opts.threshold_pct, a->looks, 0};
    enum nf_stop worst = NF_STOP_EFFECT;
    int any = 0;
    for (size_t b = 0; b < cmp->nblocks; b++) {
        if (!nf_compare_deciding(&cmp->blocks[b], a->metric))
            continue;
        for (size_t l = 1; l < cmp->nlabels; l++) {
            const struct nf_cmp_cell *c = &cmp->blocks[b].cells[l];
            enum nf_stop st = c->compared ? nf_stop_check(&c->r, &so) : NF_STOP_CONTINUE;
            if (st == NF_STOP_CONTINUE)
                return NF_STOP_CONTINUE;
            any = 1;
            if (st > worst)
                worst = st;
        }
    }
    return any ? worst : NF_STOP_CONTINUE;
}

/* "  b +1.23% [-0.40, +2.86]" per variant, on the first deciding block;
 * -1 when no block decides. */
static int note_of(const struct nf_ab_stop *a, const struct nf_comparison *cmp, char *note,
                   size_t notelen)
{
    for (size_t b = 0; b < cmp->nblocks; b++) {
        if (!nf_compare_deciding(&cmp->blocks[b], a->metric))
            continue;
        size_t len = 0;
        for (size_t l = 1; l < cmp->nlabels && len + 64 < notelen; l++) {
            const struct nf_cmp_cell *c = &cmp->blocks[b].cells[l];
            if (c->compared && isfinite(c->r.ci_low_pct))
                len += (size_t)snprintf(note + len, notelen - len, "  %s %+.2f%% [%+.2f, %+.2f]",
                                        cmp->labels[l], c->r.change_pct, c->r.ci_low_pct,
                                        c->r.ci_high_pct);
        }
        return 0;
    }
    return -1;
}

int nf_ab_stop_check(void *ctx, const char *const *names, struct nf_run **runs, size_t n,
                     const char **why, char *note, size_t notelen, char *err, size_t errlen)
{
    struct nf_ab_stop *a = ctx;
    struct nf_comparison cmp;
    char e[NF_ERR_LEN];
    enum nf_stop stop = NF_STOP_CONTINUE;
    int known = nf_ab_compare(a, names, runs, n, &cmp, e, sizeof(e)) == 0;
    if (known) {
        known = note_of(a, &cmp, note, notelen) == 0;
        stop = should_stop(a, &cmp);
    }
    nf_compare_free(&cmp);
    if (!known && a->metric) {
        snprintf(err, errlen, "no metric '%s' in these variants", a->metric);
        return NF_EINPUT;
    }
    if (stop == NF_STOP_CONTINUE)
        return 0;
    *why = nf_stop_name(stop);
    return 1;
}
