/* The job queue in the store, on both backends: submit, claim (tags, one
 * copy per host, the oldest first), leases that run out, the claim of an
 * attempt that was taken over, the runs of a job, and agents claiming at
 * once: every job claimed exactly once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/jobs.h"
#include "store/store.h"

#include "store_target.h"

static char *words_run[] = {"run", "-r", "3", "pipe", "-l", "1000"};
static char *words_ab[] = {"ab", "a=pipe -l 1000", "b=--pin 0 pipe -l 1000"};

static struct nf_job *claim(struct nf_store *s, const char *host, const char *tag, double lease)
{
    struct nf_job *j;
    const char *tags[1] = {tag};
    int rc = nf_store_claim_job(s, tags, tag ? 1 : 0, host, lease, &j);
    if (rc == NF_STORE_NOTFOUND)
        return NULL;
    if (rc != 0)
        fail_msg("claim: %s", nf_store_error(s));
    return j;
}

static void test_submit_claim_finish(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t ids[3];
    assert_int_equal(nf_store_submit(s, NULL, words_run, 6, 1, ids), 0);
    assert_int_equal(nf_store_submit(s, NULL, words_ab, 3, 2, ids + 1), 0);
    assert_true(ids[0] < ids[1] && ids[1] < ids[2]);

    struct nf_job **all;
    size_t n;
    assert_int_equal(nf_store_list_jobs(s, 0, &all, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(all[0]->state, "queued");
    assert_int_equal(all[0]->nwords, 6);
    assert_string_equal(all[0]->words[5], "1000");
    assert_string_equal(all[1]->words[2], "b=--pin 0 pipe -l 1000");
    assert_int_equal(all[1]->group, ids[1]); /* the copies share the first's id */
    assert_int_equal(all[2]->group, ids[1]);
    assert_int_equal(all[0]->group, ids[0]);
    assert_int_equal(strlen(all[0]->submitted), 20); /* 2026-11-30T03:20:02Z */
    assert_int_equal(all[0]->attempt, 0);
    assert_null(all[0]->host);
    nf_jobs_free(all, n);

    /* The oldest first; a host takes one copy of a group. */
    struct nf_job *a = claim(s, "hostA", NULL, 60);
    assert_int_equal(a->id, ids[0]);
    assert_string_equal(a->state, "running");
    assert_int_equal(a->attempt, 1);
    assert_string_equal(a->host, "hostA");
    assert_int_equal(strlen(a->started), 20);
    struct nf_job *b = claim(s, "hostA", NULL, 60);
    assert_int_equal(b->id, ids[1]);
    assert_null(claim(s, "hostA", NULL, 60)); /* ids[2] is a copy of ids[1] */
    struct nf_job *c = claim(s, "hostB", NULL, 60);
    assert_int_equal(c->id, ids[2]);
    assert_null(claim(s, "hostC", NULL, 60));

    /* Runs stored by the job's command (NOISEFLOOR_JOB) are the job's. */
    char env[64];
    snprintf(env, sizeof(env), "%lld.%d", (long long)a->id, a->attempt);
    setenv(NF_JOB_ENV, env, 1);
    struct nf_store *w = tgt_open(0);
    unsetenv(NF_JOB_ENV);
    struct nf_run *r = nf_run_new("x", "pipe");
    assert_int_equal(nf_store_begin_run(w, r), 0);
    nf_run_set_status(r, "complete");
    assert_int_equal(nf_store_finish_run(w, r), 0);
    struct nf_run *other = nf_run_new("y", "pipe");
    assert_int_equal(nf_store_begin_run(s, other), 0); /* not the job's */
    nf_store_close(w);

    assert_int_equal(nf_store_renew_job(s, a->id, a->attempt, 60), 0);
    assert_int_equal(nf_store_end_job(s, a->id, a->attempt, "done", NULL), 0);
    assert_int_equal(nf_store_end_job(s, b->id, b->attempt, "failed", "run: it broke"), 0);
    /* Ended: no more renewing or ending. */
    assert_int_equal(nf_store_renew_job(s, a->id, a->attempt, 60), NF_STORE_NOTFOUND);
    assert_int_equal(nf_store_end_job(s, a->id, a->attempt, "failed", "x"), NF_STORE_NOTFOUND);
    /* Given back: queued again, claimable by anyone (host cleared). */
    assert_int_equal(nf_store_end_job(s, c->id, c->attempt, "queued", NULL), 0);

    assert_int_equal(nf_store_list_jobs(s, 0, &all, &n), 0);
    assert_string_equal(all[0]->state, "done");
    assert_int_equal(all[0]->nruns, 1);
    assert_int_equal(all[0]->runs[0], r->id);
    assert_int_equal(strlen(all[0]->finished), 20);
    assert_string_equal(all[1]->state, "failed");
    assert_string_equal(all[1]->error, "run: it broke");
    assert_int_equal(all[1]->nruns, 0);
    assert_string_equal(all[2]->state, "queued");
    assert_null(all[2]->host);
    assert_int_equal(all[2]->attempt, 1);
    nf_jobs_free(all, n);
    assert_int_equal(nf_store_list_jobs(s, ids[1], &all, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(all[0]->id, ids[1]);
    nf_jobs_free(all, n);
    struct nf_job *c2 = claim(s, "hostC", NULL, 60);
    assert_int_equal(c2->id, ids[2]);
    assert_int_equal(c2->attempt, 2);

    nf_job_free(a);
    nf_job_free(b);
    nf_job_free(c);
    nf_job_free(c2);
    nf_run_free(r);
    nf_run_free(other);
    nf_store_close(s);
}

static void test_tags(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t arm, any;
    assert_int_equal(nf_store_submit(s, "arm64", words_run, 6, 1, &arm), 0);
    assert_int_equal(nf_store_submit(s, NULL, words_run, 6, 1, &any), 0);
    struct nf_job *j = claim(s, "x86", NULL, 60); /* no tags: untagged jobs only */
    assert_int_equal(j->id, any);
    nf_job_free(j);
    assert_null(claim(s, "x86", "x86_64", 60));
    j = claim(s, "arm", "arm64", 60);
    assert_int_equal(j->id, arm);
    assert_string_equal(j->tag, "arm64");
    nf_job_free(j);
    nf_store_close(s);
}

/* The lease of job id ends now (as if its agent had stopped renewing it
 * that long ago): the store's clock, not ours. */
static void expire(int64_t id)
{
    if (tgt.pg)
        tgt_exec("UPDATE jobs SET lease_until = now() - interval '1 second' WHERE id = %lld",
                 (long long)id);
    else
        tgt_exec("UPDATE jobs SET lease_until = lease_until - 1e6 WHERE id = %lld", (long long)id);
}

/* An agent that stops renewing loses the job once its lease has run out;
 * its attempt can then neither renew nor end it.  Renewing keeps it. */
static void test_lease_runs_out(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t id;
    assert_int_equal(nf_store_submit(s, NULL, words_run, 6, 1, &id), 0);
    struct nf_job *a = claim(s, "hostA", NULL, 60);
    assert_non_null(a);
    assert_false(a->lease_expired);
    assert_null(claim(s, "hostB", NULL, 60)); /* held */
    expire(id);
    assert_int_equal(nf_store_renew_job(s, id, a->attempt, 60), 0); /* renewed in time */
    assert_null(claim(s, "hostB", NULL, 60));
    expire(id);
    struct nf_job **all;
    size_t n;
    assert_int_equal(nf_store_list_jobs(s, id, &all, &n), 0);
    assert_true(all[0]->lease_expired);
    nf_jobs_free(all, n);
    struct nf_job *b = claim(s, "hostB", NULL, 60);
    assert_non_null(b);
    assert_int_equal(b->id, id);
    assert_int_equal(b->attempt, 2);
    assert_int_equal(nf_store_renew_job(s, id, a->attempt, 60), NF_STORE_NOTFOUND);
    assert_int_equal(nf_store_end_job(s, id, a->attempt, "done", NULL), NF_STORE_NOTFOUND);
    assert_non_null(strstr(nf_store_error(s), "no longer held"));
    assert_int_equal(nf_store_end_job(s, id, b->attempt, "done", NULL), 0);
    nf_job_free(a);
    nf_job_free(b);
    nf_store_close(s);
}

/* A handle that writes for attempt `attempt` of job id (NOISEFLOOR_JOB). */
static struct nf_store *open_for(int64_t id, int attempt)
{
    char env[64];
    snprintf(env, sizeof(env), "%lld.%d", (long long)id, attempt);
    setenv(NF_JOB_ENV, env, 1);
    struct nf_store *w = tgt_open(0);
    unsetenv(NF_JOB_ENV);
    return w;
}

static enum nf_run_status loaded_state(struct nf_store *s, int64_t id)
{
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    enum nf_run_status st = r->state;
    nf_run_free(r);
    return st;
}

/* The ids of label's runs that compare counts. */
static size_t counted(struct nf_store *s, const char *label, int64_t *first)
{
    const char *labels[1] = {label};
    struct nf_store_filter f = {.labels = labels, .nlabels = 1, .counted = 1};
    int64_t *ids;
    size_t n;
    assert_int_equal(nf_store_find_runs(s, &f, &ids, &n), 0);
    *first = n ? ids[0] : 0;
    free(ids);
    return n;
}

/* Once a later attempt has claimed a job, the runs of the attempt before
 * it read "superseded", whatever that attempt's writer stores afterwards,
 * and the filter of counted runs leaves them out; a run's environment
 * names its job and attempt; a run imported as superseded stays so. */
static void test_superseded(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t id, first;
    assert_int_equal(nf_store_submit(s, NULL, words_run, 6, 1, &id), 0);
    struct nf_job *a = claim(s, "hostA", NULL, 60);
    struct nf_store *wa = open_for(id, a->attempt);
    struct nf_run *ra = nf_run_new("st", "pipe");
    struct nf_metric *m = nf_run_metric(ra, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    assert_int_equal(nf_store_begin_run(wa, ra), 0);
    nf_metric_push(m, 1.0, 100.0);
    assert_int_equal(nf_store_add_rep(wa, ra, 0), 0);
    char want[64];
    snprintf(want, sizeof(want), "%lld.1", (long long)id);
    assert_string_equal(json_string_value(json_object_get(ra->env, NF_ENV_JOB)), want);
    assert_int_equal(loaded_state(s, ra->id), NF_RUN_RUNNING); /* its attempt holds the job */
    assert_int_equal(counted(s, "st", &first), 1);

    expire(id);
    struct nf_job *b = claim(s, "hostB", NULL, 60);
    assert_int_equal(b->attempt, 2);
    assert_int_equal(loaded_state(s, ra->id), NF_RUN_SUPERSEDED);
    assert_int_equal(counted(s, "st", &first), 0);
    struct nf_store *wb = open_for(id, b->attempt);
    struct nf_run *rb = nf_run_new("st", "pipe");
    assert_int_equal(nf_store_begin_run(wb, rb), 0);
    assert_int_equal(counted(s, "st", &first), 1);
    assert_int_equal(first, rb->id);

    /* The old attempt goes on: more repetitions, its end, a new run. */
    nf_metric_push(m, 2.0, 100.0);
    assert_int_equal(nf_store_add_rep(wa, ra, 1), 0);
    nf_run_set_state(ra, NF_RUN_COMPLETE);
    assert_int_equal(nf_store_finish_run(wa, ra), 0);
    struct nf_run *late = nf_run_new("st", "pipe");
    assert_int_equal(nf_store_begin_run(wa, late), 0);
    nf_store_close(wa);
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, ra->id, &back), 0);
    assert_int_equal(back->state, NF_RUN_SUPERSEDED);
    assert_int_equal(back->metrics[0].n, 2);
    assert_string_equal(json_string_value(json_object_get(back->env, NF_ENV_JOB)), want);
    assert_int_equal(loaded_state(s, late->id), NF_RUN_SUPERSEDED);
    nf_run_set_state(rb, NF_RUN_COMPLETE);
    assert_int_equal(nf_store_finish_run(wb, rb), 0);
    nf_store_close(wb);
    assert_int_equal(nf_store_end_job(s, id, b->attempt, "done", NULL), 0);
    assert_int_equal(loaded_state(s, rb->id), NF_RUN_COMPLETE);
    assert_int_equal(counted(s, "st", &first), 1);
    assert_int_equal(first, rb->id);
    struct nf_job **all;
    size_t n;
    assert_int_equal(nf_store_list_jobs(s, id, &all, &n), 0);
    assert_int_equal(all[0]->nruns, 1);
    assert_int_equal(all[0]->runs[0], rb->id);
    nf_jobs_free(all, n);

    /* Imported as superseded (another store's export): stays so. */
    back->id = 0;
    assert_int_equal(nf_store_insert_runs(s, &back, 1, 1, NULL), 0);
    assert_int_equal(loaded_state(s, back->id), NF_RUN_SUPERSEDED);
    assert_int_equal(counted(s, "st", &first), 1);

    nf_run_free(back);
    nf_run_free(late);
    nf_run_free(ra);
    nf_run_free(rb);
    nf_job_free(a);
    nf_job_free(b);
    nf_store_close(s);
}

