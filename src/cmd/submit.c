/* noisefloor submit: queue a `run` or an `ab` command in the store, for the
 * fleet's agents (noisefloor agent) to run.
 *
 * The words are checked here, by the command's own parser: submit runs
 * `run` or `ab` in this process with nf_g.check_only set, which makes them
 * stop once their words are parsed.  A bad spec is refused (exit 2, the
 * command's own message) and nothing is queued. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "fleet/jobcheck.h"
#include "measure/runspec.h"
#include "store/jobs.h"

struct submit_args {
    const char *tag;
    long copies, attempts;
    double max_time;
};

const struct nf_opts nf_cmd_submit_opts = {
    .usage = "noisefloor submit [--tag TAG] [--copies N] [--attempts N] [--max-time SEC]\n"
             "                  -- run [RUN OPTIONS] ... | -- ab [AB OPTIONS] NAME=SPEC ...",
    .about = "Queue a run or ab command in the store; the agents of the machines that share\n"
             "the store (noisefloor agent, usually with --db a PostgreSQL URI) claim the\n"
             "jobs one at a time and run them.  The command is checked now: a bad one is\n"
             "refused and nothing is queued; so is one with a --db of its own (the\n"
             "agent's --db is where its runs go).  Every agent checks the job again, and\n"
             "runs a job that starts a command (-- COMMAND) only if the agent allows that\n"
             "command (noisefloor agent --allow-command).",
    .flags = NF_OPTS_STOP,
    .options =
        (const struct nf_option[]){
            NF_OPT_STRING_NOEMPTY(0, "tag", struct submit_args, tag, "TAG",
                                  "only agents started with --tag TAG run the job"),
            NF_OPT_INT(0, "copies", struct submit_args, copies, 1, 100000, "a number of copies",
                       "N", "N identical jobs, at most one per machine", NF_DEF("1")),
            NF_OPT_INT(0, "attempts", struct submit_args, attempts, 1, 1000, "a number of attempts",
                       "N",
                       "claim the job at most N times: once N agents died or were\n"
                       "stopped on it, it fails",
                       NF_DEF("3")),
            NF_OPT_DOUBLE(0, "max-time", struct submit_args, max_time, 0, NF_MAX_TIMEOUT, 0,
                          "a time in seconds", "SEC",
                          "the agent stops an attempt that runs longer than SEC\n"
                          "seconds, and the job fails (0: no limit)",
                          NF_DEF("0")),
            NF_OPT_END,
        },
    .footer = "Prints one line per queued job: queued job ID: COMMAND.  'noisefloor jobs'\n"
              "shows the queue.",
};

int cmd_submit(int argc, char **argv)
{
    struct submit_args a = {0}; /* the table's defaults, by nf_cmd_parse */
    int first, rc;
    if (nf_cmd_parse("submit", &nf_cmd_submit_opts, &a, argc, argv, &first, &rc))
        return rc;
    char **words = argv + first;
    int nwords = argc - first;
    if (nwords == 0) {
        nf_err("submit: give the command to queue: submit -- run ... or submit -- ab ...");
        return NF_EXIT_USAGE;
    }
    /* The check every agent makes again before it runs the job
     * (fleet/jobcheck.h); then the command's own parser, on a copy (getopt
     * may reorder the words it is given) without the global options, as
     * the agent's `noisefloor WORDS` will see them. */
    struct nf_globals g = {0};
    struct nf_job_globals jg = {&nf_global_opts, &g, sizeof(g), &g.db};
    char err[NF_ERR_LEN];
    if (nf_job_check(words, (size_t)nwords, &jg, NULL, err, sizeof(err))) {
        nf_err("submit: %s", err);
        return NF_EXIT_USAGE;
    }
    nf_cmd_fn fn = strcmp(words[0], "run") == 0 ? cmd_run : cmd_ab;
    char **copy = nf_xcalloc((size_t)nwords + 1, sizeof(char *));
    memcpy(copy, words, (size_t)nwords * sizeof(char *));
    memset(&g, 0, sizeof(g));
    int ncopy = nf_opts_take(&nf_global_opts, &g, nwords, copy, err, sizeof(err));
    nf_g.check_only = 1;
    rc = fn(ncopy, copy);
    nf_g.check_only = 0;
    free(copy);
    if (rc != 0)
        return NF_EXIT_USAGE; /* the command said why */

    struct nf_store *s = nf_cmd_open_store("submit", 1, &rc);
    if (!s)
        return rc;
    int64_t *ids = nf_xcalloc((size_t)a.copies, sizeof(int64_t));
    struct nf_job_limits lim = {(int)a.attempts, a.max_time};
    if (nf_store_submit_limited(s, a.tag, words, (size_t)nwords, (int)a.copies, &lim, ids)) {
        nf_err("submit: %s", nf_store_error(s));
        rc = NF_EXIT_FAIL;
    } else {
        char *line = nf_cmd_words(words, (size_t)nwords);
        nf_printable(line); /* the words are queued as given */
        for (long i = 0; i < a.copies; i++)
            printf("queued job %lld: %s\n", (long long)ids[i], line);
        free(line);
    }
    free(ids);
    nf_store_close(s);
    return rc;
}
