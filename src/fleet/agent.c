/* The agent loop (see agent.h): claim, run, renew, end. */
#include "fleet/agent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/spawn.h"

extern char **environ;

static double now_s(void)
{
    return (double)nf_now_ns() / 1e9;
}

/* Sleep up to sec seconds, less when a stop comes. */
static void nap(const struct nf_agent *a, double sec)
{
    double until = now_s() + sec;
    while (!*a->stop && now_s() < until) {
        double left = until - now_s();
        poll(NULL, 0, left > 0.1 ? 100 : (int)(left * 1000) + 1);
    }
}

/* The command that runs a job: argv and environment. */
struct command {
    char **argv;
    char **envp;
    char jobenv[64];
    char *dbenv;    /* NOISEFLOOR_DB=the agent's store */
    char exe[4096]; /* this program, as ps should name it */
};

/* The one place where a claimed job becomes the command that runs it:
 * our own program with the job's words, once they pass the check submit
 * made (fleet/jobcheck.h: whatever wrote the row, it is judged again
 * here, before anything starts), and the agent's allow-list.  The store
 * and NOISEFLOOR_JOB go in the command's environment, never its argv:
 * anyone on the machine can read a process's arguments (ps), while its
 * environment is its user's.  0, or -1 with one line in err, the reason
 * the job then fails with. */
static int job_command(const struct nf_agent *a, const struct nf_job *job, struct command *c,
                       char *err, size_t errlen)
{
    char why[NF_ERR_LEN - 16];
    if (nf_job_check(job->words, job->nwords, a->globals, a->allow, why, sizeof(why))) {
        snprintf(err, errlen, "refused: %s", why);
        return -1;
    }
    size_t n = 0;
    c->argv = nf_xcalloc(job->nwords + 4, sizeof(char *));
    c->argv[n++] = "noisefloor";
    c->argv[n++] = "--no-progress";
    if (a->quiet)
        c->argv[n++] = "-q";
    for (size_t i = 0; i < job->nwords; i++)
        c->argv[n++] = job->words[i];
    size_t ne = 0;
    while (environ[ne])
        ne++;
    c->envp = nf_xcalloc(ne + 3, sizeof(char *));
    size_t k = 0;
    static const char jobkey[] = NF_JOB_ENV "=", dbkey[] = NF_DB_ENV "=";
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], jobkey, strlen(jobkey)) != 0 &&
            strncmp(environ[i], dbkey, strlen(dbkey)) != 0)
            c->envp[k++] = environ[i];
    snprintf(c->jobenv, sizeof(c->jobenv), NF_JOB_ENV "=%lld.%d", (long long)job->id, job->attempt);
    c->envp[k++] = c->jobenv;
    c->dbenv = nf_xasprintf("%s%s", dbkey, a->db);
    c->envp[k++] = c->dbenv;
    /* The file's own path, so that the command is named noisefloor and not
     * "exe"; /proc/self/exe itself when the file is gone (replaced). */
    ssize_t n2 = readlink("/proc/self/exe", c->exe, sizeof(c->exe) - 1);
    c->exe[n2 > 0 ? n2 : 0] = 0;
    if (n2 <= 0 || access(c->exe, X_OK) != 0)
        snprintf(c->exe, sizeof(c->exe), "/proc/self/exe");
    return 0;
}

static void command_free(struct command *c)
{
    free(c->argv);
    free(c->envp);
    free(c->dbenv);
}

/* The command's stderr: passed on line by line, the last line kept. */
struct relay {
    int quiet;
    char buf[4096];
    size_t len;
    /* The last error line of noisefloor's own ("noisefloor: ...", not a
     * warning), without the prefix: the measured command's stderr passes
     * through the same pipe, and its lines are not why the job failed. */
    char last[NF_ERR_LEN];
};

static void relay_line(struct relay *r, const char *line, size_t len)
{
    if (!r->quiet) {
        fwrite(line, 1, len, stderr);
        fputc('\n', stderr);
    }
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    static const char ours[] = "noisefloor: ", warning[] = "noisefloor: warning: ";
    if (len <= strlen(ours) || strncmp(line, ours, strlen(ours)) != 0 ||
        (len >= strlen(warning) && strncmp(line, warning, strlen(warning)) == 0))
        return;
    line += strlen(ours);
    len -= strlen(ours);
    if (len >= sizeof(r->last))
        len = sizeof(r->last) - 1;
    memcpy(r->last, line, len);
    r->last[len] = 0;
}

