/* The noise diagnosis wired into comparisons and runs (analysis/diagnosis.h,
 * report/diag.h): findings that name runs and repetitions as `show` numbers
 * them, the hints behind the fixes, the robust advice (an outlier does not
 * drive runs_needed; clusters say more repetitions will not help), the
 * strided subsample of a huge label, and the shift function and cluster
 * comparison in text, JSON and HTML. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "analysis/pairing.h"
#include "core/run.h"
#include "report/compare.h"
#include "report/diag.h"
#include "report/html.h"
#include "testrng.h"

static struct nf_run *mkrun(const char *label, const char *workload, int64_t id, const double *v,
                            size_t n)
{
    struct nf_run *r = nf_run_new(label, workload);
    r->id = id;
    struct nf_metric *m = nf_run_metric(r, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    for (size_t i = 0; i < n; i++)
        nf_metric_push(m, v[i], 100.0);
    return r;
}

static void normal(double *x, size_t n, double mean, double cv)
{
    for (size_t i = 0; i < n; i++)
        x[i] = mean * (1 + cv * trng_noise());
}

/* ping-pong's two states: 70% at 6 +- 4%, 30% at 40 +- 12%, interleaved */
static void pingpong(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = i % 10 < 7 ? 6 * (1 + 0.04 * trng_noise()) : 40 * (1 + 0.12 * trng_noise());
}

static const struct nf_diag_finding *finding(const struct nf_cmp_cell *x, enum nf_diag_kind k)
{
    for (size_t i = 0; x->diag.done && i < x->diag.d.n; i++)
        if (x->diag.d.f[i].kind == k)
            return &x->diag.d.f[i];
    return NULL;
}

/* The first finding of kind k of a label's diagnosis, or NULL. */
static const struct nf_diag_finding *label_finding(const struct nf_label_diag *ld,
                                                   enum nf_diag_kind k)
{
    for (size_t i = 0; i < ld->d.n; i++)
        if (ld->d.f[i].kind == k)
            return &ld->d.f[i];
    return NULL;
}

/* Make r a variant's run of an ab session of that order (its design
 * stored with it, as ab stores it). */
static void as_ab_variant(struct nf_run *r, const char *order)
{
    struct nf_ab_design d = {.min_rounds = 5,
                             .max_rounds = 50,
                             .comparisons = 1,
                             .alpha = 0.05,
                             .threshold_pct = 1,
                             .test = "welch",
                             .metric = ""};
    snprintf(d.order, sizeof(d.order), "%s", order);
    r->session = strdup("ab-7");
    r->env = json_pack("{s:o}", NF_AB_DESIGN_KEY, nf_ab_design_json(&d));
}

static char *render(void (*fn)(FILE *, const struct nf_comparison *), const struct nf_comparison *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, c);
    fclose(f);
    return buf;
}

static const struct nf_cmp_opts welch = {
    .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .decile = 1};

/* 5 values at CV 0.5% and one 60% slower, against a clean baseline: the
 * outlier is named, and runs_needed comes from the robust spread. */
