/* What the machine did during a repetition, as the kernel counts it for
 * free: read before and after the repetition (outside its timed interval)
 * and turned into the metrics of kind machine (core/metric.h):
 *
 *   cpu.irq             interrupts on the repetition's CPUs (/proc/interrupts;
 *                       unpinned, the total of /proc/stat's intr line)
 *   cpu.irq.NAME        those of source NAME, for the sources busiest on
 *                       those CPUs when the run starts (unpinned, the intr
 *                       line's count of each IRQ number, named when the run
 *                       starts; the architecture's own, LOC, RES, CAL, ...,
 *                       are one source, "arch": the total less the rest)
 *   cpu.softirq.KIND    softirqs of KIND on them (/proc/softirqs; unpinned,
 *                       the totals of /proc/stat's softirq line)
 *   cpu.steal           ms the hypervisor ran something else (/proc/stat)
 *   cpu.irq-time        ms spent in interrupt handlers (/proc/stat)
 *   cpu.softirq-time    ms spent in softirqs (/proc/stat)
 *   cpu.other-busy      ms the CPUs were busy with anything but the
 *                       workload: their busy time (/proc/stat, in ticks of
 *                       USER_HZ) minus the workload's CPU time (rusage)
 *   sched.run-delay     ms the workload's main task was runnable but waiting
 *                       (/proc/PID/schedstat, read before reaping), with a
 *                       built-in workload's other tasks (workload/tasks.h)
 *   sched.migrations    times they moved CPU (/proc/PID/sched)
 *
 * The CPUs are the pinned set, else all.  Only CPUs present in both
 * readings count, so a CPU that goes offline (or comes online) during the
 * repetition drops out rather than giving a negative count.  A file that
 * is missing or unreadable makes its metrics <not supported>.  The paths
 * are under a root directory (tests: a fake /proc). */
#ifndef NF_MEASURE_SYSSTAT_H
#define NF_MEASURE_SYSSTAT_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/run.h"

/* The softirq kinds of /proc/softirqs, in the kernel's order. */
#define NF_SOFTIRQ_KINDS 10
extern const char *const nf_softirq_kinds[NF_SOFTIRQ_KINDS];

/* The top interrupt sources a delta keeps, by count. */
#define NF_SYS_TOP 3

struct nf_sys;

/* A reader of the CPUs of cpus (NULL: all) under root (NULL: /). */
struct nf_sys *nf_sys_new(const char *root, const cpu_set_t *cpus);
void nf_sys_free(struct nf_sys *s); /* NULL: nothing */
/* Close the files a reader keeps open between readings (the next reading
 * opens them again). */
void nf_sys_close(struct nf_sys *s);

/* Take reading 0 (before) or 1 (after). */
void nf_sys_read(struct nf_sys *s, int which);
/* Make the last reading 1 the next reading 0, instead of reading again:
 * for a repetition that starts right where the last one ended. */
void nf_sys_again(struct nf_sys *s);
/* The CPUs reading 0 found in /proc/stat, by id, into out
 * ([CPU_SETSIZE]): how many. */
int nf_sys_cpus(const struct nf_sys *s, int *out);

/* The workload's task, read while it is a zombie (or alive): by then its
 * other threads, and the children it reaped, are gone with their counts. */
struct nf_sys_task {
    int ok;                /* schedstat read */
    int migr_ok;           /* sched read */
    uint64_t run_delay_ns; /* summed over the tasks */
    uint64_t migrations;
};
/* /proc/PID/schedstat and /proc/PID/sched.  Adds into *t. */
void nf_sys_task_read(const char *root, pid_t pid, struct nf_sys_task *t);

struct nf_sys_source {
    char name[48]; /* "virtio0-input.0", "LOC" */
    uint64_t count;
};
struct nf_sys_delta {
    int irq_ok, softirq_ok[NF_SOFTIRQ_KINDS], stat_ok;
    uint64_t irq;
    uint64_t softirq[NF_SOFTIRQ_KINDS];
    double steal_ms, irq_ms, softirq_ms, busy_ms; /* busy: all but idle, iowait, steal */
    size_t nsrc;                                  /* the top sources, most first */
    struct nf_sys_source src[NF_SYS_TOP];
    uint64_t named[NF_SYS_TOP]; /* the sources of the metrics cpu.irq.NAME */
    int cpus;                   /* CPUs present in both readings */
};
/* Reading 1 minus reading 0.  Its count per source joins the reader's
 * totals (nf_sys_top) when it is recorded (nf_sys_record). */
void nf_sys_delta(struct nf_sys *s, struct nf_sys_delta *d);
/* The interrupt sources with the most interrupts over every delta
 * recorded, most first: at most max of them into out; how many. */
size_t nf_sys_top(const struct nf_sys *s, struct nf_sys_source *out, size_t max);

/* Declare the machine metrics on run (after the others).  With a reader
 * s, also a metric cpu.irq.NAME for each of the NF_SYS_TOP sources that
 * interrupted its CPUs most since boot (read now: a run's metrics are
 * stored before its first repetition, so its own top sources come too
 * late; they are in its notes, nf_sys_top). */
void nf_sys_declare(struct nf_sys *s, struct nf_run *run);
/* Append one repetition's values: d and t, with the workload's own CPU
 * time own_ms (its rusage) taken from the busy time.  s: the reader that
 * took d (its sources are counted), or NULL. */
void nf_sys_record(struct nf_sys *s, struct nf_run *run, const struct nf_sys_delta *d,
                   const struct nf_sys_task *t, double own_ms);

/* doctor's finding "cpu-activity" (measure/noise.h): each online CPU
 * read over seconds while we sleep, the ones busy with other tasks or
 * interrupts named, and the quietest suggested for --pin.  0 when there is
 * nothing to read (no /proc/stat), else 1 with the finding in *out. */
struct nf_noise;
int nf_sys_doctor(const char *root, double seconds, struct nf_noise *out);
/* The same with wait(ctx, seconds) between the readings instead of a
 * sleep (tests: it changes the fake files). */
int nf_sys_doctor_with(const char *root, double seconds, void (*wait)(void *ctx, double seconds),
                       void *ctx, struct nf_noise *out);

#endif
