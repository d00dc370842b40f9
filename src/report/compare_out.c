/* A comparison as text, mmtests' shape with "+" as better: the full
 * tables (compare, --all).  The notes under a block and the footer under
 * the tables are in compare_notes.c, the brief form and ab's verdict
 * lines in compare_brief.c, the JSON in compare_json.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/compare_text.h"

#include "analysis/pct_family.h"
#include "core/util.h"
#include "report/diag.h"
#include "report/fmt.h"
#include "report/text_view.h"

#define LEFT 26 /* least width of the row-name column */

int nf_compare_col_width(const struct nf_comparison *c)
{
    int w = 24;
    for (size_t l = 0; l < c->nlabels; l++)
        if ((int)strlen(c->labels[l]) + 2 > w)
            w = (int)strlen(c->labels[l]) + 2;
    return w;
}

/* "6.10 (  0.00%)" for the baseline, "6.28 * -2.95%*" for a significant
 * change, "6.11 ( -0.16%)" otherwise: mmtests' mean-and-change cell, ch
 * the change with + as better of the value shown against the baseline's.
 * From a baseline of 0 the change is unbounded: "5.33 *  -inf%*", its
 * sign + as better like any other. */
static void mean_cell(char *cell, size_t len, const struct nf_cmp_cell *x, int baseline,
                      double value, double ch)
{
    char num[64], pct[16];
    if (!x->has_data) {
        snprintf(cell, len, "%s",
                 x->not_counted   ? "<not counted>"
                 : x->unsupported ? "<not supported>"
                                  : "no data");
        return;
    }
    nf_compare_fmt_num(num, sizeof(num), value);
    if (isinf(ch))
        snprintf(pct, sizeof(pct), "%6s", ch > 0 ? "+inf" : "-inf");
    else
        snprintf(pct, sizeof(pct), "%6.2f", ch);
    if (baseline)
        snprintf(cell, len, "%s (  0.00%%)", num);
    else if (!x->compared || isnan(ch))
        snprintf(cell, len, "%s (    -  )", num);
    else if (x->significant)
        snprintf(cell, len, "%s *%s%%*", num, pct);
    else
        snprintf(cell, len, "%s (%s%%)", num, pct);
}

/* The mean's cell: the change beside it is the change of the means shown
 * (mmtests' convention), also where the test estimates another (a paired
 * row's is on a row of its own, row_paired). */
void nf_compare_means_cell(char *cell, size_t len, const struct nf_cmp_block *b, size_t l)
{
    const struct nf_cmp_cell *x = &b->cells[l];
    mean_cell(cell, len, x, l == 0, x->mean, nf_compare_means_better_pct(b, x));
}

/* The test's location's cell (TrMean, a decile): its change is the test's. */
void nf_compare_loc_cell(char *cell, size_t len, const struct nf_cmp_block *b, size_t l,
                         double value)
{
    const struct nf_cmp_cell *x = &b->cells[l];
    mean_cell(cell, len, x, l == 0, value,
              nf_compare_oriented_r(&x->r, x->r.change_pct, b->better));
}

/* A variant compared pairwise: by the paired t (or signed-rank), whose
 * location is the mean, whatever the test (yuen has no paired form:
 * doc/statistics.md, "Paired rounds"). */
int nf_compare_cell_paired(const struct nf_cmp_cell *x)
{
    return x->compared && x->pairing != NF_PAIR_NONE;
}

/* The name of the test's location row of block b ("TrMean"), or NULL: the
 * test has none, or every compared variant of b is paired. */
const char *nf_compare_block_loc(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    const char *loc = nf_diag_location_name(c);
    for (size_t l = 1; loc && l < c->nlabels; l++)
        if (!nf_compare_cell_paired(&b->cells[l]))
            return loc;
    return NULL;
}

/* The test's location of label l (the baseline's from any compared row
 * that is not paired). */
double nf_compare_location(const struct nf_comparison *c, const struct nf_cmp_block *b, size_t l)
{
    if (l)
        return b->cells[l].compared && !nf_compare_cell_paired(&b->cells[l]) ? b->cells[l].r.mean
                                                                             : NAN;
    for (size_t k = 1; k < c->nlabels; k++)
        if (b->cells[k].compared && !nf_compare_cell_paired(&b->cells[k]) &&
            isfinite(b->cells[k].r.base_mean))
            return b->cells[k].r.base_mean;
    return NAN;
}

