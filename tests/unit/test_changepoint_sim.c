/* test_changepoint_sim.c — operating characteristics of the change-point
 * detection (src/stats/changepoint.c) on simulated series, through
 * nf_cp_detect with the default options.  doc/statistics.md ("Change
 * points: simulation") quotes the table.
 *
 * A series has 50–400 points (runs).  Step series: 0–3 steps of 1–8%
 * (either sign), every segment >= 10 points.  Drift series: no step, a
 * linear drift of 3–10% over the whole series (half of them) or over a
 * part of it of at least 40%, flat before and after.  Run noise: each point's
 * mean is level * (1 + N(0, cv)), cv 1–3%, and it carries 5 repetitions
 * of sd level * cv (the runs differ as much as the repetitions inside
 * them).  A quarter of all series have 2% outliers: points moved by 6–15
 * cv.  A detection within +-2 points of a true step finds it (one
 * detection per step).  Deterministic: gsl_rng_mt19937, fixed seed.
 *
 * The 1,000 series take a third of a second; make check runs them all and
 * asserts the bars.  test_sim_ar runs the same mix with AR(1) noise of
 * rho 0.3 and 0.5 and 2,000 quiet series at rho 0, 0.3 and 0.5 (about 3 s
 * CPU in all; doc/statistics.md, "Serially correlated runs").
 * NF_CP_SIM=1 adds the AR rows taken as independent; NF_CP_SIM=compare
 * adds doc/statistics.md's comparison of the tests (the permutation
 * test's takes half a minute) and the tip cases;
 * NF_CP_SIM_DEBUG=1 prints the series the bar missed or where a detection
 * is false. */
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
    unsigned quiet_drift;       /* of those, with a drift */
    unsigned widened;           /* series whose tests assumed serial correlation */
    double rho_sum;             /* the sum of their rho (serial_rho) */
    unsigned drift, drift_named, drift_chain, drift_one, drift_none; /* drift series */
    unsigned drift_part, drift_part_named; /* those over part of the series */
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
static void one(gsl_rng *g, const struct nf_cp_opts *o, double rho, int quiet, struct tally *t)
{
    static struct nf_cp_point pts[MAXN];
    static int is_out[MAXN];
    size_t n = 50 + gsl_rng_uniform_int(g, 351);
    int drift = gsl_rng_uniform(g) < 0.2, outliers = gsl_rng_uniform(g) < 0.25;
    double cv = 0.01 + 0.02 * gsl_rng_uniform(g);
    size_t nst = drift ? 0 : gsl_rng_uniform_int(g, MAXSTEP + 1), pos[MAXSTEP];
    if (quiet) /* no step and no drift (the draws stay those of the mix) */
        nst = 0, drift = 0;
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
    /* half the drifts over part of the series only (>= 40% of it) */
    double d0 = 0, d1 = (double)(n - 1);
    int part = drift && gsl_rng_uniform(g) < 0.5;
    if (part) {
        d0 = floor(0.4 * (double)n * gsl_rng_uniform(g));
        d1 = d0 + floor(0.4 * (double)n + ((double)n - d0 - 0.4 * (double)n) * gsl_rng_uniform(g));
    }
    double level = 100, e = gsl_ran_gaussian(g, cv);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k < nst && pos[k] == i)
            level *= 1 + sz[k++];
        double f = ((double)i - d0) / (d1 - d0);
        double mu = level * (1 + dtot * (f < 0 ? 0 : f > 1 ? 1 : f));
        /* AR(1) around the level, of stationary sd cv (rho 0: independent) */
        if (i)
            e = rho * e + gsl_ran_gaussian(g, cv * sqrt(1 - rho * rho));
        pts[i].mean = mu * (1 + e);
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
    t->widened += r.serial_rho > 0;
    t->rho_sum += r.serial_rho;
    for (size_t j = 0; j < r.noutlier; j++) {
        if (is_out[r.outlier[j]])
            t->outlier_found++;
        else
            t->outlier_false++;
    }
    if (drift) {
        t->drift++;
        t->drift_part += part;
        if (r.ndrift && r.ncp == 0) {
            t->drift_named++;
            t->drift_part_named += part;
        } else if (r.ncp >= 2)
            t->drift_chain++;
        else if (r.ncp == 1) {
            t->drift_one++;
            if (getenv("NF_CP_SIM_DEBUG"))
                printf("drift as one step: n %zu cv %.2f total %+.1f%% | cp %zu %+.2f%% p %.2g\n",
                       n, 100 * cv, 100 * dtot, r.cp[0].index, r.cp[0].change_pct, r.cp[0].p);
        } else
            t->drift_none++;
        nf_cp_free(&r);
        return;
    }
    if (!nst) {
        t->nostep++;
        t->nostep_fp += r.ncp > 0;
        t->quiet_drift += r.ndrift > 0;
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
    if (getenv("NF_CP_SIM_DEBUG") && bar && (good < nst || good < r.ncp)) {
        printf("missed or false: n %zu cv %.2f steps", n, 100 * cv);
        for (size_t s = 0; s < nst; s++)
            printf(" %zu:%+.1f", pos[s], 100 * sz[s]);
        printf(" | cps");
        for (size_t j = 0; j < r.ncp; j++)
            printf(" %zu(p %.2g)", r.cp[j].index, r.cp[j].p);
        printf(" | drift");
        for (size_t j = 0; j < r.ndrift; j++)
            printf(" %zu-%zu", r.drift[j].from, r.drift[j].to);
        printf("\n");
    }
    t->det_all += r.ncp;
    t->good_all += good;
    if (bar) {
        t->det_bar += r.ncp;
        t->good_bar += good;
    }
    nf_cp_free(&r);
}

