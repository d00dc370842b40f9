/* The measured session engine: rounds in the order asked (the warm-up
 * round first, in variant order), the stop rule asked from the minimum on
 * and obeyed, a stop rule's failure passed through, and the final status,
 * repeat and session id stored.  Each variant is a command that appends its
 * name to a log, so the order is read back, not raced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "measure/repetition.h"
#include "measure/runspec.h"
#include "measure/session.h"
#include "store/store.h"

static char dir[64], db[128], logpath[128];

struct variant {
    char script[256];
    char *argv[8];
    struct nf_runspec spec;
};

static struct variant va, vb;
static struct nf_store *store;

/* A run spec of `-- /bin/sh -c 'echo NAME >>LOG'`, no counters. */
static void make_variant(struct variant *v, const char *name)
{
    snprintf(v->script, sizeof(v->script), "echo %s >>%s", name, logpath);
    char *argv[] = {"run", "--", "/bin/sh", "-c", v->script, NULL};
    memcpy(v->argv, argv, sizeof(argv));
    char err[NF_ERR_LEN];
    int help = 0;
    if (nf_runspec_parse(&v->spec, 5, v->argv, &help, err, sizeof(err)))
        fail_msg("parse: %s", err);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/nf-test-session.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(db, sizeof(db), "%s/t.db", dir);
    snprintf(logpath, sizeof(logpath), "%s/log", dir);
    make_variant(&va, "a");
    make_variant(&vb, "b");
    char err[NF_ERR_LEN];
    if (nf_store_open(&store, db, NF_STORE_CREATE, err, sizeof(err)) != 0)
        fail_msg("open: %s", err);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    nf_store_close(store);
    nf_runspec_free(&va.spec);
    nf_runspec_free(&vb.spec);
    char *cmd = nf_xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    return 0;
}

/* The log, one name a line, as one string ("abba..."); emptied. */
static void take_log(char *out, size_t len)
{
    FILE *f = fopen(logpath, "r");
    size_t n = 0;
    int c;
    while (f && (c = fgetc(f)) != EOF)
        if (c != '\n' && n + 1 < len)
            out[n++] = (char)c;
    out[n] = 0;
    if (f)
        fclose(f);
    unlink(logpath);
}

/* Begin and run a session of a and b; returns nf_session_run's code. */
static int session(struct nf_session *s, const struct nf_session_opts *o, char *err)
{
    struct nf_session_variant v[] = {{"a", &va.spec}, {"b", &vb.spec}};
    unlink(logpath);
    assert_int_equal(nf_session_begin(s, store, v, 2, o, err, NF_ERR_LEN), 0);
    return nf_session_run(s, err, NF_ERR_LEN);
}

static void test_abba_rounds_and_store(void **state)
{
    (void)state;
    struct nf_session_opts o = {
        .warmup = 1, .min_rounds = 3, .max_rounds = 3, .order = NF_ORDER_ABBA, .id_prefix = "t"};
    struct nf_session s;
    char err[NF_ERR_LEN] = "", log[64];
    assert_int_equal(session(&s, &o, err), 0);
    take_log(log, sizeof(log));
    assert_string_equal(log, "ababbaab"); /* warm-up ab; rounds ab, ba, ab */
    assert_int_equal(s.status, NF_RUN_COMPLETE);
    assert_int_equal(s.rounds, 3);
    assert_string_equal(s.why, "the maximum number of rounds");
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    for (size_t i = 0; i < 2; i++) {
        struct nf_run *back = NULL;
        assert_int_equal(nf_store_load_run(store, s.runs[i]->id, &back), 0);
        assert_string_equal(back->label, i ? "b" : "a");
        assert_string_equal(back->status, "complete");
        assert_int_equal(back->repeat, 3);
        assert_int_equal(back->warmup, 1);
        assert_int_equal(nf_run_find(back, "wall")->n, 3);
        assert_non_null(back->session);
        assert_string_equal(back->session, s.id);
        assert_true(strncmp(s.id, "t-", 2) == 0);
        nf_run_free(back);
    }
    nf_session_free(&s);
}

/* abba with three variants: a Williams design, six rounds in a cycle
 * (abc bca cab and those reversed), each variant in each position twice
 * and each ordered pair adjacent twice; with four, four rounds. */