static void test_outlier_named(void **state)
{
    (void)state;
    double b[6] = {6.20, 6.17, 6.23, 6.21, 6.19, 6.22};
    double v[6] = {6.21, 6.18, 6.24, 9.93, 6.20, 6.23};
    struct nf_run *rb = mkrun("base", "values", 1, b, 6), *rv = mkrun("out", "values", 2, v, 6);
    struct nf_label_runs in[] = {{"base", &rb, 1}, {"out", &rv, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &welch, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    assert_int_equal(c.blocks[0].cells[0].diag.d.n, 0);
    const struct nf_diag_finding *f = finding(x, NF_DIAG_OUTLIERS);
    assert_non_null(f);
    assert_int_equal(f->nreps, 1);
    int64_t id;
    size_t rep;
    nf_label_diag_rep(&x->diag, f->reps[0], &id, &rep);
    assert_int_equal(id, 2);
    assert_int_equal(rep, 4); /* the 4th, as `show` numbers them */
    assert_non_null(strstr(f->summary, "repetition 4 (9.93, +59.6%)"));
    assert_null(strstr(f->summary, "run 2"));
    /* the plain CV (22%) would ask for thousands */
    assert_int_equal(x->verdict, NF_INCONCLUSIVE);
    assert_true(x->runs_needed >= 2 && x->runs_needed < 100);
    assert_false(x->advice.multimodal);
    assert_null(x->advice_fix);
    assert_true(nf_runs_needed(x->s.cv_pct, 1.0, 0.05) > 1000);

    char *text = render(nf_compare_text, &c);
    assert_non_null(strstr(text, "note: out: 1 outlier: repetition 4"));
    assert_non_null(strstr(text, "likely cause: a disturbance"));
    assert_non_null(strstr(text, "fix: run doctor"));
    free(text);

    json_t *j = nf_compare_json(&c);
    json_t *row = json_array_get(json_object_get(j, "rows"), 0);
    json_t *d = json_object_get(row, "diagnosis");
    assert_int_equal(json_array_size(d), 1);
    json_t *d0 = json_array_get(d, 0);
    assert_string_equal(json_string_value(json_object_get(d0, "kind")), "outliers");
    assert_string_equal(json_string_value(json_object_get(d0, "label")), "out");
    assert_non_null(json_string_value(json_object_get(d0, "cause")));
    assert_non_null(strstr(json_string_value(json_object_get(d0, "fix")), "doctor"));
    json_t *r0 = json_array_get(json_object_get(d0, "repetitions"), 0);
    assert_int_equal(json_integer_value(json_object_get(r0, "run")), 2);
    assert_int_equal(json_integer_value(json_object_get(r0, "repetition")), 4);
    assert_true(json_real_value(json_object_get(d0, "high_fence")) < 9.93);
    assert_int_equal(json_integer_value(json_object_get(row, "runs_needed")), x->runs_needed);
    json_t *adv = json_object_get(row, "advice");
    assert_true(json_is_true(json_object_get(adv, "more_repetitions_help")));
    assert_true(json_real_value(json_object_get(adv, "robust_cv_pct")) < 1.0);
    /* the finding is among the notes too, on one line */
    json_t *notes = json_object_get(row, "notes");
    assert_non_null(strstr(json_string_value(json_array_get(notes, 0)), "repetition 4"));
    json_decref(j);
    nf_compare_free(&c);
    nf_run_free(rb);
    nf_run_free(rv);
}

/* Several runs of a label: a finding names the run by its id. */
static void test_runs_named(void **state)
{
    (void)state;
    double x1[10], x2[10];
    normal(x1, 10, 100, 0.005);
    normal(x2, 10, 100, 0.005);
    x2[2] = 150;
    struct nf_run *r[2] = {mkrun("a", "values", 7, x1, 10), mkrun("a", "values", 9, x2, 10)};
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(r, 2, "values", "usecs/op", 0.05, &ld), 0);
    assert_true(ld.done);
    assert_int_equal(ld.nruns, 2);
    assert_int_equal(ld.stride, 1);
    const struct nf_diag_finding *f = NULL;
    for (size_t i = 0; i < ld.d.n; i++)
        if (ld.d.f[i].kind == NF_DIAG_OUTLIERS)
            f = &ld.d.f[i];
    assert_non_null(f);
    assert_non_null(strstr(f->summary, "run 9 repetition 3 (150"));
    nf_label_diag_free(&ld);
    /* another workload, another metric: nothing to diagnose */
    assert_int_equal(nf_label_diagnose(r, 2, "pipe", "usecs/op", 0.05, &ld), 0);
    assert_false(ld.done);
    nf_label_diag_free(&ld);
    assert_int_equal(nf_label_diagnose(r, 2, "values", "nosuch", 0.05, &ld), 0);
    assert_false(ld.done);
    nf_label_diag_free(&ld);
    nf_run_free(r[0]);
    nf_run_free(r[1]);
}

/* Unpinned ping-pong in two states: clusters, --pin as the fix, and an
 * inconclusive row that says more repetitions will not help. */
static void test_clusters_advice(void **state)
{
    (void)state;
    double a[20], b[20];
    pingpong(a, 20);
    pingpong(b, 20);
    struct nf_run *ra = mkrun("a", "pipe", 1, a, 20), *rb = mkrun("b", "pipe", 2, b, 20);
    struct nf_label_runs in[] = {{"a", &ra, 1}, {"b", &rb, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &welch, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    const struct nf_diag_finding *f = finding(x, NF_DIAG_CLUSTERS);
    assert_non_null(f);
    assert_non_null(strstr(f->summary, "2 clusters"));
    assert_non_null(strstr(f->fix, "--pin 0"));
    assert_non_null(strstr(f->cause, "task placement"));
    assert_int_equal(x->verdict, NF_INCONCLUSIVE);
    assert_true(x->advice.multimodal);
    assert_int_equal(x->runs_needed, 0);
    assert_non_null(strstr(x->advice_fix, "--pin"));
    assert_non_null(strstr(x->advice_fix, "more repetitions will not help"));
    assert_null(x->clusters);
    assert_int_equal(nf_compare_explain(&c), 0);
    assert_non_null(x->clusters);
    assert_int_equal(x->clusters->k, 2);
    assert_null(x->shift); /* welch: no shift function */

    char *text = render(nf_compare_text, &c);
    assert_non_null(
        strstr(text, "note: b: inconclusive, and the samples of both sides form clusters: pin"));
    assert_null(strstr(text, "would settle it"));
    assert_non_null(strstr(text, "cluster by cluster"));
    free(text);
    text = render(nf_compare_text_brief, &c);
    assert_non_null(strstr(text, "note: pipe usecs/op: b: inconclusive, and the samples of both"));
    free(text);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    nf_compare_text_verdicts(fp, &c, NULL);
    fclose(fp);
    assert_non_null(strstr(buf, "the samples of both sides form clusters: pin"));
    free(buf);

    json_t *j = nf_compare_json(&c);
    json_t *row = json_array_get(json_object_get(j, "rows"), 0);
    assert_true(json_is_null(json_object_get(row, "runs_needed")));
    json_t *adv = json_object_get(row, "advice");
    assert_true(json_is_false(json_object_get(adv, "more_repetitions_help")));
    assert_non_null(strstr(json_string_value(json_object_get(adv, "fix")), "--pin"));
    json_t *cl = json_object_get(row, "clusters");
    assert_int_equal(json_integer_value(json_object_get(cl, "k")), 2);
    json_t *d0 = json_array_get(json_object_get(row, "diagnosis"), 0);
    assert_string_equal(json_string_value(json_object_get(d0, "kind")), "clusters");
    json_t *c0 = json_array_get(json_object_get(d0, "clusters"), 0);
    assert_int_equal(json_integer_value(json_object_get(c0, "n")), 14);
    assert_int_equal(json_array_size(json_object_get(c0, "repetitions")), 14);
    json_decref(j);
    nf_compare_free(&c);

    /* pinned already (the run's environment says so): --pin 0 and doctor,
     * not --pin 0,1 */
    ra->env = json_pack("{s:s}", "pin", "0,1");
    rb->env = json_pack("{s:s}", "pin", "0,1");
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &welch, err, sizeof(err)), 0);
    f = finding(&c.blocks[0].cells[1], NF_DIAG_CLUSTERS);
    assert_non_null(f);
    assert_null(strstr(f->fix, "--pin 0,1"));
    assert_non_null(strstr(f->fix, "doctor"));
    nf_compare_free(&c);
    /* a command in two speeds: judge on the fast cluster */
    free(ra->workload);
    free(rb->workload);
    ra->workload = strdup("command");
    rb->workload = strdup("command");
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &welch, err, sizeof(err)), 0);
    f = finding(&c.blocks[0].cells[1], NF_DIAG_CLUSTERS);
    assert_non_null(f);
    assert_non_null(strstr(f->fix, "--test shift"));
    nf_compare_free(&c);
    nf_run_free(ra);
    nf_run_free(rb);
}

