/* bisect_sim.h — simulated bisections: a linear range of revisions with
 * one change, measured through a noise model, bisected by a decision rule
 * (the real one of stats/bisect_rule.h, or the fixed design of `git bisect
 * run` with R repetitions and a Welch test).  doc/bisect.md's tables and
 * tests/unit/test_bisect_rule.c are made with it.  Pure and deterministic:
 * no I/O, every draw from the generator the caller seeds.
 *
 * The range: revision 0 is GOOD, revisions 1..candidates follow it, the
 * last is BAD.  The change multiplies the mean of every revision from
 * first_bad on by (1 + change); first_bad 0 is a range without a change.
 * The bisection keeps good < bad (0 and candidates at first), asks the
 * rule about the middle floor((good + bad) / 2), and moves a bound, until
 * bad = good + 1; then the rule confirms bad against its parent bad - 1.
 */
#ifndef NF_STATS_BISECT_SIM_H
#define NF_STATS_BISECT_SIM_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "stats/bisect_rule.h"

enum nf_bsim_dist { NF_BSIM_NORMAL = 0, NF_BSIM_LOGNORMAL };

struct nf_bsim_noise {
    enum nf_bsim_dist dist;
    double cv;       /* per measurement: mean (1 + cv Z), or mean exp(cv Z) */
    double round_cv; /* a factor (1 + round_cv Z) shared by one round's values: the
                        machine's state, which pairing by round cancels (0: none) */
};

struct nf_bsim_truth {
    size_t candidates; /* >= 1 */
    size_t first_bad;  /* 1..candidates, 0: no change */
    double change;     /* relative, +0.02 = 2% higher values */
};

/* The simulated machine one bisection measures on. */
struct nf_bsim_env {
    struct nf_bsim_truth truth;
    struct nf_bsim_noise noise;
    gsl_rng *rng;
    double round_factor;
    size_t rounds;       /* rounds started */
    size_t measurements; /* values drawn */
};

/* Start a round: counts it and draws its shared factor. */
void nf_bsim_round(struct nf_bsim_env *e);
/* One value of revision rev (0..candidates) in the current round. */
double nf_bsim_measure(struct nf_bsim_env *e, size_t rev);

/* What a rule answers (GOOD and BAD are revisions 0 and e->truth.candidates). */
struct nf_bsim_rule {
    const char *name;
    void *ctx;
    /* Measure GOOD against BAD: 1 and *direction (+1 BAD higher) to bisect,
     * 0 nothing to bisect, -1 error. */
    int (*endpoint)(void *ctx, struct nf_bsim_env *e, int *direction);
    /* Step j on revision rev: NF_BSTEP_GOOD, _BAD, _BETWEEN, or -1. */
    int (*step)(void *ctx, struct nf_bsim_env *e, size_t j, size_t rev, int direction);
    /* Commit rev against its parent rev - 1: 1 confirmed, 0 not, -1 error.
     * NULL: the rule names the commit unconfirmed. */
    int (*confirm)(void *ctx, struct nf_bsim_env *e, size_t rev, int direction);
};

enum nf_bsim_result {
    NF_BSIM_FOUND = 0,   /* a first bad commit named (right or wrong) */
    NF_BSIM_NOTHING,     /* the endpoint check found nothing to bisect */
    NF_BSIM_BETWEEN,     /* a step ended "between" */
    NF_BSIM_UNCONFIRMED, /* the confirmation did not confirm */
};

struct nf_bsim_outcome {
    enum nf_bsim_result result;
    size_t named; /* FOUND: the revision named; BETWEEN: the step's revision */
    size_t steps, rounds, measurements;
};

/* One bisection.  Returns 0, -1 when the rule fails. */
int nf_bsim_bisect(const struct nf_bsim_rule *rule, const struct nf_bsim_truth *t,
                   const struct nf_bsim_noise *noise, gsl_rng *rng, struct nf_bsim_outcome *out);

/* Many: `count` bisections, the change (if any) at a position drawn
 * uniformly from 1..candidates for each (at_random != 0) or at
 * t->first_bad.  Tallies: */
struct nf_bsim_tally {
    size_t count, right, wrong, nothing, between, unconfirmed;
    size_t unconfirmed_right; /* of unconfirmed: the commit was the right one */
    double mean_rounds, mean_measurements, mean_steps;
    size_t max_rounds;
};
int nf_bsim_many(const struct nf_bsim_rule *rule, const struct nf_bsim_truth *t, int at_random,
                 const struct nf_bsim_noise *noise, size_t count, unsigned long seed,
                 struct nf_bsim_tally *out);

/* ---- The rules ---------------------------------------------------------- */

/* The sequential rule of stats/bisect_rule.h on the plan p: rounds of GOOD
 * and BAD (endpoint), GOOD, BAD and the candidate (steps), parent and
 * commit (confirmation), each test stopping at its first stop; delta's
 * estimate (struct nf_bdelta) gathers every GOOD–BAD pair.  head_start: the
 * endpoint check's rounds measure the first step's candidate too, and the
 * first step starts from them.  *rule is filled; nf_bsim_rule_free
 * releases it.  Returns 0, -1 (no memory). */
int nf_bsim_rule_sequential(struct nf_bsim_rule *rule, const struct nf_bisect_plan *p,
                            int head_start);

/* Kernel mode: every value is one boot's run mean, one revision per boot
 * (a round in the tally is a boot).  The endpoint check boots GOOD and BAD
 * alternately; every step reuses those boots in order
 * (nf_bstep_begin_reuse) and boots only the candidate, booting GOOD and
 * BAD again when a step outlasts the boots kept; the confirmation boots
 * the commit and its parent alternately.  The noise's CV is then that of
 * a run mean, boot-to-boot variance included; round_cv should be 0. */
int nf_bsim_rule_kernel(struct nf_bsim_rule *rule, const struct nf_bisect_plan *p);

/* The fixed design of `git bisect run` with a script that measures `reps`
 * repetitions: GOOD is measured reps times once, as the reference (reps
 * rounds of one value; the user knows which way BAD went, and no endpoint
 * check is made), then every step measures the candidate reps times (reps
 * rounds) and calls it bad when Welch's test against GOOD's values is
 * significant at alpha in the change's direction, good otherwise.  No
 * confirmation: the last bad revision is named. */
int nf_bsim_rule_fixed(struct nf_bsim_rule *rule, size_t reps, double alpha);

void nf_bsim_rule_free(struct nf_bsim_rule *rule);

#endif
