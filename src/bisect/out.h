/* The rows of a bisection's table, shared by both modes (driver.c,
 * kernel.c); internal to src/bisect/. */
#ifndef NF_BISECT_OUT_H
#define NF_BISECT_OUT_H

#include <stddef.h>

#include "bisect/bisect.h"

/* A new row at the end of out->rows (the numbers NAN): its subject read
 * now from repo, or (repo NULL) left "" for nf_bisect_subjects. */
struct nf_brow *nf_bisect_row(struct nf_bisect_out *out, const char *repo, enum nf_btest_kind kind,
                              const char *sha);
/* Every row's subject, from repo. */
void nf_bisect_subjects(struct nf_bisect_out *out, const char *repo);

/* The means of a test's rounds, the base's and the revision's. */
struct nf_bmeans {
    double base, x; /* sums (of 1 / v for a rate) */
    size_t n;
};
/* One round's base and revision values (a pair with a value not finite
 * and > 0 is left out). */
void nf_bmeans_add(struct nf_bmeans *m, double base, double x, int rate);
/* The means and their change into r (s: rate and direction). */
void nf_bmeans_set(const struct nf_bmeans *m, const struct nf_bstate *s, struct nf_brow *r);

/* The replayed log's marks applied where the steps begin: good ones added
 * to goods (*ngood), skipped ones to skips (*nskip; NULL: not kept), the
 * last bad one as bad; a row for each, given.  The arrays have room for
 * s->nmarks more. */
void nf_bisect_marks(const struct nf_bstate *s, struct nf_bisect_out *out, const char *repo,
                     char (*goods)[NF_SHA_LEN + 1], size_t *ngood, char (*skips)[NF_SHA_LEN + 1],
                     size_t *nskip, char bad[NF_SHA_LEN + 1]);

#endif
