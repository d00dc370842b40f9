/* What the machine did beside an outlier (analysis/diag_activity.c,
 * stats/activity.h): the readings that stand out named with their
 * medians and robust z, the fix that follows from the strongest, nothing
 * named where nothing stands out, and the rank correlation. */
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
#include "core/run.h"
#include "stats/activity.h"

#define N 20

/* A command run of N repetitions: wall 1.00..1.019 s, repetition 8 (index
 * 7) 58% slower than the median; other tasks' time 5..24 ms, run delay 0.1 ms, and the
 * readings of repetition 8 as given. */
static struct nf_run *mkrun(double busy8, double delay8, double netrx8)
{
    struct nf_run *r = nf_run_new("a", "command");
    r->id = 1;
    r->env = json_pack("{s:s}", "pin", "1");
    struct nf_metric *w = nf_run_metric(r, "wall", "seconds", NF_BETTER_LOWER, 1);
    struct nf_metric *b = nf_run_metric(r, "cpu.other-busy", "ms", NF_BETTER_LOWER, 0);
    struct nf_metric *d = nf_run_metric(r, "sched.run-delay", "ms", NF_BETTER_LOWER, 0);
    struct nf_metric *x = nf_run_metric(r, "cpu.softirq.NET_RX", "count", NF_BETTER_LOWER, 0);
    for (int i = 0; i < N; i++) {
        nf_metric_push(w, i == 7 ? 1.6 : 1.0 + 0.001 * ((i * 7) % N), 100);
        nf_metric_push(b, i == 7 ? busy8 : 5 + (i * 3) % N, 100);
        nf_metric_push(d, i == 7 ? delay8 : 0.1 + 0.01 * (i % 3), 100);
        nf_metric_push(x, i == 7 ? netrx8 : 0, 100);
    }
    return r;
}

static const struct nf_diag_finding *outliers(const struct nf_label_diag *ld, size_t *at)
{
    for (size_t i = 0; i < ld->d.n; i++)
        if (ld->d.f[i].kind == NF_DIAG_OUTLIERS) {
            *at = i;
            return &ld->d.f[i];
        }
    fail_msg("no outlier finding");
    return NULL;
}

static void test_other_task(void **state)
{
    (void)state;
    struct nf_run *r = mkrun(600, 38, 0);
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "command", "wall", 0.05, &ld), 0);
    size_t at = 0;
    const struct nf_diag_finding *f = outliers(&ld, &at);
    assert_non_null(ld.activity);
    const char *a = ld.activity[at];
    assert_non_null(a);
    assert_non_null(strstr(a, "repetition 8 (+"));
    assert_non_null(strstr(a, "other tasks ran 600 ms on CPU 1 (median 15.5 ms, robust z 78.8)"));
    assert_non_null(strstr(a, "run delay 38 ms (median 0.11 ms"));
    assert_null(strstr(a, "NET_RX"));
    /* both are time lost, the run delay by the larger z */
    assert_non_null(strstr(f->fix, "another task ran on the workload's CPU"));
    /* scipy.stats.spearmanr of the two columns: 0.9514531821875089,
     * p 1.192095962718478e-10; the z of 600 against the others: 78.8478 */
    assert_non_null(strstr(a, "over all 20 repetitions, wall and sched.run-delay: Spearman rho "
                              "0.95 (p 1.2e-10)"));
    nf_label_diag_free(&ld);
    nf_run_free(r);
}

static void test_flood(void **state)
{
    (void)state;
    struct nf_run *r = mkrun(10, 0.11, 14000);
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "command", "wall", 0.05, &ld), 0);
    size_t at = 0;
    const struct nf_diag_finding *f = outliers(&ld, &at);
    const char *a = ld.activity[at];
    assert_non_null(strstr(a, "repetition 8 (+"));
    assert_non_null(strstr(a, "14000 NET_RX softirqs (median 0, the others all equal)"));
    assert_null(strstr(a, "other tasks"));
    assert_non_null(strstr(f->fix, "/proc/irq/*/smp_affinity"));
    nf_label_diag_free(&ld);
    nf_run_free(r);
}

