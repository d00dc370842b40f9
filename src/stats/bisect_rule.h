/* bisect_rule.h — the statistics of `noisefloor bisect`: which revision of a
 * range made a metric change, when every measurement is noisy
 * (doc/bisect.md derives the rule and gives its simulated operating
 * characteristics).  Pure functions, no I/O; the driver (git, worktrees,
 * builds, the state, the command) measures and calls these.
 *
 * A bisection has three kinds of test, each a group-sequential design that
 * is looked at after every round and stops as soon as the evidence is
 * enough:
 *
 *   1. the endpoint check: GOOD against BAD, paired by round (the `ab`
 *      design of doc/ab.md, two-sided, at the check's share of alpha): a
 *      change delta -> bisect; else "nothing to bisect: equivalent" or
 *      "nothing to bisect: inconclusive, N more rounds would settle it";
 *   2. one step per candidate C: rounds of GOOD, BAD and C, paired by
 *      round; two one-sided tests, "C is like GOOD" (rejected when C is
 *      significantly off GOOD towards BAD) and "C is like BAD" (the
 *      reverse), on x = log C - (log G + log B)/2 and delta estimated from
 *      every GOOD–BAD pair of the bisection: one rejected -> the other
 *      side; both at one look -> "between" (neither); none within the
 *      step's budget -> "between" (undecided);
 *   3. the confirmation: the first bad commit X against its parent P,
 *      paired by round: "X is like P" rejected -> confirmed; "X holds all
 *      of delta" rejected -> like its parent; both -> partial.
 *
 * The overall alpha is split by Bonferroni (nf_bisect_alloc): one share for
 * the endpoint check, one per planned step (ceil(log2(candidates))), one
 * for the confirmation, and one held in reserve for steps beyond the plan
 * (skipped revisions, uneven halving of a non-linear history): extra step
 * j gets half the reserve still left.  So the probability that any
 * decision printed (endpoint, steps, confirmation) is wrong is at most
 * alpha, whatever the dependence between the tests.  With one change in
 * the range a wrongly named commit and its parent are on the same side of
 * it, so a wrong first bad commit needs a false confirmation: at most the
 * confirmation's share, whatever the steps did.
 *
 * ---- For the driver: one bisection ------------------------------------
 *
 *     struct nf_bisect_opts o;
 *     nf_bisect_opts_default(&o);         then --alpha, --threshold into o
 *     o.candidates = n;                   revisions after GOOD up to and
 *                                         including BAD (the ones git may
 *                                         name: rev-list --count GOOD..BAD)
 *     struct nf_bisect_plan *p = malloc(sizeof *p);     (~40 kB: heap it)
 *     if (nf_bisect_plan_init(p, &o, err, sizeof err) < 0)  usage: err
 *     struct nf_bdelta w = {0};           delta's pairs, for the whole run
 *
 *   Endpoint check.  Round i measures GOOD and BAD (random order) and, if
 *   the first candidate is built already, that candidate too (the "head
 *   start" of doc/bisect.md: the first step then begins with these rounds).
 *   After round n: nf_bisect_endpoint_eval(p, good, bad, n, rate, final,
 *   &ep).  ep.result: CONTINUE another round; CHANGE bisect, ep.direction;
 *   EQUIVALENT / INCONCLUSIVE: "nothing to bisect" (ep.more_rounds).
 *   Without the head start, add the check's pairs to w (nf_bdelta_add).
 *
 *   Step j = 0, 1, ... on candidate C:
 *     int level = nf_bisect_budget(p, &w);          (its budget, from w)
 *     struct nf_bstep_design sd;  nf_bisect_step_design(p, j, level, &sd);
 *     struct nf_bstep st;  nf_bstep_begin(&st, &sd, ep.direction, &w);
 *       (head start, j = 0: the budget from the check's pairs, but begin
 *        with an empty w and add the check's rounds first, GOOD, BAD and
 *        C of each: they are the step's own rounds)
 *     each round: GOOD, BAD and C in random order; then
 *       d = nf_bstep_add(&st, g, b, c, 0);   NF_BSTEP_CONTINUE: again
 *     nf_bstep_look(&st, &look) for the progress line and the table row:
 *       look.rounds, look.change_pct [look.ci_low_pct, look.ci_high_pct]
 *       (vs GOOD, repeated CI), nf_bstep_decision_name(look.decision);
 *     then w = st.w (the step's pairs join delta's estimate).
 *     GOOD / BAD move the bound; BETWEEN (st.reason) is reported, never
 *     forced; a revision that does not build takes no step (git's skip).
 *
 *   Confirmation of the first bad commit X against its parent P:
 *     struct nf_bcf cf;  nf_bcf_begin(&cf, p, ep.direction, &w);
 *     each round: P and X in random order; r = nf_bcf_add(&cf, pv, xv, 0);
 *     nf_bcf_look(&cf, &cl): "first bad commit: X ...: cl.change_pct
 *     [cl.ci_low_pct, cl.ci_high_pct] (confirmed against its parent,
 *     cl.rounds rounds)", cl.share_of_delta of the change.
 *
 *   Resuming: the state is the rounds.  A step or confirmation is begun
 *   again and fed its stored rounds in order; it reaches the same state
 *   (the same decision, if it had one) as without the interruption.  The
 *   endpoint check: nf_bisect_endpoint_replay over the stored rounds.
 *   final != 0 means "this test ends at this round" (the user ends it);
 *   an interrupt that will resume is not final.
 *
 *   Kernel mode (one run per boot, not interleaved): the units are run
 *   means, one per boot.  The endpoint check takes boots of GOOD and BAD
 *   alternately as its rounds; keep them.  A step begins with
 *   nf_bstep_begin_reuse(&st, &sd, dir, &w, kept) and its round k takes
 *   the k-th kept GOOD and BAD run means with the candidate's k-th boot
 *   (past the kept ones, boot GOOD and BAD again and keep those too); the
 *   confirmation boots the commit and its parent alternately.
 *   doc/bisect.md, "Kernel mode", gives what it costs (simulated).
 */
