/* The HTML report's renderers on synthetic data: nice ticks, escaping, one
 * point per sample, verdict classes on the rows, balanced markup, nothing
 * external, and the environment's flags. */
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
#include "report/html.h"
#include "report/svg.h"
#include "testrng.h"

/* --- helpers --------------------------------------------------------------- */

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Every element closed in order (the page is also well-formed XML):
 * a stack of tag names; <!...> skipped; "/>" closes at once. */
static int balanced(const char *s)
{
    char stack[256][16];
    int depth = 0;
    for (const char *p = s; (p = strchr(p, '<'));) {
        if (p[1] == '!') {
            p = strchr(p, '>');
            if (!p)
                return 0;
            continue;
        }
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strcspn(name, " \t\n/>");
        if (len == 0 || len >= 16)
            return 0;
        /* Find the end of the tag, skipping quoted attribute values. */
        const char *q = name + len;
        char quote = 0;
        for (; *q && (quote || *q != '>'); q++)
            if (quote && *q == quote)
                quote = 0;
            else if (!quote && (*q == '"' || *q == '\''))
                quote = *q;
        if (!*q)
            return 0;
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], name, len) != 0 || stack[depth - 1][len])
                return 0;
            depth--;
        } else if (q[-1] != '/') {
            if (depth == 256)
                return 0;
            memcpy(stack[depth], name, len);
            stack[depth++][len] = 0;
        }
        p = q + 1;
    }
    return depth == 0;
}

static struct nf_run *mkrun(const char *label, double mean, int n, int id, const char *cpu,
                            const char *kernel)
{
    struct nf_run *r = nf_run_new(label, "pipe");
    r->id = id;
    snprintf(r->started, sizeof(r->started), "2026-01-0%dT00:00:00Z", id);
    struct nf_metric *u = nf_run_metric(r, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    struct nf_metric *o = nf_run_metric(r, "ops/sec", "ops/sec", NF_BETTER_HIGHER, 0);
    for (int i = 0; i < n; i++) {
        double v = mean * (1 + 0.01 * trng_noise());
        nf_metric_push(u, v, 100.0);
        nf_metric_push(o, 1e6 / v, 100.0);
    }
    r->env = json_pack("{s:s, s:s, s:{s:s, s:s}, s:b}", "kernel", kernel, "cpu_model", cpu,
                       "governor", "0", "performance", "1", "performance", "virtualized", 0);
    return r;
}

static char *render(const struct nf_comparison *c, const struct nf_label_runs *in,
                    const struct nf_html_meta *meta)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    nf_html_report(f, c, in, meta);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static char *capture_strip(const struct nf_svg_row *rows, size_t n, size_t *drawn)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(nf_svg_strip(f, rows, n, "x <unit>", NAN, drawn), 0);
    fclose(f);
    return buf;
}

/* --- tests ------------------------------------------------------------------- */

