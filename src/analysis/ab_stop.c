#include "analysis/ab_stop.h"

#include "analysis/unlike.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void nf_ab_design_init(struct nf_ab_design *d, const struct nf_ab_stop *a, const char *order,
                       long min_rounds, long max_rounds, size_t nv)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->order, sizeof(d->order), "%s", order);
    d->min_rounds = min_rounds;
    d->max_rounds = max_rounds;
    d->comparisons = nv > 1 ? (long)nv - 1 : 1;
    d->alpha = a->opts.alpha;
    d->threshold_pct = a->opts.threshold_pct;
    snprintf(d->test, sizeof(d->test), "%s", nf_test_name(a->opts.test));
    snprintf(d->metric, sizeof(d->metric), "%s", a->metric ? a->metric : "");
}

int nf_ab_compare(const struct nf_ab_stop *a, const char *const *names, struct nf_run **runs,
                  size_t n, int live, struct nf_comparison *cmp, char *err, size_t errlen)
{
    struct nf_label_runs *in = nf_xcalloc(n, sizeof(*in));
    for (size_t i = 0; i < n; i++) {
        in[i].label = names[i];
        in[i].runs = &runs[i];
        in[i].nruns = 1;
    }
    int rc = live ? nf_compare_build_live(cmp, in, n, NULL, a->metric, &a->opts, err, errlen)
                  : nf_compare_build(cmp, in, n, NULL, a->metric, &a->opts, err, errlen);
    if (rc == 0 && !live) {
        /* said above the tables; an ab session's variants differ on
         * purpose (their specs), so their rows are decided all the same */
        nf_compare_note_unlike(cmp, in, n);
        cmp->allow_different = 1;
    }
    free(in);
    return rc;
}

/* Have all deciding rows reached a decision?  Why, when they have; NULL
 * to go on.  A deciding row without a design (a test with no paired form)
 * never stops early. */
static const char *should_stop(const struct nf_ab_stop *a, const struct nf_comparison *cmp)
{
    int effect = 0, equiv = 0, max = 0, any = 0;
    for (size_t b = 0; b < cmp->nblocks; b++) {
        if (!nf_compare_deciding(&cmp->blocks[b], a->metric))
            continue;
        for (size_t l = 1; l < cmp->nlabels; l++) {
            const struct nf_cmp_cell *c = &cmp->blocks[b].cells[l];
            if (!c->compared || !c->sequential || c->look.action == NF_SEQ_CONTINUE)
                return NULL;
            any = 1;
            effect |= c->look.action == NF_SEQ_STOP_EFFECT;
            equiv |= c->look.action == NF_SEQ_STOP_EQUIVALENT;
            max |= c->look.action == NF_SEQ_STOP_MAX;
        }
    }
    if (!any)
        return NULL;
    if (max)
        return "the maximum number of rounds";
    if (effect && equiv)
        return "effect and equivalence boundaries crossed";
    return effect ? "effect boundary crossed" : "equivalence boundary crossed";
}

enum nf_ab_never nf_ab_never_decided(const struct nf_ab_stop *a, const struct nf_comparison *cmp,
                                     char *why, size_t len)
{
    for (int pass = NF_AB_NO_SAMPLES; pass <= NF_AB_UNTESTABLE; pass++)
        for (size_t b = 0; b < cmp->nblocks; b++) {
            const struct nf_cmp_block *bl = &cmp->blocks[b];
            if (!nf_compare_deciding(bl, a->metric))
                continue;
            const struct nf_cmp_cell *base = &bl->cells[0];
            for (size_t l = 1; l < cmp->nlabels; l++) {
                const struct nf_cmp_cell *c = &bl->cells[l];
                size_t w = base->has_data ? l : 0, o = base->has_data ? 0 : l;
                if (pass == NF_AB_NO_SAMPLES && base->has_data != c->has_data) {
                    snprintf(why, len, "%s'%s' has no samples of %s%s, which %s'%s' has",
                             w ? "" : "the baseline ", cmp->labels[w], bl->metric,
                             bl->cells[w].not_counted
                                 ? ", only <not counted> (the event was opened but did not "
                                   "count, as the runs' note says)"
                             : bl->cells[w].unsupported
                                 ? ", only <not supported> (the event could not be counted)"
                                 : "",
                             o ? "" : "the baseline ", cmp->labels[o]);
                    return NF_AB_NO_SAMPLES;
                }
                if (pass == NF_AB_UNTESTABLE && bl->rate && (base->nonpositive || c->nonpositive)) {
                    w = base->nonpositive ? 0 : l;
                    snprintf(why, len,
                             "%s'%s' has a value %s in the rate %s, and no test runs on it",
                             w ? "" : "the baseline ", cmp->labels[w],
                             bl->cells[w].s.min == 0 ? "of 0" : "below 0", bl->metric);
                    return NF_AB_UNTESTABLE;
                }
            }
        }
    return NF_AB_DECIDABLE;
}

