/* The comparison compare and report show (analysis/comparison.h). */
#include "analysis/comparison.h"

#include "analysis/diagnosis.h"
#include "analysis/unlike.h"

int nf_comparison_of_labels(struct nf_comparison *c, const struct nf_label_runs *in,
                            const struct nf_label_runs *apart, size_t nlabels, const char *workload,
                            const char *metric, const struct nf_cmp_opts *opts, char *err,
                            size_t errlen)
{
    if (nf_compare_build(c, in, nlabels, workload, metric, opts, err, errlen)) {
        nf_compare_free(c);
        return -1;
    }
    nf_compare_note_set_apart(c, apart);
    nf_compare_note_unfinished(c, in);
    nf_compare_note_unlike(c, in, nlabels);
    nf_compare_explain(c);
    return 0;
}
