/* The live progress line of a measured session, on stderr: only when the
 * caller enables it (stderr is a terminal and no --no-progress), so stdout
 * keeps only results and --json pipes cleanly. */
#ifndef NF_MEASURE_PROGRESS_H
#define NF_MEASURE_PROGRESS_H

#include "core/run.h"

struct nf_progress {
    int enabled;
    unsigned long long t0_ns;
};

void nf_progress_start(struct nf_progress *p, int enabled);
/* "what i/n  12.3s  usecs/op 6.10 ± 0.05 (95% CI)" (m may be NULL). */
void nf_progress_update(struct nf_progress *p, const char *what, int i, int n,
                        const struct nf_metric *m);
/* Any line, in place of the last. */
void nf_progress_line(struct nf_progress *p, const char *line);
/* Seconds since nf_progress_start. */
double nf_progress_elapsed(const struct nf_progress *p);
/* Clear the line. */
void nf_progress_done(struct nf_progress *p);

#endif
