/* test_cluster_sim.c — the cluster detection on quantised data, by
 * simulation (fixed seeds: deterministic).  Timings printed with few
 * digits lie on a grid; normal samples rounded to 0.5-5% of their mean
 * must not be called clustered, and two modes must be found about as
 * often as without rounding.  It prints the tables that
 * doc/statistics.md ("Clusters", "Resolution") quotes; linked against the
 * code before the resolution rule, the same program gives the "before"
 * columns.  Values one step off must not be named outliers either. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/cluster.h"
#include "stats/diagnose.h"

/* Samples per cell.  Under the sanitizers (make check's second pass,
 * there for memory errors) a quarter of them, seeded alike: the rates
 * asserted below hold for both counts. */
#if defined(__SANITIZE_ADDRESS__)
#define REPS 250
#else
#define REPS 1000
#endif

static const double res[] = {0, 0.005, 0.01, 0.02, 0.05}; /* of the mean; 0: not rounded */
#define NRES (sizeof res / sizeof res[0])

static void round_to(double *x, size_t n, double step)
{
    if (step > 0)
        for (size_t i = 0; i < n; i++)
            x[i] = step * round(x[i] / step);
}

/* Share of REPS samples in which nf_clusters finds k >= 2; *outl, if
 * not NULL, receives the share in which the diagnosis names outliers. */
static double rate(gsl_rng *r, size_t n, double step, double p1, double m1, double cv1, double m2,
                   double cv2, double *outl)
{
    double x[200];
    size_t hits = 0, out_hits = 0;
    for (size_t k = 0; k < REPS; k++) {
        for (size_t i = 0; i < n; i++)
            x[i] = p1 >= 1 || gsl_rng_uniform(r) < p1 ? m1 * (1 + cv1 * gsl_ran_gaussian(r, 1))
                                                      : m2 * (1 + cv2 * gsl_ran_gaussian(r, 1));
        round_to(x, n, step);
        struct nf_clustering cl;
        assert_int_equal(nf_clusters(x, n, &cl, NULL), 0);
        hits += cl.k > 1;
        if (outl) {
            struct nf_diagnosis d;
            assert_int_equal(nf_diagnose(x, n, NULL, 0, &(struct nf_diag_opts){0}, &d), 0);
            int named = 0;
            for (size_t i = 0; i < d.n; i++)
                named |= d.f[i].kind == NF_DIAG_OUTLIERS;
            out_hits += named;
            nf_diagnosis_free(&d);
        }
    }
    if (outl)
        *outl = 100.0 * (double)out_hits / REPS;
    return 100.0 * (double)hits / REPS;
}

/* Normal samples (mean 0.8 ms) at CV 1, 2, 5%, rounded to 0.5-5% of the
 * mean: clustered in at most 2% of samples per cell (the rate on
 * unrounded samples is 1-4% at these n, by the threshold's design), and
 * outliers named in at most 4% (1-2% unrounded). */
static void test_quantised_unimodal(void **state)
{
    (void)state;
    static const size_t ns[] = {6, 10, 20, 50, 100, 200};
    static const double cvs[] = {0.01, 0.02, 0.05};
    enum { NN = sizeof ns / sizeof ns[0], NC = sizeof cvs / sizeof cvs[0] };
    double got[NC][NRES][NN], outl[NC][NRES][NN], worst = 0, worst_outl = 0;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    printf("unimodal normal, %% of %d samples called clustered (with outliers); n =", REPS);
    for (size_t t = 0; t < NN; t++)
        printf(" %zu", ns[t]);
    printf("\n");
    for (size_t c = 0; c < NC; c++)
        for (size_t q = 1; q < NRES; q++) {
            printf("  CV %.0f%%, rounded to %.1f%%:", cvs[c] * 100, res[q] * 100);
            for (size_t t = 0; t < NN; t++) {
                gsl_rng_set(r, 1000 * c + 10 * q + t);
                got[c][q][t] =
                    rate(r, ns[t], 0.8e-3 * res[q], 1, 0.8e-3, cvs[c], 0, 0, &outl[c][q][t]);
                worst = fmax(worst, got[c][q][t]);
                worst_outl = fmax(worst_outl, outl[c][q][t]);
                printf(" %.1f (%.1f)", got[c][q][t], outl[c][q][t]);
            }
            printf("\n");
        }
    gsl_rng_free(r);
    for (size_t c = 0; c < NC; c++)
        for (size_t q = 1; q < NRES; q++)
            for (size_t t = 0; t < NN; t++)
                assert_true(got[c][q][t] <= 2.0 && outl[c][q][t] <= 4.0);
    printf("  at most %.1f%% per cell (outliers: %.1f%%)\n", worst, worst_outl);
}

/* Two modes, rounded to 0.5-5% of the overall mean or not: found about
 * as often on the grid as off it once n >= 50, and in >= 95% of samples
 * of 50 when the step is at most 2% of the mean. */
static void test_quantised_bimodal(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double p1, m1, cv1, m2, cv2;
    } sh[] = {
        {"ping-pong: 70% at 6 +- 4%, 30% at 40 +- 12%", 0.7, 6, 0.04, 40, 0.12},
        {"50% at 1.00 +- 2%, 50% at 1.30 +- 2%", 0.5, 1.0, 0.02, 1.3, 0.02},
        {"70% at 1.00 +- 1%, 30% at 1.20 +- 3%", 0.7, 1.0, 0.01, 1.2, 0.03},
    };
    static const size_t ns[] = {10, 20, 50, 100};
    enum { NS = sizeof sh / sizeof sh[0], NN = sizeof ns / sizeof ns[0] };
    double got[NS][NRES][NN];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    printf("two modes, %% of %d samples clustered; n =", REPS);
    for (size_t t = 0; t < NN; t++)
        printf(" %zu", ns[t]);
    printf("\n");
    for (size_t s = 0; s < NS; s++)
        for (size_t q = 0; q < NRES; q++) {
            double mean = sh[s].p1 * sh[s].m1 + (1 - sh[s].p1) * sh[s].m2;
            printf("  %s, rounded to %.1f%%:", sh[s].name, res[q] * 100);
            for (size_t t = 0; t < NN; t++) {
                gsl_rng_set(r, 7000 + 1000 * s + 10 * q + t);
                got[s][q][t] = rate(r, ns[t], mean * res[q], sh[s].p1, sh[s].m1, sh[s].cv1,
                                    sh[s].m2, sh[s].cv2, NULL);
                printf(" %.1f", got[s][q][t]);
            }
            printf("\n");
        }
    gsl_rng_free(r);
    for (size_t s = 0; s < NS; s++)
        for (size_t q = 1; q < NRES; q++)
            for (size_t t = 0; t < NN; t++) {
                if (ns[t] >= 50 && res[q] <= 0.02)
                    assert_true(got[s][q][t] >= 95);
                /* the third shape's modes are 3.5 steps of 5% apart: one group */
                if (ns[t] >= 50 && (s < 2 || res[q] <= 0.02))
                    assert_true(got[s][q][t] >= got[s][0][t] - 5);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantised_unimodal),
        cmocka_unit_test(test_quantised_bimodal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
