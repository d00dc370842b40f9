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

/* NF_CTR_NOT_COUNTED: opened, but the kernel stopped it at an exec that
 * changed the process's credentials (see nf_counters_exec_stops): what it
 * holds is the start of that exec, not the command. */
enum nf_counter_state {
    NF_CTR_OK,
    NF_CTR_UNSUPPORTED,
    NF_CTR_DENIED,
    NF_CTR_FAILED,
    NF_CTR_NOT_COUNTED
};

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
    double enabled_ms;  /* time_enabled of the last read, in msec */
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

/* Whether an exec of the file at path by this process stops its counters.
 * An exec that makes the process undumpable (it raises the effective uid
 * or gid above the real one: a set-user-ID or set-group-ID file of another
 * owner; or it raises capabilities: file capabilities, unless we are root)
 * detaches every perf event from the task (perf_event_exit_task in the
 * kernel's exec), so a counter holds only the first microseconds of the
 * exec.  Not on a nosuid mount or under no_new_privs, where the bits and
 * capabilities are ignored.  1 with the reason in why, else 0. */
int nf_counters_exec_stops(const char *path, char *why, size_t whylen);

/* Mark NF_CTR_NOT_COUNTED each counter read whose enabled time is below
 * a tenth of cpu_ms, the CPU time the kernel gave the counted process tree
 * (its rusage, from the fork): such a counter stopped at an exec that
 * nf_counters_exec_stops could not foresee (a program the command ran, an
 * unreadable one, a security module's transition).  A counter counts from
 * the exec to the end, the exec included, which is a quarter and more of
 * the CPU time of even a program that exits at once; a stopped one holds
 * a hundredth or less.  The number marked. */
size_t nf_counters_mark_stopped(struct nf_counters *cs, double cpu_ms);

/* Each counter's state NF_CTR_NOT_COUNTED (nothing opened). */
void nf_counters_mark_not_counted(struct nf_counters *cs);

#endif
