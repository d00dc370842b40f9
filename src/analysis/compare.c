/* Building a comparison: gather each label's samples per workload × metric
 * (× arguments, when a label ran the workload with several), decide the
 * units (samples, or run means when runs differ), test against the
 * baseline, correct over all rows, decide. */
#include "analysis/compare.h"

#include <math.h>
#include <string.h>

#include "analysis/pairing.h"
#include "analysis/percentile.h"
#include "core/util.h"
#include "stats/tests.h"

/* ---- Which runs make a block ------------------------------------------------ */

/* The words that tell a run's configuration of its workload apart: its
 * key when it has one (a built-in workload's canonical words, set by the
 * loader: core/run.h), else its words as stored (a command's argv, kept
 * as the user gave it: `-- prog -a -b` and `-- prog -b -a` are two lists). */
static char *const *key_words(const struct nf_run *run, size_t *n)
{
    *n = run->key ? run->nkey : run->nargs;
    return run->key ? run->key : run->args;
}

/* A run's arguments as text: those words joined by spaces (as `list`
 * shows a run's words). */
static char *args_text(const struct nf_run *run)
{
    size_t nw, len = 1;
    char *const *w = key_words(run, &nw);
    for (size_t i = 0; i < nw; i++)
        len += strlen(w[i]) + 1;
    char *s = nf_xcalloc(len, 1), *p = s;
    for (size_t i = 0; i < nw; i++) {
        size_t n = strlen(w[i]);
        if (i)
            *p++ = ' ';
        memcpy(p, w[i], n);
        p += n;
    }
    *p = 0;
    return s;
}

/* Are the run's arguments, so joined, the text s? */
static int args_are(const struct nf_run *run, const char *s)
{
    size_t nw;
    char *const *w = key_words(run, &nw);
    for (size_t i = 0; i < nw; i++) {
        size_t n = strlen(w[i]);
        if ((i && *s++ != ' ') || strncmp(s, w[i], n) != 0)
            return 0;
        s += n;
    }
    return *s == 0;
}

int nf_cmp_block_has(const struct nf_cmp_block *b, const struct nf_run *run)
{
    return strcmp(run->workload, b->workload) == 0 && (!b->args || args_are(run, b->args));
}

