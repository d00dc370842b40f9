/* Which runs make a block of a comparison (analysis/blocks.c): the
 * workload x metric (x argument list) rows that nf_compare_build fills. */
#ifndef NF_ANALYSIS_BLOCKS_H
#define NF_ANALYSIS_BLOCKS_H

#include "analysis/compare.h"

/* Add to c a block for every workload x metric (x argument list, when a
 * label ran the workload with several) that the labels' runs hold,
 * restricted to workload and metric when they are not NULL; live: an ab
 * session is running (no block for a metric stored <not supported>). */
void nf_cmp_collect_blocks(struct nf_comparison *c, const struct nf_label_runs *in,
                           const char *workload, const char *metric, int live);

/* A label's runs of block b (all of lr's when the block is not split);
 * out->runs is allocated, its runs are lr's. */
void nf_cmp_runs_of(const struct nf_cmp_block *b, const struct nf_label_runs *lr,
                    struct nf_label_runs *out);

/* A split block that a label has no run of, while it has runs of the
 * workload with other arguments: a note on the cell saying which. */
void nf_cmp_other_args_note(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                            const struct nf_label_runs *lr);

#endif
