/* What the sampler takes out of the kernel's ring buffers, in a form the
 * resolver can sort and replay: the samples, and the side-band records that
 * say which file was mapped where in which process (mmap2), which process
 * came from which (fork) and which one replaced its program (exec).
 *
 * Every record carries a time (PERF_SAMPLE_TIME, CLOCK_MONOTONIC) because
 * the records of one workload arrive in one ring buffer per CPU: a process
 * forked on CPU 0 and sampled on CPU 1 is only understood after the buffers
 * are merged by time. */
#ifndef NF_PROFILE_EVENTS_H
#define NF_PROFILE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "profile/fileid.h"

/* The sample_type the sampler asks for, which the parser relies on. */
#define NF_PROF_SAMPLE_TYPE                                                                        \
    (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

struct nf_prof_sample {
    uint64_t time;
    uint64_t ip;
    uint64_t period;
    uint32_t pid;
    uint32_t seq;   /* arrival order, for a stable sort */
    uint8_t kernel; /* 1: kernel mode, 0: user, 2: other (hypervisor, guest) */
};

enum nf_prof_side_type { NF_SIDE_MMAP, NF_SIDE_FORK, NF_SIDE_EXEC };

struct nf_prof_side {
    uint64_t time;
    enum nf_prof_side_type type;
    uint32_t pid;  /* the process (tgid) */
    uint32_t ppid; /* fork: the parent process */
    uint32_t seq;
    uint64_t start, len, pgoff; /* mmap */
    char *file;                 /* mmap: the path, "[vdso]", "//anon", ... */
    struct nf_fileid id;        /* mmap: which file it was */
};

/* A mapped file held open from soon after it was mapped until the
 * repetition's samples are resolved (pin.h). */
struct nf_prof_pin {
    struct nf_fileid id;
    int fd;    /* -1: none (yet) */
    int exact; /* fd is the mapped file itself (/proc/PID/map_files) */
    int tries; /* times it was looked for */
};

struct nf_prof_events {
    struct nf_prof_sample *s;
    size_t ns, caps;
    struct nf_prof_side *side;
    size_t nside, capside;
    uint64_t lost; /* records dropped by the kernel */
    uint32_t seq;
    struct nf_prof_pin *pin;
    size_t npin, cappin;
    int no_map_files; /* /proc/PID/map_files refused us (no CAP_SYS_ADMIN) */
};

void nf_prof_events_init(struct nf_prof_events *ev);
void nf_prof_events_free(struct nf_prof_events *ev);
/* Forget the records and close the pinned files (keep the memory). */
void nf_prof_events_clear(struct nf_prof_events *ev);

/* Add one side-band mapping (also used for /proc/PID/maps at attach time,
 * with time 0: before anything the kernel reports); id may be NULL (not
 * known).  Returns the record (valid until the next one is added). */
struct nf_prof_side *nf_prof_events_mmap(struct nf_prof_events *ev, uint64_t time, uint32_t pid,
                                         uint64_t start, uint64_t len, uint64_t pgoff,
                                         const char *file, const struct nf_fileid *id);

/* Parse one complete perf record (header included, len bytes, as found in
 * the ring buffer of an event opened with NF_PROF_SAMPLE_TYPE and
 * sample_id_all).  Unknown and malformed records are skipped; returns 0
 * when the record was used or skipped quietly, -1 when it was malformed. */
int nf_prof_events_parse(struct nf_prof_events *ev, const void *rec, size_t len);

/* Add the mappings of process pid from the text of /proc/PID/maps (time 0),
 * with their device and inode. */
void nf_prof_events_maps_text(struct nf_prof_events *ev, uint32_t pid, const char *text);

#endif
