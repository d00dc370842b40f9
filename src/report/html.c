/* The HTML report's page: style, header, summary and the comparison tables
 * (the numbers `compare` prints, from the same struct nf_comparison).  The
 * plots are in html_plots.c, the environment in html_env.c. */
#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/version.h"
#include "report/diag.h"
#include "report/fmt.h"
#include "report/html_int.h"
#include "report/svg.h"

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d1d1f;"
    "max-width:1180px;margin:20px auto;padding:0 16px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;border-bottom:1px solid #ddd;"
    "padding-bottom:4px;margin:32px 0 10px}h3{font-size:15px;margin:22px 0 8px}"
    "h4{font-size:13px;margin:0 0 2px}\n"
    ".meta{color:#555;font-size:13px;margin:2px 0}.dir{color:#666;font-weight:normal}\n"
    "table{border-collapse:collapse;font-size:13px}th,td{padding:4px 10px;text-align:right;"
    "border-bottom:1px solid #e6e6e6;white-space:nowrap}th{background:#f4f4f6;font-weight:600}\n"
    ".l{text-align:left}td.num{font-variant-numeric:tabular-nums}.sig{font-weight:700}"
    ".ns{color:#666}\n"
    ".badge{display:inline-block;padding:1px "
    "8px;border-radius:10px;font-weight:600;font-size:12px}\n"
    ".improved{background:#d8f1e1;color:#0b6b34}.regressed{background:#fad9d9;color:#a01616}"
    ".equivalent{background:#e1eaf6;color:#1f4f8a}.inconclusive{background:#fcefcc;color:#845500}"
    ".baseline{background:#ececec;color:#444}.none{background:#f4f4f4;color:#777}\n"
    "tr.v-regressed td{background:#fff6f6}tr.v-improved td{background:#f5fbf7}\n"
    "ul.notes{font-size:13px;color:#444;margin:6px 0;padding-left:20px}"
    "ul.diag{font-size:13px;color:#333;margin:6px 0;padding-left:20px}ul.diag li{margin:4px 0}"
    ".kind{background:#ececec;color:#444}table.shift,table.clusters{margin:4px 0 10px}\n"
    "ul.verdicts{list-style:none;padding:0}ul.verdicts li{margin:3px 0}\n"
    "figure{margin:0 0 8px}figcaption{font-size:12px;color:#555;max-width:760px}\n"
    ".figs{display:flex;flex-wrap:wrap;gap:8px 18px}.legend{font-size:12px;color:#444}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 3px 0 8px}\n"
    "svg{max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#333}\n"
    "svg .axlabel{font-size:12px;fill:#444}svg .rowlabel{font-size:12px;fill:#111}\n"
    ".grid{stroke:#e8e8e8}.axis{stroke:#888}.stripe{fill:#f6f6f8}.whisker{stroke:#333}\n"
    ".box{fill:none;stroke:#222;stroke-width:1.4}.median{stroke:#111;stroke-width:2.2}\n"
    ".mean{fill:#fff;stroke:#000;stroke-width:1.6}"
    ".ref{stroke:#c0392b;stroke-width:1.2;stroke-dasharray:5 3}\n"
    ".line{fill:none;stroke-width:1.4}.tp{stroke:none}\n"
    "table.env td{vertical-align:top;text-align:left;white-space:normal;max-width:320px;"
    "word-break:break-word}\n"
    "table.env td.red{background:#fad9d9}table.env td.warn{background:#fcefcc}"
    "table.env td.exp{background:#e1eaf6}\n"
    "ul.flags li.red{color:#a01616}ul.flags li.warn{color:#845500}ul.flags li.exp{color:#1f4f8a}\n"
    "footer{margin-top:36px;color:#777;font-size:12px}\n";

/* The badge of a variant's row: its verdict, or "not compared" for a row
 * without data on a side or a counter <not supported> (no test ran, so
 * it is not inconclusive). */