static void test_abba_williams(void **state)
{
    (void)state;
    struct variant vc, vd;
    make_variant(&vc, "c");
    make_variant(&vd, "d");
    struct nf_session_variant v[] = {
        {"a", &va.spec}, {"b", &vb.spec}, {"c", &vc.spec}, {"d", &vd.spec}};
    struct nf_session_opts o = {
        .warmup = 1, .min_rounds = 6, .max_rounds = 6, .order = NF_ORDER_ABBA, .id_prefix = "t"};
    struct nf_session s;
    char err[NF_ERR_LEN] = "", log[128];
    unlink(logpath);
    assert_int_equal(nf_session_begin(&s, store, v, 3, &o, err, NF_ERR_LEN), 0);
    assert_int_equal(nf_session_run(&s, err, NF_ERR_LEN), 0);
    take_log(log, sizeof(log));
    /* warm-up abc, then the cycle */
    assert_string_equal(log, "abc"
                             "abc"
                             "bca"
                             "cab"
                             "cba"
                             "acb"
                             "bac");
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    nf_session_free(&s);

    o.min_rounds = o.max_rounds = 4;
    assert_int_equal(nf_session_begin(&s, store, v, 4, &o, err, NF_ERR_LEN), 0);
    assert_int_equal(nf_session_run(&s, err, NF_ERR_LEN), 0);
    take_log(log, sizeof(log));
    assert_string_equal(log, "abcd"
                             "abdc"
                             "bcad"
                             "cdba"
                             "dacb");
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    nf_session_free(&s);
    nf_runspec_free(&vc.spec);
    nf_runspec_free(&vd.spec);
}

struct stopper {
    int calls;
    long seen[8]; /* repetitions of each variant's wall at each call */
    int stop_at;  /* the call that stops; 0: never */
    int fail;     /* return this from the first call instead */
};

static int stop_rule(void *ctx, const char *const *names, struct nf_run **runs, size_t n,
                     const char **why, char *note, size_t notelen, char *err, size_t errlen)
{
    struct stopper *st = ctx;
    (void)note;
    (void)notelen;
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "a");
    assert_int_equal(nf_run_find(runs[0], "wall")->n, nf_run_find(runs[1], "wall")->n);
    st->seen[st->calls++] = (long)nf_run_find(runs[0], "wall")->n;
    if (st->fail) {
        snprintf(err, errlen, "the rule refuses");
        return st->fail;
    }
    if (st->calls == st->stop_at) {
        *why = "enough";
        return 1;
    }
    return 0;
}

/* Asked after every round from the minimum on, with every repetition so
 * far; its stop ends the session there, and repeat is the rounds run. */
static void test_stop_rule(void **state)
{
    (void)state;
    struct stopper st = {.stop_at = 2};
    struct nf_session_opts o = {.warmup = 1,
                                .min_rounds = 2,
                                .max_rounds = 10,
                                .order = NF_ORDER_RANDOM,
                                .seed = 3,
                                .stop = stop_rule,
                                .stop_ctx = &st};
    struct nf_session s;
    char err[NF_ERR_LEN] = "", log[64];
    assert_int_equal(session(&s, &o, err), 0);
    take_log(log, sizeof(log));
    assert_int_equal(st.calls, 2);
    assert_int_equal(st.seen[0], 2);
    assert_int_equal(st.seen[1], 3);
    assert_int_equal(s.rounds, 3);
    assert_string_equal(s.why, "enough");
    assert_int_equal(strlen(log), 2 + 3 * 2);
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    struct nf_run *back = NULL;
    assert_int_equal(nf_store_load_run(store, s.runs[1]->id, &back), 0);
    assert_int_equal(back->repeat, 3);
    assert_null(back->session); /* no id_prefix: no session id */
    nf_run_free(back);
    nf_session_free(&s);
}

/* The same seed gives the same random order; each round runs each variant
 * once. */
static void test_random_order_is_seeded(void **state)
{
    (void)state;
    char logs[2][64];
    for (int k = 0; k < 2; k++) {
        struct nf_session_opts o = {
            .warmup = 0, .min_rounds = 8, .max_rounds = 8, .order = NF_ORDER_RANDOM, .seed = 42};
        struct nf_session s;
        char err[NF_ERR_LEN] = "";
        assert_int_equal(session(&s, &o, err), 0);
        take_log(logs[k], sizeof(logs[k]));
        assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
        nf_session_free(&s);
    }
    assert_string_equal(logs[0], logs[1]);
    assert_int_equal(strlen(logs[0]), 16);
    for (size_t r = 0; r < 8; r++)
        assert_true(logs[0][2 * r] != logs[0][2 * r + 1]);
}

