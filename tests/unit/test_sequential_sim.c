/* test_sequential_sim.c — operating characteristics of the stopping rule of
 * `ab` (src/stats/sequential.c), simulated without processes: 2,000
 * sessions per scenario, MIN 5, MAX 50, alpha 0.05, threshold +-1%, each
 * round drawing one value per variant and every look going through
 * nf_seq_evaluate().  The numbers are printed and doc/ab.md quotes them.
 *
 * A value is mu * f(round) * (1 + noise): f is the drift or step shared by
 * both variants of a round; the two variants' noise is independent; CV is
 * the per-sample CV of each variant.  Deterministic: gsl_rng_mt19937 with a
 * fixed seed per scenario; one design, computed once, serves every
 * session. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/sequential.h"

enum { MIN_R = 5, MAX_R = 50, SESSIONS = 2000 };

enum noise { NORMAL, LOGNORMAL, STUDENT3 };

struct scenario {
    const char *name;
    double shift; /* true change of the variant, e.g. 0.02 = +2% */
    double cv;
    enum noise noise;
    double drift; /* linear over the session, e.g. 0.05 */
    double step;  /* from the middle of the session on */
    unsigned long seed;
};

/* Log-ratios drawn directly (sd > 0): the variant's value is the base's
 * times (1 + shift) exp(sd x_t), x_t a unit-variance AR(1) series of
 * coefficient rho; the scenario's cv and noise are not used. */
struct serial_lr {
    double rho, sd;
    int sessions;
};

struct tally {
    int improved, regressed, equivalent, inconclusive;
    double rounds;
};

static struct nf_seq_design design;

static int setup(void **state)
{
    (void)state;
    struct nf_seq_opts o = {MIN_R, MAX_R, 0.05, 1.0};
    return nf_seq_design_init(&design, &o);
}

static double noise(gsl_rng *g, const struct scenario *s)
{
    switch (s->noise) {
    case LOGNORMAL: return exp(gsl_ran_gaussian(g, s->cv));
    case STUDENT3: return 1 + s->cv / sqrt(3.0) * gsl_ran_tdist(g, 3); /* sd of t3 is sqrt 3 */
    default: return 1 + gsl_ran_gaussian(g, s->cv);
    }
}

