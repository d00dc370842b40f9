/* test_changepoint.c — the change-point detection (stats/changepoint.h)
 * against an independent NumPy/SciPy implementation (tests/ref/
 * gen_changepoint.py, values in tests/data/ref_changepoint.txt), serial
 * correlation (step 6) included: the same outliers, lag-1 r and rho, and
 * change points exactly, their statistics within 1e-9
 * relative (the scan-corrected p within 1e-6: Simpson's rule against
 * quad); then the properties the reference does not cover (the floor of
 * the repetitions' precision, drift, the tip, q values, the permutation
 * test, bad input) and the time of the sizes the history command needs
 * (printed, never asserted). */
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

#include "refdata.h"
#include "stats/changepoint.h"
#include "stats/cp_int.h"

#define REF_FILE "tests/data/ref_changepoint.txt"
#define TIGHT 1e-9
#define SCAN_TOL 1e-6

/* -------------------------------------------------------------- reference */

static void check_series(struct ref_file *r, struct ref_tol *tol, struct ref_tol *ptol,
                         size_t *checked)
{
    char name[64];
    snprintf(name, sizeof name, "%s", ref_word(r));
    size_t n = ref_count(r, 100000);
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    o.min_seg = ref_count(r, 1000);
    o.alpha = ref_num(r);
    o.threshold_pct = ref_num(r);
    o.outlier_k = ref_num(r);
    o.drift = 0;
    struct nf_cp_point *pts = calloc(n, sizeof *pts);
    assert_non_null(pts);
    struct nf_cp_result res;
    char err[128];
    size_t jcp = 0, jseg = 0;
    const char *kw;
    while ((kw = ref_next(r)) && strcmp(kw, "end")) {
        if (!strcmp(kw, "pts")) {
            for (size_t i = 0; i < n; i++) {
                pts[i].mean = ref_num(r);
                pts[i].sd = ref_num(r);
                pts[i].n = ref_count(r, 1000);
            }
            assert_int_equal(nf_cp_detect(pts, n, &o, &res, err, sizeof err), 0);
        } else if (!strcmp(kw, "noise")) {
            ref_check(tol, name, "noise", res.noise_sd, ref_num(r));
        } else if (!strcmp(kw, "outliers")) {
            size_t k = ref_count(r, n);
            if (res.noutlier != k)
                fprintf(stderr, "%s: %zu outliers, reference %zu\n", name, res.noutlier, k);
            assert_int_equal(res.noutlier, k);
            for (size_t i = 0; i < k; i++)
                assert_int_equal(res.outlier[i], ref_count(r, n));
        } else if (!strcmp(kw, "serial")) {
            ref_check(tol, name, "serial_r", res.serial_r, ref_num(r));
            ref_check(tol, name, "serial_p", res.serial_p, ref_num(r));
            ref_check(tol, name, "serial_rho", res.serial_rho, ref_num(r));
            /* taken as independent, for the comparison (printed) */
            struct nf_cp_opts o0 = o;
            struct nf_cp_result r0;
            o0.serial = 0;
            assert_int_equal(nf_cp_detect(pts, n, &o0, &r0, err, sizeof err), 0);
            if (res.serial_rho > 0)
                printf("  %s: rho %.3f assumed, %zu change points (%zu taken as independent)\n",
                       name, res.serial_rho, res.ncp, r0.ncp);
            nf_cp_free(&r0);
        } else if (!strcmp(kw, "cp")) {
            size_t idx = ref_count(r, n);
            if (jcp >= res.ncp || res.cp[jcp].index != idx)
                fprintf(stderr, "%s: change point %zu at %zu, reference %zu\n", name, jcp,
                        jcp < res.ncp ? res.cp[jcp].index : (size_t)-1, idx);
            assert_true(jcp < res.ncp);
            const struct nf_cp_change *c = &res.cp[jcp++];
            assert_int_equal(c->index, idx);
            ref_check(tol, name, "before", c->before, ref_num(r));
            ref_check(tol, name, "after", c->after, ref_num(r));
            ref_check(tol, name, "change_pct", c->change_pct, ref_num(r));
            ref_check(tol, name, "ci_low", c->ci_low_pct, ref_num(r));
            ref_check(tol, name, "ci_high", c->ci_high_pct, ref_num(r));
            ref_check(tol, name, "t", c->t, ref_num(r));
            ref_check(tol, name, "df", c->df, ref_num(r));
            ref_check(ptol, name, "p", c->p, ref_num(r));
            ref_check(tol, name, "energy", c->energy, ref_num(r));
            assert_int_equal(c->beyond_threshold, (int)ref_count(r, 1));
            (*checked)++;
        } else if (!strcmp(kw, "seg")) {
            assert_true(jseg < res.nseg);
            const struct nf_cp_segment *s = &res.seg[jseg++];
            assert_int_equal(s->from, ref_count(r, n));
            assert_int_equal(s->to, ref_count(r, n));
            assert_int_equal(s->runs, ref_count(r, n));
            ref_check(tol, name, "seg mean", s->mean, ref_num(r));
            ref_check(tol, name, "seg sd", s->sd, ref_num(r));
            ref_check(ptol, name, "split_p", s->split_p, ref_num(r));
            (*checked)++;
        }
    }
    assert_int_equal(jcp, res.ncp);
    assert_int_equal(jseg, res.nseg);
    nf_cp_free(&res);
    free(pts);
}

