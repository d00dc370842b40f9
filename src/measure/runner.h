/* Runs repetitions of a run spec, one fresh child each, with the counters
 * around it; appends each finished repetition's values to the run.  The
 * caller drives the loop (run: N in a row; ab: interleaved rounds) and
 * commits each repetition as it finishes. */
#ifndef NF_MEASURE_RUNNER_H
#define NF_MEASURE_RUNNER_H

#include "core/run.h"
#include "measure/capture.h"
#include "measure/repetition.h"
#include "measure/runspec.h"

/* What the repetitions of one run spec keep open from one to the next,
 * so that a repetition opens and closes nothing of its own: a command's
 * output files and /dev/null, a workload's result page.  Made empty by
 * nf_runspec_parse, opened at first use, freed by nf_runspec_free. */
struct nf_rep_keep {
    struct nf_output out;
    int out_open;
    void *result[2];           /* shared with the workload's child: what it measured
                                  ([1]: the counted half of an interleaved repetition) */
    int result_fd[2];          /* the memfd behind each, which the child's image maps */
    struct nf_sys *sys;        /* the machine's readings (measure/sysstat.h), made at
                                  first use; NULL with --no-sysstat */
    unsigned long sys_end_seq; /* the repetition whose end sys read last */
    int64_t sys_end_ns;        /* when (CLOCK_MONOTONIC); 0: never */
    /* A command's counters that its exec stops (measure/counters.h):
     * looked at once, before its first repetition, and again after each
     * counted one.  uncounted: why they are <not counted> (stored without
     * values, the run's note says why), or NULL; counted: a recorded
     * repetition has its counters' values. */
    int exec_checked, counted;
    char *uncounted;
};
struct nf_rep_keep *nf_rep_keep_new(void);
void nf_rep_keep_free(struct nf_rep_keep *k); /* NULL: nothing */

/* Declare the spec's metrics on the run: the workload's (a command's
 * wall), those of measure/rusage.h, the counters, a command's --metric. */
void nf_runner_declare(const struct nf_runspec *spec, struct nf_run *run);

/* One repetition.  record = 0 for warm-up.  NF_REP_OK (its values appended
 * to the run), NF_REP_STOPPED, or NF_REP_FAILED with one line in err (of
 * NF_ERR_LEN bytes).
 *
 * With --interleave (spec->interleave and counters to count), a repetition
 * is two runs of the workload or command, back to back: first without
 * counters, giving every metric but the counters (its own, rusage,
 * --metric captures, a latency histogram); then with the counters open
 * (and the hook attached), giving the counters only.  Either failing fails
 * the repetition, and nothing of it is appended. */
enum nf_rep_status nf_runner_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                 char *err, size_t errlen);

/* The run's notes from its repetitions' readings, appended to run->note:
 * why its counters are <not counted> (a command whose exec stops them;
 * their metrics' not_counted set too, core/run.h), and the interrupt
 * sources with the most interrupts on its CPUs (measure/sysstat.h; not
 * with --no-sysstat). */
void nf_runner_notes(const struct nf_runspec *spec, struct nf_run *run);

/* Warn once about counters that could not be opened or were scaled. */
void nf_runner_report_counters(const struct nf_runspec *spec, const struct nf_run *run);

/* main's entry for a workload's image (measure/spawn.h): when argv is an
 * image's, do the repetition and exit (never returns); otherwise return 0,
 * or NF_EINPUT with one line in err when argv[1] is the image's argument
 * but malformed.  Only a program whose main calls this first has its
 * workloads' repetitions run in an image of itself (a test program's run
 * in the fork). */
int nf_runner_image(int argc, char **argv, char *err, size_t errlen);

#endif