static const char *verdict_of(const struct nf_cmp_cell *x)
{
    return x->compared ? nf_verdict_name(x->verdict) : "not compared";
}

/* A cell without data in the table's words (compare_out.c): a counter
 * that was opened but did not count, perf stat's <not counted>; one the
 * machine could not count, <not supported>; else none stored. */
static const char *no_data_word(const struct nf_cmp_cell *x)
{
    return x->not_counted   ? "&lt;not counted&gt;"
           : x->unsupported ? "&lt;not supported&gt;"
                            : "no data";
}

/* verdict_of as a CSS class name. */
static const char *verdict_class(const struct nf_cmp_cell *x)
{
    return x->compared ? nf_verdict_name(x->verdict) : "none";
}

static void header(FILE *out, const struct nf_comparison *c, const struct nf_html_meta *m)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
          "<meta name=\"generator\" content=\"noisefloor ",
          out);
    fputs(nf_version, out);
    fputs("\"/>\n<title>noisefloor: ", out);
    for (size_t l = 0; l < c->nlabels; l++) {
        fputs(l == 0 ? "" : l == 1 ? " vs " : ", ", out);
        nf_esc(out, c->labels[l]);
    }
    fprintf(
        out,
        "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>noisefloor report: ", css);
    for (size_t l = 0; l < c->nlabels; l++) {
        fputs(l == 0 ? "" : l == 1 ? " vs " : ", ", out);
        nf_esc(out, c->labels[l]);
    }
    fputs("</h1>\n<p class=\"meta\">baseline <b>", out);
    nf_esc(out, c->labels[0]);
    char pw[160];
    fprintf(out, "</b>; %s test%s, alpha %g, equivalence within &#177;%g%%",
            nf_test_name(c->opts.test), nf_compare_paired_words(c, pw, sizeof(pw)), c->opts.alpha,
            c->opts.threshold_pct);
    char holm[768];
    nf_compare_holm_words(holm, sizeof(holm), c);
    if (holm[0]) {
        fputs(". ", out);
        nf_esc(out, holm);
    }
    fputs("</p>\n", out);
    fputs("<p class=\"meta\">", out);
    if (m && m->selection) {
        nf_esc(out, m->selection);
        fputs("; ", out);
    }
    if (m && m->db) {
        fputs("database ", out);
        nf_esc(out, m->db);
        fputs("; ", out);
    }
    if (m && m->generated) {
        fputs("generated ", out);
        nf_esc(out, m->generated);
        fputs(" by ", out);
    }
    fprintf(out, "noisefloor %s</p>\n</header>\n", nf_version);
}

/* "3.21% worse" / "0.40% better" / "no change": words, so no sign
 * convention needs remembering. */
static void change_words(FILE *out, double oriented_pct)
{
    if (isinf(oriented_pct)) /* from a baseline of 0 */
        fprintf(out, "%s than a baseline of 0", oriented_pct > 0 ? "better" : "worse");
    else if (!isfinite(oriented_pct))
        fputs("change unknown", out);
    else if (oriented_pct == 0)
        fputs("no change", out);
    else
        fprintf(out, "%.2f%% %s", fabs(oriented_pct), oriented_pct > 0 ? "better" : "worse");
}

/* ": send-1024, send-2048" -- the rows of verdict v (the label too when
 * more than one is compared), the first 8 of n. */
static void name_rows(FILE *out, const struct nf_comparison *c, enum nf_verdict v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < c->nblocks && n; i++)
        for (size_t l = 1; l < c->nlabels; l++) {
            const struct nf_cmp_cell *x = &c->blocks[i].cells[l];
            if (!x->compared || x->verdict != v)
                continue;
            if (k == 8) {
                fprintf(out, " and %zu more", n - k);
                return;
            }
            fputs(k++ ? ", " : ": ", out);
            if (c->nlabels > 2) {
                nf_esc(out, c->labels[l]);
                fputc(' ', out);
            }
            nf_esc(out, c->blocks[i].metric);
        }
}

