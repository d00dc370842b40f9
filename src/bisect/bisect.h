/* The bisection driver: from a started state (bisect/state.h) to the first
 * bad commit, over the statistics of stats/bisect_rule.h (doc/bisect.md).
 *
 *   nf_bisect_start   check the repository, the revisions, the SPEC; write
 *                     the state (refused while one is in progress)
 *   nf_bisect_run     userspace mode: build each revision once in its own
 *                     worktree, measure the endpoint check, the steps and
 *                     the confirmation as sessions of interleaved rounds
 *                     (measure/session.h) into the store, every round also
 *                     into the state; resumes where the state stops
 *   nf_bisect_kstep   kernel mode: one run of the booted revision, then
 *                     the revision to boot next (bisect/kernel.c)
 *   nf_bisect_reset   remove the worktrees and the state
 *
 * Decisions are never stored: each call makes them again from the rounds,
 * so a resumed, a replayed and an uninterrupted bisection agree.  The step
 * loop asks git which revision halves the range (git rev-list
 * --bisect-all, over the revisions decided good and the last one decided
 * bad, with the skipped ones passed over), so merges and non-linear
 * history are handled as git bisect handles them. */
#ifndef NF_BISECT_BISECT_H
#define NF_BISECT_BISECT_H

#include <stddef.h>
#include <stdio.h>

#include "bisect/state.h"
#include "store/store.h"

enum nf_bresult {
    NF_BRES_FOUND = 0,    /* a first bad commit, confirmed against its parent */
    NF_BRES_NOTHING,      /* GOOD and BAD equivalent, or the check inconclusive */
    NF_BRES_BETWEEN,      /* a step's revision is neither like GOOD nor like BAD */
    NF_BRES_INCONCLUSIVE, /* the confirmation did not confirm, or only skipped
                             revisions are left */
};
const char *nf_bresult_name(enum nf_bresult r); /* found, nothing, between, inconclusive */

/* A row of the table: the endpoint check, a step, or the confirmation. */
struct nf_brow {
    enum nf_btest_kind kind;
    char sha[NF_SHA_LEN + 1];
    char subject[256];
    size_t rounds;
    /* The test's estimate of the change vs GOOD (the endpoint check: BAD vs
     * GOOD; the confirmation: the commit vs its parent) and its repeated
     * CI at ci_level_pct (doc/bisect.md) */
    double change_pct, ci_low_pct, ci_high_pct, ci_level_pct;
    /* The means over the test's rounds (harmonic for a rate metric), GOOD's
     * (the parent's) and the revision's, and their change, (mean /
     * base_mean - 1) * 100, also oriented (+ is better; NAN when the
     * metric's direction is not known) */
    double base_mean, mean, means_pct, means_better_pct;
    const char *decision; /* good, bad, between, skip; the endpoint's and the
                             confirmation's result names */
    int live;             /* measured by this call (not replayed from the state) */
    int given;            /* a replayed log's decision, not measured */
};

struct nf_bisect_out {
    enum nf_bresult result;
    char first_bad[NF_SHA_LEN + 1]; /* found (and inconclusive: the commit named) */
    char subject[256];
    double change_pct, ci_low_pct, ci_high_pct; /* the commit vs its parent */
    size_t confirm_rounds;
    char why[512]; /* nothing, between, inconclusive: the sentence */
    char metric[128];
    /* kernel mode, nf_bisect_kstep: the revision measured ("" none), its
     * run's mean, and whether the same revision must be booted again */
    char measured[NF_SHA_LEN + 1];
    double measured_value;
    int again;
    struct nf_brow *rows; /* in order */
    size_t nrows;
    size_t steps, rounds, builds;
};
void nf_bisect_out_free(struct nf_bisect_out *o);

/* What the driver tells as it goes. */
struct nf_bisect_io {
    void (*row)(void *ctx, const struct nf_brow *row); /* each row, when decided */
    void *ctx;
    int progress; /* progress lines on stderr */
    int dry;      /* replay only: stop where a measurement is needed */
};

/* What nf_bisect_run returns besides 0 (ended: out) and -1/NF_EINPUT. */
enum {
    NF_BISECT_INTERRUPTED = 1, /* a signal stopped a session (*signal); the state holds
                                  every finished round */
    NF_BISECT_PENDING = 2,     /* dry: a measurement is needed next (out->why says which) */
};

struct nf_bisect_start_opts {
    const char *repo, *good, *bad, *build, *metric, *next_hook, *db;
    double alpha, threshold_pct;
    int boot;
    unsigned long seed;
    char **spec; /* the SPEC's words */
    size_t nspec;
    /* The store db names, open: kernel mode keeps its state there, and a
     * bisection in progress there refuses a new one (NULL: not looked in). */
    struct nf_store *store;
    /* Decisions a replayed log gave (their sha: any revision git names):
     * taken as they are where the steps would have measured. */
    const struct nf_bmark *marks;
    size_t nmarks;
};

/* Check and write the state of a new bisection (userspace: its file;
 * kernel mode: a row of o->store).  0; NF_EINPUT with one line (not a
 * repository, unknown revision, GOOD not an ancestor of BAD, GOOD equal to
 * BAD, a SPEC that does not parse, a bisection in progress in the file or
 * the store); -1. */
int nf_bisect_start(const struct nf_bisect_start_opts *o, struct nf_bstate *s, char *err,
                    size_t errlen);

/* Whether the repository at dir has a userspace bisection's state file: 1,
 * 0 (a kernel-mode one is looked for in the store), NF_EINPUT not a
 * repository, -1. */
int nf_bisect_in_file(const char *dir, char *err, size_t errlen);
/* Load the state of dir's bisection: its file, else (st given) its row of
 * the store st. */
int nf_bisect_open(const char *dir, struct nf_store *st, struct nf_bstate *s, char *err,
                   size_t errlen);

int nf_bisect_run(struct nf_bstate *s, struct nf_store *st, const struct nf_bisect_io *io,
                  struct nf_bisect_out *out, int *signal, char *err, size_t errlen);

/* Kernel mode.  The revision that must run next (bisect/kernel.c replays
 * the boots so far), or the end: 0 with out->result set and *next "";
 * NF_BISECT_PENDING with *next the sha to boot.  release: what the running
 * kernel says it is (uname -r, or the label given), checked against
 * expected (what the user said for that revision: the sha or its prefix
 * must appear in it). */
int nf_bisect_kplan(struct nf_bstate *s, struct nf_bisect_out *out, char next[NF_SHA_LEN + 1],
                    char *err, size_t errlen);
/* Measure one run of the booted revision `release` names into st, record
 * its mean as the next boot, and plan again (as nf_bisect_kplan). */
int nf_bisect_kstep(struct nf_bstate *s, struct nf_store *st, const char *release, int progress,
                    struct nf_bisect_out *out, char next[NF_SHA_LEN + 1], char *err, size_t errlen);

/* Say which revision to boot next (stdout) and run --next-hook with it as
 * $1 (/bin/sh -c): 0, or -1 when the hook failed. */
int nf_bisect_knext(const struct nf_bstate *s, const char *next, char *err, size_t errlen);

/* Remove every worktree of ours and the state (the file, and repo's row of
 * st when given): 0, or -1. */
int nf_bisect_reset(const char *dir, struct nf_store *st, char *err, size_t errlen);

/* The worktree of sha (dir/wt/<sha>). */
void nf_bisect_tree(const struct nf_bstate *s, const char *sha, char *out, size_t outlen);

#endif
