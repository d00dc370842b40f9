/* test_bisect_rule.c — the statistics of `bisect` (src/stats/bisect_rule.c)
 * and simulated bisections through them (src/stats/bisect_sim.c).
 *
 * The bars of doc/bisect.md, through the real step rule: 256 revisions,
 * one +2% change at a random position, CV 2.5% normal noise, alpha 0.05:
 * the right first bad commit in >= 95% of 1,000 bisections, a wrong one in
 * <= 5%, mean rounds <= 400; without a change "nothing to bisect" in
 * >= 95%.  Deterministic (fixed seeds).  Under AddressSanitizer, which
 * makes the simulation ten times slower, a fixed subset of 250 runs with
 * the bars widened by the binomial slack of the smaller count.
 *
 * Programs, not tests (what doc/bisect.md quotes):
 *   NF_BISECT_TABLE=1 build/tests/test_bisect_rule   the operating
 *       characteristics table (sequential rule and the fixed designs)
 *   NF_BISECT_SWEEP=1 build/tests/test_bisect_rule   the constants sweep
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/bisect_rule.h"
#include "stats/bisect_sim.h"

#if defined(__SANITIZE_ADDRESS__)
#define SIM_RUNS 250
#define SIM_SLACK 2.0 /* percentage points */
#else
#define SIM_RUNS 1000
#define SIM_SLACK 0.0
#endif

static double pct(size_t k, size_t n)
{
    return 100.0 * (double)k / (double)n;
}

static struct nf_bisect_plan *plan_for(size_t candidates)
{
    struct nf_bisect_opts o;
    nf_bisect_opts_default(&o);
    o.candidates = candidates;
    struct nf_bisect_plan *p = malloc(sizeof *p);
    char err[200];
    assert_non_null(p);
    assert_int_equal(nf_bisect_plan_init(p, &o, err, sizeof err), 0);
    return p;
}

/* ---- The allocation ------------------------------------------------------ */

static void test_alloc(void **state)
{
    (void)state;
    struct nf_bisect_alloc a;
    assert_int_equal(nf_bisect_alloc(0.05, 256, &a), 0);
    assert_int_equal(a.planned_steps, 8);
    assert_float_equal(a.share, 0.05 / 11, 1e-15);
    assert_float_equal(a.endpoint + a.confirm + 8 * a.step + a.reserve, 0.05, 1e-15);
    assert_int_equal(nf_bisect_alloc(0.05, 257, &a), 0);
    assert_int_equal(a.planned_steps, 9);
    assert_int_equal(nf_bisect_alloc(0.05, 1, &a), 0);
    assert_int_equal(a.planned_steps, 0);
    /* extra steps halve the reserve: any number of them stays inside it */
    assert_int_equal(nf_bisect_alloc(0.05, 4, &a), 0);
    assert_float_equal(nf_bisect_step_alpha(&a, 1), a.step, 0);
    assert_float_equal(nf_bisect_step_alpha(&a, 2), a.reserve / 2, 1e-18);
    assert_float_equal(nf_bisect_step_alpha(&a, 3), a.reserve / 4, 1e-18);
    double extra = 0;
    for (size_t j = 2; j < 60; j++)
        extra += nf_bisect_step_alpha(&a, j);
    assert_true(extra < a.reserve);
    assert_int_equal(nf_bisect_alloc(0, 4, &a), -1);
    assert_int_equal(nf_bisect_alloc(0.6, 4, &a), -1);
    assert_int_equal(nf_bisect_alloc(0.05, 0, &a), -1);
}

static void test_plan_errors(void **state)
{
    (void)state;
    struct nf_bisect_plan *p = malloc(sizeof *p);
    struct nf_bisect_opts o;
    char err[200];
    nf_bisect_opts_default(&o);
    o.candidates = 10;
    o.alpha = 0;
    assert_int_equal(nf_bisect_plan_init(p, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "--alpha"));
    o.alpha = 0.05;
    o.threshold_pct = -1;
    assert_int_equal(nf_bisect_plan_init(p, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "--threshold"));
    o.threshold_pct = 1;
    o.candidates = 0;
    assert_int_equal(nf_bisect_plan_init(p, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "no revision"));
    o.candidates = 10;
    o.step_min = 50;
    o.step_max = 20;
    assert_int_equal(nf_bisect_plan_init(p, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "step rounds"));
    o.step_min = 5;
    o.step_max = 200;
    assert_int_equal(nf_bisect_plan_init(p, &o, err, sizeof err), 0);
    /* a step beyond the plan gets its own, stricter design */
    struct nf_bstep_design *d = malloc(sizeof *d);
    assert_int_equal(nf_bisect_step_design(p, p->alloc.planned_steps, 0, d), 0);
    assert_float_equal(d->alpha, p->alloc.reserve / 2, 1e-18);
    assert_true(d->z[d->nlooks - 1] > p->step[0].z[p->step[0].nlooks - 1]);
    free(d);
    free(p);
}