/* The rows of a block, each by statistic: name1 names the statistic,
 * name2 the metric (a unit, or a percentile of a family), pad pads the
 * row names to the header's width. */
struct rows {
    FILE *out;
    const struct nf_comparison *c;
    int w, pad;
};

static void row_mean(const struct rows *o, const struct nf_cmp_block *b, const char *name2)
{
    char cell[128];
    const struct nf_comparison *c = o->c;
    int w = o->w;
    /* Mean and change; or the mean, then the test's location and change
     * (a paired variant's change stays here: its test is on the pairs). */
    const char *loc = nf_compare_block_loc(c, b);
    fprintf(o->out, "%-9s %-16.16s%*s", b->rate ? "Hmean" : "Amean", name2, o->pad, "");
    for (size_t l = 0; l < c->nlabels; l++) {
        int plain = loc && !(l && nf_compare_cell_paired(&b->cells[l]));
        if (plain)
            nf_compare_fmt_num(cell, sizeof(cell), b->cells[l].has_data ? b->cells[l].mean : NAN);
        else
            nf_compare_means_cell(cell, sizeof(cell), b, l);
        fprintf(o->out, " %*s%*s", w - (plain ? 10 : 0), cell, plain && l + 1 < c->nlabels ? 10 : 0,
                "");
    }
    fputc('\n', o->out);
}

static void row_location(const struct rows *o, const struct nf_cmp_block *b, const char *name2)
{
    char cell[128];
    const struct nf_comparison *c = o->c;
    fprintf(o->out, "%-9s %-16.16s%*s", nf_compare_block_loc(c, b), name2, o->pad, "");
    for (size_t l = 0; l < c->nlabels; l++) {
        int none = l && nf_compare_cell_paired(&b->cells[l]); /* its change is in the mean's row */
        if (none)
            snprintf(cell, sizeof(cell), "-");
        else
            nf_compare_loc_cell(cell, sizeof(cell), b, l, nf_compare_location(c, b, l));
        fprintf(o->out, " %*s%*s", o->w - (none ? 10 : 0), cell, none ? 10 : 0, "");
    }
    fputc('\n', o->out);
}

static void row_spread(const struct rows *o, const struct nf_cmp_block *b, const char *name2,
                       int cv)
{
    char cell[128];
    const struct nf_comparison *c = o->c;
    fprintf(o->out, "%-9s %-16.16s%*s", cv ? "CoeffVar" : "Stddev", name2, o->pad, "");
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct nf_cmp_cell *x = &b->cells[l];
        int spread = nf_compare_cell_spread(x); /* one value has none */
        if (!cv)
            nf_compare_fmt_num(cell, sizeof(cell), spread ? x->s.stddev : NAN);
        else if (spread && isfinite(nf_summary_cv(&x->s, b->rate))) /* |CV|, of the Hmean */
            snprintf(cell, sizeof(cell), "%.2f%%", nf_summary_cv(&x->s, b->rate));
        else
            snprintf(cell, sizeof(cell), "-");
        fprintf(o->out, " %*s%*s", o->w - 10, cell, l + 1 < c->nlabels ? 10 : 0, "");
    }
    fputc('\n', o->out);
}

static void row_n(const struct rows *o, const struct nf_cmp_block *b, const char *name2)
{
    char cell[128];
    const struct nf_comparison *c = o->c;
    fprintf(o->out, "%-9s %-16s%*s", "N", name2, o->pad, "");
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct nf_cmp_cell *x = &b->cells[l];
        if (x->run_means)
            snprintf(cell, sizeof(cell), "%zu run%s", x->n, x->n == 1 ? "" : "s");
        else
            snprintf(cell, sizeof(cell), "%zu", nf_compare_cell_n(x));
        fprintf(o->out, " %*s%*s", o->w - 10, cell, l + 1 < c->nlabels ? 10 : 0, "");
    }
    fputc('\n', o->out);
}

enum row_kind { ROW_PAIRED, ROW_CI, ROW_P, ROW_VERDICT };

