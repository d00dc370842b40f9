/* sequential.h — when may an `ab` session stop?  A group-sequential design
 * on the paired statistic of the rounds (doc/ab.md, "The stopping rule").
 *
 * Pure functions, no I/O.  Typical use:
 *
 *     struct nf_seq_design d;
 *     struct nf_seq_opts o = {min_rounds, max_rounds, alpha, threshold_pct};
 *     nf_seq_design_init(&d, &o);               once, at the start
 *     ...after each round n (base[i], var[i]: round i's values):
 *     struct nf_seq_look l;
 *     nf_seq_evaluate(&d, base, var, n, rate, test, better, final, &l);
 *     progress line: l.change_pct, [l.ci_low_pct, l.ci_high_pct],
 *                    l.toward, l.z_effect / l.bound_effect, ...
 *     l.action != NF_SEQ_CONTINUE: this comparison may stop, with
 *                    l.verdict (and l.negligible for the note).
 *
 * The design: at every round from MIN to MAX (at most NF_SEQ_MAX_LOOKS
 * looks, evenly spread when there are more rounds) the paired t-test of the
 * per-round log-ratios is compared with
 *   - an effect boundary: two-sided level alpha spent over the looks by a
 *     Hwang–Shih–DeCani spending function (gamma = 1.5),
 *   - an equivalence boundary (sequential TOST against +-threshold): each
 *     one-sided test at level alpha, spent with gamma = 2;
 * both boundaries computed on the z scale by recursive numerical
 * integration and mapped to the t statistic through its p-value, on the
 * time scale of the t-test's information n (z/t(n-1))^2 (see doc/ab.md for
 * the derivation and the simulated operating characteristics).
 */
#ifndef NF_STATS_SEQUENTIAL_H
#define NF_STATS_SEQUENTIAL_H

#include <stddef.h>

#include "stats/verdict.h"

/* ---- Building blocks: spending functions and boundaries ---------------- */

enum nf_spend {
    NF_SPEND_OBF,    /* Lan–DeMets O'Brien–Fleming type: 2 - 2 Phi(z(alpha/2) / sqrt(t)) */
    NF_SPEND_POCOCK, /* Lan–DeMets Pocock type: alpha log(1 + (e - 1) t) */
    NF_SPEND_POWER,  /* Kim–DeMets: alpha t^param (param > 0) */
    NF_SPEND_HSD,    /* Hwang–Shih–DeCani: alpha (1 - e^(-param t)) / (1 - e^-param) */
};

/* Cumulative error spent by information fraction t (0 at t <= 0, alpha at
 * t >= 1). */
double nf_spend(enum nf_spend f, double param, double alpha, double t);

/* Boundaries z[0..k-1] for a standardised statistic observed at increasing
 * information levels info[] (Corr(Z_j, Z_k) = sqrt(info_j / info_k), j < k),
 * such that under H0 the probability of first crossing at look k is
 * cum_alpha[k] - cum_alpha[k-1].  two_sided: crossing is |Z_k| >= z[k]
 * (the cum_alpha are then totals over both sides); else Z_k >= z[k].  A
 * look that spends nothing gets z = INFINITY.  Returns 0, -1 on invalid
 * input (info not increasing and > 0, cum_alpha not non-decreasing in
 * [0, 1)) or when memory runs out. */
int nf_gs_boundary(const double *info, const double *cum_alpha, size_t k_looks, int two_sided,
                   double *z);

/* The reverse: cumulative crossing probabilities of given boundaries. */
int nf_gs_crossing(const double *info, const double *z, size_t k_looks, int two_sided,
                   double *cum_alpha);

/* ---- The design of an `ab` session -------------------------------------- */

#define NF_SEQ_MAX_LOOKS 100

struct nf_seq_opts {
    size_t min_rounds;    /* first look; values below 2 mean 2 */
    size_t max_rounds;    /* last look, >= min_rounds */
    double alpha;         /* two-sided level of the effect test; also the error of
                             an equivalence claim when the true change is at the margin */
    double threshold_pct; /* equivalence margin +-%; 0: no equivalence stops */
};

struct nf_seq_design {
    struct nf_seq_opts o;
    size_t nlooks;
    size_t rounds[NF_SEQ_MAX_LOOKS];       /* n at each look */
    double info[NF_SEQ_MAX_LOOKS];         /* the t-test's information, n (z/t(n-1))^2 */
    double spent_effect[NF_SEQ_MAX_LOOKS]; /* cumulative alpha, both sides */
    double spent_equiv[NF_SEQ_MAX_LOOKS];  /* cumulative alpha of each TOST side */
    double z_effect[NF_SEQ_MAX_LOOKS];     /* boundaries on the z scale (INFINITY: */
    double z_equiv[NF_SEQ_MAX_LOOKS];      /* no stop of that kind at this look) */
    double level_effect[NF_SEQ_MAX_LOOKS]; /* nominal two-sided level: 2 Q(z_effect) */
    double level_equiv[NF_SEQ_MAX_LOOKS];  /* nominal one-sided level: Q(z_equiv) */
    double t_effect[NF_SEQ_MAX_LOOKS];     /* the same as paired-t critical values */
    double t_equiv[NF_SEQ_MAX_LOOKS];      /* at df = n - 1 */
};

