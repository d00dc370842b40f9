/* Building a comparison: gather each label's samples per workload × metric
 * (× arguments, when a label ran the workload with several), decide the
 * units (samples, or run means when runs differ), test against the
 * baseline, correct within each family of rows (Holm), decide. */
#include "analysis/compare.h"

#include <math.h>
#include <string.h>

#include "analysis/blocks.h"
#include "analysis/pairing.h"
#include "analysis/percentile.h"
#include "core/util.h"
#include "stats/tests.h"

/* The metric of block b in each of a label's runs that has samples of it
 * (ms: room for lr->nruns); the count, their samples in *total. */
static size_t metrics_of(const struct nf_cmp_block *b, const struct nf_label_runs *lr,
                         const struct nf_metric **ms, size_t *total, double *min_running,
                         int *unsupported, int *not_counted)
{
    size_t k = 0;
    *total = 0;
    *not_counted = 1;
    for (size_t r = 0; r < lr->nruns; r++) {
        struct nf_run *run = lr->runs[r];
        if (strcmp(run->workload, b->workload) != 0)
            continue;
        const struct nf_metric *m = nf_run_find(run, b->metric);
        *unsupported |= m && !m->supported;
        if (m && !m->supported && !nf_metric_not_counted(m))
            *not_counted = 0;
        if (!m || !m->supported || !m->n)
            continue;
        ms[k++] = m;
        *total += m->n;
        double lo = nf_metric_min_running(m);
        if (lo < *min_running)
            *min_running = lo;
    }
    return k;
}

/* Levels of variance: whether a label's runs of block b differ more than
 * their repetitions allow (ANOVA at alpha, p in *p; rates as reciprocals). */
static int label_runs_differ(const struct nf_cmp_block *b, const struct nf_label_runs *lr,
                             double alpha, double *p)
{
    const struct nf_metric **ms = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(*ms));
    size_t total;
    double min_running = 100.0;
    int unsupported = 0, not_counted;
    size_t k = metrics_of(b, lr, ms, &total, &min_running, &unsupported, &not_counted);
    int differ = nf_metric_runs_differ(ms, k, b->rate, alpha, p) == 1;
    free(ms);
    return differ;
}

/* A label whose one value of the block is one imported `perf stat -r N`
 * block: its mean and standard error stand for N repetitions (welch tests
 * from them), and its Stddev is theirs. */
static void summary_of(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                       const struct nf_label_runs *lr, const struct nf_metric *m)
{
    size_t n;
    double sem_pct;
    if (!m || m->n != 1 || cell->n != 1 || b->rate)
        return;
    for (size_t r = 0; r < lr->nruns; r++)
        if (nf_run_find(lr->runs[r], b->metric) == m &&
            nf_run_perf_repeat(lr->runs[r], b->metric, &n, &sem_pct) == 0 && n >= 2) {
            cell->summary_n = n;
            cell->summary_sd = sem_pct / 100 * fabs(m->values[0]) * sqrt((double)n);
            cell->s.stddev = cell->summary_sd;
            cell->s.cv_pct = cell->s.mean != 0 ? 100 * cell->summary_sd / fabs(cell->s.mean) : NAN;
            cell->s.sem_pct = sem_pct;
            nf_cmp_note(cell,
                        "%s: one perf stat -r %zu block: its mean and ( +- %.2f%% ) stand for %zu "
                        "repetitions (welch from these summary statistics)",
                        lr->label, n, sem_pct, n);
            return;
        }
}

/* Fill one label's cell of a block from its runs.  own: its runs differ
 * more than their repetitions (ANOVA p); differing: a label of the block
 * whose runs do, or NULL.  Then
 * the run is a level of variance for every label: a label whose own runs
 * agree is compared by its run means too, since its repetitions alone say
 * nothing of how much a run can move (one run is one unit). */
