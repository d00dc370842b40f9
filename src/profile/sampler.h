/* Sampling a process tree with perf_event_open, as `perf record` does.
 *
 * One sampling event per online CPU, each on the workload's pid with
 * inherit (so every task it creates is sampled too) and its own ring
 * buffer: the kernel refuses to mmap an inherited per-task (cpu = -1)
 * event, since all children would write to one buffer.  The events also
 * report mmap2, comm (exec) and fork records, so user addresses can be
 * resolved after the tasks are gone, each with the identity of the file it
 * maps (fileid.h), which is pinned as soon as it is read (pin.h).  A thread
 * drains the buffers while the workload runs, so they do not overflow; what
 * the kernel still had to drop is counted (PERF_RECORD_LOST). */
#ifndef NF_PROFILE_SAMPLER_H
#define NF_PROFILE_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/events.h"

#define NF_PROF_DEFAULT_FREQ 4000
#define NF_PROF_MAX_FREQ 100000

/* What to sample with, as chosen by nf_sampler_probe. */
struct nf_sample_cfg {
    unsigned freq;     /* Hz */
    const char *event; /* "cycles" or "cpu-clock" */
    uint32_t type;
    uint64_t config;
    int exclude_kernel; /* kernel samples were refused (paranoid) */
    int build_id;       /* mmap records carry build-ids (Linux 5.12+) */
};

/* Choose the event (cycles when the machine has a PMU, else cpu-clock),
 * find out whether kernel samples are allowed, and check that a per-CPU
 * sampling ring buffer can be set up, on ourselves.  Returns 0, or -1 with
 * one line in err. */
int nf_sampler_probe(struct nf_sample_cfg *cfg, unsigned freq, char *err, size_t errlen);

struct nf_sampler;

/* Start sampling pid and its future children into ev.  on_exec: the
 * events start at pid's next exec (a command); otherwise now, and pid's
 * current mappings are taken from /proc/PID/maps (a forked workload that
 * will not exec).  NULL with one line in err on failure. */
struct nf_sampler *nf_sampler_start(const struct nf_sample_cfg *cfg, pid_t pid, int on_exec,
                                    struct nf_prof_events *ev, char *err, size_t errlen);
/* Stop the events, drain the buffers into ev, free everything. */
void nf_sampler_stop(struct nf_sampler *s);

/* The online CPUs (from sysfs, else 0..N-1); *n set.  malloc'd. */
int *nf_sampler_cpus(size_t *n);

#endif