/* The answer first: the verdict of each label on the plotted metrics. */
static void summary(FILE *out, const struct nf_comparison *c, const char *metric)
{
    size_t count[4] = {0, 0, 0, 0}, rows = 0, none = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++) {
            if (c->blocks[i].cells[l].compared)
                count[c->blocks[i].cells[l].verdict]++;
            else
                none++;
            rows++;
        }
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<ul class=\"verdicts\">\n", out);
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *b = &c->blocks[i];
        if (!nf_html_plotted(c, i, metric))
            continue;
        for (size_t l = 1; l < c->nlabels; l++) {
            const struct nf_cmp_cell *x = &b->cells[l];
            fprintf(out, "<li><span class=\"badge %s\">%s</span> <b>", verdict_class(x),
                    verdict_of(x));
            nf_esc(out, c->labels[l]);
            fputs("</b> vs <b>", out);
            nf_esc(out, c->labels[0]);
            fputs("</b> on ", out);
            nf_esc(out, b->name);
            fputc(' ', out);
            nf_html_metric_name(out, b);
            fputs(": ", out);
            if (!x->compared) {
                /* the side(s) without data, in the table's words */
                const struct nf_cmp_cell *base = &b->cells[0];
                int ns = (x->unsupported && !x->not_counted) ||
                         (base->unsupported && !base->not_counted);
                int nc = x->not_counted || base->not_counted;
                fprintf(out, "not compared (%s%s%s)</li>\n",
                        ns   ? "&lt;not supported&gt;"
                        : nc ? ""
                             : "no data on one side",
                        ns && nc ? ", " : "", nc ? "&lt;not counted&gt;" : "");
                continue;
            }
            /* the means' change, as the table; a paired row's change of
             * the pairs, which its CI is of; the CI as the table's cell */
            change_words(out, nf_compare_means_better_pct(b, x));
            if (nf_compare_paired_change(x)) {
                fputs(", paired change ", out);
                change_words(out, nf_compare_oriented_r(&x->r, x->r.change_pct, b->better));
            }
            if (isfinite(x->r.ci_low_pct) && isfinite(x->r.ci_high_pct)) {
                char ci[128];
                nf_compare_ci_cell(ci, sizeof(ci), c, b, x);
                fprintf(out, " (CI %s, + is better)", ci);
            }
            char settle[256];
            nf_settle_words(settle, sizeof(settle), &b->cells[0], x);
            if (x->verdict == NF_INCONCLUSIVE && x->advice.multimodal && x->advice_fix) {
                char who[160];
                nf_clusters_who(who, sizeof(who), c->labels[l], x);
                fputs("; ", out);
                nf_esc(out, who);
                fputs(" form clusters: ", out);
                nf_esc(out, x->advice_fix);
            } else if (settle[0]) {
                fprintf(out, "; %s", settle);
            }
            fputs("</li>\n", out);
        }
    }
    fprintf(out, "</ul>\n<p class=\"meta\">All %zu rows: ", rows);
    static const enum nf_verdict order[] = {NF_IMPROVED, NF_REGRESSED, NF_EQUIVALENT,
                                            NF_INCONCLUSIVE};
    for (size_t v = 0; v < 4; v++) {
        fprintf(out, "%s%zu %s", v ? ", " : "", count[order[v]], nf_verdict_name(order[v]));
        if (order[v] != NF_EQUIVALENT)
            name_rows(out, c, order[v], count[order[v]]);
    }
    if (none)
        fprintf(out, ", %zu not compared", none);
    fputs(".</p>\n</section>\n", out);
}

static void note(FILE *out, const char *text)
{
    fputs("<li>", out);
    nf_esc(out, text);
    fputs("</li>\n", out);
}

