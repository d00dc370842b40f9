/* The comparison engine on synthetic runs: verdicts by direction, the
 * equivalence of equal data, inconclusive with runs_needed, run means when
 * runs differ, Holm, the JSON schema, and rows split by arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "report/compare.h"
#include "testrng.h"

static struct nf_run *mkrun(const char *label, double mean, double cv_pct, int n, int id)
{
    struct nf_run *r = nf_run_new(label, "pipe");
    r->id = id;
    struct nf_metric *u = nf_run_metric(r, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    struct nf_metric *o = nf_run_metric(r, "ops/sec", "ops/sec", NF_BETTER_HIGHER, 0);
    struct nf_metric *c = nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0);
    c->supported = 0;
    for (int i = 0; i < n; i++) {
        double v = mean * (1 + cv_pct / 100 * trng_noise());
        nf_metric_push(u, v, 100.0);
        nf_metric_push(o, 1e6 / v, 100.0);
    }
    return r;
}

/* Does the cell's noise diagnosis have a finding of this kind? */
static int has_finding(const struct nf_cmp_cell *x, enum nf_diag_kind kind)
{
    for (size_t i = 0; x->diag.done && i < x->diag.d.n; i++)
        if (x->diag.d.f[i].kind == kind)
            return 1;
    return 0;
}

static const struct nf_cmp_opts opts = {
    .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};

static void test_directions(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("base", 10.0, 1, 10, 1);
    struct nf_run *b = mkrun("slow", 11.0, 1, 10, 2);
    struct nf_run *f = mkrun("fast", 9.0, 1, 10, 3);
    struct nf_label_runs in[] = {{"base", &a, 1}, {"slow", &b, 1}, {"fast", &f, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 3, NULL, NULL, &opts, err, sizeof(err)), 0);
    /* cycles is stored <not supported>: a block that says so, untested */
    assert_int_equal(c.nblocks, 3);
    const struct nf_cmp_block *us = &c.blocks[0], *ops = &c.blocks[1], *cy = &c.blocks[2];
    assert_string_equal(cy->metric, "cycles");
    for (size_t l = 0; l < 3; l++)
        assert_true(cy->cells[l].unsupported && !cy->cells[l].has_data && !cy->cells[l].compared);
    assert_string_equal(us->metric, "usecs/op");
    assert_true(us->primary);
    assert_false(ops->primary);
    assert_int_equal(us->cells[1].verdict, NF_REGRESSED);
    assert_int_equal(us->cells[2].verdict, NF_IMPROVED);
    /* ops/sec is a rate, higher is better: the same verdicts. */
    assert_true(ops->rate);
    assert_int_equal(ops->cells[1].verdict, NF_REGRESSED);
    assert_int_equal(ops->cells[2].verdict, NF_IMPROVED);
    assert_true(us->cells[1].r.change_pct > 8 && us->cells[1].r.change_pct < 12);
    assert_true(ops->cells[1].r.change_pct < -7);
    /* Holm never lowers a p-value. */
    for (size_t i = 0; i < c.nblocks; i++)
        for (size_t l = 1; l < 3; l++)
            assert_true(c.blocks[i].cells[l].p_adjusted >= c.blocks[i].cells[l].r.p_value);
    assert_true(nf_compare_regressed(&c));

    json_t *j = nf_compare_json(&c);
    json_t *rows = json_object_get(j, "rows");
    assert_int_equal(json_array_size(rows), 6);
    const char *keys[] = {"workload",      "metric",      "better",     "label",
                          "baseline_mean", "mean",        "change_pct", "ci_low_pct",
                          "ci_high_pct",   "p_value",     "p_adjusted", "significant",
                          "verdict",       "runs_needed", "notes",      "supported"};
    for (size_t i = 0; i < json_array_size(rows); i++)
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
            if (!json_object_get(json_array_get(rows, i), keys[k]))
                fail_msg("row %zu lacks %s", i, keys[k]);
    json_t *r0 = json_array_get(rows, 0);
    assert_string_equal(json_string_value(json_object_get(r0, "verdict")), "regressed");
    assert_string_equal(json_string_value(json_object_get(r0, "label")), "slow");
    assert_true(json_is_true(json_object_get(r0, "significant")));
    assert_string_equal(json_string_value(json_object_get(j, "baseline")), "base");
    assert_true(json_is_true(json_object_get(r0, "supported")));
    json_t *r4 = json_array_get(rows, 4); /* cycles, slow */
    assert_string_equal(json_string_value(json_object_get(r4, "metric")), "cycles");
    assert_true(json_is_false(json_object_get(r4, "supported")));
    assert_true(json_is_null(json_object_get(r4, "mean")) &&
                json_is_null(json_object_get(r4, "p_value")) &&
                json_is_null(json_object_get(r4, "change_pct")));
    json_decref(j);

    char *buf;
    size_t len;
    FILE *mem = open_memstream(&buf, &len);
    nf_compare_text(mem, &c);
    fclose(mem);
    assert_non_null(strstr(buf, "pipe usecs/op (lower is better)"));
    assert_non_null(strstr(buf, "Hmean"));
    assert_non_null(strstr(buf, "regressed"));
    assert_non_null(strstr(buf, "improved"));
    /* the unsupported counter: its mean row and an empty verdict, no more */
    const char *cyc = strstr(buf, "pipe cycles (lower is better)");
    assert_non_null(cyc);
    assert_non_null(strstr(cyc, "\nAmean     cycles "));
    assert_non_null(strstr(cyc,
                           "<not supported>          <not supported>          <not supported>\n"
                           "Verdict "));
    assert_null(strstr(cyc, "\nStddev    cycles"));
    /* + is better: the slower variant shows a negative change between stars. */
    const char *star = strstr(buf, "* ");
    assert_non_null(star);
    star += strspn(star + 1, " ") + 1;
    assert_true(*star == '-');
    if (getenv("NF_SHOW"))
        fputs(buf, stderr);
    free(buf);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
    nf_run_free(f);
}

