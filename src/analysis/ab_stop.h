/* When an `ab` session may stop: the comparison of its variants so far
 * (analysis/compare.h), whose deciding rows the session's group-sequential
 * design decides (analysis/pairing.h, stats/sequential.h; doc/ab.md).
 * Given to the session engine as its stop rule (measure/session.h), which
 * knows nothing of comparisons. */
#ifndef NF_ANALYSIS_AB_STOP_H
#define NF_ANALYSIS_AB_STOP_H

#include <stddef.h>

#include "analysis/compare.h"
#include "analysis/pairing.h"

struct nf_ab_stop {
    const char *metric; /* -m: the metric that decides; NULL: the primary ones */
    struct nf_cmp_opts opts;
};

/* The session's design for nv variants (stored with its runs): alpha is
 * split evenly over the nv - 1 deciding comparisons, one per variant
 * against the baseline (its primary metric, or -m). */
void nf_ab_design_init(struct nf_ab_design *d, const struct nf_ab_stop *a, const char *order,
                       long min_rounds, long max_rounds, size_t nv);

/* The comparison of the variants, names[0] the baseline, one run each.
 * live: the session goes on (the rounds so far are not its last look).
 * 0, or -1 with one line in err. */
int nf_ab_compare(const struct nf_ab_stop *a, const char *const *names, struct nf_run **runs,
                  size_t n, int live, struct nf_comparison *cmp, char *err, size_t errlen);

/* Why a session stopped when a look compared nothing at all (the metrics
 * the variants share have no samples, e.g. -m naming a counter that came
 * out <not supported>): more rounds of the same would not change that. */
#define NF_AB_NOTHING_COMPARED "nothing compared"

/* Why a session stopped when a deciding row can never be decided
 * (nf_ab_never_decided says which and why). */
#define NF_AB_NEVER_DECIDED "a deciding row can never be decided"

/* A deciding row that no number of rounds more can decide (doc/ab.md, "A
 * row that can never be decided"): a side without samples of its metric
 * while the other side has them (a counter stored <not supported> for one
 * variant: it never gets a sample later), or a rate with a value <= 0 on a
 * side (its harmonic mean is 0, or none, for good: no test runs on it). */
enum nf_ab_never {
    NF_AB_DECIDABLE,  /* no such row */
    NF_AB_NO_SAMPLES, /* a side has no samples of it */
    NF_AB_UNTESTABLE, /* a rate with a value <= 0 */
};
/* The first such row of cmp (rows with a side without samples before
 * untestable ones), with why in why[len] ("'b' has no samples of cycles,
 * only <not supported> (...), which the baseline 'a' has"). */
enum nf_ab_never nf_ab_never_decided(const struct nf_ab_stop *a, const struct nf_comparison *cmp,
                                     char *why, size_t len);

/* The stop rule (ctx: a struct nf_ab_stop): 1 when every deciding row has
 * reached a decision (*why: which boundaries), nothing at all was
 * compared (*why: NF_AB_NOTHING_COMPARED) or a deciding row can never be
 * decided (*why: NF_AB_NEVER_DECIDED), 0 to go on; it does not fail.
 * note: for the progress line, each variant's change with its repeated CI
 * and the boundary it is nearing, or its decision. */
int nf_ab_stop_check(void *ctx, const char *const *names, struct nf_run **runs, size_t n,
                     const char **why, char *note, size_t notelen, char *err, size_t errlen);

#endif
