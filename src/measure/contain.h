/* What spawn.c needs of the containment (see spawn.h): the subreaper,
 * the sweep at the end of a repetition, and telling the signal handler
 * and the guardian which process group is running.  Private to
 * measure/spawn.c and measure/contain.c. */
#ifndef NF_MEASURE_CONTAIN_H
#define NF_MEASURE_CONTAIN_H

#include <sys/resource.h>
#include <sys/types.h>

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