static void fill_cell(struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                      const struct nf_label_runs *lr, const struct nf_cmp_opts *opts, int own,
                      double p, const char *differing)
{
    const struct nf_metric **ms = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(*ms));
    size_t total;
    double min_running = 100.0;
    int unsupported = 0, not_counted;
    size_t k = metrics_of(b, lr, ms, &total, &min_running, &unsupported, &not_counted);
    cell->nruns = k;
    cell->nsamples = total;
    if (!k) {
        cell->unsupported = unsupported;
        cell->not_counted = unsupported && not_counted;
        free(ms);
        return;
    }
    cell->has_data = 1;

    if (own || differing) {
        cell->run_means = 1;
        cell->units = nf_xcalloc(k, sizeof(double));
        cell->n = k;
        for (size_t i = 0; i < k; i++) {
            struct nf_summary s;
            nf_summarize(ms[i]->values, ms[i]->n, &s);
            /* a rate with a 0 or negative value: that value, so that the
             * cell is seen to hold one (as nf_summary_mean says) */
            cell->units[i] = !b->rate ? s.mean : isfinite(s.hmean) ? s.hmean : s.min;
        }
        if (own)
            nf_cmp_note(cell,
                        "%s: runs differ more than their repetitions (ANOVA p %.3g); "
                        "using %zu run means",
                        lr->label, p, k);
        else
            nf_cmp_note(cell,
                        "%s: runs are the units, since %s's runs differ more than their "
                        "repetitions: using its %zu run mean%s",
                        lr->label, differing, k, k == 1 ? "" : "s");
    }
    if (!cell->run_means) {
        cell->units = nf_xcalloc(total, sizeof(double));
        for (size_t i = 0; i < k; i++) {
            memcpy(cell->units + cell->n, ms[i]->values, ms[i]->n * sizeof(double));
            cell->n += ms[i]->n;
        }
    }
    const struct nf_metric *only = k == 1 ? ms[0] : NULL;
    free(ms);
    nf_summarize(cell->units, cell->n, &cell->s);
    cell->mean = nf_summary_mean(&cell->s, b->rate); /* as run and list show it */
    if (b->rate && cell->n && !isfinite(cell->s.hmean)) {
        /* A rate of 0 (a repetition that moved nothing): the harmonic mean
         * tends to 0, and the test, on the reciprocals, cannot run. */
        double lo = cell->s.min;
        cell->nonpositive = 1;
        nf_cmp_note(cell,
                    "%s: a value of %s in a rate (higher is better): %s, and no test runs on it "
                    "(did a repetition fail?)",
                    lr->label, lo == 0 ? "0" : "below 0",
                    lo == 0 ? "the harmonic mean is 0" : "no harmonic mean");
    }
    summary_of(b, cell, lr, only);
    if (cell->n < 3 && !cell->summary_n)
        nf_cmp_note(cell, "%s: only %zu %s%s; at least 3 are needed for a useful test", lr->label,
                    cell->n, cell->run_means ? "run mean" : "repetition", cell->n == 1 ? "" : "s");
    if (min_running < 100.0)
        nf_cmp_note(
            cell,
            "%s: counter multiplexed: ran %.2f%% of the time at worst; values scaled; fix: count "
            "fewer events, or one group per run",
            lr->label, min_running);
    if (b->family) {
        cell->events = nf_pct_events(lr->runs, lr->nruns, b->workload, b->family);
        char *noun = nf_xasprintf("%ss", b->family);
        char *tail = nf_pct_tail_note(lr->label, b->pct, cell->events, noun);
        if (tail) {
            nf_cmp_note(cell, "%s", tail);
            free(tail);
        }
        free(noun);
    }
    /* Outliers, clusters, warm-up, drift, runs that differ, a noisy machine. */
    nf_diag_cell(b, cell, lr, opts);
}

/* How a label's runs of a block counted rusage: 1 from the fork (no
 * NF_ENV_RUSAGE: recorded before), 2 from go; or'ed over its runs. */