/* The budget: twice a fixed-sample test's rounds, in levels of 200 * 2^L.
 * At alpha 0.05 over 256 revisions a step's level is 0.05/11, z = 2.609;
 * CV 2.5% (var of log(B/G) 2 * 0.025^2), delta 2%: n0 = (2 * 2.609 *
 * 0.0306 / 0.0198)^2 = 65, 2 n0 = 131 -> 200 rounds; CV 5%: n0 = 261,
 * 2 n0 = 522 -> 800; CV 4%: 2 n0 = 334 -> 400; CV 10%: 2088 wanted, 1600
 * the most. */
static void test_budget(void **state)
{
    (void)state;
    struct nf_bisect_plan *p = plan_for(256);
    struct nf_bdelta w = {100, log(1.02), 99 * 2 * 0.025 * 0.025};
    assert_int_equal(nf_bisect_budget(p, &w), 0);
    w.m2 = 99 * 2 * 0.05 * 0.05;
    assert_int_equal(nf_bisect_budget(p, &w), 2);
    assert_int_equal(p->step[2].max_rounds, 800);
    w.mean = -w.mean; /* a change downwards needs as many */
    assert_int_equal(nf_bisect_budget(p, &w), 2);
    w.m2 = 99 * 2 * 0.04 * 0.04;
    assert_int_equal(nf_bisect_budget(p, &w), 1);
    w.m2 = 99 * 2 * 0.1 * 0.1;
    assert_int_equal(nf_bisect_budget(p, &w), 3);
    w.n = 1;
    assert_int_equal(nf_bisect_budget(p, &w), 0);
    free(p);
}

/* ---- The step design's error, simulated ---------------------------------- */

/* GOOD, BAD and the candidate all the same: both tests' nulls hold, each
 * may reject wrongly with probability alpha over the whole budget.  4,000
 * steps at alpha 0.05, 5:200 rounds: each side 3.9%..6.1% (binomial 3.5 SE;
 * 5.08% and 5.07% over 20,000).  The normal in place of the t (the heavier
 * tails of few rounds forgotten) gives 6.8% and 6.9% here. */
static void test_step_calibration(void **state)
{
    (void)state;
    struct nf_bstep_design *d = malloc(sizeof *d);
    assert_int_equal(nf_bstep_design_init(d, 0.05, 5, 200, NF_BISECT_STEP_GAMMA), 0);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 11);
    size_t runs = SIM_RUNS * 4, good = 0, bad = 0;
    for (size_t r = 0; r < runs; r++) {
        struct nf_bdelta w = {0, 0, 0};
        for (int i = 0; i < 20; i++)
            nf_bdelta_add(&w, 100 * (1 + 0.02 * gsl_ran_gaussian(g, 1)),
                          100 * (1 + 0.02 * gsl_ran_gaussian(g, 1)));
        struct nf_bstep s;
        assert_int_equal(nf_bstep_begin(&s, d, 1, &w), 0);
        int x = 0;
        while (x == 0) {
            double a = 100 * (1 + 0.02 * gsl_ran_gaussian(g, 1));
            double b = 100 * (1 + 0.02 * gsl_ran_gaussian(g, 1));
            x = nf_bstep_add(&s, a, b, 100 * (1 + 0.02 * gsl_ran_gaussian(g, 1)), 0);
        }
        good += x == NF_BSTEP_GOOD;
        bad += x == NF_BSTEP_BAD;
    }
    gsl_rng_free(g);
    free(d);
    printf("both nulls true, level 0.05: like GOOD rejected %.2f%%, like BAD %.2f%%\n",
           pct(bad, runs), pct(good, runs));
    double sl = SIM_RUNS < 1000 ? 1.5 : 0;
    assert_true(pct(good, runs) >= 3.9 - sl && pct(good, runs) <= 6.1 + sl);
    assert_true(pct(bad, runs) >= 3.9 - sl && pct(bad, runs) <= 6.1 + sl);
}

