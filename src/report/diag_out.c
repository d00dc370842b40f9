/* The noise diagnosis, the robust advice, the shift function and the
 * cluster comparison as text and JSON (report/diag.h). */
#include "report/diag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/fmt.h"

void nf_diag_text(FILE *out, const char *prefix, const char *label, const struct nf_label_diag *ld)
{
    for (size_t i = 0; ld->done && i < ld->d.n; i++) {
        const struct nf_diag_finding *f = &ld->d.f[i];
        fprintf(out, "%s%s%s%s", prefix, label ? label : "", label ? ": " : "", f->summary);
        if (ld->stride > 1)
            fprintf(out, " (1 in %zu repetitions diagnosed)", ld->stride);
        fprintf(out, "\n        likely cause: %s\n", f->cause);
        /* what the machine did then: each line, indented */
        const char *a = ld->activity ? ld->activity[i] : NULL;
        for (const char *p = a, *e; p && *p; p = *e ? e + 1 : e) {
            e = strchr(p, '\n');
            if (!e)
                e = p + strlen(p);
            fprintf(out, "        %s %.*s\n", p == a ? "coinciding:" : "           ", (int)(e - p),
                    p);
        }
        fprintf(out, "        fix: %s\n", f->fix);
    }
}

char *nf_diag_line(const char *label, const struct nf_label_diag *ld, size_t i)
{
    const struct nf_diag_finding *f = &ld->d.f[i];
    char sub[64] = "";
    char *s;
    if (ld->stride > 1)
        snprintf(sub, sizeof(sub), " (1 in %zu repetitions diagnosed)", ld->stride);
    if (asprintf(&s, "%s%s%s%s; likely cause: %s; fix: %s", label ? label : "", label ? ": " : "",
                 f->summary, sub, f->cause, f->fix) < 0)
        return NULL;
    return s;
}

static json_t *reps_json(const struct nf_label_diag *ld, const size_t *reps, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        int64_t id;
        size_t rep;
        nf_label_diag_rep(ld, reps[i], &id, &rep);
        json_array_append_new(
            a, json_pack("{s:I,s:I}", "run", (json_int_t)id, "repetition", (json_int_t)rep));
    }
    return a;
}

/* The numbers behind a finding, by kind. */
static void numbers_json(json_t *o, const struct nf_label_diag *ld, const struct nf_diag_finding *f)
{
    switch (f->kind) {
    case NF_DIAG_CLUSTERS: {
        const struct nf_clustering *cl = &f->u.clusters.cl;
        json_t *a = json_array();
        for (size_t k = 0; k < cl->k; k++) {
            const struct nf_cluster *c = &cl->c[k];
            size_t first = f->u.clusters.first[k];
            json_t *j = json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "n", (json_int_t)c->n, "share",
                                  nf_json_num(c->share), "center", nf_json_num(c->center), "scale",
                                  nf_json_num(c->scale), "min", nf_json_num(c->lo), "max",
                                  nf_json_num(c->hi));
            json_object_set_new(j, "repetitions", reps_json(ld, f->reps + first, c->n));
            json_array_append_new(a, j);
        }
        json_object_set_new(o, "clusters", a);
        json_object_set_new(o, "separation", nf_json_num(cl->separation));
        json_object_set_new(o, "critical", nf_json_num(cl->critical));
        break;
    }
    case NF_DIAG_WARMUP:
        json_object_set_new(o, "count", json_integer((json_int_t)f->u.warmup.count));
        json_object_set_new(o, "slow_median", nf_json_num(f->u.warmup.slow_median));
        json_object_set_new(o, "rest_median", nf_json_num(f->u.warmup.rest_median));
        json_object_set_new(o, "excess_pct", nf_json_num(f->u.warmup.excess_pct));
        json_object_set_new(o, "statistic", nf_json_num(f->u.warmup.stat));
        json_object_set_new(o, "critical", nf_json_num(f->u.warmup.critical));
        break;
    case NF_DIAG_OUTLIERS:
        json_object_set_new(o, "median", nf_json_num(f->u.outliers.center));
        json_object_set_new(o, "scale", nf_json_num(f->u.outliers.scale));
        json_object_set_new(o, "low_fence", nf_json_num(f->u.outliers.lo_fence));
        json_object_set_new(o, "high_fence", nf_json_num(f->u.outliers.hi_fence));
        json_object_set_new(o, "critical", nf_json_num(f->u.outliers.critical));
        json_object_set_new(o, "group_n", json_integer((json_int_t)f->u.outliers.group_n));
        break;
    case NF_DIAG_DRIFT:
        json_object_set_new(o, "run", json_integer((json_int_t)ld->run_id[f->u.drift.run]));
        json_object_set_new(o, "rho", nf_json_num(f->u.drift.rho));
        json_object_set_new(o, "p", nf_json_num(f->u.drift.p));
        break;
    case NF_DIAG_RUNS_DIFFER:
        json_object_set_new(o, "runs", json_integer((json_int_t)f->u.runs.runs));
        json_object_set_new(o, "p", nf_json_num(f->u.runs.p));
        break;
    case NF_DIAG_NOISY:
        json_object_set_new(o, "robust_cv_pct", nf_json_num(f->u.noisy.cv_pct));
        json_object_set_new(o, "limit_pct", nf_json_num(f->u.noisy.limit_pct));
        json_object_set_new(o, "step_pct", nf_json_num(f->u.noisy.step_pct));
        break;
    case NF_DIAG_SERIAL:
        json_object_set_new(o, "run", json_integer((json_int_t)ld->run_id[f->u.serial.run]));
        json_object_set_new(o, "lag1_r", nf_json_num(f->u.serial.r));
        json_object_set_new(o, "p", nf_json_num(f->u.serial.p));
        break;
    }
}

