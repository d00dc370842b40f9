/* Numbers and changes as the comparison's tables print them (report/fmt.h). */
#include "report/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void nf_compare_oriented_ci(const struct nf_cmp_block *b, const struct nf_cmp_cell *x, double *lo,
                            double *hi)
{
    double a = nf_compare_oriented_r(&x->r, x->r.ci_low_pct, b->better);
    double c = nf_compare_oriented_r(&x->r, x->r.ci_high_pct, b->better);
    *lo = fmin(a, c);
    *hi = fmax(a, c);
}

double nf_compare_oriented_at(double base, double pct, enum nf_better better)
{
    return nf_compare_oriented(base < 0 ? -pct : pct, better);
}

const char *nf_compare_paired_words(const struct nf_comparison *c, char *buf, size_t len)
{
    int paired = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++)
            paired |=
                c->blocks[i].cells[l].compared && c->blocks[i].cells[l].pairing != NF_PAIR_NONE;
    buf[0] = 0;
    if (!paired)
        return buf;
    /* welch's paired form is the paired t, utest's the signed-rank test;
     * yuen and bootstrap have none, the paired t stands in
     * (doc/statistics.md, "Paired rounds") */
    const struct nf_test_row *t = nf_test_row(c->opts.test);
    if (t && t->paired_form != NF_PAIRED_NONE && !t->own_paired)
        snprintf(buf, len,
                 " (where rows are paired by round or host: %s on the log-ratios; --test %s has no "
                 "paired form)",
                 t->paired_words ? t->paired_words : "paired t", nf_test_name(c->opts.test));
    else
        snprintf(buf, len, " (its paired form where rows are paired by round or host)");
    return buf;
}

const char *nf_compare_verdict_word(const struct nf_comparison *c, const struct nf_cmp_block *b,
                                    const struct nf_cmp_cell *x)
{
    if (b->unlike_args && !c->allow_different)
        return "different workloads";
    return nf_verdict_name(x->verdict);
}

void nf_compare_unlike_line(FILE *out, const struct nf_comparison *c)
{
    if (!c->unlike)
        return;
    int args = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        args |= c->blocks[i].unlike_args;
    fprintf(out, "Unlike runs: %s.%s\n\n", c->unlike,
            args && !c->allow_different
                ? " Verdicts of those workloads say \"different workloads\" (--allow-different "
                  "decides them all the same)."
                : "");
}

void nf_compare_ci_cell(char *cell, size_t len, const struct nf_comparison *c,
                        const struct nf_cmp_block *b, const struct nf_cmp_cell *x)
{
    if (x->compared && isfinite(x->r.ci_low_pct) && isfinite(x->r.ci_high_pct)) {
        double lo, hi, level = nf_compare_ci_level(c, x);
        char at[32] = "";
        if (nf_compare_ci_wild(b, x)) {
            snprintf(cell, len, "too wide");
            return;
        }
        if (fabs(level - 100 * (1 - c->opts.alpha)) > 1e-9)
            snprintf(at, sizeof(at), " at %.4g%%", level);
        nf_compare_oriented_ci(b, x, &lo, &hi);
        snprintf(cell, len, "[%+.1f%%, %+.1f%%]%s", lo, hi, at);
    } else {
        snprintf(cell, len, "%s", x->compared && x->r.ok ? "unbounded" : "-");
    }
}

void nf_compare_p_cell(char *cell, size_t len, const struct nf_cmp_cell *x)
{
    if (!x->compared || !isfinite(x->r.p_value))
        snprintf(cell, len, "-");
    else if (x->family == NF_FAMILY_NONE) /* "Holm" is a Holm p only for a row in a family */
        snprintf(cell, len, "%.2g / -", x->r.p_value);
    else
        snprintf(cell, len, "%.2g / %.2g", x->r.p_value, x->p_adjusted);
}

size_t nf_compare_cell_n(const struct nf_cmp_cell *x)
{
    return x->summary_n ? x->summary_n : x->n;
}

int nf_compare_cell_spread(const struct nf_cmp_cell *x)
{
    return x->has_data && nf_compare_cell_n(x) >= 2;
}

