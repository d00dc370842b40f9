#include "measure/progress.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/defaults.h"
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

/* Bytes of line that fit in cols columns (UTF-8: a character is a column):
 * a line that wraps cannot be redrawn in place. */
static size_t fit(const char *line, int cols)
{
    size_t i = 0;
    int c = 0;
    for (; line[i]; i++)
        if (((unsigned char)line[i] & 0xC0) != 0x80 && ++c > cols)
            break;
    return i;
}

void nf_progress_line(struct nf_progress *p, const char *line)
{
    if (!p->enabled)
        return;
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 1000;
    fprintf(stderr, "\r\033[K%.*s", (int)fit(line, cols), line);
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
        double ci = mean_ci(m->values, m->n, NF_DEFAULT_ALPHA); /* the 95% shown */
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