static int rusage_methods(const struct nf_label_runs *lr)
{
    int m = 0;
    for (size_t i = 0; i < lr->nruns; i++) {
        const json_t *v =
            lr->runs[i]->env ? json_object_get(lr->runs[i]->env, NF_ENV_RUSAGE) : NULL;
        m |= json_is_string(v) && strcmp(json_string_value(v), "from-go") == 0 ? 2 : 1;
    }
    return m;
}

/* A rusage row of a built-in workload whose sides counted it in different
 * ways (a baseline recorded before the image, measure/runner.h) is not
 * compared: the difference would be the method's (pipe's minor faults went
 * from 63 to 36).  1 when the cell is left so, with a note. */
static int rusage_method_differs(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                                 const struct nf_label_runs *base, const struct nf_label_runs *lr)
{
    if (!nf_metric_is_rusage(b->metric) || rusage_methods(base) == rusage_methods(lr))
        return 0;
    nf_cmp_note(cell,
                "not compared: %s counted from each repetition's fork on one side (runs "
                "recorded before built-in workloads ran in an image of noisefloor) and from "
                "its go on the other; the difference would be the method's",
                b->metric);
    return 1;
}

/* A baseline location of 0 has no relative change: say so, and what the
 * test on the values found instead. */
static void zero_base_note(const struct nf_comparison *c, struct nf_cmp_cell *cell, size_t l)
{
    const struct nf_cmp_result *r = &cell->r;
    const struct nf_cmp_opts *o = &c->opts;
    const char *label = c->labels[l];
    char where[32];
    if (!r->zero_base)
        return;
    const struct nf_test_row *t = nf_test_row(o->test);
    if (!t)
        return;
    if (t->location == NF_LOC_DECILE)
        snprintf(where, sizeof(where), "%s %d", t->location_words, o->decile ? o->decile : 1);
    else
        snprintf(where, sizeof(where), "%s", t->location_words);
    if (!r->ok) {
        nf_cmp_note(cell,
                    "%s: the baseline %s is 0, so the change has no percentage, and the %s test "
                    "resamples a ratio of means: no test (welch or utest test the values)",
                    label, where, nf_test_name(o->test));
        return;
    }
    char ci[96] = "CI unbounded";
    if (r->diff_low == r->diff_high)
        snprintf(ci, sizeof(ci), "both sides constant");
    else if (isfinite(r->diff_low) && isfinite(r->diff_high))
        snprintf(ci, sizeof(ci), "%g%% CI [%+.4g, %+.4g]", 100 * (1 - o->alpha), r->diff_low,
                 r->diff_high);
    nf_cmp_note(cell,
                "%s: the baseline %s is 0, so the change has no percentage; the test is on the "
                "values: difference %+.4g, %s",
                label, where, r->mean - r->base_mean, ci);
}

/* Are both sides constant and the same?  Then the test has nothing to
 * test (p 1 by convention) and the row is in no family. */
static int constant_same(const struct nf_cmp_cell *a, const struct nf_cmp_cell *b)
{
    return a->n && b->n && a->s.min == a->s.max && b->s.min == b->s.max && a->s.min == b->s.min;
}

/* Are the units of x exactly *k / (the units of y)?  *k NAN: any k,
 * which is then set (so that two pairs of cells share one). */
static int reciprocal_units(const struct nf_cmp_cell *x, const struct nf_cmp_cell *y, double *k)
{
    if (!x->n || x->n != y->n)
        return 0;
    for (size_t i = 0; i < x->n; i++) {
        double v = x->units[i] * y->units[i];
        if (!(v > 0) || !isfinite(v))
            return 0;
        if (isnan(*k))
            *k = v;
        if (fabs(v - *k) > 1e-9 * *k)
            return 0;
    }
    return 1;
}

/* A rate stored beside its reciprocal (ops/sec = 1e6 / usecs/op) is
 * tested as reciprocals: the same test as its primary twin's, a row of the
 * same hypothesis.  It takes the twin's family and Holm p instead of
 * adding a row to either family (cell->twin). */