double nf_compare_means_pct(const struct nf_cmp_block *b, const struct nf_cmp_cell *x)
{
    const struct nf_cmp_cell *base = &b->cells[0];
    if (!base->has_data || !x->has_data || !isfinite(base->mean) || !isfinite(x->mean))
        return NAN;
    if (base->mean == 0)
        return x->mean == 0 ? NAN : x->mean > 0 ? INFINITY : -INFINITY;
    return (x->mean / base->mean - 1) * 100;
}

double nf_compare_means_better_pct(const struct nf_cmp_block *b, const struct nf_cmp_cell *x)
{
    return nf_compare_oriented_at(b->cells[0].mean, nf_compare_means_pct(b, x), b->better);
}

int nf_compare_paired_change(const struct nf_cmp_cell *x)
{
    return x->compared && x->pairing != NF_PAIR_NONE;
}

double nf_compare_ci_level(const struct nf_comparison *c, const struct nf_cmp_cell *x)
{
    const struct nf_seq_look *l = &x->look;
    if (x->sequential && l->look >= 0 && isfinite(l->change_pct)) {
        /* as analysis/pairing.c chose the interval: an equivalence stop's
         * at the equivalence level, else the effect's */
        double level = l->action == NF_SEQ_STOP_EQUIVALENT ? 2 * l->level_equiv : l->level_effect;
        return 100 * (1 - level);
    }
    return 100 * (1 - c->opts.alpha);
}

int nf_compare_ci_wild(const struct nf_cmp_block *b, const struct nf_cmp_cell *x)
{
    if ((b->unit[0] && strcmp(b->unit, "count") != 0) || !x->compared)
        return 0;
    double lo = 1 + x->r.ci_low_pct / 100, hi = 1 + x->r.ci_high_pct / 100;
    if (!isfinite(lo) || !isfinite(hi))
        return 0;
    return lo <= 0 || hi <= 0 || fmax(lo, hi) / fmin(lo, hi) > NF_CI_WILD;
}

/* v, a whole number of at most 19 digits, with its thousands grouped by
 * commas ("-1,234,567"). */