static void test_equivalent_and_inconclusive(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("a", 10.0, 0.5, 30, 1);
    struct nf_run *a2 = nf_run_new("a2", "pipe");
    /* The very same data under another label. */
    for (size_t i = 0; i < a->nmetrics; i++) {
        struct nf_metric *m = nf_run_metric(a2, a->metrics[i].name, a->metrics[i].unit,
                                            a->metrics[i].better, a->metrics[i].primary);
        m->supported = a->metrics[i].supported;
        for (size_t k = 0; k < a->metrics[i].n; k++)
            nf_metric_push(m, a->metrics[i].values[k], 100.0);
    }
    struct nf_run *noisy1 = mkrun("n1", 10.0, 8, 4, 3);
    struct nf_run *noisy2 = mkrun("n2", 10.1, 8, 4, 4);
    struct nf_label_runs in[] = {{"a", &a, 1}, {"a2", &a2, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.nblocks, 1);
    assert_int_equal(c.blocks[0].cells[1].verdict, NF_EQUIVALENT);
    assert_true(c.blocks[0].cells[1].r.change_pct == 0);
    nf_compare_free(&c);

    struct nf_label_runs in2[] = {{"n1", &noisy1, 1}, {"n2", &noisy2, 1}};
    assert_int_equal(nf_compare_build(&c, in2, 2, "pipe", "usecs/op", &opts, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    assert_int_equal(x->verdict, NF_INCONCLUSIVE);
    assert_true(x->runs_needed > x->n);
    /* CV 8% is flagged as noisy by the diagnosis. */
    assert_true(has_finding(x, NF_DIAG_NOISY));
    json_t *j = nf_compare_json(&c);
    json_t *r0 = json_array_get(json_object_get(j, "rows"), 0);
    assert_true(json_integer_value(json_object_get(r0, "runs_needed")) > 4);
    assert_string_equal(json_string_value(json_object_get(r0, "verdict")), "inconclusive");
    json_decref(j);
    nf_compare_free(&c);

    /* Unknown metric or workload: an error line. */
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "bogus", &opts, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no metric 'bogus'"));
    nf_compare_free(&c);
    assert_int_equal(nf_compare_build(&c, in, 2, "hackbench", NULL, &opts, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "workload 'hackbench'"));
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(a2);
    nf_run_free(noisy1);
    nf_run_free(noisy2);
}

static void test_run_means(void **state)
{
    (void)state;
    /* Three runs of the baseline whose levels differ by far more than their
     * repetitions vary: the third case of doc/cases.md. */
    struct nf_run *b[3] = {mkrun("b", 10.0, 0.2, 10, 1), mkrun("b", 10.5, 0.2, 10, 2),
                           mkrun("b", 9.6, 0.2, 10, 3)};
    struct nf_run *v[3] = {mkrun("v", 10.1, 0.2, 10, 4), mkrun("v", 10.05, 0.2, 10, 5),
                           mkrun("v", 10.15, 0.2, 10, 6)};
    struct nf_label_runs in[] = {{"b", b, 3}, {"v", v, 3}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    const struct nf_cmp_cell *base = &c.blocks[0].cells[0];
    assert_true(base->run_means);
    assert_int_equal(base->n, 3);
    assert_int_equal(base->nsamples, 30);
    int noted = 0;
    for (size_t k = 0; k < base->nnotes; k++)
        noted |= strstr(base->notes[k], "runs differ more than their repetitions") != NULL &&
                 strstr(base->notes[k], "using 3 run means") != NULL;
    assert_true(noted);
    /* With only 3 run means a side, the per-sample precision is gone: the
     * 0.6% difference cannot be called significant. */
    assert_int_not_equal(c.blocks[0].cells[1].verdict, NF_IMPROVED);
    assert_int_not_equal(c.blocks[0].cells[1].verdict, NF_REGRESSED);
    nf_compare_free(&c);
    for (int i = 0; i < 3; i++) {
        nf_run_free(b[i]);
        nf_run_free(v[i]);
    }
}

static void test_drift_note(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("a", 10.0, 0.5, 12, 1);
    struct nf_run *d = mkrun("d", 10.0, 0.1, 12, 2);
    struct nf_metric *m = nf_run_find(d, "usecs/op");
    for (size_t i = 0; i < m->n; i++)
        m->values[i] *= 1 + 0.01 * (double)i; /* 1% slower every repetition */
    struct nf_label_runs in[] = {{"a", &a, 1}, {"d", &d, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    assert_true(has_finding(x, NF_DIAG_DRIFT));
    assert_false(has_finding(&c.blocks[0].cells[0], NF_DIAG_DRIFT));
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(d);
}

/* A row's note or NULL: the first that starts with prefix. */
static const char *note_of(const struct nf_cmp_cell *x, const char *prefix)
{
    for (size_t i = 0; i < x->nnotes; i++)
        if (strncmp(x->notes[i], prefix, strlen(prefix)) == 0)
            return x->notes[i];
    return NULL;
}

/* The change in a real-change-inside-the-margin note and in ab's verdict
 * lines has the table's sign: + is better, on either direction. */
static void test_signs_as_the_table(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("a", 10.0, 0.5, 30, 1);
    struct nf_run *w = mkrun("w", 10.3, 0.5, 30, 2); /* 3% slower */
    struct nf_label_runs in[] = {{"a", &a, 1}, {"w", &w, 1}};
    struct nf_cmp_opts wide = opts;
    wide.threshold_pct = 5;
    struct nf_comparison c;
    char err[256], want[128];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &wide, err, sizeof(err)), 0);
    for (size_t i = 0; i < 2; i++) { /* usecs/op (lower is better), ops/sec (higher) */
        const struct nf_cmp_cell *x = &c.blocks[i].cells[1];
        assert_int_equal(x->verdict, NF_EQUIVALENT);
        assert_true(x->significant);
        double ch = c.blocks[i].better == NF_BETTER_LOWER ? -x->r.change_pct : x->r.change_pct;
        assert_true(ch < -2);
        snprintf(want, sizeof(want), "w: a real change of %+.2f%% (worse), inside the ±5%% margin",
                 ch);
        const char *note = note_of(x, "w: a real change");
        assert_non_null(note);
        assert_string_equal(note, want);
    }
    char *buf;
    size_t len;
    FILE *mem = open_memstream(&buf, &len);
    nf_compare_text(mem, &c);
    nf_compare_text_verdicts(mem, &c, NULL);
    nf_compare_text_verdicts(mem, &c, "ops/sec");
    fclose(mem);
    if (getenv("NF_SHOW"))
        fputs(buf, stderr);
    /* the table's cell, the note and the verdict lines: one sign */
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    snprintf(want, sizeof(want), "*%6.2f%%*", -x->r.change_pct); /* significant */
    assert_non_null(strstr(buf, want));
    snprintf(want, sizeof(want), "Verdict: w vs a on pipe usecs/op: equivalent (%+.2f%%, CI [",
             -x->r.change_pct);
    const char *line = strstr(buf, want);
    assert_non_null(line);
    double lo, hi;
    assert_int_equal(sscanf(strchr(line, '[') + 1, "%lf%%, %lf%%", &lo, &hi), 2);
    assert_true(fabs(lo + x->r.ci_high_pct) < 0.006 && fabs(hi + x->r.ci_low_pct) < 0.006);
    assert_non_null(strstr(line, "] with + as better; lower is better)\n"));
    x = &c.blocks[1].cells[1];
    snprintf(want, sizeof(want), "Verdict: w vs a on pipe ops/sec: equivalent (%+.2f%%, CI [",
             x->r.change_pct);
    line = strstr(buf, want);
    assert_non_null(line);
    assert_non_null(strstr(line, "] with + as better; higher is better)\n"));
    free(buf);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(w);
}

/* A run of mkrun's whose arguments are the words of args. */
static struct nf_run *mkrun_args(const char *label, const char *args, double mean, int id)
{
    struct nf_run *r = mkrun(label, mean, 0.3, 10, id);
    char *copy = strdup(args), *words[8];
    int n = 0;
    for (char *w = strtok(copy, " "); w && n < 8; w = strtok(NULL, " "))
        words[n++] = w;
    nf_run_set_args(r, n, words);
    free(copy);
    return r;
}

static int any_note(const struct nf_comparison *c, const char *text)
{
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 0; l < c->nlabels; l++)
            for (size_t k = 0; k < c->blocks[i].cells[l].nnotes; k++)
                if (strstr(c->blocks[i].cells[l].notes[k], text))
                    return 1;
    return 0;
}

/* A label whose runs of a workload have several argument lists (pipe -l
 * 1000 and -l 20000 under one label, or a hyperfine export of several
 * commands) is not pooled into one row: each argument list is a row, its
 * runs compared with the runs of the same arguments; a list the baseline
 * lacks is shown, not compared, with a note that says why. */
static void test_split_by_args(void **state)
{
    (void)state;
    struct nf_run *b[] = {mkrun_args("base", "-l 1000", 10.0, 1),
                          mkrun_args("base", "-l 20000", 5.0, 2)};
    /* matched by arguments, not by order; -T has no counterpart */
    struct nf_run *v[] = {mkrun_args("new", "-l 20000", 5.0, 3),
                          mkrun_args("new", "-l 1000", 11.0, 4), mkrun_args("new", "-T", 7.0, 5)};
    struct nf_label_runs in[] = {{"base", b, 2}, {"new", v, 3}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.nblocks, 3);
    const struct nf_cmp_block *k1 = &c.blocks[0], *k20 = &c.blocks[1], *t = &c.blocks[2];
    assert_string_equal(k1->args, "-l 1000");
    assert_string_equal(k1->name, "pipe '-l 1000'");
    assert_string_equal(k20->args, "-l 20000");
    assert_string_equal(t->args, "-T");
    for (size_t l = 0; l < 2; l++) {
        assert_int_equal(k1->cells[l].nruns, 1);
        assert_int_equal(k20->cells[l].nruns, 1);
        assert_false(k1->cells[l].run_means || k20->cells[l].run_means);
    }
    assert_int_equal(k1->cells[1].verdict, NF_REGRESSED);
    assert_true(k1->cells[1].r.change_pct > 8 && k1->cells[1].r.change_pct < 12);
    assert_true(k20->cells[1].compared && fabs(k20->cells[1].r.change_pct) < 1);
    /* -T: the baseline has no such run */
    assert_false(t->cells[0].has_data);
    assert_true(t->cells[1].has_data && !t->cells[1].compared);
    assert_non_null(note_of(&t->cells[0], "base: not compared: no run of pipe '-T' (its pipe runs: "
                                          "'-l 1000', '-l 20000')"));
    /* nothing reads the different benchmarks as runs that differ */
    assert_false(any_note(&c, "runs differ"));
    assert_true(nf_compare_regressed(&c));

    json_t *j = nf_compare_json(&c);
    json_t *rows = json_object_get(j, "rows");
    assert_int_equal(json_array_size(rows), 3);
    json_t *args = json_object_get(json_array_get(rows, 0), "args");
    assert_int_equal(json_array_size(args), 2);
    assert_string_equal(json_string_value(json_array_get(args, 1)), "1000");
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "workload")),
                        "pipe");
    json_t *r2 = json_array_get(rows, 2);
    assert_true(json_is_null(json_object_get(r2, "p_value")));
    assert_string_equal(json_string_value(json_object_get(r2, "verdict")), "inconclusive");
    json_decref(j);

    char *buf;
    size_t len;
    FILE *mem = open_memstream(&buf, &len);
    nf_compare_text(mem, &c);
    nf_compare_text_brief(mem, &c);
    fclose(mem);
    if (getenv("NF_SHOW"))
        fputs(buf, stderr);
    assert_non_null(strstr(buf, "pipe '-l 1000' usecs/op (lower is better)"));
    assert_non_null(strstr(buf, "pipe '-l 20000' usecs/op (lower is better)"));
    assert_non_null(strstr(buf, "\npipe '-T' "));
    free(buf);
    nf_compare_free(&c);
    for (size_t i = 0; i < 2; i++)
        nf_run_free(b[i]);
    for (size_t i = 0; i < 3; i++)
        nf_run_free(v[i]);
}