void nf_diag_json_add(json_t *list, const char *label, const struct nf_label_diag *ld)
{
    for (size_t i = 0; ld->done && i < ld->d.n; i++) {
        const struct nf_diag_finding *f = &ld->d.f[i];
        json_t *o = json_object();
        if (label)
            json_object_set_new(o, "label", json_string(label));
        json_object_set_new(o, "kind", json_string(nf_diag_kind_name(f->kind)));
        json_object_set_new(o, "summary", json_string(f->summary));
        json_object_set_new(o, "cause", json_string(f->cause));
        json_object_set_new(o, "fix", json_string(f->fix));
        if (ld->activity && ld->activity[i])
            json_object_set_new(o, "activity", json_string(ld->activity[i]));
        /* a clusters finding lists its repetitions per cluster */
        if (f->kind != NF_DIAG_CLUSTERS)
            json_object_set_new(o, "repetitions", reps_json(ld, f->reps, f->nreps));
        numbers_json(o, ld, f);
        if (ld->stride > 1)
            json_object_set_new(o, "stride", json_integer((json_int_t)ld->stride));
        json_array_append_new(list, o);
    }
}

char *nf_diag_advice_line(const char *label, const struct nf_cmp_cell *x)
{
    char *s, who[160];
    if (!x->compared || x->verdict != NF_INCONCLUSIVE || !x->advice.multimodal || !x->advice_fix)
        return NULL;
    nf_clusters_who(who, sizeof(who), label, x);
    if (asprintf(&s, "%s: inconclusive, and %s form clusters: %s", label, who, x->advice_fix) < 0)
        return NULL;
    return s;
}

char *nf_diag_settle_line(const char *label, const struct nf_cmp_cell *base,
                          const struct nf_cmp_cell *x)
{
    char words[256];
    char *s = nf_diag_advice_line(label, x);
    if (s)
        return s;
    nf_settle_words(words, sizeof(words), base, x);
    if (!words[0] || asprintf(&s, "%s: inconclusive; %s", label, words) < 0)
        return NULL;
    return s;
}

const char *nf_diag_location_name(const struct nf_comparison *c)
{
    /* a decile's column is the row's "Decile" with the decile's number */
    static const char *const decile[] = {"Decile1", "Decile2", "Decile3", "Decile4", "Decile5",
                                         "Decile6", "Decile7", "Decile8", "Decile9"};
    const struct nf_test_row *t = nf_test_row(c->opts.test);
    if (!t)
        return NULL;
    if (t->location == NF_LOC_DECILE)
        return decile[c->opts.decile >= 1 && c->opts.decile <= 9 ? c->opts.decile - 1 : 0];
    return t->location_column;
}

/* ------------------------------------------------------------- tables */

