/* The comparison as compare and report show it: built, with the notes of
 * the runs it set apart and of those that did not finish, and explained
 * (the diagnosis of each cell).  ab builds its own from its session's
 * design (analysis/ab_stop.h). */
#ifndef NF_ANALYSIS_COMPARISON_H
#define NF_ANALYSIS_COMPARISON_H

#include <stddef.h>

#include "analysis/compare.h"

/* nf_compare_build of in[1..] against in[0] with the filters (NULL: all),
 * then nf_compare_note_set_apart (apart[l]: label l's superseded runs, as
 * nf_label_runs_set_apart left them), nf_compare_note_unfinished and
 * nf_compare_explain.  0; or -1 with one line in err (a filter that
 * matches nothing), c freed. */
int nf_comparison_of_labels(struct nf_comparison *c, const struct nf_label_runs *in,
                            const struct nf_label_runs *apart, size_t nlabels, const char *workload,
                            const char *metric, const struct nf_cmp_opts *opts, char *err,
                            size_t errlen);

#endif