/* messaging and wakeup spread many tasks over the CPUs: pinning them to
 * one CPU changes the benchmark, so no finding or advice says --pin 0
 * (pipe's still does). */
static void test_spread_no_pin_one(void **state)
{
    (void)state;
    static const char *const spread[] = {"messaging", "wakeup"};
    for (size_t w = 0; w < 2; w++) {
        double a[20], b[20];
        pingpong(a, 20);
        pingpong(b, 20);
        struct nf_run *ra = mkrun("a", spread[w], 1, a, 20), *rb = mkrun("b", spread[w], 2, b, 20);
        struct nf_label_runs in[] = {{"a", &ra, 1}, {"b", &rb, 1}};
        struct nf_comparison c;
        char err[256];
        assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &welch, err, sizeof(err)), 0);
        const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
        const struct nf_diag_finding *f = finding(x, NF_DIAG_CLUSTERS);
        assert_non_null(f);
        assert_null(strstr(f->fix, "--pin"));
        assert_non_null(strstr(f->fix, "one CPU would change the benchmark"));
        assert_int_equal(x->verdict, NF_INCONCLUSIVE);
        assert_non_null(x->advice_fix);
        assert_null(strstr(x->advice_fix, "--pin"));
        char *text = render(nf_compare_text, &c);
        assert_null(strstr(text, "--pin 0"));
        free(text);
        nf_compare_free(&c);
        nf_run_free(ra);
        nf_run_free(rb);

        /* unimodal and wide: doctor, not --pin 0 */
        double v[30];
        normal(v, 30, 100, 0.10);
        struct nf_run *r = mkrun("n", spread[w], 3, v, 30);
        struct nf_label_diag ld;
        assert_int_equal(nf_label_diagnose(&r, 1, spread[w], "usecs/op", 0.05, &ld), 0);
        f = label_finding(&ld, NF_DIAG_NOISY);
        assert_non_null(f);
        assert_null(strstr(f->fix, "--pin"));
        assert_non_null(strstr(f->fix, "doctor"));
        nf_label_diag_free(&ld);
        nf_run_free(r);
    }
    assert_int_equal(nf_diag_workload_of("pipe"), NF_DIAG_PINGPONG);
    assert_int_equal(nf_diag_workload_of("messaging"), NF_DIAG_SPREAD);
    assert_int_equal(nf_diag_workload_of("wakeup"), NF_DIAG_SPREAD);
    assert_int_equal(nf_diag_workload_of("command"), NF_DIAG_COMMAND);
    assert_int_equal(nf_diag_workload_of("netsend"), NF_DIAG_GENERIC);
}