static void twin(struct nf_comparison *c, struct nf_cmp_block *b, size_t l, const char *metric)
{
    struct nf_cmp_cell *x = &b->cells[l];
    if (nf_compare_deciding(b, metric) || !x->compared || x->sequential || x->constant ||
        !isfinite(x->r.p_value))
        return;
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *d = &c->blocks[i];
        double k = NAN;
        if (d == b || d->rate == b->rate || !nf_cmp_block_same_runs(d, b) ||
            d->cells[l].family != NF_FAMILY_PRIMARY || d->cells[l].pairing != x->pairing ||
            !reciprocal_units(&b->cells[0], &d->cells[0], &k) ||
            !reciprocal_units(x, &d->cells[l], &k))
            continue;
        x->family = NF_FAMILY_PRIMARY;
        /* the same p up to rounding: never below the row's own */
        x->p_adjusted = fmax(d->cells[l].p_adjusted, x->r.p_value);
        x->twin = d->metric;
        return;
    }
}

/* Holm within each family (enum nf_family): the rows of the primary
 * metric (with -m, the metric asked for) among themselves, every other
 * row among themselves.  Rows an ab session's design decides (its alpha
 * is split over them already), rows without a test and rows of constant
 * identical data are in neither; their p_adjusted is their own p. */
static void holm_families(struct nf_comparison *c, const char *metric)
{
    size_t total = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        total += c->nlabels - 1;
    double *p = nf_xcalloc(total ? total : 1, sizeof(double));
    for (int f = NF_FAMILY_PRIMARY; f <= NF_FAMILY_SECONDARY; f++) {
        size_t k = 0;
        for (size_t i = 0; i < c->nblocks; i++) {
            struct nf_cmp_block *b = &c->blocks[i];
            enum nf_family fam =
                nf_compare_deciding(b, metric) ? NF_FAMILY_PRIMARY : NF_FAMILY_SECONDARY;
            for (size_t l = 1; l < c->nlabels; l++) {
                struct nf_cmp_cell *x = &b->cells[l];
                if (!x->compared || x->sequential || fam != (enum nf_family)f)
                    continue;
                if (x->twin)
                    continue; /* the same test as a primary row: its p */
                x->p_adjusted = x->r.p_value;
                if (!isfinite(x->r.p_value))
                    continue; /* no test */
                if (constant_same(&b->cells[0], x)) {
                    x->constant = 1;
                    c->constant_rows++;
                    continue;
                }
                x->family = fam;
                p[k++] = x->r.p_value;
            }
        }
        nf_holm(p, k, p);
        c->family_rows[f] = k;
        k = 0;
        for (size_t i = 0; i < c->nblocks; i++)
            for (size_t l = 1; l < c->nlabels; l++)
                if (c->blocks[i].cells[l].family == (enum nf_family)f)
                    c->blocks[i].cells[l].p_adjusted = p[k++];
        if (f == NF_FAMILY_PRIMARY) /* before the secondary family, which they leave */
            for (size_t i = 0; i < c->nblocks; i++)
                for (size_t l = 1; l < c->nlabels; l++)
                    twin(c, &c->blocks[i], l, metric);
    }
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++)
            c->sequential_rows +=
                c->blocks[i].cells[l].compared && c->blocks[i].cells[l].sequential;
    free(p);
}

/* An inconclusive row that is significant before the correction (its CI
 * excludes 0 and it is not equivalent) is inconclusive only because of
 * its family's other rows: what settles it is a p that survives Holm, not
 * a CI of threshold/2 (which would ask tens of thousands of repetitions
 * for a change of 100%).  runs_needed is then for p below alpha over the
 * family's rows (Holm's p never exceeds m * p), at least one more than
 * have (the smaller side's units, or the pairs).  Not for rows whose
 * samples form clusters (more repetitions will not help) or from a
 * baseline of 0 (no runs_needed at all). */
