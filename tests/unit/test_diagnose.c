/* test_diagnose.c — the noise diagnosis (diagnose.h): its findings, the
 * clusters it names (cluster.h) and the robust advice, on data of the
 * shapes met in practice and by simulation (fixed seeds: deterministic).
 * cluster.h's own methods against their references are in
 * test_cluster.c. */
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

#include "gsl_samples.h"
#include "stats/cluster.h"
#include "stats/diagnose.h"
#include "stats/robust.h"
#include "stats/verdict.h"

static const struct nf_diag_finding *find(const struct nf_diagnosis *d, enum nf_diag_kind k)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->f[i].kind == k)
            return &d->f[i];
    return NULL;
}

static const struct nf_diag_opts plain = {0};

/* 5 values at CV 0.5% plus one +60%: the outlier is named, nothing else. */
static void test_outlier_named(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(1);
    double x[6], base[5];
    gs_normal(r, x, 6, 6.2, 0.005);
    x[3] = 6.2 * 1.6;
    gs_normal(r, base, 5, 6.2, 0.005);
    struct nf_diagnosis d;
    assert_int_equal(nf_diagnose(x, 6, NULL, 0, &plain, &d), 0);
    const struct nf_diag_finding *f = find(&d, NF_DIAG_OUTLIERS);
    assert_non_null(f);
    assert_int_equal(f->nreps, 1);
    assert_int_equal(f->reps[0], 3);
    assert_true(x[3] > f->u.outliers.hi_fence);
    assert_null(find(&d, NF_DIAG_CLUSTERS));
    assert_null(find(&d, NF_DIAG_WARMUP));
    assert_int_equal(d.multimodal, 0);
    assert_non_null(strstr(f->summary, "repetition 3"));
    nf_diagnosis_free(&d);
    assert_null(d.f);

    /* Robust advice: the outlier no longer drives runs_needed.  The plain
     * CV of the sample is ~25%, which would ask for thousands. */
    struct nf_advice a;
    assert_int_equal(nf_runs_advice(base, 5, x, 6, 0, 1.0, 0.05, &a), 0);
    assert_true(a.runs_needed >= 2 && a.runs_needed < 100);
    assert_int_equal(a.multimodal, 0);
    assert_true(a.cv_pct < 1.5);
    struct nf_cmp_opts o = {
        .alpha = 0.05, .threshold_pct = 1, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};
    struct nf_cmp_result cr;
    nf_compare_samples(base, 5, x, 6, 0, &o, &cr);
    assert_true(nf_runs_needed(24.0, 1.0, 0.05) > 1000);
    /* and with --test yuen the outlier does not hide an "equivalent" */
    o.test = NF_TEST_YUEN;
    assert_int_equal(nf_compare_samples(base, 5, x, 6, 0, &o, &cr), 0);
    assert_true(cr.ci_high_pct - cr.ci_low_pct < 2.0);
    gsl_rng_free(r);
}

/* 70% at 1.00 +- 1%, 30% at 1.75 +- 10%, n = 50, in random order. */
static void test_clusters_70_30(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(2);
    double x[50];
    gs_two_clusters(r, x, 50, 1.0);
    struct nf_diagnosis d;
    assert_int_equal(nf_diagnose(x, 50, NULL, 0, &plain, &d), 0);
    const struct nf_diag_finding *f = find(&d, NF_DIAG_CLUSTERS);
    assert_non_null(f);
    assert_int_equal(d.multimodal, 1);
    const struct nf_clustering *cl = &f->u.clusters.cl;
    assert_int_equal(cl->k, 2);
    assert_int_equal(cl->c[0].n, 35);
    assert_int_equal(cl->c[1].n, 15);
    assert_true(fabs(cl->c[0].center - 1.0) < 0.01);
    assert_true(fabs(cl->c[1].center - 1.75) < 0.15);
    assert_true(cl->separation > cl->critical);
    /* every repetition is listed once, grouped by cluster */
    assert_int_equal(f->nreps, 50);
    for (size_t i = 0; i < 35; i++)
        assert_true(x[f->reps[i]] < 1.1);
    for (size_t i = 35; i < 50; i++)
        assert_true(x[f->reps[i]] > 1.2);
    /* the slow cluster is not "15 outliers", and the sample is not "noisy" */
    for (size_t i = 0; i < d.n; i++)
        if (d.f[i].kind == NF_DIAG_OUTLIERS)
            assert_true(d.f[i].nreps < 3);
    assert_null(find(&d, NF_DIAG_NOISY));
    assert_non_null(strstr(f->fix, "more repetitions will not help"));
    nf_diagnosis_free(&d);

    /* the advice says so too */
    double y[50];
    gs_two_clusters(r, y, 50, 1.0);
    struct nf_advice a;
    assert_int_equal(nf_runs_advice(x, 50, y, 50, 0, 1.0, 0.05, &a), 0);
    assert_int_equal(a.multimodal, 1);
    assert_int_equal(a.k_base, 2);
    gsl_rng_free(r);
}

