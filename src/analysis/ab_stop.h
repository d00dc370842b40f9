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

/* The stop rule (ctx: a struct nf_ab_stop): 1 when every deciding row has
 * reached a decision (*why: which boundaries) or nothing at all was
 * compared (*why: NF_AB_NOTHING_COMPARED), 0 to go on; it does not fail.
 * note: for the progress line, each variant's change with its repeated CI
 * and the boundary it is nearing, or its decision. */
int nf_ab_stop_check(void *ctx, const char *const *names, struct nf_run **runs, size_t n,
                     const char **why, char *note, size_t notelen, char *err, size_t errlen);

#endif