/* compare --brief counts the notes under the other metrics per row: with
 * rows split by arguments, each count says which row it is of. */
static void test_brief_split_notes(void **state)
{
    (void)state;
    struct nf_run *b[] = {mkrun_args("base", "-l 1000", 10.0, 1),
                          mkrun_args("base", "-l 20000", 5.0, 2)};
    struct nf_run *v[] = {mkrun_args("new", "-l 1000", 10.5, 3),
                          mkrun_args("new", "-l 20000", 5.2, 4)};
    struct nf_label_runs in[] = {{"base", b, 2}, {"new", v, 2}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    char *buf;
    size_t len;
    FILE *mem = open_memstream(&buf, &len);
    nf_compare_text_brief(mem, &c);
    fclose(mem);
    if (getenv("NF_SHOW"))
        fputs(buf, stderr);
    const char *line = strstr(buf, "  notes under the other metrics: pipe '-l 1000': ops/sec ");
    assert_non_null(line);
    assert_non_null(strstr(line, "; pipe '-l 20000': ops/sec "));
    assert_non_null(strstr(line, "; compare -m METRIC shows them\n"));
    free(buf);
    nf_compare_free(&c);
    for (size_t i = 0; i < 2; i++) {
        nf_run_free(b[i]);
        nf_run_free(v[i]);
    }
}

/* What stays one row: each label's runs have one argument list, even when
 * the lists differ between labels (a variant that is another program; an
 * ab session's variants, paired by round).  Arguments match as `list`
 * shows them: an imported hyperfine command "sleep 0.01" is the run of
 * the words sleep, 0.01. */
static void test_one_list_per_label(void **state)
{
    (void)state;
    struct nf_run *o[] = {mkrun_args("old", "./old -x", 10.0, 1),
                          mkrun_args("old", "./old -x", 10.0, 2)};
    struct nf_run *n = mkrun_args("new", "./new -x", 9.0, 3);
    struct nf_label_runs in[] = {{"old", o, 2}, {"new", &n, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.nblocks, 1);
    assert_null(c.blocks[0].args);
    assert_string_equal(c.blocks[0].name, "pipe");
    assert_int_equal(c.blocks[0].cells[0].nruns, 2);
    assert_int_equal(c.blocks[0].cells[1].verdict, NF_IMPROVED);
    json_t *j = nf_compare_json(&c);
    assert_null(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "args"));
    json_decref(j);
    nf_compare_free(&c);

    /* an ab session: one run a variant, other arguments, paired by round */
    struct nf_run *a = mkrun_args("a", "-l 1000", 10.0, 4),
                  *t = mkrun_args("t", "-T -l 1000", 9.0, 5);
    a->session = strdup("ab-1");
    t->session = strdup("ab-1");
    struct nf_label_runs ab[] = {{"a", &a, 1}, {"t", &t, 1}};
    assert_int_equal(nf_compare_build(&c, ab, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.nblocks, 1);
    assert_null(c.blocks[0].args);
    assert_int_equal(c.blocks[0].cells[1].pairing, NF_PAIR_ROUNDS);
    assert_int_equal(c.blocks[0].cells[1].verdict, NF_IMPROVED);
    nf_compare_free(&c);

    /* hyperfine's one word per command against a run's words */
    struct nf_run *h[] = {mkrun_args("h", "x", 10.0, 6), mkrun_args("h", "y", 20.0, 7)};
    char *cmd[] = {"sleep 0.01"};
    nf_run_set_args(h[0], 1, cmd);
    struct nf_run *w = mkrun_args("w", "sleep 0.01", 10.0, 8);
    struct nf_label_runs hw[] = {{"h", h, 2}, {"w", &w, 1}};
    assert_int_equal(nf_compare_build(&c, hw, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.nblocks, 2);
    assert_string_equal(c.blocks[0].args, "sleep 0.01");
    assert_true(c.blocks[0].cells[1].compared);
    assert_int_equal(c.blocks[0].cells[0].nruns, 1);
    assert_string_equal(c.blocks[1].args, "y");
    assert_false(c.blocks[1].cells[1].compared);
    nf_compare_free(&c);
    for (size_t i = 0; i < 2; i++) {
        nf_run_free(o[i]);
        nf_run_free(h[i]);
    }
    nf_run_free(n);
    nf_run_free(a);
    nf_run_free(t);
    nf_run_free(w);
}

/* A run of one plain metric ("count", lower is better) with these values. */
static struct nf_run *mkcount(const char *label, const double *v, int n, int id)
{
    struct nf_run *r = nf_run_new(label, "pipe");
    r->id = id;
    struct nf_metric *m = nf_run_metric(r, "count", "", NF_BETTER_LOWER, 1);
    for (int i = 0; i < n; i++)
        nf_metric_push(m, v[i], 100.0);
    return r;
}

/* The notes that name the test's location or its needs say each test's
 * own (its row, stats/testrow.h): a baseline location of 0 is the mean,
 * the 20% trimmed mean or the decile; the bootstrap needs 5 a side. */
static void test_notes_name_the_test(void **state)
{
    (void)state;
    static const double zero[10] = {0}, some[10] = {5, 6, 5, 7, 6, 5, 6, 7, 5, 6};
    static const struct {
        enum nf_test test;
        const char *note;
    } cases[] = {
        {NF_TEST_WELCH, "var: the baseline mean is 0, so the change has no percentage; the test "
                        "is on the values"},
        {NF_TEST_UTEST, "var: the baseline mean is 0, so the change has no percentage; the test "
                        "is on the values"},
        {NF_TEST_YUEN, "var: the baseline 20% trimmed mean is 0, so the change has no "
                       "percentage; the test is on the values"},
        {NF_TEST_SHIFT, "var: the baseline decile 2 is 0, so the change has no percentage; the "
                        "test is on the values"},
        {NF_TEST_BOOTSTRAP, "var: the baseline mean is 0, so the change has no percentage, and "
                            "the bootstrap test resamples a ratio of means: no test (welch or "
                            "utest test the values)"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct nf_run *a = mkcount("base", zero, 10, 1), *b = mkcount("var", some, 10, 2);
        struct nf_label_runs in[] = {{"base", &a, 1}, {"var", &b, 1}};
        struct nf_cmp_opts o = opts;
        o.test = cases[k].test;
        o.decile = 2;
        o.resamples = 200;
        struct nf_comparison c;
        char err[256];
        assert_int_equal(nf_compare_build(&c, in, 2, NULL, "count", &o, err, sizeof(err)), 0);
        const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
        assert_true(x->r.zero_base);
        const char *n = note_of(x, "var: the baseline ");
        assert_non_null(n);
        assert_true(strncmp(n, cases[k].note, strlen(cases[k].note)) == 0);
        nf_compare_free(&c);
        nf_run_free(a);
        nf_run_free(b);
    }
    /* the bootstrap's 5 values a side; welch tests 3 */
    static const double three_a[] = {10, 11, 10.5}, three_b[] = {12, 12.5, 13};
    for (int boot = 0; boot < 2; boot++) {
        struct nf_run *a = mkcount("base", three_a, 3, 1), *b = mkcount("var", three_b, 3, 2);
        struct nf_label_runs in[] = {{"base", &a, 1}, {"var", &b, 1}};
        struct nf_cmp_opts o = opts;
        o.test = boot ? NF_TEST_BOOTSTRAP : NF_TEST_WELCH;
        struct nf_comparison c;
        char err[256];
        assert_int_equal(nf_compare_build(&c, in, 2, NULL, "count", &o, err, sizeof(err)), 0);
        const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
        const char *n = note_of(x, "var: the bootstrap needs");
        assert_int_equal(x->r.ok, !boot);
        if (boot)
            assert_string_equal(n, "var: the bootstrap needs at least 5 values a side (3 and 3): "
                                   "no test (welch and utest test from 2 a side)");
        else
            assert_null(n);
        nf_compare_free(&c);
        nf_run_free(a);
        nf_run_free(b);
    }
}

int main(void)
{
    trng_seed(12345);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directions),
        cmocka_unit_test(test_equivalent_and_inconclusive),
        cmocka_unit_test(test_run_means),
        cmocka_unit_test(test_drift_note),
        cmocka_unit_test(test_signs_as_the_table),
        cmocka_unit_test(test_split_by_args),
        cmocka_unit_test(test_brief_split_notes),
        cmocka_unit_test(test_one_list_per_label),
        cmocka_unit_test(test_notes_name_the_test),
    };
    return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
