/* noisefloor agent: run the store's queued jobs on this machine, one at a
 * time.
 *
 * A job is claimed under a lease (--lease), which the agent renews every
 * third of it while the job's command runs; an agent that dies stops
 * renewing, and once the lease has run out another agent claims the job.
 * The command is this same binary (/proc/self/exe), started with the job's
 * words, the same --db, and NOISEFLOOR_JOB=ID.ATTEMPT so that the runs it
 * stores belong to the job; never through a shell.  It dies with the agent
 * (PR_SET_PDEATHSIG), so a killed agent leaves no command behind to finish
 * a job another agent has taken: its run is left "incomplete".  Its stderr
 * passes through and its last line is the reason a failed job gives; its
 * stdout (the run's summary) is not kept.
 *
 * SIGINT/SIGTERM: the command is stopped too (its run is "interrupted"),
 * the job goes back to the queue, and the agent exits 128 + signal. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "store/jobs.h"

extern char **environ;

struct agent_args {
    struct nf_optlist tags;
    int once, drain;
    double lease, poll;
};

const struct nf_opts nf_cmd_agent_opts = {
    .usage = "noisefloor agent [--tag TAG]... [--once | --drain] [--lease SEC] [--poll SEC]",
    .about = "Run the jobs queued in the store (noisefloor submit) on this machine, one at a\n"
             "time: claim the oldest this machine may run, run it, store its runs, mark it\n"
             "done or failed.  Start one agent per machine on the shared store.",
    .options =
        (const struct nf_option[]){
            NF_OPT_LIST_NOEMPTY(0, "tag", struct agent_args, tags, 0, "TAG",
                                "also run jobs tagged TAG (repeatable); untagged jobs\n"
                                "are run by every agent"),
            NF_OPT_FLAG(0, "once", struct agent_args, once, "run at most one job, then exit"),
            NF_OPT_FLAG(0, "drain", struct agent_args, drain,
                        "run jobs until none is left for this machine, then exit"),
            NF_OPT_DOUBLE(0, "lease", struct agent_args, lease, 1, 86400, 0, "a lease in seconds",
                          "SEC",
                          "hold a job for SEC seconds at a time, renewed every SEC/3\n"
                          "while it runs",
                          NF_DEF("60")),
            NF_OPT_DOUBLE(0, "poll", struct agent_args, poll, 0.1, 3600, 0,
                          "an interval in seconds", "SEC",
                          "look for jobs every SEC seconds while there are none", NF_DEF("5")),
            NF_OPT_END,
        },
    .footer = "Prints one line per job as it ends: job ID: done (runs ...) | failed: WHY |\n"
              "lost | given back.  Exit status: 0, or 1 when a job failed or was lost\n"
              "(--once, --drain) or the store failed; 128+N when stopped by signal N.\n"
              "NOISEFLOOR_HOSTNAME overrides the host name the agent and its runs record.",
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
}

static double now_s(void)
{
    return (double)nf_now_ns() / 1e9;
}

/* Sleep up to sec seconds, less when a signal stops us. */
static void nap(double sec)
{
    double until = now_s() + sec;
    while (!stop_signal && now_s() < until) {
        double left = until - now_s();
        poll(NULL, 0, left > 0.1 ? 100 : (int)(left * 1000) + 1);
    }
}

enum outcome { JOB_DONE, JOB_FAILED, JOB_LOST, JOB_STOPPED, JOB_STORE_ERROR };

/* The job's command: argv and environment, built before the fork. */
struct child_spec {
    char **argv;
    char **envp;
    char jobenv[64];
    char exe[4096]; /* this binary, as ps should name it */
};