static void shift_text(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                       size_t l)
{
    static const char *const names[NF_SHIFT_NQ] = {"1 (fast)", "2", "3", "4",       "5",
                                                   "6",        "7", "8", "9 (slow)"};
    const struct nf_shift *s = b->cells[l].shift;
    char x[32], y[32], ch[32], ci[64];
    int w = 12;
    for (size_t i = 0; i <= l; i += l)
        if ((int)strlen(c->labels[i]) + 1 > w)
            w = (int)strlen(c->labels[i]) + 1;
    fprintf(out,
            "  %s vs %s, shift function: Harrell-Davis deciles, the change (+ is better) and the\n"
            "  difference %s - %s with its family-wise CI (%u bootstrap resamples, Hochberg\n"
            "  over the 9 deciles); *x%%* outside the noise\n",
            c->labels[l], c->labels[0], c->labels[l], c->labels[0], s->resamples);
    fprintf(out, "  %-10s %*s %*s %10s  %s\n", "decile", w, c->labels[0], w, c->labels[l], "change",
            "difference [CI]                 p adj");
    for (size_t j = 0; j < NF_SHIFT_NQ; j++) {
        const struct nf_shift_decile *d = &s->d[j];
        nf_diag_fmt_num(x, sizeof(x), d->base);
        nf_diag_fmt_num(y, sizeof(y), d->var);
        double o = nf_compare_oriented_at(d->base, d->change_pct, b->better);
        if (!isfinite(d->change_pct))
            snprintf(ch, sizeof(ch), "-");
        else if (d->differs)
            snprintf(ch, sizeof(ch), "*%+.2f%%*", o);
        else
            snprintf(ch, sizeof(ch), "(%+.2f%%)", o);
        snprintf(ci, sizeof(ci), "%+.4g [%+.4g, %+.4g]", d->diff, d->lo_fw, d->hi_fw);
        fprintf(out, "  %-10s %*s %*s %10s  %-31s %.2g\n", names[j], w, x, w, y, ch, ci, d->p_adj);
    }
}

/* A cluster's change of trimmed means, + as better, with its CI. */
void nf_cluster_change_text(char *buf, size_t len, const struct nf_cmp_block *b,
                            const struct nf_cluster_row *r)
{
    double ch = nf_compare_oriented_at(r->base.loc, r->change_pct, b->better);
    double a = nf_compare_oriented_at(r->base.loc, r->ci_low_pct, b->better);
    double c = nf_compare_oriented_at(r->base.loc, r->ci_high_pct, b->better);
    double lo = fmin(a, c), hi = fmax(a, c);
    if (isfinite(ch) && isfinite(lo) && isfinite(hi))
        snprintf(buf, len, "%+.2f%% [%+.2f, %+.2f]", ch, lo, hi);
    else if (isfinite(ch))
        snprintf(buf, len, "%+.2f%%", ch);
    else
        snprintf(buf, len, "-");
}

static void cluster_text(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                         size_t l)
{
    const struct nf_cluster_cmp *k = b->cells[l].clusters;
    char loc[2][32], ctr[32], share[64], ch[64];
    fprintf(out,
            "  %s vs %s, cluster by cluster (found in both pooled%s): a = %s, b = %s;\n"
            "  each one's share, 20%% trimmed mean, and the change of the trimmed means "
            "(Yuen, + is better)\n",
            c->labels[l], c->labels[0],
            b->cells[l].clusters_stride > 1 ? ", a strided subsample" : "", c->labels[0],
            c->labels[l]);
    fprintf(out, "  %-8s %10s %8s %8s  %-24s %10s %10s  %-24s %s\n", "cluster", "around", "share a",
            "share b", "share change [CI], pts", "a", "b", "change [CI]", "p");
    for (size_t i = 0; i < k->k; i++) {
        const struct nf_cluster_row *r = &k->row[i];
        nf_diag_fmt_num(ctr, sizeof(ctr), r->center);
        nf_diag_fmt_num(loc[0], sizeof(loc[0]), r->base.loc);
        nf_diag_fmt_num(loc[1], sizeof(loc[1]), r->var.loc);
        snprintf(share, sizeof(share), "%+.1f [%+.1f, %+.1f]", r->share_diff, r->share_lo,
                 r->share_hi);
        nf_cluster_change_text(ch, sizeof(ch), b, r);
        fprintf(out, "  %-8zu %10s %7.0f%% %7.0f%%  %-24s %10s %10s  %-24s ", i + 1, ctr,
                r->base.share * 100, r->var.share * 100, share, loc[0], loc[1], ch);
        if (isfinite(r->p))
            fprintf(out, "%.2g\n", r->p);
        else
            fputs("-\n", out);
    }
}

void nf_explain_text(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    for (size_t l = 1; l < c->nlabels; l++) {
        if (b->cells[l].shift)
            shift_text(out, c, b, l);
        if (b->cells[l].clusters)
            cluster_text(out, c, b, l);
    }
}

/* --------------------------------------------------------------- JSON */