/* A huge label is diagnosed on every k-th repetition, and the findings
 * still name the right ones. */
/* Drift in a variant of an ab session (interleaved rounds, its design
 * stored with the run): the fix does not say to interleave with ab, which
 * the run was; the same values run alone do. */
static void test_drift_ab_variant(void **state)
{
    (void)state;
    double v[20];
    for (size_t i = 0; i < 20; i++)
        v[i] = 10 + 0.05 * (double)i + 0.01 * trng_noise();
    struct nf_run *r = mkrun("b", "values", 1, v, 20);
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "values", "usecs/op", 0.05, &ld), 0);
    const struct nf_diag_finding *f = label_finding(&ld, NF_DIAG_DRIFT);
    assert_non_null(f);
    assert_non_null(strstr(f->fix, "interleave the variants with ab"));
    nf_label_diag_free(&ld);

    as_ab_variant(r, "random");
    assert_int_equal(nf_label_diagnose(&r, 1, "values", "usecs/op", 0.05, &ld), 0);
    f = label_finding(&ld, NF_DIAG_DRIFT);
    assert_non_null(f);
    assert_null(strstr(f->fix, "interleave the variants with ab"));
    assert_non_null(strstr(f->fix, "the rounds of ab pair it out"));
    nf_label_diag_free(&ld);
    nf_run_free(r);
}