/* ---- Steps on constructed data ------------------------------------------- */

/* Rounds with a fixed pattern of +-1% noise around means 100 (GOOD),
 * 100 (1 + delta) (BAD) and the candidate's. */
static int run_step(const struct nf_bstep_design *d, double delta, double cand_frac, int direction,
                    size_t max, struct nf_bstep *s)
{
    static const double pat[] = {0.6, -1.1, 0.2, 0.9, -0.4, -0.8, 1.2, -0.3, 0.5, -0.7};
    assert_int_equal(nf_bstep_begin(s, d, direction, NULL), 0);
    int x = 0;
    for (size_t i = 0; i < max && x == 0; i++) {
        double e1 = pat[i % 10] / 100, e2 = pat[(i + 3) % 10] / 100, e3 = pat[(i + 7) % 10] / 100;
        double g = 100 * (1 + e1), b = 100 * (1 + delta) * (1 + e2);
        double c = 100 * exp(cand_frac * log1p(delta)) * (1 + e3);
        x = nf_bstep_add(s, g, b, c, i + 1 == max);
    }
    return x;
}

static void test_step_decisions(void **state)
{
    (void)state;
    struct nf_bisect_plan *p = plan_for(256);
    struct nf_bstep s;
    struct nf_bstep_look l;
    /* +5%: a candidate like GOOD, one like BAD */
    assert_int_equal(run_step(&p->step[0], 0.05, 0, 1, 200, &s), NF_BSTEP_GOOD);
    nf_bstep_look(&s, &l);
    assert_true(l.rounds >= 5 && l.rounds < 30);
    assert_true(fabs(l.change_pct) < 1.5 && l.ci_low_pct < 0 && l.ci_high_pct > 0);
    assert_true(fabs(l.position) < 0.3);
    assert_float_equal(l.delta_pct, 5, 1.5);
    assert_int_equal(l.decision, NF_BSTEP_GOOD);
    assert_true(l.z_bad >= l.bound);

    assert_int_equal(run_step(&p->step[0], 0.05, 1, 1, 200, &s), NF_BSTEP_BAD);
    nf_bstep_look(&s, &l);
    assert_true(l.ci_low_pct > 0 && fabs(l.position - 1) < 0.3);
    assert_true(l.z_good >= l.bound);

    /* half-way, far from both: both rejected at the first look */
    assert_int_equal(run_step(&p->step[0], 0.2, 0.5, 1, 200, &s), NF_BSTEP_BETWEEN);
    assert_int_equal(s.rounds, 5);
    assert_int_equal(s.reason, NF_BSTEP_NEITHER);

    /* a regression of a lower-is-better metric is a change downwards */
    assert_int_equal(run_step(&p->step[0], -0.05, 1, -1, 200, &s), NF_BSTEP_BAD);
    assert_int_equal(run_step(&p->step[0], -0.05, 0, -1, 200, &s), NF_BSTEP_GOOD);

    /* too small a change for the budget: undecided at its end */
    assert_int_equal(run_step(&p->step[0], 0.001, 0, 1, 12, &s), NF_BSTEP_BETWEEN);
    assert_int_equal(s.reason, NF_BSTEP_UNDECIDED);
    assert_int_equal(s.rounds, 12);

    /* a decided step takes no more rounds; bad values are refused */
    assert_int_equal(run_step(&p->step[0], 0.05, 0, 1, 200, &s), NF_BSTEP_GOOD);
    size_t n = s.rounds;
    assert_int_equal(nf_bstep_add(&s, 100, 105, 100, 0), NF_BSTEP_GOOD);
    assert_int_equal(s.rounds, n);
    assert_int_equal(nf_bstep_begin(&s, &p->step[0], 1, NULL), 0);
    assert_int_equal(nf_bstep_add(&s, 100, -1, 100, 0), -1);
    assert_int_equal(nf_bstep_add(&s, 100, INFINITY, 100, 0), -1);
    assert_int_equal(s.rounds, 0);
    assert_int_equal(nf_bstep_begin(&s, &p->step[0], 0, NULL), -1);
    /* a round without the candidate only adds delta's pair */
    assert_int_equal(nf_bstep_begin(&s, &p->step[0], 1, NULL), 0);
    assert_int_equal(nf_bstep_add(&s, 100, 105, NAN, 0), 0);
    assert_int_equal(s.rounds, 0);
    assert_int_equal(s.w.n, 1);
    /* kernel mode: rounds that reuse the prior's pairs do not count them
     * twice; later ones add theirs */
    struct nf_bdelta w = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        nf_bdelta_add(&w, 100 + i, 105 - i);
    assert_int_equal(nf_bstep_begin_reuse(&s, &p->step[0], 1, &w, 4), -1);
    assert_int_equal(nf_bstep_begin_reuse(&s, &p->step[0], 1, &w, 3), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(nf_bstep_add(&s, 100 + i, 105 - i, 101, 0), 0);
    assert_int_equal(s.w.n, 3);
    assert_float_equal(s.w.mean, w.mean, 0);
    assert_int_equal(nf_bstep_add(&s, 100, 105, 101, 0), 0);
    assert_int_equal(s.w.n, 4);
    assert_int_equal(s.rounds, 4);
    free(p);
}

/* The endpoint check and the confirmation on constructed rounds. */
static void test_endpoint_confirm(void **state)
{
    (void)state;
    struct nf_bisect_plan *p = plan_for(256);
    static const double pat[] = {0.6, -1.1, 0.2, 0.9, -0.4, -0.8, 1.2, -0.3, 0.5, -0.7};
    double g[150], b[150], same[150], half[150];
    for (size_t i = 0; i < 150; i++) {
        g[i] = 100 * (1 + pat[i % 10] / 100);
        b[i] = 105 * (1 + pat[(i + 3) % 10] / 100);
        same[i] = 100 * (1 + pat[(i + 3) % 10] / 400);
        half[i] = 100 * sqrt(1.05) * (1 + pat[(i + 7) % 10] / 400);
    }
    struct nf_bep ep;
    size_t n = 0;
    do
        assert_int_equal(nf_bisect_endpoint_eval(p, g, b, ++n, 0, 0, &ep), 0);
    while (ep.result == NF_BEP_CONTINUE);
    assert_int_equal(ep.result, NF_BEP_CHANGE);
    assert_int_equal(ep.direction, 1);
    assert_true(ep.ci_low_pct > 0 && ep.ci_low_pct < 5 && ep.ci_high_pct > 5);
    struct nf_bep rp;
    assert_int_equal(nf_bisect_endpoint_replay(p, g, b, 150, 0, 0, &rp), 0);
    assert_int_equal(rp.result, NF_BEP_CHANGE);
    assert_int_equal(rp.rounds, ep.rounds);
    /* a rate (higher is better) is analysed on reciprocals, yet the
     * direction is that of the values, as the steps see them */
    assert_int_equal(nf_bisect_endpoint_replay(p, g, b, 150, 1, 0, &rp), 0);
    assert_int_equal(rp.result, NF_BEP_CHANGE);
    assert_int_equal(rp.direction, 1);
    assert_true(rp.change_pct > 0);
    assert_int_equal(nf_bisect_endpoint_replay(p, b, g, 150, 1, 0, &rp), 0);
    assert_int_equal(rp.direction, -1);
    /* A/A at a CV of 0.25%: equivalent */
    n = 0;
    do
        assert_int_equal(nf_bisect_endpoint_eval(p, g, same, ++n, 0, 0, &ep), 0);
    while (ep.result == NF_BEP_CONTINUE);
    assert_int_equal(ep.result, NF_BEP_EQUIVALENT);
    /* a half change, too few rounds: inconclusive, and how many more */
    assert_int_equal(nf_bisect_endpoint_eval(p, g, same, 3, 0, 1, &ep), 0);
    assert_int_equal(ep.result, NF_BEP_INCONCLUSIVE);
    assert_true(ep.more_rounds > 0);

    /* confirmation: delta from 40 pairs of +5% */
    struct nf_bdelta w = {0, 0, 0};
    for (size_t i = 0; i < 40; i++)
        assert_int_equal(nf_bdelta_add(&w, g[i], b[i]), 0);
    struct nf_bcf c;
    struct nf_bcf_look cl;
    int r = 0;
    assert_int_equal(nf_bcf_begin(&c, p, 1, &w), 0);
    for (size_t i = 0; i < 150 && r == 0; i++)
        r = nf_bcf_add(&c, g[i], b[i], 0);
    assert_int_equal(r, NF_BCF_CONFIRMED);
    nf_bcf_look(&c, &cl);
    assert_true(cl.ci_low_pct > 0 && cl.ci_high_pct > 5 && fabs(cl.share_of_delta - 1) < 0.2);
    assert_int_equal(nf_bcf_begin(&c, p, 1, &w), 0);
    for (size_t i = r = 0; i < 150 && r == 0; i++)
        r = nf_bcf_add(&c, g[i], same[i], 0);
    assert_int_equal(r, NF_BCF_LIKE_PARENT);
    /* half of it, clearly: both rejected at the first look */
    assert_int_equal(nf_bcf_begin(&c, p, 1, &w), 0);
    for (size_t i = r = 0; i < 150 && r == 0; i++)
        r = nf_bcf_add(&c, same[i], half[i], 0);
    assert_int_equal(r, NF_BCF_PARTIAL);
    nf_bcf_look(&c, &cl);
    assert_float_equal(cl.share_of_delta, 0.5, 0.15);
    free(p);
}

/* ---- Whole bisections ---------------------------------------------------- */

static void test_sim_bars(void **state)
{
    (void)state;
    struct nf_bisect_plan *p = plan_for(256);
    struct nf_bsim_rule r;
    assert_int_equal(nf_bsim_rule_sequential(&r, p, 1), 0);
    struct nf_bsim_noise nz = {NF_BSIM_NORMAL, 0.025, 0};
    struct nf_bsim_truth t = {256, 1, 0.02};
    struct nf_bsim_tally a;
    assert_int_equal(nf_bsim_many(&r, &t, 1, &nz, SIM_RUNS, 2026, &a), 0);
    printf("+2%%, CV 2.5%%, %zu bisections: right %.1f%%, wrong %.1f%%, mean rounds %.1f\n",
           a.count, pct(a.right, a.count), pct(a.wrong, a.count), a.mean_rounds);
    assert_true(pct(a.right, a.count) >= 95 - SIM_SLACK);
    assert_true(pct(a.wrong, a.count) <= 5 + SIM_SLACK);
    assert_true(a.mean_rounds <= 400);
    t.first_bad = 0;
    assert_int_equal(nf_bsim_many(&r, &t, 1, &nz, SIM_RUNS, 2027, &a), 0);
    printf("no change, CV 2.5%%: nothing to bisect %.1f%%, a commit named %.1f%%\n",
           pct(a.nothing, a.count), pct(a.wrong, a.count));
    assert_true(pct(a.nothing, a.count) >= 95 - SIM_SLACK);
    assert_true(pct(a.wrong, a.count) <= 5 + SIM_SLACK);
    nf_bsim_rule_free(&r);
    free(p);
}

/* The fixed design loses commits where the sequential rule finds them. */
static void test_sim_fixed(void **state)
{
    (void)state;
    struct nf_bsim_rule r;
    assert_int_equal(nf_bsim_rule_fixed(&r, 10, 0.05), 0);
    struct nf_bsim_noise nz = {NF_BSIM_NORMAL, 0.025, 0};
    struct nf_bsim_truth t = {256, 1, 0.02};
    struct nf_bsim_tally a;
    assert_int_equal(nf_bsim_many(&r, &t, 1, &nz, 200, 5, &a), 0);
    assert_true(pct(a.right, a.count) < 30);
    /* 10 rounds of GOOD and BAD, then 10 per step: 90 when it bisects */
    assert_float_equal(
        a.mean_rounds,
        (90.0 * (double)(a.count - a.nothing) + 10.0 * (double)a.nothing) / (double)a.count, 1e-9);
    nf_bsim_rule_free(&r);
}

/* ---- The programs doc/bisect.md quotes --------------------------------- */

static void table(void)
{
    static const double cvs[] = {0.01, 0.025, 0.05}, changes[] = {0.02, 0.05, 0};
    struct nf_bisect_plan *p = plan_for(256);
    struct nf_bsim_rule seq, f10, f30;
    if (nf_bsim_rule_sequential(&seq, p, 1) < 0 || nf_bsim_rule_fixed(&f10, 10, 0.05) < 0 ||
        nf_bsim_rule_fixed(&f30, 30, 0.05) < 0)
        exit(1);
    const struct nf_bsim_rule *rules[] = {&seq, &f10, &f30};
    const char *names[] = {"sequential", "fixed 10", "fixed 30"};
    printf("256 revisions, alpha 0.05, 1,000 bisections per row\n\n");
    printf("| change | CV | design | right | wrong | nothing | between | unconfirmed | mean "
           "rounds | mean measurements |\n|---|---|---|---|---|---|---|---|---|---|\n");
    unsigned long seed = 100;
    for (size_t c = 0; c < 3; c++)
        for (size_t v = 0; v < 3; v++)
            for (size_t k = 0; k < 3; k++) {
                struct nf_bsim_noise nz = {NF_BSIM_NORMAL, cvs[v], 0};
                struct nf_bsim_truth t = {256, changes[c] > 0, changes[c]};
                struct nf_bsim_tally a;
                if (nf_bsim_many(rules[k], &t, 1, &nz, 1000, seed++, &a) < 0)
                    exit(1);
                printf("| %s | %.1f%% | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.0f | "
                       "%.0f |\n",
                       changes[c] > 0 ? (changes[c] > 0.03 ? "+5%" : "+2%") : "none", cvs[v] * 100,
                       names[k], pct(a.right, a.count), pct(a.wrong, a.count),
                       pct(a.nothing, a.count), pct(a.between, a.count),
                       pct(a.unconfirmed, a.count), a.mean_rounds, a.mean_measurements);
                fflush(stdout);
            }
    /* what "inconclusive: N more rounds would settle it" leads to */
    struct nf_bisect_opts o;
    nf_bisect_opts_default(&o);
    o.candidates = 256;
    o.ep_max = 400;
    struct nf_bisect_plan *p4 = malloc(sizeof *p4);
    struct nf_bsim_rule s4;
    if (!p4 || nf_bisect_plan_init(p4, &o, NULL, 0) < 0 || nf_bsim_rule_sequential(&s4, p4, 1) < 0)
        exit(1);
    for (size_t c = 0; c < 3; c++) {
        struct nf_bsim_noise nz = {NF_BSIM_NORMAL, 0.05, 0};
        struct nf_bsim_truth t = {256, changes[c] > 0, changes[c]};
        struct nf_bsim_tally a;
        if (nf_bsim_many(&s4, &t, 1, &nz, 1000, seed++, &a) < 0)
            exit(1);
        printf("| %s | 5.0%% | sequential, endpoint 5:400 | %.1f%% | %.1f%% | %.1f%% | %.1f%% | "
               "%.1f%% | %.0f | %.0f |\n",
               changes[c] > 0 ? (changes[c] > 0.03 ? "+5%" : "+2%") : "none", pct(a.right, a.count),
               pct(a.wrong, a.count), pct(a.nothing, a.count), pct(a.between, a.count),
               pct(a.unconfirmed, a.count), a.mean_rounds, a.mean_measurements);
    }
    nf_bsim_rule_free(&s4);
    free(p4);
    /* the first step after the endpoint check instead of in its rounds */
    struct nf_bsim_rule s0;
    if (nf_bsim_rule_sequential(&s0, p, 0) < 0)
        exit(1);
    for (size_t v = 0; v < 3; v++) {
        struct nf_bsim_noise nz = {NF_BSIM_NORMAL, cvs[v], 0};
        struct nf_bsim_truth t = {256, 1, 0.02};
        struct nf_bsim_tally a;
        if (nf_bsim_many(&s0, &t, 1, &nz, 1000, seed++, &a) < 0)
            exit(1);
        printf("| +2%% | %.1f%% | sequential, no head start | %.1f%% | %.1f%% | %.1f%% | %.1f%% | "
               "%.1f%% | %.0f | %.0f |\n",
               cvs[v] * 100, pct(a.right, a.count), pct(a.wrong, a.count), pct(a.nothing, a.count),
               pct(a.between, a.count), pct(a.unconfirmed, a.count), a.mean_rounds,
               a.mean_measurements);
    }
    nf_bsim_rule_free(&s0);
    /* the fixed design with as many measurements as the sequential rule */
    struct nf_bsim_rule f120;
    if (nf_bsim_rule_fixed(&f120, 120, 0.05) < 0)
        exit(1);
    for (size_t c = 0; c < 2; c++) {
        struct nf_bsim_noise nz = {NF_BSIM_NORMAL, 0.025, 0};
        struct nf_bsim_truth t = {256, 1, changes[c]};
        struct nf_bsim_tally a;
        if (nf_bsim_many(&f120, &t, 1, &nz, 1000, seed++, &a) < 0)
            exit(1);
        printf("| %s | 2.5%% | fixed 120 | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.0f | "
               "%.0f |\n",
               changes[c] > 0.03 ? "+5%" : "+2%", pct(a.right, a.count), pct(a.wrong, a.count),
               pct(a.nothing, a.count), pct(a.between, a.count), pct(a.unconfirmed, a.count),
               a.mean_rounds, a.mean_measurements);
    }
    /* a level shared by each round (the machine's state, CV 2%) on top */
    for (size_t k = 0; k < 3; k += 2) {
        struct nf_bsim_noise nz = {NF_BSIM_NORMAL, 0.025, 0.02};
        struct nf_bsim_truth t = {256, 1, 0.02};
        struct nf_bsim_tally a;
        if (nf_bsim_many(rules[k], &t, 1, &nz, 1000, seed++, &a) < 0)
            exit(1);
        printf(
            "| +2%% | 2.5%%, + 2%% per round | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | "
            "%.0f | %.0f |\n",
            names[k], pct(a.right, a.count), pct(a.wrong, a.count), pct(a.nothing, a.count),
            pct(a.between, a.count), pct(a.unconfirmed, a.count), a.mean_rounds,
            a.mean_measurements);
    }
    nf_bsim_rule_free(&f120);
    /* kernel mode: run means, one boot each; a round of the tally is a boot */
    struct nf_bsim_rule ker;
    if (nf_bsim_rule_kernel(&ker, p) < 0)
        exit(1);
    for (size_t c = 0; c < 3; c++) {
        struct nf_bsim_noise nz = {NF_BSIM_NORMAL, 0.025, 0};
        struct nf_bsim_truth t = {256, changes[c] > 0, changes[c]};
        struct nf_bsim_tally a;
        if (nf_bsim_many(&ker, &t, 1, &nz, 1000, seed++, &a) < 0)
            exit(1);
        printf("| %s | 2.5%% (run means) | kernel, boots reused | %.1f%% | %.1f%% | %.1f%% | "
               "%.1f%% | %.1f%% | %.0f boots | %.0f |\n",
               changes[c] > 0 ? (changes[c] > 0.03 ? "+5%" : "+2%") : "none", pct(a.right, a.count),
               pct(a.wrong, a.count), pct(a.nothing, a.count), pct(a.between, a.count),
               pct(a.unconfirmed, a.count), a.mean_rounds, a.mean_measurements);
    }
    nf_bsim_rule_free(&ker);
    nf_bsim_rule_free(&seq);
    nf_bsim_rule_free(&f10);
    nf_bsim_rule_free(&f30);
    free(p);
}

static void sweep(void)
{
    static const double gammas[] = {-2, -1, 0, 1, 2};
    static const size_t maxes[] = {80, 120, 200};
    printf("+2%%, CV 2.5%%, 256 revisions, 1,000 bisections per row, head start\n\n");
    printf("| gamma | step max | right | mean rounds |\n|---|---|---|---|\n");
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 3; j++) {
            struct nf_bisect_opts o;
            nf_bisect_opts_default(&o);
            o.candidates = 256;
            o.step_gamma = gammas[i];
            o.step_max = maxes[j];
            struct nf_bisect_plan *p = malloc(sizeof *p);
            struct nf_bsim_rule r;
            if (!p || nf_bisect_plan_init(p, &o, NULL, 0) < 0 ||
                nf_bsim_rule_sequential(&r, p, 1) < 0)
                exit(1);
            struct nf_bsim_noise nz = {NF_BSIM_NORMAL, 0.025, 0};
            struct nf_bsim_truth t = {256, 1, 0.02};
            struct nf_bsim_tally a;
            if (nf_bsim_many(&r, &t, 1, &nz, 1000, 2026, &a) < 0)
                exit(1);
            printf("| %g | %zu | %.1f%% | %.0f |\n", gammas[i], maxes[j], pct(a.right, a.count),
                   a.mean_rounds);
            fflush(stdout);
            nf_bsim_rule_free(&r);
            free(p);
        }
}

int main(void)
{
    if (getenv("NF_BISECT_TABLE")) {
        table();
        return 0;
    }
    if (getenv("NF_BISECT_SWEEP")) {
        sweep();
        return 0;
    }
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_alloc),          cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_budget),         cmocka_unit_test(test_step_calibration),
        cmocka_unit_test(test_step_decisions), cmocka_unit_test(test_endpoint_confirm),
        cmocka_unit_test(test_sim_bars),       cmocka_unit_test(test_sim_fixed),
    };
    return cmocka_run_group_tests_name("bisect_rule", t, NULL, NULL);
}
