/* The live progress line of a measured session, on stderr: only when the
 * caller enables it (stderr is a terminal and no --no-progress), so stdout
 * keeps only results and --json pipes cleanly.
 *
 *   repetition 3/10  12.3s  ETA 0:29  usecs/op 6.10 ± 0.05 (95% CI)
 *
 * The ETA, as hyperfine shows it, is the repetitions left times the mean
 * time of those done (the measured ones once there are some, the warm-ups
 * before), counted down from the end of the last one; before any is done,
 * from what the workload says a repetition takes when it can say
 * (netsend: its sizes times -d), and the first line then says the total.
 * While a repetition runs, the parent's wait for it wakes once a second to
 * redraw the line (nf_progress_tick_interval, nf_progress_tick): the
 * measured child never runs any of this, and the parent's wait changes
 * only for repetitions long enough for a redraw to matter. */
#ifndef NF_MEASURE_PROGRESS_H
#define NF_MEASURE_PROGRESS_H

#include "core/run.h"

struct nf_progress {
    int enabled;
    unsigned long long t0_ns;
    /* The plan (nf_progress_plan): repetitions in all, warm-ups included,
     * and the seconds one is expected to take (0: not known). */
    long planned;
    double expect_s;
    /* Repetitions done (nf_progress_rep_done), and the seconds of each kind. */
    long done, nrec, nwarm;
    double rec_s, warm_s;
    unsigned long long last_ns; /* end of the last repetition (t0 before) */
    /* The line drawn: HEAD i/n, then elapsed and ETA, then TAIL; or a free
     * line (nf_progress_line) when head is empty. */
    char head[64], tail[384], line[512];
    int i, n;
};

void nf_progress_start(struct nf_progress *p, int enabled);
/* How many repetitions the session will run at most (warm-ups included),
 * and how long one is expected to take (0: unknown).  Draws the first
 * line: "N repetitions, expected about 8m15s" when the time is known. */
void nf_progress_plan(struct nf_progress *p, long reps, double expect_s);
/* One repetition ended (recorded: a measured one, not a warm-up). */
void nf_progress_rep_done(struct nf_progress *p, int recorded);
/* "what i/n  12.3s  ETA 0:29  TAIL" (tail may be NULL or ""). */
void nf_progress_step(struct nf_progress *p, const char *what, int i, int n, const char *tail);
/* "what i/n  12.3s  ETA 0:29  usecs/op 6.10 ± 0.05 (95% CI)" (m may be NULL). */
void nf_progress_update(struct nf_progress *p, const char *what, int i, int n,
                        const struct nf_metric *m);
/* Any line, in place of the last. */
void nf_progress_line(struct nf_progress *p, const char *line);
/* Seconds since nf_progress_start. */
double nf_progress_elapsed(const struct nf_progress *p);
/* Clear the line. */
void nf_progress_done(struct nf_progress *p);

/* For the parent's wait on a repetition: every how many seconds to wake
 * and call nf_progress_tick (0: not at all: no line is drawn, or the last
 * repetition took under a second, so the line moves often enough and the
 * wait stays one blocking wait4). */
double nf_progress_tick_interval(void);
/* Redraw the line with the time now (elapsed, ETA). */
void nf_progress_tick(void);

/* "0:29", "8:15", "1:02:03": a duration for the line (s >= 0). */
void nf_progress_clock(char *buf, size_t len, double s);

#endif