#ifndef NF_STATS_BISECT_RULE_H
#define NF_STATS_BISECT_RULE_H

#include <stddef.h>

#include "stats/sequential.h"

/* ---- Options and the error allocation ---------------------------------- */

struct nf_bisect_opts {
    double alpha;              /* overall: any printed decision wrong (default 0.05) */
    double threshold_pct;      /* margin: GOOD and BAD within it are "equivalent" (1) */
    size_t candidates;         /* revisions that may be the first bad one (>= 1) */
    size_t ep_min, ep_max;     /* rounds of the endpoint check */
    size_t step_min, step_max; /* rounds of a step and of the confirmation (the budget's
                                  first level; nf_bisect_budget) */
    double step_gamma;         /* Hwang–Shih–DeCani parameter of the steps' spending */
};

/* The defaults (doc/bisect.md, "Choosing the constants"). */
#define NF_BISECT_ALPHA 0.05
#define NF_BISECT_THRESHOLD 1.0
#define NF_BISECT_EP_MIN 5
#define NF_BISECT_EP_MAX 150
#define NF_BISECT_STEP_MIN 5
#define NF_BISECT_STEP_MAX 200
#define NF_BISECT_STEP_GAMMA 1.0

void nf_bisect_opts_default(struct nf_bisect_opts *o);

struct nf_bisect_alloc {
    size_t planned_steps; /* ceil(log2(candidates)) */
    double share;         /* alpha / (planned_steps + 3) */
    double endpoint;      /* = share */
    double confirm;       /* = share */
    double step;          /* = share, each planned step */
    double reserve;       /* = share, for steps beyond the plan */
};

/* Split alpha over a bisection of `candidates` revisions.  Returns 0; -1 if
 * alpha is outside (0, 0.5] or candidates is 0. */
int nf_bisect_alloc(double alpha, size_t candidates, struct nf_bisect_alloc *out);

/* The one-sided level of each of step j's two tests (j 0-based): a->step for j < planned_steps,
 * then a->reserve / 2^(j - planned + 1). */
double nf_bisect_step_alpha(const struct nf_bisect_alloc *a, size_t j);

/* ---- One step's design -------------------------------------------------- */

#define NF_BSTEP_MAX_LOOKS 200