static void before_holm(const struct nf_comparison *c, struct nf_cmp_cell *x, size_t have)
{
    x->before_holm = 0;
    if (x->sequential || x->family == NF_FAMILY_NONE || x->verdict != NF_INCONCLUSIVE ||
        x->r.zero_base || x->advice.multimodal || !nf_significant(&x->r, x->r.p_value, &c->opts))
        return;
    size_t m = c->family_rows[x->family];
    x->before_holm = m;
    x->runs_needed = nf_runs_for_level(x->r.p_value, c->opts.alpha / (double)m, have);
}

static int build(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels,
                 const char *workload, const char *metric, const struct nf_cmp_opts *opts, int live,
                 char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    c->opts = *opts;
    c->metric = metric ? nf_xstrdup(metric) : NULL;
    c->nlabels = nlabels;
    c->labels = nf_xcalloc(nlabels, sizeof(char *));
    for (size_t l = 0; l < nlabels; l++)
        c->labels[l] = in[l].label;
    nf_cmp_collect_blocks(c, in, workload, metric, live);
    if (!c->nblocks) {
        if (metric && workload)
            snprintf(err, errlen, "no metric '%s' of workload '%s' in these runs", metric,
                     workload);
        else if (metric)
            snprintf(err, errlen, "no metric '%s' in these runs", metric);
        else if (workload)
            snprintf(err, errlen, "no runs of workload '%s' under these labels", workload);
        else
            snprintf(err, errlen, "these runs have no samples");
        return -1;
    }

    /* Per cell: units, summaries, notes; then each variant vs the baseline,
     * each on the label's runs of the block. */
    struct nf_label_runs *sub = nf_xcalloc(nlabels, sizeof(*sub));
    int *differ = nf_xcalloc(nlabels, sizeof(*differ));
    double *anova_p = nf_xcalloc(nlabels, sizeof(*anova_p));
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &c->blocks[i];
        const char *differing = NULL;
        for (size_t l = 0; l < nlabels; l++) {
            nf_cmp_runs_of(b, &in[l], &sub[l]);
            differ[l] = label_runs_differ(b, &sub[l], opts->alpha, &anova_p[l]);
            if (differ[l] && !differing)
                differing = in[l].label;
        }
        for (size_t l = 0; l < nlabels; l++) {
            fill_cell(b, &b->cells[l], &sub[l], opts, differ[l], anova_p[l], differing);
            if (b->args && !sub[l].nruns && !live)
                nf_cmp_other_args_note(b, &b->cells[l], &in[l]);
        }
        struct nf_cmp_cell *base = &b->cells[0];
        for (size_t l = 1; l < nlabels; l++) {
            struct nf_cmp_cell *cell = &b->cells[l];
            if (!base->has_data || !cell->has_data ||
                rusage_method_differs(b, cell, &sub[0], &sub[l]))
                continue;
            cell->compared = 1;
            nf_pair_compare(c, b, l, sub, live);
            zero_base_note(c, cell, l);
            const struct nf_test_row *t = nf_test_row(opts->test);
            if (t && t->min_n > 2 && !cell->r.ok && !cell->r.zero_base &&
                cell->pairing == NF_PAIR_NONE && base->n >= 2 && cell->n >= 2 &&
                (base->n < t->min_n || cell->n < t->min_n))
                nf_cmp_note(cell,
                            "%s: the %s needs at least %zu values a side (%zu and %zu): no "
                            "test (welch and utest test from 2 a side)",
                            c->labels[l], nf_test_name(opts->test), t->min_n, base->n, cell->n);
        }
        for (size_t l = 0; l < nlabels; l++)
            free(sub[l].runs);
    }
    free(sub);
    free(differ);
    free(anova_p);

    holm_families(c, metric);
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &c->blocks[i];
        for (size_t l = 1; l < nlabels; l++) {
            struct nf_cmp_cell *cell = &b->cells[l];
            if (!cell->compared)
                continue;
            int negligible = cell->look.negligible;
            if (!cell->sequential) {
                cell->verdict = nf_decide(&cell->r, cell->p_adjusted, b->better, opts);
                cell->significant = nf_significant(&cell->r, cell->p_adjusted, opts);
                negligible = nf_negligible(&cell->r, cell->p_adjusted, opts);
            }
            if (cell->twin && !live)
                nf_cmp_note(cell,
                            "%s: %s is the reciprocal of %s (up to a constant), and a rate is "
                            "tested on its reciprocals: the same test, so it takes that row's "
                            "Holm p (the primary family)",
                            c->labels[l], b->metric, cell->twin);
            if (negligible && !live) {
                double ch = nf_compare_oriented_r(&cell->r, cell->r.change_pct, b->better);
                nf_cmp_note(cell, "%s: a real change of %+.2f%% (%s), inside the ±%g%% margin",
                            c->labels[l], ch, ch > 0 ? "better" : "worse", opts->threshold_pct);
            }
            /* A paired row's runs_needed counts pairs (analysis/pairing.c). */
            size_t have = cell->n < b->cells[0].n ? cell->n : b->cells[0].n;
            if (cell->pairing == NF_PAIR_NONE) {
                nf_diag_advise(b, &b->cells[0], cell, opts);
                if (cell->advice_fix) /* the side whose samples form the clusters */
                    cell->advice_who = cell->advice.k_var > 1 && cell->advice.k_base > 1 ? NULL
                                       : cell->advice.k_var > 1 ? c->labels[l]
                                                                : c->labels[0];
                /* never fewer than the smaller side has (as nf_settle
                 * counts it): the CI says how many then */
                if (cell->runs_needed && cell->runs_needed <= have)
                    cell->runs_needed =
                        nf_runs_from_ci(cell->r.ci_low_pct, cell->r.ci_high_pct, cell->r.change_pct,
                                        opts->threshold_pct, have);
            } else {
                have = cell->npairs;
                if (cell->verdict != NF_INCONCLUSIVE)
                    cell->runs_needed = 0;
            }
            before_holm(c, cell, have);
        }
    }
    return 0;
}

