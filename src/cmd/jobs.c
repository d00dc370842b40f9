/* noisefloor jobs: the store's job queue: queued, running (where, since
 * when), done (the runs it stored), failed (why). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "store/jobs.h"

struct jobs_args {
    int json;
};

const struct nf_opts nf_cmd_jobs_opts = {
    .usage = "noisefloor jobs [--json]\n"
             "noisefloor jobs cancel ID",
    .about = "The job queue in the store (noisefloor submit, noisefloor agent), one line per\n"
             "job: its state, the host that ran or runs it and since when, the command, and\n"
             "the runs it stored (done) or why it failed.  'jobs cancel ID' fails a queued\n"
             "job at once (no agent claims it); a running one is stopped by its agent at\n"
             "its next lease renewal (its run is then \"interrupted\") and fails.",
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG(0, "json", struct jobs_args, json, "the jobs as JSON"),
            NF_OPT_END,
        },
    .footer =
        "A running job whose agent stopped renewing its lease shows as 'running' with\n"
        "'lease ran out': the next agent to look claims it again.  JSON:\n"
        "{\"jobs\":[{\"id\", \"group\", \"tag\", \"words\":[...], \"state\", \"submitted\",\n"
        "\"attempts\", \"host\", \"started\", \"finished\", \"lease_expired\", \"runs\":[...],\n"
        "\"error\", \"max_attempts\", \"max_time\" (null: no limit), \"cancelling\"}]}.",
};

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

static json_t *job_json(const struct nf_job *j)
{
    json_t *words = json_array(), *runs = json_array();
    for (size_t i = 0; i < j->nwords; i++)
        json_array_append_new(words, json_string(j->words[i]));
    for (size_t i = 0; i < j->nruns; i++)
        json_array_append_new(runs, json_integer(j->runs[i]));
    json_t *o =
        json_pack("{s:I, s:I, s:o, s:o, s:s, s:o, s:i, s:o, s:o, s:o, s:b, s:o, s:o}", "id",
                  (json_int_t)j->id, "group", (json_int_t)j->group, "tag", str_or_null(j->tag),
                  "words", words, "state", j->state, "submitted", str_or_null(j->submitted),
                  "attempts", j->attempt, "host", str_or_null(j->host), "started",
                  str_or_null(j->started), "finished", str_or_null(j->finished), "lease_expired",
                  j->lease_expired, "runs", runs, "error", str_or_null(j->error));
    json_object_set_new(o, "max_attempts", json_integer(j->max_attempts));
    json_object_set_new(o, "max_time", j->max_time > 0 ? json_real(j->max_time) : json_null());
    json_object_set_new(o, "cancelling",
                        json_boolean(j->cancel && strcmp(j->state, "running") == 0));
    return o;
}

#define COL_MAX 40

/* What the last column says about the job. */
static char *result_text(const struct nf_job *j)
{
    if (strcmp(j->state, "done") == 0 || (strcmp(j->state, "failed") == 0 && j->nruns)) {
        size_t cap = 16 + 24 * j->nruns + (j->error ? strlen(j->error) : 0);
        char *s = nf_xmalloc(cap);
        size_t k = (size_t)snprintf(s, cap, "run%s", j->nruns == 1 ? "" : "s");
        if (!j->nruns)
            k = (size_t)snprintf(s, cap, "no runs");
        for (size_t i = 0; i < j->nruns; i++)
            k += (size_t)snprintf(s + k, cap - k, " %lld", (long long)j->runs[i]);
        if (strcmp(j->state, "failed") == 0)
            snprintf(s + k, cap - k, "; %s", j->error ? j->error : "");
        return s;
    }
    if (strcmp(j->state, "failed") == 0)
        return nf_xstrdup(j->error ? j->error : "-");
    if (strcmp(j->state, "running") == 0)
        return nf_xasprintf("attempt %d of %d%s%s", j->attempt, j->max_attempts,
                            j->lease_expired ? ", lease ran out" : "",
                            j->cancel ? ", cancelling" : "");
    return nf_xstrdup("-");
}