/* How many blocks have a note of this text (on any label's cell). */
static size_t note_blocks(const struct nf_comparison *c, const char *text)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nblocks; i++) {
        int has = 0;
        for (size_t l = 0; l < c->nlabels && !has; l++)
            for (size_t k = 0; k < c->blocks[i].cells[l].nnotes && !has; k++)
                has = strcmp(c->blocks[i].cells[l].notes[k], text) == 0;
        n += has;
    }
    return n;
}

/* Notes that several metrics share (a label's runs, its counters, its
 * machine): once, above the tables, instead of under each. */
static void shared_notes(FILE *out, const struct nf_comparison *c)
{
    int any = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 0; l < c->nlabels; l++)
            for (size_t k = 0; k < c->blocks[i].cells[l].nnotes; k++) {
                const char *t = c->blocks[i].cells[l].notes[k];
                if (note_blocks(c, t) < 2)
                    continue;
                /* the first occurrence only */
                int earlier = 0;
                for (size_t j = 0; j <= i && !earlier; j++)
                    for (size_t m = 0; m < c->nlabels && !earlier; m++)
                        for (size_t q = 0; q < c->blocks[j].cells[m].nnotes; q++) {
                            if (j == i && m == l && q == k)
                                break;
                            if (strcmp(c->blocks[j].cells[m].notes[q], t) == 0) {
                                earlier = 1;
                                break;
                            }
                        }
                if (earlier)
                    continue;
                if (!any++)
                    fputs("<h3>Notes on every metric</h3>\n<ul class=\"notes\">\n", out);
                note(out, t);
            }
    if (any)
        fputs("</ul>\n", out);
}

/* "*-2.95%*" for a significant change, "(-0.16%)" otherwise, "+inf" from a
 * baseline of 0; "-" without one. */
static void change_td(FILE *out, const struct nf_cmp_cell *x, double ch)
{
    char pct[32];
    if (!isfinite(ch) && !isinf(ch)) {
        fputs("<td class=\"num\">-</td>", out);
        return;
    }
    if (isinf(ch)) /* from a baseline of 0 */
        snprintf(pct, sizeof(pct), "%s", ch > 0 ? "+inf" : "-inf");
    else
        snprintf(pct, sizeof(pct), "%.2f", ch);
    if (x->significant)
        fprintf(out, "<td class=\"num sig\">*%s%%*</td>", pct);
    else
        fprintf(out, "<td class=\"num ns\">(%s%%)</td>", pct);
}

/* Is variant l of b compared pairwise (by round or host)? */
static int paired_cell(const struct nf_cmp_block *b, size_t l)
{
    return b->cells[l].compared && b->cells[l].pairing != NF_PAIR_NONE;
}

/* The columns of a block's table beside the means' change, as the text
 * table's rows: "Paired change" when a variant is paired (its change of
 * the pairs, which its CI, p and verdict are of), and the test's location
 * ("TrMean", a decile) with its change when an unpaired variant is tested
 * on one. */
struct cols {
    int paired;
    const char *loc;
};

static struct cols cols_of(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    struct cols k = {0, NULL};
    const char *loc = nf_diag_location_name(c);
    for (size_t l = 1; l < c->nlabels; l++) {
        k.paired |= nf_compare_paired_change(&b->cells[l]);
        if (loc && !paired_cell(b, l))
            k.loc = loc;
    }
    return k;
}