static int same_args(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

int nf_cmp_block_same_runs(const struct nf_cmp_block *a, const struct nf_cmp_block *b)
{
    return strcmp(a->workload, b->workload) == 0 && same_args(a->args, b->args);
}

/* "'-l 1000'", or "(defaults)": arguments in names and notes. */
static char *args_quoted(const char *args, size_t max)
{
    if (!*args) /* a built-in workload's (a command has its program) */
        return nf_xstrdup("(defaults)");
    if (strlen(args) <= max)
        return nf_xasprintf("'%s'", args);
    return nf_xasprintf("'%.*s...'", (int)(max - 3), args);
}

static int has_samples(const struct nf_run *run)
{
    for (size_t m = 0; m < run->nmetrics; m++)
        if (run->metrics[m].supported && run->metrics[m].n)
            return 1;
    return 0;
}

/* Are the rows of workload wl split by arguments: has some label runs of
 * it (with samples) under two argument lists? */
static int split_by_args(const struct nf_label_runs *in, size_t nlabels, const char *wl)
{
    for (size_t l = 0; l < nlabels; l++) {
        const struct nf_run *first = NULL;
        char *text = NULL;
        int split = 0;
        for (size_t r = 0; r < in[l].nruns && !split; r++) {
            const struct nf_run *run = in[l].runs[r];
            if (strcmp(run->workload, wl) != 0 || !has_samples(run))
                continue;
            if (!first)
                text = args_text(first = run);
            else
                split = !args_are(run, text);
        }
        free(text);
        if (split)
            return 1;
    }
    return 0;
}

static struct nf_cmp_block *find_block(struct nf_comparison *c, const char *wl, const char *args,
                                       const char *metric)
{
    for (size_t i = 0; i < c->nblocks; i++)
        if (strcmp(c->blocks[i].workload, wl) == 0 && same_args(c->blocks[i].args, args) &&
            strcmp(c->blocks[i].metric, metric) == 0)
            return &c->blocks[i];
    return NULL;
}

/* One block per workload × metric, in the order first met; per workload
 * × arguments × metric for a workload whose rows are split by arguments.
 * A metric stored <not supported> (a counter without a PMU) gets its
 * block too, so that the tables say so instead of leaving it out; but not
 * while an ab session runs (live), whose stop rule has nothing to decide
 * on it. */
static void collect_blocks(struct nf_comparison *c, const struct nf_label_runs *in,
                           const char *workload, const char *metric, int live)
{
    /* The workloads met, and whether each is split by arguments. */
    const char **wls = NULL;
    int *split = NULL;
    size_t nwl = 0;
    for (size_t l = 0; l < c->nlabels; l++)
        for (size_t r = 0; r < in[l].nruns; r++) {
            struct nf_run *run = in[l].runs[r];
            if (workload && strcmp(run->workload, workload) != 0)
                continue;
            size_t w = 0;
            while (w < nwl && strcmp(wls[w], run->workload) != 0)
                w++;
            if (w == nwl) {
                wls = nf_xrealloc(wls, (nwl + 1) * sizeof(*wls));
                split = nf_xrealloc(split, (nwl + 1) * sizeof(*split));
                wls[nwl] = run->workload;
                split[nwl++] = split_by_args(in, c->nlabels, run->workload);
            }
            char *args = split[w] ? args_text(run) : NULL;
            for (size_t m = 0; m < run->nmetrics; m++) {
                const struct nf_metric *mt = &run->metrics[m];
                if (mt->supported ? !mt->n : live)
                    continue;
                if (metric && strcmp(mt->name, metric) != 0)
                    continue;
                /* A percentile family's event count is read by its notes,
                 * not compared (analysis/percentile.h), unless asked for. */
                if (!metric && nf_pct_is_count(run, mt))
                    continue;
                struct nf_cmp_block *b = find_block(c, run->workload, args, mt->name);
                if (b) {
                    b->primary |= mt->primary;
                    continue;
                }
                c->blocks = nf_xrealloc(c->blocks, (c->nblocks + 1) * sizeof(*b));
                b = &c->blocks[c->nblocks++];
                memset(b, 0, sizeof(*b));
                b->workload = nf_xstrdup(run->workload);
                if (args) {
                    /* Named by the key: the canonical words of a built-in
                     * workload, which its runs may have spelt in several
                     * ways; a command's words as given. */
                    size_t nw;
                    char *const *w = key_words(run, &nw);
                    b->args = nf_xstrdup(args);
                    b->nargs = nw;
                    b->argv = nf_xcalloc(nw ? nw : 1, sizeof(char *));
                    for (size_t i = 0; i < nw; i++)
                        b->argv[i] = nf_xstrdup(w[i]);
                    char *q = args_quoted(args, 40);
                    b->name = nf_xasprintf("%s %s", run->workload, q);
                    nf_printable(b->name); /* a command's words are stored as given */
                    free(q);
                } else {
                    b->name = nf_xstrdup(run->workload);
                }
                b->metric = nf_xstrdup(mt->name);
                b->unit = nf_xstrdup(mt->unit);
                b->better = mt->better;
                b->rate = nf_metric_is_rate(mt);
                b->primary = mt->primary;
                char prefix[64];
                if (nf_pct_parse(mt->name, mt->unit, prefix, sizeof(prefix), &b->pct))
                    b->family = nf_xstrdup(prefix);
                b->cells = nf_xcalloc(c->nlabels, sizeof(struct nf_cmp_cell));
            }
            free(args);
        }
    free(wls);
    free(split);
}

/* A label's runs of block b (all of lr's when the block is not split). */
static void runs_of(const struct nf_cmp_block *b, const struct nf_label_runs *lr,
                    struct nf_label_runs *out)
{
    out->label = lr->label;
    out->runs = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(*out->runs));
    out->nruns = 0;
    for (size_t r = 0; r < lr->nruns; r++)
        if (nf_cmp_block_has(b, lr->runs[r]))
            out->runs[out->nruns++] = lr->runs[r];
}

/* A split block that a label has no run of, while it has runs of the
 * workload with other arguments: say so, and which it has. */