/* Compute the design (a few ms).  Returns 0; -1 if max_rounds < 2,
 * min_rounds > max_rounds, alpha outside (0, 0.5], threshold_pct < 0 or not
 * finite, or memory ran out. */
int nf_seq_design_init(struct nf_seq_design *d, const struct nf_seq_opts *o);

/* Index of the look at round n, or -1 if n is not a look. */
int nf_seq_look_at(const struct nf_seq_design *d, size_t n);

/* ---- One look ------------------------------------------------------------ */

enum nf_seq_action {
    NF_SEQ_CONTINUE = 0,
    NF_SEQ_STOP_EFFECT,     /* the effect boundary was crossed */
    NF_SEQ_STOP_EQUIVALENT, /* the equivalence boundary was crossed */
    NF_SEQ_STOP_MAX,        /* last look (MAX, or the session ends): neither */
};
/* "continue", "stop: effect", "stop: equivalent", "stop: max reached" */
const char *nf_seq_action_name(enum nf_seq_action a);

enum nf_seq_toward { NF_SEQ_TOWARD_NONE = 0, NF_SEQ_TOWARD_EFFECT, NF_SEQ_TOWARD_EQUIVALENT };
/* "", "effect", "equivalence" */
const char *nf_seq_toward_name(enum nf_seq_toward t);

struct nf_seq_look {
    size_t rounds;                  /* n analysed */
    int look;                       /* the design's look whose levels were used; -1: none (n < 2) */
    int is_look;                    /* n is a look (or final): a stop is possible */
    double change_pct;              /* estimate, metric's scale: geometric mean of the
                                       per-round ratios (t) or Hodges–Lehmann (utest) */
    double ci_low_pct, ci_high_pct; /* repeated CI at the effect level: excludes 0 exactly
                                       when the effect boundary is crossed (NAN: unbounded) */
    double eq_low_pct, eq_high_pct; /* repeated CI at the equivalence level (1 - 2 level):
                                       inside +-threshold exactly when the equivalence
                                       boundary is crossed */
    double p_value;                 /* the paired test's fixed-sample p (not for decisions) */
    double level_effect, level_equiv; /* this look's nominal levels */
    double z_effect, bound_effect;    /* |z| of the effect test (through its p) and the
                                         boundary it must reach */
    double z_equiv, bound_equiv;      /* the smaller of the two TOST z's and its boundary;
                                         NAN when threshold_pct is 0 */
    enum nf_seq_toward toward;        /* the boundary with the larger z / bound */
    enum nf_seq_action action;
    enum nf_verdict verdict; /* at a stop; NF_INCONCLUSIVE while continuing */
    int significant;         /* effect boundary crossed (also when equivalent) */
    int negligible;          /* significant, yet equivalent: "a real change of x%,
                                inside the +-threshold margin" */
    /* Serial correlation of the rounds' log-ratios (nf_serial_rule): the
     * lag-1 r and its one-sided p (NAN below NF_SERIAL_MIN_N rounds), and
     * the variance inflation the paired t was widened by (1: none; always
     * 1 with utest). */
    double serial_r, serial_p, serial_f;
};

/* Evaluate the first n rounds (base[i], var[i] of round i; n may be below
 * MIN for a progress line: then action is CONTINUE).  A test whose row's
 * paired form is NF_PAIRED_SIGNED_RANK (utest; stats/testrow.h): Wilcoxon
 * signed-rank and Hodges–Lehmann intervals at the same nominal
 * levels; any other test: paired t.  rate: a higher-is-better throughput
 * metric (analysed on reciprocals, see nf_log_ratios).  final != 0: the
 * session ends at this round for another reason (time limit, interrupt):
 * the last look at or before n decides, and neither boundary crossed gives
 * NF_SEQ_STOP_MAX; n >= max_rounds is final by itself.  Verdict at a stop:
 *   equivalence crossed -> equivalent (significant and negligible when the
 *                          effect boundary is crossed too);
 *   effect crossed      -> improved / regressed per better;
 *   otherwise (final)   -> inconclusive.
 * Returns 0; -1 on invalid arguments or non-finite / non-positive values
 * (out then says CONTINUE, or STOP_MAX with inconclusive when final). */
int nf_seq_evaluate(const struct nf_seq_design *d, const double *base, const double *var, size_t n,
                    int rate, enum nf_test test, enum nf_better better, int final,
                    struct nf_seq_look *out);

/* The session's decision after n rounds: the looks at rounds <= n in order,
 * each on the rounds up to it; the first that stops decides, and later
 * rounds do not change it (a comparison that has crossed a boundary is
 * settled while the session goes on for others).  When none has stopped:
 * final != 0 makes n the last look (as nf_seq_evaluate), else the look at n
 * (or the next look's levels) with action CONTINUE.  out describes the
 * deciding look (out->rounds is its n); arguments and return as
 * nf_seq_evaluate. */
int nf_seq_replay(const struct nf_seq_design *d, const double *base, const double *var, size_t n,
                  int rate, enum nf_test test, enum nf_better better, int final,
                  struct nf_seq_look *out);

#endif
