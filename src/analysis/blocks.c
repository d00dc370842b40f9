/* Which runs make a block of a comparison: a workload x metric, split by
 * argument lists when a label ran the workload with several.  Used by
 * compare.c; the blocks' types are in analysis/compare.h. */
#include "analysis/blocks.h"

#include <stdio.h>
#include <string.h>

#include "analysis/percentile.h"
#include "core/util.h"

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
void nf_cmp_collect_blocks(struct nf_comparison *c, const struct nf_label_runs *in,
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
                /* The machine's readings (core/metric.h) explain the other
                 * metrics; they are compared only when asked for. */
                if (!metric && nf_metric_is_machine(mt->name))
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
    /* A workload whose runs flag no primary metric (an import that flags
     * none): its first metric is, as list shows it (nf_run_primary). */
    for (size_t i = 0; i < c->nblocks; i++) {
        int any = 0;
        for (size_t j = 0; j < c->nblocks && !any; j++)
            any = c->blocks[j].primary && nf_cmp_block_same_runs(&c->blocks[i], &c->blocks[j]);
        for (size_t j = 0; j < i && !any; j++)
            any = nf_cmp_block_same_runs(&c->blocks[i], &c->blocks[j]);
        if (!any && !metric)
            c->blocks[i].primary = 1;
    }
}

/* A label's runs of block b (all of lr's when the block is not split). */
void nf_cmp_runs_of(const struct nf_cmp_block *b, const struct nf_label_runs *lr,
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
void nf_cmp_other_args_note(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
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