static void other_args_note(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                            const struct nf_label_runs *lr)
{
    char list[512];
    size_t len = 0, n = 0, more = 0;
    char **seen = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(char *));
    list[0] = 0;
    for (size_t r = 0; r < lr->nruns; r++) {
        const struct nf_run *run = lr->runs[r];
        if (strcmp(run->workload, b->workload) != 0 || !has_samples(run))
            continue;
        size_t i = 0;
        while (i < n && !args_are(run, seen[i]))
            i++;
        if (i < n)
            continue;
        seen[n++] = args_text(run);
        char *q = args_quoted(seen[i], 60);
        if (len + strlen(q) + 3 < 200)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", q);
        else
            more++;
        free(q);
    }
    if (n) {
        char *q = args_quoted(b->args, 60);
        if (more)
            snprintf(list + len, sizeof(list) - len, " and %zu more", more);
        nf_cmp_note(cell,
                    "%s: not compared: no run of %s %s (its %s runs: %s); as a label ran %s "
                    "with several argument lists, runs are compared with runs of the same "
                    "arguments (to compare others, give each a label of its own)",
                    lr->label, b->workload, q, b->workload, list, b->workload);
        free(q);
    }
    for (size_t i = 0; i < n; i++)
        free(seen[i]);
    free(seen);
}