int nf_compare_build(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels,
                     const char *workload, const char *metric, const struct nf_cmp_opts *opts,
                     char *err, size_t errlen)
{
    return build(c, in, nlabels, workload, metric, opts, 0, err, errlen);
}

int nf_compare_build_live(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels,
                          const char *workload, const char *metric, const struct nf_cmp_opts *opts,
                          char *err, size_t errlen)
{
    return build(c, in, nlabels, workload, metric, opts, 1, err, errlen);
}

void nf_compare_free(struct nf_comparison *c)
{
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &c->blocks[i];
        for (size_t l = 0; l < c->nlabels; l++) {
            free(b->cells[l].units);
            for (size_t k = 0; k < b->cells[l].nnotes; k++)
                free(b->cells[l].notes[k]);
            free(b->cells[l].notes);
            nf_diag_cell_free(&b->cells[l]);
        }
        free(b->cells);
        free(b->family);
        free(b->workload);
        free(b->args);
        for (size_t k = 0; k < b->nargs; k++)
            free(b->argv[k]);
        free(b->argv);
        free(b->name);
        free(b->metric);
        free(b->unit);
    }
    free(c->blocks);
    free(c->labels);
    free(c->metric);
    free(c->unlike);
    free(c->setup);
    memset(c, 0, sizeof(*c));
}

const char *nf_family_name(enum nf_family f)
{
    switch (f) {
    case NF_FAMILY_PRIMARY: return "primary";
    case NF_FAMILY_SECONDARY: return "secondary";
    default: return NULL;
    }
}

double nf_compare_oriented(double pct, enum nf_better better)
{
    double v = better == NF_BETTER_LOWER ? -pct : pct;
    return v == 0 ? 0.0 : v; /* no "-0.00%" */
}

double nf_compare_oriented_r(const struct nf_cmp_result *r, double pct, enum nf_better better)
{
    return nf_compare_oriented(nf_cmp_signed_pct(r, pct), better);
}
