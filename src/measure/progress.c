#include "measure/progress.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/util.h"
#include "stats/summary.h"

/* The line a wait redraws: one session draws at a time, and only on its
 * own stderr. */
static struct nf_progress *live;

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
    memset(p, 0, sizeof(*p));
    p->enabled = enabled;
    p->t0_ns = p->last_ns = nf_now_ns();
    if (enabled)
        live = p;
}

double nf_progress_elapsed(const struct nf_progress *p)
{
    return (double)(nf_now_ns() - p->t0_ns) / 1e9;
}

void nf_progress_clock(char *buf, size_t len, double s)
{
    long t = s > 0 && s < 1e9 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* Seconds one more repetition is expected to take: the mean of the
 * measured ones, else of the warm-ups, else the plan's; 0 unknown. */
static double per_rep(const struct nf_progress *p)
{
    if (p->nrec)
        return p->rec_s / (double)p->nrec;
    if (p->nwarm)
        return p->warm_s / (double)p->nwarm;
    return p->expect_s;
}

/* Seconds left, or -1 when there is nothing to go by. */
static double eta(const struct nf_progress *p)
{
    double r = per_rep(p);
    if (!(r > 0) || p->planned <= 0)
        return -1;
    long left = p->planned - p->done;
    if (left < 0)
        left = 0;
    double end = (double)(p->last_ns - p->t0_ns) / 1e9 + (double)left * r;
    double now = nf_progress_elapsed(p);
    return end > now ? end - now : 0;
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

static void draw(struct nf_progress *p)
{
    char line[sizeof(p->line) + 128];
    if (p->head[0]) {
        int len = snprintf(line, sizeof(line), "%s %d/%d  %.1fs", p->head, p->i, p->n,
                           nf_progress_elapsed(p));
        double left = eta(p);
        if (left >= 0 && len > 0 && (size_t)len < sizeof(line)) {
            char c[32];
            nf_progress_clock(c, sizeof(c), left);
            len += snprintf(line + len, sizeof(line) - (size_t)len, "  ETA %s", c);
        }
        if (p->tail[0] && len > 0 && (size_t)len < sizeof(line))
            snprintf(line + len, sizeof(line) - (size_t)len, "  %s", p->tail);
    } else {
        snprintf(line, sizeof(line), "%s", p->line);
    }
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 1000;
    fprintf(stderr, "\r\033[K%.*s", (int)fit(line, cols), line);
    fflush(stderr);
}

void nf_progress_plan(struct nf_progress *p, long reps, double expect_s)
{
    p->planned = reps;
    p->expect_s = expect_s > 0 ? expect_s : 0;
    if (!p->enabled || !(p->expect_s > 0) || reps <= 0)
        return;
    char c[32];
    nf_progress_clock(c, sizeof(c), (double)reps * p->expect_s);
    snprintf(p->line, sizeof(p->line), "%ld repetition%s of about %.3gs: expected %s in all", reps,
             reps == 1 ? "" : "s", p->expect_s, c);
    p->head[0] = 0;
    draw(p);
}

void nf_progress_rep_done(struct nf_progress *p, int recorded)
{
    unsigned long long now = nf_now_ns();
    double s = (double)(now - p->last_ns) / 1e9;
    p->last_ns = now;
    p->done++;
    if (recorded) {
        p->nrec++;
        p->rec_s += s;
    } else {
        p->nwarm++;
        p->warm_s += s;
    }
}

void nf_progress_step(struct nf_progress *p, const char *what, int i, int n, const char *tail)
{
    if (!p->enabled)
        return;
    snprintf(p->head, sizeof(p->head), "%s", what);
    snprintf(p->tail, sizeof(p->tail), "%s", tail ? tail : "");
    p->i = i;
    p->n = n;
    draw(p);
}

void nf_progress_update(struct nf_progress *p, const char *what, int i, int n,
                        const struct nf_metric *m)
{
    if (!p->enabled)
        return;
    char tail[256] = "";
    if (m && m->n) {
        struct nf_summary s;
        nf_summarize(m->values, m->n, &s);
        double ci = mean_ci(m->values, m->n, 0.05);
        if (isfinite(ci))
            snprintf(tail, sizeof(tail), "%s %.4g ± %.2g (95%% CI)", m->name, s.mean, ci);
        else
            snprintf(tail, sizeof(tail), "%s %.4g", m->name, s.mean);
    }
    nf_progress_step(p, what, i, n, tail);
}

void nf_progress_line(struct nf_progress *p, const char *line)
{
    if (!p->enabled)
        return;
    snprintf(p->line, sizeof(p->line), "%s", line);
    p->head[0] = 0;
    draw(p);
}

void nf_progress_done(struct nf_progress *p)
{
    if (live == p)
        live = NULL;
    if (!p->enabled)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
}

double nf_progress_tick_interval(void)
{
    const struct nf_progress *p = live;
    if (!p || !p->enabled)
        return 0;
    double r = per_rep(p);
    /* Unknown (the first repetition of a command) or long: redraw. */
    return r > 0 && r < 1 ? 0 : 1;
}

void nf_progress_tick(void)
{
    if (live && live->enabled)
        draw(live);
}