struct nf_bstep_design {
    double alpha; /* one-sided level of each of the two tests */
    size_t min_rounds, max_rounds, nlooks;
    size_t rounds[NF_BSTEP_MAX_LOOKS]; /* complete rounds at each look */
    double info[NF_BSTEP_MAX_LOOKS];   /* the t-test's information n (z/t(n-1))^2 */
    double spent[NF_BSTEP_MAX_LOOKS];  /* cumulative one-sided alpha */
    double z[NF_BSTEP_MAX_LOOKS];      /* one-sided boundary, z scale */
    double t[NF_BSTEP_MAX_LOOKS];      /* the same as a t critical value at n - 1 df (for
                                          display: the tests compare their p with the
                                          level Q(z) at their own df) */
};

/* A design at one-sided level alpha with looks at every round from min to
 * max (spread evenly when there are more than NF_BSTEP_MAX_LOOKS), alpha
 * spent by the Hwang–Shih–DeCani function with parameter gamma on the
 * t-test's information time, as doc/ab.md's designs.  Returns 0; -1 on
 * invalid input (alpha outside (0, 0.5), max < 2, min > max) or no memory. */
int nf_bstep_design_init(struct nf_bstep_design *d, double alpha, size_t min_rounds,
                         size_t max_rounds, double gamma);

/* ---- delta's estimate --------------------------------------------------- */

/* The estimate of delta that the steps and the confirmation share: the
 * log(BAD/GOOD) of every round that measured both, from the endpoint
 * check's first round on (the steps' own rounds included: a step adds its
 * rounds' pairs as it goes, see nf_bstep_add).  The driver keeps one,
 * adds the endpoint check's rounds to it and passes it to each step. */
struct nf_bdelta {
    size_t n;
    double mean, m2; /* of the log-ratios (Welford) */
};
/* Add one round's pair.  Returns 0; -1 (nothing added) if a value is not
 * finite and > 0. */
int nf_bdelta_add(struct nf_bdelta *w, double good, double bad);

/* ---- The plan of a bisection -------------------------------------------- */

/* A step's budget grows with the noise relative to delta: budget level L
 * is step_max * 2^L rounds, L the smallest with step_max 2^L >= BUDGET_K
 * times the rounds of a fixed-sample test of the step at its level and
 * power (nf_bisect_budget), at most NF_BISECT_LEVELS - 1. */
#define NF_BISECT_LEVELS 4
#define NF_BISECT_BUDGET_K 2.0

struct nf_bisect_plan {
    struct nf_bisect_opts o;
    struct nf_bisect_alloc alloc;
    struct nf_seq_design endpoint; /* ab's design at alloc.endpoint */
    /* a planned step's design (and the confirmation's: alloc.confirm is
     * alloc.step) at each budget level */
    struct nf_bstep_design step[NF_BISECT_LEVELS];
};

/* Validate the options and compute every design (a few tens of ms).
 * Returns 0; -1 with one line in err naming the bad option. */
int nf_bisect_plan_init(struct nf_bisect_plan *p, const struct nf_bisect_opts *o, char *err,
                        size_t errlen);

/* The budget level for a step that starts with delta's estimate w: n0 =
 * ((z(a) + z(a)) sigma_x / delta)^2 with a the step's level, sigma_x^2 =
 * 3/4 var(w) (the variance of log C - (log G + log B) / 2 when the three
 * share one CV), and the level whose rounds reach BUDGET_K n0.  Chosen
 * from rounds measured before the step, so the step's design is fixed
 * before its data: its error stays at most its share.  0 when w has fewer
 * than 2 pairs. */
int nf_bisect_budget(const struct nf_bisect_plan *p, const struct nf_bdelta *w);

/* The design of step j (0-based) at budget level: a copy of p->step[level]
 * for a planned step, a new design at its reserve share for a later one.
 * Returns 0 or -1. */
int nf_bisect_step_design(const struct nf_bisect_plan *p, size_t j, int level,
                          struct nf_bstep_design *out);

/* ---- 1. The endpoint check ---------------------------------------------- */

enum nf_bep_result {
    NF_BEP_CONTINUE = 0, /* measure another round */
    NF_BEP_CHANGE,       /* a change beyond the margin: bisect */
    NF_BEP_EQUIVALENT,   /* nothing to bisect: GOOD and BAD are equivalent */
    NF_BEP_INCONCLUSIVE, /* nothing to bisect: inconclusive (more_rounds) */
};
/* "continue", "change", "equivalent", "inconclusive" */
const char *nf_bep_result_name(enum nf_bep_result r);

