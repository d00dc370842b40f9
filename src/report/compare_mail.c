/* compare --format mail (and ab's): what a kernel developer pastes into a
 * mail, in mmtests' shape and at most 80 columns where the numbers allow.
 * The table alone (Hmean or Amean, Stddev, CoeffVar; "*  -2.82%*" outside
 * the noise, "(   0.59%)" inside it; no verdict in the columns), the
 * labels in a legend when they do not fit over their columns, then one
 * line per label with its verdict and CI, then one line on how it was
 * measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"

#include "core/util.h"
#include "report/fmt.h"
#include "report/text_view.h"

#define MAIL_COLS 80

/* What every run has anyway (rusage) and the machine's readings: not the
 * workload's own numbers, so not in the mail's table by default. */
static int incidental(const char *m)
{
    static const char *const names[] = {"user",
                                        "sys",
                                        "voluntary-context-switches",
                                        "involuntary-context-switches",
                                        "minor-page-faults",
                                        "major-page-faults",
                                        "max-rss"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(m, names[i]) == 0)
            return 1;
    return strchr(m, '.') != NULL; /* cpu.irq, sched.run-delay */
}

static int any_data(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    for (size_t l = 0; l < c->nlabels; l++)
        if (b->cells[l].has_data)
            return 1;
    return 0;
}

/* Is block b a row of the mail's table: with all (or -m), every block
 * with data; else the primary metric's and those of its workload's
 * metrics of the same unit and direction that are its own (netsend's
 * send-SIZE rows, a latency's percentiles). */
static int in_mail(const struct nf_comparison *c, const struct nf_cmp_block *b, int all)
{
    if (!any_data(c, b))
        return 0;
    if (all || c->metric || b->primary)
        return 1;
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *p = &c->blocks[i];
        if (p->primary && nf_cmp_block_same_runs(p, b))
            return strcmp(p->unit, b->unit) == 0 && p->better == b->better &&
                   !incidental(b->metric);
    }
    return 0;
}

/* A row's name: the metric, after the workload's name when the table has
 * several workloads (or argument lists). */
static void row_name(char *buf, size_t len, const struct nf_cmp_block *b, int named)
{
    if (named)
        snprintf(buf, len, "%s %s", b->name, b->metric);
    else
        snprintf(buf, len, "%s", b->metric);
}

/* mmtests' mark of a change with + as better: "(   0.00%)", "*  -2.82%*". */
static void mark(char *buf, size_t len, const struct nf_cmp_block *b, size_t l)
{
    const struct nf_cmp_cell *x = &b->cells[l];
    double ch = l ? nf_compare_means_better_pct(b, x) : 0;
    if (!x->has_data || (l && (!x->compared || isnan(ch))))
        snprintf(buf, len, "(      - )");
    else if (isinf(ch))
        snprintf(buf, len, "%c%7s%%%c", x->significant ? '*' : '(', ch > 0 ? "+inf" : "-inf",
                 x->significant ? '*' : ')');
    else if (l && x->significant)
        snprintf(buf, len, "*%7.2f%%*", ch);
    else
        snprintf(buf, len, "(%7.2f%%)", ch);
}

/* Print s without its trailing blanks, and a newline. */
static void put_line(FILE *out, char *s)
{
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        s[--n] = 0;
    fprintf(out, "%s\n", s);
}

/* Text s as lines of at most MAIL_COLS columns, broken at blanks, the
 * lines after the first indented by two (a word longer than a line
 * stays whole). */
static void put_wrapped(FILE *out, const char *s)
{
    size_t col = 0;
    while (*s) {
        size_t w = strcspn(s, " ");
        if (col && col + 1 + w > MAIL_COLS) {
            fputs("\n  ", out);
            col = 2;
        } else if (col) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, w, out);
        col += w;
        s += w;
        while (*s == ' ')
            s++;
    }
    fputc('\n', out);
}

/* What f printed to a memory stream, wrapped (put_wrapped), one
 * paragraph per line of it. */
static void flush_wrapped(FILE *out, char *buf)
{
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        put_wrapped(out, line);
}

/* How many of the mail's rows each verdict word has for label l:
 * "8 regressed, 1 inconclusive". */
