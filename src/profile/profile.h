/* Profiles (core/profile.h has their data model) and the per-symbol
 * difference of two of them, as `perf diff` shows it.  Pure data and
 * arithmetic: no I/O, no printing.  The sampler (sampler.h) and the
 * resolver (resolve.h) fill profiles; the store keeps them. */
#ifndef NF_PROFILE_PROFILE_H
#define NF_PROFILE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/profile.h"

/* Names of the two symbols that are not symbols. */
#define NF_PROF_UNKNOWN "[unknown]" /* an address no symbol table covers */
#define NF_PROF_KERNEL "[kernel]"   /* the kernel when kallsyms is hidden */

/* The last path component of a dso ("/usr/lib/x/libc.so.6" → "libc.so.6");
 * bracketed names are returned as they are. */
const char *nf_prof_dso_short(const char *dso);

/* One row of a profile difference.  Symbols are matched by name and the
 * short name of their dso, so the same program built in two directories
 * still pairs up. */
struct nf_profdiff_row {
    char *symbol;
    char *dso; /* short name */
    int in_base, in_other;
    double base_pct, other_pct; /* 0 when absent */
    double delta;               /* other_pct - base_pct, percentage points */
    uint64_t base_samples, other_samples;
    int means;                            /* nf_profdiff_order was given means */
    double mean_base_pct, mean_other_pct; /* then: the shares rows go by */
};

struct nf_profdiff {
    struct nf_profdiff_row *rows;
    size_t n;
};

/* The difference of other against base.  Rows whose overhead is below
 * min_pct on both sides are left out.  Sorted like perf diff, by baseline
 * overhead (highest first); a symbol only in other is placed by its own
 * overhead, so a new hot symbol is not buried under the baseline's tail;
 * ties by |delta|, then symbol and dso. */
void nf_profile_diff(const struct nf_profile *base, const struct nf_profile *other, double min_pct,
                     struct nf_profdiff *out);
/* Order d by other shares than the summed profiles' (the ones shown):
 * base[i] and other[i] for row i, in percent (the mean shares over the
 * repetitions, which profdiff shows when both labels kept them), kept in
 * the rows' mean_ members; rows below min_pct on both sides by these
 * shares are left out, the rest sorted as nf_profile_diff sorts.  NULL
 * base and other: by the summed shares, as nf_profile_diff. */
void nf_profdiff_order(struct nf_profdiff *d, const double *base, const double *other,
                       double min_pct);
/* Each repetition's share of each of the first nrows rows of d, in percent
 * of that repetition's period: out[r * nrows + i] for the r-th repetition of
 * p that has samples (a repetition without any has no shares), 0 where it
 * has none of row i's symbol; symbols matched as nf_profile_diff matches
 * them.  The matrix stats/profdelta.h takes.  Returns the number of
 * repetitions in *out (malloc'd; NULL when 0). */
size_t nf_profile_rep_shares(const struct nf_profile *p, const struct nf_profdiff *d, size_t nrows,
                             double **out);
void nf_profdiff_free(struct nf_profdiff *d);

#endif
