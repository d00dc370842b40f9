/* Reading and checking against the reference values of tests/data/
 * (refdata.h). */
#include "refdata.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define SEP " \t\n"

int ref_open(struct ref_file *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->f = fopen(path, "r");
    if (!r->f) {
        fprintf(stderr, "cannot open %s (run from the repository root)\n", path);
        return -1;
    }
    return 0;
}

const char *ref_next(struct ref_file *r)
{
    while (getline(&r->line, &r->cap, r->f) >= 0) {
        char *kw = strtok_r(r->line, SEP, &r->save);
        if (kw && kw[0] != '#')
            return kw;
    }
    return NULL;
}

const char *ref_word(struct ref_file *r)
{
    char *tok = strtok_r(NULL, SEP, &r->save);
    assert_non_null(tok);
    return tok;
}

double ref_num(struct ref_file *r)
{
    const char *tok = ref_word(r);
    if (strcmp(tok, "unbounded") == 0)
        return NAN;
    char *end;
    double v = strtod(tok, &end);
    assert_true(end != tok && *end == '\0');
    return v;
}

size_t ref_count(struct ref_file *r, size_t max)
{
    double v = ref_num(r);
    assert_true(v >= 0 && v <= (double)max && v == floor(v));
    return (size_t)v;
}

void ref_nums(struct ref_file *r, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = ref_num(r);
}

void ref_interval(struct ref_file *r, double *lo, double *hi)
{
    *lo = ref_num(r);
    *hi = isnan(*lo) ? NAN : ref_num(r);
}

void ref_close(struct ref_file *r)
{
    if (r->f)
        fclose(r->f);
    free(r->line);
    memset(r, 0, sizeof *r);
}

void ref_check(struct ref_tol *t, const char *cs, const char *what, double got, double want)
{
    double d = fabs(got - want);
    int ok = (isnan(got) && isnan(want)) || d <= t->abs || d <= t->rel * fabs(want);
    if (ok && fabs(want) >= t->floor && d / fabs(want) > t->worst)
        t->worst = d / fabs(want);
    if (!ok) {
        t->failures++;
        fprintf(stderr, "  %s %s: got %.17g want %.17g\n", cs, what, got, want);
    }
}

void ref_finish(struct ref_tol *t, const char *what, size_t checked)
{
    fprintf(stderr, "  %s: %zu cases, worst relative error (|ref| >= %g) %.2g\n", what, checked,
            t->floor, t->worst);
    int failures = t->failures;
    t->worst = 0;
    t->failures = 0;
    assert_true(checked > 0);
    assert_int_equal(failures, 0);
}

void ref_close_rel(double got, double want, double tol)
{
    double d = fabs(got - want);
    if (!(d <= tol * fabs(want) || d <= 1e-14)) {
        print_error("got %.17g want %.17g\n", got, want);
        fail();
    }
}
