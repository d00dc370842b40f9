/* noisefloor list: one line per stored run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "stats/summary.h"

const struct nf_opts nf_cmd_list_opts = {
    .usage = "noisefloor list [OPTIONS]",
    .about = "One line per stored run: id, label, workload and its arguments, when it\n"
             "started (UTC), repetitions, the primary metric's mean +- CV, and status.\n"
             "A run whose process died before it finished shows as 'incomplete'; a job's\n"
             "run of an attempt that a later attempt took over, or that gave its job back,\n"
             "as 'superseded' (compare and report leave those out).",
    .options = (const struct nf_option[]){NF_OPT_INCLUDE(&nf_cmd_selection_options, 0), NF_OPT_END},
};

static size_t run_reps(const struct nf_run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nmetrics; i++)
        if (r->metrics[i].n > n)
            n = r->metrics[i].n;
    return n;
}

static void primary_text(struct nf_run *r, char *buf, size_t len)
{
    struct nf_metric *m = nf_run_primary(r);
    struct nf_summary s;
    if (!m || !m->n || nf_summarize(m->values, m->n, &s)) {
        snprintf(buf, len, "-");
        return;
    }
    /* As run and compare summarise it: a rate by its harmonic mean, 0 when
     * a value is 0, none ("-") when one is below 0. */
    double mean = nf_summary_mean(&s, nf_metric_is_rate(m));
    if (!isfinite(mean))
        snprintf(buf, len, "- %s", m->name);
    else if (isfinite(nf_summary_cv(&s, nf_metric_is_rate(m))) && m->n > 1)
        snprintf(buf, len, "%.6g %s +- %.2f%%", mean, m->name,
                 nf_summary_cv(&s, nf_metric_is_rate(m)));
    else
        snprintf(buf, len, "%.6g %s", mean, m->name);
    nf_printable(buf); /* a metric's name as an import gave it */
}

#define COL_MAX 40

/* s into a column of at most COL_MAX characters. */
static void fit(char *out, const char *s)
{
    size_t len = strlen(s);
    if (len <= COL_MAX) {
        memcpy(out, s, len + 1);
    } else {
        memcpy(out, s, COL_MAX - 3);
        memcpy(out + COL_MAX - 3, "...", 4);
    }
    nf_printable(out); /* a command's argument may hold a newline or an escape */
}

int cmd_list(int argc, char **argv)
{
    struct nf_cmd_selection sel = {.workload = NULL};
    int first, rc;
    if (nf_cmd_parse("list", &nf_cmd_list_opts, &sel, argc, argv, &first, &rc)) {
        nf_optlist_free(&sel.labels); /* the -L given before a bad word */
        return rc;
    }
    struct nf_run **runs;
    size_t n;
    rc = nf_cmd_selected_runs("list", &sel, 0, argc, argv, first, &runs, &n);
    /* Columns as wide as their widest entry, so long labels and arguments
     * keep the table aligned.  Labels are printed whole (they are what
     * compare takes); a workload's words beyond COL_MAX end in "...". */
    char(*wl)[COL_MAX + 1] = nf_xcalloc(n ? n : 1, sizeof(*wl));
    int wlw = (int)strlen("WORKLOAD"), labw = (int)strlen("LABEL");
    for (size_t i = 0; i < n; i++) {
        char full[1024];
        size_t k = (size_t)snprintf(full, sizeof(full), "%s", runs[i]->workload);
        for (size_t a = 0; a < runs[i]->nargs && k < sizeof(full); a++)
            k += (size_t)snprintf(full + k, sizeof(full) - k, " %s", runs[i]->args[a]);
        fit(wl[i], full);
        if ((int)strlen(wl[i]) > wlw)
            wlw = (int)strlen(wl[i]);
        if ((int)strlen(runs[i]->label) > labw)
            labw = (int)strlen(runs[i]->label);
    }
    if (rc == 0 && n)
        printf("%5s  %-*s  %-*s  %-20s  %5s  %-36s  %s\n", "ID", labw, "LABEL", wlw, "WORKLOAD",
               "STARTED", "N", "PRIMARY (mean +- CV)", "STATUS");
    for (size_t i = 0; i < n; i++) {
        struct nf_run *r = runs[i];
        char prim[128];
        primary_text(r, prim, sizeof(prim));
        char *label = nf_xprintable(r->label), *started = nf_xprintable(r->started);
        printf("%5lld  %-*s  %-*s  %-20s  %5zu  %-36s  %s\n", (long long)r->id, labw, label, wlw,
               wl[i], started, run_reps(r), prim, nf_run_status_name(r->state));
        free(label);
        free(started);
    }
    free(wl);
    nf_runs_free(runs, n);
    nf_optlist_free(&sel.labels);
    return rc;
}