/* Slow first repetitions in a variant of an ab session (any order, even
 * sequential): ab takes no --warmup, so the fix does not give one as if
 * it did; the same values run alone do. */
static void test_warmup_ab_variant(void **state)
{
    (void)state;
    double v[20];
    normal(v, 20, 100, 0.01);
    v[0] = 118;
    v[1] = 109;
    struct nf_run *r = mkrun("b", "values", 1, v, 20);
    r->warmup = 1;
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "values", "usecs/op", 0.05, &ld), 0);
    const struct nf_diag_finding *f = label_finding(&ld, NF_DIAG_WARMUP);
    assert_non_null(f);
    assert_string_equal(f->fix, "discard them: --warmup 3");
    nf_label_diag_free(&ld);

    as_ab_variant(r, "sequential");
    assert_int_equal(nf_label_diagnose(&r, 1, "values", "usecs/op", 0.05, &ld), 0);
    f = label_finding(&ld, NF_DIAG_WARMUP);
    assert_non_null(f);
    assert_null(strstr(f->fix, "discard them"));
    assert_non_null(strstr(f->fix, "ab discards only its first round as warm-up"));
    assert_non_null(strstr(f->fix, "run --warmup 3"));
    nf_label_diag_free(&ld);
    nf_run_free(r);
}

/* Only the baseline forms clusters (unpinned); the variant ran with --pin 0
 * and is clean: the advice names the baseline as the side that clusters,
 * and gives its fix (--pin), not as if the pinned variant lacked it. */
static void test_clusters_advice_baseline(void **state)
{
    (void)state;
    double a[20], b[20];
    pingpong(a, 20);
    normal(b, 20, 16.2, 0.04); /* the baseline's mean, one state */
    struct nf_run *ra = mkrun("nopin", "pipe", 1, a, 20), *rb = mkrun("k-pin0", "pipe", 2, b, 20);
    rb->env = json_pack("{s:s}", "pin", "0");
    struct nf_label_runs in[] = {{"nopin", &ra, 1}, {"k-pin0", &rb, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &welch, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    assert_int_equal(x->verdict, NF_INCONCLUSIVE);
    assert_true(x->advice.multimodal);
    assert_int_equal(x->advice.k_base, 2);
    assert_int_equal(x->advice.k_var, 1);
    assert_string_equal(x->advice_who, "nopin");
    char *text = render(nf_compare_text, &c);
    assert_non_null(strstr(text, "note: k-pin0: inconclusive, and the samples of the baseline "
                                 "nopin form clusters: pin them (--pin 0"));
    assert_null(strstr(text, "k-pin0: inconclusive, and the samples form"));
    free(text);
    nf_compare_free(&c);
    nf_run_free(ra);
    nf_run_free(rb);
}

static void test_strided(void **state)
{
    (void)state;
    size_t n = 25000; /* stride 3 for NF_DIAG_MAX_N 10,000 */
    double *x = malloc(n * sizeof *x);
    normal(x, n, 100, 0.01);
    x[3000] = 200; /* kept: 3000 = 3 * 1000 */
    x[3001] = 300; /* not diagnosed */
    struct nf_run *r = mkrun("big", "values", 5, x, n);
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "values", "usecs/op", 0.05, &ld), 0);
    assert_int_equal(ld.stride, 3);
    assert_int_equal(ld.run_len[0], (n + 2) / 3);
    assert_int_equal(ld.d.n, 1);
    assert_int_equal(ld.d.f[0].kind, NF_DIAG_OUTLIERS);
    assert_non_null(strstr(ld.d.f[0].summary, "repetition 3001 (200"));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    nf_diag_text(f, "  note: ", "big", &ld);
    fclose(f);
    assert_non_null(strstr(buf, "(1 in 3 repetitions diagnosed)"));
    free(buf);
    /* and so does the JSON note, the same finding on one line */
    char *line = nf_diag_line("big", &ld, 0);
    assert_non_null(strstr(line, "(200"));
    assert_non_null(strstr(line, "(1 in 3 repetitions diagnosed); likely cause: "));
    free(line);
    nf_label_diag_free(&ld);
    nf_run_free(r);
    free(x);
}

