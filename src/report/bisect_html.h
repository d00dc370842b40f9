/* `report --bisect --html`: one bisection drawn (doc/bisect.md) — every
 * revision of the range in range order on x, each tested one's change vs
 * GOOD with its CI on y, the decisions marked, the first bad commit
 * highlighted — with the table of steps beneath.
 *
 * Pure rendering: the caller (cmd/report.c) replays the bisection and
 * hands over plain values; every string is escaped. */
#ifndef NF_REPORT_BISECT_HTML_H
#define NF_REPORT_BISECT_HTML_H

#include <stddef.h>
#include <stdio.h>

/* One revision of the range. */
struct nf_bisect_rev {
    const char *sha;      /* the full sha */
    const char *subject;  /* NULL: not read (an untested revision) */
    const char *decision; /* a step's: good, bad, between, skip; NULL: not tested */
    size_t step;          /* the step that tested it, 1...; 0: none */
    size_t rounds;
    double change_pct, ci_low_pct, ci_high_pct; /* vs GOOD; NAN: none */
};

/* A test that is not a step: the endpoint check (BAD vs GOOD) or the
 * confirmation (the first bad commit vs its parent). */
struct nf_bisect_test {
    const char *decision; /* NULL: not made (yet) */
    size_t rounds;
    double change_pct, ci_low_pct, ci_high_pct;
};

struct nf_bisect_view {
    const char *mode;   /* "userspace" or "kernel" */
    const char *metric; /* "" or NULL: not known yet */
    const char *result; /* found, nothing, between, inconclusive; NULL: in progress */
    const char *why;    /* the sentence of the result, or what comes next */
    double alpha, threshold_pct;
    const struct nf_bisect_rev *rev; /* range order: rev[0] GOOD ... rev[nrev-1] BAD */
    size_t nrev;
    size_t first_bad; /* index into rev; nrev: none named */
    struct nf_bisect_test endpoint, confirm;
    size_t steps, rounds, builds;
};

struct nf_bisect_html_meta {
    const char *repo;      /* the repository; NULL: none */
    const char *generated; /* ISO 8601 time of rendering; NULL: none */
};

/* The page.  Write errors are left in out's error indicator. */
void nf_bisect_html(FILE *out, const struct nf_bisect_view *v,
                    const struct nf_bisect_html_meta *meta);

#endif
