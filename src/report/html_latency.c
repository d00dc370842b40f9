/* The HTML report's latency distributions: for each percentile family a
 * comparison shows (wakeup-p50 .. wakeup-max), the CDF of every event of
 * each label, from the histogram buckets its runs stored per repetition
 * (core/run.h), pooled over the repetitions and runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pct_family.h"
#include "core/util.h"
#include "report/html_int.h"
#include "report/svg.h"
#include "stats/hist.h"

/* One label's buckets pooled: ascending, the counts of equal buckets
 * summed; values in microseconds. */
struct pooled {
    double *lo, *hi, *count;
    size_t n;
    size_t reps, runs;
    double events;
};

static int cmp_bucket(const void *a, const void *b)
{
    const struct nf_bucket *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void pool(const struct nf_label_runs *lr, const struct nf_cmp_block *blk, const char *name,
                 struct pooled *p)
{
    memset(p, 0, sizeof(*p));
    size_t total = 0;
    for (size_t r = 0; r < lr->nruns; r++) {
        const struct nf_run_hist *h =
            nf_cmp_block_has(blk, lr->runs[r]) ? nf_run_hist_find(lr->runs[r], name) : NULL;
        for (size_t k = 0; h && k < h->nreps; k++)
            total += h->reps[k].n;
    }
    if (!total)
        return;
    struct nf_bucket *all = nf_xcalloc(total, sizeof(*all));
    size_t n = 0;
    for (size_t r = 0; r < lr->nruns; r++) {
        const struct nf_run_hist *h =
            nf_cmp_block_has(blk, lr->runs[r]) ? nf_run_hist_find(lr->runs[r], name) : NULL;
        if (!h)
            continue;
        p->runs++;
        p->reps += h->nreps;
        for (size_t k = 0; k < h->nreps; k++) {
            memcpy(all + n, h->reps[k].b, h->reps[k].n * sizeof(*all));
            n += h->reps[k].n;
        }
    }
    qsort(all, n, sizeof(*all), cmp_bucket);
    p->lo = nf_xcalloc(n, sizeof(double));
    p->hi = nf_xcalloc(n, sizeof(double));
    p->count = nf_xcalloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        if (i && all[i].lo == all[i - 1].lo) {
            p->count[p->n - 1] += (double)all[i].count;
        } else {
            uint64_t lo, hi;
            nf_hist_bucket_bounds(nf_hist_index(all[i].lo), &lo, &hi);
            p->lo[p->n] = (double)all[i].lo * 1e-3;
            /* A bucket as stored starts a bucket of stats/hist.h; were
             * it not (an import), its values still end by this one's. */
            p->hi[p->n] = (double)(hi > all[i].lo ? hi : all[i].lo) * 1e-3;
            p->count[p->n++] = (double)all[i].count;
        }
        p->events += (double)all[i].count;
    }
    free(all);
}

static void release(struct pooled *p)
{
    free(p->lo);
    free(p->hi);
    free(p->count);
}

static void family(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in,
                   const struct nf_cmp_block *b, size_t bi)
{
    struct pooled *p = nf_xcalloc(c->nlabels, sizeof(*p));
    struct nf_svg_dist *d = nf_xcalloc(c->nlabels, sizeof(*d));
    size_t have = 0;
    for (size_t l = 0; l < c->nlabels; l++) {
        pool(&in[l], b, b->family, &p[l]);
        d[l] = (struct nf_svg_dist){c->labels[l], p[l].lo, p[l].hi, p[l].count, p[l].n};
        have += p[l].n > 0;
    }
    fprintf(out, "<h3 id=\"latency-%zu\">", bi);
    nf_esc(out, b->name);
    fputs(" &#8212; ", out);
    nf_esc(out, b->family);
    fputs(" latency distribution <span class=\"dir\">(further left is better)</span></h3>\n", out);
    if (!have) {
        fputs("<p class=\"ns\">No histogram is stored for these runs (runs measured before "
              "histograms were stored, or imported without them).</p>\n",
              out);
    } else {
        char *xl = nf_xasprintf("%s latency (usecs)", b->family);
        fputs("<figure>\n", out);
        nf_svg_cdf(out, d, c->nlabels, xl);
        fputs("<figcaption class=\"legend\">", out);
        for (size_t l = 0; l < c->nlabels; l++) {
            fprintf(out, "%s<span class=\"sw\" style=\"background:%s\"></span>", l ? " " : "",
                    nf_svg_color(l));
            nf_esc(out, c->labels[l]);
            if (p[l].n)
                fprintf(out, ": %.0f events, %zu repetition%s of %zu run%s", p[l].events, p[l].reps,
                        p[l].reps == 1 ? "" : "s", p[l].runs, p[l].runs == 1 ? "" : "s");
            else
                fputs(": no histogram stored", out);
        }
        fputs("</figcaption>\n<figcaption>Every event of every repetition of a label, pooled: "
              "the share of events at or below a latency (log scale). The vertical axis "
              "stretches the tail, so 90%, 99% and 99.9% are one step apart and a line ends at "
              "the label&#8217;s maximum; a line further right is slower. From the histogram "
              "each repetition stored (buckets within 0.39% of their values).</figcaption>\n"
              "</figure>\n",
              out);
        free(xl);
    }
    for (size_t l = 0; l < c->nlabels; l++)
        release(&p[l]);
    free(p);
    free(d);
}

void nf_html_latency(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in)
{
    for (size_t i = 0; i < c->nblocks; i++)
        if (c->blocks[i].family && nf_pct_group_leader(c, i))
            family(out, c, in, &c->blocks[i], i);
}