static void test_reference(void **state)
{
    (void)state;
    struct ref_file r;
    assert_int_equal(ref_open(&r, REF_FILE), 0);
    struct ref_tol tol = {TIGHT, 1e-12, 1e-6, 0, 0}, ptol = {SCAN_TOL, 1e-300, 1e-300, 0, 0};
    size_t checked = 0, scans = 0, series = 0;
    const char *kw;
    while ((kw = ref_next(&r))) {
        if (!strcmp(kw, "series")) {
            check_series(&r, &tol, &ptol, &checked);
            series++;
        } else if (!strcmp(kw, "scan")) {
            double t = ref_num(&r), df = ref_num(&r);
            size_t n = ref_count(&r, SIZE_MAX), L = ref_count(&r, SIZE_MAX);
            ref_check(&ptol, "scan", "p", cp_scan_p(t, df, n, L), ref_num(&r));
            scans++;
        } else if (!strcmp(kw, "bh")) {
            size_t m = ref_count(&r, 64);
            double p[64], want[64], q[64];
            ref_nums(&r, p, m);
            ref_nums(&r, want, m);
            assert_int_equal(nf_bh(p, m, q), 0);
            for (size_t i = 0; i < m; i++)
                ref_check(&tol, "bh", "q", q[i], want[i]);
        }
    }
    ref_close(&r);
    assert_true(series >= 10 && scans >= 5);
    ref_finish(&tol, "change points and segments", checked);
    ref_finish(&ptol, "scan-corrected p values", checked + scans);
}

/* ------------------------------------------------------------- properties */

static gsl_rng *rng;

/* n points of level * (1 + N(0, cv)) (times (1 + step) from at on),
 * repetitions of sd rep_cv * level, 5 of them. */
static void make(struct nf_cp_point *p, size_t n, double cv, size_t at, double step, double rep_cv)
{
    for (size_t i = 0; i < n; i++) {
        double mu = 100 * (i >= at ? 1 + step : 1);
        p[i].mean = mu * (1 + gsl_ran_gaussian(rng, cv));
        p[i].sd = mu * rep_cv;
        p[i].n = 5;
    }
}

static void detect(const struct nf_cp_point *p, size_t n, const struct nf_cp_opts *o,
                   struct nf_cp_result *r)
{
    char err[128] = "";
    int rc = nf_cp_detect(p, n, o, r, err, sizeof err);
    if (rc)
        fprintf(stderr, "nf_cp_detect: %s\n", err);
    assert_int_equal(rc, 0);
}

/* Points whose repetitions disagree more than the points: no change
 * (the floor), the same means with precise repetitions: a change. */
static void test_precision_floor(void **state)
{
    (void)state;
    struct nf_cp_point p[60];
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    gsl_rng_set(rng, 3);
    make(p, 60, 0.002, 30, 0.01, 0.08);
    struct nf_cp_result r;
    detect(p, 60, &o, &r);
    assert_int_equal(r.ncp, 0);
    nf_cp_free(&r);
    for (size_t i = 0; i < 60; i++)
        p[i].sd = 0.2;
    detect(p, 60, &o, &r);
    assert_int_equal(r.ncp, 1);
    assert_true(r.cp[0].index >= 28 && r.cp[0].index <= 32);
    nf_cp_free(&r);
}

/* A slow ramp is a drift, with drift off a staircase. */
/* Runs that wander around one level (AR(1) rho 0.5, sd 1.5%, the
 * repetitions 0.5%): taken as independent, most of 20 such series get a
 * change point; with step 6 (the default) at most one does, and rho is
 * near the truth.  A real step in such runs is still found. */