static void child_spec_make(struct child_spec *c, const struct nf_job *job)
{
    size_t n = 0;
    c->argv = nf_xcalloc(job->nwords + 6, sizeof(char *));
    c->argv[n++] = "noisefloor";
    c->argv[n++] = "--db";
    c->argv[n++] = (char *)nf_g.db;
    c->argv[n++] = "--no-progress";
    if (nf_quiet)
        c->argv[n++] = "-q";
    for (size_t i = 0; i < job->nwords; i++)
        c->argv[n++] = job->words[i];
    size_t ne = 0;
    while (environ[ne])
        ne++;
    c->envp = nf_xcalloc(ne + 2, sizeof(char *));
    size_t k = 0;
    size_t plen = strlen(NF_JOB_ENV "=");
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], NF_JOB_ENV "=", plen) != 0)
            c->envp[k++] = environ[i];
    snprintf(c->jobenv, sizeof(c->jobenv), NF_JOB_ENV "=%lld.%d", (long long)job->id, job->attempt);
    c->envp[k++] = c->jobenv;
    /* The file's own path, so that the command is named noisefloor and not
     * "exe"; /proc/self/exe itself when the file is gone (replaced). */
    ssize_t n2 = readlink("/proc/self/exe", c->exe, sizeof(c->exe) - 1);
    c->exe[n2 > 0 ? n2 : 0] = 0;
    if (n2 <= 0 || access(c->exe, X_OK) != 0)
        snprintf(c->exe, sizeof(c->exe), "/proc/self/exe");
}

static void child_spec_free(struct child_spec *c)
{
    free(c->argv);
    free(c->envp);
}

