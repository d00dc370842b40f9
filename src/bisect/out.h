/* The rows of a bisection's table, shared by both modes (driver.c,
 * kernel.c); internal to src/bisect/. */
#ifndef NF_BISECT_OUT_H
#define NF_BISECT_OUT_H

#include <stddef.h>

#include "bisect/bisect.h"
#include "stats/bisect_rule.h"

/* A new row at the end of out->rows (the numbers NAN): its subject read
 * now from repo, or (repo NULL) left "" for nf_bisect_subjects. */
struct nf_brow *nf_bisect_row(struct nf_bisect_out *out, const char *repo, enum nf_btest_kind kind,
                              const char *sha);
/* Every row's subject, from repo. */
void nf_bisect_subjects(struct nf_bisect_out *out, const char *repo);

/* A row's rounds, change, CI and decision from its test's deciding look:
 * the endpoint check's over `rounds` rounds, a step's, the confirmation's
 * (its change, CI and rounds also out's). */
void nf_brow_endpoint(struct nf_brow *r, const struct nf_bep *ep, size_t rounds);
void nf_brow_step(struct nf_brow *r, const struct nf_bstep_look *k);
void nf_brow_confirm(struct nf_brow *r, const struct nf_bcf_look *c, struct nf_bisect_out *out);

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

/* Revisions decided good (or skipped) so far, held as copies (a test's
 * revision moves when the state's arrays grow) and as the list of
 * pointers nf_git_next takes: v[i] is sha[i]. */
struct nf_brevs {
    char (*sha)[NF_SHA_LEN + 1];
    const char **v;
    size_t n;
};
/* Room for `room` revisions, none yet. */
void nf_brevs_init(struct nf_brevs *r, size_t room);
void nf_brevs_add(struct nf_brevs *r, const char *sha);
void nf_brevs_free(struct nf_brevs *r);

/* The replayed log's marks applied where the steps begin: good ones added
 * to goods, skipped ones to skips (NULL: not kept), the last bad one as
 * bad; a row for each, given.  The lists have room for s->nmarks more. */
void nf_bisect_marks(const struct nf_bstate *s, struct nf_bisect_out *out, const char *repo,
                     struct nf_brevs *goods, struct nf_brevs *skips, char bad[NF_SHA_LEN + 1]);

#endif
