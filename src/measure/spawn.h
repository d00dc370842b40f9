/* Starting a child, waiting for it, and stopping it with everything it
 * started: the one seam every child of ours goes through, a repetition,
 * git, the check of a --metric expression, an agent's job (after git's
 * run-command.h: one struct describing the child, start, wait, end;
 * nf_run_capture for the plain "run this, give me its output").  A
 * command is exec'd from argv, never through a shell; a built-in workload
 * runs as a function in a forked child.  (A workload's own tasks, such as
 * pipe's peer, are forked by the workload inside the repetition: they are
 * what it measures.)
 *
 * The child leads its own process group, has SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT and SIGPIPE at their defaults, is killed when we die
 * (PR_SET_PDEATHSIG), and is pinned before it is ready: the counters and
 * the hook are attached to the ready child, so the move to the pinned CPU
 * is not counted, and then it goes.  Two ways there:
 *
 *  - vfork (commands, by default): clone(CLONE_VM | CLONE_VFORK), so no
 *    page tables are copied and torn down per repetition.  We are suspended
 *    until the child execs, so it opens the counters on itself.
 *  - fork with a ready/go handshake: for a function, for a hook (profile's
 *    sampler attaches from the parent and allocates doing so), under
 *    valgrind (which cannot run a CLONE_VM child), and once clone was
 *    refused (a seccomp filter, say).
 *
 * A function may instead run in a fresh image of our own program: the fork
 * child execs /proc/self/exe with the caller's argv (.image), and that
 * image says ready, waits for go and does the function's work itself
 * (nf_spawn_image_args, nf_spawn_image_go).  Then what the work does (its
 * forks, its faults, its exit) costs what it costs in a small process, not
 * what it costs in a copy of ours: whatever store library we loaded, the
 * heap we grew, the pages we touched.  When the exec fails (no /proc), or
 * under valgrind (whose /proc/self/exe is its own), fn runs in the fork.
 *
 * Containment: nothing a repetition starts outlives it.  We are a child
 * subreaper (PR_SET_CHILD_SUBREAPER), so every descendant of a child that
 * loses its parent (a daemon after setsid, the grandchild of a double
 * fork) becomes our child instead of init's; a live descendant is then
 * always in our tree, and nf_spawn_end() kills and reaps our children,
 * round after round, until we have none.  When nothing is left, that
 * costs one wait4 (ECHILD).  If we are killed ourselves (SIGKILL), the
 * child dies by its PR_SET_PDEATHSIG, and the guardian (nf_spawn_guard)
 * kills the child's process group; what had left the group by then
 * (setsid) is not reached.
 *
 * A wait costs one blocking wait4 unless fds are watched or there is a
 * timeout (then a pidfd and poll).  A stop signal cannot be lost between
 * the check of the flag and the wait: the handler kills the child
 * (nf_spawn_interrupt), which ends the wait. */
#ifndef NF_MEASURE_SPAWN_H
#define NF_MEASURE_SPAWN_H

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "measure/counters.h"
#include "measure/runspec.h"
#include "measure/spawn_contain.h" /* nf_spawn_interrupt, the guardian */

struct nf_spawn {
    /* What to start, set by the caller (zero: the default). */
    char *const *argv;    /* exec argv[0] (searched in PATH, see
                             spawn_path.h) with argv */
    int (*fn)(void *arg); /* or, with argv NULL: fn(arg) in a forked
                             child, whose return is its exit status */
    void *arg;
    char *const *image;   /* with fn, or NULL: our own program's argv, to
                             exec from /proc/self/exe in the forked child
                             (see above); spawn puts the handshake after
                             image[0] */
    const int *image_fds; /* fds of ours the image keeps (close-on-exec is
                             cleared on them in the child) */
    int nimage_fds;
    const char *exe;                           /* exec: this file with argv, not argv[0] as
                                                  found in PATH (the agent: our own program) */
    char *const *env;                          /* exec: the child's whole environment; NULL: ours */
    const char *dir;                           /* exec: the child's working directory; NULL: ours */
    int keep_group;                            /* the child stays in our process group (a ^C at our
                                                  terminal reaches it as it reaches us): its end is
                                                  then killed by its pid, not as a group, and
                                                  nf_spawn_interrupt and the guardian leave it be */
    int uncontained;                           /* no subreaper and no sweep: what the child leaves
                                                  is its own business (the agent's command, which
                                                  contains its own repetitions) */
    double tick;                               /* a wait also ends (NF_SPAWN_TICK) this many seconds
                                                  after it began; 0: never */
    const char *name;                          /* for messages; default argv[0] */
    int out, err;                              /* exec: the child's stdout and stderr, -1 for
                                                  /dev/null (set both; stdin is always
                                                  /dev/null).  A function keeps ours. */
    const int *null;                           /* exec: an open /dev/null the caller keeps
                                                  across repetitions; NULL: opened per start */
    const cpu_set_t *cpus;                     /* pin the child to these; NULL: not */
    const char *pin;                           /* the same as the user wrote it, for messages */
    struct nf_counters *counters;              /* opened on the ready child, counting
                                                  from its exec (fn: from go); or NULL */
    const struct nf_rep_hook *hook;            /* attached to the ready child; or NULL */
    double timeout;                            /* seconds from t_start (longer ones count as
                                                  NF_MAX_TIMEOUT); 0: none */
    volatile sig_atomic_t *stop;               /* non-zero ends a wait; or NULL */
    void (*before_reap)(void *ctx, pid_t pid); /* called once the child has
                                       exited and before it is reaped
                                       (waitid WNOWAIT: its /proc/PID and
                                       its threads' are still there), after
                                       t_end is taken; or NULL */
    void *reap_ctx;

