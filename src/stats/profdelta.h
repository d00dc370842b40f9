/* profdelta.h — is a profile's per-symbol delta outside the noise?
 *
 * perf diff prints "Baseline  Delta  Symbol" but cannot say whether +0.57%
 * is noise.  Given each repetition's share of samples per symbol for two
 * labels, the delta of the mean shares gets a Welch CI and p (the
 * repetition is the unit: it carries both the sampling noise and the
 * run-to-run noise), Holm's adjustment over the symbols passed (the rows
 * shown), and a star when it is outside the noise, the way compare marks a
 * change.  Pure functions; doc/statistics.md ("Profile deltas").
 */
#ifndef NF_STATS_PROFDELTA_H
#define NF_STATS_PROFDELTA_H

#include <stddef.h>

struct nf_prof_delta {
    double base_pct, var_pct; /* mean share over the repetitions (the input's unit, percent) */
    double delta;             /* var_pct - base_pct, percentage points */
    double lo, hi;            /* CI of delta at 1-alpha (Welch); NAN if fewer than 2 reps a side */
    double p, p_adj;          /* Welch two-sided; Holm over the symbols passed; NAN as lo */
    int outside;              /* p_adj < alpha and the CI excludes 0: star it */
};

/* base[r * nsym + s] is repetition r's share of symbol s (0 where the symbol
 * had no sample in that repetition), r < nb; var likewise with nv rows.
 * The symbols are the rows to show, in any order (Holm is over them all).
 * Both sides constant: the delta is exact (CI [delta, delta], p 0 or 1).
 * Returns 0, -1 on invalid input (NULL, nb or nv 0, NaN/inf, alpha outside
 * (0,1)) or out of memory. */
int nf_profile_deltas(const double *base, size_t nb, const double *var, size_t nv, size_t nsym,
                      double alpha, struct nf_prof_delta *out);

#endif