/* Does any variant of b have a change of its own (paired: a Paired row)? */
int nf_compare_any_paired(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    for (size_t l = 1; l < c->nlabels; l++)
        if (nf_compare_paired_change(&b->cells[l]))
            return 1;
    return 0;
}

/* The rows of the variants only: a paired row's own change, CI of the
 * change, p, verdict. */
static void row_variant(const struct rows *o, const struct nf_cmp_block *b, const char *name2,
                        enum row_kind kind)
{
    static const char *const names[] = {"Paired", "CI", "p", "Verdict"};
    char cell[128];
    const struct nf_comparison *c = o->c;
    fprintf(o->out, "%-9s %-16s%*s %*s", names[kind], name2, o->pad, "", o->w, "");
    for (size_t l = 1; l < c->nlabels; l++) {
        const struct nf_cmp_cell *x = &b->cells[l];
        if (kind == ROW_PAIRED && nf_compare_paired_change(x)) {
            /* the change of the pairs (their log-ratios), which the CI
             * row's interval is of */
            double ch = nf_compare_oriented_r(&x->r, x->r.change_pct, b->better);
            if (!isfinite(ch))
                snprintf(cell, sizeof(cell), "-");
            else if (x->significant)
                snprintf(cell, sizeof(cell), "*%6.2f%%*", ch);
            else
                snprintf(cell, sizeof(cell), "(%6.2f%%)", ch);
        } else if (kind == ROW_CI) {
            nf_compare_ci_cell(cell, sizeof(cell), c, b, x);
        } else if (kind == ROW_P && x->compared && isfinite(x->r.p_value)) {
            nf_compare_p_cell(cell, sizeof(cell), x);
        } else if (kind == ROW_VERDICT && x->compared) {
            snprintf(cell, sizeof(cell), "%s", nf_compare_verdict_word(c, b, x));
        } else {
            snprintf(cell, sizeof(cell), "-");
        }
        fprintf(o->out, " %*s", o->w, cell);
    }
    fputc('\n', o->out);
}

/* The header line: the block's name, then the labels; returns the pad of
 * the row names to its width. */
static int print_head(FILE *out, const struct nf_comparison *c, const char *head, int w)
{
    int left = (int)strlen(head) + 1 > LEFT ? (int)strlen(head) + 1 : LEFT;
    fprintf(out, "%-*s", left, head);
    for (size_t l = 0; l < c->nlabels; l++)
        fprintf(out, " %*s", w, c->labels[l]);
    fputc('\n', out);
    return left - LEFT;
}

/* Does any label have data for this block?  Not when the metric is
 * <not supported> everywhere (a counter without a PMU). */
static int any_data(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    for (size_t l = 0; l < c->nlabels; l++)
        if (b->cells[l].has_data)
            return 1;
    return 0;
}

static void print_block(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                        int w)
{
    char head[256];
    snprintf(head, sizeof(head), "%s %s (%s is better)", b->name, b->metric,
             b->better == NF_BETTER_LOWER ? "lower" : "higher");
    /* The header names the block; the row names pad to its width. */
    struct rows o = {out, c, w, print_head(out, c, head, w)};
    /* the unit names the rows; a count without one, its metric if that
     * fits the column (the header names it in full) */
    const char *unit = b->unit[0] ? b->unit : strlen(b->metric) <= 16 ? b->metric : "count";
    if (!any_data(c, b)) { /* "<not supported>" per label, and no verdict */
        row_mean(&o, b, unit);
        row_variant(&o, b, "", ROW_VERDICT);
        fputc('\n', out);
        return;
    }
    row_mean(&o, b, unit);
    if (nf_compare_block_loc(c, b))
        row_location(&o, b, unit);
    if (nf_compare_any_paired(c, b))
        row_variant(&o, b, "change", ROW_PAIRED);
    row_spread(&o, b, unit, 0);
    row_spread(&o, b, unit, 1);
    row_n(&o, b, "");
    row_variant(&o, b, "change", ROW_CI);
    row_variant(&o, b, "raw / Holm", ROW_P);
    row_variant(&o, b, "", ROW_VERDICT);
    if (nf_compare_focus(c, b)) {
        nf_compare_block_notes(out, c, b, "  note: ");
        nf_explain_text(out, c, b);
    } else {
        nf_compare_brief_notes(out, c, b);
    }
    fputc('\n', out);
}

