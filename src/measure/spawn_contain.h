/* Containment (see spawn.h, which includes this): the signal handler's
 * interrupt and the guardian, for everyone; and what spawn.c needs, the
 * subreaper, the sweep at the end of a repetition, and telling the
 * signal handler and the guardian which process group is running
 * (nf_contain_*, private to the spawn seam, measure/spawn*.c). */
#ifndef NF_MEASURE_SPAWN_CONTAIN_H
#define NF_MEASURE_SPAWN_CONTAIN_H

#include <sys/resource.h>
#include <stddef.h>
#include <sys/types.h>

/* For a signal handler (async-signal-safe): kill the process group of the
 * child being waited for, if any, so that the wait ends at once. */
void nf_spawn_interrupt(void);

/* The guardian: a small process of our own (named nf-guard, in its own
 * session) that outlives us by a moment: when we die, however (SIGKILL
 * included), it kills the process group of the child we were running and
 * exits.  It learns the group through a shared page, so a repetition
 * costs it no system call.  Started once per measured session; 0, or -1
 * with one line in err (measuring works without it). */
int nf_spawn_guard(char *err, size_t errlen);
/* Let the guardian go (it exits); a no-op without one. */
void nf_spawn_unguard(void);

/* Make us a child subreaper, once per process. */
void nf_contain_init(void);

/* The process group now running (0: none), for nf_spawn_interrupt() and
 * the guardian. */
void nf_contain_running(pid_t pgid);

/* In a forked child that does not exec: close what only we may hold
 * (the guardian's pipe, which must see its end of file when we die). */
void nf_contain_forked(void);

/* After the child (leader of group pgid) was reaped: kill and reap every
 * child we still have, round after round, until there is none.  Their
 * rusage is added to *ru; *strays counts those that were alive. */
void nf_contain_sweep(pid_t pgid, struct rusage *ru, int *strays);

#endif
