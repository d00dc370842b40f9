#include "measure/progress.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>

#include "core/util.h"
#include "stats/summary.h"

/* Half-width of the 1-alpha t confidence interval of the mean of x. */
static double mean_ci(const double *x, size_t n, double alpha)
{
    struct nf_summary s;
    if (n < 2 || nf_summarize(x, n, &s))
        return NAN;
    return gsl_cdf_tdist_Pinv(1 - alpha / 2, (double)(n - 1)) * s.stddev / sqrt((double)n);
}

void nf_progress_start(struct nf_progress *p, int enabled)
{
    p->enabled = enabled;
    p->t0_ns = nf_now_ns();
}

double nf_progress_elapsed(const struct nf_progress *p)
{
    return (double)(nf_now_ns() - p->t0_ns) / 1e9;
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
    int len = snprintf(line, sizeof(line), "%s %d/%d  %.1fs", what, i, n, nf_progress_elapsed(p));
    if (m && m->n) {
        struct nf_summary s;
        nf_summarize(m->values, m->n, &s);
        double ci = mean_ci(m->values, m->n, 0.05);
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
