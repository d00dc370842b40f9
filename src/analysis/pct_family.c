/* Percentile families of a built comparison (analysis/pct_family.h). */
#include "analysis/pct_family.h"

#include <string.h>

#include "analysis/compare.h"

/* Do blocks a and b belong to one family? */
static int same_family(const struct nf_cmp_block *a, const struct nf_cmp_block *b)
{
    return a->family && b->family && strcmp(a->family, b->family) == 0 &&
           nf_cmp_block_same_runs(a, b) && strcmp(a->unit, b->unit) == 0;
}

size_t nf_pct_group(const struct nf_comparison *c, size_t i, size_t *members)
{
    const struct nf_cmp_block *b = &c->blocks[i];
    if (!b->family)
        return 0;
    size_t n = 0;
    for (size_t j = 0; j < c->nblocks; j++)
        if (same_family(b, &c->blocks[j]))
            members[n++] = j;
    if (n < 2)
        return 0;
    /* Insertion sort by percentile (a handful of members); stable. */
    for (size_t k = 1; k < n; k++)
        for (size_t j = k; j > 0 && c->blocks[members[j - 1]].pct > c->blocks[members[j]].pct;
             j--) {
            size_t t = members[j];
            members[j] = members[j - 1];
            members[j - 1] = t;
        }
    return n;
}

int nf_pct_group_leader(const struct nf_comparison *c, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (same_family(&c->blocks[i], &c->blocks[j]))
            return 0;
    return 1;
}