static void test_serial(void **state)
{
    (void)state;
    enum { N = 250 };
    static struct nf_cp_point p[N];
    struct nf_cp_opts o, o0;
    nf_cp_opts_default(&o);
    o0 = o;
    o0.serial = 0;
    gsl_rng_set(rng, 30);
    unsigned with = 0, without = 0;
    double rho = 0;
    for (int s = 0; s < 21; s++) {
        double e = gsl_ran_gaussian(rng, 0.015);
        for (size_t i = 0; i < N; i++) {
            if (i)
                e = 0.5 * e + gsl_ran_gaussian(rng, 0.015 * sqrt(0.75));
            double mu = s == 20 && i >= 120 ? 104 : 100;
            p[i] = (struct nf_cp_point){mu * (1 + e), mu * 0.005, 5};
        }
        struct nf_cp_result r, r0;
        detect(p, N, &o, &r);
        detect(p, N, &o0, &r0);
        if (s == 20) { /* the step of 4% */
            assert_int_equal(r.ncp, 1);
            printf("  AR(1) 0.5 with a step of 4%% at 120: found at %zu (rho %.3f)\n",
                   r.cp[0].index, r.serial_rho);
            assert_true(r.cp[0].index + 5 >= 120 && r.cp[0].index <= 125);
            assert_true(r.serial_rho > 0.25 && r.serial_rho < 0.75);
        } else {
            with += r.ncp > 0;
            without += r0.ncp > 0;
            rho += r.serial_rho / 20;
            assert_true(isnan(r0.serial_r) && r0.serial_rho == 0);
        }
        nf_cp_free(&r);
        nf_cp_free(&r0);
    }
    printf("  AR(1) 0.5: %u of 20 with a change point (%u taken as independent), mean rho "
           "%.3f\n",
           with, without, rho);
    assert_true(without >= 8 && with <= 1);
    assert_true(rho > 0.35 && rho < 0.65);
}

static void test_drift(void **state)
{
    (void)state;
    enum { N = 300 };
    struct nf_cp_point p[N];
    gsl_rng_set(rng, 5);
    for (size_t i = 0; i < N; i++) {
        double mu = 100 * (1 + 0.08 * (double)i / (N - 1));
        p[i].mean = mu * (1 + gsl_ran_gaussian(rng, 0.015));
        p[i].sd = 1.5;
        p[i].n = 5;
    }
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result r;
    detect(p, N, &o, &r);
    assert_int_equal(r.ndrift, 1);
    assert_int_equal(r.ncp, 0);
    assert_int_equal(r.drift[0].from, 0);
    assert_int_equal(r.drift[0].to, N);
    assert_true(r.drift[0].ci_low_pct < 8 && r.drift[0].ci_high_pct > 8);
    assert_true(r.seg[0].drift == 0);
    nf_cp_free(&r);
    o.drift = 0;
    detect(p, N, &o, &r);
    assert_true(r.ncp >= 2);
    nf_cp_free(&r);
}

/* Flat, a ramp of +6% over runs 100-200, flat, then a step of -4% at
 * 250: one drift where the ramp is, and the step with the flats' levels
 * around it (not the ramp's average). */
static void test_partial_drift(void **state)
{
    (void)state;
    enum { N = 300 };
    struct nf_cp_point p[N];
    gsl_rng_set(rng, 29);
    for (size_t i = 0; i < N; i++) {
        double f = i < 100 ? 0 : i >= 200 ? 1 : (double)(i - 100) / 100;
        double mu = 100 * (1 + 0.06 * f) * (i >= 250 ? 0.96 : 1);
        p[i].mean = mu * (1 + gsl_ran_gaussian(rng, 0.015));
        p[i].sd = 1.5;
        p[i].n = 5;
    }
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result r;
    detect(p, N, &o, &r);
    assert_int_equal(r.ndrift, 1);
    assert_true(r.drift[0].from >= 90 && r.drift[0].from <= 110);
    assert_true(r.drift[0].to >= 190 && r.drift[0].to <= 210);
    assert_true(r.drift[0].ci_low_pct < 6 && r.drift[0].ci_high_pct > 6);
    assert_int_equal(r.ncp, 1);
    assert_int_equal(r.cp[0].index, 250);
    assert_true(r.cp[0].ci_low_pct < -4 && r.cp[0].ci_high_pct > -4);
    nf_cp_free(&r);
}

