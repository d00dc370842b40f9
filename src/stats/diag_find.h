/* diag_find.h — shared by the two halves of the noise diagnosis (not
 * part of the API): diagnose.c, which holds nf_diagnose and the findings
 * in the values' distribution (clusters, outliers, a noisy sample), and
 * diag_order.c, the findings in the repetitions' order and runs (warm-up,
 * drift, serial correlation, runs that differ). */
#ifndef NF_STATS_DIAG_FIND_H
#define NF_STATS_DIAG_FIND_H

#include <stddef.h>

#include "stats/cluster.h"
#include "stats/diagnose.h"

/* One diagnosis under way: the caller's values and runs, the marks and
 * labels of its repetitions, and the findings it adds to. */
struct diag_ctx {
    const double *x;
    size_t n, nruns;
    const size_t *len; /* run lengths */
    size_t *off;       /* run offsets */
    size_t *run_of;    /* run index of each repetition */
    unsigned char *warm;
    unsigned char *lab;
    const struct nf_diag_opts *o;
    int dir; /* +1: higher values are slower */
    struct nf_diagnosis *d;
};

/* A new finding of that kind at the end of d (zeroed), or NULL when memory
 * runs out. */
struct nf_diag_finding *diag_add(struct nf_diagnosis *d, enum nf_diag_kind kind);

/* Write a finding's text (at most NF_DIAG_TEXT, with its NUL); append to
 * one, as far as it fits. */
void diag_text(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_more(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* v against ref in percent (NAN when ref is 0). */
double diag_pct(double v, double ref);

/* The findings of diag_order.c, each 0, or -1 when memory runs out.
 * Warm-up, first of all: it marks c->warm, which the others leave out, and
 * given cl, the clusters of all the values (labels in c->lab), it takes a
 * slowest cluster made of the first repetitions of the runs as the warm-up
 * and clusters the rest again into cl. */
int diag_find_warmup(struct diag_ctx *c, struct nf_clustering *cl);
int diag_find_drift(struct diag_ctx *c, double alpha);
int diag_find_serial(struct diag_ctx *c, double alpha);
int diag_find_runs_differ(struct diag_ctx *c, double alpha);

#endif