/* A failing stop rule fails the session with its code (NF_EINPUT: the
 * input's fault) and its line; the runs are stored as failed. */
static void test_stop_rule_failure(void **state)
{
    (void)state;
    struct stopper st = {.fail = NF_EINPUT};
    struct nf_session_opts o = {
        .min_rounds = 2, .max_rounds = 5, .stop = stop_rule, .stop_ctx = &st};
    struct nf_session s;
    char err[NF_ERR_LEN] = "";
    assert_int_equal(session(&s, &o, err), NF_EINPUT);
    assert_string_equal(err, "the rule refuses");
    assert_int_equal(s.status, NF_RUN_FAILED);
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    struct nf_run *back = NULL;
    assert_int_equal(nf_store_load_run(store, s.runs[0]->id, &back), 0);
    assert_string_equal(back->status, "failed");
    nf_run_free(back);
    nf_session_free(&s);
}

/* Sequential: min_rounds of each variant in turn; the stop rule is never
 * asked. */
static void test_sequential(void **state)
{
    (void)state;
    struct stopper st = {.stop_at = 1};
    struct nf_session_opts o = {.warmup = 1,
                                .min_rounds = 2,
                                .max_rounds = 2,
                                .order = NF_ORDER_SEQUENTIAL,
                                .stop = stop_rule,
                                .stop_ctx = &st};
    struct nf_session s;
    char err[NF_ERR_LEN] = "", log[64];
    assert_int_equal(session(&s, &o, err), 0);
    take_log(log, sizeof(log));
    assert_string_equal(log, "abaabb"); /* warm-up ab; a, a, b, b */
    assert_int_equal(st.calls, 0);
    assert_int_equal(s.rounds, 2);
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    nf_session_free(&s);
}

/* The time limit holds before the minimum too: a limit shorter than a
 * round ends the session after its first round, the stop rule never
 * asked, and why says the verdict rests on fewer rounds than the
 * minimum. */
static void test_max_time_before_min(void **state)
{
    (void)state;
    struct stopper st = {0};
    struct nf_session_opts o = {.warmup = 1,
                                .min_rounds = 5,
                                .max_rounds = 10,
                                .max_time = 1e-9,
                                .order = NF_ORDER_ABBA,
                                .stop = stop_rule,
                                .stop_ctx = &st};
    struct nf_session s;
    char err[NF_ERR_LEN] = "", log[64];
    assert_int_equal(session(&s, &o, err), 0);
    take_log(log, sizeof(log));
    assert_string_equal(log, "abab"); /* the warm-up round, one round */
    assert_int_equal(st.calls, 0);
    assert_int_equal(s.rounds, 1);
    assert_int_equal(s.time_limited, 1);
    assert_string_equal(s.why, "the time limit (--max-time 1e-09 s), after 1 round: fewer than "
                               "the minimum of 5, so the verdict rests on fewer rounds than the "
                               "design's minimum");
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    struct nf_run *back = NULL;
    assert_int_equal(nf_store_load_run(store, s.runs[1]->id, &back), 0);
    assert_int_equal(back->repeat, 1);
    assert_string_equal(back->status, "complete");
    nf_run_free(back);
    nf_session_free(&s);
}

/* From the minimum on the stop rule is asked first, then the limit; at
 * the maximum the maximum is why it ended, not the limit. */
static void test_max_time_after_min(void **state)
{
    (void)state;
    struct stopper st = {0};
    struct nf_session_opts o = {.min_rounds = 1,
                                .max_rounds = 10,
                                .max_time = 1e-9,
                                .order = NF_ORDER_ABBA,
                                .stop = stop_rule,
                                .stop_ctx = &st};
    struct nf_session s;
    char err[NF_ERR_LEN] = "", log[64];
    assert_int_equal(session(&s, &o, err), 0);
    take_log(log, sizeof(log));
    assert_string_equal(log, "ab");
    assert_int_equal(st.calls, 1);
    assert_int_equal(s.rounds, 1);
    assert_string_equal(s.why, "the time limit (--max-time 1e-09 s)");
    nf_session_free(&s);

    o.max_rounds = 1;
    assert_int_equal(session(&s, &o, err), 0);
    take_log(log, sizeof(log));
    assert_string_equal(log, "ab");
    assert_int_equal(s.time_limited, 0);
    assert_string_equal(s.why, "the maximum number of rounds");
    nf_session_free(&s);
}