static void test_tip(void **state)
{
    (void)state;
    enum { N = 120 };
    struct nf_cp_point p[N];
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result r;
    struct nf_cp_tip tip;
    gsl_rng_set(rng, 7);
    /* +4% over the last 8 runs: moved */
    make(p, N, 0.01, N - 8, 0.04, 0.01);
    detect(p, N, &o, &r);
    assert_int_equal(nf_cp_tip(&r, &o, &tip), 0);
    assert_true(tip.has_change && tip.moved);
    assert_int_equal(tip.from, N - 8);
    assert_int_equal(tip.runs, 8);
    assert_int_equal(tip.since, N - 9);
    assert_true(tip.ci_low_pct > 1 && tip.ci_high_pct < 7);
    nf_cp_free(&r);
    /* +0.3%, margin 1%: no move (a real but negligible step at worst) */
    make(p, N, 0.002, N - 40, 0.003, 0.002);
    detect(p, N, &o, &r);
    assert_int_equal(nf_cp_tip(&r, &o, &tip), 0);
    assert_false(tip.moved);
    nf_cp_free(&r);
    /* one wild newest run: an outlier, not a move */
    make(p, N, 0.01, N, 0, 0.01);
    p[N - 1].mean *= 1.2;
    detect(p, N, &o, &r);
    assert_int_equal(r.noutlier, 1);
    assert_int_equal(r.outlier[0], N - 1);
    assert_int_equal(nf_cp_tip(&r, &o, &tip), 0);
    assert_false(tip.has_change);
    assert_false(tip.moved);
    assert_int_equal(r.seg[0].to, N);
    nf_cp_free(&r);
}

/* q over the family of every series' tests: >= p, and the count of the
 * family is every cp, drift and splittable segment. */
static void test_fdr(void **state)
{
    (void)state;
    enum { S = 6, N = 100 };
    struct nf_cp_point p[N];
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result r[S];
    struct nf_cp_result *all[S];
    gsl_rng_set(rng, 11);
    for (size_t s = 0; s < S; s++) {
        make(p, N, 0.01, 50, s % 2 ? 0.03 : 0, 0.01);
        detect(p, N, &o, &r[s]);
        all[s] = &r[s];
        assert_int_equal(r[s].ncp, s % 2);
        if (s % 2)
            assert_true(isnan(r[s].cp[0].q));
    }
    assert_int_equal(nf_cp_fdr(all, S), 0);
    double p3[3 * S + 3], q3[3 * S + 3];
    size_t m = 0;
    for (size_t s = 0; s < S; s++) {
        for (size_t j = 0; j < r[s].ncp; j++)
            p3[m++] = r[s].cp[j].p;
        for (size_t j = 0; j < r[s].nseg; j++)
            p3[m++] = r[s].seg[j].split_p;
    }
    assert_int_equal(nf_bh(p3, m, q3), 0);
    m = 0;
    for (size_t s = 0; s < S; s++) {
        for (size_t j = 0; j < r[s].ncp; j++) {
            assert_true(r[s].cp[j].q >= r[s].cp[j].p);
            assert_true(r[s].cp[j].q == q3[m++]);
        }
        for (size_t j = 0; j < r[s].nseg; j++)
            assert_true(r[s].seg[j].split_q == q3[m++]);
        nf_cp_free(&r[s]);
    }
}

static void test_permutation(void **state)
{
    (void)state;
    enum { N = 80 };
    struct nf_cp_point p[N];
    gsl_rng_set(rng, 13);
    make(p, N, 0.01, 30, 0.05, 0.01);
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    o.test = NF_CP_PERMUTATION;
    struct nf_cp_result a, b;
    detect(p, N, &o, &a);
    detect(p, N, &o, &b);
    assert_int_equal(a.ncp, 1);
    assert_int_equal(a.cp[0].index, 30);
    assert_true(a.cp[0].p == 1.0 / (o.permutations + 1));
    assert_int_equal(b.ncp, a.ncp);
    assert_true(a.seg[0].split_p == b.seg[0].split_p && a.seg[1].split_p == b.seg[1].split_p);
    nf_cp_free(&a);
    nf_cp_free(&b);
}

static void test_input(void **state)
{
    (void)state;
    struct nf_cp_point p[12];
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result r;
    char err[128];
    detect(NULL, 0, &o, &r);
    assert_int_equal(r.nseg, 0);
    nf_cp_free(&r);
    gsl_rng_set(rng, 17);
    make(p, 9, 0.01, 5, 0.5, 0.01); /* 9 < 2 min_seg: too short, however big the step */
    detect(p, 9, &o, &r);
    assert_true(r.too_short);
    assert_int_equal(r.ncp, 0);
    assert_int_equal(r.nseg, 1);
    assert_int_equal(r.seg[0].runs + r.noutlier, 9);
    assert_true(isnan(r.seg[0].split_p));
    nf_cp_free(&r);
    p[3].mean = NAN;
    assert_int_equal(nf_cp_detect(p, 9, &o, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "point 3"));
    nf_cp_free(&r);
    p[3].mean = 1;
    o.min_seg = 1;
    assert_int_equal(nf_cp_detect(p, 9, &o, &r, err, sizeof err), -1);
    nf_cp_free(&r);
}