static void test_nice_ticks(void **state)
{
    (void)state;
    struct nf_ticks t;
    char lab[32];
    assert_int_equal(nf_nice_ticks(0, 1, 5, &t), 0);
    assert_true(t.lo == 0 && fabs(t.hi - 1) < 1e-12 && fabs(t.step - 0.2) < 1e-12 && t.n == 6);
    nf_tick_label(lab, sizeof(lab), &t, 0.4);
    assert_string_equal(lab, "0.4");

    assert_int_equal(nf_nice_ticks(6.03, 6.34, 7, &t), 0);
    assert_true(fabs(t.lo - 6.0) < 1e-9 && fabs(t.hi - 6.4) < 1e-9 && fabs(t.step - 0.1) < 1e-12);
    nf_tick_label(lab, sizeof(lab), &t, 6.1);
    assert_string_equal(lab, "6.1");

    assert_int_equal(nf_nice_ticks(1.21e6, 1.58e6, 5, &t), 0);
    nf_tick_label(lab, sizeof(lab), &t, 1.2e6);
    assert_string_equal(lab, "1.2M");
    assert_int_equal(nf_nice_ticks(-3, 3, 5, &t), 0);
    nf_tick_label(lab, sizeof(lab), &t, 0.0 * -1);
    assert_string_equal(lab, "0");

    /* One value: an axis around it. */
    assert_int_equal(nf_nice_ticks(5, 5, 5, &t), 0);
    assert_true(t.lo < 5 && t.hi > 5 && t.n >= 2);
    assert_int_equal(nf_nice_ticks(0, 0, 5, &t), 0);
    assert_true(t.lo < 0 && t.hi > 0);
    assert_int_equal(nf_nice_ticks(NAN, 1, 5, &t), -1);
    assert_int_equal(nf_nice_ticks(2, 1, 5, &t), -1);
    /* Finite ends, no axis in a double: the step (2e308), the width or
     * the widened ends overflow, or the step underflows to 0. */
    assert_int_equal(nf_nice_ticks(1, 1.1e308, 7, &t), -1);
    assert_true(t.n == 0 && t.step == 0);
    assert_int_equal(nf_nice_ticks(-1.5e308, 1.5e308, 5, &t), -1);
    assert_int_equal(nf_nice_ticks(1.79e308, 1.79e308, 5, &t), -1);
    assert_int_equal(nf_nice_ticks(1.5e308, 1.7e308, 2, &t), -1);
    assert_int_equal(nf_nice_ticks(0, 5e-324, 5, &t), -1);
    /* Large but room to spare: drawn. */
    assert_int_equal(nf_nice_ticks(1, 1e307, 7, &t), 0);
    assert_true(isfinite(t.hi) && t.hi >= 1e307 && t.n >= 2);
    assert_int_equal(nf_nice_ticks(1e308, 1.1e308, 5, &t), 0);
    assert_true(isfinite(t.hi) && t.hi >= 1.1e308 && t.n >= 2);

    /* Any range: covered, a few ticks, steps of 1, 2 or 5 times 10^k. */
    for (int i = 0; i < 2000; i++) {
        double a = trng_noise() * pow(10, (int)(trng_noise() * 4)),
               w = fabs(trng_noise()) * pow(10, (int)(trng_noise() * 4));
        assert_int_equal(nf_nice_ticks(a, a + w, 6, &t), 0);
        assert_true(t.lo <= a + t.step * 1e-6 && t.hi >= a + w - t.step * 1e-6);
        assert_true(t.n >= 2 && t.n <= 13);
        double m = t.step / pow(10, floor(log10(t.step) + 1e-9));
        assert_true(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6);
    }
}

static void test_escape(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    nf_esc(f, "<a href=\"x\">&'\x01\xc3\xa9");
    nf_esc(f, NULL);
    nf_esc(f, "|\x7f\xc2\x9b[1m\xc2\xa0\xc2"); /* DEL, C1 CSI; U+00A0 stays; a cut one */
    fclose(f);
    assert_string_equal(buf, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\xef\xbf\xbd\xc3\xa9"
                             "|\xef\xbf\xbd\xef\xbf\xbd[1m\xc2\xa0\xc2");
    free(buf);
}

static void test_strip_points(void **state)
{
    (void)state;
    double a[7] = {1, 2, 3, 4, 5, 6, 40}, b[3] = {2, 2.5, 3};
    struct nf_svg_run ra[2] = {{"run 1", a, 4}, {"run 2", a + 4, 3}}, rb = {"run 3", b, 3};
    struct nf_svg_row rows[2] = {{"a<&>", ra, 2, 3.0}, {"b", &rb, 1, NAN}};
    size_t drawn;
    char *svg = capture_strip(rows, 2, &drawn);
    assert_int_equal(drawn, 10);
    assert_int_equal(count(svg, "<circle class=\"pt\""), 10);
    assert_int_equal(count(svg, "<path class=\"mean\""), 1); /* b has no mean */
    assert_int_equal(count(svg, "<rect class=\"box\""), 2);
    assert_non_null(strstr(svg, "a&lt;&amp;&gt;"));
    assert_null(strstr(svg, "a<&>"));
    assert_true(balanced(svg));
    free(svg);

    /* Many samples are thinned; the box still sees them all. */
    size_t n = 5 * NF_SVG_MAX_POINTS + 3;
    double *big = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++)
        big[i] = (double)i;
    struct nf_svg_run rbig = {"run 9", big, n};
    struct nf_svg_row row = {"big", &rbig, 1, NAN};
    svg = capture_strip(&row, 1, &drawn);
    assert_true(drawn <= NF_SVG_MAX_POINTS && drawn >= NF_SVG_MAX_POINTS / 2);
    assert_int_equal(count(svg, "<circle class=\"pt\""), drawn);
    free(svg);
    free(big);
}