/* A percentile's name in its family's rows: "p99.9", "max". */
static const char *short_name(const struct nf_cmp_block *b)
{
    return b->metric + strlen(b->family) + 1;
}

/* A percentile family in one block, mmtests style: each statistic's rows
 * for p50, p90, ..., max together; the events per repetition the
 * percentiles rest on; then each percentile's notes. */
static void print_family(FILE *out, const struct nf_comparison *c, const size_t *m, size_t n, int w)
{
    const struct nf_cmp_block *first = &c->blocks[m[0]];
    char head[256], name[64];
    snprintf(head, sizeof(head), "%s %s-p* (%s, %s is better)", first->name, first->family,
             first->unit, nf_better_name(first->better));
    struct rows o = {out, c, w, print_head(out, c, head, w)};
    for (size_t i = 0; i < n; i++)
        row_mean(&o, &c->blocks[m[i]], short_name(&c->blocks[m[i]]));
    for (size_t i = 0; i < n; i++)
        if (nf_compare_block_loc(c, &c->blocks[m[i]]))
            row_location(&o, &c->blocks[m[i]], short_name(&c->blocks[m[i]]));
    for (size_t i = 0; i < n; i++)
        if (nf_compare_any_paired(c, &c->blocks[m[i]]))
            row_variant(&o, &c->blocks[m[i]], short_name(&c->blocks[m[i]]), ROW_PAIRED);
    for (int cv = 0; cv < 2; cv++)
        for (size_t i = 0; i < n; i++)
            row_spread(&o, &c->blocks[m[i]], short_name(&c->blocks[m[i]]), cv);
    /* One N row when every percentile has the same units. */
    int same = 1;
    for (size_t i = 1; i < n; i++)
        for (size_t l = 0; l < c->nlabels; l++)
            same &= c->blocks[m[i]].cells[l].n == first->cells[l].n &&
                    c->blocks[m[i]].cells[l].run_means == first->cells[l].run_means;
    for (size_t i = 0; i < (same ? 1 : n); i++)
        row_n(&o, &c->blocks[m[i]], same ? "" : short_name(&c->blocks[m[i]]));
    int events = 0;
    for (size_t l = 0; l < c->nlabels; l++)
        events |= isfinite(first->cells[l].events);
    if (events) {
        fprintf(out, "%-9s %-16s%*s", "Events", "per repetition", o.pad, "");
        for (size_t l = 0; l < c->nlabels; l++) {
            if (isfinite(first->cells[l].events))
                snprintf(name, sizeof(name), "%.0f", first->cells[l].events);
            else
                snprintf(name, sizeof(name), "-");
            fprintf(out, " %*s%*s", w - 10, name, l + 1 < c->nlabels ? 10 : 0, "");
        }
        fputc('\n', out);
    }
    for (size_t i = 0; i < n; i++)
        row_variant(&o, &c->blocks[m[i]], short_name(&c->blocks[m[i]]), ROW_CI);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "%s raw / Holm", short_name(&c->blocks[m[i]]));
        row_variant(&o, &c->blocks[m[i]], name, ROW_P);
    }
    for (size_t i = 0; i < n; i++)
        row_variant(&o, &c->blocks[m[i]], short_name(&c->blocks[m[i]]), ROW_VERDICT);
    for (size_t i = 0; i < n; i++) {
        const struct nf_cmp_block *b = &c->blocks[m[i]];
        char prefix[128];
        snprintf(prefix, sizeof(prefix), "  note: %s: ", b->metric);
        nf_compare_block_notes(out, c, b, prefix);
    }
    for (size_t i = 0; i < n; i++) {
        const struct nf_cmp_block *b = &c->blocks[m[i]];
        int any = 0;
        for (size_t l = 1; l < c->nlabels; l++)
            any |= b->cells[l].shift || b->cells[l].clusters;
        if (any) {
            fprintf(out, "  %s:\n", b->metric);
            nf_explain_text(out, c, b);
        }
    }
    fputc('\n', out);
}

/* The metrics not shown in full (compare without --all), one line each
 * of one compact table per workload: the mean of each label with its
 * change of the means marked as in the full tables, then a one-word
 * verdict after each variant; then how many notes they hold and how to
 * see them. */