/* Start the command; its stderr comes back on *errfd. */
static pid_t start_command(const struct child_spec *c, int *errfd, char *err, size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start the job's command: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        if (devnull >= 0)
            close(devnull);
        return -1;
    }
    if (pid == 0) {
        /* Die with the agent: a job whose agent is gone is another
         * agent's to run, and must not be finished twice. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDOUT_FILENO);
        }
        dup2(p[1], STDERR_FILENO);
        execve(c->exe, c->argv, c->envp);
        static const char msg[] = "noisefloor: agent: cannot start noisefloor again\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)w;
        _exit(127);
    }
    close(p[1]);
    if (devnull >= 0)
        close(devnull);
    *errfd = p[0];
    return pid;
}

/* The command's stderr: passed on line by line, the last line kept. */
struct relay {
    char buf[4096];
    size_t len;
    /* The last error line of noisefloor's own ("noisefloor: ...", not a
     * warning), without the prefix: the measured command's stderr passes
     * through the same pipe, and its lines are not why the job failed. */
    char last[NF_ERR_LEN];
};

static void relay_line(struct relay *r, const char *line, size_t len)
{
    if (!nf_quiet) {
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

/* "job ID: done (runs ...)", the runs as the store recorded them. */
static void report_done(struct nf_store *s, int64_t id)
{
    struct nf_job **jobs;
    size_t n;
    printf("job %lld: done", (long long)id);
    if (nf_store_list_jobs(s, id, &jobs, &n) == 0) {
        if (n && jobs[0]->nruns) {
            printf(" (run%s", jobs[0]->nruns == 1 ? "" : "s");
            for (size_t i = 0; i < jobs[0]->nruns; i++)
                printf(" %lld", (long long)jobs[0]->runs[i]);
            putchar(')');
        }
        nf_jobs_free(jobs, n);
    }
    putchar('\n');
}

static enum outcome run_job(struct nf_store *s, const struct nf_job *job,
                            const struct agent_args *a)
{
    char err[NF_ERR_LEN];
    if (nf_g.progress) {
        char *line = nf_cmd_words(job->words, job->nwords);
        fprintf(stderr, "noisefloor: agent: job %lld (attempt %d) on %s: %s\n", (long long)job->id,
                job->attempt, job->host ? job->host : "?", line);
        free(line);
    }
    struct child_spec c;
    child_spec_make(&c, job);
    int errfd = -1;
    pid_t pid = start_command(&c, &errfd, err, sizeof(err));
    child_spec_free(&c);
    if (pid < 0) {
        if (nf_store_end_job(s, job->id, job->attempt, "failed", err) != 0)
            nf_err("agent: job %lld: %s", (long long)job->id, nf_store_error(s));
        printf("job %lld: failed: %s\n", (long long)job->id, err);
        return JOB_FAILED;
    }
    struct relay r = {.len = 0};
    double renew_every = a->lease / 3, next_renew = now_s() + renew_every;
    int status = 0, lost = 0, told = 0;
    for (;;) {
        if (errfd >= 0) {
            struct pollfd pfd = {.fd = errfd, .events = POLLIN};
            if (poll(&pfd, 1, 100) > 0 && !relay_read(&r, errfd)) {
                close(errfd);
                errfd = -1;
            }
        } else {
            poll(NULL, 0, 100);
        }
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            while (errfd >= 0 && relay_read(&r, errfd))
                ;
            break;
        }
        if (stop_signal && !told) {
            kill(pid, stop_signal == SIGINT ? SIGINT : SIGTERM);
            told = 1;
        }
        if (!lost && now_s() >= next_renew) {
            int rc = nf_store_renew_job(s, job->id, job->attempt, a->lease);
            if (rc == NF_STORE_NOTFOUND) {
                /* Another agent has the job: this attempt must not finish. */
                lost = 1;
                kill(pid, SIGTERM);
            } else if (rc != 0) {
                nf_warn("agent: job %lld: cannot renew the lease (will retry): %s",
                        (long long)job->id, nf_store_error(s));
            }
            next_renew = now_s() + (rc == 0 ? renew_every : 1.0);
        }
    }
    if (errfd >= 0)
        close(errfd);

    if (lost) {
        printf("job %lld: lost (its lease ran out and another agent took it; attempt %d "
               "stopped)\n",
               (long long)job->id, job->attempt);
        return JOB_LOST;
    }
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (stop_signal && !ok) {
        int rc = nf_store_end_job(s, job->id, job->attempt, "queued", NULL);
        if (rc == 0)
            printf("job %lld: given back to the queue (agent stopped by signal %d)\n",
                   (long long)job->id, (int)stop_signal);
        else
            nf_err("agent: job %lld: %s", (long long)job->id, nf_store_error(s));
        return JOB_STOPPED;
    }
    /* Finished, even if a signal came as it did: the job is done. */
    char why[NF_ERR_LEN] = "";
    if (!ok)
        failure_reason(&r, status, why, sizeof(why));
    int rc = nf_store_end_job(s, job->id, job->attempt, ok ? "done" : "failed", ok ? NULL : why);
    if (rc == NF_STORE_NOTFOUND) {
        printf("job %lld: lost (its lease ran out and another agent took it before attempt %d "
               "ended)\n",
               (long long)job->id, job->attempt);
        return JOB_LOST;
    }
    if (rc != 0) {
        nf_err("agent: job %lld: %s", (long long)job->id, nf_store_error(s));
        return JOB_STORE_ERROR;
    }
    if (!ok) {
        printf("job %lld: failed: %s\n", (long long)job->id, why);
        return JOB_FAILED;
    }
    report_done(s, job->id);
    return JOB_DONE;
}

int cmd_agent(int argc, char **argv)
{
    struct agent_args a = {0}; /* the table's defaults, by nf_cmd_parse */
    int first, rc;
    if (nf_cmd_parse("agent", &nf_cmd_agent_opts, &a, argc, argv, &first, &rc)) {
        nf_optlist_free(&a.tags);
        return rc;
    }
    rc = NF_EXIT_OK;
    if (first < argc) {
        nf_err("agent: unexpected argument '%s'", argv[first]);
        rc = NF_EXIT_USAGE;
    } else if (a.once && a.drain) {
        nf_err("agent: give --once or --drain, not both");
        rc = NF_EXIT_USAGE;
    }
    struct nf_store *s = rc ? NULL : nf_cmd_open_store("agent", 1, &rc);
    if (!s) {
        nf_optlist_free(&a.tags);
        return rc;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line per job, as it ends */
    char host[256];
    nf_hostname(host, sizeof(host));
    int bad = 0;
    while (!stop_signal) {
        struct nf_job *job;
        int r = nf_store_claim_job(s, a.tags.v, a.tags.n, host, a.lease, &job);
        if (r == NF_STORE_NOTFOUND) {
            if (a.once || a.drain)
                break;
            nap(a.poll);
            continue;
        }
        if (r != 0) {
            if (a.once || a.drain) {
                nf_err("agent: %s", nf_store_error(s));
                rc = NF_EXIT_FAIL;
                break;
            }
            nf_warn("agent: %s (will retry)", nf_store_error(s));
            nap(a.poll);
            continue;
        }
        enum outcome o = run_job(s, job, &a);
        nf_job_free(job);
        if (o == JOB_FAILED || o == JOB_LOST || o == JOB_STORE_ERROR)
            bad = 1;
        if (o == JOB_STORE_ERROR && (a.once || a.drain)) {
            rc = NF_EXIT_FAIL;
            break;
        }
        if (a.once)
            break;
    }
    nf_store_close(s);
    nf_optlist_free(&a.tags);
    if (stop_signal)
        return 128 + stop_signal;
    if (rc == 0 && bad && (a.once || a.drain))
        rc = NF_EXIT_FAIL;
    return rc;
}