/* Read what is there; 0 at end of file. */
static int relay_read(struct relay *r, int fd)
{
    ssize_t n = read(fd, r->buf + r->len, sizeof(r->buf) - r->len);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (n == 0) {
        if (r->len)
            relay_line(r, r->buf, r->len);
        r->len = 0;
        return 0;
    }
    r->len += (size_t)n;
    char *start = r->buf, *nl;
    while ((nl = memchr(start, '\n', r->len - (size_t)(start - r->buf)))) {
        relay_line(r, start, (size_t)(nl - start));
        start = nl + 1;
    }
    size_t rest = r->len - (size_t)(start - r->buf);
    if (rest == sizeof(r->buf)) { /* a line longer than the buffer */
        relay_line(r, r->buf, rest);
        rest = 0;
    }
    memmove(r->buf, start, rest);
    r->len = rest;
    return 1;
}

/* For nf_spawn_wait: the stderr pipe is readable (never ends the wait). */
static int relay_readable(void *ctx, int *fd)
{
    if (!relay_read(ctx, *fd)) {
        close(*fd);
        *fd = -1;
    }
    return 0;
}

/* Why a failed command failed, one line: noisefloor's last error line,
 * or how it ended. */
static void failure_reason(const struct relay *r, int status, char *why, size_t len)
{
    if (*r->last)
        snprintf(why, len, "%s", r->last);
    else if (WIFSIGNALED(status))
        snprintf(why, len, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(why, len, "exit status %d", WEXITSTATUS(status));
}

/* Why the agent stopped a job's command itself (run_command's *stopped). */
enum { STOP_NONE, STOP_CANCELLED, STOP_MAX_TIME };

/* Run the command until it ends, renewing the claim and passing a stop
 * on; its wait status in *status, *lost set when the claim was lost,
 * *stopped when `jobs cancel` or the job's max_time stopped it (SIGINT:
 * its run is "interrupted"). */
static int run_command(struct nf_store *s, const struct nf_agent *a, const struct nf_job *job,
                       const struct command *cmd, struct relay *r, int *status, int *lost,
                       int *stopped, char *err, size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    /* It stays in our process group (a ^C reaches it as it reaches us)
     * and contains its own repetitions; we look at it every 100 ms. */
    struct nf_spawn c = {.argv = cmd->argv,
                         .exe = cmd->exe,
                         .env = cmd->envp,
                         .out = -1,
                         .err = p[1],
                         .keep_group = 1,
                         .uncontained = 1,
                         .tick = 0.1};
    int w = -1;
    if (nf_spawn_start(&c, err, errlen) != 0) {
        nf_spawn_end(&c, 1);
        nf_spawn_release(&c, 0);
        close(p[0]);
        close(p[1]);
        return -1;
    }
    close(p[1]);
    int errfd = p[0], told = 0, renew_failing = 0;
    double start = now_s(), renew_every = a->lease / 3, next_renew = start + renew_every;
    char why[NF_ERR_LEN];
    for (;;) {
        w = nf_spawn_wait(&c, &errfd, 1, relay_readable, r, why, sizeof(why));
        if (w == NF_SPAWN_EXITED || w < 0)
            break;
        if (*a->stop && !told) {
            nf_spawn_signal(&c, *a->stop == SIGINT ? SIGINT : SIGTERM);
            told = 1;
        }
        if (!*stopped && !*lost && job->max_time > 0 && now_s() - start >= job->max_time) {
            *stopped = STOP_MAX_TIME;
            nf_spawn_signal(&c, SIGINT);
        }
        if (!*lost && now_s() >= next_renew) {
            int rc = nf_store_renew_job(s, job->id, job->attempt, a->lease);
            if (rc == NF_STORE_NOTFOUND) {
                /* Another agent has the job: this attempt must not finish. */
                *lost = 1;
                nf_spawn_signal(&c, SIGTERM);
            } else if (rc == NF_STORE_JOB_CANCELLED && !*stopped) {
                *stopped = STOP_CANCELLED;
                nf_spawn_signal(&c, SIGINT);
            } else if (rc < 0 && !renew_failing) { /* said once, until it works again */
                nf_warn("agent: job %lld: cannot renew the lease (will retry): %s",
                        (long long)job->id, nf_store_error(s));
                renew_failing = 1;
            }
            if (rc < 0)
                nf_store_reconnect(s);
            else if (renew_failing) {
                nf_warn("agent: job %lld: the store answers again", (long long)job->id);
                renew_failing = 0;
            }
            next_renew = now_s() + (rc >= 0 ? renew_every : 1.0);
        }
    }
    if (w < 0)
        nf_warn("agent: job %lld: %s", (long long)job->id, why);
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    nf_spawn_release(&c, 0);
    while (errfd >= 0)
        relay_readable(r, &errfd);
    *status = c.status;
    return 0;
}

static void end_job(struct nf_store *s, const struct nf_job *job, const char *state,
                    const char *error, struct nf_job_end *e, int *rc)
{
    *rc = nf_store_end_job(s, job->id, job->attempt, state, error);
    if (*rc != 0)
        snprintf(e->store, sizeof(e->store), "%s", nf_store_error(s));
}

/* Run one claimed job and end it: how it ended in *e. */
static void run_job(struct nf_store *s, const struct nf_agent *a, const struct nf_job *job,
                    struct nf_job_end *e)
{
    memset(e, 0, sizeof(*e));
    if (a->started)
        a->started(a->ctx, job);
    struct command cmd = {0};
    struct relay r = {.quiet = a->quiet};
    int status = 0, lost = 0, stopped = STOP_NONE, rc;
    int started =
        job_command(a, job, &cmd, e->why, sizeof(e->why)) == 0 &&
        run_command(s, a, job, &cmd, &r, &status, &lost, &stopped, e->why, sizeof(e->why)) == 0;
    command_free(&cmd);
    if (!started) {
        e->outcome = NF_JOB_FAILED;
        end_job(s, job, "failed", e->why, e, &rc);
        return;
    }
    if (lost) {
        e->outcome = NF_JOB_LOST;
        return;
    }
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (stopped && !ok) { /* stopped by us: failed, never given back */
        if (stopped == STOP_CANCELLED)
            snprintf(e->why, sizeof(e->why), "%s while it ran", NF_JOB_CANCELLED_WHY);
        else
            snprintf(e->why, sizeof(e->why),
                     "stopped: it ran longer than its limit of %g s (submit --max-time)",
                     job->max_time);
        end_job(s, job, "failed", e->why, e, &rc);
        e->outcome = rc == NF_STORE_NOTFOUND ? NF_JOB_LOST_AT_END
                     : rc != 0               ? NF_JOB_STORE_ERROR
                                             : NF_JOB_FAILED;
        if (rc == NF_STORE_NOTFOUND)
            e->store[0] = 0;
        return;
    }
    if (*a->stop && !ok) {
        e->outcome = NF_JOB_GIVEN_BACK;
        e->signal = (int)*a->stop;
        end_job(s, job, "queued", NULL, e, &rc);
        return;
    }
    /* Finished, even if a signal came as it did: the job is done. */
    if (!ok)
        failure_reason(&r, status, e->why, sizeof(e->why));
    end_job(s, job, ok ? "done" : "failed", ok ? NULL : e->why, e, &rc);
    if (rc == NF_STORE_NOTFOUND) {
        e->outcome = NF_JOB_LOST_AT_END;
        e->store[0] = 0;
    } else if (rc != 0)
        e->outcome = NF_JOB_STORE_ERROR;
    else
        e->outcome = ok ? NF_JOB_DONE : NF_JOB_FAILED;
}

/* The waits between tries of a store that fails: from BACKOFF_MIN
 * doubling up to BACKOFF_MAX (or --poll, when longer). */
#define BACKOFF_MIN 0.25
#define BACKOFF_MAX 10.0

int nf_agent_loop(struct nf_store *s, const struct nf_agent *a, int *bad, char *err, size_t errlen)
{
    int single = a->once || a->drain, down = 0;
    double backoff = BACKOFF_MIN, most = a->poll > BACKOFF_MAX ? a->poll : BACKOFF_MAX;
    while (!*a->stop) {
        struct nf_job *job;
        int r = nf_store_claim_job(s, a->tags, a->ntags, a->host, a->lease, &job);
        if (r >= 0 && down) { /* said once per change, as the failure was */
            nf_warn("agent: the store works again; taking jobs");
            down = 0;
            backoff = BACKOFF_MIN;
        }
        if (r == NF_STORE_NOTFOUND) {
            if (single)
                break;
            nap(a, a->poll);
            continue;
        }
        if (r != 0) {
            if (single) {
                snprintf(err, errlen, "%s", nf_store_error(s));
                return -1;
            }
            if (!down)
                nf_warn("agent: %s (will retry, every %g s at most, until it works)",
                        nf_store_error(s), most);
            down = 1;
            nap(a, backoff);
            backoff = backoff * 2 < most ? backoff * 2 : most;
            nf_store_reconnect(s); /* fails again, if it does, at the next claim */
            continue;
        }
        struct nf_job_end e;
        run_job(s, a, job, &e);
        if (a->ended)
            a->ended(a->ctx, s, job, &e);
        nf_job_free(job);
        if (e.outcome == NF_JOB_FAILED || e.outcome == NF_JOB_LOST ||
            e.outcome == NF_JOB_LOST_AT_END || e.outcome == NF_JOB_STORE_ERROR)
            *bad = 1;
        if (e.outcome == NF_JOB_STORE_ERROR && single) {
            err[0] = 0; /* ended() has told it */
            return -1;
        }
        if (a->once)
            break;
    }
    return 0;
}
