/* test_changepoint_sim.c — operating characteristics of the change-point
 * detection (src/stats/changepoint.c) on simulated series, through
 * nf_cp_detect with the default options.  doc/statistics.md ("Change
 * points: simulation") quotes the table.
 *
 * A series has 50–400 points (runs).  Step series: 0–3 steps of 1–8%
 * (either sign), every segment >= 10 points.  Drift series: no step, a
 * linear drift of 3–10% over the whole series.  Run noise: each point's
 * mean is level * (1 + N(0, cv)), cv 1–3%, and it carries 5 repetitions
 * of sd level * cv (the runs differ as much as the repetitions inside
 * them).  A quarter of all series have 2% outliers: points moved by 6–15
 * cv.  A detection within +-2 points of a true step finds it (one
 * detection per step).  Deterministic: gsl_rng_mt19937, fixed seed.
 *
 * make check runs 300 series (a deterministic subset, the same generator
 * and seed) and asserts the bars; NF_CP_SIM=full runs the 1,000 series of
 * the table and prints it, NF_CP_SIM=perm the same with the permutation
 * test (slow). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/changepoint.h"

enum { MAXN = 400, MAXSTEP = 3, NSIZE = 4, NCV = 2 };
static const double size_edge[NSIZE + 1] = {1, 2, 3, 5, 8.0001};

struct tally {
    /* recall by step size and CV bin */
    unsigned steps[NSIZE][NCV], found[NSIZE][NCV];
    /* precision over the series of the bar (CV <= 2%, every step >= 3%) */
    unsigned det_bar, good_bar;
    unsigned det_all, good_all;
    unsigned nostep, nostep_fp; /* step series without a step */
    unsigned drift, drift_named, drift_chain, drift_one, drift_none; /* drift series */
    unsigned outlier_true, outlier_found, outlier_false;
    double cpu;
};

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cv_bin(double cv)
{
    return cv <= 0.02 ? 0 : 1;
}

static int size_bin(double s)
{
    for (int b = 0; b < NSIZE; b++)
        if (s < size_edge[b + 1])
            return b;
    return NSIZE - 1;
}

