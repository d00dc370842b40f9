/* The state of a bisection, which is what makes it resumable: how it was
 * started and every round measured, test by test, as one JSON object,
 * written anew after every round (userspace) or boot (kernel mode).
 * Userspace mode keeps it in a file of ours beside the worktrees,
 * <git-common-dir>/noisefloor-bisect/state.json (bisect/git.h; a
 * temporary file renamed over it), so that `bisect reset` removes the
 * two together; kernel mode keeps it in the store (store.h, "bisections"),
 * which outlives the boots between its steps and holds the runs it
 * measures.  Every decision is made again from the rounds when a
 * bisection resumes (stats/bisect_rule.h: the same rounds give the same
 * decision), so the state holds measurements, the builds and the marks a
 * replayed log gave, not conclusions.  The same rounds are in the store
 * as runs, one session per test. */
#ifndef NF_BISECT_STATE_H
#define NF_BISECT_STATE_H

#include <stddef.h>

#include "bisect/git.h"

enum nf_btest_kind { NF_BTEST_ENDPOINT = 0, NF_BTEST_STEP, NF_BTEST_CONFIRM };

/* One test: the endpoint check (GOOD, BAD), a step (GOOD, BAD, rev) or the
 * confirmation (parent, rev); its rounds' values in that order. */
struct nf_btest {
    enum nf_btest_kind kind;
    char rev[NF_SHA_LEN + 1]; /* the candidate, the commit confirmed; "" endpoint */
    int skipped;              /* a step whose revision did not build */
    size_t n, cap;
    double (*v)[3];   /* per round; NAN where a variant has no value */
    char session[64]; /* the store's session id of its last part */
};

/* A revision built (or whose build failed) in its worktree. */
struct nf_bbuild {
    char sha[NF_SHA_LEN + 1];
    int ok; /* 1 built, 0 the build failed */
};

/* Kernel mode: one run per boot, its mean. */
struct nf_bboot {
    char sha[NF_SHA_LEN + 1];
    double value;
};

/* A decision a replayed log gave (bisect replay): taken as it is, not
 * measured. */
struct nf_bmark {
    char sha[NF_SHA_LEN + 1];
    char what; /* 'g' good, 'b' bad, 's' skip */
};

struct nf_store;

struct nf_bstate {
    char dir[4096];  /* ours: <git-common-dir>/noisefloor-bisect */
    char repo[4096]; /* the work tree's top */
    char good[NF_SHA_LEN + 1], bad[NF_SHA_LEN + 1];
    char *build;     /* shell command, or NULL */
    char *metric;    /* -m, or NULL: the primary metric */
    char *next_hook; /* kernel mode */
    char *db;        /* the store it measures into */
    double alpha, threshold_pct;
    int boot;           /* kernel mode */
    int rate;           /* the metric is a rate (doc/ab.md): 1, 0, -1 not known yet */
    int higher;         /* higher values of the metric are better: 1, 0, -1 not known yet */
    unsigned long seed; /* of the rounds' order */
    char **spec;        /* the SPEC's words, NULL-terminated */
    size_t nspec;
    struct nf_btest *t; /* in the order made */
    size_t nt;
    struct nf_bbuild *b;
    size_t nb;
    struct nf_bboot *boots; /* kernel mode, in the order booted */
    size_t nboots;
    struct nf_bmark *marks; /* from a replayed log, in its order */
    size_t nmarks;
    struct nf_store *store; /* kernel mode: where the state lives (not owned) */
};

/* The state file's path: dir/state.json. */
void nf_bstate_path(const char *dir, char *out, size_t outlen);
/* 1 when a userspace bisection is in progress in dir (its state file
 * exists). */
int nf_bstate_exists(const char *dir);
/* Read dir's state file into s (zeroed first): 0; NF_EINPUT "no bisection
 * in progress"; -1 a file that does not parse. */
int nf_bstate_load(struct nf_bstate *s, const char *dir, char *err, size_t errlen);
/* Read repo's kernel-mode state from st into s (zeroed first; dir and
 * store set): 0; NF_EINPUT "no bisection in progress"; -1. */
int nf_bstate_load_store(struct nf_bstate *s, struct nf_store *st, const char *repo,
                         const char *dir, char *err, size_t errlen);
/* Write s where it lives: its file (creating s->dir), or in kernel mode
 * its row of s->store, which create makes (NF_EINPUT when one is in
 * progress there).  0, NF_EINPUT or -1. */
int nf_bstate_save(const struct nf_bstate *s, char *err, size_t errlen);
int nf_bstate_create(const struct nf_bstate *s, char *err, size_t errlen);
void nf_bstate_free(struct nf_bstate *s);

/* A new test at the end of s->t (zeroed, kind and rev set). */
struct nf_btest *nf_bstate_add_test(struct nf_bstate *s, enum nf_btest_kind kind, const char *rev);
/* Append one round to t. */
void nf_btest_add_round(struct nf_btest *t, double a, double b, double c);
/* The build of sha, or NULL; set one. */
const struct nf_bbuild *nf_bstate_build(const struct nf_bstate *s, const char *sha);
void nf_bstate_set_build(struct nf_bstate *s, const char *sha, int ok);

void nf_bstate_add_boot(struct nf_bstate *s, const char *sha, double value);
void nf_bstate_add_mark(struct nf_bstate *s, const char *sha, char what);

/* Remove a directory tree of ours (no symlink followed): 0 or -1. */
int nf_rmtree(const char *path);

#endif
