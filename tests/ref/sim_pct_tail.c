/* sim_pct_tail.c — simulate how often an A/A `ab` session deciding on a
 * latency percentile ends improved or regressed, by the number of events
 * per repetition beyond the percentile, with the plain design and with a
 * percentile's sign floor (nf_pct_seq_replay, src/analysis/percentile.h;
 * doc/ab.md, "A percentile decides only where its rounds' signs could").
 *
 * Not part of the build or of make check.  Run once from the repository
 * root after `make`:
 *
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Isrc tests/ref/sim_pct_tail.c build/libnf.a \
 *      $(pkg-config --libs gsl jansson) -lm -o /tmp/sim && /tmp/sim
 *
 * A repetition has E events.  Its fast events are lognormal (median 60 us,
 * sigma 0.5: a p99 near 200 us, as an idle machine's wakeups); each event
 * is slow with probability eps, then log-uniform in 2-20 ms (a busy loop
 * on its CPU holding it for a time slice).  Its pN is the nearest-rank
 * percentile of its events (as stats/hist.h, without the buckets), drawn
 * exactly as an order statistic.  k = E (1 - N/100) events lie beyond pN.
 * Three loads:
 *   - "edge": eps = k / E: as many slow events as the tail holds, the
 *     worst case, where pN is the fast tail in some repetitions and a slow
 *     event in others;
 *   - "per-rep load": eps log-uniform in [0.1%, 10%], drawn per repetition
 *     (a load that comes and goes);
 *   - "steady load": the same drawn once per session (a busy loop that
 *     stays).
 * And "normal": log-values N(0, 0.3^2), the design's own case.  Each
 * session is the real design and decision (nf_seq_design_init, then
 * nf_seq_replay or nf_pct_seq_replay after every round, as ab's stop rule
 * does; paired t on per-round log-ratios, threshold 1%) with both
 * variants drawn alike (A/A): the share of sessions that end improved or
 * regressed, against alpha.  "power": the variant's fast events 3x as slow
 * and 8x as many slow events (a hog beside it), under the steady load.
 *
 * gsl_rng_mt19937 seed 20261201, 10,000 sessions per cell.  Its output is
 * quoted in doc/ab.md. */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/percentile.h"
#include "stats/sequential.h"

#define SESSIONS 10000
/* One repetition's pN (nearest rank): the j-th largest of its E events,
 * j = E - rank + 1, drawn exactly without drawing the events: S slow ones
 * (binomial), and the j-th largest of S (or of the E - S fast ones) is a
 * beta order statistic of uniforms; fast events scaled by fast_scale. */
static double rep(gsl_rng *r, size_t e, double pct, double eps, double fast_scale)
{
    size_t rank = (size_t)ceil(pct / 100 * (double)e - 1e-9);
    rank = rank ? rank : 1;
    unsigned j = (unsigned)(e - rank + 1);
    unsigned s = gsl_ran_binomial(r, eps, (unsigned)e);
    if (s >= j)
        return 2000 * pow(10, gsl_ran_beta(r, s - j + 1, j));
    unsigned nf = (unsigned)e - s, jj = j - s;
    double u = gsl_ran_beta(r, nf - jj + 1, jj);
    return fast_scale * 60 * exp(0.5 * gsl_cdf_ugaussian_Pinv(u));
}

/* The slow share of a repetition's events: load 0 the edge (k / E), 1
 * drawn per repetition, 2 the session's (drawn once per session). */
static double eps_of(gsl_rng *r, int load, double k, size_t e, double session)
{
    return load == 0 ? k / (double)e : load == 1 ? 0.001 * pow(100, gsl_rng_uniform(r)) : session;
}

/* The plain design's decision (nf_seq_replay), or a percentile's
 * (nf_pct_seq_replay: the sign floor), after n rounds. */
static void replay(const struct nf_seq_design *d, const double *base, const double *var, size_t n,
                   int floor, struct nf_seq_look *out)
{
    size_t held;
    if (floor)
        nf_pct_seq_replay(d, base, var, n, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, out, &held);
    else
        nf_seq_replay(d, base, var, n, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, out);
}

/* The share of sessions that end improved or regressed. */
static double verdicts(gsl_rng *r, const struct nf_seq_design *d, size_t e, double pct, int load,
                       double var_scale, double var_eps_mult, int floor)
{
    double k = (double)e * (100 - pct) / 100;
    size_t hits = 0;
    double base[64], var[64];
    for (int s = 0; s < SESSIONS; s++) {
        struct nf_seq_look l;
        size_t n = 0;
        double se = 0.001 * pow(100, gsl_rng_uniform(r));
        for (;;) {
            if (load == 3) { /* normal log-values: the design's own rate */
                base[n] = exp(0.3 * gsl_ran_ugaussian(r));
                var[n] = exp(0.3 * gsl_ran_ugaussian(r));
            } else {
                base[n] = rep(r, e, pct, eps_of(r, load, k, e, se), 1);
                var[n] =
                    rep(r, e, pct, fmin(1, var_eps_mult * eps_of(r, load, k, e, se)), var_scale);
            }
            n++;
            if (n < d->o.min_rounds)
                continue;
            replay(d, base, var, n, floor, &l);
            if (l.action != NF_SEQ_CONTINUE || n >= d->o.max_rounds)
                break;
        }
        hits += l.verdict == NF_IMPROVED || l.verdict == NF_REGRESSED;
    }
    return (double)hits / SESSIONS;
}

int main(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261201);
    static const double ks[] = {1, 3, 10, 50};
    static const struct {
        size_t lo, hi;
        double alpha;
    } designs[] = {{3, 5, 0.001}, {3, 5, 0.05}, {3, 12, 0.05}};
    const double pct = 99;
    for (int fl = 0; fl <= 1; fl++)
        for (size_t di = 0; di < sizeof(designs) / sizeof(designs[0]); di++) {
            struct nf_seq_opts o = {designs[di].lo, designs[di].hi, designs[di].alpha, 1};
            struct nf_seq_design d;
            if (nf_seq_design_init(&d, &o))
                return 1;
            double normal = verdicts(r, &d, 100, pct, 3, 1, 1, fl);
            for (size_t k = 0; k < d.nlooks; k++)
                printf("%s round %zu level %.3g", k ? "," : "looks:", d.rounds[k],
                       d.level_effect[k]);
            printf("\n%s", fl ? "sign-flip floor: " : "plain design: ");
            printf(
                "rounds %zu:%zu alpha %g, p%g: false verdicts of A/A sessions (normal log-values: "
                "%.4f, %.1fx alpha); power\n",
                designs[di].lo, designs[di].hi, designs[di].alpha, pct, normal, normal / o.alpha);
            for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
                size_t e = (size_t)llround(ks[i] * 100 / (100 - pct));
                double edge = verdicts(r, &d, e, pct, 0, 1, 1, fl);
                double ld = verdicts(r, &d, e, pct, 1, 1, 1, fl);
                double st = verdicts(r, &d, e, pct, 2, 1, 1, fl);
                double pw = verdicts(r, &d, e, pct, 2, 3, 8, fl);
                printf(
                    "  k %4g (E %5zu): edge %.4f (%4.1fx)  per-rep load %.4f (%4.1fx)  steady load "
                    "%.4f (%4.1fx)  power %.3f\n",
                    ks[i], e, edge, edge / o.alpha, ld, ld / o.alpha, st, st / o.alpha, pw);
                fflush(stdout);
            }
        }
    gsl_rng_free(r);
    return 0;
}