static void grouped(char *buf, size_t len, double v)
{
    char d[32], out[48];
    snprintf(d, sizeof(d), "%.0f", fabs(v));
    size_t n = strlen(d), k = 0;
    if (v < 0 && strcmp(d, "0") != 0)
        out[k++] = '-';
    for (size_t i = 0; i < n && k + 2 < sizeof(out); i++) {
        if (i && (n - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = d[i];
    }
    out[k] = 0;
    snprintf(buf, len, "%s", out);
}

void nf_compare_fmt_num(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (fabs(v) >= 1e18)
        snprintf(buf, len, "%.4g", v); /* past what grouping keeps readable */
    else if (fabs(v) >= 1e6)
        grouped(buf, len, v);
    else if (fabs(v) >= 100)
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "%.4f", v);
}

void nf_diag_fmt_num(char *buf, size_t len, double v)
{
    /* small values keep five significant digits (0.00037142, not 0.0004) */
    if (isfinite(v) && v != 0 && fabs(v) < 1)
        snprintf(buf, len, "%.5g", v);
    else
        nf_compare_fmt_num(buf, len, v);
}

int nf_settle(const struct nf_cmp_cell *base, const struct nf_cmp_cell *x, size_t *have,
              int *beyond)
{
    /* unpaired: the side with the fewest needs the most more */
    *have = x->pairing != NF_PAIR_NONE ? x->npairs : base->n < x->n ? base->n : x->n;
    *beyond = 0;
    if (!x->compared || x->verdict != NF_INCONCLUSIVE || x->runs_needed <= *have)
        return 0;
    *beyond = x->runs_needed > (size_t)NF_SETTLE_MAX * *have;
    return 1;
}

const char *nf_settle_units(const struct nf_cmp_cell *base, const struct nf_cmp_cell *x)
{
    switch (x->pairing) {
    case NF_PAIR_ROUNDS: return "rounds";
    case NF_PAIR_HOSTS: return "hosts";
    default: return x->run_means || base->run_means ? "runs per side" : "repetitions per side";
    }
}

void nf_settle_words(char *buf, size_t len, const struct nf_cmp_cell *base,
                     const struct nf_cmp_cell *x)
{
    size_t have;
    int beyond;
    char why[160] = "";
    const char *at = "at this noise";
    if (x->before_holm) {
        snprintf(why, sizeof(why),
                 "significant before Holm's correction (p %.2g), not after it over the %zu rows of "
                 "its family (p %.2g): ",
                 x->r.p_value, x->before_holm, x->p_adjusted);
        at = "at this change and noise";
    }
    if (!nf_settle(base, x, &have, &beyond))
        snprintf(buf, len, "%s", "");
    else if (beyond)
        snprintf(buf, len, "%ssettling it %s would take more than %d times the %zu %s so far", why,
                 at, NF_SETTLE_MAX, have, nf_settle_units(base, x));
    else
        snprintf(buf, len, "%sabout %zu %s (%zu more) would settle it %s", why, x->runs_needed,
                 nf_settle_units(base, x), x->runs_needed - have, at);
}

void nf_clusters_who(char *buf, size_t len, const char *label, const struct nf_cmp_cell *x)
{
    if (!x->advice_who)
        snprintf(buf, len, "the samples of both sides");
    else if (strcmp(x->advice_who, label) == 0)
        snprintf(buf, len, "its samples");
    else
        snprintf(buf, len, "the samples of the baseline %s", x->advice_who);
}

/* The metrics of the primary family's rows, as a list: "usecs/op",
 * "seconds, usecs/op", or the first three and "...". */
static void primary_names(char *buf, size_t len, const struct nf_comparison *c)
{
    size_t n = 0, off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *b = &c->blocks[i];
        int in = 0, seen = 0;
        for (size_t l = 1; l < c->nlabels; l++)
            in |= b->cells[l].family == NF_FAMILY_PRIMARY && !b->cells[l].twin;
        for (size_t j = 0; in && j < i; j++)
            for (size_t l = 1; !seen && l < c->nlabels; l++)
                seen = c->blocks[j].cells[l].family == NF_FAMILY_PRIMARY &&
                       !c->blocks[j].cells[l].twin && strcmp(c->blocks[j].metric, b->metric) == 0;
        if (!in || seen)
            continue;
        if (n++ == 3) {
            off += (size_t)snprintf(buf + off, off < len ? len - off : 0, ", ...");
            break;
        }
        off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", n > 1 ? ", " : "",
                                b->metric);
        if (off >= len)
            break;
    }
}

static const char *rows_word(size_t n)
{
    return n == 1 ? "row" : "rows";
}

void nf_compare_holm_words(char *buf, size_t len, const struct nf_comparison *c)
{
    size_t np = c->family_rows[NF_FAMILY_PRIMARY], ns = c->family_rows[NF_FAMILY_SECONDARY];
    size_t off = 0;
    char names[160];
    buf[0] = 0;
    if (!np && !ns && !c->constant_rows && !c->sequential_rows)
        return;
    primary_names(names, sizeof(names), c);
#define ADD(...) (off += (size_t)snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__))
    ADD("Holm p:");
    if (np)
        ADD(" corrected together within the %zu %s of %s (%s)", np, rows_word(np),
            c->metric ? "the metric asked for" : "the primary metric", names);
    size_t twins = 0;
    const char *twin = NULL, *of = NULL;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++)
            if (c->blocks[i].cells[l].twin) {
                twins++;
                twin = c->blocks[i].metric;
                of = c->blocks[i].cells[l].twin;
            }
    if (twins)
        ADD("%s %s takes the p of %s, its reciprocal", np ? "," : "", twin, of);
    if (ns)
        ADD("%s %s within the other metrics' %zu %s", np || twins ? "; and" : "",
            np || twins ? "apart," : "corrected together", ns, rows_word(ns));
    if (c->constant_rows || c->sequential_rows)
        ADD("%s no Holm p (\"-\") for", np || ns || twins ? ";" : "");
    if (c->constant_rows)
        ADD(" %zu %s of constant identical values (nothing to test)", c->constant_rows,
            rows_word(c->constant_rows));
    if (c->sequential_rows)
        ADD("%s %zu %s an ab session decided (its design already splits alpha over its looks)",
            c->constant_rows ? " and" : "", c->sequential_rows, rows_word(c->sequential_rows));
    ADD(".");
#undef ADD
}
