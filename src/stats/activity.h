/* activity.h — how much a reading of the machine (interrupts, run delay,
 * other tasks' time: the machine metrics) coincides with a metric's
 * values, repetition by repetition: the reading's median and robust
 * spread, from which a single repetition's robust z-score, and the rank
 * correlation of the two over all repetitions.  A coincidence, with its
 * strength: not proof of a cause.
 *
 * Pure functions; doc/statistics.md ("Noise diagnosis") describes their
 * use. */
#ifndef NF_STATS_ACTIVITY_H
#define NF_STATS_ACTIVITY_H

#include <stddef.h>

/* Fewest repetitions for a rank correlation. */
#define NF_ACTIVITY_MIN_RANK 10

struct nf_activity {
    double median; /* of the reading */
    double sd;     /* its MAD * NF_MAD_NORMAL (robust.h); 0 when more than
                      half the values are equal */
    double rho, p; /* Spearman of reading and metric (tests.h); NAN with
                      fewer than NF_ACTIVITY_MIN_RANK values or a constant */
};

/* The reading a[0..n-1] beside the metric's x[0..n-1].  0, or -1 on
 * invalid input (n == 0, a value not finite). */
int nf_activity(const double *a, const double *x, size_t n, struct nf_activity *out);

/* The robust z-score of a reading v: (v - median) / sd; with sd 0, +inf
 * above the median, -inf below, 0 at it. */
double nf_activity_z(const struct nf_activity *s, double v);

#endif
