/* Profiles: samples aggregated per (symbol, dso) — the data model that
 * profile/ fills (its sampler and resolver), the store keeps, and
 * profile/profile.h diffs.  Pure data: no I/O, no printing. */
#ifndef NF_CORE_PROFILE_H
#define NF_CORE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

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

#endif