static void block_table(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                        size_t bi)
{
    char num[64], sd[64], cell[128];
    struct cols k = cols_of(c, b);
    fprintf(out, "<h3 id=\"cmp-%zu\">", bi);
    nf_esc(out, b->name);
    fputs(" &#8212; ", out);
    nf_html_metric_name(out, b);
    fprintf(out, " <span class=\"dir\">(%s is better%s)</span></h3>\n", nf_better_name(b->better),
            b->primary ? ", primary" : "");
    fprintf(out,
            "<table class=\"cmp\">\n<thead><tr><th class=\"l\">label</th><th>N</th><th>%s</th>"
            "<th>change</th>",
            b->rate ? "Hmean" : "Amean");
    if (k.loc)
        fprintf(out, "<th>%s</th><th>%s change</th>", k.loc, k.loc);
    if (k.paired)
        fputs("<th>Paired change</th>", out);
    fputs("<th>CI</th><th>p raw / Holm</th><th>Stddev</th><th>CoeffVar</th>"
          "<th class=\"l\">verdict</th></tr></thead>\n<tbody>\n",
          out);
    int extra = (k.loc ? 2 : 0) + k.paired;
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct nf_cmp_cell *x = &b->cells[l];
        const char *v = l == 0 ? "baseline" : verdict_of(x);
        const char *vc = l == 0 ? "baseline" : verdict_class(x);
        fprintf(out, "<tr class=\"%s%s\"><td class=\"l\">", l == 0 ? "" : "v-",
                l == 0 ? "base" : vc);
        nf_esc(out, c->labels[l]);
        fputs("</td>", out);
        if (!x->has_data) {
            fprintf(out,
                    "<td colspan=\"%d\" class=\"l ns\">%s</td><td class=\"l\">"
                    "<span class=\"badge %s\">%s</span></td></tr>\n",
                    7 + extra, no_data_word(x), vc, v);
            continue;
        }
        fprintf(out, "<td class=\"num\">%zu%s</td>", nf_compare_cell_n(x),
                !x->run_means ? ""
                : x->n == 1   ? " run"
                              : " runs");
        nf_compare_fmt_num(num, sizeof(num), x->mean);
        fprintf(out, "<td class=\"num\">%s</td>", num);
        /* the change of the means shown, as mmtests and the text table;
         * none where the test's location row has the change (the text's
         * plain Amean above its TrMean) */
        if (k.loc && (l == 0 || !paired_cell(b, l)))
            fputs("<td></td>", out);
        else if (l == 0)
            fputs("<td class=\"num ns\">0.00%</td>", out);
        else if (!x->compared)
            fputs("<td class=\"num\">-</td>", out);
        else
            change_td(out, x, nf_compare_means_better_pct(b, x));
        if (k.loc) { /* the test's location and its change */
            int here = l == 0 || !paired_cell(b, l);
            double at = l && here && x->compared ? x->r.mean : NAN;
            for (size_t j = 1; l == 0 && j < c->nlabels && !isfinite(at); j++)
                if (b->cells[j].compared && !paired_cell(b, j))
                    at = b->cells[j].r.base_mean; /* the baseline's, from an unpaired row */
            nf_compare_fmt_num(num, sizeof(num), at);
            fprintf(out, "<td class=\"num\">%s</td>", isfinite(at) ? num : "-");
            if (l == 0)
                fputs("<td class=\"num ns\">0.00%</td>", out);
            else if (here && x->compared)
                change_td(out, x, nf_compare_oriented_r(&x->r, x->r.change_pct, b->better));
            else
                fputs("<td></td>", out);
        }
        if (k.paired) { /* the change of the pairs (their log-ratios) */
            if (l > 0 && nf_compare_paired_change(x))
                change_td(out, x, nf_compare_oriented_r(&x->r, x->r.change_pct, b->better));
            else
                fputs("<td></td>", out);
        }
        if (l == 0) {
            fputs("<td></td><td></td>", out);
        } else {
            nf_compare_ci_cell(cell, sizeof(cell), c, b, x);
            fprintf(out, "<td class=\"num\">%s</td>", cell);
            nf_compare_p_cell(cell, sizeof(cell), x);
            fprintf(out, "<td class=\"num\">%s</td>", cell);
        }
        int spread = nf_compare_cell_spread(x); /* one value has none */
        nf_compare_fmt_num(sd, sizeof(sd), spread ? x->s.stddev : NAN);
        fprintf(out, "<td class=\"num\">%s</td>", sd);
        if (spread && isfinite(nf_summary_cv(&x->s, b->rate))) /* of the Hmean for a rate */
            fprintf(out, "<td class=\"num\">%.2f%%</td>", nf_summary_cv(&x->s, b->rate));
        else
            fputs("<td class=\"num\">-</td>", out);
        fprintf(out, "<td class=\"l\"><span class=\"badge %s\">%s</span>", vc, v);
        size_t have;
        int beyond;
        /* as compare --brief says it; the note below says it in full */
        if (l > 0 && nf_settle(&b->cells[0], x, &have, &beyond) && beyond)
            fprintf(out, " <span class=\"ns\">(run &gt;%d&#215; more)</span>", NF_SETTLE_MAX);
        else if (l > 0 && nf_settle(&b->cells[0], x, &have, &beyond))
            fprintf(out, " <span class=\"ns\">(run %zu more)</span>", x->runs_needed - have);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);

    char **settle = nf_xcalloc(c->nlabels, sizeof(*settle));
    size_t nnotes = 0;
    for (size_t l = 0; l < c->nlabels; l++) {
        settle[l] = l ? nf_diag_settle_line(c->labels[l], &b->cells[0], &b->cells[l]) : NULL;
        nnotes += !b->cells[l].has_data + (settle[l] != NULL);
        for (size_t k = 0; k < b->cells[l].nnotes; k++)
            nnotes += note_blocks(c, b->cells[l].notes[k]) < 2;
    }
    if (!nnotes) {
        free(settle);
        return;
    }
    fputs("<ul class=\"notes\">\n", out);
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct nf_cmp_cell *x = &b->cells[l];
        if (!x->has_data) {
            fputs("<li>", out);
            nf_esc(out, c->labels[l]);
            fputs(x->not_counted ? ": &lt;not counted&gt; (the event was opened but did not "
                                   "count, as the runs' note says)</li>\n"
                  : x->unsupported
                      ? ": &lt;not supported&gt; (the event could not be counted)</li>\n"
                      : ": no data for this metric</li>\n",
                  out);
        }
        for (size_t k = 0; k < x->nnotes; k++)
            if (note_blocks(c, x->notes[k]) < 2) /* else above, once */
                note(out, x->notes[k]);
    }
    for (size_t l = 1; l < c->nlabels; l++) {
        if (settle[l])
            note(out, settle[l]);
        free(settle[l]);
    }
    free(settle);
    fputs("</ul>\n", out);
}