static void counts(char *buf, size_t len, const struct nf_comparison *c, const size_t *rows,
                   size_t n, size_t l)
{
    const char *words[16];
    size_t cnt[16], k = 0, off = 0;
    for (size_t i = 0; i < n; i++) {
        const struct nf_cmp_block *b = &c->blocks[rows[i]];
        if (!b->cells[l].compared)
            continue;
        const char *w = nf_compare_verdict_word(c, b, &b->cells[l]);
        size_t j = 0;
        while (j < k && strcmp(words[j], w) != 0)
            j++;
        if (j == k && k < 16) {
            words[k] = w;
            cnt[k++] = 0;
        }
        if (j < k)
            cnt[j]++;
    }
    buf[0] = 0;
    for (size_t j = 0; j < k && off < len; j++)
        off += (size_t)snprintf(buf + off, len - off, "%s%zu %s", j ? ", " : "", cnt[j], words[j]);
}

/* One line per label: its verdict on the first row (the primary metric),
 * the change of the means, the CI of what the test estimates, and the
 * other rows' verdicts counted. */
static void verdicts(FILE *out, const struct nf_comparison *c, const size_t *rows, size_t n)
{
    const struct nf_cmp_block *b = &c->blocks[rows[0]];
    for (size_t l = 1; l < c->nlabels; l++) {
        const struct nf_cmp_cell *x = &b->cells[l];
        fprintf(out, "%s vs %s: ", c->labels[l], c->labels[0]);
        if (!x->compared) {
            fprintf(out, "%s %s not compared\n", b->name, b->metric);
            continue;
        }
        fprintf(out, "%s on %s %s (%+.2f%%", nf_compare_verdict_word(c, b, x), b->name, b->metric,
                nf_compare_means_better_pct(b, x));
        if (nf_compare_paired_change(x))
            fprintf(out, ", paired %+.2f%%",
                    nf_compare_oriented_r(&x->r, x->r.change_pct, b->better));
        if (isfinite(x->r.ci_low_pct) && isfinite(x->r.ci_high_pct) && !nf_compare_ci_wild(b, x)) {
            double lo, hi;
            nf_compare_oriented_ci(b, x, &lo, &hi);
            fprintf(out, ", %.4g%% CI [%+.2f%%, %+.2f%%]", nf_compare_ci_level(c, x), lo, hi);
        }
        fputc(')', out);
        if (n > 1) {
            char cnt[256];
            counts(cnt, sizeof(cnt), c, rows, n, l);
            fprintf(out, "; the %zu rows: %s", n, cnt);
        }
        fputc('\n', out);
    }
}

/* How it was measured, one line. */
static void measured(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    size_t lo = (size_t)-1, hi = 0, pairs = 0, runs = 0;
    int perf = 0; /* some label is one perf stat -r block */
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct nf_cmp_cell *x = &b->cells[l];
        if (!x->has_data)
            continue;
        /* a perf stat -r block's N repetitions, which its mean stands for */
        size_t reps = x->summary_n ? x->summary_n : x->nsamples;
        perf |= x->summary_n > 0;
        lo = reps < lo ? reps : lo;
        hi = reps > hi ? reps : hi;
        runs = x->nruns > runs ? x->nruns : runs;
        if (x->pairing == NF_PAIR_ROUNDS)
            pairs = x->npairs;
    }
    fprintf(out, "Measured: ");
    if (pairs)
        fprintf(out, "%zu rounds of an ab session, the labels interleaved in each", pairs);
    else if (lo == hi)
        fprintf(out, "%zu repetition%s per label", hi, hi == 1 ? "" : "s");
    else
        fprintf(out, "%zu to %zu repetitions per label", lo == (size_t)-1 ? 0 : lo, hi);
    if (perf)
        fprintf(out, " (by perf stat -r)");
    if (!pairs && runs > 1)
        fprintf(out, " over up to %zu runs", runs);
    if (!pairs)
        fprintf(out, c->interleaved ? ", interleaved" : ", one label after another");
    if (c->setup && c->setup[0])
        fprintf(out, ", %s", c->setup);
    fprintf(out,
            "; %s test, alpha %g, equivalence within ±%g%%; + is better, *x%%* outside the "
            "noise.\n",
            nf_test_name(c->opts.test), c->opts.alpha, c->opts.threshold_pct);
}