static json_t *shift_json(const struct nf_comparison *c, const struct nf_shift *s)
{
    json_t *a = json_array();
    for (size_t j = 0; j < NF_SHIFT_NQ; j++) {
        const struct nf_shift_decile *d = &s->d[j];
        json_t *o = json_object();
        json_object_set_new(o, "decile", json_integer((json_int_t)j + 1));
        json_object_set_new(o, "q", nf_json_num(d->q));
        json_object_set_new(o, "baseline", nf_json_num(d->base));
        json_object_set_new(o, "value", nf_json_num(d->var));
        json_object_set_new(o, "difference", nf_json_num(d->diff));
        json_object_set_new(o, "ci_low", nf_json_num(d->lo));
        json_object_set_new(o, "ci_high", nf_json_num(d->hi));
        json_object_set_new(o, "ci_low_fw", nf_json_num(d->lo_fw));
        json_object_set_new(o, "ci_high_fw", nf_json_num(d->hi_fw));
        json_object_set_new(o, "change_pct", nf_json_num(d->change_pct));
        json_object_set_new(o, "ci_low_pct", nf_json_num(d->ci_low_pct));
        json_object_set_new(o, "ci_high_pct", nf_json_num(d->ci_high_pct));
        json_object_set_new(o, "p_value", nf_json_num(d->p));
        json_object_set_new(o, "p_adjusted", nf_json_num(d->p_adj));
        json_object_set_new(o, "outside_noise", json_boolean(d->differs));
        json_array_append_new(a, o);
    }
    return json_pack("{s:i,s:I,s:o}", "decile", c->opts.decile ? c->opts.decile : 1, "resamples",
                     (json_int_t)s->resamples, "deciles", a);
}

static json_t *side_json(const struct nf_cluster_side *s)
{
    return json_pack("{s:I,s:o,s:o,s:o,s:o}", "n", (json_int_t)s->n, "share", nf_json_num(s->share),
                     "location", nf_json_num(s->loc), "ci_low", nf_json_num(s->lo), "ci_high",
                     nf_json_num(s->hi));
}

static json_t *clusters_json(const struct nf_cmp_cell *x)
{
    const struct nf_cluster_cmp *k = x->clusters;
    json_t *a = json_array();
    for (size_t i = 0; i < k->k; i++) {
        const struct nf_cluster_row *r = &k->row[i];
        json_t *o = json_object();
        json_object_set_new(o, "center", nf_json_num(r->center));
        json_object_set_new(o, "min", nf_json_num(r->range_lo));
        json_object_set_new(o, "max", nf_json_num(r->range_hi));
        json_object_set_new(o, "baseline", side_json(&r->base));
        json_object_set_new(o, "variant", side_json(&r->var));
        json_object_set_new(o, "share_change_pts", nf_json_num(r->share_diff));
        json_object_set_new(o, "share_ci_low_pts", nf_json_num(r->share_lo));
        json_object_set_new(o, "share_ci_high_pts", nf_json_num(r->share_hi));
        json_object_set_new(o, "change_pct", nf_json_num(r->change_pct));
        json_object_set_new(o, "ci_low_pct", nf_json_num(r->ci_low_pct));
        json_object_set_new(o, "ci_high_pct", nf_json_num(r->ci_high_pct));
        json_object_set_new(o, "p_value", nf_json_num(r->p));
        json_array_append_new(a, o);
    }
    return json_pack("{s:I,s:I,s:o}", "k", (json_int_t)k->k, "stride",
                     (json_int_t)x->clusters_stride, "clusters", a);
}

void nf_explain_json(json_t *row, const struct nf_comparison *c, const struct nf_cmp_block *b,
                     const struct nf_cmp_cell *x)
{
    const char *loc = nf_diag_location_name(c);
    /* a paired row ran the paired t (or signed-rank): no trimmed mean or
     * decile of its own; change_of says "pairs" */
    if (loc && x->compared && x->pairing == NF_PAIR_NONE)
        json_object_set_new(row, "location",
                            json_pack("{s:s,s:o,s:o}", "name", loc, "baseline",
                                      nf_json_num(x->r.base_mean), "value",
                                      nf_json_num(x->r.mean)));
    if (x->compared && x->verdict == NF_INCONCLUSIVE && isfinite(x->advice.cv_pct)) {
        json_t *a = json_object();
        json_object_set_new(a, "robust_cv_pct", nf_json_num(x->advice.cv_pct));
        json_object_set_new(a, "multimodal", json_boolean(x->advice.multimodal));
        json_object_set_new(
            a, "clusters",
            json_pack("[I,I]", (json_int_t)x->advice.k_base, (json_int_t)x->advice.k_var));
        json_object_set_new(a, "more_repetitions_help", json_boolean(!x->advice.multimodal));
        if (x->advice_fix)
            json_object_set_new(a, "fix", json_string(x->advice_fix));
        json_object_set_new(row, "advice", a);
    }
    if (x->shift)
        json_object_set_new(row, "shift", shift_json(c, x->shift));
    if (x->clusters)
        json_object_set_new(row, "clusters", clusters_json(x));
    (void)b;
}