/* Agents claiming at once, each until the queue is empty: every job is
 * claimed once, by exactly one of them. */
static void test_concurrent_claims(void **state)
{
    (void)state;
    enum { AGENTS = 4, JOBS = 40 };
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t ids[JOBS];
    assert_int_equal(nf_store_submit(s, NULL, words_run, 6, JOBS, ids), 0);
    /* Not copies of one group, for this test: every agent may take any. */
    tgt_exec("UPDATE jobs SET grp = id");
    nf_store_close(s);
    int p[2], go[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(pipe(go), 0);
    pid_t kids[AGENTS];
    for (int k = 0; k < AGENTS; k++) {
        kids[k] = fork();
        assert_true(kids[k] >= 0);
        if (kids[k] == 0) {
            close(p[0]);
            close(go[1]);
            char err[NF_ERR_LEN], host[32], c;
            struct nf_store *me;
            if (nf_store_open(&me, tgt.db, 0, err, sizeof(err)) != 0)
                _exit(1);
            snprintf(host, sizeof(host), "host%d", k);
            if (read(go[0], &c, 1) != 0) /* all start when the parent closes it */
                _exit(2);
            for (;;) {
                struct nf_job *j;
                int rc = nf_store_claim_job(me, NULL, 0, host, 60, &j);
                if (rc == NF_STORE_NOTFOUND)
                    break;
                if (rc != 0) {
                    fprintf(stderr, "claim: %s\n", nf_store_error(me));
                    _exit(3);
                }
                int64_t id = j->id;
                if (write(p[1], &id, sizeof(id)) != sizeof(id) ||
                    nf_store_end_job(me, j->id, j->attempt, "done", NULL) != 0)
                    _exit(4);
                nf_job_free(j);
            }
            nf_store_close(me);
            _exit(0);
        }
    }
    close(p[1]);
    close(go[0]);
    close(go[1]); /* go */
    int seen[JOBS] = {0};
    int64_t id;
    while (read(p[0], &id, sizeof(id)) == sizeof(id)) {
        assert_true(id >= ids[0] && id <= ids[JOBS - 1]);
        seen[id - ids[0]]++;
    }
    close(p[0]);
    for (int k = 0; k < AGENTS; k++) {
        int st;
        assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    for (int i = 0; i < JOBS; i++)
        if (seen[i] != 1)
            fail_msg("job %lld claimed %d times", (long long)ids[i], seen[i]);
    assert_int_equal(tgt_int("SELECT count(*) FROM jobs WHERE state = 'done' AND attempt = 1"),
                     JOBS);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_submit_claim_finish), BOTH(test_tags),
        BOTH(test_lease_runs_out),      BOTH(test_superseded),
        BOTH(test_concurrent_claims),
    };
    int failed = cmocka_run_group_tests_name("jobs/sqlite", tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("jobs/postgresql", tests, tgt_group_pg, NULL);
    return failed;
}
