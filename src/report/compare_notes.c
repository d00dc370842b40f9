/* What the comparison's text forms print under a block (its labels'
 * notes, their diagnosis, the advice of an inconclusive row) and under
 * the tables (what their marks mean, Holm's families): compare_out.c's
 * tables and compare_brief.c's brief form alike. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare_text.h"

#include "core/util.h"
#include "report/diag.h"
#include "report/fmt.h"

/* Does any row of c show a CI at another level than 1 - alpha, or hide
 * one too wide to mean anything (the footer says what the marks mean)? */
static void ci_marks(const struct nf_comparison *c, int *level, int *wild)
{
    *level = *wild = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++) {
            const struct nf_cmp_cell *x = &c->blocks[i].cells[l];
            if (!x->compared)
                continue;
            *wild |= nf_compare_ci_wild(&c->blocks[i], x);
            *level |= fabs(nf_compare_ci_level(c, x) - 100 * (1 - c->opts.alpha)) > 1e-9;
        }
}

/* One note after prefix, as one line: a note may quote a run's arguments,
 * stored as given (a newline, an escape). */
static void put_note(FILE *out, const char *prefix, const char *note)
{
    char *s = nf_xstrdup(note);
    nf_printable(s);
    fprintf(out, "%s%s\n", prefix, s);
    free(s);
}

/* Does ld have a finding of this kind? */
static int has_finding(const struct nf_label_diag *ld, enum nf_diag_kind kind)
{
    for (size_t i = 0; ld->done && i < ld->d.n; i++)
        if (ld->d.f[i].kind == kind)
            return 1;
    return 0;
}

/* A cell's note that its diagnosis says again, with cause and fix: "runs
 * differ more than their repetitions" beside a runs-differ finding (the N
 * row says the run means are the units). */
static int said_by_diag(const struct nf_cmp_cell *x, const char *note)
{
    return strstr(note, "runs differ more than their repetitions") &&
           has_finding(&x->diag, NF_DIAG_RUNS_DIFFER);
}

/* Label l's notes of block b and its diagnosis, each said once, only the
 * findings that matter to the metric. */
void nf_compare_cell_notes(FILE *out, const char *prefix, const struct nf_comparison *c,
                           const struct nf_cmp_block *b, size_t l)
{
    const struct nf_cmp_cell *x = &b->cells[l];
    for (size_t k = 0; k < x->nnotes; k++)
        if (!said_by_diag(x, x->notes[k]))
            put_note(out, prefix, x->notes[k]);
    struct nf_label_diag ld = x->diag; /* a view: the findings that matter */
    struct nf_diag_finding *f = nf_xcalloc(ld.d.n ? ld.d.n : 1, sizeof(*f));
    size_t n = 0;
    for (size_t i = 0; ld.done && i < ld.d.n; i++)
        if (nf_diag_matters(b->metric, ld.d.f[i].kind))
            f[n++] = ld.d.f[i];
    ld.d.f = f;
    ld.d.n = n;
    nf_diag_text(out, prefix, c->labels[l], &ld);
    free(f);
}

/* A block's notes, each line after prefix: the cells' notes, the noise
 * diagnosis, the advice of an inconclusive row; each said once, and only
 * the findings that matter to the metric (nf_diag_matters). */
void nf_compare_block_notes(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                            const char *prefix)
{
    for (size_t l = 0; l < c->nlabels; l++)
        nf_compare_cell_notes(out, prefix, c, b, l);
    for (size_t l = 1; l < c->nlabels; l++) {
        char *settle = nf_diag_settle_line(c->labels[l], &b->cells[0], &b->cells[l]);
        if (settle)
            fprintf(out, "%s%s\n", prefix, settle);
        free(settle);
    }
}

/* Whether a block shows its notes in full: the primary metric's and its
 * percentile family's, or any block of a workload compared without its
 * primary metric (-m). */
int nf_compare_focus(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    int other = 0; /* another block of the workload is primary */
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *o = &c->blocks[i];
        if (!o->primary || !nf_cmp_block_same_runs(o, b))
            continue;
        if (o == b || (b->family && o->family && strcmp(o->family, b->family) == 0))
            return 1; /* the primary metric, or a percentile of its family */
        other = 1;
    }
    return !other;
}

/* A secondary metric's notes as one line that counts them and says how
 * to see them: a table per metric, each with every note, is more than a
 * reader takes in; the JSON keeps them all. */
size_t nf_compare_count_notes(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    char *buf = NULL;
    size_t len = 0, n = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return 0;
    nf_compare_block_notes(m, c, b, "\n");
    nf_explain_text(m, c, b);
    fclose(m);
    for (size_t i = 0; i + 1 < len; i++)
        n += buf[i] == '\n' && buf[i + 1] != '\n' && buf[i + 1] != ' ';
    if (len && buf[0] != '\n')
        n++; /* a table of clusters */
    free(buf);
    return n;
}

void nf_compare_brief_notes(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    size_t n = nf_compare_count_notes(c, b);
    if (n)
        fprintf(out, "  %zu note%s: compare -m %s shows %s\n", n, n == 1 ? "" : "s", b->metric,
                n == 1 ? "it" : "them");
}

/* What the marks of the tables mean, where any is shown; then which
 * family each row's "Holm" p is of (nf_compare_holm_words). */
void nf_compare_holm_footer(FILE *out, const struct nf_comparison *c)
{
    int paired = 0, level, wild;
    for (size_t i = 0; i < c->nblocks; i++)
        paired |= nf_compare_any_paired(c, &c->blocks[i]);
    ci_marks(c, &level, &wild);
    if (paired)
        fprintf(out,
                "Paired change: the change of the pairs (rounds or hosts, as their log-ratios), "
                "which the CI, p and verdict are of; the change beside a mean is that of the "
                "means shown.\n");
    if (level)
        fprintf(out,
                "A CI \"at N%%\" is an ab session's repeated CI at that level (its design "
                "splits alpha over its looks); the others are at %g%%.\n",
                100 * (1 - c->opts.alpha));
    if (wild)
        fprintf(out,
                "\"too wide\": a count's CI spanning more than a factor of %d (zeros or a "
                "wild spread) says nothing as a ratio and is not shown; --json has it.\n",
                NF_CI_WILD);
    char words[768];
    nf_compare_holm_words(words, sizeof(words), c);
    if (words[0])
        fprintf(out, "%s\n", words);
}