    /* Filled in. */
    pid_t pid;        /* > 0 once forked: the leader of its process group */
    uint64_t t_start; /* the child's clock just before exec (fn: ours at go) */
    uint64_t t_end;   /* ours just after it was reaped */
    int reaped;       /* status and ru hold its end */
    int status;       /* as from wait4 */
    struct rusage ru; /* the child's and its reaped descendants'; after
                         nf_spawn_end also those of the strays */
    int strays;       /* processes still alive when the child had ended,
                         killed by nf_spawn_end */
    int hooked;       /* the hook is attached: nf_spawn_release detaches it */
    int image_errno;  /* the image could not be exec'd (why): fn ran in the
                         fork instead */
    int pidfd;        /* -1 when not open */
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
    NF_SPAWN_STOPPED,    /* *c->stop became non-zero (the child may have
                            been reaped meanwhile: see c->reaped) */
    NF_SPAWN_TICK,       /* c->tick passed: the child runs on; wait again */
};

/* Wait for the child.  While waiting, readable(ctx, &fds[i]) is called
 * for each readable fds[i] (>= 0; it sets the fd to -1 once closed); a
 * return of 1 ends the wait with NF_SPAWN_WOKEN.  Returns an enum
 * nf_spawn_wait, or -1 with one line in err. */
int nf_spawn_wait(struct nf_spawn *c, int *fds, size_t nfds, int (*readable)(void *ctx, int *fd),
                  void *ctx, char *err, size_t errlen);

/* The end of the child and of everything it started: unless it was
 * reaped, kill its group first when force is set (else wait for it to
 * exit by itself) and reap it; then kill and reap every process of ours
 * that is still there (its group, and whatever left the group), until
 * none is left: a stray task would disturb the next repetition. */
void nf_spawn_end(struct nf_spawn *c, int force);

/* Send sig to the child that is not reaped yet: to its process group,
 * or to it alone when it kept ours.  0, or -1 with errno (kill(2)). */
int nf_spawn_signal(const struct nf_spawn *c, int sig);

/* Detach the hook (keep: the repetition counts) and close what the start
 * opened.  After nf_spawn_end(). */
void nf_spawn_release(struct nf_spawn *c, int keep);

/* Run argv (argv[0] searched in PATH) in dir (NULL: ours), stdin from
 * /dev/null, and wait for it, at most timeout seconds (0: no limit): the
 * plain child of a helper, such as `git -C DIR rev-parse HEAD`.  Its
 * stdout goes into out (NUL-terminated; what does not fit in outlen - 1
 * bytes is read and dropped), its stderr is kept for err.  Returns 0 once
 * it ended by itself, its wait status in *status; then, unless it exited
 * 0, err holds one line: how it ended and the last line of its stderr.
 * Returns -1 with one line in err when it could not be started, or ran
 * past the timeout (it and all it started are killed).  Contained as a
 * repetition is: nothing it started outlives it. */
int nf_run_capture(char *const *argv, const char *dir, double timeout, char *out, size_t outlen,
                   int *status, char *err, size_t errlen);

/* The argument spawn puts at argv[1] of an image (then "R,G", the fds of
 * the handshake), which main looks for before anything else. */
#define NF_SPAWN_IMAGE_ARG "--nf-image"

/* In a process started as an image: 1 when argv[1] is the handshake
 * argument, its fds in *ready and *go; 0 when it is not there; -1 with one
 * line in err when it is there but malformed (a user typing it). */
int nf_spawn_image_args(int argc, char **argv, int *ready, int *go, char *err, size_t errlen);
/* Say ready, wait for go, close both fds: 0, or -1 when the parent is
 * gone (the image should then just exit). */
int nf_spawn_image_go(int ready, int go);

#endif