void nf_html_report(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in,
                    const struct nf_html_meta *meta)
{
    const char *metric = meta ? meta->metric : NULL;
    header(out, c, meta);
    summary(out, c, metric);
    fputs(
        "<section id=\"compare\">\n<h2>1. Comparison</h2>\n<p class=\"meta\">Changes with + as "
        "better (a rise of a lower-is-better metric is negative); <b>*x%*</b> marks a significant "
        "change. The change beside a mean is that of the means shown; a row paired by ab round "
        "or host has its own <b>Paired change</b> (of the per-round or per-host log-ratios), "
        "which its CI, p and verdict are of. A CI is at 1&#8722;alpha unless it says its level "
        "(&#8220;at 99.17%&#8221;: an ab session&#8217;s repeated CI); p raw and after "
        "Holm&#8217;s correction within its family (the header says which rows; &#8220;-&#8221; "
        "for a row in none).</p>\n",
        out);
    shared_notes(out, c);
    for (size_t i = 0; i < c->nblocks; i++) {
        block_table(out, c, &c->blocks[i], i);
        nf_html_diag(out, c, &c->blocks[i]);
    }
    fputs("</section>\n", out);
    nf_html_plots(out, c, in, metric);
    nf_html_activity(out, c, in, metric);
    nf_html_env(out, c, in);
    fprintf(out,
            "<footer>Generated by noisefloor %s. Self-contained: no scripts, no external "
            "resources.</footer>\n</body>\n</html>\n",
            nf_version);
}