/* jobs cancel ID */
static int cancel(int argc, char **argv)
{
    long id;
    if (argc != 2 || nf_parse_long(argv[1], 1, LONG_MAX, &id)) {
        nf_err("jobs: cancel wants one job ID (see 'noisefloor jobs')");
        return NF_EXIT_USAGE;
    }
    int rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("jobs", 0, &rc);
    if (!s)
        return rc;
    char was[64];
    int r = nf_store_cancel_job(s, id, was, sizeof(was));
    if (r == NF_STORE_NOTFOUND) {
        nf_err("jobs: cancel: no job %ld", id);
        rc = NF_EXIT_FAIL;
    } else if (r == NF_STORE_JOB_CANCELLED) {
        nf_err("jobs: cancel: job %ld has ended already (%s)", id, was);
        rc = NF_EXIT_FAIL;
    } else if (r != 0) {
        nf_err("jobs: cancel: %s", nf_store_error(s));
        rc = NF_EXIT_FAIL;
    } else if (strcmp(was, "running") == 0) {
        printf("job %ld: its agent stops it at its next lease renewal\n", id);
    } else {
        printf("job %ld: cancelled (it was %s)\n", id, was);
    }
    nf_store_close(s);
    return rc;
}

int cmd_jobs(int argc, char **argv)
{
    struct jobs_args a = {0};
    int first, rc;
    if (nf_cmd_parse("jobs", &nf_cmd_jobs_opts, &a, argc, argv, &first, &rc))
        return rc;
    if (first < argc && strcmp(argv[first], "cancel") == 0) {
        if (a.json) {
            nf_err("jobs: cancel takes no --json");
            return NF_EXIT_USAGE;
        }
        return cancel(argc - first, argv + first);
    }
    if (first < argc) {
        nf_err("jobs: unexpected argument '%s'", argv[first]);
        return NF_EXIT_USAGE;
    }
    rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("jobs", 0, &rc);
    if (!s)
        return rc;
    struct nf_job **jobs;
    size_t n;
    if (nf_store_list_jobs(s, 0, &jobs, &n)) {
        nf_err("jobs: %s", nf_store_error(s));
        nf_store_close(s);
        return NF_EXIT_FAIL;
    }
    if (a.json) {
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(list, job_json(jobs[i]));
        json_t *root = json_pack("{s:o}", "jobs", list);
        nf_json_dumpf(root, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(root);
    } else {
        /* Columns as wide as their widest entry; a command beyond COL_MAX
         * characters ends in "...". */
        char(*cmd)[COL_MAX + 1] = nf_xcalloc(n ? n : 1, sizeof(*cmd));
        int hostw = 4, tagw = 3, cmdw = 7;
        for (size_t i = 0; i < n; i++) {
            char *line = nf_cmd_words(jobs[i]->words, jobs[i]->nwords);
            size_t len = strlen(line);
            if (len > COL_MAX) {
                memcpy(cmd[i], line, COL_MAX - 3);
                memcpy(cmd[i] + COL_MAX - 3, "...", 4);
            } else {
                memcpy(cmd[i], line, len + 1);
            }
            free(line);
            if ((int)strlen(cmd[i]) > cmdw)
                cmdw = (int)strlen(cmd[i]);
            if (jobs[i]->host && (int)strlen(jobs[i]->host) > hostw)
                hostw = (int)strlen(jobs[i]->host);
            if (jobs[i]->tag && (int)strlen(jobs[i]->tag) > tagw)
                tagw = (int)strlen(jobs[i]->tag);
        }
        if (n)
            printf("%5s  %-8s  %-*s  %-20s  %-*s  %-*s  %s\n", "ID", "STATE", hostw, "HOST",
                   "SINCE", tagw, "TAG", cmdw, "COMMAND", "RESULT");
        for (size_t i = 0; i < n; i++) {
            const struct nf_job *j = jobs[i];
            const char *since = strcmp(j->state, "queued") == 0    ? j->submitted
                                : strcmp(j->state, "running") == 0 ? j->started
                                                                   : j->finished;
            /* what submitters and agents stored, printed as given but for
             * control bytes */
            char *res = result_text(j), *pres = nf_xprintable(res);
            char *host = nf_xprintable(j->host && strcmp(j->state, "queued") != 0 ? j->host : "-");
            char *tag = nf_xprintable(j->tag ? j->tag : "-"), *pcmd = nf_xprintable(cmd[i]);
            printf("%5lld  %-8s  %-*s  %-20s  %-*s  %-*s  %s\n", (long long)j->id, j->state, hostw,
                   host, since, tagw, tag, cmdw, pcmd, pres);
            free(res);
            free(pres);
            free(host);
            free(tag);
            free(pcmd);
        }
        free(cmd);
    }
    nf_jobs_free(jobs, n);
    nf_store_close(s);
    return rc;
}