struct nf_bep {
    enum nf_bep_result result;
    size_t rounds;
    int direction;                  /* CHANGE: +1 BAD's values are higher, -1 lower */
    double change_pct;              /* delta, BAD vs GOOD on the metric's scale */
    double ci_low_pct, ci_high_pct; /* its repeated CI (doc/ab.md) */
    int negligible;                 /* EQUIVALENT, yet a real change inside the margin */
    size_t more_rounds;             /* INCONCLUSIVE: rounds beyond these that would settle
                                       it at the observed spread (nf_runs_from_ci) */
    struct nf_seq_look look;        /* the deciding look in full */
};

/* good[i], bad[i]: round i's values (> 0, finite).  rate: a higher-is-better
 * rate metric (doc/ab.md).  _eval: the look at round n (nf_seq_evaluate),
 * for the driver that calls it after every round and stops at the first
 * stop; _replay: the looks up to n in order, the first stop deciding
 * (nf_seq_replay), for a resumed or replayed bisection.  final: the check
 * ends at n.  Returns 0; -1 on invalid input (out says CONTINUE). */
int nf_bisect_endpoint_eval(const struct nf_bisect_plan *p, const double *good, const double *bad,
                            size_t n, int rate, int final, struct nf_bep *out);
int nf_bisect_endpoint_replay(const struct nf_bisect_plan *p, const double *good, const double *bad,
                              size_t n, int rate, int final, struct nf_bep *out);

/* ---- 2. One step -------------------------------------------------------- */

enum nf_bstep_decision {
    NF_BSTEP_CONTINUE = 0,
    NF_BSTEP_GOOD,    /* like GOOD: the first bad commit is after it */
    NF_BSTEP_BAD,     /* like BAD: it or one before it is the first bad commit */
    NF_BSTEP_BETWEEN, /* neither, or undecided within the budget (reason) */
};
/* "continue", "good", "bad", "between" (the JSON's words) */
const char *nf_bstep_decision_name(enum nf_bstep_decision d);

enum nf_bstep_reason {
    NF_BSTEP_REASON_NONE = 0,
    NF_BSTEP_NEITHER,   /* both "like GOOD" and "like BAD" rejected at one look */
    NF_BSTEP_UNDECIDED, /* the budget ended with neither rejected */
};

/* A step in progress: begin, then add its rounds in order (after each
 * measured round, or the stored ones on resuming: the same calls give the
 * same decision).  Plain data: the driver may keep it in memory; what it
 * stores are the rounds. */
struct nf_bstep {
    const struct nf_bstep_design *d;
    int direction;
    struct nf_bdelta w;  /* delta's pairs: the prior ones and this step's */
    size_t rounds;       /* complete rounds (GOOD, BAD, candidate) */
    double x_mean, x_m2; /* log C - (log G + log B) / 2 over them */
    enum nf_bstep_decision decision;
    enum nf_bstep_reason reason;
    int look;             /* look of the last evaluation, -1 none */
    double t_good, t_bad; /* its statistics (NAN below 2 rounds) */
    double df;            /* their Welch–Satterthwaite df */
    size_t reused;        /* the first `reused` complete rounds' GOOD and BAD values are
                             pairs of the prior (kernel mode): not added again */
};

/* Start step on design d; direction the endpoint check's (+1: BAD higher);
 * prior the GOOD–BAD pairs so far (NULL: none).  Returns 0, -1 on invalid
 * input. */
int nf_bstep_begin(struct nf_bstep *s, const struct nf_bstep_design *d, int direction,
                   const struct nf_bdelta *prior);
/* Kernel mode: the step's first `reused` rounds take their GOOD and BAD
 * values from pairs already in prior (boots measured before, by the
 * endpoint check or an earlier step), only the candidate being booted
 * anew; those pairs are not counted twice.  x and w are uncorrelated
 * within a round, so the standard error holds with the pairs reused
 * (doc/bisect.md, "Kernel mode"). */
int nf_bstep_begin_reuse(struct nf_bstep *s, const struct nf_bstep_design *d, int direction,
                         const struct nf_bdelta *prior, size_t reused);