/* One series and its score. */
static void one(gsl_rng *g, const struct nf_cp_opts *o, struct tally *t)
{
    static struct nf_cp_point pts[MAXN];
    static int is_out[MAXN];
    size_t n = 50 + gsl_rng_uniform_int(g, 351);
    int drift = gsl_rng_uniform(g) < 0.2, outliers = gsl_rng_uniform(g) < 0.25;
    double cv = 0.01 + 0.02 * gsl_rng_uniform(g);
    size_t nst = drift ? 0 : gsl_rng_uniform_int(g, MAXSTEP + 1), pos[MAXSTEP];
    double sz[MAXSTEP];
    /* step positions with every segment >= 10 points */
    for (;;) {
        for (size_t k = 0; k < nst; k++)
            pos[k] = 10 + gsl_rng_uniform_int(g, n - 19);
        for (size_t a = 1; a < nst; a++)
            for (size_t b = a; b > 0 && pos[b - 1] > pos[b]; b--) {
                size_t x = pos[b];
                pos[b] = pos[b - 1];
                pos[b - 1] = x;
            }
        int ok = 1;
        for (size_t k = 1; k < nst; k++)
            ok &= pos[k] - pos[k - 1] >= 10;
        if (ok)
            break;
    }
    for (size_t k = 0; k < nst; k++)
        sz[k] = (0.01 + 0.07 * gsl_rng_uniform(g)) * (gsl_rng_uniform(g) < 0.5 ? -1 : 1);
    double dtot =
        drift ? (0.03 + 0.07 * gsl_rng_uniform(g)) * (gsl_rng_uniform(g) < 0.5 ? -1 : 1) : 0;
    double level = 100;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k < nst && pos[k] == i)
            level *= 1 + sz[k++];
        double mu = level * (1 + dtot * (double)i / (double)(n - 1));
        pts[i].mean = mu * (1 + gsl_ran_gaussian(g, cv));
        pts[i].sd = mu * cv * sqrt(gsl_ran_chisq(g, 4) / 4);
        pts[i].n = 5;
        is_out[i] = 0;
        if (outliers && gsl_rng_uniform(g) < 0.02) {
            double m = (6 + 9 * gsl_rng_uniform(g)) * (gsl_rng_uniform(g) < 0.5 ? -1 : 1);
            pts[i].mean += mu * cv * m;
            is_out[i] = 1;
            t->outlier_true++;
        }
    }
    struct nf_cp_result r;
    char err[128];
    double c0 = cpu_now();
    assert_int_equal(nf_cp_detect(pts, n, o, &r, err, sizeof err), 0);
    t->cpu += cpu_now() - c0;
    for (size_t j = 0; j < r.noutlier; j++) {
        if (is_out[r.outlier[j]])
            t->outlier_found++;
        else
            t->outlier_false++;
    }
    static int serial;
    serial++;
    if (getenv("NF_CP_SIM_DUMP") && serial == atoi(getenv("NF_CP_SIM_DUMP"))) {
        FILE *f = fopen("/tmp/cpw/dump.txt", "w");
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%.17g %.17g %zu\n", pts[i].mean, pts[i].sd, pts[i].n);
        fclose(f);
    }
    if (drift) {
        t->drift++;
        if (r.ndrift && r.ncp == 0)
            t->drift_named++;
        else if (r.ncp >= 2)
            t->drift_chain++;
        else if (r.ncp == 1) {
            t->drift_one++;
            if (getenv("NF_CP_SIM_DEBUG"))
                printf("#%d drift1 nd %zu n %zu cv %.2f total %+.1f%% | cp %zu %+.2f%% p %.2g\n",
                       serial, r.ndrift, n, 100 * cv, 100 * dtot, r.cp[0].index, r.cp[0].change_pct,
                       r.cp[0].p);
        } else
            t->drift_none++;
        nf_cp_free(&r);
        return;
    }
    if (!nst) {
        t->nostep++;
        t->nostep_fp += r.ncp > 0;
    }
    int used[MAXN / 5 + 2] = {0};
    int bar = cv <= 0.02;
    for (size_t s = 0; s < nst; s++)
        bar &= fabs(sz[s]) >= 0.03;
    size_t good = 0;
    for (size_t s = 0; s < nst; s++) {
        int sb = size_bin(100 * fabs(sz[s])), cb = cv_bin(cv), hit = 0;
        t->steps[sb][cb]++;
        for (size_t j = 0; j < r.ncp && !hit; j++) {
            size_t x = r.cp[j].index;
            if (!used[j] && x + 2 >= pos[s] && x <= pos[s] + 2) {
                used[j] = 1;
                hit = 1;
            }
        }
        t->found[sb][cb] += hit;
        good += hit;
    }
    if (getenv("NF_CP_SIM_DEBUG") && bar && good < r.ncp) {
        printf("miss n %zu cv %.2f steps", n, 100 * cv);
        for (size_t s = 0; s < nst; s++)
            printf(" %zu:%+.1f", pos[s], 100 * sz[s]);
        printf(" | cps");
        for (size_t j = 0; j < r.ncp; j++)
            printf(" %zu(p %.2g)", r.cp[j].index, r.cp[j].p);
        printf(" | drift");
        for (size_t j = 0; j < r.ndrift; j++)
            printf(" %zu-%zu", r.drift[j].from, r.drift[j].to);
        printf("\n");
        static int serial;
        serial++;
        if (getenv("NF_CP_SIM_DUMP") && serial == atoi(getenv("NF_CP_SIM_DUMP"))) {
            FILE *f = fopen("/tmp/cpw/dump.txt", "w");
            for (size_t i = 0; i < n; i++)
                fprintf(f, "%.17g %.17g %zu\n", pts[i].mean, pts[i].sd, pts[i].n);
            fclose(f);
        }
    }
    t->det_all += r.ncp;
    t->good_all += good;
    if (bar) {
        t->det_bar += r.ncp;
        t->good_bar += good;
    }
    nf_cp_free(&r);
}

