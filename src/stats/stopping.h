/* stopping.h — when may an interleaved A/B session stop?
 *
 * Pure functions.  The rule (doc/statistics.md, "Adaptive stopping"):
 * after each round from the minimum on, a comparison may stop when
 *   - its CI is precise: half-width <= threshold/2.  This depends on the
 *     spread only, not on the difference, so the test at the stop keeps its
 *     level (precision-based stopping); and the CI is then decisive by
 *     construction: it excludes 0, or it lies inside +-threshold;
 *   - or it is equivalent: the CI contains 0 and lies inside +-threshold.
 *     Stopping for equivalence can only remove later chances of a false
 *     "improved/regressed", never add one;
 *   - or the effect is overwhelming: p below an early-stop level that spends
 *     a small share of alpha (early_share, default 1/10) evenly over the
 *     possible looks (Bonferroni), so that early stops add at most
 *     early_share * alpha to the false-positive rate.
 */
#ifndef NF_STATS_STOPPING_H
#define NF_STATS_STOPPING_H

#include <stddef.h>

#include "stats/verdict.h"

enum nf_stop {
    NF_STOP_CONTINUE = 0,
    NF_STOP_EFFECT,     /* p below the early-stop level */
    NF_STOP_EQUIVALENT, /* CI contains 0, inside +-threshold */
    NF_STOP_PRECISION,  /* CI half-width <= threshold/2 */
};

struct nf_stop_opts {
    double alpha;
    double threshold_pct;
    size_t looks;       /* rounds at which a stop is considered: MAX - MIN + 1 */
    double early_share; /* share of alpha spent on early effect stops; 0 = 0.1 */
};

const char *nf_stop_name(enum nf_stop s);

/* The per-look level for an early effect stop: alpha * share / looks. */
double nf_stop_early_alpha(const struct nf_stop_opts *o);

/* May this comparison stop?  r as from nf_compare_samples. */
enum nf_stop nf_stop_check(const struct nf_cmp_result *r, const struct nf_stop_opts *o);

#endif