/* The unit does not matter: nanoseconds (1e9) and their millionths give
 * the same change points, outliers and percentages (the means are centred
 * before any sum of squares). */
static void test_scale(void **state)
{
    (void)state;
    enum { N = 200 };
    struct nf_cp_point p[N], q[N];
    gsl_rng_set(rng, 23);
    make(p, N, 0.015, 90, 0.04, 0.015);
    p[40].mean *= 1.15;
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result a, b;
    detect(p, N, &o, &a);
    for (size_t i = 0; i < N; i++) {
        q[i] = p[i];
        q[i].mean *= 1e7;
        q[i].sd *= 1e7;
    }
    detect(q, N, &o, &b);
    assert_int_equal(a.ncp, 1);
    assert_int_equal(a.noutlier, 1);
    assert_int_equal(a.outlier[0], 40);
    assert_int_equal(b.ncp, a.ncp);
    assert_int_equal(b.noutlier, a.noutlier);
    assert_int_equal(b.cp[0].index, a.cp[0].index);
    ref_close_rel(b.cp[0].change_pct, a.cp[0].change_pct, 1e-9);
    ref_close_rel(b.cp[0].ci_low_pct, a.cp[0].ci_low_pct, 1e-9);
    ref_close_rel(b.cp[0].p, a.cp[0].p, 1e-6);
    nf_cp_free(&a);
    nf_cp_free(&b);
}

/* Counts: no noise at all.  Equal values are no change; a step between
 * constant levels is one, with p 0. */
static void test_constant(void **state)
{
    (void)state;
    enum { N = 30 };
    struct nf_cp_point p[N];
    for (size_t i = 0; i < N; i++)
        p[i] = (struct nf_cp_point){i < 20 ? 10 : 12, 0, 1};
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result r;
    detect(p, 20, &o, &r);
    assert_int_equal(r.ncp, 0);
    assert_int_equal(r.noutlier, 0);
    nf_cp_free(&r);
    detect(p, N, &o, &r);
    assert_int_equal(r.ncp, 1);
    assert_int_equal(r.cp[0].index, 20);
    assert_true(r.cp[0].p == 0);
    assert_true(fabs(r.cp[0].change_pct - 20) < 1e-12);
    nf_cp_free(&r);
}

/* ------------------------------------------------------------------ speed */

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The history command's sizes: 100 series of 1,000 points, and one point
 * more on a series of 10,000 (a fresh detection).  Printed, not asserted;
 * the results are (steps found). */
static void test_speed(void **state)
{
    (void)state;
    enum { S = 100, N = 1000, BIG = 10001 };
    struct nf_cp_point *p = malloc(BIG * sizeof *p);
    assert_non_null(p);
    struct nf_cp_opts o;
    nf_cp_opts_default(&o);
    struct nf_cp_result r;
    gsl_rng_set(rng, 19);
    double cpu = 0;
    size_t found = 0;
    for (size_t s = 0; s < S; s++) {
        make(p, N, 0.02, 300 + s, 0.05, 0.02);
        double t0 = cpu_now();
        detect(p, N, &o, &r);
        cpu += cpu_now() - t0;
        found += r.ncp >= 1;
        nf_cp_free(&r);
    }
    assert_true(found >= S * 9 / 10);
    printf("  %d series x %d points: %.3f s CPU\n", S, N, cpu);
    make(p, BIG, 0.02, 4000, 0.03, 0.02);
    for (size_t i = 7000; i < BIG; i++)
        p[i].mean *= 0.97;
    detect(p, BIG - 1, &o, &r);
    size_t k = r.ncp;
    nf_cp_free(&r);
    double t0 = cpu_now();
    detect(p, BIG, &o, &r);
    double one = cpu_now() - t0;
    assert_true(r.ncp == k && k >= 2);
    nf_cp_free(&r);
    printf("  one point more on %d points: %.1f ms CPU (%zu change points)\n", BIG - 1, 1e3 * one,
           k);
    free(p);
}

int main(void)
{
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference),   cmocka_unit_test(test_precision_floor),
        cmocka_unit_test(test_drift),       cmocka_unit_test(test_partial_drift),
        cmocka_unit_test(test_tip),         cmocka_unit_test(test_fdr),
        cmocka_unit_test(test_permutation), cmocka_unit_test(test_input),
        cmocka_unit_test(test_scale),       cmocka_unit_test(test_constant),
        cmocka_unit_test(test_speed),       cmocka_unit_test(test_serial),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    gsl_rng_free(rng);
    return rc;
}