/* Values near DBL_MAX have no axis: the strip writes nothing, and the
 * page says why where the plots would be, with no NaN coordinates. */
static void test_strip_no_axis(void **state)
{
    (void)state;
    double a[2] = {1e308, 1.1e308}, b[2] = {1, 2};
    struct nf_svg_run ra = {"run 1", a, 2}, rb = {"run 2", b, 2};
    struct nf_svg_row rows[2] = {{"r1", &ra, 1, 1.05e308}, {"r2", &rb, 1, 1.5}};
    char *buf = NULL;
    size_t len = 0, drawn = 7;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(nf_svg_strip(f, rows, 2, "x", 1.05e308, &drawn), -1);
    fclose(f);
    assert_int_equal(len, 0);
    assert_int_equal(drawn, 0);
    free(buf);

    struct nf_run *r1 = nf_run_new("r1", "values"), *r2 = nf_run_new("r2", "values");
    r1->id = 1;
    r2->id = 2;
    struct nf_metric *m1 = nf_run_metric(r1, "value", "", NF_BETTER_LOWER, 1);
    struct nf_metric *m2 = nf_run_metric(r2, "value", "", NF_BETTER_LOWER, 1);
    for (int i = 0; i < 2; i++) {
        nf_metric_push(m1, a[i], 100.0);
        nf_metric_push(m2, b[i], 100.0);
    }
    struct nf_label_runs in[] = {{"r1", &r1, 1}, {"r2", &r2, 1}};
    struct nf_cmp_opts opts = {
        .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    char *page = render(&c, in, NULL);
    assert_true(balanced(page));
    assert_null(strstr(page, "nan"));
    assert_int_equal(count(page, "<svg class=\"strip\""), 0);
    assert_int_equal(count(page, "<svg class=\"series\""), 0);
    assert_int_equal(count(page, "Not drawn: these values are too near the limits"), 2);
    free(page);
    nf_compare_free(&c);
    nf_run_free(r1);
    nf_run_free(r2);
}

static void test_series(void **state)
{
    (void)state;
    double a[5] = {1, 2, 3, 2, 1}, b[3] = {1.5, 1.5, 1.6};
    struct nf_svg_run runs[2] = {{"run 1", a, 5}, {"run \"2\"", b, 3}};
    struct nf_ticks y;
    nf_nice_ticks(1, 3, 5, &y);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(nf_svg_series(f, runs, 2, &y, 5, "usecs/op"), 8);
    fclose(f);
    assert_int_equal(count(buf, "<polyline"), 2);
    assert_int_equal(count(buf, "<circle class=\"tp\""), 8);
    assert_non_null(strstr(buf, "run &quot;2&quot;"));
    assert_true(balanced(buf));
    free(buf);
}

static void test_page(void **state)
{
    (void)state;
    const char *weird = "fast <b>&\"'";
    struct nf_run *base[2] = {mkrun("base", 10.0, 10, 1, "EPYC", "6.8"),
                              mkrun("base", 10.0, 10, 2, "EPYC", "6.8")};
    struct nf_run *slow = mkrun("slow", 11.0, 10, 3, "Xeon", "6.9");
    struct nf_run *fast = mkrun(weird, 9.0, 12, 4, "EPYC", "6.9");
    struct nf_label_runs in[] = {{"base", base, 2}, {"slow", &slow, 1}, {weird, &fast, 1}};
    struct nf_cmp_opts opts = {
        .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 3, NULL, NULL, &opts, err, sizeof(err)), 0);
    struct nf_html_meta meta = {"labels <x>", "/tmp/a&b.db", "2026-01-01T00:00:00Z", NULL};
    char *page = render(&c, in, &meta);

    assert_true(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    assert_true(balanced(page));
    /* Self-contained: no script, no fetched resource. */
    assert_null(strstr(page, "<script"));
    assert_null(strstr(page, "src="));
    assert_null(strstr(page, "href="));
    assert_null(strstr(page, "url("));
    assert_null(strstr(page, "@import"));
    /* Escaped everywhere it appears. */
    assert_null(strstr(page, "<b>&\""));
    assert_non_null(strstr(page, "fast &lt;b&gt;&amp;&quot;&#39;"));
    assert_non_null(strstr(page, "labels &lt;x&gt;"));
    assert_non_null(strstr(page, "/tmp/a&amp;b.db"));
    /* Verdicts on the rows, per block. */
    assert_int_equal(count(page, "<tr class=\"v-regressed\"><td class=\"l\">slow</td>"), 2);
    assert_int_equal(count(page, "<tr class=\"v-improved\"><td class=\"l\">fast &lt;b&gt;"), 2);
    assert_int_equal(count(page, "<tr class=\"base\"><td class=\"l\">base</td>"), 2);
    assert_non_null(strstr(page, "<span class=\"badge regressed\">regressed</span>"));
    /* Only the primary metric is drawn: one point per sample, one line per run. */
    assert_int_equal(count(page, "<circle class=\"pt\""), 20 + 10 + 12);
    assert_int_equal(count(page, "<svg class=\"strip\""), 1);
    assert_int_equal(count(page, "<svg class=\"series\""), 3);
    assert_int_equal(count(page, "<polyline"), 4);
    /* The environment: another CPU is a red flag, another kernel expected. */
    assert_non_null(strstr(page, "<li class=\"red\"><b>cpu_model</b> differs"));
    assert_non_null(strstr(page, "<li class=\"exp\"><b>kernel</b> differs"));
    assert_null(strstr(page, "<b>governor</b> differs"));
    assert_non_null(strstr(page, "performance (all 2)"));
    free(page);

    /* -m: that metric is drawn even though it is not primary. */
    nf_compare_free(&c);
    assert_int_equal(nf_compare_build(&c, in, 3, NULL, "ops/sec", &opts, err, sizeof(err)), 0);
    meta.metric = "ops/sec";
    page = render(&c, in, &meta);
    assert_true(balanced(page));
    assert_int_equal(count(page, "<svg class=\"strip\""), 1);
    assert_non_null(strstr(page, "Hmean"));
    assert_int_equal(count(page, "<circle class=\"pt\""), 42);
    free(page);

    nf_compare_free(&c);
    nf_run_free(base[0]);
    nf_run_free(base[1]);
    nf_run_free(slow);
    nf_run_free(fast);
}

/* Runs without an environment (imported values) and a label missing the
 * metric still make a well-formed page that says so. */
static void test_page_sparse(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("a", 5.0, 2, 1, "EPYC", "6.8");
    struct nf_run *b = nf_run_new("b", "pipe");
    b->id = 2;
    struct nf_metric *m = nf_run_metric(b, "other", "", NF_BETTER_LOWER, 0);
    nf_metric_push(m, 1.0, 100.0);
    nf_metric_push(m, 1.0, 100.0);
    struct nf_label_runs in[] = {{"a", &a, 1}, {"b", &b, 1}};
    struct nf_cmp_opts opts = {
        .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    char *page = render(&c, in, NULL);
    assert_true(balanced(page));
    assert_non_null(strstr(page, "no data"));
    assert_non_null(strstr(page, "no environment recorded"));
    assert_non_null(strstr(page, "no samples of this metric"));
    /* Workload pipe has a primary metric (a's usecs/op): only it is drawn. */
    assert_int_equal(count(page, "<svg class=\"strip\""), 1);
    free(page);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

/* The three renderings of a comparison: text, JSON, HTML. */
struct said {
    char *text, *json, *html;
};

static void say(const struct nf_comparison *c, const struct nf_label_runs *in, struct said *s)
{
    size_t len = 0;
    FILE *f = open_memstream(&s->text, &len);
    assert_non_null(f);
    nf_compare_text(f, c);
    assert_int_equal(fclose(f), 0);
    json_t *j = nf_compare_json(c);
    s->json = json_dumps(j, JSON_ENSURE_ASCII);
    json_decref(j);
    s->html = render(c, in, NULL);
}

static void unsay(struct said *s)
{
    free(s->text);
    free(s->json);
    free(s->html);
}

/* An inconclusive row's advice is one sentence, said the same in the text,
 * the JSON notes and the HTML report, counting what runs_needed counts
 * (pairs, for a paired row; unpaired, from the side with fewer units, in
 * runs when either side's units are run means), and never a number past
 * 100 times the data. */
static void test_settle_said_alike(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("a", 10.0, 10, 1, "EPYC", "6.8");
    struct nf_run *b = mkrun("b", 10.0, 10, 2, "EPYC", "6.8");
    struct nf_label_runs in[] = {{"a", &a, 1}, {"b", &b, 1}};
    struct nf_cmp_opts opts = {
        .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.nblocks, 1);
    struct nf_cmp_cell *x = &c.blocks[0].cells[1], *base = &c.blocks[0].cells[0];
    assert_int_equal(x->n, 10);
    assert_int_equal(base->n, 10);
    x->compared = 1;
    x->verdict = NF_INCONCLUSIVE;
    x->advice.multimodal = 0;
    x->advice_fix = NULL;
    static const struct {
        enum nf_pairing pairing;
        size_t npairs, needed;
        size_t base_n;      /* the baseline's units (10 as taken, or fewer) */
        int base_run_means; /* the baseline's units are run means */
        const char *want, *not_want;
    } cases[] = {
        {NF_PAIR_NONE, 0, 53, 10, 0,
         "b: inconclusive; about 53 repetitions per side (43 more) would settle it at this noise",
         NULL},
        {NF_PAIR_NONE, 0, 5000, 10, 0,
         "b: inconclusive; settling it at this noise would take more than 100 times the 10 "
         "repetitions per side so far",
         "about 5000"},
        {NF_PAIR_ROUNDS, 4, 53, 10, 0,
         "b: inconclusive; about 53 rounds (49 more) would settle it at "
         "this noise",
         "repetitions per side"},
        {NF_PAIR_ROUNDS, 4, 1000, 10, 0,
         "b: inconclusive; settling it at this noise would take more than 100 times the 4 rounds "
         "so far",
         "about 1000"},
        /* the baseline has 3: it needs 50 more, and 500 is past 100 x 3 */
        {NF_PAIR_NONE, 0, 53, 3, 0,
         "b: inconclusive; about 53 repetitions per side (50 more) would settle it at this noise",
         "43 more"},
        {NF_PAIR_NONE, 0, 500, 3, 0,
         "b: inconclusive; settling it at this noise would take more than 100 times the 3 "
         "repetitions per side so far",
         "about 500"},
        /* the baseline's units are its runs' means */
        {NF_PAIR_NONE, 0, 53, 10, 1,
         "b: inconclusive; about 53 runs per side (43 more) would settle it at this noise",
         "repetitions per side"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        x->pairing = cases[i].pairing;
        x->npairs = cases[i].npairs;
        x->runs_needed = cases[i].needed;
        base->n = cases[i].base_n;
        base->run_means = cases[i].base_run_means;
        struct said s;
        say(&c, in, &s);
        const char *want = cases[i].want, *after = strchr(want, ';') + 2;
        if (!strstr(s.text, want))
            fail_msg("case %zu: text lacks '%s':\n%s", i, want, s.text);
        if (!strstr(s.json, want))
            fail_msg("case %zu: JSON notes lack '%s':\n%s", i, want, s.json);
        /* the page: the row's note, and the summary after the change */
        if (count(s.html, want) != 1)
            fail_msg("case %zu: the page lacks the note '%s'", i, want);
        if (count(s.html, after) != 2)
            fail_msg("case %zu: the page's summary lacks '%s'", i, after);
        if (cases[i].not_want &&
            (strstr(s.text, cases[i].not_want) || strstr(s.html, cases[i].not_want)))
            fail_msg("case %zu: '%s' said", i, cases[i].not_want);
        unsay(&s);
    }
    base->n = 10;
    base->run_means = 0;
    /* Settled: nothing said anywhere. */
    x->verdict = NF_REGRESSED;
    struct said s;
    say(&c, in, &s);
    assert_null(strstr(s.text, "settl"));
    assert_null(strstr(s.json, "settl"));
    assert_null(strstr(s.html, "settl"));
    unsay(&s);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

int main(void)
{
    trng_seed(777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nice_ticks),   cmocka_unit_test(test_escape),
        cmocka_unit_test(test_strip_points), cmocka_unit_test(test_strip_no_axis),
        cmocka_unit_test(test_series),       cmocka_unit_test(test_page),
        cmocka_unit_test(test_page_sparse),  cmocka_unit_test(test_settle_said_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