void nf_compare_mail(FILE *out, const struct nf_comparison *raw, int all)
{
    struct nf_text_view v;
    nf_text_view_make(&v, raw);
    const struct nf_comparison *c = &v.c;
    size_t *rows = nf_xcalloc(c->nblocks ? c->nblocks : 1, sizeof(*rows)), n = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        if (in_mail(c, &c->blocks[i], all))
            rows[n++] = i;
    if (!n) {
        fprintf(out, "nothing to show\n");
        free(rows);
        nf_text_view_free(&v);
        return;
    }
    int named = 0;
    for (size_t i = 1; i < n; i++)
        named |= strcmp(c->blocks[rows[i]].name, c->blocks[rows[0]].name) != 0;
    /* widths: the numbers', the row names' */
    char num[64], name[256], m[32];
    size_t numw = 4, namew = 0;
    for (size_t i = 0; i < n; i++) {
        const struct nf_cmp_block *b = &c->blocks[rows[i]];
        row_name(name, sizeof(name), b, named);
        namew = strlen(name) > namew ? strlen(name) : namew;
        for (size_t l = 0; l < c->nlabels; l++) {
            nf_compare_fmt_num(num, sizeof(num), b->cells[l].has_data ? b->cells[l].mean : NAN);
            numw = strlen(num) > numw ? strlen(num) : numw;
            nf_compare_fmt_num(num, sizeof(num), b->cells[l].s.stddev);
            numw = strlen(num) > numw ? strlen(num) : numw;
        }
    }
    size_t cellw = numw + 1 + 10, left = 10 + namew;
    /* mmtests' gap between the columns where the 80 columns leave room */
    size_t used = left + c->nlabels * (1 + cellw);
    size_t gap = used < MAIL_COLS ? 1 + (MAIL_COLS - used) / c->nlabels : 1;
    gap = gap > 6 ? 6 : gap;
    /* the labels over their columns, or numbered with a legend */
    int legend = 0;
    for (size_t l = 0; l < c->nlabels; l++)
        legend |= strlen(c->labels[l]) > cellw;
    legend |= used > MAIL_COLS && c->nlabels > 1;
    char *line = nf_xcalloc(left + c->nlabels * (cellw + 64) + 512, 1);
    size_t off = (size_t)sprintf(line, "%-*s", (int)left, "");
    for (size_t l = 0; l < c->nlabels; l++) {
        char head[32];
        snprintf(head, sizeof(head), "[%zu]", l + 1);
        off += (size_t)sprintf(line + off, "%*s%*.*s", (int)gap, "", (int)cellw, (int)cellw,
                               legend ? head : c->labels[l]);
    }
    put_line(out, line);
    for (int stat = 0; stat < 3; stat++)
        for (size_t i = 0; i < n; i++) {
            const struct nf_cmp_block *b = &c->blocks[rows[i]];
            row_name(name, sizeof(name), b, named);
            const char *sn = stat == 1   ? "Stddev"
                             : stat == 2 ? "CoeffVar"
                             : b->rate   ? "Hmean"
                                         : "Amean";
            off = (size_t)sprintf(line, "%-9s %-*s", sn, (int)namew, name);
            for (size_t l = 0; l < c->nlabels; l++) {
                const struct nf_cmp_cell *x = &b->cells[l];
                int spread = nf_compare_cell_spread(x);
                if (stat == 0) {
                    nf_compare_fmt_num(num, sizeof(num), x->has_data ? x->mean : NAN);
                    mark(m, sizeof(m), b, l);
                    off +=
                        (size_t)sprintf(line + off, "%*s%*s %s", (int)gap, "", (int)numw, num, m);
                } else {
                    if (stat == 1)
                        nf_compare_fmt_num(num, sizeof(num), spread ? x->s.stddev : NAN);
                    else if (spread && isfinite(nf_summary_cv(&x->s, b->rate)))
                        snprintf(num, sizeof(num), "%.2f%%", nf_summary_cv(&x->s, b->rate));
                    else
                        snprintf(num, sizeof(num), "-");
                    /* under the mean; a CV's % sign where the blank
                     * after the mean is */
                    int w = (int)numw + (stat == 2);
                    off += (size_t)sprintf(line + off, "%*s%*s%*s", (int)gap, "", w, num,
                                           (int)cellw - w, "");
                }
            }
            put_line(out, line);
        }
    if (legend)
        for (size_t l = 0; l < c->nlabels; l++)
            fprintf(out, "%s[%zu] %s%s", l ? "  " : "\n", l + 1, c->labels[l],
                    l + 1 < c->nlabels ? "" : "\n");
    fputc('\n', out);
    free(line);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem) {
        verdicts(mem, c, rows, n);
        measured(mem, c, &c->blocks[rows[0]]);
        if (c->unlike)
            fprintf(mem, "Unlike runs: %s.\n", c->unlike);
        fclose(mem);
        flush_wrapped(out, buf);
    }
    free(buf);
    free(rows);
    nf_text_view_free(&v);
}