static struct tally run_lr(const struct scenario *s, const struct serial_lr *lr)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, s->seed);
    struct tally t = {0, 0, 0, 0, 0};
    int sessions = lr->sessions ? lr->sessions : SESSIONS;
    for (int k = 0; k < sessions; k++) {
        double a[MAX_R], b[MAX_R], x = 0;
        struct nf_seq_look l;
        for (size_t n = 1; n <= MAX_R; n++) {
            double f =
                (1 + s->drift * (double)(n - 1) / (MAX_R - 1)) * (n > MAX_R / 2 ? 1 + s->step : 1);
            if (lr->sd > 0) {
                double e = gsl_ran_gaussian(g, 1);
                x = n == 1 ? e : lr->rho * x + sqrt(1 - lr->rho * lr->rho) * e;
                a[n - 1] = 100 * f;
                b[n - 1] = a[n - 1] * (1 + s->shift) * exp(lr->sd * x);
            } else {
                a[n - 1] = 100 * f * noise(g, s);
                b[n - 1] = 100 * (1 + s->shift) * f * noise(g, s);
            }
            if (n < MIN_R)
                continue;
            assert_int_equal(
                nf_seq_evaluate(&design, a, b, n, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
            if (l.action != NF_SEQ_CONTINUE)
                break;
        }
        assert_true(l.action != NF_SEQ_CONTINUE);
        t.rounds += (double)l.rounds;
        t.improved += l.verdict == NF_IMPROVED;
        t.regressed += l.verdict == NF_REGRESSED;
        t.equivalent += l.verdict == NF_EQUIVALENT;
        t.inconclusive += l.verdict == NF_INCONCLUSIVE;
    }
    gsl_rng_free(g);
    t.rounds /= sessions;
    printf("  %-34s improved %5.1f%%  regressed %5.1f%%  equivalent %5.1f%%  "
           "inconclusive %5.1f%%  mean rounds %4.1f\n",
           s->name, 100.0 * t.improved / sessions, 100.0 * t.regressed / sessions,
           100.0 * t.equivalent / sessions, 100.0 * t.inconclusive / sessions, t.rounds);
    return t;
}

static struct tally run(const struct scenario *s)
{
    const struct serial_lr none = {0, 0, 0};
    return run_lr(s, &none);
}

static double pct(int k)
{
    return 100.0 * k / SESSIONS;
}

/* A/A: improved + regressed <= 6.0% (alpha + binomial slack). */
static void test_aa(void **state)
{
    (void)state;
    const struct scenario aa[] = {
        {"A/A normal, CV 1%", 0, 0.01, NORMAL, 0, 0, 101},
        {"A/A normal, CV 3%", 0, 0.03, NORMAL, 0, 0, 102},
        {"A/A lognormal, sigma 3%", 0, 0.03, LOGNORMAL, 0, 0, 103},
        {"A/A Student t3, CV 2%", 0, 0.02, STUDENT3, 0, 0, 104},
        {"A/A drift 5%, CV 2%", 0, 0.02, NORMAL, 0.05, 0, 105},
        {"A/A step 3% half-way, CV 2%", 0, 0.02, NORMAL, 0, 0.03, 106},
    };
    for (size_t i = 0; i < sizeof aa / sizeof aa[0]; i++) {
        struct tally t = run(&aa[i]);
        assert_true(pct(t.improved + t.regressed) <= 6.0);
    }
}

static void test_power(void **state)
{
    (void)state;
    const struct scenario two = {"+2%, CV 2.5%", 0.02, 0.025, NORMAL, 0, 0, 201};
    struct tally t = run(&two);
    assert_true(pct(t.regressed) >= 88 && t.rounds <= 29);
    const struct scenario one = {"+1%, CV 1%, drift 5%", 0.01, 0.01, NORMAL, 0.05, 0, 202};
    t = run(&one);
    assert_true(pct(t.regressed) >= 90 && t.rounds <= 21);
}

static void test_equivalence(void **state)
{
    (void)state;
    const struct scenario none = {"no change, CV 1%", 0, 0.01, NORMAL, 0, 0, 301};
    struct tally t = run(&none);
    assert_true(pct(t.equivalent) >= 90 && t.rounds <= 24.5);
    /* at the margin an equivalence claim is the error */
    const struct scenario margin = {"+1% (at the margin), CV 1%", 0.01, 0.01, NORMAL, 0, 0, 302};
    t = run(&margin);
    assert_true(pct(t.equivalent) <= 6.0);
}

/* The serially correlated rounds of doc/ab.md ("Rounds that are serially
 * correlated") and doc/statistics.md ("Serial correlation"), 4,000
 * sessions a line, the log-ratios drawn directly: printed, not asserted,
 * and run only with NF_SEQ_SIM_SERIAL set (main). */
static void test_serial(void **state)
{
    (void)state;
    const struct scenario sc[] = {
        {"A/A, log-ratios AR(1) 0.3, SD 3%", 0, 0, NORMAL, 0, 0, 401},
        {"A/A, log-ratios independent, SD 3%", 0, 0, NORMAL, 0, 0, 402},
        {"+2%, log-ratios SD 3.5%", 0.02, 0, NORMAL, 0, 0, 403},
    };
    const struct serial_lr lr[] = {{0.3, 0.03, 4000}, {0, 0.03, 4000}, {0, 0.035, 4000}};
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++)
        run_lr(&sc[i], &lr[i]);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_aa),
        cmocka_unit_test(test_power),
        cmocka_unit_test(test_equivalence),
    };
    const struct CMUnitTest serial[] = {cmocka_unit_test(test_serial)};
    int rc = cmocka_run_group_tests_name("sequential_sim", t, setup, NULL);
    if (getenv("NF_SEQ_SIM_SERIAL")) /* a measurement for the docs, on demand */
        rc += cmocka_run_group_tests_name("sequential_sim_serial", serial, setup, NULL);
    return rc;
}