/* Fill one label's cell of a block from its runs. */
static void fill_cell(struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                      const struct nf_label_runs *lr, const struct nf_cmp_opts *opts)
{
    const struct nf_metric **ms = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(*ms));
    size_t k = 0, total = 0;
    double min_running = 100.0;
    int unsupported = 0;
    for (size_t r = 0; r < lr->nruns; r++) {
        struct nf_run *run = lr->runs[r];
        if (strcmp(run->workload, b->workload) != 0)
            continue;
        const struct nf_metric *m = nf_run_find(run, b->metric);
        unsupported |= m && !m->supported;
        if (!m || !m->supported || !m->n)
            continue;
        ms[k++] = m;
        total += m->n;
        double lo = nf_metric_min_running(m);
        if (lo < min_running)
            min_running = lo;
    }
    cell->nruns = k;
    cell->nsamples = total;
    if (!k) {
        cell->unsupported = unsupported;
        free(ms);
        return;
    }
    cell->has_data = 1;

    /* Levels of variance: several runs that differ more than their
     * repetitions allow make the run the unit. */
    if (k > 1) {
        const double **groups = nf_xcalloc(k, sizeof(*groups));
        size_t *ns = nf_xcalloc(k, sizeof(*ns));
        double *tmp = NULL;
        for (size_t i = 0; i < k; i++) {
            groups[i] = ms[i]->values;
            ns[i] = ms[i]->n;
        }
        /* Rate metrics are analysed as reciprocals throughout. */
        if (b->rate) {
            tmp = nf_xcalloc(total, sizeof(double));
            size_t off = 0;
            for (size_t i = 0; i < k; i++) {
                for (size_t j = 0; j < ns[i]; j++)
                    tmp[off + j] = 1.0 / ms[i]->values[j];
                groups[i] = tmp + off;
                off += ns[i];
            }
        }
        double p;
        if (nf_runs_differ(groups, ns, k, opts->alpha, &p) == 1) {
            cell->run_means = 1;
            cell->units = nf_xcalloc(k, sizeof(double));
            cell->n = k;
            for (size_t i = 0; i < k; i++) {
                struct nf_summary s;
                nf_summarize(ms[i]->values, ms[i]->n, &s);
                cell->units[i] = b->rate && isfinite(s.hmean) ? s.hmean : s.mean;
            }
            nf_cmp_note(cell,
                        "%s: runs differ more than their repetitions (ANOVA p %.3g); "
                        "using %zu run means",
                        lr->label, p, k);
        }
        free(tmp);
        free(groups);
        free(ns);
    }
    if (!cell->run_means) {
        cell->units = nf_xcalloc(total, sizeof(double));
        for (size_t i = 0; i < k; i++) {
            memcpy(cell->units + cell->n, ms[i]->values, ms[i]->n * sizeof(double));
            cell->n += ms[i]->n;
        }
    }
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
    if (cell->n < 3)
        nf_cmp_note(cell, "%s: only %zu %s%s; at least 3 are needed for a useful test", lr->label,
                    cell->n, cell->run_means ? "run mean" : "repetition", cell->n == 1 ? "" : "s");
    if (min_running < 100.0)
        nf_cmp_note(cell, "%s: counter multiplexed: ran %.2f%% of the time at worst; values scaled",
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
    if (o->test == NF_TEST_YUEN)
        snprintf(where, sizeof(where), "20%% trimmed mean");
    else if (o->test == NF_TEST_SHIFT)
        snprintf(where, sizeof(where), "decile %d", o->decile ? o->decile : 1);
    else
        snprintf(where, sizeof(where), "mean");
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

static int build(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels,
                 const char *workload, const char *metric, const struct nf_cmp_opts *opts, int live,
                 char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    c->opts = *opts;
    c->nlabels = nlabels;
    c->labels = nf_xcalloc(nlabels, sizeof(char *));
    for (size_t l = 0; l < nlabels; l++)
        c->labels[l] = in[l].label;
    collect_blocks(c, in, workload, metric, live);
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
    size_t nrows = 0;
    struct nf_label_runs *sub = nf_xcalloc(nlabels, sizeof(*sub));
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &c->blocks[i];
        for (size_t l = 0; l < nlabels; l++) {
            runs_of(b, &in[l], &sub[l]);
            fill_cell(b, &b->cells[l], &sub[l], opts);
            if (b->args && !sub[l].nruns && !live)
                other_args_note(b, &b->cells[l], &in[l]);
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
            if (opts->test == NF_TEST_BOOTSTRAP && !cell->r.ok && !cell->r.zero_base &&
                cell->pairing == NF_PAIR_NONE && base->n >= 2 && cell->n >= 2 &&
                (base->n < NF_BOOT_MIN_N || cell->n < NF_BOOT_MIN_N))
                nf_cmp_note(cell,
                            "%s: the bootstrap needs at least %d values a side (%zu and %zu): no "
                            "test (welch and utest test from 2 a side)",
                            c->labels[l], NF_BOOT_MIN_N, base->n, cell->n);
            nrows += !cell->sequential;
        }
        for (size_t l = 0; l < nlabels; l++)
            free(sub[l].runs);
    }
    free(sub);

    /* Holm over every row of this call but those an ab session's design
     * decides (its alpha is split over them already). */
    double *p = nf_xcalloc(nrows ? nrows : 1, sizeof(double));
    size_t k = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < nlabels; l++)
            if (c->blocks[i].cells[l].compared && !c->blocks[i].cells[l].sequential)
                p[k++] = c->blocks[i].cells[l].r.p_value;
    nf_holm(p, nrows, p);
    k = 0;
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &c->blocks[i];
        for (size_t l = 1; l < nlabels; l++) {
            struct nf_cmp_cell *cell = &b->cells[l];
            if (!cell->compared)
                continue;
            int negligible = cell->look.negligible;
            if (!cell->sequential) {
                cell->p_adjusted = p[k++];
                cell->verdict = nf_decide(&cell->r, cell->p_adjusted, b->better, opts);
                cell->significant = nf_significant(&cell->r, cell->p_adjusted, opts);
                negligible = nf_negligible(&cell->r, cell->p_adjusted, opts);
            }
            if (negligible && !live) {
                double ch = nf_compare_oriented_r(&cell->r, cell->r.change_pct, b->better);
                nf_cmp_note(cell, "%s: a real change of %+.2f%% (%s), inside the ±%g%% margin",
                            c->labels[l], ch, ch > 0 ? "better" : "worse", opts->threshold_pct);
            }
            /* A paired row's runs_needed counts pairs (analysis/pairing.c). */
            if (cell->pairing == NF_PAIR_NONE) {
                nf_diag_advise(b, &b->cells[0], cell, opts);
                /* never fewer than the smaller side has (as nf_settle
                 * counts it): the CI says how many then */
                size_t have = cell->n < b->cells[0].n ? cell->n : b->cells[0].n;
                if (cell->runs_needed && cell->runs_needed <= have)
                    cell->runs_needed =
                        nf_runs_from_ci(cell->r.ci_low_pct, cell->r.ci_high_pct, cell->r.change_pct,
                                        opts->threshold_pct, have);
            } else if (cell->verdict != NF_INCONCLUSIVE)
                cell->runs_needed = 0;
        }
    }
    free(p);
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
    memset(c, 0, sizeof(*c));
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
