/* A repetition that fails part-way through a run, under the one rule of
 * doc/noisefloor-run.1: the run ends there, is stored as failed with
 * the repetitions before it, and the failure is one line.  The same for
 * a built-in workload whose repetition reports an error (as netsend's
 * "stream measured no time" and wakeup's "no time to measure" guards do,
 * which the option bounds keep out of reach from the command line) and
 * for a command that exits non-zero: here both fail at their 4th
 * invocation (the warm-up and two recorded repetitions before it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "measure/runspec.h"
#include "measure/session.h"
#include "store/store.h"
#include "workload/workload.h"

static char dir[64], db[128], counter[128];

/* Count this invocation in the counter file (the repetition runs in a
 * child: a variable would not carry over); its number. */
static int invocation(void)
{
    int n = 0;
    FILE *f = fopen(counter, "r");
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = 0;
        fclose(f);
    }
    f = fopen(counter, "w");
    if (f) {
        fprintf(f, "%d\n", ++n);
        fclose(f);
    }
    return n;
}

/* pipe, whose 4th repetition fails as a workload's error does. */
static int flaky_run(const void *cfg, double *values, char *err, size_t errlen)
{
    if (invocation() == 4) {
        snprintf(err, errlen, "flaky: the 4th repetition measured no time");
        return -1;
    }
    return nf_workload_pipe.run_once(cfg, values, err, errlen);
}

static struct nf_workload flaky;

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/nf-test-repfail.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(db, sizeof(db), "%s/t.db", dir);
    snprintf(counter, sizeof(counter), "%s/n", dir);
    flaky = nf_workload_pipe;
    flaky.name = "flaky";
    flaky.run_once = flaky_run;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = nf_xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    return 0;
}

/* Run spec (argv as `run` gets it) for one run of 5 repetitions and one
 * warm-up, as `run` does it; what nf_session_run said in err; the stored
 * run in *back. */
static int run_failing(struct nf_runspec *spec, char *err, struct nf_run **back)
{
    struct nf_store *st;
    char e[NF_ERR_LEN];
    if (nf_store_open(&st, db, NF_STORE_CREATE, e, sizeof(e)) != 0)
        fail_msg("open: %s", e);
    unlink(counter);
    struct nf_session_variant v = {"x", spec};
    struct nf_session_opts o = {.warmup = 1, .min_rounds = 5, .max_rounds = 5};
    struct nf_session s;
    assert_int_equal(nf_session_begin(&s, st, &v, 1, &o, err, NF_ERR_LEN), 0);
    int rc = nf_session_run(&s, err, NF_ERR_LEN);
    assert_int_equal(s.status, NF_RUN_FAILED);
    assert_int_equal(s.reps[0], 2);
    assert_int_equal(nf_session_finish(&s, e, sizeof(e)), 0);
    assert_int_equal(nf_store_load_run(st, s.runs[0]->id, back), 0);
    nf_session_free(&s);
    nf_store_close(st);
    return rc;
}

static void test_workload_fails_midway(void **state)
{
    (void)state;
    char *argv[] = {"run", "-r", "5", "pipe", "-l", "100", NULL};
    struct nf_runspec spec;
    char err[NF_ERR_LEN] = "";
    int help = 0;
    if (nf_runspec_parse(&spec, 6, argv, &help, err, sizeof(err)))
        fail_msg("parse: %s", err);
    spec.wl = &flaky;
    struct nf_run *back = NULL;
    assert_int_equal(run_failing(&spec, err, &back), -1);
    assert_string_equal(err, "repetition failed: flaky: the 4th repetition measured no time");
    assert_string_equal(back->status, "failed");
    assert_int_equal(nf_run_find(back, "usecs/op")->n, 2);
    nf_run_free(back);
    nf_runspec_free(&spec);
}

static void test_command_fails_midway(void **state)
{
    (void)state;
    char *script = nf_xasprintf("n=$(cat %s 2>/dev/null || echo 0); n=$((n + 1)); "
                                "echo $n >%s; [ $n -ne 4 ]",
                                counter, counter);
    char *argv[] = {"run", "-r", "5", "--", "/bin/sh", "-c", script, NULL};
    struct nf_runspec spec;
    char err[NF_ERR_LEN] = "";
    int help = 0;
    if (nf_runspec_parse(&spec, 7, argv, &help, err, sizeof(err)))
        fail_msg("parse: %s", err);
    struct nf_run *back = NULL;
    assert_int_equal(run_failing(&spec, err, &back), -1);
    assert_string_equal(err, "repetition failed: '/bin/sh' exited with status 1");
    assert_string_equal(back->status, "failed");
    assert_int_equal(nf_run_find(back, "wall")->n, 2);
    nf_run_free(back);
    nf_runspec_free(&spec);
    free(script);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workload_fails_midway),
        cmocka_unit_test(test_command_fails_midway),
    };
    return cmocka_run_group_tests_name("rep_failure", tests, setup, teardown);
}
