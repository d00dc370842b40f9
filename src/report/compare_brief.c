/* The comparison's brief form, one line per workload and metric
 * (compare --brief), and ab's closing verdict lines; their cells and
 * notes as the full tables' (compare_out.c, compare_notes.c). */
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

/* The blocks in the order the tables show them: where it stands, but a
 * percentile family together at its first block, by percentile.  Returns
 * how many (all of them). */
static size_t block_order(const struct nf_comparison *c, size_t *order)
{
    size_t n = 0;
    size_t *m = nf_xcalloc(c->nblocks, sizeof(*m));
    for (size_t i = 0; i < c->nblocks; i++) {
        size_t k = nf_pct_group(c, i, m);
        if (!k)
            order[n++] = i;
        else if (nf_pct_group_leader(c, i))
            for (size_t j = 0; j < k; j++)
                order[n++] = m[j];
    }
    free(m);
    return n;
}

/* A variant's verdict in the brief form: an inconclusive row says how
 * many more repetitions or runs (pairs, for a paired row) the side with
 * fewer needs to settle it, as the full table's note does (nf_settle):
 * "inconclusive (run 7 more)", or
 * "inconclusive (run >100x more)" past NF_SETTLE_MAX times the data. */
static void brief_verdict(char *buf, size_t len, const struct nf_comparison *c,
                          const struct nf_cmp_block *b, const struct nf_cmp_cell *x)
{
    size_t have;
    int beyond;
    if (!x->compared)
        snprintf(buf, len, "-");
    else if (b->unlike_args && !c->allow_different)
        snprintf(buf, len, "%s", nf_compare_verdict_word(c, b, x));
    else if (nf_settle(&b->cells[0], x, &have, &beyond) && beyond)
        snprintf(buf, len, "inconclusive (run >%dx more)", NF_SETTLE_MAX);
    else if (nf_settle(&b->cells[0], x, &have, &beyond))
        snprintf(buf, len, "inconclusive (run %zu more)", x->runs_needed - have);
    else
        snprintf(buf, len, "%s", nf_compare_verdict_word(c, b, x));
}

void nf_compare_text_brief(FILE *out, const struct nf_comparison *raw)
{
    struct nf_text_view v;
    nf_text_view_make(&v, raw);
    const struct nf_comparison *c = &v.c;
    int w = nf_compare_col_width(c), nw = 21; /* the metric names' column: the longest */
    int vw = 12;                              /* the verdicts' column: "inconclusive", or longer */
    char cell[160];
    const char *wl = NULL;
    size_t *order = nf_xcalloc(c->nblocks, sizeof(*order));
    size_t n = block_order(raw, order);
    nf_compare_unlike_line(out, c);
    for (size_t i = 0; i < c->nblocks; i++) {
        if ((int)strlen(c->blocks[i].metric) > nw)
            nw = (int)strlen(c->blocks[i].metric);
        for (size_t l = 1; l < c->nlabels; l++) {
            brief_verdict(cell, sizeof(cell), c, &c->blocks[i], &c->blocks[i].cells[l]);
            if ((int)strlen(cell) > vw)
                vw = (int)strlen(cell);
        }
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        const struct nf_cmp_block *b = &c->blocks[i];
        if (!wl || strcmp(wl, b->name) != 0) {
            wl = b->name;
            fprintf(out, "%s%-*s", k ? "\n" : "", nw + 7, wl);
            for (size_t l = 0; l < c->nlabels; l++)
                fprintf(out, " %*s%*s", w, c->labels[l], l && l + 1 < c->nlabels ? vw + 1 : 0, "");
            fputc('\n', out);
        }
        const char *loc = nf_compare_block_loc(c, b);
        fprintf(out, "%-6s %-*s", loc ? loc : b->rate ? "Hmean" : "Amean", nw, b->metric);
        for (size_t l = 0; l < c->nlabels; l++) {
            const struct nf_cmp_cell *x = &b->cells[l];
            if (loc && l && nf_compare_cell_paired(x)) /* no location of its own */
                snprintf(cell, sizeof(cell), "-");
            else if (loc)
                nf_compare_loc_cell(cell, sizeof(cell), b, l, nf_compare_location(c, b, l));
            else
                nf_compare_means_cell(cell, sizeof(cell), b, l);
            fprintf(out, " %*s", w, cell);
            if (l) {
                brief_verdict(cell, sizeof(cell), c, b, x);
                fprintf(out, " %-*s", l + 1 < c->nlabels ? vw : 0, cell); /* no trailing blanks */
            }
        }
        fputc('\n', out);
    }
    fputc('\n', out);
    for (size_t k = 0; k < n; k++)
        for (size_t l = 0, i = order[k]; nf_compare_focus(c, &c->blocks[i]) && l < c->nlabels;
             l++) {
            const struct nf_cmp_cell *x = &c->blocks[i].cells[l];
            char prefix[256];
            snprintf(prefix, sizeof(prefix), "  note: %s %s: ", c->blocks[i].name,
                     c->blocks[i].metric);
            nf_compare_cell_notes(out, prefix, c, &c->blocks[i], l);
            char *advice = l ? nf_diag_advice_line(c->labels[l], x) : NULL;
            if (advice)
                fprintf(out, "%s%s\n", prefix, advice);
            free(advice);
        }
    /* the other metrics' notes: how many, in one line; rows split by
     * arguments say whose ("messaging '-g 2': user 6"), as their tables do */
    const char *sep = "  notes under the other metrics: ", *row = NULL;
    int named = 0; /* some rows are split: every count says its row */
    for (size_t k = 0; k < n; k++)
        named |= c->blocks[order[k]].args != NULL;
    for (size_t k = 0; k < n; k++) {
        const struct nf_cmp_block *b = &c->blocks[order[k]];
        size_t m = nf_compare_focus(c, b) ? 0 : nf_compare_count_notes(c, b);
        if (!m)
            continue;
        if (named && (!row || strcmp(row, b->name) != 0)) {
            char *name = nf_xstrdup(b->name);
            nf_printable(name);
            fprintf(out, "%s%s: ", row ? "; " : sep, name);
            free(name);
            row = b->name;
            sep = "";
        }
        fprintf(out, "%s%s %zu", sep, b->metric, m);
        sep = ", ";
    }
    if (sep[0] == ',')
        fputs("; compare -m METRIC shows them\n", out);
    free(order);
    char pw[160];
    fprintf(out,
            "%s test%s, alpha %g, equivalence within ±%g%%; + is better; *x%%* marks a "
            "significant change; Hmean for rates.\n",
            nf_test_name(c->opts.test), nf_compare_paired_words(c, pw, sizeof(pw)), c->opts.alpha,
            c->opts.threshold_pct);
    nf_compare_holm_footer(out, c);
    nf_text_view_free(&v);
}

