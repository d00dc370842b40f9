/* Holding the mapped files open while the workload runs, so that a file
 * replaced on disk during the profile (a rebuild) can still be read for
 * symbols afterwards.
 *
 * The sampler's reader pins each file as soon as it reads the mapping's
 * record: through /proc/PID/map_files/START-END, which is the mapped file
 * itself (deleted or renamed over, as long as the process still maps it),
 * when we may open it (CAP_SYS_ADMIN: the kernel's rule for map_files);
 * else by its path, which is the mapped file unless it was replaced between
 * the mapping and the read (the reader wakes at least every 100 ms).
 * Either file is only a candidate: the resolver checks it against the
 * mapping's identity (fileid.h) before reading symbols from it.  A file is
 * pinned once per repetition however many processes map it, and the fds
 * are closed when the repetition's records are cleared. */
#ifndef NF_PROFILE_PIN_H
#define NF_PROFILE_PIN_H

#include "profile/events.h"

/* At most this many files pinned per repetition: past it, files are read
 * by path after the repetition, as without pinning. */
#define NF_PROF_MAX_PINS 256

/* Pin the file of mapping record s (an mmap side record of ev, with an
 * identity; others are left alone). */
void nf_prof_pin(struct nf_prof_events *ev, const struct nf_prof_side *s);

/* The pinned fd of the file with identity id, or -1. */
int nf_prof_pin_fd(const struct nf_prof_events *ev, const struct nf_fileid *id);

#endif
