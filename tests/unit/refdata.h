/* Reading the reference values under tests/data/ that the generators in
 * tests/ref/ wrote with SciPy, and checking results against them: shared
 * by the *_reference tests (tests/unit/refdata.c, linked into the unit
 * tests; not a library).
 *
 * A reference file is lines "KEYWORD value value ..."; blank lines and
 * lines that start with '#' are skipped; "unbounded" stands for an
 * interval end that does not exist and reads as NAN.  A line that does
 * not hold what its reader asks for fails the test (cmocka), also in a
 * group setup. */
#ifndef NF_TESTS_REFDATA_H
#define NF_TESTS_REFDATA_H

#include <stddef.h>
#include <stdio.h>

struct ref_file {
    FILE *f;
    char *line; /* the current line (getline's buffer) */
    size_t cap;
    char *save; /* strtok_r's place in it */
};

/* Open path (relative to the repository root, where make runs the tests);
 * 0, or -1 after one line on stderr. */
int ref_open(struct ref_file *r, const char *path);
/* The next line's keyword; NULL at the end of the file. */
const char *ref_next(struct ref_file *r);
/* The line's next word. */
const char *ref_word(struct ref_file *r);
/* The line's next number ("unbounded": NAN). */
double ref_num(struct ref_file *r);
/* The line's next number as a count of values, at most max. */
size_t ref_count(struct ref_file *r, size_t max);
/* The line's next n numbers into x. */
void ref_nums(struct ref_file *r, double *x, size_t n);
/* An interval's ends: lo, then hi unless lo is "unbounded" (then both are
 * NAN and the line holds no hi). */
void ref_interval(struct ref_file *r, double *lo, double *hi);
void ref_close(struct ref_file *r);

/* Agreement with a reference value: got and want agree when both are NaN,
 * or |got - want| <= abs, or <= rel * |want|.  Each disagreement is one
 * line on stderr and counts in failures; worst is the largest relative
 * error among the values with |want| >= floor (ref_finish prints it). */
struct ref_tol {
    double rel, abs, floor;
    double worst;
    int failures;
};
void ref_check(struct ref_tol *t, const char *cs, const char *what, double got, double want);
/* One line on stderr: what, how many cases were checked, the worst
 * relative error; then the test fails unless something was checked and
 * nothing disagreed.  Starts worst and failures afresh for the next test. */
void ref_finish(struct ref_tol *t, const char *what, size_t checked);

/* got within tol * |want| of want (or within 1e-14 of it): else one line
 * on stderr and the test fails. */
void ref_close_rel(double got, double want, double tol);

#endif