void nf_compare_text_verdicts(FILE *out, const struct nf_comparison *raw, const char *metric)
{
    struct nf_text_view v;
    nf_text_view_make(&v, raw);
    const struct nf_comparison *c = &v.c;
    for (size_t b = 0; b < c->nblocks; b++) {
        const struct nf_cmp_block *blk = &c->blocks[b];
        if (!nf_compare_deciding(&raw->blocks[b], metric))
            continue;
        for (size_t l = 1; l < c->nlabels; l++) {
            const struct nf_cmp_cell *x = &blk->cells[l];
            if (!x->compared)
                continue;
            fprintf(out, "Verdict: %s vs %s on %s %s: %s", c->labels[l], c->labels[0], blk->name,
                    blk->metric, nf_verdict_name(x->verdict));
            if (isfinite(x->r.ci_low_pct)) { /* + as better, as the table */
                double lo, hi, level = nf_compare_ci_level(c, x);
                char at[32] = "";
                if (fabs(level - 100 * (1 - c->opts.alpha)) > 1e-9)
                    snprintf(at, sizeof(at), " (%.4g%%)", level);
                nf_compare_oriented_ci(blk, x, &lo, &hi);
                /* a paired row's change is the pairs', as its CI */
                fprintf(out, " (%s%+.2f%%, CI%s [%+.2f%%, %+.2f%%] with + as better; %s is better)",
                        nf_compare_paired_change(x) ? "paired change " : "",
                        nf_compare_oriented_r(&x->r, x->r.change_pct, blk->better), at, lo, hi,
                        nf_better_name(blk->better));
            } else if (x->r.zero_base && isfinite(x->r.mean))
                fprintf(out, " (from a baseline of 0 to %.4g, %s is better)", x->r.mean,
                        nf_better_name(blk->better));
            char settle[256];
            nf_settle_words(settle, sizeof(settle), &blk->cells[0], x);
            char who[160];
            nf_clusters_who(who, sizeof(who), c->labels[l], x);
            if (x->verdict == NF_INCONCLUSIVE && x->advice.multimodal && x->advice_fix)
                fprintf(out, "; %s form clusters: %s", who, x->advice_fix);
            else if (settle[0])
                fprintf(out, "; %s", settle);
            fputc('\n', out);
        }
    }
    nf_text_view_free(&v);
}
