/* Profiles: samples aggregated per (symbol, dso), and the per-symbol
 * difference of two of them, as `perf diff` shows it.  Pure data and
 * arithmetic: no I/O, no printing.  The store keeps profiles in this form;
 * the sampler (sampler.h) and the resolver (resolve.h) fill them. */
#ifndef NF_PROFILE_PROFILE_H
#define NF_PROFILE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* Names of the two symbols that are not symbols. */
#define NF_PROF_UNKNOWN "[unknown]" /* an address no symbol table covers */
#define NF_PROF_KERNEL "[kernel]"   /* the kernel when kallsyms is hidden */

struct nf_prof_entry {
    char *symbol;
    char *dso; /* path of the ELF file, "[kernel.kallsyms]",
                  "[module]", "[vdso]", "[anon]", "[unknown]" */
    uint64_t samples;
    uint64_t period; /* sum of sample periods (ns of cpu-clock, or
                        cycles): what the overhead is computed from,
                        as perf report does */
};

struct nf_profile {
    struct nf_prof_entry *e;
    size_t n, cap;
    size_t *slot; /* open-addressing index over e: index + 1, 0 empty */
    size_t nslot;
    uint64_t samples, period; /* totals */
    uint64_t lost;            /* records the kernel dropped (PERF_RECORD_LOST) */
    char *event;              /* "cycles" or "cpu-clock"; NULL unknown */
    unsigned freq;            /* sampling frequency asked for (Hz) */
    /* The profiled repetitions one by one (their entries and totals; their
     * own event, freq, lost and reps unused), in order: a share's noise from
     * one repetition to the next, which profdiff's intervals rest on.  None
     * for a profile stored before they were kept. */
    struct nf_profile *reps;
    size_t nreps;
};

void nf_profile_init(struct nf_profile *p);
void nf_profile_free(struct nf_profile *p);
/* Add samples to (symbol, dso), creating the entry on first use.  Bytes
 * that are not UTF-8 in either name are replaced by '?' (names end up in
 * JSON and in the store as text). */
void nf_profile_add(struct nf_profile *p, const char *symbol, const char *dso, uint64_t samples,
                    uint64_t period);
/* The entry of (symbol, dso), or NULL. */
const struct nf_prof_entry *nf_profile_find(const struct nf_profile *p, const char *symbol,
                                            const char *dso);
/* A new empty repetition at the end of p->reps (the pointer is valid until
 * the next call). */
struct nf_profile *nf_profile_add_rep(struct nf_profile *p);
/* dst += src (entries, totals, lost; src's repetitions appended to dst's);
 * dst keeps its event unless it has none. */
void nf_profile_merge(struct nf_profile *dst, const struct nf_profile *src);
/* Note that p's samples were taken with event (a label of several runs can
 * mix them): p->event lists each event once, comma-separated, in the order
 * first seen ("cycles,cpu-clock"). */
void nf_profile_add_event(struct nf_profile *p, const char *event);
/* Sort the entries by period (highest first), then samples, symbol, dso.
 * The index is rebuilt: lookups keep working. */
void nf_profile_sort(struct nf_profile *p);
/* Overhead of an entry in percent of the profile's total period (of its
 * samples' periods summed: equal to the share of samples for cpu-clock at
 * a fixed frequency, not for other events). */
double nf_profile_pct(const struct nf_profile *p, const struct nf_prof_entry *e);

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
