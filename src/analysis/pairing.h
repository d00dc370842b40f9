/* Paired comparisons, and the sequential verdict of an `ab` session
 * (doc/statistics.md, "Paired rounds"; doc/ab.md, "compare after ab").
 *
 * A variant is compared with the baseline
 *   - by rounds, when each of the two labels has one run carrying the
 *     metric, both runs belong to one `ab` session (same session id) that
 *     ran in interleaved rounds (not `--order sequential`), and they hold
 *     the same number of values -- or one more on one side, a round that an
 *     interrupt cut short, whose unmatched value is left out;
 *   - else by hosts, when the runs of the two labels come from several
 *     hosts (the environment's "hostname") and at least two hosts ran
 *     both: a host is a block, its value the mean of that label's values
 *     on it; hosts that ran only one label are named and left out;
 *   - else unpaired, as before (nf_compare_samples).
 * Paired comparisons are nf_compare_paired() on the per-round (per-host)
 * log-ratios: paired t, or signed-rank and Hodges–Lehmann with utest.
 *
 * An `ab` session stores its design with every run (environment key
 * "ab_design").  A row paired by rounds that decides that session (its -m
 * metric, or the primary one) is decided by the design: the group-
 * sequential looks replayed over the stored rounds (nf_seq_replay), the
 * last stored round being the last look -- exactly what `ab` decided. */
#ifndef NF_ANALYSIS_PAIRING_H
#define NF_ANALYSIS_PAIRING_H

#include <stddef.h>

#include "analysis/compare.h"

#define NF_AB_DESIGN_KEY "ab_design"

/* What an `ab` session was asked for, stored with its runs. */
struct nf_ab_design {
    char order[16]; /* "random", "abba", "sequential" */
    long min_rounds, max_rounds;
    long comparisons;     /* the deciding comparisons alpha is split over */
    double alpha;         /* the family's level (each comparison: alpha / comparisons) */
    double threshold_pct; /* the equivalence margin */
    char test[16];
    char metric[128]; /* -m, or "": the primary metric decides */
};

/* The JSON object stored under NF_AB_DESIGN_KEY (new reference). */
json_t *nf_ab_design_json(const struct nf_ab_design *d);
/* The design a run's environment holds: 0, or -1 when it holds none (or a
 * malformed one). */
int nf_ab_design_of(const struct nf_run *run, struct nf_ab_design *d);

/* Compare label l of block b with the baseline (label 0): pairing, the
 * paired or unpaired result in cell->r, notes, and for a deciding row of a
 * session the sequential look (cell->sequential, cell->look, verdict,
 * significant, p_adjusted).  live: the session is still running (`ab`'s
 * stop rule): the rounds so far are not the last look. */
void nf_pair_compare(const struct nf_comparison *c, struct nf_cmp_block *b, size_t l,
                     const struct nf_label_runs *in, int live);

#endif