static void simulate(size_t count, enum nf_cp_test test, double alpha, double rho, int serial,
                     int quiet, struct tally *t)
{
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    o.test = test;
    o.serial = serial;
    if (alpha > 0)
        o.alpha = alpha;
    memset(t, 0, sizeof *t);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, (rho > 0 ? 20261202 + (unsigned long)(100 * rho) : 20261201) + 7u * quiet);
    for (size_t i = 0; i < count; i++)
        one(g, &o, rho, quiet, t);
    gsl_rng_free(g);
}

static double share(unsigned a, unsigned b)
{
    return b ? (double)a / b : NAN;
}

static void print(const char *what, const struct tally *t)
{
    printf("%s: %.3f s CPU in nf_cp_detect\n", what, t->cpu);
    printf("  recall (found/steps)   CV 1-2%%            CV 2-3%%\n");
    for (int b = 0; b < NSIZE; b++)
        printf("  step %g-%g%%       %5.3f (%3u/%3u)   %5.3f (%3u/%3u)\n", size_edge[b],
               floor(size_edge[b + 1]), share(t->found[b][0], t->steps[b][0]), t->found[b][0],
               t->steps[b][0], share(t->found[b][1], t->steps[b][1]), t->found[b][1],
               t->steps[b][1]);
    unsigned st = 0, fd = 0;
    for (int b = 2; b < NSIZE; b++) {
        st += t->steps[b][0];
        fd += t->found[b][0];
    }
    printf("  bar (steps >= 3%%, CV <= 2%%): recall %.3f (%u/%u), precision %.3f (%u/%u)\n",
           share(fd, st), fd, st, share(t->good_bar, t->det_bar), t->good_bar, t->det_bar);
    printf("  precision over all step series %.3f (%u/%u)\n", share(t->good_all, t->det_all),
           t->good_all, t->det_all);
    printf("  no-step series with a change point: %.3f (%u/%u)\n", share(t->nostep_fp, t->nostep),
           t->nostep_fp, t->nostep);
    printf("  drift series named drift: %.3f (%u/%u); else a chain of >= 2 steps: %u, one "
           "step: %u, nothing: %u\n",
           share(t->drift_named, t->drift), t->drift_named, t->drift, t->drift_chain, t->drift_one,
           t->drift_none);
    printf("  drifts over part of the series named drift: %.3f (%u/%u)\n",
           share(t->drift_part_named, t->drift_part), t->drift_part_named, t->drift_part);
    printf("  outliers named: %u of %u, %u points named that were not\n", t->outlier_found,
           t->outlier_true, t->outlier_false);
    printf("  serial correlation allowed for in %u series, mean rho %.3f\n", t->widened,
           t->widened ? t->rho_sum / t->widened : 0.0);
}

/* The default options: the bars of the history command. */
static void test_sim(void **state)
{
    (void)state;
    struct tally t;
    simulate(1000, NF_CP_TTEST, 0, 0, 1, 0, &t);
    print("1,000 series, scan-corrected t-test, alpha 0.01", &t);
    unsigned st = 0, fd = 0;
    for (int b = 2; b < NSIZE; b++) {
        st += t.steps[b][0];
        fd += t.found[b][0];
    }
    assert_true(st > 300 && fd >= 0.9 * st);
    assert_true(t.det_bar > 200 && t.good_bar >= 0.9 * t.det_bar);
    assert_true(t.nostep > 150 && t.nostep_fp <= 0.05 * t.nostep);
    assert_true(t.drift > 150 && t.drift_named >= 0.85 * t.drift);
    assert_true(t.drift_chain <= 0.05 * t.drift);
    assert_true(t.outlier_found >= 0.9 * t.outlier_true);
    assert_true(t.outlier_false <= 0.01 * t.outlier_true);
}

