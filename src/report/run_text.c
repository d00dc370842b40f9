#include "report/run_text.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "core/util.h"
#include "stats/summary.h"

double nf_report_mean_ci(const double *x, size_t n, double alpha)
{
    struct nf_summary s;
    if (n < 2 || nf_summarize(x, n, &s))
        return NAN;
    return gsl_cdf_tdist_Pinv(1 - alpha / 2, (double)(n - 1)) * s.stddev / sqrt((double)n);
}

static void print_metric(FILE *out, const struct nf_metric *m)
{
    char name[96];
    snprintf(name, sizeof(name), "%s%s%s", m->unit[0] && strcmp(m->unit, m->name) ? m->unit : "",
             m->unit[0] && strcmp(m->unit, m->name) ? " " : "", m->name);
    if (!m->supported) {
        fprintf(out, "  %18s  %-28s\n", "<not supported>", name);
        return;
    }
    struct nf_summary s;
    if (nf_summarize(m->values, m->n, &s) != 0) {
        fprintf(out, "  %18s  %-28s\n", "<not counted>", name);
        return;
    }
    int rate = nf_metric_is_rate(m) && isfinite(s.hmean);
    double mean = rate ? s.hmean : s.mean;
    char sem[16] = "   -  ", cv[16] = "   -  ";
    if (isfinite(s.sem_pct))
        snprintf(sem, sizeof(sem), "%5.2f%%", s.sem_pct);
    if (isfinite(s.cv_pct))
        snprintf(cv, sizeof(cv), "%5.2f%%", s.cv_pct);
    /* About six significant digits, as perf stat's columns read. */
    int prec = mean != 0 ? 5 - (int)floor(log10(fabs(mean))) : 4;
    prec = prec < 0 ? 0 : prec > 9 ? 9 : prec;
    fprintf(out, "  %18.*f  %-28s ( +- %s )  sd %-10.4g cv %s  min %-10.6g max %-10.6g%s", prec,
            mean, name, sem, s.stddev, cv, s.min, s.max, rate ? "  (hmean)" : "");
    double lo = nf_metric_min_running(m);
    if (lo < 100.0)
        fprintf(out, "  (%.2f%%)", lo);
    fputc('\n', out);
}

void nf_report_run_text(FILE *out, const struct nf_run *run)
{
    fprintf(out, "\n Summary of '%s", run->workload);
    for (size_t i = 0; i < run->nargs; i++)
        fprintf(out, " %s", run->args[i]);
    size_t n = 0;
    for (size_t i = 0; i < run->nmetrics; i++)
        if (run->metrics[i].n > n)
            n = run->metrics[i].n;
    fprintf(out, "' (label %s, %zu repetition%s, %d warm-up", run->label, n, n == 1 ? "" : "s",
            run->warmup);
    if (run->id)
        fprintf(out, ", run %lld", (long long)run->id);
    if (run->state != NF_RUN_COMPLETE)
        fprintf(out, ", %s", nf_run_status_name(run->state));
    fputs("):\n\n", out);
    for (size_t i = 0; i < run->nmetrics; i++)
        print_metric(out, &run->metrics[i]);
    fputs("\n  ( +- x% ) is the standard error of the mean, as perf stat prints it.\n\n", out);
}

void nf_progress_start(struct nf_progress *p, int enabled)
{
    p->enabled = enabled;
    p->t0_ns = nf_now_ns();
}

void nf_progress_line(struct nf_progress *p, const char *line)
{
    if (!p->enabled)
        return;
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

void nf_progress_update(struct nf_progress *p, const char *what, int i, int n,
                        const struct nf_metric *m)
{
    if (!p->enabled)
        return;
    char line[256];
    double el = (double)(nf_now_ns() - p->t0_ns) / 1e9;
    int len = snprintf(line, sizeof(line), "%s %d/%d  %.1fs", what, i, n, el);
    if (m && m->n) {
        struct nf_summary s;
        nf_summarize(m->values, m->n, &s);
        double ci = nf_report_mean_ci(m->values, m->n, 0.05);
        if (isfinite(ci))
            snprintf(line + len, sizeof(line) - (size_t)len, "  %s %.4g ± %.2g (95%% CI)", m->name,
                     s.mean, ci);
        else
            snprintf(line + len, sizeof(line) - (size_t)len, "  %s %.4g", m->name, s.mean);
    }
    nf_progress_line(p, line);
}

void nf_progress_done(struct nf_progress *p)
{
    if (!p->enabled)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
}