/* Unpinned ping-pong: same CPU ~6, across CPUs ~40 usecs/op. */
static void test_clusters_pingpong(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(3);
    struct nf_diag_opts o = {.workload = NF_DIAG_PINGPONG};
    /* 20 repetitions, 14 fast and 6 slow; a session that is mostly slow
     * (CV ~20%); and one of 50 rounds */
    static const size_t nfast[] = {14, 3, 35}, nslow[] = {6, 17, 15};
    for (size_t t = 0; t < 3; t++) {
        size_t n = nfast[t] + nslow[t];
        double x[50];
        gs_normal(r, x, nfast[t], 6.0, 0.04);
        gs_normal(r, x + nfast[t], nslow[t], 40.0, 0.12);
        gs_shuffle(r, x, n);
        struct nf_diagnosis d;
        assert_int_equal(nf_diagnose(x, n, NULL, 0, &o, &d), 0);
        const struct nf_diag_finding *f = find(&d, NF_DIAG_CLUSTERS);
        assert_non_null(f);
        assert_int_equal(f->u.clusters.cl.k, 2);
        assert_int_equal(f->u.clusters.cl.c[0].n, nfast[t]);
        assert_non_null(strstr(f->cause, "placement"));
        assert_non_null(strstr(f->fix, "--pin"));
        assert_null(find(&d, NF_DIAG_NOISY));
        nf_diagnosis_free(&d);
    }
    /* pinned already: the fix does not repeat a plain --pin */
    o.pinned = 1;
    double x[20];
    gs_normal(r, x, 14, 6.0, 0.04);
    gs_normal(r, x + 14, 6, 40.0, 0.12);
    struct nf_diagnosis d;
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    assert_non_null(find(&d, NF_DIAG_CLUSTERS));
    assert_non_null(strstr(find(&d, NF_DIAG_CLUSTERS)->fix, "one CPU (--pin 0)"));
    assert_null(strstr(find(&d, NF_DIAG_CLUSTERS)->fix, "--pin 0,1"));
    nf_diagnosis_free(&d);
    /* pinned to one CPU already: the CPU is shared, no --pin advice */
    o.pinned = NF_DIAG_PINNED_ONE;
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    assert_non_null(strstr(find(&d, NF_DIAG_CLUSTERS)->cause, "shared with other work"));
    assert_null(strstr(find(&d, NF_DIAG_CLUSTERS)->fix, "--pin"));
    nf_diagnosis_free(&d);
    gsl_rng_free(r);
}

/* A CPU-bound command flipping between ~0.086 s and ~0.15 s; 20
 * repetitions, and the smallest sample examined for clusters that is
 * still useful, 6 (4 + 2). */
static void test_clusters_command(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(4);
    struct nf_diag_opts o = {.workload = NF_DIAG_COMMAND};
    double x[20];
    for (size_t i = 0; i < 20; i++)
        x[i] = gsl_rng_uniform(r) < 0.6 ? 0.086 * (1 + 0.01 * gsl_ran_gaussian(r, 1))
                                        : 0.15 * (1 + 0.015 * gsl_ran_gaussian(r, 1));
    struct nf_diagnosis d;
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    const struct nf_diag_finding *f = find(&d, NF_DIAG_CLUSTERS);
    assert_non_null(f);
    assert_int_equal(f->u.clusters.cl.k, 2);
    assert_true(fabs(f->u.clusters.cl.c[0].center - 0.086) < 0.005);
    assert_true(fabs(f->u.clusters.cl.c[1].center - 0.15) < 0.01);
    assert_non_null(strstr(f->fix, "--test shift"));
    assert_non_null(strstr(f->fix, "doctor"));
    nf_diagnosis_free(&d);

    gs_normal(r, x, 4, 0.086, 0.01);
    gs_normal(r, x + 4, 2, 0.15, 0.015);
    gs_shuffle(r, x, 6);
    assert_int_equal(nf_diagnose(x, 6, NULL, 0, &o, &d), 0);
    f = find(&d, NF_DIAG_CLUSTERS);
    assert_non_null(f);
    assert_int_equal(f->u.clusters.cl.c[1].n, 2);
    nf_diagnosis_free(&d);
    gsl_rng_free(r);
}