static void print_compact(FILE *out, const struct nf_comparison *c, const size_t *rest, size_t n,
                          int w)
{
    int nw = 16, vw = 12;
    char cell[160];
    for (size_t k = 0; k < n; k++) {
        const struct nf_cmp_block *b = &c->blocks[rest[k]];
        nw = (int)strlen(b->metric) > nw ? (int)strlen(b->metric) : nw;
        for (size_t l = 1; l < c->nlabels; l++)
            if (b->cells[l].compared &&
                (int)strlen(nf_compare_verdict_word(c, b, &b->cells[l])) > vw)
                vw = (int)strlen(nf_compare_verdict_word(c, b, &b->cells[l]));
    }
    const char *wl = NULL;
    for (size_t k = 0; k < n; k++) {
        const struct nf_cmp_block *b = &c->blocks[rest[k]];
        if (!wl || strcmp(wl, b->name) != 0) {
            char head[256];
            wl = b->name;
            snprintf(head, sizeof(head), "%s, other metrics", b->name);
            fprintf(out, "%s%-*s", k ? "\n" : "", nw + 6, head);
            for (size_t l = 0; l < c->nlabels; l++)
                fprintf(out, " %*s%*s", w, c->labels[l], l && l + 1 < c->nlabels ? vw + 1 : 0, "");
            fputc('\n', out);
        }
        fprintf(out, "%-5s %-*s", b->rate ? "Hmean" : "Amean", nw, b->metric);
        for (size_t l = 0; l < c->nlabels; l++) {
            const struct nf_cmp_cell *x = &b->cells[l];
            nf_compare_means_cell(cell, sizeof(cell), b, l);
            fprintf(out, " %*s", w, cell);
            if (l)
                fprintf(out, " %-*s", l + 1 < c->nlabels ? vw : 0,
                        x->compared ? nf_compare_verdict_word(c, b, x) : "-");
        }
        fputc('\n', out);
    }
    /* their notes: how many under which, in one line (as --brief) */
    const char *sep = "  notes under these metrics: ";
    for (size_t k = 0; k < n; k++) {
        const struct nf_cmp_block *b = &c->blocks[rest[k]];
        size_t m = nf_compare_count_notes(c, b);
        if (!m)
            continue;
        fprintf(out, "%s%s%s%s %zu", sep, b->args ? b->name : "", b->args ? " " : "", b->metric, m);
        sep = ", ";
    }
    if (sep[0] == ',')
        fputs("; compare -m METRIC or --all shows them\n", out);
    fputc('\n', out);
}

void nf_compare_text(FILE *out, const struct nf_comparison *raw)
{
    nf_compare_text_all(out, raw, 1);
}

void nf_compare_text_all(FILE *out, const struct nf_comparison *raw, int all)
{
    struct nf_text_view v;
    nf_text_view_make(&v, raw);
    const struct nf_comparison *c = &v.c;
    int w = nf_compare_col_width(c);
    nf_compare_unlike_line(out, c);
    size_t *m = nf_xcalloc(c->nblocks, sizeof(*m));
    size_t *rest = nf_xcalloc(c->nblocks ? c->nblocks : 1, sizeof(*rest)), nrest = 0;
    for (size_t i = 0; i < c->nblocks; i++) {
        size_t n = nf_pct_group(raw, i, m);
        if (!n && !all && !nf_compare_focus(c, &c->blocks[i]) && any_data(c, &c->blocks[i]))
            rest[nrest++] = i; /* one line of the compact table */
        else if (!n)
            print_block(out, c, &c->blocks[i], w);
        else if (nf_pct_group_leader(raw, i))
            print_family(out, c, m, n, w);
    }
    if (nrest)
        print_compact(out, c, rest, nrest, w);
    free(rest);
    free(m);
    char pw[160];
    fprintf(out,
            "%s test%s, alpha %g, equivalence within ±%g%%; changes shown with + as better; "
            "*x%%* marks a significant change.\n",
            nf_test_name(c->opts.test), nf_compare_paired_words(c, pw, sizeof(pw)), c->opts.alpha,
            c->opts.threshold_pct);
    nf_compare_holm_footer(out, c);
    nf_text_view_free(&v);
}
