/* The agent's side of the job queue (store/jobs.h): claim the oldest job
 * this machine may run, run its command, renew the lease while it runs,
 * end the job; again, until told to stop.
 *
 * A job is claimed under a lease, which is renewed every third of it
 * while the job's command runs; an agent that dies stops renewing, and
 * once the lease has run out another agent claims the job.  The command
 * is this same program (/proc/self/exe), started with the job's words
 * once they pass the check of fleet/jobcheck.h, and in its environment the
 * agent's store (NOISEFLOOR_DB, never on its command line) and
 * NOISEFLOOR_JOB=ID.ATTEMPT so that the runs it stores belong to the job;
 * never through a shell (measure/spawn.h starts
 * it).  It dies with the agent (PR_SET_PDEATHSIG), so a killed agent
 * leaves no command behind to finish a job another agent has taken: its
 * run is left "incomplete".  Its stderr passes through and its last line
 * of noisefloor's own is the reason a failed job gives; its stdout (the
 * run's summary) is not kept.
 *
 * A stop (*stop set to a signal's number): the command is sent SIGINT
 * (for SIGINT) or SIGTERM, so its run is "interrupted", and the job goes
 * back to the queue, unless the command finished all the same. */
#ifndef NF_FLEET_AGENT_H
#define NF_FLEET_AGENT_H

#include <signal.h>
#include <stddef.h>

#include "core/util.h"
#include "fleet/jobcheck.h"
#include "store/jobs.h"

/* How one job ended for this agent. */
enum nf_job_outcome {
    NF_JOB_DONE,        /* its command succeeded; the job is done */
    NF_JOB_FAILED,      /* the job failed: why */
    NF_JOB_LOST,        /* its lease ran out and another agent took it while
                           the command ran; the command was stopped */
    NF_JOB_LOST_AT_END, /* the same, found when the attempt ended it */
    NF_JOB_GIVEN_BACK,  /* the agent was stopped: the job is queued again */
    NF_JOB_STORE_ERROR, /* the store failed to record the end */
};

struct nf_job_end {
    enum nf_job_outcome outcome;
    int signal;             /* GIVEN_BACK: the signal that stopped us */
    char why[NF_ERR_LEN];   /* FAILED: the reason the job keeps */
    char store[NF_ERR_LEN]; /* "", or how the store failed to record the
                               end (STORE_ERROR; FAILED and GIVEN_BACK may
                               carry one too: the end is then not stored) */
};

struct nf_agent {
    const char *db; /* the store, which each command is given in NOISEFLOOR_DB */
    const struct nf_job_globals *globals; /* what a job's words may carry */
    const struct nf_job_allow *allow;     /* the programs a job may start */
    const char *const *tags;
    size_t ntags;                /* also run jobs with one of these tags */
    const char *host;            /* this machine, as claims record it */
    int once;                    /* at most one job, then return */
    int drain;                   /* until none is left for this machine, then return */
    double lease;                /* seconds a claim holds, renewed every third */
    double poll;                 /* seconds between looks at an empty queue */
    int quiet;                   /* the command runs with -q, and its stderr is not
                                    passed on */
    volatile sig_atomic_t *stop; /* a signal's number ends the loop */
    /* Called as a job's command is about to start, and as the job ended
     * (NULL: not). */
    void (*started)(void *ctx, const struct nf_job *job);
    void (*ended)(void *ctx, struct nf_store *s, const struct nf_job *job,
                  const struct nf_job_end *end);
    void *ctx;
};

/* Run jobs until a stop, the one job of --once, or the empty queue of
 * --drain.  *bad is set when a job failed, was lost or could not be
 * ended.  0, or -1 when the store failed and the agent gives up (--once,
 * --drain; otherwise it warns and tries again): then err holds one line,
 * or is empty when the failure was a job's end, which ended() was told. */
int nf_agent_loop(struct nf_store *s, const struct nf_agent *a, int *bad, char *err, size_t errlen);

#endif
