/* noisefloor agent: run the store's queued jobs on this machine, one at a
 * time (fleet/agent.h claims, runs and ends them; this file parses the
 * options and prints one line per job).
 *
 * SIGINT/SIGTERM: the command is stopped too (its run is "interrupted"),
 * the job goes back to the queue, and the agent exits 128 + signal. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "fleet/agent.h"
#include "fleet/jobcheck.h"
#include "store/jobs.h"

struct agent_args {
    struct nf_optlist tags, allow;
    int allow_any;
    int once, drain;
    double lease, poll;
};

const struct nf_opts nf_cmd_agent_opts = {
    .usage = "noisefloor agent [--tag TAG]... [--once | --drain] [--lease SEC] [--poll SEC]\n"
             "                 [--allow-command PATH]... [--allow-commands]",
    .about = "Run the jobs queued in the store (noisefloor submit) on this machine, one at a\n"
             "time: claim the oldest this machine may run, run it, store its runs, mark it\n"
             "done or failed.  Start one agent per machine on the shared store.\n"
             "\n"
             "Whoever can write the store's jobs table can make this agent run what it\n"
             "allows, as the agent's user.  Every job is checked again here as submit\n"
             "checks it (a run or an ab, no --db); by default only built-in workloads run:\n"
             "a job that runs a command (-- COMMAND) is refused unless the command is\n"
             "allowed.",
    .options =
        (const struct nf_option[]){
            NF_OPT_LIST_NOEMPTY(0, "tag", struct agent_args, tags, 0, "TAG",
                                "also run jobs tagged TAG (repeatable); untagged jobs\n"
                                "are run by every agent"),
            NF_OPT_LIST_NOEMPTY(0, "allow-command", struct agent_args, allow, 0, "PATH",
                                "let jobs run the program PATH (repeatable), compared\n"
                                "by its real path once the job's command is resolved"),
            NF_OPT_FLAG(0, "allow-commands", struct agent_args, allow_any,
                        "let jobs run ANY program.  WARNING: whoever can\n"
                        "write the jobs table can then run anything as\n"
                        "this agent's user"),
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

static void job_started(void *ctx, const struct nf_job *job)
{
    (void)ctx;
    if (!nf_g.progress)
        return;
    char *line = nf_cmd_words(job->words, job->nwords);
    fprintf(stderr, "noisefloor: agent: job %lld (attempt %d) on %s: %s\n", (long long)job->id,
            job->attempt, job->host ? job->host : "?", line);
    free(line);
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

/* One line per job as it ends. */
static void job_ended(void *ctx, struct nf_store *s, const struct nf_job *job,
                      const struct nf_job_end *e)
{
    (void)ctx;
    long long id = (long long)job->id;
    if (e->store[0])
        nf_err("agent: job %lld: %s", id, e->store);
    switch (e->outcome) {
    case NF_JOB_DONE: report_done(s, job->id); break;
    case NF_JOB_FAILED: printf("job %lld: failed: %s\n", id, e->why); break;
    case NF_JOB_LOST:
        printf("job %lld: lost (its lease ran out and another agent took it; attempt %d "
               "stopped)\n",
               id, job->attempt);
        break;
    case NF_JOB_LOST_AT_END:
        printf("job %lld: lost (its lease ran out and another agent took it before attempt %d "
               "ended)\n",
               id, job->attempt);
        break;
    case NF_JOB_GIVEN_BACK:
        if (!e->store[0])
            printf("job %lld: given back to the queue (agent stopped by signal %d)\n", id,
                   e->signal);
        break;
    case NF_JOB_STORE_ERROR: break;
    }
}

int cmd_agent(int argc, char **argv)
{
    struct agent_args a = {0}; /* the table's defaults, by nf_cmd_parse */
    int first, rc;
    struct nf_job_allow allow = {0};
    if (nf_cmd_parse("agent", &nf_cmd_agent_opts, &a, argc, argv, &first, &rc)) {
        nf_optlist_free(&a.tags);
        nf_optlist_free(&a.allow);
        return rc;
    }
    rc = NF_EXIT_OK;
    allow.any = a.allow_any;
    char err[NF_ERR_LEN];
    for (size_t i = 0; rc == 0 && i < a.allow.n; i++)
        if (nf_job_allow_add(&allow, a.allow.v[i], err, sizeof(err))) {
            nf_err("agent: %s", err);
            rc = NF_EXIT_USAGE;
        }
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
        nf_optlist_free(&a.allow);
        nf_job_allow_free(&allow);
        return rc;
    }
    /* A store string with a password, given as --db, is on the agent's own
     * command line, which ps shows every user: keep a copy, blank the
     * word in place (ps then shows x's) and say so. */
    char *db = nf_xstrdup(nf_g.db);
    const char *env = getenv("NOISEFLOOR_DB");
    if (nf_g.db != env && strcmp(nf_store_backend(s), "postgresql") == 0 &&
        strcmp(nf_store_name(s), nf_g.db) != 0) {
        memset((char *)nf_g.db, 'x', strlen(nf_g.db));
        nf_warn("agent: --db holds a password, which ps showed to every user until now; give "
                "the store in NOISEFLOOR_DB and the password in PGPASSWORD or a .pgpass file");
    }
    nf_g.db = db;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line per job, as it ends */
    char host[256];
    nf_hostname(host, sizeof(host));
    struct nf_globals g;
    struct nf_job_globals jg = {&nf_global_opts, &g, sizeof(g), &g.db};
    struct nf_agent ag = {.db = nf_g.db,
                          .globals = &jg,
                          .allow = &allow,
                          .tags = (const char *const *)a.tags.v,
                          .ntags = a.tags.n,
                          .host = host,
                          .once = a.once,
                          .drain = a.drain,
                          .lease = a.lease,
                          .poll = a.poll,
                          .quiet = nf_quiet,
                          .stop = &stop_signal,
                          .started = job_started,
                          .ended = job_ended};
    int bad = 0;
    if (nf_agent_loop(s, &ag, &bad, err, sizeof(err)) != 0) {
        if (err[0])
            nf_err("agent: %s", err);
        rc = NF_EXIT_FAIL;
    }
    nf_store_close(s);
    nf_optlist_free(&a.tags);
    nf_optlist_free(&a.allow);
    nf_job_allow_free(&allow);
    free(db);
    if (stop_signal)
        return 128 + stop_signal;
    if (rc == 0 && bad && (a.once || a.drain))
        rc = NF_EXIT_FAIL;
    return rc;
}