/* Clusters plus a far outlier: still two clusters, and the outlier named. */
static void test_clusters_and_outlier(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(5);
    double x[51];
    gs_two_clusters(r, x, 50, 1.0);
    x[50] = 5.0;
    struct nf_diagnosis d;
    assert_int_equal(nf_diagnose(x, 51, NULL, 0, &plain, &d), 0);
    const struct nf_diag_finding *f = find(&d, NF_DIAG_CLUSTERS);
    assert_non_null(f);
    assert_int_equal(f->u.clusters.cl.k, 2);
    int named = 0;
    for (size_t i = 0; i < d.n; i++)
        if (d.f[i].kind == NF_DIAG_OUTLIERS)
            for (size_t j = 0; j < d.f[i].nreps; j++)
                named |= d.f[i].reps[j] == 50;
    assert_true(named);
    nf_diagnosis_free(&d);
    gsl_rng_free(r);
}

static void test_warmup(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(6);
    double x[20];
    gs_normal(r, x, 20, 100, 0.01);
    x[0] = 118;
    x[1] = 109;
    struct nf_diag_opts o = {.warmup = 1};
    struct nf_diagnosis d;
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    const struct nf_diag_finding *f = find(&d, NF_DIAG_WARMUP);
    assert_non_null(f);
    assert_int_equal(f->u.warmup.count, 2);
    assert_int_equal(f->nreps, 2);
    assert_true(f->u.warmup.excess_pct > 10);
    assert_non_null(strstr(f->fix, "--warmup 3"));
    assert_null(find(&d, NF_DIAG_OUTLIERS)); /* judged as warm-up, not twice */
    nf_diagnosis_free(&d);

    /* higher is better: the warm-up is lower */
    x[0] = 82;
    x[1] = 91;
    o.higher_better = 1;
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    assert_non_null(find(&d, NF_DIAG_WARMUP));
    nf_diagnosis_free(&d);
    o.higher_better = 0;
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    assert_null(find(&d, NF_DIAG_WARMUP));
    assert_non_null(find(&d, NF_DIAG_OUTLIERS));
    nf_diagnosis_free(&d);

    /* a long warm-up forms a cluster of the first repetitions: warm-up */
    gs_normal(r, x, 20, 100, 0.01);
    for (size_t i = 0; i < 5; i++)
        x[i] = 140 + i;
    o.warmup = 0;
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    f = find(&d, NF_DIAG_WARMUP);
    assert_non_null(f);
    assert_int_equal(f->u.warmup.count, 5);
    assert_null(find(&d, NF_DIAG_CLUSTERS));
    nf_diagnosis_free(&d);

    /* per run: the first repetition of each of 3 runs */
    double y[30];
    gs_normal(r, y, 30, 100, 0.01);
    y[0] = y[10] = y[20] = 120;
    size_t len[3] = {10, 10, 10};
    assert_int_equal(nf_diagnose(y, 30, len, 3, &o, &d), 0);
    f = find(&d, NF_DIAG_WARMUP);
    assert_non_null(f);
    assert_int_equal(f->nreps, 3);
    assert_int_equal(f->reps[1], 10);
    assert_int_equal(f->u.warmup.count, 1);
    nf_diagnosis_free(&d);
    gsl_rng_free(r);
}