/* messaging and wakeup spread their tasks over the CPUs: the fix that
 * follows from the machine's activity finds the other task or the
 * interrupts, and never pins to one CPU (a command's does). */
static void test_spread_no_pin(void **state)
{
    (void)state;
    static const double busy[] = {600, 10}, netrx[] = {0, 14000};
    for (int k = 0; k < 2; k++) {
        struct nf_run *r = mkrun(busy[k], k ? 0.11 : 38, netrx[k]);
        free(r->workload);
        r->workload = strdup("messaging");
        struct nf_label_diag ld;
        assert_int_equal(nf_label_diagnose(&r, 1, "messaging", "wall", 0.05, &ld), 0);
        size_t at = 0;
        const struct nf_diag_finding *f = outliers(&ld, &at);
        assert_non_null(strstr(f->fix, k ? "/proc/irq/*/smp_affinity" : "another task ran"));
        assert_null(strstr(f->fix, "--pin"));
        nf_label_diag_free(&ld);
        nf_run_free(r);
        /* the same as a command: --pin */
        r = mkrun(busy[k], k ? 0.11 : 38, netrx[k]);
        assert_int_equal(nf_label_diagnose(&r, 1, "command", "wall", 0.05, &ld), 0);
        f = outliers(&ld, &at);
        assert_non_null(strstr(f->fix, "--pin"));
        nf_label_diag_free(&ld);
        nf_run_free(r);
    }
}

/* Interrupts of repetition 8 from one source: the source that rose
 * (virtio0-input.0) is named within cpu.irq, not the busier one that did
 * not (LOC), and no source is named as a reading of its own. */
static void test_irq_source(void **state)
{
    (void)state;
    struct nf_run *r = mkrun(10, 0.1, 0);
    struct nf_metric *t = nf_run_metric(r, "cpu.irq", "count", NF_BETTER_LOWER, 0);
    struct nf_metric *loc = nf_run_metric(r, "cpu.irq.LOC", "count", NF_BETTER_LOWER, 0);
    struct nf_metric *v = nf_run_metric(r, "cpu.irq.virtio0-input.0", "count", NF_BETTER_LOWER, 0);
    for (int i = 0; i < N; i++) {
        double l = 200 + i % 5, vi = i == 7 ? 2700 : 10 + i % 3;
        nf_metric_push(loc, l, 100);
        nf_metric_push(v, vi, 100);
        nf_metric_push(t, l + vi, 100);
    }
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "command", "wall", 0.05, &ld), 0);
    size_t at = 0;
    const struct nf_diag_finding *f = outliers(&ld, &at);
    const char *a = ld.activity[at];
    assert_non_null(a);
    /* 202 + 2700; the median of the others' sums: 213 */
    assert_non_null(strstr(a, "2902 interrupts on CPU 1 (median 213; virtio0-input.0, robust z"));
    assert_null(strstr(a, "cpu.irq."));
    assert_non_null(strstr(f->fix, "/proc/irq/*/smp_affinity"));
    nf_label_diag_free(&ld);
    nf_run_free(r);
}

/* Unpinned, the architecture's own interrupts are the one source "arch":
 * named with what they are. */
static void test_irq_source_arch(void **state)
{
    (void)state;
    struct nf_run *r = mkrun(10, 0.1, 0);
    struct nf_metric *t = nf_run_metric(r, "cpu.irq", "count", NF_BETTER_LOWER, 0);
    struct nf_metric *arch = nf_run_metric(r, "cpu.irq.arch", "count", NF_BETTER_LOWER, 0);
    for (int i = 0; i < N; i++) {
        double a = i == 7 ? 2700 : 200 + i % 5;
        nf_metric_push(arch, a, 100);
        nf_metric_push(t, a + 10, 100);
    }
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "command", "wall", 0.05, &ld), 0);
    size_t at = 0;
    outliers(&ld, &at);
    const char *a = ld.activity[at];
    assert_non_null(a);
    assert_non_null(strstr(a, "2710 interrupts on CPU 1 (median 212; arch: the timer's and IPIs, "
                              "robust z"));
    nf_label_diag_free(&ld);
    nf_run_free(r);
}