static void simulate(size_t count, enum nf_cp_test test, struct tally *t)
{
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    o.test = test;
    if (getenv("NF_CP_ALPHA"))
        o.alpha = atof(getenv("NF_CP_ALPHA"));
    memset(t, 0, sizeof *t);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 20261201);
    for (size_t i = 0; i < count; i++)
        one(g, &o, t);
    gsl_rng_free(g);
}

static double share(unsigned a, unsigned b)
{
    return b ? (double)a / b : NAN;
}

static void print(const char *what, size_t count, const struct tally *t)
{
    printf("%s: %zu series, %.3f s CPU in nf_cp_detect\n", what, count, t->cpu);
    printf("  recall (found/steps)   CV 1-2%%            CV 2-3%%\n");
    for (int b = 0; b < NSIZE; b++)
        printf("  step %g-%g%%%*s %5.3f (%3u/%3u)   %5.3f (%3u/%3u)\n", size_edge[b],
               floor(size_edge[b + 1]), b ? 6 : 6, "", share(t->found[b][0], t->steps[b][0]),
               t->found[b][0], t->steps[b][0], share(t->found[b][1], t->steps[b][1]),
               t->found[b][1], t->steps[b][1]);
    printf("  precision: bar series %.3f (%u/%u), all step series %.3f (%u/%u)\n",
           share(t->good_bar, t->det_bar), t->good_bar, t->det_bar, share(t->good_all, t->det_all),
           t->good_all, t->det_all);
    printf("  no-step series with a change point: %.3f (%u/%u)\n", share(t->nostep_fp, t->nostep),
           t->nostep_fp, t->nostep);
    printf("  drift series named drift: %.3f (%u/%u); else a chain of >= 2 steps: %u, one "
           "step: %u, nothing: %u\n",
           share(t->drift_named, t->drift), t->drift_named, t->drift, t->drift_chain, t->drift_one,
           t->drift_none);
    printf("  outliers named: %u of %u, %u points named that were not\n", t->outlier_found,
           t->outlier_true, t->outlier_false);
}

static void check_bars(const struct tally *t)
{
    unsigned st = 0, fd = 0;
    for (int b = 2; b < NSIZE; b++) {
        st += t->steps[b][0];
        fd += t->found[b][0];
    }
    printf("  bar: recall %.3f (%u/%u), precision %.3f\n", share(fd, st), fd, st,
           share(t->good_bar, t->det_bar));
    assert_true(st > 50 && fd >= 0.9 * st);
    assert_true(t->det_bar > 50 && t->good_bar >= 0.9 * t->det_bar);
    assert_true(t->nostep > 30 && t->nostep_fp <= 0.05 * t->nostep);
    assert_true(t->drift > 30 && t->drift_named >= 0.8 * t->drift);
    assert_true(t->drift_chain <= 0.1 * t->drift);
    assert_true(t->outlier_found >= 0.8 * t->outlier_true);
}

static void test_sim(void **state)
{
    (void)state;
    const char *mode = getenv("NF_CP_SIM");
    size_t count = mode && (!strcmp(mode, "full") || !strcmp(mode, "perm")) ? 1000 : 300;
    enum nf_cp_test test = mode && !strcmp(mode, "perm") ? NF_CP_PERMUTATION : NF_CP_TTEST;
    struct tally t;
    simulate(count, test, &t);
    print(test == NF_CP_PERMUTATION ? "permutation test" : "t-test", count, &t);
    if (test == NF_CP_TTEST)
        check_bars(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