static void test_drift_runs_noisy(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(7);
    double x[30];
    struct nf_diagnosis d;
    gs_normal(r, x, 30, 100, 0.005);
    for (size_t i = 0; i < 30; i++)
        x[i] *= 1 + 0.002 * (double)i;
    assert_int_equal(nf_diagnose(x, 30, NULL, 0, &plain, &d), 0);
    const struct nf_diag_finding *f = find(&d, NF_DIAG_DRIFT);
    assert_non_null(f);
    assert_true(f->u.drift.rho > 0.5);
    assert_non_null(strstr(f->fix, "ab"));
    nf_diagnosis_free(&d);

    /* three runs at different levels */
    for (size_t i = 0; i < 30; i++)
        x[i] = (i < 10 ? 100 : i < 20 ? 103 : 98) * (1 + 0.005 * gsl_ran_gaussian(r, 1));
    size_t len[3] = {10, 10, 10};
    assert_int_equal(nf_diagnose(x, 30, len, 3, &plain, &d), 0);
    f = find(&d, NF_DIAG_RUNS_DIFFER);
    assert_non_null(f);
    assert_int_equal(f->u.runs.runs, 3);
    assert_true(f->u.runs.p < 0.001);
    nf_diagnosis_free(&d);
    size_t bad[2] = {10, 10};
    assert_int_equal(nf_diagnose(x, 30, bad, 2, &plain, &d), -1);

    /* unimodal and wide: noisy, with doctor as the fix */
    gs_normal(r, x, 30, 100, 0.10);
    assert_int_equal(nf_diagnose(x, 30, NULL, 0, &plain, &d), 0);
    f = find(&d, NF_DIAG_NOISY);
    assert_non_null(f);
    assert_true(f->u.noisy.cv_pct > 5);
    assert_non_null(strstr(f->fix, "doctor"));
    assert_null(strstr(f->fix, "--pin"));
    assert_null(find(&d, NF_DIAG_CLUSTERS));
    nf_diagnosis_free(&d);
    /* the same from unpinned ping-pong: pinning comes first */
    struct nf_diag_opts pp = {.workload = NF_DIAG_PINGPONG};
    assert_int_equal(nf_diagnose(x, 30, NULL, 0, &pp, &d), 0);
    f = find(&d, NF_DIAG_NOISY);
    assert_non_null(f);
    assert_non_null(strstr(f->fix, "--pin 0"));
    nf_diagnosis_free(&d);

    /* 1.5 ms of work timed in whole milliseconds: the values are 1s and 2s,
     * and the noise is the clock's step, which no pinning removes */
    gs_normal(r, x, 30, 1.5, 0.02);
    for (size_t i = 0; i < 30; i++)
        x[i] = i % 2 ? floor(x[i]) : ceil(x[i]);
    assert_int_equal(nf_diagnose(x, 30, NULL, 0, &pp, &d), 0);
    f = find(&d, NF_DIAG_NOISY);
    assert_non_null(f);
    assert_true(f->u.noisy.step_pct > 49 && f->u.noisy.step_pct < 101);
    assert_non_null(strstr(f->cause, "resolution"));
    assert_non_null(strstr(f->fix, "longer"));
    assert_null(strstr(f->fix, "--pin"));
    nf_diagnosis_free(&d);
    /* the same noise on a fine grid (values rounded to 0.01% of the mean)
     * is the machine's */
    gs_normal(r, x, 30, 100, 0.10);
    for (size_t i = 0; i < 30; i++)
        x[i] = round(x[i] * 100) / 100;
    assert_int_equal(nf_diagnose(x, 30, NULL, 0, &plain, &d), 0);
    f = find(&d, NF_DIAG_NOISY);
    assert_non_null(f);
    assert_true(f->u.noisy.step_pct < 0.1);
    assert_non_null(strstr(f->fix, "doctor"));
    nf_diagnosis_free(&d);
    /* wakeup-p50 of six repetitions, read off a log-linear histogram: two
     * fell in one bucket, but the values are on no coarse grid (their gaps
     * are 1.61, 1, 2.20 and 1.22 times the smallest): the machine's noise,
     * not a resolution of 9.14% of the median */
    const double hist_p50[] = {6.5115, 7.2475, 8.8635, 9.7595, 5.3275, 9.7595};
    assert_int_equal(nf_diagnose(hist_p50, 6, NULL, 0, &plain, &d), 0);
    f = find(&d, NF_DIAG_NOISY);
    assert_non_null(f);
    assert_true(f->u.noisy.step_pct == 0);
    assert_null(strstr(f->cause, "resolution"));
    assert_non_null(strstr(f->fix, "doctor"));
    nf_diagnosis_free(&d);

    /* a clean sample: nothing to say */
    gs_normal(r, x, 30, 100, 0.01);
    assert_int_equal(nf_diagnose(x, 30, NULL, 0, &plain, &d), 0);
    assert_int_equal(d.n, 0);
    nf_diagnosis_free(&d);
    /* invalid input */
    x[3] = NAN;
    assert_int_equal(nf_diagnose(x, 30, NULL, 0, &plain, &d), -1);
    gsl_rng_free(r);
}

/* Unimodal normal and lognormal samples at CV 1-20%, n = 5..200: no
 * clusters in >= 95% of 1,000 samples each (the threshold is the 99th
 * percentile of normal samples, so ~1-4% is expected); and 200 samples of
 * 1,000 values, where the floor of the threshold does the work. */