/* An outlier with quiet readings: named as such, the fix left as it was. */
static void test_nothing_stands_out(void **state)
{
    (void)state;
    struct nf_run *r = mkrun(10, 0.11, 0);
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(&r, 1, "command", "wall", 0.05, &ld), 0);
    size_t at = 0;
    const struct nf_diag_finding *f = outliers(&ld, &at);
    assert_non_null(
        strstr(ld.activity[at], "repetition 8 (+58%): no reading of the machine stands out"));
    assert_null(strstr(f->fix, "another task"));
    nf_label_diag_free(&ld);
    nf_run_free(r);
}

/* Two runs that differ, the slower with other tasks on its CPU in every
 * repetition: the runs' finding names it. */
static void test_runs_differ(void **state)
{
    (void)state;
    struct nf_run *r[2];
    for (int k = 0; k < 2; k++) {
        r[k] = nf_run_new("a", "command");
        r[k]->id = k + 1;
        struct nf_metric *w = nf_run_metric(r[k], "wall", "seconds", NF_BETTER_LOWER, 1);
        struct nf_metric *b = nf_run_metric(r[k], "cpu.other-busy", "ms", NF_BETTER_LOWER, 0);
        for (int i = 0; i < 10; i++) {
            nf_metric_push(w, (k ? 1.05 : 1.0) + 0.002 * ((i * 7) % 10), 100);
            nf_metric_push(b, (k ? 300 : 10) + (i * 3) % 10, 100);
        }
    }
    struct nf_label_diag ld;
    assert_int_equal(nf_label_diagnose(r, 2, "command", "wall", 0.05, &ld), 0);
    int found = 0;
    for (size_t i = 0; i < ld.d.n; i++)
        if (ld.d.f[i].kind == NF_DIAG_RUNS_DIFFER) {
            found = 1;
            assert_non_null(ld.activity[i]);
            assert_non_null(strstr(ld.activity[i], "run 2, the slowest (10 repetitions): median "
                                                   "other tasks ran 304 ms on all CPUs (median "
                                                   "elsewhere 14.5 ms)"));
            /* the totals: 10 * 300 + 45 against 10 * 10 + 45 */
            assert_non_null(strstr(ld.activity[i], "\nover the runs' totals, run 2 (the slowest): "
                                                   "other tasks ran 3045 ms on all CPUs (the "
                                                   "other runs' median 145 ms)"));
            assert_non_null(strstr(ld.d.f[i].fix, "another task"));
        }
    assert_true(found);
    nf_label_diag_free(&ld);
    nf_run_free(r[0]);
    nf_run_free(r[1]);
}

/* The robust z: (v - median) / (1.4826 MAD); sd 0 gives +-inf. */
static void test_activity_z(void **state)
{
    (void)state;
    double a[] = {1, 2, 3, 4, 100}, x[] = {1, 2, 3, 4, 5};
    struct nf_activity s;
    assert_int_equal(nf_activity(a, x, 5, &s), 0);
    assert_float_equal(s.median, 3, 1e-12);
    assert_float_equal(s.sd, 1.482602218505602, 1e-12); /* MAD 1 */
    assert_float_equal(nf_activity_z(&s, 100), 97 / 1.482602218505602, 1e-9);
    assert_true(isnan(s.rho)); /* fewer than NF_ACTIVITY_MIN_RANK */
    double c[] = {0, 0, 0, 0, 7};
    assert_int_equal(nf_activity(c, x, 5, &s), 0);
    assert_true(isinf(nf_activity_z(&s, 7)) && nf_activity_z(&s, 7) > 0);
    assert_float_equal(nf_activity_z(&s, 0), 0, 0);
    double bad[] = {1, NAN, 3};
    assert_int_equal(nf_activity(bad, x, 3, &s), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_other_task),    cmocka_unit_test(test_flood),
        cmocka_unit_test(test_spread_no_pin), cmocka_unit_test(test_nothing_stands_out),
        cmocka_unit_test(test_runs_differ),   cmocka_unit_test(test_activity_z),
        cmocka_unit_test(test_irq_source),    cmocka_unit_test(test_irq_source_arch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
