/* Section 3b of the HTML report: for each plotted metric and label, the
 * metric per repetition with what the machine did beside it (the machine
 * metrics of each repetition, core/metric.h): other tasks' time and run
 * delay, interrupts and the softirq kinds that counted. */
#include <math.h>
#include <string.h>

#include "core/util.h"
#include "report/fmt.h"
#include "report/html_int.h"
#include "report/svg.h"

#define MAX_ROWS 200 /* repetitions shown per label */

static const char *const cols[] = {"cpu.other-busy",     "sched.run-delay",   "cpu.irq",
                                   "cpu.softirq.NET_RX", "cpu.softirq.TIMER", "cpu.steal"};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static void label_table(FILE *out, const struct nf_cmp_block *b, const struct nf_label_runs *lr)
{
    int any = 0;
    for (size_t r = 0; r < lr->nruns && !any; r++) {
        const struct nf_metric *m = nf_run_find(lr->runs[r], "cpu.other-busy");
        any = m && m->supported && m->n && strcmp(lr->runs[r]->workload, b->workload) == 0;
    }
    if (!any)
        return;
    fputs("<h4>", out);
    nf_esc(out, lr->label);
    fputs("</h4>\n<table class=\"t\"><tr><th>run</th><th>repetition</th><th>", out);
    nf_esc(out, b->metric);
    fputs("</th>", out);
    for (size_t k = 0; k < NCOLS; k++) {
        fputs("<th>", out);
        nf_esc(out, cols[k]);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    size_t shown = 0, total = 0;
    for (size_t r = 0; r < lr->nruns; r++) {
        struct nf_run *run = lr->runs[r];
        const struct nf_metric *m = nf_run_find(run, b->metric);
        if (!m || !m->supported || strcmp(run->workload, b->workload) != 0)
            continue;
        for (size_t i = 0; i < m->n; i++, total++) {
            if (shown == MAX_ROWS)
                continue;
            shown++;
            fprintf(out, "<tr><td>%lld</td><td>%zu</td><td>%.6g</td>", (long long)run->id, i + 1,
                    m->values[i]);
            for (size_t k = 0; k < NCOLS; k++) {
                const struct nf_metric *a = nf_run_find(run, cols[k]);
                if (a && a->supported && i < a->n)
                    fprintf(out, "<td>%.4g</td>", a->values[i]);
                else
                    fputs("<td class=\"ns\">&#8212;</td>", out);
            }
            fputs("</tr>\n", out);
        }
    }
    fputs("</table>\n", out);
    if (total > shown)
        fprintf(out, "<p class=\"meta\">The first %zu of %zu repetitions.</p>\n", shown, total);
}

void nf_html_activity(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in,
                      const char *metric)
{
    int opened = 0;
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *b = &c->blocks[i];
        /* the primary metric's block (or the one -m names), not every
         * plotted one: the readings are the same for each metric of a run */
        if (!nf_html_plotted(c, i, metric) || !(metric || b->primary) ||
            nf_metric_is_machine(b->metric))
            continue;
        if (!opened) {
            fputs("<section id=\"activity\">\n<h2>Activity per repetition</h2>\n<p "
                  "class=\"meta\">What the machine did during each repetition, read around it "
                  "(ms of other tasks on its CPUs and of its own run delay; counts of interrupts "
                  "and softirqs): a coincidence to look at beside the value, not a cause.</p>\n",
                  out);
            opened = 1;
        }
        fprintf(out, "<h3>");
        nf_esc(out, b->name);
        fputs(" &#8212; ", out);
        nf_html_metric_name(out, b);
        fputs("</h3>\n", out);
        for (size_t l = 0; l < c->nlabels; l++)
            label_table(out, b, &in[l]);
    }
    if (opened)
        fputs("</section>\n", out);
}
