/* What the built-in and the command side of the runner share: a
 * repetition's outcome, the stop signal, recording counter values, the
 * machine's readings, and starting and waiting for the child. */
#ifndef NF_MEASURE_REPETITION_H
#define NF_MEASURE_REPETITION_H

#include <signal.h>
#include <sys/resource.h>

#include "core/run.h"
#include "measure/counters.h"
#include "measure/runspec.h"
#include "measure/sysstat.h"

/* A repetition's outcome, by the modules' convention: 0 or a named
 * non-negative code, -1 for a failure with one line in the caller's
 * char[NF_ERR_LEN]. */
enum nf_rep_status {
    NF_REP_OK = 0,
    NF_REP_STOPPED = 1, /* a stop signal came (nf_stop_signal): nothing recorded */
    NF_REP_FAILED = -1,
};

/* Set by the SIGINT, SIGTERM, SIGHUP and SIGQUIT handlers installed with
 * nf_runner_signals(): the signal number, or 0.  The handlers also kill the
 * running child (nf_spawn_interrupt). */
extern volatile sig_atomic_t nf_stop_signal;
void nf_runner_signals(void);

/* Append this repetition's counter values; a counter that could not count
 * marks its metric unsupported (never a 0). */
void nf_runner_record_counters(struct nf_counters *cs, struct nf_run *run);

/* Whether the spec's repetitions are interleaved: --interleave, and
 * counters to count. */
int nf_runner_interleaved(const struct nf_runspec *spec);

/* The machine's readings around one repetition (measure/sysstat.h):
 * begin before the child starts, the task's reading as spawn's
 * before_reap (ctx: this), end once the child and all it started are
 * gone; all outside the timed interval.  sys is NULL with --no-sysstat
 * (and then nothing is read or recorded). */
struct nf_rep_keep;
struct nf_rep_sys {
    struct nf_sys *sys;
    struct nf_rep_keep *keep;
    unsigned long seq; /* the repetition's number in this process */
    const char *root;
    struct nf_sys_task task;
    struct nf_sys_delta d;
};
/* A repetition that begins within this long after the last one's end
 * (of the same spec, none other between) starts from that end's reading. */
#define NF_REP_SYS_AGAIN_NS 2000000
void nf_rep_sys_begin(const struct nf_runspec *spec, int record, struct nf_rep_sys *r);
void nf_rep_sys_task(void *ctx, pid_t pid);
void nf_rep_sys_end(struct nf_rep_sys *r);
/* Append the readings; ru: the repetition's rusage (its CPU time is the
 * workload's own, taken from the CPUs' busy time). */
void nf_rep_sys_record(const struct nf_rep_sys *r, struct nf_run *run, const struct rusage *ru);

/* Start the child c (measure/spawn.h) with what every repetition's child
 * has beside its own: spec's CPUs, pin and timeout, the counters cs and
 * the hook (or NULL), the stop signal, sys's task reading before the reap
 * (sys NULL or without readings: none); then wait for it, the progress
 * line's clock moving while it runs.  The last nf_spawn_wait's result, -1
 * when it did not start (err says why); nf_spawn_end is the caller's. */
struct nf_spawn;
int nf_rep_spawn(struct nf_spawn *c, const struct nf_runspec *spec, struct nf_counters *cs,
                 const struct nf_rep_hook *hook, struct nf_rep_sys *sys, char *err, size_t errlen);

#endif
