/* Starting a child, waiting for it, and stopping it with everything it
 * started: the one seam every repetition goes through (after git's
 * run-command.h).  A command is exec'd from argv, never through a shell; a
 * built-in workload runs as a function in a forked child.
 *
 * The child leads its own process group (a timeout or a stop reaches all
 * it started), has SIGINT, SIGTERM and SIGPIPE at their defaults, is
 * killed when we die (PR_SET_PDEATHSIG), and is pinned before it is
 * ready: the counters and the hook are attached to the ready child, so the
 * move to the pinned CPU is not counted, and then it goes.  Two ways there:
 *
 *  - vfork (commands, by default): clone(CLONE_VM | CLONE_VFORK), so no
 *    page tables are copied and torn down per repetition.  We are suspended
 *    until the child execs, so it opens the counters on itself.
 *  - fork with a ready/go handshake: for a function, for a hook (profile's
 *    sampler attaches from the parent and allocates doing so), under
 *    valgrind (which cannot run a CLONE_VM child), and once clone was
 *    refused (a seccomp filter, say).
 *
 * Where the next changes go (each in one place, behind this interface):
 *  - containment, so that every descendant of a repetition dies with it,
 *    also one that left the process group (setsid, a double fork): either
 *    a cgroup per child (made in nf_spawn_start, joined by the child in
 *    child_identity() or with clone3's CLONE_INTO_CGROUP, emptied with
 *    cgroup.kill in nf_spawn_end) or PR_SET_CHILD_SUBREAPER on us (then
 *    nf_spawn_end kills and reaps what was reparented to us).  A field for
 *    the cgroup joins struct nf_spawn; the callers do not change.
 *  - a cheaper repetition: nf_spawn_wait() alone opens the pidfd and polls
 *    (with no fd watched and no timeout a blocking wait4 would do: a
 *    signal interrupts it), nf_spawn_end() alone kills (one kill of the
 *    group, or one cgroup.kill, would do), and a command's stderr pipe is
 *    the caller's choice (measure/capture.h). */
#ifndef NF_MEASURE_SPAWN_H
#define NF_MEASURE_SPAWN_H

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "measure/counters.h"
#include "measure/runspec.h"

struct nf_spawn {
    /* What to start, set by the caller (zero: the default). */
    char *const *argv;    /* exec argv[0] (searched in PATH) with argv */
    int (*fn)(void *arg); /* or, with argv NULL: fn(arg) in a forked
                             child, whose return is its exit status */
    void *arg;
    const char *name;               /* for messages; default argv[0] */
    int out, err;                   /* exec: the child's stdout and stderr, -1 for
                                       /dev/null (set both; stdin is always
                                       /dev/null).  A function keeps ours. */
    const cpu_set_t *cpus;          /* pin the child to these; NULL: not */
    const char *pin;                /* the same as the user wrote it, for messages */
    struct nf_counters *counters;   /* opened on the ready child, counting
                                       from its exec (fn: from go); or NULL */
    const struct nf_rep_hook *hook; /* attached to the ready child; or NULL */
    double timeout;                 /* seconds from t_start; 0: none */
    volatile sig_atomic_t *stop;    /* non-zero ends a wait; or NULL */

    /* Filled in. */
    pid_t pid;        /* > 0 once forked: the leader of its process group */
    uint64_t t_start; /* the child's clock just before exec (fn: ours at go) */
    uint64_t t_end;   /* ours just after it was reaped */
    int reaped;       /* status and ru hold its end */
    int status;       /* as from wait4 */
    struct rusage ru;
    int hooked; /* the hook is attached: nf_spawn_release detaches it */
    int pidfd;  /* -1 when not open */
};

/* Start the child.  0 once it has exec'd (fn: been told to go); -1 with
 * one line in err.  Either way nf_spawn_end() and nf_spawn_release()
 * follow. */
int nf_spawn_start(struct nf_spawn *c, char *err, size_t errlen);

/* How a wait ended (non-negative codes; -1 is a failure of the wait). */
enum nf_spawn_wait {
    NF_SPAWN_EXITED = 0, /* reaped: status, ru, t_end */
    NF_SPAWN_WOKEN,      /* a watched fd's callback ended the wait */
    NF_SPAWN_TIMEOUT,    /* c->timeout passed */
    NF_SPAWN_STOPPED,    /* *c->stop became non-zero */
};

/* Wait for the child.  While waiting, readable(ctx, &fds[i]) is called
 * for each readable fds[i] (>= 0; it sets the fd to -1 once closed); a
 * return of 1 ends the wait with NF_SPAWN_WOKEN.  Returns an enum
 * nf_spawn_wait, or -1 with one line in err. */
int nf_spawn_wait(struct nf_spawn *c, int *fds, size_t nfds, int (*readable)(void *ctx, int *fd),
                  void *ctx, char *err, size_t errlen);

/* The end of the child: unless it was reaped, kill its group first when
 * force is set (else wait for it to exit by itself) and reap it; then kill
 * whatever is left in its group: a stray task would disturb the next
 * repetition. */
void nf_spawn_end(struct nf_spawn *c, int force);

/* Detach the hook (keep: the repetition counts) and close what the start
 * opened.  After nf_spawn_end(). */
void nf_spawn_release(struct nf_spawn *c, int keep);

#endif
