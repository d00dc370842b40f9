/* When an `ab` session may stop: the comparison of its variants so far
 * (analysis/compare.h), and the rule of stats/stopping.h on every row that
 * decides (doc/ab.md).  Given to the session engine as its stop rule
 * (measure/session.h), which knows nothing of comparisons. */
#ifndef NF_ANALYSIS_AB_STOP_H
#define NF_ANALYSIS_AB_STOP_H

#include <stddef.h>

#include "analysis/compare.h"

struct nf_ab_stop {
    const char *metric; /* -m: the metric that decides; NULL: the primary ones */
    struct nf_cmp_opts opts;
    size_t looks; /* rounds at which a stop is considered: MAX - MIN + 1 */
};

/* The comparison of the variants, names[0] the baseline, one run each.
 * 0, or -1 with one line in err. */
int nf_ab_compare(const struct nf_ab_stop *a, const char *const *names, struct nf_run **runs,
                  size_t n, struct nf_comparison *cmp, char *err, size_t errlen);

/* The stop rule (ctx: a struct nf_ab_stop): 1 when every deciding row may
 * stop (*why: the stop's name), 0 to go on, NF_EINPUT when -m names no
 * metric of the variants.  note: each variant's change and CI on the first deciding
 * metric, for the progress line. */
int nf_ab_stop_check(void *ctx, const char *const *names, struct nf_run **runs, size_t n,
                     const char **why, char *note, size_t notelen, char *err, size_t errlen);

#endif