/* 70% at 1.00 +- 1%, 30% at 1.75 +- 10%, in random order */
static void two_clusters(double *x, size_t n, double fast)
{
    for (size_t i = 0; i < n; i++)
        x[i] =
            trng_unif() < 0.7 ? fast * (1 + 0.01 * trng_noise()) : 1.75 * (1 + 0.10 * trng_noise());
}

/* --test shift: the row decides on the chosen decile, and the rendered
 * comparison shows every decile. */
static void test_shift(void **state)
{
    (void)state;
    double a[50], b[50];
    two_clusters(a, 50, 1.0);
    two_clusters(b, 50, 1.02);
    struct nf_run *ra = mkrun("a", "command", 1, a, 50), *rb = mkrun("b", "command", 2, b, 50);
    struct nf_label_runs in[] = {{"a", &ra, 1}, {"b", &rb, 1}};
    struct nf_cmp_opts o = welch;
    o.test = NF_TEST_SHIFT;
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &o, err, sizeof(err)), 0);
    assert_int_equal(nf_compare_explain(&c), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    assert_int_equal(x->verdict, NF_REGRESSED);
    assert_non_null(x->shift);
    assert_true(x->shift->d[0].differs);
    /* the row is decile 1 of the same bootstrap */
    assert_true(x->r.p_value == x->shift->d[0].p);
    assert_true(x->r.base_mean == x->shift->d[0].base && x->r.mean == x->shift->d[0].var);
    assert_non_null(x->clusters);

    char *text = render(nf_compare_text, &c);
    assert_non_null(strstr(text, "Decile1 "));
    assert_non_null(strstr(text, "shift function"));
    assert_non_null(strstr(text, "1 (fast)"));
    assert_non_null(strstr(text, "9 (slow)"));
    free(text);
    json_t *j = nf_compare_json(&c);
    json_t *row = json_array_get(json_object_get(j, "rows"), 0);
    json_t *sh = json_object_get(row, "shift");
    assert_int_equal(json_array_size(json_object_get(sh, "deciles")), 9);
    assert_true(json_is_true(
        json_object_get(json_array_get(json_object_get(sh, "deciles"), 0), "outside_noise")));
    json_t *loc = json_object_get(row, "location");
    assert_string_equal(json_string_value(json_object_get(loc, "name")), "Decile1");
    json_decref(j);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    nf_html_report(f, &c, in, NULL);
    fclose(f);
    assert_non_null(strstr(buf, "<ul class=\"diag\">"));
    assert_non_null(strstr(buf, "<i>likely cause:</i>"));
    assert_non_null(strstr(buf, "<h4>Shift function: b vs a</h4>"));
    assert_non_null(strstr(buf, "<h4>Cluster by cluster: b vs a</h4>"));
    free(buf);
    nf_compare_free(&c);

    /* decile 9 (the slow end) did not move */
    o.decile = 9;
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &o, err, sizeof(err)), 0);
    assert_int_not_equal(c.blocks[0].cells[1].verdict, NF_REGRESSED);
    nf_compare_free(&c);
    nf_run_free(ra);
    nf_run_free(rb);
}

int main(void)
{
    trng_seed(4242);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outlier_named),     cmocka_unit_test(test_runs_named),
        cmocka_unit_test(test_clusters_advice),   cmocka_unit_test(test_clusters_advice_baseline),
        cmocka_unit_test(test_drift_ab_variant),  cmocka_unit_test(test_warmup_ab_variant),
        cmocka_unit_test(test_strided),           cmocka_unit_test(test_shift),
        cmocka_unit_test(test_spread_no_pin_one),
    };
    return cmocka_run_group_tests_name("diagnosis", tests, NULL, NULL);
}
