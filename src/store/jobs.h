/* The job queue in the store: commands (the words of a `run` or an `ab`)
 * waiting for a machine to run them, for a fleet of agents that share one
 * store (PostgreSQL; a SQLite file serves the agents of one machine).
 *
 * A job is queued, then running (claimed by one agent, under a lease the
 * agent renews while the command runs), then done (with the runs it
 * stored) or failed (with the reason).  An agent that dies stops renewing;
 * once its lease has run out the job may be claimed again.  Each claim
 * counts an attempt, and only the claim of the current attempt may renew,
 * finish or release the job, so a job is finished once.  The runs a job's
 * command stores carry the job and the attempt (the agent passes them to
 * the command in NOISEFLOOR_JOB), which is how a job learns its runs.
 * Once a later attempt has claimed the job, or an attempt has given it
 * back (the job is queued again), the runs of the attempts so far can
 * never be its result: the loaders report them as
 * "superseded" (NF_STORE_SUPERSEDED_SQL, store_int.h), and compare and
 * report leave them out, so that a job's data is counted once.
 *
 * Errors as in store.h: 0, NF_STORE_NOTFOUND, or -1 with nf_store_error(). */
#ifndef NF_STORE_JOBS_H
#define NF_STORE_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct nf_job {
    int64_t id;
    int64_t group; /* the copies of one submit share it (the first copy's id) */
    char *tag;     /* only agents with this tag run it; NULL: any agent */
    char **words;  /* "run", "-r", "10", "pipe", ... */
    size_t nwords;
    char *state;        /* "queued", "running", "done", "failed" */
    char submitted[32]; /* ISO 8601 UTC */
    int attempt;        /* claims so far */
    char *host;         /* the agent's machine (current or last attempt) */
    char started[32];   /* when that attempt was claimed ("" if never) */
    char finished[32];  /* done or failed ("" if not yet) */
    int lease_expired;  /* running, but its agent stopped renewing */
    int64_t *runs;      /* done (or failed): the runs the attempt stored */
    size_t nruns;
    char *error;      /* failed: why, one line */
    int max_attempts; /* claims it may have (NF_JOB_MAX_ATTEMPTS unless given) */
    double max_time;  /* seconds an attempt may run before its agent stops it; 0: no limit */
    int cancel;       /* running: `jobs cancel` asked its agent to stop it */
};

/* What submit may set for its jobs; zero fields take the defaults. */
#define NF_JOB_MAX_ATTEMPTS 3
struct nf_job_limits {
    int max_attempts; /* 0: NF_JOB_MAX_ATTEMPTS */
    double max_time;  /* 0: none */
};

/* nf_store_renew_job: the claim holds, but `jobs cancel` asked for the job
 * to stop. */
enum { NF_STORE_JOB_CANCELLED = 2 };

/* Queue `copies` identical jobs of words (words[0] "run" or "ab"), one
 * group: one per machine (an agent takes no copy of a group its host has
 * taken).  The ids are written to ids[0..copies). */
int nf_store_submit(struct nf_store *s, const char *tag, char *const *words, size_t nwords,
                    int copies, int64_t *ids);
/* The same with limits (NULL: the defaults). */
int nf_store_submit_limited(struct nf_store *s, const char *tag, char *const *words, size_t nwords,
                            int copies, const struct nf_job_limits *lim, int64_t *ids);

/* Claim the oldest job this agent may run, for lease_s seconds: queued, or
 * running with its lease run out; untagged or tagged with one of tags; not
 * a copy of a group host already took.  The job comes back running, its
 * attempt counted; a job that has had its max_attempts is failed instead
 * (and not claimed).  NF_STORE_NOTFOUND when there is none.  Free with
 * nf_job_free. */
int nf_store_claim_job(struct nf_store *s, const char *const *tags, size_t ntags, const char *host,
                       double lease_s, struct nf_job **out);

/* The claim (id, attempt) holds for lease_s more seconds; NF_STORE_NOTFOUND
 * when it is no longer this attempt's (the lease ran out and another agent
 * claimed the job, or it was cancelled after its lease ran out);
 * NF_STORE_JOB_CANCELLED when it holds but `jobs cancel` asked for the job
 * to stop (the agent stops it and ends it "failed"). */
int nf_store_renew_job(struct nf_store *s, int64_t id, int attempt, double lease_s);

/* End the claim (id, attempt): "done" or "failed" (error: why, one line),
 * recording the runs this attempt stored; or "queued" to give the job back
 * (the agent was stopped).  NF_STORE_NOTFOUND when the claim is no longer
 * this attempt's (nothing changed). */
int nf_store_end_job(struct nf_store *s, int64_t id, int attempt, const char *state,
                     const char *error);

/* `jobs cancel ID`: a queued job (or a running one whose lease ran out:
 * no agent holds it) is failed at once, "cancelled"; a running one is
 * marked for its agent to stop.  *was: the state it had.  0;
 * NF_STORE_NOTFOUND when there is no job id; NF_STORE_JOB_CANCELLED when it
 * had ended already (done, failed: nothing changed). */
int nf_store_cancel_job(struct nf_store *s, int64_t id, char *was, size_t wlen);

/* The reason a cancelled job fails with. */
#define NF_JOB_CANCELLED_WHY "cancelled (noisefloor jobs cancel)"

/* After a failure: connect again if the store's connection was lost (a
 * PostgreSQL server restarted); 0 when it works (again, or still), -1 with
 * the message set.  An agent lives longer than a server's uptime. */
int nf_store_reconnect(struct nf_store *s);

/* Every job (id 0) or job id, by id. */
int nf_store_list_jobs(struct nf_store *s, int64_t id, struct nf_job ***out, size_t *n);

void nf_job_free(struct nf_job *j);
void nf_jobs_free(struct nf_job **jobs, size_t n);

/* The environment variable an agent sets for the command it runs:
 * "ID.ATTEMPT". */
#define NF_JOB_ENV "NOISEFLOOR_JOB"
/* ... and the store it writes to (never in its argv, which ps shows to
 * anyone: the store's string may hold a password). */
#define NF_DB_ENV "NOISEFLOOR_DB"

#endif
