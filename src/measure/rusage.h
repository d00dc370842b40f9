/* The metrics every repetition gets for nothing: what the kernel accounts
 * anyway and wait4() returns with the child's end (struct rusage), for the
 * child and every descendant it reaped, and those the end of the
 * repetition killed (measure/spawn.h).  No perf event is opened, so
 * nothing hooks the workload's context switches.
 *
 *   user, sys                       seconds of CPU in user and kernel mode
 *   voluntary-context-switches      the task blocked (ru_nvcsw)
 *   involuntary-context-switches    the task was preempted (ru_nivcsw)
 *   minor-page-faults               faults served without I/O (ru_minflt)
 *   major-page-faults               faults that read from disk (ru_majflt)
 *   max-rss                         KiB, the largest resident set of one
 *                                   process; a command's is at least what
 *                                   we had resident when it was started
 *                                   (the kernel keeps the larger of the
 *                                   address space left at exec and the new)
 *
 * All lower is better.  Their names differ from perf's events
 * (minor-faults, context-switches), which count only from the exec on and
 * may be asked for with -e as well. */
#ifndef NF_MEASURE_RUSAGE_H
#define NF_MEASURE_RUSAGE_H

#include <sys/resource.h>

#include "core/run.h"

/* (Their names: nf_rusage_names in core/metric.h, in this order.) */
/* Declare the metrics above on run, in that order. */
void nf_rusage_declare(struct nf_run *run);
/* Append one repetition's values. */
void nf_rusage_record(struct nf_run *run, const struct rusage *ru);

#endif
