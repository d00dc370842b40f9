/* Kernel performance counters on a workload's process tree, via
 * perf_event_open: one counter per event (not a group, as perf stat does by
 * default), inherited by every task the workload creates, read after it has
 * been reaped.  Events the machine cannot count are marked unsupported,
 * never reported as zero. */
#ifndef NF_MEASURE_COUNTERS_H
#define NF_MEASURE_COUNTERS_H

#include <stddef.h>
#include <sys/types.h>

#define NF_MAX_EVENTS 16

enum nf_counter_state { NF_CTR_OK, NF_CTR_UNSUPPORTED, NF_CTR_DENIED, NF_CTR_FAILED };

struct nf_counter {
    const char *name; /* perf's name: "task-clock", "cycles", ... */
    const char *unit; /* "msec" for task-clock, "" for counts */
    unsigned type;
    unsigned long long config;
    int fd;
    enum nf_counter_state state;
    int err;            /* errno of a failed open */
    double value;       /* scaled count of the last read */
    double running_pct; /* time_running / time_enabled * 100 */
};

struct nf_counters {
    struct nf_counter c[NF_MAX_EVENTS];
    size_t n;
};

/* What `-e default` counts: the software events perf stat shows first.
 * Nothing is counted unless -e asks: an inherited counter runs code on
 * every context switch of the workload (perf bench sched pipe is ~10%
 * slower under perf stat -e page-faults), so counting perturbs what is
 * measured; the metrics of measure/rusage.h come for free instead. */
#define NF_DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"
extern const char nf_default_events[];

/* Parse "task-clock,cycles" ("default" stands for NF_DEFAULT_EVENTS; "":
 * none); unknown event → -1 with a line in err. */
int nf_counters_parse(struct nf_counters *cs, const char *list, char *err, size_t errlen);

/* Open each counter on pid (disabled; inherit; enable_on_exec when
 * on_exec).  A counter that cannot be opened keeps its state; the call fails
 * only on an unexpected error.  Returns the number opened. */
int nf_counters_open(struct nf_counters *cs, pid_t pid, int on_exec);
void nf_counters_enable(struct nf_counters *cs);
void nf_counters_disable(struct nf_counters *cs);
/* Read (scaled by enabled/running), then close the fds. */
void nf_counters_read_close(struct nf_counters *cs);
void nf_counters_close(struct nf_counters *cs);

#endif