/* Sequential order: a time limit shorter than a repetition leaves each
 * variant one repetition (every variant has values to compare), never
 * fewer; the runs store the repetitions they got. */
static void test_max_time_sequential(void **state)
{
    (void)state;
    struct nf_session_opts o = {.warmup = 1,
                                .min_rounds = 3,
                                .max_rounds = 3,
                                .max_time = 1e-9,
                                .order = NF_ORDER_SEQUENTIAL};
    struct nf_session s;
    char err[NF_ERR_LEN] = "", log[64];
    assert_int_equal(session(&s, &o, err), 0);
    take_log(log, sizeof(log));
    assert_string_equal(log, "abab"); /* warm-up ab; a, b */
    assert_int_equal(s.rounds, 1);
    assert_int_equal(s.time_limited, 1);
    assert_non_null(strstr(s.why, "the time limit (--max-time 1e-09 s), after 1 round: fewer "
                                  "than the minimum of 3"));
    assert_int_equal(nf_session_finish(&s, err, sizeof(err)), 0);
    struct nf_run *back = NULL;
    assert_int_equal(nf_store_load_run(store, s.runs[0]->id, &back), 0);
    assert_int_equal(back->repeat, 1);
    assert_int_equal(nf_run_find(back, "wall")->n, 1);
    nf_run_free(back);
    nf_session_free(&s);
}

static void test_order_names(void **state)
{
    (void)state;
    enum nf_order o;
    assert_int_equal(nf_order_parse("abba", &o), 0);
    assert_int_equal(o, NF_ORDER_ABBA);
    assert_string_equal(nf_order_name(NF_ORDER_SEQUENTIAL), "sequential");
    assert_int_equal(nf_order_parse("zigzag", &o), -1);
}

/* A hook attached to the ready child: a stop signal comes now, and the
 * start fails (as it does when the signal's kill of the child lands
 * before our "go"). */
static int stop_at_attach(void *ctx, pid_t pid, int on_exec, char *err, size_t errlen)
{
    (void)ctx, (void)pid, (void)on_exec;
    nf_stop_signal = SIGTERM;
    snprintf(err, errlen, "cannot start: the child died before it was ready");
    return -1;
}

static void no_detach(void *ctx, int keep)
{
    (void)ctx, (void)keep;
}

/* A repetition that fails while a stop signal is pending is the stop's:
 * the signal kills the child wherever it is, also while it starts, and
 * the run must end interrupted, not failed. */
static void test_failure_during_stop(void **state)
{
    (void)state;
    char *argv[] = {"run", "--", "/bin/true", NULL};
    struct nf_runspec spec;
    char err[NF_ERR_LEN] = "";
    int help = 0;
    if (nf_runspec_parse(&spec, 3, argv, &help, err, sizeof(err)))
        fail_msg("parse: %s", err);
    struct nf_rep_hook hook = {stop_at_attach, no_detach, NULL};
    spec.hook = &hook;
    struct nf_session_variant v[] = {{"x", &spec}};
    struct nf_session_opts o = {.min_rounds = 1, .max_rounds = 1};
    struct nf_session s;
    assert_int_equal(nf_session_begin(&s, store, v, 1, &o, err, sizeof(err)), 0);
    int st = nf_session_rep(&s, 0, 1, err, sizeof(err));
    assert_int_equal(nf_stop_signal, SIGTERM); /* the hook ran */
    nf_stop_signal = 0;
    assert_int_equal(st, NF_REP_STOPPED);
    nf_session_free(&s);
    nf_runspec_free(&spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abba_rounds_and_store),
        cmocka_unit_test(test_abba_williams),
        cmocka_unit_test(test_stop_rule),
        cmocka_unit_test(test_random_order_is_seeded),
        cmocka_unit_test(test_stop_rule_failure),
        cmocka_unit_test(test_sequential),
        cmocka_unit_test(test_max_time_before_min),
        cmocka_unit_test(test_max_time_after_min),
        cmocka_unit_test(test_max_time_sequential),
        cmocka_unit_test(test_order_names),
        cmocka_unit_test(test_failure_during_stop),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