static void test_unimodal_not_clustered(void **state)
{
    (void)state;
    static const size_t ns[] = {5, 6, 8, 10, 15, 20, 30, 50, 100, 200, 1000};
    static const double cvs[] = {0.01, 0.05, 0.20};
    gsl_rng *r = gs_rng(8);
    double x[1000], worst = 0, outl = 0;
    for (int logn = 0; logn < 2; logn++)
        for (size_t c = 0; c < 3; c++)
            for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
                size_t n = ns[t], hits = 0, out_hits = 0, R = n > 200 ? 200 : 1000;
                double s = sqrt(log(1 + cvs[c] * cvs[c]));
                for (size_t k = 0; k < R; k++) {
                    for (size_t i = 0; i < n; i++)
                        x[i] = logn ? exp(s * gsl_ran_gaussian(r, 1))
                                    : 1 + cvs[c] * gsl_ran_gaussian(r, 1);
                    struct nf_clustering cl;
                    assert_int_equal(nf_clusters(x, n, &cl, NULL), 0);
                    hits += cl.k > 1;
                    if (!logn && c == 0) {
                        struct nf_diagnosis d;
                        assert_int_equal(nf_diagnose(x, n, NULL, 0, &plain, &d), 0);
                        out_hits += find(&d, NF_DIAG_OUTLIERS) != NULL;
                        nf_diagnosis_free(&d);
                    }
                }
                double rate = (double)hits / (double)R;
                if (rate > worst)
                    worst = rate;
                if ((double)out_hits / (double)R > outl)
                    outl = (double)out_hits / (double)R;
                if (rate > 0.05)
                    fprintf(stderr, "%s CV %.0f%% n %zu: clusters in %.1f%%\n",
                            logn ? "lognormal" : "normal", cvs[c] * 100, n, rate * 100);
                assert_true(rate <= 0.05);
            }
    printf("unimodal samples called clustered: at most %.1f%% per (shape, CV, n); "
           "normal samples with an outlier finding: at most %.1f%%\n",
           worst * 100, outl * 100);
    assert_true(outl <= 0.05);
    gsl_rng_free(r);
}

/* Two tight groups closer than NF_CLUSTER_MIN_GAP_PCT are one state (a
 * resident set of 4340 or 4344 KiB); the same groups 2% apart are two. */
static void test_clusters_min_gap(void **state)
{
    (void)state;
    double x[10];
    for (double gap = 0.001; gap < 0.03; gap += 0.019) {
        for (size_t i = 0; i < 10; i++)
            x[i] = (i % 2 ? 4340 * (1 + gap) : 4340) + (double)(i % 3) * 0.01;
        struct nf_clustering cl;
        assert_int_equal(nf_clusters(x, 10, &cl, NULL), 0);
        assert_int_equal(cl.k, gap < 0.01 ? 1 : 2);
        struct nf_diagnosis d;
        assert_int_equal(nf_diagnose(x, 10, NULL, 0, &(struct nf_diag_opts){0}, &d), 0);
        assert_int_equal(find(&d, NF_DIAG_CLUSTERS) != NULL, gap >= 0.01);
        nf_diagnosis_free(&d);
    }
}

/* Timings rounded to 10 usecs, 0.79, 0.80 and 0.81 ms four times each,
 * are one state: groups of identical values one step apart are not three
 * clusters ("each without spread"), nor their neighbours outliers. */
static void test_clusters_rounded_timings(void **state)
{
    (void)state;
    double x[] = {0.00080, 0.00081, 0.00079, 0.00080, 0.00081, 0.00079,
                  0.00080, 0.00081, 0.00079, 0.00080, 0.00081, 0.00079};
    struct nf_clustering cl;
    assert_int_equal(nf_clusters(x, 12, &cl, NULL), 0);
    assert_int_equal(cl.k, 1);
    assert_true(isfinite(cl.separation));
    struct nf_diagnosis d;
    assert_int_equal(nf_diagnose(x, 12, NULL, 0, &(struct nf_diag_opts){0}, &d), 0);
    assert_int_equal(d.n, 0); /* no finding at all */
    assert_int_equal(d.multimodal, 0);
    nf_diagnosis_free(&d);
    struct nf_advice a;
    assert_int_equal(nf_runs_advice(x, 12, x, 12, 0, 1.0, 0.05, &a), 0);
    assert_int_equal(a.multimodal, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outlier_named),
        cmocka_unit_test(test_clusters_70_30),
        cmocka_unit_test(test_clusters_pingpong),
        cmocka_unit_test(test_clusters_command),
        cmocka_unit_test(test_clusters_and_outlier),
        cmocka_unit_test(test_warmup),
        cmocka_unit_test(test_drift_runs_noisy),
        cmocka_unit_test(test_unimodal_not_clustered),
        cmocka_unit_test(test_clusters_min_gap),
        cmocka_unit_test(test_clusters_rounded_timings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