/* Serially correlated runs: the same series with AR(1) noise of the same
 * sd around the level (doc/statistics.md, "Serially correlated runs"). */
static void test_sim_ar(void **state)
{
    (void)state;
    static const double rhos[] = {0, 0.3, 0.5};
    for (size_t i = 0; i < sizeof rhos / sizeof rhos[0]; i++) {
        struct tally t, q, q0;
        char what[96];
        if (rhos[i] > 0) {
            simulate(1000, NF_CP_TTEST, 0, rhos[i], 1, 0, &t);
            snprintf(what, sizeof what, "1,000 series, AR(1) rho %.1f, default options", rhos[i]);
            print(what, &t);
        }
        simulate(2000, NF_CP_TTEST, 0, rhos[i], 1, 1, &q);
        /* taken as independent (before the rule): at rho 0.3 for the
         * assertion, the others with NF_CP_SIM set */
        int before = rhos[i] == 0.3 || getenv("NF_CP_SIM");
        memset(&q0, 0, sizeof q0);
        if (before)
            simulate(2000, NF_CP_TTEST, 0, rhos[i], 0, 1, &q0);
        printf("2,000 quiet series, rho %.1f: with a change point %.4f (%u), with a drift %.4f "
               "(%u); taken as independent %.4f (%u), %.4f (%u); rho assumed in %u, mean "
               "%.3f; %.3f s CPU\n",
               rhos[i], share(q.nostep_fp, q.nostep), q.nostep_fp, share(q.quiet_drift, q.nostep),
               q.quiet_drift, share(q0.nostep_fp, q0.nostep), q0.nostep_fp,
               share(q0.quiet_drift, q0.nostep), q0.quiet_drift, q.widened,
               q.widened ? q.rho_sum / q.widened : 0.0, q.cpu);
        /* The bars: quiet series get a change point in <= 5% (before the
         * rule: 20% at rho 0.3, 62% at 0.5), and what is found in the
         * series of the bar is still a step. */
        assert_true(q.nostep == 2000 && q.nostep_fp <= 0.05 * q.nostep);
        assert_true(q.quiet_drift <= 0.02 * q.nostep);
        if (before && rhos[i] > 0)
            assert_true(q0.nostep_fp > 0.1 * q0.nostep);
        if (rhos[i] > 0) {
            assert_true(t.det_bar > 200 && t.good_bar >= (rhos[i] > 0.3 ? 0.85 : 0.9) * t.det_bar);
            assert_true(t.nostep > 150 && t.nostep_fp <= 0.05 * t.nostep);
            assert_true(rhos[i] > 0.3 || t.drift_chain <= 0.1 * t.drift);
        }
        if (getenv("NF_CP_SIM") && rhos[i] > 0) {
            simulate(1000, NF_CP_TTEST, 0, rhos[i], 0, 0, &t);
            snprintf(what, sizeof what, "1,000 series, AR(1) rho %.1f, taken as independent",
                     rhos[i]);
            print(what, &t);
        }
    }
}

/* The other tests and levels of doc/statistics.md's comparison (the
 * permutation test takes a minute): printed before the test with
 * NF_CP_SIM=compare. */
static void compare(void)
{
    static const struct {
        enum nf_cp_test test;
        double alpha;
        const char *name;
    } v[] = {
        {NF_CP_TTEST, 0.005, "scan-corrected t-test, alpha 0.005"},
        {NF_CP_TTEST, 0.05, "scan-corrected t-test, alpha 0.05"},
        {NF_CP_TTEST_RAW, 0.01, "uncorrected t-test (Hunter's), alpha 0.01"},
        {NF_CP_TTEST_RAW, 0.001, "uncorrected t-test (Hunter's), alpha 0.001"},
        {NF_CP_PERMUTATION, 0.01, "permutation test (199), alpha 0.01"},
    };
    const char *only = getenv("NF_CP_SIM_ONLY"); /* one of them, by its place */
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        if (only && (size_t)atoi(only) != i)
            continue;
        struct tally t;
        simulate(1000, v[i].test, v[i].alpha, 0, 1, 0, &t);
        print(v[i].name, &t);
    }
}

/* Quiet series (no step, no drift, 50-400 runs, CV 2%) under other noise:
 * the share with a change point or a drift (printed with
 * NF_CP_SIM=compare; doc/statistics.md, "Limits"). */
