/* The families of percentile metrics in a built comparison: the blocks
 * of one workload's PREFIX-pN and PREFIX-max (analysis/percentile.h),
 * which the renderers show as one table. */
#ifndef NF_ANALYSIS_PCT_FAMILY_H
#define NF_ANALYSIS_PCT_FAMILY_H

#include <stddef.h>

struct nf_comparison;
/* The blocks of block i's family (same workload, prefix and unit), by
 * percentile with max last, into members (room for c->nblocks); returns how
 * many, or 0 when block i is not a percentile metric or alone in its
 * family. */
size_t nf_pct_group(const struct nf_comparison *c, size_t i, size_t *members);
/* Is block i shown where it stands: not a member of a family, or the
 * family's first block (the renderers print the family there)? */
int nf_pct_group_leader(const struct nf_comparison *c, size_t i);

#endif