/* Add round n = s->rounds + 1: GOOD's, BAD's and the candidate's values
 * (finite, > 0; NAN: not measured in this round: a round without the
 * candidate or without an endpoint adds only its GOOD–BAD pair, if any, to
 * delta's estimate).  At a look the two one-sided tests are made:
 *
 *   est = mean x + delta/2          (the candidate vs GOOD, log scale)
 *   se^2 = var x / n + var w / (4 N_w), df Welch–Satterthwaite
 *   "like GOOD" rejected: direction * est / se beyond the look's level;
 *   "like BAD"  rejected: direction * (delta - est) / se beyond it;
 *
 * one rejected -> the other side, both -> BETWEEN (NEITHER).  final (or the
 * budget's last round): undecided -> BETWEEN (UNDECIDED).  Once decided, a
 * step adds no more rounds.  Returns the decision (NF_BSTEP_CONTINUE: add
 * another round), -1 on invalid values (nothing added). */
int nf_bstep_add(struct nf_bstep *s, double good, double bad, double cand, int final);

/* What the driver prints (progress line, table row, JSON) */
struct nf_bstep_look {
    enum nf_bstep_decision decision;
    enum nf_bstep_reason reason;
    size_t rounds;                  /* complete rounds analysed */
    int look;                       /* the design's look whose level applied, -1 none */
    double change_pct;              /* candidate vs GOOD (est above) */
    double ci_low_pct, ci_high_pct; /* its repeated CI at the look's level (each side the
                                       one-sided level: it excludes 0 when "like GOOD"
                                       is rejected); NAN below 2 rounds */
    double ci_level_pct;            /* that CI's level: 100 (1 - 2 level); NAN none */
    double delta_pct;               /* BAD vs GOOD, all pairs so far */
    double position;                /* est / delta: 0 like GOOD .. 1 like BAD */
    double z_good, z_bad;           /* the two tests on the z scale (through their p) */
    double bound;                   /* the z they must reach at this look (or the next) */
};
void nf_bstep_look(const struct nf_bstep *s, struct nf_bstep_look *out);

/* ---- 3. The confirmation ------------------------------------------------ */

enum nf_bcf_result {
    NF_BCF_CONTINUE = 0,
    NF_BCF_CONFIRMED,    /* the commit differs from its parent by delta's direction */
    NF_BCF_LIKE_PARENT,  /* it differs from its parent by less than delta */
    NF_BCF_PARTIAL,      /* both: it holds a part of the change */
    NF_BCF_INCONCLUSIVE, /* neither within the budget */
};
/* "continue", "confirmed", "like its parent", "partial", "inconclusive" */
const char *nf_bcf_result_name(enum nf_bcf_result r);

/* The commit X against its parent P, rounds of both (GOOD and BAD need not
 * be measured): u = log(X/P); the same two one-sided tests as a step, on
 * the design p->step[nf_bisect_budget(p, delta)] (the confirmation's share
 * is a step's):
 *   "no change" rejected:    direction * mean u / (sd u / sqrt n), df n - 1;
 *   "all of delta" rejected: direction * (delta - mean u) / se,
 *                            se^2 = var u / n + var w / N_w (Welch df).
 * Only the first rejected -> CONFIRMED; only the second -> LIKE_PARENT;
 * both -> PARTIAL; neither at the end -> INCONCLUSIVE.  begin/add as a
 * step's (delta: all GOOD–BAD pairs of the bisection, which the
 * confirmation does not add to). */
struct nf_bcf {
    const struct nf_bstep_design *d;
    int direction;
    struct nf_bdelta w;
    struct nf_bdelta u; /* log(X/P), through the same accumulator */
    enum nf_bcf_result result;
    int look;
    double t_same, t_all, df;
};
int nf_bcf_begin(struct nf_bcf *c, const struct nf_bisect_plan *p, int direction,
                 const struct nf_bdelta *delta);
int nf_bcf_add(struct nf_bcf *c, double parent, double commit, int final);

struct nf_bcf_look {
    enum nf_bcf_result result;
    size_t rounds;
    double change_pct;              /* commit vs parent */
    double ci_low_pct, ci_high_pct; /* repeated CI at the look's level */
    double ci_level_pct;            /* that CI's level: 100 (1 - 2 level); NAN none */
    double share_of_delta;          /* log(X/P) / delta: 1 all of the change */
    double z_same, z_all, bound;
};
void nf_bcf_look(const struct nf_bcf *c, struct nf_bcf_look *out);

#endif