/* A CI of the change of r, oriented (nf_compare_oriented_r), low end
 * first.  r NULL: a look of the session's design, on log-ratios, which
 * exist only for values > 0, so the relative change's sign is the
 * difference's. */
static void oriented_ci(const struct nf_cmp_result *r, double lo, double hi, enum nf_better better,
                        double *olo, double *ohi)
{
    double a = nf_compare_oriented_r(r, lo, better), c = nf_compare_oriented_r(r, hi, better);
    *olo = fmin(a, c);
    *ohi = fmax(a, c);
}

/* "  b +1.23% [-0.4%, +2.9%] -> effect z 1.80/2.87" per variant of the
 * first deciding block (or "  b regressed at round 12"); -1 when no block
 * decides.  Changes are signed as in the tables, + is better. */
static int note_of(const struct nf_ab_stop *a, const struct nf_comparison *cmp, char *note,
                   size_t notelen)
{
    for (size_t b = 0; b < cmp->nblocks; b++) {
        if (!nf_compare_deciding(&cmp->blocks[b], a->metric))
            continue;
        enum nf_better better = cmp->blocks[b].better;
        size_t len = 0;
        for (size_t l = 1; l < cmp->nlabels && len + 80 < notelen; l++) {
            const struct nf_cmp_cell *c = &cmp->blocks[b].cells[l];
            const struct nf_seq_look *k = &c->look;
            if (!c->compared)
                continue;
            int n;
            double lo, hi;
            if (!c->sequential || !isfinite(k->change_pct)) {
                /* unpaired when a value is <= 0 (no log-ratio): then a
                 * baseline below 0 reaches here */
                oriented_ci(&c->r, c->r.ci_low_pct, c->r.ci_high_pct, better, &lo, &hi);
                n = isfinite(lo) && isfinite(hi)
                        ? snprintf(note + len, notelen - len, "  %s %+.2f%% [%+.2f, %+.2f]",
                                   cmp->labels[l],
                                   nf_compare_oriented_r(&c->r, c->r.change_pct, better), lo, hi)
                        : 0;
            } else if (k->action != NF_SEQ_CONTINUE)
                n = snprintf(note + len, notelen - len, "  %s %s at round %zu", cmp->labels[l],
                             nf_verdict_name(k->verdict), k->rounds);
            else {
                char ci[64] = "";
                oriented_ci(NULL, k->ci_low_pct, k->ci_high_pct, better, &lo, &hi);
                if (isfinite(lo) && isfinite(hi))
                    snprintf(ci, sizeof(ci), " [%+.1f%%, %+.1f%%]", lo, hi);
                double z = k->toward == NF_SEQ_TOWARD_EQUIVALENT ? k->z_equiv : k->z_effect;
                double bound =
                    k->toward == NF_SEQ_TOWARD_EQUIVALENT ? k->bound_equiv : k->bound_effect;
                double ch = nf_compare_oriented_r(NULL, k->change_pct, better);
                if (k->toward == NF_SEQ_TOWARD_NONE)
                    n = snprintf(note + len, notelen - len, "  %s %+.2f%%%s", cmp->labels[l], ch,
                                 ci);
                else
                    n = snprintf(note + len, notelen - len, "  %s %+.2f%%%s → %s z %.2f/%.2f",
                                 cmp->labels[l], ch, ci, nf_seq_toward_name(k->toward), z, bound);
            }
            if (n > 0)
                len += (size_t)n < notelen - len ? (size_t)n : notelen - len - 1;
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
    const char *stop = NULL;
    (void)err;
    (void)errlen;
    /* Nothing compared at a look (the metrics the variants share have no
     * samples: -m naming a counter that came out <not supported>): more
     * rounds of the same would not change that. */
    int any = nf_ab_compare(a, names, runs, n, 1, &cmp, e, sizeof(e)) == 0 &&
              nf_compare_any(&cmp, e, sizeof(e));
    if (any) {
        note_of(a, &cmp, note, notelen);
        /* A row no more rounds can decide would keep the session going
         * until MAX (or --max-time) for nothing. */
        stop =
            nf_ab_never_decided(a, &cmp, e, sizeof(e)) ? NF_AB_NEVER_DECIDED : should_stop(a, &cmp);
    }
    nf_compare_free(&cmp);
    if (!any)
        stop = NF_AB_NOTHING_COMPARED;
    if (!stop)
        return 0;
    *why = stop;
    return 1;
}