static void noises(void)
{
    static const char *name[] = {"normal", "t3 (same sd)", "lognormal, sd 6%",
                                 "AR(1) rho 0.3 (same sd)"};
    static struct nf_cp_point p[MAXN];
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 99);
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    for (int kind = 0; kind < 4; kind++) {
        unsigned cp = 0, dr = 0, S = 500;
        for (unsigned s = 0; s < S; s++) {
            size_t n = 50 + gsl_rng_uniform_int(g, 351);
            double cv = 0.02, prev = 0;
            for (size_t i = 0; i < n; i++) {
                double e;
                switch (kind) {
                case 0: e = gsl_ran_gaussian(g, cv); break;
                case 1: e = cv / sqrt(3.0) * gsl_ran_tdist(g, 3); break;
                case 2: e = exp(gsl_ran_gaussian(g, 3 * cv)) - 1; break;
                default: e = prev = 0.3 * prev + gsl_ran_gaussian(g, cv * sqrt(1 - 0.09));
                }
                p[i] = (struct nf_cp_point){100 * (1 + e), 2, 5};
            }
            struct nf_cp_result r;
            char err[128];
            if (nf_cp_detect(p, n, &o, &r, err, sizeof err)) {
                fprintf(stderr, "nf_cp_detect: %s\n", err);
                exit(1);
            }
            cp += r.ncp > 0;
            dr += r.ndrift > 0;
            nf_cp_free(&r);
        }
        printf("quiet series, %-24s with a change point %.3f, with a drift %.3f\n", name[kind],
               (double)cp / S, (double)dr / S);
    }
    gsl_rng_free(g);
}

/* The tip gate after a short new segment (printed with NF_CP_SIM=compare;
 * doc/statistics.md, "Serially correlated runs"): n0 runs at 10, then k
 * at 10 (1 + step), each run 5 repetitions of cv 1% plus, with rho > 0,
 * an AR(1) level of the same sd as the runs' means; min_seg 4, as the
 * history command's default.  The share of series whose tip moved, with
 * step 6 and taken as independent. */
static void tips(void)
{
    static const struct {
        size_t n0, k;
        double step, rho;
    } v[] = {{30, 4, 0.04, 0},    {30, 5, 0.04, 0},     {100, 5, 0.04, 0}, {100, 10, 0.02, 0},
             {100, 5, 0.04, 0.3}, {100, 10, 0.02, 0.3}, {100, 0, 0, 0.3},  {100, 0, 0, 0.5}};
    static struct nf_cp_point p[MAXN];
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 5);
    for (size_t c = 0; c < sizeof v / sizeof v[0]; c++) {
        unsigned S = 2000, hit[2] = {0, 0};
        size_t n = v[c].n0 + v[c].k;
        for (unsigned s = 0; s < S; s++) {
            double e = 0, sd = 0.01 / sqrt(5);
            for (size_t i = 0; i < n; i++) {
                double mu = i >= v[c].n0 ? 10 * (1 + v[c].step) : 10, x[5], m = 0, ss = 0;
                e = v[c].rho * e + gsl_ran_gaussian(g, sd * sqrt(1 - v[c].rho * v[c].rho));
                for (int j = 0; j < 5; j++)
                    m += (x[j] = mu * (1 + gsl_ran_gaussian(g, 0.01))) / 5;
                for (int j = 0; j < 5; j++)
                    ss += (x[j] - m) * (x[j] - m);
                p[i] = (struct nf_cp_point){m + (v[c].rho > 0 ? mu * e : 0), sqrt(ss / 4), 5};
            }
            for (int ser = 0; ser < 2; ser++) {
                struct nf_cp_opts o;
                nf_cp_opts_default(&o);
                o.min_seg = 4;
                o.serial = ser;
                struct nf_cp_result r;
                struct nf_cp_tip t;
                char err[128];
                if (nf_cp_detect(p, n, &o, &r, err, sizeof err) || nf_cp_tip(&r, &o, &t))
                    exit(1);
                hit[ser] += v[c].k ? t.moved : r.ncp > 0;
                nf_cp_free(&r);
            }
        }
        if (v[c].k)
            printf("tip: %zu runs, then %zu at %+g%%, rho %.1f: tip moved", v[c].n0, v[c].k,
                   100 * v[c].step, v[c].rho);
        else
            printf("tip: %zu runs, no step, rho %.1f: a change point", v[c].n0, v[c].rho);
        printf(" %.3f (taken as independent %.3f)\n", (double)hit[1] / S, (double)hit[0] / S);
    }
    gsl_rng_free(g);
}

int main(void)
{
    const char *mode = getenv("NF_CP_SIM");
    if (mode && !strcmp(mode, "compare")) {
        compare();
        noises();
        tips();
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim),
        cmocka_unit_test(test_sim_ar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
