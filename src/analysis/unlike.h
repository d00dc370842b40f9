/* Unlike things compared: what the labels' runs differ in besides the
 * change under test (workload arguments, counters, pinning, the machine),
 * said once above the tables so that no comparison of unlike runs is
 * silent.  Uses core/ only. */
#ifndef NF_ANALYSIS_UNLIKE_H
#define NF_ANALYSIS_UNLIKE_H

#include "analysis/compare.h"

/* After nf_compare_build of in[0..nlabels): c->unlike, one line naming
 * each difference and the labels ("workload arguments: pipe: a '-l
 * 1000000', b '-l 100000'; counters (-e): a task-clock, b none;
 * pinning: a 0, b none"), or NULL when the labels' runs are alike; and
 * b->unlike_args on each block whose labels ran its built-in workload
 * with different arguments (a block split by arguments never is; a
 * command's words are not compared: they are often the change under
 * test, ./old against ./new).  Also c->setup, how they were measured
 * ("pinned to CPU 0, kernel 6.1.0, Intel Xeon ..., host h": what they
 * share, "differs" where they do not), and c->interleaved (some run is
 * of an ab session). */
void nf_compare_note_unlike(struct nf_comparison *c, const struct nf_label_runs *in,
                            size_t nlabels);

#endif
