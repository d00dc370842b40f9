/* Percentile metrics in a comparison.  A latency workload (wakeup, timer)
 * reports, per repetition, percentiles of that repetition's events as a
 * family of metrics: PREFIX-pN (N in (0, 100): p50, p99.9) and PREFIX-max,
 * in a unit of time; a command's --metric may declare the same.  Each
 * repetition gives one value of each, so the usual tests apply across
 * repetitions; what differs is how they are read:
 *
 *  - shown together, one block per family (the renderers group them:
 *    analysis/pct_family.h);
 *  - a tail percentile rests on few events: with E events per repetition,
 *    about E x (1 - N/100) lie beyond pN, and below NF_PCT_MIN_TAIL of them
 *    a single slow event moves it (p99.9 of 1,000 events is the second-slowest
 *    one).  The event count is a metric PREFIX + "s" of unit "count" in the
 *    same run (wakeup's "wakeups"); it is not compared itself (it says how
 *    long a repetition ran, not how well) unless asked for by name;
 *  - in an ab session a deciding percentile stops at the effect boundary
 *    only where its rounds could reach the level by their signs alone
 *    (nf_pct_seq_replay, below).
 *
 * doc/statistics.md ("Percentile metrics") states the rules. */
#ifndef NF_ANALYSIS_PERCENTILE_H
#define NF_ANALYSIS_PERCENTILE_H

#include <stddef.h>

#include "core/run.h"
#include "stats/sequential.h"

/* Fewer events than this beyond a percentile, per repetition: a note. */
#define NF_PCT_MIN_TAIL 100

/* Is metric (name, unit) a percentile metric?  1 with its prefix in
 * prefix[len] ("wakeup") and *pct (99.9; 100 for PREFIX-max); else 0. */
int nf_pct_parse(const char *name, const char *unit, char *prefix, size_t len, double *pct);

/* Is m the event count of a percentile family of run (PREFIX + "s", unit
 * "count", next to a PREFIX-pN metric)? */
int nf_pct_is_count(const struct nf_run *run, const struct nf_metric *m);

/* The mean events per repetition of family prefix over the runs of
 * workload among runs[0..n) (their count metric's values); NAN when no run
 * has the count. */
double nf_pct_events(struct nf_run *const *runs, size_t n, const char *workload,
                     const char *prefix);

/* The note on a percentile pct (< 100) of one label, or NULL (malloc'd):
 * when `events` per repetition (noun: "wakeups") leave fewer than
 * NF_PCT_MIN_TAIL beyond it.  The note is the metric's: it says "it". */
char *nf_pct_tail_note(const char *label, double pct, double events, const char *noun);

/* An ab session's replay (nf_seq_replay's arguments and return) for a
 * deciding percentile row: a look stops at the effect boundary only when
 * its n rounds could reach the look's level by their signs alone,
 * 2^(1 - n) <= level_effect; a crossing before then is no stop (the
 * session goes on; at its last look, inconclusive).  A percentile's
 * per-repetition values under load flip between a fast and a slow mode,
 * and the paired t's level at 3-5 such rounds is its normal-theory one
 * only in name (doc/ab.md, "A percentile decides only where its rounds'
 * signs could"; tests/ref/sim_pct_tail.c).  *held: the last round whose
 * crossing was held back, or 0. */
int nf_pct_seq_replay(const struct nf_seq_design *d, const double *base, const double *var,
                      size_t n, int rate, enum nf_test test, enum nf_better better, int final,
                      struct nf_seq_look *out, size_t *held);

/* The fewest rounds whose signs alone reach a two-sided level:
 * the smallest n with 2^(1 - n) <= level. */
size_t nf_pct_sign_rounds(double level);

/* The first look of design d at which a percentile can stop at the
 * effect boundary (its rounds), or 0 when none can. */
size_t nf_pct_first_look(const struct nf_seq_design *d);

#endif
